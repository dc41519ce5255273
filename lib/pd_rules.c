#include "pd_rules.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "pd_diag.h"
#include "pd_path.h"
#include "pd_rcache.h"
#include "pd_yamlio.h"

static const char *domains[] = {
	"compute", "input_pipeline", "communication", "memory", "evidence",
	"graph_compile", "host_overhead", "operator_hotspot", NULL
};
static const char *prefixes[] = {
	"step", "comm", "mem", "input", "gaps", "hotspot", "root", "profile",
	"context", "finding", NULL
};
/* The stacks a rule may name (pd-rules(5)). */
static const char *stack_names[] = {
	"any", "cpu", "gpu", "npu", "torch", "torch_npu", "mindspore", "cann",
	"pytorch-cuda", "pytorch-cpu", "cuda", NULL
};
static const char *ops[] = { ">", ">=", "<", "<=", "==", "!=", "exists",
	"absent", NULL };

struct ld {
	const char *file;
	yaml_document_t *doc;
	int errors;
	int path_when;		/* the file gives path_when */
};

/* The compiled forms whose strings the rules use in place (mapped for
 * the life of the process): a string in one is not freed. */
static struct span {
	const char *lo, *hi;
} *borrowed;
static size_t nborrowed;

static void
sfree(void *p)
{
	size_t i;

	for (i = 0; p && i < nborrowed; i++)
		if ((const char *)p >= borrowed[i].lo &&
		    (const char *)p < borrowed[i].hi)
			return;
	free(p);
}

static void
bad(struct ld *l, yaml_node_t *n, const char *fmt, const char *arg)
{
	char msg[256];

	snprintf(msg, sizeof msg, fmt, arg ? arg : "");
	pd_error(NULL, 0, "%s:%lu:%lu: %s", l->file,
	    n ? (unsigned long)n->start_mark.line + 1 : 1UL,
	    n ? (unsigned long)n->start_mark.column + 1 : 1UL, msg);
	l->errors++;
}

static int
in(const char *s, const char **list)
{
	int i;

	for (i = 0; list[i]; i++)
		if (strcmp(s, list[i]) == 0)
			return i;
	return -1;
}

static const char *
scalar(yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ?
	    (const char *)n->data.scalar.value : NULL;
}

static yaml_node_t *
node(struct ld *l, int i)
{
	return yaml_document_get_node(l->doc, i);
}

static char *
want_str(struct ld *l, yaml_node_t *n, const char *key)
{
	const char *s = scalar(n);

	if (!s) {
		bad(l, n, "'%s' must be a string", key);
		return NULL;
	}
	return pd_xstrdup(s);
}

static int
check_field(struct ld *l, yaml_node_t *n, const char *f)
{
	const char *why;
	char head[32];
	size_t k = strcspn(f, ".[");

	if (!pd_path_check(f, &why)) {
		char m[200];

		snprintf(m, sizeof m, "bad field path '%s': %s", f, why);
		bad(l, n, "%s", m);
		return 0;
	}
	snprintf(head, sizeof head, "%.*s", (int)(k < 31 ? k : 31), f);
	if (in(head, prefixes) < 0) {
		bad(l, n, "field '%s' does not start with a record name "
		    "(step, comm, mem, input, gaps, hotspot, root, profile, "
		    "context)", f);
		return 0;
	}
	return 1;
}

static char *
want_field(struct ld *l, yaml_node_t *n, const char *key)
{
	char *s = want_str(l, n, key);

	if (s && !check_field(l, n, s)) {
		free(s);
		return NULL;
	}
	return s;
}

static json_t *
scalar_value(yaml_node_t *n)
{
	const char *s = scalar(n);
	char *end;
	double d;

	if (!s)
		return NULL;
	if (n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
		if (!strcmp(s, "true"))
			return json_true();
		if (!strcmp(s, "false"))
			return json_false();
		errno = 0;
		d = strtod(s, &end);
		if (*s && !*end && !errno)
			return json_real(d);
	}
	return json_string(s);
}

static char **
want_strlist(struct ld *l, yaml_node_t *n, const char *key, size_t *cnt)
{
	yaml_node_item_t *it;
	char **v;
	size_t i = 0;

	*cnt = 0;
	if (scalar(n)) {
		v = calloc(2, sizeof *v);
		v[0] = pd_xstrdup(scalar(n));
		*cnt = 1;
		return v;
	}
	if (!n || n->type != YAML_SEQUENCE_NODE) {
		bad(l, n, "'%s' must be a list of strings", key);
		return NULL;
	}
	v = calloc((size_t)(n->data.sequence.items.top -
	    n->data.sequence.items.start) + 1, sizeof *v);
	if (!v)
		pd_oom();
	for (it = n->data.sequence.items.start;
	    it < n->data.sequence.items.top; it++) {
		yaml_node_t *e = node(l, *it);

		if (!scalar(e)) {
			bad(l, e, "'%s' must be a list of strings", key);
			continue;
		}
		v[i++] = pd_xstrdup(scalar(e));
	}
	*cnt = i;
	return v;
}

static void
free_conds(struct pd_cond *c, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		sfree(c[i].field);
		sfree(c[i].over);
		json_decref(c[i].value);
	}
	free(c);
}

/* One condition: {field: F, op: OP, value: V}. */
static int
load_cond(struct ld *l, yaml_node_t *n, struct pd_cond *c)
{
	yaml_node_pair_t *p;
	yaml_node_t *vn = NULL, *opn = NULL, *fn = NULL;
	const char *op = NULL;

	memset(c, 0, sizeof *c);
	if (n->type != YAML_MAPPING_NODE) {
		bad(l, n, "a condition must be a mapping with field, op, value%s",
		    NULL);
		return 0;
	}
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	    p++) {
		yaml_node_t *k = node(l, p->key), *v = node(l, p->value);
		const char *ks = scalar(k);

		if (ks && !strcmp(ks, "field"))
			c->field = want_field(l, fn = v, "field");
		else if (ks && !strcmp(ks, "op"))
			op = scalar(v), opn = v;
		else if (ks && !strcmp(ks, "value"))
			vn = v;
		else if (ks && !strcmp(ks, "over"))
			c->over = want_field(l, v, "over");
		else
			bad(l, k, "unknown key '%s' in condition", ks);
	}
	if (!c->field) {
		if (!fn)	/* a bad field was reported already */
			bad(l, n, "condition without 'field'%s", NULL);
		return 0;
	}
	if (!op || in(op, ops) < 0) {
		bad(l, opn ? opn : n, "'op' must be one of > >= < <= == != "
		    "exists absent%s", NULL);
		return 0;
	}
	c->op = (enum pd_op)in(op, ops);
	if (c->op == PD_OP_EXISTS || c->op == PD_OP_ABSENT)
		return 1;
	if (!vn || !(c->value = scalar_value(vn))) {
		bad(l, vn ? vn : n, "condition on '%s' needs a scalar 'value'",
		    c->field);
		return 0;
	}
	if (c->op <= PD_OP_LE && !json_is_number(c->value)) {
		bad(l, vn, "'%s' compares with a number", op);
		return 0;
	}
	return 1;
}

