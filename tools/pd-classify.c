/* pd-classify: the ranked bottlenecks of each run.
 *
 * Reads: the record stream (stdin, files of records as operands, or dump
 *   directories, put through the evidence tools and pd-profile first):
 *   pd.profile (per run), pd.root and the summaries (joined by root).
 *   Rules: share/rules/default.yaml, then each -r FILE (same id overrides).
 * Writes: the input unchanged, then per run one pd.bottleneck per rule that
 *   applies to the run's stack and fires, ranked by impact (position 1..n,
 *   exactly one dominant; a rule that explains one ranked above it goes
 *   just ahead of it). When no rule fires, the fallback rules (the
 *   bound resource, or what evidence is missing) are tried; a run where
 *   even they do not fire gets one record with rule "none".
 * Aggregates: holds the summary records only (memory grows with ranks). */
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
	const struct pd_variant *var;	/* texts for the run's stack, or NULL */
	json_t *obj;		/* evaluation object of the worst root */
	json_t *root;		/* a record carrying root/rank, or NULL */
	double impact, margin;
	int estimated;		/* impact is the rule's impact_else number */
	double path;		/* its rule's path_share on obj, or NaN */
	int fired, checked;
	const char *explained_by;	/* id of a fired rule that explains it */
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

	if (pd_recfile_is_dump(path))
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

/* The impact of r on o; *est is set when it is not measured but the
 * rule's impact_else number (a floor that lets thin evidence rank). */
static double
impact(const struct pd_rule *r, json_t *o, int *est)
{
	double x = 1;
	size_t i;

	*est = 0;
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
		*est = !r->impact_else && !isnan(r->impact_else_value);
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

/* The finding's own values, for its texts (pd-rules(5) "finding."): its
 * impact, and the share taken off it by impact_minus where that was
 * applied and is above zero (a text names it only then). */
static void
set_finding(const struct pd_rule *r, struct hit *h)
{
	json_t *f;
	double m;

	if (!h->obj || !h->fired)
		return;
	f = json_object();
	pd_set_real(f, "impact", h->impact, 4);
	m = r->impact_minus ? pd_path_num(h->obj, r->impact_minus) : NAN;
	if (!isnan(m) && m > 0 && !isnan(h->impact))
		pd_set_real(f, "less", m, 4);
	json_object_set_new(h->obj, "finding", f);
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
			h->impact = impact(r, o, &h->estimated);
		}
		h->checked = ck;
		h->obj = o;
		set_finding(r, h);
		return;
	}
	json_object_foreach(u->views, root, v) {
		double imp;
		int est;

		o = eval_obj(v, u);
		if (!holds(r->when, r->nwhen, o, &ck)) {
			h->checked += ck;
			json_decref(o);
			continue;
		}
		h->checked++;
		h->fired++;
		imp = impact(r, o, &est);
		if (!h->obj || better(imp, h->impact)) {
			json_t *k, *x;
			const char *key;

			json_decref(h->obj);
			h->obj = o;
			h->impact = imp;
			h->estimated = est;
			/* the root and rank it is about: a record of the view
			 * with an integer rank (a cluster root's view is one
			 * rank's), else any record with a root */
			h->root = NULL;
			json_object_foreach(v, key, x)
				if (json_object_get(x, "root") && (!h->root ||
				    (json_is_integer(json_object_get(x, "rank")) &&
				    !json_is_integer(json_object_get(h->root,
				    "rank")))))
					h->root = x, (void)k;
		} else
			json_decref(o);
	}
	set_finding(r, h);
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

static int
explains(const struct pd_rule *cause, const struct pd_rule *effect)
{
	size_t i;

	for (i = 0; i < cause->nexplains; i++)
		if (!strcmp(cause->explains[i], effect->id))
			return 1;
	return 0;
}

/* After the sort by impact: a fired rule that explains a fired rule
 * ranked above it (the effect's time is the cause's, seen from another
 * side) moves just ahead of the highest such one, so the dominant
 * finding names the cause; every fired rule it explains says so. */
