#!/usr/bin/env bats
# pd-sum-input on Ascend roots. pd.root lines are written by hand (root_line,
# test/ascend-roots.bash). Numbers checked by hand over the named files
# (python3's json and csv modules, or by eye for the tiny ones).
load helper
load contract
load ascend-roots

IF=$FIX/pd-sum-input
R2=$ASC/pta_2rank_level1_text/rank0_ascend_pt
O2=$R2/ASCEND_PROFILER_OUTPUT
MS=$ASC/mindspore_legacy_run2_dataset

@test "pd-sum-input: -h prints usage to stdout" { contract_h pd-sum-input; }
@test "pd-sum-input: bad option is exit 2" { contract_badopt pd-sum-input; }
@test "pd-sum-input: input passes through byte for byte" { contract_passthrough pd-sum-input; }
@test "pd-sum-input: empty input, empty output" { contract_empty pd-sum-input; }
@test "pd-sum-input: missing operand is exit 5" { contract_missing pd-sum-input; }
@test "pd-sum-input: writing to /dev/full is exit 5" {
	root_line /r torch_npu 0 step_trace_time=$IF/stt-prep.csv >"$BATS_TEST_TMPDIR/in"
	contract_devfull pd-sum-input <"$BATS_TEST_TMPDIR/in"
}

# trace.json (hand-made): step 1 = 1000 us with dataloader spans
# [100, 400] (python_function) containing [150, 350] (cpu_op), and
# [600, 700]: union 300 + 100 = 400 us; step 2 = 20000 us with one 12000 us
# span (>= 10 ms: a slow dataloader call, advisor rule 20). Sum 12400 /
# 21000 = 0.5905 >= 0.20: highly input-bound. Preparing comes from
# stt-prep.csv (30 and 5 us). calls (dataloader calls per step) is a
# PyTorch value: null here.
@test "pd-sum-input: dataloader spans per ProfilerStep, nested spans counted once" {
	run_pd 0 pd-sum-input < <(root_line /r torch_npu 0 trace_view=$IF/trace.json step_trace_time=$IF/stt-prep.csv)
	[ "$(printf '%s\n' "$output" | jq -r .type | tr '\n' ' ')" = "pd.root pd.input " ]
	[ "$(jqr pd.input '.steps')" = '[{"step":1,"input_us":400,"step_us":1000,"input_ratio":0.4,"preparing_us":30,"calls":null},{"step":2,"input_us":12000,"step_us":20000,"input_ratio":0.6,"preparing_us":5,"calls":null}]' ]
	[ "$(jqr pd.input '[.source,.input_us_mean,.input_ratio,.class,.dataloader_spans,.slow_dataloader_calls]')" = \
	    '["trace_view+step_trace_time",6200,0.5905,"highly",3,1]' ]
}

# stt-prep.csv alone: step = Stage + Bubble + Preparing = 70 + 0 + 30 and
# 95 + 0 + 5; input = Preparing; 35 / 200 = 0.175: moderately.
@test "pd-sum-input: Preparing column when there is no trace" {
	run_pd 0 pd-sum-input < <(root_line /r torch_npu 0 step_trace_time=$IF/stt-prep.csv)
	[ "$(jqr pd.input '[.source,[.steps[].input_ratio],.input_us_mean,.input_ratio,.class]')" = '["step_trace_time",[0.3,0.05],17.5,0.175,"moderately"]' ]
}

# step-raw.csv (MindSpore legacy, 100 MHz ticks): totals 1000000, 1200000,
# 1100000 ticks = 10000, 12000, 11000 us; iteration intervals 0 (step 1:
# no previous step, so not a measurement), 300000 and 100000 ticks = 3000
# and 1000 us; the step 0 row is an average. 4000 / 23000 = 0.1739.
@test "pd-sum-input: MindSpore legacy step_trace_raw intervals" {
	run_pd 0 pd-sum-input < <(root_line /r mindspore_legacy 0 step_trace_raw_detail_time=$IF/step-raw.csv)
	[ "$(jqr pd.input '[.steps[] | [.step,.input_us,.step_us]]')" = '[[1,null,10000],[2,3000,12000],[3,1000,11000]]' ]
	[ "$(jqr pd.input '[.input_us_mean,.input_ratio,.class,.tick_mhz]')" = '[2000,0.1739,"moderately",100]' ]
}

