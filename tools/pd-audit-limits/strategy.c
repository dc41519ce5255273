/* Step 3 of the audit: ranked strategies. Candidates come from share/
 * limits/strategies.yaml; each applies the fix of a diagnosis rule (the
 * rendered fix of its pd.bottleneck when the rule fired, else the rule's
 * own text), with the evidence that points at it: the bottleneck, the
 * pd-find-context findings, the verdict. Writes strategies.md, analysis
 * .html, and for a strategy with an edit recipe and a finding that locates
 * it an edited copy of the script under experiments/<id>/ (the user's
 * files are never changed). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "audit.h"
#include "pd_atomic.h"
#include "pd_diag.h"
#include "pd_rec.h"
#include "pd_share.h"
#include "pd_smi.h"
#include "pd_yamlio.h"

static json_t *
load_share(const char *path, const char *rel, const char *list)
{
	char buf[4096];
	json_t *d;

	if (!path && !(path = pd_share_path(rel, buf, sizeof buf))) {
		pd_error(NULL, 0, "%s not found (set PD_SHAREDIR)", rel);
		return NULL;
	}
	if ((d = pd_yamlio_load(path)) && !json_is_array(json_object_get(d,
	    list))) {
		pd_error(path, 0, "no '%s' list", list);
		json_decref(d);
		d = NULL;
	}
	return d;
}

static json_t *
by_key(json_t *arr, const char *key, const char *val)
{
	size_t i;
	json_t *x;

	json_array_foreach(arr, i, x)
		if (val && pd_rec_str(x, key) && !strcmp(pd_rec_str(x, key), val))
			return x;
	return NULL;
}

static int
has_str(json_t *arr, const char *s)
{
	size_t i;
	json_t *x;

	json_array_foreach(arr, i, x)
		if (json_is_string(x) && s && !strcmp(json_string_value(x), s))
			return 1;
	return 0;
}

/* A rule's own text is used only without unrendered {placeholders}. */
static const char *
plain(const char *s)
{
	return s && !strchr(s, '{') ? s : NULL;
}

/* ---- the edited copy ---- */

/* Insert or set arg=value in the call that starts on line (1-based) of
 * text; NULL when the call is not found there. */
static char *
edit_call(const char *text, long line, const char *call, const char *arg,
    const char *value)
{
	const char *p = text, *c, *q, *end;
	char argeq[64], *out;
	int depth = 0;
	char quote = 0;
	size_t n;
	long l;

	for (l = 1; l < line && (p = strchr(p, '\n')); l++)
		p++;
	if (!p || !(c = strstr(p, call)) || ((q = strchr(p, '\n')) && c > q))
		return NULL;
	q = c + strlen(call) - 1;	/* the '(' */
	for (end = q; *end; end++) {
		if (quote) {
			if (*end == '\\' && end[1])
				end++;
			else if (*end == quote)
				quote = 0;
		} else if (*end == '\'' || *end == '"')
			quote = *end;
		else if (*end == '(')
			depth++;
		else if (*end == ')' && --depth == 0)
			break;
	}
	if (!*end)
		return NULL;
	snprintf(argeq, sizeof argeq, "%s=", arg);
	n = strlen(text) + strlen(arg) + strlen(value) + 8;
	if (!(out = malloc(n)))
		return NULL;
	{
		const char *a = strstr(q, argeq);

		if (a && a < end) {	/* set the value already there */
			const char *v = a + strlen(argeq), *ve = v;

			while (ve < end && *ve != ',' && *ve != ')')
				ve++;
			snprintf(out, n, "%.*s%s%s", (int)(v - text), text,
			    value, ve);
		} else {
			const char *b = end;

			while (b > q + 1 && strchr(" \t\n", b[-1]))
				b--;
			snprintf(out, n, "%.*s%s%s=%s%s", (int)(b - text), text,
			    b == q + 1 ? "" : b[-1] == ',' ? " " : ", ", arg,
			    value, b);
		}
	}
	return out;
}

static int
write_file(const char *path, const char *text)
{
	char dir[8192], *slash;

	snprintf(dir, sizeof dir, "%s", path);
	if (!(slash = strrchr(dir, '/')))
		return -1;
	*slash = 0;
	return pd_atomic_write(dir, slash + 1, text, strlen(text));
}

