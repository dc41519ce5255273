/* pd_formats: the one table of the dump formats perfdiag reads.
 *
 * A pd.root names its format ("format"); everything a tool needs to know
 * about it is here: the family whose readers summarize it (ascend: the
 * CANN and msprof-analyze files; pytorch: a trace-event stream, Kineto,
 * the autograd exporter, or an Nsight Systems export read as one by
 * pd_kineto_read), the framework that writes it (NULL: any), and the
 * device kind it comes from (NULL: gpu or cpu, by what the dump holds).
 * pd-locate recognises each format as the "found" column says. */
#ifndef PD_FORMATS_H
#define PD_FORMATS_H

#include <jansson.h>

struct pd_trace_cb;
struct pd_trace_stats;
struct pd_kineto_info;

/* A format is one row here, its recogniser in pd-locate (lib/pd_locate_*.c
 * of its family) and, per evidence tool, the reader of its family
 * (tools/pd-x/<family>.c); a pytorch-family format that is not a JSON
 * trace brings its one reader of events instead (read_events). */
struct pd_format {
	const char *name;	/* pd.root "format" */
	const char *family;	/* "ascend" or "pytorch": which readers */
	const char *stack;	/* pd.profile stack.family: ascend, pytorch, nsys */
	const char *framework;	/* "torch", "torch_npu", "mindspore"; NULL */
	const char *device;	/* "npu", "gpu"; NULL: by the dump's content */
	const char *found;	/* how pd-locate recognises it */
	/* pytorch family, a dump that is not a JSON trace: the export kind
	 * that holds it (also the records' "source"), and its reader as
	 * trace events (pd_kineto_read's contract, pd_kineto.h); NULL: the
	 * JSON trace of export kind "kineto_trace", read by pd_trace */
	const char *trace_export;
	int (*read_events)(json_t *root, const char *path,
	    const struct pd_trace_cb *cb, struct pd_kineto_info *info,
	    struct pd_trace_stats *st);
	/* the capture spans the whole process (start-up, exit): without
	 * step markers, its one step is the device's active span */
	int whole_process;
	/* one root of the whole cluster (its "covers" lists the ranks' roots
	 * of the same run), not of one rank */
	int cluster;
	/* its host events are API calls and ranges, not the call stacks of
	 * a framework's CPU operators: no critical path (pd-hotspots) */
	int no_call_stacks;
	/* it may record a program of no framework (a CUDA or MPI program):
	 * a trace without training operators is then not known to be
	 * inference (pd-profile) */
	int any_program;
};

/* The format of that name, or NULL. */
const struct pd_format *pd_format_get(const char *name);

/* The table, ending with a NULL name. */
extern const struct pd_format pd_formats[];

#endif
