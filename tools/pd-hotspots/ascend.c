/* pd-hotspots for Ascend roots: where device time goes, by operator.
 *
 * Reads, per root, the first per-kernel table found: kernel_details.csv
 * (every header variant; Block Dim or Block Num), else op_summary_*.csv
 * (all slices), else the legacy MindSpore aicore_intermediate_*_detail.csv
 * plus aicpu_intermediate_*.csv, else op_statistic.csv (types only), else
 * the legacy msprof timeline/task_time_*.json (every iteration). Also
 * api_statistic.csv (host API hot spots), operator_details.csv (host self
 * time per framework op) and the CANN lane of trace_view.json (operator
 * compiles, stream synchronizes right after a launch). From
 * kernel_details also the OP State of the operators (dynamic or static
 * shape) and from operator_details the optimizer steps (Optimizer.step#).
 * Without any of these tables, the torch_npu db export
 * (ascend_pytorch_profiler_{rank}.db, export_type=db) gives the same
 * record: device tasks from TASK joined to COMPUTE_TASK_INFO (the rows of
 * kernel_details.csv), pipe ratios from TASK_PMU_INFO, collectives from
 * COMMUNICATION_OP (the HCCL rows of kernel_details) and host API calls
 * from CANN_API (api_statistic.csv and the CANN lane of trace_view.json).
 * Writes one pd.hotspot per root with any of these; streams every file. */
#include "hotspots.h"
#include "record.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pd_csv.h"
#include "pd_diag.h"
#include "pd_locate.h"
#include "pd_num.h"
#include "pd_patterns.h"
#include "pd_rec.h"
#include "pd_sqlite.h"
#include "pd_trace.h"

/* Kernels shorter than this are "short": msprof-analyze's advisor does not
 * report an operator lasting 20 us or less (Operator No Bound and AI CPU
 * rules, ascend-msprof.md section c, rules 5 and 8). */
#define SHORT_US 20.0
/* A pipe whose busy ratio reaches this bounds the op (advisor rule 8,
 * operator_bound_ratio). */
#define BOUND_RATIO 0.8

enum { P_CUBE, P_VECTOR, P_SCALAR, P_MTE1, P_MTE2, P_MTE3, P_FIXPIPE, NPIPE };
static const char *pipe_name[NPIPE] = {
	"cube", "vector", "scalar", "mte1", "mte2", "mte3", "fixpipe"
};

struct agg {
	char *name, *type, *core;
	long count;
	double total_us;
	double pmu[NPIPE];	/* duration-weighted sums of the ratios */
	double pmu_w;
	double dev_us;		/* optimizers: Device Total Duration(us) */
};

struct table {
	json_t *index;		/* key -> integer index into a */
	struct agg *a;
	size_t n, cap;
};

struct hot {
	struct table ops, types, cores, aicpu, api, cpu, optim;
	double total_us, compute_us, comm_us, memcpy_us, memset_us;
	long kernels, short_ops, skipped;
	int truncated;		/* a file ended early */
	int have_kernels, from_statistic;
	const char *source;
	long compile_count;	/* -1 unknown */
	long launches, sync_after_launch;
	int have_trace;
	int have_state;		/* kernel_details has OP State */
	long dyn_ops, static_ops, state_ops;
	double dyn_us;
};

static struct agg *
table_get(struct table *t, const char *key, const char *type,
    const char *core)
{
	json_t *v;
	struct agg *g;

	if (!t->index)
		t->index = json_object();
	v = json_object_get(t->index, key);
	if (v)
		return &t->a[json_integer_value(v)];
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 64;
		t->a = realloc(t->a, t->cap * sizeof *t->a);
		if (!t->a)
			pd_oom();
	}
	g = &t->a[t->n];
	memset(g, 0, sizeof *g);
	g->name = strdup(key);
	g->type = type ? strdup(type) : NULL;
	g->core = core ? strdup(core) : NULL;
	json_object_set_new_nocheck(t->index, key, json_integer(t->n));
	t->n++;
	return g;
}

static void
table_free(struct table *t)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		free(t->a[i].name);
		free(t->a[i].type);
		free(t->a[i].core);
	}
	free(t->a);
	json_decref(t->index);
	memset(t, 0, sizeof *t);
}

static int
by_total(const void *x, const void *y)
{
	const struct agg *a = x, *b = y;

	if (a->total_us != b->total_us)
		return a->total_us < b->total_us ? 1 : -1;
	return strcmp(a->name, b->name);
}

static void
table_sort(struct table *t)
{
	if (t->n > 1)
		qsort(t->a, t->n, sizeof *t->a, by_total);
}

static int
is_comm(const char *name, const char *type, const char *core,
    const struct pd_tool *t)
{
	const struct pd_patterns *p;

	if (strcasecmp(core, "HCCL") == 0 ||
	    strcasecmp(core, "COMMUNICATION") == 0 ||
	    strncmp(core, "NOTIFY_", 7) == 0 ||	/* legacy timeline tasks */
	    strncmp(core, "REDUCE_", 7) == 0 ||
	    strncasecmp(name, "hcom_", 5) == 0 ||
	    strncasecmp(type, "hcom_", 5) == 0)
		return 1;
	if (t->patterns && (p = pd_patterns_comm(t->patterns)) &&
	    pd_patterns_match(p, name))
		return 1;
	return 0;
}

