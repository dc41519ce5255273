#include "pd_kineto.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "pd_diag.h"
#include "pd_file.h"
#include "pd_formats.h"
#include "pd_locate.h"
#include "pd_num.h"
#include "pd_rec.h"

static int
name_class(const char *name, int dflt)
{
	if (strncmp(name, "Memcpy", 6) == 0)
		return PD_KC_MEMCPY;
	if (strncmp(name, "Memset", 6) == 0)
		return PD_KC_MEMSET;
	return dflt;
}

static int kclass(const struct pd_ev *ev);

/* The class depends on ph, name, cat and pid alone: once a shape */
int
pd_kineto_class(const struct pd_ev *ev)
{
	static struct pd_idmemo memo;
	int32_t k = pd_idmemo_get(&memo, ev, ev->shape_id);

	if (k < 0) {
		k = kclass(ev);
		pd_idmemo_set(&memo, ev, ev->shape_id, k);
	}
	return k;
}

static int
kclass(const struct pd_ev *ev)
{
	const char *c = ev->cat;

	if (ev->ph == 'M')
		return PD_KC_META;
	switch (c[0]) {
	case 'k':
		if (strcmp(c, "kernel") == 0)
			return PD_KC_KERNEL;
		break;
	case 'K':
		if (strcmp(c, "Kernel") == 0)
			return PD_KC_KERNEL;
		break;
	case 'g':
		if (strcmp(c, "gpu_memcpy") == 0)
			return PD_KC_MEMCPY;
		if (strcmp(c, "gpu_memset") == 0)
			return PD_KC_MEMSET;
		if (strcmp(c, "gpu_user_annotation") == 0)
			return PD_KC_GPU_ANNOT;
		break;
	case 'M':
		if (strcmp(c, "Memcpy") == 0)
			return PD_KC_MEMCPY;
		if (strcmp(c, "Memset") == 0)
			return PD_KC_MEMSET;
		break;
	case 'c':
		if (strcmp(c, "cpu_op") == 0)
			return PD_KC_CPU_OP;
		if (strcmp(c, "cuda_runtime") == 0 ||
		    strcmp(c, "cuda_driver") == 0)
			return PD_KC_RUNTIME;
		if (strcmp(c, "cuda_sync") == 0)
			return PD_KC_SYNC;
		if (strcmp(c, "cpu_instant_event") == 0 &&
		    strcmp(ev->name, "[memory]") == 0)
			return PD_KC_MEMORY;
		break;
	case 'R':
		if (strcmp(c, "Runtime") == 0)
			return PD_KC_RUNTIME;
		break;
	case 'O':
		if (strcmp(c, "Operator") == 0)
			return PD_KC_CPU_OP;
		break;
	case 'u':
		if (strcmp(c, "user_annotation") == 0)
			return PD_KC_ANNOT;
		break;
	case 'p':
		if (strcmp(c, "python_function") == 0)
			return PD_KC_PYTHON;
		break;
	case 0:
		if (strcmp(ev->name, "[memory]") == 0)
			return PD_KC_MEMORY;
		/* the legacy autograd exporter: no cat, lanes by pid */
		if (ev->ph == 'X' && ev->pid && !ev->pid_is_num) {
			if (strcmp(ev->pid, "CPU functions") == 0)
				return PD_KC_CPU_OP;
			if (strcmp(ev->pid, "CUDA functions") == 0)
				return name_class(ev->name, PD_KC_KERNEL);
		}
		break;
	}
	return PD_KC_OTHER;
}

int
pd_kineto_is_gpu(int k)
{
	return k == PD_KC_KERNEL || k == PD_KC_MEMCPY || k == PD_KC_MEMSET;
}

int
pd_kineto_is_cpu_range(int k)
{
	return k == PD_KC_ANNOT || k == PD_KC_CPU_OP;
}

int64_t
pd_kineto_step_num(const char *name)
{
	const char *p;
	int64_t n = 0;

	if (name[0] != 'P' || strncmp(name, "ProfilerStep", 12) != 0)
		return -1;
	p = name + 12;
	while (*p == ' ')
		p++;
	if (*p++ != '#')
		return -1;
	while (*p == ' ')
		p++;
	if (*p < '0' || *p > '9')
		return -1;
	while (*p >= '0' && *p <= '9' && n < INT64_MAX / 10)
		n = n * 10 + (*p++ - '0');
	return *p == 0 ? n : -1;
}

