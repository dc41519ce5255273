/* pd-sum-comm for PyTorch roots (Kineto traces, the legacy autograd
 * exporter): one pd.comm per trace.
 *
 * Reads: the trace of the root, streamed once.
 * Communication = GPU kernels whose name matches share/comm-patterns.txt
 * (plus -p FILE). Op type: the kernel's "Collective name" arg, else the
 * collective in an NCCL kernel name (ncclKernel_AllReduce_... ->
 * "allreduce", ncclDevKernel_SendRecv -> "sendrecv", the older
 * ncclAllReduceRingLLKernel_sum_f32 -> "allreduce"), else the name up to
 * '('. Bytes: "In msg nelems" x the size of "dtype" (PyTorch >= 2.3 writes
 * them on NCCL kernels). A trace without communication kernels falls back
 * to the CPU "gloo:*" annotations, or, when it has no GPU activity at all,
 * to the "nccl:*" ones; these are sized from their first "Input Dims" x
 * "Input type".
 * Keeps: per op type the sums, and of the collectives only those that can
 * still be listed: the -n slowest and the first MAX_COLL in start order
 * (the per-collective start times that pd-profile compares across ranks),
 * 40 bytes each, at most twice that many at a time (pd_xtop); the
 * ProfilerStep windows (pd_ksteps, per step).
 * Groups: distributedInfo.pg_config (name, description, ranks), the kind
 * read from the description (Megatron's TENSOR_MODEL_PARALLEL_GROUP,
 * DeviceMesh's mesh_tp, ...).
 * Writes: one pd.comm (transit/wait/sync/transports/links are Ascend
 * evidence: null here). */
#include "record.h"
#include "sum_comm.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pd_diag.h"
#include "pd_kineto.h"
#include "pd_patterns.h"
#include "pd_rec.h"
#include "pd_xsort.h"

#define MAX_COLL 4096	/* collectives listed per record */

struct op {
	char *type;
	char *name;	/* first kernel name seen */
	uint64_t count, sized, small;
	int64_t total, sized_ns, bytes, max, bus_ns, small_ns;
	double bus_bytes;	/* bytes x the bus factor, group size known */
};

/* A collective under 1 MiB is latency-bound: NCCL reaches its bus
 * bandwidth only at MB sizes (nccl-tests' size sweeps); the same bound
 * as msprof-analyze's RDMA packet rule. */
#define SMALL_BYTES (1 << 20)

struct coll {
	int64_t s, dur, bytes;	/* bytes < 0: unknown */
	uint32_t op;
	int32_t grp;		/* index into the lane's groups, -1: none */
	uint64_t ins;		/* order added: breaks ties */
};

struct lane {
	struct op *op;
	size_t nop, capop;
	size_t n;		/* collectives */
	struct pd_xtop slow;	/* the slowest (slow_cmp) */
	struct pd_xtop first;	/* the first MAX_COLL (coll_cmp) */
	int started;		/* slow and first initialized */
	char **grp;		/* "Process Group Name" + "/" + its ranks */
	size_t ngrp;
};

/* The index of a collective's process group (kernel args "Process Group
 * Name" and "Process Group Ranks", PyTorch >= 2.3), -1 when it has none. */
static int32_t
grp_index(struct lane *l, const struct pd_ev *ev)
{
	char name[64], ranks[192], key[260], *p, *q;
	size_t i;

	if (!pd_ev_arg_str(ev, "Process Group Name", name, sizeof name) ||
	    !*name)
		return -1;
	if (!pd_ev_arg_str(ev, "Process Group Ranks", ranks, sizeof ranks))
		*ranks = 0;
	for (p = q = ranks; *p; p++)	/* "[0, 1]" -> "[0,1]" */
		if (*p != ' ')
			*q++ = *p;
	*q = 0;
	snprintf(key, sizeof key, "%s%s%s", name, *ranks ? "/" : "", ranks);
	for (i = 0; i < l->ngrp; i++)
		if (!strcmp(l->grp[i], key))
			return (int32_t)i;
	if (l->ngrp >= 65536)
		return -1;
	l->grp = realloc(l->grp, (l->ngrp + 1) * sizeof *l->grp);
	if (!l->grp || !(l->grp[l->ngrp] = strdup(key)))
		pd_oom();
	return (int32_t)l->ngrp++;
}

