/* pd-find-context: recover the run context of a workspace.
 *
 * Reads: workspace directories given as operands (Python scripts, shell
 * launchers, configs, logs, env.lock.json); records on stdin are passed
 * through only when "-" is an operand.
 * Writes: one pd.context per workspace, then one pd.finding per static check
 * of its entry scripts that fires.
 * Streams: per workspace (a workspace is scanned whole, files one at a time,
 * each at most 4 MiB). */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pd_diag.h"
#include "pd_tool.h"
#include "pd_rec.h"
#include "pd-find-context/fc.h"

static const char usage[] =
    "usage: pd-find-context [-q] [-d depth] DIR... [-]\n"
    "  -d depth  directory levels to search below DIR (default 4)\n"
    "  -h, --help this help\n"
    "  --version the version\n"
    "  -q        no warnings\n"
    "  -         also pass the records on stdin through\n";

static const char *stack_name[] = { "mindspore", "torch_npu", "torch" };
static int maxdepth = 4;

static json_t *
jrel(const struct fc_file *f)
{
	return fc_jstr(f->rel, strlen(f->rel), 0);
}

/* Root-level configs, and those under a config/ or configs/ or conf/ dir;
 * not traces that happen to be JSON. */
static void
default_configs(struct fc_ws *w)
{
	size_t i;

	for (i = 0; i < w->n; i++) {
		struct fc_file *f = &w->f[i];
		const char *b = strrchr(f->rel, '/');

		if (f->kind != FC_CONF)
			continue;
		b = b ? b + 1 : f->rel;
		if (strstr(b, "trace") || strstr(b, "timeline") ||
		    strstr(b, "profil"))
			continue;
		if (f->depth == 0 || strncmp(f->rel, "config/", 7) == 0 ||
		    strncmp(f->rel, "configs/", 8) == 0 ||
		    strncmp(f->rel, "conf/", 5) == 0 ||
		    strstr(f->rel, "/config/") || strstr(f->rel, "/configs/"))
			f->config = 1;
	}
}

/* A copy pd-inject wrote: a line that starts with its "# pd-inject:"
 * marker. It is the user's script with a profiler added, not the user's
 * code: neither an entry script nor checked, only listed as skipped. */
static int
injected(const char *buf, size_t len)
{
	static const char mark[] = "# pd-inject:";
	const char *p = buf, *e = buf + len;

	while (p && (size_t)(e - p) >= sizeof mark - 1) {
		if (memcmp(p, mark, sizeof mark - 1) == 0)
			return 1;
		if ((p = memchr(p, '\n', (size_t)(e - p))) != NULL)
			p++;
	}
	return 0;
}

/* Pass 1 over every file of a kind. */
static void
scan_kind(struct fc_ws *w, int kind)
{
	size_t i;

	for (i = 0; i < w->n; i++) {
		struct fc_file *f = &w->f[i];
		char *buf;
		size_t len;

		if (f->kind != kind || (kind == FC_CONF && !f->config))
			continue;
		if (fc_read(w, f, &buf, &len) != 0) {
			f->kind = FC_OTHER;
			f->config = 0;
			continue;
		}
		if (kind == FC_PY && injected(buf, len)) {
			fc_skip(w, f->rel, "instrumented copy made by "
			    "pd-inject");
			f->kind = FC_OTHER;
		} else if (kind == FC_PY)
			fc_py_scan(w, f, buf, len);
		else if (kind == FC_SH)
			fc_sh_scan(w, f, buf, len);
		else if (kind == FC_LOG)
			fc_log_scan(w, f, buf, len);
		else
			fc_conf_scan(w, f, buf, len);
		free(buf);
	}
}

static int
is_entry(const struct fc_file *f, int strict)
{
	if (f->kind != FC_PY)
		return 0;
	if (f->launched)
		return 1;
	if (!f->py.guard)
		return 0;
	return !strict || json_array_size(f->py.train) ||
	    json_array_size(f->py.infer);
}

/* Entry scripts: named by a launcher, or guarded with a training or
 * inference cue; failing both, any guarded script. */
static json_t *
entries(struct fc_ws *w, char *sel)
{
	json_t *a = json_array();
	size_t i;
	int strict;

	for (strict = 1; strict >= 0 && json_array_size(a) == 0; strict--)
		for (i = 0; i < w->n; i++)
			if ((sel[i] = (char)is_entry(&w->f[i], strict)))
				json_array_append_new(a, jrel(&w->f[i]));
	return a;
}