/* Device time classes: MemSet kernels are memset; copies are MemCopy
 * kernels and TensorMove (which compare_tools counts as SDMA-like copies,
 * ascend-msprof.md section c); the rest is compute. */
static void
add_class(struct hot *h, const char *type, double us)
{
	h->total_us += us;
	if (strcasestr(type, "memset"))
		h->memset_us += us;
	else if (strcasestr(type, "memcpy") || strcasestr(type, "memcopy") ||
	    strcasestr(type, "tensormove"))
		h->memcpy_us += us;
	else
		h->compute_us += us;
}

/* One kernel (or op instance) of dur_us; pmu NULL when none. */
static void
add_kernel(struct hot *h, const char *name, const char *type,
    const char *core, double dur_us, const double *pmu,
    const struct pd_tool *t)
{
	struct agg *g;
	int i;

	if (is_comm(name, type, core, t)) {
		h->comm_us += dur_us;
		return;
	}
	h->kernels++;
	add_class(h, type, dur_us);
	if (dur_us < SHORT_US)
		h->short_ops++;
	g = table_get(&h->ops, name, type, core);
	g->count++;
	g->total_us += dur_us;
	if (pmu) {
		for (i = 0; i < NPIPE; i++)
			g->pmu[i] += pmu[i] * dur_us;
		g->pmu_w += dur_us;
	}
	g = table_get(&h->types, type, NULL, NULL);
	g->count++;
	g->total_us += dur_us;
	g = table_get(&h->cores, core, NULL, NULL);
	g->count++;
	g->total_us += dur_us;
	if (strcasecmp(core, "AI_CPU") == 0) {
		g = table_get(&h->aicpu, name, type, core);
		g->count++;
		g->total_us += dur_us;
	}
}

static void
bad_row(struct hot *h, struct pd_csv *c, const char *what)
{
	pd_warn(pd_csv_name(c), pd_csv_line(c), "%s: row skipped", what);
	pd_diag_status(PD_EXIT_INPUT);
	h->skipped++;
}

/* A row ended inside a quoted field: the file was cut. */
static void
truncated(struct hot *h, struct pd_csv *c)
{
	pd_warn(pd_csv_name(c), pd_csv_line(c),
	    "file ends inside a quoted field (truncated?): last row skipped");
	pd_diag_status(PD_EXIT_INPUT);
	h->skipped++;
	h->truncated = 1;
}

/* kernel_details OP State: "dynamic" or "static" (shape), N/A for tasks
 * the framework did not compile (communication). */
static void
add_state(struct hot *h, const char *st, double dur_us)
{
	h->state_ops++;
	if (strcasecmp(st, "dynamic") == 0) {
		h->dyn_ops++;
		h->dyn_us += dur_us;
	} else if (strcasecmp(st, "static") == 0)
		h->static_ops++;
}

static const char *pmu_cols[][2] = {
	[P_CUBE] = { "aic_mac_ratio", NULL },
	[P_VECTOR] = { "aiv_vec_ratio", NULL },
	[P_SCALAR] = { "aic_scalar_ratio", "aiv_scalar_ratio" },
	[P_MTE1] = { "aic_mte1_ratio", NULL },
	[P_MTE2] = { "aic_mte2_ratio", "aiv_mte2_ratio" },
	[P_MTE3] = { "aiv_mte3_ratio", NULL },
	[P_FIXPIPE] = { "aic_fixpipe_ratio", NULL },
};

/* kernel_details.csv or op_summary_*.csv. */
static int
read_kernels(struct hot *h, const char *path, const struct pd_tool *t)
{
	static const char *want[] = { "Name", "Type", "Duration(us)" };
	struct pd_csv *c = pd_csv_open_header(path);
	int idx[3], core, state, pmu[NPIPE][2], i, j, r, npmu = 0;
	double dur, p[NPIPE], v;

	if (!c)
		return 0;
	idx[0] = pd_csv_col(c, "Name", "Op Name", NULL);
	idx[1] = pd_csv_col(c, "Type", "OP Type", NULL);
	idx[2] = pd_csv_col(c, "Duration(us)", "Task Duration(us)", NULL);
	core = pd_csv_col(c, "Accelerator Core", "Task Type", NULL);
	state = pd_csv_col(c, "OP State", NULL);
	if (pd_csv_require(path, want, idx, 3)) {
		pd_csv_close(c);
		return 0;
	}
	for (i = 0; i < NPIPE; i++)
		for (j = 0; j < 2; j++) {
			pmu[i][j] = pmu_cols[i][j] ?
			    pd_csv_col(c, pmu_cols[i][j], NULL) : -1;
			npmu += pmu[i][j] >= 0;
		}
	h->have_kernels = 1;
	h->have_state |= state >= 0;
	while ((r = pd_csv_next(c)) > 0) {
		int any = 0;
		const char *kc;

		r = pd_csv_double(c, idx[2], &dur);
		if (r != PD_NUM_OK || dur < 0) {
			bad_row(h, c, r == PD_NUM_MISSING ?
			    "no duration" : "bad duration");
			continue;
		}
		for (i = 0; i < NPIPE; i++) {
			p[i] = 0;
			for (j = 0; j < 2; j++)
				if (pmu[i][j] >= 0 && pd_csv_double(c,
				    pmu[i][j], &v) == PD_NUM_OK && v > p[i])
					p[i] = v;
			any |= p[i] > 0;
		}
		kc = core >= 0 && *pd_csv_field(c, core) ?
		    pd_csv_field(c, core) : "N/A";
		if (state >= 0 && !is_comm(pd_csv_field(c, idx[0]),
		    pd_csv_field(c, idx[1]), kc, t))
			add_state(h, pd_csv_field(c, state), dur);
		add_kernel(h, pd_csv_field(c, idx[0]), pd_csv_field(c, idx[1]),
		    kc, dur, npmu && any ? p : NULL, t);
	}
	if (r == -2)
		truncated(h, c);
	else if (r < 0)
		bad_row(h, c, "read error");
	pd_csv_close(c);
	return 1;
}

