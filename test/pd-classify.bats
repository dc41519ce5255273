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
# overlapped 0.3091 > 0.10; slow rank 0.1818 in computing and comm; HCCS
# slow link 0.2222 * the run's comm share 0.2182 = 0.0485; free 0.1364 >
# 0.10; RDMA small packets 0.5 > 0.2, impact 0.3091 * 0.5 = 0.15455 -> 0.1546.
@test "pd-classify: a two-rank run: every candidate ranked, one dominant" {
	run_pd bash -c "pd-profile '$PF/two-rank.jsonl' | pd-classify"
	[ "$(jqr pd.bottleneck '[.position,.rule,.impact,.root]' | tr '\n' ' ')" = \
	    '[1,"perfdiag.compute_bound",0.7364,"/d/r1_ascend_pt"] [2,"tbprof.comm.not_overlapped",0.3091,"/d/r0_ascend_pt"] [3,"hta.straggler",0.1818,null] [4,"msprof.slow_rank.communication",0.1818,null] [5,"msprof.slow_rank.computing",0.1818,null] [6,"msprof.packet.small_rdma",0.1546,"/d/r0_ascend_pt"] [7,"msprof.overall.free",0.1364,"/d/r0_ascend_pt"] [8,"msprof.slow_link",0.0485,null] ' ]
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

@test "pd-classify: a rules file that is not a mapping, or missing, is exit 4" {
	printf -- '- a\n' >"$BATS_TEST_TMPDIR/top.yaml"
	run_pd 4 pd-classify -r "$BATS_TEST_TMPDIR/top.yaml" </dev/null
	[ "$stderr" = "pd-classify: error: $BATS_TEST_TMPDIR/top.yaml:1:1: expected a mapping with a 'rules' list" ]
	run_pd 4 pd-classify -r /nonexistent.yaml </dev/null
	[ "$stderr" = "pd-classify: error: /nonexistent.yaml: No such file or directory" ]
}