/* The files whose cues count: the entry scripts when any of them has the
 * cue at all, else every Python file. */
static void
scope(struct fc_ws *w, const char *sel, char *in, int which)
{
	size_t i;
	int any = 0, k;

	for (i = 0; i < w->n; i++) {
		const struct fc_py *p = &w->f[i].py;
		int has = 0;

		if (!sel[i])
			continue;
		if (which)
			has = json_array_size(p->train) || json_array_size(p->infer);
		else
			for (k = 0; k < FC_NSTACK; k++)
				has |= json_array_size(p->imp[k]) > 0;
		any |= has;
	}
	for (i = 0; i < w->n; i++)
		in[i] = w->f[i].kind == FC_PY && (any ? sel[i] : 1);
}

static json_t *
gather(struct fc_ws *w, const char *in, int stack, int train)
{
	json_t *a = json_array();
	size_t i, j;

	for (i = 0; i < w->n; i++) {
		json_t *src, *ev;

		if (!in[i])
			continue;
		src = stack == -2 ? w->f[i].py.device : stack >= 0 ?
		    w->f[i].py.imp[stack] : train ? w->f[i].py.train :
		    w->f[i].py.infer;
		json_array_foreach(src, j, ev)
			fc_ev_add(a, json_incref(ev));
	}
	return a;
}

static int
pick_stack(struct fc_ws *w, const char *in)
{
	static const int order[] = { FC_NPU, FC_MS, FC_TORCH };
	size_t i;
	int k;

	for (k = 0; k < 3; k++)
		for (i = 0; i < w->n; i++)
			if (in[i] && json_array_size(w->f[i].py.imp[order[k]]))
				return order[k];
	return -1;
}

static const char *
pick_workload(struct fc_ws *w, const char *in, int *train)
{
	size_t i;
	int t = 0, n = 0;

	for (i = 0; i < w->n; i++)
		if (in[i]) {
			t |= json_array_size(w->f[i].py.train) > 0;
			n |= json_array_size(w->f[i].py.infer) > 0;
		}
	*train = t;
	return t ? "training" : n ? "inference" : "unknown";
}

/* A summary of env.lock.json: python, package count, framework versions. */
static const char *lock_pkgs[] = { "torch", "torch_npu", "torch-npu",
	"torchvision", "mindspore", "deepspeed", "transformers", "accelerate",
	"apex", "megatron-core", "jax", "tensorflow", "numpy", NULL };
static const char *lock_sys[] = { "python", "python_version", "cuda",
	"cudnn", "cann", "driver", "nccl", "hccl", NULL };

static int
known(const char **list, const char *name)
{
	int i;

	for (i = 0; list[i]; i++)
		if (strcasecmp(list[i], name) == 0)
			return 1;
	return 0;
}

static void
lock_pkg(json_t *vers, const char *name, json_t *v)
{
	if (!name || !known(lock_pkgs, name))
		return;
	if (json_is_object(v))
		v = json_object_get(v, "version");
	if (json_is_string(v) && !json_object_get(vers, name))
		json_object_set(vers, name, v);
}

static json_t *
lock_packages(json_t *pk, json_t *vers)
{
	const char *k;
	json_t *v;
	size_t i;

	if (json_is_object(pk)) {
		json_object_foreach(pk, k, v)
			lock_pkg(vers, k, v);
		return json_integer((json_int_t)json_object_size(pk));
	}
	if (!json_is_array(pk))
		return json_null();
	json_array_foreach(pk, i, v) {
		if (json_is_object(v))
			lock_pkg(vers, json_string_value(json_object_get(v,
			    "name")), v);
		else if (json_is_string(v)) {	/* "torch==2.1.0" */
			const char *s = json_string_value(v);
			const char *eq = strstr(s, "==");

			if (eq) {
				char *nm = strndup(s, (size_t)(eq - s));
				json_t *ver = pd_str(eq + 2);

				lock_pkg(vers, nm, ver);
				json_decref(ver);
				free(nm);
			}
		}
	}
	return json_integer((json_int_t)json_array_size(pk));
}

static int
bystr(const void *a, const void *b)
{
	return strcmp(json_string_value(*(json_t *const *)a),
	    json_string_value(*(json_t *const *)b));
}

