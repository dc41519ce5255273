/* pd-sum-input: the pd.input record, whichever family read the steps.
 *
 * A family reader fills a struct inputrec: one struct inputstep per step
 * and the run's figures, in record units (us, ratios; NaN: null), and
 * inputrec_write() writes every pd.input key after source, the same keys
 * for every family, null where the family has no value (pd-record(5)).
 * The class is derived here from the input ratio. The parts only one
 * family has so far (slowest_op, pipeline: Ascend; slowest_call:
 * PyTorch) are structs too, written with one key list each. */
#ifndef PD_SUM_INPUT_RECORD_H
#define PD_SUM_INPUT_RECORD_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* TensorBoard's input-pipeline analysis classes. */
#define INPUT_HIGHLY 0.20
#define INPUT_MODERATELY 0.05
/* msprof-analyze advisor rule 20: a dataloader call should take less. */
#define SLOW_LOADER_NS 10000000LL

struct inputstep {
	int64_t step;
	int has_step;
	double input_us, step_us, input_ratio, preparing_us;	/* NaN: null */
	int64_t calls;
	int has_calls;
};

/* A data pipeline op (pipeline entry; slowest_op writes the op's id,
 * type and queue usage). */
struct inputop {
	int64_t op_id;
	const char *op_type;	/* borrowed */
	int64_t num_workers;
	int has_workers;
	double queue_usage_ratio;	/* NaN: null */
};

/* The slowest DataLoader call. */
struct inputcall {
	const char *name;	/* borrowed */
	double dur_us;
	int64_t step, start_ns;
	int has_step;
};

struct inputrec {
	struct inputstep *steps;	/* in record order */
	size_t n, cap;
	double input_us_mean, input_ratio, queue_empty_ratio;	/* NaN: null */
	int64_t dataloader_spans, slow_dataloader_calls;
	const char *steps_from, *iterator;	/* NULL: null */
	int64_t calls;
	int has_calls;
	double first_call_us, getnext_empty_ratio, tick_mhz;	/* NaN: null */
	int has_slowest_op, has_slowest_call;	/* 0: null */
	struct inputop slowest_op;
	struct inputcall slowest_call;
	struct inputop *pipeline;	/* in record order */
	size_t nops, capops;
	int has_pipeline;	/* 0: null */
	int64_t skipped;
	const char *path;	/* NULL: null */
	int truncated;
};

/* A new step at the end of r->steps: no step number, every value null. */
struct inputstep *inputrec_step(struct inputrec *r);
/* A new pipeline op (zeroed, usage NaN) at the end of r->pipeline, which
 * is then had (not null). */
struct inputop *inputrec_op(struct inputrec *r);
/* Append the keys after source to rec (type, v, root, rank and source
 * set by the family) and emit it; rec is consumed, and r's steps and
 * pipeline are released. */
void inputrec_write(json_t *rec, struct inputrec *r);

#endif
