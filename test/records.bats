#!/usr/bin/env bats
# One key set per evidence record type (pd-record(5)): whichever family
# wrote a pd.step, pd.comm, pd.mem, pd.input, pd.gaps or pd.hotspot, it
# has the same keys in the same order, null where the family has no value
# (before, the Ascend and PyTorch records of a type had different keys:
# a key was left out rather than null).
load helper

pipeline() {
	pd-locate "$@" | pd-sum-step -q | pd-sum-comm -q | pd-sum-mem -q |
	    pd-sum-input -q | pd-sum-gaps -q | pd-hotspots -q
}

# keys TYPE: the distinct key lists of the records of TYPE in $output
keys() {
	printf '%s\n' "$output" | jq -c --arg t "$1" 'select(.type == $t) | keys_unsorted' | sort -u
}

@test "records: one key set per type across Ascend text and db, MindSpore, msprof, Kineto, nsys" {
	require_corpus
	C=$CORPUS
	run_pd bash -c "$(declare -f pipeline); pipeline '$C/ascend/pta_2rank_level1_text' \
	    '$C/ascend/pta_2rank_level1_db' '$C/ascend/mindspore_legacy_run2_dataset' \
	    '$C/ascend/msprof_PROF_legacy_2dev' '$C/pytorch/hta-nccl-2rank-a100' \
	    '$C/nsys/pipit-saxpy-mpi-rank0-a100' '$FIX/kineto/sum-autograd.json'"
	for t in pd.step pd.comm pd.mem pd.input pd.gaps pd.hotspot; do
		# every family above wrote one of this type ...
		[ "$(printf '%s\n' "$output" | jq -r --arg t $t 'select(.type == $t) | .source' | sort -u | wc -l)" -ge 2 ]
		# ... and all have one key list, ending in truncated
		[ "$(keys $t | wc -l)" -eq 1 ] || { echo "$t: $(keys $t)" >&2; return 1; }
		[ "$(keys $t | jq -r '.[0:4] + [.[-1]] | join(",")')" = "type,v,root,rank,truncated" ]
	done
}

# Shaping is for the records a tool writes: a record passed on (a
# hand-written pd.comm with an extra key and most listed keys missing,
# through pd-sum-step, which writes no pd.comm) keeps its bytes.
@test "records: records passed through are not reshaped" {
	printf '{"type":"pd.comm","v":1,"root":"/x","rank":0,"extra":1}\n' >"$BATS_TEST_TMPDIR/c.jsonl"
	run_pd 0 pd-sum-step <"$BATS_TEST_TMPDIR/c.jsonl"
	[ "$output" = '{"type":"pd.comm","v":1,"root":"/x","rank":0,"extra":1}' ]
}

# The entries of pd.step steps (and its totals, the same keys but step)
# have one key list whichever family wrote them: before, the Ascend entries
# had no cpu_ops_us.
@test "records: pd.step steps and totals have one key set across families" {
	require_corpus
	C=$CORPUS
	run_pd pd-sum-step -q "$C/ascend/pta_2rank_level1_text" \
	    "$C/ascend/pta_2rank_level1_db" "$C/ascend/mindspore_legacy_run2_dataset" \
	    "$C/ascend/msprof_PROF_legacy_2dev" \
	    "$C/ascend/msinsight_server_fixtures/cluster_analysis_output" \
	    "$C/pytorch/hta-nccl-2rank-a100" "$C/nsys/pipit-saxpy-mpi-rank0-a100" \
	    "$FIX/kineto/sum-autograd.json"
	step() { printf '%s\n' "$output" | jq -c "select(.type == \"pd.step\") | $1" | sort -u; }
	# six sources of both families wrote steps
	[ "$(step .source | wc -l)" -ge 6 ]
	[ "$(step '.steps[] | keys_unsorted' | wc -l)" -eq 1 ]
	[ "$(step '.steps[] | keys_unsorted')" = '["step","step_us","computing_us","comm_not_overlapped_us","overlapped_us","comm_us","free_us","preparing_us","bubble_us","stage_us","memcpy_us","memset_us","busy_us","fp_bp_us","tail_us","cpu_ops_us"]' ]
	[ "$(step '.totals | keys_unsorted')" = "$(step '.steps[] | keys_unsorted | .[1:]')" ]
	[ "$(step '.stages[]? | keys_unsorted')" = '["stage","ranks","totals"]' ]
	[ "$(step '.stages[]?.totals | keys_unsorted')" = "$(step '.totals | keys_unsorted')" ]
	# a family's missing value is null: Ascend has no CPU operator time,
	# the CPU-only autograd trace has it
	[ "$(step 'select(.source == "step_trace_time") | [.steps[].cpu_ops_us] | unique')" = '[null]' ]
	[ "$(step 'select(.path | endswith("sum-autograd.json")) | .totals.cpu_ops_us != null')" = true ]
}