static void
json_array_sort_strings(json_t *a)
{
	size_t i, n = json_array_size(a);
	json_t **v = malloc((n + 1) * sizeof *v);

	if (!v)
		pd_oom();
	for (i = 0; i < n; i++)
		v[i] = json_incref(json_array_get(a, i));
	qsort(v, n, sizeof *v, bystr);
	json_array_clear(a);
	for (i = 0; i < n; i++)
		json_array_append_new(a, v[i]);
	free(v);
}

/* The versions found, in the order of the lists above (not the file's). */
static json_t *
ordered(json_t *vers)
{
	const char **lists[] = { lock_sys, lock_pkgs };
	json_t *o = json_object(), *v;
	int i, k;

	for (k = 0; k < 2; k++)
		for (i = 0; lists[k][i]; i++)
			if ((v = json_object_get(vers, lists[k][i])))
				json_object_set(o, lists[k][i], v);
	return o;
}

static json_t *
env_lock(struct fc_ws *w)
{
	static const char *pkkeys[] = { "packages", "pip", "dependencies",
	    NULL };
	struct fc_file *f = NULL;
	json_error_t err;
	json_t *j, *o, *vers, *keys, *v, *n = NULL;
	const char *k;
	size_t i;

	for (i = 0; i < w->n; i++)	/* the shallowest */
		if (w->f[i].kind == FC_LOCK && (!f || w->f[i].depth < f->depth))
			f = &w->f[i];
	if (!f)
		return json_null();
	if (!(j = json_load_file(f->abs, 0, &err))) {
		pd_warn(f->abs, err.line, "not valid JSON: %s; skipped",
		    err.text);
		pd_diag_status(PD_EXIT_INPUT);
		fc_skip(w, f->rel, "not valid JSON");
		return json_null();
	}
	o = json_object();
	vers = json_object();
	keys = json_array();
	json_object_set_new(o, "file", jrel(f));
	if (json_is_array(j))	/* pip list --format=json */
		n = lock_packages(j, vers);
	json_object_foreach(j, k, v) {
		json_array_append_new(keys, pd_str(k));
		if (known(lock_sys, k) && json_is_string(v))
			json_object_set(vers, k, v);
		if (!n && known(pkkeys, k))
			n = lock_packages(v, vers);
	}
	json_array_sort_strings(keys);
	json_object_set_new(o, "keys", keys);
	json_object_set_new(o, "packages", n ? n : json_null());
	json_object_set_new(o, "versions", ordered(vers));
	json_decref(vers);
	json_decref(j);
	return o;
}

static json_t *
configs(struct fc_ws *w)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < w->n; i++)
		if (w->f[i].config)
			json_array_append_new(a, jrel(&w->f[i]));
	return a;
}

static void
job_facts(struct fc_ws *w, struct fc_job *job)
{
	size_t i;

	job->accel = json_array_size(w->devices) > 0;
	job->amp = w->amp;
	for (i = 0; i < w->n; i++) {
		const struct fc_py *p = &w->f[i].py;

		if (w->f[i].kind != FC_PY)
			continue;
		job->accel |= p->accel;
		job->amp |= p->amp;
		job->bench_true |= p->bench_true != 0;
		if (p->bench_false && !job->bench_false) {
			job->bench_false = p->bench_false;
			job->conv_file = &w->f[i];
		}
	}
}

static const struct fc_file *
conv_cue(struct fc_ws *w, const char *sel, long *line)
{
	size_t i;
	int pass;

	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < w->n; i++)
			if (w->f[i].kind == FC_PY && (pass || sel[i]) &&
			    w->f[i].py.conv) {
				*line = w->f[i].py.conv;
				return &w->f[i];
			}
	return NULL;
}

static int
byplace(const void *a, const void *b)
{
	json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
	int c = strcmp(pd_rec_str(x, "file"), pd_rec_str(y, "file"));

	if (c)
		return c;
	if (pd_rec_int(x, "line", 0) != pd_rec_int(y, "line", 0))
		return pd_rec_int(x, "line", 0) < pd_rec_int(y, "line", 0) ?
		    -1 : 1;
	return strcmp(pd_rec_str(x, "check"), pd_rec_str(y, "check"));
}

