#!/usr/bin/env bats
# pd-compare: before/after. The hand-written fixtures in
# test/fixtures/pd-compare/ are generated so the numbers are easy to check
# (see the comments); the end-to-end test uses the recorded pair in
# test/fixtures/pairs/dataloader (a CPU PyTorch job with a slow DataLoader,
# then with two loader workers).
load helper
load contract

CF=$FIX/pd-compare
PAIR=$FIX/pairs/dataloader

@test "pd-compare: -h prints usage to stdout" { contract_h pd-compare; }
@test "pd-compare: bad option is exit 2" { contract_badopt pd-compare; }
@test "pd-compare: input passes through byte for byte" { contract_passthrough pd-compare; }
@test "pd-compare: empty input, empty output" { contract_empty pd-compare; }
@test "pd-compare: missing operand is exit 5" { contract_missing pd-compare; }
@test "pd-compare: writing to /dev/full is exit 5" { contract_devfull pd-compare "$CF/before.jsonl" "$CF/after.jsonl"; }

@test "pd-compare: -b without -a is a usage error" {
	run_pd 2 pd-compare -b "$CF/before.jsonl"
	[[ "$stderr" == usage:* ]]
}

# Steps before 100 102 98 101 99 (mean 100, population sd sqrt(2)), after
# 90 92 88 91 89 (mean 90, sd sqrt(2)): noise = 2 * sqrt(2/5 + 2/5) = 1.789
# (more than the 1 % floor, 1); delta -10 -> improved. Throughput 1e4 ->
# 11111.1111 steps/s, noise 1e4 * 1.789 / 100 = 178.8854. Peak allocated
# +5e6 is within 1 % of 8e8 -> unchanged; reserved -1e8 -> improved.
# Input share 0.4 -> 0.3 on every step (no spread: noise = 0.01) ->
# improved.
@test "pd-compare: per-metric deltas and noise-aware verdicts" {
	run_pd pd-compare -b "$CF/before.jsonl" -a "$CF/after.jsonl"
	jqv pd.comparison '.metrics[0]' \
	    '.metrics[1] | [.metric,.after,.noise,.verdict]' \
	    '[.metrics[] | [.metric,.verdict]]' \
	    '[.verdict,.before.run,.after.run,.before.steps]'
	[ "${J[0]}" = '{"metric":"step_us","before":100,"after":90,"delta":-10,"delta_ratio":-0.1,"noise":1.789,"better":"lower","verdict":"improved","steps_needed":null}' ]
	[ "${J[1]}" = '["steps_per_s",11111.1111,178.8854,"improved"]' ]
	[ "${J[2]}" = \
	    '[["step_us","improved"],["steps_per_s","improved"],["peak_allocated_bytes","unchanged"],["peak_reserved_bytes","improved"],["computing_ratio","unchanged"],["comm_not_overlapped_ratio","unchanged"],["free_ratio","unchanged"],["input_ratio","improved"],["hotspot_ratio","improved"]]' ]
	[ "${J[3]}" = '["improved","b","a",5]' ]
}

# noise.jsonl: 99 101 97 100 98, mean 99: 1 % faster but within 1.789 of
# noise -> unchanged, and so is the run.
@test "pd-compare: two runs within noise are unchanged" {
	run_pd pd-compare "$CF/before.jsonl" "$CF/noise.jsonl"
	[ "$(jqr pd.comparison '[.metrics[0].delta,.metrics[0].verdict,.verdict]')" = '[-1,"unchanged","unchanged"]' ]
}

