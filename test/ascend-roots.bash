# Hand-made pd.root records for the Ascend evidence tools' tests
# (pd-sum-mem, pd-sum-input, pd-hotspots), so a test feeds a tool exactly
# the exports it needs, and a corpus sweep works before pd-locate is done.
ASC=$CORPUS/ascend

# root_line ROOT FORMAT RANK KIND=PATH...: one pd.root record.
root_line() {
	local root=$1 fmt=$2 rank=$3 ex="" sep="" kv
	shift 3
	for kv in "$@"; do
		ex="$ex$sep{\"kind\":\"${kv%%=*}\",\"path\":\"${kv#*=}\",\"bytes\":0}"
		sep=,
	done
	printf '{"type":"pd.root","v":1,"root":"%s","rank":%s,"device":null,"format":"%s","run":"r","score":1,"exports":[%s]}\n' \
	    "$root" "$rank" "$fmt" "$ex"
}

# kind_of FILE: the export kind pd-locate gives a file name (or nothing).
kind_of() {
	case "${1##*/}" in
	kernel_details*.csv) echo kernel_details ;;
	op_summary*.csv) echo op_summary ;;
	op_statistic*.csv) echo op_statistic ;;
	api_statistic*.csv) echo api_statistic ;;
	operator_details*.csv) echo operator_details ;;
	trace_view*.json) echo trace_view ;;
	step_trace_time*.csv) echo step_trace_time ;;
	memory_record*.csv) echo memory_record ;;
	operator_memory*.csv) echo operator_memory ;;
	npu_module_mem*.csv) echo npu_module_mem ;;
	static_op_mem*.csv) echo static_op_mem ;;
	aicore_intermediate_*_detail.csv) echo aicore_intermediate_detail ;;
	aicore_intermediate_*_type.csv) echo aicore_intermediate_type ;;
	aicpu_intermediate_*.csv) echo aicpu_intermediate ;;
	minddata_pipeline_raw_*.csv) echo minddata_pipeline_raw ;;
	pipeline_profiling_*.json) echo pipeline_profiling ;;
	device_queue_profiling_*.txt) echo device_queue_profiling ;;
	dataset_iterator_profiling_*.txt) echo dataset_iterator_profiling ;;
	minddata_aicpu_*.txt) echo minddata_aicpu ;;
	esac
}

# corpus_roots: one pd.root per directory of the Ascend corpus holding
# files of a known kind (until pd-locate is finished).
corpus_roots() {
	local d f k args
	find "$ASC" -type f | sed 's|/[^/]*$||' | sort -u | while read -r d; do
		args=()
		for f in "$d"/*; do
			k=$(kind_of "$f")
			[ -n "$k" ] && args+=("$k=$f")
		done
		[ ${#args[@]} -gt 0 ] && root_line "$d" torch_npu null "${args[@]}"
	done
	return 0
}
