/* The log scanner: throughput and step-time figures in *.log, *.txt and
 * *.out, by a fixed list of patterns (POSIX extended regular expressions,
 * case-insensitive, tried in order; a later pattern never takes text an
 * earlier one matched). Also the AMP cues of config files. */
#include "pd-find-context/fc.h"
#include "pd_diag.h"

#include <ctype.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* a number, maybe with thousands separators: two groups */
#define NUM "([0-9]+(,[0-9][0-9][0-9])*[.]?[0-9]*)"
#define PERS "[ ]*(/|per[ ]+)[ ]*(s|sec|secs|second)([^a-z]|$)"

static const struct mpat {
	const char *need;	/* lower-case texts, |-separated, one must occur */
	const char *re;
	const char *name;
	const char *unit;	/* NULL: from group ugrp (ms or s), or null */
	int ngrp, ugrp;
} pats[] = {
	{ "elapsed time per iteration",
	  "elapsed time per iteration \\(ms\\):[ ]*" NUM,
	  "step_time", "ms", 1, 0 },
	{ "tflop/s/gpu", "throughput per gpu \\(tflop/s/gpu\\):[ ]*" NUM,
	  "tflops_per_device", "TFLOP/s", 1, 0 },
	{ "sampl|seq", NUM "[ ]*(samples?|seqs|sequences)" PERS,
	  "samples_per_s", "samples/s", 1, 0 },
	{ "im", NUM "[ ]*(images?|imgs?)" PERS, "images_per_s", "images/s",
	  1, 0 },
	{ "tok", NUM "[ ]*(tokens?|toks?)" PERS, "tokens_per_s", "tokens/s",
	  1, 0 },
	{ "samples_per_sec", "samples_per_sec(ond)?['\"]?[ ]*[:=][ ]*" NUM,
	  "samples_per_s", "samples/s", 2, 0 },
	{ "tokens_per_sec", "tokens_per_sec(ond)?['\"]?[ ]*[:=][ ]*" NUM,
	  "tokens_per_s", "tokens/s", 2, 0 },
	{ "steps_per_sec", "steps_per_sec(ond)?['\"]?[ ]*[:=][ ]*" NUM,
	  "iterations_per_s", "it/s", 2, 0 },
	{ "_ms", "(step|iter|iteration|batch)_(time_)?ms['\"]?[ ]*[:=]?[ ]*"
	  NUM, "step_time", "ms", 3, 0 },
	{ "_s", "(step|iter|iteration|batch)_(time_)?(s|sec|secs)['\"]?[ ]*"
	  "[:=]?[ ]*" NUM, "step_time", "s", 4, 0 },
	{ "it/s", NUM "[ ]*it/s", "iterations_per_s", "it/s", 1, 0 },
	{ "s/it", NUM "[ ]*s/it([^a-z]|$)", "step_time", "s", 1, 0 },
	{ "ms/", NUM "[ ]*ms/(step|it|iter|iteration|batch)", "step_time", "ms",
	  1, 0 },
	{ "s/", NUM "[ ]*s/(step|iter|iteration|batch)", "step_time", "s",
	  1, 0 },
	{ "time", "(step[ _-]?time|time[ _]per[ _]step|iteration[ _]time|"
	  "time/step|batch[ _]time)[^0-9a-z]{0,12}" NUM
	  "[ ]*(ms|milliseconds|s|sec|secs|seconds)?([^a-z]|$)",
	  "step_time", NULL, 2, 4 },
	{ "throughput", "throughput[^0-9a-z]{0,12}" NUM, "throughput", NULL,
	  1, 0 },
};
#define NPATS (sizeof pats / sizeof pats[0])
static regex_t rx[NPATS];

int
fc_log_init(void)
{
	size_t i;

	for (i = 0; i < NPATS; i++)
		if (regcomp(&rx[i], pats[i].re, REG_EXTENDED | REG_ICASE))
			return -1;
	return 0;
}

struct hit {
	regoff_t so, eo, at;
	size_t pat;
	double v;
	char unit[8];
};

static int
byat(const void *a, const void *b)
{
	const struct hit *x = a, *y = b;

	return x->at < y->at ? -1 : x->at > y->at;
}

static int
overlaps(const struct hit *h, size_t n, regoff_t so, regoff_t eo)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (so < h[i].eo && h[i].so < eo)
			return 1;
	return 0;
}

static double
number(const char *s, size_t n)
{
	char buf[64];
	size_t i, j = 0;

	for (i = 0; i < n && j < sizeof buf - 1; i++)
		if (s[i] != ',')
			buf[j++] = s[i];
	buf[j] = '\0';
	return strtod(buf, NULL);
}

/* Whether one of the |-separated texts occurs in the lower-cased line. */
static int
needed(const char *low, const char *need)
{
	char alt[32];
	const char *p = need, *e;

	while (*p) {
		e = strchr(p, '|');
		if (!e)
			e = p + strlen(p);
		snprintf(alt, sizeof alt, "%.*s", (int)(e - p), p);
		if (strstr(low, alt))
			return 1;
		p = *e ? e + 1 : e;
	}
	return 0;
}

