#!/usr/bin/env bats
# pd-hotspots: the critical path of a Kineto trace (HTA's
# critical_path_analysis). The fixtures kineto/cp-*.json are written by
# hand; the numbers below are worked out from their events (times in us).
load helper
load ascend-roots

K="$FIX/kineto"
CP=$CORPUS/pytorch/hta-critical-path-a100
PEER=$CORPUS/../peers/hta-0.6.1

# cp FILE: the critical_path object of pd-hotspots on FILE, compact
cp_of() {
	run_pd "${RC:-0}" pd-hotspots "$1"
	printf '%s\n' "$output" | jq -c 'select(.type=="pd.hotspot").critical_path'
}

# cp-basic: op1 [10,30] holds the launch [15,20] of k1 [25,55] (stream 7,
# empty: a launch edge of 25-15 = 10); cudaStreamSynchronize [40,60] waits
# for k1 (its own span weighs 0); op2 [70,80]. Longest path: op1 start ->
# launch start (5, op1's) -> k1 start (10, launch) -> k1 end (30) -> the
# sync's end (0) -> op2 (10): 55 = cpu 15, gpu 30, launch 10. The CPU
# alone would give 5 + 5 + 10 + 0 + 10 = 30. Nodes: 5 events x 2 (the
# Stream Sync row gets none); edges: 1 lock + 6 stack + 3 GPU.
@test "pd-hotspots (critical path): shares by bound, top ops, graph size" {
	got=$(cp_of "$K/cp-basic.json")
	[ "$(jq -c '[.window,.step,.total_us,.nodes,.edges,.path_edges,.sync_events]' <<<"$got")" = '["trace",null,55,10,10,6,1]' ]
	[ "$(jq -c '.bound_us' <<<"$got")" = '{"cpu_bound":15,"data_loading":0,"gpu_compute_bound":30,"gpu_communication_bound":0,"gpu_kernel_kernel_overhead":0,"gpu_kernel_launch_overhead":10}' ]
	# 15/55, 30/55, 10/55
	[ "$(jq -c '.shares|[.cpu_bound,.gpu_compute_bound,.gpu_kernel_launch_overhead]' <<<"$got")" = '[0.2727,0.5455,0.1818]' ]
	[ "$(jq -c '[.top[]|[.name,.type,.bound,.us,.ratio]]' <<<"$got")" = \
	    '[["k1","kernel","gpu_compute_bound",30,0.5455],["aten::op2","cpu_op","cpu_bound",10,0.1818],["aten::op1","cpu_op","cpu_bound",5,0.0909]]' ]
}

# cp-bad = cp-basic plus a kernel without correlation id, a launch at
# [72,74] inside op2 whose kernel is missing, an op with dur -5, and an
# Event Sync on a cudaEventRecord absent from the trace (with its
# cudaEventSynchronize [84,89]). The orphan kernel and the negative op get
# no nodes (14 = 10 + 2 + 2); op2 is split by the launch (8 + 2): the
# same 55.
@test "pd-hotspots (critical path): missing correlations, negative durations, unknown records" {
	got=$(cp_of "$K/cp-bad.json")
	[ "$(jq -c '[.total_us,.nodes,.bound_us.cpu_bound,.bound_us.gpu_compute_bound,.bound_us.gpu_kernel_launch_overhead]' <<<"$got")" = '[55,14,15,30,10]' ]
	[ "$(jq -c '[.top[]|[.name,.us]]' <<<"$got")" = '[["k1",30],["aten::op2",8],["aten::op1",5],["cudaLaunchKernel",2]]' ]
}

# Past PD_CRITPATH_MAX_EVENTS one step is kept, the median by duration: cp-steps is cp-basic (ProfilerStep#1 [0,100], 7
# events) plus ProfilerStep#2 (10 us) and #3 (200 us) with an op each, 11
# events: under a bound of 8, step 1 alone is kept, the same path as
# cp-basic's. Under a bound of 3 even that step does not fit: null.
@test "pd-hotspots (critical path): a trace over the event bound gives one step" {
	export PD_CRITPATH_MAX_EVENTS=8
	got=$(cp_of "$K/cp-steps.json")
	[ "$(jq -c '[.window,.step,.total_us,.nodes]' <<<"$got")" = '["step",1,55,10]' ]
	unset PD_CRITPATH_MAX_EVENTS
	got=$(cp_of "$K/cp-steps.json")
	[ "$(jq -c '[.window,.step,.nodes]' <<<"$got")" = '["trace",null,14]' ]
	export PD_CRITPATH_MAX_EVENTS=3
	got=$(cp_of "$K/cp-steps.json")
	[ "$got" = null ]
	pd-hotspots "$K/cp-steps.json" 2>&1 >/dev/null | grep -qF \
	    'ProfilerStep#1 alone has more than 3 events for the critical path; critical_path is null'
}

