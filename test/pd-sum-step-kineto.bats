#!/usr/bin/env bats
# pd-sum-step on PyTorch traces (Kineto, 2021 schema, legacy autograd).
# The fixtures in test/fixtures/kineto/sum-*.json are written by hand; the
# numbers below are worked out by hand from them (see each comment). The
# corpus numbers were computed once, independently, with a python3 script
# that loads the whole trace with json (parse_float=Decimal, ts*1000 as
# integer ns), unions the intervals with sorted() and clips them to the
# ProfilerStep windows (the script is described in each comment).
load helper
load contract

KF=$FIX/kineto
PT=$CORPUS/pytorch

kroot() {	# kroot FILE [KIND]: a pd.root for a trace file
	printf '{"type":"pd.root","v":1,"root":"%s","rank":null,"device":null,"format":"kineto","run":"r","score":1,"exports":[{"kind":"%s","path":"%s","bytes":0}]}\n' \
	    "$1" "${2:-kineto_trace}" "$1"
}

@test "pd-sum-step kineto: -h prints usage to stdout" { contract_h pd-sum-step; }
@test "pd-sum-step kineto: bad option is exit 2" { contract_badopt pd-sum-step; }
@test "pd-sum-step kineto: input passes through byte for byte" { contract_passthrough pd-sum-step; }
@test "pd-sum-step kineto: empty input, empty output" { contract_empty pd-sum-step; }
@test "pd-sum-step kineto: missing operand is exit 5" { contract_missing pd-sum-step; }
@test "pd-sum-step kineto: writing to /dev/full is exit 5" {
	contract_devfull pd-sum-step "$KF/sum-kineto.json"
}

@test "pd-sum-step kineto: the pd.root is passed on, then one pd.step" {
	run_pd 0 pd-sum-step < <(kroot "$KF/sum-kineto.json")
	[ "$(printf '%s\n' "$output" | jq -r .type | tr '\n' ' ')" = "pd.root pd.step " ]
	# rank from distributedInfo (the root has none)
	[ "$(jqr pd.step '[.rank,.source,.truncated,.skipped_rows]')" = '[3,"kineto_trace",false,0]' ]
}

# sum-kineto.json, step 10 = [1000, 2000) us. Compute kernels [1100.25,
# 1300.25) and [1250, 1350): union 249.75; NCCL [1300, 1600): comm 300;
# overlap [1300, 1350) = 50, not overlapped 250; memcpy 50.125, memset 4;
# busy = [1100.25, 1600) + 50.125 + 4 = 553.875; free = 1000 - 553.875.
# Step 11 = [2000, 3000.5): allgather [2100, 2200), gemm [2150, 2250) and
# [2950, 3050) clipped to 50.5: compute 150.5, comm 100, overlap 50, busy
# [2100, 2250) + 50.5 = 200.5, free 800. CPU ops: aten::mm [1010, 1090)
# holding aten::add = 80; aten::mm 20.5 in step 11.
@test "pd-sum-step kineto: per-step union of kernels clipped to the step" {
	run_pd 0 pd-sum-step "$KF/sum-kineto.json"
	jqv pd.step '.steps[0] | [.step,.step_us,.computing_us,.comm_not_overlapped_us,.overlapped_us,.comm_us,.free_us,.memcpy_us,.memset_us,.busy_us,.cpu_ops_us]' \
	    '.steps[1] | [.step,.step_us,.computing_us,.comm_not_overlapped_us,.overlapped_us,.comm_us,.free_us,.memcpy_us,.memset_us,.busy_us,.cpu_ops_us]' \
	    '.steps[0] | [.preparing_us,.bubble_us,.stage_us]'
	[ "${J[0]}" = \
	    '[10,1000,249.75,250,50,300,446.125,50.125,4,553.875,80]' ]
	[ "${J[1]}" = \
	    '[11,1000.5,150.5,50,50,100,800,0,0,200.5,20.5]' ]
	[ "${J[2]}" = '[null,null,null]' ]
}

