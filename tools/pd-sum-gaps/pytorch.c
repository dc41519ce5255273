/* pd-sum-gaps for pytorch roots (Kineto and legacy autograd traces).
 *
 * Reads: the trace file of the root (kineto_trace export, else the root),
 * streamed once. GPU activities (kernel, gpu_memcpy, gpu_memset and their
 * 2021 names Kernel/Memcpy/Memset) are kept per (device, stream); launch
 * calls (cuda_runtime/cuda_driver, 2021 Runtime) are linked to them by
 * args.correlation; ProfilerStep#N windows and synchronize calls are kept.
 * Writes: one pd.gaps record (see gapcore.c for the arithmetic). */
#include "sum_gaps.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gapcore.h"
#include "pd_diag.h"
#include "pd_locate.h"
#include "pd_rec.h"
#include "pd_trace.h"

struct pt {
	struct gaps g;
	int64_t rank;
	int has_rank;
	uint64_t missing;	/* X events without ts or dur */
};

static int
is_any(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(s, *list) == 0)
			return 1;
	return 0;
}

static const char *const act_cats[] = {
	"kernel", "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset",
	"mtia_ccp_events", NULL
};
static const char *const rt_cats[] = {
	"cuda_runtime", "Runtime", "cuda_driver", NULL
};
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
static const char *const step_cats[] = {
	"user_annotation", "Operator", "cpu_op", NULL
};

static int64_t
stream_id(const struct pd_ev *ev)
{
	int64_t v;

	if (pd_ev_arg_int(ev, "stream", &v))
		return v;
	if (ev->tid_is_num)
		return ev->tid_num;
	if (ev->tid && strncmp(ev->tid, "stream ", 7) == 0)
		return strtoll(ev->tid + 7, NULL, 10);
	return -1;
}

static void
on_activity(struct pt *p, const struct pd_ev *ev)
{
	int64_t dev = 0, corr = 0;
	int dev_known = 1, has_corr;

	if (!pd_ev_arg_int(ev, "device", &dev)) {
		if (ev->pid_is_num)
			dev = ev->pid_num;
		else
			dev = 0, dev_known = 0;
	}
	has_corr = pd_ev_arg_int(ev, "correlation", &corr);
	gaps_activity(&p->g, dev, dev_known, stream_id(ev), ev->ts_ns,
	    ev->dur_ns, has_corr, corr);
	if ((strcmp(ev->cat, "gpu_memcpy") == 0 || strcmp(ev->cat, "Memcpy") == 0)
	    && strstr(ev->name, "Pageable")) {
		p->g.pageable_n++;
		p->g.pageable_ns += ev->dur_ns;
	}
}

static int
on_event(const struct pd_ev *ev, void *ctx)
{
	struct pt *p = ctx;
	int64_t corr;

	if (ev->ph != 'X')
		return 0;
	if (!ev->has_ts || !ev->has_dur) {
		p->missing++;
		return 0;
	}
	if (is_any(ev->cat, act_cats)) {
		on_activity(p, ev);
	} else if (is_any(ev->cat, rt_cats)) {
		if (is_any(ev->name, syncs))
			gaps_sync(&p->g, ev->ts_ns, ev->dur_ns);
		else if (pd_ev_arg_int(ev, "correlation", &corr)) {
			if (is_any(ev->name, launches))
				gaps_launch(&p->g, corr, ev->ts_ns, ev->dur_ns, 0);
			else if (is_any(ev->name, graph_launches))
				gaps_launch(&p->g, corr, ev->ts_ns, ev->dur_ns, 1);
		}
	} else if (strncmp(ev->name, "ProfilerStep#", 13) == 0 &&
	    is_any(ev->cat, step_cats)) {
		gaps_step(&p->g, ev->ts_ns, ev->dur_ns);
	}
	return 0;
}

static void
on_meta(const char *key, json_t *v, void *ctx)
{
	struct pt *p = ctx;
	json_t *r;

	if (strcmp(key, "distributedInfo") == 0 && json_is_object(v) &&
	    json_is_integer(r = json_object_get(v, "rank"))) {
		p->rank = json_integer_value(r);
		p->has_rank = 1;
	}
}

static const char *
base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* Shared by both families: read-status handling. Returns the exit code
 * to record, and says what stopped the reading. */
int
sum_gaps_read_status(const char *path, int rc, const struct pd_trace_stats *st,
    json_t *rec, uint64_t missing)
{
	int code = 0;

	if (rc == 1) {
		pd_warn(path, st->err_line, "%s; summary of what was read "
		    "(%llu events)", st->err, (unsigned long long)st->events);
		code = PD_EXIT_INPUT;
	}
	if (missing) {
		pd_warn(path, 0, "%llu complete events without ts or dur skipped",
		    (unsigned long long)missing);
		code = PD_EXIT_INPUT;
	}
	pd_set_int(rec, "events", (int64_t)st->events);
	pd_set_int(rec, "skipped_events", (int64_t)(st->skipped + missing));
	pd_set_bool(rec, "truncated", rc == 1);
	return code;
}

int
sum_gaps_pytorch(json_t *root, const struct pd_tool *t)
{
	struct pd_trace_cb cb = { NULL, on_event, on_meta };
	struct pd_trace_stats st;
	struct pt p;
	const char *path = pd_root_export(root, "kineto_trace", 0);
	json_t *rec;
	int rc, code;

	if (!path)
		path = pd_rec_str(root, "root");
	if (!path)
		return 0;
	memset(&p, 0, sizeof p);
	gaps_init(&p.g);
	cb.ctx = &p;
	rc = pd_trace_read(path, &cb, &st);
	if (rc < 0) {
		pd_error(path, 0, "%s", strerror(errno));
		gaps_free(&p.g);
		return PD_EXIT_SYSTEM;
	}
	rec = pd_rec_new("pd.gaps", 1, root);
	if (p.has_rank && json_is_null(json_object_get(rec, "rank")))
		pd_set_int(rec, "rank", p.rank);
	pd_set_str(rec, "source", base(path));
	gaps_fill(&p.g, rec, t->topn);
	code = sum_gaps_read_status(path, rc, &st, rec, p.missing);
	pd_rec_emit(rec);
	gaps_free(&p.g);
	return code;
}
