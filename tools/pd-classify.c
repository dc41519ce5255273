/* pd-classify: the ranked bottlenecks of each run.
 *
 * Reads: the record stream (stdin, files of records as operands, or dump
 *   directories, put through the evidence tools and pd-profile first):
 *   pd.profile (per run), pd.root and the summaries (joined by root).
 *   Rules: share/rules/default.yaml, then each -r FILE (same id overrides).
 * Writes: the input unchanged, then per run one pd.bottleneck per rule that
 *   fires, ranked by impact (position 1..n, exactly one dominant); a run
 *   where nothing fires gets one record with rule "none".
 * Aggregates: holds the summary records only (memory grows with ranks). */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pd_diag.h"
#include "pd_tool.h"
#include "pd_path.h"
#include "pd_rec.h"
#include "pd_recfile.h"
#include "pd_rules.h"
#include "pd_runs.h"
#include "pd_share.h"

static const char usage[] =
    "usage: pd-classify [-eq] [-r rules.yaml]... [-S sharedir] [FILE|DIR|-]...\n"
    "  reads pd.profile and summary records (stdin, files of records, or\n"
    "  dump dirs put through the evidence tools and pd-profile)\n"
    "  and appends the ranked pd.bottleneck records of each run\n"
    "  -e           exit 1 when a bottleneck fires\n"
    "  -r FILE      more rules (a rule with the same id replaces the default)\n"
    "  -R           do not load the default rules\n"
    "  -q           no warnings\n"
    "  -S sharedir  where share/rules/default.yaml is\n"
    "  -h, --help   this help\n"
    "  --version    the version\n";

struct ctx {
	struct pd_runs *runs;
	struct pd_rules rules;
	int fired;
};

struct hit {
	const struct pd_rule *rule;
	json_t *obj;		/* evaluation object of the worst root */
	json_t *root;		/* a record carrying root/rank, or NULL */
	double impact, margin;
	int fired, checked;
};

static int
on_record(json_t *rec, void *ctx)
{
	pd_runs_add(((struct ctx *)ctx)->runs, rec);
	return 0;
}

static int
on_operand(const char *path, void *ctx)
{
	struct pd_stream s = { ctx, on_record, 0, 0, 0, 0, 0, 0 };

	if (pd_recfile_isdir(path))
		pd_diag_status(pd_recfile_dir(&s, path, "pd-profile", 0));
	else
		pd_diag_status(pd_recfile_read(&s, path));
	return 0;
}

/* What a rule sees: the root's records plus the run's profile/context. */
static json_t *
eval_obj(json_t *view, struct pd_run *u)
{
	json_t *o = json_object();

	if (view)
		json_object_update(o, view);
	if (u->profile)
		json_object_set(o, "profile", u->profile);
	if (u->context)
		json_object_set(o, "context", u->context);
	return o;
}

static int
holds(const struct pd_cond *c, size_t n, json_t *o, int *checked)
{
	size_t i;
	int ok = 1, ck, all = 1;

	for (i = 0; i < n; i++) {
		if (!pd_rules_test(&c[i], o, &ck))
			ok = 0;
		all &= ck;
	}
	if (checked)
		*checked = all;
	return ok;
}

static double
impact(const struct pd_rule *r, json_t *o)
{
	double x = 1;
	size_t i;

	if (r->nimpact == 0)
		return r->impact_value;
	for (i = 0; i < r->nimpact; i++)
		x *= pd_path_num(o, r->impact[i]);
	if (r->impact_over) {
		double d = pd_path_num(o, r->impact_over);

		x = d > 0 ? x / d : NAN;
	}
	if (r->impact_minus && !isnan(pd_path_num(o, r->impact_minus)))
		x -= pd_path_num(o, r->impact_minus);
	if (isnan(x)) {
		x = r->impact_else ? pd_path_num(o, r->impact_else) :
		    r->impact_else_value;
		return isnan(x) ? NAN : fmax(0, fmin(1, x));
	}
	return fmax(0, fmin(1, x * r->impact_scale));
}

static int
better(double a, double b)
{
	if (isnan(b))
		return !isnan(a);
	return !isnan(a) && a > b;
}

/* Evaluate one rule over a run; fills h (h->obj owned). */
static void
eval_rule(const struct pd_rule *r, struct pd_run *u, struct hit *h)
{
	const char *root;
	json_t *v, *o;
	int ck;

	memset(h, 0, sizeof *h);
	h->rule = r;
	h->impact = NAN;
	if (!strcmp(r->scope, "run")) {
		o = eval_obj(NULL, u);
		if (holds(r->when, r->nwhen, o, &ck)) {
			h->fired = 1;
			h->impact = impact(r, o);
		}
		h->checked = ck;
		h->obj = o;
		return;
	}
	json_object_foreach(u->views, root, v) {
		o = eval_obj(v, u);
		if (!holds(r->when, r->nwhen, o, &ck)) {
			h->checked += ck;
			json_decref(o);
			continue;
		}
		h->checked++;
		h->fired++;
		if (!h->obj || better(impact(r, o), h->impact)) {
			json_t *k, *x;
			const char *key;

			json_decref(h->obj);
			h->obj = o;
			h->impact = impact(r, o);
			h->root = NULL;
			json_object_foreach(v, key, x)
				if (!h->root && json_object_get(x, "root"))
					h->root = x, (void)k;
		} else
			json_decref(o);
	}
}

