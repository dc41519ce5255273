#!/usr/bin/env bats
# pd-sum-mem on PyTorch traces and the raw memory timeline export. Fixture
# numbers are worked out by hand (see each comment); corpus numbers were
# computed once with a python3 script over the whole trace (json, Decimal
# ts x 1000 as ns): per (Device Type, Device Id) the max of Total
# Allocated / Total Reserved with the earliest ts reaching it, and per Addr
# the count of allocs minus frees.
load helper
load contract

KF=$FIX/kineto
PT=$CORPUS/pytorch

kroot() {	# kroot FILE KIND [DEVICE]: a pd.root with one export
	printf '{"type":"pd.root","v":1,"root":"%s","rank":null,"device":%s,"format":"kineto","run":"r","score":1,"exports":[{"kind":"%s","path":"%s","bytes":0}]}\n' \
	    "$1" "${3:-null}" "$2" "$1"
}

@test "pd-sum-mem kineto: -h prints usage to stdout" { contract_h pd-sum-mem; }
@test "pd-sum-mem kineto: bad option is exit 2" { contract_badopt pd-sum-mem; }
@test "pd-sum-mem kineto: input passes through byte for byte" { contract_passthrough pd-sum-mem; }
@test "pd-sum-mem kineto: empty input, empty output" { contract_empty pd-sum-mem; }
@test "pd-sum-mem kineto: missing operand is exit 5" { contract_missing pd-sum-mem; }
@test "pd-sum-mem kineto: writing to /dev/full is exit 5" {
	contract_devfull pd-sum-mem "$KF/sum-kineto.json"
}

# sum-kineto.json, CUDA device 0: Total Allocated peaks at 3145728 at
# ts 2010.5 us; Total Reserved 4194304 at the same event, so fragmentation
# 4194304 - 3145728 = 1048576; capacity 16777216 (deviceProperties), ratio
# 4194304 / 16777216 = 0.25. Growth: least-squares slope through the five
# (ts, Total Allocated) points = 2464241505.369 B/s (python3: sum((t -
# mt)(a - ma)) / sum((t - mt)^2)). Addresses 200 (1048576 B), 300 (2097152)
# and the CPU 900 (16) never freed; 400 (512 B) freed, never allocated.
# Operators: the 4096 B at 1010.5 falls in aten::mm [1010, 1090] (freed at
# 1030.5: lifetime 20 us), the 1048576 B at 1020.5 in aten::add [1020,
# 1030] inside it; the 2097152 B at 2010.5 in no operator (the next
# aten::mm starts at 2400).
@test "pd-sum-mem kineto: peaks per device against totalGlobalMem" {
	run_pd 0 pd-sum-mem "$KF/sum-kineto.json"
	jqv pd.mem '.devices[0] | [.device,.kind,.peak_allocated_bytes,.peak_reserved_bytes,.peak_time_ns,.capacity_bytes,.fragmentation_bytes,.growth_bytes_per_s,.peak_active_bytes]' \
	    '.devices[1] | [.device,.kind,.peak_allocated_bytes,.peak_reserved_bytes]' \
	    '[.rank,.peak_allocated_bytes,.peak_reserved_bytes,.capacity_bytes,.peak_ratio,.never_released,.frees_without_alloc]' \
	    '[.top_allocators[] | [.name,.bytes,.count,.lifetime_us]]' \
	    '[.top_by_lifetime[].name,.allocs_without_op,.fragmentation_bytes,.fragmentation_ratio]'
	[ "${J[0]}" = \
	    '[0,"cuda",3145728,4194304,2010500,16777216,1048576,2464241505.369,null]' ]
	[ "${J[1]}" = '[null,"cpu",16,null]' ]
	[ "${J[2]}" = \
	    '[3,3145728,4194304,16777216,0.25,{"count":3,"bytes":3145744},{"count":1,"bytes":512}]' ]
	[ "${J[3]}" = \
	    '[["aten::add",1048576,1,0],["aten::mm",4096,1,20]]' ]
	[ "${J[4]}" = \
	    '["aten::mm","aten::add",{"count":1,"bytes":2097152},1048576,0.25]' ]
}

