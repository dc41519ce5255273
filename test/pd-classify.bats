#!/usr/bin/env bats
# pd-classify: ranked bottlenecks from the rules in share/rules/default.yaml.
# Fixtures are summary records written by hand; the numbers asserted are
# worked out from them in the comments. The corpus cases (the dominant
# bottleneck of every case and why) are in test/pd-classify-corpus.bats.
load helper
load contract

CF=$FIX/pd-classify
PF=$FIX/pd-profile

@test "pd-classify: -h prints usage to stdout" { contract_h pd-classify; }
@test "pd-classify: bad option is exit 2" { contract_badopt pd-classify; }
@test "pd-classify: input passes through byte for byte" { contract_passthrough pd-classify; }
@test "pd-classify: empty input, empty output" { contract_empty pd-classify; }
@test "pd-classify: missing operand is exit 5" { contract_missing pd-classify; }
@test "pd-classify: writing to /dev/full is exit 5" { contract_devfull pd-classify "$PF/two-rank.jsonl"; }

@test "pd-classify: every default rule cites its source and loads" {
	run_pd pd-classify </dev/null
	[ "$(grep -c '^  - id:' "$TOP/share/rules/default.yaml")" = \
	    "$(grep -c '^    source: "..*"$' "$TOP/share/rules/default.yaml")" ]
}

# handoff.jsonl: computing 8500 / 10000 = 0.85 >= 0.7 (compute-bound, impact
# 0.85); FlashAttentionScore 4250 / 8500 = 0.5 of device time >= 0.3 ->
# operator hotspot, impact 0.5 * 0.85 = 0.425, and the compute-bound finding
# is handed off to operator work. Free 0.1 is not > 0.10; 3 compilations <
# 20. Confidence of position 1: profile 0.5 (step .3 + hotspot .2) * 0.4 +
# margin (0.85 - 0.7) / 0.7 * 0.3 + 1/1 roots * 0.3 = 0.5643.
@test "pd-classify: compute-bound dominated by one operator is handed off" {
	run_pd bash -c "pd-profile '$CF/handoff.jsonl' | pd-classify"
	[ "$(jqr pd.bottleneck '[.rule,.position,.dominant,.severity,.impact,.confidence,.handoff,.operator]' | tr '\n' ' ')" = \
	    '["perfdiag.compute_bound",1,true,"high",0.85,0.5643,"operator","FlashAttentionScore"] ["perfdiag.operator_hotspot",2,false,"high",0.425,0.7,"operator","FlashAttentionScore"] ' ]
	[ "$(jqr pd.bottleneck 'select(.position == 1) | .evidence')" = \
	    '"computing takes 85.0 % of step time; the top operator FlashAttentionScore takes 50.0 % of device time"' ]
	[ "$(jqr pd.bottleneck 'select(.position == 1) | .values')" = \
	    '{"step.shares.computing_ratio":0.85,"hotspot.top[0].ratio":0.5,"hotspot.top[0].name":"FlashAttentionScore"}' ]
	[ "$(jqr pd.bottleneck 'select(.position == 1) | [.root,.rank,.run,.domain,.fired_roots,.checked_roots]')" = \
	    '["/n/r0_ascend_pt",0,"fa","compute",1,1]' ]
	[ "$(jqr pd.bottleneck 'select(.position == 1) | .fix.proposal')" = '"Make the hot operators faster (AMP, fused kernels, aligned shapes)"' ]
}

