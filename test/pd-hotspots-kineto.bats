#!/usr/bin/env bats
# pd-hotspots on PyTorch (Kineto) roots. The fixture fixtures/kineto/
# hot-basic.json is written by hand; every number below was worked out by
# hand from its events (comments show the arithmetic, times in us) and
# agrees with a python3 computation run once over the same file.
load helper
load contract

K="$FIX/kineto"

# hot FILE [options]: pd-hotspots on a kineto root for FILE
# (expected exit status in $RC, default 0)
hot() {
	local in=$BATS_TEST_TMPDIR/root.jsonl
	printf '{"type":"pd.root","v":1,"root":"%s","rank":null,"device":null,"format":"kineto","exports":[{"kind":"kineto_trace","path":"%s","bytes":1}]}\n' \
	    "$1" "$1" >"$in"
	shift
	run_pd "${RC:-0}" pd-hotspots "$@" <"$in"
}

@test "pd-hotspots (kineto): a located trace operand gives pd.root then pd.hotspot" {
	run_pd pd-hotspots "$K/hot-basic.json"
	[ "$(printf '%s\n' "$output" | jq -r .type | tr '\n' ' ')" = "pd.root pd.hotspot " ]
}
@test "pd-hotspots (kineto): writing to /dev/full is exit 5" {
	contract_devfull pd-hotspots "$K/hot-basic.json"
}

# GPU time: nccl 300, sgemm 2 x 100, custom all-to-all dispatch 50, memcpy 20,
# elementwise 3 x 4, memset 1. Only NCCL matches the default patterns and
# communication is kept out of total_us and top (as for Ascend): total
# 583 - 300 = 283 over 8 activities. Ratios 200/283 = 0.7067, 50/283 =
# 0.1767, 20/283 = 0.0707, 12/283 = 0.0424, 1/283 = 0.0035; compute
# 200 + 50 + 12 = 262 = 0.9258.
@test "pd-hotspots (kineto): top kernels and classes" {
	hot "$K/hot-basic.json"
	jqv pd.hotspot '[.rank,.source,.total_us,.kernels]' \
	    '[.top[]|[.type,.count,.total_us,.mean_us,.ratio]]' \
	    '.top[0].name' \
	    '.classes' \
	    '[.by_type[]|[.type,.count,.total_us,.ratio]]' \
	    '[.top[0].core,.top[0].bound,.by_core,.aicpu]'
	[ "${J[0]}" = '[1,"kineto_trace",283,8]' ]
	[ "${J[1]}" = \
	    '[["compute",2,200,100,0.7067],["compute",1,50,50,0.1767],["memcpy",1,20,20,0.0707],["compute",3,12,4,0.0424],["memset",1,1,1,0.0035]]' ]
	[ "${J[2]}" = '"ampere_sgemm_128x64_nn"' ]
	[ "${J[3]}" = '{"compute_us":262,"comm_us":300,"memcpy_us":20,"memset_us":1}' ]
	[ "${J[4]}" = \
	    '[["compute",6,262,0.9258],["memcpy",1,20,0.0707],["memset",1,1,0.0035]]' ]
	[ "${J[5]}" = '[null,null,null,null]' ]
}

# -n 2 keeps two; -p adds "*myteam::a2a::*": the dispatch kernel moves to
# communication: 300 + 50 = 350; total 583 - 350 = 233, compute 212 =
# 0.9099; top sgemm 200/233 = 0.8584, memcpy 20/233 = 0.0858. Left out of
# top: elementwise 12 and memset 1 (2 names, 13 us; communication is not
# counted); of cpu_ops (linear 270, addmm 250 kept): copy_ 40 and t 10.
# Uncut (-n 20), nothing is left out.
@test "pd-hotspots (kineto): -n and extra communication patterns with -p" {
	hot "$K/hot-basic.json" -n 2 -p "$K/hot-ep-patterns.txt"
	jqv pd.hotspot '[.total_us,[.top[]|[.name,.ratio]]]' \
	    '.classes' \
	    '.by_type[0]' \
	    '[.top_rest,.cpu_ops_rest]'
	[ "${J[0]}" = '[233,[["ampere_sgemm_128x64_nn",0.8584],["Memcpy HtoD (Pinned -> Device)",0.0858]]]' ]
	[ "${J[1]}" = '{"compute_us":212,"comm_us":350,"memcpy_us":20,"memset_us":1}' ]
	[ "${J[2]}" = '{"type":"compute","count":5,"total_us":212,"ratio":0.9099}' ]
	[ "${J[3]}" = '[{"count":2,"total_us":13},{"count":2,"self_us":50}]' ]
	hot "$K/hot-basic.json"
	[ "$(jqr pd.hotspot '[.top_rest,.cpu_ops_rest]')" = '[{"count":0,"total_us":0},{"count":0,"self_us":0}]' ]
}