static struct pd_cond *
load_conds(struct ld *l, yaml_node_t *n, const char *key, size_t *cnt)
{
	yaml_node_item_t *it;
	struct pd_cond *c;
	size_t i = 0;

	*cnt = 0;
	if (!n || n->type != YAML_SEQUENCE_NODE) {
		bad(l, n, "'%s' must be a list of conditions", key);
		return NULL;
	}
	c = calloc((size_t)(n->data.sequence.items.top -
	    n->data.sequence.items.start) + 1, sizeof *c);
	if (!c)
		pd_oom();
	for (it = n->data.sequence.items.start;
	    it < n->data.sequence.items.top; it++)
		if (load_cond(l, node(l, *it), &c[i]))
			i++;
		else {
			free(c[i].field);
			free(c[i].over);
			json_decref(c[i].value);
			memset(&c[i], 0, sizeof *c);
		}
	*cnt = i;
	return c;
}

static void check_template(struct ld *, yaml_node_t *, const char *,
    const char *);

static void
free_texts(struct pd_text *t, size_t n)
{
	size_t i;

	for (i = 0; t && i < n; i++) {
		sfree(t[i].text);
		free_conds(t[i].when, t[i].nwhen);
		free_conds(t[i].any, t[i].nany);
	}
	free(t);
}

/* A list of stack names (or one name); every name must be known. */
static char **
load_stacks(struct ld *l, yaml_node_t *n, size_t *cnt)
{
	char **v = want_strlist(l, n, "stacks", cnt);
	yaml_node_item_t *it;
	size_t i;

	for (i = 0; v && i < *cnt; i++) {
		yaml_node_t *e = n;

		if (n->type == YAML_SEQUENCE_NODE)	/* the element's place */
			for (it = n->data.sequence.items.start;
			    it < n->data.sequence.items.top; it++)
				if (scalar(node(l, *it)) &&
				    !strcmp(scalar(node(l, *it)), v[i]))
					e = node(l, *it);
		if (in(v[i], stack_names) < 0) {
			char m[200];

			snprintf(m, sizeof m, "unknown stack '%.60s' (any, cpu, "
			    "gpu, npu, torch, torch_npu, mindspore, cann, "
			    "pytorch-cuda, pytorch-cpu, cuda)", v[i]);
			bad(l, e, "%s", m);
		}
	}
	if (v && *cnt == 0)
		bad(l, n, "'stacks' must name at least one stack%s", NULL);
	return v;
}

/* hints / validation: a list whose items are a text, or a mapping
 * {text, when, any} shown only when its conditions hold. */
static struct pd_text *
load_texts(struct ld *l, yaml_node_t *n, const char *key, size_t *cnt)
{
	yaml_node_item_t *it;
	struct pd_text *t;
	size_t i = 0;

	*cnt = 0;
	if (scalar(n)) {
		t = calloc(1, sizeof *t);
		if (!t)
			pd_oom();
		t->text = pd_xstrdup(scalar(n));
		check_template(l, n, key, t->text);
		*cnt = 1;
		return t;
	}
	if (!n || n->type != YAML_SEQUENCE_NODE) {
		bad(l, n, "'%s' must be a list of texts", key);
		return NULL;
	}
	t = calloc((size_t)(n->data.sequence.items.top -
	    n->data.sequence.items.start) + 1, sizeof *t);
	if (!t)
		pd_oom();
	for (it = n->data.sequence.items.start;
	    it < n->data.sequence.items.top; it++) {
		yaml_node_t *e = node(l, *it);
		yaml_node_pair_t *p;

		if (scalar(e)) {
			t[i].text = pd_xstrdup(scalar(e));
			check_template(l, e, key, t[i].text);
			i++;
			continue;
		}
		if (!e || e->type != YAML_MAPPING_NODE) {
			bad(l, e, "'%s' must be a list of texts", key);
			continue;
		}
		for (p = e->data.mapping.pairs.start;
		    p < e->data.mapping.pairs.top; p++) {
			yaml_node_t *k = node(l, p->key), *v = node(l, p->value);
			const char *ks = scalar(k);

			if (ks && !strcmp(ks, "text")) {
				free(t[i].text);
				if ((t[i].text = want_str(l, v, ks)))
					check_template(l, v, key, t[i].text);
			} else if (ks && !strcmp(ks, "when")) {
				free_conds(t[i].when, t[i].nwhen);
				t[i].when = load_conds(l, v, ks, &t[i].nwhen);
			} else if (ks && !strcmp(ks, "any")) {
				free_conds(t[i].any, t[i].nany);
				t[i].any = load_conds(l, v, ks, &t[i].nany);
			} else
				bad(l, k, "unknown key '%s' in a text", ks);
		}
		if (!t[i].text) {
			bad(l, e, "a text of '%s' needs 'text'", key);
			free_conds(t[i].when, t[i].nwhen);
			free_conds(t[i].any, t[i].nany);
			memset(&t[i], 0, sizeof t[i]);
			continue;
		}
		i++;
	}
	*cnt = i;
	return t;
}

static void
load_fix(struct ld *l, yaml_node_t *n, char **proposal, char **effect,
    char **change)
{
	yaml_node_pair_t *p;

	if (n->type != YAML_MAPPING_NODE) {
		bad(l, n, "'fix' must be a mapping with proposal, effect, "
		    "change%s", NULL);
		return;
	}
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	    p++) {
		yaml_node_t *k = node(l, p->key), *v = node(l, p->value);
		const char *ks = scalar(k);

		char **to = NULL;

		if (ks && !strcmp(ks, "proposal"))
			to = proposal;
		else if (ks && !strcmp(ks, "effect"))
			to = effect;
		else if (ks && !strcmp(ks, "change"))
			to = change;
		else
			bad(l, k, "unknown key '%s' in fix", ks);
		if (to) {
			free(*to);
			if ((*to = want_str(l, v, ks)))
				check_template(l, v, ks, *to);
		}
	}
}

static void
free_list(char **v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++)
		sfree(v[i]);
	free(v);
}

static void
free_rule(struct pd_rule *r)
{
	sfree(r->id); sfree(r->title); sfree(r->domain); sfree(r->scope);
	sfree(r->severity); sfree(r->source); sfree(r->evidence);
	sfree(r->subject); sfree(r->handoff);
	sfree(r->impact_over); sfree(r->impact_minus); sfree(r->impact_else);
	free_conds(r->when, r->nwhen);
	free_conds(r->handoff_if, r->nhandoff_if);
	free_list(r->impact, r->nimpact);
	free_texts(r->validation, r->nvalidation);
	free_texts(r->hints, r->nhints);
	sfree(r->fix_proposal); sfree(r->fix_effect); sfree(r->fix_change);
	free_list(r->stacks, r->nstacks);
	free_list(r->explains, r->nexplains);
	for (size_t i = 0; i < r->nvariants; i++) {
		struct pd_variant *x = &r->variants[i];

		free_list(x->stacks, x->nstacks);
		sfree(x->name);
		free_conds(x->when, x->nwhen);
		free_conds(x->any, x->nany);
		sfree(x->title);
		sfree(x->evidence);
		sfree(x->fix_proposal); sfree(x->fix_effect); sfree(x->fix_change);
		free_texts(x->validation, x->nvalidation);
		free_texts(x->hints, x->nhints);
	}
	free(r->variants);
	sfree(r->path_share);
	free(r->file);
	memset(r, 0, sizeof *r);
}

static void
load_impact(struct ld *l, yaml_node_t *v, struct pd_rule *r)
{
	size_t i;
	char *end;
	const char *s = scalar(v);

	if (s && v->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	    (r->impact_value = strtod(s, &end), *s && !*end)) {
		if (r->impact_value < 0 || r->impact_value > 1)
			bad(l, v, "a constant 'impact' must be within 0..1%s",
			    NULL);
		return;
	}
	r->impact_value = NAN;
	r->impact = want_strlist(l, v, "impact", &r->nimpact);
	for (i = 0; i < r->nimpact; i++)
		check_field(l, v, r->impact[i]);
}