/* "Default/net/MatMul-op19" -> "MatMul". */
static void
legacy_type(const char *full, char *buf, size_t size)
{
	const char *s = strrchr(full, '/');
	char *dash;

	snprintf(buf, size, "%s", s ? s + 1 : full);
	dash = strstr(buf, "-op");
	if (dash)
		*dash = 0;
}

/* MindSpore legacy: aicore_intermediate_{dev}_detail.csv (full_op_name,
 * execution_time in ms) and aicpu_intermediate_{dev}.csv (kernel_type,
 * total_time in ms). */
static int
read_legacy(struct hot *h, const char *path, int aicpu,
    const struct pd_tool *t)
{
	static const char *want_aic[] = { "full_op_name", "execution_time" };
	static const char *want_cpu[] = { "kernel_type", "total_time" };
	struct pd_csv *c = pd_csv_open_header(path);
	int idx[2], r;
	double ms;
	char type[256];

	if (!c)
		return 0;
	idx[0] = pd_csv_col(c, aicpu ? "kernel_type" : "full_op_name", NULL);
	idx[1] = pd_csv_col(c, aicpu ? "total_time" : "execution_time", NULL);
	if (pd_csv_require(path, aicpu ? want_cpu : want_aic, idx, 2)) {
		pd_csv_close(c);
		return 0;
	}
	h->have_kernels = 1;
	while ((r = pd_csv_next(c)) > 0) {
		if (pd_csv_double(c, idx[1], &ms) != PD_NUM_OK || ms < 0) {
			bad_row(h, c, "bad time");
			continue;
		}
		if (aicpu)
			snprintf(type, sizeof type, "%s", pd_csv_field(c, idx[0]));
		else
			legacy_type(pd_csv_field(c, idx[0]), type, sizeof type);
		add_kernel(h, pd_csv_field(c, idx[0]), type,
		    aicpu ? "AI_CPU" : "AI_CORE", ms * 1000.0, NULL, t);
	}
	if (r == -2)
		truncated(h, c);
	pd_csv_close(c);
	return 1;
}

/* op_statistic.csv: per type only (used when no per-kernel table). */
static int
read_statistic(struct hot *h, const char *path, const struct pd_tool *t)
{
	static const char *want[] = { "OP Type", "Count", "Total Time(us)" };
	struct pd_csv *c = pd_csv_open_header(path);
	int idx[3], core, r;
	int64_t n;
	double us;
	struct agg *g;
	const char *type, *cr;

	if (!c)
		return 0;
	idx[0] = pd_csv_col(c, "OP Type", NULL);
	idx[1] = pd_csv_col(c, "Count", NULL);
	idx[2] = pd_csv_col(c, "Total Time(us)", NULL);
	core = pd_csv_col(c, "Core Type", NULL);
	if (pd_csv_require(path, want, idx, 3)) {
		pd_csv_close(c);
		return 0;
	}
	h->from_statistic = 1;
	while ((r = pd_csv_next(c)) > 0) {
		if (pd_csv_int(c, idx[1], &n) != PD_NUM_OK ||
		    pd_csv_double(c, idx[2], &us) != PD_NUM_OK) {
			bad_row(h, c, "bad count or time");
			continue;
		}
		type = pd_csv_field(c, idx[0]);
		cr = core >= 0 ? pd_csv_field(c, core) : "N/A";
		if (is_comm(type, type, cr, t)) {
			h->comm_us += us;
			continue;
		}
		add_class(h, type, us);
		h->kernels += n;
		g = table_get(&h->types, type, NULL, NULL);
		g->count += n;
		g->total_us += us;
		g = table_get(&h->cores, cr, NULL, NULL);
		g->count += n;
		g->total_us += us;
	}
	if (r == -2)
		truncated(h, c);
	pd_csv_close(c);
	return 1;
}

/* api_statistic.csv: host API time by name. */
static void
read_api(struct hot *h, const char *path)
{
	static const char *want[] = { "API Name", "Time(us)", "Count" };
	struct pd_csv *c = pd_csv_open_header(path);
	int idx[3], level, r;
	int64_t n;
	double us;
	struct agg *g;

	if (!c)
		return;
	idx[0] = pd_csv_col(c, "API Name", NULL);
	idx[1] = pd_csv_col(c, "Time(us)", NULL);
	idx[2] = pd_csv_col(c, "Count", NULL);
	level = pd_csv_col(c, "Level", NULL);
	if (pd_csv_require(path, want, idx, 3)) {
		pd_csv_close(c);
		return;
	}
	while ((r = pd_csv_next(c)) > 0) {
		if (pd_csv_double(c, idx[1], &us) != PD_NUM_OK ||
		    pd_csv_int(c, idx[2], &n) != PD_NUM_OK) {
			bad_row(h, c, "bad time or count");
			continue;
		}
		g = table_get(&h->api, pd_csv_field(c, idx[0]),
		    level >= 0 ? pd_csv_field(c, level) : NULL, NULL);
		g->count += n;
		g->total_us += us;
		if (strcmp(pd_csv_field(c, idx[0]),
		    "aclopCompileAndExecute") == 0)
			h->compile_count = (h->compile_count < 0 ? 0 :
			    h->compile_count) + n;
	}
	if (r == -2)
		truncated(h, c);
	pd_csv_close(c);
}

