/* pd_rules: diagnosis rules as data (YAML, read with libyaml); the format
 * is documented in pd-rules(5).
 *
 * A rule reads fields of the records of one root (scope "root": paths start
 * with step., comm., mem., input., gaps., hotspot., root., profile. or
 * context.) or of the run (scope "run": profile. and context.), fires when
 * all its conditions hold, and says how much of the step time it accounts
 * for (impact), how sure, and what to do.
 *
 * pd_rules_load() reports every problem as "file:line:col: message" through
 * pd_error and returns PD_EXIT_CONFIG; rules already loaded stay usable. A
 * later file overrides rules of the same id and adds new ones. A file
 * loaded without a problem leaves its compiled form in the cache
 * directory (pd_rcache.h); a later load of the same bytes by the same
 * program reads that instead of parsing (the rules' strings then stay
 * mapped until the process ends). A program with the form of a file
 * built in (pd-classify: share/rules/default.yaml) reads that for the
 * same bytes, with no parse and no cache. A field added to the structures below
 * is added to that form too (encode/decode in pd_rules.c). */
#ifndef PD_RULES_H
#define PD_RULES_H

#include <jansson.h>
#include <stddef.h>

enum pd_op { PD_OP_GT, PD_OP_GE, PD_OP_LT, PD_OP_LE, PD_OP_EQ, PD_OP_NE,
	PD_OP_EXISTS, PD_OP_ABSENT };

struct pd_cond {
	char *field;
	enum pd_op op;
	json_t *value;		/* number, string or boolean; NULL for exists */
	char *over;		/* compare field / over (a ratio), or NULL */
};

/* A hint or validation step: text shown when all of when[] hold and, if
 * any[] is not empty, at least one of any[] does. */
struct pd_text {
	char *text;
	struct pd_cond *when, *any;
	size_t nwhen, nany;
};

/* Texts of a rule for some stacks: what is not NULL (or not empty)
 * replaces the rule's own on a run of one of those stacks where all of
 * when[] hold and, if any[] is not empty, one of any[] does. */
struct pd_variant {
	char **stacks;
	size_t nstacks;
	char *name;		/* the record's "variant"; NULL: stacks[0] */
	struct pd_cond *when, *any;
	size_t nwhen, nany;
	char *title, *evidence, *fix_proposal, *fix_effect, *fix_change;
	struct pd_text *validation, *hints;
	size_t nvalidation, nhints;
};

struct pd_rule {
	char *id, *title, *domain, *scope, *severity, *source, *evidence;
	char *subject, *handoff;
	struct pd_cond *when, *handoff_if;
	size_t nwhen, nhandoff_if;
	char **impact;		/* fields multiplied together */
	size_t nimpact;
	double impact_value;	/* constant impact when nimpact == 0 */
	double impact_scale;
	char *impact_over;	/* divisor field, or NULL */
	char *impact_minus;	/* subtracted field (null counts as 0), or NULL */
	char *impact_else;	/* field used as is when impact has no value */
	double impact_else_value;	/* or this constant (NaN: none) */
	struct pd_text *validation, *hints;
	size_t nvalidation, nhints;
	char *fix_proposal, *fix_effect, *fix_change;
	char **stacks;		/* the stacks it applies to; NULL: any */
	size_t nstacks;
	struct pd_variant *variants;
	size_t nvariants;
	char **explains;	/* ids of the rules whose findings this one's
				 * cause explains (pd-rules(5)) */
	size_t nexplains;
	int explains_line, explains_col;
	int fallback;		/* evaluated only when no other rule fires */
	double confidence_max;	/* cap on the finding's confidence */
	char *path_share;	/* field: the share of the critical path its
				 * bound type covers, or NULL */
	int enabled;
	char *file;
	int line;
};

struct pd_rules {
	struct pd_rule *v;
	size_t n, cap;
	char *dominant_evidence;	/* appended to the dominant finding's
					 * evidence, or NULL */
	struct pd_cond *path_when;	/* when the critical path is used */
	size_t npath_when;
};

/* Load (or override from) a rules file. 0, or PD_EXIT_CONFIG/SYSTEM. */
int pd_rules_load(struct pd_rules *r, const char *path);
void pd_rules_free(struct pd_rules *r);

/* The compiled form (as the cache keeps it, pd_rcache.h) of the rules
 * file path whose bytes are text[0..len): 0 and *form (malloc'd, *flen
 * bytes), or PD_EXIT_CONFIG with its problems said as pd_rules_load
 * says them. For a program that builds the form in
 * (build-aux/rcache-form.c). */
int pd_rules_compile(const char *path, const void *text, size_t len,
    void **form, size_t *flen);

/* Checks between rules, once every file is loaded: each id a rule
 * explains names another loaded rule. Says each problem as
 * "file:line:col: message"; 0 or PD_EXIT_CONFIG. */
int pd_rules_check(const struct pd_rules *r);

/* Whether a rule (or variant) with these stacks applies to a run whose
 * pd.profile stack object is stack (NULL: unknown, only "any" applies). */
int pd_rules_stack_match(char *const *stacks, size_t n, json_t *stack);

/* The first variant of r that matches stack and whose conditions hold
 * on o (the records the rule fired on; NULL: only variants without
 * conditions match), or NULL. */
const struct pd_variant *pd_rules_variant(const struct pd_rule *r,
    json_t *stack, json_t *o);

/* Whether a hint or validation text applies on o. */
int pd_rules_text_holds(const struct pd_text *t, json_t *o);

/* Whether a condition holds on o; *checked is set when its field has a
 * value (evidence exists). */
int pd_rules_test(const struct pd_cond *c, json_t *o, int *checked);

/* How far the value is beyond the threshold, 0..1 (1 for non-numeric). */
double pd_rules_margin(const struct pd_cond *c, json_t *o);

/* The evidence text with every {path} or {path|fmt} replaced by the value
 * read from o (fmt: pct, us, ms, s, gib, mib, gbps, int, op, list; null ->
 * "n/a").
 * Caller frees. */
char *pd_rules_render(const char *tmpl, json_t *o);

/* Every field path the rule reads (conditions, impact, subject, template),
 * with its value in o: an object (new reference). */
json_t *pd_rules_values(const struct pd_rule *r, json_t *o);

#endif
