#!/usr/bin/env bats
# pd-sum-gaps on hand-written traces in fixtures/kineto/gaps-*.json. Every
# number asserted below was worked out by hand from the fixture events (the
# comments show the arithmetic; times in us as in the files) and agrees with
# a separate python3 computation run once over the same files.
load helper
load contract

K="$FIX/kineto"

# a pd.root line for a file: root FORMAT KIND PATH
root() {
	printf '{"type":"pd.root","v":1,"root":"%s","rank":null,"device":null,"format":"%s","exports":[{"kind":"%s","path":"%s","bytes":1}]}\n' \
	    "$3" "$1" "$2" "$3"
}

# gaps FORMAT KIND FILE [options]: pd-sum-gaps on that one root
# (expected exit status in $RC, default 0)
gaps() {
	local in=$BATS_TEST_TMPDIR/root.jsonl
	root "$1" "$2" "$3" >"$in"
	shift 3
	run_pd "${RC:-0}" pd-sum-gaps "$@" <"$in"
}

@test "pd-sum-gaps: -h prints usage to stdout" { contract_h pd-sum-gaps; }
@test "pd-sum-gaps: bad option is exit 2" { contract_badopt pd-sum-gaps; }
@test "pd-sum-gaps: stdin records pass through byte for byte" { contract_passthrough pd-sum-gaps; }
@test "pd-sum-gaps: empty input, empty output" { contract_empty pd-sum-gaps; }
@test "pd-sum-gaps: missing path is one error line, exit 5" { contract_missing pd-sum-gaps; }
@test "pd-sum-gaps: writing to /dev/full is exit 5" {
	contract_devfull pd-sum-gaps "$K/gaps-basic.json"
}

@test "pd-sum-gaps: a located trace operand gives pd.root then pd.gaps" {
	run_pd pd-sum-gaps "$K/gaps-basic.json"
	[ "$(printf '%s\n' "$output" | jq -r .type | tr '\n' ' ')" = "pd.root pd.gaps " ]
}

# Stream 7: A 1025+5 (launch 1010+10), B 1050+100 (launch 1030+10),
# C 1400+50 (launch 1200+60), D memcpy 1500+40 (launch 1300+20).
#   gap A->B 20: B's launch started at 1030, not after A's end 1030, and
#     20 < 30 -> kernel wait 20
#   gap B->C 250: C's launch started at 1200 > 1150 -> host wait 250
#   gap C->D 50: D's launch 1300 < 1450, 50 >= 30 -> other 50
#   busy 5+100+50+40 = 195, span 1540-1025 = 515, idle 320
# Stream 20: E memset 1060.2+0.5 (HTA rounds it to ceil 1061 .. floor 1060,
# dur -1), F nccl kernel 1100.25+10 without correlation:
#   gap 1100.25-1060.7 = 39.55, F has no launch -> other
#   busy 10.5, span 1110.25-1060.2 = 50.05
# Union: 1025-1030, 1050-1150 (E and F inside), 1400-1450, 1500-1540:
#   busy 195, span 515, idle 320, idle_ratio 320/515 = 0.6214
@test "pd-sum-gaps: per-stream idle split into host wait, kernel wait, other" {
	gaps kineto kineto_trace "$K/gaps-basic.json"
	jqv pd.gaps '[.rank,.source,.span_us,.busy_us,.idle_us,.idle_ratio]' \
	    '.streams[0]|[.stream,.device,.busy_us,.idle_us,.host_wait_us,.kernel_wait_us,.other_us,.activities,.span_us]' \
	    '.streams[1]|[.stream,.busy_us,.idle_us,.host_wait_us,.kernel_wait_us,.other_us,.span_us]'
	[ "${J[0]}" = '[3,"kineto_trace",515,195,320,0.6214]' ]
	[ "${J[1]}" = '[7,0,195,320,250,20,50,4,515]' ]
	[ "${J[2]}" = '[20,10.5,39.55,0,0,39.55,50.05]' ]
}

# Linked launches (cpu = runtime dur, gpu = activity dur, delay = gpu.ts -
# runtime end): A 10/5/5, B 10/100/10, C 60/50/140, D 20/40/180,
# E 5/0.5/5.2. Short (cpu <= 50 and gpu < cpu): A, E -> 2 of 5 = 0.4.
# Delays sorted 5, 5.2, 10, 140, 180: p50 10, p90 140 + 0.6*40 = 164;
# > 100: C, D. Runtime outliers (cpu > 50): C. Unlinked: F.
@test "pd-sum-gaps: launch statistics as HTA defines them" {
	gaps kineto kineto_trace "$K/gaps-basic.json"
	[ "$(jqr pd.gaps '.launch|[.kernels,.short_kernels,.short_ratio,.launch_delay_p50_us,.launch_delay_p90_us,.delayed_launches,.runtime_outliers,.unlinked]')" = '[5,2,0.4,10,164,2,1,1]' ]
}

