#!/usr/bin/env bats
# pd-locate over every case of the real corpus ($CORPUS/ascend and
# $CORPUS/pytorch): per case, the roots it must report with their format,
# rank and device. The tables come from each case's MANIFEST.md and files;
# the comment above each row says where its rank and device come from
# (checked by hand: jq / python over the files, see the notes).
#
# Rank is never taken from a device id: several rows below have a device
# and no rank (mindspore_legacy, msprof_cli, mi250, triton, bert), one has
# rank 34 and no device (CPU-only gloo), and rank != device where both
# are known is covered by the fixture tree in pd-locate.bats.
load helper

# check CASE: run pd-locate on $CORPUS/CASE and compare
# "root-relative-to-case format rank device" lines (stdin) with its output.
check() {
	local dir want got
	dir=$(cd "$CORPUS/$1" && pwd -P)	# roots are real paths
	want=$(grep -v '^#' | sed '/^$/d')
	run_pd 0 pd-locate "$dir"
	[ -z "$stderr" ]
	got=$(printf '%s\n' "$output" | jq -r --arg d "$dir/" \
	    'select(.type == "pd.root") | [(.root | ltrimstr($d)), .format,
	    (.rank // "null" | tostring), (.device // "null" | tostring)] | join(" ")')
	if [ "$got" != "$want" ]; then
		diff <(echo "$want") <(echo "$got") >&2 || true
		return 1
	fi
	# every export path is absolute, inside its root, and bytes = stat size
	printf '%s\n' "$output" | jq -r '.exports[] | "\(.path) \(.bytes)"' |
	while read -r p b; do
		[[ "$p" == /* ]]
		[ "$(stat -c %s "$p")" -eq "$b" ]
	done
}

# ---- ascend ----

@test "corpus-locate: ascend/mindspore_legacy_run2_dataset" {
	require_corpus
	check ascend/mindspore_legacy_run2_dataset <<'EOF'
# device 1 from the {dev} of step_trace_raw_1_detail_time.csv etc.; the
# legacy files carry no rank (step_trace_point_info.json has only
# fp_start/bp_end): rank null. extra_minddata_pipeline/ (only
# minddata_pipeline_raw_{0..3}.csv test variants) is not a profiler dir.
profiler mindspore_legacy null 1
EOF
}

@test "corpus-locate: ascend/msinsight_server_fixtures" {
	require_corpus
	check ascend/msinsight_server_fixtures <<'EOF'
# msprof-analyze output of a 16-rank job: one root, no single rank
cluster_analysis_output cluster_analysis null null
# test_rank_N: torch_npu layout without the _ascend_pt suffix (a dir that
# holds ASCEND_PROFILER_OUTPUT/ is a torch_npu root); rank from
# profiler_info_N.json "rank_id" (int 0 / 1); device from the first row of
# npu_module_mem.csv / memory_record.csv ("NPU:0" / "NPU:1").
# communication_group/, metadata/, test_kernel_parse/ are loose files.
test_rank_0 torch_npu 0 0
test_rank_1 torch_npu 1 1
EOF
}

@test "corpus-locate: ascend/msprof_PROF_legacy_2dev" {
	require_corpus
	check ascend/msprof_PROF_legacy_2dev <<'EOF'
# device_{0,1}/timeline/*.json (CANN 6.3 layout); rank from
# device_N/info.json.N "rank_id" (0 and 1), device from the device_N dir
PROF_000001_20230818142704322_COJGGGCANRMICFBC msprof_legacy 0 0
PROF_000001_20230818142704567_GQFAMHBKGODKJMLA msprof_legacy 1 1
EOF
	# both PROF dirs are one run: the dir that holds them
	[ "$(printf '%s\n' "$output" | jq -r .run | sort -u)" = \
	    "$(cd "$CORPUS/ascend/msprof_PROF_legacy_2dev" && pwd -P)" ]
}

@test "corpus-locate: ascend/msprof_cli_cann85_app" {
	require_corpus
	check ascend/msprof_cli_cann85_app <<'EOF'
# mindstudio_profiler_output/ only: no device_N/info.json.N, so no rank;
# device 0 from the Device_id column of op_summary_20260605161737.csv
PROF_000001_20260605161708478_FRJKORBPFMHQMGLA msprof null 0
EOF
	[ "$(printf '%s\n' "$output" | jq -c '[.exports[].kind]')" = \
	    '["api_statistic","op_statistic","op_summary","task_time"]' ]
}

@test "corpus-locate: ascend/mstt_advisor_fixtures" {
	require_corpus
	check ascend/mstt_advisor_fixtures <<'EOF'
# cluster_step_trace_time.csv + cluster_communication.json
test/resource/advisor/cluster_analysis_output cluster_analysis null null
# loose copies of ASCEND_PROFILER_OUTPUT files (kernel_details.csv,
# trace_view.json) directly in a dir: flat torch_npu roots, no
# profiler_info: rank and device unknown. test/resource/test.csv is no
# export name.
test/ut/advisor/advisor_backend/compute_advice torch_npu null null
test/ut/advisor/compute_advice/data torch_npu null null
test/ut/advisor/timeline_advice torch_npu null null
EOF
}

@test "corpus-locate: ascend/pta_1rank_level0_text" {
	require_corpus
	check ascend/pta_1rank_level0_text <<'EOF'
# profiler_info_0.json "rank_id": 0; memory_record.csv "NPU:0"
rank0_ascend_pt torch_npu 0 0
EOF
	# Level0: no communication.json / api_statistic / op_statistic
	[ "$(printf '%s\n' "$output" | jq -c '[.exports[].kind]')" = \
	    '["kernel_details","l2_cache","memory_record","npu_module_mem","operator_details","operator_memory","step_trace_time","trace_view","profiler_info","profiler_metadata"]' ]
}

@test "corpus-locate: ascend/pta_1rank_level2_text" {
	require_corpus
	check ascend/pta_1rank_level2_text <<'EOF'
# profiler_info_0.json "rank_id": 0; memory_record.csv "NPU:0"
rank0_ascend_pt torch_npu 0 0
EOF
}

@test "corpus-locate: ascend/pta_2rank_level1_db" {
	require_corpus
	check ascend/pta_2rank_level1_db <<'EOF'
# profiler_info_N.json "rank_id" 0 / 1 (also ascend_pytorch_profiler_N.db);
# device: the one RANK_DEVICE_MAP row of ascend_pytorch_profiler_N.db
rank0_ascend_pt torch_npu 0 0
rank1_ascend_pt torch_npu 1 1
EOF
	[ "$(printf '%s\n' "$output" | jq -c '[.exports[].kind]' | sort -u)" = \
	    '["analysis_db","ascend_pytorch_profiler_db","profiler_info"]' ]
	# the environment, from META_DATA's ENV_VARIABLES, is the one the
	# text export of the same job keeps in profiler_metadata.json
	local db text
	db=$(printf '%s\n' "$output" | jq -c '[.rank,.env]')
	text=$(pd-locate "$CORPUS/ascend/pta_2rank_level1_text" | jq -c '[.rank,.env]')
	[ "$db" = "$text" ]
	[ "$(printf '%s\n' "$output" | jq '.env|length' | sort -u)" != 0 ]
}

@test "corpus-locate: ascend/pta_2rank_level1_text" {
	require_corpus
	check ascend/pta_2rank_level1_text <<'EOF'
# profiler_info_N.json "rank_id" 0 / 1; memory_record.csv "NPU:0" / "NPU:1"
rank0_ascend_pt torch_npu 0 0
rank1_ascend_pt torch_npu 1 1
EOF
	# one run: the dir holding both rank dirs
	[ "$(printf '%s\n' "$output" | jq -r .run | sort -u)" = \
	    "$(cd "$CORPUS/ascend/pta_2rank_level1_text" && pwd -P)" ]
	# 14 exports per rank, each kind once
	[ "$(printf '%s\n' "$output" | jq '.exports | length' | sort -u)" = 14 ]
}

# ---- pytorch ----
# Kineto: rank = distributedInfo.rank among the top-level keys before
# traceEvents; device = args.device of the first kernel/memcpy/memset in the
# first 4 MiB of event text (offsets below measured with python over the
# inflated JSON), else null.

@test "corpus-locate: pytorch/hta-critical-path-a100" {
	require_corpus
	check pytorch/hta-critical-path-a100 <<'EOF'
# distributedInfo {"rank": 0} without world_size (so each file is its own
# run); first kernel at event 373 / 18 / 11 / 373, args.device 0
alexnet_trace.json.gz kineto 0 0
event_sync_multi_stream_trace.json.gz kineto 0 0
event_sync_trace.json.gz kineto 0 0
simple_add_trace.json.gz kineto 0 0
EOF
}

@test "corpus-locate: pytorch/hta-memory-events-v100" {
	require_corpus
	check pytorch/hta-memory-events-v100 <<'EOF'
# distributedInfo rank 1 / world 2; first kernel ~17 MiB in: device null
df_index_resolver.json.gz kineto 1 null
EOF
}

@test "corpus-locate: pytorch/hta-memory-timeline-raw" {
	require_corpus
	check pytorch/hta-memory-timeline-raw <<'EOF'
# export_memory_timeline_raw output: [[ts, action, bytes, category], ...]
memory_timeline.raw.gz kineto null null
EOF
	[ "$(printf '%s\n' "$output" | jq -c '[.exports[].kind]')" = '["memory_timeline_raw"]' ]
}

@test "corpus-locate: pytorch/hta-misc-format-variants" {
	require_corpus
	check pytorch/hta-misc-format-variants <<'EOF'
# distributedInfo comes after traceEvents here (rewritten file): not read;
# cuda_profiler_range events only, no kernel: device null
cupti_profiler_counters_trace.json.gz kineto null null
# no distributedInfo; ROCm kernels on args.device 2 (event 123): device 2,
# rank unknown (not guessed from the device)
mi250_minitoy_train_ROCm6_2_kineto.json.gz kineto null 2
# distributedInfo rank 0 / world 1; first kernel ~4.4 MiB in: device null
rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz kineto 0 null
# distributedInfo rank 34 / world 300, gloo, CPU only: no device
rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz kineto 34 null
# no distributedInfo; Triton kernel at event 4 on device 0
triton_example.json.gz kineto null 0
EOF
}

@test "corpus-locate: pytorch/hta-nccl-2rank-a100" {
	require_corpus
	check pytorch/hta-nccl-2rank-a100 <<'EOF'
# distributedInfo rank 0 / world 2; first kernel ~3 MiB in, device 0
nccl_data.json.gz kineto 0 0
EOF
	[ "$(printf '%s\n' "$output" | jq -c '[.world_size, (.run|endswith("#world_size=2"))]')" = \
	    '[2,true]' ]
}

@test "corpus-locate: pytorch/hta-queue-length-a100-16rank" {
	require_corpus
	check pytorch/hta-queue-length-a100-16rank <<'EOF'
# distributedInfo rank 0 / world 16; first kernel ~6 MiB in: device null
rank0.json.gz kineto 0 null
EOF
}

@test "corpus-locate: pytorch/hta-sampled-2of128rank" {
	require_corpus
	check pytorch/hta-sampled-2of128rank <<'EOF'
# distributedInfo rank 0 and 1 of world 128; kernels on devices 0 and 1
sampled_rank-0.json.gz kineto 0 0
sampled_rank-1.json.gz kineto 1 1
EOF
	# both ranks of the 128-rank job are one run
	[ "$(printf '%s\n' "$output" | jq -r .run | sort -u)" = \
	    "$(cd "$CORPUS/pytorch/hta-sampled-2of128rank" && pwd -P)#world_size=128" ]
}

@test "corpus-locate: pytorch/hta-trace-diff" {
	require_corpus
	check pytorch/hta-trace-diff <<'EOF'
# control: rank 3 of world 8 (A100); test: rank 1 of world 2 (V100);
# first kernels 10-14 MiB in: devices null. Two runs (two dirs, two jobs).
control/control.json.gz kineto 3 null
test/test.json.gz kineto 1 null
EOF
	[ "$(printf '%s\n' "$output" | jq -r .run | sort -u | wc -l)" -eq 2 ]
}

@test "corpus-locate: pytorch/param-resnet-rtx2080ti" {
	require_corpus
	check pytorch/param-resnet-rtx2080ti <<'EOF'
# single GPU, no distributedInfo; first kernel ~7 MiB in
resnet_kineto.json.gz kineto null null
EOF
}

@test "corpus-locate: pytorch/tracelens-h100-inference" {
	require_corpus
	check pytorch/tracelens-h100-inference <<'EOF'
# single-GPU inference, no distributedInfo ("metadata" key first, then
# traceEvents); first kernels ~3.2 and ~11 MiB in (null), 0.5 MiB in bert
Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz kineto null null
facebook_timesformer-base-finetuned-k400__1016002.json.gz kineto null null
gaunernst_bert-small-uncased__1016001.json.gz kineto null 0
EOF
}

@test "corpus-locate: the whole corpus in one call: 38 roots, nothing unread" {
	require_corpus
	run_pd 0 pd-locate "$CORPUS/ascend" "$CORPUS/pytorch"
	[ -z "$stderr" ]
	# 17 ascend roots (the tables above) + 21 pytorch roots
	[ "$(jqr pd.root .root | wc -l)" -eq 38 ]
	[ "$(jqr pd.root .root | sort -u | wc -l)" -eq 38 ]
}

# ---- archives ----

# archives/two-jobs-ascend-pta-and-kineto (its MANIFEST.md): the same two
# jobs as a .tar.gz and a .zip, member order differing. Inside: the
# torch_npu export of ascend/pta_2rank_level1_text (ranks 0 and 1 from
# profiler_info_0/1.json, devices from memory_record.csv, as for the
# original above) and the Kineto trace of pytorch/hta-nccl-2rank-a100
# (distributedInfo rank 0 of world size 2, device 0). Each root has the exports of
# its corpus original, and each member the size of the original file.
@test "corpus-locate: archives/two-jobs-ascend-pta-and-kineto (.tar.gz and .zip)" {
	require_corpus
	local a f want
	a=$(cd "$CORPUS/archives/two-jobs-ascend-pta-and-kineto" && pwd -P)
	want='ascend-pta-resnet-2rank/rank0_ascend_pt torch_npu 0 0
ascend-pta-resnet-2rank/rank1_ascend_pt torch_npu 1 1
pytorch-hta-nccl-rank0-of-2/nccl_data.json.gz kineto 0 0 2'
	for f in two_jobs.tar.gz two_jobs.zip; do
		run_pd 0 pd-locate "$a/$f"
		[ -z "$stderr" ]
		[ "$(printf '%s\n' "$output" | jq -r --arg d "$a/$f//" \
		    'select(.type == "pd.root") | [(.root | ltrimstr($d)), .format,
		    (.rank // "null" | tostring), (.device // "null" | tostring),
		    (.world_size // empty | tostring)] | join(" ")')" = "$want" ]
		[ "$(jqr pd.root .archive | sort -u)" = "\"$a/$f\"" ]
		# the exports and their sizes are the originals'
		[ "$(printf '%s\n' "$output" | jq -r --arg d "$a/$f//ascend-pta-resnet-2rank/" \
		    'select(.type == "pd.root") | .exports[] | "\(.path | ltrimstr($d)) \(.bytes)"' | grep -v '^/' | sort)" = \
		    "$(cd "$CORPUS/ascend/pta_2rank_level1_text" && find . -type f -printf '%P %s\n' | sort)" ]
	done
}
