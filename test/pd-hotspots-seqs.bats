#!/usr/bin/env bats
# pd-hotspots on PyTorch and Nsight Systems roots: how much of the copy
# time runs beside a kernel of the same device (copies[].overlapped_us,
# exposed_us; copy_overlap), and repeated kernel sequences
# (kernel_sequences). Fixture numbers are worked out by hand in the
# comments; corpus numbers come from the independent python3 computation
# described above each test.
load helper

K="$FIX/kineto"
NS="$CORPUS/nsys"

# hot FILE [options]: pd-hotspots on a kineto root for FILE
hot() {
	local in=$BATS_TEST_TMPDIR/root.jsonl
	printf '{"type":"pd.root","v":1,"root":"%s","rank":null,"device":null,"format":"kineto","exports":[{"kind":"kineto_trace","path":"%s","bytes":1}]}\n' \
	    "$1" "$1" >"$in"
	shift
	run_pd "${RC:-0}" pd-hotspots "$@" <"$in"
}

# kineto/copy-overlap.json (written for this test), times in us. Device 0
# kernels: sgemm_a [0,1000) on stream 7, sgemm_b [800,1200) and
# [1500,2000) on stream 8, an NCCL all-reduce [2300,2400) on stream 20:
# union [0,1200) [1500,2000) [2300,2400). Device 1: one kernel [0,10000).
# HtoD pinned [500,1700): 700 + 200 = 900 beside kernels, 300 exposed;
# HtoD pinned [3000,3100) on device 0: exposed (device 1's kernel does
# not count): HtoD 1300 us, 900 overlapped, 400 exposed, 400/1300 =
# 0.3077. DtoH pageable [2000,2400): the all-reduce covers 100 (a
# communication kernel keeps the device busy too), 300 exposed, 0.75.
# DtoD [100,300): all 200 overlapped. Memset [2500,2600): 100 exposed.
# Memcpy kinds together: 4 copies, 1900 us, 1200 overlapped, 700
# exposed, 700/1900 = 0.3684 (the memset is no copy).
@test "pd-hotspots (copies): overlapped and exposed copy time, by hand" {
	hot "$K/copy-overlap.json"
	[ "$(jqr pd.hotspot '.copies|map([.kind,.count,.total_us,.overlapped_us,.exposed_us,.exposed_ratio])')" = \
	    '[["Memcpy HtoD",2,1300,900,400,0.3077],["Memcpy DtoH",1,400,100,300,0.75],["Memcpy DtoD",1,200,200,0,0],["Memset",1,100,0,100,1]]' ]
	[ "$(jqr pd.hotspot '.copies|map([.kind,.pinned,.pinned_us,.pageable,.pageable_us])')" = \
	    '[["Memcpy HtoD",2,1300,0,0],["Memcpy DtoH",0,0,1,400],["Memcpy DtoD",0,0,0,0],["Memset",0,0,0,0]]' ]
	[ "$(jqr pd.hotspot '.copy_overlap')" = \
	    '{"copies":4,"total_us":1900,"overlapped_us":1200,"exposed_us":700,"exposed_ratio":0.3684}' ]
}

# cp-basic.json has kernels and no copies; hot-basic.json has one memset
# and one pinned HtoD [520,540) with no kernel beside it (device 0's
# kernels all end by 400).
@test "pd-hotspots (copies): no copies, copy_overlap is null; a lone copy is exposed" {
	hot "$K/cp-basic.json"
	[ "$(jqr pd.hotspot '[.copy_overlap, .copies]')" = '[null,[]]' ]
	hot "$K/hot-basic.json"
	[ "$(jqr pd.hotspot '.copy_overlap')" = \
	    '{"copies":1,"total_us":20,"overlapped_us":0,"exposed_us":20,"exposed_ratio":1}' ]
}

