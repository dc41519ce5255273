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
	jqv pd.profile '[.run,.roots,.ranks,.world_size]' \
	    '.stack'
	[ "${J[0]}" = '["job1",["/d/r0_ascend_pt","/d/r1_ascend_pt"],2,2]' ]
	[ "${J[1]}" = '{"family":"ascend","formats":["torch_npu"],"device":"npu","framework":"torch_npu"}' ]
}

# Steps pooled over both ranks: 1000, 1200, 1000, 1200 -> n 4 (2 per rank), mean 1100,
# p90 1200 (numpy linear), sample sd 115.47 -> cv 0.0909; 1e6 / 1100 =
# 909.0909 steps/s. Shares: mean of the two ranks' shares: computing
# (0.5545 + 0.7364) / 2 = 0.64545, comm (0.3091 + 0.1273) / 2 = 0.2182,
# free 0.1364.
@test "pd-profile: step statistics and shares over ranks" {
	run_pd pd-profile <"$PF/two-rank.jsonl"
	jqv pd.profile '.step' \
	    '.shares | [.computing_ratio,.comm_not_overlapped_ratio,.free_ratio,.input_ratio]' \
	    '[.domains[] | [.domain,.score]]' \
	    '[.symptom,.metric.name,.metric.value]' \
	    '[.confidence,.confidence_level]' \
	    '.summaries' \
	    '.next_actions | length' \
	    '.next_actions[3]'
	[ "${J[0]}" = '{"n":4,"per_rank":2,"mean_us":1100,"median_us":1100,"p90_us":1200,"min_us":1000,"max_us":1200,"cv":0.0909,"steps_per_s":909.0909}' ]
	[ "${J[1]}" = '[0.6455,0.2182,0.1364,null]' ]
	[ "${J[2]}" = \
	    '[["compute",0.6455],["communication",0.2182],["host_overhead",0.1364],["graph_compile",null],["input_pipeline",null],["memory",null],["operator_hotspot",null]]' ]
	[ "${J[3]}" = '["throughput","step_us",1100]' ]
	# step 0.3 + comm 0.15 present; top two domains 0.43 apart
	[ "${J[4]}" = '[0.45,"medium"]' ]
	[ "${J[5]}" = '{"present":["pd.comm","pd.step"],"missing":["pd.context","pd.gaps","pd.hotspot","pd.input","pd.mem"]}' ]
	[ "${J[6]}" = 4 ]
	[[ "${J[7]}" == *"memory profiling on"* ]]
}

# Slow rank (msprof-analyze): per rank mean per step of each dimension.
# computing: r0 1220/2 = 610, r1 1620/2 = 810 -> diff 200, / mean step 1100
# = 0.1818 > 0.05 fires, slow rank 1. comm not overlapped: r0 680/2 = 340,
# r1 280/2 = 140 -> 0.1818, slow 0 (most), fast 1. free: 150 and 150 -> 0.
@test "pd-profile: slow rank per dimension" {
	run_pd pd-profile <"$PF/two-rank.jsonl"
	jqv pd.profile '.cross_rank.slow_rank[0]' \
	    '[.cross_rank.slow_rank[] | [.dimension,.ratio,.slow_rank,.fast_rank,.fires]]'
	[ "${J[0]}" = '{"dimension":"computing","max_us":810,"min_us":610,"diff_us":200,"mean_step_us":1100,"ratio":0.1818,"slow_rank":1,"fast_rank":0,"fires":true}' ]
	[ "${J[1]}" = \
	    '[["computing",0.1818,1,0,true],["comm_not_overlapped",0.1818,0,1,true],["free",0,0,0,false]]' ]
}

