/* pd-sum-comm for Ascend roots: the pd.comm record of a rank's sums. */
#include "ascend.h"

#include "record.h"
#include "sum_comm.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pd_csv.h"
#include "pd_diag.h"
#include "pd_jscan.h"
#include "pd_locate.h"
#include "pd_sqlite.h"
#include "pd_num.h"
#include "pd_rec.h"
#include "pd_trace.h"

/* ---- the record ---- */

static double
us(double ms)
{
	return ms * 1e3;
}

/* GB/s from MB and ms: MB/ms = 10^6 B / 10^-3 s = GB/s; NaN without
 * time. */
static double
bw(double mb, double ms)
{
	return ms > 0 ? mb / ms : NAN;
}

static int
cmp_op_type(const void *x, const void *y)
{
	const struct op_type_sum *a = x, *b = y;

	if (a->el != b->el)
		return a->el > b->el ? -1 : 1;
	return strcmp(a->type, b->type);
}

static int
cmp_transport(const void *x, const void *y)
{
	const struct transport *a = x, *b = y;

	if (a->mb != b->mb)
		return a->mb > b->mb ? -1 : 1;
	if (a->ms != b->ms)
		return a->ms > b->ms ? -1 : 1;
	return strcmp(a->name, b->name);
}

static int
cmp_link(const void *x, const void *y)
{
	const struct link *a = x, *b = y;
	int c;

	if (a->mb != b->mb)
		return a->mb > b->mb ? -1 : 1;
	if ((c = strcmp(a->src, b->src)))
		return c;
	if ((c = strcmp(a->dst, b->dst)))
		return c;
	if ((c = strcmp(a->transport, b->transport)))
		return c;
	return strcmp(a->group ? a->group : "", b->group ? b->group : "");
}

static int
cmp_op_call(const void *x, const void *y)
{
	const struct op_call *a = x, *b = y;

	if (a->el != b->el)
		return a->el > b->el ? -1 : 1;
	if (a->has_step != b->has_step)
		return a->has_step ? -1 : 1;
	if (a->step != b->step)
		return a->step < b->step ? -1 : 1;
	return strcmp(a->name, b->name);
}

static void
ops_fill(struct agg *a, double *tot, struct commrec *r)
{
	struct op_type_sum *p;
	struct commop *o;
	size_t i;

	memset(tot, 0, 6 * sizeof *tot);
	if (a->nops)
		qsort(a->ops, a->nops, sizeof *a->ops, cmp_op_type);
	for (i = 0; i < a->nops; i++) {
		p = &a->ops[i];
		o = commrec_op(r);
		o->type = p->type;
		commop_set(o, CO_COUNT, (double)p->count);
		commop_set(o, CO_TOTAL, us(p->el));
		if (p->has_tr)
			commop_set(o, CO_TRANSIT, us(p->tr));
		if (p->has_wa)
			commop_set(o, CO_WAIT, us(p->wa));
		if (p->has_sy)
			commop_set(o, CO_SYNC, us(p->sy));
		if (p->has_id)
			commop_set(o, CO_IDLE, us(p->id));
		if (p->has_wa && p->has_tr && p->wa + p->tr > 0)
			commop_set(o, CO_WAIT_RATIO, p->wa / (p->wa + p->tr));
		if (p->has_sy && p->has_tr && p->sy + p->tr > 0)
			commop_set(o, CO_SYNC_RATIO, p->sy / (p->sy + p->tr));
		if (p->has_mb) {
			commop_set(o, CO_BYTES,
			    (double)(int64_t)(p->mb * 1e6 + 0.5));
			/* GB/s from MB and ms */
			if (p->el > 0)
				commop_set(o, CO_ALGBW, p->mb / p->el);
		}
		tot[0] += p->el;
		tot[1] += p->tr;
		tot[2] += p->wa;
		tot[3] += p->sy;
		tot[4] += p->has_tr && p->has_wa;
		tot[5] += p->has_wa;
	}
}

static void
transports_fill(struct agg *a, struct commrec *r)
{
	struct commtransport *o;
	struct transport *t;
	size_t i;

	if (a->ntransports)
		qsort(a->transports, a->ntransports, sizeof *a->transports,
		    cmp_transport);
	r->has_transports = 1;
	for (i = 0; i < a->ntransports; i++) {
		t = &a->transports[i];
		if (t->mb == 0 && t->ms == 0)
			continue;	/* listed in every file, unused */
		o = commrec_transport(r);
		o->name = t->name;
		o->bytes = (int64_t)(t->mb * 1e6 + 0.5);
		o->time_us = us(t->ms);
		o->bandwidth_gb_per_s = bw(t->mb, t->ms);
		if (t->nops)
			o->small_packet_ratio = (double)t->nsmall /
			    (double)t->nops;
		o->ops = t->nops;
	}
}