# Stream 7 queue: +1 at 1010, -1 1025, +1 1030, -1 1050, +1 1200,
# +1 1300, -1 1400, -1 1500 -> 1,0,1,0,1,2,1,0: max 2, mean 6/8.
# Stream 20: +1 1050, -1 1060.2 -> max 1, mean 0.5.
@test "pd-sum-gaps: queue length per stream" {
	gaps kineto kineto_trace "$K/gaps-basic.json"
	[ "$(jqr pd.gaps '[.streams[]|[.stream,.queue_max,.queue_mean]]')" = '[[7,2,0.75],[20,1,0.5]]' ]
}

# cudaStreamSynchronize at 1330 (dur 400) is inside ProfilerStep#1
# [1000, 2000); cudaDeviceSynchronize at 2100 is not. One pageable memcpy
# (D, 40 us).
@test "pd-sum-gaps: synchronize calls in steps and pageable memcpys" {
	gaps kineto kineto_trace "$K/gaps-basic.json"
	[ "$(jqr pd.gaps '[.sync_in_step,.sync_calls,.sync_in_step_us,.steps,.pageable_memcpy,.pageable_memcpy_us]')" = '[1,2,400,1,1,40]' ]
}

# 30 chunks over [1025, 1540): chunk 0 is [1025, 1042.166), where only A
# runs: 5 / 17.166 = 0.2913. Chunk 1 holds 9.333 of B: 0.5437, not low.
@test "pd-sum-gaps: utilization chunks below 50 percent are listed" {
	gaps kineto kineto_trace "$K/gaps-basic.json"
	jqv pd.gaps '.low_util_chunks[0]' \
	    '[.low_util_chunks[].index]|index(1)'
	[ "${J[0]}" = '{"index":0,"util_ratio":0.2913}' ]
	[ "${J[1]}" = null ]
}

# k1 0+10, k2 600010+10, k3 1100020+10 on stream 7, k4 1100025+700000.5 on
# stream 9. Device gaps: 10 -> 600010 = 600 ms (listed, > 500 ms) and
# 600020 -> 1100020 = exactly 500 ms (not listed: nsys wants longer).
# Busy 10+10+(1800025.5-1100020) = 700025.5 of 1800025.5.
@test "pd-sum-gaps: gaps longer than 500 ms are listed with their start" {
	gaps kineto kineto_trace "$K/gaps-large.json"
	jqv pd.gaps '.large_gaps' \
	    '[.large_gaps_total,.span_us,.busy_us,.idle_us]' \
	    '[.streams[].host_wait_us]' \
	    '[.sync_in_step,.launch.short_kernels]'
	[ "${J[0]}" = '[{"stream":null,"start_ns":10000,"dur_us":600000,"device":0}]' ]
	[ "${J[1]}" = '[1,1800025.5,700025.5,1100000]' ]
	# no launch calls at all: host wait is unknown, not 0
	[ "${J[2]}" = '[null,null]' ]
	[ "${J[3]}" = '[null,null]' ]
}

# 2021 schema: Kernel/Runtime/Memcpy cats, tid "stream 7", one kernel
# without args.stream. Kernels 120+30 (launch 110+8), 200+30 (launch
# 180+8), memcpy 240+4 without its launch: gap 50 host wait (180 > 150),
# gap 10 kernel wait; busy 64 of 124. Delays 2 and 12: p50 7, p90 11.
@test "pd-sum-gaps: 2021 schema traces" {
	gaps kineto kineto_trace "$K/gaps-2021.json"
	jqv pd.gaps '.streams|map([.stream,.busy_us,.host_wait_us,.kernel_wait_us,.other_us])' \
	    '[.launch.kernels,.launch.launch_delay_p50_us,.launch.launch_delay_p90_us,.pageable_memcpy,.steps]'
	[ "${J[0]}" = '[[7,64,50,10,0]]' ]
	[ "${J[1]}" = '[2,7,11,1,1]' ]
}