static int
mkdirs(const char *path)
{
	char b[8192];
	char *p;

	snprintf(b, sizeof b, "%s", path);
	for (p = b + 1; *p; p++)
		if (*p == '/') {
			*p = 0;
			if (mkdir(b, 0777) != 0 && errno != EEXIST)
				return -1;
			*p = '/';
		}
	return mkdir(b, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

/* experiments/<id>/<script> for a strategy with an edit and a finding
 * that locates the call; the copy's path relative to outdir, or NULL. */
static char *
edited_copy(json_t *st, json_t *finding, json_t *limits, const char *outdir)
{
	json_t *ed = json_object_get(st, "edit");
	const char *root = pd_rec_str(finding, "root");
	const char *file = pd_rec_str(finding, "file");
	const char *val = pd_rec_str(ed, "value");
	char src[4096], rel[4096], dst[8192], vbuf[32], *text, *out;
	const char *base;

	if (!ed || !root || !file || !val)
		return NULL;
	if (!strcmp(val, "cpus")) {	/* workers: the usable CPUs, 2..8 */
		double c = pd_rec_num(json_object_get(limits, "cpu"),
		    "available_cpus", 2);

		snprintf(vbuf, sizeof vbuf, "%d", c < 2 ? 2 : c > 8 ? 8 :
		    (int)c);
		val = vbuf;
	}
	snprintf(src, sizeof src, "%s/%s", root, file);
	if (!(text = pd_smi_slurp(src, NULL)))
		return NULL;
	out = edit_call(text, pd_rec_int(finding, "line", 0),
	    pd_rec_str(ed, "call"), pd_rec_str(ed, "arg"), val);
	free(text);
	if (!out)
		return NULL;
	base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
	snprintf(rel, sizeof rel, "experiments/%s/%s", pd_rec_str(st, "id"),
	    base);
	snprintf(dst, sizeof dst, "%s/experiments/%s", outdir,
	    pd_rec_str(st, "id"));
	if (mkdirs(dst) != 0 || (snprintf(dst, sizeof dst, "%s/%s", outdir,
	    rel), write_file(dst, out) != 0)) {
		pd_error(dst, 0, "%s", strerror(errno));
		pd_diag_status(PD_EXIT_SYSTEM);
		free(out);
		return NULL;
	}
	free(out);
	return strdup(rel);
}

/* ---- ranking ---- */

static int
cmp_gain(const void *a, const void *b)
{
	json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
	double gx = pd_rec_num(x, "expected_gain_ratio", 0);
	double gy = pd_rec_num(y, "expected_gain_ratio", 0);

	if (gx != gy)
		return gx < gy ? 1 : -1;
	return strcmp(pd_rec_str(x, "id"), pd_rec_str(y, "id"));
}

static json_t *
one(json_t *st, json_t *rules, json_t *in, json_t *verdict, json_t *limits,
    const char *outdir)
{
	json_t *r = pd_rec_new("pd.strategy", 1, NULL), *ev = json_array();
	json_t *rule = by_key(rules, "id", pd_rec_str(st, "rule")), *fix;
	json_t *bn = NULL, *fd = NULL, *x, *res = json_object_get(st,
	    "resources");
	double prior = pd_rec_num(st, "prior_gain_ratio", 0), gain, rel = 1;
	const char *src, *bound = NULL;
	char buf[1024], *copy = NULL;
	size_t i;

	json_array_foreach(in, i, x) {
		if (!bn && pd_rec_is(x, "pd.bottleneck") && pd_rec_str(x,
		    "rule") && pd_rec_str(st, "rule") && !strcmp(pd_rec_str(x,
		    "rule"), pd_rec_str(st, "rule")))
			bn = x;
		if (pd_rec_is(x, "pd.finding") && has_str(json_object_get(st,
		    "findings"), pd_rec_str(x, "check")) && (!fd ||
		    (!strcmp(pd_rec_str(fd, "severity"), "info") &&
		    !strcmp(pd_rec_str(x, "severity"), "warn"))))
			fd = x;
	}
	if (bn) {
		gain = pd_rec_num(bn, "impact", 0);
		src = "bottleneck";
		snprintf(buf, sizeof buf, "%s: %s", pd_rec_str(bn, "rule"),
		    pd_rec_str(bn, "evidence") ? pd_rec_str(bn, "evidence") :
		    "fired");
		json_array_append_new(ev, json_string(buf));
	} else if (fd) {
		gain = prior * (!strcmp(pd_rec_str(fd, "severity"), "warn") ? 1 :
		    0.5);
		src = "finding";
	} else {
		gain = prior * 0.1;
		src = "prior";
	}
	json_array_foreach(in, i, x)
		if (pd_rec_is(x, "pd.finding") && has_str(json_object_get(st,
		    "findings"), pd_rec_str(x, "check"))) {
			snprintf(buf, sizeof buf, "%s:%lld: %s (%s)",
			    pd_rec_str(x, "file"), (long long)pd_rec_int(x,
			    "line", 0), pd_rec_str(x, "check"),
			    pd_rec_str(x, "severity"));
			json_array_append_new(ev, json_string(buf));
		}
	if (verdict) {
		json_t *b = json_object_get(verdict, "bound");
		int alarm = json_is_true(json_object_get(verdict, "alarm"));

		bound = alarm ? "idle" : pd_rec_str(b, "resource");
		if (bound && !has_str(res, bound))
			rel = 0.5;
		snprintf(buf, sizeof buf, "verdict: %s", pd_rec_str(verdict,
		    "summary") ? pd_rec_str(verdict, "summary") : "?");
		json_array_append_new(ev, json_string(buf));
	}
	gain *= rel;
	fix = bn ? json_object_get(bn, "fix") : json_object_get(rule, "fix");
	pd_set_null(r, "root");
	pd_set_null(r, "rank");
	pd_set_str(r, "id", pd_rec_str(st, "id"));
	pd_set_str(r, "level", pd_rec_str(st, "level"));
	pd_set_int(r, "position", 0);
	pd_set_real(r, "expected_gain_ratio", gain, 4);
	pd_set_str(r, "gain_from", src);
	pd_set_str(r, "rule", pd_rec_str(st, "rule"));
	pd_set_str(r, "title", pd_rec_str(rule, "title"));
	pd_set_str(r, "proposal", bn ? pd_rec_str(fix, "proposal") :
	    plain(pd_rec_str(fix, "proposal")));
	pd_set_str(r, "change", bn ? pd_rec_str(fix, "change") :
	    plain(pd_rec_str(fix, "change")));
	pd_set_str(r, "hint", fd ? pd_rec_str(fd, "hint") : NULL);
	pd_set_str(r, "source", pd_rec_str(bn ? bn : rule, "source"));
	pd_set_str(r, "prior_source", pd_rec_str(st, "prior_source"));
	pd_set(r, "evidence", ev);
	if (fd && outdir)
		copy = edited_copy(st, fd, limits, outdir);
	pd_set_str(r, "edited_copy", copy);
	pd_set_str(r, "edited_from", copy ? pd_rec_str(fd, "file") : NULL);
	free(copy);
	return r;
}

/* ---- strategies.md and analysis.html ---- */

static void
md_text(FILE *f, const char *s)
{
	for (; s && *s; s++)
		fputs(*s == '|' ? "\\|" : *s == '\n' ? " " : (char[]){ *s, 0 },
		    f);
}

static char *
strategies_md(json_t *list, json_t *verdict)
{
	char *buf = NULL;
	size_t len = 0, i, j;
	FILE *f = open_memstream(&buf, &len);
	json_t *s, *e;

	fputs("# Strategies\n\n", f);
	if (verdict) {
		fputs("Verdict: ", f);
		md_text(f, pd_rec_str(verdict, "summary"));
		fputs("\n\n", f);
	}
	fputs("Ranked by expected gain (share of run time; from a fired rule's "
	    "impact, else a static finding with the rule's prior, else the "
	    "prior alone as a candidate). The experiments measure.\n\n", f);
	fputs("| # | level | strategy | expected gain | from | rule |\n"
	    "|---|---|---|---|---|---|\n", f);
	json_array_foreach(list, i, s) {
		fprintf(f, "| %lld | %s | %s | %.1f %% | %s | %s |\n",
		    (long long)pd_rec_int(s, "position", 0), pd_rec_str(s,
		    "level"), pd_rec_str(s, "id"), 100 * pd_rec_num(s,
		    "expected_gain_ratio", 0), pd_rec_str(s, "gain_from"),
		    pd_rec_str(s, "rule"));
	}
	json_array_foreach(list, i, s) {
		fprintf(f, "\n## %lld. %s (%s)\n\n", (long long)pd_rec_int(s,
		    "position", 0), pd_rec_str(s, "id"), pd_rec_str(s, "level"));
		if (pd_rec_str(s, "title")) {
			fputs("Rule: ", f);
			md_text(f, pd_rec_str(s, "rule"));
			fputs(" \xe2\x80\x94 ", f);
			md_text(f, pd_rec_str(s, "title"));
			fputs("\n\n", f);
		}
		if (pd_rec_str(s, "proposal")) {
			fputs("- Proposal: ", f);
			md_text(f, pd_rec_str(s, "proposal"));
			fputs("\n", f);
		}
		if (pd_rec_str(s, "change")) {
			fputs("- Change: `", f);
			md_text(f, pd_rec_str(s, "change"));
			fputs("`\n", f);
		}
		if (pd_rec_str(s, "hint")) {
			fputs("- Hint of the finding: ", f);
			md_text(f, pd_rec_str(s, "hint"));
			fputs("\n", f);
		}
		if (pd_rec_str(s, "edited_copy"))
			fprintf(f, "- Edited copy to try: `%s` (from `%s`)\n",
			    pd_rec_str(s, "edited_copy"), pd_rec_str(s,
			    "edited_from"));
		fputs("- Evidence:\n", f);
		json_array_foreach(json_object_get(s, "evidence"), j, e) {
			fputs("  - ", f);
			md_text(f, json_string_value(e));
			fputs("\n", f);
		}
		fputs("- Source: ", f);
		md_text(f, pd_rec_str(s, "source") ? pd_rec_str(s, "source") :
		    pd_rec_str(s, "prior_source"));
		fputs("\n", f);
	}
	fclose(f);
	return buf;
}

void
audit_html_esc(FILE *f, const char *s)
{
	for (; s && *s; s++)
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*s, f);
		}
}

