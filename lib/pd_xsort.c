#include "pd_xsort.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pd_diag.h"
#include "pd_file.h"

#define RUNBUF	(16u << 10)	/* read buffer of a run while merging */
#define FANIN	64		/* runs merged at a time */

struct pd_xsort_run {
	off_t off;		/* next byte of the run in the file */
	size_t left;		/* records of the run not yet in rb */
	char *rb;		/* read buffer */
	size_t rcap, rn, ri;	/* records rb holds, holds now, next one */
};

void
pd_xsort_init(struct pd_xsort *x, size_t size,
    int (*cmp)(const void *, const void *))
{
	const char *e = getenv("PD_SORT_MEM");
	size_t mem = PD_XSORT_MEM;

	memset(x, 0, sizeof *x);
	x->size = size;
	x->cmp = cmp;
	x->fd = -1;
	if (e && *e) {
		char *end;
		unsigned long long v = strtoull(e, &end, 10);
		if (*end == '\0' && v > 0)
			mem = v > SIZE_MAX / 2 ? SIZE_MAX / 2 : (size_t)v;
	}
	x->max = mem / size;
	if (x->max < 2)
		x->max = 2;
}

void
pd_xsort_set_sort(struct pd_xsort *x, void (*sort)(void *, size_t))
{
	x->sort = sort;
}

/* Sort the run in buf. */
static void
sort_run(struct pd_xsort *x)
{
	size_t i;

	if (x->n < 2)
		return;
	/* records often come in order already (a thread's events by
	 * time): then no sort (n - 1 compares, fewer where they do not) */
	for (i = 1; i < x->n; i++)
		if (x->cmp(x->buf + (i - 1) * x->size, x->buf + i * x->size) > 0)
			break;
	if (i == x->n)
		return;
	if (x->sort)
		x->sort(x->buf, x->n);
	else
		qsort(x->buf, x->n, x->size, x->cmp);
}

static int
io_fail(struct pd_xsort *x, int e)
{
	if (!x->err)
		x->err = e ? e : EIO;
	return -1;
}

const char *
pd_xsort_dir(void)
{
	return pd_file_tmpdir();
}

/* Append len bytes to the file. */
static int
append(struct pd_xsort *x, const char *p, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t w = pwrite(x->fd, p + done, len - done,
		    x->off + (off_t)done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return io_fail(x, w < 0 ? errno : ENOSPC);
		done += (size_t)w;
	}
	x->off += (off_t)len;
	return 0;
}

static void
run_add(struct pd_xsort *x, off_t off, size_t n)
{
	struct pd_xsort_run *r;

	x->runs = pd_xrealloc(x->runs, (x->nruns + 1) * sizeof *x->runs);
	r = &x->runs[x->nruns++];
	memset(r, 0, sizeof *r);
	r->off = off;
	r->left = n;
}

/* Sort buf and append it to the file as a run, or as more of the run
 * before it when it starts at or after that one's end (records in order
 * across runs: its records follow that run's in the file, nothing being
 * written between). The file is made by pd_xsort_slot before the first
 * run, the only way to a run. */
static int
spill(struct pd_xsort *x)
{
	off_t off;

	sort_run(x);
	off = x->off;
	if (append(x, x->buf, x->n * x->size) < 0)
		return -1;
	if (x->nruns && x->last && x->cmp(x->last, x->buf) <= 0)
		x->runs[x->nruns - 1].left += x->n;
	else
		run_add(x, off, x->n);
	if (!x->last)
		x->last = pd_xmalloc(x->size);
	memcpy(x->last, x->buf + (x->n - 1) * x->size, x->size);
	x->n = 0;
	return 0;
}

