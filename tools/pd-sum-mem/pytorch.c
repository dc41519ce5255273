/* pd-sum-mem for PyTorch roots: one pd.mem per memory source.
 *
 * Reads, streamed once each:
 *  - the trace (kineto_trace): the "[memory]" instant events of the
 *    caching allocator (args Addr, Bytes signed, Total Allocated, Total
 *    Reserved, Device Type 0 CPU / 1 CUDA, Device Id); capacities from
 *    deviceProperties totalGlobalMem.
 *  - the raw memory timeline (memory_timeline_raw, torch.profiler's
 *    export_memory_timeline_raw): a JSON list of [ts_ns, action, bytes,
 *    category], action 1 preexisting, 2 create, 3 increment version,
 *    4 destroy, bytes already signed; category 0..7 as below.
 * Keeps: per device the peaks and the sums of a least-squares line through
 * (ts, Total Allocated); per allocator address the balance of allocations
 * and frees and their bytes (order-free: an address left at +1 was never
 * released, at -1 was freed without being allocated in the trace). Traces without Total Allocated (2021) also keep (ts, bytes) per
 * event of that device, to sum in time order at the end.
 * Writes: pd.mem. */
#include "sum_mem.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "pd_diag.h"
#include "pd_file.h"
#include "pd_ivl.h"
#include "pd_kineto.h"
#include "pd_locate.h"
#include "pd_rec.h"

/* Least-squares line through (t, bytes), order-free: t in s from t0. */
struct fit {
	double n, st, sa, stt, sta;
	int64_t t0;
};

static void
fit_add(struct fit *f, int64_t ts, int64_t a)
{
	double t;

	if (f->n == 0)
		f->t0 = ts;
	t = (double)(ts - f->t0) / 1e9;
	f->n++;
	f->st += t;
	f->sa += (double)a;
	f->stt += t * t;
	f->sta += t * (double)a;
}

static void
fit_json(json_t *o, const struct fit *f)
{
	double den = f->n * f->stt - f->st * f->st;

	if (f->n >= 2 && den > 0)
		pd_set_real(o, "growth_bytes_per_s",
		    (f->n * f->sta - f->st * f->sa) / den, 3);
	else
		pd_set_null(o, "growth_bytes_per_s");
}

struct dev {
	int64_t type, id;
	uint64_t events, allocs, frees;
	int64_t alloc_bytes, free_bytes;
	int has_alloc, has_res, has_frag;
	int64_t peak_a, peak_a_ts, peak_r, peak_r_ts, frag;
	struct fit fit;
	/* events without Total Allocated: summed in time order at the end */
	struct pd_span *d;	/* s = ts, e = bytes */
	size_t nd, capd;
};

struct slot {
	int64_t key, bytes;	/* bytes: allocated minus freed */
	int32_t bal;
	uint8_t used;
};

struct acc {
	const char *path;
	struct dev *dv;
	size_t ndv;
	struct slot *h;
	size_t nh, caph;
	uint64_t bad;
};

static struct dev *
device(struct acc *a, int64_t type, int64_t id)
{
	size_t i;
	struct dev *d;

	for (i = 0; i < a->ndv; i++)
		if (a->dv[i].type == type && a->dv[i].id == id)
			return &a->dv[i];
	a->dv = realloc(a->dv, (a->ndv + 1) * sizeof *a->dv);
	if (!a->dv)
		pd_oom();
	d = &a->dv[a->ndv++];
	memset(d, 0, sizeof *d);
	d->type = type;
	d->id = id;
	return d;
}

static uint64_t
mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

static void
balance(struct acc *a, int64_t key, int d, int64_t bytes)
{
	size_t i, m;

	if (a->nh * 2 >= a->caph) {
		struct slot *old = a->h;
		size_t oc = a->caph, j;
		a->caph = oc ? oc * 2 : 1024;
		a->h = calloc(a->caph, sizeof *a->h);
		if (!a->h)
			pd_oom();
		a->nh = 0;
		for (j = 0; j < oc; j++)
			if (old[j].used)
				balance(a, old[j].key, old[j].bal,
				    old[j].bytes);
		free(old);
	}
	m = a->caph - 1;
	for (i = mix((uint64_t)key) & m; a->h[i].used; i = (i + 1) & m) {
		if (a->h[i].key == key) {
			a->h[i].bal += d;
			a->h[i].bytes += bytes;
			return;
		}
	}
	a->h[i].used = 1;
	a->h[i].key = key;
	a->h[i].bal = d;
	a->h[i].bytes = bytes;
	a->nh++;
}

