#!/usr/bin/env bats
# pd-sum-step on Ascend roots. pd.root lines are written by hand (root_line)
# so each test feeds the tool exactly the exports it needs.
load helper
load contract

ASC=$CORPUS/ascend
SF=$FIX/pd-sum-step

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

@test "pd-sum-step: -h prints usage to stdout" { contract_h pd-sum-step; }
@test "pd-sum-step: bad option is exit 2" { contract_badopt pd-sum-step; }
@test "pd-sum-step: input passes through byte for byte" { contract_passthrough pd-sum-step; }
@test "pd-sum-step: empty input, empty output" { contract_empty pd-sum-step; }
@test "pd-sum-step: missing operand is exit 5" { contract_missing pd-sum-step; }
@test "pd-sum-step: writing to /dev/full is exit 5" {
	root_line /r torch_npu 0 step_trace_time=$SF/stt-2023.csv >"$BATS_TEST_TMPDIR/in"
	contract_devfull pd-sum-step - <"$BATS_TEST_TMPDIR/in"
}

@test "pd-sum-step: the pd.root is passed on, then one pd.step" {
	run_pd 0 pd-sum-step < <(root_line /r torch_npu 0 step_trace_time=$SF/stt-2023.csv)
	[ "$(printf '%s\n' "$output" | jq -r .type | tr '\n' ' ')" = "pd.root pd.step " ]
	[ "$(jqr pd.step '[.root,.rank,.source,.scope]')" = '["/r",0,"step_trace_time","rank"]' ]
}

# stt-2023.csv: the 2023 header (no Preparing). step_us = Stage + Bubble:
# 170.75 + 0 and 180 + 0; mean 175.375; p90 = 170.75 + 0.9 * 9.25 = 179.075;
# cv = 4.625 / 175.375 (population stdev) = 0.0264; shares of 350.75:
# computing 210.5 / 350.75 = 0.6001, comm not overlapped 90.25 / 350.75 = 0.2573.
@test "pd-sum-step: step_trace_time.csv, 2023 header (no Preparing)" {
	run_pd 0 pd-sum-step < <(root_line /r torch_npu 0 step_trace_time=$SF/stt-2023.csv)
	jqv pd.step '[.steps[].step_us]' \
	    '.steps[0] | [.computing_us,.comm_not_overlapped_us,.overlapped_us,.comm_us,.free_us,.preparing_us,.bubble_us,.stage_us]' \
	    '.step_stats' \
	    '.slowest_step' \
	    '[.shares.computing_ratio,.shares.comm_not_overlapped_ratio,.shares.preparing_ratio]' \
	    '.totals | [.computing_us,.step_us]'
	[ "${J[0]}" = '[170.75,180]' ]
	[ "${J[1]}" = '[100.5,50.25,10,60.25,20,null,0,170.75]' ]
	[ "${J[2]}" = '{"n":2,"mean":175.375,"median":175.375,"p90":179.075,"min":170.75,"max":180,"cv":0.0264}' ]
	[ "${J[3]}" = 2 ]
	[ "${J[4]}" = '[0.6001,0.2573,null]' ]
	[ "${J[5]}" = '[210.5,350.75]' ]
}

# stt-device.csv: the torch_npu 2.7 header (Device_id first), CRLF, Step
# empty. step_us = Stage 1750.125 + Bubble 0 + Preparing 80.5 = 1830.625.
@test "pd-sum-step: Device_id header, empty Step" {
	run_pd 0 pd-sum-step < <(root_line /r torch_npu 0 step_trace_time=$SF/stt-device.csv)
	[ "$(jqr pd.step '[.device,.steps[0].step,.steps[0].step_us,.steps[0].preparing_us,.slowest_step]')" = '[3,null,1830.625,80.5,null]' ]
}

@test "pd-sum-step: unknown header variant is an error naming the missing columns" {
	run_pd 3 pd-sum-step < <(root_line /r torch_npu 0 step_trace_time=$SF/stt-unknown.csv)
	[ "$stderr" = "pd-sum-step: error: $SF/stt-unknown.csv:1: unknown header variant: missing columns 'Communication(Not Overlapped)', 'Overlapped', 'Free'" ]
	[ -z "$(jqr pd.step .)" ]
}

