/* pd-sum-step: the pd.step record, whichever family read the steps.
 *
 * A family reader fills a struct steprec: the run's facts and one struct
 * stepval per step (integer ns, a bit per value it has); steprec_write()
 * writes every pd.step key after source from it, the same keys for every
 * family, null where the family has no value (pd-record(5)). The totals,
 * shares, step_stats and slowest_step are derived here from the steps.
 * A cluster's stages are structs too, written with one key list. */
#ifndef PD_SUM_STEP_RECORD_H
#define PD_SUM_STEP_RECORD_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* The values of a step, in the order of its record keys after "step". */
enum {
	SV_STEP,	/* step_us: the step's wall time */
	SV_COMP,	/* computing_us */
	SV_CNO,		/* comm_not_overlapped_us */
	SV_OVL,		/* overlapped_us */
	SV_COMM,	/* comm_us */
	SV_FREE,	/* free_us */
	SV_PREP,	/* preparing_us */
	SV_BUBBLE,	/* bubble_us */
	SV_STAGE,	/* stage_us */
	SV_MEMCPY,	/* memcpy_us */
	SV_MEMSET,	/* memset_us */
	SV_BUSY,	/* busy_us */
	SV_FPBP,	/* fp_bp_us */
	SV_TAIL,	/* tail_us */
	SV_CPU,		/* cpu_ops_us */
	SV_N
};

/* One step, or the totals of a run. */
struct stepval {
	int64_t num;		/* the step number */
	int has_num;		/* 0: null (a run without numbered steps) */
	int64_t ns[SV_N];
	unsigned have;		/* bit per SV_ */
};

void stepval_set(struct stepval *v, int k, int64_t ns);
int stepval_has(const struct stepval *v, int k);
/* sum: each value summed over the n steps that have it (had by sum when
 * one step has it); step_us had whenever n > 0. */
void stepval_sum(struct stepval *sum, const struct stepval *v, size_t n);
/* {step?, step_us .. cpu_ops_us}, a new reference; "step" only when
 * with_num. */
json_t *stepval_json(const struct stepval *v, int with_num);

/* HTA's temporal breakdown over the whole trace (pd.step gpu). */
struct stepgpu {
	int have;		/* 0: null */
	int64_t span, idle, compute, comm, overlap;
};

/* A pipeline stage of a cluster (stages entry). */
struct stepstage {
	int64_t stage;
	json_t *ranks;		/* borrowed: the stage's ranks */
	struct stepval totals;	/* without step_us (no one step's time) */
};

struct steprec {
	struct stepval *steps;	/* in record order */
	size_t n, cap;
	int64_t skipped;	/* rows or events rejected */
	const char *path;
	const char *scope;	/* NULL: null */
	int64_t stage;
	int has_stage;
	const struct stepstage *stages;	/* borrowed; NULL: null */
	size_t nstages;
	int64_t device;
	int has_device;
	int64_t inexact;	/* numbers in exponent form, kept */
	int has_inexact;
	int64_t events, gpu_events;
	int has_events;
	struct stepgpu gpu;
	double tick_mhz;	/* <= 0: null */
	int64_t unassigned;
	int has_unassigned;
	int truncated;
};

/* A new step (zeroed) at the end of r->steps. */
struct stepval *steprec_add(struct steprec *r);
void steprec_free(struct steprec *r);
/* Append the keys after source to rec (type, v, root, rank and source
 * set by the family) and emit it; rec is consumed. */
void steprec_write(json_t *rec, const struct steprec *r);

#endif