@test "pd-hotspots (kineto): an unreadable -p file is exit 4" {
	RC=4 hot "$K/hot-basic.json" -p /nonexistent/patterns
	[ -z "$(jqr pd.hotspot .type)" ]
}

# Launch cpu/gpu: nccl 8/300, sgemm 6/100 twice, elementwise 5/4 three
# times (short), dispatch 7/50, memcpy 30/20 (short), memset 60/1 (cpu >
# 50: not short): 4 of 9 = 0.4444. Host API totals: memset 60,
# cudaLaunchKernel 8+6+6+5+5+5+7 = 42 (7 calls), memcpy 30, sync 25.
@test "pd-hotspots (kineto): short kernels (HTA) and host API" {
	hot "$K/hot-basic.json"
	jqv pd.hotspot '[.short_ops,.short_ratio,.linked_kernels]' \
	    '[.host_api[]|[.name,.count,.total_us]]'
	[ "${J[0]}" = '[4,0.4444,9]' ]
	[ "${J[1]}" = \
	    '[["cudaMemsetAsync",1,60],["cudaLaunchKernel",7,42],["cudaMemcpyAsync",1,30],["cudaStreamSynchronize",1,25]]' ]
}

# Thread 500: aten::linear [0,500) holds aten::t [5,15), aten::addmm
# [20,220) and the first 20 us of aten::copy_ [480,520): self 500 - 10 -
# 200 - 20 = 270. Thread 501: aten::addmm [100,150), self 50 (other
# thread: not a child of linear): addmm 200 + 50 = 250 in 2 calls.
# ProfilerStep#7 (a user_annotation) and python_function are not ops.
@test "pd-hotspots (kineto): CPU ops by self time, per thread" {
	hot "$K/hot-basic.json"
	[ "$(jqr pd.hotspot '[.cpu_ops[]|[.name,.count,.self_us]]')" = \
	    '[["aten::linear",1,270],["aten::addmm",2,250],["aten::copy_",1,40],["aten::t",1,10]]' ]
}

# Cut after line 15: 11 events read (the step, 5 CPU ops, the python
# function, 4 launches); no GPU activity yet.
@test "pd-hotspots (kineto): a truncated trace gives a summary, a warning, exit 3" {
	local t=$BATS_TEST_TMPDIR/cut.json
	{ head -n 15 "$K/hot-basic.json"; printf '  {"ph": "X", "cat": "cuda_r'; } >"$t"
	RC=3 hot "$t"
	[[ "$stderr" == "pd-hotspots: warning: $t:16: "*"summarized the 11 events read before it" ]]
	[ "$(jqr pd.hotspot '[.truncated,.events,.total_us,.top,.short_ops,.cpu_ops[0].name,.host_api[0].count]')" = \
	    '[true,11,null,[],null,"aten::linear",4]' ]
}

# The trace reader is shared (lib/pd_trace.c): a .json.gz whose CRC32
# (the first 4 of the 8 trailer bytes, RFC 1952) is flipped still gives
# the numbers of hot-basic.json (283 us over 8 activities, test above),
# with a warning and exit 3; data after the object likewise.
@test "pd-hotspots (kineto): a gzip CRC mismatch or trailing data is warned, summary kept, exit 3" {
	local t=$BATS_TEST_TMPDIR/crc.json.gz
	gzip -c "$K/hot-basic.json" >"$t.full"
	python3 -c 'import sys; d = bytearray(open(sys.argv[1], "rb").read()); d[-7] ^= 0x10; open(sys.argv[2], "wb").write(d)' "$t.full" "$t"
	RC=3 hot "$t"
	[[ "$stderr" == "pd-hotspots: warning: $t:"*": gzip CRC mismatch; summarized the "*" events read before it" ]]
	[ "$(jqr pd.hotspot '[.truncated,.total_us,.kernels]')" = '[true,283,8]' ]
	t=$BATS_TEST_TMPDIR/tail.json
	{ cat "$K/hot-basic.json"; printf '{}\n'; } >"$t"
	RC=3 hot "$t"
	[[ "$stderr" == "pd-hotspots: warning: $t:"*": data after the top-level value; summarized the "* ]]
	[ "$(jqr pd.hotspot '[.total_us,.kernels]')" = '[283,8]' ]
}

