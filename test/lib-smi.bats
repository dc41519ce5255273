#!/usr/bin/env bats
# lib/pd_smi on every capture in $CORPUS/smi and on small fixtures of our
# own. Every expected value was read by hand off the capture file named in
# the test (the row and column are given in the comment); byte values are
# MiB/MB x 1048576.
load helper

D() { "$PD_TESTBIN/smi-dump" "$@"; }
# jt JSON FILTER: FILTER (a comparison) holds; numbers compare as numbers,
# so 101.0 == 101 whatever jq version prints
jt() { jq -e "$2" <<<"$1" >/dev/null || { echo "failed: $2 on $1" >&2; return 1; }; }
S="$CORPUS/smi"
F="$FIX/pd-audit-limits"

@test "smi: npu-smi 910B1 table: 8 NPUs, HBM used/total, power, temp" {
	require_corpus
	run_pd 0 D npu "$S/npu-smi_info_910B1_8npu_2proc.txt"
	# 8 NPU rows; the process table below them adds nothing
	[ "${#lines[@]}" -eq 8 ]
	# NPU 0: "101.0  49" and "0  0 / 0  7324 / 65536"
	jt "${lines[0]}" '([.index,.chip,.name,.health,.power_w,.temp_c,.util_ratio,.mem_used_bytes,.mem_total_bytes]) == [0,0,"910B1","OK",101.0,49.0,0.0,7679770624,68719476736]'
	# NPU 7: bus 0000:42:00.0, HBM 3378 / 65536
	jt "${lines[7]}" '([.index,.bus_id,.mem_used_bytes]) == [7,"0000:42:00.0",3542089728]'
}

@test "smi: npu-smi A3 table: 16 chips, Phy-ID, power '-', 5-digit '61609/ 65536'" {
	require_corpus
	run_pd 0 D npu "$S/npu-smi_info_A3_Ascend910_16chip_busy.txt"
	[ "${#lines[@]}" -eq 16 ]
	# NPU 0 chip 0: 211.3 W, AICore 7, HBM "61609/ 65536"
	jt "${lines[0]}" '([.index,.chip,.phy_id,.power_w,.util_ratio,.mem_used_bytes]) == [0,0,0,211.3,0.07,64601718784]'
	# NPU 0 chip 1 (second die): Power "-" -> null, HBM 61625
	jt "${lines[1]}" '([.index,.chip,.phy_id,.power_w,.mem_used_bytes]) == [0,1,1,null,64618496000]'
	# NPU 4 chip 0 (Phy-ID 8): AICore 8
	jt "${lines[8]}" '([.index,.chip,.phy_id,.util_ratio]) == [4,0,8,0.08]'
}

@test "smi: npu-smi 910A table: DDR Memory-Usage beside HBM" {
	require_corpus
	run_pd 0 D npu "$S/npu-smi_info_910A_2npu.txt"
	[ "${#lines[@]}" -eq 2 ]
	# NPU 0: "839  / 15170" DDR, "1    / 32768" HBM, 70.9 W
	jt "${lines[0]}" '([.name,.power_w,.ddr_used_bytes,.ddr_total_bytes,.mem_used_bytes,.mem_total_bytes]) == ["910A",70.9,879755264,15906897920,1048576,34359738368]'
}

@test "smi: npu-smi 310P3 old layout: no HBM column, Device id" {
	require_corpus
	run_pd 0 D npu "$S/npu-smi_info_310P3_2chip_old_layout.txt"
	[ "${#lines[@]}" -eq 2 ]
	# NPU 1: "0  1 | 0000:89:00.0 | 0  1070 / 21534"
	jt "${lines[1]}" '([.index,.chip,.phy_id,.name,.mem_used_bytes,.mem_total_bytes,has("ddr_total_bytes")]) == [1,0,1,"310P3",1121976320,22580035584,false]'
}

@test "smi: npu-smi table with NA power and a Warning health (fixture)" {
	run_pd 0 D npu "$F/npu-na-power.txt"
	jt "$output" '([.index,.name,.health,.power_w,.util_ratio,.mem_used_bytes]) == [3,"910B3","Warning",null,0.92,68157440000]'
}

@test "smi: npu-smi -t usages: HBM and DDR-only blocks, keys by name" {
	require_corpus
	run_pd 0 D kv "$S/npu-smi_info_-t_usages_examples_gpustack.txt"
	[ "${#lines[@]}" -eq 2 ]
	# example 1: HBM Capacity 32768, HBM BW 0, DDR Capacity 15171
	jt "${lines[0]}" '([.source,.index,.chip,.mem_total_bytes,.mem_util_ratio,.ddr_total_bytes]) == ["npu-smi-usages",0,0,34359738368,0.0,15907946496]'
	# example 2 (310P): DDR 21534 is the device memory, DDR BW 51 %, DDR usage 4 %
	jt "${lines[1]}" '([.index,.mem_total_bytes,.mem_util_ratio,.mem_used_ratio,.vector_util_ratio]) == [1,22580035584,0.51,0.04,0.0]'
}