# two-rank.jsonl (see test/pd-profile.bats): rank 1 computes 0.7364 >= 0.7
# (compute-bound, impact 0.7364, fired on 1 of 2 roots); rank 0's comm not
# overlapped 0.3091 > 0.10; rank 0 waits 215 us per step more than rank 1
# (measured wait), 0.1955 of the step; slow rank 0.1818 in computing and comm; HCCS
# slow link 0.2222 * the run's comm share 0.2182 = 0.0485; free 0.1364 >
# 0.10; RDMA small packets 0.5 > 0.2, impact 0.3091 * 0.5 = 0.15455 -> 0.1546.
@test "pd-classify: a two-rank run: every candidate ranked, one dominant" {
	run_pd bash -c "pd-profile '$PF/two-rank.jsonl' | pd-classify"
	[ "$(jqr pd.bottleneck '[.position,.rule,.impact,.root]' | tr '\n' ' ')" = \
	    '[1,"perfdiag.compute_bound",0.7364,"/d/r1_ascend_pt"] [2,"tbprof.comm.not_overlapped",0.3091,"/d/r0_ascend_pt"] [3,"hta.straggler",0.1955,null] [4,"msprof.slow_rank.communication",0.1818,null] [5,"msprof.slow_rank.computing",0.1818,null] [6,"msprof.packet.small_rdma",0.1546,"/d/r0_ascend_pt"] [7,"msprof.overall.free",0.1364,"/d/r0_ascend_pt"] [8,"msprof.slow_link",0.0485,null] ' ]
	[ "$(jqr pd.bottleneck 'select(.dominant)' | wc -l)" = 1 ]
	[ "$(jqr pd.bottleneck 'select(.rule == "perfdiag.compute_bound") | [.fired_roots,.checked_roots,.handoff]')" = '[1,2,null]' ]
	[ "$(jqr pd.bottleneck 'select(.rule == "msprof.slow_link") | .evidence')" = \
	    '"HCCS bandwidth differs by 22.2 % across ranks (min 20.000 GB/s on rank 0, max 25.000 GB/s)"' ]
}

@test "pd-classify: -e is exit 1 when a rule fires" {
	run_pd 1 bash -c "pd-profile '$PF/two-rank.jsonl' | pd-classify -e"
}

# A root with no summaries: nothing can fire; the one record says so and
# lists what to collect.
@test "pd-classify: a run where nothing fires gets one dominant 'none'" {
	printf '%s\n' '{"type":"pd.root","v":1,"root":"/e","rank":0,"device":0,"format":"torch_npu","run":"empty","score":1,"exports":[]}' >"$BATS_TEST_TMPDIR/in"
	run_pd bash -c "pd-profile '$BATS_TEST_TMPDIR/in' | pd-classify"
	[ "$(jqr pd.bottleneck '[.rule,.position,.dominant,.domain,.impact]')" = '["none",1,true,null,null]' ]
	[[ "$(jqr pd.bottleneck '.validation[0]')" == *"step markers"* ]]
}

# -r replaces a default rule by id: with compute-bound off, rank 0's
# communication (0.3091) is dominant; a site rule joins the ranking.
@test "pd-classify: -r overrides and adds rules" {
	cat >"$BATS_TEST_TMPDIR/site.yaml" <<'YAML'
version: 1
rules:
  - id: perfdiag.compute_bound
    enabled: false
  - id: site.step_jitter
    title: Jittery steps
    domain: host_overhead
    source: "site policy"
    severity: low
    when:
      - { field: step.step_stats.cv, op: ">", value: 0.1 }
    impact: 0.001
    evidence: "step time cv {step.step_stats.cv}<< on {root.format}>><< and {step.nothing}>>"
    fix: { proposal: "pin the clocks" }
YAML
	run_pd bash -c "pd-profile '$PF/two-rank.jsonl' | pd-classify -r '$BATS_TEST_TMPDIR/site.yaml'"
	[ "$(jqr pd.bottleneck 'select(.dominant) | .rule')" = '"tbprof.comm.not_overlapped"' ]
	# cv 0.1286 on both ranks; text in << >> with a missing field is dropped
	[ "$(jqr pd.bottleneck 'select(.rule == "site.step_jitter") | [.position,.severity,.evidence,.fired_roots]')" = \
	    '[8,"low","step time cv 0.1286 on torch_npu",2]' ]
	run_pd bash -c "pd-profile '$PF/two-rank.jsonl' | pd-classify -R -r '$BATS_TEST_TMPDIR/site.yaml'"
	[ "$(jqr pd.bottleneck '.rule')" = '"site.step_jitter"' ]
}

@test "pd-classify: a YAML syntax error is exit 4 with file:line:col" {
	printf 'version: 1\nrules:\n  - id: x\n    title: [unclosed\n' >"$BATS_TEST_TMPDIR/syn.yaml"
	run_pd 4 pd-classify -r "$BATS_TEST_TMPDIR/syn.yaml" <"$PF/two-rank.jsonl"
	[ "$stderr" = "pd-classify: error: $BATS_TEST_TMPDIR/syn.yaml:5:1: did not find expected ',' or ']' while parsing a flow sequence" ]
	[ -z "$output" ]
}