# spread-*.jsonl: steps 100 110 90 105 95 (mean 100, population variance
# (0+100+100+25+25)/5 = 50) against 97 107 87 102 92 (mean 97, variance
# 50). delta -3 is more than the 1 % floor (1) but within the spread,
# 2 * sqrt(50/5 + 50/5) = 8.944: inconclusive. Steps per run to settle it,
# (z_a + z_b)^2 (sd_b^2 + sd_a^2) / delta^2 with z_a = 2, z_b = 0.8416:
# 2.8416^2 = 8.07469056, * 100 / 9 = 89.7188 -> 90, 85 more than the 5
# each run has. Throughput 1e4 -> 1e6/97 = 10309.2784, noise 8.944 * 1e4
# / 100 = 894.4272: inconclusive too, settled by the same 90 steps.
@test "pd-compare: a change within the per-step noise is inconclusive, with the steps that would settle it" {
	run_pd pd-compare -e "$CF/spread-before.jsonl" "$CF/spread-after.jsonl"
	jqv pd.comparison '.metrics' \
	    '[.verdict,.reason]'
	[ "${J[0]}" = '[{"metric":"step_us","before":100,"after":97,"delta":-3,"delta_ratio":-0.03,"noise":8.944,"better":"lower","verdict":"inconclusive","steps_needed":90},{"metric":"steps_per_s","before":10000,"after":10309.2784,"delta":309.2784,"delta_ratio":0.0309,"noise":894.4272,"better":"higher","verdict":"inconclusive","steps_needed":90}]' ]
	[ "${J[1]}" = '["inconclusive","the step time changed by -3.000 us, more than the 1.000 us that counts but within the per-step noise (8.944 us); about 90 steps per run would settle it (85 more before, 85 more after)"]' ]
	[ "$stderr" = "pd-compare: warning: $CF/spread-after.jsonl: the step time changed by -3.000 us, more than the 1.000 us that counts but within the per-step noise (8.944 us); about 90 steps per run would settle it (85 more before, 85 more after)" ]
	# the other way round it would be a slow-down: still not a regression
	run_pd 0 pd-compare -e -q "$CF/spread-after.jsonl" "$CF/spread-before.jsonl"
	[ "$(jqr pd.comparison '[.verdict,.metrics[0].verdict,.metrics[0].steps_needed]')" = '["inconclusive","inconclusive",90]' ]
	[ -z "$stderr" ]
}

# nodata-*.jsonl: steps on the before side only, pd.mem on the after side
# only; roots-*.jsonl: roots and nothing else. No metric has both values
# and neither side has a pd.hotspot: no_data, not unchanged, and -e does
# not fail it.
@test "pd-compare: nothing comparable is no_data, saying what each side lacks" {
	run_pd 0 pd-compare -e "$CF/nodata-before.jsonl" "$CF/nodata-after.jsonl"
	[ "$(jqr pd.comparison '[.verdict,.reason,[.metrics[].verdict],.ops]')" = '["no_data","nothing both runs have to compare: the before run has pd.step but not pd.mem, pd.input, pd.gaps, pd.hotspot; the after run has pd.mem but not pd.step, pd.input, pd.gaps, pd.hotspot",[null,null,null,null],null]' ]
	[ "$stderr" = "pd-compare: warning: $CF/nodata-after.jsonl: nothing both runs have to compare: the before run has pd.step but not pd.mem, pd.input, pd.gaps, pd.hotspot; the after run has pd.mem but not pd.step, pd.input, pd.gaps, pd.hotspot" ]
	run_pd 0 pd-compare -e "$CF/roots-before.jsonl" "$CF/roots-after.jsonl"
	[ "$(jqr pd.comparison '[.verdict,.reason,.metrics,.ops]')" = '["no_data","nothing both runs have to compare: the before run has none of pd.step, pd.mem, pd.input, pd.gaps, pd.hotspot; the after run has none of pd.step, pd.mem, pd.input, pd.gaps, pd.hotspot",[],null]' ]
}

# Before's dominant: tb.input.highly_bound at 0.4. After: the same rule at
# 0.3 (no longer dominant) -> improved; in noise.jsonl it no longer fires
# (0) -> improved.
@test "pd-compare: did the dominant bottleneck improve" {
	run_pd pd-compare -b "$CF/before.jsonl" -a "$CF/after.jsonl"
	[ "$(jqr pd.comparison '.dominant')" = '{"rule":"tb.input.highly_bound","domain":"input_pipeline","metric":"impact","before":0.4,"after":0.3,"after_rule":"perfdiag.compute_bound","fired_after":true,"verdict":"improved"}' ]
	run_pd pd-compare -b "$CF/before.jsonl" -a "$CF/noise.jsonl"
	[ "$(jqr pd.comparison '.dominant | [.after,.fired_after,.verdict]')" = '[0,false,"improved"]' ]
}

# Before top: A 100, B 50, C 10; after top: A 102, B 80, D 30, cpu_ops
# E 40 (A there is ignored: it is in top). These records do not say what
# their lists left out (no top_rest), so an operator one side does not
# list took at most that side's smallest listed time. A +2 us is within
# 5 % -> unchanged; B +30 -> slower; D only after: before it took at most
# 10 (C), so it grew by at least 20 -> slower, below before's cut; E only
# after, and before's cpu_ops list is empty (nothing cut) -> added; C only
# before, at most 30 after (D): 10 against <= 30 tells nothing ->
# below_cut.
@test "pd-compare: operator diff" {
	run_pd pd-compare -b "$CF/before.jsonl" -a "$CF/after.jsonl"
	[ "$(jqr pd.comparison '.ops')" = '{"added":[{"name":"E","before_count":null,"after_count":1,"before_us":null,"after_us":40,"delta_us":40,"below_cut":null,"max_us":null}],"removed":[],"slower":[{"name":"B","before_count":5,"after_count":5,"before_us":50,"after_us":80,"delta_us":30,"below_cut":null,"max_us":null},{"name":"D","before_count":null,"after_count":3,"before_us":null,"after_us":30,"delta_us":20,"below_cut":"before","max_us":10}],"faster":[],"unchanged":1,"below_cutoff":1,"below_cut":[{"name":"C","before_count":1,"after_count":null,"before_us":10,"after_us":null,"delta_us":null,"below_cut":"after","max_us":30}]}' ]
}