struct acc {
	const char *path;
	int topn;
	const struct pd_patterns *comm;
	struct pd_ksteps steps;
	struct lane gpu, gloo, cpu;	/* cpu: "nccl:" annotations */
	uint64_t bad, gpu_events;
	json_t *groups;		/* from distributedInfo.pg_config, or NULL */
};

/* The kind of parallelism a process group's description names:
 * "dp", "tp", "pp", "ep", "cp", else "unknown" (also for groups that
 * combine kinds, as TENSOR_AND_DATA_PARALLEL_GROUP). */
const char *
group_kind(const char *desc)
{
	static const struct { const char *word, *kind; } words[] = {
		{ "expert", "ep" }, { "tensor", "tp" }, { "pipeline", "pp" },
		{ "context", "cp" }, { "data", "dp" }, { NULL, NULL }
	};
	static const struct { const char *tok, *kind; } toks[] = {
		{ "dp", "dp" }, { "ddp", "dp" }, { "fsdp", "dp" }, { "tp", "tp" },
		{ "pp", "pp" }, { "ep", "ep" }, { "cp", "cp" }, { NULL, NULL }
	};
	char low[128], *t, *save;
	const char *kind = NULL;
	size_t i, n = 0;

	if (!desc)
		return "unknown";
	snprintf(low, sizeof low, "%s", desc);
	for (i = 0; low[i]; i++)
		low[i] = (char)tolower((unsigned char)low[i]);
	for (i = 0; words[i].word; i++)
		if (strstr(low, words[i].word)) {
			kind = words[i].kind;
			n++;
		}
	if (n)
		return n == 1 ? kind : "unknown";
	for (t = strtok_r(low, "_-. :/", &save); t; t = strtok_r(NULL,
	    "_-. :/", &save))
		for (i = 0; toks[i].tok; i++)
			if (!strcmp(t, toks[i].tok)) {
				if (kind && strcmp(kind, toks[i].kind))
					return "unknown";
				kind = toks[i].kind;
			}
	return kind ? kind : "unknown";
}

static void
on_meta(const char *key, json_t *v, void *ctx)
{
	struct acc *a = ctx;
	json_t *pg = json_object_get(v, "pg_config"), *e;
	size_t i, j;

	if (strcmp(key, "distributedInfo") || !json_is_array(pg) || a->groups)
		return;
	a->groups = json_array();
	json_array_foreach(pg, i, e) {
		json_t *rs = json_object_get(e, "ranks"), *g, *out;
		json_t *name = json_object_get(e, "pg_name");
		int ok = json_is_array(rs) && json_array_size(rs) > 0;

		for (j = 0; ok && j < json_array_size(rs); j++)
			ok = json_is_integer(json_array_get(rs, j));
		if (!ok)
			continue;
		out = json_array();
		for (j = 0; j < json_array_size(rs); j++)
			json_array_append(out, json_array_get(rs, j));
		g = json_object();
		if (json_is_string(name))
			pd_set_str(g, "name", json_string_value(name));
		else if (json_is_integer(name)) {
			char buf[32];

			snprintf(buf, sizeof buf, "%lld",
			    (long long)json_integer_value(name));
			pd_set_str(g, "name", buf);
		} else
			pd_set_null(g, "name");
		pd_set_str(g, "kind", group_kind(pd_rec_str(e, "pg_desc")));
		pd_set(g, "ranks", out);
		json_array_append_new(a->groups, g);
	}
}

static size_t
op_index(struct lane *l, const char *type, const char *name)
{
	size_t i;

	for (i = 0; i < l->nop; i++)
		if (strcmp(l->op[i].type, type) == 0)
			return i;
	if (l->nop == l->capop) {
		l->capop = l->capop ? l->capop * 2 : 16;
		l->op = realloc(l->op, l->capop * sizeof *l->op);
		if (!l->op)
			pd_oom();
	}
	memset(&l->op[l->nop], 0, sizeof *l->op);
	l->op[l->nop].type = strdup(type);
	l->op[l->nop].name = strdup(name);
	if (!l->op[l->nop].type || !l->op[l->nop].name)
		pd_oom();
	return l->nop++;
}

