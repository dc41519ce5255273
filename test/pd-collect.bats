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
	PATH="$FIX/pd-collect/fakebin:$PATH" run_pd 0 pd-collect -i 0.1 -- sleep 1
	jt "$(jqr pd.run .sources)" 'index("nvidia-smi") != null and index("npu-smi") != null'
	# the stand-in prints util 85, mem util 40, 1024 / 81559 MiB, 500 / 700 W
	# (its process-list samples, source nvidia-smi-apps, may come first on
	# a loaded machine)
	jt "$(jqr pd.sample 'select(.resource=="gpu" and .source=="nvidia-smi-csv")' | head -n 1)" '.device == "0"
	    and .source == "nvidia-smi-csv" and .name == "NVIDIA H100 80GB HBM3" and .util_ratio == 0.85
	    and .mem_util_ratio == 0.4 and .mem_used_bytes == 1073741824 and .power_limit_w == 700'
	# npu-smi info (fixture table): NPU 3 chip 0 at 92 % AICore
	jt "$(jqr pd.sample 'select(.resource=="npu")' | head -n 1)" '.device == "3:0" and .util_ratio == 0.92'
}

# Which processes use each accelerator: the job writes the stand-ins'
# process lists with its own pid ($$ of the job's shell), pid 1 (a process
# of this host outside the job) and a pid no process has (4194000 is above
# any pid_max this machine gives: /proc/sys/kernel/pid_max). Expected
# values are the rows written: 2048 MiB = 2147483648 bytes for the job,
# 512 MiB for init; npu-smi MB are the same unit: 3969 MB = 4161798144.
@test "pd-collect: per-process accelerator use: the job's, others', unseen" {
	[ "$(cat /proc/sys/kernel/pid_max)" -lt 4194000 ] || skip "pid_max allows pid 4194000"
	d=$BATS_TEST_TMPDIR
	cat >"$d/job.sh" <<EOF
u=GPU-e16d248c-c1a9-3302-01d6-82c18e02c9ce
printf '%s, python3, %s, 2048\n1, init, %s, 512\n4194000, ghost, %s, 100\n' \$\$ \$u \$u \$u >"$d/apps"
printf '| NPU  Chip  | Process id | Process name | Process memory(MB) |\n| 3  0  | %s | python | 3969 |\n' \$\$ >"$d/procs"
sleep 0.6
EOF
	PD_FAKE_APPS=$d/apps PD_FAKE_NPU_PROCS=$d/procs PATH="$FIX/pd-collect/fakebin:$PATH" \
	    run_pd 0 pd-collect -i 0.1 -- sh "$d/job.sh"
	jt "$(jqr pd.run .sources)" 'index("nvidia-smi --query-compute-apps") != null'
	# the first look after the job wrote its lists (the job's shell alive)
	jt "$(jqr pd.sample 'select(.source=="nvidia-smi-apps" and .job_processes > 0)' | head -n 1)" \
	    '.resource == "gpu" and .device == "0" and .job_processes == 1 and .other_processes == 1
	    and .unseen_processes == 1 and .job_mem_bytes == 2147483648 and .other_mem_bytes == 536870912
	    and .others == [{"pid":1,"process":"init"}]'
	jt "$(jqr pd.sample 'select(.source=="npu-smi-procs" and .job_processes > 0)' | head -n 1)" \
	    '.resource == "npu" and .device == "3:0" and .job_processes == 1 and .other_processes == 0
	    and .job_mem_bytes == 4161798144'
}

# Memory of a tree counted once: python allocates and touches 64 MiB, then
# forks three children that keep it shared (copy-on-write, untouched). RSS
# per process counts the 64 MiB four times; PSS (smaps_rollup) splits each
# shared page among its sharers, so the job's sum stays near 64 MiB
# (bounds: the interpreter itself adds some MiB).
@test "pd-collect: job memory counts shared pages once (job_pss_bytes)" {
	[ -r /proc/self/smaps_rollup ] || skip "no /proc/PID/smaps_rollup (Linux < 4.14)"
	run_pd 0 C -i 0.1 -- python3 -c '
import os, time
b = bytearray(64 << 20)
for i in range(0, len(b), 4096): b[i] = 1
kids = [os.fork() for _ in range(3)]
if 0 in kids: time.sleep(0.8); os._exit(0)
time.sleep(0.8)
for k in kids: os.waitpid(k, 0)'
	m=$(jqr pd.sample 'select(.resource=="mem" and .job_pss_bytes != null)' | jq -s 'max_by(.job_rss_bytes)')
	echo "$m" >&2
	jt "$m" '.job_rss_bytes > 4 * 64 * 1048576 and .job_pss_bytes > 64 * 1048576
	    and .job_pss_bytes < 2 * 64 * 1048576'
}

@test "pd-collect: -n runs neither nvidia-smi nor npu-smi" {
	PATH="$FIX/pd-collect/fakebin:$PATH" run_pd 0 pd-collect -n -i 0.1 -- sleep 0.2
	jt "$(jqr pd.run .sources)" '. == ["/proc/stat","/proc/meminfo","/proc/diskstats","/proc/PID","/proc/net/dev"]'
	[ -z "$(jqr pd.sample 'select(.resource=="gpu" or .resource=="npu")')" ]
}