# sum-kineto.json: ProfilerStep#10 [1000, 2000) holds the CUDA events at
# 1010.5, 1020.5 (allocated 1052672, reserved 2097152), 1030.5; #11 the
# ones at 2010.5 (3145728, 4194304) and 2020.5. Every CUDA event is inside
# an enumerate(DataLoader) range of its thread. Five CUDA events in
# different slices of the span: the timeline is all of them.
@test "pd-sum-mem kineto: peaks per step, phase and a timeline" {
	run_pd 0 pd-sum-mem "$KF/sum-kineto.json"
	jqv pd.mem '.devices[0].steps' \
	    '[.devices[0].phases[] | [.phase,.peak_allocated_bytes,.allocs]]' \
	    '.devices[0].timeline' \
	    '.devices[1].timeline'
	[ "${J[0]}" = \
	    '[{"step":10,"peak_allocated_bytes":1052672,"peak_time_ns":1020500,"peak_reserved_bytes":2097152,"allocs":2,"alloc_bytes":1052672},{"step":11,"peak_allocated_bytes":3145728,"peak_time_ns":2010500,"peak_reserved_bytes":4194304,"allocs":1,"alloc_bytes":2097152}]' ]
	[ "${J[1]}" = '[["dataloader",3145728,3]]' ]
	[ "${J[2]}" = \
	    '[[1010500,4096,2097152],[1020500,1052672,2097152],[1030500,1048576,2097152],[2010500,3145728,4194304],[2020500,3145216,4194304]]' ]
	[ "${J[3]}" = '[[1015500,16,null]]' ]
}

# sum-mem-2021.json: the 2021 shape (Operator ranges, [memory] with only
# Device Type, Device Id and Bytes), events out of file order, backward on
# a second thread. CUDA in time order (us): +4000 @30 in aten::mm [20,60],
# +1000 @80 in aten::linear [10,100], +2000 @260 in aten::mm [250,300] of
# thread 101 inside evaluate_function, -4000 @350, +500 @515 in aten::add_
# inside Optimizer.step, -1000 @600, +300 @1100 outside every step and op.
# Running sum 4000 5000 7000 3000 3500 2500 2800: peak 7000 at 260 us.
# Step 1 [0, 1000): allocs 4000+1000+2000+500 = 7500 in 4. Phases by the
# ranges around each event: forward (the rest of the step) 30, 80; backward
# 260, 350; optimizer 515, 600; other 1100. Growth by python3
# (sum((t-mt)(a-ma)) / sum((t-mt)^2) x 1e6): -2348619.114 B/s. Ratio
# 7000 / 100000. No Addr: nothing can be followed block by block.
@test "pd-sum-mem kineto: 2021 events without Addr: timeline, operators, phases, exit 0" {
	run_pd 0 pd-sum-mem "$KF/sum-mem-2021.json"
	[ -z "$stderr" ]
	jqv pd.mem '.devices[0] | [.kind,.peak_allocated_bytes,.peak_time_ns,.peak_reserved_bytes,.growth_bytes_per_s,.totals_from_trace,.events]' \
	    '[.devices[0].steps[] | [.step,.peak_allocated_bytes,.peak_time_ns,.allocs,.alloc_bytes]]' \
	    '[.devices[0].phases[] | [.phase,.peak_allocated_bytes,.peak_time_ns,.allocs,.alloc_bytes]]' \
	    '[.devices[0].timeline[][1]]' \
	    '[.top_allocators[] | [.name,.bytes,.count,.lifetime_us]]' \
	    '[.peak_ratio,.allocs_without_op,.never_released,.frees_without_alloc,.top_by_lifetime,.fragmentation_ratio]' \
	    '.devices[1] | [.kind,.peak_allocated_bytes,.steps[0].step]'
	[ "${J[0]}" = \
	    '["cuda",7000,260000,null,-2348619.114,false,7]' ]
	[ "${J[1]}" = '[[1,7000,260000,4,7500]]' ]
	[ "${J[2]}" = \
	    '[["forward",5000,80000,2,5000],["backward",7000,260000,1,2000],["optimizer",3500,515000,1,500],["other",2800,1100000,1,300]]' ]
	[ "${J[3]}" = '[4000,5000,7000,3000,3500,2500,2800]' ]
	[ "${J[4]}" = \
	    '[["aten::mm",6000,2,null],["aten::linear",1000,1,null],["aten::add_",500,1,null]]' ]
	[ "${J[5]}" = \
	    '[0.07,{"count":1,"bytes":300},null,null,null,null]' ]
	# the CPU event of step 2 is its own device, not an allocator of the list
	[ "${J[6]}" = '["cpu",100,2]' ]
}

@test "pd-sum-mem kineto: -n cuts the operator lists" {
	run_pd 0 pd-sum-mem -n 1 "$KF/sum-mem-2021.json"
	[ "$(jqr pd.mem '[.top_allocators[].name]')" = '["aten::mm"]' ]
}