static int
sev_rank(const char *s)
{
	return !strcmp(s, "high") ? 0 : !strcmp(s, "medium") ? 1 : 2;
}

static const char *
severity(const struct hit *h)
{
	if (strcmp(h->rule->severity, "auto"))
		return h->rule->severity;
	/* msprof-analyze advisor priority: issue time / step >= 5 % high,
	 * >= 3 % medium */
	return h->impact >= 0.05 ? "high" : h->impact >= 0.03 ? "medium" :
	    "low";
}

static int
cmp_hit(const void *a, const void *b)
{
	const struct hit *x = a, *y = b;
	int s;

	if (better(x->impact, y->impact))
		return -1;
	if (better(y->impact, x->impact))
		return 1;
	if ((s = sev_rank(severity(x)) - sev_rank(severity(y))))
		return s;
	return strcmp(x->rule->id, y->rule->id);
}

/* Set key to text t with its {field} placeholders rendered from o (null
 * when t is NULL): no text of a finding reaches the reader unrendered. */
static void
pd_set_text(json_t *rec, const char *key, const char *t, json_t *o)
{
	char *s = t ? pd_rules_render(t, o) : NULL;

	pd_set_str(rec, key, s);
	free(s);
}

static json_t *
strlist(char **v, size_t n, json_t *o)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < n; i++) {
		char *s = pd_rules_render(v[i], o);

		json_array_append_new(a, json_string(s));
		free(s);
	}
	return a;
}

static double
confidence(const struct hit *h, struct pd_run *u)
{
	double ev = u->profile ? pd_rec_num(u->profile, "confidence", 0.5) : 0.5;
	double margin = 1;
	size_t i;

	for (i = 0; i < h->rule->nwhen; i++)
		if (h->rule->when[i].op <= PD_OP_LE) {
			margin = pd_rules_margin(&h->rule->when[i], h->obj);
			break;
		}
	return 0.4 * ev + 0.3 * margin +
	    0.3 * (h->checked ? (double)h->fired / h->checked : 1);
}

static void
emit(const struct hit *h, struct pd_run *u, int pos)
{
	const struct pd_rule *r = h->rule;
	json_t *b = pd_rec_new("pd.bottleneck", 1, NULL), *fix;
	char *ev = pd_rules_render(r->evidence, h->obj);
	double conf = confidence(h, u);
	int off = r->handoff && holds(r->handoff_if, r->nhandoff_if, h->obj,
	    NULL);
	json_t *subj = r->subject ? pd_path_get(h->obj, r->subject) : NULL;

	pd_set(b, "root", json_incref(h->root ? json_object_get(h->root,
	    "root") : json_null()));
	pd_set(b, "rank", json_incref(h->root ? json_object_get(h->root,
	    "rank") : json_null()));
	if (!json_object_get(b, "rank"))
		pd_set_null(b, "rank");
	pd_set(b, "run", json_incref(u->id));
	pd_set_str(b, "rule", r->id);
	pd_set_text(b, "title", r->title, h->obj);
	pd_set_str(b, "domain", r->domain);
	pd_set_int(b, "position", pos);
	pd_set_bool(b, "dominant", pos == 1);
	pd_set_str(b, "severity", severity(h));
	pd_set_real(b, "impact", h->impact, 4);
	pd_set_real(b, "confidence", conf, 4);
	pd_set_str(b, "confidence_level", conf >= 0.7 ? "high" :
	    conf >= 0.4 ? "medium" : "low");
	pd_set_str(b, "evidence", ev);
	pd_set(b, "values", pd_rules_values(r, h->obj));
	pd_set_int(b, "fired_roots", h->fired);
	pd_set_int(b, "checked_roots", h->checked);
	pd_set_str(b, "source", r->source);
	pd_set(b, "validation", strlist(r->validation, r->nvalidation,
	    h->obj));
	pd_set(b, "hints", strlist(r->hints, r->nhints, h->obj));
	fix = json_object();
	pd_set_text(fix, "proposal", r->fix_proposal, h->obj);
	pd_set_text(fix, "effect", r->fix_effect, h->obj);
	pd_set_text(fix, "change", r->fix_change, h->obj);
	pd_set(b, "fix", fix);
	pd_set_str(b, "handoff", off ? "operator" : NULL);
	pd_set_str(b, "operator", off && json_is_string(subj) ?
	    json_string_value(subj) : NULL);
	free(ev);
	pd_rec_emit(b);
}

