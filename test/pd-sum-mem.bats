#!/usr/bin/env bats
# pd-sum-mem on Ascend roots. pd.root lines are written by hand (root_line,
# test/ascend-roots.bash). Numbers checked by hand with python3's csv module
# over the named file; MB and KB are binary (x 1048576, x 1024).
load helper
load contract
load ascend-roots

MF=$FIX/pd-sum-mem
R2=$ASC/pta_2rank_level1_text/rank0_ascend_pt
O2=$R2/ASCEND_PROFILER_OUTPUT
T1=$ASC/msinsight_server_fixtures/test_rank_1
T0=$ASC/msinsight_server_fixtures/test_rank_0

@test "pd-sum-mem: -h prints usage to stdout" { contract_h pd-sum-mem; }
@test "pd-sum-mem: bad option is exit 2" { contract_badopt pd-sum-mem; }
@test "pd-sum-mem: input passes through byte for byte" { contract_passthrough pd-sum-mem; }
@test "pd-sum-mem: empty input, empty output" { contract_empty pd-sum-mem; }
@test "pd-sum-mem: missing operand is exit 5" { contract_missing pd-sum-mem; }
@test "pd-sum-mem: writing to /dev/full is exit 5" {
	root_line /r msprof 0 memory_record=$MF/record-kb.csv >"$BATS_TEST_TMPDIR/in"
	contract_devfull pd-sum-mem <"$BATS_TEST_TMPDIR/in"
}

# record-kb.csv (msprof CLI KB header): PTA+GE allocated 1000, 3000, 3000
# KB at 1, 2, 3 s: peak 3000 KB = 3072000 B first reached at 2 s; reserved
# there 4096 KB, so the gap is 1096 KB = 1122304 B; least-squares slope
# over (0,1000) (1,3000) (2,3000) = 1000 KB/s = 1024000 B/s. APP 8192 KB.
# modules-kb.csv: HCCL 2048 KB (the -1 sample ignored), RUNTIME 1024 KB.
# opmem.csv: aten::mm 1024 + 2048 KB (the 2048 one never released),
# aten::add 512 KB living 100 us, one free of 256 KB without an alloc,
# one row with a bad size.
@test "pd-sum-mem: KB header, modules, operator memory" {
	run_pd 3 pd-sum-mem < <(root_line /r msprof 0 memory_record=$MF/record-kb.csv \
	    npu_module_mem=$MF/modules-kb.csv operator_memory=$MF/opmem.csv)
	[ "$(printf '%s\n' "$output" | jq -r .type | tr '\n' ' ')" = "pd.root pd.mem " ]
	[ "$(jqr pd.mem '.source')" = '"memory_record+operator_memory+npu_module_mem"' ]
	[ "$(jqr pd.mem '.devices[0] | [.device,.peak_allocated_bytes,.peak_reserved_bytes,.peak_active_bytes,.peak_time_ns,.fragmentation_bytes,.growth_bytes_per_s,.component,.app_peak_reserved_bytes]')" = \
	    '[0,3072000,4194304,null,2000000000,1122304,1024000,"PTA+GE",8388608]' ]
	[ "$(jqr pd.mem '[.peak_allocated_bytes,.peak_reserved_bytes,.capacity_bytes,.peak_ratio]')" = '[3072000,4194304,null,null]' ]
	# every component of the device: PTA 2000 KB allocated, 3072 KB reserved
	[ "$(jqr pd.mem '[.devices[0].components[] | [.component,.peak_allocated_bytes,.peak_reserved_bytes]]')" = \
	    '[["APP",null,8388608],["PTA",2048000,3145728],["PTA+GE",3072000,4194304]]' ]
	[ "$(jqr pd.mem '.top_allocators')" = '[{"name":"aten::mm","bytes":3145728,"count":2,"lifetime_us":10},{"name":"aten::add","bytes":524288,"count":1,"lifetime_us":100}]' ]
	[ "$(jqr pd.mem '[.top_by_lifetime[0].name,.never_released,.frees_without_alloc]')" = '["aten::add",{"count":1,"bytes":2097152},{"count":1,"bytes":262144}]' ]
	[ "$(jqr pd.mem '.modules')" = '[{"component":"HCCL","peak_reserved_bytes":2097152},{"component":"RUNTIME","peak_reserved_bytes":1048576}]' ]
	[[ "$stderr" == *"pd-sum-mem: warning: $MF/opmem.csv:6: bad size: row skipped"* ]]
	[ "$(jqr pd.mem '.skipped_rows')" = 1 ]
}

