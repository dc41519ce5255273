#!/usr/bin/env bats
# pd-hotspots: FLOPs, bytes, achieved FLOP/s, MFU and roofline placement of
# the operators whose shapes a Kineto trace records (pd.hotspot "flops").
#
# fixtures/kineto/flops-basic.json is written by hand: device "NVIDIA
# A100-SXM4-80GB" (peaks.yaml a100-sxm4-80gb: fp32 19.5, tf32 156, fp16 and
# bf16 312 TFLOP/s, 2.039 TB/s), one ProfilerStep#1 over [0, 1000] us. The
# operators (tid 1 unless said), their kernels (linked launch -> kernel by
# correlation) and the arithmetic, times in us:
#  linear x[64,128,256] w[512,256] b[512] bf16 [10,60], with addmm and t
#    inside: M = 64*128 = 8192, K 256, N 512; 2*M*N*K + M*N = 2147483648 +
#    4194304 = 2151677952 FLOPs; bytes (8192*256 + 512*256 + 512 +
#    8192*512) * 2 = 12846080; kernel 20 -> 107.584 TFLOP/s, MFU /312 =
#    0.3448; intensity 167.5 >= ridge 312/2.039 = 153.0: compute
#  mm [1024,1024]x[1024,1024] fp32 [100,120], ampere_sgemm kernel 200 (its
#    kernel written before its launch): 2*1024^3 = 2147483648; bytes 3 *
#    1024^2 * 4 = 12582912; 10.737 TFLOP/s, MFU /19.5 = 0.5506; 170.67
#    flop/B >= 19.5/2.039 = 9.6: compute
#  mm [2048,1024]x[1024,1024] fp32 [130,150], kernel ..._tf32f32_... 40:
#    dtype tf32; 2*2048*1024*1024 = 4294967296; 107.374 TFLOP/s, /156 =
#    0.6883
#  conv2d in[8,64,56,56] w[128,64,3,3] b[128] bf16, stride 2 pad 1 dil 1
#    (Concrete Inputs), cudnn_convolution inside, kernel 50: Hout = (56 + 2
#    - 2 - 1) / 2 + 1 = 28; 2 * 8*28*28 * 128*64*3*3 = 924844032; bytes
#    (1605632 + 73728 + 128 + 8*128*28*28) * 2 = 4964608
#  scaled_dot_product_attention q=k=v [2,8,512,64] bf16, flash inside,
#    kernel 30: 2*B*H*Sq*Sk*(D+Dv) = 4*2*8*512*512*64 = 1073741824; bytes
#    (Q+K+V+O) 4*2*8*512*64*2 = 4194304; 256 flop/B >= 153: compute
#  mm [4,5]x[6,7] fp32: K 5 != 6, unreadable
#  add (not a FLOP family), kernel 10
#  mm [128,64]x[64,32] bf16 on tid 2 (the backward thread), kernel 2:
#    524288; 18.29 flop/B < 153: memory
#  bmm [4,16,32]x[4,32,8] fp16 at 1500 (after the step), kernel 1: 32768
# Busy (kernels) 20+200+40+50+30+10+2+1 = 353; counted device time 343.
load helper

K="$FIX/kineto"

flops() {
	local f=$1 in=$BATS_TEST_TMPDIR/root.jsonl
	shift
	printf '{"type":"pd.root","v":1,"root":"%s","rank":null,"device":null,"format":"kineto","exports":[{"kind":"kineto_trace","path":"%s","bytes":1}]}\n' \
	    "$f" "$f" >"$in"
	run_pd "${RC:-0}" pd-hotspots -n 20 "$@" <"$in"
}

