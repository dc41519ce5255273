/* pd-sum-gaps: the family-independent part. A family reader feeds device
 * activities (per stream), host launch calls (linked to activities by an
 * id), step windows and synchronize calls; gaps_fill() turns them into the
 * pd.gaps keys. All times are integer nanoseconds.
 *
 * Memory stays flat with the number of activities: each one becomes a
 * 40-byte record (stream, start, end, launch start and link kind, order
 * seen) sorted in bounded memory by pd_xsort, by start across streams, and
 * read back once at the end, when every figure is taken in one pass; each
 * one-to-one launch adds its delay (8 bytes) to a second sort and its
 * start (16 bytes) to a third (the queue length); host spans and
 * synchronize calls go to a pd_spill log (a few bytes each) until the
 * strip's window is known. What is held in memory: one entry per stream,
 * per step (40 bytes) and per Ascend wait task (24 bytes), the launch
 * calls and activities not linked yet (a pd_i64map entry, 40 bytes, each;
 * those never linked stay until the end). The strip's spans inside its
 * window (the median step, or the whole trace when there are no steps)
 * are kept by lane while they fit in a sort's memory, past it in a fourth
 * sort (24 bytes each, by lane and start), and each lane is drawn as it
 * is read back, holding at most 400 drawn spans. */
#ifndef GAPCORE_H
#define GAPCORE_H

#include <jansson.h>
#include <stdint.h>
#include <stddef.h>

#include "pd_i64map.h"
#include "pd_spill.h"
#include "pd_xsort.h"

#define GAP_NONE INT64_MIN

/* A device activity as sorted (by ts, stream, end, seq): kind is the
 * link kind (0 none, 1 one launch -> one activity, 2 a launch of many),
 * lts the launch call's start (GAP_NONE when not linked). */
struct gap_rec {
	int64_t ts, end, lts;
	uint64_t seq;		/* order seen: ties as a stable sort has them */
	uint32_t stream;	/* index in gaps.s */
	uint32_t kind;
};

struct gap_stream {
	int64_t dev, id;
	int dev_known;
	int64_t all_ns, comm_ns;	/* activity time, and of collectives */
	size_t n;			/* activities */
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

struct gap_wait {
	size_t stream;		/* index in gaps.s */
	int64_t ts, end;
};

struct gaps {
	struct gap_stream *s;
	size_t ns, caps, last;
	struct pd_i64map link;
	struct gap_span *steps;
	int64_t *stepnum;	/* the steps' numbers, -1 unknown */
	size_t nsteps, capsteps, nsyncs;
	/* host lanes of the strip (GAP_HOST_*) and synchronize calls: the
	 * last span of each lane (hhave: there is one), the rest in hlog */
	struct gap_span hlast[GAP_HOST_N];
	int hhave[GAP_HOST_N];
	struct pd_spill hlog;
	int64_t hprev;		/* start of the last span logged */
	struct gap_wait *waits;			/* GAP_ACT_WAIT activities */
	size_t nwaits, capwaits;
	int64_t *comm_ids;	/* streams the communication lane names */
	size_t ncomm_ids, capcomm_ids;
	int64_t sync_ns;
	int64_t pageable_n, pageable_ns;
	int no_pageable;	/* the family has no pageable memcpy notion */
	int no_launch;		/* nor one launch call per activity */
	/* the activities (struct gap_rec), the launch starts of those linked
	 * one to one (struct gap_lq) and their delays (int64_t ns) */
	struct pd_xsort acts, lq, delays;
	uint64_t nact;
	int64_t first, lastend;	/* smallest start, largest end */
	/* launch statistics over activities linked one to one */
	int64_t ln, lshort, loutl, ldelayed;
	double p50, p90;	/* of the delays (us) */
	int ioerr;		/* errno of a failed temporary file, 0 */
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
 * to rec. -1 when a temporary file failed (g->ioerr says why; rec is then
 * incomplete), else 0. */
int gaps_fill(struct gaps *g, json_t *rec, int topn);

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