# rank0 trace_view.json: ProfilerStep#50 dur 155985.8 us; the
# python_function "dataloader.py(625): __next__" (ts ...686999.180, dur
# 3481.13) contains enumerate(DataLoader) (ts ...687031.460, dur 3332.4):
# union 3481.13 us, 3481.13 / 155985.8 = 0.0223 < 0.05: not input-bound.
# step_trace_time.csv Preparing 17902.5.
@test "pd-sum-input: the 2-rank case, rank 0, is not input-bound" {
	require_corpus
	run_pd 0 pd-sum-input < <(root_line $R2 torch_npu 0 trace_view=$O2/trace_view.json step_trace_time=$O2/step_trace_time.csv)
	[ "$(jqr pd.input '.steps')" = '[{"step":50,"input_us":3481.13,"step_us":155985.8,"input_ratio":0.0223,"preparing_us":17902.5,"calls":null}]' ]
	[ "$(jqr pd.input '[.input_ratio,.class,.dataloader_spans]')" = '[0.0223,"not",1]' ]
}

# The advisor fixture: ProfilerStep#1 dur 14091.97; two DataLoader spans
# 1302.013 + 16.571 = 1318.584 us; 0.0936: moderately input-bound.
@test "pd-sum-input: advisor trace_view fixture (small pids, one step)" {
	require_corpus
	local t=$ASC/mstt_advisor_fixtures/test/ut/advisor/timeline_advice/trace_view.json
	run_pd 0 pd-sum-input < <(root_line /a torch_npu 0 trace_view=$t)
	[ "$(jqr pd.input '[.steps[0].input_us,.steps[0].step_us,.input_ratio,.class]')" = '[1318.584,14091.97,0.0936,"moderately"]' ]
}

# MindSpore legacy: device_queue_profiling_1.txt has one queue record
# ("1 64 1 0 10": size 0 of 64) -> empty ratio 1; minddata_aicpu_1.txt
# GetNext queue sizes 3, 2, 1 -> never empty. minddata_pipeline_raw_1.csv:
# BatchOp usage 0.015625 <- MapOp 0 <- MapOp 0 <- ImageFolderOp 0 (leaf):
# everything downstream of the reader starves, so the reader is slowest.
@test "pd-sum-input: MindSpore dataset pipeline files" {
	require_corpus
	local p=$MS/profiler
	run_pd 0 pd-sum-input < <(root_line $p mindspore_legacy 1 minddata_pipeline_raw=$p/minddata_pipeline_raw_1.csv \
	    device_queue_profiling=$p/device_queue_profiling_1.txt minddata_aicpu=$p/minddata_aicpu_1.txt)
	[ "$(jqr pd.input '[.steps,.input_ratio,.class,.queue_empty_ratio,.getnext_empty_ratio]')" = '[[],null,null,1,0]' ]
	[ "$(jqr pd.input '.slowest_op')" = '{"op_id":3,"op_type":"ImageFolderOp","queue_usage_ratio":0}' ]
	[ "$(jqr pd.input '[.pipeline[] | .op_id]')" = '[0,1,2,3]' ]
}

# The same pipeline from pipeline_profiling_1.json (usage = mean(size) /
# length: BatchOp (0 + 2) / 2 / 64 = 0.0156); the root is EpochCtrlOp.
@test "pd-sum-input: pipeline_profiling json gives the same slowest op" {
	require_corpus
	local p=$MS/profiler
	run_pd 0 pd-sum-input < <(root_line $p mindspore_legacy 1 pipeline_profiling=$p/pipeline_profiling_1.json)
	[ "$(jqr pd.input '.slowest_op.op_type')" = '"ImageFolderOp"' ]
	[ "$(jqr pd.input '[.pipeline[] | select(.op_id == 0) | .queue_usage_ratio]')" = '[0.0156]' ]
}

