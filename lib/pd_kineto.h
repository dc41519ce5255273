/* pd_kineto: what the PyTorch-profiler tools share. Event classes across
 * the schema generations (2021 Operator/Runtime/Kernel, 2022+ cpu_op/
 * cuda_runtime/kernel/gpu_memcpy, the legacy autograd exporter with pid
 * "CPU functions" / "CUDA functions"), ProfilerStep and DataLoader names,
 * the trace of a pd.root, its rank and device properties, reading with the
 * one way of reporting cut-off files, and dtype sizes. */
#ifndef PD_KINETO_H
#define PD_KINETO_H

#include <jansson.h>
#include <stdint.h>

#include "pd_trace.h"

enum {
	PD_KC_OTHER,
	PD_KC_KERNEL,	/* kernel, Kernel, autograd "CUDA functions" */
	PD_KC_MEMCPY,	/* gpu_memcpy, Memcpy */
	PD_KC_MEMSET,	/* gpu_memset, Memset */
	PD_KC_SYNC,	/* cuda_sync rows on the GPU lane */
	PD_KC_RUNTIME,	/* cuda_runtime, Runtime, cuda_driver */
	PD_KC_CPU_OP,	/* cpu_op, Operator (2021: also annotations),
			 * autograd "CPU functions" */
	PD_KC_ANNOT,	/* user_annotation */
	PD_KC_GPU_ANNOT,	/* gpu_user_annotation */
	PD_KC_PYTHON,	/* python_function */
	PD_KC_MEMORY,	/* [memory] instant events */
	PD_KC_META	/* ph M */
};

int pd_kineto_class(const struct pd_ev *ev);

/* Is the class one of the GPU activities that make a device busy
 * (kernel, memcpy, memset)? */
int pd_kineto_is_gpu(int kclass);

/* Is this a CPU-side range that can carry a step or DataLoader name
 * (user_annotation, or cpu_op/Operator in older schemas)? */
int pd_kineto_is_cpu_range(int kclass);

/* N of "ProfilerStep#N" (blanks around '#' allowed), -1 otherwise. */
int64_t pd_kineto_step_num(const char *name);

/* "enumerate(DataLoader)#...__next__" (single- and multi-process
 * iterators; torch-tb-profiler's rule)? */
int pd_kineto_is_dataloader(const char *name);

/* GPU stream of an event: args.stream, else a numeric tid, else the N of
 * a "stream N" tid; -1 when unknown. */
int64_t pd_kineto_stream(const struct pd_ev *ev);

/* Size in bytes of a dtype as PyTorch writes it ("Float", "BFloat16",
 * "c10::Half", "long int", "float", ...); 0 when unknown. */
int pd_kineto_dtype_size(const char *dtype);

/* The trace file of a pytorch-family root: its first kineto_trace export,
 * else, when the root lists no exports at all, the root path itself (a
 * hand-written pd.root). Borrowed from the record; NULL if none. */
const char *pd_kineto_trace_path(json_t *root);

/* What the top-level keys of a trace say. */
struct pd_kineto_info {
	int64_t rank;		/* distributedInfo.rank; -1 when absent */
	json_t *devices;	/* deviceProperties (owned); NULL when absent */
	int64_t base_ns;	/* baseTimeNanoseconds; 0 when absent */
};

/* Read a trace. cb->on_meta (may be NULL) still gets every top-level key;
 * info is filled in on the way (call pd_kineto_info_free after).
 * Returns 0 when read to the end, 1 when the file was cut off or malformed
 * (warned with file:line, exit status 3 recorded; what was read before is
 * still valid), -1 when it could not be read (error printed, status 5).
 * Entries the reader skipped (not objects, unreadable ts/dur) are warned
 * about and make the status 3. root (may be NULL) is the pd.root read:
 * one of format "nsys" is an Nsight Systems export, its process "process"
 * read as the same events (pd_nsys.h). */
int pd_kineto_read(json_t *root, const char *path,
    const struct pd_trace_cb *cb, struct pd_kineto_info *info, struct pd_trace_stats *st);
void pd_kineto_info_free(struct pd_kineto_info *info);

/* totalGlobalMem of device id from deviceProperties, -1 when unknown. */
int64_t pd_kineto_device_mem(const struct pd_kineto_info *info, int64_t id);

/* The GPU the trace ran on, from deviceProperties (Kineto) or the
 * export's GPU table (Nsight Systems): {name, compute_capability} (the
 * capability as major + minor / 10, e.g. 7.5; null when unknown). When
 * the devices listed differ in name or capability, or none is listed:
 * json null. New reference. */
json_t *pd_kineto_gpu_json(const struct pd_kineto_info *info);

/* What a host runtime call (CUDA runtime or driver, HIP) does, for the
 * time the host spends in each kind: launch (kernels, async copies and
 * memsets queued), sync (waits for the device), copy (synchronous
 * copies), alloc (device and pinned memory allocation and release),
 * setup (context, device, stream, event and module creation and queries:
 * what a program pays once at start-up) or other. */
enum pd_api_kind {
	PD_API_LAUNCH, PD_API_SYNC, PD_API_COPY, PD_API_ALLOC, PD_API_SETUP,
	PD_API_OTHER, PD_API_NKINDS
};
enum pd_api_kind pd_kineto_api_kind(const char *name);
/* "launch", "sync", ... for the record keys (launch_us, ...). */
const char *pd_kineto_api_kind_name(enum pd_api_kind k);

/* A new record (see pd_rec_new) for a trace: rank from distributedInfo
 * when the root has none, then "source" (e.g. "kineto_trace"). New
 * reference. */
json_t *pd_kineto_rec(const char *type, json_t *root,
    const struct pd_kineto_info *info, const char *source);

/* An event lacking what its class needs: warns for the first one of a
 * trace (counted in *n; the caller reports the total), status 3. */
void pd_kineto_bad_event(const char *path, const struct pd_ev *ev,
    const char *what, uint64_t *n);

/* Several top-level args in one pass over the args object (the
 * pd_ev_arg_* functions scan it once per key): for each of the n keys,
 * v[i] is set to the raw value text and len[i] to its length, or v[i] to
 * NULL when absent (the keys are distinct). Returns how many were found.
 * Through the reader's memo (pd_trace.h) when the event has one. */
int pd_kineto_args(const struct pd_ev *ev, const char *const *keys, int n,
    const char **v, size_t *len);

/* A raw value as an integer (number or quoted number); 1 when it is one. */
int pd_kineto_raw_int(const char *v, size_t len, int64_t *out);

/* A growing list of ProfilerStep windows. */
struct pd_kstep {
	int64_t num, s, e;
};
struct pd_ksteps {
	struct pd_kstep *v;
	size_t n, cap;
};
/* Same number twice: the window grows to cover both. */
void pd_ksteps_add(struct pd_ksteps *a, int64_t num, int64_t s, int64_t e);
/* Sort by start (then number). */
void pd_ksteps_sort(struct pd_ksteps *a);
/* Index of the (sorted) step whose window holds t, -1 if none. */
long pd_ksteps_find(const struct pd_ksteps *a, int64_t t);
void pd_ksteps_free(struct pd_ksteps *a);

#endif
