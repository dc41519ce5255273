/* pd_smi: parsers for accelerator and CPU inventory/utilization tools.
 *
 * Every parser takes the text a tool printed (a capture file, or a child's
 * stdout) and returns a JSON array of device objects (NEW reference; empty
 * when nothing was recognized). Device objects use these keys, in this
 * order, each only when the format has it (a value the tool printed as
 * N/A, [N/A], NA or - becomes null):
 *   source       "nvidia-smi-csv", "nvidia-smi-table", "nvidia-smi-dmon",
 *                "nvidia-smi-pmon", "npu-smi-table", "npu-smi-usages",
 *                "npu-smi-common"
 *   vendor       "nvidia" | "ascend"
 *   index        GPU index / NPU ID (int)
 *   chip         Ascend chip id within the NPU (int), GPU: absent
 *   phy_id       Ascend A3 Phy-ID column (int)
 *   name         device name as printed ("NVIDIA A100-SXM4-80GB", "910B1")
 *   health, bus_id, pid, process
 *   util_ratio   GPU-Util / utilization.gpu / dmon sm / AICore(%) / Aicore
 *                Usage Rate: a busy-TIME ratio 0..1, not occupancy
 *   mem_util_ratio  utilization.memory / dmon mem / HBM (else DDR)
 *                Bandwidth Usage Rate, 0..1
 *   vector_util_ratio  Aivector/Vectorcore Usage Rate
 *   mem_used_bytes, mem_total_bytes  device memory (Ascend: HBM when the
 *                chip has it, else DDR "Memory-Usage")
 *   ddr_used_bytes, ddr_total_bytes  Ascend on-board DDR beside HBM
 *   power_w, power_limit_w, temp_c, sm_clock_mhz, sm_clock_max_mhz,
 *   mem_clock_mhz, aicore_count, aicore_freq_mhz, aicore_cur_freq_mhz
 * MiB/MB values are taken as 2^20 bytes (nvidia-smi MiB; npu-smi MB is the
 * same unit: 65536 MB = 64 GiB HBM). */
#ifndef PD_SMI_H
#define PD_SMI_H

#include <jansson.h>
#include <stddef.h>

/* nvidia-smi --query-gpu CSV. fields: the comma list given to --query-gpu
 * (for noheader output), or NULL when the first line is the csv header
 * ("utilization.gpu [%]"; units in brackets are stripped). Lines that are
 * not data (blank, markdown fences) are skipped. */
json_t *pd_smi_nv_csv(const char *text, const char *fields);

/* Default nvidia-smi table (the boxed one). */
json_t *pd_smi_nv_table(const char *text);

/* nvidia-smi dmon / pmon: "# gpu ..." names line, "# Idx ..." units line,
 * then rows; "-" is null. Returns one object per row. */
json_t *pd_smi_nv_mon(const char *text);

/* npu-smi info table (both header layouts, two rows per chip). */
json_t *pd_smi_npu_table(const char *text);

/* Which processes use the devices (NEW references):
 * pd_smi_nv_apps: nvidia-smi --query-compute-apps=pid,[process_name,]
 *   gpu_uuid,used_memory --format=csv,noheader,nounits, one object per
 *   row: gpu_uuid, pid, process (null when not asked), mem_used_bytes
 *   (null for N/A);
 * pd_smi_nv_uuids: nvidia-smi --query-gpu=index,uuid --format=csv,noheader,
 *   an object mapping each uuid to its index;
 * pd_smi_npu_procs: the process table of npu-smi info, one object per row:
 *   device ("NPU:CHIP", as pd_smi_sample names it), pid, process,
 *   mem_used_bytes; "No running processes found" rows give nothing. */
json_t *pd_smi_nv_apps(const char *text);
json_t *pd_smi_nv_uuids(const char *text);
json_t *pd_smi_npu_procs(const char *text);

/* npu-smi info -t usages / -t common key : value blocks; one object per
 * chip block ("Chip ID" or "Chip Name" starts or ends a block). */
json_t *pd_smi_npu_kv(const char *text);

/* Any of the above: the format is recognized from the text; a capture that
 * holds several outputs (a markdown page with a --query-gpu= command line
 * above its CSV) gives the devices of the first inventory-like one found:
 * nvidia-smi CSV, then tables, then dmon, then npu-smi -t blocks. */
json_t *pd_smi_parse(const char *text);

/* lscpu output: an object with architecture, cpus, threads_per_core,
 * cores_per_socket, sockets, model_name, bios_model_name, max_mhz,
 * nominal_mhz (from "@ 2.1GHz" in a model name), l3_bytes, numa_nodes,
 * flags (array of strings); absent values null. NEW reference. */
json_t *pd_smi_lscpu(const char *text);

/* Read a whole file into a NUL-terminated buffer (caller frees), NULL with
 * errno set on failure. */
char *pd_smi_slurp(const char *path, size_t *len);

/* Run argv (PATH search) with stdout captured, killing it after timeout_s
 * seconds; returns the output (caller frees) or NULL when it could not run
 * or exited nonzero. */
char *pd_smi_run(char *const argv[], double timeout_s);

/* A pd.sample record (NEW reference) for one device object of the parsers
 * above: type, v, root null, rank null, run, t_s, interval_s, resource
 * ("gpu" or "npu"), device ("0", Ascend "NPU:CHIP"), source, then the
 * device's values from name on (vendor/index/chip/phy_id dropped). run may
 * be NULL; t_s / interval_s NaN -> null. */
json_t *pd_smi_sample(json_t *dev, const char *run, double t_s,
    double interval_s);

#endif
