#!/usr/bin/env bats
# pd-hotspots on Ascend roots. pd.root lines are written by hand (root_line)
# so each test feeds the tool exactly the exports it needs. Numbers checked
# by hand: python3's csv module over the named file (the kernel tables have
# quoted shapes with commas, so plain awk -F, does not split them right).
load helper
load contract
load ascend-roots

HF=$FIX/pd-hotspots
R2=$ASC/pta_2rank_level1_text/rank0_ascend_pt
O2=$R2/ASCEND_PROFILER_OUTPUT

@test "pd-hotspots: -h prints usage to stdout" { contract_h pd-hotspots; }
@test "pd-hotspots: bad option is exit 2" { contract_badopt pd-hotspots; }
@test "pd-hotspots: input passes through byte for byte" { contract_passthrough pd-hotspots; }
@test "pd-hotspots: empty input, empty output" { contract_empty pd-hotspots; }
@test "pd-hotspots: missing operand is exit 5" { contract_missing pd-hotspots; }
@test "pd-hotspots: writing to /dev/full is exit 5" {
	root_line /r torch_npu 0 kernel_details=$HF/pmu.csv >"$BATS_TEST_TMPDIR/in"
	contract_devfull pd-hotspots <"$BATS_TEST_TMPDIR/in"
}

# pmu.csv (hand-made; Block Num header, CRLF header, TAB-suffixed and quoted
# times): mm_a 100 + 300 us, mac ratio (0.9*100 + 0.85*300)/400 = 0.8625
# >= 0.8 -> cube; add_b vec 0.82 -> vector; idx_c AI_CPU with N/A PMU ->
# bound null; set_d MemSet, all-zero PMU -> null; the COMMUNICATION row
# (1000 us) is kept out: total 400 + 50 + 10 + 5 = 465; short (< 20 us):
# idx_c, set_d = 2 of 5.
@test "pd-hotspots: top ops, pipe bound, AI CPU, communication kept out" {
	run_pd 0 pd-hotspots < <(root_line /r msprof 0 kernel_details=$HF/pmu.csv)
	[ "$(printf '%s\n' "$output" | jq -r .type | tr '\n' ' ')" = "pd.root pd.hotspot " ]
	jqv pd.hotspot '[.source,.total_us,.kernels,.short_ops,.short_ratio]' \
	    '[.top[] | [.name,.count,.total_us,.mean_us,.ratio,.bound,.bound_ratio]]' \
	    '.aicpu' \
	    '[.by_core[] | [.core,.total_us]]' \
	    '.classes'
	[ "${J[0]}" = '["kernel_details",465,5,2,0.4]' ]
	[ "${J[1]}" = \
	    '[["mm_a",2,400,200,0.8602,"cube",0.8625],["add_b",1,50,50,0.1075,"vector",0.82],["idx_c",1,10,10,0.0215,null,null],["set_d",1,5,5,0.0108,null,null]]' ]
	[ "${J[2]}" = '[{"name":"idx_c","count":1,"total_us":10}]' ]
	[ "${J[3]}" = '[["AI_CORE",400],["AI_VECTOR_CORE",55],["AI_CPU",10]]' ]
	[ "${J[4]}" = '{"compute_us":460,"comm_us":1000,"memcpy_us":0,"memset_us":5}' ]
}

# -n 1: mm_a listed; add_b 50, idx_c 10, set_d 5 left out (3, 65 us). No
# operator_details: no cpu_ops, so nothing to say of their cut.
@test "pd-hotspots: -n limits the top list" {
	run_pd 0 pd-hotspots -n 1 < <(root_line /r msprof 0 kernel_details=$HF/pmu.csv)
	jqv pd.hotspot '[(.top | length), (.by_type | length)]' \
	    '[.top_rest,.cpu_ops_rest]'
	[ "${J[0]}" = '[1,4]' ]
	[ "${J[1]}" = '[{"count":3,"total_us":65},null]' ]
}