@test "smi: npu-smi -t common: Aicore Count/Freq; the mcu block is not a chip" {
	require_corpus
	run_pd 0 D kv "$S/npu-smi_info_-t_common_and_-m_examples_gpustack.txt"
	[ "${#lines[@]}" -eq 2 ]
	jt "${lines[0]}" '([.source,.aicore_count,.aicore_freq_mhz,.aicore_cur_freq_mhz,.power_w]) == ["npu-smi-common",32,1000.0,1000.0,69.0]'
	# example 2: curFreq 960 of 1080; the 13.4 W belongs to the mcu block
	jt "${lines[1]}" '([.index,.aicore_freq_mhz,.aicore_cur_freq_mhz,has("power_w")]) == [1,1080.0,960.0,false]'
}

@test "smi: nvidia-smi table (A100 x8): name, power, memory, GPU-Util" {
	require_corpus
	run_pd 0 D table "$S/nvidia-smi_A100x8_matmul-loop_plus_dcgmi-stats.txt"
	[ "${#lines[@]}" -eq 8 ]
	# GPU 0: "64C P0 358W / 400W | 54906MiB / 81920MiB | 100%"
	jt "${lines[0]}" '([.index,.name,.temp_c,.power_w,.power_limit_w,.mem_used_bytes,.mem_total_bytes,.util_ratio]) == [0,"NVIDIA A100-SXM4-80GB",64.0,358.0,400.0,57573113856,85899345920,1.0]'
	# GPU 6: 313W, 91%
	jt "${lines[6]}" '([.index,.power_w,.util_ratio]) == [6,313.0,0.91]'
}

@test "smi: --query-gpu noheader nounits (fields from the command line), N/A" {
	require_corpus
	run_pd 0 D parse "$S/nvidia-smi_query-gpu_pmon_dmon_RTXPRO6000x4.txt"
	[ "${#lines[@]}" -eq 4 ]
	# GPU 0 row: util 99, mem util 55, memory.total 97887, used 90538,
	# temperature.gpu 81, power 299.35 / 300.00, clocks.gr 1927, max.gr 3090
	jt "${lines[0]}" '([.source,.util_ratio,.mem_util_ratio,.mem_total_bytes,.mem_used_bytes,.temp_c,.power_w,.power_limit_w,.sm_clock_mhz,.sm_clock_max_mhz]) == ["nvidia-smi-csv",0.99,0.55,102641958912,94935973888,81.0,299.35,300.0,1927.0,3090.0]'
}

@test "smi: --query-gpu with a header and units; [N/A] and N/A are null (fixture)" {
	run_pd 0 D csv "$F/nv-header.csv"
	[ "${#lines[@]}" -eq 2 ]
	jt "${lines[0]}" '([.name,.util_ratio,.mem_util_ratio,.mem_used_bytes,.power_w]) == ["NVIDIA H100 80GB HBM3",0.45,0.12,1073741824,250.5]'
	jt "${lines[1]}" '([.util_ratio,.mem_util_ratio,.mem_used_bytes,.power_w]) == [null,null,null,null]'
}

@test "smi: pmon and dmon blocks, '-' is null" {
	require_corpus
	run_pd 0 D mon "$S/nvidia-smi_query-gpu_pmon_dmon_RTXPRO6000x4.txt"
	# 6 pmon rows then 4 dmon rows
	[ "$(jq -r .source <<<"$output" | sort | uniq -c | awk '{print $2"="$1}' | tr '\n' ' ')" = "nvidia-smi-dmon=4 nvidia-smi-pmon=6 " ]
	# pmon row 3: "2  377306  C  -  -  ... 550  0  python3"
	jt "${lines[2]}" '([.index,.pid,.util_ratio,.mem_util_ratio,.mem_used_bytes,.process]) == [2,377306,null,null,576716800,"python3"]'
	# dmon GPU 0: pwr 294, gtemp 81, sm 98, mem 57, pclk 1897
	jt "${lines[6]}" '([.index,.power_w,.temp_c,.util_ratio,.mem_util_ratio,.sm_clock_mhz]) == [0,294.0,81.0,0.98,0.57,1897.0]'
}

@test "smi: lscpu x86 (no CPU max MHz: nominal from the BIOS model)" {
	require_corpus
	run_pd 0 D lscpu "$S/lscpu_x86_XeonPlatinum8468_2S_avx512_amx.txt"
	jt "$output" '([.architecture,.cpus,.threads_per_core,.cores_per_socket,.sockets,.max_mhz,.nominal_mhz,.l3_bytes,.numa_nodes]) == ["x86_64",192,2,48,2,null,2100.0,220200960,2]'
	jt "$output" '([.flags|index("avx512f","amx_tile")|type]) == ["number","number"]'
}

@test "smi: lscpu aarch64 ('Model name: -' is null, SVE flags)" {
	require_corpus
	run_pd 0 D lscpu "$S/lscpu_aarch64_Kunpeng920-5250Y_4S_sve.txt"
	jt "$output" '([.model_name,.cpus,.sockets,.max_mhz,.nominal_mhz,.l3_bytes,.numa_nodes,(.flags|index("sve")|type)]) == [null,384,4,2000.0,2000.0,352321536,8,"number"]'
}

