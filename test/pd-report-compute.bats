#!/usr/bin/env bats
# pd-report: the device's work in the pages, where it explains the
# verdict: FLOPs and roofline (report.json flops), repeated kernel
# sequences (kernel_sequences) and range profiler counters (counters), as
# report.md tables and report.html charts. The numbers of the records are
# pinned in test/pd-hotspots-flops.bats, -seqs.bats and -counters.bats;
# here they are checked as the pages print them.
load helper

setup() {
	D=$BATS_TEST_TMPDIR
}

# pipe ROOT OUT: the pipeline of a Kineto trace, to report OUT
pipe() {
	run_pd bash -c "pd-locate '$1' | pd-sum-step -q | pd-sum-gaps -q | pd-hotspots -q \
	    | pd-profile | pd-classify | pd-report -o '$2'"
}

# A stream written here: one rank whose pd.hotspot has flops on a device
# without a peak entry ("Mystery <GPU> & co"), two kernel sequences and
# counters, all with names that need escaping; the verdict is an operator
# hotspot, so all three are shown.
stream() {
	cat <<'JSON'
{"type":"pd.root","v":1,"root":"/j/r0","rank":0,"device":0,"format":"kineto","run":"j","score":5,"exports":[]}
{"type":"pd.hotspot","v":1,"root":"/j/r0","rank":0,"source":"kineto_trace","total_us":1000,"top":[{"name":"k","type":"kernel","count":1,"total_us":1000}],"flops":{"ops":3,"unreadable":0,"flops":3000000000000,"bytes":60000000000,"device_us":600,"busy_us":1000,"device_ratio":0.6,"busy_tflop_per_s":3,"mfu_busy_ratio":null,"steps":0,"step_us":null,"step_flops":null,"step_tflop_per_s":null,"mfu_step_ratio":null,"device":"Mystery <GPU> & co","peak_key":null,"peak_tflops":null,"mem_bw_tb_per_s":null,"by_dtype":[{"dtype":"bf16","count":2,"flops":2000000000000,"device_us":400,"device_ratio":0.4,"peak_tflops":null},{"dtype":"fp32","count":1,"flops":1000000000000,"device_us":400,"device_ratio":0.4,"peak_tflops":null}],"top":[{"name":"my::op<T>&","dtype":"bf16","shape":"2x3","count":2,"flops":2000000000000,"bytes":20000000000,"device_us":400,"tflop_per_s":5,"mfu_ratio":null,"intensity_flop_per_byte":100,"ridge_flop_per_byte":null,"bound":"unknown"},{"name":"aten::mm","dtype":"fp32","shape":"4x5, 5x6","count":1,"flops":1000000000000,"bytes":40000000000,"device_us":400,"tflop_per_s":2.5,"mfu_ratio":null,"intensity_flop_per_byte":25,"ridge_flop_per_byte":null,"bound":"unknown"}],"top_rest":{"count":0,"flops":0,"device_us":0}},"kernel_sequences":{"min_count":3,"max_length":8,"repeated":2,"pruned":0,"out_of_order":0,"top":[{"kernels":[{"name":"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float> > >(at::native::ReduceOp<float, at::native::MeanOps<float, float> >)","op":"x<y>&"},{"name":"cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x4_tn_align8>","op":null}],"device":0,"stream":7,"length":2,"count":4,"total_us":300,"mean_us":75,"kernel_mean_us":37.5,"ratio":0.3},{"kernels":[{"name":"a","op":"aten::add"},{"name":"b","op":"aten::mul"},{"name":"a","op":"aten::add"}],"device":0,"stream":7,"length":3,"count":3,"total_us":150,"mean_us":50,"kernel_mean_us":16.6667,"ratio":0.15}]},"counters":{"ranges":3,"unreadable":1,"kernels":[{"name":"dgemm_b","count":1,"flops_fp64":200010,"flops_fp32":0,"flops_fp16":24,"flops":200034,"means":{}},{"name":"void sgemm<float>(a&b)","count":2,"flops_fp64":0,"flops_fp32":8100,"flops_fp16":10,"flops":8110,"means":{"sm__warps_active.avg.pct_of_peak_sustained_active":60}}],"totals":{"flops_fp64":200010,"flops_fp32":8100,"flops_fp16":34,"flops":208144},"metrics":["sm__warps_active.avg.pct_of_peak_sustained_active"]}}
{"type":"pd.bottleneck","v":1,"root":"/j/r0","rank":0,"run":"j","rule":"perfdiag.operator_hotspot","title":"One operator <dominates>","domain":"operator_hotspot","position":1,"dominant":true,"severity":"high","impact":0.5,"confidence":0.8,"confidence_level":"high","evidence":"x"}
JSON
}

