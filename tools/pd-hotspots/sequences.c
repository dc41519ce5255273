/* Repeated kernel sequences: the runs of kernels a program launches again
 * and again, the candidates for fusion (torch.compile, CUDA graphs, a
 * fused operator), as HTA's frequent CUDA kernel sequences look for them,
 * but over every stream rather than under one named operator.
 *
 * Per device stream (a GPU lane: the event's pid and tid), compute kernels
 * are taken in start order, which on one stream is launch order; every run
 * of SEQ_MIN..SEQ_MAX consecutive kernels is a sequence, keyed by stream
 * and kernel names. An occurrence counts when it starts after the last
 * counted one of the same sequence ended, so a run is never counted over
 * itself and a sequence's time is never more than its kernels' time.
 *
 * Memory: REORDER kernels held back per stream (a trace may write a
 * stream's kernels slightly out of start order; one that comes later
 * still starts a new run), the last SEQ_MAX kernels
 * of each stream, at most MAXENT sequences (when full, the rarest are
 * dropped and counted in "pruned"), and the names of the last OPRING host
 * operators by External id (direct-mapped). */
#include "sequences.h"

#include <stdlib.h>
#include <string.h>

#include "pd_diag.h"
#include "pd_kineto.h"
#include "pd_rec.h"

#define SEQ_MIN 2
#define SEQ_MAX 8
#define REORDER 32
#define MAXENT (1u << 14)
#define OPRING (1u << 16)
#define NO_OP UINT32_MAX

struct kev {
	int64_t ts, dur, ext, corr;
	uint32_t name;
};

struct stream {
	int64_t pid, tid, device, id;
	struct kev buf[REORDER];	/* held back, by start */
	size_t nbuf;
	struct kev ring[SEQ_MAX];	/* the last ones taken: pos % SEQ_MAX */
	uint64_t pos;			/* kernels taken */
	int have;			/* of them in ring, in order */
	int64_t last_ts;
};

struct ent {
	uint64_t hash, last_end;	/* position of the last counted end */
	int64_t count, total_ns;
	int64_t ts[SEQ_MAX], ext[SEQ_MAX], corr[SEQ_MAX];	/* last run */
	uint32_t name[SEQ_MAX], op[SEQ_MAX];
	uint32_t stream;
	uint8_t n;
};

struct opslot {
	int64_t key;		/* External id + 1; 0: empty */
	int64_t ts, end;
	uint32_t name;
};

struct launchslot {
	int64_t key;		/* correlation + 1; 0: empty */
	int64_t ext, ts;	/* the launch call's External id and start */
};

struct seqs {
	int64_t min_count;
	struct stream *st;
	size_t nst, capst, last;
	struct ent *e;
	size_t ne, cape;
	uint32_t *idx;		/* entry index + 1; 0: empty */
	uint32_t *ih;		/* the top of its hash: probed without e */
	size_t capidx;		/* a power of two, 2 * cape */
	struct opslot *ops;
	struct launchslot *launch;
	int64_t pruned, late;
};

struct seqs *
seqs_new(int64_t min_count)
{
	struct seqs *s = pd_xcalloc(1, sizeof *s);

	s->min_count = min_count;
	return s;
}

static int64_t
ext_of(const struct pd_ev *ev)
{
	int64_t x;

	if (pd_ev_arg_int(ev, "External id", &x) ||
	    pd_ev_arg_int(ev, "external id", &x))
		return x;
	return -1;
}

void
seqs_op(struct seqs *s, const struct pd_ev *ev, uint32_t name)
{
	int64_t x = ext_of(ev);
	struct opslot *o;

	if (x < 0)
		return;
	if (!s->ops)
		s->ops = pd_xcalloc(OPRING, sizeof *s->ops);
	o = &s->ops[(uint64_t)x & (OPRING - 1)];
	o->key = x + 1;
	o->ts = ev->ts_ns;
	o->end = ev->ts_ns + ev->dur_ns;
	o->name = name;
}