# 2021 schema: no Total Allocated; events out of file order. In time
# order +1000 (150), +3000 (160), -1000 (170), +500 (180): running peak
# 4000 at 160 us; ratio 4000 / 1000000. Growth: t - mean = -15, -5, 5, 15
# us, a - mean = -1875, 1125, 125, 625: 32500 / 500 = 65 B/us.
@test "pd-sum-mem kineto: 2021 events without totals are summed in time order" {
	run_pd 0 pd-sum-mem "$KF/sum-2021.json"
	jqv pd.mem '.devices[0] | [.peak_allocated_bytes,.peak_time_ns,.peak_reserved_bytes,.growth_bytes_per_s,.totals_from_trace]' \
	    '[.peak_ratio,.never_released,.frees_without_alloc]'
	[ "${J[0]}" = \
	    '[4000,160000,null,65000000,false]' ]
	[ "${J[1]}" = \
	    '[0.004,{"count":2,"bytes":3500},{"count":0,"bytes":0}]' ]
}

@test "pd-sum-mem kineto: no memory events: nulls, no devices" {
	run_pd 0 pd-sum-mem "$KF/sum-autograd.json"
	[ "$(jqr pd.mem '[.devices,.peak_allocated_bytes,.peak_ratio,.never_released]')" = '[[],null,null,null]' ]
}

# sum-bad.json: its [memory] event has no Addr (the 2021 shape) and is
# read; the one entry skipped is the kernel with ts "soon".
@test "pd-sum-mem kineto: a [memory] event without Addr is read" {
	run_pd 3 pd-sum-mem "$KF/sum-bad.json"
	[[ "$stderr" != *"'[memory]'"* ]]
	[ "$(jqr pd.mem '[.skipped_rows,.devices[0].events,.peak_allocated_bytes]')" = '[1,1,64]' ]
}

@test "pd-sum-mem kineto: a [memory] event without Bytes is counted, exit 3" {
	run_pd 3 pd-sum-mem "$KF/sum-mem-nobytes.json"
	[[ "$stderr" == *"event 2 ('[memory]'): no ts or Bytes; skipped"* ]]
	[ "$(jqr pd.mem '[.skipped_rows,.devices[0].events,.top_allocators[0].name]')" = '[1,1,"aten::empty"]' ]
}

# Raw timeline: running sum 1000, 1500, 1000, 1500, 3500 (at ts 30), 1500,
# 1000; at the peak temporary 2000, parameter 1000, gradient 500. Growth:
# least-squares slope through the six timed points (ts >= 0), by python3:
# -3076923076.923 B/s.
@test "pd-sum-mem kineto: raw memory timeline export" {
	run_pd 0 pd-sum-mem < <(kroot "$KF/sum-memtl.raw.json" memory_timeline_raw 2)
	jqv pd.mem '[.source,.peak_allocated_bytes,.devices[0].device,.devices[0].peak_time_ns,.devices[0].growth_bytes_per_s,.peak_ratio]' \
	    '[.categories_at_peak[0:4][] | [.category,.bytes]]' \
	    '.actions'
	[ "${J[0]}" = \
	    '["memory_timeline_raw",3500,2,30,-3076923076.923,null]' ]
	[ "${J[1]}" = \
	    '[["temporary",2000],["parameter",1000],["gradient",500],["optimizer_state",0]]' ]
	[ "${J[2]}" = '{"preexisting":1,"create":2,"increment_version":2,"destroy":2}' ]
}

@test "pd-sum-mem kineto: a cut raw timeline is summarized, exit 3" {
	run_pd 3 pd-sum-mem < <(kroot "$KF/sum-memtl-cut.raw.json" memory_timeline_raw)
	[[ "$stderr" == *"sum-memtl-cut.raw.json:2: file ends inside the timeline; summarized the 2 entries read before it"* ]]
	[ "$(jqr pd.mem '[.truncated,.peak_allocated_bytes]')" = '[true,1500]' ]
}

@test "pd-sum-mem kineto: a cut trace is summarized, exit 3" {
	run_pd 3 pd-sum-mem "$KF/sum-cut.json"
	[ "$(jqr pd.mem '[.truncated,.devices]')" = '[true,[]]' ]
}