static const char *filters[] = { "", "pct", "us", "ms", "s", "gib", "mib",
    "gbps", "int", "steps", "op", "list", NULL };

/* Every {field} or {field|fmt} of text t (the value of key) must name a
 * valid field and a known fmt. */
static void
check_template(struct ld *l, yaml_node_t *n, const char *key, const char *t)
{
	const char *p = t;

	while (t && (p = strchr(p, '{'))) {
		const char *e = strchr(p, '}');
		char f[160], fmt[32], m[240];
		size_t k;

		if (!e) {
			bad(l, n, "unclosed '{' in %s", key);
			return;
		}
		k = strcspn(p + 1, "|}");
		snprintf(f, sizeof f, "%.*s", (int)(k < 159 ? k : 159), p + 1);
		check_field(l, n, f);
		if (p[1 + k] == '|') {
			size_t fl = (size_t)(e - (p + 2 + k));

			snprintf(fmt, sizeof fmt, "%.*s",
			    (int)(fl < 31 ? fl : 31), p + 2 + k);
			if (in(fmt, filters) < 0) {
				snprintf(m, sizeof m, "unknown filter '%s' in "
				    "%s (pct, us, ms, s, gib, mib, gbps, int, "
				    "steps, op, list)", fmt, key);
				bad(l, n, "%s", m);
			}
		}
		p = e + 1;
	}
}

/* variants: a list of {stacks, name, when, any, title, evidence, fix,
 * validation, hints}. */
static void
load_variants(struct ld *l, yaml_node_t *n, struct pd_rule *r)
{
	yaml_node_item_t *it;

	if (!n || n->type != YAML_SEQUENCE_NODE) {
		bad(l, n, "'variants' must be a list of mappings with "
		    "stacks%s", NULL);
		return;
	}
	r->variants = calloc((size_t)(n->data.sequence.items.top -
	    n->data.sequence.items.start) + 1, sizeof *r->variants);
	if (!r->variants)
		pd_oom();
	for (it = n->data.sequence.items.start;
	    it < n->data.sequence.items.top; it++) {
		yaml_node_t *e = node(l, *it);
		struct pd_variant *x = &r->variants[r->nvariants++];
		yaml_node_pair_t *p;

		if (!e || e->type != YAML_MAPPING_NODE) {
			bad(l, e, "a variant must be a mapping with stacks%s",
			    NULL);
			continue;
		}
		for (p = e->data.mapping.pairs.start;
		    p < e->data.mapping.pairs.top; p++) {
			yaml_node_t *k = node(l, p->key), *v = node(l, p->value);
			const char *ks = scalar(k);

			if (ks && !strcmp(ks, "stacks")) {
				free_list(x->stacks, x->nstacks);
				x->stacks = load_stacks(l, v, &x->nstacks);
			} else if (ks && !strcmp(ks, "name")) {
				free(x->name);
				x->name = want_str(l, v, ks);
			} else if (ks && !strcmp(ks, "when")) {
				free_conds(x->when, x->nwhen);
				x->when = load_conds(l, v, ks, &x->nwhen);
			} else if (ks && !strcmp(ks, "any")) {
				free_conds(x->any, x->nany);
				x->any = load_conds(l, v, ks, &x->nany);
			} else if (ks && !strcmp(ks, "title")) {
				free(x->title);
				if ((x->title = want_str(l, v, ks)))
					check_template(l, v, ks, x->title);
			} else if (ks && !strcmp(ks, "evidence")) {
				free(x->evidence);
				if ((x->evidence = want_str(l, v, ks)))
					check_template(l, v, ks, x->evidence);
			} else if (ks && !strcmp(ks, "fix"))
				load_fix(l, v, &x->fix_proposal, &x->fix_effect,
				    &x->fix_change);
			else if (ks && !strcmp(ks, "validation")) {
				free_texts(x->validation, x->nvalidation);
				x->validation = load_texts(l, v, ks,
				    &x->nvalidation);
			} else if (ks && !strcmp(ks, "hints")) {
				free_texts(x->hints, x->nhints);
				x->hints = load_texts(l, v, ks, &x->nhints);
			} else
				bad(l, k, "unknown key '%s' in variant", ks);
		}
		if (!x->stacks)
			bad(l, e, "variant without 'stacks'%s", NULL);
	}
}