# Ascend trace_view.json; the "Ascend Hardware" process_name comes after
# its events (the file is read twice). Stream 2 tasks: 110+20, 130+10
# (both from Node@launch 100, connection_id 1), 300+10 (launch 200),
# 405+5 (launch 400), 415+5 (no launch): gaps 160 and 95 host wait
# (launches after the previous end), 5 kernel wait; busy 50 of 310.
# Union with stream 3 (505+10): busy 60 of 405, idle ratio 345/405.
# Free lane: 160 + 85 = 245. Node@launch at 100, 200, 400, 500;
# stream syncs at 106 (after the launch at 100) and 600 (after 500): 2 of 4.
# Syncs in ProfilerStep#1 [90, 690): at 106, 420 (device), 600: 3, 63 us.
@test "pd-sum-gaps: Ascend trace_view lanes" {
	gaps torch_npu trace_view "$K/gaps-ascend_trace_view.json"
	jqv pd.gaps '[.source,.span_us,.busy_us,.idle_us,.idle_ratio]' \
	    '.streams[0]|[.stream,.busy_us,.idle_us,.host_wait_us,.kernel_wait_us,.other_us]' \
	    '[.free_us,.node_launch,.sync_after_launch,.sync_after_launch_ratio]' \
	    '[.sync_in_step,.sync_in_step_us,.sync_calls,.pageable_memcpy,.launch.kernels]'
	[ "${J[0]}" = '["trace_view",405,60,345,0.8519]' ]
	[ "${J[1]}" = '[2,50,260,255,5,0]' ]
	[ "${J[2]}" = '[245,4,2,0.5]' ]
	[ "${J[3]}" = '[3,63,3,null,null]' ]
}

# gaps-ascend-wait.json: one step [0, 100). Stream 2 runs MatMulV2
# [10, 30) and Add [80, 90), and between them EVENT_WAIT [30, 80) waits
# for the communication stream 4 (Notify Wait [30, 75), SDMA [75, 80)),
# under hcom_allReduce [30, 80), whose HCCL task (Memcpy) names stream 4:
# a communication lane although its task names match no communication
# pattern. The idle figures count every task (busy 20 + 50 + 10 = 80 on
# stream 2); the strip shows stream 2 working 30 and waiting 50, stream 4
# busy 50, collectives 50, aten::mm 20.
@test "pd-sum-gaps: Ascend EVENT_WAIT is waiting in the strip, device time in the figures" {
	gaps torch_npu trace_view "$K/gaps-ascend-wait.json"
	jqv pd.gaps '[.streams[]|[.stream,.busy_us]]' \
	    '[.strip.lanes[]|[.name,.kind,.count,.busy_us,.wait_us,.spans]]'
	[ "${J[0]}" = '[[2,80],[4,50]]' ]
	[ "${J[1]}" = '[["host operators","host",1,20,null,[[5,20]]],["collectives","communication",1,50,null,[[30,50]]],["stream 2","device",3,30,50,[[10,20],[80,10]]],["stream 4","communication",2,50,0,[[30,50]]]]' ]
}

@test "pd-sum-gaps: a root without trace_view gives no record" {
	run_pd sh -c 'printf "%s\n" "{\"type\":\"pd.root\",\"v\":1,\"root\":\"/x\",\"rank\":0,\"device\":null,\"format\":\"torch_npu\",\"exports\":[]}" | pd-sum-gaps'
	[ "$(printf '%s\n' "$output" | jq -r .type)" = pd.root ]
}

# pta_2rank_level1_db (export_type=db): no trace_view.json, so the lanes of
# ascend_pytorch_profiler_0.db. Figures from python3's sqlite3 on that
# file: TASK (all 552 device tasks, as the Ascend Hardware lane holds them)
# min(startNs) to max(endNs) = 171971496 ns; the union of the task
# intervals, sorted by start, 108005140 ns busy, 63966356 idle, 0.37196;
# streams 4 (312 tasks), 2 (232), 3 (6), 0 (2); select sum(endNs -
# startNs) from OVERLAP_ANALYSIS where type = 3 (free) -> 25258144;
# CANN_API named aclrtSynchronize%: 8 calls; node "launch" 191, 2 of them
# followed by an aclrtSynchronizeStream* call (as pd-hotspots counts);
# STEP_TIME one row. The text export of a similar run gives span 177633.189,
# busy 111944.227, idle ratio 0.3698, free 25744.05, 191 launches, 2 after.
@test "pd-sum-gaps corpus: pta_2rank_level1_db from the profiler db" {
	require_corpus
	run_pd 0 sh -c 'pd-locate "$1" | pd-sum-gaps' sh "$CORPUS/ascend/pta_2rank_level1_db/rank0_ascend_pt"
	[ -z "$stderr" ]
	jqv pd.gaps '[.source,.span_us,.busy_us,.idle_us,.idle_ratio,[.streams[] | [.stream,.activities]]]' \
	    '[.free_us,.node_launch,.sync_after_launch,.sync_calls,.steps,.skipped_events,.truncated]' \
	    '[keys, (.streams[0] | keys), (.launch | keys)]'
	[ "${J[0]}" = \
	    '["ascend_pytorch_profiler_db",171971.496,108005.14,63966.356,0.372,[[4,312],[2,232],[3,6],[0,2]]]' ]
	[ "${J[1]}" = \
	    '[25258.144,191,2,8,1,0,false]' ]
	# the same keys as from the text export
	db=${J[2]}
	gaps torch_npu trace_view "$CORPUS/ascend/pta_2rank_level1_text/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json"
	[ "$(jqr pd.gaps '[keys, (.streams[0] | keys), (.launch | keys)]')" = "$db" ]
}