# A trace with steps is kept whole up to PD_CRITPATH_STEP_EVENTS (default
# 250000, a quarter of the memory of the bound's 1000000), past it one
# step as above; one without steps whole up to the bound. cp-steps under
# a step bound of 8: step 1 alone, the same as under PD_CRITPATH_MAX_EVENTS
# of 8. Its steps renamed away (no ProfilerStep#N left, 11 events): the
# whole trace under a step bound of 8 too, the path of cp-steps' trace
# window (210 us, 14 nodes: the renamed ranges are annotations as the
# steps were), and null under a bound of 8.
@test "pd-hotspots (critical path): a trace with steps is kept whole up to the step bound" {
	export PD_CRITPATH_STEP_EVENTS=8
	got=$(cp_of "$K/cp-steps.json")
	[ "$(jq -c '[.window,.step,.total_us,.nodes]' <<<"$got")" = '["step",1,55,10]' ]
	sed 's/ProfilerStep#/Step /' "$K/cp-steps.json" >"$BATS_TEST_TMPDIR/nosteps.json"
	! grep -q ProfilerStep "$BATS_TEST_TMPDIR/nosteps.json"
	unset PD_CRITPATH_STEP_EVENTS
	want=$(cp_of "$BATS_TEST_TMPDIR/nosteps.json")
	[ "$(jq -c '[.window,.step,.total_us,.nodes]' <<<"$want")" = '["trace",null,210,14]' ]
	export PD_CRITPATH_STEP_EVENTS=8
	[ "$(cp_of "$BATS_TEST_TMPDIR/nosteps.json")" = "$want" ]
	export PD_CRITPATH_MAX_EVENTS=8
	[ "$(cp_of "$BATS_TEST_TMPDIR/nosteps.json")" = null ]
}

@test "pd-hotspots (critical path): a trace with no CPU op or kernel gives null" {
	printf '{"traceEvents":[{"ph":"X","cat":"user_annotation","name":"x","pid":1,"tid":1,"ts":0,"dur":5}]}\n' >"$BATS_TEST_TMPDIR/t.json"
	[ "$(cp_of "$BATS_TEST_TMPDIR/t.json")" = null ]
}

@test "pd-hotspots (critical path): null for Ascend and nsys roots" {
	run_pd 0 pd-hotspots < <(root_line /r msprof 0 kernel_details=$FIX/pd-hotspots/pmu.csv)
	[ "$(jqr pd.hotspot '[has("critical_path"),.critical_path]')" = '[true,null]' ]
	"$PD_TESTBIN/sqlite-make" "$BATS_TEST_TMPDIR/two.sqlite" <"$FIX/nsys/two-proc.sql"
	run_pd 0 pd-hotspots "$BATS_TEST_TMPDIR/two.sqlite"
	[ "$(jqr pd.hotspot '[has("critical_path"),.critical_path]' | sort -u)" = '[true,null]' ]
}

# HTA 0.6.1 on the same traces (whole trace, rank 0): the time by bound
# type is the sum of the duration column of breakdown_edges.csv per
# bound_by, the graph sizes are meta.json's (n_nodes, n_edges,
# critical_path_len - 1 edges).
hta_bound() {
	awk -F, -v b="$2" 'NR > 1 && $NF == b { s += $2 } END { printf "%d", s }' \
	    "$PEER/critical_path_$1/breakdown_edges.csv"
}