static int
load_rule(struct ld *l, yaml_node_t *n, struct pd_rule *r)
{
	yaml_node_pair_t *p;
	int errs = l->errors;
	static const char *need[] = { "id", "title", "domain", "when",
	    "impact", "evidence", "source", "fix", NULL };
	int have[8] = { 0 };

	memset(r, 0, sizeof *r);
	r->enabled = 1;
	r->impact_scale = 1;
	r->impact_value = NAN;
	r->impact_else_value = NAN;
	r->confidence_max = 1;
	r->line = (int)n->start_mark.line + 1;
	r->file = pd_xstrdup(l->file);
	if (n->type != YAML_MAPPING_NODE) {
		bad(l, n, "a rule must be a mapping%s", NULL);
		return 0;
	}
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	    p++) {
		yaml_node_t *k = node(l, p->key), *v = node(l, p->value);
		const char *ks = scalar(k);
		int w;

		if (!ks) {
			bad(l, k, "a rule key must be a string%s", NULL);
			continue;
		}
		if ((w = in(ks, need)) >= 0)
			have[w] = 1;
		if (!strcmp(ks, "id"))
			r->id = want_str(l, v, ks);
		else if (!strcmp(ks, "title")) {
			if ((r->title = want_str(l, v, ks)))
				check_template(l, v, ks, r->title);
		}
		else if (!strcmp(ks, "domain")) {
			if ((r->domain = want_str(l, v, ks)) &&
			    in(r->domain, domains) < 0)
				bad(l, v, "unknown domain '%s'", r->domain);
		} else if (!strcmp(ks, "scope")) {
			if ((r->scope = want_str(l, v, ks)) &&
			    strcmp(r->scope, "root") && strcmp(r->scope, "run"))
				bad(l, v, "'scope' must be root or run%s", NULL);
		} else if (!strcmp(ks, "severity")) {
			static const char *sev[] = { "high", "medium", "low",
			    "auto", NULL };

			if ((r->severity = want_str(l, v, ks)) &&
			    in(r->severity, sev) < 0)
				bad(l, v, "'severity' must be high, medium, low "
				    "or auto%s", NULL);
		} else if (!strcmp(ks, "source"))
			r->source = want_str(l, v, ks);
		else if (!strcmp(ks, "evidence")) {
			if ((r->evidence = want_str(l, v, ks)))
				check_template(l, v, ks, r->evidence);
		} else if (!strcmp(ks, "subject"))
			r->subject = want_field(l, v, ks);
		else if (!strcmp(ks, "handoff")) {
			if ((r->handoff = want_str(l, v, ks)) &&
			    strcmp(r->handoff, "operator"))
				bad(l, v, "'handoff' must be operator%s", NULL);
		} else if (!strcmp(ks, "when"))
			r->when = load_conds(l, v, ks, &r->nwhen);
		else if (!strcmp(ks, "handoff_if"))
			r->handoff_if = load_conds(l, v, ks, &r->nhandoff_if);
		else if (!strcmp(ks, "impact"))
			load_impact(l, v, r);
		else if (!strcmp(ks, "impact_scale")) {
			const char *s = scalar(v);
			char *end;

			r->impact_scale = s ? strtod(s, &end) : NAN;
			if (!s || !*s || *end || r->impact_scale <= 0)
				bad(l, v, "'impact_scale' must be a positive "
				    "number%s", NULL);
		} else if (!strcmp(ks, "impact_over"))
			r->impact_over = want_field(l, v, ks);
		else if (!strcmp(ks, "impact_minus"))
			r->impact_minus = want_field(l, v, ks);
		else if (!strcmp(ks, "impact_else")) {
			const char *sv = scalar(v);
			char *end;

			if (sv && v->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
			    (r->impact_else_value = strtod(sv, &end), *sv && !*end)) {
				if (r->impact_else_value < 0 ||
				    r->impact_else_value > 1)
					bad(l, v, "a constant 'impact_else' must be "
					    "within 0..1%s", NULL);
			} else {
				r->impact_else_value = NAN;
				r->impact_else = want_field(l, v, ks);
			}
		}
		else if (!strcmp(ks, "validation")) {
			free_texts(r->validation, r->nvalidation);
			r->validation = load_texts(l, v, ks, &r->nvalidation);
		} else if (!strcmp(ks, "hints")) {
			free_texts(r->hints, r->nhints);
			r->hints = load_texts(l, v, ks, &r->nhints);
		} else if (!strcmp(ks, "fix"))
			load_fix(l, v, &r->fix_proposal, &r->fix_effect,
			    &r->fix_change);
		else if (!strcmp(ks, "stacks")) {
			free_list(r->stacks, r->nstacks);
			r->stacks = load_stacks(l, v, &r->nstacks);
		} else if (!strcmp(ks, "explains")) {
			free_list(r->explains, r->nexplains);
			r->explains = want_strlist(l, v, ks, &r->nexplains);
			r->explains_line = (int)v->start_mark.line + 1;
			r->explains_col = (int)v->start_mark.column + 1;
		} else if (!strcmp(ks, "variants"))
			load_variants(l, v, r); else if (!strcmp(ks, "fallback")) {
			const char *sv = scalar(v);

			if (sv && !strcmp(sv, "true"))
				r->fallback = 1;
			else if (!sv || strcmp(sv, "false"))
				bad(l, v, "'fallback' must be true or false%s",
				    NULL);
		} else if (!strcmp(ks, "confidence_max")) {
			const char *sv = scalar(v);
			char *end;

			r->confidence_max = sv ? strtod(sv, &end) : NAN;
			if (!sv || !*sv || *end || !(r->confidence_max >= 0 &&
			    r->confidence_max <= 1))
				bad(l, v, "'confidence_max' must be a number "
				    "within 0..1%s", NULL);
		}
		else if (!strcmp(ks, "path_share")) {
			free(r->path_share);
			r->path_share = want_field(l, v, ks);
		} else if (!strcmp(ks, "enabled")) {
			const char *s = scalar(v);

			if (s && !strcmp(s, "false"))
				r->enabled = 0;
			else if (!s || strcmp(s, "true"))
				bad(l, v, "'enabled' must be true or false%s",
				    NULL);
		} else
			bad(l, k, "unknown key '%s' in rule", ks);
	}
	/* A rule that only disables another needs nothing but its id. */
	if (!r->enabled && r->id)
		return l->errors == errs;
	for (int i = 0; need[i]; i++)
		if (!have[i])
			bad(l, n, "rule is missing '%s'", need[i]);
	if (r->fix_proposal == NULL && have[7])
		bad(l, n, "'fix' needs a 'proposal'%s", NULL);
	if (!r->scope)
		r->scope = pd_xstrdup("root");
	if (!r->severity)
		r->severity = pd_xstrdup("auto");
	return l->errors == errs;
}

static void
put_rule(struct pd_rules *rs, struct pd_rule *r)
{
	size_t i;

	for (i = 0; i < rs->n; i++)
		if (!strcmp(rs->v[i].id, r->id)) {
			free_rule(&rs->v[i]);
			rs->v[i] = *r;
			return;
		}
	if (rs->n == rs->cap) {
		rs->cap = rs->cap ? rs->cap * 2 : 32;
		rs->v = realloc(rs->v, rs->cap * sizeof *rs->v);
		if (!rs->v)
			pd_oom();
	}
	rs->v[rs->n++] = *r;
}

static void
load_doc(struct ld *l, struct pd_rules *rs)
{
	yaml_node_t *top = yaml_document_get_root_node(l->doc), *list = NULL;
	yaml_node_pair_t *p;
	yaml_node_item_t *it;
	json_t *seen;

	if (!top || top->type != YAML_MAPPING_NODE) {
		bad(l, top, "expected a mapping with a 'rules' list%s", NULL);
		return;
	}
	for (p = top->data.mapping.pairs.start; p < top->data.mapping.pairs.top;
	    p++) {
		yaml_node_t *k = node(l, p->key), *v = node(l, p->value);
		const char *ks = scalar(k);

		if (ks && !strcmp(ks, "rules"))
			list = v;
		else if (ks && !strcmp(ks, "version")) {
			if (!scalar(v) || strcmp(scalar(v), "1"))
				bad(l, v, "unsupported rules version '%s'",
				    scalar(v));
		} else if (ks && !strcmp(ks, "path_when")) {
			l->path_when = 1;
			free_conds(rs->path_when, rs->npath_when);
			rs->path_when = load_conds(l, v, ks, &rs->npath_when);
		} else if (ks && !strcmp(ks, "dominant_evidence")) {
			char *t = want_str(l, v, ks);

			if (t) {	/* a later file's replaces it */
				check_template(l, v, ks, t);
				free(rs->dominant_evidence);
				rs->dominant_evidence = t;
			}
		} else
			bad(l, k, "unknown top-level key '%s'", ks);
	}
	if (!list || list->type != YAML_SEQUENCE_NODE) {
		bad(l, list ? list : top, "'rules' must be a list%s", NULL);
		return;
	}
	seen = json_object();
	for (it = list->data.sequence.items.start;
	    it < list->data.sequence.items.top; it++) {
		struct pd_rule r;
		yaml_node_t *rn = node(l, *it);
		json_t *first;

		if (!load_rule(l, rn, &r)) {
			free_rule(&r);
			continue;
		}
		/* a later file overrides a rule; one file gives an id once */
		if ((first = json_object_get(seen, r.id))) {
			char msg[200];

			snprintf(msg, sizeof msg, "rule '%.80s' given twice in "
			    "this file (first at line %lld)", r.id,
			    (long long)json_integer_value(first));
			bad(l, rn, "%s", msg);
			free_rule(&r);
			continue;
		}
		json_object_set_new(seen, r.id, json_integer(rn ?
		    (json_int_t)rn->start_mark.line + 1 : 1));
		put_rule(rs, &r);
	}
	json_decref(seen);
}

/* ---- the compiled form of a rules file (pd_rcache) ----
 *
 * What one file gives (its rules in order, path_when, dominant_evidence)
 * as bytes: every string, number (its bits), list and its count, and
 * whether a list is there at all (a NULL list means something: no
 * stacks is any stack). A field added to the structures in pd_rules.h
 * is added here too (the size checks below say when one was). */