static void
causes_first(struct hit *h, size_t n)
{
	size_t i, j, k;

	for (i = 0; i < n; i++) {
		for (j = 0; j < n; j++)
			if (j != i && !h[j].explained_by &&
			    explains(h[i].rule, h[j].rule))
				h[j].explained_by = h[i].rule->id;
	}
	for (i = 1; i < n; i++) {
		for (j = 0; j < i && !explains(h[i].rule, h[j].rule); j++)
			;
		if (j < i) {
			struct hit t = h[i];

			for (k = i; k > j; k--)
				h[k] = h[k - 1];
			h[j] = t;
		}
	}
}

/* Whether h[b] may move just ahead of h[a] (a < b): no finding from a to
 * b explains h[b], and h[a] explains none up to b. */
static int
can_pass(const struct hit *h, size_t a, size_t b)
{
	size_t k;

	for (k = a; k < b; k++)
		if (explains(h[k].rule, h[b].rule))
			return 0;
	for (k = a + 1; k <= b; k++)
		if (explains(h[a].rule, h[k].rule))
			return 0;
	return 1;
}

/* After causes_first: among the findings after the dominant one, those
 * whose rule has a path_share with a value are ordered by it, most first
 * (how much of the step's critical path their bound type covers); ties
 * and the findings without one keep their places, and no finding moves
 * ahead of one that explains it. */
static void
path_order(struct hit *h, size_t n)
{
	size_t *at = pd_xrealloc(NULL, (n + 1) * sizeof *at), m = 0, k;
	int moved = 1;

	for (k = 1; k < n; k++)
		if (!isnan(h[k].path))
			at[m++] = k;
	while (moved) {
		moved = 0;
		for (k = 0; k + 1 < m; k++) {
			struct hit t;

			if (!(h[at[k + 1]].path > h[at[k]].path) ||
			    !can_pass(h, at[k], at[k + 1]))
				continue;
			t = h[at[k]];
			h[at[k]] = h[at[k + 1]];
			h[at[k + 1]] = t;
			moved = 1;
		}
	}
	free(at);
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

/* The texts of t[0..n) that hold on o, rendered (empty ones left out). */
static json_t *
textlist(const struct pd_text *t, size_t n, json_t *o)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < n; i++) {
		char *s;

		if (!pd_rules_text_holds(&t[i], o))
			continue;
		s = pd_rules_render(t[i].text, o);
		if (*s)
			json_array_append_new(a, pd_str(s));
		free(s);
	}
	return a;
}

/* How good the run's evidence is, the same for every finding of the run
 * (pd-classify(1) gives the formula). */
struct evq {
	json_int_t steps, ranks, world;
	double cv, summaries, q;
	int markers;
};

static int
has_markers(struct pd_run *u)
{
	const char *root;
	json_t *v, *st, *e;
	size_t i;

	json_object_foreach(u->views, root, v) {
		int marked = 0;

		st = pd_runs_array(json_object_get(v, "step"), "steps");
		json_array_foreach(st, i, e)
			marked |= json_is_integer(json_object_get(e, "step"));
		json_decref(st);
		if (marked)
			return 1;
	}
	return 0;
}

static void
evidence_quality(struct pd_run *u, struct evq *e)
{
	json_t *p = u->profile;
	double sn, scv, sr;

	memset(e, 0, sizeof *e);
	/* steps in time: the most of one rank (16 ranks of one step each
	 * are one step of the job, seen 16 times), else all of them */
	e->steps = p ? (json_int_t)pd_path_num(p, "step.per_rank") : 0;
	if (!(e->steps > 0) && p)
		e->steps = (json_int_t)pd_path_num(p, "step.n");
	if (!(e->steps > 0))
		e->steps = 0;
	e->cv = p ? pd_path_num(p, "step.cv") : NAN;
	e->ranks = p && json_is_integer(json_object_get(p, "ranks")) ?
	    json_integer_value(json_object_get(p, "ranks")) : 0;
	e->world = p && json_is_integer(json_object_get(p, "world_size")) ?
	    json_integer_value(json_object_get(p, "world_size")) : 0;
	e->summaries = 0.5 + 0.5 * (p ? pd_rec_num(p, "confidence", 0) : 0);
	e->markers = has_markers(u);
	sn = e->steps > 0 ? (double)e->steps / (double)(e->steps + 1) : 0.25;
	scv = isnan(e->cv) || e->steps < 2 ? 1 : 1 / (1 + e->cv);
	sr = e->world > 0 && e->ranks > 0 ? 0.9 + 0.1 * fmin(1,
	    (double)e->ranks / (double)e->world) : 1;
	e->q = sn * scv * sr * (e->markers || !e->steps ? 1 : 0.6) *
	    e->summaries;
}