# A profiler db written here (python3 sqlite3; times in ns): stream 2
# tasks [100, 150] and [300, 350] us, stream 3 [320, 400] with its times as
# text, one task ending before it starts (skipped, said); span 100..400 =
# 300, busy 50 + 100 = 150, idle 150. CANN_API: node launch at 90 and 250,
# aclrtSynchronizeStream at 260 for 10 us: 1 of 2 launches followed by a
# sync, one sync call, inside STEP_TIME [80, 500]. OVERLAP_ANALYSIS: free
# (type 3) 150 us, a compute row (type 0) not counted.
@test "pd-sum-gaps: the profiler db: lanes, a bad row, a db without TASK" {
	local d=$BATS_TEST_TMPDIR
	python3 - "$d/p.db" "$d/none.db" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY, value TEXT)")
c.executemany("INSERT INTO STRING_IDS VALUES (?,?)", [(1, "launch"), (2, "aclrtSynchronizeStream")])
c.execute("CREATE TABLE ENUM_API_TYPE (id INTEGER PRIMARY KEY, name TEXT)")
c.executemany("INSERT INTO ENUM_API_TYPE VALUES (?,?)", [(10000, "node"), (20000, "acl")])
c.execute("CREATE TABLE TASK (startNs INTEGER, endNs INTEGER, deviceId INTEGER, connectionId INTEGER, globalTaskId INTEGER, globalPid INTEGER, taskType INTEGER, contextId INTEGER, streamId INTEGER)")
c.executemany("INSERT INTO TASK (startNs, endNs, connectionId, streamId) VALUES (?,?,?,?)", [
    (100000, 150000, 1, 2), (300000, 350000, 2, 2), ("320000", "400000", None, 3), (200000, 199000, None, 3)])
c.execute("CREATE TABLE CANN_API (startNs INTEGER, endNs INTEGER, type INTEGER, globalTid INTEGER, connectionId INTEGER PRIMARY KEY, name INTEGER)")
c.executemany("INSERT INTO CANN_API (startNs, endNs, type, connectionId, name) VALUES (?,?,?,?,?)", [
    (90000, 95000, 10000, 1, 1), (250000, 255000, 10000, 2, 1), (260000, 270000, 20000, 3, 2)])
c.execute("CREATE TABLE STEP_TIME (id INTEGER, startNs INTEGER, endNs INTEGER)")
c.execute("INSERT INTO STEP_TIME VALUES (1, 80000, 500000)")
c.execute("CREATE TABLE OVERLAP_ANALYSIS (id INTEGER PRIMARY KEY AUTOINCREMENT, deviceId integer, startNs integer, endNs integer, type integer)")
c.executemany("INSERT INTO OVERLAP_ANALYSIS (startNs, endNs, type) VALUES (?,?,?)", [(150000, 300000, 3), (100000, 150000, 0)])
c.commit(); c.close()
sqlite3.connect(sys.argv[2]).execute("CREATE TABLE STRING_IDS (id, value)").connection.close()
PY
	sum=$(sha256sum "$d/p.db")
	RC=3 gaps torch_npu ascend_pytorch_profiler_db "$d/p.db"
	[ "$stderr" = "pd-sum-gaps: warning: $d/p.db: TASK: 1 rows with no start or end, or an end before the start skipped" ]
	jqv pd.gaps '[.source,.span_us,.busy_us,.idle_us,.idle_ratio,.skipped_events,.truncated]' \
	    '[.free_us,.node_launch,.sync_after_launch,.sync_after_launch_ratio,.sync_calls,.sync_in_step,.sync_in_step_us,.steps]'
	[ "${J[0]}" = '["ascend_pytorch_profiler_db",300,150,150,0.5,1,false]' ]
	[ "${J[1]}" = '[150,2,1,0.5,1,1,10,1]' ]
	[ "$(sha256sum "$d/p.db")" = "$sum" ]
	[ -z "$(ls "$d" | grep -E 'journal|wal|shm')" ]
	RC=3 gaps torch_npu ascend_pytorch_profiler_db "$d/none.db"
	[ "$stderr" = "pd-sum-gaps: warning: $d/none.db: no TASK table: no device timeline in this db" ]
	[ -z "$(jqr pd.gaps .)" ]
}