void
seqs_launch(struct seqs *s, const struct pd_ev *ev, int64_t corr)
{
	int64_t x = ext_of(ev);
	struct launchslot *l;

	if (x < 0 || corr < 0)
		return;
	if (!s->launch)
		s->launch = pd_xcalloc(OPRING, sizeof *s->launch);
	l = &s->launch[(uint64_t)corr & (OPRING - 1)];
	l->key = corr + 1;
	l->ext = x;
	l->ts = ev->ts_ns;
}

static const struct opslot *
op_slot(const struct seqs *s, int64_t ext)
{
	const struct opslot *o;

	if (ext < 0 || !s->ops)
		return NULL;
	o = &s->ops[(uint64_t)ext & (OPRING - 1)];
	return o->key == ext + 1 ? o : NULL;
}

/* The operator that launched kernel (ts, ext, corr): the one named by its
 * launch call's External id and holding that call in time, else the one
 * named by the kernel's own External id and started before it. An id
 * equal to the correlation id is no link (older traces copy one into the
 * other). NO_OP when unknown. */
static uint32_t
op_of(const struct seqs *s, int64_t ts, int64_t ext, int64_t corr)
{
	const struct launchslot *l = NULL;
	const struct opslot *o;

	if (corr >= 0 && s->launch) {
		l = &s->launch[(uint64_t)corr & (OPRING - 1)];
		if (l->key != corr + 1)
			l = NULL;
	}
	if (l && l->ext != corr) {
		o = op_slot(s, l->ext);
		return o && o->ts <= l->ts && l->ts <= o->end ? o->name :
		    NO_OP;
	}
	if (ext == corr)
		return NO_OP;
	o = op_slot(s, ext);
	return o && o->ts <= ts ? o->name : NO_OP;
}

static void
reindex(struct seqs *s)
{
	size_t i, mask;

	s->capidx = 2 * s->cape;
	free(s->idx);
	free(s->ih);
	s->idx = pd_xcalloc(s->capidx, sizeof *s->idx);
	s->ih = pd_xcalloc(s->capidx, sizeof *s->ih);
	mask = s->capidx - 1;
	for (i = 0; i < s->ne; i++) {
		size_t j = s->e[i].hash & mask;

		while (s->idx[j])
			j = (j + 1) & mask;
		s->idx[j] = (uint32_t)(i + 1);
		s->ih[j] = (uint32_t)(s->e[i].hash >> 32);
	}
}

/* The table is full: drop the sequences seen fewer than t times, t the
 * smallest power of two that frees a quarter of it. */
static void
prune(struct seqs *s)
{
	int64_t t = 2;
	size_t i, k, drop;

	for (;;) {
		for (i = drop = 0; i < s->ne; i++)
			drop += s->e[i].count < t;
		if (drop >= s->ne / 4)
			break;
		t *= 2;
	}
	for (i = k = 0; i < s->ne; i++)
		if (s->e[i].count >= t)
			s->e[k++] = s->e[i];
	s->pruned += (int64_t)(s->ne - k);
	s->ne = k;
	reindex(s);
}

static struct ent *
find(struct seqs *s, uint64_t h, uint32_t stream, const uint32_t *name,
    int n, int *fresh)
{
	size_t j, mask;
	struct ent *e;

	*fresh = 0;
	if (s->capidx) {
		mask = s->capidx - 1;
		for (j = h & mask; s->idx[j]; j = (j + 1) & mask) {
			if (s->ih[j] != (uint32_t)(h >> 32))
				continue;
			e = &s->e[s->idx[j] - 1];
			if (e->hash == h && e->stream == stream && e->n == n &&
			    !memcmp(e->name, name, n * sizeof *name))
				return e;
		}
	}
	if (s->ne == s->cape) {
		if (s->cape == MAXENT) {
			prune(s);
		} else {
			s->cape = s->cape ? s->cape * 2 : 256;
			s->e = pd_xrealloc(s->e, s->cape * sizeof *s->e);
			reindex(s);
		}
	}
	mask = s->capidx - 1;
	for (j = h & mask; s->idx[j]; j = (j + 1) & mask)
		;
	e = &s->e[s->ne++];
	s->idx[j] = (uint32_t)s->ne;
	s->ih[j] = (uint32_t)(h >> 32);
	memset(e, 0, sizeof *e);
	e->hash = h;
	e->stream = stream;
	e->n = (uint8_t)n;
	memcpy(e->name, name, n * sizeof *name);
	*fresh = 1;
	return e;
}

