#!/usr/bin/env bats
# pd-profile: the PerformanceProfile of each run. The fixtures are summary
# records written by hand (test/fixtures/pd-profile/); every number below is
# worked out from them in the comment above its test.
load helper
load contract

PF=$FIX/pd-profile

@test "pd-profile: -h prints usage to stdout" { contract_h pd-profile; }
@test "pd-profile: bad option is exit 2" { contract_badopt pd-profile; }
@test "pd-profile: input passes through byte for byte" { contract_passthrough pd-profile; }
@test "pd-profile: empty input, empty output" { contract_empty pd-profile; }
@test "pd-profile: missing operand is exit 5" { contract_missing pd-profile; }
@test "pd-profile: writing to /dev/full is exit 5" { contract_devfull pd-profile "$PF/two-rank.jsonl"; }

@test "pd-profile: records of an operand file pass through, one profile per run" {
	run_pd pd-profile "$PF/two-rank.jsonl"
	diff <(printf '%s\n' "$output" | head -n 6) "$PF/two-rank.jsonl"
	[ "$(jqr pd.profile '[.run,.roots,.ranks,.world_size]')" = '["job1",["/d/r0_ascend_pt","/d/r1_ascend_pt"],2,2]' ]
	[ "$(jqr pd.profile '.stack')" = '{"family":"ascend","formats":["torch_npu"],"device":"npu","framework":"torch_npu"}' ]
}

# Steps pooled over both ranks: 1000, 1200, 1000, 1200 -> n 4, mean 1100,
# p90 1200 (numpy linear), sample sd 115.47 -> cv 0.0909; 1e6 / 1100 =
# 909.0909 steps/s. Shares: mean of the two ranks' shares: computing
# (0.5545 + 0.7364) / 2 = 0.64545, comm (0.3091 + 0.1273) / 2 = 0.2182,
# free 0.1364.
@test "pd-profile: step statistics and shares over ranks" {
	run_pd pd-profile <"$PF/two-rank.jsonl"
	[ "$(jqr pd.profile '.step')" = '{"n":4,"mean_us":1100,"median_us":1100,"p90_us":1200,"min_us":1000,"max_us":1200,"cv":0.0909,"steps_per_s":909.0909}' ]
	[ "$(jqr pd.profile '.shares | [.computing_ratio,.comm_not_overlapped_ratio,.free_ratio,.input_ratio]')" = '[0.6455,0.2182,0.1364,null]' ]
	[ "$(jqr pd.profile '[.domains[] | [.domain,.score]]')" = \
	    '[["compute",0.6455],["communication",0.2182],["host_overhead",0.1364],["graph_compile",null],["input_pipeline",null],["memory",null],["operator_hotspot",null]]' ]
	[ "$(jqr pd.profile '[.symptom,.metric.name,.metric.value]')" = '["throughput","step_us",1100]' ]
	# step 0.3 + comm 0.15 present; top two domains 0.43 apart
	[ "$(jqr pd.profile '[.confidence,.confidence_level]')" = '[0.45,"medium"]' ]
	[ "$(jqr pd.profile '.summaries')" = '{"present":["pd.comm","pd.step"],"missing":["pd.context","pd.gaps","pd.hotspot","pd.input","pd.mem"]}' ]
	[ "$(jqr pd.profile '.next_actions | length')" = 4 ]
	[[ "$(jqr pd.profile '.next_actions[3]')" == *"memory profiling on"* ]]
}

# Slow rank (msprof-analyze): per rank mean per step of each dimension.
# computing: r0 1220/2 = 610, r1 1620/2 = 810 -> diff 200, / mean step 1100
# = 0.1818 > 0.05 fires, slow rank 1. comm not overlapped: r0 680/2 = 340,
# r1 280/2 = 140 -> 0.1818, slow 0 (most), fast 1. free: 150 and 150 -> 0.
@test "pd-profile: slow rank per dimension" {
	run_pd pd-profile <"$PF/two-rank.jsonl"
	[ "$(jqr pd.profile '.cross_rank.slow_rank[0]')" = '{"dimension":"computing","max_us":810,"min_us":610,"diff_us":200,"mean_step_us":1100,"ratio":0.1818,"slow_rank":1,"fast_rank":0,"fires":true}' ]
	[ "$(jqr pd.profile '[.cross_rank.slow_rank[] | [.dimension,.ratio,.slow_rank,.fast_rank,.fires]]')" = \
	    '[["computing",0.1818,1,0,true],["comm_not_overlapped",0.1818,0,1,true],["free",0,0,0,false]]' ]
}