@test "pd-sum-step: unknown header variant falls back to trace_view.json" {
	run_pd 3 pd-sum-step < <(root_line /r torch_npu 0 step_trace_time=$SF/stt-unknown.csv trace_view=$SF/lanes.json)
	[ "$(jqr pd.step '.source')" = '"trace_view"' ]
}

# stt-bad.csv: row 3 has an Excel exponent number (kept, warned), row 4 a
# word (skipped), row 5 ends inside a quote (truncated, skipped).
@test "pd-sum-step: Excel numbers, a bad row and a truncated file" {
	run_pd 3 pd-sum-step < <(root_line /r torch_npu 0 step_trace_time=$SF/stt-bad.csv)
	[[ "$stderr" == *"stt-bad.csv:3: \"Computing\": number in exponent form (edited in a spreadsheet?): '1.5E+02'; kept, digits may be lost"* ]]
	[[ "$stderr" == *"stt-bad.csv:4: \"Computing\": not a number: 'abc'; row skipped"* ]]
	[[ "$stderr" == *"stt-bad.csv:5: file ends inside a quoted field; last row skipped"* ]]
	jqv pd.step '[.steps[].step,.skipped_rows,.inexact_values,.truncated]' \
	    '.steps[1].computing_us'
	[ "${J[0]}" = '[1,2,2,1,true]' ]
	[ "${J[1]}" = 150 ]
}

# stt-2023.csv (above: steps 1 and 2, step_us 170.75 and 180) with a last
# line of blanks and no line end, then with CR alone for every line end:
# the same two steps, no warning (the blank line used to be a step null; the
# CR file used to give no step at all, silently).
@test "pd-sum-step: a last line of blanks is no step; CR line ends are read" {
	{ cat "$SF/stt-2023.csv"; printf '  \t'; } >"$BATS_TEST_TMPDIR/ws.csv"
	run_pd 0 pd-sum-step < <(root_line /r torch_npu 0 step_trace_time=$BATS_TEST_TMPDIR/ws.csv)
	[ "$(jqr pd.step '[.steps[] | [.step,.step_us]]')" = '[[1,170.75],[2,180]]' ]
	[ -z "$stderr" ]
	tr '\n' '\r' <"$SF/stt-2023.csv" >"$BATS_TEST_TMPDIR/cr.csv"
	run_pd 0 pd-sum-step < <(root_line /r torch_npu 0 step_trace_time=$BATS_TEST_TMPDIR/cr.csv)
	[ "$(jqr pd.step '[.steps[] | [.step,.step_us]]')" = '[[1,170.75],[2,180]]' ]
	[ -z "$stderr" ]
}

# The first 40 bytes of stt-2023.csv: the file ends inside the header line
# (it used to be read as a header and then no rows, silently).
@test "pd-sum-step: a header cut by the end of the file is a warning, exit 3" {
	head -c 40 "$SF/stt-2023.csv" >"$BATS_TEST_TMPDIR/cut.csv"
	run_pd 3 pd-sum-step < <(root_line /r torch_npu 0 step_trace_time=$BATS_TEST_TMPDIR/cut.csv)
	[ "$stderr" = "pd-sum-step: warning: $BATS_TEST_TMPDIR/cut.csv:1: file ends inside the header (no line end: cut?); file skipped" ]
	[ -z "$(jqr pd.step .)" ]
}

# lanes.json: metadata after the events (read in a first pass); the
# "Computing" event of the Ascend Hardware process (pid 55) is not a lane.
# Step 7: lanes from 1100 to 1800 -> stage 700, preparing 1100 - 1000 = 100,
# overlapped = 400 - 299.5 = 100.5, step_us = 700 + 0 + 100.
# Step 8: span 2050..2400 = 350, bubble = the hcom_receive (100) -> stage
# 250, preparing 50, step_us = 250 + 100 + 50 = 400.
@test "pd-sum-step: Overlap Analysis lanes per ProfilerStep" {
	run_pd 0 pd-sum-step < <(root_line /r torch_npu 0 trace_view=$SF/lanes.json)
	jqv pd.step '[.steps[] | [.step,.step_us,.computing_us,.comm_not_overlapped_us,.overlapped_us,.comm_us,.free_us,.preparing_us,.bubble_us,.stage_us]]' \
	    '.slowest_step' \
	    '.unassigned_us'
	[ "${J[0]}" = '[[7,800,300.5,299.5,100.5,400,100,100,0,700],[8,400,200,100,0,100,50,50,100,250]]' ]
	[ "${J[1]}" = 7 ]
	# the Computing event at 900, before ProfilerStep#7, is in no step
	[ "${J[2]}" = 50 ]
}

