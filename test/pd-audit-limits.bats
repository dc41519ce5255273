#!/usr/bin/env bats
# pd-audit-limits: the ceilings of this machine (structure and ranges only:
# nothing here is timed), of lscpu / nvidia-smi / npu-smi captures from
# $CORPUS/smi (values from share/limits/peaks.yaml and the captures), and
# the red-alarm verdict on crafted pd.sample streams in fixtures/.
load helper
load contract

F="$FIX/pd-audit-limits"
S="$CORPUS/smi"
A() { pd-audit-limits -n -t 0 "$@"; }
jt() { jq -e "$2" <<<"$1" >/dev/null || { echo "failed: $2 on $1" >&2; return 1; }; }

@test "pd-audit-limits: -h prints usage to stdout" { contract_h pd-audit-limits; }
@test "pd-audit-limits: bad option is exit 2" { contract_badopt pd-audit-limits; }
@test "pd-audit-limits: missing record file is one error line, exit 5" {
	run_pd 5 A /nonexistent/dir
	[[ "$stderr" == "pd-audit-limits: error: /nonexistent/dir: No such file or directory" ]]
}
@test "pd-audit-limits: writing to /dev/full is exit 5" {
	contract_devfull pd-audit-limits -n -t 0 </dev/null
}
@test "pd-audit-limits: -t must be 0 to 600 seconds" {
	run_pd 2 pd-audit-limits -t x
	[[ "$stderr" == *"pd-audit-limits: error: -t: seconds must be 0 to 600, not 'x'"* ]]
}

@test "pd-audit-limits: stdin records pass through byte for byte, then pd.limits" {
	local in out
	in=$(mktemp)
	printf '%s\n' '{"type":"x.other","v":9,"k":[1,2.50,"é"]}' 'not json {' \
	    '  {"type":"x.more" ,"v":1}' >"$in"
	printf '%s' '{"type":"x.last","v":1}' >>"$in"
	run_pd 3 A <"$in"
	[[ "$stderr" == *"pd-audit-limits: warning: <stdin>:2: not a JSON object"* ]]
	out=$(mktemp)
	A <"$in" 2>/dev/null | head -n 4 >"$out" || true
	diff <(cat "$in"; echo) "$out"
	[ "$(A <"$in" 2>/dev/null | tail -n 1 | jq -r .type)" = pd.limits ]
	rm -f "$in" "$out"
}

@test "pd-audit-limits: empty input gives one pd.limits and no verdict" {
	run_pd 0 A </dev/null
	[ "${#lines[@]}" -eq 1 ]
	[ "$(jqr pd.limits 'keys_unsorted|join(",")')" = '"type,v,root,rank,source,cpu,memory,disk,accelerators,network,warnings"' ]
}

@test "pd-audit-limits: this machine: topology, availability, SIMD, a short STREAM" {
	run_pd 0 pd-audit-limits -n -t 0.2 </dev/null
	jt "$output" '.cpu.logical_cpus >= 1 and .cpu.available_cpus >= 0.01
	    and .cpu.available_cpus <= .cpu.logical_cpus
	    and (.cpu.flops_per_cycle_fp32 == 2 * .cpu.flops_per_cycle_fp64)
	    and (.cpu.source == "machine")'
	# measured: positive, at least 3 passes, 8-byte elements
	jt "$output" '.memory.stream_triad_gb_per_s > 0 and .memory.stream_passes >= 3
	    and .memory.stream_array_bytes % 8 == 0 and .memory.total_bytes > 0'
	jt "$output" '.disk == null and .accelerators == [] and (.network|type) == "array" and .warnings == []'
	# an FMA loop per usable CPU, its rate per CPU-second the threads got
	jt "$output" '.cpu.measured_gflops_fp64 > 0 and .cpu.measured_threads >= 1
	    and (.cpu.measured_kernel == "avx2_fma" or .cpu.measured_kernel == "scalar")'
}

@test "pd-audit-limits: -t 0 does not measure memory bandwidth" {
	run_pd 0 A </dev/null
	jt "$output" '.memory.stream_triad_gb_per_s == null and .memory.stream_passes == null'
}

@test "pd-audit-limits: -D DIR measures a sequential read and labels it" {
	mkdir "$BATS_TEST_TMPDIR/d"
	run_pd 0 pd-audit-limits -n -t 0.2 -D "$BATS_TEST_TMPDIR/d" </dev/null
	jt "$output" '.disk.read_gb_per_s > 0 and .disk.block_bytes == 1048576
	    and (.disk.direct|type) == "boolean" and .disk.cached_possible == (.disk.direct|not)'
	# the test file is removed
	[ -z "$(ls -A "$BATS_TEST_TMPDIR/d")" ]
}

@test "pd-audit-limits: -o DIR writes theoretical_limits.yaml equal to the record" {
	run_pd 0 A -o "$BATS_TEST_TMPDIR/out" </dev/null
	[ -f "$BATS_TEST_TMPDIR/out/theoretical_limits.yaml" ]
	# no temporary file left behind
	[ "$(ls -A "$BATS_TEST_TMPDIR/out")" = theoretical_limits.yaml ]
	if python3 -c 'import yaml' 2>/dev/null; then
		python3 -c 'import json,sys,yaml
y = yaml.safe_load(open(sys.argv[1]))
r = json.loads(sys.argv[2])
for k in ("type", "v", "root", "rank"): r.pop(k)
sys.exit(0 if y == r else 1)' "$BATS_TEST_TMPDIR/out/theoretical_limits.yaml" "$output"
	fi
	grep -q '^cpu:$' "$BATS_TEST_TMPDIR/out/theoretical_limits.yaml"
}