#if defined(__x86_64__) || defined(__aarch64__)
typedef char rule_fields_check[sizeof(struct pd_rule) == 328 ? 1 : -1];
typedef char variant_fields_check[sizeof(struct pd_variant) == 128 ? 1 :
    -1];
typedef char text_fields_check[sizeof(struct pd_text) == 40 ? 1 : -1];
typedef char cond_fields_check[sizeof(struct pd_cond) == 32 ? 1 : -1];
#endif

#define NONE 0xFFFFFFFFu	/* a NULL list or string */

struct enc {
	unsigned char *p;
	size_t n, cap;
};

static void
e_put(struct enc *e, const void *s, size_t n)
{
	if (e->n + n > e->cap) {
		e->cap = (e->n + n) * 2 + 4096;
		e->p = pd_xrealloc(e->p, e->cap);
	}
	memcpy(e->p + e->n, s, n);
	e->n += n;
}

static void
e_u32(struct enc *e, uint32_t x)
{
	e_put(e, &x, 4);
}

static void
e_f64(struct enc *e, double x)
{
	e_put(e, &x, 8);
}

/* its length, then its bytes and NUL (read in place) */
static void
e_str(struct enc *e, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	e_u32(e, s ? (uint32_t)n : NONE);
	if (s)
		e_put(e, s, n + 1);
}

/* The count of a list, NONE when there is none. */
static void
e_n(struct enc *e, const void *v, size_t n)
{
	e_u32(e, v ? (uint32_t)n : NONE);
}

static void
e_strs(struct enc *e, char **v, size_t n)
{
	size_t i;

	e_n(e, v, n);
	for (i = 0; v && i < n; i++)
		e_str(e, v[i]);
}

/* A condition's value: what scalar_value makes. */
static void
e_json(struct enc *e, json_t *v)
{
	if (!v)
		e_u32(e, 0);
	else if (json_is_true(v))
		e_u32(e, 1);
	else if (json_is_false(v))
		e_u32(e, 2);
	else if (json_is_real(v)) {
		e_u32(e, 3);
		e_f64(e, json_real_value(v));
	} else if (json_is_string(v)) {
		e_u32(e, 4);
		e_str(e, json_string_value(v));
	} else {
		json_int_t i = json_integer_value(v);

		e_u32(e, 5);
		e_put(e, &i, sizeof i);
	}
}

static void
e_conds(struct enc *e, const struct pd_cond *c, size_t n)
{
	size_t i;

	e_n(e, c, n);
	for (i = 0; c && i < n; i++) {
		e_str(e, c[i].field);
		e_u32(e, (uint32_t)c[i].op);
		e_json(e, c[i].value);
		e_str(e, c[i].over);
	}
}

static void
e_texts(struct enc *e, const struct pd_text *t, size_t n)
{
	size_t i;

	e_n(e, t, n);
	for (i = 0; t && i < n; i++) {
		e_str(e, t[i].text);
		e_conds(e, t[i].when, t[i].nwhen);
		e_conds(e, t[i].any, t[i].nany);
	}
}

static void
e_rule(struct enc *e, const struct pd_rule *r)
{
	size_t i;

	e_str(e, r->id); e_str(e, r->title); e_str(e, r->domain);
	e_str(e, r->scope); e_str(e, r->severity); e_str(e, r->source);
	e_str(e, r->evidence); e_str(e, r->subject); e_str(e, r->handoff);
	e_conds(e, r->when, r->nwhen);
	e_conds(e, r->handoff_if, r->nhandoff_if);
	e_strs(e, r->impact, r->nimpact);
	e_f64(e, r->impact_value);
	e_f64(e, r->impact_scale);
	e_str(e, r->impact_over); e_str(e, r->impact_minus);
	e_str(e, r->impact_else);
	e_f64(e, r->impact_else_value);
	e_texts(e, r->validation, r->nvalidation);
	e_texts(e, r->hints, r->nhints);
	e_str(e, r->fix_proposal); e_str(e, r->fix_effect);
	e_str(e, r->fix_change);
	e_strs(e, r->stacks, r->nstacks);
	e_n(e, r->variants, r->nvariants);
	for (i = 0; r->variants && i < r->nvariants; i++) {
		const struct pd_variant *x = &r->variants[i];

		e_strs(e, x->stacks, x->nstacks);
		e_str(e, x->name);
		e_conds(e, x->when, x->nwhen);
		e_conds(e, x->any, x->nany);
		e_str(e, x->title); e_str(e, x->evidence);
		e_str(e, x->fix_proposal); e_str(e, x->fix_effect);
		e_str(e, x->fix_change);
		e_texts(e, x->validation, x->nvalidation);
		e_texts(e, x->hints, x->nhints);
	}
	e_strs(e, r->explains, r->nexplains);
	e_u32(e, (uint32_t)r->explains_line);
	e_u32(e, (uint32_t)r->explains_col);
	e_u32(e, (uint32_t)r->fallback);
	e_f64(e, r->confidence_max);
	e_str(e, r->path_share);
	e_u32(e, (uint32_t)r->enabled);
	e_u32(e, (uint32_t)r->line);
}

/* one: what a file gave, loaded without a problem */
static void
encode(struct enc *e, const struct pd_rules *one)
{
	size_t i;

	e_conds(e, one->path_when, one->npath_when);
	e_str(e, one->dominant_evidence);
	e_u32(e, (uint32_t)one->n);
	for (i = 0; i < one->n; i++)
		e_rule(e, &one->v[i]);
}

struct dec {
	const unsigned char *p, *end;
	int bad;
};

static void
d_get(struct dec *d, void *out, size_t n)
{
	if (d->bad || (size_t)(d->end - d->p) < n) {
		d->bad = 1;
		memset(out, 0, n);
		return;
	}
	memcpy(out, d->p, n);
	d->p += n;
}

static uint32_t
d_u32(struct dec *d)
{
	uint32_t x;

	d_get(d, &x, 4);
	return x;
}

static double
d_f64(struct dec *d)
{
	double x;

	d_get(d, &x, 8);
	return x;
}

/* A string in place: the compiled form stays mapped (sfree passes it). */
static char *
d_str(struct dec *d)
{
	uint32_t n = d_u32(d);
	char *s;

	if (d->bad || n == NONE)
		return NULL;
	if ((size_t)(d->end - d->p) <= n || d->p[n] != 0) {
		d->bad = 1;
		return NULL;
	}
	s = (char *)d->p;
	d->p += (size_t)n + 1;
	return s;
}

/* A list of *cnt items of each bytes (zeroed, one spare like the
 * loader's), or NULL for none. */
static void *
d_list(struct dec *d, size_t each, size_t *cnt)
{
	uint32_t n = d_u32(d);
	void *v;

	*cnt = 0;
	if (d->bad || n == NONE)
		return NULL;
	if (n > (size_t)(d->end - d->p)) {	/* every item takes a byte */
		d->bad = 1;
		return NULL;
	}
	if (!(v = calloc((size_t)n + 1, each)))
		pd_oom();
	*cnt = n;
	return v;
}

static char **
d_strs(struct dec *d, size_t *cnt)
{
	char **v = d_list(d, sizeof *v, cnt);
	size_t i;

	for (i = 0; v && i < *cnt; i++)
		v[i] = d_str(d);
	return v;
}

static json_t *
d_json(struct dec *d)
{
	uint32_t t = d_u32(d);
	json_int_t i;
	char *s;

	switch (d->bad ? 0 : t) {
	case 0: return NULL;
	case 1: return json_true();
	case 2: return json_false();
	case 3: return json_real(d_f64(d));
	case 4:
		return (s = d_str(d)) ? json_string(s) : NULL;
	case 5:
		d_get(d, &i, sizeof i);
		return json_integer(i);
	default:
		d->bad = 1;
		return NULL;
	}
}