/* Kernel k is the next one of stream si: count the sequences it ends.
 * The runs it ends are the suffixes of the last kernels, the longer
 * taking one more from the front: their hash and time are made as the
 * front moves back (the hash of a run is over its names last to first). */
static void
take(struct seqs *s, size_t si, const struct kev *k)
{
	struct stream *st = &s->st[si];
	uint32_t name[SEQ_MAX], op[SEQ_MAX];	/* op: by ring slot */
	unsigned char have_op[SEQ_MAX] = { 0 };
	const struct kev *run[SEQ_MAX];		/* the last ones, in order */
	uint64_t h = 1469598103934665603ULL ^ (uint32_t)si, base;
	int64_t ns = 0;
	int n, j, have;

	st->ring[st->pos % SEQ_MAX] = *k;
	st->pos++;
	st->last_ts = k->ts;
	if (st->have < SEQ_MAX)
		st->have++;
	have = st->have;
	base = st->pos - (uint64_t)have;
	for (j = 0; j < have; j++) {
		run[j] = &st->ring[(base + (uint64_t)j) % SEQ_MAX];
		name[j] = run[j]->name;
	}
	for (n = 1; n <= have; n++) {
		const struct kev *const *rn = run + have - n;
		uint64_t start = st->pos - (uint64_t)n;
		struct ent *e;
		int fresh;

		h ^= rn[0]->name;
		h *= 1099511628211ULL;
		h ^= h >> 29;
		ns += rn[0]->dur;
		if (n < SEQ_MIN)
			continue;
		e = find(s, h ^ (uint64_t)n, (uint32_t)si, name + have - n, n,
		    &fresh);
		if (!fresh && start <= e->last_end)
			continue;	/* overlaps its last counted run */
		e->count++;
		e->total_ns += ns;
		e->last_end = st->pos - 1;
		for (j = 0; j < n; j++) {
			size_t r = (size_t)((start + (uint64_t)j) % SEQ_MAX);

			if (!have_op[r]) {
				op[r] = op_of(s, rn[j]->ts, rn[j]->ext,
				    rn[j]->corr);
				have_op[r] = 1;
			}
			e->ts[j] = rn[j]->ts;
			e->ext[j] = rn[j]->ext;
			e->corr[j] = rn[j]->corr;
			if (op[r] != NO_OP || fresh)
				e->op[j] = op[r];
		}
	}
}

static size_t
stream_of(struct seqs *s, const struct pd_ev *ev)
{
	int64_t pid = pd_ev_pid_key(ev), tid = pd_ev_tid_key(ev);
	struct stream *st;
	size_t i;

	if (s->last < s->nst && s->st[s->last].pid == pid &&
	    s->st[s->last].tid == tid)
		return s->last;
	for (i = 0; i < s->nst; i++)
		if (s->st[i].pid == pid && s->st[i].tid == tid)
			return s->last = i;
	if (s->nst == s->capst) {
		s->capst = s->capst ? s->capst * 2 : 8;
		s->st = pd_xrealloc(s->st, s->capst * sizeof *s->st);
	}
	st = &s->st[s->nst];
	memset(st, 0, sizeof *st);
	st->pid = pid;
	st->tid = tid;
	st->device = ev->pid_is_num ? ev->pid_num : -1;
	st->id = pd_kineto_stream(ev);
	return s->last = s->nst++;
}