@test "pd-audit-limits: -c lscpu x86: 96 cores x 2100 MHz x AVX-512 (32 DP / 64 SP)" {
	require_corpus
	run_pd 0 A -c "$S/lscpu_x86_XeonPlatinum8468_2S_avx512_amx.txt" </dev/null
	# 48 cores/socket x 2 sockets; no CPU max MHz -> "@ 2.1GHz" of the BIOS model
	# 96 x 2100 MHz x 32 = 6451.2 GFLOP/s fp64; x 64 = 12902.4 fp32
	jt "$output" '.source == "lscpu" and .memory == null and .cpu.physical_cores == 96
	    and .cpu.logical_cpus == 192 and .cpu.max_mhz == 2100 and .cpu.freq_source == "model_name"
	    and .cpu.simd == "avx512" and .cpu.peak_gflops_fp64 == 6451.2
	    and .cpu.peak_gflops_fp32 == 12902.4 and .cpu.llc_bytes == 220200960'
}

@test "pd-audit-limits: -c lscpu aarch64: 192 cores x 2000 MHz x 2x128-bit FMA" {
	require_corpus
	run_pd 0 A -c "$S/lscpu_aarch64_Kunpeng920-5250Y_4S_sve.txt" </dev/null
	# 48 x 4 = 192 cores; 2 FMA x 2 lanes x 2 = 8 DP: 192 x 2000 x 8 = 3072
	jt "$output" '.cpu.physical_cores == 192 and .cpu.freq_source == "lscpu_max_mhz"
	    and .cpu.simd == "sve" and .cpu.flops_per_cycle_fp64 == 8
	    and .cpu.peak_gflops_fp64 == 3072 and .cpu.peak_gflops_fp32 == 6144
	    and .cpu.model == "Kunpeng 920 5250Y To be filled by O.E.M. CPU @ 2.0GHz"'
}

@test "pd-audit-limits: -g A100 table capture: dense A100 SXM4 80GB peaks" {
	require_corpus
	run_pd 0 A -g "$S/nvidia-smi_A100x8_matmul-loop_plus_dcgmi-stats.txt" </dev/null
	# peaks.yaml a100-sxm4-80gb: 312 dense BF16 (not 624 sparse), 2.039 TB/s;
	# ridge 312/2.039 = 153.0 FLOP/B
	jt "$output" '(.accelerators|length) == 8 and (.accelerators|map(.peak_key)|unique) == ["a100-sxm4-80gb"]'
	jt "$output" '.accelerators[0] | .bf16_tflops == 312 and .tf32_tflops == 156 and .fp32_tflops == 19.5
	    and .mem_bw_tb_per_s == 2.039 and .ridge_flop_per_byte == 153 and .confidence == "DS"
	    and .mem_total_bytes == 85899345920 and .power_limit_w == 400'
}

@test "pd-audit-limits: -g 910B1: matched, peaks not published (null), 64 GiB HBM" {
	require_corpus
	run_pd 0 A -g "$S/npu-smi_info_910B1_8npu_2proc.txt" </dev/null
	jt "$output" '(.accelerators|length) == 8 and (.accelerators|map(.peak_key)|unique) == ["ascend-910b1"]'
	jt "$output" '.accelerators[7] | .index == 7 and .bf16_tflops == null and .fp16_tflops == null
	    and .mem_total_bytes == 68719476736 and .confidence == "unverified"'
}

@test "pd-audit-limits: -g A3: 16 dies, the 800 TFLOP/s package split per chip" {
	require_corpus
	run_pd 0 A -g "$S/npu-smi_info_A3_Ascend910_16chip_busy.txt" </dev/null
	jt "$output" '(.accelerators|length) == 16 and .accelerators[1].chip == 1
	    and .accelerators[1].peak_key == "ascend-910c-a3" and .accelerators[1].bf16_tflops == 400
	    and .accelerators[1].chips_per_package == 2'
}

@test "pd-audit-limits: -g 910A and 310P3: FP16-only table rows" {
	require_corpus
	run_pd 0 A -g "$S/npu-smi_info_910A_2npu.txt" -g "$S/npu-smi_info_310P3_2chip_old_layout.txt" </dev/null
	jt "$output" '[.accelerators[]|[.peak_key,.fp16_tflops,.bf16_tflops,.mem_bw_tb_per_s]] ==
	    [["ascend-910a",256,null,1.2],["ascend-910a",256,null,1.2],
	     ["ascend-310p3",70,null,0.2],["ascend-310p3",70,null,0.2]]'
}

@test "pd-audit-limits: -g npu-smi -t common: peak derived from Aicore Count x Freq" {
	require_corpus
	run_pd 0 A -g "$S/npu-smi_info_-t_common_and_-m_examples_gpustack.txt" </dev/null
	# 32 AI cores x 8192 FLOP/cycle x 1000 MHz = 262.144 TFLOP/s
	jt "$output" '.accelerators[0] | .peak_source == "derived" and .bf16_tflops == 262.144'
	# NPU 1 has no Aicore Count: nothing derived, no name to match
	jt "$output" '.accelerators[1] | .peak_source == null and .bf16_tflops == null'
}

@test "pd-audit-limits: -g RTX PRO 6000 (not in the table): peaks null" {
	require_corpus
	run_pd 0 A -g "$S/nvidia-smi_query-gpu_pmon_dmon_RTXPRO6000x4.txt" </dev/null
	jt "$output" '(.accelerators|length) == 4 and .accelerators[0].peak_key == null
	    and .accelerators[0].bf16_tflops == null and .accelerators[0].power_limit_w == 300'
}

@test "pd-audit-limits: -g on a file without devices warns, exit 3" {
	run_pd 3 A -g "$F/idle.jsonl" </dev/null
	[[ "$stderr" == *"pd-audit-limits: warning: $F/idle.jsonl: no nvidia-smi or npu-smi device found"* ]]
	jt "$output" '.accelerators == []'
}

@test "pd-audit-limits: a broken peak table is a configuration error, exit 4" {
	printf 'accelerators: [\n' >"$BATS_TEST_TMPDIR/p.yaml"
	run_pd 4 A -P "$BATS_TEST_TMPDIR/p.yaml" </dev/null
	[[ "$stderr" == *"pd-audit-limits: error: $BATS_TEST_TMPDIR/p.yaml:"* ]]
	printf 'x: 1\n' >"$BATS_TEST_TMPDIR/q.yaml"
	run_pd 4 A -P "$BATS_TEST_TMPDIR/q.yaml" </dev/null
	[[ "$stderr" == *"no 'accelerators' list"* ]]
}