/* The profile's own evidence weight, back from e->summaries. */
static double
p_conf(const struct evq *e)
{
	return (e->summaries - 0.5) * 2;
}

static double
confidence(const struct hit *h, const struct evq *e, json_t **factors,
    char **basis)
{
	double margin = 1, agree, d, conf;
	size_t i, len;
	FILE *m;

	for (i = 0; i < h->rule->nwhen; i++)
		if (h->rule->when[i].op <= PD_OP_LE) {
			margin = pd_rules_margin(&h->rule->when[i], h->obj);
			break;
		}
	agree = h->checked ? (double)h->fired / h->checked : 1;
	d = 0.7 + 0.15 * margin + 0.15 * agree;
	conf = fmin(h->rule->confidence_max, e->q * d);
	*factors = json_object();
	pd_set_int(*factors, "steps", e->steps);
	pd_set_real(*factors, "cv", e->cv, 4);
	pd_set_int(*factors, "ranks", e->ranks);
	if (e->world > 0)
		pd_set_int(*factors, "world_size", e->world);
	else
		pd_set_null(*factors, "world_size");
	pd_set_bool(*factors, "step_markers", e->markers);
	pd_set_real(*factors, "summaries", e->summaries, 4);
	pd_set_real(*factors, "evidence", e->q, 4);
	pd_set_real(*factors, "margin", margin, 4);
	pd_set_real(*factors, "agreement", agree, 4);
	m = open_memstream(basis, &len);
	if (!m)
		pd_oom();
	if (e->steps == 0)
		fputs("no step", m);
	else
		fprintf(m, "%lld step%s%s", (long long)e->steps,
		    e->steps == 1 ? "" : "s", e->ranks > 1 ? " per rank" : "");
	if (e->steps > 1 && !isnan(e->cv))
		fprintf(m, ", step time cv %.2f", e->cv);
	if (!e->markers && e->steps)
		fputs(", no step markers in the trace", m);
	if (e->world > 1)
		fprintf(m, ", %lld of %lld rank%s", (long long)e->ranks,
		    (long long)e->world, e->world == 1 ? "" : "s");
	else if (e->ranks > 1)
		fprintf(m, ", %lld ranks", (long long)e->ranks);
	fprintf(m, ", evidence summaries %.0f %%", p_conf(e) * 100);
	if (h->checked > 1)
		fprintf(m, ", fired on %d of %d roots", h->fired, h->checked);
	if (conf < e->q * d)
		fprintf(m, ", at most %.0f %% for this finding",
		    h->rule->confidence_max * 100);
	fclose(m);
	return conf;
}

static const char *
level(double conf)
{
	return conf >= 0.7 ? "high" : conf >= 0.4 ? "medium" : "low";
}

/* The evidence text; the dominant finding's ends with the rules'
 * dominant_evidence (dtmpl), rendered on the same records. */
static char *
evidence(const struct hit *h, const char *dtmpl)
{
	const struct pd_variant *x = h->var;
	char *ev = pd_rules_render(x && x->evidence ? x->evidence :
	    h->rule->evidence, h->obj), *more, *all;

	if (!dtmpl)
		return ev;
	more = pd_rules_render(dtmpl, h->obj);
	if (!*more) {
		free(more);
		return ev;
	}
	all = pd_xrealloc(NULL, strlen(ev) + strlen(more) + 1);
	strcpy(all, ev);
	strcat(all, more);
	free(ev);
	free(more);
	return all;
}