void
seqs_kernel(struct seqs *s, const struct pd_ev *ev, uint32_t name)
{
	size_t si = stream_of(s, ev), i;
	struct stream *st = &s->st[si];
	struct kev k;

	k.ts = ev->ts_ns;
	k.dur = ev->dur_ns > 0 ? ev->dur_ns : 0;
	k.name = name;
	{
		static const char *const keys[] = { "External id",
		    "correlation" };
		const char *v[2];
		size_t len[2];

		pd_kineto_args(ev, keys, 2, v, len);
		if (!v[0] || !pd_kineto_raw_int(v[0], len[0], &k.ext))
			k.ext = -1;
		if (!v[1] || !pd_kineto_raw_int(v[1], len[1], &k.corr))
			k.corr = -1;
	}
	if (st->pos && k.ts < st->last_ts) {
		/* behind one already taken (a trace that writes whole
		 * buffers out of order): a run starts here */
		s->late++;
		st->have = 0;
		take(s, si, &k);
		return;
	}
	if (st->nbuf == REORDER) {
		struct kev first = st->buf[0];

		memmove(st->buf, st->buf + 1, (REORDER - 1) * sizeof *st->buf);
		st->nbuf--;
		take(s, si, &first);
		st = &s->st[si];
	}
	for (i = st->nbuf; i > 0 && st->buf[i - 1].ts > k.ts; i--)
		st->buf[i] = st->buf[i - 1];
	st->buf[i] = k;
	st->nbuf++;
}

/* Sorting and choosing the sequences to list. */
struct pick {
	struct seqs *s;
	seqs_name_fn name;
	void *ctx;
};
static struct pick *sort_ctx;

static int
cmp_names(const struct ent *a, const struct ent *b)
{
	int i, c;

	for (i = 0; i < a->n && i < b->n; i++)
		if (a->name[i] != b->name[i] && (c = strcmp(
		    sort_ctx->name(sort_ctx->ctx, 'k', a->name[i]),
		    sort_ctx->name(sort_ctx->ctx, 'k', b->name[i]))) != 0)
			return c;
	return (a->n > b->n) - (a->n < b->n);
}

static int
cmp_ent(const void *x, const void *y)
{
	const struct ent *a = &sort_ctx->s->e[*(const uint32_t *)x];
	const struct ent *b = &sort_ctx->s->e[*(const uint32_t *)y];
	const struct stream *sa = &sort_ctx->s->st[a->stream];
	const struct stream *sb = &sort_ctx->s->st[b->stream];

	if (a->total_ns != b->total_ns)
		return a->total_ns > b->total_ns ? -1 : 1;
	if (a->n != b->n)
		return a->n > b->n ? -1 : 1;
	if (sa->pid != sb->pid)
		return sa->pid < sb->pid ? -1 : 1;
	if (sa->tid != sb->tid)
		return sa->tid < sb->tid ? -1 : 1;
	return cmp_names(a, b);
}

/* A power of a shorter sequence (ABAB) says no more than that one. */
static int
primitive(const struct ent *e)
{
	int p, i;

	for (p = 1; p < e->n; p++) {
		if (e->n % p)
			continue;
		for (i = p; i < e->n && e->name[i] == e->name[i - p]; i++)
			;
		if (i == e->n)
			return 0;
	}
	return 1;
}

/* Does a suffix of a (k >= 1 names) equal a prefix of b, or is b inside
 * a? */
static int
joins(const struct ent *a, const struct ent *b)
{
	int k, i;

	for (i = 0; i + b->n <= a->n; i++)
		if (!memcmp(a->name + i, b->name, b->n * sizeof *b->name))
			return 1;
	for (k = 1; k < a->n && k < b->n; k++)
		if (!memcmp(a->name + a->n - k, b->name, k * sizeof *b->name))
			return 1;
	return 0;
}

/* The same repeated run seen through another window: same stream, counts
 * apart by at most 1 or 10 % (a window across the run's ends misses one),
 * and one overlaps or holds the other. */