# A key given twice used to keep the second silently (here the peak would
# have been 500, not 165.2). Positions from the file written below.
@test "pd-audit-limits: a key given twice in the peak table is exit 4 with file:line:col" {
	printf 'accelerators:\n  - key: x\n    match: ["X"]\n    bf16_tflops: 165.2\n    bf16_tflops: 500\n' >"$BATS_TEST_TMPDIR/d.yaml"
	run_pd 4 A -P "$BATS_TEST_TMPDIR/d.yaml" </dev/null
	[ "$stderr" = "pd-audit-limits: error: $BATS_TEST_TMPDIR/d.yaml:5:5: key 'bf16_tflops' given twice (first at 4:5)" ]
	[ -z "$output" ]
}

# A key that is a list ("? [a, b]") or a mapping used to be dropped with
# no word (the loaders take keys as strings). Position: the "?" key node
# on line 5, column 7 of the file written below.
@test "pd-audit-limits: a key that is not a plain value is exit 4 with file:line:col" {
	printf 'accelerators:\n  - key: x\n    match: ["X"]\n    bf16_tflops: 165.2\n    ? [fp8_tflops, fp16]\n    : 500\n' >"$BATS_TEST_TMPDIR/k.yaml"
	run_pd 4 A -P "$BATS_TEST_TMPDIR/k.yaml" </dev/null
	[ "$stderr" = "pd-audit-limits: error: $BATS_TEST_TMPDIR/k.yaml:5:7: a key must be a plain value, not a list" ]
	[ -z "$output" ]
}

# The alias bomb of 8 lines (each list 9 aliases of the one before) used to
# run past 20 s at 2.8 GB. Expanded nodes: a 10, b 1 + 9 * 10 = 91, c 820,
# d 7381, e 66430, f would be 597871: f (6:4) is the first past 100000.
@test "pd-audit-limits: an alias bomb or deep nesting in the peak table is exit 4 with file:line:col" {
	python3 - "$BATS_TEST_TMPDIR/b.yaml" <<'PY'
import sys
l = ['a: &a [' + ', '.join(['"x"'] * 9) + ']']
for p, c in zip('abcdefg', 'bcdefgh'):
    l.append('%s: &%s [%s]' % (c, c, ', '.join(['*' + p] * 9)))
open(sys.argv[1], 'w').write('\n'.join(l) + '\n')
PY
	run_pd 4 timeout 10 pd-audit-limits -n -t 0 -P "$BATS_TEST_TMPDIR/b.yaml" </dev/null
	[ "$stderr" = "pd-audit-limits: error: $BATS_TEST_TMPDIR/b.yaml:6:4: aliases expand the document past 100000 nodes" ]
	[ -z "$output" ]
	# nesting past 64 levels (it used to become null silently): the
	# 66th '[' is at depth 65
	python3 -c "print('[' * 70 + ']' * 70)" >"$BATS_TEST_TMPDIR/n.yaml"
	run_pd 4 pd-audit-limits -n -t 0 -P "$BATS_TEST_TMPDIR/n.yaml" </dev/null
	[ "$stderr" = "pd-audit-limits: error: $BATS_TEST_TMPDIR/n.yaml:1:66: nested deeper than 64 levels" ]
}

@test "pd-audit-limits: peaks.yaml: specific names win (H100 NVL / PCIe / SXM, H200 NVL)" {
	local t="$BATS_TEST_TMPDIR/n.csv"
	printf 'index, name\n0, NVIDIA H100 NVL\n1, NVIDIA H100 PCIe\n2, NVIDIA H100 80GB HBM3\n3, NVIDIA H200\n4, NVIDIA H200 NVL\n5, NVIDIA GeForce RTX 4090\n6, NVIDIA L4\n7, NVIDIA L40S\n' >"$t"
	run_pd 0 A -g "$t" </dev/null
	# reference 1.2: 835 / 756 / 989.4 / 989 / 835.5 dense BF16; 4090 165.2 (FP32 acc)
	jt "$output" '[.accelerators[]|[.peak_key,.bf16_tflops]] == [["h100-nvl",835],["h100-pcie",756],
	    ["h100-sxm5",989.4],["h200-sxm",989],["h200-nvl",835.5],["rtx-4090",165.2],["l4",121],["l40s",362]]'
}

@test "pd-audit-limits: verdict: nothing saturated is the red alarm; -e exits 1" {
	run_pd 0 A <"$F/idle.jsonl"
	# idle.jsonl: CPU 0.25, GPU util 0.40 (4 samples each), memory 0.5
	[ "$(printf '%s\n' "$output" | tail -n 1 | jq -r .type)" = pd.verdict ]
	jt "$(jqr pd.verdict .)" '.alarm == true and .verdict == "speedup_possible" and .saturated == []
	    and .samples == 12 and .threshold_ratio == 0.7'
	jt "$(jqr pd.verdict .)" '[.resources[]|[.resource,.median_ratio,.saturated,.counts]] ==
	    [["cpu",0.25,false,true],["gpu",0.4,false,true],["mem",0.5,false,false]]'
	run_pd 1 A -e <"$F/idle.jsonl"
}

@test "pd-audit-limits: verdict: a busy GPU blocks the alarm, with low confidence" {
	run_pd 0 A -e <"$F/gpu-busy.jsonl"
	jt "$(jqr pd.verdict .)" '.alarm == false and .verdict == "saturated" and .saturated == ["gpu:0"]'
	jt "$(jqr pd.verdict '.resources[]|select(.resource=="gpu")')" '.metric == "util_ratio"
	    and .semantics == "busy_time" and .confidence == "low" and .median_ratio == 0.95
	    and .saturated_fraction == 1 and (.note|test("not SM occupancy"))'
}