static void
emit_none(struct pd_run *u)
{
	json_t *b = pd_rec_new("pd.bottleneck", 1, NULL), *fix;
	json_t *next = u->profile ? json_object_get(u->profile, "next_actions") :
	    NULL;

	pd_set_null(b, "root");
	pd_set_null(b, "rank");
	pd_set(b, "run", json_incref(u->id));
	pd_set_str(b, "rule", "none");
	pd_set_str(b, "title", "no rule fired");
	pd_set_null(b, "domain");
	pd_set_int(b, "position", 1);
	pd_set_bool(b, "dominant", 1);
	pd_set_str(b, "severity", "low");
	pd_set_null(b, "impact");
	pd_set_real(b, "confidence", 0, 4);
	pd_set_str(b, "confidence_level", "low");
	pd_set_str(b, "evidence", "no rule fired on the evidence present");
	pd_set(b, "values", json_object());
	pd_set_int(b, "fired_roots", 0);
	pd_set_int(b, "checked_roots", 0);
	pd_set_str(b, "source", "perfdiag");
	pd_set(b, "validation", next ? json_incref(next) : json_array());
	pd_set(b, "hints", json_array());
	fix = json_object();
	pd_set_str(fix, "proposal", "collect more evidence (see validation)");
	pd_set_null(fix, "effect");
	pd_set_null(fix, "change");
	pd_set(b, "fix", fix);
	pd_set_null(b, "handoff");
	pd_set_null(b, "operator");
	pd_rec_emit(b);
}

static void
classify(struct ctx *c, struct pd_run *u)
{
	struct hit *h = calloc(c->rules.n + 1, sizeof *h);
	size_t i, n = 0;

	if (!h)
		abort();
	for (i = 0; i < c->rules.n; i++) {
		if (!c->rules.v[i].enabled)
			continue;
		eval_rule(&c->rules.v[i], u, &h[n]);
		if (h[n].fired)
			n++;
		else
			json_decref(h[n].obj);
	}
	qsort(h, n, sizeof *h, cmp_hit);
	for (i = 0; i < n; i++) {
		emit(&h[i], u, (int)i + 1);
		json_decref(h[i].obj);
	}
	if (n == 0)
		emit_none(u);
	else
		c->fired = 1;
	free(h);
}

static int
on_end(void *ctx)
{
	struct ctx *c = ctx;
	size_t i, n = pd_runs_group(c->runs);

	for (i = 0; i < n; i++) {
		struct pd_run *u = pd_runs_get(c->runs, i);

		if (json_array_size(u->roots) || u->profile)
			classify(c, u);
	}
	return 0;
}

int
main(int argc, char **argv)
{
	struct ctx c;
	struct pd_stream s;
	const char *extra[64];
	char path[4096];
	int ch, nextra = 0, defaults = 1, found = 0, i;

	pd_diag_init(argv[0]);
	memset(&c, 0, sizeof c);
	while ((ch = pd_getopt(argc, argv, "ehqRr:S:", NULL, usage)) != -1) {
		switch (ch) {
		case 'e': found = 1; break;
		case 'h': pd_usage_exit(usage, 0);
		case 'q': pd_diag_quiet(1); break;
		case 'R': defaults = 0; break;
		case 'r':
			if (nextra == 64)
				pd_usage_exit(usage, 2);
			extra[nextra++] = optarg;
			break;
		case 'S': pd_share_set(optarg); break;
		default: pd_usage_exit(usage, 2);
		}
	}
	if (defaults) {
		if (!pd_share_path("rules/default.yaml", path, sizeof path)) {
			pd_error(NULL, 0, "rules/default.yaml not found in any "
			    "share directory (set PD_SHAREDIR or -S)");
			pd_diag_status(PD_EXIT_CONFIG);
			return pd_diag_finish();
		}
		pd_diag_status(pd_rules_load(&c.rules, path));
	}
	for (i = 0; i < nextra; i++)
		pd_diag_status(pd_rules_load(&c.rules, extra[i]));
	if (pd_diag_get_status() == PD_EXIT_CONFIG) {
		pd_rules_free(&c.rules);
		return pd_diag_finish();
	}
	c.runs = pd_runs_new();
	memset(&s, 0, sizeof s);
	s.ctx = &c;
	s.on_record = on_record;
	s.on_operand = on_operand;
	s.on_end = on_end;
	pd_stream_run(&s, argc - optind, argv + optind);
	pd_runs_free(c.runs);
	pd_rules_free(&c.rules);
	if (found && c.fired)
		pd_diag_status(PD_EXIT_FOUND);
	return pd_diag_finish();
}