@test "pd-report (compute): report.json carries kernel_sequences and counters of the rank" {
	stream >"$D/s.jsonl"
	run_pd pd-report -o "$D/out" "$D/s.jsonl"
	[ "$(jq -c '[.kernel_sequences.rank, .kernel_sequences.root, .kernel_sequences.repeated, (.kernel_sequences.top | length), .counters.rank, .counters.totals.flops]' "$D/out/report.json")" = \
	    '[0,"/j/r0",2,2,0,208144]' ]
	# the keys in the documented order: flops, kernel_sequences, counters
	[ "$(jq -c '[keys_unsorted[] | select(. == "flops" or . == "kernel_sequences" or . == "counters")]' "$D/out/report.json")" = \
	    '["flops","kernel_sequences","counters"]' ]
}

# Without peaks the achieved TFLOP/s are bars: the longest is the first
# group's 5 TFLOP/s, 310 px wide (the hotspot bars' width, 760 - 2 * 150
# - 150); 2.5 TFLOP/s is half of it.
@test "pd-report (compute): no peak entry: bars of TFLOP/s, names escaped" {
	stream >"$D/s.jsonl"
	run_pd pd-report -o "$D/out" "$D/s.jsonl"
	h=$D/out/report.html
	grep -qF '<svg id="chart-flops"' "$h"
	not grep -q 'id="chart-roofline"' "$h"
	grep -qF '<rect x="300.0" y="12.0" width="310.0" height="18.0" fill="#3b6fd8"><title>my::op&lt;T&gt;&amp;: 5 TFLOP/s</title></rect>' "$h"
	grep -qF '<rect x="300.0" y="36.0" width="155.0" height="18.0" fill="#e67e22"><title>aten::mm: 2.5 TFLOP/s</title></rect>' "$h"
	grep -qF 'on Mystery &lt;GPU&gt; &amp; co: <b>3 TFLOP/s</b>' "$h"
	grep -qF 'no MFU, no roofline.' "$h"
	grep -qF '<td class="n">1</td><td><code>my::op&lt;T&gt;&amp;</code></td><td>bf16</td><td>2x3</td><td class="n">2</td><td class="n">400 µs</td><td class="n">5</td><td class="n">-</td><td class="n">100</td>' "$h"
	# nothing from the input unescaped
	not grep -qF 'my::op<T>' "$h"
	not grep -qF 'x<y>' "$h"
	not grep -qF 'sgemm<float>' "$h"
	not grep -qF '<dominates>' "$h"
}

# Sequences: the kernels shortened (templates and parameters dropped; the
# first template argument of cutlass::Kernel2, cut at 48 bytes), the full
# name in the tooltip; bars by time (300 us: 230 px, 150 us: 115 px),
# labelled by the launching operators (a kernel without one by its short
# name), the label cut at 40 bytes.
@test "pd-report (compute): kernel sequences as bars and a table" {
	stream >"$D/s.jsonl"
	run_pd pd-report -o "$D/out" "$D/s.jsonl"
	h=$D/out/report.html
	grep -qF '<svg id="chart-sequences"' "$h"
	[ "$(grep -o '<g class="seq">' "$h" | wc -l)" = 2 ]
	grep -qF '<text x="8" y="25.0">1. x&lt;y&gt;&amp; → cutlass_80_tensorop_bf16_s1681...</text>' "$h"
	grep -qF '<rect x="300" y="12.0" width="230.0" height="18" fill="#8e44ad"/><text x="536.0" y="25.0">300 µs &#183; 30.0 % &#183; 4 &#215; 2 kernels</text>' "$h"
	grep -qF 'width="115.0"' "$h"
	grep -qF '<li><code title="void at::native::reduce_kernel&lt;512, 1, at::native::ReduceOp&lt;float, at::native::MeanOps&lt;float, float&gt; &gt; &gt;(at::native::ReduceOp&lt;float, at::native::MeanOps&lt;float, float&gt; &gt;)">reduce_kernel</code> <span class="muted">x&lt;y&gt;&amp;</span></li>' "$h"
	grep -qF '<td class="n">7</td><td class="n">3</td><td class="n">150 µs</td><td class="n">16.7 µs</td><td class="n">15.0 %</td>' "$h"
	m=$D/out/report.md
	grep -qxF '| 1 | reduce_kernel (x\<y\>&) → cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64... | 7 | 4 | 300 µs | 37.5 µs | 30.0 % |' "$m"
	grep -qxF '| 2 | a (aten::add) → b (aten::mul) → a (aten::add) | 7 | 3 | 150 µs | 16.7 µs | 15.0 % |' "$m"
}