#define OPTIM_STEP "Optimizer.step#"

/* One optimizer step row: host and device total time (0 when missing). */
static void
add_optim(struct hot *h, struct pd_csv *c, int name, int htot, int dtot)
{
	struct agg *g = table_get(&h->optim, pd_csv_field(c, name), NULL,
	    NULL);
	double x;

	g->count++;
	if (htot >= 0 && pd_csv_double(c, htot, &x) == PD_NUM_OK && x > 0)
		g->total_us += x;
	if (dtot >= 0 && pd_csv_double(c, dtot, &x) == PD_NUM_OK && x > 0)
		g->dev_us += x;
}

/* operator_details.csv: host self time per framework op; the optimizer
 * steps (Optimizer.step#SGD.step) with their host and device totals. */
static void
read_cpu_ops(struct hot *h, const char *path)
{
	static const char *want[] = { "Name", "Host Self Duration(us)" };
	struct pd_csv *c = pd_csv_open_header(path);
	int idx[2], htot, dtot, r;
	double us;
	struct agg *g;

	if (!c)
		return;
	idx[0] = pd_csv_col(c, "Name", NULL);
	idx[1] = pd_csv_col(c, "Host Self Duration(us)", NULL);
	htot = pd_csv_col(c, "Host Total Duration(us)", NULL);
	dtot = pd_csv_col(c, "Device Total Duration(us)", NULL);
	if (pd_csv_require(path, want, idx, 2)) {
		pd_csv_close(c);
		return;
	}
	while ((r = pd_csv_next(c)) > 0) {
		if (pd_csv_double(c, idx[1], &us) != PD_NUM_OK) {
			bad_row(h, c, "bad host self duration");
			continue;
		}
		g = table_get(&h->cpu, pd_csv_field(c, idx[0]), NULL, NULL);
		g->count++;
		g->total_us += us;
		if (strncmp(pd_csv_field(c, idx[0]), OPTIM_STEP,
		    strlen(OPTIM_STEP)) == 0)
			add_optim(h, c, idx[0], htot, dtot);
	}
	if (r == -2)
		truncated(h, c);
	pd_csv_close(c);
}

/* The CANN lane: launches and synchronizes, in time order. */
struct hostev {
	int64_t ts;
	int sync;
};

struct trace_ctx {
	struct hostev *e;
	size_t n, cap;
	long compiles;
	int cann;		/* saw a CANN host call (Level0 has none) */
};

static int
on_host_event(const struct pd_ev *ev, void *ctx)
{
	struct trace_ctx *x = ctx;
	int sync;

	if (ev->ph != 'X' || !ev->has_ts)
		return 0;
	if (strncmp(ev->name, "AscendCL@", 9) == 0 ||
	    strncmp(ev->name, "Node@", 5) == 0 ||
	    strncmp(ev->name, "Runtime@", 8) == 0)
		x->cann = 1;
	if (strcmp(ev->name, "AscendCL@aclopCompileAndExecute") == 0) {
		x->compiles++;
		return 0;
	}
	if (strcmp(ev->name, "Node@launch") == 0)
		sync = 0;
	else if (strncmp(ev->name, "AscendCL@aclrtSynchronizeStream",
	    31) == 0)
		sync = 1;
	else
		return 0;
	if (x->n == x->cap) {
		x->cap = x->cap ? 2 * x->cap : 256;
		x->e = realloc(x->e, x->cap * sizeof *x->e);
		if (!x->e)
			pd_oom();
	}
	x->e[x->n].ts = ev->ts_ns;
	x->e[x->n].sync = sync;
	x->n++;
	return 0;
}

/* Time order over all host threads, as msprof-analyze's check and
 * pd-sum-gaps read it. */
static int
by_ts(const void *a, const void *b)
{
	const struct hostev *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->sync - y->sync;
}

static void
read_trace(struct hot *h, const char *path)
{
	struct trace_ctx x;
	struct pd_trace_cb cb = { 0, on_host_event, NULL, NULL, NULL };
	struct pd_trace_stats st;
	size_t i;
	int r;

	memset(&x, 0, sizeof x);
	cb.ctx = &x;
	r = pd_trace_read(path, &cb, &st);
	if (r < 0) {
		pd_error(path, 0, "%s", strerror(errno));
		pd_diag_status(PD_EXIT_SYSTEM);
		free(x.e);
		return;
	}
	if (r > 0) {
		pd_warn(path, st.err_line, "%s: host API checks cover the "
		    "%llu events read", st.err,
		    (unsigned long long)st.events);
		pd_diag_status(PD_EXIT_INPUT);
		h->truncated = 1;
	}
	if (x.n > 1)
		qsort(x.e, x.n, sizeof *x.e, by_ts);
	for (i = 0; i < x.n; i++) {
		if (!x.e[i].sync)
			h->launches++;
		else if (i > 0 && !x.e[i - 1].sync)
			h->sync_after_launch++;
	}
	h->have_trace = x.cann;
	if (x.cann && h->compile_count < 0)
		h->compile_count = x.compiles;
	free(x.e);
}