/* The static pipeline analysis: the findings by area, with the demand the
 * samples measured beside them. */
static char *
analysis_html(json_t *in, json_t *verdict)
{
	static const struct { const char *area, *checks; } areas[] = {
		{ "Data loading", " dataloader_workers pin_memory " },
		{ "Mixed precision (AMP)", " no_amp cudnn_benchmark " },
		{ "Unbatched I/O in the step", " disk_io_in_loop print_in_loop " },
		{ "Host-device copies and syncs", " item_in_loop cpu_in_loop "
		    "sync_in_loop " },
	};
	char *buf = NULL;
	size_t len = 0, i, k;
	FILE *f = open_memstream(&buf, &len);
	json_t *x;

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src"
	    " 'none'; style-src 'unsafe-inline'\"><title>Pipeline analysis"
	    "</title><style>body{font-family:sans-serif;max-width:60em;margin:"
	    "2em auto}td,th{border-bottom:1px solid #ccc;padding:.3em;text-"
	    "align:left}</style></head><body>\n<h1>Pipeline analysis</h1>\n",
	    f);
	if (verdict) {
		json_t *c = json_object_get(verdict, "contention");

		fputs("<p>Measured: ", f);
		audit_html_esc(f, pd_rec_str(verdict, "summary"));
		if (c)
			fprintf(f, "; the job's CPU: %.0f %% used, %.0f %% "
			    "waiting to run", 100 * pd_rec_num(c, "job_ratio",
			    0), 100 * pd_rec_num(c, "job_wait_ratio", 0));
		fputs(".</p>\n", f);
	}
	for (k = 0; k < sizeof areas / sizeof areas[0]; k++) {
		int n = 0;

		fprintf(f, "<h2>%s</h2>\n", areas[k].area);
		json_array_foreach(in, i, x) {
			char key[64];

			if (!pd_rec_is(x, "pd.finding"))
				continue;
			snprintf(key, sizeof key, " %s ", pd_rec_str(x, "check") ?
			    pd_rec_str(x, "check") : "");
			if (!strstr(areas[k].checks, key))
				continue;
			if (!n++)
				fputs("<table><tr><th>where</th><th>check</th>"
				    "<th>why</th><th>what to try</th></tr>\n", f);
			fputs("<tr><td>", f);
			audit_html_esc(f, pd_rec_str(x, "file"));
			fprintf(f, ":%lld</td><td>", (long long)pd_rec_int(x,
			    "line", 0));
			audit_html_esc(f, pd_rec_str(x, "check"));
			fputs("</td><td>", f);
			audit_html_esc(f, pd_rec_str(x, "text"));
			fputs("</td><td>", f);
			audit_html_esc(f, pd_rec_str(x, "hint"));
			fputs("</td></tr>\n", f);
		}
		fputs(n ? "</table>\n" : "<p>Nothing found.</p>\n", f);
	}
	fputs("</body></html>\n", f);
	fclose(f);
	return buf;
}

