#!/usr/bin/env bats
# pd-locate on the hand-made tree in fixtures/pd-locate/tree. Every
# expected value below was read off the fixture files (their names and
# their few bytes); comments say which file each one comes from.
load helper
load contract

T="$FIX/pd-locate/tree"

# root path relative to the fixture tree, for short assertions
rel() {
	jqr pd.root "$1" | sed "s|$T/||g"
}

@test "pd-locate: -h prints usage to stdout" { contract_h pd-locate; }
@test "pd-locate: bad option is exit 2" { contract_badopt pd-locate; }
@test "pd-locate: missing path is one error line, exit 5" { contract_missing pd-locate; }
@test "pd-locate: no operand is a usage error" {
	run_pd 2 pd-locate
	[[ "$stderr" == *usage:* ]]
}
@test "pd-locate: writing to /dev/full is exit 5" {
	contract_devfull pd-locate "$FIX/pd-locate/tiny.pt.trace.json"
}

@test "pd-locate: - passes stdin records through byte for byte" {
	local in out
	in=$(mktemp)
	printf '%s\n' '{"type":"x.other","v":9,"k":[1,2.50,"é"]}' 'not json {' \
	    '  {"type":"x.more" ,"v":1}' >"$in"
	printf '%s' '{"type":"x.last","v":1}' >>"$in"
	run_pd 3 pd-locate - <"$in"
	[[ "$stderr" == *"pd-locate: warning: <stdin>:2: not a JSON object"* ]]
	out=$(mktemp)
	pd-locate - <"$in" 2>/dev/null >"$out" || true
	diff <(cat "$in"; echo) "$out"
	rm -f "$in" "$out"
}

@test "pd-locate: - with empty stdin writes nothing" {
	run_pd 0 pd-locate - </dev/null
	[ -z "$output" ]
}

@test "pd-locate: stdin records first, then the roots of the operands" {
	run_pd 0 pd-locate - "$T/loose" <<<'{"type":"x.a","v":1}'
	[ "${lines[0]}" = '{"type":"x.a","v":1}' ]
	[ "$(rel '.root')" = '"loose"' ]
}

@test "pd-locate: -d must be a positive integer" {
	run_pd 2 pd-locate -d 0 "$T"
	[[ "$stderr" == *"pd-locate: error: -d: depth must be 1 to 64, not '0'"* ]]
	run_pd 2 pd-locate -d x "$T"
}

