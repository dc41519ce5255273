/* pd-report: the report of a run, in files.
 *
 * Reads: the whole record stream (stdin, or files of records given as
 *   operands): pd.root, the summaries (pd.step, pd.comm, pd.mem, pd.input,
 *   pd.gaps, pd.hotspot), pd.context, pd.profile, pd.bottleneck,
 *   pd.comparison, pd.verdict.
 * Writes: the input unchanged, then, when the stream held anything to
 *   report, the files below DIR (-o) and one pd.report record naming them:
 *   report.json (the source of truth), report.md and report.html (its
 *   projections), the meta/ documents, artifacts/perf.lock.json. Each file is
 *   written to a temporary file and renamed into place.
 *   Many runs (-A, or dumps as operands, diagnosed by the pipeline through
 *   pd_recfile_dir): one such set per run, DIR/NAME/ (NAME from the run's
 *   id, made unique and safe), each replaced as one set, a set that would
 *   be the same bytes left alone ("skipped, unchanged"), then
 *   DIR/index.json and DIR/index.html listing every run, failed ones too.
 * Aggregates: keeps the summary records (memory grows with ranks) and
 *   writes everything at the end. The parts are in tools/pd-report/. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pd_archive.h"
#include "pd_diag.h"
#include "pd_tool.h"
#include "pd_rec.h"
#include "pd_recfile.h"
#include "pd_runs.h"
#include "pd_share.h"
#include "pd-report/report.h"

static const char usage[] =
    "usage: pd-report [-Aqt] [-o dir] [-R run] [-r rules] [-n N] [-S sharedir]\n"
    "                 [DUMP|FILE|-]...\n"
    "  reads the record stream (stdin, or files of records), passes it on,\n"
    "  and writes the report of one run below dir, then a pd.report record;\n"
    "  given dumps (directories, archives), diagnoses them and writes the\n"
    "  report of every run, dir/NAME/, and dir/index.json, dir/index.html\n"
    "  -o dir       output directory (default perfdiag-report)\n"
    "  -A           every run of the stream, and the index (as for dumps)\n"
    "  -R run       the run to report (default: the first diagnosed run)\n"
    "  -r rules     rules file whose hash goes in the lock file\n"
    "  -n N         hotspots listed (default 10)\n"
    "  -t           write the generation time (the files then differ per run)\n"
    "  -q           no warnings\n"
    "  -S sharedir  where the share/ files are\n"
    "  -h, --help   this help\n"
    "  --version    the version\n";

/* A dump given as an operand: whether its pipeline failed, and the runs
 * its roots belong to. */
struct dump {
	const char *path;
	int failed;		/* the pipeline failed */
	int rejected;		/* a stage rejected some input */
	json_t *runs;		/* array of run ids (string or null) */
};

struct ctx {
	struct report_in in;
	struct report_opts o;
	struct pd_stream *s;
	struct dump *dumps;
	size_t ndumps;
	long cur;		/* the dump being read, or -1 */
	/* For many runs, each run's report counts its own records: */
	json_t *run_counts;	/* object: run key -> (type -> count) */
	json_t *root_run;	/* object: root path -> run key */
	json_t *shared_counts;	/* records of no run (pd.context, ...) */
};

/* One file of a report's set, in memory until it is written. */
struct part {
	const char *name;
	char *data;
	size_t len;
};

#define MAXPARTS 8

static void
count(json_t *counts, const char *type)
{
	json_t *n = json_object_get(counts, type);

	json_object_set_new(counts, type,
	    json_integer(n ? json_integer_value(n) + 1 : 1));
}

/* The key of a run id in run_counts (ids are strings or null). */
static const char *
run_key(json_t *id, char *buf, size_t size)
{
	if (!json_is_string(id))
		return "-";
	snprintf(buf, size, "=%s", json_string_value(id));
	return buf;
}

/* Count the record for its run: the run it names, else the run of its
 * root's pd.root; a record of neither (pd.context, pd.comparison, ...)
 * counts for every run. */