# Who used the GPU (pd-collect's compute-apps samples) changes what its
# busy time says of the job: gpu-busy.jsonl (util 0.95 on GPU 0) plus one
# process sample per case, written here. Only others on it: its busy time
# is theirs, so it no longer counts and nothing the job used is
# saturated (the CPU is at 0.3): the red alarm. The job with another
# process: still saturated, but "shared". The job alone: "(the job)".
@test "pd-audit-limits: verdict: a GPU's busy time is the job's only when the job ran on it" {
	use() {
		printf '{"type":"pd.sample","v":1,"root":null,"rank":null,"run":"r1","t_s":1,"interval_s":1.0,"resource":"gpu","device":"0","source":"nvidia-smi-apps","job_processes":%s,"other_processes":%s,"unseen_processes":0,"job_mem_bytes":%s,"other_mem_bytes":%s,"others":%s}\n' "$@"
	}
	{ cat "$F/gpu-busy.jsonl"; use 0 1 0 536870912 '[{"pid":1,"process":"init"}]'; } >"$BATS_TEST_TMPDIR/others.jsonl"
	run_pd 1 A -e <"$BATS_TEST_TMPDIR/others.jsonl"
	jt "$(jqr pd.verdict .)" '.alarm == true and .saturated == []'
	jt "$(jqr pd.verdict '.resources[]|select(.resource=="gpu")')" '.scope == "others" and .counts == false
	    and .name == "NVIDIA H100 80GB HBM3" and .samples == 4 and .other_processes == 1
	    and .others == [{"pid":1,"process":"init"}] and (.note|test("^only other processes \\(1\\)"))'
	{ cat "$F/gpu-busy.jsonl"; use 1 2 2147483648 536870912 '[]'; } >"$BATS_TEST_TMPDIR/shared.jsonl"
	run_pd 0 A -e <"$BATS_TEST_TMPDIR/shared.jsonl"
	jt "$(jqr pd.verdict .)" '.saturated == ["gpu:0"] and (.summary|test("^saturated: gpu:0 \\(shared with other processes\\)"))'
	jt "$(jqr pd.verdict '.resources[]|select(.resource=="gpu")')" '.scope == "shared" and .counts == true
	    and .job_mem_bytes == 2147483648 and (.note|test("^2 other processes used this device too"))'
	{ cat "$F/gpu-busy.jsonl"; use 1 0 2147483648 0 '[]'; } >"$BATS_TEST_TMPDIR/job.jsonl"
	run_pd 0 A -e <"$BATS_TEST_TMPDIR/job.jsonl"
	jt "$(jqr pd.verdict .)" '.summary == "saturated: gpu:0 (the job)"'
}

# The job's memory: the largest job_pss_bytes of the samples (PSS counts a
# page shared by the job's processes once); samples from before PSS give
# the RSS with its basis said. Values: the two samples written here, of
# a 16 GiB host (17179869184 bytes): 2 GiB / 16 GiB = 0.125.
@test "pd-audit-limits: verdict: the job's peak memory, PSS before RSS" {
	mem() {
		printf '{"type":"pd.sample","v":1,"root":null,"rank":null,"run":"r1","t_s":%s,"interval_s":1.0,"resource":"mem","device":null,"source":"/proc/meminfo","total_bytes":17179869184,"available_bytes":8589934592,"used_ratio":0.5,"swap_used_bytes":0,"job_rss_bytes":%s%s}\n' "$@"
	}
	{ mem 1 8589934592 ',"job_pss_bytes":1073741824'; mem 2 8589934592 ',"job_pss_bytes":2147483648'; } >"$BATS_TEST_TMPDIR/m.jsonl"
	run_pd 0 A <"$BATS_TEST_TMPDIR/m.jsonl"
	jt "$(jqr pd.verdict '.resources[]|select(.resource=="mem")')" '.job_peak_bytes == 2147483648
	    and .job_basis == "pss" and .job_peak_ratio == 0.125 and .counts == false'
	{ mem 1 4294967296 ''; mem 2 8589934592 ''; } >"$BATS_TEST_TMPDIR/r.jsonl"
	run_pd 0 A <"$BATS_TEST_TMPDIR/r.jsonl"
	jt "$(jqr pd.verdict '.resources[]|select(.resource=="mem")')" '.job_peak_bytes == 8589934592
	    and .job_basis == "rss" and .job_peak_ratio == 0.5'
}

@test "pd-audit-limits: verdict: one thread pegged is single-thread bound" {
	run_pd 0 A -e <"$F/gil.jsonl"
	# aggregate CPU 0.13 and GPU 0.35 are low, but the top thread is 0.97
	jt "$(jqr pd.verdict .)" '.alarm == false and .saturated == ["cpu"]'
	jt "$(jqr pd.verdict '.resources[0]')" '.median_ratio == 0.13 and .top_thread_saturated_fraction == 1
	    and (.note|test("single-thread bound"))'
}

@test "pd-audit-limits: verdict: 100 % GPU-Util at 90 W of 400 W is busy waiting" {
	run_pd 0 A <"$F/gpu-lowpower.jsonl"
	jt "$(jqr pd.verdict '.resources[0]')" '.saturated == true and (.note|test("busy waiting"))'
}

@test "pd-audit-limits: verdict: DCGM sm_active wins over GPU-Util" {
	run_pd 1 A -e <"$F/dcgm.jsonl"
	# sm_active 0.3, 0.4, 0.5: median 0.4 although util_ratio is 1.0
	jt "$(jqr pd.verdict .)" '.alarm == true and .resources[0].metric == "sm_active_ratio"
	    and .resources[0].median_ratio == 0.4 and .resources[0].confidence == "high"'
}

@test "pd-audit-limits: verdict: disk against the measured read ceiling of a pd.limits" {
	run_pd 0 A -e <"$F/disk-ceiling.jsonl"
	# 1.6e9 B/s of a 2.0 GB/s ceiling = 0.8 >= 0.7 (busy_ratio 0.2 ignored)
	jt "$(jqr pd.verdict .)" '.alarm == false and .resources[0].median_ratio == 0.8
	    and .resources[0].metric == "throughput_of_measured_read"'
	jt "$(jqr pd.limits .disk)" '.read_gb_per_s == 2'
}