void *
pd_xsort_slot(struct pd_xsort *x)
{
	if (x->err)
		return NULL;
	if (x->n == x->max && x->fd < 0 && x->nruns == 0 &&
	    (x->fd = pd_file_tmp("pd-sort")) < 0)
		x->max = SIZE_MAX / x->size;	/* no scratch file: memory */
	if (x->n == x->max && spill(x) < 0)
		return NULL;
	if (x->n == x->cap) {
		size_t nc = x->cap ? x->cap * 2 : 256;
		/* past 64 KiB, a run of the default size (1 MiB) at once: a
		 * chain of doublings leaves its old blocks behind as holes
		 * in the heap, and pages not written yet are not resident */
		if (nc * x->size > (64u << 10) && x->max <= PD_XSORT_MEM /
		    x->size)
			nc = x->max;
		if (nc > x->max)
			nc = x->max;
		x->buf = pd_xrealloc(x->buf, nc * x->size);
		x->cap = nc;
	}
	x->total++;
	return x->buf + x->n++ * x->size;
}

/* Refill a run's read buffer; 0 when the run is over. */
static int
refill(struct pd_xsort *x, struct pd_xsort_run *r)
{
	size_t want, len, done = 0;

	if (!r->rb) {
		r->rcap = RUNBUF / x->size ? RUNBUF / x->size : 1;
		if (r->rcap > r->left)
			r->rcap = r->left ? r->left : 1;
		r->rb = pd_xmalloc(r->rcap * x->size);
	}
	want = r->rcap < r->left ? r->rcap : r->left;
	r->rn = r->ri = 0;
	if (want == 0)
		return 0;
	len = want * x->size;
	while (done < len) {
		ssize_t n = pread(x->fd, r->rb + done, len - done,
		    r->off + (off_t)done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			io_fail(x, n < 0 ? errno : EIO);
			return 0;
		}
		done += (size_t)n;
	}
	r->off += (off_t)len;
	r->left -= want;
	r->rn = want;
	return 1;
}

static const void *
run_rec(const struct pd_xsort *x, size_t i)
{
	const struct pd_xsort_run *r = &x->runs[i];

	return r->rb + r->ri * x->size;
}

/* heap order: the smaller current record, then the earlier run */
static int
less(const struct pd_xsort *x, size_t a, size_t b)
{
	int c = x->cmp(run_rec(x, a), run_rec(x, b));

	return c < 0 || (c == 0 && a < b);
}

static void
sift_down(struct pd_xsort *x, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i, t;
		if (l < x->nheap && less(x, x->heap[l], x->heap[m]))
			m = l;
		if (l + 1 < x->nheap && less(x, x->heap[l + 1], x->heap[m]))
			m = l + 1;
		if (m == i)
			return;
		t = x->heap[i];
		x->heap[i] = x->heap[m];
		x->heap[m] = t;
		i = m;
	}
}

/* The heap over runs [0, n). */
static int
heap_start(struct pd_xsort *x, size_t n)
{
	size_t i;

	x->nheap = 0;
	for (i = 0; i < n; i++)
		if (refill(x, &x->runs[i]))
			x->heap[x->nheap++] = i;
	if (x->err)
		return -1;
	for (i = x->nheap / 2; i-- > 0; )
		sift_down(x, i);
	return 0;
}

/* Past the smallest record: its run's next one, or the run is done. */
static void
heap_next(struct pd_xsort *x)
{
	struct pd_xsort_run *r = &x->runs[x->heap[0]];

	if (++r->ri == r->rn && !refill(x, r)) {
		free(r->rb);
		r->rb = NULL;
		x->heap[0] = x->heap[--x->nheap];
	}
	if (x->nheap > 1)
		sift_down(x, 0);
}