# -p: a pattern file naming add_b's kernel makes it communication: 465 -
# 50 = 415 us of operators, 1000 + 50 us of communication.
@test "pd-hotspots: -p patterns mark more kernels as communication" {
	printf '# extra\nadd_*\n' >"$BATS_TEST_TMPDIR/pat"
	run_pd 0 pd-hotspots -p "$BATS_TEST_TMPDIR/pat" < <(root_line /r msprof 0 kernel_details=$HF/pmu.csv)
	[ "$(jqr pd.hotspot '[.total_us,.classes.comm_us,.kernels]')" = '[415,1050,4]' ]
}

# Checked with python3 csv over rank0's kernel_details.csv: 187 non-HCCL
# rows summing to 8873.737 us, 4 HCCL rows summing to 105991.876 us, 103
# rows under 20 us; aclnnForeachAddListV2 3 rows 1959.079 us, duration-
# weighted max(aic_mte2_ratio, aiv_mte2_ratio) 0.9796; MemSet 157.32 us,
# TensorMove 573.79 us. api_statistic.csv: aclopCompileAndExecute count 19;
# trace_view.json: 191 Node@launch events, 2 of them directly followed (in
# time order) by an AscendCL@aclrtSynchronizeStream* call: 2 / 191.
@test "pd-hotspots: the 2-rank case, rank 0" {
	require_corpus
	run_pd 0 pd-hotspots < <(root_line $R2 torch_npu 0 kernel_details=$O2/kernel_details.csv \
	    api_statistic=$O2/api_statistic.csv operator_details=$O2/operator_details.csv trace_view=$O2/trace_view.json)
	jqv pd.hotspot '[.total_us,.kernels,.short_ops,.classes.comm_us,.classes.memset_us,.classes.memcpy_us]' \
	    '.top[0] | [.name,.count,.total_us,.bound,.bound_ratio]' \
	    '.host_checks' \
	    '.host_api[0] | [.name,.count]' \
	    '.cpu_ops[0].name' \
	    '(.classes.comm_us / (.classes.comm_us + .total_us) * 100 | floor)'
	[ "${J[0]}" = '[8873.737,187,103,105991.876,157.32,573.79]' ]
	[ "${J[1]}" = '["aclnnForeachAddListV2_ForeachAddListV2_ForeachAddList",3,1959.079,"mte2",0.9796]' ]
	# the two syncs right after a Node@launch: pd-sum-gaps counts the same
	[ "${J[2]}" = '{"compile_execute_count":19,"launches":191,"sync_after_launch":2,"sync_after_launch_ratio":0.0105}' ]
	[ "${J[3]}" = '["aclrtSynchronizeStreamWithTimeout",7]' ]
	[ "${J[4]}" = '"aten::_local_scalar_dense"' ]
	# communication is 105991.876 / (105991.876 + 8873.737) = 92 % of device op time
	[ "${J[5]}" = 92 ]
}