# rank0 memory_record.csv, PTA+GE rows: max Total Allocated 1261.04296875 MB
# = 1322299392 B at 1736408883743396.450 us, Total Reserved there 1526.75 MB
# (also the max) -> gap 278614016 B; least squares of allocated over time
# (python3, Decimal timestamps) = -791601429.339 B/s (memory is
# freed towards the end of the step). APP max reserved 2113.7265625 MB.
# operator_memory.csv: aten::mm sizes sum to 252531 KB = 258591744 B; 24
# allocations without a release time. trace_view.json NPU MEM: max
# APP/Memory 2164460 KB, max Device/Memory 2409792 KB.
@test "pd-sum-mem: the 2-rank case, rank 0" {
	require_corpus
	run_pd 0 pd-sum-mem < <(root_line $R2 torch_npu 0 memory_record=$O2/memory_record.csv \
	    operator_memory=$O2/operator_memory.csv npu_module_mem=$O2/npu_module_mem.csv trace_view=$O2/trace_view.json)
	[ "$(jqr pd.mem '.devices[0] | [.peak_allocated_bytes,.peak_reserved_bytes,.fragmentation_bytes,.growth_bytes_per_s,.app_peak_reserved_bytes]')" = \
	    '[1322299392,1600913408,278614016,-791601429.339,2216407040]' ]
	# jq reads integers as doubles: check the exact ns on the raw line
	[[ "$output" == *'"peak_time_ns":1736408883743396450,'* ]]
	[ "$(jqr pd.mem '[.top_allocators[0].name,.top_allocators[0].bytes,.never_released.count]')" = '["aten::mm",258591744,24]' ]
	[ "$(jqr pd.mem '.npu_mem')" = '{"app_peak_bytes":2216407040,"device_peak_bytes":2467627008}' ]
	[ "$(jqr pd.mem '.modules[0].component')" = '"APP"' ]
}

# test_rank_1/memory_record.csv was saved by Excel: every timestamp reads
# 1.69512E+15. Peaks still come from the values (PTA+GE max allocated
# 4599.740723 MB = 4823177728 B, reserved 8582 MB = 8998879232 B); peak
# time and growth need exact times, so they are null; 30 rows counted.
@test "pd-sum-mem: Excel-mangled timestamps: warning, peaks kept, growth null" {
	require_corpus
	local f=$T1/ASCEND_PROFILER_OUTPUT/memory_record.csv
	run_pd 3 pd-sum-mem < <(root_line $T1 torch_npu 1 memory_record=$f)
	[[ "$stderr" == *"pd-sum-mem: warning: $f:2: inexact (Excel exponent form) timestamp '1.69512E+15': row kept for peaks, left out of growth and peak time"* ]]
	[[ "$stderr" == *"$f: 30 rows with inexact or bad timestamps"* ]]
	[ "$(jqr pd.mem '.devices[0] | [.device,.peak_allocated_bytes,.peak_reserved_bytes,.peak_time_ns,.growth_bytes_per_s]')" = '[1,4823177728,8998879232,null,null]' ]
	[ "$(jqr pd.mem '.inexact_rows')" = 30 ]
}

# test_rank_0: the 2023 5-column memory_record (no Total Active) and the
# 10-column operator_memory; test_rank_1 static_op_mem.csv: 56 rows,
# Size(KB) summing to 78530994 B.
@test "pd-sum-mem: old headers and static op memory" {
	require_corpus
	local o0=$T0/ASCEND_PROFILER_OUTPUT o1=$T1/ASCEND_PROFILER_OUTPUT
	run_pd 0 pd-sum-mem < <(root_line $T0 torch_npu 0 memory_record=$o0/memory_record.csv operator_memory=$o0/operator_memory.csv)
	[ "$(jqr pd.mem '.devices[0] | [.peak_allocated_bytes,.peak_reserved_bytes,.peak_active_bytes]')" = '[4823308800,9084862464,null]' ]
	[ "$(jqr pd.mem '.top_allocators | length > 0')" = true ]
	run_pd 0 pd-sum-mem < <(root_line $T1 torch_npu 1 static_op_mem=$o1/static_op_mem.csv)
	[ "$(jqr pd.mem '[.source,.static_ops,.devices]')" = '["static_op_mem",{"count":56,"bytes":78530994},[]]' ]
}

@test "pd-sum-mem: unknown header variant is an error naming the missing columns" {
	run_pd 3 pd-sum-mem < <(root_line /r torch_npu 0 memory_record=$MF/no-reserved.csv)
	[[ "$stderr" == *"pd-sum-mem: error: $MF/no-reserved.csv:1: unknown header variant: missing column 'Total Reserved(MB)' or 'Total Reserved(KB)'"* ]]
	[ -z "$(jqr pd.mem .)" ]
}