static void
count_run(struct ctx *c, json_t *rec, const char *type)
{
	char buf[PATH_MAX + 8];
	const char *root = pd_rec_str(rec, "root"), *key = NULL;
	json_t *id = json_object_get(rec, "run"), *o;

	if (json_is_string(id) || strcmp(type, "pd.root") == 0)
		key = run_key(id, buf, sizeof buf);
	else if (root && (o = json_object_get(c->root_run, root)))
		key = json_string_value(o);
	if (key && root && strcmp(type, "pd.root") == 0)
		json_object_set_new(c->root_run, root, json_string(key));
	if (!key) {
		count(c->shared_counts, type);
		return;
	}
	if (!(o = json_object_get(c->run_counts, key))) {
		o = json_object();
		json_object_set_new(c->run_counts, key, o);
	}
	count(o, type);
}

/* Whether a pd.sample goes into the utilization chart: cpu, mem, gpu or
 * npu, over time (a t_s), not a sample of the device's processes. */
static int
charted(json_t *rec)
{
	static const char *res[] = { "cpu", "mem", "gpu", "npu", NULL };
	const char *r = pd_rec_str(rec, "resource");
	const char *src = pd_rec_str(rec, "source");
	int i;

	if (!r || !json_is_number(json_object_get(rec, "t_s")) || (src &&
	    (strcmp(src, "nvidia-smi-apps") == 0 ||
	    strcmp(src, "npu-smi-procs") == 0)))
		return 0;
	for (i = 0; res[i]; i++)
		if (strcmp(res[i], r) == 0)
			return 1;
	return 0;
}

static int
on_record(json_t *rec, void *arg)
{
	struct ctx *c = arg;
	const char *type = pd_rec_str(rec, "type");

	if (!type || strncmp(type, "pd.", 3) != 0 ||
	    strcmp(type, "pd.report") == 0)
		return 0;
	count(c->in.counts, type);
	count_run(c, rec, type);
	pd_runs_add(c->in.runs, rec);
	if (strcmp(type, "pd.root") == 0) {
		json_array_append(c->in.roots, rec);
		if (c->cur >= 0) {
			json_t *id = json_object_get(rec, "run"), *ids, *x;
			size_t i;
			int seen = 0;

			id = json_is_string(id) ? id : json_null();
			ids = c->dumps[c->cur].runs;
			json_array_foreach(ids, i, x)
				seen |= json_equal(x, id);
			if (!seen)
				json_array_append(ids, id);
		}
	}
	else if (strcmp(type, "pd.comparison") == 0)
		json_array_append(c->in.comparisons, rec);
	else if (strcmp(type, "pd.verdict") == 0)
		json_array_append(c->in.verdicts, rec);
	else if (strcmp(type, "pd.finding") == 0)
		json_array_append(c->in.findings, rec);
	else if (strcmp(type, "pd.run") == 0)
		json_array_append(c->in.collects, rec);
	else if (strcmp(type, "pd.sample") == 0 && charted(rec))
		json_array_append(c->in.samples, rec);
	return 0;
}

static int
on_operand(const char *path, void *arg)
{
	struct ctx *c = arg;
	struct dump *d;
	int rc;

	if (!pd_recfile_is_dump(path)) {
		rc = pd_recfile_read(c->s, path);
		if (rc)
			pd_diag_status(rc);
		return rc;
	}
	/* a dump: the whole pipeline, then its records as if read */
	c->o.all = 1;
	c->dumps = pd_xrealloc(c->dumps, (c->ndumps + 1) * sizeof *c->dumps);
	d = &c->dumps[c->ndumps];
	d->path = path;
	d->failed = d->rejected = 0;
	d->runs = json_array();
	c->cur = (long)c->ndumps++;
	rc = pd_recfile_dir(c->s, path, "pd-classify", c->o.topn);
	c->cur = -1;
	d->failed = rc == PD_EXIT_SYSTEM;
	d->rejected = rc == PD_EXIT_INPUT;
	if (rc)
		pd_diag_status(rc);
	return 0;	/* the other operands are diagnosed all the same */
}

/* Whether the run has a ranked candidate (a pd.bottleneck other than
 * rule "none"). */
static int
diagnosed(struct pd_run *r)
{
	json_t *b;
	size_t i;

	json_array_foreach(r->bottlenecks, i, b) {
		const char *rule = pd_rec_str(b, "rule");

		if (rule && strcmp(rule, "none") != 0)
			return 1;
	}
	return 0;
}