# The corpus: one record per trace, no error. CPU self times cross-checked
# once with an independent python3 script (same stack rule) on nccl_data:
# aten::empty 52054.373, aten::convolution_backward 38314.08. The 21 NCCL
# kernels all run on stream 40, whose busy time pd-sum-gaps reports as the
# same 46876.493 (they do not overlap).
@test "pd-hotspots (kineto): every corpus trace" {
	require_corpus
	local f n=0
	while IFS= read -r f; do
		hot "$f"
		nrec pd.hotspot
		[ "$NREC" -eq 1 ]
		n=$((n + 1))
	done < <(find "$CORPUS/pytorch" -name '*.json.gz' ! -name 'memory_timeline*' | sort)
	[ "$n" -ge 18 ]
	hot "$CORPUS/pytorch/hta-nccl-2rank-a100/nccl_data.json.gz"
	jqv pd.hotspot '[.cpu_ops[0:2][]|[.name,.self_us]]' \
	    '[.classes.comm_us,(.top|map(.type)|index("communication"))]'
	[ "${J[0]}" = '[["aten::empty",52054.373],["aten::convolution_backward",38314.08]]' ]
	[ "${J[1]}" = '[46876.493,null]' ]
}

# Copies by kind against HTA's memory_bw_summary (peers/hta-0.6.1/alexnet
# and bert, rounded to 6 decimals): the kind is the name before " (", the
# bandwidth Kineto's own "memory bandwidth (GB/s)" per event. alexnet: 16
# HtoD copies mean 4.108898083923092, median 4.3937357574376765, min
# 0.14277746793084217, max 11.146690372735602, and 3 memsets; bert: one
# DtoH at 0.0004464285714285714. HTA keeps only the iterations it does not
# drop (peers meta.json), so on traces with steps (memev, timesformer) its
# counts are lower; alexnet and bert have no steps. Bytes and time: the sum
# of the events' args.bytes and dur (244403360 bytes, 55503 us, all 16 from
# pageable memory).
@test "pd-hotspots (kineto): copies by kind, bandwidth as HTA's memory_bw_summary" {
	require_corpus
	hot "$CORPUS/pytorch/hta-critical-path-a100/alexnet_trace.json.gz"
	jqv pd.hotspot '.copies|map([.kind,.count,.bw_gbps_mean,.bw_gbps_median,.bw_gbps_min,.bw_gbps_max])' \
	    '.copies[0]|[.bytes,.total_us,.pageable]'
	[ "${J[0]}" = \
	    '[["Memcpy HtoD",16,4.108898,4.393736,0.142777,11.14669],["Memset",3,1.726877,0.225352,0.225352,4.729927]]' ]
	[ "${J[1]}" = '[244403360,55503,16]' ]
	hot "$CORPUS/pytorch/tracelens-h100-inference/gaunernst_bert-small-uncased__1016001.json.gz"
	[ "$(jqr pd.hotspot '.copies|map([.kind,.count,.bw_gbps_mean])')" = '[["Memcpy DtoH",1,0.000446]]' ]
}

# The copy-bound fixture: 3 pinned HtoD copies of 64 MiB in 7000 us each:
# 67108864 / 7e6 ns = 9.587 GB/s (no bandwidth arg: bytes over ns).
@test "pd-hotspots (kineto): copies without Kineto's bandwidth arg" {
	hot "$K/copy-bound.json"
	[ "$(jqr pd.hotspot '.copies|map([.kind,.count,.bytes,.total_us,.pageable,.bw_gbps_mean])')" = \
	    '[["Memcpy HtoD",3,201326592,21000,0,9.586981]]' ]
}

# Legacy autograd exporter: aten::mm [1,51) holds aten::t [2,6): self 46;
# two sgemm kernels of 3 us: total 6.
@test "pd-hotspots (kineto): legacy autograd traces" {
	hot "$K/gaps-autograd.json"
	[ "$(jqr pd.hotspot '[.total_us,.top[0].count,.short_ops,(.cpu_ops|map([.name,.self_us]))]')" = '[6,2,null,[["aten::mm",46],["aten::t",4]]]' ]
}

# Thread 1 comes out of start order (copy_ 30+10, linear 0+100, t 10+10):
# read again and sorted: linear 100 - 10 - 10 = 80, copy_ 10, t 10.
# Thread 2 has a child written before its parent with the same start
# (mm 200+50, matmul 200+100): matmul 100 - 50 = 50, mm 50; relu starts
# at matmul's end: not nested, 7.
@test "pd-hotspots (kineto): self time with ops out of start order" {
	hot "$K/hot-unordered.json"
	[ "$(jqr pd.hotspot '[.cpu_ops[]|[.name,.count,.self_us]]')" = \
	    '[["aten::linear",1,80],["aten::matmul",1,50],["aten::mm",1,50],["aten::copy_",1,10],["aten::t",1,10],["aten::relu",1,7]]' ]
}