# Totals: sums of the two steps; shares of 2000.5: 400.25/2000.5 = 0.2001,
# 300/2000.5 = 0.15, 1246.125/2000.5 = 0.6229; p90 = 1000 + 0.9 * 0.5.
@test "pd-sum-step kineto: totals, shares, step stats" {
	run_pd 0 pd-sum-step "$KF/sum-kineto.json"
	jqv pd.step '.totals | [.step_us,.computing_us,.comm_us,.overlapped_us,.free_us,.busy_us]' \
	    '.shares | [.computing_ratio,.comm_not_overlapped_ratio,.free_ratio,.preparing_ratio]' \
	    '[.step_stats.n,.step_stats.median,.step_stats.p90,.step_stats.max,.slowest_step]'
	[ "${J[0]}" = \
	    '[2000.5,400.25,400,100,1246.125,754.375]' ]
	[ "${J[1]}" = \
	    '[0.2001,0.15,0.6229,null]' ]
	[ "${J[2]}" = \
	    '[2,1000.25,1000.45,1000.5,11]' ]
}

# HTA temporal breakdown over the whole trace: GPU span [1100.25, 3050) =
# 1949.75; busy 553.875 + 150 + 100 = 803.875, idle 1145.875; compute
# 249.75 + 100 + 100 = 449.75; non-compute = 1949.75 - 449.75 - 1145.875;
# comm 400, overlap 100, ratio 0.25.
@test "pd-sum-step kineto: HTA temporal breakdown and comm/comp overlap" {
	run_pd 0 pd-sum-step "$KF/sum-kineto.json"
	[ "$(jqr pd.step '.gpu | [.kernel_time_us,.idle_us,.compute_us,.non_compute_us,.comm_us,.overlap_us,.comm_comp_overlap_ratio]')" = \
	    '[1949.75,1145.875,449.75,354.125,400,100,0.25]' ]
}

@test "pd-sum-step kineto: gzip input gives the same numbers" {
	gzip -c "$KF/sum-kineto.json" >"$BATS_TEST_TMPDIR/t.json.gz"
	run_pd 0 pd-sum-step "$KF/sum-kineto.json"
	local a; a=$(jqr pd.step 'del(.root,.path)')
	run_pd 0 pd-sum-step "$BATS_TEST_TMPDIR/t.json.gz"
	[ "$(jqr pd.step 'del(.root,.path)')" = "$a" ]
}

# 2021 schema: Operator/Kernel/Memcpy/Memset, tid "stream 7", integer us.
# Step 3 = [100, 1100): sgemm [300, 500), old-style NCCL kernel [450, 550):
# overlap 50; busy [300, 550) + 40 + 5 = 295; conv2d 100 us of CPU ops
# (the step and DataLoader ranges are not ops).
@test "pd-sum-step kineto: 2021 schema" {
	run_pd 0 pd-sum-step "$KF/sum-2021.json"
	jqv pd.step '.steps[0] | [.step,.computing_us,.comm_us,.overlapped_us,.memcpy_us,.memset_us,.busy_us,.free_us,.cpu_ops_us]' \
	    '.rank'
	[ "${J[0]}" = \
	    '[3,200,100,50,40,5,295,705,100]' ]
	[ "${J[1]}" = null ]
}

# Legacy autograd exporter: bare array, pid "CPU functions" / "CUDA
# functions". Step 0 = [10.5, 510.5): kernel [30, 230), memcpy [300, 310).
@test "pd-sum-step kineto: legacy autograd exporter" {
	run_pd 0 pd-sum-step "$KF/sum-autograd.json"
	[ "$(jqr pd.step '.steps[0] | [.step,.step_us,.computing_us,.memcpy_us,.busy_us,.free_us,.cpu_ops_us]')" = \
	    '[0,500,200,10,210,290,100]' ]
}

@test "pd-sum-step kineto: CPU-only trace: GPU keys null, CPU ops time" {
	run_pd 0 pd-sum-step "$KF/sum-cpuonly.json"
	jqv pd.step '.steps[0] | [.step,.step_us,.computing_us,.busy_us,.free_us,.cpu_ops_us]' \
	    '[.rank,.gpu,.shares.computing_ratio]'
	[ "${J[0]}" = \
	    '[7,1000,null,null,null,30]' ]
	[ "${J[1]}" = '[5,null,null]' ]
}

# sum-deepep.json: gemm [100, 200), a custom all-to-all dispatch [150, 250) (not in the default patterns). Default
# patterns: both compute. With -p: dispatch is communication, overlap 50.
@test "pd-sum-step kineto: -p adds communication patterns" {
	run_pd 0 pd-sum-step "$KF/sum-deepep.json"
	jqv pd.step '.gpu | [.compute_us,.comm_us]' \
	    '.steps[0] | [.step,.step_us]'
	[ "${J[0]}" = '[150,0]' ]
	[ "${J[1]}" = '[null,150]' ]
	run_pd 0 pd-sum-step -p "$KF/sum-ep-patterns.txt" "$KF/sum-deepep.json"
	[ "$(jqr pd.step '.gpu | [.compute_us,.comm_us,.overlap_us,.comm_comp_overlap_ratio]')" = '[100,100,50,0.5]' ]
}