/* nccl-tests' bus bandwidth factor (doc/PERFORMANCE.md): what each rank
 * sends over its slowest link per byte of the collective's size, for a
 * group of n ranks; 0 when the type has none known. Types are compared
 * without '_' ("reduce_scatter_tensor" is a reduce-scatter). */
static double
bus_factor(const char *type, int64_t n)
{
	char t[64];
	size_t i, k = 0;

	if (n < 1)
		return 0;
	for (i = 0; type[i] && k + 1 < sizeof t; i++)
		if (type[i] != '_')
			t[k++] = (char)tolower((unsigned char)type[i]);
	t[k] = 0;
	if (strstr(t, "allreduce"))
		return 2.0 * (double)(n - 1) / (double)n;
	if (strstr(t, "reducescatter") || strstr(t, "allgather") ||
	    strstr(t, "alltoall"))
		return (double)(n - 1) / (double)n;
	if (strstr(t, "broadcast") || strstr(t, "reduce") ||
	    strstr(t, "sendrecv") || !strcmp(t, "send") || !strcmp(t, "recv"))
		return 1;
	return 0;
}

static int coll_cmp(const void *x, const void *y);
static int slow_cmp(const void *x, const void *y);

/* grp: the collective's group index, -1 none */
static void
add(struct lane *l, int topn, const char *type, const char *name, int64_t s,
    int64_t dur, int64_t bytes, int64_t group_size, int32_t grp)
{
	size_t i = op_index(l, type, name);
	struct op *o = &l->op[i];
	struct coll c;
	double f;

	o->count++;
	o->total += dur;
	if (dur > o->max)
		o->max = dur;
	if (bytes >= 0) {
		o->sized++;
		o->sized_ns += dur;
		o->bytes += bytes;
		if (bytes < SMALL_BYTES) {
			o->small++;
			o->small_ns += dur;
		}
		if ((f = bus_factor(type, group_size)) > 0) {
			o->bus_bytes += (double)bytes * f;
			o->bus_ns += dur;
		}
	}
	if (!l->started) {
		pd_xtop_init(&l->slow, sizeof c, (size_t)topn, slow_cmp);
		pd_xtop_init(&l->first, sizeof c, MAX_COLL, coll_cmp);
		l->started = 1;
	}
	memset(&c, 0, sizeof c);
	c.s = s;
	c.dur = dur;
	c.bytes = bytes;
	c.op = (uint32_t)i;
	c.grp = grp;
	c.ins = l->n++;
	pd_xtop_add(&l->slow, &c);
	pd_xtop_add(&l->first, &c);
}

/* Lower-case letters of the collective in an NCCL kernel name. */
static void
type_of_kernel(const char *name, char *buf, size_t size)
{
	static const char *pre[] = { "ncclKernel_", "ncclDevKernel_", NULL };
	const char *p = NULL;
	size_t i, n = 0;

	for (i = 0; pre[i] && !p; i++)
		if (strncmp(name, pre[i], strlen(pre[i])) == 0)
			p = name + strlen(pre[i]);
	if (!p && strncmp(name, "nccl", 4) == 0) {
		/* NCCL < 2.8: ncclAllReduceRingLLKernel_sum_f32 */
		static const char *stop[] = { "Ring", "Tree", "CollNet",
			"Kernel", NULL };
		const char *e = name + strlen(name);
		for (i = 0; stop[i]; i++) {
			const char *x = strstr(name + 4, stop[i]);
			if (x && x < e)
				e = x;
		}
		for (p = name + 4; p < e && isalpha((unsigned char)*p) &&
		    n + 1 < size; p++)
			buf[n++] = (char)tolower((unsigned char)*p);
		if (n > 0) {
			buf[n] = 0;
			return;
		}
		p = NULL;
	}
	if (p) {
		while (p[n] && p[n] != '_' && p[n] != '(' && n + 1 < size) {
			buf[n] = (char)tolower((unsigned char)p[n]);
			n++;
		}
	} else {
		while (name[n] && name[n] != '(' && n + 1 < size) {
			buf[n] = name[n];
			n++;
		}
	}
	buf[n] = 0;
}