@test "pd-classify: bad rules are exit 4, every problem with file:line:col" {
	cat >"$BATS_TEST_TMPDIR/bad.yaml" <<'YAML'
version: 1
rules:
  - id: site.bad
    title: bad
    domain: gpu
    source: me
    when:
      - { field: step.shares..free_ratio, op: ">", value: 0.1 }
      - { field: steps.x, op: ">", value: 1 }
      - { field: step.x, op: ">", value: high }
      - { field: step.x, op: "=>", value: 1 }
    impact: 2
    evidence: "x {step.x"
    fix: { proposal: p }
    colour: red
  - id: site.short
YAML
	run_pd 4 pd-classify -r "$BATS_TEST_TMPDIR/bad.yaml" </dev/null
	f=$BATS_TEST_TMPDIR/bad.yaml
	[ "$stderr" = "pd-classify: error: $f:5:13: unknown domain 'gpu'
pd-classify: error: $f:8:18: bad field path 'step.shares..free_ratio': empty segment
pd-classify: error: $f:9:18: field 'steps.x' does not start with a record name (step, comm, mem, input, gaps, hotspot, root, profile, context)
pd-classify: error: $f:10:42: '>' compares with a number
pd-classify: error: $f:11:30: 'op' must be one of > >= < <= == != exists absent
pd-classify: error: $f:12:13: a constant 'impact' must be within 0..1
pd-classify: error: $f:13:15: unclosed '{' in evidence
pd-classify: error: $f:15:5: unknown key 'colour' in rule
pd-classify: error: $f:16:5: rule is missing 'title'
pd-classify: error: $f:16:5: rule is missing 'domain'
pd-classify: error: $f:16:5: rule is missing 'when'
pd-classify: error: $f:16:5: rule is missing 'impact'
pd-classify: error: $f:16:5: rule is missing 'evidence'
pd-classify: error: $f:16:5: rule is missing 'source'
pd-classify: error: $f:16:5: rule is missing 'fix'" ]
}

# Every text of a rule (title, evidence, fix, validation, hints) may hold
# {field|fmt} placeholders: an unknown fmt is a rules error, not text that
# reaches the report as is.
@test "pd-classify: a placeholder with an unknown filter is exit 4 with file:line:col" {
	cat >"$BATS_TEST_TMPDIR/filt.yaml" <<'YAML'
version: 1
rules:
  - id: site.filt
    title: "free {step.shares.free_ratio|percent}"
    domain: host_overhead
    source: me
    when:
      - { field: step.shares.free_ratio, op: ">", value: 0.1 }
    impact: [step.shares.free_ratio]
    evidence: "free {step.shares.free_ratio|pct}"
    fix:
      proposal: p
      effect: "down by {step.shares.free_ratio|pcent}"
    hints: ["see {stepx.a}"]
YAML
	run_pd 4 pd-classify -r "$BATS_TEST_TMPDIR/filt.yaml" <"$PF/two-rank.jsonl"
	f=$BATS_TEST_TMPDIR/filt.yaml
	[ "$stderr" = "pd-classify: error: $f:4:12: unknown filter 'percent' in title (pct, us, ms, s, gib, mib, gbps, int)
pd-classify: error: $f:13:15: unknown filter 'pcent' in effect (pct, us, ms, s, gib, mib, gbps, int)
pd-classify: error: $f:14:12: field 'stepx.a' does not start with a record name (step, comm, mem, input, gaps, hotspot, root, profile, context)" ]
	[ -z "$output" ]
}

# no_placeholders: no string anywhere in a pd.bottleneck record still holds
# a {field} or {field|fmt} placeholder (every text of a fired rule is
# rendered the way its evidence is).
no_placeholders() {
	[ "$(jqr pd.bottleneck '.. | strings | select(test("\\{[A-Za-z_][^{}]*\\}"))' | head -3)" = "" ]
	[ "$(jqr pd.bottleneck '.rule' | wc -l)" -gt 0 ]
}

# The fix effect of tb.input.highly_bound quotes the input share: 81.6 %
# (share/examples/demo/README: 81.59 % of step time in data loading).
@test "pd-classify: the texts of a finding are rendered (demo, before)" {
	run_pd pd-classify "$TOP/share/examples/demo/prof/before"
	no_placeholders
	[ "$(jqr pd.bottleneck 'select(.dominant) | .fix.effect')" = \
	    '"step time down by up to the input share (81.6 %); throughput up accordingly"' ]
}

@test "pd-classify: a rules file that is not a mapping, or missing, is exit 4" {
	printf -- '- a\n' >"$BATS_TEST_TMPDIR/top.yaml"
	run_pd 4 pd-classify -r "$BATS_TEST_TMPDIR/top.yaml" </dev/null
	[ "$stderr" = "pd-classify: error: $BATS_TEST_TMPDIR/top.yaml:1:1: expected a mapping with a 'rules' list" ]
	run_pd 4 pd-classify -r /nonexistent.yaml </dev/null
	[ "$stderr" = "pd-classify: error: /nonexistent.yaml: No such file or directory" ]
}

# ---------------------------------------------------------------------------
# The corpus: for every case, the dominant bottleneck and why, with the
# numbers from the files. The pipeline is the real one:
#   pd-locate CASE | pd-sum-step | pd-sum-comm | pd-sum-mem | pd-sum-input
#     | pd-sum-gaps | pd-hotspots | pd-profile | pd-classify
# Numbers marked (awk) were recomputed from the export by hand; the others
# are the evidence tools' summaries of the files (their own tests check
# them against the files), quoted back by the rules.

diagnose() {
	require_corpus
	run_pd bash -c "pd-locate '$CORPUS/$1' | pd-sum-step -q | pd-sum-comm -q \
	    | pd-sum-mem -q | pd-sum-input -q | pd-sum-gaps -q | pd-hotspots -q \
	    | pd-profile | pd-classify"
	# exactly one dominant per run
	[ "$(jqr pd.bottleneck 'select(.dominant) | .run' | sort | uniq -d)" = "" ]
	[ "$(jqr pd.bottleneck 'select(.dominant) | .run' | wc -l)" = \
	    "$(jqr pd.profile '.run' | wc -l)" ]
}

# dominant RUN-SUFFIX: [rule, impact] of the dominant bottleneck of the run
# whose id ends with RUN-SUFFIX.
dominant() {
	jqr pd.bottleneck "select(.dominant and (.run | tostring | endswith(\"$1\"))) | [.rule,.impact]"
}

# step_trace_time.csv rank0 (awk): Computing 8873.756, Communication(Not
# Overlapped) 101963.203, Free 25744.05, Preparing 17902.5 -> step 154483.5
# us; comm not overlapped 101963.203 / 154483.5 = 0.66 > 0.10. Rank 1:
# 96359.047 / 152345.9 = 0.6325. An 8-device allreduce over HCCS of a small
# CNN: the step waits on communication.
@test "pd-classify corpus: pta_2rank_level1_text is communication-bound" {
	diagnose ascend/pta_2rank_level1_text
	no_placeholders
	[ "$(dominant pta_2rank_level1_text)" = '["tbprof.comm.not_overlapped",0.66]' ]
	[ "$(jqr pd.bottleneck 'select(.dominant) | [.rank,.fired_roots,.checked_roots]')" = '[0,2,2]' ]
}

# rank0 step_trace_time.csv (awk): 81515.607 / (8827.473 + 81515.607 +
# 25908.102 + 19358) = 0.6011. Level0: same job, same answer.
@test "pd-classify corpus: pta_1rank_level0_text is communication-bound" {
	diagnose ascend/pta_1rank_level0_text
	[ "$(dominant pta_1rank_level0_text)" = '["tbprof.comm.not_overlapped",0.6011]' ]
}

# (awk) 95962.016 / (8868.24 + 95962.016 + 25032.619 + 17483.75) = 0.6513.
@test "pd-classify corpus: pta_1rank_level2_text is communication-bound" {
	diagnose ascend/pta_1rank_level2_text
	[ "$(dominant pta_1rank_level2_text)" = '["tbprof.comm.not_overlapped",0.6513]' ]
}

# The db export (analysis.db, ascend_pytorch_profiler_*.db) is not read by
# the evidence tools yet: no summary, nothing can fire; the profile says
# what to collect (a text export) and the dominant record is "none".
@test "pd-classify corpus: pta_2rank_level1_db has no evidence: none" {
	diagnose ascend/pta_2rank_level1_db
	[ "$(dominant pta_2rank_level1_db)" = '["none",null]' ]
}

# 16-rank PP=2 job (msprof-analyze output) plus two test ranks (ranks 0
# and 1, which the cluster root leaves to them): the cluster root's first
# rank, rank 2, spends 157525.86 of its 297311.5 us step in communication
# not overlapped (0.5298, its cluster_step_trace_time.csv row);
# pipeline stage 0 (ranks 0-7) is the one stage 1 waits for, 47.6 % of
# stage 1's step in receive (see test/pd-profile.bats): it comes second.
@test "pd-classify corpus: msinsight_server_fixtures is communication-bound" {
	diagnose ascend/msinsight_server_fixtures
	[ "$(dominant msinsight_server_fixtures)" = '["tbprof.comm.not_overlapped",0.5298]' ]
	[ "$(jqr pd.bottleneck 'select(.position == 2) | .rule')" = '"perfdiag.pp.slow_stage"' ]
}

# Legacy PROF timelines (graph mode, MindSpore): no overlap split, but the
# Reduce events of step_trace take 143.52 of 204.05 ms over 10 steps on
# device 1 (0.7033; device 0: 129.47 of 189.95 ms) while FP/BP takes 42.76
# ms: gradient communication dominates.
@test "pd-classify corpus: msprof_PROF_legacy_2dev is communication-bound" {
	diagnose ascend/msprof_PROF_legacy_2dev
	[ "$(dominant msprof_PROF_legacy_2dev)" = '["tbprof.comm.share",0.7033]' ]
}

# One custom MIX_AIC kernel run 3 times: op_summary (awk) 87139.38 +
# 86808.42 + 86846.72 = 260794.52 us, all of device time: operator work.
@test "pd-classify corpus: msprof_cli_cann85_app is one operator, handed off" {
	diagnose ascend/msprof_cli_cann85_app
	no_placeholders
	[ "$(dominant msprof_cli_cann85_app)" = '["perfdiag.operator_hotspot",1]' ]
	[ "$(jqr pd.bottleneck 'select(.dominant) | [.handoff,.operator]')" = '["operator","main_kernel"]' ]
	[[ "$(jqr pd.bottleneck 'select(.dominant) | .evidence')" == *"260.79 ms in 3 calls"* ]]
}

# MindSpore 1.x: the device queue was empty at every step (pd-sum-input,
# device_queue_profiling_1.txt) and the slowest pipeline op, ImageFolderOp,
# has an empty output queue: MindInsight's rule (> 30 % of steps) names the
# host data pipeline. No input time is recorded, so the impact is the rule's
# own threshold, 0.3; InitData on AI CPU (7.91 ms) comes second.
@test "pd-classify corpus: mindspore_legacy_run2_dataset is input-bound" {
	diagnose ascend/mindspore_legacy_run2_dataset
	[ "$(dominant mindspore_legacy_run2_dataset)" = '["mindinsight.device_queue_empty",0.3]' ]
	[ "$(jqr pd.bottleneck 'select(.position == 2) | .rule')" = '"msprof.aicpu"' ]
}

# msprof-analyze's own test resources, four roots in four runs: the
# cluster_analysis_output step (free 990.61 ms, 0.5646 of the step) and the
# timeline_advice trace (free 0.6829, net of 9.4 % input = 0.5893) are
# host-bound; the compute_advice kernel_details is dominated by
# FlashAttentionScoreGrad (30.2 % of device time: operator work); the
# advisor_backend excerpt only has an AI CPU Cast.
@test "pd-classify corpus: mstt_advisor_fixtures, four runs" {
	diagnose ascend/mstt_advisor_fixtures
	[ "$(dominant cluster_analysis_output)" = '' ] # runs are named by dir
	[ "$(jqr pd.bottleneck 'select(.dominant) | [.rule,.impact]' | sort | tr '\n' ' ')" = \
	    '["msprof.aicpu",0.0115] ["msprof.overall.free",0.5646] ["msprof.overall.free",0.5893] ["perfdiag.operator_hotspot",0.302] ' ]
	[ "$(jqr pd.bottleneck 'select(.dominant and .rule == "perfdiag.operator_hotspot") | .handoff')" = '"operator"' ]
}

# HTA critical-path test traces: tiny programs with long host-side pauses;
# the device is free for 99.9 % (alexnet, 43.36 s), 98.1 %, 98.4 % and
# 99.9 % of the traced step.
@test "pd-classify corpus: hta-critical-path-a100 is host-bound" {
	diagnose pytorch/hta-critical-path-a100
	[ "$(dominant alexnet_trace.json.gz)" = '["msprof.overall.free",0.9985]' ]
	[ "$(dominant simple_add_trace.json.gz)" = '["msprof.overall.free",0.9988]' ]
	[ "$(dominant event_sync_trace.json.gz)" = '["msprof.overall.free",0.9838]' ]
	[ "$(dominant event_sync_multi_stream_trace.json.gz)" = '["msprof.overall.free",0.9813]' ]
}

# V100 rank 1 of 2, 5 steps: the device is free 737.11 ms of the steps
# (0.4242) and 53.4 % of 22290 kernels are short: host/launch-bound.
@test "pd-classify corpus: hta-memory-events-v100 is host-bound" {
	diagnose pytorch/hta-memory-events-v100
	[ "$(dominant hta-memory-events-v100#world_size=2)" = '["msprof.overall.free",0.4242]' ]
	[ "$(jqr pd.bottleneck 'select(.position == 2) | .rule')" = '"msprof.small_ops.launch"' ]
}

# export_memory_timeline_raw output, not a trace: no peak ratio without the
# device capacity, no step: nothing fires.
@test "pd-classify corpus: hta-memory-timeline-raw has no step evidence: none" {
	diagnose pytorch/hta-memory-timeline-raw
	[ "$(dominant memory_timeline.raw.gz)" = '["none",null]' ]
}

# Five format variants: the ns-resolution V100 trace computes 96.5 % of its
# step (compute-bound); MI250 and Triton examples idle (98.4 %, 100 %); the
# CPU-only gloo rank and the CUPTI counter trace have no device step
# breakdown: none.
@test "pd-classify corpus: hta-misc-format-variants" {
	diagnose pytorch/hta-misc-format-variants
	[ "$(dominant world_size=1)" = '["perfdiag.compute_bound",0.9652]' ]
	[ "$(dominant mi250_minitoy_train_ROCm6_2_kineto.json.gz)" = '["msprof.overall.free",0.984]' ]
	[ "$(dominant triton_example.json.gz)" = '["msprof.overall.free",1]' ]
	[ "$(dominant world_size=300)" = '["none",null]' ]
	[ "$(dominant cupti_profiler_counters_trace.json.gz)" = '["none",null]' ]
}

# A100 rank 0 of 2, 3 steps: free 509.61 ms (0.7639), 55 % short kernels.
@test "pd-classify corpus: hta-nccl-2rank-a100 is host-bound" {
	diagnose pytorch/hta-nccl-2rank-a100
	[ "$(dominant hta-nccl-2rank-a100#world_size=2)" = '["msprof.overall.free",0.7639]' ]
}

# rank 0 of 16, 5 steps: free 692.60 ms (0.6449).
@test "pd-classify corpus: hta-queue-length-a100-16rank is host-bound" {
	diagnose pytorch/hta-queue-length-a100-16rank
	[ "$(dominant hta-queue-length-a100-16rank#world_size=16)" = '["msprof.overall.free",0.6449]' ]
}

# ranks 0 and 1 of 128, 2 steps: rank 0 free 682.58 ms (0.5548).
@test "pd-classify corpus: hta-sampled-2of128rank is host-bound" {
	diagnose pytorch/hta-sampled-2of128rank
	[ "$(dominant hta-sampled-2of128rank#world_size=128)" = '["msprof.overall.free",0.5548]' ]
	[ "$(jqr pd.profile '.ranks')" = 2 ]
}

# Same model, two machines: control (A100, 8 ranks) exposes 87.92 ms of
# communication over 6 steps (0.1891 of the step); test (V100, 2 ranks)
# computes 73.5 % of its step.
@test "pd-classify corpus: hta-trace-diff control vs test" {
	diagnose pytorch/hta-trace-diff
	[ "$(dominant control#world_size=8)" = '["tbprof.comm.not_overlapped",0.1891]' ]
	[ "$(dominant test#world_size=2)" = '["perfdiag.compute_bound",0.7353]' ]
}

# No ProfilerStep: 30 DataLoader __next__ calls take 51.7 % of the traced
# time (the first one is the 1.94 s worker start-up stall); the device is
# free 70.7 %, of which the input explains 51.7 points.
@test "pd-classify corpus: param-resnet-rtx2080ti is input-bound" {
	diagnose pytorch/param-resnet-rtx2080ti
	no_placeholders
	[ "$(dominant resnet_kineto.json.gz)" = '["tb.input.highly_bound",0.5174]' ]
	# 30 __next__ spans sum 8204993 us (awk over pd.input steps) = 273.50
	# ms per call; the first, 1938874 us, is the worker start-up (reference
	# pytorch-kineto-hta.md: 1.94 s). Without it input is still 6266119 /
	# 11407304 = 54.9 % of the time: input-bound in steady state too.
	[ "$(jqr pd.bottleneck 'select(.dominant) | .evidence')" = \
	    '"data loading takes 51.7 % of step time (273.50 ms per step); the first of 30 _MultiProcessingDataLoaderIter calls takes 1938.87 ms"' ]
	[ "$(jqr pd.bottleneck 'select(.position == 2) | [.rule,.impact]')" = '["msprof.overall.free",0.1899]' ]
	# pd.step totals: free 11438230 of 16172052 us (one "step": the trace
	# has no ProfilerStep); pd.gaps launch: p90 delay 81450.2 us (>= 10 ms
	# reads in ms), 9984 delayed launches.
	[ "$(jqr pd.bottleneck 'select(.position == 2) | .evidence')" = \
	    '"the device is free (no compute, no communication) for 70.7 % of step time (11438.23 ms of 16172.05 ms)"' ]
	[ "$(jqr pd.bottleneck 'select(.rule == "hta.launch_delay") | .evidence')" = \
	    '"90 % of kernels start within 81.45 ms of their launch (9984 launches delayed)"' ]
}

# Single-H100 inference: Qwen computes 91.3 % of its step (bf16 GEMMs on
# top); timesformer and bert-small leave the device free 58.6 % and 93.0 %.
@test "pd-classify corpus: tracelens-h100-inference" {
	diagnose pytorch/tracelens-h100-inference
	no_placeholders
	[ "$(dominant Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz)" = '["perfdiag.compute_bound",0.9135]' ]
	[ "$(dominant facebook_timesformer-base-finetuned-k400__1016002.json.gz)" = '["msprof.overall.free",0.5858]' ]
	[ "$(dominant gaunernst_bert-small-uncased__1016001.json.gz)" = '["msprof.overall.free",0.9301]' ]
	[ "$(jqr pd.profile 'select(.run | endswith("1016005.json.gz")) | .workload')" = '"inference"' ]
}

# A dump dir operand: evidence tools and pd-profile run first.
@test "pd-classify: a dump directory operand is diagnosed" {
	run_pd pd-classify "$TOP/share/examples/demo/prof/before"
	[ "$(jqr pd.bottleneck 'select(.dominant) | [.rule,.impact]')" = '["tb.input.highly_bound",0.8159]' ]
	[ "$(jqr pd.profile '.symptom')" = '"dataloader_stall"' ]
}

# memory.jsonl: peak reserved 76e9 of 80e9 = 0.95 > 0.90 (torch-tb-profiler)
# -> impact 0.95 * 0.1 = 0.095 (memory rarely costs step time by itself).
@test "pd-classify: peak memory near capacity" {
	run_pd bash -c "pd-profile '$CF/memory.jsonl' | pd-classify"
	[ "$(jqr pd.bottleneck '[.rule,.domain,.impact,.severity,.evidence]')" = \
	    '["tbprof.memory.peak","memory",0.095,"high","peak memory is 95.0 % of capacity (70.78 GiB reserved, 65.19 GiB allocated of 74.51 GiB)"]' ]
	[ "$(jqr pd.profile '[.symptom,.domains[0].domain,.domains[0].score]')" = '["memory","memory",0.95]' ]
}

# Records with every value of the wrong type: read as "no value", never a
# crash; nothing fires.
@test "pd-profile and pd-classify: summaries with wrong types are no evidence" {
	run_pd bash -c "pd-profile '$CF/garbage.jsonl' | pd-classify"
	[ "$(jqr pd.bottleneck 'select(.rule) | [.run,.rule]' | tr '\n' ' ')" = '[null,"none"] ["r2","none"] ' ]
}