# MindInsight's four analyser variants (usage below 0.6 is "low"):
# _0: Batch <- Shuffle 4 (0.156) <- Shuffle 1 (0.9375): Shuffle 4 starves
# with a full input; _1: Shuffle 1 (0.156) above TFReaders at 0.9375;
# _2: Batch (0) above a full Shuffle 4 (0.9375); _3: all at 0.156 down to
# the readers, the lower op_id (2) of the two.
@test "pd-sum-input: slowest pipeline op on the four MindInsight variants" {
	require_corpus
	# (not "i": bats' run uses that name)
	local v got want=("4 Shuffle" "1 Shuffle" "0 Batch" "2 TFReader")
	for v in 0 1 2 3; do
		run_pd 0 pd-sum-input < <(root_line /x mindspore_legacy 0 \
		    minddata_pipeline_raw=$MS/extra_minddata_pipeline/minddata_pipeline_raw_$v.csv)
		got=$(jqr pd.input '"\(.slowest_op.op_id) \(.slowest_op.op_type)"')
		[ "$got" = "\"${want[$v]}\"" ]
	done
}

@test "pd-sum-input: unknown header variant is an error naming the missing columns" {
	run_pd 3 pd-sum-input < <(root_line /r torch_npu 0 step_trace_time=$IF/stt-nostage.csv)
	[[ "$stderr" == *"pd-sum-input: error: $IF/stt-nostage.csv:1: unknown header variant: missing column 'Stage'"* ]]
	[ -z "$(jqr pd.input .)" ]
}

# cut.json stops inside the third event: steps from what was read, a
# warning with the line, "truncated": true. queue-bad.txt line 2 is not a
# record: warned and skipped; 1 of the 2 queue records is empty.
@test "pd-sum-input: truncated trace and malformed queue line" {
	run_pd 3 pd-sum-input < <(root_line /r torch_npu 0 trace_view=$IF/cut.json device_queue_profiling=$IF/queue-bad.txt)
	[[ "$stderr" == *"pd-sum-input: warning: $IF/cut.json:1: "*"input spans cover the 2 events read"* ]]
	[[ "$stderr" == *"pd-sum-input: warning: $IF/queue-bad.txt:2: malformed queue line: skipped"* ]]
	[ "$(jqr pd.input '[.steps[0].input_us,.steps[0].step_us,.queue_empty_ratio,.skipped_rows,.truncated]')" = '[100,1000,0.5,1,true]' ]
}

@test "pd-sum-input: every Ascend corpus case runs (exit 0 or 3, never a crash)" {
	require_corpus
	corpus_roots >"$BATS_TEST_TMPDIR/roots"
	run --separate-stderr pd-sum-input <"$BATS_TEST_TMPDIR/roots"
	[ "$status" -eq 0 ] || [ "$status" -eq 3 ]
	[ "$(jqr pd.input .type | wc -l)" -ge 5 ]
}

# What pd-locate finds: 6 Ascend roots have input evidence in text
# exports (the 2023 step_trace_time.csv of test_rank_0/1 has no Preparing
# column), and the 2 of the db export in their databases.
@test "pd-sum-input: every root pd-locate finds in the Ascend corpus" {
	require_corpus
	run_pd 0 sh -c 'pd-locate "$1" | pd-sum-input' sh "$ASC"
	[ -z "$stderr" ]
	[ "$(jqr pd.input .type | wc -l)" -eq 8 ]
}