# Counters: 208144 FLOPs = 208 kFLOP (fp64 200010, fp32 8100, fp16 34),
# per kernel, and the mean counter of the one kernel that has one.
@test "pd-report (compute): counters as a table" {
	stream >"$D/s.jsonl"
	run_pd pd-report -o "$D/out" "$D/s.jsonl"
	h=$D/out/report.html
	grep -qF 'counted 3 ranges: <b>208 kFLOP</b> in all (fp64 200 kFLOP, fp32 8.1 kFLOP, fp16 34 FLOP).' "$h"
	grep -qF '<tr><td><code title="void sgemm&lt;float&gt;(a&amp;b)">sgemm</code></td><td class="n">2</td><td class="n">0</td><td class="n">8.1 kFLOP</td><td class="n">10 FLOP</td><td class="n">8.11 kFLOP</td><td><code>sm__warps_active.avg.pct_of_peak_sustained_active</code> 60</td></tr>' "$h"
	grep -qF '<tr><td><code title="dgemm_b">dgemm_b</code></td><td class="n">1</td><td class="n">200 kFLOP</td><td class="n">0</td><td class="n">24 FLOP</td><td class="n">200 kFLOP</td><td>-</td></tr>' "$h"
	m=$D/out/report.md
	grep -qxF '| sgemm | 2 | 0 | 8.1 kFLOP | 10 FLOP | 8.11 kFLOP | sm__warps_active.avg.pct_of_peak_sustained_active 60 |' "$m"
	grep -qF 'the CUPTI range profiler counted 3 ranges: 208 kFLOP in all' "$m"
}

# A verdict these do not explain (a data-loading stall): report.json keeps
# them, neither page shows them.
@test "pd-report (compute): not shown where they do not explain the verdict" {
	stream | sed 's/"rule":"perfdiag.operator_hotspot"/"rule":"tbprof.dataloader"/; s/"domain":"operator_hotspot"/"domain":"input_pipeline"/' >"$D/s.jsonl"
	run_pd pd-report -o "$D/out" "$D/s.jsonl"
	[ "$(jq -c '[(.flops | type), (.kernel_sequences | type), (.counters | type)]' "$D/out/report.json")" = '["object","object","object"]' ]
	not grep -qE 'chart-flops|chart-roofline|chart-sequences|id="counters"|FLOPs and roofline' "$D/out/report.html"
	not grep -qE 'FLOPs and roofline|Repeated kernel sequences|Hardware counters' "$D/out/report.md"
	# a finding of short launches among the candidates brings the sequences back
	stream | sed 's/"rule":"perfdiag.operator_hotspot"/"rule":"tbprof.dataloader"/; s/"domain":"operator_hotspot"/"domain":"input_pipeline"/' >"$D/s.jsonl"
	printf '%s\n' '{"type":"pd.bottleneck","v":1,"root":"/j/r0","rank":0,"run":"j","rule":"msprof.small_ops.launch","title":"t","domain":"host_overhead","position":2,"dominant":false,"severity":"low","impact":0.1,"confidence":0.5,"confidence_level":"medium"}' >>"$D/s.jsonl"
	run_pd pd-report -o "$D/out2" "$D/s.jsonl"
	grep -q 'id="chart-sequences"' "$D/out2/report.html"
	grep -q '^## Repeated kernel sequences' "$D/out2/report.md"
	not grep -q 'id="counters"' "$D/out2/report.html"
}