# The entries of pd.comm ops, slowest and links have one key list whichever
# family wrote them: before, the Ascend ops had no mean_us .. small_ratio,
# its slowest calls no op_type and start_ns, and a link had group only when
# its ranks were group-local.
@test "records: pd.comm ops, slowest and links have one key set across families" {
	require_corpus
	C=$CORPUS
	run_pd pd-sum-comm -q "$C/ascend/pta_2rank_level1_text" \
	    "$C/ascend/pta_2rank_level1_db" "$C/ascend/msprof_PROF_legacy_2dev" \
	    "$C/ascend/msinsight_server_fixtures/cluster_analysis_output" \
	    "$C/pytorch/hta-nccl-2rank-a100"
	comm() { printf '%s\n' "$output" | jq -c "select(.type == \"pd.comm\") | $1" | sort -u; }
	# both families wrote operators
	[ "$(comm 'select(.ops | length > 0) | .source | split("+")[0]' | wc -l)" -ge 4 ]
	[ "$(comm '.ops[] | keys_unsorted')" = '["op_type","count","total_us","transit_us","wait_us","sync_us","idle_us","wait_ratio","sync_ratio","bytes","algbw_gb_per_s","mean_us","max_us","sized_count","busbw_gb_per_s","small_count","small_ratio"]' ]
	[ "$(comm '.slowest[] | keys_unsorted')" = '["name","elapse_us","step","op_type","start_ns"]' ]
	[ "$(comm '.links[]? | keys_unsorted')" = '["src","dst","group","transport","bytes","time_us","bandwidth_gb_per_s"]' ]
	# group-local links name their group, global ones have null
	[ "$(comm '.links[]? | .group | type')" = "$(printf '"null"\n"string"')" ]
	# a family's missing value is null: Ascend has no kernel sizes, PyTorch
	# no transit time
	[ "$(comm 'select(.source | startswith("communication")) | [.ops[].sized_count] | unique')" = '[null]' ]
	[ "$(comm 'select(.source == "kineto_trace") | [.ops[].transit_us] | unique')" = '[null]' ]
}

# The entries of pd.input steps have one key list whichever family wrote
# them: before, the Ascend entries had no calls.
@test "records: pd.input steps have one key set across families" {
	require_corpus
	C=$CORPUS
	run_pd pd-sum-input -q "$C/ascend/pta_2rank_level1_text" \
	    "$C/ascend/pta_2rank_level1_db" "$C/ascend/mindspore_legacy_run2_dataset" \
	    "$C/pytorch/hta-nccl-2rank-a100" "$C/nsys/pipit-saxpy-mpi-rank0-a100"
	input() { printf '%s\n' "$output" | jq -c "select(.type == \"pd.input\") | $1" | sort -u; }
	[ "$(input 'select(.steps | length > 0) | .source | split("+")[0]' | wc -l)" -ge 4 ]
	[ "$(input '.steps[] | keys_unsorted')" = '["step","input_us","step_us","input_ratio","preparing_us","calls"]' ]
	# Ascend has no DataLoader calls, the PyTorch steps count them
	[ "$(input 'select(.source | startswith("trace_view")) | [.steps[].calls] | unique')" = '[null]' ]
	[ "$(input 'select(.source == "kineto_trace") | [.steps[].calls | type] | unique')" = '["number"]' ]
}