# Corpus Qwen H100: CUDA peak allocated 2088508416 at 1428625778044036 ns
# (Total Reserved - Total Allocated at that event: 541320192), reserved
# peak 2629828608, capacity 85018279936; slope 26963201446.312 B/s.
@test "pd-sum-mem kineto: corpus [memory] events with totals" {
	require_corpus
	run_pd 0 pd-sum-mem "$PT/tracelens-h100-inference/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"
	jqv pd.mem '.devices[0] | [.device,.peak_allocated_bytes,.peak_time_ns,.peak_reserved_bytes,.fragmentation_bytes,.capacity_bytes,.events,.growth_bytes_per_s]' \
	    '[.peak_ratio,.never_released.count,.frees_without_alloc.count]'
	[ "${J[0]}" = \
	    '[0,2088508416,1428625778044036,2629828608,541320192,85018279936,2250,26963201446.312]' ]
	[ "${J[1]}" = '[0.0309,0,0]' ]
}

# Corpus Qwen H100, by python3 over the trace (json, Decimal ts
# x 1000): each CUDA allocation (Bytes >= 0) given to the cpu_op of its
# pid/tid with s <= ts <= s + dur and the latest start (then the shortest):
# aten::mul 5660336128 B in 220, aten::mm 3297116160 in 96,
# aten::empty_strided 3132406272 in 125, none outside an operator.
# Lifetimes: each free paired with the open allocation of its (device,
# Addr) in time order, summed per operator: aten::add 436976074 ns,
# aten::addmm 408804233. Fragmentation at the peak 541320192 / 2629828608
# = 0.2058. 18 operators allocate (under -n 20). One ProfilerStep (#6) holding all 1125 allocations
# (21375221248 B); no backward or optimizer ranges (inference): forward.
@test "pd-sum-mem kineto: corpus top allocating operators and fragmentation" {
	require_corpus
	run_pd 0 pd-sum-mem "$PT/tracelens-h100-inference/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"
	jqv pd.mem '[.top_allocators[0:3][] | [.name,.bytes,.count]]' \
	    '[.top_by_lifetime[0:2][] | [.name,.lifetime_us]]' \
	    '[.allocs_without_op,.fragmentation_bytes,.fragmentation_ratio,(.top_allocators | length)]' \
	    '[.devices[0].steps[] | [.step,.peak_allocated_bytes,.peak_time_ns,.allocs,.alloc_bytes]]' \
	    '[.devices[0].phases[].phase]' \
	    '.devices[0].timeline | [length <= 128, (map(.[1]) | max), (. == sort)]'
	[ "${J[0]}" = \
	    '[["aten::mul",5660336128,220],["aten::mm",3297116160,96],["aten::empty_strided",3132406272,125]]' ]
	[ "${J[1]}" = '[["aten::add",436976.074],["aten::addmm",408804.233]]' ]
	[ "${J[2]}" = \
	    '[{"count":0,"bytes":0},541320192,0.2058,18]' ]
	[ "${J[3]}" = \
	    '[[6,2088508416,1428625778044036,1125,21375221248]]' ]
	[ "${J[4]}" = '["forward"]' ]
	# at most 128 points, the peak one of them, in time order
	[ "${J[5]}" = '[true,2088508416,true]' ]
}

# Corpus V100 rank 1: 26770 CUDA events on device 1, peak allocated
# 6629508096, reserved 12782141440 of 34089730048 (ratio 0.375).
@test "pd-sum-mem kineto: corpus largest trace, device 1" {
	require_corpus
	run_pd 0 pd-sum-mem "$PT/hta-memory-events-v100/df_index_resolver.json.gz"
	jqv pd.mem '.devices[0] | [.device,.events,.peak_allocated_bytes,.peak_reserved_bytes,.capacity_bytes]' \
	    '[.rank,.peak_ratio]'
	[ "${J[0]}" = \
	    '[1,26770,6629508096,12782141440,34089730048]' ]
	[ "${J[1]}" = '[1,0.375]' ]
}