# The roofline of kineto/flops-basic.json (written by hand; its numbers
# are worked out in pd-hotspots-flops.bats): an A100 (fp32 19.5, tf32 156,
# fp16 and bf16 312 TFLOP/s, 2.039 TB/s), the fp32 matmul finding among
# the candidates. Seven groups, the first aten::mm fp32 at 2147483648 /
# 12582912 = 170.67 FLOP/byte and 10.737 TFLOP/s. Roofs: the bandwidth's
# and one per peak of the dtypes used (fp16 and bf16 share 312: one roof).
# The point's place, with awk: intensities 4.57 (the bmm, 32768 / 7168)
# to 256 (the SDPA) * 1.5 and ridges 9.56 to 153: decades 10^0 .. 10^3;
# TFLOP/s 0.033 (the bmm) to 312 * 1.5: 10^-2 .. 10^3; the plot 526 x
# 250 px at (64, 14).
@test "pd-report (compute): roofline of a hand-made trace" {
	mkdir -p "$D/fp"
	cp "$FIX/kineto/flops-basic.json" "$D/fp/"
	pipe "$D/fp" "$D/out"
	h=$D/out/report.html
	grep -qF '<svg id="chart-roofline"' "$h"
	[ "$(grep -o '<g class="op">' "$h" | wc -l)" = 7 ]
	[ "$(grep -o '<line class="roof"' "$h" | wc -l)" = 4 ]
	xy=$(awk 'BEGIN { l = log(10);
	    printf "cx=\"%.1f\" cy=\"%.1f\"", 64 + log(2147483648 / 12582912) / l / 3 * 526,
	        14 + 250 - (log(10.737) / l + 2) / 5 * 250 }')
	grep -qF "<g class=\"op\"><circle $xy r=\"5\" fill=\"#e67e22\"" "$h"
	grep -qF '<title>1. aten::mm fp32 [1024x1024, 1024x1024]: 10.7 TFLOP/s, 171 FLOP/byte, MFU 55.1 %, 200 µs</title>' "$h"
	xy=$(awk 'BEGIN { l = log(10);
	    printf "x1=\"%.1f\" y1=\"%.1f\"", 64 + log(312 / 2.039) / l / 3 * 526,
	        14 + 250 - (log(312) / l + 2) / 5 * 250 }')
	grep -qF "<line class=\"roof\" $xy" "$h"
	grep -qF '>bf16/fp16 312 TFLOP/s</text>' "$h"
	grep -qF '>tf32 156 TFLOP/s</text>' "$h"
	grep -qF '>2.04 TB/s</text>' "$h"
	# the legend: each dtype's share of device time (353 us busy)
	grep -qF '<i style="background:#e67e22"></i>fp32 56.7 %</span>' "$h"
}