@test "pd-hotspots (critical path): HTA's answer on alexnet and simple_add" {
	require_corpus
	[ -d "$PEER/critical_path_alexnet" ] || skip "peer outputs not found"
	for c in alexnet:alexnet_trace simple_add_trace:simple_add_trace; do
		peer=${c%%:*} trace=${c#*:}
		got=$(cp_of "$CP/$trace.json.gz")
		want=$(printf '[%s,%s,%s,%s]' "$(hta_bound "$peer" cpu_bound)" \
		    "$(hta_bound "$peer" gpu_compute_bound)" \
		    "$(hta_bound "$peer" gpu_kernel_kernel_overhead)" \
		    "$(hta_bound "$peer" gpu_kernel_launch_overhead)")
		[ "$(jq -c '.bound_us|[.cpu_bound,.gpu_compute_bound,.gpu_kernel_kernel_overhead,.gpu_kernel_launch_overhead]' <<<"$got")" = "$want" ]
		m=$PEER/critical_path_$peer/meta.json
		[ "$(jq -c '[.nodes,.edges,.path_edges + 1]' <<<"$got")" = "$(jq -c '[.n_nodes,.n_edges,.critical_path_len]' "$m")" ]
	done
	# summary_pct_by_bound.csv: cpu_bound 99.8586545656529 %
	got=$(cp_of "$CP/alexnet_trace.json.gz")
	[ "$(jq -c '.shares.cpu_bound' <<<"$got")" = 0.9986 ]
	[ "$(jq -c '.top[0]|[.name,.us]' <<<"$got")" = '["cudaDeviceGetStreamPriorityRange",29927381]' ]
}

# event_sync_trace (no peer output; read from the trace): spin_kernel
# [512372,+36] launched by cudaLaunchKernel at 512362 on an empty stream,
# then cudaEventRecord (corr 1533) and cudaEventSynchronize [512382,+34],
# whose Event Sync names record 1533: the kernel's end -> the sync's end.
# The path runs through the launch (10) and the kernel (36).
@test "pd-hotspots (critical path): cudaEventSynchronize waits for the kernel before the record" {
	require_corpus
	got=$(cp_of "$CP/event_sync_trace.json.gz")
	[ "$(jq -c '[.total_us,.bound_us.gpu_compute_bound,.bound_us.gpu_kernel_launch_overhead,.sync_events]' <<<"$got")" = '[2411,36,10,4]' ]
	[ "$(jq -c '[.top[]|select(.type=="kernel")|.name]' <<<"$got")" = '["at::cuda::(anonymous namespace)::spin_kernel(long)"]' ]
}

# event_sync_multi_stream_trace: cudaDeviceSynchronize [368166,+20] waits
# for every stream; the last work is on stream 24: the memset [368034,+1]
# launched by cudaMemsetAsync at 368020 (launch 14; the Stream Wait Event
# on stream 24 waits for the sgemm of stream 20, long done), then the
# sgemm [368050,+123] 15 us after the memset (kernel-kernel gap): gpu
# 1 + 123 = 124.
@test "pd-hotspots (critical path): multi-stream waits and a device sync" {
	require_corpus
	got=$(cp_of "$CP/event_sync_multi_stream_trace.json.gz")
	[ "$(jq -c '.bound_us|[.gpu_compute_bound,.gpu_kernel_kernel_overhead,.gpu_kernel_launch_overhead]' <<<"$got")" = '[124,15,14]' ]
}

# hta-memory-events-v100 (216k events, 50 MB of JSON): the whole trace
# fits under the default bound; with a bound of 50000 events one step is
# kept (ProfilerStep#2, the median of 5 by duration).
@test "pd-hotspots (critical path): a large trace, whole and by step" {
	require_corpus
	F=$CORPUS/pytorch/hta-memory-events-v100/df_index_resolver.json.gz
	got=$(cp_of "$F")
	[ "$(jq -c '[.window,.nodes]' <<<"$got")" = '["trace",225384]' ]
	export PD_CRITPATH_MAX_EVENTS=50000
	got=$(cp_of "$F")
	[ "$(jq -c '[.window,.step]' <<<"$got")" = '["step",2]' ]
	# its events (over 1 MiB coded) went through a temporary file; with
	# none to be made they stay in memory, for the same path
	TMPDIR=$BATS_TEST_TMPDIR/none
	export TMPDIR
	[ "$(cp_of "$F")" = "$got" ]
	unset PD_CRITPATH_MAX_EVENTS
	[ "$(jq -c '[.window,.nodes]' <<<"$(cp_of "$F")")" = '["trace",225384]' ]
}

# cp-ops: aten::outer [10,40] holds aten::inner [12,30], which launches k1
# [20,80] at [14,18] on an empty stream; a launch at [50,54] outside any op
# sends k2 [85,125] (5 us after k1: a kernel-kernel gap, k1's);
# cudaStreamSynchronize [60,130] waits for k2; aten::after [140,150].
# (The ProfilerStep annotation makes no node.) Path: outer 2 -> inner 2 ->
# launch 6 -> k1 60 -> gap 5 -> k2 40 -> sync 0 -> after 10 = 125. By
# operator: inner 2 + 6 + 60 + 5 = 73 (its own span, the launch and kernel
# it launched, the gap after that kernel), after 10, outer 2; k2 was
# launched outside any op: 40 unattributed.
@test "pd-hotspots (critical path): the operators that bound the path" {
	got=$(cp_of "$K/cp-ops.json")
	[ "$(jq -c '[.total_us,.unattributed_us,.operators_rest]' <<<"$got")" = '[125,40,{"count":0,"us":0}]' ]
	[ "$(jq -c '[.operators[]|[.name,.us,.ratio,.bound]]' <<<"$got")" = \
	    '[["aten::inner",73,0.584,"gpu_compute_bound"],["aten::after",10,0.08,"cpu_bound"],["aten::outer",2,0.016,"cpu_bound"]]' ]
	[ "$(jq -c '.operators[0].bound_us' <<<"$got")" = '{"cpu_bound":2,"data_loading":0,"gpu_compute_bound":60,"gpu_communication_bound":0,"gpu_kernel_kernel_overhead":5,"gpu_kernel_launch_overhead":6}' ]
	# the hotspot lists carry the same times: cpu_ops by op, top by kernel
	run_pd pd-hotspots "$K/cp-ops.json"
	[ "$(jqr pd.hotspot '[.cpu_ops[]|[.name,.critical_us,.critical_ratio]]')" = \
	    '[["aten::inner",73,0.584],["aten::outer",2,0.016],["aten::after",10,0.08]]' ]
	[ "$(jqr pd.hotspot '[.top[]|[.name,.critical_us,.critical_ratio]]')" = '[["k1",60,0.48],["k2",40,0.32]]' ]
	# cut at one: the other two are counted in operators_rest
	run_pd pd-hotspots -n 1 "$K/cp-ops.json"
	[ "$(jqr pd.hotspot '.critical_path|[[.operators[].name],.operators_rest]')" = '[["aten::inner"],{"count":2,"us":12}]' ]
	# cp-basic: op1 holds the launch of k1: 5 + 10 + 30; op2 10
	got=$(cp_of "$K/cp-basic.json")
	[ "$(jq -c '[[.operators[]|[.name,.us]],.unattributed_us]' <<<"$got")" = '[[["aten::op1",45],["aten::op2",10]],0]' ]
}

@test "pd-hotspots (critical path): critical_us is null without a path" {
	"$PD_TESTBIN/sqlite-make" "$BATS_TEST_TMPDIR/two.sqlite" <"$FIX/nsys/two-proc.sql"
	run_pd 0 pd-hotspots "$BATS_TEST_TMPDIR/two.sqlite"
	[ "$(jqr pd.hotspot '(.top,.cpu_ops)[]?|[.critical_us,.critical_ratio]' | sort -u)" = '[null,null]' ]
	run_pd 0 pd-hotspots < <(root_line /r msprof 0 kernel_details=$FIX/pd-hotspots/pmu.csv)
	[ "$(jqr pd.hotspot '[.top[]|has("critical_us"),.critical_us]|unique')" = '[null,true]' ]
}

# HTA 0.6.1's path attributed to operators by test/fixtures/pd-hotspots/
# cp-ops.py (its method is described there) against ours without the
# launch delays (the CSV does not say which kernel a launch delay is
# for); all operators (-n 100000), sorted by name. The operators and
# unattributed_us make up total_us, and every operator's share is at most 1.
@test "pd-hotspots (critical path): operators agree with HTA's path on alexnet and simple_add" {
	require_corpus
	[ -d "$PEER/critical_path_alexnet" ] || skip "peer outputs not found"
	command -v python3 >/dev/null || skip "python3 not found"
	for c in alexnet:alexnet_trace simple_add_trace:simple_add_trace; do
		peer=${c%%:*} trace=${c#*:}
		want=$(python3 "$FIX/pd-hotspots/cp-ops.py" "$CP/$trace.json.gz" \
		    "$PEER/critical_path_$peer/breakdown_edges.csv")
		[ "$(printf '%s\n' "$want" | wc -l)" -gt 20 ]
		run_pd 0 pd-hotspots -n 100000 "$CP/$trace.json.gz"
		got=$(jqr pd.hotspot '.critical_path.operators[]|[.name,.us - .bound_us.gpu_kernel_launch_overhead]|select(.[1] > 0)|"\(.[0])\t\(.[1])"' | jq -r . | sort)
		[ "$got" = "$want" ]
		[ "$(jqr pd.hotspot '.critical_path|[.operators_rest.count, ((([.operators[].us]|add) + .unattributed_us) - .total_us|fabs < 0.01), ([.operators[].us]|add) <= .total_us, all(.operators[]; .ratio <= 1)]')" = '[0,true,true,true]' ]
		# cpu_ops carry the same time as operators, by name
		[ "$(jqr pd.hotspot '(.critical_path.operators|map({(.name): .us})|add) as $m|[.cpu_ops[]|.critical_us == ($m[.name] // 0)]|all')" = true ]
	done
}