/* The workspace file a module name imported by f stands for: a.b is
 * a/b.py or a/b/__init__.py, against the root, then f's directory; a
 * leading dot is f's directory, each more dot one level up. */
static long
module_file(struct fc_ws *w, const struct fc_file *f, const char *mod)
{
	static const char *suffix[] = { ".py", "/__init__.py" };
	char *path, *q;
	size_t dots = strspn(mod, "."), k;
	long r = -1;
	int i;

	if (!mod[dots])
		return -1;
	path = malloc(3 * dots + strlen(mod) + 16);
	if (!path)
		pd_oom();
	for (i = 0; i < 2 && r < 0; i++) {
		path[0] = '\0';
		for (k = 1; k < dots; k++)
			strcat(path, "../");
		strcat(path, mod + dots);
		for (q = path + 3 * (dots ? dots - 1 : 0); *q; q++)
			if (*q == '.')
				*q = '/';
		strcat(path, suffix[i]);
		r = fc_resolve(w, f, path, FC_PY);
	}
	free(path);
	return r;
}

/* The files checked: the entry scripts and the workspace modules they
 * import (one level). */
static void
checked(struct fc_ws *w, const char *sel, char *chk)
{
	size_t i, j;
	json_t *m;
	long k;

	for (i = 0; i < w->n; i++)
		chk[i] = sel[i];
	for (i = 0; i < w->n; i++) {
		if (!sel[i])
			continue;
		json_array_foreach(w->f[i].py.mods, j, m)
			if ((k = module_file(w, &w->f[i],
			    json_string_value(m))) >= 0)
				chk[k] = 1;
	}
}

static void
findings(struct fc_ws *w, const char *sel, int stack)
{
	json_t *out = json_array(), **v;
	struct fc_job job;
	size_t i, n;
	char *chk = calloc(w->n + 1, 1);

	memset(&job, 0, sizeof job);
	job.stack = stack;
	job_facts(w, &job);
	if (stack == FC_NPU || stack == FC_MS)
		job.accel = 1;
	if (!chk)
		pd_oom();
	checked(w, sel, chk);
	for (i = 0; i < w->n; i++) {
		char *buf;
		size_t len;

		if (!chk[i] || fc_read(w, &w->f[i], &buf, &len) != 0)
			continue;
		fc_py_check(w, &w->f[i], buf, len, &job, sel[i], out);
		free(buf);
	}
	free(chk);
	if (stack == FC_TORCH && job.accel && !job.bench_true) {
		const struct fc_file *cf = job.conv_file;
		long line = job.bench_false;

		if (!cf)
			cf = conv_cue(w, sel, &line);
		if (cf)
			json_array_append_new(out, fc_finding_bench(cf, line,
			    job.bench_false != 0));
	}
	n = json_array_size(out);
	v = malloc((n + 1) * sizeof *v);
	if (!v)
		pd_oom();
	for (i = 0; i < n; i++)
		v[i] = json_array_get(out, i);
	qsort(v, n, sizeof *v, byplace);
	for (i = 0; i < n; i++) {
		json_t *r = pd_rec_new("pd.finding", 1, NULL);
		const char *k;
		json_t *x;

		pd_set_str(r, "root", w->root);
		pd_set_null(r, "rank");
		json_object_foreach(v[i], k, x)
			json_object_set(r, k, x);
		pd_rec_emit(r);
	}
	free(v);
	json_decref(out);
}

