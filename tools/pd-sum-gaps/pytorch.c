/* pd-sum-gaps for pytorch roots (Kineto and legacy autograd traces).
 *
 * Reads: the trace file of the root (kineto_trace export, else the root),
 * streamed once. GPU activities (kernel, gpu_memcpy, gpu_memset and their
 * 2021 names Kernel/Memcpy/Memset) are sorted per (device, stream) in
 * bounded memory (gapcore.h); launch
 * calls (cuda_runtime/cuda_driver, 2021 Runtime) are linked to them by
 * args.correlation; ProfilerStep#N windows and synchronize calls are kept.
 * Writes: one pd.gaps record (see gapcore.c for the arithmetic). */
#include "sum_gaps.h"

#include <stdlib.h>
#include <string.h>

#include "gapcore.h"
#include "pd_diag.h"
#include "pd_kineto.h"
#include "pd_patterns.h"
#include "pd_rec.h"
#include "pd_trace.h"
#include "pd_xsort.h"

struct pt {
	struct gaps g;
	const char *path;
	uint64_t missing;	/* events without ts or dur */
	const struct pd_patterns *comm;
	struct pd_idmemo names;	/* ev->name_id -> name_kind() */
};

static int
is_any(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(s, *list) == 0)
			return 1;
	return 0;
}

/* Launch calls that start one GPU activity each (HTA's launch set, plus
 * the driver API and HIP names). */
static const char *const launches[] = {
	"cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel",
	"cuLaunchKernelEx", "cudaLaunchCooperativeKernel", "cudaMemcpyAsync",
	"cudaMemsetAsync", "cudaMemcpy", "cudaMemset", "cudaMemcpy2DAsync",
	"hipLaunchKernel", "hipExtLaunchKernel", "hipModuleLaunchKernel",
	"hipExtModuleLaunchKernel", "hipMemcpyAsync", "hipMemsetAsync",
	"hipMemcpyWithStream", "hipMemcpy", "hipMemset", NULL
};
static const char *const graph_launches[] = {
	"cudaGraphLaunch", "hipGraphLaunch", NULL
};
static const char *const syncs[] = {
	"cudaDeviceSynchronize", "cudaStreamSynchronize",
	"cudaEventSynchronize", "hipDeviceSynchronize",
	"hipStreamSynchronize", "hipEventSynchronize", NULL
};

/* The value v (n bytes) of ev's key as pd_ev_arg_int reads it, with a
 * fast path for the common plain digits (the same value pd_num_int gives
 * them); anything else goes the full way. */
static int
int_of(const struct pd_ev *ev, const char *key, const char *v, size_t n,
    int64_t *out)
{
	size_t i;
	int64_t x = 0;

	if (n >= 2 && *v == '"')
		v++, n -= 2;
	if (n == 0 || n > 18)
		return pd_ev_arg_int(ev, key, out);
	for (i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9')
			return pd_ev_arg_int(ev, key, out);
		x = x * 10 + (v[i] - '0');
	}
	*out = x;
	return 1;
}

/* pd_ev_arg_int, as int_of reads the value */
static int
arg_int(const struct pd_ev *ev, const char *key, int64_t *out)
{
	const char *v;
	size_t n;

	if (!pd_ev_arg_raw(ev, key, &v, &n))
		return 0;
	return int_of(ev, key, v, n, out);
}

/* An activity's device, correlation and stream args (has[i]: found and
 * read), as arg_int reads each, looked up together. */
static void
act_args(const struct pd_ev *ev, int has[3], int64_t x[3])
{
	static const char *const keys[3] = { "device", "correlation",
		"stream" };
	static const size_t kl[3] = { 6, 11, 6 };
	const char *v[3];
	size_t n[3];
	int i;

	pd_ev_arg_raw_n(ev, keys, kl, 3, v, n);
	for (i = 0; i < 3; i++)
		has[i] = v[i] && int_of(ev, keys[i], v[i], n[i], &x[i]);
}

/* What the name of a kernel or a runtime call says, worked out once a
 * name where the reader numbers them */
enum {
	N_COMM = 1,	/* a communication kernel */
	N_SYNC = 2,	/* one of syncs */
	N_LM = 4,	/* has "Launch" or "Mem" */
	N_LAUNCH = 8,	/* one of launches */
	N_GRAPH = 16	/* one of graph_launches */
};

static int
name_kind(struct pt *p, const struct pd_ev *ev)
{
	int32_t k = pd_idmemo_get(&p->names, ev, ev->name_id);
	const char *n = ev->name;

	if (k >= 0)
		return k;
	k = 0;
	if (pd_patterns_match(p->comm, n))
		k |= N_COMM;
	/* cheap tests first: every name in syncs has "Synchronize", every
	 * name in launches and graph_launches "Launch" or "Mem" */
	if (strstr(n, "Synchronize") && is_any(n, syncs))
		k |= N_SYNC;
	if (strstr(n, "Launch") || strstr(n, "Mem")) {
		k |= N_LM;
		if (is_any(n, launches))
			k |= N_LAUNCH;
		else if (is_any(n, graph_launches))
			k |= N_GRAPH;
	}
	pd_idmemo_set(&p->names, ev, ev->name_id, k);
	return k;
}