# Slow link: HCCS 20 and 25 GB/s, mean 22.5, (25 - 20) / 22.5 = 0.2222
# fires, slowest rank 0; RDMA 10 and 9.804, mean 9.902, 0.196 / 9.902 =
# 0.0198 does not. Stragglers: wait per step r0 780 * 0.6 / 2 = 234, r1 380
# * 0.1 / 2 = 19; spread 215 / 1100 = 0.195 > 0.05; only r1 is within a
# quarter of the spread (19 + 53.75) of the least. Step skew: both ranks
# average 1100.
@test "pd-profile: slow link, stragglers, step skew" {
	run_pd pd-profile <"$PF/two-rank.jsonl"
	[ "$(jqr pd.profile '.cross_rank.slow_link')" = '[{"transport":"HCCS","max_gb_per_s":25,"min_gb_per_s":20,"mean_gb_per_s":22.5,"ratio":0.2222,"slow_rank":0,"fires":true},{"transport":"RDMA","max_gb_per_s":10,"min_gb_per_s":9.804,"mean_gb_per_s":9.902,"ratio":0.0198,"slow_rank":1,"fires":false}]' ]
	[ "$(jqr pd.profile '.cross_rank.stragglers')" = '[{"rank":1,"method":"least_wait","last_at":null,"collectives":null,"delay_us":null,"wait_us_per_step":19}]' ]
	[ "$(jqr pd.profile '.cross_rank.step_skew | [.max_us,.min_us,.ratio]')" = '[1100,1100,0]' ]
}

# One rank, input 0.4 of the step (pd.input), free 0.5 -> host overhead
# 0.5 - 0.4 = 0.1 (stalls are counted once); hotspot 0.4 of device time *
# computing 0.5 = 0.2; "ConvolutionBackward0" is a training cue.
@test "pd-profile: one root: domains, workload cue, no cross-rank" {
	run_pd pd-profile <"$PF/one-root-input.jsonl"
	[ "$(jqr pd.profile '[.domains[] | [.domain,.score]]')" = \
	    '[["compute",0.5],["input_pipeline",0.4],["operator_hotspot",0.2],["host_overhead",0.1],["communication",0],["graph_compile",0],["memory",null]]' ]
	[ "$(jqr pd.profile '[.workload,.workload_source,.stack.device,.cross_rank]')" = '["training","cues","gpu",null]' ]
	# step .3 + hotspot .2 + input .1
	[ "$(jqr pd.profile '.confidence')" = 0.6 ]
}

# No pd.root: the root forms the null run; pd.context says inference; the
# only evidence is idle 0.6 with 80 % short kernels -> host_launch.
@test "pd-profile: roots without pd.root, workload from pd.context" {
	run_pd pd-profile <"$PF/no-root.jsonl"
	[ "$(jqr pd.profile '[.run,.roots,.workload,.workload_source]')" = '[null,["/x/t.json"],"inference","context"]' ]
	[ "$(jqr pd.profile '[.symptom,.metric.name,.metric.value]')" = '["host_launch","idle_ratio",0.6]' ]
	[ "$(jqr pd.profile '[.domains[0].domain,.domains[0].score,.domains[1].domain,.domains[1].score]')" = '["host_overhead",0.6,"compute",0.4]' ]
	[ "$(jqr pd.profile '.confidence')" = 0.15 ]
}

@test "pd-profile: two runs give two profiles, sorted by run id" {
	run_pd pd-profile "$PF/two-rank.jsonl" "$PF/one-root-input.jsonl"
	[ "$(jqr pd.profile '.run' | tr '\n' ' ')" = '"job1" "solo" ' ]
}

@test "pd-profile: a broken line in an operand file is a warning with file:line" {
	cp "$PF/two-rank.jsonl" "$BATS_TEST_TMPDIR/s.jsonl"
	sed -i '3i {"type":"pd.step", broken' "$BATS_TEST_TMPDIR/s.jsonl"
	run_pd 3 pd-profile "$BATS_TEST_TMPDIR/s.jsonl"
	[[ "$stderr" == "pd-profile: warning: $BATS_TEST_TMPDIR/s.jsonl:3: not a JSON object"* ]]
	[ "$(printf '%s\n' "$output" | grep '"pd.profile"' | jq -c .ranks)" = 2 ]
}