static void
emit(const struct hit *h, struct pd_run *u, const struct evq *e, int pos,
    const char *dtmpl)
{
	const struct pd_rule *r = h->rule;
	const struct pd_variant *x = h->var;
	json_t *b = pd_rec_new("pd.bottleneck", 1, NULL), *fix, *factors;
	char *ev = evidence(h, pos == 1 ? dtmpl : NULL), *basis;
	double conf = confidence(h, e, &factors, &basis);
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
	pd_set_text(b, "title", x && x->title ? x->title : r->title, h->obj);
	pd_set_str(b, "domain", r->domain);
	pd_set_int(b, "position", pos);
	pd_set_bool(b, "dominant", pos == 1);
	pd_set_str(b, "severity", severity(h));
	pd_set_real(b, "impact", h->impact, 4);
	pd_set_bool(b, "impact_estimated", h->estimated);
	pd_set_real(b, "confidence", conf, 4);
	pd_set_str(b, "confidence_level", level(conf));
	pd_set_str(b, "confidence_basis", basis);
	pd_set(b, "confidence_factors", factors);
	pd_set_str(b, "evidence", ev);
	pd_set(b, "values", pd_rules_values(r, h->obj));
	pd_set_int(b, "fired_roots", h->fired);
	pd_set_int(b, "checked_roots", h->checked);
	pd_set_str(b, "source", r->source);
	pd_set_str(b, "variant", x ? (x->name ? x->name : x->stacks[0]) :
	    NULL);
	pd_set_bool(b, "fallback", r->fallback);
	pd_set(b, "validation", x && x->nvalidation ?
	    textlist(x->validation, x->nvalidation, h->obj) :
	    textlist(r->validation, r->nvalidation, h->obj));
	pd_set(b, "hints", x && x->nhints ? textlist(x->hints, x->nhints,
	    h->obj) : textlist(r->hints, r->nhints, h->obj));
	fix = json_object();
	if (x && x->fix_proposal) {
		pd_set_text(fix, "proposal", x->fix_proposal, h->obj);
		pd_set_text(fix, "effect", x->fix_effect ? x->fix_effect :
		    r->fix_effect, h->obj);
		pd_set_text(fix, "change", x->fix_change, h->obj);
	} else {
		pd_set_text(fix, "proposal", r->fix_proposal, h->obj);
		pd_set_text(fix, "effect", r->fix_effect, h->obj);
		pd_set_text(fix, "change", r->fix_change, h->obj);
	}
	pd_set(b, "fix", fix);
	pd_set_str(b, "handoff", off ? "operator" : NULL);
	pd_set_str(b, "operator", off && json_is_string(subj) ?
	    json_string_value(subj) : NULL);
	pd_set_str(b, "explained_by", h->explained_by);
	pd_set_real(b, "path_share", h->path, 4);
	free(ev);
	free(basis);
	pd_rec_emit(b);
}

/* Only when even the fallback rules do not fire (they were disabled or
 * replaced): nothing is known, and the record says so. */
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
	pd_set_bool(b, "impact_estimated", 0);
	pd_set_real(b, "confidence", 0, 4);
	pd_set_str(b, "confidence_level", "low");
	pd_set_str(b, "confidence_basis", "no rule fired, not even a "
	    "fallback rule: no verdict");
	pd_set_null(b, "confidence_factors");
	pd_set_str(b, "evidence", "no rule fired on the evidence present");
	pd_set(b, "values", json_object());
	pd_set_int(b, "fired_roots", 0);
	pd_set_int(b, "checked_roots", 0);
	pd_set_str(b, "source", "perfdiag");
	pd_set_null(b, "variant");
	pd_set_bool(b, "fallback", 1);
	pd_set(b, "validation", next ? json_incref(next) : json_array());
	pd_set(b, "hints", json_array());
	fix = json_object();
	pd_set_str(fix, "proposal", "collect more evidence (see validation)");
	pd_set_null(fix, "effect");
	pd_set_null(fix, "change");
	pd_set(b, "fix", fix);
	pd_set_null(b, "handoff");
	pd_set_null(b, "operator");
	pd_set_null(b, "explained_by");
	pd_set_null(b, "path_share");
	pd_rec_emit(b);
}