/* Whether one of the run's roots was located (has its pd.root). */
static int
located(struct pd_run *r)
{
	const char *k;
	json_t *v;

	json_object_foreach(r->views, k, v)
		if (json_object_get(v, "root"))
			return 1;
	return 0;
}

/* The run to report: -R, else the first run (by id) with a ranked
 * candidate, else the first located run with a profile, else the first.
 * NULL when there is none (or -R names none). */
static struct pd_run *
choose(struct ctx *c, size_t n)
{
	struct pd_run *r;
	size_t i;
	int pass;

	if (c->o.run) {
		for (i = 0; i < n; i++) {
			r = pd_runs_get(c->in.runs, i);
			if (json_is_string(r->id) &&
			    strcmp(json_string_value(r->id), c->o.run) == 0)
				return r;
		}
		pd_error(NULL, 0, "no run %s in the stream",
		    pd_diag_quote(c->o.run, (size_t)-1));
		pd_diag_status(PD_EXIT_INPUT);
		return NULL;
	}
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < n; i++) {
			r = pd_runs_get(c->in.runs, i);
			if (pass == 0 ? diagnosed(r) : r->profile && located(r))
				return r;
		}
	return n ? pd_runs_get(c->in.runs, 0) : NULL;
}

static int
add_doc(struct part *p, int *n, const char *name, json_t *doc)
{
	char *t = report_dump(doc);

	if (!t) {
		pd_error(NULL, 0, "%s: cannot encode", name);
		return -1;
	}
	p[*n].name = name;
	p[*n].data = t;
	p[(*n)++].len = strlen(t);
	return 0;
}

static int
add_page(struct part *p, int *n, const char *name, json_t *report,
    void (*draw)(json_t *, FILE *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		pd_oom();
	draw(report, f);
	if (fclose(f) != 0)
		pd_oom();
	p[*n].name = name;
	p[*n].data = buf;
	p[(*n)++].len = len;
	return 0;
}

/* The files of the run's set, in the order they are written (report.json,
 * the source of truth, last). The number of parts, or -1. */
static int
build_set(struct ctx *c, struct pd_run *run, json_t *report,
    struct part *p)
{
	json_t *doc;
	int n = 0, bad = 0;

	doc = report_lock(&c->in, &c->o, c->o.all ? run : NULL);
	bad |= add_doc(p, &n, "artifacts/perf.lock.json", doc);
	json_decref(doc);
	doc = report_meta_profile(run);
	bad |= add_doc(p, &n, "meta/performance-profile.json", doc);
	json_decref(doc);
	doc = report_meta_bottlenecks(run);
	bad |= add_doc(p, &n, "meta/bottlenecks.json", doc);
	json_decref(doc);
	doc = report_meta_verdict(report);
	bad |= add_doc(p, &n, "meta/performance-verdict.json", doc);
	json_decref(doc);
	if ((doc = report_comparison_of(&c->in, run)))
		bad |= add_doc(p, &n, "meta/validation-comparison.json", doc);
	add_page(p, &n, "report.md", report, report_md);
	add_page(p, &n, "report.html", report, report_html);
	bad |= add_doc(p, &n, "report.json", report);
	if (bad) {
		while (n > 0)
			free(p[--n].data);
		return -1;
	}
	return n;
}

static void
free_set(struct part *p, int n)
{
	while (n > 0)
		free(p[--n].data);
}

/* Write the set as one (atomic.c). 0, or -1 (error printed). */
static int
write_set(const char *dir, struct part *p, int n)
{
	int i, bad = 0;

	if (report_out_begin(dir) != 0)
		return -1;
	for (i = 0; i < n && !bad; i++)
		bad |= report_write(p[i].name, p[i].data, p[i].len);
	if (bad) {
		report_out_abort();
		return -1;
	}
	return report_out_commit();
}

/* Whether the file name below the directory at dfd holds exactly len
 * bytes of data (no link followed). */
static int
same_file(int dfd, const char *name, const char *data, size_t len)
{
	char buf[65536];
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	size_t at = 0;
	ssize_t r;
	int same = fd >= 0;

	while (same && (r = read(fd, buf, sizeof buf)) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			same = 0;
		} else if ((size_t)r > len - at ||
		    memcmp(buf, data + at, (size_t)r) != 0)
			same = 0;
		else
			at += (size_t)r;
	}
	if (fd >= 0)
		close(fd);
	return same && at == len;
}