static size_t
line_hits(const char *s, const char *low, struct hit *h, size_t max)
{
	regmatch_t m[8];
	size_t i, n = 0;

	for (i = 0; i < NPATS && n < max; i++) {
		const struct mpat *p = &pats[i];
		regoff_t off = 0;

		if (!needed(low, p->need))
			continue;

		while (n < max && regexec(&rx[i], s + off, 8, m,
		    off ? REG_NOTBOL : 0) == 0) {
			regoff_t so = off + m[0].rm_so, eo = off + m[0].rm_eo;
			const regmatch_t *g = &m[p->ngrp];

			if (eo == so)
				break;
			if (!overlaps(h, n, so, eo) && (so == 0 ||
			    !isdigit((unsigned char)s[off + g->rm_so]) ||
			    (!isalnum((unsigned char)s[so - 1]) &&
			    s[so - 1] != '.' && s[so - 1] != ','))) {
				h[n].so = so;
				h[n].eo = eo;
				h[n].at = off + g->rm_so;
				h[n].pat = i;
				h[n].v = number(s + off + g->rm_so,
				    (size_t)(g->rm_eo - g->rm_so));
				h[n].unit[0] = '\0';
				if (p->ugrp && m[p->ugrp].rm_so >= 0) {
					const char *u = s + off + m[p->ugrp].rm_so;

					strcpy(h[n].unit, tolower(
					    (unsigned char)u[0]) == 'm' ?
					    "ms" : "s");
				}
				n++;
			}
			off = eo;
			if (!s[off])
				break;
		}
	}
	qsort(h, n, sizeof *h, byat);
	return n;
}

/* A cheap test before the patterns: a digit and a unit-ish word. */
static int
maybe(const char *s)
{
	return strpbrk(s, "0123456789") && (strchr(s, '/') ||
	    strcasestr(s, "time") || strcasestr(s, "throughput") ||
	    strcasestr(s, "per_sec") || strcasestr(s, "step") ||
	    strcasestr(s, "iter") || strcasestr(s, "batch"));
}

/* Keep the last FC_MAXMETRICS figures of each name; a name is counted
 * under the first pattern of that name. */
static void
cap_names(struct fc_ws *w, json_t *found, const char **names)
{
	size_t i, k, n = json_array_size(found), total[NPATS], seen[NPATS];

	memset(total, 0, sizeof total);
	memset(seen, 0, sizeof seen);
	for (i = 0; i < n; i++)
		for (k = 0; k < NPATS; k++)
			if (strcmp(pats[k].name, names[i]) == 0) {
				total[k]++;
				break;
			}
	for (i = 0; i < n; i++) {
		for (k = 0; strcmp(pats[k].name, names[i]) != 0; k++)
			;
		if (total[k] - seen[k]++ > FC_MAXMETRICS)
			w->metrics_omitted++;
		else
			json_array_append(w->metrics, json_array_get(found, i));
	}
}

void
fc_log_scan(struct fc_ws *w, const struct fc_file *f, const char *buf,
    size_t len)
{
	json_t *found = json_array();
	const char **names = NULL;
	struct hit h[16];
	size_t i = 0, k, n;
	long line = 0;

	while (i < len) {
		const char *e = memchr(buf + i, '\n', len - i);
		size_t ln = e ? (size_t)(e - (buf + i)) : len - i;
		char *s = strndup(buf + i, ln);

		line++;
		if (!s)
			pd_oom();
		n = 0;
		if (maybe(s)) {
			char *low = strdup(s), *q;

			if (!low)
				pd_oom();
			for (q = low; *q; q++)
				*q = (char)tolower((unsigned char)*q);
			n = line_hits(s, low, h, 16);
			free(low);
		}
		for (k = 0; k < n; k++) {
			const struct mpat *p = &pats[h[k].pat];
			const char *unit = p->unit ? p->unit :
			    h[k].unit[0] ? h[k].unit : NULL;
			json_t *o = json_object();

			json_object_set_new(o, "name", pd_str(p->name));
			json_object_set_new(o, "value", json_real(h[k].v));
			json_object_set_new(o, "unit", unit ?
			    pd_str(unit) : json_null());
			json_object_set_new(o, "file", fc_jstr(f->rel,
			    strlen(f->rel), 0));
			json_object_set_new(o, "line", json_integer(line));
			json_array_append_new(found, o);
			names = realloc(names, json_array_size(found) *
			    sizeof *names);
			if (!names)
				pd_oom();
			names[json_array_size(found) - 1] = p->name;
		}
		free(s);
		i += ln + 1;
	}
	cap_names(w, found, names);
	free(names);
	json_decref(found);
}

void
fc_conf_scan(struct fc_ws *w, const struct fc_file *f, const char *buf,
    size_t len)
{
	size_t i = 0;

	(void)f;
	while (i < len && !w->amp) {
		const char *e = memchr(buf + i, '\n', len - i);
		size_t ln = e ? (size_t)(e - (buf + i)) : len - i;
		char *s = strndup(buf + i, ln), *c;

		if (!s)
			pd_oom();
		c = s + strspn(s, " \t");
		if (*c != '#' && *c != ';' && fc_amp_cue(s))
			w->amp = 1;
		free(s);
		i += ln + 1;
	}
}