# Cut after line 40: the events read are the step, 7 runtime calls and
# kernels C, A, B (11): stream 7 busy 5+100+50 = 155 of 425, host wait
# 250, kernel wait 20.
@test "pd-sum-gaps: a truncated trace gives a summary, a warning with the line, exit 3" {
	local t=$BATS_TEST_TMPDIR/cut.json
	{ head -n 40 "$K/gaps-basic.json"; printf '  {"ph": "X", "cat": "gpu_me'; } >"$t"
	RC=3 gaps kineto kineto_trace "$t"
	[[ "$stderr" == "pd-sum-gaps: warning: $t:41: "*"summarized the 11 events read before it" ]]
	[ "$(jqr pd.gaps '[.truncated,.events,.busy_us,.span_us,.streams[0].host_wait_us,.streams[0].kernel_wait_us]')" = '[true,11,155,425,250,20]' ]
}

@test "pd-sum-gaps: an event without dur is counted and skipped, exit 3" {
	local t=$BATS_TEST_TMPDIR/nodur.json
	printf '%s\n' '{"traceEvents":[' \
	    '{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":10,"args":{"stream":7}},' \
	    '{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":20,"dur":5,"args":{"stream":7}}' \
	    ']}' >"$t"
	RC=3 gaps kineto kineto_trace "$t"
	[[ "$stderr" == *"$t: event 0 ('k'): no ts or dur; skipped"* ]]
	[ "$(jqr pd.gaps '[.skipped_events,.busy_us,.truncated]')" = '[1,5,false]' ]
}

# The corpus: every PyTorch trace and every Ascend trace_view.json gives
# one pd.gaps and no error. Numbers cross-checked once with an independent
# python3 script (HTA's rules on Decimal-exact ns): nccl_data stream 7 host
# wait 540091.317, kernel wait 2150.343; union busy 157500.014 of
# 660551.005; 3774 linked launches, 2076 short, 267 delayed.
@test "pd-sum-gaps: every corpus trace (pytorch and trace_view.json)" {
	require_corpus
	local f n=0
	while IFS= read -r f; do
		gaps kineto kineto_trace "$f"
		nrec pd.gaps
		[ "$NREC" -eq 1 ]
		n=$((n + 1))
	done < <(find "$CORPUS/pytorch" -name '*.json.gz' ! -name 'memory_timeline*' | sort)
	[ "$n" -ge 18 ]
	while IFS= read -r f; do
		gaps torch_npu trace_view "$f"
		[ "$(jqr pd.gaps '.idle_ratio >= 0 and .idle_ratio <= 1')" = true ]
	done < <(find "$CORPUS/ascend" -name 'trace_view.json' | sort)
	gaps kineto kineto_trace "$CORPUS/pytorch/hta-nccl-2rank-a100/nccl_data.json.gz"
	[ "$(jqr pd.gaps '[.busy_us,.span_us,(.streams[]|select(.stream==7)|[.host_wait_us,.kernel_wait_us]),.launch.kernels,.launch.short_kernels,.launch.delayed_launches]')" = '[157500.014,660551.005,[540091.317,2150.343],3774,2076,267]' ]
}