int
pd_kineto_is_dataloader(const char *name)
{
	static const char pre[] = "enumerate(DataLoader)#";
	static const char suf[] = ".__next__";
	size_t n;

	if (name[0] != 'e' || strncmp(name, pre, sizeof pre - 1) != 0)
		return 0;
	n = strlen(name);
	return n >= sizeof pre - 1 + sizeof suf - 1 &&
	    strcmp(name + n - (sizeof suf - 1), suf) == 0;
}

int64_t
pd_kineto_stream(const struct pd_ev *ev)
{
	int64_t v;

	if (pd_ev_arg_int(ev, "stream", &v))
		return v;
	if (ev->tid_is_num)
		return ev->tid_num;
	if (ev->tid && strncmp(ev->tid, "stream ", 7) == 0 &&
	    pd_num_int(ev->tid + 7, strlen(ev->tid + 7), &v) == PD_NUM_OK)
		return v;
	return -1;
}

int
pd_kineto_dtype_size(const char *d)
{
	static const struct {
		const char *name;
		int size;
	} t[] = {
		{ "Float", 4 }, { "float", 4 }, { "Double", 8 }, { "double", 8 },
		{ "Half", 2 }, { "c10::Half", 2 }, { "BFloat16", 2 },
		{ "c10::BFloat16", 2 }, { "Byte", 1 }, { "unsigned char", 1 },
		{ "Char", 1 }, { "signed char", 1 }, { "Short", 2 },
		{ "short int", 2 }, { "short", 2 }, { "Int", 4 }, { "int", 4 },
		{ "Long", 8 }, { "long int", 8 }, { "long", 8 },
		{ "int64_t", 8 }, { "Bool", 1 }, { "bool", 1 },
		{ "ComplexHalf", 4 }, { "ComplexFloat", 8 },
		{ "c10::complex<float>", 8 }, { "ComplexDouble", 16 },
		{ "c10::complex<double>", 16 }, { "UInt16", 2 },
		{ "UInt32", 4 }, { "UInt64", 8 },
	};
	size_t i;

	for (i = 0; i < sizeof t / sizeof t[0]; i++)
		if (strcmp(d, t[i].name) == 0)
			return t[i].size;
	if (strncmp(d, "Float8", 6) == 0 || strncmp(d, "c10::Float8", 11) == 0)
		return 1;
	return 0;
}

const char *
pd_kineto_trace_path(json_t *root)
{
	const char *p = pd_root_export(root, "kineto_trace", 0);
	const struct pd_format *f = pd_format_get(pd_rec_str(root, "format"));
	struct stat st;

	if (!p && f && f->trace_export)
		p = pd_root_export(root, f->trace_export, 0);
	if (p)
		return p;
	if (json_array_size(json_object_get(root, "exports")) > 0)
		return NULL;	/* other kinds only (memory_timeline_raw) */
	p = pd_str_bytes(pd_rec_str(root, "root"));
	if (p && stat(p, &st) == 0 && S_ISREG(st.st_mode))
		return p;
	return NULL;
}

struct rdctx {
	const struct pd_trace_cb *cb;
	struct pd_kineto_info *info;
};

static int
tramp_event(const struct pd_ev *ev, void *ctx)
{
	struct rdctx *c = ctx;

	return c->cb->on_event ? c->cb->on_event(ev, c->cb->ctx) : 0;
}

static void
tramp_meta(const char *key, json_t *v, void *ctx)
{
	struct rdctx *c = ctx;
	struct pd_kineto_info *in = c->info;

	if (strcmp(key, "distributedInfo") == 0) {
		json_t *r = json_object_get(v, "rank");
		if (json_is_integer(r))
			in->rank = json_integer_value(r);
		else if (json_is_string(r))
			in->rank = strtoll(json_string_value(r), NULL, 10);
	} else if (strcmp(key, "deviceProperties") == 0 && json_is_array(v)) {
		json_decref(in->devices);
		in->devices = json_incref(v);
	} else if (strcmp(key, "baseTimeNanoseconds") == 0 &&
	    json_is_integer(v)) {
		in->base_ns = json_integer_value(v);
	}
	if (c->cb->on_meta)
		c->cb->on_meta(key, v, c->cb->ctx);
}

