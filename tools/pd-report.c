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
 * Aggregates: keeps the summary records (memory grows with ranks) and
 *   writes everything at the end. The parts are in tools/pd-report/. */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pd_diag.h"
#include "pd_tool.h"
#include "pd_rec.h"
#include "pd_recfile.h"
#include "pd_runs.h"
#include "pd_share.h"
#include "pd-report/report.h"

static const char usage[] =
    "usage: pd-report [-qt] [-o dir] [-R run] [-r rules] [-n N] [-S sharedir] [FILE|-]...\n"
    "  reads the record stream (stdin, or files of records), passes it on,\n"
    "  and writes the report of one run below dir, then a pd.report record\n"
    "  -o dir       output directory (default perfdiag-report)\n"
    "  -R run       the run to report (default: the first diagnosed run)\n"
    "  -r rules     rules file whose hash goes in the lock file\n"
    "  -n N         hotspots listed (default 10)\n"
    "  -t           write the generation time (the files then differ per run)\n"
    "  -q           no warnings\n"
    "  -S sharedir  where the share/ files are\n"
    "  -h, --help   this help\n"
    "  --version    the version\n";

struct ctx {
	struct report_in in;
	struct report_opts o;
	struct pd_stream *s;
};

static int
on_record(json_t *rec, void *arg)
{
	struct ctx *c = arg;
	const char *type = pd_rec_str(rec, "type");
	json_t *n;

	if (!type || strncmp(type, "pd.", 3) != 0 ||
	    strcmp(type, "pd.report") == 0)
		return 0;
	n = json_object_get(c->in.counts, type);
	json_object_set_new(c->in.counts, type,
	    json_integer(n ? json_integer_value(n) + 1 : 1));
	pd_runs_add(c->in.runs, rec);
	if (strcmp(type, "pd.root") == 0)
		json_array_append(c->in.roots, rec);
	else if (strcmp(type, "pd.comparison") == 0)
		json_array_append(c->in.comparisons, rec);
	else if (strcmp(type, "pd.verdict") == 0)
		json_array_append(c->in.verdicts, rec);
	else if (strcmp(type, "pd.finding") == 0)
		json_array_append(c->in.findings, rec);
	return 0;
}

static int
on_operand(const char *path, void *arg)
{
	struct ctx *c = arg;
	int rc = pd_recfile_read(c->s, path);

	if (rc)
		pd_diag_status(rc);
	return rc;
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
write_doc(const char *name, json_t *doc)
{
	char *s = report_dump(doc);
	int rc;

	if (!s) {
		pd_error(report_out_dir(), 0, "%s: cannot encode", name);
		return -1;
	}
	rc = report_write(name, s, strlen(s));
	free(s);
	return rc;
}

static int
write_page(const char *name, json_t *report,
    void (*draw)(json_t *, FILE *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc;

	if (!f) {
		pd_error(NULL, 0, "out of memory");
		return -1;
	}
	draw(report, f);
	if (fclose(f) != 0) {
		free(buf);
		pd_error(NULL, 0, "out of memory");
		return -1;
	}
	rc = report_write(name, buf, len);
	free(buf);
	return rc;
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

/* The counts object with its keys sorted (so the output does not depend
 * on the order record types first appeared). */
static void
sort_counts(struct ctx *c)
{
	size_t i = 0, n = json_object_size(c->in.counts);
	const char **keys = malloc(sizeof *keys * (n ? n : 1));
	json_t *o = json_object(), *v;
	const char *k;

	json_object_foreach(c->in.counts, k, v)
		keys[i++] = k;
	qsort(keys, n, sizeof *keys, key_cmp);
	for (i = 0; i < n; i++)
		json_object_set(o, keys[i], json_object_get(c->in.counts,
		    keys[i]));
	free(keys);
	json_decref(c->in.counts);
	c->in.counts = o;
}

static int
on_end(void *arg)
{
	struct ctx *c = arg;
	const char *dir = c->o.outdir;
	size_t nruns = pd_runs_group(c->in.runs);
	struct pd_run *run;
	json_t *report, *doc;
	int compared = json_array_size(c->in.comparisons) > 0, bad = 0;

	if (json_object_size(c->in.counts) == 0)
		return 0;	/* nothing to report */
	sort_counts(c);
	if (!(run = choose(c, nruns)))
		return 0;
	if (nruns > 1 && !c->o.run)
		pd_note("%zu runs in the stream; reporting %s (choose one with "
		    "-R)", nruns, json_is_string(run->id) ?
		    pd_diag_quote(json_string_value(run->id),
		    json_string_length(run->id)) : "the run without an id");
	report = report_build(&c->in, run, &c->o);
	if (report_out_begin(dir) != 0) {
		pd_diag_status(PD_EXIT_SYSTEM);
		json_decref(report);
		return 0;
	}
	doc = report_lock(&c->in, &c->o);
	bad |= write_doc("artifacts/perf.lock.json", doc);
	json_decref(doc);
	doc = report_meta_profile(run);
	bad |= write_doc("meta/performance-profile.json", doc);
	json_decref(doc);
	doc = report_meta_bottlenecks(run);
	bad |= write_doc("meta/bottlenecks.json", doc);
	json_decref(doc);
	doc = report_meta_verdict(report);
	bad |= write_doc("meta/performance-verdict.json", doc);
	json_decref(doc);
	if (compared)
		bad |= write_doc("meta/validation-comparison.json",
		    json_array_get(c->in.comparisons, 0));
	bad |= write_page("report.md", report, report_md);
	bad |= write_page("report.html", report, report_html);
	bad |= write_doc("report.json", report);
	if (bad)
		report_out_abort();
	if (bad || report_out_commit() != 0)
		pd_diag_status(PD_EXIT_SYSTEM);
	else
		emit(report, report_out_dir());
	json_decref(report);
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
	while ((ch = pd_getopt(argc, argv, "hn:o:qR:r:S:t", NULL, usage)) != -1) {
		switch (ch) {
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
	c.in.runs = pd_runs_new();
	c.in.roots = json_array();
	c.in.comparisons = json_array();
	c.in.verdicts = json_array();
	c.in.findings = json_array();
	c.in.counts = json_object();
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
	json_decref(c.in.counts);
	return pd_diag_finish();
}