# pta_2rank_level1_db (export_type=db): no kernel_details.csv, so the device
# tasks of ascend_pytorch_profiler_0.db. Figures from python3's sqlite3 on
# that file, J = TASK t JOIN COMPUTE_TASK_INFO c ON c.globalTaskId =
# t.globalTaskId, names (n, o, k for name, opType, taskType) joined from
# STRING_IDS, d = t.endNs - t.startNs:
#  select count(*), sum(d), sum(d < 20000) from J     -> 187|8903431|102
#  by k.value: AI_VECTOR_CORE 149|5803593, AI_CORE 23|2859096,
#    MIX_AIV 13|235282, DSA_SQE 2|5460
#  sum(d) where o.value like '%memset%'               -> 149841
#  ... like '%tensormove%' (or memcpy / memcopy)      -> 584114
#  select count(*), sum(endNs - startNs) from COMMUNICATION_OP -> 4|102108100
#  n.value = aclnnForeachAddListV2_...: 3 rows, sum(d) 1947618, duration-
#    weighted max(aic_mte2_ratio, aiv_mte2_ratio) of TASK_PMU_INFO 0.98040
#  CANN_API (name from STRING_IDS, level from ENUM_API_TYPE):
#    aclopCompileAndExecute 19 rows; node "launch" 191 rows, 2 of them
#    directly followed, by startNs, by an aclrtSynchronizeStream* call
# The text export of a similar run (the test above) has 187 compute rows,
# 8873.737 us, 103 short, ForeachAddList first with mte2 0.9796.
@test "pd-hotspots corpus: pta_2rank_level1_db from the profiler db" {
	require_corpus
	run_pd 0 sh -c 'pd-locate "$1" | pd-hotspots' sh "$ASC/pta_2rank_level1_db/rank0_ascend_pt"
	[ -z "$stderr" ]
	jqv pd.hotspot '[.source,.total_us,.kernels,.short_ops,.classes]' \
	    '[.by_core[] | [.core,.count,.total_us]]' \
	    '.top[0] | [.name,.type,.core,.count,.total_us,.bound,.bound_ratio]' \
	    '.host_checks' \
	    '[.aicpu,.op_state,.optimizers,.cpu_ops,.skipped_rows,.truncated]'
	[ "${J[0]}" = \
	    '["ascend_pytorch_profiler_db",8903.431,187,102,{"compute_us":8169.476,"comm_us":102108.1,"memcpy_us":584.114,"memset_us":149.841}]' ]
	[ "${J[1]}" = \
	    '[["AI_VECTOR_CORE",149,5803.593],["AI_CORE",23,2859.096],["MIX_AIV",13,235.282],["DSA_SQE",2,5.46]]' ]
	[ "${J[2]}" = \
	    '["aclnnForeachAddListV2_ForeachAddListV2_ForeachAddList","ForeachAddList","AI_VECTOR_CORE",3,1947.618,"mte2",0.9804]' ]
	[ "${J[3]}" = '{"compile_execute_count":19,"launches":191,"sync_after_launch":2,"sync_after_launch_ratio":0.0105}' ]
	[ "${J[4]}" = '[[],null,null,null,0,false]' ]
	# the same keys as from the text export, at every level
	shape='[keys, (.top[0] | keys), (.by_type[0] | keys), (.by_core[0] | keys), (.host_api[0] | keys), (.classes | keys), (.host_checks | keys), (.top_rest | keys)]'
	db=$(jqr pd.hotspot "$shape")
	run_pd 0 pd-hotspots < <(root_line $R2 torch_npu 0 kernel_details=$O2/kernel_details.csv \
	    api_statistic=$O2/api_statistic.csv trace_view=$O2/trace_view.json)
	[ "$(jqr pd.hotspot "$shape")" = "$db" ]
}

# A profiler db written here with python3's sqlite3. Tasks: mm 100 us
# (AI_CORE, mac ratio 0.9 -> cube), an AI_CPU task of 10 us with times as
# text, a MemSet of 5 us, a row whose end is before its start and one with
# no end (both skipped, said once each table), a task without
# COMPUTE_TASK_INFO (not an operator, as kernel_details has none); one
# collective of 1000 us. No CANN_API: host_api and host_checks null.
@test "pd-hotspots: the profiler db: operators, bad rows, missing tables" {
	local d=$BATS_TEST_TMPDIR
	python3 - "$d/p.db" "$d/none.db" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY, value TEXT)")
c.executemany("INSERT INTO STRING_IDS VALUES (?,?)", [(1, "mm"), (2, "MatMul"), (3, "AI_CORE"),
    (4, "idx"), (5, "Index"), (6, "AI_CPU"), (7, "ms"), (8, "MemSet"), (9, "aic_mac_ratio")])
c.execute("CREATE TABLE TASK (startNs INTEGER, endNs INTEGER, deviceId INTEGER, connectionId INTEGER, globalTaskId INTEGER, globalPid INTEGER, taskType INTEGER, contextId INTEGER, streamId INTEGER, taskId INTEGER, modelId INTEGER)")
c.executemany("INSERT INTO TASK (startNs, endNs, globalTaskId) VALUES (?,?,?)", [
    (1000000, 1100000, 1), ("2000000", "2010000", 2), (3000000, 3005000, 3),
    (4000000, 3999000, 4), (5000000, None, 5), (6000000, 9000000, 6)])
c.execute("CREATE TABLE COMPUTE_TASK_INFO (name INTEGER, globalTaskId INTEGER PRIMARY KEY, blockDim INTEGER, mixBlockDim INTEGER, taskType INTEGER, opType INTEGER)")
c.executemany("INSERT INTO COMPUTE_TASK_INFO (name, globalTaskId, taskType, opType) VALUES (?,?,?,?)", [
    (1, 1, 3, 2), (4, 2, 6, 5), (7, 3, 3, 8), (1, 4, 3, 2), (1, 5, 3, 2)])