# cut-*.jsonl say what their lists left out. Before: top A 100, B 50, one
# more left out (8 us); cpu_ops X 30, V 25, W 2, none left out. After: top
# A 101, F 60, none left out; cpu_ops X 31, Y 20, two left out (3 us).
# A +1 and X +1 are not more than 1 us -> unchanged (2). B: after's top is
# whole -> removed. Y: before's cpu_ops are whole -> added. F: before it
# took at most min(50, 8) = 8 -> at least +52, slower. V: after at most
# min(20, 3) = 3 -> at least -22, faster. W: 2 against at most 3 ->
# below_cut.
@test "pd-compare: operator diff: absent only when the other side's list is whole" {
	run_pd pd-compare -b "$CF/cut-before.jsonl" -a "$CF/cut-after.jsonl"
	[ "$(jqr pd.comparison '.ops')" = '{"added":[{"name":"Y","before_count":null,"after_count":3,"before_us":null,"after_us":20,"delta_us":20,"below_cut":null,"max_us":null}],"removed":[{"name":"B","before_count":5,"after_count":null,"before_us":50,"after_us":null,"delta_us":-50,"below_cut":null,"max_us":null}],"slower":[{"name":"F","before_count":null,"after_count":6,"before_us":null,"after_us":60,"delta_us":52,"below_cut":"before","max_us":8}],"faster":[{"name":"V","before_count":4,"after_count":null,"before_us":25,"after_us":null,"delta_us":-22,"below_cut":"after","max_us":3}],"unchanged":2,"below_cutoff":1,"below_cut":[{"name":"W","before_count":1,"after_count":null,"before_us":2,"after_us":null,"delta_us":null,"below_cut":"after","max_us":3}]}' ]
	# a side without pd.hotspot: no operator diff at all
	run_pd pd-compare -b "$CF/before.jsonl" -a "$CF/nodata-after.jsonl"
	[ "$(jqr pd.comparison '.ops')" = null ]
}

@test "pd-compare: the after side's records are forwarded, not the before's" {
	run_pd pd-compare -b "$CF/before.jsonl" -a "$CF/after.jsonl"
	diff <(printf '%s\n' "$output" | grep -v pd.comparison) "$CF/after.jsonl"
}

@test "pd-compare: both runs on stdin: first is before" {
	run_pd bash -c "cat '$CF/before.jsonl' '$CF/after.jsonl' | pd-compare"
	diff <(printf '%s\n' "$output" | grep -v pd.comparison) <(cat "$CF/before.jsonl" "$CF/after.jsonl")
	[ "$(jqr pd.comparison '[.before.run,.after.run,.metrics[0].delta,.dominant.verdict]')" = '["b","a",-10,"improved"]' ]
}

@test "pd-compare: -t widens the tolerance" {
	run_pd pd-compare -t 0.2 "$CF/before.jsonl" "$CF/after.jsonl"
	[ "$(jqr pd.comparison '[.metrics[0].noise,.metrics[0].verdict]')" = '[20,"unchanged"]' ]
}

# The recorded pair, diagnosed from the dump dirs. ProfilerStep# durations
# (python over the traces): before 35721 31082 28936 34010 32261 (mean
# 32402), after 19312 9441 14796 8233 5563 (mean 11469). DataLoader
# __next__ spans: 132191 of 162010 us before (0.8159), 13634 of 57345
# after (0.2378): the dominant bottleneck, input, improved but still fires.
@test "pd-compare: the recorded DataLoader pair, end to end" {
	[ -d "$PAIR/before" ] || skip "pair not recorded"
	run_pd pd-compare -b "$PAIR/before" -a "$PAIR/after"
	jqv pd.comparison '.metrics[0] | [.metric,.before,.after,.verdict]' \
	    '.metrics[] | select(.metric == "input_ratio") | [.before,.after,.verdict]' \
	    '.dominant | [.rule,.before,.after,.verdict]' \
	    '.verdict' \
	    '.ops.removed[0].name' \
	    '.ops.added[0].name'
	[ "${J[0]}" = '["step_us",32402,11469,"improved"]' ]
	[ "${J[1]}" = '[0.8159,0.2378,"improved"]' ]
	[ "${J[2]}" = '["tb.input.highly_bound",0.8159,0.2378,"improved"]' ]
	[ "${J[3]}" = '"improved"' ]
	# the in-process loader is gone, the worker-process one came
	[ "${J[4]}" = '"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"' ]
	[ "${J[5]}" = '"enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__"' ]
}