# Slow link: HCCS 20 and 25 GB/s, mean 22.5, (25 - 20) / 22.5 = 0.2222
# fires, slowest rank 0; RDMA 10 and 9.804, mean 9.902, 0.196 / 9.902 =
# 0.0198 does not; the fixture has no links, so no slowest pair. Wait:
# the measured wait (pd.comm wait_us) over 2 steps: r0 468 / 2 = 234, r1
# 38 / 2 = 19 per step; r1 waits least, so the others wait 234 - 19 = 215
# us per step for it, 215 / 1100 = 0.1955 > 0.05. Step skew: both ranks
# average 1100.
@test "pd-profile: slow link, measured wait, stragglers, step skew" {
	run_pd pd-profile <"$PF/two-rank.jsonl"
	jqv pd.profile '.cross_rank.slow_link' \
	    '.cross_rank.wait | [.source,.ranks]' \
	    '.cross_rank.stragglers' \
	    '.cross_rank.step_skew | [.max_us,.min_us,.ratio]'
	[ "${J[0]}" = '[{"transport":"HCCS","max_gb_per_s":25,"min_gb_per_s":20,"mean_gb_per_s":22.5,"ratio":0.2222,"slow_rank":0,"slow_pair":null,"fires":true},{"transport":"RDMA","max_gb_per_s":10,"min_gb_per_s":9.804,"mean_gb_per_s":9.902,"ratio":0.0198,"slow_rank":1,"slow_pair":null,"fires":false}]' ]
	[ "${J[1]}" = '["measured",[{"rank":0,"wait_us_per_step":234},{"rank":1,"wait_us_per_step":19}]]' ]
	[ "${J[2]}" = '[{"rank":1,"method":"measured_wait","last_at":null,"collectives":null,"delay_us":null,"wait_us_per_step":19,"caused_wait_us_per_step":215,"ratio":0.1955}]' ]
	[ "${J[3]}" = '[1100,1100,0]' ]
}

# One rank, input 0.4 of the step (pd.input), free 0.5 -> host overhead
# 0.5 - 0.4 = 0.1 (stalls are counted once); hotspot 0.4 of device time *
# computing 0.5 = 0.2; "ConvolutionBackward0" is a training cue.
@test "pd-profile: one root: domains, workload cue, no cross-rank" {
	run_pd pd-profile <"$PF/one-root-input.jsonl"
	jqv pd.profile '[.domains[] | [.domain,.score]]' \
	    '[.workload,.workload_source,.stack.device,.cross_rank]' \
	    '.confidence'
	[ "${J[0]}" = \
	    '[["compute",0.5],["input_pipeline",0.4],["operator_hotspot",0.2],["host_overhead",0.1],["communication",0],["graph_compile",0],["memory",null]]' ]
	[ "${J[1]}" = '["training","cues","gpu",null]' ]
	# step .3 + hotspot .2 + input .1
	[ "${J[2]}" = 0.6 ]
}

# The same root with no training operator (ConvolutionBackward0 renamed):
# a framework's trace, Kineto or an Ascend msprof dump (no framework named
# but always a framework's), reads as inference; an nsys export may be a
# plain CUDA program (pd_formats any_program), so its workload is unknown.
@test "pd-profile: no training cue is inference unless the format may hold any program" {
	local f
	for f in kineto:'"inference"' msprof:'"inference"' nsys:null; do
		sed -e 's/ConvolutionBackward0/aten::conv2d/' \
		    -e "s/\"format\":\"kineto\"/\"format\":\"${f%%:*}\"/" \
		    "$PF/one-root-input.jsonl" >"$BATS_TEST_TMPDIR/in.jsonl"
		run_pd 0 pd-profile "$BATS_TEST_TMPDIR/in.jsonl"
		[ "$(jqr pd.profile '.workload')" = "${f#*:}" ]
	done
}

# No pd.root: the root forms the null run; pd.context says inference; the
# only evidence is idle 0.6 with 80 % short kernels -> host_launch.
@test "pd-profile: roots without pd.root, workload from pd.context" {
	run_pd pd-profile <"$PF/no-root.jsonl"
	jqv pd.profile '[.run,.roots,.workload,.workload_source]' \
	    '[.symptom,.metric.name,.metric.value]' \
	    '[.domains[0].domain,.domains[0].score,.domains[1].domain,.domains[1].score]' \
	    '.confidence'
	[ "${J[0]}" = '[null,["/x/t.json"],"inference","context"]' ]
	[ "${J[1]}" = '["host_launch","idle_ratio",0.6]' ]
	[ "${J[2]}" = '["host_overhead",0.6,"compute",0.4]' ]
	[ "${J[3]}" = 0.15 ]
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
	jqv '' 'select(.type == "pd.profile") | [.symptom,.metric.name,.metric.value,.stack.device]' \
	    'select(.type == "pd.step") | .step_stats.mean'
	[ "${J[0]}" = '["dataloader_stall","input_ratio",0.8159,"cpu"]' ]
	[ "${J[1]}" = 32402 ]
}