/* The collective's size as nccl-tests counts it: the larger of its input
 * and output ("In msg nelems", "Out msg nelems" x the dtype's size), so an
 * all-gather's whole output and a reduce-scatter's whole input. */
static int64_t
kernel_bytes(const struct pd_ev *ev)
{
	char dt[64];
	int64_t nel, out;
	int sz;

	if (!pd_ev_arg_int(ev, "In msg nelems", &nel) || nel < 0 ||
	    !pd_ev_arg_str(ev, "dtype", dt, sizeof dt) ||
	    (sz = pd_kineto_dtype_size(dt)) == 0)
		return -1;
	if (pd_ev_arg_int(ev, "Out msg nelems", &out) && out > nel)
		nel = out;
	if (nel > INT64_MAX / sz)
		return -1;
	return nel * sz;
}

static int64_t
group_size(const struct pd_ev *ev)
{
	int64_t n;

	return pd_ev_arg_int(ev, "Group size", &n) && n > 0 ? n : -1;
}

/* The bytes of the first "Input Dims" entry and "Input type" element, from
 * their texts (v_d, v_t): 1 with *bytes set (-1: not known), 0 when the
 * texts are not of the plain form (an array of arrays of small integers,
 * an array whose first element is a string without escapes), which the
 * JSON path below then reads. */
static int
annot_quick(const char *d, size_t dn, const char *t, size_t tn,
    int64_t *bytes)
{
	const char *e = d + dn, *q;
	char dt[64];
	int64_t n = 1, x;
	int sz, k;

#define WS(p, end) while ((p) < (end) && (*(p) == ' ' || *(p) == '\t' || \
	*(p) == '\n' || *(p) == '\r')) (p)++
	/* "Input type"'s first element: a string of no escapes */
	q = t + tn;
	if (tn < 2 || *t++ != '[')
		return 0;
	WS(t, q);
	if (t >= q || *t++ != '"')
		return 0;
	for (k = 0; t < q && *t != '"' && *t != '\\'; t++)
		if (k < (int)sizeof dt - 1)
			dt[k++] = *t;
	if (t >= q || *t != '"' || k >= (int)sizeof dt - 1)
		return 0;
	dt[k] = 0;
	/* "Input Dims"'s first element: an array of integers */
	if (dn < 2 || *d++ != '[')
		return 0;
	WS(d, e);
	if (d >= e || *d++ != '[')
		return 0;
	WS(d, e);
	if (d < e && *d == ']') {		/* empty: not known */
		*bytes = -1;
		return 1;
	}
	if ((sz = pd_kineto_dtype_size(dt)) <= 0) {
		*bytes = -1;
		return 1;
	}
	for (;;) {
		const char *s = d;

		for (x = 0; d < e && *d >= '0' && *d <= '9' && d - s < 18; d++)
			x = x * 10 + (*d - '0');
		if (d == s || d >= e || (*d >= '0' && *d <= '9') ||
		    *d == '.' || *d == 'e' || *d == 'E')
			return 0;	/* a sign, a real, a long one: JSON */
		if (__builtin_mul_overflow(n, x, &n)) {
			*bytes = -1;
			return 1;
		}
		WS(d, e);
		if (d < e && *d == ']')
			break;
		if (d >= e || *d++ != ',')
			return 0;
		WS(d, e);
	}
#undef WS
	*bytes = __builtin_mul_overflow(n, (int64_t)sz, &n) ? -1 : n;
	return 1;
}

