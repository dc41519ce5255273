/* pd-sum-gaps: the family-independent part. A family reader feeds device
 * activities (per stream), host launch calls (linked to activities by an
 * id), step windows and synchronize calls; gaps_fill() turns them into the
 * pd.gaps keys. All times are integer nanoseconds.
 *
 * Memory: per stream, 16 bytes per device activity (they arrive unsorted
 * and are sorted at the end; an activity longer than 2^30 ns or launched
 * more than 2^31 ns away keeps 24 more in a side table), 4 bytes per
 * launch delay (8 when over 2^32 ns; the launch statistics are counted
 * when an activity is linked; the delays are freed at the end before the
 * queue pass takes 8 bytes per linked activity of one stream), plus the
 * launch calls not yet linked to their activity. */
#ifndef GAPCORE_H
#define GAPCORE_H

#include <jansson.h>
#include <stdint.h>
#include <stddef.h>

#include "pd_i64map.h"

#define GAP_NONE INT64_MIN

/* A device activity, compact: dk is the link kind (0 none, 1 one launch
 * -> one activity, 2 a launch of many) << 30 | the duration; the launch
 * call (kinds 1 and 2) started at ts - loff. When the duration or loff
 * does not fit, the kind is GAP_WIDE and loff indexes the stream's wide
 * table. */
struct gap_act {
	int64_t ts;
	uint32_t dk;
	int32_t loff;
};

#define GAP_WIDE	3
#define GAP_DUR_MAX	((UINT32_C(1) << 30) - 1)

struct gap_wide {
	int64_t end, lts;
	int kind;
};

struct gap_stream {
	int64_t dev, id;
	int dev_known;
	int64_t all_ns, comm_ns;	/* activity time, and of collectives */
	struct gap_act *a;
	size_t n, cap;
	struct gap_wide *w;
	size_t nw, capw;
};

struct gap_span {
	int64_t ts, end;
};

/* Host-side lanes of the strip besides launch calls and synchronize. */
enum {
	GAP_HOST_COMM,	/* collectives as the communication lane has them */
	GAP_HOST_INPUT,	/* data loading (DataLoader __next__ calls) */
	GAP_HOST_OPS,	/* host operators (outermost ones; nested merged) */
	GAP_HOST_N
};

struct gap_lane {
	struct gap_span *v;
	size_t n, cap;
};

struct gap_wait {
	size_t stream;		/* index in gaps.s */
	int64_t ts, end;
};

struct gaps {
	struct gap_stream *s;
	size_t ns, caps, last;
	struct pd_i64map link;
	struct gap_span *steps, *syncs;
	int64_t *stepnum;	/* the steps' numbers, -1 unknown */
	size_t nsteps, capsteps, nsyncs, capsyncs;
	struct gap_lane host[GAP_HOST_N];	/* host lanes of the strip */
	struct gap_wait *waits;			/* GAP_ACT_WAIT activities */
	size_t nwaits, capwaits;
	int64_t *comm_ids;	/* streams the communication lane names */
	size_t ncomm_ids, capcomm_ids;
	int64_t sync_ns;
	int64_t pageable_n, pageable_ns;
	int no_pageable;	/* the family has no pageable memcpy notion */
	int no_launch;		/* nor one launch call per activity */
	/* launch statistics over activities linked one to one */
	int64_t ln, lshort, loutl, ldelayed;
	uint32_t *d;		/* launch delays (ns) up to UINT32_MAX */
	int64_t *dw;		/* and longer ones */
	size_t nd, capd, ndw, capdw;
	double p50, p90;	/* of the delays (us), once they are freed */
};

void gaps_init(struct gaps *g);
void gaps_free(struct gaps *g);

/* A device activity on (dev, stream); corr < 0 or has_corr 0: no link;
 * flags: GAP_ACT_COMM, a collective's (a communication kernel or task);
 * GAP_ACT_WAIT, a task that only waits for an event of another stream
 * (Ascend EVENT_WAIT): device time for the idle figures, not work in the
 * strip. */
#define GAP_ACT_COMM	1
#define GAP_ACT_WAIT	2
void gaps_activity(struct gaps *g, int64_t dev, int dev_known, int64_t stream,
    int64_t ts, int64_t dur, int has_corr, int64_t corr, int flags);
/* A host launch call; multi: it may start several activities. */
void gaps_launch(struct gaps *g, int64_t corr, int64_t ts, int64_t dur,
    int multi);
/* A step window; num: its N of ProfilerStep#N, -1 when unknown. */
void gaps_step(struct gaps *g, int64_t ts, int64_t dur, int64_t num);
void gaps_sync(struct gaps *g, int64_t ts, int64_t dur);
/* A span of host lane GAP_HOST_*: a collective as the family's
 * communication lane has it (the HCCL "hcom_*" ops of an Ascend trace),
 * a DataLoader call, a host operator. A span that starts inside the last
 * one given is merged into it (nested operators, in time order), so the
 * lane stays small on traces of millions of operators. */
void gaps_host(struct gaps *g, int lane, int64_t ts, int64_t dur);
/* Stream id (of a device that is not known: Ascend) carries collectives,
 * as the family's communication lane says (HCCL tasks' "stream id"): its
 * strip lane is a communication lane. */
void gaps_comm_stream(struct gaps *g, int64_t stream);

/* Append span_us .. pageable_memcpy (the pd.gaps core keys after source)
 * to rec. */
void gaps_fill(struct gaps *g, json_t *rec, int topn);

/* Thresholds (ns). */
#define GAP_KERNEL_WAIT_NS	30000		/* HTA consecutive_kernel_delay */
#define GAP_LARGE_NS		500000000	/* nsys gpu_gaps */
#define GAP_CHUNKS		30		/* nsys gpu_time_util */
#define GAP_LOW_UTIL		0.5
#define GAP_SHORT_CPU_NS	50000		/* HTA runtime_cutoff */
#define GAP_DELAY_NS		100000		/* HTA launch_delay_cutoff */

/* The timeline strip (pd.gaps strip): device lanes drawn, the busiest;
 * spans per lane at most (closer ones merged); the finest resolution,
 * a fraction of the window. */
#define GAP_STRIP_LANES		12
#define GAP_STRIP_SPANS		200
#define GAP_STRIP_FINE		1000

#endif