/* Whether the set at dir is the one that would be written: its lock (the
 * inputs' sizes and hashes, the tools, the rules) and every other file the
 * same bytes. */
static int
unchanged(const char *dir, struct part *p, int n)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int i, same = dfd >= 0;

	for (i = 0; same && i < n; i++)
		same = same_file(dfd, p[i].name, p[i].data, p[i].len);
	if (dfd >= 0)
		close(dfd);
	return same;
}

static void
emit(json_t *report, const char *absdir)
{
	json_t *rec = pd_rec_new("pd.report", 1, NULL), *files = json_array();
	json_t *v;
	const char *k;

	json_object_set(rec, "run", json_object_get(report, "run"));
	pd_set_str(rec, "dir", absdir);
	json_object_foreach(json_object_get(report, "artifacts"), k, v)
		if (json_is_string(v))
			json_array_append(files, v);
	json_object_set_new(rec, "files", files);
	json_object_set(rec, "dominant", json_object_get(json_object_get(
	    report, "dominant"), "rule") ? json_object_get(json_object_get(
	    report, "dominant"), "rule") : json_null());
	json_object_set(rec, "verdict", json_object_get(json_object_get(
	    report, "comparison"), "verdict") ? json_object_get(
	    json_object_get(report, "comparison"), "verdict") : json_null());
	pd_rec_emit(rec);
}

static int
key_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A counts object with its keys sorted (so the output does not depend
 * on the order record types first appeared); new reference. */
static json_t *
sorted_counts(json_t *counts)
{
	size_t i = 0, n = json_object_size(counts);
	const char **keys = pd_xmalloc(sizeof *keys * (n ? n : 1));
	json_t *o = json_object(), *v;
	const char *k;

	json_object_foreach(counts, k, v)
		keys[i++] = k;
	qsort(keys, n, sizeof *keys, key_cmp);
	for (i = 0; i < n; i++)
		json_object_set(o, keys[i], json_object_get(counts, keys[i]));
	free(keys);
	return o;
}

static void
sort_counts(struct ctx *c)
{
	json_t *o = sorted_counts(c->in.counts);

	json_decref(c->in.counts);
	c->in.counts = o;
}

/* The counts of one run's records and of the records of no run; new
 * reference. */
static json_t *
counts_of(struct ctx *c, struct pd_run *run)
{
	char buf[PATH_MAX + 8];
	json_t *o = json_deep_copy(c->shared_counts), *v, *n;
	json_t *mine = json_object_get(c->run_counts, run_key(run->id, buf,
	    sizeof buf));
	const char *k;

	json_object_foreach(mine, k, v) {
		n = json_object_get(o, k);
		json_object_set_new(o, k, json_integer(json_integer_value(v) +
		    (n ? json_integer_value(n) : 0)));
	}
	v = sorted_counts(o);
	json_decref(o);
	return v;
}

/* The name of the directory (or archive, without its ending unless
 * ending) that holds the last component of id, or NULL. Caller frees. */
static char *
parent_name(const char *id, int ending)
{
	const char *b, *e = strchr(id, '#') ? strchr(id, '#') :
	    id + strlen(id);
	char *t;
	int k;

	while (e > id && e[-1] == '/')
		e--;
	while (e > id && e[-1] != '/')
		e--;
	while (e > id && e[-1] == '/')
		e--;
	for (b = e; b > id && b[-1] != '/'; b--)
		;
	if (b == e)
		return NULL;
	t = pd_xmalloc((size_t)(e - b) + 1);
	memcpy(t, b, (size_t)(e - b));
	t[e - b] = 0;
	if (!ending && (k = pd_archive_name(t)) > 0 && (size_t)k < strlen(t))
		t[strlen(t) - (size_t)k] = 0;
	return t;
}

/* Level 3 of display_names: where "parent/job" still leaves several runs
 * (two_jobs.tar.gz and two_jobs.zip beside each other), the archive's
 * name keeps its ending. NULL when that changes nothing. */