# The entries of pd.mem devices have one key list whichever family wrote
# them: before, the Ascend entries had no kind .. totals_from_trace and the
# raw memory timeline's none of them but events.
@test "records: pd.mem devices have one key set across families" {
	require_corpus
	C=$CORPUS
	run_pd pd-sum-mem -q "$C/ascend/pta_2rank_level1_text" \
	    "$C/ascend/pta_2rank_level1_db" "$C/pytorch/hta-memory-events-v100" \
	    "$C/pytorch/hta-memory-timeline-raw"
	mem() { printf '%s\n' "$output" | jq -c "select(.type == \"pd.mem\") | $1" | sort -u; }
	[ "$(mem 'select(.devices | length > 0) | .source | split("+")[0]' | wc -l)" -ge 3 ]
	[ "$(mem '.devices[] | keys_unsorted')" = '["device","peak_allocated_bytes","peak_reserved_bytes","peak_active_bytes","peak_time_ns","capacity_bytes","fragmentation_bytes","growth_bytes_per_s","component","app_peak_reserved_bytes","components","fragmentation_ratio","steps","phases","timeline","kind","peak_reserved_time_ns","events","allocs","frees","alloc_bytes","free_bytes","totals_from_trace"]' ]
	# Ascend has no trace event counts, the Kineto trace has them
	[ "$(mem 'select(.source | startswith("memory_record")) | [.devices[].events] | unique')" = '[null]' ]
	[ "$(mem 'select(.source == "kineto_trace") | [.devices[].events | type] | unique')" = '["number"]' ]
}

# The entries of pd.hotspot's lists, and its objects, have one key list
# whichever family wrote them (the lists of pd-record(5)): before, the
# PyTorch top entries had no bound_ratio and its host_api entries no
# level.
@test "records: pd.hotspot list entries have one key set across families" {
	require_corpus
	C=$CORPUS
	run_pd pd-hotspots -q "$C/ascend/pta_2rank_level1_text" \
	    "$C/ascend/pta_2rank_level1_db" "$C/ascend/mindspore_legacy_run2_dataset" \
	    "$C/ascend/msprof_PROF_legacy_2dev" "$C/pytorch/hta-nccl-2rank-a100" \
	    "$C/nsys/pipit-saxpy-mpi-rank0-a100"
	hot() { printf '%s\n' "$output" | jq -c "select(.type == \"pd.hotspot\") | $1" | sort -u; }
	# both families wrote top, by_type, host_api and cpu_ops entries
	[ "$(hot 'select(.top | length > 0) | .source' | wc -l)" -eq 6 ]
	[ "$(hot 'select(.host_api | length > 0) | .source')" = "$(printf '"ascend_pytorch_profiler_db"\n"kernel_details"\n"kineto_trace"\n"nsys_sqlite"')" ]
	[ "$(hot 'select(.cpu_ops | length > 0) | .source')" = "$(printf '"kernel_details"\n"kineto_trace"')" ]
	[ "$(hot '.top[] | keys_unsorted')" = '["name","type","core","count","total_us","mean_us","ratio","bound","bound_ratio","critical_us","critical_ratio"]' ]
	[ "$(hot '.by_type[] | keys_unsorted')" = '["type","count","total_us","ratio"]' ]
	[ "$(hot '.host_api[]? | keys_unsorted')" = '["name","count","total_us","level"]' ]
	[ "$(hot '.cpu_ops[]? | keys_unsorted')" = '["name","count","self_us","critical_us","critical_ratio"]' ]
	[ "$(hot '.by_core[]? | keys_unsorted')" = '["core","total_us","ratio","count"]' ]
	[ "$(hot '.aicpu[]? | keys_unsorted')" = '["name","count","total_us"]' ]
	[ "$(hot '.optimizers[]? | keys_unsorted')" = '["name","class","count","host_total_us","device_total_us"]' ]
	[ "$(hot '.classes | keys_unsorted')" = '["compute_us","comm_us","memcpy_us","memset_us"]' ]
	[ "$(hot '.top_rest | keys_unsorted')" = '["count","total_us"]' ]
	[ "$(hot '.cpu_ops_rest | values | keys_unsorted')" = '["count","self_us"]' ]
	# a family's missing value is null: a trace has no pipe ratios nor API
	# levels, Ascend kernel_details.csv and api_statistic.csv have them
	[ "$(hot 'select(.source | test("kineto|nsys")) | [.top[].bound_ratio, .host_api[].level] | unique')" = '[null]' ]
	[ "$(hot 'select(.source == "kernel_details") | [.top[].bound_ratio, .host_api[].level | type] | unique')" = '["number","string"]' ]
}