@test "pd-sum-step: Overlap Analysis without lane thread names" {
	run_pd 3 pd-sum-step < <(root_line /r torch_npu 0 trace_view=$SF/lanes-nothreads.json)
	[ "$stderr" = "pd-sum-step: warning: $SF/lanes-nothreads.json: \"Overlap Analysis\" has no lane named by thread_name metadata; no steps from it" ]
	[ -z "$(jqr pd.step .)" ]
}

@test "pd-sum-step: truncated trace gives the steps read so far" {
	run_pd 3 pd-sum-step < <(root_line /r torch_npu 0 trace_view=$SF/lanes-cut.json)
	[[ "$stderr" == *"lanes-cut.json:17: file ends inside an event; summary of the 15 events before it"* ]]
	[ "$(jqr pd.step '[.truncated,[.steps[].step],.steps[1].free_us]')" = '[true,[7,8],50]' ]
}

# ms-legacy.csv: ticks at 100 MHz (1 tick = 0.01 us): step 1 total 2500 ->
# 25 us, fp_and_bp 1900 -> 19, tail 500 -> 5, interval 100 -> 1, the
# AllReduce-op1 columns 3400 - 3050 = 350 -> 3.5. The step 0 row (average)
# is not a step.
@test "pd-sum-step: MindSpore legacy step_trace_raw (ticks)" {
	run_pd 0 pd-sum-step < <(root_line /r mindspore_legacy 0 step_trace_raw_detail_time=$SF/ms-legacy.csv)
	jqv pd.step '[.steps[] | [.step,.step_us,.fp_bp_us,.tail_us,.preparing_us,.comm_us]]' \
	    '.tick_mhz'
	[ "${J[0]}" = '[[1,25,19,5,1,3.5],[2,20,14,5,1,2.5]]' ]
	[ "${J[1]}" = 100 ]
}

@test "pd-sum-step: a root without step sources gives no record" {
	: >"$BATS_TEST_TMPDIR/k.csv"
	run_pd 0 pd-sum-step < <(root_line /r torch_npu 0 kernel_details="$BATS_TEST_TMPDIR/k.csv")
	[ -z "$(jqr pd.step .)" ]
}

# ---- the corpus ----

# Per step, the Overlap Analysis lanes of trace_view.json and
# step_trace_time.csv agree within 1 us, on every corpus case that has both.
@test "pd-sum-step: trace_view lanes match step_trace_time.csv within 1 us" {
	require_corpus
	local d n=0 a b
	for d in $(find "$ASC" -name step_trace_time.csv | sort); do
		d=${d%/step_trace_time.csv}
		[ -f "$d/trace_view.json" ] || continue
		run_pd 0 pd-sum-step < <(root_line /r torch_npu 0 step_trace_time=$d/step_trace_time.csv)
		a=$output
		run_pd 0 pd-sum-step < <(root_line /r torch_npu 0 trace_view=$d/trace_view.json)
		b=$output
		jq -n --argjson a "$(printf '%s\n' "$a" | tail -1)" --argjson b "$(printf '%s\n' "$b" | tail -1)" -e '
		    $a.source == "step_trace_time" and $b.source == "trace_view" and
		    ($a.steps | length) == ($b.steps | length) and
		    ([range($a.steps | length) as $i | $a.steps[$i] as $x | $b.steps[$i] as $y |
		      $x.step == $y.step and
		      ([("computing_us","comm_not_overlapped_us","overlapped_us","comm_us","free_us","preparing_us","stage_us","bubble_us","step_us")] |
		       all(($x[.] - $y[.]) | fabs <= 1))] | all)' >/dev/null || {
			echo "mismatch in $d" >&2; echo "$a" >&2; echo "$b" >&2; return 1; }
		n=$((n + 1))
	done
	[ "$n" -ge 4 ]	# level0, level2, and the two ranks of level1
}