static int
same_run(const struct ent *a, const struct ent *b)
{
	int64_t d = a->count - b->count, m;

	if (a->stream != b->stream)
		return 0;
	m = a->count > b->count ? a->count : b->count;
	if (d < 0)
		d = -d;
	if (d > 1 && d * 10 > m)
		return 0;
	return joins(a, b) || joins(b, a);
}

static json_t *
seq_json(struct pick *p, const struct ent *e, int64_t device_ns)
{
	const struct stream *st = &p->s->st[e->stream];
	json_t *o = json_object(), *ks = json_array();
	double us = (double)e->total_ns / 1e3;
	int j;

	for (j = 0; j < e->n; j++) {
		json_t *k = json_object();
		uint32_t op = e->op[j] != NO_OP ? e->op[j] :
		    op_of(p->s, e->ts[j], e->ext[j], e->corr[j]);

		pd_set_str(k, "name", p->name(p->ctx, 'k', e->name[j]));
		pd_set_str(k, "op", op != NO_OP ? p->name(p->ctx, 'o', op) :
		    NULL);
		json_array_append_new(ks, k);
	}
	pd_set(o, "kernels", ks);
	if (st->device >= 0)
		pd_set_int(o, "device", st->device);
	else
		pd_set_null(o, "device");
	if (st->id >= 0)
		pd_set_int(o, "stream", st->id);
	else
		pd_set_null(o, "stream");
	pd_set_int(o, "length", e->n);
	pd_set_int(o, "count", e->count);
	pd_set_real(o, "total_us", us, 3);
	pd_set_real(o, "mean_us", us / (double)e->count, 3);
	pd_set_real(o, "kernel_mean_us", us / (double)(e->count * e->n), 3);
	pd_set_real(o, "ratio", device_ns > 0 ? (double)e->total_ns /
	    (double)device_ns : 0, 4);
	return o;
}

json_t *
seqs_json(struct seqs *s, seqs_name_fn name, void *ctx, int topn,
    int64_t device_ns)
{
	struct pick p = { s, name, ctx };
	uint32_t *cand, *chosen;
	size_t i, j, nc = 0, nch = 0;
	json_t *o, *top;

	for (i = 0; i < s->nst; i++) {
		struct stream *st = &s->st[i];

		for (j = 0; j < st->nbuf; j++)
			take(s, i, &st->buf[j]);
		st->nbuf = 0;
	}
	if (!s->nst)
		return json_null();
	cand = pd_xcalloc(s->ne + 1, sizeof *cand);
	chosen = pd_xcalloc((size_t)(topn > 0 ? topn : 0) + 1, sizeof *chosen);
	for (i = 0; i < s->ne; i++)
		if (s->e[i].count >= s->min_count && primitive(&s->e[i]))
			cand[nc++] = (uint32_t)i;
	sort_ctx = &p;
	qsort(cand, nc, sizeof *cand, cmp_ent);
	top = json_array();
	for (i = 0; i < nc && (int)nch < topn; i++) {
		const struct ent *e = &s->e[cand[i]];

		for (j = 0; j < nch; j++)
			if (same_run(&s->e[chosen[j]], e))
				break;
		if (j < nch)
			continue;
		chosen[nch++] = cand[i];
		json_array_append_new(top, seq_json(&p, e, device_ns));
	}
	o = json_object();
	pd_set_int(o, "min_count", s->min_count);
	pd_set_int(o, "max_length", SEQ_MAX);
	pd_set_int(o, "repeated", (int64_t)nc);
	pd_set_int(o, "pruned", s->pruned);
	pd_set_int(o, "out_of_order", s->late);
	pd_set(o, "top", top);
	free(cand);
	free(chosen);
	return o;
}

void
seqs_free(struct seqs *s)
{
	if (!s)
		return;
	free(s->st);
	free(s->e);
	free(s->idx);
	free(s->ih);
	free(s->ops);
	free(s->launch);
	free(s);
}