@test "pd-collect: the job is the whole process tree (sh -c, grandchildren)" {
	# bash runs a 0.6 s busy loop in a grandchild (timed with the builtin
	# EPOCHREALTIME: $SECONDS ticks whole seconds, so "SECONDS+1" lasted
	# anything from 0 to 1 s and the loop could end before the first
	# sample), then prints its own and its children's CPU time (the
	# builtin times): an independent account
	run_pd 0 C -r tree -- bash -c '( t0=${EPOCHREALTIME/./}; while (( ${EPOCHREALTIME/./} - t0 < 600000 )); do :; done ) & wait; times'
	# the subshell is a second process of the job
	[ "$(jqr pd.sample 'select(.resource=="cpu")|.job_processes' | sort -n | tail -n 1)" -ge 2 ]
	# CPU seconds of the job = sum of process_cpus x interval_s; times says
	# user+sys of the shell and its children (lines "XmY.YYYs XmY.YYYs");
	# the last partial interval (under a quarter of -i) may be missing
	mine=$(jqr pd.sample 'select(.resource=="cpu")|.process_cpus * .interval_s' | awk '{s+=$1} END {printf "%.3f", s}')
	theirs=$(printf '%s\n' "$stderr" | grep -E '^[0-9]+m[0-9.]+s [0-9]+m[0-9.]+s$' |
	    awk '{ for (i = 1; i <= 2; i++) { split($i, a, "m"); s += a[1] * 60 + a[2] } } END { printf "%.3f", s }')
	echo "samples: $mine s, times: $theirs s" >&2
	awk -v a="$mine" -v b="$theirs" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= 0.06) }'
}

@test "pd-collect: threads of the job's processes are counted" {
	run_pd 0 C -- python3 -c 'import threading, time
ts = [threading.Thread(target=time.sleep, args=(0.6,)) for _ in range(3)]
[t.start() for t in ts]; [t.join() for t in ts]'
	# the main thread and three sleepers
	[ "$(jqr pd.sample 'select(.resource=="cpu")|.job_threads' | sort -n | tail -n 1)" -ge 4 ]
}

@test "pd-collect: CPU samples carry the job's use, wait, and the others' use" {
	run_pd 0 C -- sleep 0.35
	jt "$(jqr pd.sample 'select(.resource=="cpu")' | head -n 1)" '(keys_unsorted[10:]|join(",")) ==
	    "util_ratio,busy_cpus,available_cpus,steal_ratio,iowait_ratio,max_core_ratio,process_cpus,top_thread_ratio,job_processes,job_threads,job_util_ratio,job_wait_cpus,job_demand_ratio,other_cpus,throttled_ratio,freq_ratio"'
	[ -z "$(jqr pd.sample 'select(.resource=="cpu") | select((.job_util_ratio >= 0 and .job_util_ratio <= 1
	    and .job_demand_ratio >= 0 and .job_demand_ratio <= 1 and .job_wait_cpus >= 0 and .other_cpus >= 0)|not)')" ]
	# the job's storage I/O and resident memory
	jt "$(jqr pd.sample 'select(.resource=="io")' | head -n 1)" '.device == "job" and .read_bytes_per_s >= 0 and .write_bytes_per_s >= 0'
	jt "$(jqr pd.sample 'select(.resource=="mem")' | head -n 1)" '.job_rss_bytes >= 0'
}

# A load of busy loops outside the job, one per CPU, for the contention
# tests; stopped by teardown.
load_start() {
	local i
	LOADPIDS=
	for i in $(seq "$(nproc)"); do
		sh -c 'while :; do :; done' &
		LOADPIDS="$LOADPIDS $!"
	done
}
teardown() {
	local p
	for p in ${LOADPIDS:-}; do kill "$p" 2>/dev/null || true; done
}

@test "pd-collect | pd-audit-limits: CPU-bound job under load is saturated: cpu (the job)" {
	load_start
	# the job: one busy loop per CPU for 2 s; whatever share the load and
	# the rest of the host leave it, its threads run or wait to run
	out=$(pd-collect -n -i 0.25 -- sh -c 'for i in $(seq $(nproc)); do timeout 2 sh -c "while :; do :; done" & done; wait' |
	    pd-audit-limits -n -t 0)
	output=$out
	jqr pd.verdict '{summary, contention}' >&2
	jt "$(jqr pd.verdict .)" '.alarm == false and (.summary|startswith("saturated: cpu (the job)"))
	    and .bound.resource == "cpu" and .saturated == ["cpu"]'
}

@test "pd-collect | pd-audit-limits: sleep-bound job under load is the red alarm, with contention" {
	load_start
	out=$(pd-collect -n -i 0.25 -- sleep 2 | pd-audit-limits -n -t 0)
	output=$out
	jqr pd.verdict '{summary, contention}' >&2
	jt "$(jqr pd.verdict .)" '.alarm == true and (.summary|startswith("red alarm, with contention: the host was"))
	    and .contention.contended == true and .contention.other_ratio >= 0.25'
	run_pd 1 pd-audit-limits -n -t 0 -e <<<"$out"
}