# The activities, launch starts and delays are sorted in runs of
# PD_SORT_MEM bytes (host spans and synchronize calls logged past as many),
# in temporary files under TMPDIR past one run. With runs of two records
# every fixture goes through the files and gives the record of the
# in-memory sort byte for byte; so does a TMPDIR that does not exist (no
# file can be made: all stays in memory); with writes refused (ulimit -f
# 0) the tool says so and exits 5. The corpus numbers are the ones pinned
# in the test above, nothing is left in TMPDIR.
@test "pd-sum-gaps: sorting in temporary files gives the same record" {
	local f want fmt kind
	mkdir "$BATS_TEST_TMPDIR/sort"
	for f in basic large 2021 strip wide ascend_trace_view ascend-wait; do
		fmt=kineto kind=kineto_trace
		case $f in ascend*) fmt=torch_npu kind=trace_view ;; esac
		gaps $fmt $kind "$K/gaps-$f.json"
		want=$output
		TMPDIR=$BATS_TEST_TMPDIR/sort PD_SORT_MEM=64 \
		    gaps $fmt $kind "$K/gaps-$f.json"
		[ "$output" = "$want" ]
		TMPDIR=$BATS_TEST_TMPDIR/none PD_SORT_MEM=64 \
		    gaps $fmt $kind "$K/gaps-$f.json"
		[ "$output" = "$want" ]
	done
	# (a file cannot take stderr under ulimit -f 0: it joins stdout, a pipe)
	TMPDIR=$BATS_TEST_TMPDIR/sort PD_SORT_MEM=64 run_pd 5 nowrite \
	    bash -c 'pd-sum-gaps "$1" 2>&1' - "$K/gaps-basic.json"
	[[ "$output" == *"gaps-basic.json: cannot sort its activities in a temporary file in"* ]]
	[[ "$output" != *'"pd.gaps"'* ]]
	require_corpus
	TMPDIR=$BATS_TEST_TMPDIR/sort PD_SORT_MEM=4096 gaps kineto kineto_trace \
	    "$CORPUS/pytorch/hta-nccl-2rank-a100/nccl_data.json.gz"
	[ "$(jqr pd.gaps '[.busy_us,.span_us,(.streams[]|select(.stream==7)|[.host_wait_us,.kernel_wait_us]),.launch.kernels,.launch.short_kernels,.launch.delayed_launches]')" = '[157500.014,660551.005,[540091.317,2150.343],3774,2076,267]' ]
	[ -z "$(ls -A "$BATS_TEST_TMPDIR/sort")" ]
}

# HTA 0.6.1 rounds float-ns timestamps (ceil ts, floor end): 22 sub-us
# memsets of this trace get dur -1 and its temporal breakdown asserts.
# Integer ns keep them: busy and idle add up to the span exactly.
@test "pd-sum-gaps: the Qwen trace that HTA's rounding breaks" {
	require_corpus
	gaps kineto kineto_trace "$CORPUS/pytorch/tracelens-h100-inference/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"
	[ "$(jqr pd.gaps '[.span_us,.busy_us,.idle_us,.streams[0].host_wait_us,.streams[0].kernel_wait_us]')" = '[49652.832,45647.3,4005.532,1500.603,2504.929]' ]
}

# Legacy autograd exporter (bare array, pid "CPU functions" / "CUDA
# functions", no correlation): kernels 10+3 and 20+3 on tid 0: gap 7 <
# 30 is kernel wait; no launch links, so host wait is null.
@test "pd-sum-gaps: legacy autograd traces" {
	gaps autograd kineto_trace "$K/gaps-autograd.json"
	[ "$(jqr pd.gaps '[.span_us,.busy_us,.idle_us,.streams[0].device,.streams[0].host_wait_us,.streams[0].kernel_wait_us,.launch.kernels]')" = '[13,6,7,null,null,7,0]' ]
}

# gaps-wide.json: times that do not fit the compact 32-bit fields.
# Stream 7: A 1020+5000000 (launch 1000+10; longer than 2^30 ns),
# B 5001100+10 (launch 1100+20, seen after B; 5 s before it),
# C 5001210+30 (launch 5001200+5).
#   gap A->B 80: B's launch 1100 < A's end 5001020, 80 >= 30 -> other 80
#   gap B->C 100: C's launch 5001200 > 5001110 -> host wait 100
#   busy 5000000+10+30 = 5000040, span 5001240-1020 = 5000220, idle 180
# Delays 10, 4999980 (over 2^32 ns), 5: sorted 5, 10, 4999980: p50 10,
# p90 10 + 0.8*(4999980-10) = 3999986; > 100: B. Short: B (cpu 20, gpu
# 10). Queue: +1 1000, -1 1020, +1 1100, -1 5001100, +1 5001200,
# -1 5001210: max 1, mean 3/6.
@test "pd-sum-gaps: durations and launch offsets beyond 32 bits" {
	gaps kineto kineto_trace "$K/gaps-wide.json"
	jqv pd.gaps '[.span_us,.busy_us,.idle_us]' \
	    '.streams[0]|[.busy_us,.idle_us,.host_wait_us,.kernel_wait_us,.other_us,.activities,.queue_max,.queue_mean]' \
	    '.launch|[.kernels,.short_kernels,.launch_delay_p50_us,.launch_delay_p90_us,.delayed_launches,.unlinked]'
	[ "${J[0]}" = '[5000220,5000040,180]' ]
	[ "${J[1]}" = '[5000040,180,100,0,80,3,1,0.5]' ]
	[ "${J[2]}" = '[3,1,10,3999986,1,0]' ]
}