static json_t *
parent_with_ending(const char *id, const char *cur)
{
	char *stem = parent_name(id, 0), *full = parent_name(id, 1);
	json_t *v = NULL;
	size_t n = stem ? strlen(stem) : 0;

	if (stem && full && strcmp(stem, full) && !strncmp(cur, stem, n) &&
	    cur[n] == '/')
		v = json_sprintf("%s%s", full, cur + n);
	free(stem);
	free(full);
	return v;
}

/* How many runs have each name of names (an object: name -> count). */
static json_t *
name_counts(json_t *names)
{
	json_t *count = json_object(), *v, *n;
	size_t i;

	json_array_foreach(names, i, v) {
		n = json_object_get(count, json_string_value(v));
		json_object_set_new(count, json_string_value(v),
		    json_integer(n ? json_integer_value(n) + 1 : 1));
	}
	return count;
}

/* The name people read for each run: the job's name (report_job_name).
 * Where several runs would have the same one: a run that is one trace
 * file is "job/stem" (report_trace_name), a run of a directory by world
 * size "job#world_size=N"; where that still leaves several, the name of
 * the directory or archive holding the job goes first ("parent/job..."),
 * with the archive's ending when two archives differ only in it. An
 * array of strings, one per run, in run order. */
static json_t *
display_names(struct pd_runs *runs, size_t nruns)
{
	json_t *names = json_array(), *count;
	size_t i;
	int level;
	char *t;

	for (i = 0; i < nruns; i++) {
		struct pd_run *run = pd_runs_get(runs, i);

		t = report_job_name(json_string_value(run->id), run->roots);
		json_array_append_new(names, json_string(t ? t : ""));
		free(t);
	}
	for (level = 1; level <= 3; level++) {
		json_t *cand = json_array(), *ccount;

		count = name_counts(names);
		for (i = 0; i < nruns; i++) {
			struct pd_run *run = pd_runs_get(runs, i);
			const char *id = json_string_value(run->id), *h;
			const char *cur = json_string_value(json_array_get(
			    names, i));
			json_t *v = NULL;

			if (!id || json_integer_value(json_object_get(count,
			    cur)) < 2)
				v = json_string("");
			else if (level == 1 && (t = report_trace_name(id,
			    run->roots))) {
				v = json_string(t);
				free(t);
			} else if (level == 1 && (h = strchr(id, '#')))
				v = json_sprintf("%s%s", cur, h);
			else if (level == 2 && (t = parent_name(id, 0))) {
				v = json_sprintf("%s/%s", t, cur);
				free(t);
			} else if (level == 3)
				v = parent_with_ending(id, cur);
			json_array_append_new(cand, v ? v : json_string(""));
		}
		/* a new name is taken where it tells the run apart */
		ccount = name_counts(cand);
		for (i = 0; i < nruns; i++) {
			json_t *v = json_array_get(cand, i);

			if (*json_string_value(v) && (level >= 2 ||
			    json_integer_value(json_object_get(ccount,
			    json_string_value(v))) == 1))
				json_array_set(names, i, v);
		}
		json_decref(ccount);
		json_decref(cand);
		json_decref(count);
	}
	return names;
}

/* A name for a run's directory, readable and safe: its display name
 * (display_names; the job's name of id when NULL), every byte other than
 * letters, digits, '.', '_', '+', '-' made '_', at most 64 bytes, never
 * starting with '.'; "run" when nothing is left. Made unique (-2, -3,
 * ...) against the names taken (and the index's files). */
static char *
run_name(const char *display, const char *id, json_t *roots, json_t *taken)
{
	char buf[80], *t, *name;
	const char *b;
	size_t n = 0;
	int i;

	if (display)
		t = pd_xstrdup(display);
	else if (!(t = report_job_name(id, roots)))
		t = pd_xstrdup("");
	for (b = t; *b && n < 64; b++) {
		int ok = (*b >= 'a' && *b <= 'z') || (*b >= 'A' && *b <= 'Z') ||
		    (*b >= '0' && *b <= '9') || strchr("._+-", *b);

		if (!ok || (n == 0 && *b == '.')) {
			if (n == 0 || buf[n - 1] != '_')
				buf[n++] = '_';
		} else
			buf[n++] = *b;
	}
	buf[n] = 0;
	free(t);
	if (n == 0 || strspn(buf, "_") == n)
		snprintf(buf, sizeof buf, "run");
	name = pd_xmalloc(sizeof buf + 16);
	snprintf(name, sizeof buf + 16, "%s", buf);
	for (i = 2; json_object_get(taken, name) ||
	    strcmp(name, "index.json") == 0 ||
	    strcmp(name, "index.html") == 0; i++)
		snprintf(name, sizeof buf + 16, "%s-%d", buf, i);
	json_object_set_new(taken, name, json_true());
	return name;
}