/* Legacy msprof timeline/task_time_*.json: one X event per device task,
 * args "Task Type" and "Stream Id". EVENT_* tasks are stream syncs, not
 * work; NOTIFY_* and REDUCE_* are collective steps (is_comm); a
 * MEMCPY_ASYNC on a stream that also carries those is a collective's copy
 * (communication), elsewhere a plain copy. */
#define TASK_STREAMS 256

struct task_ctx {
	struct hot *h;
	const struct pd_tool *t;
	char comm[TASK_STREAMS];	/* stream carries collective tasks */
	double copy_us[TASK_STREAMS];
	long copies[TASK_STREAMS];
};

static int
on_task(const struct pd_ev *ev, void *ctx)
{
	struct task_ctx *x = ctx;
	char core[64], type[256];
	int64_t sid;
	int s;

	if (ev->ph != 'X' || !ev->has_dur ||
	    !pd_ev_arg_str(ev, "Task Type", core, sizeof core) ||
	    strncmp(core, "EVENT_", 6) == 0)
		return 0;
	s = pd_ev_arg_int(ev, "Stream Id", &sid) && sid >= 0 &&
	    sid < TASK_STREAMS ? (int)sid : -1;
	if (s >= 0 && (strncmp(core, "NOTIFY_", 7) == 0 ||
	    strncmp(core, "REDUCE_", 7) == 0))
		x->comm[s] = 1;
	if (s >= 0 && strcmp(core, "MEMCPY_ASYNC") == 0) {
		x->copy_us[s] += ev->dur_ns / 1e3;
		x->copies[s]++;
		return 0;
	}
	legacy_type(ev->name, type, sizeof type);
	add_kernel(x->h, ev->name, type, core, ev->dur_ns / 1e3, NULL, x->t);
	return 0;
}

static int
read_task_time(struct hot *h, const char *path, const struct pd_tool *t)
{
	struct task_ctx *x;
	struct pd_trace_cb cb = { 0, on_task, NULL, NULL, NULL };
	struct pd_trace_stats st;
	struct agg *g;
	int r, s;

	if (!pd_trace_sniff(path))
		return 0;	/* task_time_*.csv: runtime tasks, no operators */
	x = calloc(1, sizeof *x);
	if (!x)
		pd_oom();
	x->h = h;
	x->t = t;
	cb.ctx = x;
	r = pd_trace_read(path, &cb, &st);
	if (r < 0) {
		pd_error(path, 0, "%s", strerror(errno));
		pd_diag_status(PD_EXIT_SYSTEM);
		free(x);
		return 0;
	}
	if (r > 0) {
		pd_warn(path, st.err_line, "%s: operators cover the %llu "
		    "events read", st.err, (unsigned long long)st.events);
		pd_diag_status(PD_EXIT_INPUT);
		h->truncated = 1;
	}
	for (s = 0; s < TASK_STREAMS; s++) {
		if (!x->copies[s])
			continue;
		if (x->comm[s]) {
			h->comm_us += x->copy_us[s];
			continue;
		}
		h->kernels += x->copies[s];
		add_class(h, "MEMCPY_ASYNC", x->copy_us[s]);
		g = table_get(&h->ops, "MEMCPY_ASYNC", "MEMCPY_ASYNC",
		    "MEMCPY_ASYNC");
		g->count += x->copies[s];
		g->total_us += x->copy_us[s];
		g = table_get(&h->types, "MEMCPY_ASYNC", NULL, NULL);
		g->count += x->copies[s];
		g->total_us += x->copy_us[s];
		g = table_get(&h->cores, "MEMCPY_ASYNC", NULL, NULL);
		g->count += x->copies[s];
		g->total_us += x->copy_us[s];
	}
	free(x);
	h->have_kernels = 1;
	return 1;
}

/* ---- the db export (torch_npu export_type=db) ---- */

static const char *
db_text(sqlite3_stmt *st, int col, const char *dflt)
{
	const char *s = (const char *)sqlite3_column_text(st, col);

	return s && *s ? s : dflt;
}

/* A query that could not run or stopped early: said, the rows before
 * kept. */
static void
db_failed(struct hot *h, sqlite3 *db, const char *path, const char *table,
    int started)
{
	pd_warn(path, 0, "%s: %s; %s", table, sqlite3_errmsg(db),
	    started ? "the rows before are kept" : "skipped");
	pd_diag_status(PD_EXIT_INPUT);
	if (started)
		h->truncated = 1;
}

static void
db_bad_rows(struct hot *h, const char *path, const char *table, long n,
    const char *what)
{
	if (!n)
		return;
	pd_warn(path, 0, "%s: %ld rows with %s skipped", table, n, what);
	pd_diag_status(PD_EXIT_INPUT);
	h->skipped += n;
}

/* TASK joined to COMPUTE_TASK_INFO: name, op type, task type (the
 * Accelerator Core of kernel_details), start and end ns, then the PMU
 * ratios of pmu_cols (TASK_PMU_INFO, one row per task and metric). */
