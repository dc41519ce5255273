#!/usr/bin/env bats
# Nsight Systems SQLite exports, read through lib/pd_nsys by every
# PyTorch-family tool. Two kinds of tests:
# - hand-written exports (test/fixtures/nsys/*.sql, built with the test
#   helper sqlite-make): the expected values are computed by hand from
#   the rows in the .sql file, as the comments say;
# - the shared corpus (corpus/nsys): the expected values are the figures
#   its MANIFEST.md computes by SQL on each file (F1..F5 and the queries
#   under each case), in ns there and in us here.
load helper

NS=$CORPUS/nsys
MFU=nsysai-mfu-train-h100-2gpu-before-after

setup() {
	D=$BATS_TEST_TMPDIR/x
	mkdir -p "$D"
	"$PD_TESTBIN/sqlite-make" "$D/two.sqlite" <"$FIX/nsys/two-proc.sql"
	"$PD_TESTBIN/sqlite-make" "$D/mpi.sqlite" <"$FIX/nsys/mpi-lazy.sql"
}

# rec TOOL FILE TYPE FILTER: FILTER on each TYPE record of TOOL on FILE.
rec() {
	run_pd bash -c "pd-locate '$2' | $1"
	jqr "$3" "$4"
}

@test "nsys: one root per process, ranks in device order, MPI rank from the thread name" {
	run_pd pd-locate "$D"
	[ -z "$stderr" ]
	[ "$(jqr pd.root '[(.root|split("/")[-1]),.format,.process,.rank,.device,.framework,.world_size,.exports[0].kind]')" = \
'["mpi.sqlite","nsys",300,3,0,null,null,"nsys_sqlite"]
["two.sqlite","nsys",100,0,0,"torch",2,"nsys_sqlite"]
["two.sqlite","nsys",200,1,1,null,2,"nsys_sqlite"]' ]
}

@test "nsys: ProfilerStep NVTX ranges are the steps; a PyTorch op range is a CPU op" {
	# pid 100: step 1 = [1000, 11000] holds gemm [2500, 6500] and the
	# pageable copy [3300, 3800] (inside gemm): computing 4, memcpy 0.5,
	# busy 4, free 10 - 4 = 6 us; aten::mm [1500, 4000] = 2.5 us of CPU
	# ops. Step 2 = [11000, 21000] holds the NCCL kernel [13000, 17000]:
	# comm 4, free 6. pid 200 has no steps: one step, its device span
	# [2600, 5600] = 3 us, all computing.
	rec pd-sum-step "$D/two.sqlite" pd.step \
	    '[.rank,.source,(.steps[]|[.step,.step_us,.computing_us,.comm_us,.free_us,.memcpy_us,.cpu_ops_us])]' >"$D/got"
	[ "$(cat "$D/got")" = \
'[0,"nsys_sqlite",[1,10,4,0,6,0.5,2.5],[2,10,0,4,6,0,0]]
[1,"nsys_sqlite",[null,3,3,0,0,0,null]]' ]
}

@test "nsys: correlation ids are per process; backtrace twins are not API calls" {
	# Both processes use correlation id 1. pid 100 links gemm, the NCCL
	# kernel and the memcpy to their launches (3); pid 200 its one gemm
	# (1), not pid 100's launch too. The eventClass-67 twin of
	# cudaStreamSynchronize [4990, 9010] is not counted: 1 call, 4 us.
	rec pd-hotspots "$D/two.sqlite" pd.hotspot \
	    '[.rank,.linked_kernels,(.host_api|map([.name,.count,.total_us]))]' >"$D/got"
	[ "$(cat "$D/got")" = \
'[0,3,[["cudaStreamSynchronize",1,4],["cudaLaunchKernel",2,0.2],["cudaMemcpyAsync",1,0.2]]]
[1,1,[["cudaLaunchKernel",1,0.1]]]' ]
}

@test "nsys: kernel, copy and op names as the PyTorch readers know them" {
	# shortName when it resolves, else the demangled name (mpi.sqlite's
	# shortName 77 has no string); copies "Memcpy HtoD (Pageable ->
	# Device)" from copyKind 1, srcKind 0, dstKind 2; an op range's
	# ", op_id = N" is cut.
	rec pd-hotspots "$D/two.sqlite" pd.hotspot '[.rank,[.top[].name],[(.cpu_ops//[])[].name]]' >"$D/got"
	[ "$(cat "$D/got")" = \
'[0,["gemm","Memcpy HtoD (Pageable -> Device)"],["aten::mm"]]
[1,["gemm"],[]]' ]
	rec pd-hotspots "$D/mpi.sqlite" pd.hotspot '[.top[].name]'
	[ "$(jqr pd.hotspot '[.top[].name]')" = '["void saxpy(int, float, float*, float*)"]' ]
}

@test "nsys: NCCL kernels are the communication; a lazy export without NVTX or copies is read" {
	rec pd-sum-comm "$D/two.sqlite" pd.comm '[.rank,.total_us,[.ops[]|[.op_type,.count]]]' >"$D/got"
	[ "$(cat "$D/got")" = '[0,4,[["allreduce",1]]]
[1,null,[]]' ]
	# mpi.sqlite: one kernel [1000, 3000], no step ranges: a 2 us step
	rec pd-sum-step "$D/mpi.sqlite" pd.step '[.rank,.steps[0].step_us,.steps[0].computing_us]'
	[ "$(jqr pd.step '[.rank,.steps[0].step_us,.steps[0].computing_us]')" = '[3,2,2]' ]
}

@test "nsys: the export is opened read-only and left as it was" {
	cp "$D/two.sqlite" "$D/orig"
	chmod a-w "$D/two.sqlite"
	run_pd bash -c "pd-locate '$D/two.sqlite' | pd-sum-step | pd-sum-comm \
	    | pd-sum-mem | pd-sum-input | pd-sum-gaps | pd-hotspots | pd-profile | pd-classify"
	cmp "$D/two.sqlite" "$D/orig"
	[ ! -e "$D/two.sqlite-journal" ] && [ ! -e "$D/two.sqlite-wal" ]
}

@test "nsys: a cut export and an SQLite file of another kind are said, exit 3" {
	head -c 16384 "$D/two.sqlite" >"$D/cut.sqlite"
	run_pd 3 pd-locate "$D/cut.sqlite"
	[ "$stderr" = "pd-locate: warning: $D/cut.sqlite: not a readable SQLite database: database disk image is malformed; skipped" ]
	[ -z "$output" ]
	printf 'CREATE TABLE t (a);\n' | "$PD_TESTBIN/sqlite-make" "$D/other.db"
	run_pd 3 pd-locate "$D/other.db"
	[ "$stderr" = "pd-locate: warning: $D/other.db: not a Kineto, autograd or Nsight Systems trace; give its profiler directory instead" ]
	# inside a directory, the cut file is said and the good one located
	mv "$D/other.db" "$D/cut.sqlite" "$BATS_TEST_TMPDIR/"
	cp "$BATS_TEST_TMPDIR/cut.sqlite" "$D/"
	run_pd 3 pd-locate "$D"
	[ "$(jqr pd.root '.process' | tr '\n' ' ')" = "300 100 200 " ]
}

# ---- the corpus ----

@test "nsys corpus: pd-locate finds every export, its processes and ranks" {
	require_corpus
	run_pd pd-locate "$NS"
	[ -z "$stderr" ]
	# MANIFEST: mfu files = 2 python3 processes (before 144/145, after
	# 148/149) on devices 0/1; saxpy's thread is "MPI Rank 0"; the others
	# are one process each. Only the mfu files hold aten:: NVTX ranges.
	[ "$(jqr pd.root '[(.root|split("/")[-1]),.process,.rank,.device,.framework]' | tr -d '\n')" = \
'["con_kernel.sqlite",32084,null,0,null]["ex-gpu.s10.sqlite",868881,null,0,null]["nsight-2025.5.2.sqlite",945961,null,0,null]["mfu_2gpu_after.sqlite",148,0,0,"torch"]["mfu_2gpu_after.sqlite",149,1,1,"torch"]["mfu_2gpu_before.sqlite",144,0,0,"torch"]["mfu_2gpu_before.sqlite",145,1,1,"torch"]["perlmutter-cloverleaf-cuda.sqlite",1701896,null,0,null]["saxpy-mpi-cuda_nsys_perlmutter0.sqlite",1230493,0,0,null]' ]
}

@test "nsys corpus: the event tables come out side by side, merged by start" {
	# The reader hands out the rows of its tables merged by start, so
	# that a kernel comes out near its launch call (the tools that link
	# them hold what is in flight, not a whole table). Checked on both
	# mfu exports and on cloverleaf (a sync row a kernel) against the
	# files themselves (python's sqlite3): every row of every table comes
	# out once, each table in its rowid order; and every row of a table
	# whose rowid order is in time order (all but mfu's RUNTIME, 5 rows
	# out of order) starts no earlier than any row of another table that
	# came out before it. Reading the tables one after the other (RUNTIME
	# whole, then KERNEL) fails the second check on every file.
	require_corpus
	for f in "$NS/$MFU/mfu_2gpu_before.sqlite" "$NS/$MFU/mfu_2gpu_after.sqlite" \
	    "$NS"/pipit-cloverleaf-a100/*.sqlite; do
		"$PD_TESTBIN/trace-dump" -n -1 "$f" >"$D/dump"
		run python3 - "$f" "$D/dump" <<'PY'
import re, sqlite3, sys
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
have = {r[0] for r in db.execute("SELECT name FROM sqlite_master")}
# the rows each table hands out, in rowid order (the reader's WHERE)
sql = {
    "kernel": "SELECT start FROM CUPTI_ACTIVITY_KIND_KERNEL",
    "gpu_memcpy": "SELECT start FROM CUPTI_ACTIVITY_KIND_MEMCPY",
    "gpu_memset": "SELECT start FROM CUPTI_ACTIVITY_KIND_MEMSET",
    "cuda_sync": "SELECT start FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
    "cuda_runtime": "SELECT start FROM CUPTI_ACTIVITY_KIND_RUNTIME "
                    "WHERE COALESCE(eventClass, 0) <> 67",
}
want = {}
for cat, q in sql.items():
    t = q.split("FROM ")[1].split()[0]
    if t in have:
        want[cat] = [r[0] for r in db.execute(q + " ORDER BY rowid")]
nvtx = {"cpu_op", "user_annotation"}
got, order = {}, []
for line in open(sys.argv[2]):
    m = re.match(r"\d+ X \S+ \S+ (\d+) \d+ ([^|]*)\|", line)
    if m:
        cat = "nvtx" if m.group(2) in nvtx else m.group(2)
        order.append((cat, int(m.group(1))))
        got.setdefault(cat, []).append(int(m.group(1)))
for cat, v in want.items():
    if got.get(cat, []) != v:
        sys.exit("%s: not its rows in rowid order" % cat)
timed = {c for c, v in want.items() if all(a <= b for a, b in zip(v, v[1:]))}
hi = {}		# the latest start out so far, by table
for cat, t in order:
    if cat in timed and any(h > t for c, h in hi.items() if c != cat):
        sys.exit("%s row at %d after a later row of another table" % (cat, t))
    hi[cat] = max(hi.get(cat, t), t)
print(len(order), sorted(timed))
PY
		echo "$f: $output"
		[ "$status" -eq 0 ]
	done
}

@test "nsys corpus: mfu before/after: the MANIFEST's kernel, NCCL and memcpy figures" {
	require_corpus
	for w in before after; do
		run_pd bash -c "pd-locate '$NS/$MFU/mfu_2gpu_$w.sqlite' | pd-sum-comm | pd-hotspots"
		# F1 (per device): kernels = compute + communication time; their
		# count = compute kernels + NCCL kernels (pd.comm)
		paste -d' ' <(jqr pd.hotspot '[.rank,((.classes.compute_us+.classes.comm_us)*1000|round),(.by_type[]|select(.type=="compute")|.count)]') \
		    <(jqr pd.comm '.ops[0].count') | jq -c '[.[0],.[1],.[2]+input]' >"$BATS_TEST_TMPDIR/$w.f1"
		# F2: flash_fwd_kernel over both ranks
		jqr pd.hotspot '.top[]|select(.name=="flash_fwd_kernel")|[.count,(.total_us*1000|round)]' \
		    | jq -s -c '[(map(.[0])|add),(map(.[1])|add)]' >"$BATS_TEST_TMPDIR/$w.f2"
		# F3: NCCL kernels per device
		jqr pd.comm '[.rank,.ops[0].op_type,.ops[0].count,(.total_us*1000|round)]' >"$BATS_TEST_TMPDIR/$w.f3"
		# F4: memcpy time over both ranks (HtoD + DtoD)
		jqr pd.hotspot '.by_type[]|select(.type=="memcpy")|[.count,(.total_us*1000|round)]' \
		    | jq -s -c '[(map(.[0])|add),(map(.[1])|add)]' >"$BATS_TEST_TMPDIR/$w.f4"
	done
	# before: device 0 = 1,993 kernels / 270,875,926 ns, device 1 = 2,017 /
	# 264,324,724 ns (sum 535,200,650 = F1)
	[ "$(cat "$BATS_TEST_TMPDIR/before.f1")" = '[0,270875926,1993]
[1,264324724,2017]' ]
	# F1 after: 3587 kernels, 488,835,406 ns in all
	[ "$(jq -s -c '[(map(.[2])|add),(map(.[1])|add)]' "$BATS_TEST_TMPDIR/after.f1")" = '[3587,488835406]' ]
	[ "$(cat "$BATS_TEST_TMPDIR/before.f2")" = '[68,272317378]' ]
	[ "$(cat "$BATS_TEST_TMPDIR/after.f2")" = '[60,240755667]' ]
	[ "$(cat "$BATS_TEST_TMPDIR/before.f3")" = '[0,"sendrecv",33,17172652]
[1,"sendrecv",33,8229100]' ]
	[ "$(cat "$BATS_TEST_TMPDIR/after.f3")" = '[0,"sendrecv",31,9989016]
[1,"sendrecv",31,23753085]' ]
	# F4: before 34 + 986 copies, 26,656 + 5,665,431 ns; after 32 + 872,
	# 25,184 + 5,061,490 ns
	[ "$(cat "$BATS_TEST_TMPDIR/before.f4")" = '[1020,5692087]' ]
	[ "$(cat "$BATS_TEST_TMPDIR/after.f4")" = '[904,5086674]' ]
}

@test "nsys corpus: saxpy, cloverleaf, ex-gpu, con_kernel, flameox: the MANIFEST's figures" {
	require_corpus
	# saxpy: 5 kernels 88,573,480 ns; HtoD 10 copies 186,001,123 ns, DtoH
	# 5 / 98,698,477; cudaMemcpy (eventClass 0) 15 calls 374,336,827 ns
	rec pd-hotspots "$NS/pipit-saxpy-mpi-rank0-a100" pd.hotspot \
	    '[(.classes.compute_us*1000|round),(.top|map(select(.name|startswith("Memcpy")))|map([.name,.count,(.total_us*1000|round)])),(.host_api[0]|[.name,.count,(.total_us*1000|round)])]'
	[ "$(jqr pd.hotspot '[(.classes.compute_us*1000|round),(.top|map(select(.name|startswith("Memcpy")))|map([.name,.count,(.total_us*1000|round)])),(.host_api[0]|[.name,.count,(.total_us*1000|round)])]')" = \
	    '[88573480,[["Memcpy HtoD (Pageable -> Device)",10,186001123],["Memcpy DtoH (Device -> Pageable)",5,98698477]],["cudaMemcpy",15,374336827]]' ]
	# cloverleaf: 1312 kernels 294,404,540 ns; par_ranged2d_kernel 331 /
	# 267,056,876; cudaDeviceSynchronize 1312 calls / 301,652,956 ns
	rec "pd-hotspots | pd-sum-gaps" "$NS/pipit-cloverleaf-a100" pd.hotspot \
	    '[(.classes.compute_us*1000|round),(.top[0]|[.name,.count,(.total_us*1000|round)]),(.host_api[0]|[.name,.count,(.total_us*1000|round)])]' >"$BATS_TEST_TMPDIR/c"
	[ "$(cat "$BATS_TEST_TMPDIR/c")" = '[294404540,["par_ranged2d_kernel",331,267056876],["cudaDeviceSynchronize",1312,301652956]]' ]
	[ "$(jqr pd.gaps '.sync_calls')" = 1312 ]
	# ex-gpu (pre-2.9 schema): 6 kernels 34,113 ns, init_array 2 / 11,808;
	# cudaMalloc (eventClass 0) 4 calls 210,215,113 ns
	rec pd-hotspots "$NS/extrap-exgpu-a100-oldschema" pd.hotspot \
	    '[(.classes.compute_us*1000|round),(.top[0]|[.name,.count,(.total_us*1000|round)]),(.host_api[0]|[.name,.count,(.total_us*1000|round)])]' >"$BATS_TEST_TMPDIR/e"
	[ "$(cat "$BATS_TEST_TMPDIR/e")" = '[34113,["init_array",2,11808],["cudaMalloc",4,210215113]]' ]
	# con_kernel (Windows 2.9.1): 5 streams, sum 271,711,594 ns; test2 1 /
	# 250,891,246
	rec "pd-hotspots | pd-sum-gaps" "$NS/extrap-concurrent-gtx1060-windows" pd.hotspot \
	    '[(.classes.compute_us*1000|round),(.top[0]|[.name,.count,(.total_us*1000|round)])]' >"$BATS_TEST_TMPDIR/w"
	[ "$(cat "$BATS_TEST_TMPDIR/w")" = '[271711594,["test2",1,250891246]]' ]
	[ "$(jqr pd.gaps '.streams|length')" = 5 ]
	# flameox: 3 kernels 3,840 ns plus 2 graph launches 3,104 ns (graph-
	# level tracing: the graphs' kernels have no rows of their own)
	rec pd-hotspots "$NS/flameox-cudagraph-rtx3060" pd.hotspot \
	    '[(.classes.compute_us*1000|round),(.top|map(select(.name=="CUDA graph 1"))|.[0]|[.count,(.total_us*1000|round)])]' >"$BATS_TEST_TMPDIR/f"
	[ "$(cat "$BATS_TEST_TMPDIR/f")" = '[6944,[2,3104]]' ]
}

# Copies by kind, as the MANIFEST's F4 query (copyKind, COUNT, SUM(bytes),
# SUM(end - start)) gives them: mfu before, both processes together: HtoD
# 34 / 272 / 26656 ns, DtoD 986 / 8046134272 / 5665431 ns; saxpy: HtoD 10 /
# 2621440000 / 186001123 ns, DtoH 5 / 1310720000 / 98698477 ns, all from
# pageable memory (srcKind/dstKind 0), at about 14 and 13 GB/s.
@test "nsys corpus: copies by kind, bytes and pageable as the MANIFEST's F4" {
	require_corpus
	run_pd bash -c "pd-locate '$NS/$MFU/mfu_2gpu_before.sqlite' | pd-hotspots -q"
	[ "$(printf '%s\n' "$output" | jq -s -c '[.[]|select(.type=="pd.hotspot")|.copies[]] | group_by(.kind) | map(select(.[0].kind|startswith("Memcpy"))|[.[0].kind, (map(.count)|add), (map(.bytes)|add), (map(.total_us)|add*1000|round)])')" = \
	    '[["Memcpy DtoD",986,8046134272,5665431],["Memcpy HtoD",34,272,26656]]' ]
	rec pd-hotspots "$NS/pipit-saxpy-mpi-rank0-a100" pd.hotspot \
	    '.copies|map([.kind,.count,.bytes,(.total_us*1000|round),.pageable,(.bw_gbps_median|floor)])'
	[ "$(jqr pd.hotspot '.copies|map([.kind,.count,.bytes,(.total_us*1000|round),.pageable,(.bw_gbps_median|floor)])')" = \
	    '[["Memcpy HtoD",10,2621440000,186001123,10,14],["Memcpy DtoH",5,1310720000,98698477,5,13]]' ]
}

@test "nsys corpus: each export has the verdict an engineer would give it" {
	require_corpus
	run_pd bash -c "pd-locate '$NS' | pd-sum-step -q | pd-sum-comm -q \
	    | pd-sum-mem -q | pd-sum-input -q | pd-sum-gaps -q | pd-hotspots -q \
	    | pd-profile | pd-classify"
	dom() {
		jqr pd.bottleneck "select(.dominant and (.run | endswith(\"$1\"))) | [.rule,.variant,.operator]"
	}
	# mfu (FSDP training, 2x H100, 0.3 s windows): the GPU computes 76-85 %
	# of the window, flash attention is half of the device time. Flash
	# attention runs in fp16/bf16 only and no fp32 sgemm is among the top
	# kernels: the reduced-precision texts (no "bf16 autocast" advice)
	[ "$(dom mfu_2gpu_before.sqlite)" = '["perfdiag.compute_bound","pytorch-cuda-reduced-precision","flash_fwd_kernel"]' ]
	[ "$(dom mfu_2gpu_after.sqlite)" = '["perfdiag.compute_bound","pytorch-cuda-reduced-precision","flash_fwd_kernel"]' ]
	# the windows hold forward passes only, but under FSDP with activation
	# checkpointing (FSDP::pre_forward (blocks.N._checkpoint_wrapped_module)
	# NVTX ranges): training, not inference (it read inference before)
	[ "$(jqr pd.profile 'select(.run | test("mfu_2gpu")) | .workload' | sort -u)" = '"training"' ]
	# cloverleaf: over its device span (start-up excluded) the GPU is
	# busy 89 %, par_ranged2d_kernel is 88 % of it; the syncs after each
	# kernel are the second finding, not the first
	[ "$(dom perlmutter-cloverleaf-cuda.sqlite)" = '["perfdiag.compute_bound","cuda","par_ranged2d_kernel"]' ]
	# con_kernel: one 251 ms kernel (test2) with the others beside it
	[ "$(dom con_kernel.sqlite)" = '["perfdiag.compute_bound","cuda","test2"]' ]
	# saxpy rank 0: the GPU idles 66 % of its active span while the host
	# copies from pageable memory, registers memory and waits in MPI
	[ "$(dom saxpy-mpi-cuda_nsys_perlmutter0.sqlite)" = '["msprof.overall.free","cuda",null]' ]
	# ... and the copies are the next finding, not kernel tuning of a
	# memcpy: HtoD + DtoH = 186,001,123 + 98,698,477 ns (the MANIFEST's
	# figures) over the 1,097,327,843 ns span is 0.2594, 76.3 % of the
	# device time (with the kernels' 88,573,480 ns)
	fnd() {
		jqr pd.bottleneck "select(.rule==\"$2\" and (.run | endswith(\"$1\"))) | [.dominant,.impact,.variant]"
	}
	[ "$(fnd saxpy-mpi-cuda_nsys_perlmutter0.sqlite perfdiag.copy_bound)" = '[false,0.2594,"cuda"]' ]
	# no kernel runs beside any of the 15 copies (pd-hotspots-seqs.bats):
	# all 284,699,600 ns are exposed
	[ "$(jqr pd.bottleneck 'select(.rule=="perfdiag.copy_bound" and (.run | endswith("perlmutter0.sqlite"))) | .evidence' | grep -o '[0-9.]* ms of the copy time ([0-9.]* %) is exposed')" = \
	    '284.70 ms of the copy time (100.0 %) is exposed' ]
	[ -z "$(fnd saxpy-mpi-cuda_nsys_perlmutter0.sqlite perfdiag.operator_hotspot)" ]
	# ex-gpu and flameox: 34 us and 8 us of device work: no workload
	[ "$(dom ex-gpu.s10.sqlite)" = '["perfdiag.evidence.little_device_work",null,null]' ]
	[ "$(dom nsight-2025.5.2.sqlite)" = '["perfdiag.evidence.little_device_work",null,null]' ]
}

@test "nsys corpus: the before/after pair compares, inconclusive without steps" {
	require_corpus
	run_pd pd-compare "$NS/$MFU/mfu_2gpu_before.sqlite" "$NS/$MFU/mfu_2gpu_after.sqlite"
	# both are 0.3 s windows without step markers: the "step" is the
	# window; the shares still compare (idle: 9.6 % -> 17.5 % of the
	# windows, from pd-sum-step's free over step time on both ranks)
	[ "$(jqr pd.comparison '[.verdict,(.reason|test("neither run has step markers"))]')" = '["inconclusive",true]' ]
	[ "$(jqr pd.comparison '.metrics[]|select(.metric=="free_ratio")|[.before,.after,.verdict]')" = '[0.096,0.1745,"regressed"]' ]
}