/* First "Input Dims" entry's element count x "Input type"[0] size. */
static int64_t
annot_bytes(const struct pd_ev *ev)
{
	const char *vd, *vt;
	size_t nd, nt;
	json_t *a, *d, *t, *x;
	int64_t n = 1, bytes = -1;
	size_t i;
	int sz;

	if (!pd_ev_arg_raw(ev, "Input Dims", &vd, &nd) ||
	    !pd_ev_arg_raw(ev, "Input type", &vt, &nt))
		return -1;
	if (annot_quick(vd, nd, vt, nt, &bytes))
		return bytes;
	a = pd_ev_args_json(ev);
	d = json_array_get(json_object_get(a, "Input Dims"), 0);
	t = json_array_get(json_object_get(a, "Input type"), 0);
	if (json_is_array(d) && json_array_size(d) > 0 && json_is_string(t) &&
	    (sz = pd_kineto_dtype_size(json_string_value(t))) > 0) {
		json_array_foreach(d, i, x) {
			if (!json_is_integer(x) || json_integer_value(x) < 0)
				goto out;
			if (__builtin_mul_overflow(n, json_integer_value(x),
			    &n))
				goto out;
		}
		if (!__builtin_mul_overflow(n, (int64_t)sz, &n))
			bytes = n;
	}
out:
	json_decref(a);
	return bytes;
}

static int
on_event(const struct pd_ev *ev, void *ctx)
{
	struct acc *a = ctx;
	int k = pd_kineto_class(ev);
	int64_t n = -1;
	char type[128], dt[128];

	if (pd_kineto_is_gpu(k))
		a->gpu_events++;
	if (ev->ph != 'X' || (k != PD_KC_KERNEL && !pd_kineto_is_cpu_range(k)))
		return 0;
	if (k == PD_KC_KERNEL && !pd_patterns_match_ev(a->comm, ev))
		return 0;
	if (pd_kineto_is_cpu_range(k) && (n = pd_kineto_step_num(ev->name)) < 0 &&
	    strncmp(ev->name, "gloo:", 5) != 0 &&
	    strncmp(ev->name, "nccl:", 5) != 0)
		return 0;
	if (!ev->has_ts || !ev->has_dur || ev->dur_ns < 0) {
		pd_kineto_bad_event(a->path, ev, "no ts or dur, or a negative "
		    "dur", &a->bad);
		return 0;
	}
	if (k == PD_KC_KERNEL) {
		if (pd_ev_arg_str(ev, "Collective name", dt, sizeof dt) && *dt) {
			size_t i;
			for (i = 0; dt[i]; i++)
				dt[i] = (char)tolower((unsigned char)dt[i]);
			snprintf(type, sizeof type, "%s", dt);
		} else {
			type_of_kernel(ev->name, type, sizeof type);
		}
		add(&a->gpu, a->topn, type, ev->name, ev->ts_ns, ev->dur_ns,
		    kernel_bytes(ev), group_size(ev), grp_index(&a->gpu, ev));
	} else if (n >= 0) {
		pd_ksteps_add(&a->steps, n, ev->ts_ns, ev->ts_ns + ev->dur_ns);
	} else {
		add(ev->name[0] == 'g' ? &a->gloo : &a->cpu, a->topn,
		    ev->name + 5, ev->name, ev->ts_ns, ev->dur_ns,
		    annot_bytes(ev), -1, -1);
	}
	return 0;
}

/* start order: start, op type, then as added */
static int
coll_cmp(const void *x, const void *y)
{
	const struct coll *a = x, *b = y;

	if (a->s != b->s)
		return a->s < b->s ? -1 : 1;
	if (a->op != b->op)
		return a->op < b->op ? -1 : 1;
	return (a->ins > b->ins) - (a->ins < b->ins);
}

static void
set_us(json_t *o, const char *key, int64_t ns)
{
	pd_set_real(o, key, (double)ns / 1e3, 3);
}

static struct lane *sort_lane;

static int
op_cmp(const void *x, const void *y)
{
	const struct op *a = &sort_lane->op[*(const size_t *)x];
	const struct op *b = &sort_lane->op[*(const size_t *)y];

	if (a->total != b->total)
		return a->total > b->total ? -1 : 1;
	return strcmp(a->type, b->type);
}