static int
read_db_kernels(struct hot *h, sqlite3 *db, const char *path,
    const struct pd_tool *t)
{
	char sql[4096];
	size_t n;
	sqlite3_stmt *st = NULL;
	int i, j, rc, pmu = pd_sqlite_has_table(db, "TASK_PMU_INFO");
	long bad = 0;
	int64_t ts, dur;
	double p[NPIPE];

	if (!pd_sqlite_has_table(db, "TASK") ||
	    !pd_sqlite_has_table(db, "COMPUTE_TASK_INFO") ||
	    !pd_sqlite_has_table(db, "STRING_IDS")) {
		pd_warn(path, 0, "no TASK, COMPUTE_TASK_INFO or STRING_IDS "
		    "table: no device operators in this db");
		pd_diag_status(PD_EXIT_INPUT);
		return 0;
	}
	n = (size_t)snprintf(sql, sizeof sql, "SELECT n.value, o.value, "
	    "k.value, t.startNs, t.endNs");
	for (i = 0; i < NPIPE; i++)
		for (j = 0; j < 2; j++)
			n += (size_t)snprintf(sql + n, sizeof sql - n,
			    pmu && pmu_cols[i][j] ? ", m.%s" : ", NULL",
			    pmu_cols[i][j]);
	n += (size_t)snprintf(sql + n, sizeof sql - n, " FROM "
	    "COMPUTE_TASK_INFO c JOIN TASK t ON t.globalTaskId = "
	    "c.globalTaskId LEFT JOIN STRING_IDS n ON n.id = c.name LEFT JOIN "
	    "STRING_IDS o ON o.id = c.opType LEFT JOIN STRING_IDS k ON k.id = "
	    "c.taskType");
	if (pmu) {
		n += (size_t)snprintf(sql + n, sizeof sql - n, " LEFT JOIN "
		    "(SELECT p.globalTaskId AS g");
		for (i = 0; i < NPIPE; i++)
			for (j = 0; j < 2; j++)
				if (pmu_cols[i][j])
					n += (size_t)snprintf(sql + n,
					    sizeof sql - n, ", max(CASE WHEN "
					    "s.value = '%s' THEN p.value END) "
					    "AS %s", pmu_cols[i][j],
					    pmu_cols[i][j]);
		n += (size_t)snprintf(sql + n, sizeof sql - n, " FROM "
		    "TASK_PMU_INFO p JOIN STRING_IDS s ON s.id = p.name GROUP "
		    "BY p.globalTaskId) m ON m.g = c.globalTaskId");
	}
	snprintf(sql + n, sizeof sql - n, " ORDER BY t.startNs, t.rowid");
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		db_failed(h, db, path, "TASK", 0);
		sqlite3_finalize(st);
		return 0;
	}
	h->have_kernels = 1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int any = 0;

		if (!pd_sqlite_span(st, 3, &ts, &dur)) {
			bad++;
			continue;
		}
		for (i = 0; i < NPIPE; i++) {
			p[i] = 0;
			for (j = 0; j < 2; j++) {
				int c = 5 + 2 * i + j;
				int ty = sqlite3_column_type(st, c);
				double v = sqlite3_column_double(st, c);

				if ((ty == SQLITE_INTEGER ||
				    ty == SQLITE_FLOAT) && isfinite(v) &&
				    v > p[i])
					p[i] = v;
			}
			any |= p[i] > 0;
		}
		add_kernel(h, db_text(st, 0, "N/A"), db_text(st, 1, "N/A"),
		    db_text(st, 2, "N/A"), (double)dur / 1e3, any ? p : NULL,
		    t);
	}
	if (rc != SQLITE_DONE)
		db_failed(h, db, path, "TASK", 1);
	sqlite3_finalize(st);
	db_bad_rows(h, path, "TASK", bad, "no start or end, or an end "
	    "before the start");
	return 1;
}

/* COMMUNICATION_OP: the collectives (the HCCL rows of kernel_details),
 * communication time, kept out of the operators. */
static void
read_db_comm(struct hot *h, sqlite3 *db, const char *path)
{
	sqlite3_stmt *st = NULL;
	int64_t ts, dur;
	long bad = 0;
	int rc;

	if (!pd_sqlite_has_table(db, "COMMUNICATION_OP"))
		return;		/* one rank, no collective */
	if (sqlite3_prepare_v2(db, "SELECT startNs, endNs FROM "
	    "COMMUNICATION_OP ORDER BY startNs, rowid", -1, &st, NULL) !=
	    SQLITE_OK) {
		db_failed(h, db, path, "COMMUNICATION_OP", 0);
		sqlite3_finalize(st);
		return;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (pd_sqlite_span(st, 0, &ts, &dur))
			h->comm_us += (double)dur / 1e3;
		else
			bad++;
	}
	if (rc != SQLITE_DONE)
		db_failed(h, db, path, "COMMUNICATION_OP", 1);
	sqlite3_finalize(st);
	db_bad_rows(h, path, "COMMUNICATION_OP", bad, "no start or end, or "
	    "an end before the start");
}

/* CANN_API: host API time by name, level from ENUM_API_TYPE (as
 * api_statistic.csv), and the launch / synchronize order of the CANN
 * lane (node "launch", aclrtSynchronizeStream*). 1 when read. */