# cut.csv ends inside a quoted field: rows 2-3 count, the cut row is skipped.
@test "pd-sum-mem: truncated file: warning, partial summary" {
	run_pd 3 pd-sum-mem < <(root_line /r torch_npu 0 memory_record=$MF/cut.csv)
	[[ "$stderr" == *"pd-sum-mem: warning: $MF/cut.csv:4: file ends inside a quoted field (truncated?): last row skipped"* ]]
	[ "$(jqr pd.mem '[.peak_allocated_bytes,.skipped_rows]')" = '[2621440,1]' ]
}

@test "pd-sum-mem: every Ascend corpus case runs (exit 0 or 3, never a crash)" {
	require_corpus
	corpus_roots >"$BATS_TEST_TMPDIR/roots"
	run --separate-stderr pd-sum-mem <"$BATS_TEST_TMPDIR/roots"
	[ "$status" -eq 0 ] || [ "$status" -eq 3 ]
	[ "$(jqr pd.mem .type | wc -l)" -ge 5 ]
}

# What pd-locate finds: 6 Ascend roots have memory files, and the 2 of
# the db export have memory tables; the only warnings are the
# Excel-mangled timestamps of test_rank_1 (exit 3).
@test "pd-sum-mem: every root pd-locate finds in the Ascend corpus" {
	require_corpus
	run_pd 3 sh -c 'pd-locate "$1" | pd-sum-mem' sh "$ASC"
	[ "$(printf '%s\n' "$stderr" | grep -vc 'test_rank_1/ASCEND_PROFILER_OUTPUT/memory_record.csv')" -eq 0 ]
	[ "$(jqr pd.mem .type | wc -l)" -eq 8 ]
}

# pta_2rank_level1_db (export_type=db): no csv, so the memory tables of
# ascend_pytorch_profiler_0.db. Figures from sqlite3 on that file
# (D=.../rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db,
# component and type names joined from STRING_IDS):
#  select max(totalAllocated), max(totalReserved) from MEMORY_RECORD
#    where component = PTA+GE                 -> 1263251456|1600913408
#  (the peak row's reserved less its allocated: 337661952)
#  max(totalActive) of PTA                    -> 1245688832
#  GE's totalActive is 0 on every row, beside a positive allocated: not
#    collected (memory_record.csv leaves it blank) -> null
#  select max(hbm) from NPU_MEM where type = app / device
#                                             -> 2216402944 / 2468032512
#  select count(*), sum(size) from OP_MEMORY where releaseTime is null
#                                             -> 24|264920064
#  aten::mm: count(*), sum(size), sum(duration)/1000.0 -> 7|258591744|1991.68
#  NPU_MODULE_MEM max(totalReserved) by ENUM_MODULE name: APP (33)
#    1522532352, HCCL (3) 423690240
@test "pd-sum-mem corpus: pta_2rank_level1_db from the profiler db" {
	require_corpus
	run_pd 0 sh -c 'pd-locate "$1" | pd-sum-mem' sh "$ASC/pta_2rank_level1_db/rank0_ascend_pt"
	[ -z "$stderr" ]
	[ "$(jqr pd.mem '[.source,.peak_allocated_bytes,.peak_reserved_bytes,.devices[0].device,.devices[0].component,.devices[0].peak_active_bytes,.devices[0].fragmentation_bytes,.devices[0].app_peak_reserved_bytes,(.devices[0].components[] | select(.component == "GE") | .peak_active_bytes)]')" = \
	    '["MEMORY_RECORD+NPU_MEM+OP_MEMORY+NPU_MODULE_MEM",1263251456,1600913408,0,"PTA+GE",1245688832,337661952,2216402944,null]' ]
	[ "$(jqr pd.mem '[.npu_mem.app_peak_bytes,.npu_mem.device_peak_bytes,.never_released.count,.never_released.bytes,.top_allocators[0],.modules[0:2],.static_ops]')" = \
	    '[2216402944,2468032512,24,264920064,{"name":"aten::mm","bytes":258591744,"count":7,"lifetime_us":1991.68},[{"component":"APP","peak_reserved_bytes":1522532352},{"component":"HCCL","peak_reserved_bytes":423690240}],null]' ]
	# the same keys as from the text export of the same job, at every level
	shape='[keys, (.devices[0] | keys), (.devices[0].components[0] | keys), (.top_allocators[0] | keys), (.npu_mem | keys)]'
	db=$(jqr pd.mem "$shape")
	run_pd 0 sh -c 'pd-locate "$1" | pd-sum-mem' sh "$R2"
	[ "$(jqr pd.mem "$shape")" = "$db" ]
}

