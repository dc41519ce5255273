#!/usr/bin/env bats
# pd-collect runs short real commands with a short interval; the tests
# check the records' structure and the exit/signal handling, never how long
# anything took (wall-clock fields vary from run to run by nature).
load helper
load contract

C() { pd-collect -n -i 0.1 "$@"; }
jt() { jq -e "$2" <<<"$1" >/dev/null || { echo "failed: $2 on $1" >&2; return 1; }; }

@test "pd-collect: -h prints usage to stdout" { contract_h pd-collect; }
@test "pd-collect: bad option is exit 2" { contract_badopt pd-collect; }
@test "pd-collect: no command is a usage error" {
	run_pd 2 pd-collect -i 0.1
	[[ "$stderr" == *usage:* ]]
	[ -z "$output" ]
}
@test "pd-collect: -i must be 0.05 to 3600 seconds" {
	run_pd 2 pd-collect -i 0 -- true
	[[ "$stderr" == *"pd-collect: error: -i: interval must be 0.05 to 3600 seconds, not '0'"* ]]
}
@test "pd-collect: a command that cannot run is one error line, exit 5" {
	run_pd 5 C -- /nonexistent/dir
	[[ "$stderr" == "pd-collect: error: /nonexistent/dir: No such file or directory" ]]
	[ -z "$output" ]
}
@test "pd-collect: writing to /dev/full is exit 5" {
	contract_devfull pd-collect -n -i 0.1 -- true
}

@test "pd-collect: pd.run first, then pd.sample records with keys in order" {
	run_pd 0 C -r r1 -- sh -c 'sleep 0.3'
	[ "$(printf '%s\n' "$output" | head -n 1 | jq -r .type)" = pd.run ]
	jt "$(jqr pd.run .)" '(keys_unsorted|join(",")) ==
	    "type,v,root,rank,run,command,exit_status,signal,wall_s,start,end,interval_s,samples,sources"'
	jt "$(jqr pd.run .)" '.run == "r1" and .command == ["sh","-c","sleep 0.3"] and .exit_status == 0
	    and .signal == null and .wall_s > 0 and .interval_s == 0.1
	    and (.start|test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}\\.[0-9]{3}Z$")) and .end >= .start
	    and .sources[0] == "/proc/stat"'
	# samples counts the pd.sample records written
	[ "$(jqr pd.run .samples)" -eq "$(jqr pd.sample .type | wc -l)" ]
	# at least one CPU and one memory sample; every sample starts the same way
	[ "$(jqr pd.sample 'select(.resource=="cpu")|.run' | wc -l)" -ge 1 ]
	[ "$(jqr pd.sample 'select(.resource=="mem")|.run' | wc -l)" -ge 1 ]
	[ -z "$(jqr pd.sample 'select((keys_unsorted[0:10]|join(",")) != "type,v,root,rank,run,t_s,interval_s,resource,device,source")')" ]
}

@test "pd-collect: CPU, memory and disk samples have values in range" {
	run_pd 0 C -- sh -c 'sleep 0.3'
	[ -z "$(jqr pd.sample 'select(.resource=="cpu") | select((.util_ratio >= 0 and .util_ratio <= 1
	    and .available_cpus > 0 and .busy_cpus >= 0 and .t_s > 0 and .interval_s > 0)|not)')" ]
	[ -z "$(jqr pd.sample 'select(.resource=="mem") | select((.total_bytes > 0 and .available_bytes >= 0
	    and .used_ratio >= 0 and .used_ratio <= 1)|not)')" ]
	[ -z "$(jqr pd.sample 'select(.resource=="disk") | select((.device|type) != "string"
	    or .read_bytes_per_s < 0 or .write_bytes_per_s < 0)')" ]
}

@test "pd-collect: the command's own threads are followed (top_thread_ratio)" {
	run_pd 0 C -- sleep 0.45
	# from the second tick on, each thread's share of one core is known
	# (0 for a sleeping thread)
	[ -n "$(jqr pd.sample 'select(.resource=="cpu" and .top_thread_ratio != null) | .top_thread_ratio')" ]
	[ -z "$(jqr pd.sample 'select(.resource=="cpu" and .top_thread_ratio != null) | select(.top_thread_ratio < 0 or .process_cpus < 0)')" ]
}