# pta_2rank_level1_db (export_type=db): no trace_view.json, so PYTORCH_API
# of ascend_pytorch_profiler_{rank}.db. With sqlite3 on each rank's db
# (names joined from STRING_IDS):
#  ProfilerStep#50: endNs - startNs            -> 151888750 / 148265420 ns
#  the 8 spans named like '%dataloader%': max(endNs) - min(startNs)
#    -> 3885090 / 3650460 ns, the length of the outermost one
#    (dataloader.py(625): __next__), so all nest in it: union 3885.09 us
#  input_ratio 3885.09 / 151888.75 = 0.0256, 3650.46 / 148265.42 = 0.0246
# Preparing is analysis.db's StepTraceTime, msprof-analyze's figures on
# these files (peers/msprof-analyze-8.2.0/pta_2rank_level1_db/cluster/
# db_tables/ClusterStepTraceTime.csv: 18055.693, 17512.827).
@test "pd-sum-input corpus: pta_2rank_level1_db from the profiler db" {
	require_corpus
	run_pd 0 sh -c 'pd-locate "$1" | pd-sum-input' sh "$ASC/pta_2rank_level1_db"
	[ -z "$stderr" ]
	[ "$(jqr pd.input '[.rank,.source,.steps,.input_ratio,.class,.dataloader_spans]')" = \
	    "$(printf '%s\n' '[0,"ascend_pytorch_profiler_db+analysis_db",[{"step":50,"input_us":3885.09,"step_us":151888.75,"input_ratio":0.0256,"preparing_us":18055.693,"calls":null}],0.0256,"not",1]' \
	    '[1,"ascend_pytorch_profiler_db+analysis_db",[{"step":50,"input_us":3650.46,"step_us":148265.42,"input_ratio":0.0246,"preparing_us":17512.827,"calls":null}],0.0246,"not",1]')" ]
	# the same keys as from the text export of the same job
	db=$(jqr pd.input '[keys, (.steps[0] | keys)]' | sort -u)
	run_pd 0 sh -c 'pd-locate "$1" | pd-sum-input' sh "$R2"
	[ "$(jqr pd.input '[keys, (.steps[0] | keys)]')" = "$db" ]
}

# A db written here with python3's sqlite3: text and integer ns times, a
# row with a bad end, nested loader spans; a db without PYTORCH_API is
# said (exit 3, no record); a trace_view.json beside it is read instead.
@test "pd-sum-input: the profiler db: spans, bad rows, a db without PYTORCH_API" {
	local d=$BATS_TEST_TMPDIR
	python3 - "$d/p.db" "$d/none.db" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY, value TEXT)")
c.executemany("INSERT INTO STRING_IDS VALUES (?,?)", [(1, "ProfilerStep#7"), (2, "enumerate(DataLoader)#x.__next__"), (3, "dataloader.py(1): _next_data"), (4, "aten::add"), (5, "ProfilerStep#8")])
c.execute("CREATE TABLE PYTORCH_API (startNs TEXT, endNs TEXT, globalTid INTEGER, connectionId INTEGER, name INTEGER, sequenceNumber INTEGER, fwdThreadId INTEGER, inputDtypes INTEGER, inputShapes INTEGER, callchainId INTEGER, type INTEGER, depth integer)")
c.executemany("INSERT INTO PYTORCH_API (startNs, endNs, name) VALUES (?,?,?)", [
    ("1000000", "11000000", 1), (1000000, 3000000, 2), ("1500000", "2500000", 3),
    ("1000000", "1000500", 4), ("12000000", "x", 5)])
c.commit(); c.close()
sqlite3.connect(sys.argv[2]).execute("CREATE TABLE STRING_IDS (id, value)").connection.close()
PY
	run_pd 3 pd-sum-input < <(root_line /r torch_npu 0 ascend_pytorch_profiler_db=$d/p.db)
	[ "$stderr" = "pd-sum-input: warning: $d/p.db: PYTORCH_API: 'ProfilerStep#8': bad startNs or endNs; skipped" ]
	# step 7: 10 ms; the loader spans nest: 2 ms of input
	[ "$(jqr pd.input '[.source,.steps,.dataloader_spans,.skipped_rows]')" = \
	    '["ascend_pytorch_profiler_db",[{"step":7,"input_us":2000,"step_us":10000,"input_ratio":0.2,"preparing_us":null,"calls":null}],1,1]' ]
	run_pd 3 pd-sum-input < <(root_line /r torch_npu 0 ascend_pytorch_profiler_db=$d/none.db)
	[ "$stderr" = "pd-sum-input: warning: $d/none.db: no PYTORCH_API or STRING_IDS table: no step or dataloader spans in this db" ]
	[ -z "$(jqr pd.input .)" ]
	run_pd 0 pd-sum-input < <(root_line /r torch_npu 0 trace_view=$IF/trace.json ascend_pytorch_profiler_db=$d/p.db)
	[ "$(jqr pd.input .source)" = '"trace_view"' ]
}