# Corpus V100 (python3 as above): every one of the 5 steps peaks at
# 6629508096 with 2677 allocations of 10493824000 B; backward (the
# autograd thread's evaluate_function ranges) holds the peak, first at
# 1669783687579130000, with 9090 allocations; forward (the rest of the
# steps) peaks at 5439832064 with 4295. Fragmentation at the peak
# 12782141440 - 6629508096 = 6152633344, 0.4813 of reserved. Top:
# aten::mul 12402728960 in 2295, aten::add 9478615040 in 1240.
@test "pd-sum-mem kineto: corpus training steps and phases" {
	require_corpus
	run_pd 0 pd-sum-mem "$PT/hta-memory-events-v100/df_index_resolver.json.gz"
	jqv pd.mem '[.devices[0].steps[] | [.step,.peak_allocated_bytes,.peak_reserved_bytes,.allocs,.alloc_bytes]]' \
	    '[.devices[0].phases[] | [.phase,.peak_allocated_bytes,.allocs,.alloc_bytes]]' \
	    '[.fragmentation_bytes,.fragmentation_ratio,.allocs_without_op.count]' \
	    '[.top_allocators[0:2][] | [.name,.bytes,.count]]' \
	    '.devices[0].timeline | length <= 128'
	[ "${J[0]}" = \
	    '[[2,6629508096,12782141440,2677,10493824000],[3,6629508096,12782141440,2677,10493824000],[4,6629508096,12782141440,2677,10493824000],[5,6629508096,12782141440,2677,10493824000],[6,6629508096,12782141440,2677,10493824000]]' ]
	[ "${J[1]}" = \
	    '[["forward",5439832064,4295,15616645120],["backward",6629508096,9090,36852474880]]' ]
	[[ "$output" == *'"phase":"backward","peak_allocated_bytes":6629508096,"peak_time_ns":1669783687579130000,'* ]]
	[ "${J[2]}" = '[6152633344,0.4813,0]' ]
	[ "${J[3]}" = '[["aten::mul",12402728960,2295],["aten::add",9478615040,1240]]' ]
	[ "${J[4]}" = true ]
}

# Corpus raw timeline: 16845 tuples; cumulative peak 3082832104 at
# 1696966047194486198, activations 2592465920 of it (python3 over the list).
@test "pd-sum-mem kineto: corpus raw memory timeline" {
	require_corpus
	run_pd 0 pd-sum-mem "$PT/hta-memory-timeline-raw/memory_timeline.raw.gz"
	[ "$(jqr pd.mem '[.source,.peak_allocated_bytes,.devices[0].events,.categories_at_peak[0].category,.categories_at_peak[0].bytes]')" = \
	    '["memory_timeline_raw",3082832104,16845,"activation",2592465920]' ]
	# beyond 2^53: jq would round it, so look at the text
	[[ "$output" == *'"peak_time_ns":1696966047194486198,'* ]]
}

@test "pd-sum-mem kineto: every corpus file gives one pd.mem, exit 0" {
	require_corpus
	local f
	for f in $(find "$CORPUS/pytorch" -name '*.gz' | sort); do
		run_pd 0 pd-sum-mem "$f"
		nrec pd.mem
		[ "$NREC" -eq 1 ]
	done
}

# The keys this tool adds for the Kineto memory timeline are in every
# pd.mem, whatever produced it: null where a source has no such value.
@test "pd-sum-mem kineto: timeline keys in every pd.mem (trace, raw timeline, Ascend)" {
	local shape='[(["allocs_without_op","fragmentation_bytes","fragmentation_ratio","top_by_lifetime"] - keys), (["fragmentation_ratio","phases","steps","timeline"] - (.devices[0] | keys))]'
	run_pd 0 pd-sum-mem "$KF/sum-kineto.json"
	[ "$(jqr pd.mem "$shape")" = '[[],[]]' ]
	run_pd 0 pd-sum-mem < <(kroot "$KF/sum-memtl.raw.json" memory_timeline_raw 2)
	[ "$(jqr pd.mem "$shape")" = '[[],[]]' ]
	[ "$(jqr pd.mem '[.fragmentation_ratio,.devices[0].steps,.devices[0].timeline]')" = '[null,null,null]' ]
	printf '{"type":"pd.root","v":1,"root":"/r","rank":0,"device":0,"format":"msprof","run":"r","score":1,"exports":[{"kind":"memory_record","path":"%s","bytes":0}]}\n' \
	    "$FIX/pd-sum-mem/record-kb.csv" > "$BATS_TEST_TMPDIR/root.jsonl"
	run_pd 0 pd-sum-mem < "$BATS_TEST_TMPDIR/root.jsonl"
	[ "$(jqr pd.mem "$shape")" = '[[],[]]' ]
	[ "$(jqr pd.mem '[.allocs_without_op,.devices[0].phases]')" = '[null,null]' ]
}