@test "pd-audit-limits: verdict: NVMe %util without a ceiling judges nothing" {
	run_pd 0 A -e <"$F/disk-nvme-noceiling.jsonl"
	jt "$(jqr pd.verdict .)" '.alarm == false and .verdict == "no_evidence"
	    and .resources[0].saturated == null and (.resources[0].note|test("SSD/NVMe"))'
}

@test "pd-audit-limits: -S A3 capture: AICore 7 % with HBM full raises the alarm" {
	require_corpus
	run_pd 1 A -e -S "$S/npu-smi_info_A3_Ascend910_16chip_busy.txt" </dev/null
	# 16 pd.sample (one per die), then pd.limits, then pd.verdict
	[ "$(jqr pd.sample .device | wc -l)" -eq 16 ]
	jt "$(jqr pd.verdict .)" '.alarm == true and (.resources|length) == 16
	    and ([.resources[].median_ratio]|max) == 0.08
	    and (.resources[0].note|test("memory held is not compute busy"))'
}

@test "pd-audit-limits: -S A100 capture: GPUs 0, 6, 7 busy (low confidence)" {
	require_corpus
	run_pd 0 A -e -S "$S/nvidia-smi_A100x8_matmul-loop_plus_dcgmi-stats.txt" </dev/null
	# GPU-Util 100 %, 91 %, 100 % on GPUs 0, 6, 7; 0 % elsewhere
	jt "$(jqr pd.verdict .)" '.alarm == false and .saturated == ["gpu:0","gpu:6","gpu:7"]'
}

@test "pd-audit-limits: same input, same verdict bytes" {
	a=$(A <"$F/idle.jsonl" | tail -n 1)
	b=$(A <"$F/idle.jsonl" | tail -n 1)
	[ "$a" = "$b" ]
}

@test "pd-audit-limits: runs nvidia-smi and npu-smi when on the PATH (stand-ins)" {
	PATH="$FIX/pd-collect/fakebin:$PATH" run_pd 0 pd-audit-limits -t 0 </dev/null
	# nvidia-smi stand-in: "NVIDIA H100 80GB HBM3" = SXM (989.4 dense BF16);
	# npu-smi stand-in: 910B3 (295 derived in the table)
	jt "$output" '[.accelerators[]|[.name,.peak_key,.bf16_tflops,.power_limit_w]] ==
	    [["NVIDIA H100 80GB HBM3","h100-sxm5",989.4,700],["910B3","ascend-910b3",295,null]]'
}

@test "pd-audit-limits: a -t common block completes the table row of its chip" {
	run_pd 0 A -g "$F/npu-na-power.txt" -g "$F/npu-common-910b3.txt" </dev/null
	# one device, not two; 20 AI cores x 8192 x 1800 MHz = 294.912 TFLOP/s
	# (the reference's "~295 derived" for 910B3)
	jt "$output" '(.accelerators|length) == 1 and .accelerators[0].name == "910B3"
	    and .accelerators[0].peak_source == "derived" and .accelerators[0].bf16_tflops == 294.912'
}