c.execute("CREATE TABLE TASK_PMU_INFO (globalTaskId INTEGER, name INTEGER, value NUMERIC)")
c.execute("INSERT INTO TASK_PMU_INFO VALUES (1, 9, 0.9)")
c.execute("CREATE TABLE COMMUNICATION_OP (opName INTEGER, startNs INTEGER, endNs INTEGER)")
c.execute("INSERT INTO COMMUNICATION_OP VALUES (1, 1000000, 2000000)")
c.commit(); c.close()
sqlite3.connect(sys.argv[2]).execute("CREATE TABLE STRING_IDS (id, value)").connection.close()
PY
	sum=$(sha256sum "$d/p.db")
	run_pd 3 pd-hotspots < <(root_line /r torch_npu 0 ascend_pytorch_profiler_db=$d/p.db)
	[ "$stderr" = "pd-hotspots: warning: $d/p.db: TASK: 2 rows with no start or end, or an end before the start skipped" ]
	jqv pd.hotspot '[.source,.total_us,.kernels,.short_ops,.skipped_rows,.classes]' \
	    '[.top[] | [.name,.type,.core,.total_us,.bound,.bound_ratio]]' \
	    '.aicpu' \
	    '[.host_api,.host_checks.launches,.host_checks.compile_execute_count]'
	[ "${J[0]}" = \
	    '["ascend_pytorch_profiler_db",115,3,2,2,{"compute_us":110,"comm_us":1000,"memcpy_us":0,"memset_us":5}]' ]
	[ "${J[1]}" = \
	    '[["mm","MatMul","AI_CORE",100,"cube",0.9],["idx","Index","AI_CPU",10,null,null],["ms","MemSet","AI_CORE",5,null,null]]' ]
	[ "${J[2]}" = '[{"name":"idx","count":1,"total_us":10}]' ]
	[ "${J[3]}" = '[null,null,null]' ]
	# opened read-only: the file is unchanged, no journal beside it
	[ "$(sha256sum "$d/p.db")" = "$sum" ]
	[ -z "$(ls "$d" | grep -E 'journal|wal|shm')" ]
	# no task tables: said, no pd.hotspot
	run_pd 3 pd-hotspots < <(root_line /r torch_npu 0 ascend_pytorch_profiler_db=$d/none.db)
	[ "$stderr" = "pd-hotspots: warning: $d/none.db: no TASK, COMPUTE_TASK_INFO or STRING_IDS table: no device operators in this db" ]
	[ -z "$(jqr pd.hotspot .)" ]
	# a kernel table beside it is read instead of the db
	run_pd 0 pd-hotspots < <(root_line /r torch_npu 0 kernel_details=$HF/pmu.csv ascend_pytorch_profiler_db=$d/p.db)
	[ "$(jqr pd.hotspot .source)" = '"kernel_details"' ]
	# not a database: said, nothing else
	printf 'not sqlite\n' >"$d/bad.db"
	run_pd 3 pd-hotspots < <(root_line /r torch_npu 0 ascend_pytorch_profiler_db=$d/bad.db)
	[ -z "$(jqr pd.hotspot .)" ]
}