# Two threads of one process, their ops and allocations interleaved in
# time and written out of order (sum-mem-threads.json, made for this
# test). Thread 1: aten::outerA [100, 400] holds aten::innerA [150, 250];
# thread 2: aten::opB [120, 300]. Allocations (us): 160 t1 +100 and 250
# t1 +50 (an op's end holds it) -> innerA 150 in 2; 170 t2 +200 -> opB;
# 260 t1 +300 -> outerA (innerA has ended); 310 t2 +400 -> none (opB has
# ended; outerA is another thread's). Peak: Total Allocated 1050 at 310
# us. The same with every run of the sort in a temporary file.
@test "pd-sum-mem kineto: each allocation goes to its own thread's innermost op" {
	local want
	run_pd 0 pd-sum-mem "$KF/sum-mem-threads.json"
	jqv pd.mem '[.top_allocators[] | [.name,.bytes,.count]]' \
	    '[.allocs_without_op,.devices[0].peak_allocated_bytes,.devices[0].peak_time_ns]'
	[ "${J[0]}" = \
	    '[["aten::outerA",300,1],["aten::opB",200,1],["aten::innerA",150,2]]' ]
	[ "${J[1]}" = '[{"count":1,"bytes":400},1050,310000]' ]
	want=$output
	PD_SORT_MEM=64 TMPDIR=$BATS_TEST_TMPDIR run_pd 0 pd-sum-mem \
	    "$KF/sum-mem-threads.json"
	[ "$output" = "$want" ]
}

# The events are sorted in runs of PD_SORT_MEM bytes, written to temporary
# files under TMPDIR past one run. With runs of two events (64-byte events,
# 32-byte ranges) every fixture and the corpus's largest trace go through
# the files (with writes refused, ulimit -f 0, it then fails: exit 5) and
# give the record of the in-memory sort byte for byte; so does a TMPDIR
# that does not exist (no file can be made: all is sorted in memory). The
# corpus numbers are the ones pinned above.
@test "pd-sum-mem kineto: sorting in temporary files gives the same record" {
	local f
	for f in sum-mem-2021 sum-kineto sum-2021; do
		run_pd 0 pd-sum-mem "$KF/$f.json"
		local want=$output
		PD_SORT_MEM=64 run_pd 0 pd-sum-mem "$KF/$f.json"
		[ "$output" = "$want" ]
		PD_SORT_MEM=64 run_pd 5 nowrite pd-sum-mem "$KF/$f.json"
		TMPDIR=$BATS_TEST_TMPDIR/none PD_SORT_MEM=64 run_pd 0 \
		    pd-sum-mem "$KF/$f.json"
		[ "$output" = "$want" ]
	done
	require_corpus
	mkdir "$BATS_TEST_TMPDIR/sort"
	PD_SORT_MEM=65536 TMPDIR=$BATS_TEST_TMPDIR/sort run_pd 0 pd-sum-mem \
	    "$PT/hta-memory-events-v100/df_index_resolver.json.gz"
	jqv pd.mem '.devices[0] | [.device,.events,.peak_allocated_bytes,.peak_reserved_bytes,.capacity_bytes]' \
	    '[.rank,.peak_ratio]' '.top_allocators[0:2] | map([.name,.bytes,.count])'
	[ "${J[0]}" = \
	    '[1,26770,6629508096,12782141440,34089730048]' ]
	[ "${J[1]}" = '[1,0.375]' ]
	[ "${J[2]}" = \
	    '[["aten::mul",12402728960,2295],["aten::add",9478615040,1240]]' ]
	# nothing is left behind in TMPDIR
	[ -z "$(ls -A "$BATS_TEST_TMPDIR/sort")" ]
}

@test "pd-sum-mem kineto: a temporary file that cannot be written: exit 5" {
	# (under ulimit -f 0 the tool's own output cannot be captured in a
	# file either: the status says the spill failed)
	mkdir "$BATS_TEST_TMPDIR/sort"
	TMPDIR=$BATS_TEST_TMPDIR/sort PD_SORT_MEM=64 run_pd 5 nowrite pd-sum-mem \
	    "$KF/sum-mem-2021.json"
	# the same without the limit: exit 0 (the 5 above is the write's)
	TMPDIR=$BATS_TEST_TMPDIR/sort PD_SORT_MEM=64 run_pd 0 pd-sum-mem \
	    "$KF/sum-mem-2021.json"
	# none can be made: sorted in memory
	TMPDIR=$BATS_TEST_TMPDIR/none PD_SORT_MEM=64 run_pd 0 pd-sum-mem "$KF/sum-mem-2021.json"
	[ "$(jqr pd.mem '.devices[0].peak_allocated_bytes')" = 7000 ]
}