# Qwen1.5-0.5B on an H100 (corpus): the verdict is compute-bound and a
# small-launch finding is among the candidates, so the roofline and the
# sequences are drawn. Values from the pd.hotspot record, pinned in
# pd-hotspots-flops.bats and -seqs.bats: the first group aten::linear bf16
# 610.545 TFLOP/s, 692.77 FLOP/byte, MFU 0.6171, 4055.251 us; peaks
# (h100-sxm5) bf16 989.4, fp32 66.9 TFLOP/s, 3.35 TB/s; MFU over the busy
# time 0.1276 (its causal attention counted half).
# The point's place, recomputed here with awk from those values and the
# chart's scales (html.c: decades from the floor of the log of the least
# value to the ceiling of the log of 1.5 times the largest, intensities
# and ridges across, TFLOP/s and peaks up; plot 526 x 250 px at (64, 14)):
# across 0.48 (the fp32 matmul) to 692.77 * 1.5: 10^-1 .. 10^4; up 0.01 to
# 989.4 * 1.5: 10^-2 .. 10^4.
@test "pd-report (compute): Qwen on H100 (corpus): roofline and sequences" {
	require_corpus
	pipe "$CORPUS/pytorch/tracelens-h100-inference/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz" "$D/out"
	h=$D/out/report.html
	[ "$(jq -r '.dominant.rule' "$D/out/report.json")" = perfdiag.compute_bound ]
	grep -qF '<svg id="chart-roofline"' "$h"
	[ "$(grep -o '<g class="op">' "$h" | wc -l)" = 6 ]
	xy=$(awk 'BEGIN { l = log(10);
	    printf "cx=\"%.1f\" cy=\"%.1f\"", 64 + (log(692.77) / l + 1) / 5 * 526,
	        14 + 250 - (log(610.545) / l + 2) / 6 * 250 }')
	grep -qF "<g class=\"op\"><circle $xy r=\"5\" fill=\"#3b6fd8\"" "$h"
	grep -qF '<title>1. aten::linear bf16 [16x559x1024, 2816x1024]: 611 TFLOP/s, 693 FLOP/byte, MFU 61.7 %, 4.06 ms</title>' "$h"
	# the bf16 roof from its ridge 989.4 / 3.35 = 295.3 FLOP/byte
	xy=$(awk 'BEGIN { l = log(10);
	    printf "x1=\"%.1f\" y1=\"%.1f\"", 64 + (log(989.4 / 3.35) / l + 1) / 5 * 526,
	        14 + 250 - (log(989.4) / l + 2) / 6 * 250 }')
	grep -qF "<line class=\"roof\" $xy" "$h"
	grep -qF '>bf16 989 TFLOP/s</text>' "$h"
	grep -qF '>fp32 66.9 TFLOP/s</text>' "$h"
	grep -qF '>3.35 TB/s</text>' "$h"
	grep -qF 'MFU <b>12.8 %</b>' "$h"
	[ "$(sed -n '/<table id="flops-top">/,/<\/table>/p' "$h" | grep -c '^<tr><td')" = 6 ]
	# sequences (the 5 of pd-hotspots' top): the first, 8 kernels
	# 35 times, 14210.394 us, 31.1 %, 14210.394 / (35 * 8) = 50.8 us per
	# kernel, launched by aten::mm, silu, mm, mul, mm, add, copy_, pow
	[ "$(grep -o '<g class="seq">' "$h" | wc -l)" = 5 ]
	grep -qF '<text x="8" y="25.0">1. mm → silu → mm → mul → mm → ad...</text>' "$h"
	grep -qF '14.2 ms &#183; 31.1 % &#183; 35 &#215; 8 kernels' "$h"
	grep -qF '<code title="void at::native::vectorized_elementwise_kernel&lt;4, at::native::(anonymous namespace)::silu_kernel' "$h"
	grep -qF '<td class="n">7</td><td class="n">35</td><td class="n">14.2 ms</td><td class="n">50.8 µs</td><td class="n">31.1 %</td>' "$h"
	grep -q '^## Repeated kernel sequences' "$D/out/report.md"
	not grep -q 'id="counters"' "$h"
}

# The CUPTI range profiler trace (corpus): no device activity is the
# verdict, the counters are the device's evidence. Totals and the first
# kernel from pd-hotspots-counters.bats: 80231038456 FLOPs (fp32
# 79679454712, fp16 551583744), ampere_sgemm_32x32_sliced1x4_tn 6 ranges
# 30160191488.
@test "pd-report (compute): counters trace (corpus)" {
	require_corpus
	pipe "$CORPUS/pytorch/hta-misc-format-variants/cupti_profiler_counters_trace.json.gz" "$D/out"
	h=$D/out/report.html
	grep -qF 'counted 77 ranges: <b>80.2 GFLOP</b> in all (fp64 0, fp32 79.7 GFLOP, fp16 552 MFLOP).' "$h"
	grep -qF '<tr><td><code title="ampere_sgemm_32x32_sliced1x4_tn">ampere_sgemm_32x32_sliced1x4_tn</code></td><td class="n">6</td><td class="n">0</td><td class="n">30.2 GFLOP</td><td class="n">0</td><td class="n">30.2 GFLOP</td></tr>' "$h"
	grep -qxF '| ampere_sgemm_32x32_sliced1x4_tn | 6 | 0 | 30.2 GFLOP | 0 | 30.2 GFLOP |' "$D/out/report.md"
	not grep -q 'chart-roofline\|chart-sequences' "$h"
}