# aligned.jsonl (issue 9 item 1): 3 ranks whose steps start at 0, 300 and
# 400 us of aligned trace time; 4 allreduces, the k-th at B = 500 + 200k:
# r0 starts it at B, r1 at B + 10, r2 at B + 100, all end at B + 150.
# From each rank's own step start r0 looks latest (500 + 200k against
# 210 + 200k and 200 + 200k): the old measure named rank 0. In aligned
# time r2 starts all 4 last; r0 waits 100 and r1 90 at each: 400 and 360
# us per step (1 step); r2 is 90 later than the next-latest, 360 in all;
# the others wait (100 + 90) / 2 = 95 for it at each, 380 per step = 0.38
# of the 1000 us step. Skew 100 us per collective = 0.1 of the step.
@test "pd-profile: stragglers by late start in aligned time, not from each rank's step start" {
	run_pd pd-profile "$PF/aligned.jsonl"
	jqv pd.profile '.cross_rank.stragglers' \
	    '.cross_rank.wait | [.source,[.ranks[].wait_us_per_step]]' \
	    '.cross_rank.collective_skew'
	[ "${J[0]}" = '[{"rank":2,"method":"late_start","last_at":4,"collectives":4,"delay_us":360,"wait_us_per_step":0,"caused_wait_us_per_step":380,"ratio":0.38}]' ]
	[ "${J[1]}" = '["aligned",[400,360,0]]' ]
	[ "${J[2]}" = '{"collectives":4,"unmatched":0,"mean_us":100,"max_us":100,"ratio":0.1}' ]
}

# Two pd.comm records of rank 2 that differ only in their collectives
# (held compact, out of the record): the one whose collectives sort first
# is kept whatever the order. The second starts each allreduce at B + 5
# (ending at B + 150 with the others): it sorts first (start 505000 before
# 600000), so r1 (B + 10) is last at each; r0 waits 10 and r2 5 at each of
# the 4: 40 and 20 us per step; the wait r1 causes, (10 + 5) / 2 x 4 = 30
# us per step, is 0.03 of the step, under the 5 % of a straggler.
@test "pd-profile: of two pd.comm records of a rank, the one whose collectives sort first" {
	jq -c 'select(.type == "pd.comm" and .rank == 2) |
	    .collectives |= map(.start_ns -= 95000 | .dur_us = 145)' \
	    "$PF/aligned.jsonl" >"$BATS_TEST_TMPDIR/dup"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/dup")" -eq 1 ]
	cat "$PF/aligned.jsonl" "$BATS_TEST_TMPDIR/dup" >"$BATS_TEST_TMPDIR/a"
	cat "$BATS_TEST_TMPDIR/dup" "$PF/aligned.jsonl" >"$BATS_TEST_TMPDIR/b"
	for f in a b; do
		run_pd pd-profile "$BATS_TEST_TMPDIR/$f"
		jqv pd.profile '[.cross_rank.wait.ranks[].wait_us_per_step]' \
		    '.cross_rank.stragglers'
		[ "${J[0]}" = '[40,0,20]' ]
		[ "${J[1]}" = '[]' ]
	done
}

# Two pd.step records of rank 1 that differ only in their per-step array
# (held packed, pd_runs_pack): the one whose key-sorted text sorts first
# is kept, whatever the order. The copy's steps take 900 and 1100 us; as
# text "1000" sorts before "900", so two-rank.jsonl's record is kept and
# the pool is its four steps, 1000, 1200, 1000, 1200: mean 1100 (the copy
# kept would give 1050).
@test "pd-profile: of two pd.step records of a rank, the one whose text sorts first" {
	jq -c 'select(.type == "pd.step" and .rank == 1) |
	    .steps |= map(.step_us -= 100)' \
	    "$PF/two-rank.jsonl" >"$BATS_TEST_TMPDIR/dup"
	[ "$(jq -c '[.steps[].step_us]' "$BATS_TEST_TMPDIR/dup")" = '[900,1100]' ]
	cat "$PF/two-rank.jsonl" "$BATS_TEST_TMPDIR/dup" >"$BATS_TEST_TMPDIR/a"
	cat "$BATS_TEST_TMPDIR/dup" "$PF/two-rank.jsonl" >"$BATS_TEST_TMPDIR/b"
	for f in a b; do
		run_pd pd-profile "$BATS_TEST_TMPDIR/$f"
		[ "$(jqr pd.profile '.step | [.n,.mean_us,.min_us,.max_us]')" = '[4,1100,1000,1200]' ]
	done
}