/* Evaluate the enabled rules of one kind (fallback or not) that apply to
 * the run's stack; the ones that fire are put in h. */
static size_t
eval_kind(struct ctx *c, struct pd_run *u, json_t *stack, int fallback,
    struct hit *h)
{
	size_t i, n = 0;

	for (i = 0; i < c->rules.n; i++) {
		const struct pd_rule *r = &c->rules.v[i];

		if (!r->enabled || r->fallback != fallback ||
		    !pd_rules_stack_match(r->stacks, r->nstacks, stack))
			continue;
		eval_rule(r, u, &h[n]);
		if (h[n].fired) {
			h[n].var = pd_rules_variant(r, stack, h[n].obj);
			h[n].path = r->path_share && holds(c->rules.path_when,
			    c->rules.npath_when, h[n].obj, NULL) ?
			    pd_path_num(h[n].obj, r->path_share) : NAN;
			n++;
		} else
			json_decref(h[n].obj);
	}
	return n;
}

static void
classify(struct ctx *c, struct pd_run *u)
{
	struct hit *h = calloc(c->rules.n + 1, sizeof *h);
	json_t *stack = u->profile ? json_object_get(u->profile, "stack") :
	    NULL;
	struct evq e;
	size_t i, n;

	if (!h)
		pd_oom();
	evidence_quality(u, &e);
	n = eval_kind(c, u, stack, 0, h);
	if (n)
		c->fired = 1;
	else
		n = eval_kind(c, u, stack, 1, h);
	qsort(h, n, sizeof *h, cmp_hit);
	causes_first(h, n);
	path_order(h, n);
	for (i = 0; i < n; i++) {
		emit(&h[i], u, &e, (int)i + 1, holds(c->rules.path_when,
		    c->rules.npath_when, h[i].obj, NULL) ?
		    c->rules.dominant_evidence : NULL);
		json_decref(h[i].obj);
	}
	if (n == 0)
		emit_none(u);
	free(h);
}

/* Whether a rules file names a per-step array ("step.steps",
 * "input.steps"): then the runs hold them as JSON, where the rules' paths
 * read them, not packed (pd_runs_pack). */
static int
names_steps(const char *path)
{
	char b[16384 + 16];
	size_t keep = 0, n;
	int fd = open(path, O_RDONLY | O_CLOEXEC), hit = 0;
	ssize_t r;

	if (fd < 0)
		return 0;
	/* a piece at a time, the last 10 bytes kept ahead of the next (the
	 * file's lines hold no NUL: the YAML reader refuses one) */
	while (!hit && (r = read(fd, b + keep, sizeof b - 16 - keep)) > 0) {
		const char *e, *d;

		n = keep + (size_t)r;
		e = b + n;
		/* "step.steps" or "input.steps": each dot, not two memmems */
		for (d = b; !hit && (d = memchr(d, '.', (size_t)(e - d))); d++)
			hit = e - d >= 6 && !memcmp(d, ".steps", 6) &&
			    ((d - b >= 4 && !memcmp(d - 4, "step", 4)) ||
			    (d - b >= 5 && !memcmp(d - 5, "input", 5)));
		keep = n < 10 ? n : 10;
		memmove(b, e - keep, keep);
	}
	close(fd);
	return hit;
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
	int ch, nextra = 0, defaults = 1, found = 0, i, steps = 0;

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
		steps |= names_steps(path);
	}
	for (i = 0; i < nextra; i++) {
		pd_diag_status(pd_rules_load(&c.rules, extra[i]));
		steps |= names_steps(extra[i]);
	}
	if (pd_diag_get_status() != PD_EXIT_CONFIG)
		pd_diag_status(pd_rules_check(&c.rules));
	if (pd_diag_get_status() == PD_EXIT_CONFIG) {
		pd_rules_free(&c.rules);
		return pd_diag_finish();
	}
	c.runs = pd_runs_new();
	pd_runs_pack(c.runs, !steps);
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
