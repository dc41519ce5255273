/* pd-profile: the PerformanceProfile of each run.
 *
 * Reads: the record stream (stdin, files of records given as operands, or
 *   dump directories, which are put through the evidence tools first):
 *   pd.root (which run a root belongs to), pd.step, pd.comm, pd.mem,
 *   pd.input, pd.gaps, pd.hotspot (joined by root), pd.context, and
 *   pd-collect's cpu pd.sample records (what the job got of the CPUs).
 * Writes: the input unchanged, then one pd.profile per run: workload,
 *   stack, symptom, metric in focus, summaries present and missing, ranked
 *   domain scores, confidence, next actions, the job model (world size,
 *   ranks, parallel groups and layout, pipeline stages) and the cross-rank
 *   analysis in aligned time (slow rank, slow link, wait and stragglers,
 *   skew, slow pipeline stage), and the job's share of the host's CPUs.
 * Aggregates: holds the summary records only (memory grows with ranks).
 * A run is made of units, one per (root, rank): tools/pd-profile/units.c. */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pd_cpuload.h"
#include "pd_diag.h"
#include "pd_tool.h"
#include "pd_path.h"
#include "pd_rec.h"
#include "pd_recfile.h"
#include "pd_runs.h"
#include "pd_stats.h"
#include "pd-profile/profile.h"

static const char usage[] =
    "usage: pd-profile [-q] [FILE|DIR|-]...\n"
    "  reads summary records (stdin, files of records, or dump dirs put\n"
    "  through the evidence tools) and appends one pd.profile per run:\n"
    "  symptom, ranked domains, confidence, cross-rank analysis\n"
    "  -q  no warnings\n"
    "  -h, --help this help\n"
    "  --version the version\n";


static const char *summary_types[] = {
	"context", "comm", "gaps", "hotspot", "input", "mem", "step", NULL
};

/* Weights of the evidence summaries in the confidence. */
static const struct { const char *type; double w; } weights[] = {
	{ "step", 0.30 }, { "hotspot", 0.20 }, { "gaps", 0.15 },
	{ "comm", 0.15 }, { "input", 0.10 }, { "mem", 0.10 }, { NULL, 0 }
};

static const struct { const char *type, *action; } actions[] = {
	{ "step", "collect a profile with step markers (torch.profiler "
	    "schedule with ProfilerStep, or msprof step_trace) to get a step "
	    "breakdown" },
	{ "hotspot", "collect kernel details (torch_npu profiler level1, or a "
	    "Kineto trace with device activities) to name the hot operators" },
	{ "gaps", "collect a device timeline (trace_view.json or a Kineto "
	    "trace) to measure idle gaps and launch delays" },
	{ "comm", "collect communication data on every rank (torch_npu level1, "
	    "or NCCL/HCCL kernels in the trace)" },
	{ "input", "keep the data loading visible in the trace "
	    "(enumerate(DataLoader) annotations, MindSpore minddata "
	    "profiling)" },
	{ "mem", "collect a trace with memory profiling on "
	    "(profile_memory=True)" },
	{ NULL, NULL }
};

/* pd-collect's cpu samples: what the job got of the host's CPUs. */
static struct pd_cpuload *cpuload;

static int
on_record(json_t *rec, void *ctx)
{
	const char *t = pd_rec_str(rec, "type");

	if (t && !strcmp(t, "pd.context"))
		job_contexts_add(rec);
	if (t && !strcmp(t, "pd.sample")) {
		pd_cpuload_add(cpuload, rec);
		return 0;
	}
	units_add(rec);
	pd_runs_add(ctx, rec);
	return 0;
}

static int
on_operand(const char *path, void *ctx)
{
	struct pd_stream s = { ctx, on_record, 0, 0, 0, 0, 0, 0 };

	if (pd_recfile_is_dump(path))
		pd_diag_status(pd_recfile_dir(&s, path, NULL, 0));
	else
		pd_diag_status(pd_recfile_read(&s, path));
	return 0;
}


static int
has(struct prun *u, const char *type)
{
	if (strcmp(type, "context") == 0)
		return u->u->context != NULL;
	return prun_has(u, type);
}

static void
source(json_t *srcs, const char *key, const char *from)
{
	pd_set_str(srcs, key, from);
}

/* ---- the record ---- */

static json_t *
summaries(struct prun *u, double *conf)
{
	json_t *o = json_object(), *p = json_array(), *m = json_array();
	char name[32];
	int i;

	for (i = 0; summary_types[i]; i++) {
		snprintf(name, sizeof name, "pd.%s", summary_types[i]);
		json_array_append_new(has(u, summary_types[i]) ? p : m,
		    json_string(name));
	}
	*conf = 0;
	for (i = 0; weights[i].type; i++)
		if (has(u, weights[i].type))
			*conf += weights[i].w;
	pd_set(o, "present", p);
	pd_set(o, "missing", m);
	return o;
}