# The 2-rank case, read side by side. From step_trace_time.csv (checked
# with awk -F, 'NR==2{print $3/($7+$8+$10), $2/($7+$8+$10)}'):
#   rank0: Comm(Not Overlapped) 101963.203 of step 136581.0 + 0 + 17902.5
#          = 154483.5 -> 0.66; Computing 8873.756 -> 0.0574
#   rank1: 96359.047 of 131912.5 + 0 + 20433.25 = 152345.75 -> 0.6325;
#          Computing 8878.295 -> 0.0583
# Exposed communication is over 60 % of each rank's step and more than ten
# times the computing: the job is communication-bound.
@test "pd-sum-step: pta_2rank_level1_text is communication-bound" {
	require_corpus
	local c=$ASC/pta_2rank_level1_text
	run_pd 0 pd-sum-step < <(
	    root_line $c/rank0_ascend_pt torch_npu 0 step_trace_time=$c/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/step_trace_time.csv
	    root_line $c/rank1_ascend_pt torch_npu 1 step_trace_time=$c/rank1_ascend_pt/ASCEND_PROFILER_OUTPUT/step_trace_time.csv)
	jqv pd.step '[.rank,.steps[0].step,.steps[0].step_us,.shares.comm_not_overlapped_ratio,.shares.computing_ratio]' \
	    '.shares.comm_not_overlapped_ratio > 10 * .shares.computing_ratio'
	[ "${J[0]}" = \
	    "$(printf '%s\n' '[0,50,154483.5,0.66,0.0574]' '[1,50,152345.75,0.6325,0.0583]')" ]
	[ "${J[1]}" = "$(printf 'true\ntrue')" ]
}