# op_statistic.csv must agree with the per-kernel table aggregated by type,
# on every corpus case that has both. Tolerance per type: 0.001 us x count
# + 0.002 us. Why: kernel_details / op_summary print each duration rounded
# to 1 ns (error <= 0.0005 us per kernel), op_statistic prints its total
# rounded to 1 ns (<= 0.0005), and pd-hotspots rounds both totals to 3
# decimals (<= 0.0005 each). Observed worst case: 0.007 us on 57 TransData
# kernels. op_statistic has no communication rows; neither does by_type.
@test "pd-hotspots: op_statistic totals match the kernel table by type" {
	require_corpus
	local n=0 k s kt st a b
	for k in $(find "$ASC" -name 'kernel_details.csv' -o -name 'op_summary_*.csv' | sort); do
		s=$(ls "${k%/*}"/op_statistic*.csv 2>/dev/null | head -1)
		[ -n "$s" ] || continue
		kt=$(kind_of "$k")
		run_pd 0 pd-hotspots < <(root_line /k torch_npu 0 "$kt=$k")
		a=$(jqr pd.hotspot '[.by_type[] | {type, count, total_us}] | sort_by(.type)')
		run_pd 0 pd-hotspots < <(root_line /s torch_npu 0 "op_statistic=$s")
		b=$(jqr pd.hotspot '[.by_type[] | {type, count, total_us}] | sort_by(.type)')
		jq -n --argjson a "$a" --argjson b "$b" -e '
		    ($a | length) == ($b | length) and ($a | length) > 0 and
		    ([range($a | length) | . as $i | $a[$i].type == $b[$i].type and
		      $a[$i].count == $b[$i].count and
		      (($a[$i].total_us - $b[$i].total_us) | fabs) <= 0.001 * $a[$i].count + 0.002] | all)' \
		    || { echo "mismatch: $k vs $s" >&2; echo "$a" >&2; echo "$b" >&2; return 1; }
		n=$((n + 1))
	done
	# pta_1rank_level2, pta_2rank rank0 and rank1, msprof_cli_cann85_app
	[ "$n" -eq 4 ]
}

# Level0 header: no Type / core information (N/A), no PMU columns.
@test "pd-hotspots: Level0 kernel_details header" {
	require_corpus
	local o=$ASC/pta_1rank_level0_text/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT
	run_pd 0 pd-hotspots < <(root_line /l torch_npu 0 kernel_details=$o/kernel_details.csv)
	jqv pd.hotspot '[.top[0].core, .top[0].bound, .by_core[0].core]' \
	    '.kernels'
	[ "${J[0]}" = '["N/A",null,"N/A"]' ]
	# python3 csv: 191 rows, 4 of them hcom_* (communication)
	[ "${J[1]}" = 187 ]
	# Level0 traces have no CANN lane: no host checks, so no record
	run_pd 0 pd-hotspots < <(root_line /l torch_npu 0 trace_view=$o/trace_view.json)
	[ -z "$(jqr pd.hotspot .)" ]
}

# MindSpore legacy: aicore_intermediate_1_detail.csv sums
# = 23.088095 ms (awk -F, 'NR>1{s+=$2}' with %.6f), aicpu_intermediate_1.csv total_time 9.694 ms;
# GetNext 0.888 + 0.293 ms.
@test "pd-hotspots: MindSpore legacy intermediate files" {
	require_corpus
	local p=$ASC/mindspore_legacy_run2_dataset/profiler
	run_pd 0 pd-hotspots < <(root_line $p mindspore_legacy 1 aicore_intermediate_detail=$p/aicore_intermediate_1_detail.csv \
	    aicpu_intermediate=$p/aicpu_intermediate_1.csv)
	jqv pd.hotspot '[.source,.total_us,.top[0].type,.top[0].total_us]' \
	    '.aicpu[1]'
	[ "${J[0]}" = '["aicore_intermediate",32782.095,"MatMul",9174.08]' ]
	[ "${J[1]}" = '{"name":"GetNext","count":2,"total_us":1181}' ]
}

# Legacy msprof (CANN 6.3/7.0) has only timelines: device_0's two
# task_time_*.json files (python3 json): 278 AI_CORE / AI_CPU tasks summing
# to 13682.479 us, 178 under 20 us; NOTIFY_*, REDUCE_ASYNC_V2 and the
# MEMCPY_ASYNC on those same HCCL streams sum to 201652.97 us; EVENT_*
# tasks are left out.
@test "pd-hotspots: legacy msprof task_time timelines" {
	require_corpus
	local d=$ASC/msprof_PROF_legacy_2dev/PROF_000001_20230818142704322_COJGGGCANRMICFBC/device_0/timeline
	run_pd 0 pd-hotspots < <(root_line /p msprof_legacy 0 task_time=$d/task_time_0_2_1.json task_time=$d/task_time_0_2_2.json)
	jqv pd.hotspot '[.source,.total_us,.kernels,.short_ops,.classes.comm_us,.classes.memcpy_us]' \
	    '.top[0] | [.type,.core,.count]'
	[ "${J[0]}" = '["task_time",13682.479,278,178,201652.97,0]' ]
	[ "${J[1]}" = '["FusedMulApplyMomentum","AI_CORE",2]' ]
}