@test "pd-hotspots (flops): per-operator FLOPs, bytes, device time, TFLOP/s, MFU, roofline" {
	flops "$K/flops-basic.json"
	[ "$(jqr pd.hotspot '[.flops.top[]|[.name,.dtype,.count,.flops,.bytes,.device_us,.tflop_per_s,.mfu_ratio,.bound]]')" = \
	    '[["aten::mm","fp32",1,2147483648,12582912,200,10.737,0.5506,"compute"],["aten::conv2d","bf16",1,924844032,4964608,50,18.497,0.0593,"compute"],["aten::mm","tf32",1,4294967296,20971520,40,107.374,0.6883,"compute"],["aten::scaled_dot_product_attention","bf16",1,1073741824,4194304,30,35.791,0.1147,"compute"],["aten::linear","bf16",1,2151677952,12846080,20,107.584,0.3448,"compute"],["aten::mm","bf16",1,524288,28672,2,0.262,0.0008,"memory"],["aten::bmm","fp16",1,32768,7168,1,0.033,0.0001,"memory"]]' ]
	[ "$(jqr pd.hotspot '.flops.top[4]|[.shape,.intensity_flop_per_byte,.ridge_flop_per_byte]')" = \
	    '["64x128x256, 512x256, 512",167.5,153]' ]
	[ "$(jqr pd.hotspot '.flops.top[0].ridge_flop_per_byte')" = 9.6 ]
}

# The inner operators (addmm in linear, cudnn_convolution in conv2d, the
# flash attention in SDPA) are not counted: 7 operators, sum of the FLOPs
# above = 10593271808, bytes 55595264, device time 353 - 10 (add) = 343.
# Achieved over busy time: 10593271808 / 353e-6 s = 30.009 TFLOP/s. MFU
# over busy time: time at peak 4294967296/156e12 + (2151677952 + 924844032
# + 1073741824 + 524288)/312e12 + 2147483648/19.5e12 + 32768/312e12 =
# 150.96 us, / 353 = 0.4277; over the step: the same less the bmm (after
# the step), / 1000 = 0.151; step FLOPs 10593271808 - 32768.
@test "pd-hotspots (flops): totals, busy and step MFU, outermost operators only" {
	flops "$K/flops-basic.json"
	[ "$(jqr pd.hotspot '.flops|[.ops,.unreadable,.flops,.bytes,.device_us,.busy_us,.device_ratio,.busy_tflop_per_s,.mfu_busy_ratio]')" = \
	    '[7,1,10593271808,55595264,343,353,0.9717,30.009,0.4277]' ]
	[ "$(jqr pd.hotspot '.flops|[.steps,.step_us,.step_flops,.step_tflop_per_s,.mfu_step_ratio]')" = \
	    '[1,1000,10593239040,10.593,0.151]' ]
	[ "$(jqr pd.hotspot '[.flops.top[].name|select(test("addmm|cudnn|flash"))]')" = '[]' ]
	[ "$(jqr pd.hotspot '.flops|[.device,.peak_key,.peak_tflops,.mem_bw_tb_per_s]')" = \
	    '["NVIDIA A100-SXM4-80GB","a100-sxm4-80gb",{"fp32":19.5,"tf32":156,"fp16":312,"bf16":312,"fp8":null},2.039]' ]
	# by dtype, most FLOPs first; device_ratio = device time / 353
	[ "$(jqr pd.hotspot '[.flops.by_dtype[]|[.dtype,.count,.flops,.device_us,.device_ratio,.peak_tflops]]')" = \
	    '[["tf32",1,4294967296,40,0.1133,156],["bf16",4,4150788096,102,0.289,312],["fp32",1,2147483648,200,0.5666,19.5],["fp16",1,32768,1,0.0028,312]]' ]
}

@test "pd-hotspots (flops): -n cuts the list; the rest is counted" {
	flops "$K/flops-basic.json" -n 2
	[ "$(jqr pd.hotspot '[(.flops.top|length),.flops.top_rest]')" = \
	    '[2,{"count":5,"flops":7520944128,"device_us":93}]' ]
}