# A dump dir operand goes through the evidence tools first: the demo's
# before run (see test/pd-compare.bats for its numbers) stalls on data:
# DataLoader spans 132191 of 162010 us of steps = 0.8159.
@test "pd-profile: a dump directory operand is diagnosed" {
	run_pd pd-profile "$TOP/share/examples/demo/prof/before"
	[ "$(jqr pd.profile '[.symptom,.metric.name,.metric.value,.stack.device]')" = '["dataloader_stall","input_ratio",0.8159,"cpu"]' ]
	[ "$(jqr pd.step '.step_stats.mean')" = 32402 ]
}

# late-start.jsonl: 3 ranks, 4 allreduces; start offsets from the step
# start: r0 100 300 500 700, r1 110 310 505 690, r2 200 400 600 800. r2
# starts all 4 last (4 * 3 ranks > 4: more often than chance); its
# lateness over the next-latest: 90 + 90 + 95 + 100 = 375 us; mean spread
# (100 + 100 + 100 + 110) / 4 = 102.5 us = 0.1025 of the 1000 us step > 0.05.
@test "pd-profile: stragglers by late start at the same collective (HTA)" {
	run_pd pd-profile "$PF/late-start.jsonl"
	[ "$(jqr pd.profile '.cross_rank.stragglers')" = '[{"rank":2,"method":"late_start","last_at":4,"collectives":4,"delay_us":375,"wait_us_per_step":null}]' ]
}

# pd.context (pd-find-context on a workspace) joined with pd.root records.
# FC/torchrun_cnn: run.sh starts `torchrun --nproc_per_node=8 train.py`
# (world size 8, launcher torchrun), train.py imports torch and calls
# backward (stack torch, workload training): see test/pd-find-context.bats.
FC=$FIX/pd-find-context

# rootrec ROOT RANK RUN [WORLD_SIZE]: a kineto pd.root line.
rootrec() {
	printf '{"type":"pd.root","v":1,"root":"%s","rank":%s,"device":null,"format":"kineto","run":"%s","score":1,%s"exports":[]}\n' \
	    "$1" "$2" "$3" "${4:+\"world_size\":$4,}"
}

# One run, one context: the context gives world size 8 (one rank seen),
# launcher and workload; the kineto format says torch too ("both").
@test "pd-profile: pd.context gives world size, launcher, workload, stack" {
	rootrec "$FC/torchrun_cnn/prof/r0.json" 0 x >"$BATS_TEST_TMPDIR/s"
	run_pd bash -c "{ cat '$BATS_TEST_TMPDIR/s'; pd-find-context '$FC/torchrun_cnn'; } | pd-profile"
	[ "$(jqr pd.profile '[.ranks,.world_size,.workload,.workload_source,.launcher,.stack.framework,.stack.family]')" = \
	    '[1,8,"training","context","torchrun","torch","pytorch"]' ]
	[ "$(jqr pd.profile '[.context_root,.context_sources,.context_conflicts]')" = \
	    "[\"$FC/torchrun_cnn\",{\"world_size\":\"context\",\"workload\":\"context\",\"stack\":\"both\",\"launcher\":\"context\"},[]]" ]
	# the pd.finding records (root = the workspace) make no run of their own
	[ "$(jqr pd.profile .run)" = '"x"' ]
}

# The dumps say world size 16 (Kineto distributedInfo, in pd.root) and are
# torch_npu dumps; the context says 8 and torch: the traces win, and the
# disagreements are recorded.
@test "pd-profile: where traces and pd.context disagree, the traces win" {
	{ rootrec "$FC/torchrun_cnn/prof/r0_ascend_pt" 0 x 16
	  rootrec "$FC/torchrun_cnn/prof/r1_ascend_pt" 1 x 16; } |
	    sed 's/"kineto"/"torch_npu"/' >"$BATS_TEST_TMPDIR/s"
	run_pd bash -c "{ pd-find-context '$FC/torchrun_cnn'; cat '$BATS_TEST_TMPDIR/s'; } | pd-profile"
	[ "$(jqr pd.profile '[.world_size,.stack.framework,.stack.device,.launcher,.context_sources]')" = \
	    '[16,"torch_npu","npu","torchrun",{"world_size":"trace","workload":"context","stack":"trace","launcher":"context"}]' ]
	[ "$(jqr pd.profile '.context_conflicts')" = \
	    '[{"field":"world_size","trace":16,"context":8},{"field":"stack","trace":"torch_npu","context":"torch"}]' ]
}