static int
read_db_api(struct hot *h, sqlite3 *db, const char *path)
{
	sqlite3_stmt *st = NULL;
	struct hostev *e = NULL;
	size_t ne = 0, cap = 0, i;
	int64_t ts, dur;
	long bad = 0;
	int rc, en = pd_sqlite_has_table(db, "ENUM_API_TYPE");
	struct agg *g;

	if (!pd_sqlite_has_table(db, "CANN_API") ||
	    !pd_sqlite_has_table(db, "STRING_IDS"))
		return 0;
	if (sqlite3_prepare_v2(db, en ? "SELECT s.value, e.name, a.startNs, "
	    "a.endNs FROM CANN_API a LEFT JOIN STRING_IDS s ON s.id = a.name "
	    "LEFT JOIN ENUM_API_TYPE e ON e.id = a.type ORDER BY a.startNs, "
	    "a.rowid" : "SELECT s.value, NULL, a.startNs, a.endNs FROM "
	    "CANN_API a LEFT JOIN STRING_IDS s ON s.id = a.name ORDER BY "
	    "a.startNs, a.rowid", -1, &st, NULL) != SQLITE_OK) {
		db_failed(h, db, path, "CANN_API", 0);
		sqlite3_finalize(st);
		return 0;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = db_text(st, 0, "N/A");
		const char *level = db_text(st, 1, NULL);
		int sync;

		if (!pd_sqlite_span(st, 2, &ts, &dur)) {
			bad++;
			continue;
		}
		g = table_get(&h->api, name, level, NULL);
		g->count++;
		g->total_us += (double)dur / 1e3;
		if (strcmp(name, "aclopCompileAndExecute") == 0)
			h->compile_count = (h->compile_count < 0 ? 0 :
			    h->compile_count) + 1;
		if (strcmp(name, "launch") == 0 && level &&
		    strcmp(level, "node") == 0)
			sync = 0;
		else if (strncmp(name, "aclrtSynchronizeStream", 22) == 0)
			sync = 1;
		else
			continue;
		if (ne == cap) {
			cap = cap ? 2 * cap : 256;
			e = pd_xrealloc(e, cap * sizeof *e);
		}
		e[ne].ts = ts;
		e[ne++].sync = sync;
	}
	if (rc != SQLITE_DONE)
		db_failed(h, db, path, "CANN_API", 1);
	sqlite3_finalize(st);
	db_bad_rows(h, path, "CANN_API", bad, "no start or end, or an end "
	    "before the start");
	if (ne > 1)
		qsort(e, ne, sizeof *e, by_ts);
	for (i = 0; i < ne; i++) {
		if (!e[i].sync)
			h->launches++;
		else if (i > 0 && !e[i - 1].sync)
			h->sync_after_launch++;
	}
	free(e);
	h->have_trace = 1;
	if (h->compile_count < 0)
		h->compile_count = 0;
	return 1;
}

/* The device tables and, when no api_statistic / trace_view was read,
 * the host calls. 1 when the device tasks were read. */
static int
read_db(struct hot *h, const char *path, int want_api, int *have_api,
    const struct pd_tool *t)
{
	sqlite3 *db = pd_sqlite_open(path);
	int ok;

	if (!db)
		return 0;
	ok = read_db_kernels(h, db, path, t);
	if (ok)
		read_db_comm(h, db, path);
	if (want_api && read_db_api(h, db, path))
		*have_api = 1;
	sqlite3_close(db);
	return ok;
}

static double
ratio(double part, double whole)
{
	return whole > 0 ? part / whole : NAN;
}

/* Which pipe bounds an op: the busiest, when it reaches BOUND_RATIO;
 * "none" when no pipe does; null without PMU data. */
static void
set_bound(struct hsent *e, const struct agg *g)
{
	int i, best = 0;
	double m;

	if (g->pmu_w <= 0)
		return;
	for (i = 1; i < NPIPE; i++)
		if (g->pmu[i] > g->pmu[best])
			best = i;
	m = g->pmu[best] / g->pmu_w;
	e->bound = m >= BOUND_RATIO ? pipe_name[best] : "none";
	e->bound_ratio = m;
}

static void
list_ops(struct hot *h, struct hslist *l, size_t topn)
{
	size_t i;
	struct agg *g;
	struct hsent *e;

	table_sort(&h->ops);
	l->have = 1;
	for (i = 0; i < h->ops.n && i < topn; i++) {
		g = &h->ops.a[i];
		e = hslist_add(l);
		e->name = g->name;
		e->type = g->type;
		e->core = g->core;
		e->count = g->count;
		e->us = g->total_us;
		e->mean_us = g->total_us / g->count;
		e->ratio = ratio(g->total_us, h->total_us);
		set_bound(e, g);
	}
}

/* The first topn of a table, its share of whole (NaN: none); host_api
 * entries with their level. */
static void
list_table(struct table *t, struct hslist *l, size_t topn, double whole)
{
	size_t i;
	struct hsent *e;

	table_sort(t);
	l->have = 1;
	for (i = 0; i < t->n && i < topn; i++) {
		e = hslist_add(l);
		e->name = t->a[i].name;
		e->type = t->a[i].type;
		e->count = t->a[i].count;
		e->us = t->a[i].total_us;
		e->ratio = ratio(t->a[i].total_us, whole);
		e->device_us = t->a[i].dev_us;
	}
}

/* What a sorted table cut at topn leaves out (see pd-record(5)). */
static void
rest(const struct table *t, struct hsrest *r, size_t topn)
{
	size_t i;

	r->have = 1;
	r->us = 0;
	for (i = topn; i < t->n; i++)
		r->us += t->a[i].total_us;
	r->count = t->n > topn ? (int64_t)(t->n - topn) : 0;
}