# A device peaks.yaml does not know: FLOPs and TFLOP/s stay, MFU and the
# roofline placement have no value.
@test "pd-hotspots (flops): unknown device: no MFU, bound unknown" {
	sed 's/NVIDIA A100-SXM4-80GB/Mystery Accelerator/' "$K/flops-basic.json" >"$BATS_TEST_TMPDIR/t.json"
	flops "$BATS_TEST_TMPDIR/t.json"
	[ "$(jqr pd.hotspot '.flops|[.device,.peak_key,.peak_tflops,.mfu_busy_ratio,.mfu_step_ratio,.busy_tflop_per_s]')" = \
	    '["Mystery Accelerator",null,null,null,null,30.009]' ]
	[ "$(jqr pd.hotspot '[.flops.top[]|.bound]|unique')" = '["unknown"]' ]
	[ "$(jqr pd.hotspot '.flops.top[0]|[.tflop_per_s,.mfu_ratio,.ridge_flop_per_byte]')" = '[10.737,null,null]' ]
}

# No operator with recorded shapes (hot-basic.json has linear/addmm without
# "Input Dims"): flops is null.
@test "pd-hotspots (flops): no shapes recorded: null" {
	flops "$K/hot-basic.json"
	[ "$(jqr pd.hotspot '.flops')" = null ]
}

