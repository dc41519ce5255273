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

struct pd_format {
	const char *name;	/* pd.root "format" */
	const char *family;	/* "ascend" or "pytorch": which readers */
	const char *stack;	/* pd.profile stack.family: ascend, pytorch, nsys */
	const char *framework;	/* "torch", "torch_npu", "mindspore"; NULL */
	const char *device;	/* "npu", "gpu"; NULL: by the dump's content */
	const char *found;	/* how pd-locate recognises it */
};

/* The format of that name, or NULL. */
const struct pd_format *pd_format_get(const char *name);

/* The table, ending with a NULL name. */
extern const struct pd_format pd_formats[];

#endif