/* One (time, allocated) sample; reserved < 0 when unknown. */
static void
point(struct dev *d, int64_t ts, int64_t alloc, int64_t res)
{
	fit_add(&d->fit, ts, alloc);
	if (!d->has_alloc || alloc > d->peak_a ||
	    (alloc == d->peak_a && ts < d->peak_a_ts)) {
		d->peak_a = alloc;
		d->peak_a_ts = ts;
		d->has_frag = res >= 0;
		d->frag = res - alloc;
	}
	d->has_alloc = 1;
}

static int
on_event(const struct pd_ev *ev, void *ctx)
{
	struct acc *a = ctx;
	int64_t addr, bytes, type = 1, id = -1, ta, tr;
	struct dev *d;
	static const char *const keys[] = { "Bytes", "Addr", "Device Type",
		"Device Id", "Total Allocated", "Total Reserved" };
	const char *v[6];
	size_t len[6];
	int has_ta, has_tr;

	/* instant events only: cheaper than classifying every event */
	if (ev->ph != 'i' || pd_kineto_class(ev) != PD_KC_MEMORY)
		return 0;
	pd_kineto_args(ev, keys, 6, v, len);
	if (!ev->has_ts || !pd_kineto_raw_int(v[0], len[0], &bytes) ||
	    !pd_kineto_raw_int(v[1], len[1], &addr)) {
		pd_kineto_bad_event(a->path, ev, "no ts, Bytes or Addr",
		    &a->bad);
		return 0;
	}
	pd_kineto_raw_int(v[2], len[2], &type);
	pd_kineto_raw_int(v[3], len[3], &id);
	has_ta = pd_kineto_raw_int(v[4], len[4], &ta);
	has_tr = pd_kineto_raw_int(v[5], len[5], &tr);
	d = device(a, type, id);
	d->events++;
	if (bytes >= 0) {
		d->allocs++;
		d->alloc_bytes += bytes;
	} else {
		d->frees++;
		d->free_bytes -= bytes;
	}
	balance(a, (int64_t)(mix((uint64_t)addr) ^ ((uint64_t)type << 56) ^
	    ((uint64_t)id << 48)),
	    bytes >= 0 ? 1 : -1, bytes);
	if (has_ta) {
		/* only the CUDA caching allocator reserves */
		if (type != 1 || !has_tr)
			tr = -1;
		point(d, ev->ts_ns, ta, tr);
		if (tr >= 0 && (!d->has_res || tr > d->peak_r ||
		    (tr == d->peak_r && ev->ts_ns < d->peak_r_ts))) {
			d->peak_r = tr;
			d->peak_r_ts = ev->ts_ns;
			d->has_res = 1;
		}
	} else {
		if (d->nd == d->capd) {
			d->capd = d->capd ? d->capd * 2 : 1024;
			d->d = realloc(d->d, d->capd * sizeof *d->d);
			if (!d->d)
				pd_oom();
		}
		d->d[d->nd].s = ev->ts_ns;
		d->d[d->nd++].e = bytes;
	}
	return 0;
}

static int
span_cmp(const void *x, const void *y)
{
	const struct pd_span *a = x, *b = y;

	return (a->s > b->s) - (a->s < b->s);
}

/* 2021 traces: the allocated total is the running sum from the start of
 * the trace (what was allocated before it is not known). */
static void
replay(struct dev *d)
{
	int64_t sum = 0;
	size_t i;

	if (!d->nd || d->has_alloc)
		return;
	if (d->nd > 1)
		qsort(d->d, d->nd, sizeof *d->d, span_cmp);
	for (i = 0; i < d->nd; i++) {
		sum += d->d[i].e;
		point(d, d->d[i].s, sum, -1);
	}
}