# HTA's trace-diff pair (the same model on an 8-rank A100 job and a 2-rank
# V100 job). ProfilerStep#1009..1014 durations (python over the traces):
# control 75473 76940 76212 76727 78473 81120 (mean 77490.833), test 100298
# 122149 166403 81971 107230 166350 (mean 124066.833): a real slow-down,
# well beyond the per-step noise. The control's dominant bottleneck
# (communication not overlapped, 0.1891) no longer fires on the V100 run.
@test "pd-compare: corpus hta-trace-diff control vs test" {
	require_corpus
	run_pd pd-compare -b "$CORPUS/pytorch/hta-trace-diff/control" -a "$CORPUS/pytorch/hta-trace-diff/test"
	jqv pd.comparison '.metrics[0] | [.metric,.before,.after,.verdict]' \
	    '[.verdict,.dominant.rule,.dominant.fired_after,.dominant.verdict]' \
	    '.ops.faster[] | select(.name == "aten::mm") | [.before_count,.after_count]' \
	    '[(.ops.added|length),(.ops.removed|length),.ops.below_cutoff]' \
	    '[.ops.slower[] | select(.name == "aten::clone") | .below_cut]'
	[ "${J[0]}" = '["step_us",77490.833,124066.833,"regressed"]' ]
	[ "${J[1]}" = '["regressed","tbprof.comm.not_overlapped",false,"improved"]' ]
	# aten::mm: 1092 calls on the control rank, 276 on the test rank
	[ "${J[2]}" = '[1092,276]' ]
	# whole lists (a dump is diagnosed with -n 100000): HTA's ops_diff
	# (peers/hta-0.6.1/trace_diff/ops_diff_all.json) has 32 added, of
	# which cudaDriverGetVersion and cudaGraphLaunch are runtime calls
	# (not diffed here): 30; 138 deleted. aten::clone is "increased" there.
	[ "${J[3]}" = '[30,138,0]' ]
	[ "${J[4]}" = '[null]' ]
}

# The same pair through pd-hotspots' default top 20: aten::clone is out of
# the control's cpu_ops list (it is there with -n 100000, above) but in the
# test's. It used to be called added. Now no operator is added or removed
# (every list is cut), and aten::clone is slower (HTA: increased): the
# control took at most its smallest listed self time, and the delta is at
# least the difference.
@test "pd-compare: corpus hta-trace-diff, top-20 lists: below the cut is not absent" {
	require_corpus
	local d=$BATS_TEST_TMPDIR s
	for s in control test; do
		pd-locate "$CORPUS/pytorch/hta-trace-diff/$s" | pd-hotspots >"$d/$s.jsonl"
	done
	run_pd pd-compare -q "$d/control.jsonl" "$d/test.jsonl"
	[ "$(jqr pd.comparison '[.ops.added,.ops.removed]')" = '[[],[]]' ]
	least=$(jq -c 'select(.type == "pd.hotspot") | .cpu_ops[-1].self_us' "$d/control.jsonl")
	clone=$(jq -c 'select(.type == "pd.hotspot") | .cpu_ops[] | select(.name == "aten::clone") | .self_us' "$d/test.jsonl")
	[ "$(jq -c 'select(.type == "pd.hotspot") | [.cpu_ops[].name] | index("aten::clone")' "$d/control.jsonl")" = null ]
	[ "$(jqr pd.comparison ".ops.slower[] | select(.name == \"aten::clone\") | [.before_us,.after_us,.below_cut,.max_us,.delta_us] == [null,$clone,\"before\",$least,$clone - $least]")" = true ]
}

# -e: before -> after is the 100 -> 90 improvement above; after -> before
# is the same change the other way round, a regression (exit 1).
@test "pd-compare: -e exits 1 on a regression, 0 otherwise" {
	run_pd 0 pd-compare -e "$CF/before.jsonl" "$CF/after.jsonl"
	[ "$(jqr pd.comparison '.verdict')" = '"improved"' ]
	run_pd 1 pd-compare -e -b "$CF/after.jsonl" -a "$CF/before.jsonl"
	[ "$(jqr pd.comparison '.verdict')" = '"regressed"' ]
	run_pd 0 pd-compare -b "$CF/after.jsonl" -a "$CF/before.jsonl"
	run_pd 0 pd-compare -e "$CF/before.jsonl" "$CF/noise.jsonl"
}