/* Merge the first k runs into one at the end of the file. */
static int
premerge(struct pd_xsort *x, size_t k)
{
	size_t ocap = RUNBUF / x->size ? RUNBUF / x->size : 1, on = 0, n = 0,
	    i;
	char *ob = pd_xmalloc(ocap * x->size);
	off_t off = x->off;

	if (heap_start(x, k) < 0)
		goto fail;
	while (x->nheap) {
		memcpy(ob + on++ * x->size, run_rec(x, x->heap[0]), x->size);
		n++;
		if (on == ocap) {
			if (append(x, ob, on * x->size) < 0)
				goto fail;
			on = 0;
		}
		heap_next(x);
	}
	if (x->err || append(x, ob, on * x->size) < 0)
		goto fail;
	free(ob);
	memmove(x->runs, x->runs + k, (x->nruns - k) * sizeof *x->runs);
	x->nruns -= k;
	run_add(x, off, n);
	return 0;
fail:
	for (i = 0; i < k; i++) {
		free(x->runs[i].rb);
		x->runs[i].rb = NULL;
	}
	free(ob);
	return -1;
}

int
pd_xsort_finish(struct pd_xsort *x)
{
	x->reading = 1;
	if (x->err)
		return -1;
	if (x->nruns == 0) {
		sort_run(x);
		return 0;
	}
	if (x->n > 0 && spill(x) < 0)
		return -1;
	free(x->buf);
	x->buf = NULL;
	x->cap = 0;
	x->heap = pd_xmalloc(x->nruns * sizeof *x->heap);
	/* at most FANIN read buffers at a time: merge the oldest runs
	 * into one until that many are left, no more of them than that
	 * takes (each record merged again costs a write and a read) */
	while (x->nruns > FANIN)
		if (premerge(x, x->nruns - FANIN + 1 < FANIN ?
		    x->nruns - FANIN + 1 : FANIN) < 0)
			return -1;
	free(x->last);	/* nothing more is spilled */
	x->last = NULL;
	return heap_start(x, x->nruns);
}

const void *
pd_xsort_peek(struct pd_xsort *x)
{
	if (x->err)
		return NULL;
	if (x->nruns == 0)
		return x->pos < x->n ? x->buf + x->pos * x->size : NULL;
	return x->nheap ? run_rec(x, x->heap[0]) : NULL;
}

void
pd_xsort_next(struct pd_xsort *x)
{
	if (x->nruns == 0) {
		if (x->pos < x->n)
			x->pos++;
		return;
	}
	if (x->err || x->nheap == 0)
		return;
	heap_next(x);
}

void
pd_xsort_free(struct pd_xsort *x)
{
	size_t i;

	for (i = 0; i < x->nruns; i++)
		free(x->runs[i].rb);
	free(x->runs);
	free(x->heap);
	free(x->buf);
	free(x->last);
	if (x->fd >= 0)
		close(x->fd);
	memset(x, 0, sizeof *x);
	x->fd = -1;
}

void
pd_xtop_init(struct pd_xtop *t, size_t size, size_t k,
    int (*cmp)(const void *, const void *))
{
	memset(t, 0, sizeof *t);
	t->size = size;
	t->k = k;
	t->cmp = cmp;
	t->max = k > SIZE_MAX / 2 / size ? SIZE_MAX / size : 2 * k;
}

static void
xtop_cut(struct pd_xtop *t)
{
	if (t->n > 1)
		qsort(t->buf, t->n, t->size, t->cmp);
	if (t->n > t->k) {
		t->n = t->k;
		t->cut = 1;
	}
}

void
pd_xtop_add(struct pd_xtop *t, const void *rec)
{
	if (t->k == 0 || (t->cut && t->cmp(rec, t->buf + (t->k - 1) *
	    t->size) >= 0))
		return;
	if (t->n == t->max)
		xtop_cut(t);
	if (t->n == t->cap) {
		size_t nc = t->cap ? t->cap * 2 : 64;
		if (nc > t->max)
			nc = t->max;
		t->buf = pd_xrealloc(t->buf, nc * t->size);
		t->cap = nc;
	}
	memcpy(t->buf + t->n++ * t->size, rec, t->size);
}

size_t
pd_xtop_finish(struct pd_xtop *t)
{
	xtop_cut(t);
	return t->n;
}

void
pd_xtop_free(struct pd_xtop *t)
{
	free(t->buf);
	memset(t, 0, sizeof *t);
}