# Two runs: the context applies to the run whose roots lie in its
# workspace, not to the other; with two runs and no root under any
# workspace, none gets it.
@test "pd-profile: with several runs, pd.context attaches to the runs in its workspace" {
	{ rootrec "$FC/torchrun_cnn/prof/r0.json" 0 in
	  rootrec /elsewhere/t.json 0 out; } >"$BATS_TEST_TMPDIR/s"
	run_pd bash -c "{ pd-find-context '$FC/torchrun_cnn'; cat '$BATS_TEST_TMPDIR/s'; } | pd-profile"
	[ "$(jqr pd.profile '[.run,.world_size,.launcher,.workload_source]' | tr '\n' ' ')" = \
	    '["in",8,"torchrun","context"] ["out",1,null,null] ' ]
	{ rootrec /a/t.json 0 a; rootrec /b/t.json 0 b; } >"$BATS_TEST_TMPDIR/s"
	run_pd bash -c "{ pd-find-context '$FC/torchrun_cnn'; cat '$BATS_TEST_TMPDIR/s'; } | pd-profile"
	[ "$(jqr pd.profile '[.run,.launcher,.context_root]' | tr '\n' ' ')" = \
	    '["a",null,null] ["b",null,null] ' ]
}

# Communication kernel families of share/comm-patterns.txt beyond NCCL
# (issue: they counted as compute, as in HTA). kfam NAME writes a trace
# with a gemm [100, 200) and the kernel NAME [150, 250) on another stream:
# the kernel is one collective of 100 us, and pd-sum-step counts 100 us of
# communication, 50 of them under the gemm.
kfam() {
	printf '{"schemaVersion": 1, "traceEvents": [\n{"ph": "X", "cat": "kernel", "name": "void gemm_kernel<float>(float*)", "pid": 0, "tid": 7, "ts": 100, "dur": 100, "args": {"stream": 7}},\n{"ph": "X", "cat": "kernel", "name": "%s", "pid": 0, "tid": 21, "ts": 150, "dur": 100, "args": {"stream": 21}}\n]}\n' "$1" >"$BATS_TEST_TMPDIR/k.json"
	run_pd pd-sum-comm "$BATS_TEST_TMPDIR/k.json"
	[ "$(jqr pd.comm '[.op_count,.total_us]')" = '[1,100]' ]
	run_pd pd-sum-step "$BATS_TEST_TMPDIR/k.json"
	[ "$(jqr pd.step '.gpu | [.compute_us,.comm_us,.overlap_us]')" = '[100,100,50]' ]
}

@test "comm patterns: DeepEP dispatch/combine kernels are communication" {
	kfam 'void dpsk::ep::internode::dispatch<8>(int*)'
	kfam 'void deep_ep::intranode::combine<__nv_bfloat16, 8, 768>(int*)'
}

@test "comm patterns: NVSHMEM kernels are communication" {
	kfam 'void nvshmemi_transfer_rma_kernel<NVSHMEMI_OP_PUT>(void*)'
	kfam 'nvshmemx_barrier_all_on_stream_kernel'
}

@test "comm patterns: symmetric-memory multimem all-reduce is communication" {
	kfam 'void c10d::symmetric_memory::multimem_all_reduce_kernel<float, 16>(float*)'
}

@test "comm patterns: Ascend all-to-all (hcom_*, HcclAllToAll*) is communication" {
	kfam 'hcom_alltoallv__123_0_1'
	kfam 'HcclAllToAllV'
}

@test "comm patterns: a gemm is not communication" {
	printf '{"schemaVersion": 1, "traceEvents": [\n{"ph": "X", "cat": "kernel", "name": "void gemm_kernel<float>(float*)", "pid": 0, "tid": 7, "ts": 100, "dur": 100, "args": {"stream": 7}}\n]}\n' >"$BATS_TEST_TMPDIR/k.json"
	run_pd pd-sum-comm "$BATS_TEST_TMPDIR/k.json"
	[ "$(jqr pd.comm '.op_count')" = 0 ]
}