# Recorded on a 2-CPU machine that other builds kept busy: pd-collect -i 0.5
# of one busy loop per CPU for 3 s, and of sleep 3 (cpu and io samples).
@test "pd-audit-limits: recorded CPU-bound job on a busy host: saturated: cpu (the job)" {
	local f="$F/job-cpu-contended.jsonl"
	run_pd 0 A -e <"$f"
	# the job's demand (run + run-queue wait over the CPUs): median of the
	# recorded job_demand_ratio, taken with jq
	med=$(jq -s '[.[]|select(.resource=="cpu")|.job_demand_ratio]|sort|.[length/2|floor]' "$f")
	jt "$(jqr pd.verdict .)" ".alarm == false and .saturated == [\"cpu\"]
	    and .resources[0].metric == \"job_demand_ratio\" and .resources[0].scope == \"job\"
	    and .resources[0].median_ratio == $med and (.summary|startswith(\"saturated: cpu (the job); contention: the host was 100 % busy\"))"
	# the job itself used under 70 % of the CPUs: host saturation is the others'
	jt "$(jqr pd.verdict .contention)" '.contended == true and .job_ratio < 0.7 and .host_busy_ratio == 1'
}

@test "pd-audit-limits: recorded sleep on a busy host: red alarm, with contention" {
	local f="$F/job-sleep-contended.jsonl"
	run_pd 1 A -e <"$f"
	# host util_ratio 1 in every sample, the job's 0: the text from the medians
	jt "$(jqr pd.verdict .)" '.alarm == true and .bound.resource == "cpu"
	    and .summary == "red alarm, with contention: the host was 100 % busy, the job used 0 %: other processes"'
	# the io entry (the job's) has no ceiling without -D: not judged
	jt "$(jqr pd.verdict '.resources[]|select(.resource=="io")')" '.saturated == null and .scope == "job"'
}

@test "pd-audit-limits: the host busy, the job not: no longer 'saturated'" {
	# the issue's case: util_ratio (host) 1.0, job 0.225 of 2 CPUs
	printf '%s\n' '{"type":"pd.sample","v":1,"run":"x","resource":"cpu","device":null,"util_ratio":1,"busy_cpus":2,"available_cpus":2,"process_cpus":0.45,"top_thread_ratio":0.4,"job_util_ratio":0.225,"job_wait_cpus":0.05,"job_demand_ratio":0.25,"other_cpus":1.55}' >"$BATS_TEST_TMPDIR/s.jsonl"
	run_pd 1 A -e "$BATS_TEST_TMPDIR/s.jsonl" </dev/null
	jt "$(jqr pd.verdict .)" '.summary == "red alarm, with contention: the host was 100 % busy, the job used 22 %: other processes"'
}

@test "pd-audit-limits: samples without the job's figures are judged host-wide" {
	run_pd 0 A <"$F/idle.jsonl"
	jt "$(jqr pd.verdict '.resources[0]')" '.scope == "host" and (.note|test("host-wide"))'
	jt "$(jqr pd.verdict .)" '.contention == null and .summary == "red alarm"'
}

@test "pd-audit-limits: steal of 20-30 % says the host throttles" {
	run_pd 1 A -e <"$F/job-throttled.jsonl"
	# steal 0.2, 0.3, 0.25: median 0.25 >= 0.10
	jt "$(jqr pd.verdict .)" '.contention.throttling == true and .contention.steal_ratio == 0.25
	    and .summary == "red alarm; the host throttles (steal or cgroup quota)"'
}

@test "pd-audit-limits: -t 0 measures no CPU rate either" {
	run_pd 0 A </dev/null
	jt "$output" '.cpu.measured_gflops_fp64 == null and .cpu.measured_threads == null'
}

@test "pd-audit-limits: code that expects a GPU, none visible: the warning, the audit goes on" {
	local ws="$BATS_TEST_TMPDIR/ws"
	mkdir -p "$ws"
	printf '%s\n' 'import torch' 'model = torch.nn.Linear(4, 4).cuda()' 'opt = torch.optim.SGD(model.parameters(), lr=0.1)' \
	    'for x in range(3):' '    loss = model(torch.ones(4).to("cuda")).sum()' '    loss.backward()' '    opt.step()' >"$ws/train.py"
	# nvidia-smi and npu-smi stand-ins that find no driver
	pd-find-context "$ws" >"$BATS_TEST_TMPDIR/ctx.jsonl"
	PATH="$F/nogpu:$PATH" run_pd 0 pd-audit-limits -t 0 -o "$BATS_TEST_TMPDIR/out" "$BATS_TEST_TMPDIR/ctx.jsonl"
	[[ "$stderr" == *"pd-audit-limits: warning: train.py:2: no GPU detected but code expects one; the audit continues on CPU and I/O"* ]]
	jt "$(jqr pd.limits .warnings)" '. == ["[WARNING] No GPU detected but code expects one: train.py:2: model = torch.nn.Linear(4, 4).cuda(); the audit continues on CPU and I/O"]'
	grep -q 'No GPU detected but code expects one' "$BATS_TEST_TMPDIR/out/theoretical_limits.yaml"
	# the stand-in nvidia-smi (a GPU) silences it
	PATH="$FIX/pd-collect/fakebin:$PATH" run_pd 0 pd-audit-limits -t 0 "$BATS_TEST_TMPDIR/ctx.jsonl"
	jt "$(jqr pd.limits .warnings)" '. == []'
	# code that names no device: no warning
	printf 'print(1)\n' >"$ws/train.py"
	PATH="$F/nogpu:$PATH" run_pd 0 sh -c "pd-find-context '$ws' | pd-audit-limits -t 0"
	jt "$(jqr pd.limits .warnings)" '. == []'
}

@test "pd-audit-limits: theoretical_limits.yaml: unknown peaks say UNKNOWN, fill in manually" {
	require_corpus
	run_pd 0 A -g "$S/nvidia-smi_query-gpu_pmon_dmon_RTXPRO6000x4.txt" -o "$BATS_TEST_TMPDIR/o" </dev/null
	# the record keeps null; the YAML for people says what to do
	jt "$output" '.accelerators[0].bf16_tflops == null'
	[ "$(grep -c 'bf16_tflops: UNKNOWN — fill in manually' "$BATS_TEST_TMPDIR/o/theoretical_limits.yaml")" -eq 4 ]
	# a GPU of the table keeps its numbers
	run_pd 0 A -g "$S/nvidia-smi_A100x8_matmul-loop_plus_dcgmi-stats.txt" -o "$BATS_TEST_TMPDIR/p" </dev/null
	not grep -q 'bf16_tflops: UNKNOWN' "$BATS_TEST_TMPDIR/p/theoretical_limits.yaml"
	grep -q 'bf16_tflops: 312' "$BATS_TEST_TMPDIR/p/theoretical_limits.yaml"
}

# ---- the audit's steps 3 to 5 ----

@test "pd-audit-limits: -s, -x and -R need -o; -x needs -b and -a; -N and -x are checked" {
	run_pd 2 A -s </dev/null
	[[ "$stderr" == *"pd-audit-limits: error: -s needs -o DIR"* ]]
	run_pd 2 A -R </dev/null
	[[ "$stderr" == *"pd-audit-limits: error: -R needs -o DIR"* ]]
	run_pd 2 A -o "$BATS_TEST_TMPDIR/o" -x e1 -b true </dev/null
	[[ "$stderr" == *"pd-audit-limits: error: -x needs -b BEFORE and -a AFTER"* ]]
	run_pd 2 A -o "$BATS_TEST_TMPDIR/o" -x e1 -N 1 -b true -a true </dev/null
	[[ "$stderr" == *"pd-audit-limits: error: -N: runs must be 2 to 50, not '1'"* ]]
	run_pd 2 A -o "$BATS_TEST_TMPDIR/o" -x ../up -b true -a true </dev/null
	[[ "$stderr" == *"pd-audit-limits: error: -x: name must be letters, digits, '-', '_' or '.', not '../up'"* ]]
}

@test "pd-audit-limits: -s ranks at least 5 basic and 3 advanced strategies with evidence" {
	local ws="$BATS_TEST_TMPDIR/ws" o="$BATS_TEST_TMPDIR/report/efficiency"
	mkdir -p "$ws"
	cp "$F/train/train.py" "$ws/"
	sed "s|@WS@|$ws|" "$F/audit-in.jsonl" >"$BATS_TEST_TMPDIR/in.jsonl"
	cat "$F/idle.jsonl" "$BATS_TEST_TMPDIR/in.jsonl" >"$BATS_TEST_TMPDIR/all.jsonl"
	run_pd 0 A -s -o "$o" "$BATS_TEST_TMPDIR/all.jsonl"
	[ "$(jqr pd.strategy 'select(.level=="basic")|.id' | wc -l)" -ge 5 ]
	[ "$(jqr pd.strategy 'select(.level=="advanced")|.id' | wc -l)" -ge 3 ]
	# expected gains: the fired rule's impact 0.42 (audit-in.jsonl); the
	# priors of share/limits/strategies.yaml for the warn findings (0.30
	# dataloader_workers, 0.20 prefetch_more, 0.15 no_sync_in_step); the
	# verdict is the red alarm, and all four address waiting ("idle")
	[ "$(jqr pd.strategy '[.position,.id,.expected_gain_ratio,.gain_from]' | head -n 4 | tr -d '\n')" = \
	    '[1,"compile_graphs",0.42,"bottleneck"][2,"dataloader_workers",0.3,"finding"][3,"prefetch_more",0.2,"finding"][4,"no_sync_in_step",0.15,"finding"]' ]
	# the text is the rules' fix: the bottleneck's rendered one, else the rule's own
	jt "$(jqr pd.strategy 'select(.id=="compile_graphs")')" '.proposal == "Cut host launch overhead" and .change == "model = torch.compile(model)"
	    and (.evidence[0]|startswith("perfdiag.device_idle: the device is idle 42 %"))'
	p=$(jqr pd.strategy 'select(.id=="dataloader_workers")|.proposal' | jq -r .)
	grep -qF "proposal: \"$p\"" "$TOP/share/rules/default.yaml"
	jt "$(jqr pd.strategy 'select(.id=="dataloader_workers")')" '.rule == "tbprof.dataloader"
	    and (.evidence|index("train.py:33: dataloader_workers (warn)")) != null
	    and (.evidence|map(startswith("verdict: red alarm"))|any)
	    and .edited_copy == "experiments/dataloader_workers/train.py"'
	# strategies.md and analysis.html; the copy is edited, the original is not
	grep -q '^| 1 | advanced | compile_graphs | 42.0 % | bottleneck | perfdiag.device_idle |$' "$o/strategies.md"
	grep -q '<h2>Data loading</h2>' "$o/analysis.html"
	cmp "$F/train/train.py" "$ws/train.py"
	# 2 workers: the usable CPUs of this machine, at least 2 and at most 8
	n=$(jqr pd.limits '.cpu.available_cpus|floor|if . < 2 then 2 elif . > 8 then 8 else . end')
	diff <(sed -n 33p "$ws/train.py" | sed "s/shuffle=False)/shuffle=False, num_workers=$n)/") \
	    <(sed -n 33p "$o/experiments/dataloader_workers/train.py")
	[ "$(diff "$ws/train.py" "$o/experiments/dataloader_workers/train.py" | grep -c '^[<>]')" -eq 2 ]
}

# The same command before and after: no measurable gain. It sleeps 4 s so
# that the noise floor is 5 % of its time (0.2 s) rather than the 0.1 s
# one: on a loaded host (the sanitizer suite, 3 files at a time on 2
# cores) two runs each of "sleep 0.1" once read 0.331, 0.312 against
# 0.228, 0.203 s, a gap over 0.1 s between identical commands.
@test "pd-audit-limits: -x: no measurable gain is FAILED, a failing command is tried 3 times" {
	local o="$BATS_TEST_TMPDIR/o"
	run_pd 0 A -o "$o" -x same -N 2 -b 'sleep 4' -a 'sleep 4' </dev/null
	jt "$output" '.type == "pd.experiment" and .status == "FAILED" and (.reason|startswith("no measurable gain"))
	    and (.before_wall_s|length) == 2 and (.after_wall_s|length) == 2 and .log == "experiments/same.log"'
	[ "$(grep -c ': ok, exit status 0' "$o/experiments/same.log")" -eq 4 ]
	# the pairs alternate their order (ABBA): before runs first in one
	# pair, after in the next
	[ "$(sed -n 's/^run same-\(.*\)-try1: start$/\1/p' "$o/experiments/same.log" | tr '\n' ' ')" = "before-1 after-1 after-2 before-2 " ]
	run_pd 0 A -o "$o" -x broken -N 2 -b 'true' -a 'exit 3' </dev/null
	jt "$output" '.status == "FAILED" and .reason == "the changed command failed 3 times" and .after_wall_s == []'
	[ "$(grep -c 'run broken-after-1-try[123]: failed, exit status 3' "$o/experiments/broken.log")" -eq 3 ]
}

@test "pd-audit-limits: -x: a faster variant is measured, with the diff of the files" {
	local o="$BATS_TEST_TMPDIR/o" d="$BATS_TEST_TMPDIR/d"
	mkdir -p "$d"
	printf 'sleep 1.2\n' >"$d/job.sh"
	printf 'sleep 0.2\n' >"$d/fast.sh"
	run_pd 0 A -o "$o" -x faster -N 3 -b "sh $d/job.sh" -a "sh $d/fast.sh" </dev/null
	# sleeps of 1.2 s and 0.2 s: a gain of about 1 s, far above the noise
	jt "$output" '.status == "measured" and .metric.verdict == "improved" and .speedup > 1.5
	    and .metric.delta < -0.5 and .metric.noise < 0.5'
	jt "$output" ".diff == \"- sh $d/job.sh\\n+ sh $d/fast.sh\\n--- $d/job.sh\\n+++ $d/fast.sh\\n@@ -1,1 +1,1 @@\\n-sleep 1.2\\n+sleep 0.2\\n\""
}

# check_final HTML: in headless Chromium (chrome, test/helper.bash), no
# console line, both charts with bars in the DOM, a screenshot that is not
# blank.
check_final() {
	local d=$BATS_TEST_TMPDIR
	B=$(chromium_bin)
	if [ -z "$B" ]; then
		[ "${CI:-}" != true ] || { echo "chromium missing in CI" >&2; return 1; }
		skip "chromium is not installed"
	fi
	# one start: the DOM on stdout, the screenshot
	chrome --window-size=1000,1400 --screenshot="$d/shot.png" \
	    --dump-dom "file://$1" >"$d/dom.html" 2>"$d/dom.err"
	not grep -E 'CONSOLE|Refused to|ERR_' "$d/dom.err"
	grep -q '<svg id="chart-limits"' "$d/dom.html"
	grep -q '<svg id="chart-speedups"' "$d/dom.html"
	[ "$(grep -o '<rect ' "$d/dom.html" | wc -l)" -ge 6 ]
	not grep -q '<script' "$d/dom.html"
	read -r w h colors bg < <("$PD_TESTBIN/png-check" "$d/shot.png")
	echo "screenshot: ${w}x$h, $colors colours, background $bg" >&2
	[ "$w" = 1000 ] && [ "${colors%+}" -ge 20 ]
	awk -v b="$bg" 'BEGIN { exit !(b < 0.97) }'
}

@test "pd-audit-limits: -R writes final_report.md and .html from the audit's records" {
	local o="$BATS_TEST_TMPDIR/report/efficiency" d="$BATS_TEST_TMPDIR/d"
	mkdir -p "$d"
	printf 'sleep 1.2\n' >"$d/job.sh"
	printf 'sleep 0.2\n' >"$d/fast.sh"
	A -s -o "$o" "$F/idle.jsonl" >"$BATS_TEST_TMPDIR/audit.jsonl"
	A -o "$o" -x faster -N 3 -b "sh $d/job.sh" -a "sh $d/fast.sh" </dev/null >>"$BATS_TEST_TMPDIR/audit.jsonl"
	A -o "$o" -x same -N 2 -b 'sleep 0.1' -a 'sleep 0.1' </dev/null >>"$BATS_TEST_TMPDIR/audit.jsonl"
	run_pd 0 A -R -o "$o" "$BATS_TEST_TMPDIR/audit.jsonl"
	# the input passes through; nothing is added
	[ "$output" = "$(cat "$BATS_TEST_TMPDIR/audit.jsonl")" ]
	md="$o/final_report.md"
	# idle.jsonl: the red alarm; GPU 0.40 is the nearest its ceiling (CPU 0.25)
	grep -qx '## Verdict: RED' "$md"
	grep -qx 'red alarm. Bound resource: gpu:0.' "$md"
	grep -qx '| cpu | util_ratio | 25 % | no |' "$md"
	# the measured change first, with its diff; the FAILED one listed
	grep -q '^### 1\. faster: ' "$md"
	grep -qx -- '-sleep 1.2' "$md"
	grep -qx -- '+sleep 0.2' "$md"
	grep -q '^| same | FAILED |' "$md"
	grep -q "^pd-audit-limits -o report/efficiency -x faster -N 3 -b 'sh $d/job.sh' -a 'sh $d/fast.sh'" "$md"
	grep -q '<p class="verdict RED">RED</p>' "$o/final_report.html"
	check_final "$o/final_report.html"
}

# A real CPU training run (Debian python3-torch): a DataLoader without
# workers whose reads wait (fixtures/pd-audit-limits/train/train.py),
# through the whole audit.
@test "pd-audit-limits: the whole audit of a CPU training run (torch, num_workers=0)" {
	require_torch
	local ws="$BATS_TEST_TMPDIR/ws" o="$BATS_TEST_TMPDIR/report/efficiency" a="$BATS_TEST_TMPDIR/audit.jsonl"
	mkdir -p "$ws"
	cp "$F/train/train.py" "$ws/"
	pd-find-context "$ws" >"$BATS_TEST_TMPDIR/ctx.jsonl"
	pd-collect -n -i 0.5 -- "$PY" "$ws/train.py" >"$BATS_TEST_TMPDIR/run.jsonl"
	cat "$BATS_TEST_TMPDIR/ctx.jsonl" "$BATS_TEST_TMPDIR/run.jsonl" |
	    pd-audit-limits -n -t 0.2 -D "$o" -s -o "$o" >"$a"
	[ -f "$o/theoretical_limits.yaml" ] && [ -f "$o/strategies.md" ] && [ -f "$o/analysis.html" ]
	output=$(cat "$a")
	# the verdict follows from the samples: the job's CPU demand (median,
	# linear interpolation as pd_stats) and the busiest thread, with jq
	med=$(jq -s '[.[]|select(.type=="pd.sample" and .resource=="cpu")|.job_demand_ratio]|sort|
	    if length % 2 == 1 then .[length/2|floor] else (.[length/2-1] + .[length/2]) / 2 end' "$a")
	top=$(jq -s '[.[]|select(.type=="pd.sample" and .resource=="cpu" and .top_thread_ratio != null)|.top_thread_ratio]|
	    (map(select(. >= 0.9))|length) / length' "$a")
	cpu_sat=$(jq -n "$med >= 0.7 or $top > 0.5")
	jt "$(jqr pd.verdict '.resources[]|select(.resource=="cpu")')" ".scope == \"job\" and .saturated == $cpu_sat"
	alarm=$(jqr pd.verdict .alarm)
	echo "cpu demand median $med, busy-thread share $top, alarm $alarm" >&2
	jt "$(jqr pd.verdict .)" '.alarm == (.saturated == [])'
	# the finding of pd-find-context leads: num_workers in an edited copy
	jt "$(jqr pd.strategy 'select(.id=="dataloader_workers")')" '.gain_from == "finding" and .edited_copy != null'
	grep -q 'dataloader_workers' "$o/strategies.md"
	pd-audit-limits -o "$o" -x dataloader_workers -N 2 -b "$PY $ws/train.py" \
	    -a "$PY $o/experiments/dataloader_workers/train.py" </dev/null >>"$a"
	e=$(jq -c 'select(.type=="pd.experiment")' "$a")
	echo "$e" | jq -c 'del(.diff)' >&2
	# 160 reads of 0.1 s: 16 s in turn, about 8 s with 2 workers
	jt "$e" '.status == "measured" and .speedup > 1 and (.diff|test("num_workers=[0-9]"))'
	[ "$(grep -c ': ok, exit status 0' "$o/experiments/dataloader_workers.log")" -eq 4 ]
	run_pd 0 pd-audit-limits -R -o "$o" "$a"
	if [ "$alarm" = true ]; then want=RED; else want=GREEN; fi
	grep -qx "## Verdict: $want" "$o/final_report.md"
	grep -q '^### 1\. dataloader_workers: ' "$o/final_report.md"
	check_final "$o/final_report.html"
}