int
pd_kineto_read(json_t *root, const char *path, const struct pd_trace_cb *cb,
    struct pd_kineto_info *info, struct pd_trace_stats *st)
{
	struct rdctx c = { cb, info };
	struct pd_trace_cb tcb = { &c, tramp_event, tramp_meta, cb->want,
	    cb->span };
	const struct pd_format *f = root ?
	    pd_format_get(pd_rec_str(root, "format")) : NULL;
	int rc;

	memset(info, 0, sizeof *info);
	info->rank = -1;
	if (f && f->read_events)
		return f->read_events(root, path, cb, info, st);
	rc = pd_trace_read(path, &tcb, st);
	if (rc < 0) {
		pd_error(path, 0, "%s", pd_file_strerror(errno));
		pd_diag_status(PD_EXIT_SYSTEM);
		return -1;
	}
	if (rc == 1) {
		pd_warn(path, st->err_line, "%s; summarized the %" PRIu64
		    " events read before it", st->err, st->events);
		pd_diag_status(PD_EXIT_INPUT);
	}
	if (st->skipped) {
		pd_warn(path, 0, "%" PRIu64 " trace entries skipped (not an "
		    "object, or unreadable ts/dur)", st->skipped);
		pd_diag_status(PD_EXIT_INPUT);
	}
	return rc;
}

void
pd_kineto_info_free(struct pd_kineto_info *info)
{
	json_decref(info->devices);
	info->devices = NULL;
}

int64_t
pd_kineto_device_mem(const struct pd_kineto_info *info, int64_t id)
{
	size_t i;
	json_t *d;

	if (!info->devices)
		return -1;
	json_array_foreach(info->devices, i, d) {
		json_t *x = json_object_get(d, "id");
		json_t *m = json_object_get(d, "totalGlobalMem");
		if (json_is_integer(x) && json_integer_value(x) == id &&
		    json_is_integer(m))
			return json_integer_value(m);
	}
	return -1;
}

json_t *
pd_kineto_rec(const char *type, json_t *root,
    const struct pd_kineto_info *info, const char *source)
{
	json_t *r = pd_rec_new(type, 1, root);
	const struct pd_format *f = pd_format_get(pd_rec_str(root, "format"));

	if (json_is_null(json_object_get(r, "rank")) && info->rank >= 0)
		pd_set_int(r, "rank", info->rank);
	/* a dump read as its trace names its own source */
	if (f && f->trace_export && strcmp(source, "kineto_trace") == 0)
		source = f->trace_export;
	pd_set_str(r, "source", source);
	return r;
}

void
pd_kineto_bad_event(const char *path, const struct pd_ev *ev,
    const char *what, uint64_t *n)
{
	if ((*n)++ == 0)
		pd_warn(path, 0, "event %" PRIu64 " (%s): %s; skipped "
		    "(the record counts all such events)", ev->index,
		    pd_diag_quote(ev->name, (size_t)-1), what);
	pd_diag_status(PD_EXIT_INPUT);
}

/* End of the string starting at the quote p, or NULL. */
static const char *
skip_str(const char *p, const char *e)
{
	for (p++; p < e; p++) {
		if (*p == '\\')
			p++;
		else if (*p == '"')
			return p + 1;
	}
	return NULL;
}

/* End of the value at p (any JSON value), or NULL. */
static const char *
skip_val(const char *p, const char *e)
{
	int depth = 0;

	while (p < e) {
		switch (*p) {
		case '"':
			if (!(p = skip_str(p, e)))
				return NULL;
			if (depth == 0)
				return p;
			continue;
		case '{': case '[':
			depth++;
			break;
		case '}': case ']':
			if (depth == 0)
				return p;
			if (--depth == 0)
				return p + 1;
			break;
		case ',':
			if (depth == 0)
				return p;
			break;
		case ' ': case '\t': case '\n': case '\r':
			if (depth == 0)
				return p;
			break;
		}
		p++;
	}
	return depth == 0 ? p : NULL;
}

