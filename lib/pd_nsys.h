/* pd_nsys: Nsight Systems SQLite exports (`nsys export --type sqlite`),
 * read as the same trace-event stream a Kineto trace gives, so that every
 * PyTorch-family reader summarizes them unchanged.
 *
 * One profiled process is one rank: device-side rows (kernels, memcpy,
 * memset, syncs, graph launches) are selected by globalPid, host-side rows
 * (runtime API, NVTX) by globalTid, both as pid = (g >> 24) & 0xFFFFFF;
 * correlation ids are unique only within a process. The events handed to
 * the callback, with Kineto's categories and names:
 *   kernel       CUPTI_ACTIVITY_KIND_KERNEL (shortName; demangledName when
 *                no short name), and one per CUPTI_ACTIVITY_KIND_GRAPH_TRACE
 *                row ("CUDA graph N": graph-level tracing has no kernel rows)
 *   gpu_memcpy   "Memcpy HtoD (Pageable -> Device)", args bytes
 *   gpu_memset   "Memset (Device)", args bytes
 *   cuda_sync    named by its API call (via correlationId), never by
 *                syncType, whose codes change between exporter versions
 *   cuda_runtime API name without its _vNNNN suffix; the CUDA-backtrace
 *                twin rows (eventClass 67) are left out
 *   cpu_op       NVTX ranges of PyTorch ops ("aten::mm, op_id = 12": the
 *                name is cut at ", op_id =", ", seq =", ", sizes =")
 *   user_annotation  other NVTX ranges (NCCL and MPI domains, user ranges)
 * Kernel-side events carry pid = deviceId and tid = streamId; host-side
 * ones the process's pid and thread id. args: device, stream, correlation,
 * bytes. Tables absent from a lazy export are read as empty; views and
 * tables that other tools add are ignored; text is taken as bytes. */
#ifndef PD_NSYS_H
#define PD_NSYS_H

#include <stdint.h>
#include <stddef.h>

#include "pd_kineto.h"
#include "pd_trace.h"

/* Is path an Nsight Systems export (an SQLite file holding StringIds and
 * one of the CUPTI or NVTX event tables)? Sniffs the header first. 1: yes;
 * 0: no; -1: an SQLite file that cannot be read (said, exit 3). */
int pd_nsys_sniff(const char *path);

struct pd_nsys_proc {
	int64_t pid;
	int64_t device;		/* lowest deviceId it ran on; -1 if none */
	int64_t rank;		/* from a thread named "MPI Rank N"; -1 */
	int64_t kernels;	/* device rows (kernel, graph, memcpy, memset) */
	int torch;		/* it has NVTX ranges of PyTorch ops (aten::) */
};

/* The profiled processes: those with device rows, else those with
 * runtime API rows, ordered by device then pid. *out is malloc'd. Returns
 * the count, or -1 when the file cannot be read (said, exit 3). */
int pd_nsys_processes(const char *path, struct pd_nsys_proc **out);

/* Read one process (pid; -1: all) as trace events: the rows of its event
 * tables merged by start (each table in rowid order), so that a kernel
 * comes out near its launch call. info gets the GPU's deviceProperties
 * where the export says which it is. Returns 0, or -1 when the file
 * cannot be read (said; exit 3). */
int pd_nsys_read(const char *path, int64_t pid, const struct pd_trace_cb *cb,
    struct pd_kineto_info *info, struct pd_trace_stats *st);

/* The process of the pd.root root (its "process") read as trace events:
 * pd_kineto_read for a root of format "nsys" (pd_formats.h). Rows skipped
 * are said (exit 3). Returns 0, 1 when cut short, -1 when the file cannot
 * be read. */
int pd_nsys_events(json_t *root, const char *path,
    const struct pd_trace_cb *cb, struct pd_kineto_info *info,
    struct pd_trace_stats *st);

/* "cudaLaunchKernel_v7000" -> "cudaLaunchKernel" (in place). */
void pd_nsys_api_name(char *name);

/* "aten::mm, op_id = 12" -> "aten::mm" (in place); returns whether the
 * range is a PyTorch op range. */
int pd_nsys_op_name(char *name);

#endif