static json_t *
next_actions(struct prun *u)
{
	json_t *a = json_array();
	int i;

	for (i = 0; actions[i].type; i++)
		if (!has(u, actions[i].type) &&
		    (strcmp(actions[i].type, "comm") ||
		    u->n > 1))
			json_array_append_new(a, json_string(actions[i].action));
	return a;
}

static void
profile(struct pd_run *ru)
{
	json_t *p = pd_rec_new("pd.profile", 1, NULL);
	json_t *srcs = json_object(), *confl = json_array(), *ws, *job;
	struct prun pr;
	double mean_step, conf;
	const char *wl;
	int close_top;

	units_of_run(ru, &pr);
	pd_set(p, "run", json_incref(ru->id));
	pd_set(p, "roots", json_incref(ru->roots));
	pd_set_int(p, "ranks", (int64_t)pr.n);
	ws = world_size(&pr, srcs, confl);
	pd_set(p, "world_size", ws);
	set_workload(p, &pr, srcs, confl);
	wl = pd_rec_str(p, "workload");
	pd_set(p, "stack", stack(&pr, srcs, confl));
	pd_set(p, "launcher", json_incref(ru->context ? json_object_get(
	    ru->context, "launcher") : NULL));
	if (!json_is_string(json_object_get(p, "launcher")))
		pd_set_null(p, "launcher");
	source(srcs, "launcher", json_is_string(json_object_get(p,
	    "launcher")) ? "context" : NULL);
	pd_set(p, "context_root", json_incref(ru->context ? json_object_get(
	    ru->context, "root") : NULL));
	if (!json_is_string(json_object_get(p, "context_root")))
		pd_set_null(p, "context_root");
	job = job_model(&pr, ws, pd_rec_str(srcs, "world_size"));
	pd_set(p, "context_sources", srcs);
	pd_set(p, "context_conflicts", confl);
	pd_set(p, "job", job);
	pd_set(p, "step", profile_shares(&pr, p, wl, &mean_step, &close_top));
	pd_set(p, "summaries", summaries(&pr, &conf));
	if (close_top)
		conf *= 0.5;
	pd_set_real(p, "confidence", conf, 4);
	pd_set_str(p, "confidence_level", conf >= 0.7 ? "high" :
	    conf >= 0.4 ? "medium" : "low");
	pd_set(p, "next_actions", next_actions(&pr));
	pd_set(p, "cross_rank", cross_rank(&pr, job));
	pd_set(p, "host_cpu", pd_cpuload_summary(cpuload));
	prun_free(&pr);
	pd_rec_emit(p);
}

/* A run is profiled when a root of it has a pd.root or a summary: the
 * pd.finding records of pd-find-context (root = the workspace dir) do not
 * make a run. */
static int
profiled(struct pd_run *u)
{
	static const char *ev[] = { "root", "step", "comm", "mem", "input",
	    "gaps", "hotspot", NULL };
	const char *root;
	json_t *v;
	size_t i;

	json_object_foreach(u->views, root, v)
		for (i = 0; ev[i]; i++)
			if (json_object_get(v, ev[i]))
				return 1;
	return 0;
}

static int
on_end(void *ctx)
{
	struct pd_runs *r = ctx;
	size_t i, n = pd_runs_group(r), nr = 0;

	for (i = 0; i < n; i++)
		nr += profiled(pd_runs_get(r, i));
	for (i = 0; i < n; i++)
		if (profiled(pd_runs_get(r, i))) {
			pd_runs_get(r, i)->context = pick_context(
			    pd_runs_get(r, i), nr);
			profile(pd_runs_get(r, i));
		}
	return 0;
}

int
main(int argc, char **argv)
{
	struct pd_runs *r;
	struct pd_stream s;
	int c;

	pd_diag_init(argv[0]);
	while ((c = pd_getopt(argc, argv, "hq", NULL, usage)) != -1) {
		switch (c) {
		case 'h': pd_usage_exit(usage, 0);
		case 'q': pd_diag_quiet(1); break;
		default: pd_usage_exit(usage, 2);
		}
	}
	r = pd_runs_new();
	cpuload = pd_cpuload_new();
	pd_runs_pack(r, 1);
	units_init();
	memset(&s, 0, sizeof s);
	s.ctx = r;
	s.on_record = on_record;
	s.on_operand = on_operand;
	s.on_end = on_end;
	pd_stream_run(&s, argc - optind, argv + optind);
	pd_runs_free(r);
	pd_cpuload_free(cpuload);
	units_free();
	job_contexts_free();
	return pd_diag_finish();
}