@test "pd-hotspots: unknown header variant is an error naming the missing columns" {
	run_pd 3 pd-hotspots < <(root_line /r msprof 0 kernel_details=$HF/no-duration.csv)
	[[ "$stderr" == *"pd-hotspots: error: $HF/no-duration.csv:1: unknown header variant: missing column 'Duration(us)'"* ]]
	[ -z "$(jqr pd.hotspot .)" ]
	printf 'Foo,Bar\n1,2\n' >"$BATS_TEST_TMPDIR/x.csv"
	run_pd 3 pd-hotspots < <(root_line /r msprof 0 kernel_details=$BATS_TEST_TMPDIR/x.csv)
	[[ "$stderr" == *"$BATS_TEST_TMPDIR/x.csv:1: unknown header variant: missing columns 'Name', 'Type', 'Duration(us)'"* ]]
}

@test "pd-hotspots: a bad header falls back to the next table" {
	run_pd 3 pd-hotspots < <(root_line /r msprof 0 kernel_details=$HF/no-duration.csv op_summary=$HF/pmu.csv)
	[ "$(jqr pd.hotspot '[.source,.total_us]')" = '["op_summary",465]' ]
}

# bad-rows.csv: row 3 has duration "1.2E+01x", row 5 opens a quote that
# never closes (a cut file): both skipped with file:line, a + c kept.
@test "pd-hotspots: malformed and truncated rows are warned, counted, skipped" {
	run_pd 3 pd-hotspots < <(root_line /r msprof 0 kernel_details=$HF/bad-rows.csv)
	[[ "$stderr" == *"pd-hotspots: warning: $HF/bad-rows.csv:3: bad duration: row skipped"* ]]
	[[ "$stderr" == *"$HF/bad-rows.csv:5: file ends inside a quoted field"* ]]
	[ "$(jqr pd.hotspot '[.total_us,.skipped_rows]')" = '[40,2]' ]
}

@test "pd-hotspots: a cut trace_view.json is warned; the tables still count" {
	require_corpus
	head -c 300000 $O2/trace_view.json >"$BATS_TEST_TMPDIR/cut.json"
	run_pd 3 pd-hotspots < <(root_line /r torch_npu 0 kernel_details=$HF/pmu.csv trace_view=$BATS_TEST_TMPDIR/cut.json)
	[[ "$stderr" == *"pd-hotspots: warning: $BATS_TEST_TMPDIR/cut.json:"* ]]
	[ "$(jqr pd.hotspot '.total_us')" = 465 ]
}

@test "pd-hotspots: every Ascend corpus case runs (exit 0 or 3, never a crash)" {
	require_corpus
	corpus_roots >"$BATS_TEST_TMPDIR/roots"
	run --separate-stderr pd-hotspots <"$BATS_TEST_TMPDIR/roots"
	[ "$status" -eq 0 ] || [ "$status" -eq 3 ]
	[ "$(jqr pd.hotspot .type | wc -l)" -ge 8 ]
}

# What pd-locate finds: 17 Ascend roots; 15 have operator or host API
# evidence (the two pta_2rank_level1_db roots from their profiler db; the
# DB-only and cluster-only roots have none).
@test "pd-hotspots: every root pd-locate finds in the Ascend corpus" {
	require_corpus
	run_pd 0 sh -c 'pd-locate "$1" | pd-hotspots' sh "$ASC"
	[ -z "$stderr" ]
	[ "$(jqr pd.hotspot .type | wc -l)" -eq 15 ]
}