static struct pd_cond *
d_conds(struct dec *d, size_t *cnt)
{
	struct pd_cond *c = d_list(d, sizeof *c, cnt);
	size_t i;

	for (i = 0; c && i < *cnt; i++) {
		uint32_t op;

		c[i].field = d_str(d);
		op = d_u32(d);
		if (op > PD_OP_ABSENT)
			d->bad = 1;
		c[i].op = (enum pd_op)op;
		c[i].value = d_json(d);
		c[i].over = d_str(d);
	}
	return c;
}

static struct pd_text *
d_texts(struct dec *d, size_t *cnt)
{
	struct pd_text *t = d_list(d, sizeof *t, cnt);
	size_t i;

	for (i = 0; t && i < *cnt; i++) {
		t[i].text = d_str(d);
		t[i].when = d_conds(d, &t[i].nwhen);
		t[i].any = d_conds(d, &t[i].nany);
	}
	return t;
}

static void
d_rule(struct dec *d, struct pd_rule *r, const char *file)
{
	size_t i;

	r->id = d_str(d); r->title = d_str(d); r->domain = d_str(d);
	r->scope = d_str(d); r->severity = d_str(d); r->source = d_str(d);
	r->evidence = d_str(d); r->subject = d_str(d); r->handoff = d_str(d);
	r->when = d_conds(d, &r->nwhen);
	r->handoff_if = d_conds(d, &r->nhandoff_if);
	r->impact = d_strs(d, &r->nimpact);
	r->impact_value = d_f64(d);
	r->impact_scale = d_f64(d);
	r->impact_over = d_str(d); r->impact_minus = d_str(d);
	r->impact_else = d_str(d);
	r->impact_else_value = d_f64(d);
	r->validation = d_texts(d, &r->nvalidation);
	r->hints = d_texts(d, &r->nhints);
	r->fix_proposal = d_str(d); r->fix_effect = d_str(d);
	r->fix_change = d_str(d);
	r->stacks = d_strs(d, &r->nstacks);
	r->variants = d_list(d, sizeof *r->variants, &r->nvariants);
	for (i = 0; r->variants && i < r->nvariants; i++) {
		struct pd_variant *x = &r->variants[i];

		x->stacks = d_strs(d, &x->nstacks);
		x->name = d_str(d);
		x->when = d_conds(d, &x->nwhen);
		x->any = d_conds(d, &x->nany);
		x->title = d_str(d); x->evidence = d_str(d);
		x->fix_proposal = d_str(d); x->fix_effect = d_str(d);
		x->fix_change = d_str(d);
		x->validation = d_texts(d, &x->nvalidation);
		x->hints = d_texts(d, &x->nhints);
	}
	r->explains = d_strs(d, &r->nexplains);
	r->explains_line = (int)d_u32(d);
	r->explains_col = (int)d_u32(d);
	r->fallback = (int)d_u32(d);
	r->confidence_max = d_f64(d);
	r->path_share = d_str(d);
	r->enabled = (int)d_u32(d);
	r->line = (int)d_u32(d);
	r->file = pd_xstrdup(file);
	if (!r->id)	/* every rule kept has one */
		d->bad = 1;
}

/* Fill one (empty) from a compiled form; -1 (one left empty) when it is
 * not a whole, well-formed one. */
static int
decode(const void *p, size_t len, struct pd_rules *one, const char *file)
{
	struct dec d = { p, (const unsigned char *)p + len, 0 };
	uint32_t n, i;

	one->path_when = d_conds(&d, &one->npath_when);
	one->dominant_evidence = d_str(&d);
	n = d_u32(&d);
	if (!d.bad && n > len)
		d.bad = 1;
	if (!d.bad && n > 0) {
		one->v = pd_xrealloc(NULL, (size_t)n * sizeof *one->v);
		one->cap = n;
	}
	for (i = 0; !d.bad && i < n; i++) {
		memset(&one->v[one->n], 0, sizeof *one->v);
		d_rule(&d, &one->v[one->n++], file);
	}
	if (d.bad || d.p != d.end) {
		pd_rules_free(one);
		return -1;
	}
	return 0;
}

/* decode of a form whose strings the rules then use in place: it stays
 * mapped (when it is not the program's own), or is released on failure */
static int
decode_kept(struct pd_rcache_form *form, struct pd_rules *one,
    const char *path)
{
	borrowed = pd_xrealloc(borrowed, (nborrowed + 1) * sizeof *borrowed);
	borrowed[nborrowed].lo = form->data;
	borrowed[nborrowed++].hi = (const char *)form->data + form->len;
	if (decode(form->data, form->len, one, path) == 0)
		return 0;
	nborrowed--;	/* decode left nothing of it */
	pd_rcache_release(form);
	return -1;
}

/* The whole of fd from its start (*len bytes), or NULL. */
static char *
read_whole(int fd, size_t size, size_t *len)
{
	size_t cap = size + 1;
	char *text = pd_xrealloc(NULL, cap + 1);
	ssize_t r;

	*len = 0;
	for (;;) {
		if (*len == cap)
			text = pd_xrealloc(text, (cap *= 2) + 1);
		r = pread(fd, text + *len, cap - *len, (off_t)*len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(text);
			return NULL;
		}
		if (r == 0)
			return text;
		*len += (size_t)r;
	}
}

/* Take what one file gave into rs (one is left empty): its rules replace
 * those of the same id or go last, in order; its path_when and
 * dominant_evidence, when it gives them, replace the earlier ones. */
static void
merge(struct pd_rules *rs, struct pd_rules *one, int path_when)
{
	size_t i;

	if (rs->n == 0) {	/* one file gives an id once */
		free(rs->v);
		rs->v = one->v;
		rs->n = one->n;
		rs->cap = one->cap;
	} else {
		for (i = 0; i < one->n; i++)
			put_rule(rs, &one->v[i]);
		free(one->v);
	}
	if (path_when) {
		free_conds(rs->path_when, rs->npath_when);
		rs->path_when = one->path_when;
		rs->npath_when = one->npath_when;
	} else
		free_conds(one->path_when, one->npath_when);
	if (one->dominant_evidence) {
		sfree(rs->dominant_evidence);
		rs->dominant_evidence = one->dominant_evidence;
	}
	memset(one, 0, sizeof *one);
}

int
pd_rules_load(struct pd_rules *rs, const char *path)
{
	yaml_document_t doc;
	struct ld l = { path, &doc, 0, 0 };
	struct pd_rules one;
	struct pd_rcache_form form;
	struct stat sb;
	size_t len = 0;
	char *text = NULL;
	int fd;

	memset(&one, 0, sizeof one);
	/* the form built into the program when these are the bytes it was
	 * made from; else, with no cache, read by the parser as it always
	 * was; else the cache's form when it is of these bytes, or these
	 * bytes parsed */
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
		if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode)) {
			if ((pd_rcache_builtin("rules", fd, (size_t)sb.st_size,
			    &form) == 0 || (pd_rcache_on() &&
			    pd_rcache_get("rules", path, fd, (size_t)sb.st_size,
			    &form) == 0)) && decode_kept(&form, &one, path) == 0) {
				close(fd);
				merge(rs, &one, one.path_when != NULL);
				return 0;
			}
			if (pd_rcache_on())
				text = read_whole(fd, (size_t)sb.st_size, &len);
		}
		close(fd);
	}
	if ((text ? pd_yamlio_parse_mem(path, text, len, &doc) :
	    pd_yamlio_parse(path, &doc)) != 0) {
		free(text);
		return PD_EXIT_CONFIG;
	}
	load_doc(&l, &one);
	yaml_document_delete(&doc);
	if (text && !l.errors && pd_rcache_last() != PD_RCACHE_OFF) {
		struct enc e = { NULL, 0, 0 };

		encode(&e, &one);
		pd_rcache_put("rules", path, text, len, e.p, e.n);
		free(e.p);
	}
	merge(rs, &one, l.path_when);
	free(text);
	return l.errors ? PD_EXIT_CONFIG : 0;
}