# The pd.mem record has one key list whichever reader wrote it: before,
# the raw memory timeline's had categories_at_peak, actions and
# unordered_entries, which the Ascend and Kineto records left out (now
# null there).
@test "records: pd.mem of a raw memory timeline has the keys of the others" {
	require_corpus
	C=$CORPUS
	run_pd pd-sum-mem -q "$C/ascend/pta_2rank_level1_text" \
	    "$C/ascend/pta_2rank_level1_db" "$C/pytorch/hta-memory-events-v100" \
	    "$C/pytorch/hta-memory-timeline-raw"
	mem() { printf '%s\n' "$output" | jq -c "select(.type == \"pd.mem\") | $1" | sort -u; }
	[ "$(mem .source | wc -l)" -eq 4 ]
	[ "$(mem 'keys_unsorted' | wc -l)" -eq 1 ]
	[ "$(mem 'keys_unsorted | .[-4:] | join(",")')" = '"categories_at_peak,actions,unordered_entries,truncated"' ]
	# the raw timeline has them, the others have null
	[ "$(mem 'select(.source == "memory_timeline_raw") | [.categories_at_peak, .actions, .unordered_entries] | map(type)')" = '["array","object","number"]' ]
	[ "$(mem 'select(.source != "memory_timeline_raw") | [.categories_at_peak, .actions, .unordered_entries] | unique')" = '[null]' ]
}

# pd.comm transports, links and alignment are written by the record
# builder (tools/pd-sum-comm/record.c) with one key list each, whichever
# Ascend export was read; a PyTorch trace has none of them (null). The
# key lists were the same before the builder wrote them: this pins them.
@test "records: pd.comm transports, links and alignment have one key set" {
	require_corpus
	C=$CORPUS
	run_pd pd-sum-comm -q "$C/ascend/pta_2rank_level1_text" \
	    "$C/ascend/pta_2rank_level1_db" "$C/ascend/msprof_PROF_legacy_2dev" \
	    "$C/ascend/msinsight_server_fixtures/cluster_analysis_output" \
	    "$C/pytorch/hta-nccl-2rank-a100"
	comm() { printf '%s\n' "$output" | jq -c "select(.type == \"pd.comm\") | $1" | sort -u; }
	# four Ascend sources wrote transports, two an alignment check
	[ "$(comm 'select(.transports | length > 0) | .source' | wc -l)" -ge 4 ]
	[ "$(comm 'select(.alignment.ops | length > 0) | .source' | wc -l)" -eq 2 ]
	[ "$(comm '.transports[]? | keys_unsorted')" = '["transport","bytes","time_us","bandwidth_gb_per_s","small_packet_ratio","ops"]' ]
	[ "$(comm '.links[]? | keys_unsorted')" = '["src","dst","group","transport","bytes","time_us","bandwidth_gb_per_s"]' ]
	[ "$(comm '.alignment | objects | keys_unsorted')" = '["checked_ops","unaligned_ops","sdma_us","unaligned_us","unaligned_ratio","ops"]' ]
	[ "$(comm '.alignment.ops[]? | keys_unsorted')" = '["name","step","bytes","time_us","unaligned_us","bandwidth_gb_per_s"]' ]
	# ranks that are whole numbers are written as numbers
	[ "$(comm '.links[]? | [.src, .dst] | map(type)')" = '["number","number"]' ]
	[ "$(comm 'select(.source == "kineto_trace") | [.transports, .links, .alignment]')" = '[null,null,null]' ]
}