# aligned-drift.jsonl: the same, but rank 1 has one collective of its own
# first (at 300 us, ending at 350), so its sequence numbers are one ahead.
# Its collectives do not end with the others' and are left out: the 4
# allreduces match on r0 and r2 only; r2 is last at each, 100 later than
# r0: 400 us per step caused, 0.4 of the step.
@test "pd-profile: a rank whose sequence drifted is left out of the match" {
	run_pd pd-profile "$PF/aligned-drift.jsonl"
	jqv pd.profile '.cross_rank.stragglers | map([.rank,.last_at,.collectives,.delay_us,.caused_wait_us_per_step])' \
	    '[.cross_rank.wait.ranks[].rank]'
	[ "${J[0]}" = '[[2,4,4,400,400]]' ]
	[ "${J[1]}" = '[0,2]' ]
}

# job.jsonl: one msprof-analyze-style cluster root holding ranks 0-3
# (PP = 2 by pd.step "stage", TP = 2 by pd.comm groups, links on global
# ranks) and a per-rank root of rank 0 with only a pd.hotspot; a stage row
# (scope "stage", no rank) that is not a rank.
@test "pd-profile: the job model: ranks, layout, groups, stages, where each came from" {
	run_pd pd-profile "$PF/job.jsonl"
	jqv pd.profile '[.ranks,.world_size,.job.ranks_text,.job.ranks_missing,.job.layout]' \
	    '.job.stages' \
	    '[.job.groups[] | [.name,.kind,.ranks]]' \
	    '.job.sources | [.world_size,.tp,.pp,.groups,.stages]' \
	    '.job.duplicate_ranks' \
	    '.shares.hotspot_ratio' \
	    '.cross_rank.slow_link[0] | [.slow_rank,.slow_pair]'
	[ "${J[0]}" = '[4,4,"0-3",0,{"dp":null,"tp":2,"pp":2,"ep":null,"cp":null}]' ]
	[ "${J[1]}" = '[{"stage":0,"ranks_text":"0,1","ranks":[0,1]},{"stage":1,"ranks_text":"2,3","ranks":[2,3]}]' ]
	[ "${J[2]}" = '[["pp-a","pp",[0,2]],["pp-b","pp",[1,3]],["tp-a","tp",[0,1]],["tp-b","tp",[2,3]]]' ]
	[ "${J[3]}" = '["trace","pd.comm groups","pd.comm groups","pd.comm groups","pd.step stage"]' ]
	# rank 0 is in both roots: the cluster root (4 ranks) gives its step,
	# the rank's own root the hotspot it lacks
	[ "${J[4]}" = '[{"rank":0,"roots":["/j/cluster_analysis_output","/j/rank0_ascend_pt"],"used":"/j/cluster_analysis_output"}]' ]
	[ "${J[5]}" = 0.5 ]
	# slowest link of RDMA over every rank's links, on global ranks
	[ "${J[6]}" = '[1,{"src":1,"dst":3,"bandwidth_gb_per_s":5}]' ]
}

# job.jsonl, stages: stage 0 (ranks 0, 1) step 1000 = computing 700 +
# comm 200 + free 100, no receive; stage 1 (ranks 2, 3) computing 400 +
# comm 500 + free 100 with 400 of the comm in receive (Bubble). Own time
# 1000 against 1000 - 400 = 600: ratio 1.6667; stage 1 waits 400 of its
# 1000 us step (0.4) for stage 0; the excess 400 is 300 computing + 100
# communication (200 against 500 - 400). The communication domain leaves
# the receive wait out: mean comm share (0.2 + 0.2 + 0.5 + 0.5) / 4 = 0.35
# less bubble (0 + 0 + 0.4 + 0.4) / 4 = 0.2.
@test "pd-profile: the slow pipeline stage is the one the other stages wait for" {
	run_pd pd-profile "$PF/job.jsonl"
	jqv pd.profile '.cross_rank.slow_stage | [.stage,.ranks_text,.busy_us,.fast_stage,.fast_busy_us,.ratio,.wait_us_per_step,.wait_ratio,.impact,.fires]' \
	    '.cross_rank.slow_stage | [.excess_us,.excess_from,.excess_computing_us,.excess_comm_us,.excess_free_us]' \
	    '[.shares.bubble_ratio, (.domains[] | select(.domain == "communication") | [.score,.basis])]'
	[ "${J[0]}" = '[0,"0,1",1000,1,600,1.6667,400,0.4,0.4,true]' ]
	[ "${J[1]}" = '[400,"computing",300,100,0]' ]
	[ "${J[2]}" = '[0.2,[0.15,"shares.comm_not_overlapped_ratio - shares.bubble_ratio"]]' ]
}