int
pd_rules_check(const struct pd_rules *rs)
{
	size_t i, j, k;
	int rc = 0;

	for (i = 0; i < rs->n; i++)
		for (j = 0; j < rs->v[i].nexplains; j++) {
			const char *x = rs->v[i].explains[j];

			for (k = 0; k < rs->n && strcmp(rs->v[k].id, x); k++)
				;
			if (k == i)
				pd_error(NULL, 0, "%s:%d:%d: rule %s explains "
				    "itself", rs->v[i].file, rs->v[i].explains_line,
				    rs->v[i].explains_col,
				    pd_diag_quote(x, (size_t)-1));
			else if (k == rs->n)
				pd_error(NULL, 0, "%s:%d:%d: rule %s explains "
				    "an unknown rule %s", rs->v[i].file,
				    rs->v[i].explains_line, rs->v[i].explains_col,
				    pd_diag_quote(rs->v[i].id, (size_t)-1),
				    pd_diag_quote(x, (size_t)-1));
			if (k == i || k == rs->n)
				rc = PD_EXIT_CONFIG;
		}
	return rc;
}

int
pd_rules_compile(const char *path, const void *text, size_t len,
    void **form, size_t *flen)
{
	yaml_document_t doc;
	struct ld l = { path, &doc, 0, 0 };
	struct pd_rules one;
	struct enc e = { NULL, 0, 0 };

	*form = NULL;
	*flen = 0;
	memset(&one, 0, sizeof one);
	if (pd_yamlio_parse_mem(path, text, len, &doc) != 0)
		return PD_EXIT_CONFIG;
	load_doc(&l, &one);
	yaml_document_delete(&doc);
	if (!l.errors) {
		encode(&e, &one);
		*form = e.p;
		*flen = e.n;
	}
	pd_rules_free(&one);
	return l.errors ? PD_EXIT_CONFIG : 0;
}

void
pd_rules_free(struct pd_rules *rs)
{
	size_t i;

	for (i = 0; i < rs->n; i++)
		free_rule(&rs->v[i]);
	free(rs->v);
	sfree(rs->dominant_evidence);
	free_conds(rs->path_when, rs->npath_when);
	memset(rs, 0, sizeof *rs);
}

/* ---- evaluation ---- */

int
pd_rules_stack_match(char *const *stacks, size_t n, json_t *stack)
{
	const char *dev = json_string_value(json_object_get(stack, "device"));
	const char *fw = json_string_value(json_object_get(stack,
	    "framework"));
	size_t i;

	if (!stacks)
		return 1;
	for (i = 0; i < n; i++) {
		const char *s = stacks[i];

		if (!strcmp(s, "any") ||
		    (dev && !strcmp(s, dev)) || (fw && !strcmp(s, fw)) ||
		    (dev && !strcmp(s, "cann") && !strcmp(dev, "npu")) ||
		    (dev && !fw && !strcmp(s, "cuda") && !strcmp(dev, "gpu")) ||
		    (dev && fw && !strcmp(fw, "torch") &&
		    ((!strcmp(s, "pytorch-cuda") && !strcmp(dev, "gpu")) ||
		    (!strcmp(s, "pytorch-cpu") && !strcmp(dev, "cpu")))))
			return 1;
	}
	return 0;
}

const struct pd_variant *
pd_rules_variant(const struct pd_rule *r, json_t *stack, json_t *o)
{
	size_t i;

	for (i = 0; i < r->nvariants; i++) {
		const struct pd_variant *x = &r->variants[i];
		struct pd_text t = { NULL, x->when, x->any, x->nwhen, x->nany };

		if (!x->stacks || !pd_rules_stack_match(x->stacks, x->nstacks,
		    stack))
			continue;
		if ((x->nwhen || x->nany) && (!o || !pd_rules_text_holds(&t, o)))
			continue;
		return x;
	}
	return NULL;
}

int
pd_rules_text_holds(const struct pd_text *t, json_t *o)
{
	size_t i;
	int ck, one = t->nany == 0;

	for (i = 0; i < t->nwhen; i++)
		if (!pd_rules_test(&t->when[i], o, &ck))
			return 0;
	for (i = 0; i < t->nany && !one; i++)
		one = pd_rules_test(&t->any[i], o, &ck);
	return one;
}

/* The value a condition compares: the field, or field / over. */
static double
cond_num(const struct pd_cond *c, json_t *o)
{
	double a = pd_path_num(o, c->field), d;

	if (!c->over)
		return a;
	d = pd_path_num(o, c->over);
	return d > 0 ? a / d : NAN;
}

int
pd_rules_test(const struct pd_cond *c, json_t *o, int *checked)
{
	json_t *v = pd_path_get(o, c->field);
	int present = v && !json_is_null(v);
	double a, b;

	if (present && c->over && isnan(cond_num(c, o)))
		present = 0;

	*checked = present;
	if (c->op == PD_OP_EXISTS)
		return present;
	if (c->op == PD_OP_ABSENT) {
		*checked = 1;
		return !present;
	}
	if (!present)
		return 0;
	if (json_is_number(c->value) && json_is_number(v)) {
		a = cond_num(c, o);
		b = json_number_value(c->value);
		switch (c->op) {
		case PD_OP_GT: return a > b;
		case PD_OP_GE: return a >= b;
		case PD_OP_LT: return a < b;
		case PD_OP_LE: return a <= b;
		case PD_OP_EQ: return a == b;
		case PD_OP_NE: return a != b;
		default: return 0;
		}
	}
	if (c->op == PD_OP_EQ || c->op == PD_OP_NE) {
		int eq = json_equal(v, c->value);

		return c->op == PD_OP_EQ ? eq : !eq;
	}
	return 0;
}

double
pd_rules_margin(const struct pd_cond *c, json_t *o)
{
	double a = cond_num(c, o), b;

	if (isnan(a) || !json_is_number(c->value) || c->op > PD_OP_LE)
		return 1;
	b = json_number_value(c->value);
	if (b == 0)
		return 1;
	return fmin(1, fabs(a - b) / fabs(b));
}

/* An operator or kernel name without its C++ decoration: no "void ",
 * no "(anonymous namespace)::", no template or parameter list (but a
 * template argument that is itself a kernel's name, as in cutlass's
 * Kernel<name>, is kept). */
