#include "pd_ivl.h"

#include <stdlib.h>
#include <string.h>

#include "pd_diag.h"
#include "pd_msort.h"

#define MINLIMIT 4096

static int
cmp(const void *x, const void *y)
{
	const struct pd_span *a = x, *b = y;

	if (a->s != b->s)
		return a->s < b->s ? -1 : 1;
	if (a->e != b->e)
		return a->e < b->e ? -1 : 1;
	return 0;
}

/* equal spans are the same span: any order of them is the order */
#define SPAN_LE(a, b) (cmp((a), (b)) <= 0)
PD_MSORT(sort_spans, struct pd_span, SPAN_LE, 1)

void
pd_ivl_merge(struct pd_ivl *a)
{
	size_t i, k;

	if (a->merged == a->n)
		return;
	sort_spans(a->v, a->n);
	k = 0;
	for (i = 1; i < a->n; i++) {
		if (a->v[i].s <= a->v[k].e) {
			if (a->v[i].e > a->v[k].e)
				a->v[k].e = a->v[i].e;
		} else {
			a->v[++k] = a->v[i];
		}
	}
	a->n = a->n ? k + 1 : 0;
	a->merged = a->n;
	a->limit = 2 * a->n > MINLIMIT ? 2 * a->n : MINLIMIT;
}

void
pd_ivl_add(struct pd_ivl *a, int64_t s, int64_t e)
{
	if (e <= s)
		return;
	if (a->n > 0) {
		struct pd_span *l = &a->v[a->n - 1];
		if (s >= l->s && s <= l->e) {
			/* the prefix stays sorted and disjoint: only the
			 * end of the last interval moves */
			if (e > l->e)
				l->e = e;
			return;
		}
	}
	if (a->limit == 0)
		a->limit = MINLIMIT;
	if (a->n >= a->limit)
		pd_ivl_merge(a);
	if (a->n == a->cap) {
		size_t nc = a->cap ? a->cap * 2 : 256;
		struct pd_span *nv = realloc(a->v, nc * sizeof *nv);
		if (!nv)
			pd_oom();
		a->v = nv;
		a->cap = nc;
	}
	a->v[a->n].s = s;
	a->v[a->n].e = e;
	a->n++;
}

/* Index of the first interval ending after t (v sorted, disjoint). */
static size_t
first_after(const struct pd_ivl *a, int64_t t)
{
	size_t lo = 0, hi = a->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (a->v[mid].e <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int64_t
pd_ivl_len(struct pd_ivl *a)
{
	return pd_ivl_len_in(a, INT64_MIN, INT64_MAX);
}

int64_t
pd_ivl_len_in(struct pd_ivl *a, int64_t s, int64_t e)
{
	int64_t sum = 0;
	size_t i;

	pd_ivl_merge(a);
	for (i = first_after(a, s); i < a->n && a->v[i].s < e; i++) {
		int64_t x = a->v[i].s > s ? a->v[i].s : s;
		int64_t y = a->v[i].e < e ? a->v[i].e : e;
		if (y > x)
			sum += y - x;
	}
	return sum;
}

int64_t
pd_ivl_both_len_in(struct pd_ivl *a, struct pd_ivl *b, int64_t s, int64_t e)
{
	int64_t sum = 0;
	size_t i, j;

	pd_ivl_merge(a);
	pd_ivl_merge(b);
	i = first_after(a, s);
	j = first_after(b, s);
	while (i < a->n && j < b->n) {
		int64_t x = a->v[i].s > b->v[j].s ? a->v[i].s : b->v[j].s;
		int64_t y = a->v[i].e < b->v[j].e ? a->v[i].e : b->v[j].e;
		if (x >= e)
			break;
		if (x < s)
			x = s;
		if (y > e)
			y = e;
		if (y > x)
			sum += y - x;
		if (a->v[i].e < b->v[j].e)
			i++;
		else
			j++;
	}
	return sum;
}

int64_t
pd_ivl_union_len_in(struct pd_ivl **sets, int k, int64_t s, int64_t e)
{
	size_t ix[16];
	int64_t sum = 0, cs = 0, ce = 0;
	int i, j, open = 0;

	if (k > 16)
		k = 16;
	for (i = 0; i < k; i++) {
		pd_ivl_merge(sets[i]);
		ix[i] = first_after(sets[i], s);
	}
	for (;;) {
		int64_t x, y;
		for (j = -1, i = 0; i < k; i++)
			if (ix[i] < sets[i]->n && sets[i]->v[ix[i]].s < e &&
			    (j < 0 || sets[i]->v[ix[i]].s < sets[j]->v[ix[j]].s))
				j = i;
		if (j < 0)
			break;
		x = sets[j]->v[ix[j]].s > s ? sets[j]->v[ix[j]].s : s;
		y = sets[j]->v[ix[j]].e < e ? sets[j]->v[ix[j]].e : e;
		ix[j]++;
		if (open && x <= ce) {
			if (y > ce)
				ce = y;
			continue;
		}
		if (open)
			sum += ce - cs;
		cs = x;
		ce = y;
		open = 1;
	}
	if (open)
		sum += ce - cs;
	return sum;
}

void
pd_ivl_add_all(struct pd_ivl *dst, struct pd_ivl *src)
{
	size_t i;

	for (i = 0; i < src->n; i++)
		pd_ivl_add(dst, src->v[i].s, src->v[i].e);
}

int
pd_ivl_hull(struct pd_ivl *a, int64_t *s, int64_t *e)
{
	pd_ivl_merge(a);
	if (a->n == 0) {
		*s = *e = 0;
		return 0;
	}
	*s = a->v[0].s;
	*e = a->v[a->n - 1].e;
	return 1;
}

void
pd_ivl_free(struct pd_ivl *a)
{
	free(a->v);
	memset(a, 0, sizeof *a);
}
