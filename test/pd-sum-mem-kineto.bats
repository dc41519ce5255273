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
@test "pd-sum-mem kineto: peaks per device against totalGlobalMem" {
	run_pd 0 pd-sum-mem "$KF/sum-kineto.json"
	[ "$(jqr pd.mem '.devices[0] | [.device,.kind,.peak_allocated_bytes,.peak_reserved_bytes,.peak_time_ns,.capacity_bytes,.fragmentation_bytes,.growth_bytes_per_s,.peak_active_bytes]')" = \
	    '[0,"cuda",3145728,4194304,2010500,16777216,1048576,2464241505.369,null]' ]
	[ "$(jqr pd.mem '.devices[1] | [.device,.kind,.peak_allocated_bytes,.peak_reserved_bytes]')" = '[null,"cpu",16,null]' ]
	[ "$(jqr pd.mem '[.rank,.peak_allocated_bytes,.peak_reserved_bytes,.capacity_bytes,.peak_ratio,.top_allocators,.never_released,.frees_without_alloc]')" = \
	    '[3,3145728,4194304,16777216,0.25,null,{"count":3,"bytes":3145744},{"count":1,"bytes":512}]' ]
}

# 2021 schema: no Total Allocated; events out of file order. In time
# order +1000 (150), +3000 (160), -1000 (170), +500 (180): running peak
# 4000 at 160 us; ratio 4000 / 1000000. Growth: t - mean = -15, -5, 5, 15
# us, a - mean = -1875, 1125, 125, 625: 32500 / 500 = 65 B/us.
@test "pd-sum-mem kineto: 2021 events without totals are summed in time order" {
	run_pd 0 pd-sum-mem "$KF/sum-2021.json"
	[ "$(jqr pd.mem '.devices[0] | [.peak_allocated_bytes,.peak_time_ns,.peak_reserved_bytes,.growth_bytes_per_s,.totals_from_trace]')" = \
	    '[4000,160000,null,65000000,false]' ]
	[ "$(jqr pd.mem '[.peak_ratio,.never_released,.frees_without_alloc]')" = \
	    '[0.004,{"count":2,"bytes":3500},{"count":0,"bytes":0}]' ]
}

@test "pd-sum-mem kineto: no memory events: nulls, no devices" {
	run_pd 0 pd-sum-mem "$KF/sum-autograd.json"
	[ "$(jqr pd.mem '[.devices,.peak_allocated_bytes,.peak_ratio,.never_released]')" = '[[],null,null,null]' ]
}

@test "pd-sum-mem kineto: a [memory] event without Addr is counted, exit 3" {
	run_pd 3 pd-sum-mem "$KF/sum-bad.json"
	[[ "$stderr" == *"event 3 ('[memory]'): no ts, Bytes or Addr; skipped"* ]]
	[ "$(jqr pd.mem '.skipped_rows')" = 2 ]
}

# Raw timeline: running sum 1000, 1500, 1000, 1500, 3500 (at ts 30), 1500,
# 1000; at the peak temporary 2000, parameter 1000, gradient 500. Growth:
# least-squares slope through the six timed points (ts >= 0), by python3:
# -3076923076.923 B/s.
@test "pd-sum-mem kineto: raw memory timeline export" {
	run_pd 0 pd-sum-mem < <(kroot "$KF/sum-memtl.raw.json" memory_timeline_raw 2)
	[ "$(jqr pd.mem '[.source,.peak_allocated_bytes,.devices[0].device,.devices[0].peak_time_ns,.devices[0].growth_bytes_per_s,.peak_ratio]')" = \
	    '["memory_timeline_raw",3500,2,30,-3076923076.923,null]' ]
	[ "$(jqr pd.mem '[.categories_at_peak[0:4][] | [.category,.bytes]]')" = \
	    '[["temporary",2000],["parameter",1000],["gradient",500],["optimizer_state",0]]' ]
	[ "$(jqr pd.mem '.actions')" = '{"preexisting":1,"create":2,"increment_version":2,"destroy":2}' ]
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
	[ "$(jqr pd.mem '.devices[0] | [.device,.peak_allocated_bytes,.peak_time_ns,.peak_reserved_bytes,.fragmentation_bytes,.capacity_bytes,.events,.growth_bytes_per_s]')" = \
	    '[0,2088508416,1428625778044036,2629828608,541320192,85018279936,2250,26963201446.312]' ]
	[ "$(jqr pd.mem '[.peak_ratio,.never_released.count,.frees_without_alloc.count]')" = '[0.0309,0,0]' ]
}

# Corpus V100 rank 1: 26770 CUDA events on device 1, peak allocated
# 6629508096, reserved 12782141440 of 34089730048 (ratio 0.375).
@test "pd-sum-mem kineto: corpus largest trace, device 1" {
	require_corpus
	run_pd 0 pd-sum-mem "$PT/hta-memory-events-v100/df_index_resolver.json.gz"
	[ "$(jqr pd.mem '.devices[0] | [.device,.events,.peak_allocated_bytes,.peak_reserved_bytes,.capacity_bytes]')" = \
	    '[1,26770,6629508096,12782141440,34089730048]' ]
	[ "$(jqr pd.mem '[.rank,.peak_ratio]')" = '[1,0.375]' ]
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
		[ "$(jqr pd.mem .type | wc -l)" -eq 1 ]
	done
}