# Shapes that do not fit the formula, or whose products overflow int64,
# are counted as unreadable; nothing crashes and the rest is read.
@test "pd-hotspots (flops): unreadable shapes are counted, not guessed" {
	cat >"$BATS_TEST_TMPDIR/t.json" <<'EOF'
{"traceEvents": [
{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":0,"dur":5,"args":{"Input type":["float","float"],"Input Dims":[[9223372036854775807,2],[2,9223372036854775807]]}},
{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":10,"dur":5,"args":{"Input type":["float","float"],"Input Dims":[[2,-3],[-3,2]]}},
{"ph":"X","cat":"cpu_op","name":"aten::bmm","pid":1,"tid":1,"ts":20,"dur":5,"args":{"Input type":["float","float"],"Input Dims":[[2,3],[3,2]]}},
{"ph":"X","cat":"cpu_op","name":"aten::conv2d","pid":1,"tid":1,"ts":30,"dur":5,"args":{"Input type":["float","float"],"Input Dims":[[1,3,8,8],[4,3,3,3],[]]}},
{"ph":"X","cat":"cpu_op","name":"aten::linear","pid":1,"tid":1,"ts":40,"dur":5,"args":{"Input type":["Strange","Strange"],"Input Dims":[[2,3],[4,3],[]]}},
{"ph":"X","cat":"cpu_op","name":"aten::scaled_dot_product_attention","pid":1,"tid":1,"ts":50,"dur":5,"args":{"Input type":["float"],"Input Dims":"oops"}},
{"ph":"X","cat":"cpu_op","name":"aten::conv2d","pid":1,"tid":1,"ts":55,"dur":1,"args":{"Concrete Inputs":["","","","[9223372036854775807, 1]","[0, 0]","[1, 1]","1"],"Input type":["float","float"],"Input Dims":[[1,3,9223372036854775807,8],[4,3,3,3],[]]}},
{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":60,"dur":5,"args":{"Input type":["float","float"],"Input Dims":[[2,3],[3,4]]}}
]}
EOF
	flops "$BATS_TEST_TMPDIR/t.json"
	# overflow, negative, bmm of 2-D, conv without stride/padding, unknown
	# dtype, conv with sizes past 2^31: 6 unreadable; the SDPA without a dims list is not counted at
	# all; the last mm: 2*2*4*3 = 48 FLOPs, (6+12+8)*4 = 104 bytes, no
	# kernel (CPU only): no device time, no TFLOP/s, no device
	[ "$(jqr pd.hotspot '.flops|[.ops,.unreadable,.flops,.bytes,.device_us,.busy_us,.device]')" = '[1,6,48,104,0,null,null]' ]
	[ "$(jqr pd.hotspot '.flops.top[0]|[.name,.tflop_per_s,.bound]')" = '["aten::mm",null,"unknown"]' ]
}

# Corpus, Qwen1.5-0.5B inference on an H100 80GB HBM3 (TraceLens test
# trace). No peer output with FLOPs exists in ../shared/peers (TraceLens
# was not run), so the numbers come from an independent python3 one-off:
# json.load of the whole trace; the outermost operator of the families by
# span nesting on its tid; its device time through "External id" (the
# operator's and those of every cpu_op inside it) -> cuda_runtime /
# cuda_driver events with that External id -> their kernels by
# correlation (pd-hotspots links by launch time within the span instead);
# FLOPs and bytes by the formulas of pd-hotspots(1) written in Python.
# It gave: 193 operators, 6006686256064 FLOPs, 10837844156 bytes, 11723979
# ns; top group aten::linear bf16 16x559x1024 x 2816x1024: 48 calls,
# 2475914428416 FLOPs, 4055251 ns (610.545 TFLOP/s); SDPA 24 calls,
# 491490115584 FLOPs, 2722705 ns. MFU of the linear: 610.545 / 989.4
# (h100-sxm5 bf16) = 0.6171; its intensity 2475914428416 / 3573940224 =
# 692.77 flop/B >= ridge 989.4 / 3.35 = 295.3: compute; the SDPA's 279.5
# is below it: memory.
# The SDPA calls are causal (Concrete Inputs[5] "True" on all 24, read by
# a second python3 one-off over the aten::scaled_dot_product_attention
# events: json.load, 2*B*H*Sq*Sk*(D+Dv) halved when is_causal is "True"):
# their FLOPs count half, 245745057792; the total 6006686256064 -
# 491490115584 + 245745057792 = 5760941198272; the SDPA's intensity half
# of 279.5, 139.75; 245745057792 / 2722.705 us = 90.258 TFLOP/s.
@test "pd-hotspots (flops): Qwen on H100 (corpus) matches the independent computation" {
	require_corpus
	flops "$CORPUS/pytorch/tracelens-h100-inference/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"
	[ "$(jqr pd.hotspot '.flops|[.ops,.causal_ops,.causal_unknown_ops,.flops,.bytes,.device_us,.peak_key]')" = '[193,24,0,5760941198272,10837844156,11723.979,"h100-sxm5"]' ]
	[ "$(jqr pd.hotspot '.flops.top[0]|[.name,.dtype,.shape,.count,.flops,.device_us,.tflop_per_s,.mfu_ratio,.intensity_flop_per_byte,.bound]')" = \
	    '["aten::linear","bf16","16x559x1024, 2816x1024",48,2475914428416,4055.251,610.545,0.6171,692.77,"compute"]' ]
	[ "$(jqr pd.hotspot '.flops.top[1]|[.name,.count,.flops,.device_us,.tflop_per_s,.intensity_flop_per_byte,.bound]')" = \
	    '["aten::scaled_dot_product_attention",24,245745057792,2722.705,90.258,139.75,"memory"]' ]
}

# Causal attention, by hand (bf16, one tid, one after the other):
#  SDPA [2,8,512,64] is_causal "True" (Concrete Inputs[5]): 4*2*8*512*512*64
#    = 1073741824, halved: 536870912
#  SDPA [1,8,512,64] is_causal "False": 536870912, in full
#  SDPA [4,8,512,64] without Concrete Inputs: causality unknown, in full:
#    2147483648
#  _flash_attention_forward q [2,512,8,64] k = v [2,1024,8,64], is_causal
#    (8) "True": 2*2*8*512*1024*128 = 2147483648, halved: 1073741824
#  _efficient_attention_forward [1,256,4,32], custom_mask_type (9) "1":
#    2*1*4*256*256*64 = 33554432, halved: 16777216
#  _scaled_dot_product_flash_attention_backward dO = Q = K = V
#    [2,8,512,64], is_causal (11) "True": twice the forward, 2147483648,
#    halved: 1073741824
#  flash_attn::_flash_attn_forward [1,128,2,64], causal (5) "maybe":
#    unknown, in full: 2*1*2*128*128*128 = 8388608
# causal 4, unknown 2; bytes are not halved (every operand is read).
@test "pd-hotspots (flops): causal attention counts half" {
	cat >"$BATS_TEST_TMPDIR/t.json" <<'EOF2'
{"traceEvents": [
{"ph":"X","cat":"cpu_op","name":"aten::scaled_dot_product_attention","pid":1,"tid":1,"ts":0,"dur":5,"args":{"Input type":["c10::BFloat16","c10::BFloat16","c10::BFloat16","","Scalar","Scalar","Scalar","Scalar"],"Input Dims":[[2,8,512,64],[2,8,512,64],[2,8,512,64],[],[],[],[],[]],"Concrete Inputs":["","","","","0.","True","0.125","False"]}},
{"ph":"X","cat":"cpu_op","name":"aten::scaled_dot_product_attention","pid":1,"tid":1,"ts":10,"dur":5,"args":{"Input type":["c10::BFloat16","c10::BFloat16","c10::BFloat16","","Scalar","Scalar","Scalar","Scalar"],"Input Dims":[[1,8,512,64],[1,8,512,64],[1,8,512,64],[],[],[],[],[]],"Concrete Inputs":["","","","","0.","False","0.125","False"]}},
{"ph":"X","cat":"cpu_op","name":"aten::scaled_dot_product_attention","pid":1,"tid":1,"ts":20,"dur":5,"args":{"Input type":["c10::BFloat16","c10::BFloat16","c10::BFloat16"],"Input Dims":[[4,8,512,64],[4,8,512,64],[4,8,512,64]]}},
{"ph":"X","cat":"cpu_op","name":"aten::_flash_attention_forward","pid":1,"tid":1,"ts":30,"dur":5,"args":{"Input type":["c10::BFloat16","c10::BFloat16","c10::BFloat16","","","Scalar","Scalar","Scalar","Scalar","Scalar","Scalar"],"Input Dims":[[2,512,8,64],[2,1024,8,64],[2,1024,8,64],[],[],[],[],[],[],[],[]],"Concrete Inputs":["","","","","","512","1024","0.","True","False","0.125"]}},
{"ph":"X","cat":"cpu_op","name":"aten::_efficient_attention_forward","pid":1,"tid":1,"ts":40,"dur":5,"args":{"Input type":["c10::BFloat16","c10::BFloat16","c10::BFloat16","","","","","","Scalar","Scalar","Scalar"],"Input Dims":[[1,256,4,32],[1,256,4,32],[1,256,4,32],[],[],[],[],[],[],[],[]],"Concrete Inputs":["","","","","","","","","0.","1","False"]}},
{"ph":"X","cat":"cpu_op","name":"aten::_scaled_dot_product_flash_attention_backward","pid":1,"tid":1,"ts":50,"dur":5,"args":{"Input type":["c10::BFloat16","c10::BFloat16","c10::BFloat16","c10::BFloat16","c10::BFloat16","float","","","Scalar","Scalar","Scalar","Scalar","","",""],"Input Dims":[[2,8,512,64],[2,8,512,64],[2,8,512,64],[2,8,512,64],[2,8,512,64],[2,8,512],[],[],[],[],[],[],[],[],[]],"Concrete Inputs":["","","","","","","","","512","512","0.","True","","",""]}},
{"ph":"X","cat":"cpu_op","name":"flash_attn::_flash_attn_forward","pid":1,"tid":1,"ts":60,"dur":5,"args":{"Input type":["c10::BFloat16","c10::BFloat16","c10::BFloat16","Scalar","Scalar","Scalar"],"Input Dims":[[1,128,2,64],[1,128,2,64],[1,128,2,64],[],[],[]],"Concrete Inputs":["","","","0.","0.125","maybe"]}}
]}
EOF2
	flops "$BATS_TEST_TMPDIR/t.json"
	[ "$(jqr pd.hotspot '.flops|[.ops,.unreadable,.causal_ops,.causal_unknown_ops]')" = '[7,0,4,2]' ]
	[ "$(jqr pd.hotspot '[.flops.top[]|[.name,.shape[0:11],.flops]]|sort')" = \
	    '[["aten::_efficient_attention_forward","1x256x4x32,",16777216],["aten::_flash_attention_forward","2x512x8x64,",1073741824],["aten::_scaled_dot_product_flash_attention_backward","2x8x512x64,",1073741824],["aten::scaled_dot_product_attention","1x8x512x64,",536870912],["aten::scaled_dot_product_attention","2x8x512x64,",536870912],["aten::scaled_dot_product_attention","4x8x512x64,",2147483648],["flash_attn::_flash_attn_forward","1x128x2x64,",8388608]]' ]
	# bytes as without the mask: (Q + K + V + O) * 2 = 4 * 524288 * 2
	[ "$(jqr pd.hotspot '.flops.top[]|select(.shape|startswith("2x8x512x64, 2x8x512x64, 2x8x512x64"))|select(.name=="aten::scaled_dot_product_attention")|.bytes')" = 4194304 ]
}

# Corpus, HTA's trace-diff "test" trace (V100-SXM2-16GB, training with
# backward): an older schema where a launch's "External id" is its own
# correlation, so the same python3 one-off links a launch to the operator
# whose span on the same tid holds its start (bisect over the sorted
# launches). It gave 456 operators (aten::mm of the backward included),
# 156116047872 FLOPs, 1813622232 bytes, 23457 us; top aten::mm fp32
# 1024x1024 x 1024x1705: 12 calls, 42907729920 FLOPs, 3381 us = 12.691
# TFLOP/s, / 15.7 (v100-sxm2 fp32) = 0.8083.
@test "pd-hotspots (flops): V100 training trace with backward (corpus)" {
	require_corpus
	flops "$CORPUS/pytorch/hta-trace-diff/test/test.json.gz"
	[ "$(jqr pd.hotspot '.flops|[.ops,.flops,.bytes,.device_us,.peak_key]')" = '[456,156116047872,1813622232,23457,"v100-sxm2"]' ]
	[ "$(jqr pd.hotspot '.flops.top[0]|[.name,.dtype,.shape,.count,.flops,.device_us,.tflop_per_s,.mfu_ratio]')" = \
	    '["aten::mm","fp32","1024x1024, 1024x1705",12,42907729920,3381,12.691,0.8083]' ]
}

# The other formulas, on a CPU-only trace (no kernels), worked by hand:
#  convolution_backward grad_out [8,128,28,28] input [8,64,56,56] weight
#    [128,64,3,3] bf16, output_mask [True, True, True]: MACs 8*28*28 *
#    128*64*3*3 = 462422016, input and weight gradients: 4 * MACs =
#    1849688064; bytes (802816 + 1605632 + 73728 read, 1605632 + 73728
#    written) * 2 = 8323072
#  _scaled_dot_product_flash_attention_backward, dO = Q = K = V [2,8,512,64]
#    bf16: twice the forward 4*2*8*512*512*64 = 2147483648; bytes (2 * (Q +
#    K + V) + 2 * O) = 8 * 524288 * 2 = 8388608
#  _flash_attention_forward [B,S,H,D]: q [2,512,8,64], k = v [2,1024,8,64]:
#    2*2*8*512*1024*(64+64) = 2147483648; bytes (524288 + 2 * 1048576 +
#    O 524288) * 2 = 6291456
#  matmul [3,1,4,5] x [2,5,6] fp32: batch broadcast 3x2 = 6: 2*6*4*6*5 =
#    1440; bytes (60 + 60 + 6*4*6) * 4 = 1056
#  baddbmm [4,16,8] + [4,16,32] x [4,32,8] fp16: 2*4*16*8*32 + 4*16*8 =
#    33280; bytes (512 + 2048 + 1024 + 512) * 2 = 8192
#  conv_transpose2d in [1,16,8,8] w [16,8,4,4] stride 2 pad 1: Hout =
#    (8-1)*2 - 2*1 + (4-1) + 0 + 1 = 16; MACs on the input side 8*8 *
#    16*8*4*4 = 131072, 262144 FLOPs; bytes (1024 + 2048 + 8*16*16) * 4 =
#    20480
#  conv2d padding "same", in [1,3,8,8] w [4,3,3,3] fp32: output 8x8:
#    2*64*4*27 = 13824; bytes (192 + 108 + 256) * 4 = 2224
@test "pd-hotspots (flops): backward, flash layout, broadcasting, transposed and same-padded convolutions" {
	cat >"$BATS_TEST_TMPDIR/t.json" <<'EOF2'
{"traceEvents": [
{"ph":"X","cat":"cpu_op","name":"aten::convolution_backward","pid":1,"tid":1,"ts":0,"dur":5,"args":{"Concrete Inputs":["","","","[128]","[2, 2]","[1, 1]","[1, 1]","False","[0, 0]","1","[True, True, True]"],"Input type":["c10::BFloat16","c10::BFloat16","c10::BFloat16","ScalarList","ScalarList","ScalarList","ScalarList","Scalar","ScalarList","Scalar","ScalarList"],"Input Dims":[[8,128,28,28],[8,64,56,56],[128,64,3,3],[],[],[],[],[],[],[],[]]}},
{"ph":"X","cat":"cpu_op","name":"aten::_scaled_dot_product_flash_attention_backward","pid":1,"tid":1,"ts":10,"dur":5,"args":{"Input type":["c10::BFloat16","c10::BFloat16","c10::BFloat16","c10::BFloat16","c10::BFloat16"],"Input Dims":[[2,8,512,64],[2,8,512,64],[2,8,512,64],[2,8,512,64],[2,8,512,64]]}},
{"ph":"X","cat":"cpu_op","name":"aten::_flash_attention_forward","pid":1,"tid":1,"ts":20,"dur":5,"args":{"Input type":["c10::BFloat16","c10::BFloat16","c10::BFloat16"],"Input Dims":[[2,512,8,64],[2,1024,8,64],[2,1024,8,64]]}},
{"ph":"X","cat":"cpu_op","name":"aten::matmul","pid":1,"tid":1,"ts":30,"dur":5,"args":{"Input type":["float","float"],"Input Dims":[[3,1,4,5],[2,5,6]]}},
{"ph":"X","cat":"cpu_op","name":"aten::baddbmm","pid":1,"tid":1,"ts":40,"dur":5,"args":{"Input type":["c10::Half","c10::Half","c10::Half","Scalar","Scalar"],"Input Dims":[[4,16,8],[4,16,32],[4,32,8],[],[]]}},
{"ph":"X","cat":"cpu_op","name":"aten::conv_transpose2d","pid":1,"tid":1,"ts":50,"dur":5,"args":{"Concrete Inputs":["","","","[2, 2]","[1, 1]","[0, 0]","1","[1, 1]"],"Input type":["float","float","","ScalarList","ScalarList","ScalarList","Scalar","ScalarList"],"Input Dims":[[1,16,8,8],[16,8,4,4],[],[],[],[],[],[]]}},
{"ph":"X","cat":"cpu_op","name":"aten::conv2d","pid":1,"tid":1,"ts":60,"dur":5,"args":{"Concrete Inputs":["","","","[1]","same","[1]","1"],"Input type":["float","float","","ScalarList","str","ScalarList","Scalar"],"Input Dims":[[1,3,8,8],[4,3,3,3],[],[],[],[],[]]}}
]}
EOF2
	flops "$BATS_TEST_TMPDIR/t.json"
	[ "$(jqr pd.hotspot '[.flops.ops,.flops.unreadable]')" = '[7,0]' ]
	[ "$(jqr pd.hotspot '[.flops.top[]|[.name,.dtype,.flops,.bytes]]|sort')" = \
	    '[["aten::_flash_attention_forward","bf16",2147483648,6291456],["aten::_scaled_dot_product_flash_attention_backward","bf16",2147483648,8388608],["aten::baddbmm","fp16",33280,8192],["aten::conv2d","fp32",13824,2224],["aten::conv_transpose2d","fp32",262144,20480],["aten::convolution_backward","bf16",1849688064,8323072],["aten::matmul","fp32",1440,1056]]' ]
}