static void
set_int_or_null(json_t *o, const char *key, int64_t v, int have)
{
	if (have)
		pd_set_int(o, key, v);
	else
		pd_set_null(o, key);
}

static int
dev_cmp(const void *x, const void *y)
{
	const struct dev *a = x, *b = y;

	if (a->type != b->type)
		return a->type > b->type ? -1 : 1;	/* CUDA first */
	return (a->id > b->id) - (a->id < b->id);
}

static json_t *
count_bytes(int64_t n, int64_t bytes)
{
	json_t *o = json_object();

	pd_set_int(o, "count", n);
	pd_set_int(o, "bytes", bytes);
	return o;
}

static void
emit_trace(json_t *root, struct acc *a, const struct pd_kineto_info *info,
    const struct pd_trace_stats *st, int truncated)
{
	json_t *rec = pd_kineto_rec("pd.mem", root, info, "kineto_trace");
	json_t *arr = json_array();
	struct dev *best = NULL;
	int64_t nr = 0, nf = 0, nrb = 0, nfb = 0, cap;
	size_t i;
	int any_cuda = 0;

	for (i = 0; i < a->ndv; i++) {
		replay(&a->dv[i]);
		any_cuda |= a->dv[i].type == 1;
	}
	if (a->ndv > 1)
		qsort(a->dv, a->ndv, sizeof *a->dv, dev_cmp);
	for (i = 0; i < a->ndv; i++) {
		struct dev *d = &a->dv[i];
		json_t *o = json_object();
		cap = d->type == 1 ? pd_kineto_device_mem(info, d->id) : -1;
		set_int_or_null(o, "device", d->id, d->type == 1);
		set_int_or_null(o, "peak_allocated_bytes", d->peak_a,
		    d->has_alloc);
		set_int_or_null(o, "peak_reserved_bytes", d->peak_r, d->has_res);
		pd_set_null(o, "peak_active_bytes");
		set_int_or_null(o, "peak_time_ns", d->peak_a_ts, d->has_alloc);
		set_int_or_null(o, "capacity_bytes", cap, cap >= 0);
		set_int_or_null(o, "fragmentation_bytes", d->frag, d->has_frag);
		fit_json(o, &d->fit);
		pd_set_str(o, "kind", d->type == 1 ? "cuda" : d->type == 0 ?
		    "cpu" : "other");
		set_int_or_null(o, "peak_reserved_time_ns", d->peak_r_ts,
		    d->has_res);
		pd_set_int(o, "events", (int64_t)d->events);
		pd_set_int(o, "allocs", (int64_t)d->allocs);
		pd_set_int(o, "frees", (int64_t)d->frees);
		pd_set_int(o, "alloc_bytes", d->alloc_bytes);
		pd_set_int(o, "free_bytes", d->free_bytes);
		pd_set_bool(o, "totals_from_trace", d->nd == 0);
		json_array_append_new(arr, o);
		if ((d->type == 1 || !any_cuda) && d->has_alloc &&
		    (!best || d->peak_a > best->peak_a))
			best = d;
	}
	for (i = 0; i < a->caph; i++) {
		if (a->h[i].used && a->h[i].bal > 0)
			nr++, nrb += a->h[i].bytes;
		else if (a->h[i].used && a->h[i].bal < 0)
			nf++, nfb -= a->h[i].bytes;
	}
	pd_set(rec, "devices", arr);
	cap = best && best->type == 1 ? pd_kineto_device_mem(info, best->id) :
	    -1;
	set_int_or_null(rec, "peak_allocated_bytes", best ? best->peak_a : 0,
	    best != NULL);
	set_int_or_null(rec, "peak_reserved_bytes", best ? best->peak_r : 0,
	    best && best->has_res);
	set_int_or_null(rec, "capacity_bytes", cap, cap >= 0);
	if (best && cap > 0)
		pd_set_real(rec, "peak_ratio", (double)(best->has_res ?
		    best->peak_r : best->peak_a) / (double)cap, 4);
	else
		pd_set_null(rec, "peak_ratio");
	pd_set_null(rec, "top_allocators");
	pd_set(rec, "never_released", a->ndv ? count_bytes(nr, nrb) :
	    json_null());
	pd_set(rec, "frees_without_alloc", a->ndv ? count_bytes(nf, nfb) :
	    json_null());
	pd_set_int(rec, "skipped_rows", (int64_t)(a->bad + st->skipped));
	pd_set_str(rec, "path", a->path);
	pd_set_bool(rec, "truncated", truncated);
	pd_rec_emit(rec);
}