# The strip of gaps-strip.json (times in us). Steps #10 [0,1000), #11
# [1000,1300), #12 [1300,1900): by duration 300 < 600 < 1000, so the
# median is #12, third in time; offsets below are from 1300.
# data loading: the DataLoader call 1300+100 -> [0,100].
# host operators: aten::addmm (1420+150) starts inside aten::linear
# (1410+200) and merges into it: [110,200]; aten::relu [350,20];
# aten::sum 1880+50 clipped to the window's end 1900: [580,20]; busy
# 200+20+20 = 240, 3 spans.
# launch calls: the linked ones inside the window, 1430 and 1660 (the one
# at 90 is in step #10): instants at 130 and 360.
# synchronize: 1670+230 -> [370,230].
# stream 7: 1450+100 -> [150,100]; 1560+10 and 1570.3+5 are 0.3 apart,
# under the merge distance 600/1000 = 0.6, so [260,15.3]; busy 115.
# stream 20: the nccl kernel 1700+300 clipped to [400,200]; all of its
# time is a communication kernel, so kind communication.
@test "pd-sum-gaps: the strip of the median step, lane by lane" {
	gaps kineto kineto_trace "$K/gaps-strip.json"
	jqv pd.gaps '.strip|[.window,.step,.steps,.step_num,.start_ns,.dur_us,.lanes_left_out]' \
	    '[.strip.lanes[]|[.name,.kind,.count,.busy_us,.spans]]' \
	    '[.strip.lanes[].wait_us]' \
	    '[keys_unsorted[-2:][]]'
	[ "${J[0]}" = '["median step",3,3,12,1300000,600,0]' ]
	[ "${J[1]}" = '[["data loading","input",1,100,[[0,100]]],["host operators","host",3,240,[[110,200],[350,20],[580,20]]],["host launch calls","launch",2,0,[[130,0],[360,0]]],["host synchronize","sync",1,230,[[370,230]]],["device 0 stream 7","device",3,115,[[150,100],[260,15.3]]],["device 0 stream 20","communication",1,200,[[400,200]]]]' ]
	# no wait tasks in a Kineto trace: 0 on device lanes, null on host ones
	[ "${J[2]}" = '[null,null,null,null,0,0]' ]
	# the strip comes after the other keys, before truncated
	[ "${J[3]}" = '["strip","truncated"]' ]
}

# kernels FILE JQ: a Kineto trace of the kernels that the jq program
# (over its input i = 0, 1, ...) makes as [stream, ts, dur].
kernels() {
	jq -n "{schemaVersion: 1, traceEvents: [$2 | {ph: \"X\", cat: \"kernel\",
	    name: \"k\", pid: 0, tid: .[0], ts: .[1], dur: .[2],
	    args: {device: 0, stream: .[0]}}]}" >"$1"
}

# No steps: the window is the device span. 14 streams, stream s one kernel
# [0, 10s): span 140 us; the 12 busiest are streams 3..14, shown in stream
# order; 2 are left out.
@test "pd-sum-gaps: without steps the strip is the trace; the 12 busiest streams" {
	kernels "$BATS_TEST_TMPDIR/t.json" 'range(1; 15) | [., 0, . * 10]'
	gaps kineto kineto_trace "$BATS_TEST_TMPDIR/t.json"
	jqv pd.gaps '.strip|[.window,.step,.steps,.step_num,.start_ns,.dur_us,.lanes_left_out]' \
	    '[.strip.lanes[].name]' \
	    '[.strip.lanes[]|.busy_us]|add'
	[ "${J[0]}" = '["trace",null,null,null,0,140,2]' ]
	[ "${J[1]}" = "$(jq -nc '[range(3; 15) | "device 0 stream \(.)"]')" ]
	[ "${J[2]}" = "$(( (3 + 14) * 12 / 2 * 10 ))" ]
}

# 300 kernels in pairs: pair k at 260k and 260k + 65, 5 us each (60 apart
# within a pair, 190 between pairs). Window [0, 260*149 + 70) = 38810 us;
# merge distance 38.81 us leaves 300 spans, over 200, so it doubles to
# 77.62: each pair merges into [260k, 70], the pairs stay apart: 150
# spans. Busy stays exact: 300 * 5.
@test "pd-sum-gaps: the strip merges nearby spans down to at most 200" {
	kernels "$BATS_TEST_TMPDIR/t.json" 'range(0; 300) | [7, ((. / 2 | floor) * 260 + (. % 2) * 65), 5]'
	gaps kineto kineto_trace "$BATS_TEST_TMPDIR/t.json"
	jqv pd.gaps '.strip.lanes[0]|[.count,.busy_us,(.spans|length),.spans[0],.spans[149]]' \
	    '.strip.dur_us'
	[ "${J[0]}" = '[300,1500,150,[0,70],[38740,70]]' ]
	[ "${J[1]}" = 38810 ]
}