@test "smi: every corpus capture parses to something, none crashes" {
	require_corpus
	for f in "$S"/*.txt; do
		run_pd 0 D parse "$f"
		case "$f" in *lscpu*) continue ;; esac
		[ -n "$output" ]
	done
}

@test "smi: empty and garbage input give no devices" {
	run_pd 0 D parse /dev/null
	[ -z "$output" ]
	printf '| x | y | z |\n# gpu sm\n#Idx\nfoo\n' >"$BATS_TEST_TMPDIR/g"
	run_pd 0 D parse "$BATS_TEST_TMPDIR/g"
	[ -z "$output" ]
}

# A byte count that does not fit in an int64 (1e300 MiB) is no value, not
# llround's INT64_MIN (which read as -9.2e18 bytes before).
@test "smi: a memory size too large for int64 is null" {
	printf 'index, name, memory.used [MiB], memory.total [MiB]\n0, G, 1e300 MiB, 81559 MiB\n' >"$BATS_TEST_TMPDIR/h.csv"
	run_pd 0 D csv "$BATS_TEST_TMPDIR/h.csv"
	jt "${lines[0]}" '([.mem_used_bytes,.mem_total_bytes]) == [null,85520809984]'
}

# Which processes use the devices. RTX PRO 6000 capture, the
# --query-compute-apps block (pid, process_name, gpu_uuid, used_memory):
# 6 rows; row 1 "2094147, sglang::scheduler_TP0_EP0, GPU-e16d248c-...,
# 90480" (90480 MiB = 94875156480 bytes); pid 377306 on two GPUs (rows 3
# and 5). The --query-gpu block maps uuids to indexes (4 GPUs).
@test "smi: nvidia-smi compute-apps rows and the uuid -> index map" {
	require_corpus
	f="$S/nvidia-smi_query-gpu_pmon_dmon_RTXPRO6000x4.txt"
	run_pd 0 D apps "$f"
	[ "${#lines[@]}" -eq 6 ]
	jt "${lines[0]}" '. == {"gpu_uuid":"GPU-e16d248c-c1a9-3302-01d6-82c18e02c9ce","pid":2094147,"process":"sglang::scheduler_TP0_EP0","mem_used_bytes":94875156480}'
	jt "${lines[2]}" '.pid == 377306 and .process == "/root/sglang/.venv/bin/python3" and .mem_used_bytes == 576716800'
	jt "${lines[4]}" '.pid == 377306 and .gpu_uuid == "GPU-e3bec724-5bbb-759f-fdfd-e690b400593f"'
	# the uuid map reads "index, uuid" lines only: this capture's 23-field
	# --query-gpu lines are not that shape
	run_pd 0 D uuids "$f"
	[ "$output" = '{}' ]
	printf '0, GPU-e16d248c-c1a9-3302-01d6-82c18e02c9ce\n1, GPU-45007176-8a28-3db0-cea5-27903b16107b\n' >"$BATS_TEST_TMPDIR/u.csv"
	run_pd 0 D uuids "$BATS_TEST_TMPDIR/u.csv"
	[ "$output" = '{"GPU-e16d248c-c1a9-3302-01d6-82c18e02c9ce":0,"GPU-45007176-8a28-3db0-cea5-27903b16107b":1}' ]
	# a process name with commas keeps them; N/A memory is null
	printf '42, python, -c, x, GPU-aa, N/A\n' >"$BATS_TEST_TMPDIR/a.csv"
	run_pd 0 D apps "$BATS_TEST_TMPDIR/a.csv"
	[ "$output" = '{"gpu_uuid":"GPU-aa","pid":42,"process":"python, -c, x","mem_used_bytes":null}' ]
}

# npu-smi process tables. 910B1: "| 0  0 | 919717 | python | 3969 |" and
# NPU 1's 920633, "No running processes found" for NPUs 2-7 (3969 MB =
# 4161798144 bytes). A3: 23 rows, names blank; NPU 0 chip 1 holds pid
# 929405 with 58780 MB = 61635297280 bytes.
@test "smi: npu-smi info process tables" {
	require_corpus
	run_pd 0 D npuprocs "$S/npu-smi_info_910B1_8npu_2proc.txt"
	[ "${#lines[@]}" -eq 2 ]
	jt "${lines[0]}" '. == {"device":"0:0","pid":919717,"process":"python","mem_used_bytes":4161798144}'
	jt "${lines[1]}" '.device == "1:0" and .pid == 920633'
	run_pd 0 D npuprocs "$S/npu-smi_info_A3_Ascend910_16chip_busy.txt"
	[ "${#lines[@]}" -eq 23 ]
	jt "${lines[8]}" '. == {"device":"0:1","pid":929405,"process":null,"mem_used_bytes":61635297280}'
	# a table without a process section gives none
	run_pd 0 D npuprocs "$F/npu-na-power.txt"
	[ -z "$output" ]
}