static int
mem_trace(json_t *root, const char *path)
{
	struct acc a;
	struct pd_trace_cb cb = { &a, on_event, NULL };
	struct pd_kineto_info info;
	struct pd_trace_stats st;
	size_t i;
	int rc;

	memset(&a, 0, sizeof a);
	a.path = path;
	rc = pd_kineto_read(root, path, &cb, &info, &st);
	if (rc >= 0)
		emit_trace(root, &a, &info, &st, rc == 1);
	pd_kineto_info_free(&info);
	for (i = 0; i < a.ndv; i++)
		free(a.dv[i].d);
	free(a.dv);
	free(a.h);
	return rc < 0 ? PD_EXIT_SYSTEM : 0;
}

/* ---- the raw memory timeline ---- */

static const char *cat_names[] = {
	"parameter", "optimizer_state", "input", "temporary", "activation",
	"gradient", "autograd_detail", "unknown"
};
#define NCAT 8

struct raw {
	int64_t sum, peak, peak_ts, cat[NCAT], at_peak[NCAT];
	struct fit fit;
	uint64_t n, bad, unordered, actions[5];
	int have;
	int64_t prev_ts;
};

static void
raw_tuple(struct raw *r, const int64_t *f, int nf)
{
	int c;

	if (nf != 4 || f[1] < 1 || f[1] > 4) {
		r->bad++;
		return;
	}
	c = f[3] >= 0 && f[3] < NCAT ? (int)f[3] : NCAT - 1;
	if (r->n && f[0] < r->prev_ts)
		r->unordered++;
	r->prev_ts = f[0];
	r->n++;
	r->actions[f[1]]++;
	r->sum += f[2];
	r->cat[c] += f[2];
	if (!r->have || r->sum > r->peak) {
		r->peak = r->sum;
		r->peak_ts = f[0];
		memcpy(r->at_peak, r->cat, sizeof r->cat);
		r->have = 1;
	}
	if (f[0] >= 0)	/* -1: preexisting, before the profile */
		fit_add(&r->fit, f[0], r->sum);
}

/* A tokenizer for [[int, int, int, int], ...]: the only shape this export
 * has. Returns 0 at the closing bracket, 1 when the input ends first or is
 * not that shape (*line, *why say where). */
static int
raw_scan(gzFile gz, struct raw *r, long *line, const char **why)
{
	char buf[65536];
	int depth = 0, nf = 0, innum = 0, neg = 0, done = 0;
	int64_t f[8], num = 0;
	int n, i;

	*line = 1;
	while (!done && (n = gzread(gz, buf, sizeof buf)) > 0) {
		for (i = 0; i < n && !done; i++) {
			char c = buf[i];
			if (c >= '0' && c <= '9' && depth == 2) {
				if (!innum)
					num = 0, innum = 1;
				num = num * 10 + (c - '0');
				continue;
			}
			if (innum) {
				if (nf < 8)
					f[nf++] = neg ? -num : num;
				innum = neg = 0;
			}
			switch (c) {
			case '\n': (*line)++; break;
			case ' ': case '\t': case '\r': case ',': break;
			case '-':
				if (depth != 2)
					goto bad;
				neg = 1;
				break;
			case '[':
				if (++depth > 2)
					goto bad;
				nf = 0;
				break;
			case ']':
				if (depth == 2)
					raw_tuple(r, f, nf);
				if (--depth == 0)
					done = 1;
				break;
			default:
				goto bad;
			}
		}
	}
	if (done)
		return 0;
	*why = "file ends inside the timeline";
	return 1;
bad:
	*why = "not a [ts, action, bytes, category] list";
	return 1;
}