static void
on_activity(struct pt *p, const struct pd_ev *ev, int kc)
{
	int64_t x[3], dev, corr, stream;
	int has[3], dev_known = 1;

	/* the stream: pd_kineto_stream's, its arg read as arg_int does */
	act_args(ev, has, x);
	if (has[0])
		dev = x[0];
	else if (ev->pid_is_num)
		dev = ev->pid_num;
	else
		dev = 0, dev_known = 0;
	corr = has[1] ? x[1] : 0;
	stream = has[2] ? x[2] : pd_kineto_stream(ev);
	gaps_activity(&p->g, dev, dev_known, stream, ev->ts_ns,
	    ev->dur_ns, has[1], corr, kc == PD_KC_KERNEL &&
	    (name_kind(p, ev) & N_COMM) ? GAP_ACT_COMM : 0);
	if (kc == PD_KC_MEMCPY && strstr(ev->name, "Pageable")) {
		p->g.pageable_n++;
		p->g.pageable_ns += ev->dur_ns;
	}
}

static int
on_event(const struct pd_ev *ev, void *ctx)
{
	struct pt *p = ctx;
	int64_t corr;
	int kc;

	if (ev->ph != 'X')
		return 0;
	kc = pd_kineto_class(ev);
	if (kc == PD_KC_OTHER || kc == PD_KC_PYTHON || kc == PD_KC_SYNC ||
	    kc == PD_KC_GPU_ANNOT)
		return 0;
	if (!ev->has_ts || !ev->has_dur) {
		pd_kineto_bad_event(p->path, ev, "no ts or dur", &p->missing);
		return 0;
	}
	if (pd_kineto_is_gpu(kc)) {
		on_activity(p, ev, kc);
	} else if (kc == PD_KC_RUNTIME) {
		int k = name_kind(p, ev);
		if (k & N_SYNC)
			gaps_sync(&p->g, ev->ts_ns, ev->dur_ns);
		else if ((k & N_LM) && arg_int(ev, "correlation", &corr)) {
			if (k & N_LAUNCH)
				gaps_launch(&p->g, corr, ev->ts_ns, ev->dur_ns, 0);
			else if (k & N_GRAPH)
				gaps_launch(&p->g, corr, ev->ts_ns, ev->dur_ns, 1);
		}
	} else if (pd_kineto_is_cpu_range(kc) &&
	    pd_kineto_step_num(ev->name) >= 0) {
		gaps_step(&p->g, ev->ts_ns, ev->dur_ns,
		    pd_kineto_step_num(ev->name));
	} else if (pd_kineto_is_cpu_range(kc) &&
	    pd_kineto_is_dataloader(ev->name)) {
		gaps_host(&p->g, GAP_HOST_INPUT, ev->ts_ns, ev->dur_ns);
	} else if (kc == PD_KC_CPU_OP) {
		gaps_host(&p->g, GAP_HOST_OPS, ev->ts_ns, ev->dur_ns);
	}
	return 0;
}

/* Shared by both families: what the reading saw, appended to rec
 * (pd_kineto_read has already warned and set the exit status). */
void
sum_gaps_read_keys(int rc, const struct pd_trace_stats *st, json_t *rec,
    uint64_t missing)
{
	pd_set_int(rec, "events", (int64_t)st->events);
	pd_set_int(rec, "skipped_events", (int64_t)(st->skipped + missing));
	pd_set_bool(rec, "truncated", rc == 1);
}

/* Shared by both families: gaps_fill failed (a temporary file). */
void
sum_gaps_ioerr(const char *path, const struct gaps *g)
{
	pd_error(path, 0, "cannot sort its activities in a temporary file in "
	    "%s: %s", pd_diag_quote(pd_xsort_dir(), (size_t)-1),
	    strerror(g->ioerr));
}

/* The events on_event does anything with (pd_trace_cb.want). */
static int
want(const struct pd_ev *ev)
{
	int k;

	if (ev->ph != 'X')
		return 0;
	k = pd_kineto_class(ev);
	return k != PD_KC_OTHER && k != PD_KC_PYTHON && k != PD_KC_SYNC &&
	    k != PD_KC_GPU_ANNOT;
}

int
sum_gaps_pytorch(json_t *root, const struct pd_tool *t)
{
	struct pd_trace_cb cb = { NULL, on_event, NULL, want, NULL };
	struct pd_kineto_info info;
	struct pd_trace_stats st;
	struct pt p;
	json_t *rec;
	int rc;

	memset(&p, 0, sizeof p);
	if (!(p.path = pd_kineto_trace_path(root)))
		return 0;
	if (!(p.comm = pd_patterns_comm(t->patterns)))
		return PD_EXIT_CONFIG;
	gaps_init(&p.g);
	cb.ctx = &p;
	rc = pd_kineto_read(root, p.path, &cb, &info, &st);
	if (rc < 0) {
		gaps_free(&p.g);
		pd_idmemo_free(&p.names);
		pd_kineto_info_free(&info);
		return PD_EXIT_SYSTEM;
	}
	rec = pd_kineto_rec("pd.gaps", root, &info, "kineto_trace");
	if (gaps_fill(&p.g, rec, t->topn) < 0) {
		sum_gaps_ioerr(p.path, &p.g);
		json_decref(rec);
		gaps_free(&p.g);
		pd_idmemo_free(&p.names);
		pd_kineto_info_free(&info);
		return PD_EXIT_SYSTEM;
	}
	sum_gaps_read_keys(rc, &st, rec, p.missing);
	pd_rec_emit(rec);
	gaps_free(&p.g);
	pd_idmemo_free(&p.names);
	pd_kineto_info_free(&info);
	return rc == 1 || p.missing || st.skipped ? PD_EXIT_INPUT : 0;
}
