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