static void
emit(struct hot *h, json_t *root, const struct pd_tool *t, int have_api,
    int have_cpu)
{
	json_t *rec = pd_rec_new("pd.hotspot", 1, root);
	size_t n = (size_t)t->topn;
	struct hsrec r;

	memset(&r, 0, sizeof r);
	pd_set_str(rec, "source", h->source);
	r.total_us = h->source ? h->total_us : NAN;
	if (h->have_kernels)
		list_ops(h, &r.top, n);
	if (h->source) {
		list_table(&h->types, &r.by_type, (size_t)-1, h->total_us);
		list_table(&h->cores, &r.by_core, (size_t)-1, h->total_us);
	}
	if (h->have_kernels)
		list_table(&h->aicpu, &r.aicpu, n, NAN);
	/* no copy kinds in the Ascend exports read: copies null */
	r.short_ratio = NAN;
	if (h->have_kernels) {
		r.short_ops = h->short_ops;
		r.has_short_ops = 1;
		r.short_ratio = ratio(h->short_ops, h->kernels);
	}
	if (have_api)
		list_table(&h->api, &r.host_api, n, NAN);
	if (h->source) {
		r.classes.have = 1;
		r.classes.compute_us = h->compute_us;
		r.classes.comm_us = h->comm_us;
		r.classes.memcpy_us = h->memcpy_us;
		r.classes.memset_us = h->memset_us;
	}
	if (have_cpu)
		list_table(&h->optim, &r.optimizers, (size_t)-1, NAN);
	if (h->have_state) {
		r.op_state.have = 1;
		r.op_state.ops = h->state_ops;
		r.op_state.dynamic = h->dyn_ops;
		r.op_state.static_ops = h->static_ops;
		r.op_state.dynamic_us = h->dyn_us;
	}
	if (have_cpu)
		list_table(&h->cpu, &r.cpu_ops, n, NAN);
	r.kernels = h->kernels;
	r.has_kernels = h->source != NULL;
	r.short_threshold_us = SHORT_US;
	r.host_checks.have = 1;
	r.host_checks.compile_execute_count = h->compile_count;
	r.host_checks.has_compile_execute_count = h->compile_count >= 0;
	r.host_checks.has_launches = h->have_trace;
	r.host_checks.launches = h->launches;
	r.host_checks.sync_after_launch = h->sync_after_launch;
	r.host_checks.sync_after_launch_ratio = ratio(h->sync_after_launch,
	    h->launches);
	/* after list_ops and list_table: the tables are sorted */
	if (h->have_kernels)
		rest(&h->ops, &r.top_rest, n);
	if (have_cpu)
		rest(&h->cpu, &r.cpu_ops_rest, n);
	r.skipped_rows = h->skipped;
	r.has_skipped_rows = 1;
	r.truncated = h->truncated;
	hsrec_write(rec, &r);	/* no critical path: a Kineto analysis */
}

static int
read_all(json_t *root, const char *kind, struct hot *h,
    const struct pd_tool *t, int what)
{
	const char *p;
	size_t i;

	int ok = 0;

	for (i = 0; (p = pd_root_export(root, kind, i)); i++) {
		if (what == 0)
			ok += read_kernels(h, p, t);
		else if (what == 1)
			ok += read_legacy(h, p, 0, t);
		else if (what == 2)
			ok += read_legacy(h, p, 1, t);
		else if (what == 4)
			ok += read_task_time(h, p, t);
		else
			ok += read_statistic(h, p, t);
	}
	return ok > 0;
}

int
hotspots_ascend(json_t *root, const struct pd_tool *t)
{
	struct hot h;
	const char *p;
	int have_api = 0, have_cpu = 0;
	size_t i;

	memset(&h, 0, sizeof h);
	h.compile_count = -1;
	if (read_all(root, "kernel_details", &h, t, 0))
		h.source = "kernel_details";
	else if (read_all(root, "op_summary", &h, t, 0))
		h.source = "op_summary";
	else if (read_all(root, "aicore_intermediate_detail", &h, t, 1)) {
		read_all(root, "aicpu_intermediate", &h, t, 2);
		h.source = "aicore_intermediate";
	} else if (read_all(root, "op_statistic", &h, t, 3))
		h.source = "op_statistic";
	else if (read_all(root, "task_time", &h, t, 4))
		h.source = "task_time";
	for (i = 0; (p = pd_root_export(root, "api_statistic", i)); i++) {
		read_api(&h, p);
		have_api = 1;
	}
	for (i = 0; (p = pd_root_export(root, "operator_details", i)); i++) {
		read_cpu_ops(&h, p);
		have_cpu = 1;
	}
	if ((p = pd_root_export(root, "trace_view", 0)))
		read_trace(&h, p);
	if (!h.source &&
	    (p = pd_root_export(root, "ascend_pytorch_profiler_db", 0)) &&
	    read_db(&h, p, !have_api && !h.have_trace, &have_api, t))
		h.source = "ascend_pytorch_profiler_db";
	if (h.source || have_api || have_cpu || h.have_trace)
		emit(&h, root, t, have_api, have_cpu);
	table_free(&h.ops);
	table_free(&h.types);
	table_free(&h.cores);
	table_free(&h.aicpu);
	table_free(&h.api);
	table_free(&h.cpu);
	table_free(&h.optim);
	return 0;
}