# Op names and types with bytes that are not UTF-8: three allReduce types
# stay apart (10, 20, 30 µs) and the row repeating op\377 1 (5 µs) joins
# its entry: count 2, 15 µs. \377 -> U+10FFFF (1114111), \376 -> 1114110,
# \375 -> 1114109 (pd-record(5)).
@test "pd-hotspots: op names and types that are not UTF-8 keep their entries" {
	local c=$BATS_TEST_TMPDIR/k.csv
	{
		echo 'Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Dim'
		printf '50,op\3771,allReduce\377,AI_CORE,1.0,10,0,0\n'
		printf '50,op\3762,allReduce\376,AI_CORE,2.0,20,0,0\n'
		printf '50,op\3753,allReduce\375,AI_CORE,3.0,30,0,0\n'
		printf '50,op\3771,allReduce\377,AI_CORE,5.0,5,0,0\n'
	} >"$c"
	run_pd 0 pd-hotspots < <(root_line /r msprof 0 kernel_details=$c)
	jqv pd.hotspot '[.by_type[]|[(.type|explode|.[-1]),.count,.total_us]]' \
	    '[.top[]|.name|explode|.[2]]'
	[ "${J[0]}" = \
	    '[[1114109,1,30],[1114110,1,20],[1114111,2,15]]' ]
	[ "${J[1]}" = '[1114109,1114110,1114111]' ]
	[[ "$stderr" == *"pd-hotspots: warning: name 'op\\xFD3' is not valid UTF-8"* ]]
}

# OP State and the optimizer steps (python3 csv over rank0's files):
# kernel_details.csv has 187 compute rows, all OP State "dynamic" (8873.737
# us), and 4 HCCL rows with N/A, left out; operator_details.csv has one
# Optimizer.step#SGD.step row, Host Total 10512.4 us, Device Total
# 2264.94525 us. The advisor (findings.md) reports both: all operators
# dynamic-shape, and torch_npu.optim.NpuFusedSGD for SGD.step.
@test "pd-hotspots: OP State and optimizer steps of the 2-rank case, rank 0" {
	require_corpus
	run_pd 0 pd-hotspots < <(root_line $R2 torch_npu 0 kernel_details=$O2/kernel_details.csv operator_details=$O2/operator_details.csv)
	jqv pd.hotspot '.op_state' \
	    '.optimizers'
	[ "${J[0]}" = '{"ops":187,"dynamic":187,"static":0,"dynamic_us":8873.737}' ]
	[ "${J[1]}" = '[{"name":"Optimizer.step#SGD.step","class":"SGD","count":1,"host_total_us":10512.4,"device_total_us":2264.945}]' ]
	# Level0's kernel_details has no OP State column: no evidence
	local l0=$ASC/pta_1rank_level0_text/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT
	run_pd 0 pd-hotspots < <(root_line /r torch_npu 0 kernel_details=$l0/kernel_details.csv)
	[ "$(jqr pd.hotspot '[.op_state,.optimizers]')" = '[null,null]' ]
}

# A static row counts as static; other states only in ops; a class-less
# optimizer name keeps the whole tail; no optimizer is an empty list.
@test "pd-hotspots: OP State counts and optimizer names" {
	printf 'Name,Type,OP State,Accelerator Core,Duration(us)\na,Add,static,AI_CORE,5\nb,Add,dynamic,AI_CORE,7\nc,Add,,AI_CORE,1\nh,hcom_allReduce_,N/A,HCCL,100\n' >"$BATS_TEST_TMPDIR/k.csv"
	printf 'Name,Host Self Duration(us),Host Total Duration(us),Device Total Duration(us)\nOptimizer.step#Mine,1,4,2\nOptimizer.step#Mine,1,4,x\naten::add,1,1,1\n' >"$BATS_TEST_TMPDIR/o.csv"
	run_pd 0 pd-hotspots < <(root_line /r torch_npu 0 kernel_details=$BATS_TEST_TMPDIR/k.csv operator_details=$BATS_TEST_TMPDIR/o.csv)
	jqv pd.hotspot '.op_state' \
	    '.optimizers'
	[ "${J[0]}" = '{"ops":3,"dynamic":1,"static":1,"dynamic_us":7}' ]
	[ "${J[1]}" = '[{"name":"Optimizer.step#Mine","class":"Mine","count":2,"host_total_us":8,"device_total_us":2}]' ]
	printf 'Name,Host Self Duration(us)\naten::add,1\n' >"$BATS_TEST_TMPDIR/o.csv"
	run_pd 0 pd-hotspots < <(root_line /r torch_npu 0 operator_details=$BATS_TEST_TMPDIR/o.csv)
	[ "$(jqr pd.hotspot '.optimizers')" = '[]' ]
}