/* Whether the run's roots came from a dump whose pipeline failed. */
static int
run_failed(struct ctx *c, struct pd_run *run)
{
	size_t i, j;
	json_t *x;

	for (i = 0; i < c->ndumps; i++)
		if (c->dumps[i].failed)
			json_array_foreach(c->dumps[i].runs, j, x)
				if (json_equal(x, run->id))
					return 1;
	return 0;
}

/* The index's entry of a run. */
static json_t *
index_entry(const char *name, json_t *id, const char *status,
    const char *reason, json_t *report)
{
	json_t *e = json_object(), *dom, *d = json_null(), *v;
	char buf[300];

	pd_set_str(e, "name", name);
	json_object_set(e, "run", id ? id : json_null());
	pd_set_str(e, "status", status);
	pd_set(e, "reason", reason ? json_string(reason) : json_null());
	dom = json_object_get(report, "dominant");
	if (json_is_object(dom)) {
		d = json_object();
		json_object_set(d, "rule", json_object_get(dom, "rule"));
		json_object_set(d, "title", json_object_get(dom, "title"));
		json_object_set(d, "impact", json_object_get(dom, "impact"));
	}
	json_object_set_new(e, "dominant", d);
	v = json_object_get(json_object_get(json_object_get(report, "runtime"),
	    "step"), "mean_us");
	json_object_set(e, "step_mean_us", v ? v : json_null());
	v = json_object_get(json_object_get(report, "workload"), "ranks");
	json_object_set(e, "ranks", v ? v : json_null());
	if (report) {
		snprintf(buf, sizeof buf, "%s/report.html", name);
		pd_set_str(e, "report", buf);
		snprintf(buf, sizeof buf, "%s/report.json", name);
		pd_set_str(e, "report_json", buf);
	} else {
		pd_set_null(e, "report");
		pd_set_null(e, "report_json");
	}
	return e;
}

/* One run of many: its set below the many-run directory, unless that
 * would be the same bytes. The entry of the index. */
static json_t *
one_of_many(struct ctx *c, struct pd_run *run, const char *name,
    const char *shown)
{
	struct part p[MAXPARTS];
	char dir[PATH_MAX];
	json_t *report, *e, *counts;
	const char *status = "reported", *reason = NULL;
	int n;

	if (run_failed(c, run))
		return index_entry(name, run->id, "failed", "the diagnosis "
		    "pipeline failed (its messages are on stderr)", NULL);
	snprintf(dir, sizeof dir, "%s/%s", report_runs_dir(), name);
	/* the run's own records counted, as if it were alone */
	counts = c->in.counts;
	c->in.counts = counts_of(c, run);
	report = report_build(&c->in, run, &c->o);
	json_object_clear(run->views);	/* the report holds what it shows */
	if (shown && *shown)
		pd_set_str(report, "name", shown);
	n = build_set(c, run, report, p);
	json_decref(c->in.counts);
	c->in.counts = counts;
	if (n < 0) {
		status = "failed";
		reason = "the report could not be made";
	} else if (unchanged(dir, p, n)) {
		pd_note("%s: skipped, unchanged", pd_diag_quote(name,
		    (size_t)-1));
		status = "unchanged";
	} else if (write_set(dir, p, n) != 0) {
		status = "failed";
		reason = "the report could not be written (its message is "
		    "on stderr)";
	}
	if (n >= 0)
		free_set(p, n);
	if (strcmp(status, "failed") == 0) {
		pd_diag_status(PD_EXIT_SYSTEM);
		json_decref(report);
		return index_entry(name, run->id, status, reason, NULL);
	}
	e = index_entry(name, run->id, status, reason, report);
	emit(report, dir);
	json_decref(report);
	return e;
}