@test "pd-sum-step kineto: unreadable -p file is exit 4" {
	run_pd 4 pd-sum-step -p /nonexistent/patterns "$KF/sum-kineto.json"
	[[ "$stderr" == *"pd-sum-step: error: /nonexistent/patterns: No such file or directory"* ]]
	[ "$(printf '%s\n' "$output" | jq -r .type)" = pd.root ]
}

@test "pd-sum-step kineto: a trace cut off mid-write is summarized, exit 3" {
	run_pd 3 pd-sum-step "$KF/sum-cut.json"
	[[ "$stderr" == *"sum-cut.json:15: file ends inside an event; summarized the 1 events read before it"* ]]
	[ "$(jqr pd.step '[.truncated,.steps[0].step,.steps[0].step_us,.steps[0].busy_us]')" = '[true,10,1000,null]' ]
}

# A damaged .json.gz is read like a cut file: what was inflated is
# summarized, a warning names the file and the problem, exit 3. The
# trailer is the last 8 bytes of the gzip file (CRC32, then ISIZE, RFC
# 1952). With the deflate data whole, all 30 events of sum-kineto.json
# (jq '.traceEvents | length') are read and the steps are those of the
# intact file (step 10 and 11, totals.step_us 2000.5, test above).
# Before, a bad CRC was "Input/output error" and no pd.step (exit 5), a
# missing trailer exit 0 with no word.
gzfix() {	# gzfix OUT PYTHON-EXPR-ON-d: sum-kineto.json gzipped, then edited
	gzip -c "$KF/sum-kineto.json" >"$1.full"
	python3 -c 'import sys; d = bytearray(open(sys.argv[1], "rb").read()); '"$2"'; open(sys.argv[2], "wb").write(d)' "$1.full" "$1"
}
@test "pd-sum-step kineto: a gzip CRC or length mismatch is summarized, warned, exit 3" {
	local f=$BATS_TEST_TMPDIR/crc.json.gz
	gzfix "$f" 'd[-8] ^= 0xff'
	run_pd 3 pd-sum-step < <(kroot "$f")
	[[ "$stderr" == *"pd-sum-step: warning: $f:"*": gzip CRC mismatch; summarized the 30 events read before it"* ]]
	[ "$(jqr pd.step '[.truncated,.events,[.steps[].step],.totals.step_us]')" = '[true,30,[10,11],2000.5]' ]
	gzfix "$f" 'd[-4] ^= 0x01'
	run_pd 3 pd-sum-step "$f"
	[[ "$stderr" == *"$f:"*": gzip length mismatch; summarized the 30 events"* ]]
	[ "$(jqr pd.step '[.truncated,.events,.totals.step_us]')" = '[true,30,2000.5]' ]
}

@test "pd-sum-step kineto: a gzip trace without its trailer is cut short, exit 3" {
	local f=$BATS_TEST_TMPDIR/cut.json.gz
	for cut in 8 3; do	# the whole trailer, part of it
		gzfix "$f" "d = d[:-$cut]"
		run_pd 3 pd-sum-step < <(kroot "$f")
		[[ "$stderr" == *"$f:"*": gzip stream cut short; summarized the 30 events read before it"* ]]
		[ "$(jqr pd.step '[.truncated,.events,.totals.step_us]')" = '[true,30,2000.5]' ]
	done
}