static void
ops_fill(struct lane *l, int64_t *total, struct commrec *r)
{
	size_t *ix = malloc((l->nop + 1) * sizeof *ix), i;

	if (!ix)
		pd_oom();
	for (i = 0; i < l->nop; i++)
		ix[i] = i;
	sort_lane = l;
	if (l->nop > 1)
		qsort(ix, l->nop, sizeof *ix, op_cmp);
	*total = 0;
	for (i = 0; i < l->nop; i++) {
		struct op *o = &l->op[ix[i]];
		struct commop *j = commrec_op(r);

		*total += o->total;
		j->type = o->type;
		commop_set(j, CO_COUNT, (double)o->count);
		commop_set(j, CO_TOTAL, (double)o->total / 1e3);
		if (o->sized)
			commop_set(j, CO_BYTES, (double)o->bytes);
		if (o->sized && o->sized_ns > 0 && o->bytes >= 0)
			/* bytes per ns = GB/s */
			commop_set(j, CO_ALGBW, (double)o->bytes /
			    (double)o->sized_ns);
		commop_set(j, CO_MEAN, (double)o->total / 1e3 /
		    (double)o->count);
		commop_set(j, CO_MAX, (double)o->max / 1e3);
		commop_set(j, CO_SIZED, (double)o->sized);
		if (o->bus_ns > 0)
			commop_set(j, CO_BUSBW, o->bus_bytes / (double)o->bus_ns);
		if (o->sized) {
			commop_set(j, CO_SMALL, (double)o->small);
			commop_set(j, CO_SMALL_RATIO, o->sized_ns > 0 ?
			    (double)o->small_ns / (double)o->sized_ns : 0);
		}
	}
	free(ix);
}

/* the slowest first: duration, then start, then as added */
static int
slow_cmp(const void *x, const void *y)
{
	const struct coll *a = x, *b = y;

	if (a->dur != b->dur)
		return a->dur > b->dur ? -1 : 1;
	if (a->s != b->s)
		return a->s < b->s ? -1 : 1;
	return (a->ins > b->ins) - (a->ins < b->ins);
}

static void
set_step(json_t *o, const struct pd_ksteps *st, int64_t t, int64_t *start)
{
	long i = pd_ksteps_find(st, t);

	if (i >= 0) {
		pd_set_int(o, "step", st->v[i].num);
		*start = st->v[i].s;
	} else {
		pd_set_null(o, "step");
		*start = INT64_MIN;
	}
}

static void
slowest_fill(struct lane *l, const struct pd_ksteps *st, struct commrec *r)
{
	const struct coll *p = (const struct coll *)(void *)l->slow.buf;
	size_t i, n = l->started ? pd_xtop_finish(&l->slow) : 0;
	long k;

	for (i = 0; i < n; i++) {
		struct commcall *c = commrec_call(r);

		c->name = l->op[p[i].op].name;
		c->elapse_us = (double)p[i].dur / 1e3;
		if ((k = pd_ksteps_find(st, p[i].s)) >= 0) {
			c->step = st->v[k].num;
			c->has_step = 1;
		}
		c->op_type = l->op[p[i].op].type;
		c->start_ns = p[i].s;
		c->has_start = 1;
	}
}

/* Every collective in start order (the first MAX_COLL): what pd-profile
 * lines up across ranks by (group, op_type, seq) for the start skew; seq
 * counts per op type and process group. */
static json_t *
colls_json(struct lane *l, const struct pd_ksteps *st)
{
	json_t *arr = json_array();
	size_t ng = l->ngrp + 1;
	uint32_t *seq = calloc(l->nop * ng + 1, sizeof *seq);
	size_t i, n = l->started ? pd_xtop_finish(&l->first) : 0;
	int64_t s0;

	if (!seq)
		pd_oom();
	for (i = 0; i < n; i++) {
		const struct coll *c = (const struct coll *)(void *)
		    (l->first.buf + i * sizeof *c);
		json_t *o = json_object();
		pd_set_str(o, "op_type", l->op[c->op].type);
		pd_set_str(o, "group", c->grp >= 0 ? l->grp[c->grp] : NULL);
		pd_set_int(o, "seq", seq[c->op * ng + (size_t)(c->grp + 1)]++);
		set_step(o, st, c->s, &s0);
		pd_set_int(o, "start_ns", c->s);
		if (s0 != INT64_MIN)
			set_us(o, "offset_us", c->s - s0);
		else
			pd_set_null(o, "offset_us");
		set_us(o, "dur_us", c->dur);
		if (c->bytes >= 0)
			pd_set_int(o, "bytes", c->bytes);
		else
			pd_set_null(o, "bytes");
		json_array_append_new(arr, o);
	}
	free(seq);
	return arr;
}