# pd.input slowest_op and pipeline (MindSpore's dataset pipeline) and
# slowest_call (a PyTorch DataLoader) are written by the record builder
# (tools/pd-sum-input/record.c) with one key list each, null in the
# records of a family that has none. The key lists were the same before
# the builder wrote them: this pins them.
@test "records: pd.input slowest_op, pipeline and slowest_call have one key set" {
	require_corpus
	C=$CORPUS
	run_pd pd-sum-input -q "$C/ascend/mindspore_legacy_run2_dataset" \
	    "$C/pytorch/hta-nccl-2rank-a100" "$C/pytorch/param-resnet-rtx2080ti" \
	    "$C/ascend/pta_2rank_level1_text"
	input() { printf '%s\n' "$output" | jq -c "select(.type == \"pd.input\") | $1" | sort -u; }
	[ "$(input '.slowest_op | objects | keys_unsorted')" = '["op_id","op_type","queue_usage_ratio"]' ]
	[ "$(input '.pipeline[]? | keys_unsorted')" = '["op_id","op_type","num_workers","queue_usage_ratio"]' ]
	[ "$(input '.slowest_call | objects | keys_unsorted')" = '["name","dur_us","step","start_ns"]' ]
	# the MindSpore record has the pipeline, not a DataLoader call; the
	# PyTorch one the other way round; torch_npu's neither
	[ "$(input 'select(.source | startswith("step_trace_raw")) | [.slowest_op, .pipeline, .slowest_call] | map(type)')" = '["object","array","null"]' ]
	[ "$(input 'select(.slowest_call != null) | [.source, (.slowest_op | type), (.pipeline | type)]')" = '["kineto_trace","null","null"]' ]
	[ "$(input 'select(.source == "trace_view+step_trace_time") | [.slowest_op, .pipeline, .slowest_call]')" = '[null,null,null]' ]
}

# Over the whole corpus, every object in the records of pd-sum-step,
# pd-sum-comm, pd-sum-mem and pd-sum-input (the record itself, each
# nested object, an array's entries counted as one path) has one key
# list per record type and path, whichever family or export wrote it.
# Before, the raw memory timeline's pd.mem had three keys the other pd.mem
# records left out.
@test "records: one key list per type and nested path over the whole corpus" {
	require_corpus
	C=$CORPUS
	run_pd bash -c "pd-locate '$C'/ascend/* '$C'/pytorch/* '$C'/nsys/* \
	    '$C'/archives/* | pd-sum-step -q | pd-sum-comm -q | pd-sum-mem -q |
	    pd-sum-input -q"
	# [type, path, keys] of every object, once each
	printf '%s\n' "$output" | jq -c 'select(.type | IN("pd.step", "pd.comm",
	    "pd.mem", "pd.input")) | .type as $t | ([[]] + [paths(type == "object")])[] as $p |
	    [$t, ($p | map(if type == "number" then "[]" else . end) | join(".")),
	    (getpath($p) | keys_unsorted)]' | sort -u >"$BATS_TEST_TMPDIR/kl"
	# each type came from several sources, and has nested objects
	for t in pd.step pd.comm pd.mem pd.input; do
		[ "$(printf '%s\n' "$output" | jq -r --arg t $t 'select(.type == $t) | .source' | sort -u | wc -l)" -ge 4 ]
		[ "$(jq -r --arg t $t 'select(.[0] == $t and .[1] != "") | .[1]' "$BATS_TEST_TMPDIR/kl" | sort -u | wc -l)" -ge 4 ]
	done
	dup=$(jq -c '.[0:2]' "$BATS_TEST_TMPDIR/kl" | sort | uniq -d)
	[ -z "$dup" ] || { echo "more than one key list: $dup" >&2; return 1; }
}