# Cut inside the deflate data: the events read are those complete in what
# zlib inflates from the cut file, counted here with python3's zlib and
# json.raw_decode (independent of the reader under test).
@test "pd-sum-step kineto: a gzip trace cut inside its data keeps the events before the cut" {
	local f=$BATS_TEST_TMPDIR/cut.json.gz want
	gzfix "$f" 'd = d[:-60]'
	want=$(python3 -c '
import json, sys, zlib
t = zlib.decompressobj(31).decompress(open(sys.argv[1], "rb").read()).decode()
i = t.index("[", t.index("\"traceEvents\"")) + 1
d, n = json.JSONDecoder(), 0
while True:
    while t[i:i+1] in (" ", "\n", ","):
        i += 1
    try:
        _, i = d.raw_decode(t, i)
    except ValueError:
        break
    n += 1
print(n)' "$f")
	[ "$want" -gt 0 ] && [ "$want" -lt 30 ]
	run_pd 3 pd-sum-step < <(kroot "$f")
	[[ "$stderr" == *"$f:"*": gzip stream cut short; file ends inside an event; summarized the $want events read before it"* ]]
	[ "$(jqr pd.step '[.truncated,.events]')" = "[true,$want]" ]
}

# Data after the top-level object: the events are kept (the numbers of the
# intact file, test above), a warning on the line of the extra text (the
# fixture has 155 lines), exit 3. Before: exit 0, no warning.
@test "pd-sum-step kineto: data after the top-level value is warned, events kept, exit 3" {
	local f=$BATS_TEST_TMPDIR/tail.json
	{ cat "$KF/sum-kineto.json"; printf ' garbage\n'; } >"$f"
	run_pd 3 pd-sum-step < <(kroot "$f")
	[[ "$stderr" == *"pd-sum-step: warning: $f:156: data after the top-level value; summarized the 30 events read before it"* ]]
	[ "$(jqr pd.step '[.events,[.steps[].step_us],.totals.step_us]')" = '[30,[1000,1000.5],2000.5]' ]
}

# A top-level object whose traceEvents is not an array, or that has none,
# holds no events: said, exit 3 (before: exit 0 and an empty pd.step).
@test "pd-sum-step kineto: no traceEvents array is warned, exit 3" {
	local f=$BATS_TEST_TMPDIR/t.json
	for doc in '{"traceEvents": 5}' '{}' '{"schemaVersion": 1, "traceEvents": {"ph": "X"}}'; do
		printf '%s\n' "$doc" >"$f"
		run_pd 3 pd-sum-step < <(kroot "$f")
		[[ "$stderr" == *"pd-sum-step: warning: $f:1: no traceEvents array"* ]]
		[ "$(jqr pd.step '[.events,.steps]')" = '[0,[]]' ]
	done
}

# A UTF-8 byte order mark before the object: pd-locate takes the file and
# its 30 events give the numbers of the file without it (test above).
# Before, the file was located but read as "not a trace", no events.
@test "pd-sum-step kineto: a trace with a UTF-8 BOM is read whole" {
	local f=$BATS_TEST_TMPDIR/bom.json
	{ printf '\357\273\277'; cat "$KF/sum-kineto.json"; } >"$f"
	run_pd 0 pd-sum-step "$f"
	[ "$(jqr pd.step '[.rank,.events,.truncated,[.steps[].step],.totals.step_us,.totals.busy_us]')" = '[3,30,false,[10,11],2000.5,754.375]' ]
	gzip -c "$f" >"$f.gz"
	run_pd 0 pd-sum-step "$f.gz"
	[ "$(jqr pd.step '[.events,.totals.step_us]')" = '[30,2000.5]' ]
}

# sum-bad.json: one kernel without dur, one with ts "soon" (the reader
# skips it): both counted; the good kernel [20, 50) is in step 1.
@test "pd-sum-step kineto: events with missing fields are counted, exit 3" {
	run_pd 3 pd-sum-step "$KF/sum-bad.json"
	[[ "$stderr" == *"event 1 ('gemm_no_dur'): no ts or dur, or a negative dur; skipped"* ]]
	[ "$(jqr pd.step '[.skipped_rows,.steps[0].computing_us,.steps[0].free_us]')" = '[2,30,70]' ]
}

# Corpus, NCCL 2-rank A100 (rank 0): the python3 script (see top) gives for
# ProfilerStep#4: step 222442.191, compute 38506.406, comm 11989.021,
# overlap 1825.259, busy 49438.921, free 173003.27; whole trace: GPU span
# 660551.005, overlap ratio 7317.025 / 46876.493 = 0.1561.
@test "pd-sum-step kineto: corpus NCCL trace matches an independent union" {
	require_corpus
	run_pd 0 pd-sum-step "$PT/hta-nccl-2rank-a100/nccl_data.json.gz"
	jqv pd.step '.steps[0] | [.step,.step_us,.computing_us,.comm_us,.overlapped_us,.busy_us,.free_us]' \
	    '[.rank,.gpu.kernel_time_us,.gpu.comm_comp_overlap_ratio,(.steps|length)]'
	[ "${J[0]}" = \
	    '[4,222442.191,38506.406,11989.021,1825.259,49438.921,173003.27]' ]
	[ "${J[1]}" = '[0,660551.005,0.1561,3]' ]
}

# Corpus, Qwen H100 (float-ns timestamps, sub-us memsets; HTA's rounding
# crashes here). Same script: step 6 = 47151.395, compute 43071.901, busy
# 43274.95, memset 200.681; GPU span 49652.832, idle 4005.532.
@test "pd-sum-step kineto: corpus float-ns trace (HTA crashes on it)" {
	require_corpus
	run_pd 0 pd-sum-step "$PT/tracelens-h100-inference/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"
	jqv pd.step '.steps[0] | [.step,.step_us,.computing_us,.busy_us,.memset_us,.free_us]' \
	    '.gpu | [.kernel_time_us,.idle_us]'
	[ "${J[0]}" = \
	    '[6,47151.395,43071.901,43274.95,200.681,3876.445]' ]
	[ "${J[1]}" = '[49652.832,4005.532]' ]
}

@test "pd-sum-step kineto: every corpus trace gives one pd.step, exit 0" {
	require_corpus
	local f n=0
	for f in $(find "$PT" -name '*.json.gz' ! -name '*.raw.gz' | sort); do
		run_pd 0 pd-sum-step "$f"
		nrec pd.step
		[ "$NREC" -eq 1 ]
		n=$((n + 1))
	done
	[ "$n" -ge 19 ]
}

# The intervals are sorted in runs of PD_SORT_MEM bytes (24 each), past
# one run in temporary files under TMPDIR: with runs of two the fixture
# and the corpus NCCL trace go through the files (with writes refused,
# ulimit -f 0, it then fails: exit 5) and give the same record as in
# memory, with the numbers pinned above; so does a TMPDIR that does not
# exist (no file can be made: all is sorted in memory).
@test "pd-sum-step kineto: sorting in temporary files gives the same record" {
	local f
	for f in sum-kineto sum-2021 sum-cpuonly; do
		run_pd 0 pd-sum-step "$KF/$f.json"
		local want=$output
		PD_SORT_MEM=48 run_pd 0 pd-sum-step "$KF/$f.json"
		[ "$output" = "$want" ]
	done
	PD_SORT_MEM=48 run_pd 0 pd-sum-step "$KF/sum-kineto.json"
	jqv pd.step '.steps[0] | [.step,.step_us,.computing_us,.comm_not_overlapped_us,.overlapped_us,.comm_us,.free_us,.memcpy_us,.memset_us,.busy_us,.cpu_ops_us]' \
	    '.gpu | [.kernel_time_us,.idle_us,.compute_us,.non_compute_us,.comm_us,.overlap_us,.comm_comp_overlap_ratio]'
	[ "${J[0]}" = \
	    '[10,1000,249.75,250,50,300,446.125,50.125,4,553.875,80]' ]
	[ "${J[1]}" = '[1949.75,1145.875,449.75,354.125,400,100,0.25]' ]
	local want=$output
	TMPDIR=$BATS_TEST_TMPDIR/none PD_SORT_MEM=48 run_pd 0 pd-sum-step \
	    "$KF/sum-kineto.json"
	[ "$output" = "$want" ]
	mkdir "$BATS_TEST_TMPDIR/w"
	# writes refused (ulimit -f 0): the spill fails, exit 5 (the tool's
	# output cannot be captured in a file under that limit either)
	TMPDIR=$BATS_TEST_TMPDIR/w PD_SORT_MEM=48 run_pd 5 nowrite pd-sum-step \
	    "$KF/sum-kineto.json"
	require_corpus
	mkdir "$BATS_TEST_TMPDIR/sort"
	PD_SORT_MEM=4096 TMPDIR=$BATS_TEST_TMPDIR/sort run_pd 0 pd-sum-step \
	    "$PT/hta-nccl-2rank-a100/nccl_data.json.gz"
	jqv pd.step '.steps[0] | [.step,.step_us,.computing_us,.comm_us,.overlapped_us,.busy_us,.free_us]' \
	    '[.rank,.gpu.kernel_time_us,.gpu.comm_comp_overlap_ratio,(.steps|length)]'
	[ "${J[0]}" = \
	    '[4,222442.191,38506.406,11989.021,1825.259,49438.921,173003.27]' ]
	[ "${J[1]}" = '[0,660551.005,0.1561,3]' ]
	[ -z "$(ls -A "$BATS_TEST_TMPDIR/sort")" ]
}