static void
op_name(char *buf, size_t n, const char *s)
{
	static const char anon[] = "(anonymous namespace)::";
	char t[512];
	size_t k = 0, cut;
	const char *p = s;

	if (!strncmp(p, "void ", 5))
		p += 5;
	while (*p && k + 1 < sizeof t) {
		if (!strncmp(p, anon, sizeof anon - 1)) {
			p += sizeof anon - 1;
			continue;
		}
		t[k++] = *p++;
	}
	t[k] = 0;
	cut = strcspn(t, "<(");
	if (cut == 0 || !t[cut])
		cut = k;
	if (t[cut] == '<') {
		size_t a = strspn(t + cut + 1, "abcdefghijklmnopqrstuvwxyz"
		    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
		int letters = 0;

		for (size_t i = 0; i < a; i++)
			letters |= (t[cut + 1 + i] > '9');
		if (a > 8 && letters && t[cut + 1 + a] == '>')
			cut += a + 2;
	}
	while (cut > 0 && t[cut - 1] == ' ')	/* "Memcpy DtoD (...)" */
		cut--;
	if (cut >= n)
		cut = n - 1;
	memcpy(buf, t, cut);
	buf[cut] = 0;
}

/* The strings of array a joined by "; " (numbers as they print). */
static void
put_list(FILE *m, json_t *a)
{
	json_t *e;
	size_t i;

	json_array_foreach(a, i, e) {
		if (i)
			fputs("; ", m);
		if (json_is_string(e))
			fputs(json_string_value(e), m);
		else if (json_is_number(e))
			fprintf(m, "%.6g", json_number_value(e));
	}
}

static void
fmt_value(char *buf, size_t n, json_t *v, const char *fmt)
{
	double x;

	if (!v || json_is_null(v)) {
		snprintf(buf, n, "n/a");
		return;
	}
	if (json_is_string(v)) {
		if (!strcmp(fmt, "op"))
			op_name(buf, n, json_string_value(v));
		else
			snprintf(buf, n, "%s", json_string_value(v));
		return;
	}
	if (json_is_boolean(v)) {
		snprintf(buf, n, "%s", json_is_true(v) ? "true" : "false");
		return;
	}
	if (json_is_array(v) && !strcmp(fmt, "list")) {
		snprintf(buf, n, "none");	/* an empty list */
		return;
	}
	if (!json_is_number(v)) {
		snprintf(buf, n, "(%s)", json_is_array(v) ? "list" : "object");
		return;
	}
	x = json_number_value(v);
	if (!isfinite(x * 100)) {	/* never "inf %" */
		snprintf(buf, n, "n/a");
		return;
	}
	if (!strcmp(fmt, "pct"))
		snprintf(buf, n, "%.1f %%", x * 100);
	else if (!strcmp(fmt, "us") && fabs(x) >= 10000)
		snprintf(buf, n, "%.2f ms", x / 1e3);	/* readable */
	else if (!strcmp(fmt, "us"))
		snprintf(buf, n, "%.1f us", x);
	else if (!strcmp(fmt, "ms"))
		snprintf(buf, n, "%.2f ms", x / 1e3);
	else if (!strcmp(fmt, "s"))
		snprintf(buf, n, "%.3f s", x / 1e6);
	else if (!strcmp(fmt, "gib"))
		snprintf(buf, n, "%.2f GiB", x / 1073741824.0);
	else if (!strcmp(fmt, "mib"))
		snprintf(buf, n, "%.1f MiB", x / 1048576.0);
	else if (!strcmp(fmt, "gbps"))
		snprintf(buf, n, "%.3f GB/s", x);
	else if (!strcmp(fmt, "int"))
		snprintf(buf, n, "%.0f", x);
	else if (!strcmp(fmt, "steps"))	/* "1 step", "3 steps" */
		snprintf(buf, n, "%.0f step%s", x, x == 1 ? "" : "s");
	else
		snprintf(buf, n, "%.6g", x);
}

/* Render t[0..n) into m; returns the number of null fields met. */
static int
render_span(FILE *m, const char *t, size_t n, json_t *o)
{
	const char *p = t, *end = t + n;
	int nulls = 0;

	while (p < end) {
		const char *e;
		char path[160], fmt[16] = "", buf[256];
		json_t *v;
		size_t k;

		if (*p != '{' || !(e = memchr(p, '}', (size_t)(end - p)))) {
			fputc(*p++, m);
			continue;
		}
		k = strcspn(p + 1, "|}");
		snprintf(path, sizeof path, "%.*s", (int)(k < 159 ? k : 159),
		    p + 1);
		if (p[1 + k] == '|')
			snprintf(fmt, sizeof fmt, "%.*s",
			    (int)(e - (p + 2 + k)) < 15 ? (int)(e - (p + 2 + k)) :
			    15, p + 2 + k);
		v = pd_path_get(o, path);
		nulls += !v || json_is_null(v) ||
		    (json_is_array(v) && !json_array_size(v));
		if (json_is_array(v) && !strcmp(fmt, "list") &&
		    json_array_size(v))
			put_list(m, v);
		else {
			fmt_value(buf, sizeof buf, v, fmt);
			fputs(buf, m);
		}
		p = e + 1;
	}
	return nulls;
}

char *
pd_rules_render(const char *t, json_t *o)
{
	char *out = NULL, *part = NULL;
	size_t len = 0, plen = 0;
	FILE *m = open_memstream(&out, &len);
	const char *p = t, *a, *b;

	if (!m)
		pd_oom();
	/* <<...>> is dropped when a field inside it has no value */
	while ((a = strstr(p, "<<")) && (b = strstr(a + 2, ">>"))) {
		FILE *pm;
		int nulls;

		render_span(m, p, (size_t)(a - p), o);
		if (!(pm = open_memstream(&part, &plen)))
			pd_oom();
		nulls = render_span(pm, a + 2, (size_t)(b - a - 2), o);
		fclose(pm);
		if (!nulls)
			fputs(part, m);
		free(part);
		part = NULL;
		p = b + 2;
	}
	render_span(m, p, strlen(p), o);
	fclose(m);
	return out;
}

static void
put_value(json_t *vals, json_t *o, const char *path)
{
	json_t *v;

	if (json_object_get(vals, path))
		return;
	v = pd_path_get(o, path);
	json_object_set(vals, path, v && !json_is_object(v) &&
	    !json_is_array(v) ? v : json_null());
}

/* Every field a text's {field} placeholders read. */
static void
put_template(json_t *vals, json_t *o, const char *t)
{
	const char *p;

	for (p = t; p && (p = strchr(p, '{')); p++) {
		char path[160];
		size_t k = strcspn(p + 1, "|}");

		snprintf(path, sizeof path, "%.*s", (int)(k < 159 ? k : 159),
		    p + 1);
		put_value(vals, o, path);
	}
}

json_t *
pd_rules_values(const struct pd_rule *r, json_t *o)
{
	json_t *vals = json_object();
	size_t i;

	for (i = 0; i < r->nwhen; i++) {
		put_value(vals, o, r->when[i].field);
		if (r->when[i].over)
			put_value(vals, o, r->when[i].over);
	}
	for (i = 0; i < r->nimpact; i++)
		put_value(vals, o, r->impact[i]);
	if (r->impact_over)
		put_value(vals, o, r->impact_over);
	if (r->impact_minus)
		put_value(vals, o, r->impact_minus);
	if (r->impact_else)
		put_value(vals, o, r->impact_else);
	for (i = 0; i < r->nhandoff_if; i++)
		put_value(vals, o, r->handoff_if[i].field);
	if (r->subject)
		put_value(vals, o, r->subject);
	put_template(vals, o, r->evidence);
	put_template(vals, o, r->fix_proposal);
	put_template(vals, o, r->fix_effect);
	put_template(vals, o, r->fix_change);
	return vals;
}