static int
mem_raw(json_t *root, const char *path)
{
	int fd = pd_file_open(path, NULL);
	gzFile gz = fd >= 0 ? gzdopen(fd, "rb") : NULL;
	struct raw r;
	json_t *rec, *arr, *o;
	const char *why = NULL;
	long line;
	int rc, i, order[NCAT], j;

	if (!gz) {
		if (fd >= 0)
			close(fd);
		pd_error(path, 0, "cannot open");
		return PD_EXIT_SYSTEM;
	}
	memset(&r, 0, sizeof r);
	rc = raw_scan(gz, &r, &line, &why);
	gzclose(gz);
	if (rc) {
		pd_warn(path, line, "%s; summarized the %" PRIu64 " entries "
		    "read before it", why, r.n);
		pd_diag_status(PD_EXIT_INPUT);
	}
	if (r.bad) {
		pd_warn(path, 0, "%" PRIu64 " entries are not [ts, action 1-4, "
		    "bytes, category]; skipped", r.bad);
		pd_diag_status(PD_EXIT_INPUT);
	}
	rec = pd_rec_new("pd.mem", 1, root);
	pd_set_str(rec, "source", "memory_timeline_raw");
	arr = json_array();
	o = json_object();
	pd_set(o, "device", json_deep_copy(json_object_get(root, "device") ?
	    json_object_get(root, "device") : json_null()));
	set_int_or_null(o, "peak_allocated_bytes", r.peak, r.have);
	pd_set_null(o, "peak_reserved_bytes");
	pd_set_null(o, "peak_active_bytes");
	set_int_or_null(o, "peak_time_ns", r.peak_ts, r.have && r.peak_ts >= 0);
	pd_set_null(o, "capacity_bytes");
	pd_set_null(o, "fragmentation_bytes");
	fit_json(o, &r.fit);
	pd_set_int(o, "events", (int64_t)r.n);
	json_array_append_new(arr, o);
	pd_set(rec, "devices", r.have ? arr : json_array());
	if (!r.have)
		json_decref(arr);
	set_int_or_null(rec, "peak_allocated_bytes", r.peak, r.have);
	pd_set_null(rec, "peak_reserved_bytes");
	pd_set_null(rec, "capacity_bytes");
	pd_set_null(rec, "peak_ratio");
	pd_set_null(rec, "top_allocators");
	pd_set_null(rec, "never_released");
	pd_set_null(rec, "frees_without_alloc");
	pd_set_int(rec, "skipped_rows", (int64_t)r.bad);
	/* categories at the peak, largest first */
	for (i = 0; i < NCAT; i++)
		order[i] = i;
	for (i = 1; i < NCAT; i++)
		for (j = i; j > 0 && r.at_peak[order[j]] >
		    r.at_peak[order[j - 1]]; j--) {
			int x = order[j];
			order[j] = order[j - 1];
			order[j - 1] = x;
		}
	arr = json_array();
	for (i = 0; i < NCAT && r.have; i++) {
		o = json_object();
		pd_set_str(o, "category", cat_names[order[i]]);
		pd_set_int(o, "bytes", r.at_peak[order[i]]);
		json_array_append_new(arr, o);
	}
	pd_set(rec, "categories_at_peak", arr);
	o = json_object();
	pd_set_int(o, "preexisting", (int64_t)r.actions[1]);
	pd_set_int(o, "create", (int64_t)r.actions[2]);
	pd_set_int(o, "increment_version", (int64_t)r.actions[3]);
	pd_set_int(o, "destroy", (int64_t)r.actions[4]);
	pd_set(rec, "actions", o);
	pd_set_int(rec, "unordered_entries", (int64_t)r.unordered);
	pd_set_str(rec, "path", path);
	pd_set_bool(rec, "truncated", rc != 0);
	pd_rec_emit(rec);
	return 0;
}

int
sum_mem_pytorch(json_t *root, const struct pd_tool *t)
{
	const char *p;
	size_t i;
	int rc = 0, x;

	(void)t;
	if ((p = pd_kineto_trace_path(root)) != NULL)
		rc = mem_trace(root, p);
	for (i = 0; (p = pd_root_export(root, "memory_timeline_raw", i)); i++)
		if ((x = mem_raw(root, p)) > rc)
			rc = x;
	return rc;
}