json_t *
audit_strategies(json_t *in, json_t *verdict, json_t *limits,
    const char *outdir, const char *file)
{
	json_t *cat = load_share(file, "limits/strategies.yaml", "strategies");
	json_t *rules = load_share(NULL, "rules/default.yaml", "rules");
	json_t *out, *st, **v;
	size_t i, n;
	char *md, *html;

	if (!cat || !rules) {
		json_decref(cat);
		json_decref(rules);
		pd_diag_status(PD_EXIT_CONFIG);
		return NULL;
	}
	n = json_array_size(json_object_get(cat, "strategies"));
	v = calloc(n + 1, sizeof *v);
	json_array_foreach(json_object_get(cat, "strategies"), i, st)
		v[i] = one(st, json_object_get(rules, "rules"), in, verdict,
		    limits, outdir);
	qsort(v, n, sizeof *v, cmp_gain);
	out = json_array();
	for (i = 0; i < n; i++) {
		pd_set_int(v[i], "position", (json_int_t)i + 1);
		json_array_append_new(out, v[i]);
	}
	free(v);
	md = strategies_md(out, verdict);
	html = analysis_html(in, verdict);
	if (pd_atomic_write(outdir, "strategies.md", md, strlen(md)) ||
	    pd_atomic_write(outdir, "analysis.html", html, strlen(html)))
		pd_diag_status(PD_EXIT_SYSTEM);
	free(md);
	free(html);
	json_decref(cat);
	json_decref(rules);
	return out;
}