static void
context(struct fc_ws *w)
{
	json_t *r = pd_rec_new("pd.context", 1, NULL);
	char *sel = calloc(w->n + 1, 1), *in = calloc(w->n + 1, 1);
	int stack, train;
	const char *wl;

	if (!sel || !in)
		pd_oom();
	pd_set_str(r, "root", w->root);
	pd_set_null(r, "rank");
	pd_set(r, "entry_scripts", entries(w, sel));
	scope(w, sel, in, 0);
	stack = pick_stack(w, in);
	pd_set_str(r, "stack", stack >= 0 ? stack_name[stack] : "unknown");
	pd_set(r, "stack_evidence", stack >= 0 ? gather(w, in, stack, 0) :
	    json_array());
	scope(w, sel, in, 1);
	wl = pick_workload(w, in, &train);
	pd_set_str(r, "workload", wl);
	pd_set(r, "workload_evidence", strcmp(wl, "unknown") == 0 ?
	    json_array() : gather(w, in, -1, train));
	/* lines that put work on an accelerator, in the job's scripts */
	pd_set(r, "device_evidence", gather(w, in, -2, 0));
	pd_set_str(r, "launcher", w->launcher);
	if (json_is_null(w->world_size) && w->rank_size >= 0)
		pd_set_int(r, "world_size", w->rank_size);
	else
		pd_set(r, "world_size", json_incref(w->world_size));
	pd_set(r, "visible_devices", json_incref(w->devices));
	pd_set(r, "configs", configs(w));
	pd_set(r, "env_lock", env_lock(w));
	pd_set(r, "metrics", json_incref(w->metrics));
	pd_set(r, "launcher_evidence", w->launch_ev ?
	    json_incref(w->launch_ev) : json_null());
	pd_set_int(r, "metrics_omitted", w->metrics_omitted);
	pd_set(r, "skipped", json_incref(w->skipped));
	pd_rec_emit(r);
	findings(w, sel, stack);
	free(sel);
	free(in);
}

static void
ws_free(struct fc_ws *w)
{
	size_t i;
	int k;

	for (i = 0; i < w->n; i++) {
		free(w->f[i].rel);
		free(w->f[i].abs);
		for (k = 0; k < FC_NSTACK; k++)
			json_decref(w->f[i].py.imp[k]);
		json_decref(w->f[i].py.train);
		json_decref(w->f[i].py.infer);
		json_decref(w->f[i].py.device);
		json_decref(w->f[i].py.mods);
	}
	free(w->f);
	free(w->root);
	json_decref(w->skipped);
	json_decref(w->devices);
	json_decref(w->metrics);
	json_decref(w->world_size);
	json_decref(w->launch_ev);
}

static int
workspace(const char *path, void *ctx)
{
	struct fc_ws w;
	struct stat st;
	size_t i;
	int k;

	(void)ctx;
	if (stat(path, &st) != 0) {
		pd_error(path, 0, "%s", strerror(errno));
		pd_diag_status(PD_EXIT_SYSTEM);
		return PD_EXIT_SYSTEM;
	}
	if (!S_ISDIR(st.st_mode)) {
		pd_error(path, 0, "not a directory");
		pd_diag_status(PD_EXIT_INPUT);
		return PD_EXIT_INPUT;
	}
	memset(&w, 0, sizeof w);
	if (!(w.root = realpath(path, NULL))) {
		pd_error(path, 0, "%s", strerror(errno));
		pd_diag_status(PD_EXIT_SYSTEM);
		return PD_EXIT_SYSTEM;
	}
	w.maxdepth = maxdepth;
	w.skipped = json_array();
	w.devices = json_array();
	w.metrics = json_array();
	w.world_size = json_null();
	w.rank_size = -1;
	fc_walk(&w);
	for (i = 0; i < w.n; i++) {
		for (k = 0; k < FC_NSTACK; k++)
			w.f[i].py.imp[k] = json_array();
		w.f[i].py.train = json_array();
		w.f[i].py.infer = json_array();
		w.f[i].py.device = json_array();
		w.f[i].py.mods = json_array();
	}
	default_configs(&w);
	scan_kind(&w, FC_SH);	/* names entries and configs first */
	scan_kind(&w, FC_PY);
	scan_kind(&w, FC_CONF);
	scan_kind(&w, FC_LOG);
	context(&w);
	ws_free(&w);
	return 0;
}

int
main(int argc, char **argv)
{
	struct pd_stream s;
	int c;

	pd_diag_init(argv[0]);
	while ((c = pd_getopt(argc, argv, "d:hq", NULL, usage)) != -1) {
		switch (c) {
		case 'd':
			maxdepth = (int)pd_opt_int('d', optarg, 0, 64, "depth", NULL);
			break;
		case 'h': pd_usage_exit(usage, 0);
		case 'q': pd_diag_quiet(1); break;
		default: pd_usage_exit(usage, 2);
		}
	}
	if (optind == argc)
		pd_usage_exit(usage, 2);
	if (fc_log_init() != 0) {
		pd_error(NULL, 0, "cannot compile the log patterns");
		return PD_EXIT_SYSTEM;
	}
	memset(&s, 0, sizeof s);
	s.on_operand = workspace;
	pd_stream_run(&s, argc - optind, argv + optind);
	return pd_diag_finish();
}