# The kernels, copies and bandwidths are sorted in runs of PD_SORT_MEM
# bytes, in temporary files under TMPDIR past one run (a span is 24 bytes:
# 48 bytes make runs of two). Then every fixture goes through the files
# and gives the in-memory record byte for byte; so does a TMPDIR that does
# not exist (no file: all stays in memory). With writes refused the
# copies' bandwidth and overlap figures are null and the tool says why
# (the copies' counts and times are kept: they need no file). On corpus
# traces with copies the same, and nothing is left in TMPDIR.
@test "pd-hotspots (copies): sorting in temporary files gives the same record" {
	local f want
	mkdir "$BATS_TEST_TMPDIR/sort"
	for f in "$K/copy-overlap.json" "$K/hot-basic.json" "$K/cp-basic.json"; do
		hot "$f"
		want=$output
		TMPDIR=$BATS_TEST_TMPDIR/sort PD_SORT_MEM=48 hot "$f"
		[ "$output" = "$want" ]
		TMPDIR=$BATS_TEST_TMPDIR/none PD_SORT_MEM=48 hot "$f"
		[ "$output" = "$want" ]
	done
	printf '{"type":"pd.root","v":1,"root":"%s","rank":null,"device":null,"format":"kineto","exports":[{"kind":"kineto_trace","path":"%s","bytes":1}]}\n' \
	    "$K/copy-overlap.json" "$K/copy-overlap.json" >"$BATS_TEST_TMPDIR/in.jsonl"
	TMPDIR=$BATS_TEST_TMPDIR/sort PD_SORT_MEM=48 run_pd nowrite \
	    bash -c 'pd-hotspots <"$1" 2>&1' - "$BATS_TEST_TMPDIR/in.jsonl"
	[[ "$output" == *"copy-overlap.json: the copies and kernels could not be kept in a temporary file"* ]]
	output=$(grep '"pd.hotspot"' <<<"$output")
	[ "$(jqr pd.hotspot '.copies|map([.kind,.count,.total_us,.overlapped_us,.exposed_us,.bw_gbps_median])')" = \
	    '[["Memcpy HtoD",2,1300,null,null,null],["Memcpy DtoH",1,400,null,null,null],["Memcpy DtoD",1,200,null,null,null],["Memset",1,100,null,null,null]]' ]
	[ "$(jqr pd.hotspot '.copy_overlap')" = \
	    '{"copies":4,"total_us":1900,"overlapped_us":null,"exposed_us":null,"exposed_ratio":null}' ]
	require_corpus
	for f in hta-sampled-2of128rank/sampled_rank-0.json.gz \
	    hta-trace-diff/control/control.json.gz \
	    hta-queue-length-a100-16rank/rank0.json.gz; do
		hot "$CORPUS/pytorch/$f"
		want=$output
		[ "$(jqr pd.hotspot '.copies|length > 2')" = true ]
		TMPDIR=$BATS_TEST_TMPDIR/sort PD_SORT_MEM=48 hot "$CORPUS/pytorch/$f"
		[ "$output" = "$want" ]
	done
	[ -z "$(ls -A "$BATS_TEST_TMPDIR/sort")" ]
}

# Corpus figures by an independent python3 computation (json/gzip and
# sqlite3, no perfdiag code): per device (Kineto: the event's pid; Nsight:
# CUPTI_ACTIVITY_KIND_KERNEL.deviceId of the same process,
# (globalPid >> 24) & 0xFFFFFF), sort the kernels' [start, end) and merge
# them into a union; for each copy (gpu_memcpy; CUPTI_ACTIVITY_KIND_MEMCPY,
# kind from copyKind) sum the length of its intersection with its device's
# union; exposed = duration - that. Kineto times are Decimal(ts) * 1000.
@test "pd-hotspots (copies): overlap on Kineto corpus traces" {
	require_corpus
	# HTA's sampled rank 0: HtoD 24 copies 877 us, 871 overlapped; DtoD
	# 8 / 404 / 99; DtoH 8 / 16 / 0; memsets 10 / 28 / 2
	hot "$CORPUS/pytorch/hta-sampled-2of128rank/sampled_rank-0.json.gz"
	[ "$(jqr pd.hotspot '.copies|map([.kind,.count,.total_us,.overlapped_us,.exposed_us])')" = \
	    '[["Memcpy HtoD",24,877,871,6],["Memcpy DtoD",8,404,99,305],["Memset",10,28,2,26],["Memcpy DtoH",8,16,0,16]]' ]
	[ "$(jqr pd.hotspot '.copy_overlap')" = \
	    '{"copies":40,"total_us":1297,"overlapped_us":970,"exposed_us":327,"exposed_ratio":0.2521}' ]
	# trace-diff control: HtoD 150 / 50656 / 34648 (all pinned), DtoD 18
	# / 2735 / 0, DtoH 60 / 107 / 44 (all pageable)
	hot "$CORPUS/pytorch/hta-trace-diff/control/control.json.gz"
	[ "$(jqr pd.hotspot '.copies|map(select(.kind|startswith("Memcpy"))|[.kind,.count,.total_us,.overlapped_us,.pinned,.pageable])')" = \
	    '[["Memcpy HtoD",150,50656,34648,150,0],["Memcpy DtoD",18,2735,0,0,0],["Memcpy DtoH",60,107,44,0,60]]' ]
	# queue rank 0: HtoD 80 copies (45 pageable, 82 us; 35 pinned, 21073
	# us), 21155 us, 2695 overlapped
	hot "$CORPUS/pytorch/hta-queue-length-a100-16rank/rank0.json.gz"
	[ "$(jqr pd.hotspot '.copies|map(select(.kind=="Memcpy HtoD"))[0]|[.count,.total_us,.overlapped_us,.pageable,.pageable_us,.pinned,.pinned_us]')" = \
	    '[80,21155,2695,45,82,35,21073]' ]
}