static int
write_index_doc(json_t *x)
{
	char *buf = NULL, *t;
	size_t len = 0;
	FILE *f;
	int bad;

	if (!(f = open_memstream(&buf, &len)))
		pd_oom();
	report_index_html(x, f);
	if (fclose(f) != 0)
		pd_oom();
	if (!(t = report_dump(x))) {
		free(buf);
		pd_error(NULL, 0, "index.json: cannot encode");
		return -1;
	}
	/* index.json, the source of truth, last */
	bad = report_runs_write("index.html", buf, len);
	if (!bad)
		bad = report_runs_write("index.json", t, strlen(t));
	free(buf);
	free(t);
	return bad;
}

/* Every run, then the index. */
/* The run of a stream of pd-collect's records only (no root, no profile):
 * the run of its first pd.run, else of its first sample. 0 when the
 * stream has neither, or -R names another run. */
static int
bare_run(struct ctx *c, struct pd_run *u)
{
	json_t *x = json_array_get(c->in.collects, 0), *id;

	if (!x && !(x = json_array_get(c->in.samples, 0)))
		return 0;
	id = json_object_get(x, "run");
	if (c->o.run && (!json_is_string(id) ||
	    strcmp(json_string_value(id), c->o.run) != 0))
		return 0;	/* choose() says there is no such run */
	memset(u, 0, sizeof *u);
	u->id = json_is_string(id) ? json_incref(id) : json_null();
	u->roots = json_array();
	u->views = json_object();
	u->bottlenecks = json_array();
	return 1;
}

static void
bare_free(struct pd_run *u)
{
	json_decref(u->id);
	json_decref(u->roots);
	json_decref(u->views);
	json_decref(u->bottlenecks);
}

static void
report_all(struct ctx *c, size_t nruns)
{
	json_t *taken = json_object(), *runs = json_array(), *x, *tool, *id;
	json_t *display;
	struct pd_run bare;
	size_t i;

	if (report_runs_begin(c->o.outdir) != 0) {
		pd_diag_status(PD_EXIT_SYSTEM);
		json_decref(taken);
		json_decref(runs);
		return;
	}
	display = display_names(c->in.runs, nruns);
	for (i = 0; i < nruns; i++) {
		struct pd_run *run = pd_runs_get(c->in.runs, i);
		const char *shown = json_string_value(json_array_get(display,
		    i));
		char *name = run_name(shown, NULL, NULL, taken);

		json_array_append_new(runs, one_of_many(c, run, name, shown));
		free(name);
	}
	json_decref(display);
	if (nruns == 0 && bare_run(c, &bare)) {
		char *name = run_name(NULL, json_string_value(bare.id),
		    bare.roots, taken);

		json_array_append_new(runs, one_of_many(c, &bare, name, NULL));
		free(name);
		bare_free(&bare);
	}
	/* a dump that gave no run is in the index too */
	for (i = 0; i < c->ndumps; i++) {
		struct dump *d = &c->dumps[i];
		char *name;

		if (json_array_size(d->runs) > 0)
			continue;
		name = run_name(NULL, d->path, NULL, taken);
		if (!d->failed) {
			pd_warn(d->path, 0, "no profiler output found");
			pd_diag_status(PD_EXIT_INPUT);
		}
		id = json_string(d->path);
		json_array_append_new(runs, index_entry(name, id, "failed",
		    d->failed ? "the diagnosis pipeline failed (its messages "
		    "are on stderr)" : d->rejected ? "no profiler output "
		    "found; some input was rejected (its messages are on "
		    "stderr)" : "no profiler output found", NULL));
		json_decref(id);
		free(name);
	}
	x = json_object();
	pd_set_str(x, "schema", "perfdiag.index");
	pd_set_int(x, "v", 1);
	tool = json_object();
	pd_set_str(tool, "name", "pd-report");
	pd_set_str(tool, "version", PD_VERSION);
	json_object_set_new(x, "tool", tool);
	pd_set(x, "generated_at", c->o.timestamp ? report_time() :
	    json_null());
	json_object_set_new(x, "runs", runs);
	if (write_index_doc(x) != 0)
		pd_diag_status(PD_EXIT_SYSTEM);
	report_runs_end();
	json_decref(x);
	json_decref(taken);
}