@test "pd-collect: the command's stdout goes to stderr, the stream stays records" {
	run_pd 0 C -- sh -c 'echo hello-from-cmd'
	[[ "$stderr" == *hello-from-cmd* ]]
	[ -z "$(printf '%s\n' "$output" | grep -v '^{')" ]
}

@test "pd-collect: a failing command is recorded and makes exit 3" {
	run_pd 3 C -- sh -c 'exit 4'
	jt "$(jqr pd.run .)" '.exit_status == 4 and .signal == null'
	[[ "$stderr" == *"pd-collect: warning: sh: exited with status 4"* ]]
}

@test "pd-collect: a command killed by a signal: signal name, exit 3" {
	run_pd 3 C -- sh -c 'kill -TERM $$'
	jt "$(jqr pd.run .)" '.exit_status == null and .signal == "SIGTERM"'
}

@test "pd-collect: SIGTERM to pd-collect is forwarded to the command" {
	local out="$BATS_TEST_TMPDIR/out"
	pd-collect -n -i 0.1 -- sleep 30 >"$out" 2>/dev/null &
	local pid=$!
	sleep 0.5
	kill -TERM "$pid"
	local st=0
	wait "$pid" || st=$?
	[ "$st" -eq 3 ]
	jt "$(head -n 1 "$out")" '.signal == "SIGTERM" and .command == ["sleep","30"]'
}

@test "pd-collect: -p DIR reports the profiler output the command wrote" {
	local d="$BATS_TEST_TMPDIR/prof"
	mkdir -p "$d/old"
	cp "$FIX/pd-locate/tiny.pt.trace.json" "$d/old/before.pt.trace.json"
	touch -d '2001-01-01' "$d/old/before.pt.trace.json"
	run_pd 0 C -p "$d" -- cp "$FIX/pd-locate/tiny.pt.trace.json" "$d/new.pt.trace.json"
	# only the trace written during the run
	[ "$(jqr pd.root .root)" = "\"$d/new.pt.trace.json\"" ]
	[ "$(jqr pd.root .format)" = '"kineto"' ]
	# -a: every root below DIR
	run_pd 0 C -a -p "$d" -- true
	[ "$(jqr pd.root .root | wc -l)" -eq 2 ]
	[ "$(printf '%s\n' "$output" | tail -n 1 | jq -r .type)" = pd.root ]
}

@test "pd-collect | pd-audit-limits: the samples get a verdict" {
	out=$(C -- sh -c 'sleep 0.3' | pd-audit-limits -n -t 0)
	output=$out
	[ "$(jqr pd.verdict .type)" = '"pd.verdict"' ]
	jt "$(jqr pd.verdict .)" '(.resources|map(.resource)|index("cpu")) != null and (.alarm|type) == "boolean"'
}

@test "pd-collect: nvidia-smi --loop-ms child (a stand-in) gives gpu samples" {
	PATH="$FIX/pd-collect/fakebin:$PATH" run_pd 0 pd-collect -i 0.1 -- sleep 0.45
	jt "$(jqr pd.run .sources)" 'index("nvidia-smi") != null and index("npu-smi") != null'
	# the stand-in prints util 85, mem util 40, 1024 / 81559 MiB, 500 / 700 W
	jt "$(jqr pd.sample 'select(.resource=="gpu")' | head -n 1)" '.device == "0"
	    and .source == "nvidia-smi-csv" and .name == "NVIDIA H100 80GB HBM3" and .util_ratio == 0.85
	    and .mem_util_ratio == 0.4 and .mem_used_bytes == 1073741824 and .power_limit_w == 700'
	# npu-smi info (fixture table): NPU 3 chip 0 at 92 % AICore
	jt "$(jqr pd.sample 'select(.resource=="npu")' | head -n 1)" '.device == "3:0" and .util_ratio == 0.92'
}

@test "pd-collect: -n runs neither nvidia-smi nor npu-smi" {
	PATH="$FIX/pd-collect/fakebin:$PATH" run_pd 0 pd-collect -n -i 0.1 -- sleep 0.2
	jt "$(jqr pd.run .sources)" '. == ["/proc/stat","/proc/meminfo","/proc/diskstats"]'
	[ -z "$(jqr pd.sample 'select(.resource=="gpu" or .resource=="npu")')" ]
}