# 3000 kernels on one stream in 600 groups of 5, overlapping here and
# there, at uneven distances (the jq below), read with the sort in memory
# and in temporary files: the lane's count, busy time and drawn spans
# against a reference in Python of what pd-sum-gaps(1) says the strip is
# (the union of the spans; those closer than the window / 1000 merged,
# the distance doubled until at most 200 are left): 812 stretches, 542
# spans at the first distance, 120 at twice it. pd-sum-gaps draws a lane
# as it reads it and doubles the distance past 400 spans, before the end.
@test "pd-sum-gaps: a long lane is drawn as the whole lane would be" {
	kernels "$BATS_TEST_TMPDIR/t.json" \
	    'range(0; 3000) | [7, ((. / 5 | floor) * 300 + ((. / 5 | floor) * 37 % 300) + ((. / 25 | floor) * 700) + (. % 5) * 10), (5 + (. * 7 % 20))]'
	run python3 - "$BATS_TEST_TMPDIR/t.json" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
sp = sorted((e["ts"] * 1000, (e["ts"] + e["dur"]) * 1000) for e in ev)
w0, w1 = sp[0][0], max(b for a, b in sp)
u = []                          # the union, in ns
for a, b in sp:
    if u and a <= u[-1][1]:
        u[-1][1] = max(u[-1][1], b)
    else:
        u.append([a, b])
res, d, n = max((w1 - w0) // 1000, 1), u, []
while True:
    m = []
    for a, b in d:
        if m and a - m[-1][1] < res:
            m[-1][1] = max(m[-1][1], b)
        else:
            m.append([a, b])
    d = m
    n.append(len(d))
    if len(d) <= 200:
        break
    res *= 2
print(len(u), n)
print(json.dumps([len(ev), sum(b - a for a, b in u) / 1000, len(d),
                  [[(a - w0) / 1000, (b - a) / 1000] for a, b in d]]))
PY
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "812 [542, 120]" ]
	want=$(jq -c . <<<"${lines[1]}")
	for mem in "" 64; do
		TMPDIR=$BATS_TEST_TMPDIR PD_SORT_MEM=$mem gaps kineto kineto_trace "$BATS_TEST_TMPDIR/t.json"
		[ "$(jqr pd.gaps '.strip.lanes[0]|[.count,.busy_us,(.spans|length),.spans]')" = "$want" ]
	done
}

# The strip of a real two-rank Ascend run, rank 0, from both exports.
# Figures from python3 (json and sqlite3 on the same files): the one step,
# ProfilerStep#50, is 155985.8 us in trace_view.json; the 4 HCCL hcom_*
# operations clipped to it cover 105991.87771875 us as a union. In the db,
# STEP_TIME id 50 is 151888750 ns and the 4 COMMUNICATION_OP rows cover
# 102108100 ns of it. Stream 2 (compute) in the step: its tasks' union less
# its EVENT_WAIT tasks (waits for the communication stream), times
# rounded to ns as pd-sum-gaps reads them: 9742477 ns of work, 91684352
# of waiting (text); 9789691 and 79257163 (db, TASK by taskType).
@test "pd-sum-gaps corpus: the strip of pta_2rank_level1 rank 0, text and db" {
	require_corpus
	gaps torch_npu trace_view "$CORPUS/ascend/pta_2rank_level1_text/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json"
	jqv pd.gaps '.strip|[.window,.step,.steps,.step_num,.dur_us]' \
	    '.strip.lanes[]|select(.name == "collectives")|[.kind,.count,.busy_us]' \
	    '.strip.lanes[]|select(.name == "stream 2")|[.kind,.busy_us,.wait_us]'
	[ "${J[0]}" = '["median step",1,1,50,155985.8]' ]
	[ "${J[1]}" = '["communication",4,105991.878]' ]
	[ "${J[2]}" = '["device",9742.477,91684.352]' ]
	run_pd 0 sh -c 'pd-locate "$1" | pd-sum-gaps' sh "$CORPUS/ascend/pta_2rank_level1_db/rank0_ascend_pt"
	jqv pd.gaps '.strip|[.window,.step,.steps,.step_num,.dur_us]' \
	    '.strip.lanes[]|select(.name == "collectives")|[.kind,.count,.busy_us]' \
	    '.strip.lanes[]|select(.name == "stream 2")|[.kind,.busy_us,.wait_us]'
	[ "${J[0]}" = '["median step",1,1,50,151888.75]' ]
	[ "${J[1]}" = '["communication",4,102108.1]' ]
	[ "${J[2]}" = '["device",9789.691,79257.163]' ]
}