static const char *
skip_ws(const char *p, const char *e)
{
	while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

int
pd_kineto_args(const struct pd_ev *ev, const char *const *keys, int n,
    const char **v, size_t *len)
{
	const char *p, *e, *k, *ke, *ve;
	size_t kl[8];		/* the lengths of the first keys */
	int i, found = 0;

	for (i = 0; i < n; i++) {
		v[i] = NULL, len[i] = 0;
		if (i < 8)
			kl[i] = strlen(keys[i]);
	}
	if (!ev->args && !ev->lazy)
		return 0;
	/* the reader's answers for all the keys at once */
	if (!ev->args && ev->lazy->find_n && n <= 8 &&
	    (found = ev->lazy->find_n(ev, keys, kl, n, v, len)) >= 0)
		return found;
	found = 0;
	/* the reader's memo: each key read once for all the lookups (it
	 * reads as the loop below does, but for the values it rejects), or
	 * the reader's own answers (pd_lazyargs.find) */
	for (i = 0; i < n; i++) {
		int rc = pd_ev_arg_memo(ev, keys[i], i < 8 ? kl[i] :
		    strlen(keys[i]), &v[i], &len[i]);
		if (rc < 0)
			break;
		found += rc;
	}
	if (i == n)
		return found;
	for (i = 0, found = 0; i < n; i++)
		v[i] = NULL, len[i] = 0;
	if (!(p = pd_ev_args(ev)))
		return 0;
	e = p + ev->args_len;
	p = skip_ws(p, e);
	if (p >= e || *p++ != '{')
		return 0;
	while (found < n) {
		p = skip_ws(p, e);
		if (p >= e || *p != '"')
			break;
		k = p + 1;
		if (!(ke = skip_str(p, e)))
			break;
		p = skip_ws(ke, e);
		if (p >= e || *p != ':')
			break;
		p = skip_ws(p + 1, e);
		if (!(ve = skip_val(p, e)) || ve == p)
			break;
		for (i = 0; i < n; i++) {
			size_t l = i < 8 ? kl[i] : strlen(keys[i]);
			if (!v[i] && (size_t)(ke - 1 - k) == l &&
			    memcmp(k, keys[i], l) == 0) {
				v[i] = p;
				len[i] = (size_t)(ve - p);
				found++;
				break;
			}
		}
		p = skip_ws(ve, e);
		if (p >= e || *p != ',')
			break;
		p++;
	}
	return found;
}

int
pd_kineto_raw_int(const char *v, size_t len, int64_t *out)
{
	if (!v)
		return 0;
	if (len >= 2 && *v == '"')
		v++, len -= 2;
	return pd_num_int(v, len, out) == PD_NUM_OK;
}

void
pd_ksteps_add(struct pd_ksteps *a, int64_t num, int64_t s, int64_t e)
{
	size_t i;

	for (i = 0; i < a->n; i++) {
		if (a->v[i].num == num) {
			if (s < a->v[i].s)
				a->v[i].s = s;
			if (e > a->v[i].e)
				a->v[i].e = e;
			return;
		}
	}
	if (a->n == a->cap) {
		size_t nc = a->cap ? a->cap * 2 : 16;
		struct pd_kstep *nv = realloc(a->v, nc * sizeof *nv);
		if (!nv)
			pd_oom();
		a->v = nv;
		a->cap = nc;
	}
	a->v[a->n].num = num;
	a->v[a->n].s = s;
	a->v[a->n].e = e;
	a->n++;
}

static int
stepcmp(const void *x, const void *y)
{
	const struct pd_kstep *a = x, *b = y;

	if (a->s != b->s)
		return a->s < b->s ? -1 : 1;
	return (a->num > b->num) - (a->num < b->num);
}

void
pd_ksteps_sort(struct pd_ksteps *a)
{
	if (a->n > 1)
		qsort(a->v, a->n, sizeof *a->v, stepcmp);
}

long
pd_ksteps_find(const struct pd_ksteps *a, int64_t t)
{
	size_t lo = 0, hi = a->n;

	/* last step starting at or before t */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (a->v[mid].s <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || t >= a->v[lo - 1].e)
		return -1;
	return (long)lo - 1;
}

void
pd_ksteps_free(struct pd_ksteps *a)
{
	free(a->v);
	memset(a, 0, sizeof *a);
}

json_t *
pd_kineto_gpu_json(const struct pd_kineto_info *info)
{
	json_t *d, *first = NULL, *o;
	const char *name = NULL;
	int64_t major = -1, minor = -1;
	size_t i;

	if (!info->devices || !json_is_array(info->devices))
		return json_null();
	json_array_foreach(info->devices, i, d) {
		const char *n = json_string_value(json_object_get(d, "name"));
		json_t *ma = json_object_get(d, "computeMajor");
		json_t *mi = json_object_get(d, "computeMinor");
		int64_t a = json_is_integer(ma) ? json_integer_value(ma) : -1;
		int64_t b = json_is_integer(mi) ? json_integer_value(mi) : -1;

		if (!n || !*n)
			return json_null();
		if (!first) {
			first = d;
			name = n;
			major = a;
			minor = b;
		} else if (strcmp(n, name) || a != major || b != minor) {
			return json_null();
		}
	}
	if (!first)
		return json_null();
	o = json_object();
	pd_set_str(o, "name", name);
	if (major >= 0 && major < 100 && minor >= 0 && minor < 10)
		pd_set_real(o, "compute_capability",
		    (double)major + (double)minor / 10.0, 1);
	else
		pd_set_null(o, "compute_capability");
	return o;
}

/* Runtime and driver calls by what they do, first match wins: exact
 * names, then prefixes ('*' at the end), then parts ('*' at both ends).
 * Set-up holds only what a program pays once (context, device, stream,
 * event, module); per-launch queries (occupancy, attributes, capture
 * state, errors) are other. */
static const struct {
	const char *pat;
	enum pd_api_kind kind;
} api_kinds[] = {
	{ "*Synchronize*", PD_API_SYNC },
	{ "cudaStreamQuery", PD_API_SYNC }, { "cudaEventQuery", PD_API_SYNC },
	{ "hipStreamQuery", PD_API_SYNC }, { "hipEventQuery", PD_API_SYNC },
	{ "cuStreamQuery", PD_API_SYNC }, { "cuEventQuery", PD_API_SYNC },
	{ "*Memcpy*", PD_API_COPY },
	{ "cudaMemset", PD_API_COPY }, { "hipMemset", PD_API_COPY },
	{ "cudaLaunch*", PD_API_LAUNCH }, { "cuLaunch*", PD_API_LAUNCH },
	{ "hipLaunch*", PD_API_LAUNCH }, { "hipExtLaunch*", PD_API_LAUNCH },
	{ "hipModuleLaunch*", PD_API_LAUNCH },
	{ "cudaGraphLaunch", PD_API_LAUNCH }, { "hipGraphLaunch", PD_API_LAUNCH },
	{ "*MemsetAsync*", PD_API_LAUNCH }, { "*MemsetD*Async", PD_API_LAUNCH },
	{ "cudaEventRecord*", PD_API_LAUNCH }, { "hipEventRecord*", PD_API_LAUNCH },
	{ "cuEventRecord*", PD_API_LAUNCH },
	{ "cudaStreamWaitEvent", PD_API_LAUNCH },
	{ "hipStreamWaitEvent", PD_API_LAUNCH },
	{ "cuStreamWaitEvent", PD_API_LAUNCH },
	{ "cudaMalloc*", PD_API_ALLOC }, { "cudaFree*", PD_API_ALLOC },
	{ "cudaHostAlloc", PD_API_ALLOC }, { "cudaHostRegister", PD_API_ALLOC },
	{ "cudaHostUnregister", PD_API_ALLOC },
	{ "cuMemAlloc*", PD_API_ALLOC }, { "cuMemFree*", PD_API_ALLOC },
	{ "cuMemHostAlloc", PD_API_ALLOC }, { "cuMemCreate", PD_API_ALLOC },
	{ "cuMemRelease", PD_API_ALLOC }, { "cuMemMap", PD_API_ALLOC },
	{ "cuMemUnmap", PD_API_ALLOC }, { "cuMemAddressReserve", PD_API_ALLOC },
	{ "cuMemAddressFree", PD_API_ALLOC }, { "cuMemSetAccess", PD_API_ALLOC },
	{ "hipMalloc*", PD_API_ALLOC }, { "hipFree*", PD_API_ALLOC },
	{ "hipHostMalloc", PD_API_ALLOC }, { "hipHostFree", PD_API_ALLOC },
	{ "hipExtMallocWithFlags", PD_API_ALLOC },
	{ "cudaDeviceGetStreamPriorityRange", PD_API_SETUP },
	{ "cudaGetDeviceCount", PD_API_SETUP },
	{ "cudaGetDeviceProperties*", PD_API_SETUP },
	{ "cudaSetDevice", PD_API_SETUP }, { "cudaDeviceReset", PD_API_SETUP },
	{ "cudaDeviceSetLimit", PD_API_SETUP },
	{ "cudaDeviceEnablePeerAccess", PD_API_SETUP },
	{ "cudaStreamCreate*", PD_API_SETUP }, { "cudaStreamDestroy", PD_API_SETUP },
	{ "cudaEventCreate*", PD_API_SETUP }, { "cudaEventDestroy", PD_API_SETUP },
	{ "cudaIpcOpenMemHandle", PD_API_SETUP },
	{ "cudaGraphInstantiate*", PD_API_SETUP },
	{ "cuInit", PD_API_SETUP }, { "cuDevicePrimaryCtx*", PD_API_SETUP },
	{ "cuCtxCreate*", PD_API_SETUP }, { "cuCtxDestroy*", PD_API_SETUP },
	{ "cuModuleLoad*", PD_API_SETUP }, { "cuModuleUnload", PD_API_SETUP },
	{ "cuLibraryLoad*", PD_API_SETUP }, { "cuLibraryUnload", PD_API_SETUP },
	{ "cuStreamCreate*", PD_API_SETUP }, { "cuStreamDestroy*", PD_API_SETUP },
	{ "cuEventCreate", PD_API_SETUP }, { "cuEventDestroy*", PD_API_SETUP },
	{ "hipInit", PD_API_SETUP }, { "hipSetDevice", PD_API_SETUP },
	{ "hipGetDeviceCount", PD_API_SETUP },
	{ "hipGetDeviceProperties*", PD_API_SETUP },
	{ "hipDeviceGetStreamPriorityRange", PD_API_SETUP },
	{ "hipStreamCreate*", PD_API_SETUP }, { "hipStreamDestroy", PD_API_SETUP },
	{ "hipEventCreate*", PD_API_SETUP }, { "hipEventDestroy", PD_API_SETUP },
	{ "hipModuleLoad*", PD_API_SETUP }, { "hipModuleUnload", PD_API_SETUP },
};

/* pat against name: "x" exact, "x*" prefix, "*x*" part, "*x*y" part
 * then suffix (one inner '*' at most after the leading one). */
static int
api_match(const char *pat, const char *name)
{
	size_t n = strlen(pat);
	const char *star;

	if (pat[0] == '*') {
		char part[48];
		const char *p;

		if (n < 2 || n - 1 >= sizeof part)
			return 0;
		memcpy(part, pat + 1, n - 1);
		part[n - 1] = '\0';
		if (part[n - 2] == '*') {
			part[n - 2] = '\0';
			if ((star = strchr(part, '*')) == NULL)
				return strstr(name, part) != NULL;
		} else if ((star = strchr(part, '*')) == NULL) {
			return 0;
		}
		/* "*a*b": a somewhere, then b at the end */
		part[star - part] = '\0';
		p = strstr(name, part);
		if (!p)
			return 0;
		p += strlen(part);
		n = strlen(star + 1);
		return strlen(p) >= n && strcmp(p + strlen(p) - n, star + 1) == 0;
	}
	if (pat[n - 1] == '*')
		return strncmp(pat, name, n - 1) == 0;
	return strcmp(pat, name) == 0;
}

enum pd_api_kind
pd_kineto_api_kind(const char *name)
{
	size_t i;

	if (!name)
		return PD_API_OTHER;
	for (i = 0; i < sizeof api_kinds / sizeof api_kinds[0]; i++)
		if (api_match(api_kinds[i].pat, name))
			return api_kinds[i].kind;
	return PD_API_OTHER;
}

const char *
pd_kineto_api_kind_name(enum pd_api_kind k)
{
	static const char *const names[PD_API_NKINDS] = { "launch", "sync",
	    "copy", "alloc", "setup", "other" };

	return k >= 0 && k < PD_API_NKINDS ? names[k] : "other";
}