/* Over all sized collectives: the time share of those under 1 MiB. */
static void
small_ratio(struct commrec *r, const struct lane *l)
{
	int64_t small = 0, sized = 0;
	size_t i;

	for (i = 0; i < l->nop; i++) {
		small += l->op[i].small_ns;
		sized += l->op[i].sized_ns;
	}
	if (sized > 0) {
		r->small_ratio = (double)small / (double)sized;
		r->has_small_ratio = 1;
	}
}

static void
emit(json_t *root, struct acc *a, const struct pd_kineto_info *info,
    const struct pd_trace_stats *st, int truncated)
{
	json_t *rec = pd_kineto_rec("pd.comm", root, info, "kineto_trace");
	/* "nccl:" annotations time only the launch when kernels ran */
	struct lane *l = a->gpu.n ? &a->gpu : a->gloo.n ? &a->gloo :
	    a->gpu_events ? &a->gpu : &a->cpu;
	struct commrec r = { 0 };
	int64_t total;

	pd_ksteps_sort(&a->steps);
	ops_fill(l, &total, &r);
	if (l->n) {
		r.total_us = (double)total / 1e3;
		r.has_total = 1;
	}
	small_ratio(&r, l);
	slowest_fill(l, &a->steps, &r);
	r.op_count = (int64_t)l->n;
	r.lane = !l->n ? NULL : l == &a->gpu ? "gpu_kernels" :
	    "cpu_annotations";
	r.collectives_total = (int64_t)l->n;
	r.has_collectives_total = 1;
	r.collectives = colls_json(l, &a->steps);
	r.groups = a->groups ? json_incref(a->groups) : NULL;
	r.skipped = (int64_t)(a->bad + st->skipped);
	r.path = a->path;
	r.truncated = truncated;
	commrec_write(rec, &r);
}

static void
lane_free(struct lane *l)
{
	size_t i;

	for (i = 0; i < l->nop; i++) {
		free(l->op[i].type);
		free(l->op[i].name);
	}
	free(l->op);
	pd_xtop_free(&l->slow);
	pd_xtop_free(&l->first);
	for (i = 0; i < l->ngrp; i++)
		free(l->grp[i]);
	free(l->grp);
}

/* The events on_event does anything with (pd_trace_cb.want): GPU
 * activities (counted), kernels and the CPU ranges of steps and of
 * collectives. */
static int
want(const struct pd_ev *ev)
{
	int k = pd_kineto_class(ev);

	if (pd_kineto_is_gpu(k))
		return 1;
	if (ev->ph != 'X' || !pd_kineto_is_cpu_range(k))
		return 0;
	return pd_kineto_step_num(ev->name) >= 0 ||
	    strncmp(ev->name, "gloo:", 5) == 0 ||
	    strncmp(ev->name, "nccl:", 5) == 0;
}

int
sum_comm_pytorch(json_t *root, const struct pd_tool *t)
{
	struct acc a;
	struct pd_trace_cb cb = { &a, on_event, on_meta, want, NULL };
	struct pd_kineto_info info;
	struct pd_trace_stats st;
	int rc;

	memset(&a, 0, sizeof a);
	a.topn = t->topn;
	if (!(a.path = pd_kineto_trace_path(root)))
		return 0;
	if (!(a.comm = pd_patterns_comm(t->patterns)))
		return PD_EXIT_CONFIG;
	rc = pd_kineto_read(root, a.path, &cb, &info, &st);
	if (rc >= 0)
		emit(root, &a, &info, &st, rc == 1);
	pd_kineto_info_free(&info);
	pd_ksteps_free(&a.steps);
	json_decref(a.groups);
	lane_free(&a.gpu);
	lane_free(&a.gloo);
	lane_free(&a.cpu);
	return rc < 0 ? PD_EXIT_SYSTEM : 0;
}