@test "pd-locate: every root of the tree, sorted by root path, keys in order" {
	run_pd 0 pd-locate "$T"
	[ -z "$stderr" ]
	# 15 roots: job/ (cluster + 3 torch_npu), legacy/profiler (devices
	# 0 and 1), loose/, mixed/r_ascend_pt, ms/, prof/ (device_0,
	# device_2), traces/ (4)
	[ "$(jqr pd.root .root | wc -l)" -eq 15 ]
	jqr pd.root .root | sort -c
	[ "$(jqr pd.root 'keys_unsorted|join(",")' | sort -u)" = \
	    '"type,v,root,rank,device,format,framework,run,score,exports,world_size,process,env,covers,archive"' ]
	[ "$(rel '[.root,.format]|join(" ")' | tr -d '"' | tr '\n' ';')" = \
"job/cluster_analysis_output cluster_analysis;\
job/host_1_20250101_ascend_pt torch_npu;\
job/host_2_20250101_ascend_pt torch_npu;\
job/old_ascend_pt torch_npu;\
legacy/profiler#device=0 mindspore_legacy;\
legacy/profiler#device=1 mindspore_legacy;\
loose torch_npu;\
mixed/r_ascend_pt torch_npu;\
ms/rank0_ascend_ms mindspore;\
prof/PROF_000001_20230101000000000_AAAAAAAAAAAAAAAA/device_0 msprof_legacy;\
prof/PROF_000001_20230101000000000_AAAAAAAAAAAAAAAA/device_2 msprof_legacy;\
traces/autograd.json autograd;\
traces/kineto.pt.trace.json kineto;\
traces/memory_timeline.raw.json kineto;\
traces/truncated.pt.trace.json kineto;" ]
}

@test "pd-locate: torch_npu rank from rank_id (a string), device from its PROF device dir" {
	run_pd 0 pd-locate "$T/job/host_1_20250101_ascend_pt"
	# profiler_info_2.json has "rank_id": "2"; the PROF_* inside holds
	# device_4/ (and npu_module_mem.csv says NPU:4): rank 2 ran on device 4
	jqv pd.root '[.rank,.device,.world_size]' \
	    '[.exports[].kind]|join(",")'
	[ "${J[0]}" = '[2,4,null]' ]
	# the run is the directory holding the rank dirs
	[ "$(jqr pd.root .run)" = "\"$T/job\"" ]
	# the PROF dir inside the root is not a root of its own; README.txt
	# is not an export; exports are sorted by path
	[ "$(jqr pd.root .root | wc -l)" -eq 1 ]
	[ "$(rel '[.exports[].path]|join(" ")')" = "\"\
job/host_1_20250101_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv \
job/host_1_20250101_ascend_pt/ASCEND_PROFILER_OUTPUT/npu_module_mem.csv \
job/host_1_20250101_ascend_pt/ASCEND_PROFILER_OUTPUT/step_trace_time.csv \
job/host_1_20250101_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json \
job/host_1_20250101_ascend_pt/profiler_info_2.json\"" ]
	[ "${J[1]}" = \
	    '"kernel_details,npu_module_mem,step_trace_time,trace_view,profiler_info"' ]
	# bytes are the file sizes (stat)
	local f=$T/job/host_1_20250101_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv
	[ "$(jqr pd.root ".exports[0].bytes")" -eq "$(stat -c %s "$f")" ]
	# score: 3 each for kernel_details, step_trace_time, trace_view; 2 for
	# npu_module_mem; 1 for profiler_info; 1 for a known rank = 13
	[ "$(jqr pd.root .score)" = 13 ]
}

@test "pd-locate: profiler_info.json without suffix, int rank_id; device from memory_record" {
	run_pd 0 pd-locate "$T/job/host_2_20250101_ascend_pt"
	# profiler_info.json: "rank_id": 3; memory_record.csv first row
	# Device Type NPU:5; profiler_metadata.json distributed_args.world_size 4
	[ "$(jqr pd.root '[.rank,.device,.world_size]')" = '[3,5,4]' ]
}

@test "pd-locate: rank from the profiler_info_N.json name when rank_id is absent" {
	run_pd 0 pd-locate "$T/job/old_ascend_pt"
	# profiler_info_3.json has no rank_id; no memory file: device unknown
	[ "$(jqr pd.root '[.rank,.device]')" = '[3,null]' ]
}

@test "pd-locate: stray export files next to a rank dir do not hide it" {
	run_pd 0 pd-locate "$T/mixed"
	# mixed/step_trace_time.csv sits beside r_ascend_pt/: mixed/ is not a
	# flat root; r_ascend_pt has no profiler_info: rank unknown
	[ "$(rel '[.root,.rank]|map(tostring)|join(" ")')" = '"mixed/r_ascend_pt null"' ]
}

@test "pd-locate: an ASCEND_PROFILER_OUTPUT operand stands for its root" {
	run_pd 0 pd-locate "$T/job/host_1_20250101_ascend_pt/ASCEND_PROFILER_OUTPUT"
	[ "$(rel .root)" = '"job/host_1_20250101_ascend_pt"' ]
}

@test "pd-locate: cluster_analysis_output is one root without rank or device" {
	run_pd 0 pd-locate "$T/job/cluster_analysis_output"
	jqv pd.root '[.format,.rank,.device]' \
	    '[.exports[].kind]|join(",")'
	[ "${J[0]}" = '["cluster_analysis",null,null]' ]
	[ "${J[1]}" = \
	    '"cluster_step_trace_time,communication_group"' ]
}

@test "pd-locate: a cluster_analysis root covers the per-rank roots of its run" {
	run_pd 0 pd-locate "$T/job"
	# job/ holds cluster_analysis_output/ and host_1 (rank 2), host_2 and
	# old (both rank 3): the cluster lists them by rank, then path
	[ "$(jqr pd.root 'select(.format == "cluster_analysis") | .covers | map("\(.rank) \(.root)") | join(";")' | sed "s|$T/||g")" = \
	    '"2 job/host_1_20250101_ascend_pt;3 job/host_2_20250101_ascend_pt;3 job/old_ascend_pt"' ]
	[ "$(jqr pd.root 'select(.format != "cluster_analysis") | .covers' | sort -u)" = null ]
	# each covered root gets the cluster's communication_group export
	# (the job's groups), kept in path order
	[ "$(jqr pd.root 'select(.rank == 2) | [.exports[].kind] | join(",")')" = \
	    '"communication_group,kernel_details,npu_module_mem,step_trace_time,trace_view,profiler_info"' ]
	# the cluster alone covers nothing
	run_pd 0 pd-locate "$T/job/cluster_analysis_output"
	[ "$(jqr pd.root .covers)" = '[]' ]
}

@test "pd-locate: MindSpore *_ascend_ms with a db export" {
	run_pd 0 pd-locate "$T/ms"
	# profiler_info_0.json: "rank_id": "0"
	jqv pd.root '[.format,.rank,.device]' \
	    '.exports[0].kind'
	[ "${J[0]}" = '["mindspore",0,null]' ]
	[ "${J[1]}" = '"ascend_mindspore_profiler_db"' ]
}

@test "pd-locate: MindSpore legacy flat dir: one root per device, rank unknown" {
	run_pd 0 pd-locate "$T/legacy"
	# step_trace_raw_{0,1}_detail_time.csv: devices 0 and 1; the legacy
	# files carry no rank, and a device id is never taken for a rank;
	# datasets_only/ (minddata_pipeline_raw alone) is not a profiler dir
	[ "$(jqr pd.root '[.device,.rank]' | tr -d '\n')" = '[0,null][1,null]' ]
	# the devices share the directory: each root is named DIR#device=N so
	# that the records of the two devices do not join into one; both are
	# one run (the directory above profiler/)
	[ "$(rel '.root' | tr '\n' ' ')" = '"legacy/profiler#device=0" "legacy/profiler#device=1" ' ]
	[ "$(jqr pd.root .run | sort -u)" = "\"$T/legacy\"" ]
	[ "$(jqr pd.root '[.exports[].kind]|join(",")' | tr '\n' ' ')" = \
	    '"framework_raw,step_trace_raw_detail_time" "minddata_pipeline_raw,step_trace_raw_detail_time" ' ]
}

@test "pd-locate: MindSpore legacy dir with one device keeps the plain dir as root" {
	mkdir -p "$BATS_TEST_TMPDIR/one/profiler"
	cp "$FIX/pd-sum-step/ms-legacy.csv" \
	    "$BATS_TEST_TMPDIR/one/profiler/step_trace_raw_3_detail_time.csv"
	run_pd 0 pd-locate "$BATS_TEST_TMPDIR/one"
	[ "$(jqr pd.root '[.root,.device]')" = "[\"$BATS_TEST_TMPDIR/one/profiler\",3]" ]
}

@test "pd-locate: MindSpore legacy devices reach pd-sum-step as separate roots" {
	local d=$BATS_TEST_TMPDIR/ms/profiler
	mkdir -p "$d"
	# ms-legacy.csv (ticks at 100 MHz): steps 1 and 2 of 25 and 20 us
	cp "$FIX/pd-sum-step/ms-legacy.csv" "$d/step_trace_raw_0_detail_time.csv"
	cp "$FIX/pd-sum-step/ms-legacy.csv" "$d/step_trace_raw_2_detail_time.csv"
	output=$(pd-locate "$d" | pd-sum-step)
	[ "$(jqr pd.step '[.root,.device,.totals.step_us]' | tr -d '\n')" = \
	    "[\"$d#device=0\",0,45][\"$d#device=2\",2,45]" ]
}

@test "pd-locate: a PROF dir with two device dirs is two roots" {
	run_pd 0 pd-locate "$T/prof"
	# device_0/info.json.0 rank_id 5 (rank != device); device_2/info.json.2
	# rank_id -1 (unset -> null)
	[ "$(jqr pd.root '[.format,.device,.rank]' | tr -d '\n')" = \
	    '["msprof_legacy",0,5]["msprof_legacy",2,null]' ]
	[ "$(jqr pd.root '[.exports[].kind]|join(",")' | tr '\n' ' ')" = \
	    '"info_json,msprof_timeline,step_trace_timeline" "info_json,op_summary" ' ]
	[ "$(jqr pd.root .run | sort -u)" = "\"$T/prof\"" ]
}

@test "pd-locate: Kineto rank from distributedInfo, device from the first kernel" {
	run_pd 0 pd-locate "$T/traces/kineto.pt.trace.json"
	# distributedInfo: "rank": "6" (string), world_size 8; deviceProperties
	# lists ids 0 and 1 (not the device); the kernel's args.device is 1
	jqv pd.root '[.format,.rank,.device,.world_size]' \
	    '.exports|length' \
	    '.exports[0]|[.kind,.path]'
	[ "${J[0]}" = '["kineto",6,1,8]' ]
	[ "$(jqr pd.root .run)" = "\"$T/traces#world_size=8\"" ]
	[ "${J[1]}" = 1 ]
	[ "${J[2]}" = \
	    "[\"kineto_trace\",\"$T/traces/kineto.pt.trace.json\"]" ]
}

@test "pd-locate: a trace cut to garbage after its header is still located (sniffing)" {
	run_pd 0 pd-locate "$T/traces/truncated.pt.trace.json"
	# the header (distributedInfo rank 1) is whole; the second event is
	# cut by NUL and 0xff bytes: the file is identified by its first bytes
	[ "$(jqr pd.root '[.format,.rank,.device]')" = '["kineto",1,null]' ]
	[ -z "$stderr" ]
}

@test "pd-locate: gzip traces are sniffed after inflating" {
	cp "$T/traces/kineto.pt.trace.json" "$BATS_TEST_TMPDIR/r.pt.trace.json"
	gzip "$BATS_TEST_TMPDIR/r.pt.trace.json"
	run_pd 0 pd-locate "$BATS_TEST_TMPDIR/r.pt.trace.json.gz"
	[ "$(jqr pd.root '[.format,.rank,.device]')" = '["kineto",6,1]' ]
}

@test "pd-locate: autograd bare array; other JSON files are not roots" {
	run_pd 0 pd-locate "$T/traces"
	# autograd.json: pid "CPU functions"; other_array.json (a bare array
	# without that pid) and communication_summary.json (an object without
	# traceEvents) are not traces
	[ "$(rel '[.root,.format]|join(" ")' | tr -d '"' | tr '\n' ';')" = \
	    "traces/autograd.json autograd;traces/kineto.pt.trace.json kineto;traces/memory_timeline.raw.json kineto;traces/truncated.pt.trace.json kineto;" ]
	# the raw memory timeline (an array of arrays) has only that export
	[ "$(jqr pd.root 'select(.root|endswith("raw.json"))|[.exports[].kind]')" = \
	    '["memory_timeline_raw"]' ]
}

@test "pd-locate: a file operand that is not a trace is a warning, exit 3" {
	run_pd 3 pd-locate "$T/traces/other_array.json"
	[ -z "$output" ]
	[ "$stderr" = "pd-locate: warning: $T/traces/other_array.json: not a Kineto, autograd or Nsight Systems trace; give its profiler directory instead" ]
}

@test "pd-locate: -d limits the directory levels searched" {
	run_pd 0 pd-locate -d 1 "$T"
	# level 1 dirs are examined (loose/ is a root, the files of traces/
	# are sniffed); job/*, ms/*, prof/*, legacy/* are level 2
	[ "$(rel '.root' | tr -d '"' | tr '\n' ' ')" = \
	    "loose traces/autograd.json traces/kineto.pt.trace.json traces/memory_timeline.raw.json traces/truncated.pt.trace.json " ]
}

@test "pd-locate: --best keeps the newest root of each (run, rank)" {
	cp -R "$T/job" "$BATS_TEST_TMPDIR/job"
	local d=$BATS_TEST_TMPDIR/job
	# host_2 and old are both rank 3 of run job/
	find "$d/old_ascend_pt" -exec touch -d '2024-01-01 00:00:00' {} +
	find "$d/host_2_20250101_ascend_pt" -exec touch -d '2025-01-01 00:00:00' {} +
	run_pd 0 pd-locate --best "$d"
	[ "$(jqr pd.root '.root' | sed "s|$d/||" | tr -d '"' | tr '\n' ' ')" = \
	    "cluster_analysis_output host_1_20250101_ascend_pt host_2_20250101_ascend_pt " ]
	find "$d/old_ascend_pt" -exec touch -d '2026-01-01 00:00:00' {} +
	run_pd 0 pd-locate -b "$d"
	[ "$(jqr pd.root 'select(.rank == 3)|.root' | sed "s|$d/||")" = '"old_ascend_pt"' ]
	# without -b both candidates are reported
	run_pd 0 pd-locate "$d"
	[ "$(jqr pd.root 'select(.rank == 3)' | wc -l)" -eq 2 ]
}

@test "pd-locate: an unreadable subdirectory is a warning, exit 3, the rest is located" {
	local d
	d=$(mktemp -d /tmp/pd-locate.XXXXXX)
	chmod 755 "$d"
	cp -R "$T/loose" "$d/loose"
	mkdir "$d/locked"
	chmod -R a+rX "$d"
	chmod 000 "$d/locked"
	if [ "$(id -u)" -eq 0 ]; then
		command -v setpriv >/dev/null || skip "root without setpriv"
		run_pd 3 setpriv --reuid=65534 --regid=65534 --clear-groups \
		    "$PD_BIN/pd-locate" "$d"
	else
		run_pd 3 pd-locate "$d"
	fi
	chmod 755 "$d/locked"
	rm -rf "$d"
	[ "$stderr" = "pd-locate: warning: $d/locked: cannot read directory: Permission denied; skipped" ]
	[ "$(printf '%s\n' "$output" | jq -r .root)" = "$d/loose" ]
}

# Byte 0xFF is not UTF-8: pd-record(5) writes it as U+10FF00 + 0xFF =
# U+10FFFF (1114111), and tools map it back to open the file.
@test "pd-locate: a directory named with byte 0xFF: every root, escaped, reopened" {
	local d=$BATS_TEST_TMPDIR/t bad
	bad=$d/$(printf 'a\377')
	mkdir -p "$bad"
	cp "$FIX/pd-locate/tiny.pt.trace.json" "$bad/"
	cp "$FIX/pd-locate/tiny.pt.trace.json" "$d/b.pt.trace.json"
	run_pd 0 pd-locate "$d"
	[ "$(jqr pd.root .root | wc -l)" -eq 2 ]
	# "/", "a", U+10FFFF, then "/tiny.pt.trace.json"
	[ "$(jqr pd.root '.root|explode|.[-22:-19]' | head -1)" = '[47,97,1114111]' ]
	[ "$(jqr pd.root '.exports[0].path' | head -1)" = "$(jqr pd.root .root | head -1)" ]
	[[ "$stderr" == *"pd-locate: warning: name '$d/a\\xFF/tiny.pt.trace.json' is not valid UTF-8"* ]]
	# the escaped path is mapped back: pd-hotspots reads the trace (tiny has
	# one annotation, no kernels) and names the same root
	printf '%s\n' "$output" | head -1 >"$BATS_TEST_TMPDIR/r.jsonl"
	run_pd 0 pd-hotspots <"$BATS_TEST_TMPDIR/r.jsonl"
	[ "$(jqr pd.hotspot '[(.root|explode|.[-22:-19]), .source, .kernels]')" = \
	    '[[47,97,1114111],"kineto_trace",0]' ]
}

@test "pd-locate: symbolic link loops are not followed, each reported once" {
	local d=$BATS_TEST_TMPDIR/loop
	mkdir -p "$d/a/b"
	cp "$FIX/pd-locate/tiny.pt.trace.json" "$d/a/"
	cp "$FIX/pd-locate/tiny.pt.trace.json" "$d/a/b/second.pt.trace.json"
	# five links back to a/ (with -d 8 that was 5^8 paths to walk), and a
	# second name for a/b
	for i in 1 2 3 4 5; do ln -s . "$d/a/l$i"; done
	ln -s b "$d/a/other"
	run_pd timeout 20 pd-locate "$d/a"
	[ "$(printf '%s\n' "$output" | jq -r .root)" = "$d/a/b/second.pt.trace.json
$d/a/tiny.pt.trace.json" ]
	[ "$stderr" = "pd-locate: warning: $d/a/l1: symbolic link loop: leads back to '$d/a'; not followed
pd-locate: warning: $d/a/other: the directory already searched as '$d/a/b'; not searched again" ]
}

@test "pd-locate: a FIFO operand or a FIFO in a dump is skipped and said (no hang)" {
	local d=$BATS_TEST_TMPDIR/fifo
	mkdir -p "$d/dump"
	mkfifo "$d/op.pt.trace.json" "$d/dump/x.pt.trace.json"
	cp "$FIX/pd-locate/tiny.pt.trace.json" "$d/dump/"
	run_pd 3 timeout 20 pd-locate "$d/op.pt.trace.json"
	[ "$stderr" = "pd-locate: warning: $d/op.pt.trace.json: not a regular file or directory; skipped" ]
	[ -z "$output" ]
	run_pd 3 timeout 20 pd-locate "$d/dump"
	[ "$stderr" = "pd-locate: warning: $d/dump/x.pt.trace.json: not a regular file or directory; skipped" ]
	[ "$(printf '%s\n' "$output" | jq -r .root)" = "$d/dump/tiny.pt.trace.json" ]
	# an evidence tool given the FIFO locates through the same code
	run_pd 3 timeout 20 pd-sum-step "$d/op.pt.trace.json"
	[ "$stderr" = "pd-sum-step: warning: $d/op.pt.trace.json: not a regular file or directory; skipped" ]
}

@test "pd-locate: an export file that is a FIFO is not an export, and is said" {
	local d=$BATS_TEST_TMPDIR/fx r=host_1_20250101_ascend_pt
	mkdir -p "$d"
	cp -R "$T/job/$r" "$d/"
	rm "$d/$r/ASCEND_PROFILER_OUTPUT/kernel_details.csv"
	mkfifo "$d/$r/ASCEND_PROFILER_OUTPUT/kernel_details.csv"
	run_pd 3 timeout 20 pd-locate "$d"
	[ "$stderr" = "pd-locate: warning: $d/$r/ASCEND_PROFILER_OUTPUT/kernel_details.csv: not a regular file; not read as 'kernel_details'" ]
	# the root is still there, with its other exports (as in the fixture)
	[ "$(jqr pd.root .root)" = "\"$d/$r\"" ]
	jqv pd.root '[.exports[].kind] | index("kernel_details")' \
	    '[.exports[].kind] | index("step_trace_time")'
	[ "${J[0]}" = null ]
	[ "${J[1]}" != null ]
}

# ---- archives ----------------------------------------------------------
# Archives made here from the fixture tree: the roots found inside are the
# roots found in the tree, named ARCHIVE//MEMBER, with "archive" set; the
# members are read from a private copy under $TMPDIR that is gone after.

# pd.root records with the archive prefix (or the tree prefix) cut off
strip_roots() {
	printf '%s\n' "$output" | jq -c 'select(.type == "pd.root") | del(.archive)' |
	    sed -e "s|$1||g"
}

@test "pd-locate: the roots inside a .tar.gz and a .zip are those of the tree" {
	local d=$BATS_TEST_TMPDIR a
	mkdir "$d/tmp"
	tar -C "$T" -czf "$d/job.tar.gz" job
	(cd "$T" && zip -qr "$d/job.zip" job)
	run_pd 0 pd-locate "$T/job"
	want=$(strip_roots "$T/")
	[ "$(printf '%s\n' "$want" | wc -l)" -eq 4 ]
	# the .tar.gz inflated by ISA-L where it loads, and by libarchive's
	# zlib with PD_INFLATE=zlib (lib/pd_archive.c): the same roots
	for a in job.tar.gz job.zip zlib:job.tar.gz; do
		inflate=isal
		case $a in zlib:*) inflate=zlib a=${a#zlib:} ;; esac
		PD_INFLATE=$inflate TMPDIR=$d/tmp run_pd 0 pd-locate "$d/$a"
		[ -z "$stderr" ]
		[ "$(strip_roots "$d/$a//")" = "$want" ]
		[ "$(jqr pd.root .archive | sort -u)" = "\"$d/$a\"" ]
		[ "$(jqr pd.root '.exports[0].path' | grep -c "^\"$d/$a//job/")" -eq 4 ]
		# nothing of the private copy is left, nor named
		[ -z "$(ls -A "$d/tmp")" ]
		[[ "$output" != *perfdiag-archive* ]]
	done
	# roots in the tree have "archive": null
	run_pd 0 pd-locate "$T/loose"
	[ "$(jqr pd.root .archive)" = null ]
}

# .tar.zst and .tar.xz (libarchive's zstd and xz filters): the same roots
# as the tree, as for .tar.gz above.
@test "pd-locate: the roots inside a .tar.zst and a .tar.xz are those of the tree" {
	command -v zstd >/dev/null || skip "zstd is not installed"
	local d=$BATS_TEST_TMPDIR a
	mkdir "$d/tmp"
	tar -C "$T" --zstd -cf "$d/job.tar.zst" job
	tar -C "$T" -cJf "$d/job.tar.xz" job
	run_pd 0 pd-locate "$T/job"
	want=$(strip_roots "$T/")
	[ "$(printf '%s\n' "$want" | wc -l)" -eq 4 ]
	for a in job.tar.zst job.tar.xz; do
		TMPDIR=$d/tmp run_pd 0 pd-locate "$d/$a"
		[ -z "$stderr" ]
		[ "$(strip_roots "$d/$a//")" = "$want" ]
		[ -z "$(ls -A "$d/tmp")" ]
	done
}

@test "pd-locate: an archive inside a searched directory is searched" {
	local d=$BATS_TEST_TMPDIR
	mkdir -p "$d/dumps/tmp"
	tar -C "$T" -cf "$d/dumps/ms.tar" ms
	TMPDIR=$d/dumps/tmp run_pd 0 pd-locate "$d/dumps"
	[ "$(jqr pd.root '[.root,.format,.archive]')" = "[\"$d/dumps/ms.tar//ms/rank0_ascend_ms\",\"mindspore\",\"$d/dumps/ms.tar\"]" ]
}

# The evidence tools read the members through the same names: pd-sum-step
# on the archive gives the records it gives on the tree, paths aside.
@test "pd-locate: the evidence tools read an archive's members" {
	local d=$BATS_TEST_TMPDIR
	mkdir "$d/tmp"
	tar -C "$T" -czf "$d/job.tgz" job
	run_pd 3 bash -c "pd-locate '$T/job' | pd-sum-step"
	want=$(printf '%s\n' "$output" | grep '"pd.step"' | sed "s|$T/||g")
	want_err=$(printf '%s\n' "$stderr" | sed "s|$T/||g")
	[ -n "$want" ]
	TMPDIR=$d/tmp run_pd 3 bash -c "pd-locate '$d/job.tgz' | pd-sum-step"
	[ "$(printf '%s\n' "$output" | grep '"pd.step"' | sed "s|$d/job.tgz//||g")" = "$want" ]
	# the messages name the members as the tree's files are named
	[ "$(printf '%s\n' "$stderr" | sed "s|$d/job.tgz//||g")" = "$want_err" ]
	[ -z "$(ls -A "$d/tmp")" ]
}

# Members named /abs, ../up and a symbolic link are said and not copied;
# nothing is written outside the private copy.
@test "pd-locate: unsafe archive members are refused" {
	local d=$BATS_TEST_TMPDIR
	mkdir "$d/tmp" "$d/x"
	python3 - "$d/evil.tar" <<'PY'
import io, sys, tarfile
with tarfile.open(sys.argv[1], "w") as t:
    for name in ("/abs.txt", "../up.txt", "ok/../../up2.txt"):
        data = b"x"
        i = tarfile.TarInfo(name); i.size = len(data)
        t.addfile(i, io.BytesIO(data))
    i = tarfile.TarInfo("link"); i.type = tarfile.SYMTYPE; i.linkname = "/etc/passwd"
    t.addfile(i)
    data = b'{"traceEvents": []}'
    i = tarfile.TarInfo("r/t.pt.trace.json"); i.size = len(data)
    t.addfile(i, io.BytesIO(data))
PY
	cd "$d/x"
	TMPDIR=$d/tmp run_pd 3 pd-locate "$d/evil.tar"
	[[ "$stderr" == *"member '/abs.txt': an absolute name or one that leaves the archive; skipped"* ]]
	[[ "$stderr" == *"member '../up.txt': an absolute name"* ]]
	[[ "$stderr" == *"member 'ok/../../up2.txt': an absolute name"* ]]
	[[ "$stderr" == *"member 'link': not a regular file; skipped"* ]]
	[ ! -e "$d/up.txt" ] && [ ! -e "$d/up2.txt" ] && [ ! -e /abs.txt ]
	[ -z "$(ls -A "$d/x")" ] && [ -z "$(ls -A "$d/tmp")" ]
}

# A .tar.gz cut in the middle: said, exit 3, the members before the cut
# are searched, and the copy is removed.
@test "pd-locate: a cut archive is exit 3 and the members before the cut are kept" {
	local d=$BATS_TEST_TMPDIR n
	mkdir -p "$d/tmp" "$d/src/zz"
	cp -r "$T/loose" "$d/src/"
	# 256 KiB that do not compress, after loose/: the cut falls in it
	head -c 262144 /dev/urandom >"$d/src/zz/pad.bin"
	tar -C "$d/src" -czf "$d/full.tar.gz" loose zz
	n=$(stat -c %s "$d/full.tar.gz")
	head -c $((n * 2 / 3)) "$d/full.tar.gz" >"$d/cut.tar.gz"
	TMPDIR=$d/tmp run_pd 3 pd-locate "$d/cut.tar.gz"
	[[ "$stderr" == *"cut.tar.gz: member 'zz/pad.bin': "*"; the members before it are read"* ]]
	[ "$(jqr pd.root .root)" = "\"$d/cut.tar.gz//loose\"" ]
	[ -z "$(ls -A "$d/tmp")" ]
	# a file that is no archive at all
	printf 'not an archive' >"$d/bad.zip"
	TMPDIR=$d/tmp run_pd 3 pd-locate "$d/bad.zip"
	[[ "$stderr" == *"bad.zip: not a readable archive"* ]]
	[ -z "$(ls -A "$d/tmp")" ]
}

# libarchive stops reading a .tar.gz at the tar's end, before the gzip
# trailer, so its own gzip reading never checks the CRC or ISIZE. Inflated
# by ISA-L (lib/pd_archive.c) the rest of the stream is read after the last
# member and a wrong CRC or ISIZE is said: the members are kept (their data
# may be damaged), exit 3. A cut one is said by the gzip layer. Bytes after
# the gzip stream end it quietly, as they do for libarchive.
@test "pd-locate: a .tar.gz with a wrong CRC or ISIZE is said, its members kept" {
	local d=$BATS_TEST_TMPDIR n
	mkdir -p "$d/tmp"
	tar -C "$T" -czf "$d/full.tar.gz" loose
	printf 'x' | gzip >"$d/x.gz"
	"$PD_TESTBIN/zread-dump" "$d/x.gz" >/dev/null 2>"$d/engine"
	if ! grep -q '^engine isa-l ' "$d/engine"; then
		[ "${CI:-}" != true ] || { cat "$d/engine"; false; }
		skip "libisal.so.2 not loadable: libarchive inflates"
	fi
	flip() {	# FILE OFFSET-FROM-END OUT: one bit changed
		python3 -c 'import sys; b=bytearray(open(sys.argv[1],"rb").read()); b[-int(sys.argv[2])]^=1; open(sys.argv[3],"wb").write(b)' "$@"
	}
	flip "$d/full.tar.gz" 8 "$d/crc.tar.gz"		# the CRC's first byte
	flip "$d/full.tar.gz" 3 "$d/size.tar.gz"	# an ISIZE byte
	cp "$d/full.tar.gz" "$d/trail.tar.gz"
	printf 'garbage' >>"$d/trail.tar.gz"
	n=$(tar -tzf "$d/full.tar.gz" | grep -vc '/$')
	TMPDIR=$d/tmp run_pd 0 pd-locate "$d/full.tar.gz"
	want=$(strip_roots "$d/full.tar.gz//")
	[ -n "$want" ]
	for c in crc:"gzip CRC mismatch" size:"gzip length mismatch"; do
		f=$d/${c%%:*}.tar.gz
		TMPDIR=$d/tmp run_pd 3 pd-locate "$f"
		[ "$stderr" = "pd-locate: warning: $f: ${c#*:} after the last of its $n members: they may be damaged" ]
		[ "$(strip_roots "$f//")" = "$want" ]
		[ -z "$(ls -A "$d/tmp")" ]
	done
	# the count is the archive's own, also after another one was read
	TMPDIR=$d/tmp run_pd 3 pd-locate "$d/full.tar.gz" "$d/crc.tar.gz"
	[ "$stderr" = "pd-locate: warning: $d/crc.tar.gz: gzip CRC mismatch after the last of its $n members: they may be damaged" ]
	TMPDIR=$d/tmp run_pd 0 pd-locate "$d/trail.tar.gz"
	[ -z "$stderr" ]
	[ "$(strip_roots "$d/trail.tar.gz//")" = "$want" ]
	# libarchive's own reading does not see the wrong CRC
	PD_INFLATE=zlib TMPDIR=$d/tmp run_pd 0 pd-locate "$d/crc.tar.gz"
	[ -z "$stderr" ]
}

# Killed by SIGPIPE (its reader went away) or SIGTERM, a tool still
# removes its private copy.
@test "pd-locate: the private copy is removed on SIGPIPE" {
	local d=$BATS_TEST_TMPDIR
	mkdir "$d/tmp"
	tar -C "$T" -czf "$d/job.tar.gz" job
	TMPDIR=$d/tmp bash -c "pd-locate '$d/job.tar.gz' | true" || true
	[ -z "$(ls -A "$d/tmp")" ]
}

# profiler_metadata.json's ENV_VARIABLES, as written: the 8 variables
# torch_npu recorded for pta_1rank_level2_text, all unset (""); the
# advisor's Environment Variable Issues (peers/msprof-analyze-8.2.0/
# pta_1rank_level2_text/advisor/findings.md) read the same file.
@test "pd-locate: a torch_npu root's environment variables" {
	require_corpus
	run_pd 0 pd-locate "$CORPUS/ascend/pta_1rank_level2_text"
	[ "$(jqr pd.root '.env')" = '{"ASCEND_GLOBAL_LOG_LEVEL":"","HCCL_RDMA_TC":"","HCCL_RDMA_SL":"","ACLNN_CACHE_LIMIT":"","HOST_CACHE_CAPACITY":"","ASCEND_ENHANCE_ENABLE":"","PYTORCH_NPU_ALLOC_CONF":"","ASCEND_LAUNCH_BLOCKING":""}' ]
	mkdir -p "$BATS_TEST_TMPDIR/x_ascend_pt/ASCEND_PROFILER_OUTPUT"
	printf '{"ENV_VARIABLES":{"ACLNN_CACHE_LIMIT":"100000","N":1}}' >"$BATS_TEST_TMPDIR/x_ascend_pt/profiler_metadata.json"
	printf 'Step\n' >"$BATS_TEST_TMPDIR/x_ascend_pt/ASCEND_PROFILER_OUTPUT/step_trace_time.csv"
	run_pd 0 pd-locate "$BATS_TEST_TMPDIR/x_ascend_pt"
	# a value that is not a string is not an environment variable's
	[ "$(jqr pd.root '.env')" = '{"ACLNN_CACHE_LIMIT":"100000"}' ]
}

# A torch_npu db export (export_type=db) keeps no profiler_metadata.json
# and no CSV: the environment is META_DATA's ENV_VARIABLES row and the
# device the one RANK_DEVICE_MAP row. The values are the SQL's below.
@test "pd-locate: device and environment of a db export from its SQLite tables" {
	local d=$BATS_TEST_TMPDIR/h_1_ascend_pt/ASCEND_PROFILER_OUTPUT
	mkdir -p "$d"
	"$PD_TESTBIN/sqlite-make" "$d/ascend_pytorch_profiler_3.db" <<'SQL'
CREATE TABLE META_DATA (name TEXT, value TEXT);
INSERT INTO META_DATA VALUES ('ENV_VARIABLES',
  '{"HCCL_RDMA_TC": "", "ASCEND_LAUNCH_BLOCKING": "1", "N": 4}');
CREATE TABLE RANK_DEVICE_MAP (rankId INTEGER, deviceId INTEGER);
INSERT INTO RANK_DEVICE_MAP VALUES (3, 5);
SQL
	run_pd 0 pd-locate "$BATS_TEST_TMPDIR/h_1_ascend_pt"
	[ -z "$stderr" ]
	# rank from the file name's _3; device 5 from RANK_DEVICE_MAP;
	# env keeps the strings only (N is a number)
	[ "$(jqr pd.root '[.rank,.device,.env]')" = \
	    '[3,5,{"HCCL_RDMA_TC":"","ASCEND_LAUNCH_BLOCKING":"1"}]' ]
}

@test "pd-locate: a db export with a broken ENV_VARIABLES and a map of two devices" {
	local d=$BATS_TEST_TMPDIR/h_2_ascend_pt/ASCEND_PROFILER_OUTPUT
	mkdir -p "$d"
	"$PD_TESTBIN/sqlite-make" "$d/ascend_pytorch_profiler_1.db" <<'SQL'
CREATE TABLE META_DATA (name TEXT, value TEXT);
INSERT INTO META_DATA VALUES ('ENV_VARIABLES', '{"A": "1"');
CREATE TABLE RANK_DEVICE_MAP (rankId INTEGER, deviceId INTEGER);
INSERT INTO RANK_DEVICE_MAP VALUES (0, 0), (1, 1);
SQL
	run_pd 0 pd-locate "$BATS_TEST_TMPDIR/h_2_ascend_pt"
	# two devices say nothing of this process; the JSON does not parse
	[ "$(jqr pd.root '[.rank,.device,.env]')" = '[1,null,null]' ]
	# a db that is not SQLite at all: still one root, nothing read
	printf 'not a database' >"$d/ascend_pytorch_profiler_1.db"
	run_pd 0 pd-locate "$BATS_TEST_TMPDIR/h_2_ascend_pt"
	[ "$(jqr pd.root '[.rank,.device,.env]')" = '[1,null,null]' ]
}