# Issue 10 item 19: the records of a root in any order give the same
# profile. The order: one unit per (root, rank); of two records of one
# type for a unit the one whose key-sorted text sorts first.
@test "pd-profile: record order within a root does not change the output" {
	# a second pd.step of rank 0 of the cluster root, different from the first
	{ cat "$PF/job.jsonl"
	  printf '%s\n' '{"type":"pd.step","v":1,"root":"/j/cluster_analysis_output","rank":0,"steps":[{"step":2,"step_us":900}],"totals":{"step_us":900},"shares":{},"step_stats":{"n":1,"mean":900}}'
	} >"$BATS_TEST_TMPDIR/base"
	run_pd pd-profile "$BATS_TEST_TMPDIR/base"
	want=$(jqr pd.profile .)
	[ -n "$want" ]
	tac "$BATS_TEST_TMPDIR/base" >"$BATS_TEST_TMPDIR/s"
	run_pd pd-profile "$BATS_TEST_TMPDIR/s"
	[ "$(jqr pd.profile .)" = "$want" ]
	for seed in 1 2 3 4; do
		shuf --random-source=<(yes $seed) "$BATS_TEST_TMPDIR/base" >"$BATS_TEST_TMPDIR/s"
		run_pd pd-profile "$BATS_TEST_TMPDIR/s"
		[ "$(jqr pd.profile .)" = "$want" ]
	done
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
	jqv pd.profile '[.ranks,.world_size,.workload,.workload_source,.launcher,.stack.framework,.stack.family]' \
	    '[.context_root,.context_sources,.context_conflicts]'
	[ "${J[0]}" = \
	    '[1,8,"training","context","torchrun","torch","pytorch"]' ]
	[ "${J[1]}" = \
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
	jqv pd.profile '[.world_size,.stack.framework,.stack.device,.launcher,.context_sources]' \
	    '.context_conflicts'
	[ "${J[0]}" = \
	    '[16,"torch_npu","npu","torchrun",{"world_size":"trace","workload":"context","stack":"trace","launcher":"context"}]' ]
	[ "${J[1]}" = \
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

# ---- the real corpus (issue 9 items 1, 2, 5) ----

# pta_2rank_level1_text, issue 9 item 2: the wait is HCCL's measured Wait
# Time ('Total Op Info' of communication.json; msprof-analyze's
# cluster_communication.json in ../shared/peers: 5.9406 ms on rank 0,
# 0.1914 ms on rank 1, one step), not communication x wait_ratio (65.4 ms).
# The others wait 5749.2 us for rank 1, 0.0428 of the 134246.813 us mean
# of Computing + Communication(Not Overlapped) + Free (the advisor's basis,
# which finds the job balanced: "There is no slow rank issues"): no
# straggler, and hta.straggler does not fire. The advisor's slow-rank
# ratio for communication is 5604.156 / 134246.8 = 0.0417, not flagged.
@test "corpus pta_2rank_level1_text: measured wait, no straggler on a balanced job" {
	require_corpus
	run_pd pd-profile "$CORPUS/ascend/pta_2rank_level1_text"
	jqv pd.profile '.cross_rank.wait | [.source,.ranks]' \
	    '.cross_rank.stragglers' \
	    '.cross_rank.slow_rank[] | select(.dimension == "comm_not_overlapped") | [.diff_us,.mean_step_us,.ratio,.fires]'
	[ "${J[0]}" = '["measured",[{"rank":0,"wait_us_per_step":5940.619},{"rank":1,"wait_us_per_step":191.384}]]' ]
	[ "${J[1]}" = '[]' ]
	[ "${J[2]}" = '[5604.156,134246.813,0.0417,false]' ]
	run_pd bash -c "pd-profile '$CORPUS/ascend/pta_2rank_level1_text' | pd-classify"
	[ -z "$(jqr pd.bottleneck 'select(.rule == "hta.straggler") | .rule')" ]
}

# msinsight_server_fixtures, issue 9 items 4-5: msprof-analyze's cluster
# output of a 16-rank PP=2 job read as 16 ranks (test_rank_0/1 repeat
# ranks 0 and 1 and are merged into them). Stages from the stage rows:
# 0-7 and 8-15. Slow rank (advisor formula, numbers in ../shared/peers
# README): computing 4943.2 us 0.0146, communication 88476.0 us 0.2620,
# free 29223.9 us 0.0865. Slow stage, from cluster_step_trace_time.csv
# (means over each stage's rank rows, checked with a script): stage 0's
# Stage column 293807.625 us, Bubble 0; stage 1's Stage 200085.130, Bubble
# 181582.526 of a 381667.620 us step (0.4758): stage 1 waits in receive for
# stage 0; 293807.625 / 200085.130 = 1.4684. Stage 0 computes less
# (75514.589 against 79885.012) and communicates more outside receive
# (150583.851 against 34508.467): its excess is communication. (The
# issue's "one stage ~1.7x the other in compute" is not in this file:
# computing differs by 6 %, own time by 1.47x.) Exit 3: pd-sum-mem keeps
# test_rank_1's memory_record.csv rows with Excel timestamps ('1.69512E+15')
# for the peaks only, and the pipeline says so.
@test "corpus msinsight_server_fixtures: 16 ranks, PP=2, the slow stage is named" {
	require_corpus
	run_pd 3 pd-profile "$CORPUS/ascend/msinsight_server_fixtures"
	[[ "$stderr" == *"some input was rejected while diagnosing"* ]]
	jqv pd.profile '[.ranks,.job.ranks_text,.job.layout.pp,[.job.stages[].ranks_text],[.job.duplicate_ranks[].rank]]' \
	    '[.cross_rank.slow_rank[] | [.dimension,.diff_us,.ratio,.fires]]' \
	    '.cross_rank.slow_stage | [.stage,.ranks_text,.busy_us,.fast_stage,.fast_busy_us,.ratio,.wait_us_per_step,.wait_ratio,.excess_from,.fires]' \
	    '.cross_rank.slow_stage | [.computing_us,.comm_us,.other_stages[0].computing_us,.other_stages[0].comm_us]' \
	    '.cross_rank.slow_stage.comm | [.ranks,.top.op_type,.top.us_per_step,.top.wait_us_per_step,.top.wait_share,.slowest.name,.slowest.elapse_us,.slowest.rank]'
	[ "${J[0]}" = '[16,"0-15",2,["0-7","8-15"],[0,1]]' ]
	[ "${J[1]}" = \
	    '[["computing",4943.15,0.0146,false],["comm_not_overlapped",88476.02,0.262,true],["free",29223.92,0.0865,true]]' ]
	[ "${J[2]}" = \
	    '[0,"0-7",293807.625,1,200085.13,1.4684,181582.526,0.4758,"communication",true]' ]
	[ "${J[3]}" = \
	    '[75514.589,150583.851,79885.012,34508.467]' ]
	# The slow stage's own communication, from the two ranks of it that
	# have their own export (test_rank_0, test_rank_1: their
	# communication.json, one step each): allReduce (118434.287 +
	# 118621.960) / 2 = 118528.124 us per step, wait (110252.674 +
	# 110021.540) / 2 = 110137.107 us, 0.9292 of it; the slowest single
	# collective is rank 1's hcom_allReduce__303_0, 102963.82 us. The
	# cluster-wide cluster_communication.json holds three of their ops.
	[ "${J[4]}" = \
	    '[2,"allReduce",118528.124,110137.107,0.9292,"hcom_allReduce__303_0@368314942532213303",102963.82,1]' ]
	run_pd bash -c "pd-profile '$CORPUS/ascend/msinsight_server_fixtures' | pd-classify"
	b=$(jqr pd.bottleneck 'select(.rule == "perfdiag.pp.slow_stage.communication")')
	[[ "$b" == *'pipeline stage 0 (ranks 0-7) is the one the other stages wait for'* ]]
	[[ "$b" == *'allReduce takes 118.53 ms per step on its ranks, 92.9 % of it waiting'* ]]
	[[ "$b" != *'move layers off stage 0'* ]]
}

# hta-sampled-2of128rank, issue 9 item 1: 10 NCCL kernels per rank, matched
# by sequence in aligned time. A blocking collective ends together on both
# ranks; 4 of the 10 do (sequence 2, 4, 8, 9: ends 55, 332, 8 and 189 us
# apart), the 6 others do not (rank 1's first kernel ends with rank 0's
# second). In those 4 rank 1 starts last, by 3302 + 84 + 22328 + 1292 =
# 27006 us over 2 steps = 13503 us per step, 2.2 % of the step: no
# straggler (HTA's late-start list is both ranks of two, no ranking).
@test "corpus hta-sampled-2of128rank: aligned match, unmatched sequences left out, no straggler" {
	require_corpus
	run_pd pd-profile "$CORPUS/pytorch/hta-sampled-2of128rank"
	jqv pd.profile '.cross_rank.collective_skew | [.collectives,.unmatched]' \
	    '.cross_rank.wait | [.source,.ranks]' \
	    '.cross_rank.stragglers' \
	    '[.job.world_size,.job.ranks_seen,.job.ranks_missing]'
	[ "${J[0]}" = '[4,6]' ]
	[ "${J[1]}" = '["aligned",[{"rank":0,"wait_us_per_step":13503},{"rank":1,"wait_us_per_step":0}]]' ]
	[ "${J[2]}" = '[]' ]
	# world size 128 from distributedInfo, 2 ranks seen
	[ "${J[3]}" = '[128,2,126]' ]
}

# One rank of a bigger job (distributedInfo world_size 2 and 16): the job
# model says how many ranks are missing; no cross-rank analysis.
@test "corpus hta-nccl-2rank-a100, hta-queue-length-a100-16rank: world size and missing ranks" {
	require_corpus
	run_pd pd-profile "$CORPUS/pytorch/hta-nccl-2rank-a100"
	[ "$(jqr pd.profile '[.job.world_size,.job.ranks,.job.ranks_missing,.cross_rank]')" = '[2,[0],1,null]' ]
	run_pd pd-profile "$CORPUS/pytorch/hta-queue-length-a100-16rank"
	[ "$(jqr pd.profile '[.job.world_size,.job.ranks,.job.ranks_missing,.cross_rank]')" = '[16,[0],15,null]' ]
}

# Kineto distributedInfo.pg_config reaches the job model through pd.comm
# groups: kinds from the descriptions (Megatron's group names; a combined
# group and default_pg are "unknown"); rank 0 is first in its pp group
# [0, 2]: stage 0; the pp degree is the pp groups' size, 2.
@test "pd-profile: the job model from Kineto distributedInfo pg_config" {
	cat >"$BATS_TEST_TMPDIR/r0.json" <<'JSON'
{"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 4, "pg_count": 4, "pg_config": [
 {"pg_name": "0", "pg_desc": "default_pg", "pg_size": 4, "ranks": [0, 1, 2, 3]},
 {"pg_name": "1", "pg_desc": "TENSOR_MODEL_PARALLEL_GROUP", "pg_size": 2, "ranks": [0, 1]},
 {"pg_name": "2", "pg_desc": "PIPELINE_MODEL_PARALLEL_GROUP", "pg_size": 2, "ranks": [0, 2]},
 {"pg_name": "3", "pg_desc": "TENSOR_AND_DATA_PARALLEL_GROUP", "pg_size": 2, "ranks": [0, 1]}]},
 "traceEvents": [
{"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)", "pid": 0, "tid": 7, "ts": 100, "dur": 100, "args": {"stream": 7}}
]}
JSON
	run_pd bash -c "pd-sum-comm '$BATS_TEST_TMPDIR/r0.json' | pd-profile"
	jqv '' 'select(.type == "pd.comm") | .groups' \
	    'select(.type == "pd.profile") | .job | [.layout, .stages, .sources.tp, .sources.pp]'
	[ "${J[0]}" = '[{"name":"0","kind":"unknown","ranks":[0,1,2,3]},{"name":"1","kind":"tp","ranks":[0,1]},{"name":"2","kind":"pp","ranks":[0,2]},{"name":"3","kind":"unknown","ranks":[0,1]}]' ]
	[ "${J[1]}" = \
	    '[{"dp":null,"tp":2,"pp":2,"ep":null,"cp":null},[{"stage":0,"ranks_text":"0","ranks":[0]}],"pd.comm groups","pd.comm groups"]' ]
}

# hta-nccl-2rank-a100: pg_config has the default group of ranks 0 and 1
# (pg_name "0", pg_desc "default_pg"): its kind is not named.
@test "corpus hta-nccl-2rank-a100: the process group of distributedInfo" {
	require_corpus
	run_pd pd-profile "$CORPUS/pytorch/hta-nccl-2rank-a100"
	[ "$(jqr pd.profile '.job.groups')" = '[{"name":"0","kind":"unknown","ranks":[0,1]}]' ]
}

# ktrace RANK "TS DUR GROUP RANKS"...: a Kineto trace of one rank with a
# 1000 us ProfilerStep and NCCL all-reduce kernels carrying the process
# group args of PyTorch >= 2.3.
ktrace() {
	local r=$1 k
	shift
	{ printf '{"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": %s, "world_size": 3},\n "traceEvents": [\n{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 1000}' "$r"
	  for k in "$@"; do
		set -- $k
		printf ',\n{"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)", "pid": 0, "tid": 7, "ts": %s, "dur": %s, "args": {"stream": 7, "Collective name": "allreduce", "Process Group Name": "%s", "Process Group Ranks": "%s"}}' "$1" "$2" "$3" "$4"
	  done
	  printf '\n]}\n'; } >"$BATS_TEST_TMPDIR/g/r$r.json"
}

# Rank 0 runs all-reduces on group 1 (ranks 0, 1) at 100 and 500 us and one
# on group 2 (ranks 0, 2) at 300 between them; rank 1 only group 1's, at
# 150 and 590, ending with rank 0's (200 and 600). Matched by group, op
# and sequence: rank 1 starts both last, rank 0 waits 50 + 90 = 140 us of
# its 1000 us step for it (0.14). By op type and sequence alone rank 0's
# group-2 all-reduce would be paired with rank 1's second one.
@test "pd-profile: collectives are matched within their process group" {
	mkdir -p "$BATS_TEST_TMPDIR/g"
	ktrace 0 "100 100 1 [0,1]" "300 50 2 [0,2]" "500 100 1 [0,1]"
	ktrace 1 "150 50 1 [0,1]" "590 10 1 [0,1]"
	run_pd bash -c "pd-locate '$BATS_TEST_TMPDIR/g' | pd-sum-step | pd-sum-comm | pd-profile"
	jqv '' 'select(.type == "pd.comm") | select(.rank == 0) | [.collectives[] | [.group,.seq]]' \
	    'select(.type == "pd.profile") | .cross_rank.collective_skew | [.collectives,.unmatched]' \
	    'select(.type == "pd.profile") | .cross_rank.stragglers | map([.rank,.last_at,.caused_wait_us_per_step,.ratio])'
	[ "${J[0]}" = '[["1/[0,1]",0],["2/[0,2]",0],["1/[0,1]",1]]' ]
	[ "${J[1]}" = '[2,0]' ]
	[ "${J[2]}" = '[[1,2,140,0.14]]' ]
}

# Out of memory is exit 5 with one line, never abort's 134 nor a record
# read as "not a JSON object" (exit 3): every allocation, jansson's too,
# goes through pd_oom. An 8 MB record line read under a 100 MB address
# space limit cannot be held. A sanitizer build reserves more address
# space than that at start, so the test needs a plain build.
@test "pd-profile: out of memory is one error line, exit 5" {
	# a million-element array: tens of MB as jansson values, past a
	# 40 MB address space in which the tool itself starts
	(ulimit -v 40000; "$PD_BIN/pd-profile" --version) >/dev/null 2>&1 ||
	    skip "the tools cannot start under a 40 MB address space (sanitizer build)"
	python3 -c 'import sys; sys.stdout.write("{\"type\":\"pd.step\",\"v\":1,\"root\":\"r\",\"rank\":0,\"x\":[" + ",".join(["1"] * 1000000) + "]}\n")' >"$BATS_TEST_TMPDIR/big.jsonl"
	run_pd 5 bash -c "ulimit -v 40000; pd-profile '$BATS_TEST_TMPDIR/big.jsonl'"
	[ "$stderr" = "pd-profile: error: out of memory" ]
}