# A profiler db written here with python3's sqlite3: no memory tables is
# said (exit 3, no pd.mem); a text ns time, a NULL active and a negative
# size (a free) are read; the db is opened read-only.
@test "pd-sum-mem: the profiler db: rows of each table, and a db without memory tables" {
	local d=$BATS_TEST_TMPDIR
	python3 - "$d/p.db" "$d/none.db" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY, value TEXT)")
c.executemany("INSERT INTO STRING_IDS VALUES (?,?)", [(1, "PTA"), (2, "app"), (3, "aten::add")])
c.execute("CREATE TABLE MEMORY_RECORD (component INTEGER, timestamp INTEGER, totalAllocated INTEGER, totalReserved INTEGER, totalActive INTEGER, streamPtr INTEGER, deviceId INTEGER)")
c.executemany("INSERT INTO MEMORY_RECORD VALUES (?,?,?,?,?,?,?)", [
    (1, "1000000000", 100, 400, None, 0, 3), (1, 2000000000, 300, 500, 350, 0, 3)])
c.execute("CREATE TABLE NPU_MEM (type INTEGER, ddr NUMERIC, hbm NUMERIC, timestampNs INTEGER, deviceId INTEGER)")
c.execute("INSERT INTO NPU_MEM VALUES (2, 0, 900, 1500000000, 3)")
c.execute("CREATE TABLE OP_MEMORY (name INTEGER, size INTEGER, allocationTime INTEGER, releaseTime INTEGER, activeReleaseTime INTEGER, duration INTEGER, activeDuration INTEGER, allocationTotalAllocated INTEGER, allocationTotalReserved INTEGER, allocationTotalActive INTEGER, releaseTotalAllocated INTEGER, releaseTotalReserved INTEGER, releaseTotalActive INTEGER, streamPtr INTEGER, deviceId INTEGER)")
c.executemany("INSERT INTO OP_MEMORY (name, size, releaseTime, duration) VALUES (?,?,?,?)", [
    (3, 64, 5, 2500), (3, 32, None, None), (3, -16, 9, 1)])
c.commit(); c.close()
sqlite3.connect(sys.argv[2]).execute("CREATE TABLE STRING_IDS (id, value)").connection.close()
PY
	sum=$(sha256sum "$d/p.db")
	run_pd 0 pd-sum-mem < <(root_line /r torch_npu 0 ascend_pytorch_profiler_db=$d/p.db)
	# PTA peak 300 at t = 2 s (reserved 500, active 350); growth (300 -
	# 100) / 1 s; APP reserved 900 from NPU_MEM; aten::add 64 + 32 bytes,
	# 2.5 us; one never released (32), one free (16)
	[ "$(jqr pd.mem '[.source,(.devices[0] | [.device,.component,.peak_allocated_bytes,.peak_reserved_bytes,.peak_active_bytes,.peak_time_ns,.fragmentation_bytes,.growth_bytes_per_s,.app_peak_reserved_bytes]),.top_allocators,.never_released,.frees_without_alloc,.modules,.npu_mem]')" = \
	    '["MEMORY_RECORD+NPU_MEM+OP_MEMORY",[3,"PTA",300,500,350,2000000000,200,200,900],[{"name":"aten::add","bytes":96,"count":2,"lifetime_us":2.5}],{"count":1,"bytes":32},{"count":1,"bytes":16},null,{"app_peak_bytes":900,"device_peak_bytes":null}]' ]
	[ "$(sha256sum "$d/p.db")" = "$sum" ]
	[ -z "$(ls "$d" | grep -E 'journal|wal|shm')" ]
	run_pd 3 pd-sum-mem < <(root_line /r torch_npu 0 ascend_pytorch_profiler_db=$d/none.db)
	[ "$stderr" = "pd-sum-mem: warning: $d/none.db: no memory tables (MEMORY_RECORD, NPU_MEM, OP_MEMORY, NPU_MODULE_MEM): profiled without profile_memory=True? no pd.mem for this root" ]
	[ -z "$(jqr pd.mem .)" ]
	# a text export beside it is read instead of the db
	run_pd 0 pd-sum-mem < <(root_line /r torch_npu 0 memory_record=$MF/record-kb.csv ascend_pytorch_profiler_db=$d/p.db)
	[ "$(jqr pd.mem .source)" = '"memory_record"' ]
}
