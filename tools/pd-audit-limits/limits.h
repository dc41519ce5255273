/* pd-audit-limits parts: the machine's ceilings (cpu.c), accelerator
 * peaks (accel.c) and the red-alarm verdict (verdict.c). Every function
 * returning json_t * returns a NEW reference. */
#ifndef LIMITS_H
#define LIMITS_H

#include <jansson.h>

/* The "cpu" object: from the running machine, or from an lscpu capture
 * (lscpu != NULL, then affinity/quota are null). */
json_t *limits_cpu(const char *lscpu_text);

/* {measured_gflops_fp64, measured_threads, measured_kernel}: an FMA loop
 * on threads threads for about seconds (0: values null). */
json_t *limits_cpu_measure(double seconds, int threads);

/* The "network" array: {interface, speed_gb_per_s} of the interfaces up
 * with a known link speed. */
json_t *limits_network(void);

/* The "memory" object; the STREAM triad runs for about seconds (0: not
 * run, measured values null) on threads threads. */
json_t *limits_memory(double seconds, int threads, double llc_bytes);

/* The "disk" object for a sequential read in dir, within seconds. */
json_t *limits_disk(const char *dir, double seconds);

/* Accelerator entries for the devices of smi captures / probes, with the
 * peaks of the table (a JSON object loaded from peaks.yaml, borrowed). */
json_t *limits_accel(json_t *devices, json_t *peaks);

/* The pd.verdict record for the pd.sample records collected (borrowed
 * array) against the limits (borrowed pd.limits record); NULL when there
 * are no samples. *alarm is set when the red alarm fires. */
json_t *limits_verdict(json_t *samples, json_t *limits, int *alarm);

#endif