# cluster_step_trace_time.csv of the 16-rank PP=2 fixture: one record per
# rank row (16), none for the two stage rows; every number below is read
# off the file. Rank 8: Stage 195753.4851640625 + Bubble 178320.2648359375
# = 374073.75 us.
@test "pd-sum-step: cluster_step_trace_time.csv gives one record per rank, with its stage" {
	require_corpus
	local k=$ASC/msinsight_server_fixtures/cluster_analysis_output
	run_pd 0 pd-sum-step < <(root_line $k cluster_analysis null cluster_step_trace_time=$k/cluster_step_trace_time.csv)
	[ "$(jqr pd.step .rank | tr '\n' ' ')" = '0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 ' ]
	[ "$(jqr pd.step '[.root,.scope]' | sort -u)" = "[\"$k\",\"rank\"]" ]
	jqv pd.step 'select(.rank == 8) | [.steps[0].step,.steps[0].step_us,.steps[0].bubble_us]' \
	    'select(.rank == 0) | .stages | map([.stage, (.ranks|length), .totals.computing_us, .totals.bubble_us, .totals.stage_us, .totals.step_us])'
	[ "${J[0]}" = '[2,374073.75,178320.265]' ]
	# stage rows "(0, ..., 7)" and "(8, ..., 15)": numbered by lowest rank
	[ "$(jqr pd.step '[.rank,.stage]|map(tostring)|join(":")' | tr -d '"' | tr '\n' ' ')" = \
	    '0:0 1:0 2:0 3:0 4:0 5:0 6:0 7:0 8:1 9:1 10:1 11:1 12:1 13:1 14:1 15:1 ' ]
	# every rank record carries the stage rows (column maxima over the
	# stage's ranks): stage 1 Computing 80072.45015234381 (rank 8's),
	# Bubble 195498.28 (rank 11's), Stage 203701.7357578125 (rank 14's)
	[ "$(jqr pd.step '.stages' | sort -u | wc -l)" -eq 1 ]
	[ "${J[1]}" = \
	    '[[0,8,76310.94,0,304017.5,null],[1,8,80072.45,195498.28,203701.736,null]]' ]
}

# A PP Index column (msprof-analyze with a parallel layout) gives the stage;
# hand-made file, no stage rows.
@test "pd-sum-step: cluster PP Index column is the stage" {
	cat >"$BATS_TEST_TMPDIR/c.csv" <<'EOF'
Step,Type,Index,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,Stage,Bubble,Communication(Not Overlapped and Exclude Receive),Preparing,DP Index,PP Index,TP Index
1,rank,0,10,2,1,3,1,13,0,2,0,0,0,0
1,rank,1,10,2,1,3,1,13,0,2,0,0,1,0
1,rank,2,10,2,1,3,1,13,0,2,0,NA,NA,NA
EOF
	run_pd 0 pd-sum-step < <(root_line /c cluster_analysis null cluster_step_trace_time=$BATS_TEST_TMPDIR/c.csv)
	[ "$(jqr pd.step '[.rank,.stage,.stages]' | tr -d '\n')" = '[0,0,null][1,1,null][2,null,null]' ]
}

# Empty Step column (mstt cluster fixture): steps with a null step.
@test "pd-sum-step: cluster rows without a step number" {
	require_corpus
	local k=$ASC/mstt_advisor_fixtures/test/resource/advisor/cluster_analysis_output
	run_pd 0 pd-sum-step < <(root_line $k cluster_analysis null cluster_step_trace_time=$k/cluster_step_trace_time.csv)
	[ "$(jqr pd.step 'select(.rank == 0) | [.steps[0].step,.steps[0].step_us]')" = '[null,1754645.75]' ]
}

# Legacy PROF_ timelines: both step_trace files repeat iterations 1..10;
# each is counted once. Iteration 1: Iteration Time 47587.81 us, FP_BP
# 4236.1, Reduce 41565.45 (python3 -c over step_trace_0_2_1.json).
@test "pd-sum-step: CANN legacy step_trace timelines" {
	require_corpus
	local p=$ASC/msprof_PROF_legacy_2dev/PROF_000001_20230818142704322_COJGGGCANRMICFBC
	run_pd 0 pd-sum-step < <(root_line $p msprof_legacy 0 \
	    step_trace_timeline=$p/device_0/timeline/step_trace_0_2_1.json \
	    step_trace_timeline=$p/device_0/timeline/step_trace_0_2_2.json)
	[ "$(jqr pd.step '[(.steps | length), .steps[0].step_us, .steps[0].fp_bp_us, .steps[0].comm_us, .slowest_step]')" = '[10,47587.81,4236.1,41565.45,1]' ]
}

# pd-locate finds the roots itself: every root with a step source gets a
# record (the db export's from analysis.db).
@test "pd-sum-step: pd-locate over the Ascend corpus" {
	require_corpus
	pd-locate "$ASC" >"$BATS_TEST_TMPDIR/roots"
	run_pd 0 pd-sum-step <"$BATS_TEST_TMPDIR/roots"
	[ -z "$stderr" ]
	[ "$(jqr pd.root 'select(.exports | map(.kind) | any(test("^(step_trace_time|analysis_db|trace_view|step_trace_raw_detail_time|step_trace_timeline|cluster_step_trace_time)$"))) | .root' | sort -u)" = \
	    "$(jqr pd.step .root | sort -u)" ]
	[ "$(jqr pd.step .root | sort -u | wc -l)" -eq 14 ]
}

# pta_2rank_level1_db: the db export's analysis.db StepTraceTime gives each
# rank's step; the figures are msprof-analyze's on the same files
# (peers/msprof-analyze-8.2.0/pta_2rank_level1_db/cluster/db_tables/
# ClusterStepTraceTime.csv: rank 0 computing 8903.431, not overlapped
# 98071.947, overlapped 4036.153, free 25258.144, preparing 18055.693,
# stage 132233.522; rank 1 8915.634, 94556.05, 4034.14, 25840.499,
# 17512.827, 129312.183). Step = computing + not overlapped + free +
# preparing: 150289.215 and 146825.01 us.
@test "pd-sum-step corpus: pta_2rank_level1_db from analysis.db equals msprof-analyze" {
	require_corpus
	run_pd 0 bash -c "pd-locate '$ASC/pta_2rank_level1_db' | pd-sum-step"
	[ "$(jqr pd.step '[.rank,.source,.steps[0].step,.totals.computing_us,.totals.comm_not_overlapped_us,.totals.overlapped_us,.totals.free_us,.totals.preparing_us,.totals.stage_us,.totals.step_us]')" = \
	    "$(printf '%s\n' '[0,"analysis_db",50,8903.431,98071.947,4036.153,25258.144,18055.693,132233.522,150289.215]' \
	    '[1,"analysis_db",50,8915.634,94556.05,4034.14,25840.499,17512.827,129312.183,146825.01]')" ]
}

# A db written here with python3's sqlite3: a row with a bad step and a
# row with NULLs (left out / kept without those values); a db without the
# table, and a file that is no database, are said (exit 3). The database
# is opened read-only: its bytes do not change and no journal appears.
@test "pd-sum-step: analysis.db rows, a db without StepTraceTime, a file that is no db" {
	local d=$BATS_TEST_TMPDIR
	python3 - "$d/analysis.db" "$d/empty.db" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("CREATE TABLE StepTraceTime (step TEXT, computing REAL, communication_not_overlapped REAL, overlapped REAL, communication REAL, free REAL, stage REAL, bubble REAL, preparing REAL)")
c.executemany("INSERT INTO StepTraceTime VALUES (?,?,?,?,?,?,?,?,?)", [
    ("3", 100.5, 20.25, 5, 25.25, 10, 130.75, 0, 0.001),
    ("x", 1, 1, 1, 1, 1, 1, 1, 1),
    ("4", 200, 40, None, None, 20, None, None, None)])
c.commit(); c.close()
sqlite3.connect(sys.argv[2]).execute("CREATE TABLE other (a)").connection.close()
PY
	sum=$(sha256sum "$d/analysis.db")
	run_pd 3 pd-sum-step < <(root_line /r torch_npu 0 analysis_db=$d/analysis.db)
	[[ "$stderr" == *"analysis.db: StepTraceTime row 2: \"step\": not a step number: 'x'; row skipped"* ]]
	[ "$(jqr pd.step '[.source,.skipped_rows,[.steps[] | [.step,.step_us,.computing_us,.overlapped_us,.preparing_us]]]')" = \
	    '["analysis_db",1,[[3,130.751,100.5,5,0.001],[4,260,200,null,null]]]' ]
	[ "$(sha256sum "$d/analysis.db")" = "$sum" ]
	[ -z "$(ls "$d" | grep -E 'journal|wal|shm')" ]
	run_pd 3 pd-sum-step < <(root_line /r torch_npu 0 analysis_db=$d/empty.db)
	[[ "$stderr" == *"empty.db: no StepTraceTime table"* ]]
	[ -z "$(jqr pd.step .)" ]
	printf 'not a database, just text\n' >"$d/bad.db"
	run_pd 3 pd-sum-step < <(root_line /r torch_npu 0 analysis_db=$d/bad.db)
	[[ "$stderr" == *"bad.db: not a readable SQLite database: "* ]]
}

# Every Ascend case of the corpus: one pd.root per profiler root with the
# exports pd-sum-step reads (what pd-locate will produce), run together.
corpus_roots() {
	find "$ASC" -type f \( -name step_trace_time.csv -o -name trace_view.json \
	    -o -name 'step_trace_raw_*_detail_time.csv' -o -path '*/timeline/step_trace_*.json' \
	    -o -name cluster_step_trace_time.csv \) | sort | while read -r f; do
		case $f in
		*/ASCEND_PROFILER_OUTPUT/*) r=${f%/ASCEND_PROFILER_OUTPUT/*}; fmt=torch_npu ;;
		*/timeline/*) r=${f%/device_*}; fmt=msprof_legacy ;;
		*/cluster_analysis_output/*) r=${f%/*}; fmt=cluster_analysis ;;
		*/trace_view.json) r=${f%/*}; fmt=torch_npu ;;
		*) r=${f%/*}; fmt=mindspore_legacy ;;
		esac
		k=${f##*/}
		case $k in
		step_trace_raw_*) k=step_trace_raw_detail_time ;;
		step_trace_time.csv|trace_view.json|cluster_step_trace_time.csv) k=${k%.*} ;;
		step_trace_*.json) k=step_trace_timeline ;;
		esac
		printf '%s\t%s\t%s\t%s\n' "$r" "$fmt" "$k" "$f"
	done | jq -R -s -c 'split("\n") | map(select(. != "") | split("\t")) |
	    group_by(.[0])[] | {type: "pd.root", v: 1, root: .[0][0], rank: null,
	    device: null, format: .[0][1], run: "r", score: 1,
	    exports: map({kind: .[2], path: .[3], bytes: 0})}'
}

@test "pd-sum-step: every Ascend corpus case, no warning" {
	require_corpus
	corpus_roots >"$BATS_TEST_TMPDIR/roots"
	run_pd 0 pd-sum-step <"$BATS_TEST_TMPDIR/roots"
	[ -z "$stderr" ]
	# one pd.step per root, plus the extra cluster rows
	[ "$(jqr pd.root .root | wc -l)" -eq 12 ]
	[ "$(jqr pd.step .root | sort -u | wc -l)" -eq 12 ]
	[ "$(jqr pd.step 'select(.steps | length == 0)' | wc -l)" -eq 0 ]
}