@test "pd-hotspots (copies): overlap on Nsight Systems exports" {
	require_corpus
	# saxpy rank 0: the 15 pageable copies run alone: HtoD 186,001,123
	# ns and DtoH 98,698,477 ns, all exposed
	run_pd bash -c "pd-locate '$NS/pipit-saxpy-mpi-rank0-a100' | pd-hotspots -q"
	[ "$(jqr pd.hotspot '[.copy_overlap, (.copies|map([.kind,(.overlapped_us*1000|round),(.exposed_us*1000|round)]))]')" = \
	    '[{"copies":15,"total_us":284699.6,"overlapped_us":0,"exposed_us":284699.6,"exposed_ratio":1},[["Memcpy HtoD",0,186001123],["Memcpy DtoH",0,98698477]]]' ]
	# mfu before, processes 144 and 145: 493 DtoD copies each (2,831,071
	# and 2,834,360 ns) and 17 HtoD (13,408 and 13,248 ns), none beside a
	# kernel (they run on the compute stream between kernels)
	run_pd bash -c "pd-locate '$NS/nsysai-mfu-train-h100-2gpu-before-after/mfu_2gpu_before.sqlite' | pd-hotspots -q"
	[ "$(jqr pd.hotspot '.copies|map(select(.kind|startswith("Memcpy"))|[.kind,.count,(.total_us*1000|round),(.overlapped_us*1000|round)])' | sort)" = \
	    '[["Memcpy DtoD",493,2831071,0],["Memcpy HtoD",17,13408,0]]
[["Memcpy DtoD",493,2834360,0],["Memcpy HtoD",17,13248,0]]' ]
}

# kineto/kernel-seqs.json (generated once by a python3 script for this
# test; times in us). Stream 7 runs kernel_A (10) kernel_B (2) kernel_C (3)
# four times, then kernel_D (100); the trace writes the second B before
# the second A (put back in start order). Non-overlapping runs of 2..8:
# AB 4 x 12, BC 4 x 5, CA 3 x 13, ABC 4 x 15 = 60, BCA and CAB 3 x 15;
# ABCA, BCAB, CABC and longer only twice (ABCABC is ABC twice anyway).
# Seven sequences repeat 3 times or more. ABC (60) comes first; AB and BC
# lie inside it, BCA, CAB and CA overlap it with a count within 1: the
# same run through another window, not listed. Stream 8 runs kernel_E (5)
# kernel_F (5) three times, then kernel_G (5): EF 3 x 10 = 30, FE twice.
# Device time outside communication: 4 x 15 + 100 + 6 x 5 + 5 = 195 (the
# NCCL kernel is left out): 60 / 195 = 0.3077, 30 / 195 = 0.1538; per
# kernel 60 / 12 = 5 and 30 / 6 = 5. Operators: stream 7's kernels carry
# the External id of the cpu_op that holds their launch call (aten::linear,
# aten::add, aten::gelu); stream 8's, as older traces write them, only
# their correlation id, and an unrelated cpu_op later in the trace has one
# of those ids as its External id: no operator, rather than a wrong one.
@test "pd-hotspots (sequences): repeated kernel runs, by hand" {
	hot "$K/kernel-seqs.json"
	[ "$(jqr pd.hotspot '.kernel_sequences|[.min_count,.max_length,.repeated,.pruned,.out_of_order]')" = '[3,8,7,0,0]' ]
	[ "$(jqr pd.hotspot '.kernel_sequences.top|map([(.kernels|map(.name)),.device,.stream,.length,.count,.total_us,.mean_us,.kernel_mean_us,.ratio])')" = \
	    '[[["kernel_A","kernel_B","kernel_C"],0,7,3,4,60,15,5,0.3077],[["kernel_E","kernel_F"],0,8,2,3,30,10,5,0.1538]]' ]
	[ "$(jqr pd.hotspot '.kernel_sequences.top|map(.kernels|map(.op))')" = \
	    '[["aten::linear","aten::add","aten::gelu"],[null,null]]' ]
}

# PD_SEQ_MIN_COUNT=4 keeps ABC (4) and drops EF (3); a value under 2 or
# not a number is the default, 3. -n 1 lists one.
@test "pd-hotspots (sequences): PD_SEQ_MIN_COUNT and -n" {
	PD_SEQ_MIN_COUNT=4 hot "$K/kernel-seqs.json"
	[ "$(jqr pd.hotspot '.kernel_sequences|[.min_count,.repeated,(.top|map(.count))]')" = '[4,3,[4]]' ]
	PD_SEQ_MIN_COUNT=1 hot "$K/kernel-seqs.json"
	[ "$(jqr pd.hotspot '.kernel_sequences.min_count')" = 3 ]
	PD_SEQ_MIN_COUNT=x hot "$K/kernel-seqs.json" -n 1
	[ "$(jqr pd.hotspot '.kernel_sequences|[.min_count,(.top|length)]')" = '[3,1]' ]
}

@test "pd-hotspots (sequences): two kernels list nothing; no kernels, null" {
	hot "$K/gaps-autograd.json"
	[ "$(jqr pd.hotspot '.kernel_sequences.top|length')" = 0 ]
	printf '{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":0,"dur":5}]}\n' >"$BATS_TEST_TMPDIR/cpu.json"
	hot "$BATS_TEST_TMPDIR/cpu.json"
	[ "$(jqr pd.hotspot '.kernel_sequences')" = null ]
}

# Bounded memory: 20,000 random kernels from 40 names (python3's
# random.seed(7)) make some 140,000 distinct runs of 2..8, more than the
# 16,384 the table holds, so the rarest are dropped (pruned > 0); the
# planted run plant_P plant_Q plant_R, launched every 40 kernels (500
# times, 2 us each), keeps its exact count: 500 x 6 = 3000 us.
@test "pd-hotspots (sequences): a capped table keeps the frequent runs" {
	python3 - "$BATS_TEST_TMPDIR/many.json" <<'PY'
import json, random, sys
random.seed(7)
ev, t, c = [], 0, 1
names = ["k%02d" % i for i in range(40)]
for i in range(20000):
    seq = ["plant_P", "plant_Q", "plant_R"] if i % 40 == 0 else [random.choice(names)]
    for n in seq:
        ev.append({"ph": "X", "cat": "kernel", "name": n, "pid": 0, "tid": 7,
                   "ts": t, "dur": 2, "args": {"stream": 7, "correlation": c}})
        t += 3
        c += 1
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
PY
	hot "$BATS_TEST_TMPDIR/many.json" -n 1
	[ "$(jqr pd.hotspot '.kernel_sequences.pruned > 0')" = true ]
	[ "$(jqr pd.hotspot '.kernel_sequences.top[0]|[(.kernels|map(.name)),.count,.total_us]')" = \
	    '[["plant_P","plant_Q","plant_R"],500,3000]' ]
}

# Corpus figures by an independent python3 computation over the whole
# trace (json/gzip, no perfdiag code): per (pid, tid) lane, the kernels
# that no share/comm-patterns.txt pattern matches (fnmatch), sorted by
# start then file order; every run of 2..8 counted when it starts after
# the last counted run of the same names ended; runs seen 3 times or more
# and no power of a shorter run, by total time (then length, lane, names);
# a run dropped when one listed before it on the same lane has a count
# within 1 (or 10 %) and holds it, lies inside it or overlaps its end
# (ratio: over all non-communication GPU activity, 45,647,300 ns). The
# operator: the cpu_op whose External id the launch call (by correlation)
# carries and that holds the call in time, else the one the kernel's own
# External id names, started before it; ids equal to the correlation id
# are no link. Qwen writes each lane in start order; test.json puts 4
# kernels behind ones already taken (out_of_order), and the full sort
# agrees all the same. (Traces that write whole buffers out of order,
# as control.json does, differ from a full sort at the buffers' seams.)
@test "pd-hotspots (sequences): Kineto corpus traces" {
	require_corpus
	hot "$CORPUS/pytorch/tracelens-h100-inference/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz" -n 3
	[ "$(jqr pd.hotspot '.kernel_sequences|[.repeated,.out_of_order]')" = '[229,0]' ]
	[ "$(jqr pd.hotspot '.kernel_sequences.top|map([.length,.count,(.total_us*1000|round),(.kernels|map(.op))])')" = \
	    '[[8,35,14210394,["aten::mm","aten::silu","aten::mm","aten::mul","aten::mm","aten::add","aten::copy_","aten::pow"]],[8,69,12332884,["aten::mm","aten::add","aten::copy_","aten::pow","aten::mean","aten::add","aten::rsqrt","aten::mul"]],[8,34,11188651,["aten::cat","aten::mul","aten::add","aten::copy_","aten::copy_","aten::copy_","aten::_flash_attention_forward","aten::copy_"]]]' ]
	[ "$(jqr pd.hotspot '.kernel_sequences.top[0]|[.ratio,.kernels[1].name]')" = \
	    '[0.3113,"void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::silu_kernel(at::TensorIteratorBase&)::{lambda()#1}::operator()() const::{lambda()#6}::operator()() const::{lambda(c10::BFloat16)#1}, std::array<char*, 2ul> >(int, at::native::(anonymous namespace)::silu_kernel(at::TensorIteratorBase&)::{lambda()#1}::operator()() const::{lambda()#6}::operator()() const::{lambda(c10::BFloat16)#1}, std::array<char*, 2ul>)"]' ]
	hot "$CORPUS/pytorch/hta-trace-diff/test/test.json.gz" -n 3
	[ "$(jqr pd.hotspot '.kernel_sequences|[.repeated,.out_of_order,(.top|map([.length,.count,(.total_us*1000|round),.device,.stream]))]')" = \
	    '[5630,4,[[8,7,85874000,1,7],[8,6,39044000,1,7],[8,6,27635000,1,7]]]' ]
}

# bert-small (inference, H100): 8 kernels run 4 times, 5.4 us each on
# average, 56 % of device time: the fusion finding fires, below the
# host-bound verdict (impact 0.56 x 0.25 = 0.14).
@test "pd-hotspots (sequences): short repeated kernels are a fusion finding, not the verdict" {
	require_corpus
	run_pd bash -c "pd-locate '$CORPUS/pytorch/tracelens-h100-inference/gaunernst_bert-small-uncased__1016001.json.gz' \
	    | pd-sum-step -q | pd-sum-gaps -q | pd-hotspots -q | pd-profile | pd-classify"
	[ "$(jqr pd.bottleneck 'select(.dominant) | .rule')" = '"msprof.overall.free"' ]
	[ "$(jqr pd.bottleneck 'select(.rule=="perfdiag.kernel_sequence_fusion") | [.dominant,.impact,.severity,.variant,.evidence]')" = \
	    '[false,0.1401,"medium","pytorch-cuda","the same 8 kernels run back to back 4 times on stream 7: 173.4 us, 56.0 % of device time, 5.4 us per kernel; it starts with cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8> (from aten::addmm)"]' ]
}
