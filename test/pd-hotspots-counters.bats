#!/usr/bin/env bats
# pd-hotspots: FLOPs counted by the CUPTI range profiler (pd.hotspot
# "counters"): Kineto "cuda_profiler_range" events, one per kernel, whose
# args are counter values. FLOPs per precision = add + mul + 2 * fma of the
# smsp__sass_thread_inst_executed_op_{d,f,h}{add,mul,fma}_pred_on.sum
# counters.
#
# fixtures/kineto/counters.json is written by hand: one cpu_op, its launch
# and its kernel sgemm_a (10 us), then three ranges:
#  sgemm_a: ffma 1000, fadd 10, fmul 20, warps_active 50.0
#  sgemm_a: ffma 3000, fadd 30, fmul 40, hfma 5, warps_active 70.0
#    -> fp32 2*4000 + 40 + 60 = 8100, fp16 2*5 = 10, 8110 in all;
#       mean warps_active (50 + 70) / 2 = 60
#  dgemm_b: dfma 100000, dadd 7, dmul 3, hadd 11, hmul 13,
#    sm__cycles_elapsed.avg "n/a" (not a number: unreadable, no mean)
#    -> fp64 2*100000 + 7 + 3 = 200010, fp16 11 + 13 = 24, 200034 in all
# Totals: fp64 200010, fp32 8100, fp16 34, 208144.
load helper

K="$FIX/kineto"

hot() {
	local f=$1 in=$BATS_TEST_TMPDIR/root.jsonl
	shift
	printf '{"type":"pd.root","v":1,"root":"%s","rank":null,"device":null,"format":"kineto","exports":[{"kind":"kineto_trace","path":"%s","bytes":1}]}\n' \
	    "$f" "$f" >"$in"
	run_pd "${RC:-0}" pd-hotspots "$@" <"$in"
}

S=smsp__sass_thread_inst_executed_op_

@test "pd-hotspots (counters): FLOPs per kernel and precision from range counters" {
	hot "$K/counters.json" -n 20
	[ "$(jqr pd.hotspot '.counters|[.ranges,.unreadable]')" = '[3,1]' ]
	[ "$(jqr pd.hotspot '[.counters.kernels[]|[.name,.count,.flops_fp64,.flops_fp32,.flops_fp16,.flops]]')" = \
	    '[["dgemm_b",1,200010,0,24,200034],["sgemm_a",2,0,8100,10,8110]]' ]
	[ "$(jqr pd.hotspot '[.counters.kernels[].means]')" = \
	    '[{},{"sm__warps_active.avg.pct_of_peak_sustained_active":60}]' ]
	[ "$(jqr pd.hotspot '.counters.totals')" = \
	    '{"flops_fp64":200010,"flops_fp32":8100,"flops_fp16":34,"flops":208144}' ]
	want="[\"sm__cycles_elapsed.avg\",\"sm__warps_active.avg.pct_of_peak_sustained_active\""
	for c in dadd dfma dmul fadd ffma fmul hadd hfma hmul; do
		want="$want,\"${S}${c}_pred_on.sum\""
	done
	[ "$(jqr pd.hotspot '.counters.metrics')" = "$want]" ]
}

# The ranges are neither kernels nor host operations: the one kernel
# (sgemm_a, 10 us) and the one cpu_op are all the other keys count.
@test "pd-hotspots (counters): ranges are not counted as kernels or operators" {
	hot "$K/counters.json"
	[ "$(jqr pd.hotspot '[.kernels,.total_us,[.top[]|[.name,.count,.total_us]]]')" = \
	    '[1,10,[["sgemm_a",1,10]]]' ]
	[ "$(jqr pd.hotspot '[.cpu_ops[].name]')" = '["aten::mm"]' ]
}

@test "pd-hotspots (counters): -n limits the kernels, not the totals" {
	hot "$K/counters.json" -n 1
	[ "$(jqr pd.hotspot '[.counters.kernels[].name]')" = '["dgemm_b"]' ]
	[ "$(jqr pd.hotspot '.counters.totals.flops')" = 208144 ]
}

@test "pd-hotspots (counters): null without cuda_profiler_range events" {
	hot "$K/hot-basic.json"
	[ "$(jqr pd.hotspot '.counters')" = null ]
	[ "$(jqr pd.hotspot 'has("counters")')" = true ]
}

# The corpus trace of Kineto's range profiler (77 ranges, the nine SASS
# FLOP counters only). Figures from an independent python3 one-off: load
# the JSON, keep the events of cat "cuda_profiler_range", for every args
# key take the precision from the letter after "_op_" (d fp64, f fp32, h
# fp16) and the weight from the operation (add 1, mul 1, fma 2), sum
# value * weight per kernel name and in all; sort the kernels by FLOPs
# (then count, then name). It gives fp64 0, fp32 79679454712, fp16
# 551583744, 80231038456 in all, 16 kernel names; the top one
# ampere_sgemm_32x32_sliced1x4_tn, 6 ranges, 30160191488 fp32 FLOPs.
@test "pd-hotspots (counters): corpus range profiler trace" {
	require_corpus
	hot "$CORPUS/pytorch/hta-misc-format-variants/cupti_profiler_counters_trace.json.gz" -n 3
	[ "$(jqr pd.hotspot '.counters|[.ranges,.unreadable,(.kernels|length),(.metrics|length)]')" = '[77,0,3,9]' ]
	[ "$(jqr pd.hotspot '.counters.totals')" = \
	    '{"flops_fp64":0,"flops_fp32":79679454712,"flops_fp16":551583744,"flops":80231038456}' ]
	[ "$(jqr pd.hotspot '.counters.kernels[0]|[.name,.count,.flops_fp64,.flops_fp32,.flops_fp16,.flops,.means]')" = \
	    '["ampere_sgemm_32x32_sliced1x4_tn",6,0,30160191488,0,30160191488,{}]' ]
}

# Bad ranges, written here: a negative count (unreadable), a count too
# large for 64 bits (the sum saturates at 2^63 - 1, as every count of the
# record does), args that are an array or absent, a range without a name.
@test "pd-hotspots (counters): bad counter values are counted, not fatal" {
	f=$BATS_TEST_TMPDIR/bad.json
	cat >"$f" <<-JSON
	{"traceEvents": [
	{"ph": "X", "cat": "cuda_profiler_range", "name": "k", "pid": 0, "tid": 0, "ts": 1, "dur": 1, "args": {"${S}ffma_pred_on.sum": -5, "${S}fadd_pred_on.sum": 1e30, "${S}hadd_pred_on.sum": 3}},
	{"ph": "X", "cat": "cuda_profiler_range", "name": "k", "pid": 0, "tid": 0, "ts": 2, "dur": 1, "args": [1, 2]},
	{"ph": "X", "cat": "cuda_profiler_range", "pid": 0, "tid": 0, "ts": 3, "dur": 1}
	]}
	JSON
	hot "$f"
	[ "$(jqr pd.hotspot '.counters|[.ranges,.unreadable,[.kernels[]|[.name,.count,.flops_fp16]],(.metrics|length)]')" = \
	    '[3,1,[["k",2,3],["",1,0]],3]' ]
	[[ "$output" == *'"flops_fp64":0,"flops_fp32":9223372036854775807,"flops_fp16":3,"flops":9223372036854775807,"means":{}}'* ]]
}