# Kernel names that are not UTF-8 keep their own entry and come out escaped
# (pd-record(5): each bad byte b as U+10FF00+b): raw 0xFF -> U+10FFFF
# (1114111); a lone \ud800 decodes to bytes ED A0 80 -> 1114093 1114016
# 1113984; \u0000 -> U+10FF00 (1113856). Durations 300, 200, 100 µs.
@test "pd-hotspots: kernel names with bad bytes, a lone surrogate and NUL survive" {
	local t=$BATS_TEST_TMPDIR/n.pt.trace.json
	{
		printf '{"traceEvents":[\n'
		printf '{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":1000},\n'
		for c in 1 2 3; do
			printf '{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":%d,"dur":2,"args":{"correlation":%d}},\n' $c $c
		done
		printf '{"ph":"X","cat":"kernel","name":"k\377a","pid":0,"tid":7,"ts":10,"dur":300,"args":{"device":0,"stream":7,"correlation":1}},\n'
		printf '{"ph":"X","cat":"kernel","name":"k\\ud800b","pid":0,"tid":7,"ts":400,"dur":200,"args":{"device":0,"stream":7,"correlation":2}},\n'
		printf '{"ph":"X","cat":"kernel","name":"k\\u0000c","pid":0,"tid":7,"ts":700,"dur":100,"args":{"device":0,"stream":7,"correlation":3}}\n'
		printf ']}\n'
	} >"$t"
	run_pd 0 pd-hotspots "$t"
	[ "$(jqr pd.hotspot '[.top[]|[(.name|explode),.total_us]]')" = \
	    '[[[107,1114111,97],300],[[107,1114093,1114016,1113984,98],200],[[107,1113856,99],100]]' ]
	[[ "$stderr" == *"pd-hotspots: warning: name 'k\\xFFa' is not valid UTF-8"* ]]
	[[ "$stderr" == *"name 'k\\xED\\xA0\\x80b' is not valid UTF-8"* ]]
}

# What the host's runtime calls do, by kind (hand-made fixture, durations
# in us): set-up cudaDeviceGetStreamPriorityRange 100 + cudaStreamCreate-
# WithFlags 10 = 110; alloc cudaMalloc 20 + cudaFree 5 = 25; launch
# cudaLaunchKernel 3 + cudaMemsetAsync 2 + cuMemsetD32Async 1 = 6; copy
# cudaMemcpyAsync 7; sync cudaStreamSynchronize 4 + cuCtxSynchronize 6 =
# 10; other: the occupancy query, 1. Two identical devices name the GPU
# (compute capability 7.5); two different ones do not.
@test "pd-hotspots (kineto): host runtime time by kind, and the GPU" {
	hot "$K/api-kinds.json"
	jqv pd.hotspot '.host_api_kinds' \
	    '.gpu'
	[ "${J[0]}" = \
	    '{"launch_us":6,"sync_us":10,"copy_us":7,"alloc_us":25,"setup_us":110,"other_us":1}' ]
	[ "${J[1]}" = '{"name":"NVIDIA GeForce RTX 2080 Ti","compute_capability":7.5}' ]
	hot "$K/api-kinds-mixed.json"
	[ "$(jqr pd.hotspot '.gpu')" = null ]
}

# alexnet (HTA critical-path test trace, A100): the set-up calls are
# cudaDeviceGetStreamPriorityRange 29927381 + cudaStreamCreateWithFlags
# 734880 + cudaGetDeviceProperties 5950 = 30668211 us, allocations
# cudaFree 6553827 + cudaMalloc 1956700 + cudaHostAlloc 3498 = 8514025 us
# (sums of the trace's cuda_runtime durations by name, python3); the
# V100 of hta-trace-diff/test is compute capability 7.0 (deviceProperties).
@test "pd-hotspots (kineto): corpus start-up calls and GPU generation" {
	require_corpus
	hot "$CORPUS/pytorch/hta-critical-path-a100/alexnet_trace.json.gz"
	[ "$(jqr pd.hotspot '[.host_api_kinds.setup_us,.host_api_kinds.alloc_us,.gpu.compute_capability]')" = '[30668211,8514025,8]' ]
	hot "$CORPUS/pytorch/hta-trace-diff/test/test.json.gz"
	[ "$(jqr pd.hotspot '.gpu')" = '{"name":"Tesla V100-SXM2-16GB","compute_capability":7}' ]
}