static void
links_fill(struct agg *a, struct commrec *r)
{
	struct commlink *o;
	struct link *l;
	size_t i;

	if (a->nlinks)
		qsort(a->links, a->nlinks, sizeof *a->links, cmp_link);
	r->has_links = 1;
	for (i = 0; i < a->nlinks; i++) {
		l = &a->links[i];
		o = commrec_link(r);
		o->src = l->src;
		o->dst = l->dst;
		o->group = l->group;
		o->transport = l->transport;
		o->bytes = (int64_t)(l->mb * 1e6 + 0.5);
		o->time_us = us(l->ms);
		o->bandwidth_gb_per_s = bw(l->mb, l->ms);
	}
}

static void
slowest_fill(struct agg *a, int topn, struct commrec *r)
{
	struct commcall *c;
	size_t i;

	if (a->ncalls)
		qsort(a->calls, a->ncalls, sizeof *a->calls, cmp_op_call);
	for (i = 0; i < a->ncalls && i < (size_t)topn; i++) {
		c = commrec_call(r);
		c->name = a->calls[i].name;
		c->elapse_us = us(a->calls[i].el);
		c->step = a->calls[i].step;
		c->has_step = a->calls[i].has_step;
	}
}

static int
cmp_unaligned(const void *x, const void *y)
{
	const struct op_call *a = *(const struct op_call *const *)x;
	const struct op_call *b = *(const struct op_call *const *)y;

	if (a->un_ms != b->un_ms)
		return a->un_ms > b->un_ms ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* The byte-alignment check over the ops with a Size Distribution, or null
 * when no op has one (Level0, legacy and cluster exports). */
static void
alignment_fill(struct agg *a, int topn, struct commrec *r)
{
	struct commalign *al = &r->alignment;
	struct communaligned *e;
	struct op_call **un;
	size_t i, n = 0;
	long checked = 0, any = 0;
	double ms = 0, un_ms = 0;

	un = pd_xcalloc(a->ncalls + 1, sizeof *un);
	for (i = 0; i < a->ncalls; i++) {
		struct op_call *u = &a->calls[i];

		any += u->has_al;
		if (u->al_ms <= 0 && u->al_bytes <= 0)
			continue;
		checked++;
		ms += u->al_ms;
		un_ms += u->un_ms;
		if (u->un_ms > 0)
			un[n++] = u;
	}
	if (!any) {
		free(un);
		return;
	}
	if (n)
		qsort(un, n, sizeof *un, cmp_unaligned);
	al->have = 1;
	al->checked_ops = checked;
	al->unaligned_ops = (int64_t)n;
	al->sdma_us = us(ms);
	al->unaligned_us = us(un_ms);
	al->unaligned_ratio = ms > 0 ? un_ms / ms : NAN;
	for (i = 0; i < n && i < (size_t)topn; i++) {
		e = commrec_unaligned(r);
		e->name = un[i]->name;
		e->step = un[i]->step;
		e->has_step = un[i]->has_step;
		e->bytes = (int64_t)un[i]->al_bytes;
		e->time_us = us(un[i]->al_ms);
		e->unaligned_us = us(un[i]->un_ms);
		if (un[i]->al_ms > 0)
			e->bandwidth_gb_per_s = un[i]->al_bytes / 1e6 /
			    un[i]->al_ms;
	}
	free(un);
}

/* x / (x + tr), a share of the transit-or-x time. */
static void
share(double *v, int *have, double x, double tr, int ok)
{
	if (ok && x + tr > 0) {
		*v = x / (x + tr);
		*have = 1;
	}
}

void
emit_rank(json_t *root, struct agg *a, const struct pd_tool *t)
{
	json_t *rec = pd_rec_new("pd.comm", 1, root);
	struct commrec r = { 0 };
	double tot[6];

	if (a->has_rank)
		pd_set_int(rec, "rank", a->rank);
	pd_set_str(rec, "source", a->source);
	ops_fill(a, tot, &r);
	if (a->nops) {
		r.total_us = us(tot[0]);
		r.has_total = 1;
	} else if (a->has_raw) {
		r.total_us = us(a->raw_ms);
		r.has_total = 1;
	}
	share(&r.wait_ratio, &r.has_wait_ratio, tot[2], tot[1], tot[4] > 0);
	share(&r.sync_ratio, &r.has_sync_ratio, tot[3], tot[1], tot[4] > 0);
	/* small_ratio: per transport here */
	transports_fill(a, &r);
	links_fill(a, &r);
	r.groups = a->groups ? json_incref(a->groups) : NULL;
	alignment_fill(a, t->topn, &r);
	slowest_fill(a, t->topn, &r);
	if (a->has_raw && !a->nops) {
		r.wait_us = us(a->raw_wait_ms);
		r.has_wait_us = 1;
	} else if (tot[5] > 0) {
		r.wait_us = us(tot[2]);
		r.has_wait_us = 1;
	}
	r.op_count = (int64_t)a->ncalls;
	r.skipped = a->skipped;
	r.truncated = a->truncated;
	commrec_write(rec, &r);
}
