#!/usr/bin/env bats
# pd-sum-input on PyTorch traces. Fixture numbers are worked out by hand
# (see each comment); corpus numbers were computed once with a python3
# script over the whole trace (json, Decimal ts x 1000 as ns): the
# "enumerate(DataLoader)#...__next__" spans, clipped to the ProfilerStep
# windows or, without steps, to the windows between consecutive calls.
load helper
load contract

KF=$FIX/kineto
PT=$CORPUS/pytorch

@test "pd-sum-input kineto: -h prints usage to stdout" { contract_h pd-sum-input; }
@test "pd-sum-input kineto: bad option is exit 2" { contract_badopt pd-sum-input; }
@test "pd-sum-input kineto: input passes through byte for byte" { contract_passthrough pd-sum-input; }
@test "pd-sum-input kineto: empty input, empty output" { contract_empty pd-sum-input; }
@test "pd-sum-input kineto: missing operand is exit 5" { contract_missing pd-sum-input; }
@test "pd-sum-input kineto: writing to /dev/full is exit 5" {
	contract_devfull pd-sum-input "$KF/sum-kineto.json"
}

# sum-kineto.json: __next__ 150 us in step 10 (1000 us): 0.15; 300.1 us in
# step 11 (1000.5 us): 0.29995 -> 0.3; all: 450.1 / 2000.5 = 0.225, >= 20 %
# -> "highly"; mean 225.05.
@test "pd-sum-input kineto: DataLoader share per step and class" {
	run_pd 0 pd-sum-input "$KF/sum-kineto.json"
	[ "$(jqr pd.input '[.steps[] | [.step,.input_us,.step_us,.input_ratio,.calls]]')" = \
	    '[[10,150,1000,0.15,1],[11,300.1,1000.5,0.3,1]]' ]
	[ "$(jqr pd.input '[.rank,.input_us_mean,.input_ratio,.class,.queue_empty_ratio,.steps_from,.iterator]')" = \
	    '[3,225.05,0.225,"highly",null,"profiler_step","_SingleProcessDataLoaderIter"]' ]
	[ "$(jqr pd.input '[.slowest_op,.dataloader_spans,.slow_dataloader_calls,.steps[0].preparing_us]')" = '[null,2,0,null]' ]
	[ "$(jqr pd.input '.slowest_call | [.name,.dur_us,.step]')" = \
	    '["enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",300.1,11]' ]
}

# 2021 schema, multi-process iterator as an Operator: 60 / 1000 = 6 %.
@test "pd-sum-input kineto: 2021 schema, 5-20 % is moderately" {
	run_pd 0 pd-sum-input "$KF/sum-2021.json"
	[ "$(jqr pd.input '[.input_ratio,.class,.iterator,.first_call_us]')" = \
	    '[0.06,"moderately","_MultiProcessingDataLoaderIter",60]' ]
}

@test "pd-sum-input kineto: no DataLoader calls: null, not 0" {
	run_pd 0 pd-sum-input "$KF/sum-autograd.json"
	[ "$(jqr pd.input '[.steps[0].step,.steps[0].input_us,.steps[0].step_us,.input_ratio,.class,.slowest_call]')" = \
	    '[0,null,500,null,null,null]' ]
}

@test "pd-sum-input kineto: a cut trace is summarized, exit 3" {
	run_pd 3 pd-sum-input "$KF/sum-cut.json"
	[[ "$stderr" == *"sum-cut.json:15: file ends inside an event; summarized the 1 events read before it"* ]]
	[ "$(jqr pd.input '[.truncated,.steps[0].step,.calls]')" = '[true,10,0]' ]
}

# Corpus trace-diff control (rank 3): 6 steps, one multi-process __next__
# each of 67-73 us: 0.09 % of the steps -> "not".
@test "pd-sum-input kineto: corpus multi-process iterator, not input-bound" {
	require_corpus
	run_pd 0 pd-sum-input "$PT/hta-trace-diff/control/control.json.gz"
	[ "$(jqr pd.input '[(.steps|length),.steps[0].step,.steps[0].input_us,.steps[0].step_us,.input_ratio,.class,.calls]')" = \
	    '[6,1009,71,75473,0.0009,"not",6]' ]
}

# Corpus PARAM ResNet: no ProfilerStep, 30 __next__ calls; iterations cut
# at each call, the last to the end of the trace. The first call is the
# 1.94 s worker start-up: 1938874 us of a 4450612 us iteration; overall
# 0.5174 -> "highly". Calls of 10 ms or more: 15 (python3 over the spans).
@test "pd-sum-input kineto: corpus trace without steps is cut at each call" {
	require_corpus
	run_pd 0 pd-sum-input "$PT/param-resnet-rtx2080ti/resnet_kineto.json.gz"
	[ "$(jqr pd.input '[.steps_from,(.steps|length),.steps[0].step,.steps[0].input_us,.steps[0].step_us,.first_call_us,.input_ratio,.class]')" = \
	    '["dataloader",30,null,1938874,4450612,1938874,0.5174,"highly"]' ]
	[ "$(jqr pd.input '[.dataloader_spans,.slow_dataloader_calls]')" = '[30,15]' ]
}

@test "pd-sum-input kineto: every corpus trace gives one pd.input, exit 0" {
	require_corpus
	local f
	for f in $(find "$PT" -name '*.json.gz' ! -name '*.raw.gz' | sort); do
		run_pd 0 pd-sum-input "$f"
		nrec pd.input
		[ "$NREC" -eq 1 ]
	done
}