static int
on_end(void *arg)
{
	struct ctx *c = arg;
	size_t nruns = pd_runs_group(c->in.runs);
	struct part p[MAXPARTS];
	struct pd_run *run, bare;
	json_t *report;
	int n;

	if (json_object_size(c->in.counts) == 0 && c->ndumps == 0)
		return 0;	/* nothing to report */
	sort_counts(c);
	c->in.nruns = nruns;
	if (c->o.all && !c->o.run) {
		report_all(c, nruns);
		return 0;
	}
	if (nruns == 0 && bare_run(c, &bare)) {
		pd_note("no profiler output in the stream; reporting the "
		    "samples of pd-collect only");
		run = &bare;
	} else if (!(run = choose(c, nruns)))
		return 0;
	if (nruns > 1 && !c->o.run)
		pd_note("%zu runs in the stream; reporting %s (choose one with "
		    "-R, or report all with -A)", nruns, json_is_string(run->id) ?
		    pd_diag_quote(json_string_value(run->id),
		    json_string_length(run->id)) : "the run without an id");
	report = report_build(&c->in, run, &c->o);
	json_object_clear(run->views);	/* the report holds what it shows */
	if ((n = build_set(c, run, report, p)) < 0 ||
	    write_set(c->o.outdir, p, n) != 0)
		pd_diag_status(PD_EXIT_SYSTEM);
	else
		emit(report, report_out_dir());
	if (n >= 0)
		free_set(p, n);
	json_decref(report);
	if (run == &bare)
		bare_free(&bare);
	return 0;
}

int
main(int argc, char **argv)
{
	struct ctx c;
	struct pd_stream s;
	int ch;

	pd_diag_init(argv[0]);
	memset(&c, 0, sizeof c);
	memset(&s, 0, sizeof s);
	c.o.outdir = "perfdiag-report";
	c.o.topn = 10;
	c.cur = -1;
	while ((ch = pd_getopt(argc, argv, "Ahn:o:qR:r:S:t", NULL, usage)) != -1) {
		switch (ch) {
		case 'A': c.o.all = 1; break;
		case 'h': pd_usage_exit(usage, 0);
		case 'n':
			c.o.topn = (int)pd_opt_int('n', optarg, 1, INT_MAX, "length",
			    NULL);
			break;
		case 'o': c.o.outdir = optarg; break;
		case 'q': pd_diag_quiet(1); break;
		case 'R': c.o.run = optarg; break;
		case 'r': c.o.rules = optarg; break;
		case 'S': pd_share_set(optarg); break;
		case 't': c.o.timestamp = 1; break;
		default: pd_usage_exit(usage, 2);
		}
	}
	if (c.o.all && c.o.run) {
		pd_error(NULL, 0, "-A and -R: every run, or one");
		pd_usage_exit(usage, 2);
	}
	c.in.runs = pd_runs_new();
	pd_runs_pack(c.in.runs, 1);
	c.in.roots = json_array();
	c.in.comparisons = json_array();
	c.in.verdicts = json_array();
	c.in.findings = json_array();
	c.in.collects = json_array();
	c.in.samples = json_array();
	c.in.counts = json_object();
	c.run_counts = json_object();
	c.root_run = json_object();
	c.shared_counts = json_object();
	s.ctx = &c;
	c.s = &s;
	s.on_record = on_record;
	s.on_operand = on_operand;
	s.on_end = on_end;
	pd_stream_run(&s, argc - optind, argv + optind);
	pd_runs_free(c.in.runs);
	json_decref(c.in.roots);
	json_decref(c.in.comparisons);
	json_decref(c.in.verdicts);
	json_decref(c.in.findings);
	json_decref(c.in.collects);
	json_decref(c.in.samples);
	json_decref(c.in.counts);
	json_decref(c.run_counts);
	json_decref(c.root_run);
	json_decref(c.shared_counts);
	while (c.ndumps > 0)
		json_decref(c.dumps[--c.ndumps].runs);
	free(c.dumps);
	return pd_diag_finish();
}
