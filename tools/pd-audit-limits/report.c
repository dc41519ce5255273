/* Step 5 of the audit: final_report.md and final_report.html from the
 * records of the audit (pd.run, pd.limits, pd.verdict, pd.strategy,
 * pd.experiment): the verdict (RED: the red alarm, no resource saturated;
 * GREEN: a resource is, the bound one named), the job's use against the
 * ceilings as a chart, the top 3 measured changes with the diff of each,
 * the speed-ups as a before/after bar chart with noise bars (mean +- one
 * standard deviation), and the commands to reproduce. The page is
 * self-contained: inline SVG, no script, a CSP that allows nothing else. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "pd_atomic.h"
#include "pd_diag.h"
#include "pd_rec.h"

struct in {
	json_t *run, *limits, *verdict, *strategies, *experiments;
};

static void
gather(json_t *recs, struct in *a)
{
	size_t i;
	json_t *x;

	memset(a, 0, sizeof *a);
	a->strategies = json_array();
	a->experiments = json_array();
	json_array_foreach(recs, i, x) {
		if (pd_rec_is(x, "pd.run") && !a->run && !strstr(pd_rec_str(x,
		    "run") ? pd_rec_str(x, "run") : "", "-try"))
			a->run = x;
		else if (pd_rec_is(x, "pd.limits"))
			a->limits = x;
		else if (pd_rec_is(x, "pd.verdict"))
			a->verdict = x;
		else if (pd_rec_is(x, "pd.strategy"))
			json_array_append(a->strategies, x);
		else if (pd_rec_is(x, "pd.experiment"))
			json_array_append(a->experiments, x);
	}
}

static int
cmp_speedup(const void *p, const void *q)
{
	json_t *x = *(json_t *const *)p, *y = *(json_t *const *)q;
	int mx = !strcmp(pd_rec_str(x, "status"), "measured");
	int my = !strcmp(pd_rec_str(y, "status"), "measured");
	double sx = pd_rec_num(x, "speedup", 0), sy = pd_rec_num(y, "speedup",
	    0);

	if (mx != my)
		return my - mx;
	if (sx != sy)
		return sx < sy ? 1 : -1;
	return strcmp(pd_rec_str(x, "experiment"), pd_rec_str(y, "experiment"));
}

/* Experiments, measured ones first by speed-up (NEW array). */
static json_t *
ranked(json_t *ex)
{
	size_t n = json_array_size(ex), i;
	json_t **v = calloc(n + 1, sizeof *v), *out = json_array();

	for (i = 0; i < n; i++)
		v[i] = json_array_get(ex, i);
	qsort(v, n, sizeof *v, cmp_speedup);
	for (i = 0; i < n; i++)
		json_array_append(out, v[i]);
	free(v);
	return out;
}

static const char *
level(struct in *a)
{
	if (!a->verdict)
		return "NO VERDICT";
	if (json_is_true(json_object_get(a->verdict, "alarm")))
		return "RED";
	return json_array_size(json_object_get(a->verdict, "saturated")) ?
	    "GREEN" : "NO EVIDENCE";
}

static void
bound_name(struct in *a, char *buf, size_t size)
{
	json_t *b = json_object_get(a->verdict, "bound");

	if (!b || json_is_null(b))
		snprintf(buf, size, "none");
	else
		snprintf(buf, size, "%s%s%s", pd_rec_str(b, "resource"),
		    pd_rec_str(b, "device") ? ":" : "", pd_rec_str(b,
		    "device") ? pd_rec_str(b, "device") : "");
}

static void
command_of(json_t *run, FILE *f, int html)
{
	size_t i;
	json_t *w;

	json_array_foreach(json_object_get(run, "command"), i, w) {
		if (i)
			fputc(' ', f);
		if (html)
			audit_html_esc(f, json_string_value(w));
		else
			fputs(json_string_value(w), f);
	}
}

/* ---- Markdown ---- */

static char *
report_md(struct in *a, json_t *ex)
{
	char *buf = NULL, bn[128];
	size_t len = 0, i, k = 0;
	FILE *f = open_memstream(&buf, &len);
	json_t *x;

	bound_name(a, bn, sizeof bn);
	fprintf(f, "# Efficiency audit: final report\n\n## Verdict: %s\n\n",
	    level(a));
	if (a->verdict)
		fprintf(f, "%s. Bound resource: %s.\n\n", pd_rec_str(a->verdict,
		    "summary"), bn);
	json_array_foreach(json_object_get(a->limits, "warnings"), i, x)
		fprintf(f, "%s\n\n", json_string_value(x));
	fputs("## The job's use against the ceilings\n\n| resource | metric | "
	    "median of ceiling | saturated |\n|---|---|---|---|\n", f);
	json_array_foreach(json_object_get(a->verdict, "resources"), i, x) {
		if (!json_is_true(json_object_get(x, "counts")))
			continue;
		fprintf(f, "| %s%s%s | %s | ", pd_rec_str(x, "resource"),
		    pd_rec_str(x, "device") ? ":" : "", pd_rec_str(x,
		    "device") ? pd_rec_str(x, "device") : "", pd_rec_str(x,
		    "metric"));
		if (json_is_number(json_object_get(x, "median_ratio")))
			fprintf(f, "%.0f %%", 100 * pd_rec_num(x,
			    "median_ratio", 0));
		else
			fputs("not judged", f);
		fprintf(f, " | %s |\n", json_is_true(json_object_get(x,
		    "saturated")) ? "yes" : "no");
	}
	fputs("\n## Top changes (measured)\n\n", f);
	json_array_foreach(ex, i, x) {
		json_t *m = json_object_get(x, "metric");

		if (strcmp(pd_rec_str(x, "status"), "measured") || k >= 3)
			continue;
		k++;
		fprintf(f, "### %zu. %s: %.3fx\n\nWall time %.3f s \xc2\xb1 %.3f "
		    "before, %.3f s \xc2\xb1 %.3f after (noise %.3f s, %lld "
		    "runs each).\n\n```diff\n%s```\n\n", k, pd_rec_str(x,
		    "experiment"), pd_rec_num(x, "speedup", 0), pd_rec_num(m,
		    "before", 0), pd_rec_num(m, "before_sd", 0), pd_rec_num(m,
		    "after", 0), pd_rec_num(m, "after_sd", 0), pd_rec_num(m,
		    "noise", 0), (long long)pd_rec_int(x, "runs", 0),
		    pd_rec_str(x, "diff") ? pd_rec_str(x, "diff") : "");
	}
	if (!k)
		fputs("No change gave a measurable gain.\n\n", f);
	fputs("## Experiments\n\n| experiment | status | before s | after s | "
	    "speed-up | log |\n|---|---|---|---|---|---|\n", f);
	json_array_foreach(ex, i, x) {
		json_t *m = json_object_get(x, "metric");

		fprintf(f, "| %s | %s | %.3f | %.3f | %.3fx | %s |\n",
		    pd_rec_str(x, "experiment"), pd_rec_str(x, "status"),
		    pd_rec_num(m, "before", NAN), pd_rec_num(m, "after", NAN),
		    pd_rec_num(x, "speedup", NAN), pd_rec_str(x, "log"));
	}
	fputs("\n## Strategies\n\nSee strategies.md; ranked:\n\n", f);
	json_array_foreach(a->strategies, i, x)
		fprintf(f, "%lld. %s (%s, expected %.1f %%)\n",
		    (long long)pd_rec_int(x, "position", 0), pd_rec_str(x, "id"),
		    pd_rec_str(x, "level"), 100 * pd_rec_num(x,
		    "expected_gain_ratio", 0));
	fputs("\n## Reproduce\n\n```sh\n", f);
	if (a->run) {
		fputs("pd-collect -- ", f);
		command_of(a->run, f, 0);
		fputs(" > run.jsonl\n", f);
	}
	fputs("cat context.jsonl run.jsonl | pd-audit-limits -s -o "
	    "report/efficiency > audit.jsonl\n", f);
	json_array_foreach(ex, i, x)
		fprintf(f, "pd-audit-limits -o report/efficiency -x %s -N %lld "
		    "-b '%s' -a '%s' >> audit.jsonl\n", pd_rec_str(x,
		    "experiment"), (long long)pd_rec_int(x, "runs", 0),
		    pd_rec_str(x, "before_command"), pd_rec_str(x,
		    "after_command"));
	fputs("pd-audit-limits -R -o report/efficiency audit.jsonl\n```\n", f);
	fclose(f);
	return buf;
}

/* ---- HTML ---- */

#define W 640

static void
chart_limits(FILE *f, struct in *a)
{
	json_t *x, *res = json_object_get(a->verdict, "resources");
	size_t i, n = 0;
	int y;

	json_array_foreach(res, i, x)
		n += json_is_true(json_object_get(x, "counts")) &&
		    json_is_number(json_object_get(x, "median_ratio"));
	fprintf(f, "<svg id=\"chart-limits\" xmlns=\"http://www.w3.org/2000/"
	    "svg\" width=\"%d\" height=\"%zu\" role=\"img\" aria-label=\"the "
	    "job's use of each resource against its ceiling\">\n", W,
	    40 + 30 * (n ? n : 1));
	fprintf(f, "<rect x=\"160\" y=\"10\" width=\"400\" height=\"%zu\" "
	    "fill=\"#f3f3f3\"/>\n", 30 * (n ? n : 1));
	fprintf(f, "<line x1=\"440\" y1=\"5\" x2=\"440\" y2=\"%zu\" stroke="
	    "\"#c00\" stroke-dasharray=\"4\"/><text x=\"444\" y=\"%zu\" "
	    "font-size=\"11\">70 %%</text>\n", 15 + 30 * (n ? n : 1),
	    28 + 30 * (n ? n : 1));
	fprintf(f, "<text x=\"560\" y=\"%zu\" font-size=\"11\" text-anchor="
	    "\"end\">ceiling</text>\n", 28 + 30 * (n ? n : 1));
	y = 10;
	json_array_foreach(res, i, x) {
		double m = pd_rec_num(x, "median_ratio", NAN);
		int sat = json_is_true(json_object_get(x, "saturated"));

		if (!json_is_true(json_object_get(x, "counts")) || isnan(m))
			continue;
		fprintf(f, "<text x=\"150\" y=\"%d\" font-size=\"12\" text-"
		    "anchor=\"end\">", y + 19);
		audit_html_esc(f, pd_rec_str(x, "resource"));
		if (pd_rec_str(x, "device")) {
			fputc(':', f);
			audit_html_esc(f, pd_rec_str(x, "device"));
		}
		fprintf(f, "</text><rect x=\"160\" y=\"%d\" width=\"%.1f\" "
		    "height=\"20\" fill=\"%s\"/><text x=\"%.1f\" y=\"%d\" "
		    "font-size=\"11\">%.0f %%</text>\n", y + 5, 400 * fmin(1, m),
		    sat ? "#2a7" : "#d64", 165 + 400 * fmin(1, m), y + 19,
		    100 * m);
		y += 30;
	}
	fputs("</svg>\n", f);
}

static void
chart_speedups(FILE *f, json_t *ex)
{
	size_t i, n = json_array_size(ex);
	double top = 0;
	json_t *x;
	int h = 220, base = 190;

	json_array_foreach(ex, i, x) {
		json_t *m = json_object_get(x, "metric");

		top = fmax(top, pd_rec_num(m, "before", 0) + pd_rec_num(m,
		    "before_sd", 0));
		top = fmax(top, pd_rec_num(m, "after", 0) + pd_rec_num(m,
		    "after_sd", 0));
	}
	if (top <= 0)
		top = 1;
	fprintf(f, "<svg id=\"chart-speedups\" xmlns=\"http://www.w3.org/2000/"
	    "svg\" width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"wall "
	    "time before and after each change, with noise bars\">\n", W, h);
	fprintf(f, "<line x1=\"40\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke="
	    "\"#333\"/>\n<text x=\"4\" y=\"20\" font-size=\"11\">%.2f s"
	    "</text>\n", base, W - 10, base, top);
	json_array_foreach(ex, i, x) {
		json_t *m = json_object_get(x, "metric");
		int side;
		double gx = 50 + i * (double)(W - 60) / (n ? n : 1);

		for (side = 0; side < 2; side++) {
			double v = pd_rec_num(m, side ? "after" : "before", 0);
			double sd = pd_rec_num(m, side ? "after_sd" :
			    "before_sd", 0);
			double bh = (base - 20) * v / top, x0 = gx + side * 44;
			double e1 = (base - 20) * (v - sd) / top;
			double e2 = (base - 20) * (v + sd) / top;

			fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"40\" "
			    "height=\"%.1f\" fill=\"%s\"/>\n<line x1=\"%.1f\" "
			    "y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000\""
			    "/>\n", x0, base - bh, bh, side ? "#37a" : "#aaa",
			    x0 + 20, base - e1, x0 + 20, base - e2);
		}
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" font-size=\"11\">", gx,
		    base + 16);
		audit_html_esc(f, pd_rec_str(x, "experiment"));
		fprintf(f, " (%s)</text>\n", pd_rec_str(x, "status"));
	}
	fprintf(f, "<rect x=\"%d\" y=\"8\" width=\"10\" height=\"10\" fill="
	    "\"#aaa\"/><text x=\"%d\" y=\"17\" font-size=\"11\">before</text>"
	    "<rect x=\"%d\" y=\"24\" width=\"10\" height=\"10\" fill=\"#37a\"/>"
	    "<text x=\"%d\" y=\"33\" font-size=\"11\">after</text>\n</svg>\n",
	    W - 80, W - 66, W - 80, W - 66);
}

static char *
report_html(struct in *a, json_t *ex)
{
	char *buf = NULL, bn[128];
	size_t len = 0, i, k = 0;
	FILE *f = open_memstream(&buf, &len);
	json_t *x, *cpu = json_object_get(a->limits, "cpu");
	json_t *mem = json_object_get(a->limits, "memory");
	const char *lv = level(a);

	bound_name(a, bn, sizeof bn);
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src"
	    " 'none'; style-src 'unsafe-inline'\"><title>Efficiency audit"
	    "</title><style>body{font-family:sans-serif;max-width:60em;margin:"
	    "2em auto;color:#222}.RED{background:#c22;color:#fff}.GREEN{"
	    "background:#2a7;color:#fff}.verdict{padding:.5em 1em;display:"
	    "inline-block;font-weight:bold}pre{background:#f6f6f6;padding:.5em;"
	    "overflow:auto}td,th{border-bottom:1px solid #ccc;padding:.3em;"
	    "text-align:left}</style></head><body>\n"
	    "<h1>Efficiency audit: final report</h1>\n", f);
	fprintf(f, "<p class=\"verdict %s\">%s</p>\n<p>", lv, lv);
	audit_html_esc(f, a->verdict ? pd_rec_str(a->verdict, "summary") :
	    "no pd.verdict in the input");
	fputs(". Bound resource: <b>", f);
	audit_html_esc(f, bn);
	fputs("</b>.</p>\n", f);
	json_array_foreach(json_object_get(a->limits, "warnings"), i, x) {
		fputs("<p><b>", f);
		audit_html_esc(f, json_string_value(x));
		fputs("</b></p>\n", f);
	}
	fputs("<h2>The job's use against the ceilings</h2>\n", f);
	chart_limits(f, a);
	fputs("<table><tr><th>ceiling</th><th>value</th></tr>\n", f);
	fprintf(f, "<tr><td>CPU peak fp64 (spec)</td><td>%.1f GFLOP/s</td></tr>"
	    "\n<tr><td>CPU fp64 measured</td><td>%.1f GFLOP/s</td></tr>\n"
	    "<tr><td>CPUs the job may use</td><td>%.2f</td></tr>\n<tr><td>"
	    "memory bandwidth (STREAM triad)</td><td>%.2f GB/s</td></tr>\n",
	    pd_rec_num(cpu, "peak_gflops_fp64", NAN), pd_rec_num(cpu,
	    "measured_gflops_fp64", NAN), pd_rec_num(cpu, "available_cpus",
	    NAN), pd_rec_num(mem, "stream_triad_gb_per_s", NAN));
	fprintf(f, "<tr><td>disk sequential read</td><td>%.2f GB/s</td></tr>\n",
	    pd_rec_num(json_object_get(a->limits, "disk"), "read_gb_per_s",
	    NAN));
	json_array_foreach(json_object_get(a->limits, "accelerators"), i, x) {
		fputs("<tr><td>", f);
		audit_html_esc(f, pd_rec_str(x, "name"));
		fprintf(f, " bf16 / memory</td><td>%.1f TFLOP/s / %.2f TB/s"
		    "</td></tr>\n", pd_rec_num(x, "bf16_tflops", NAN),
		    pd_rec_num(x, "mem_bw_tb_per_s", NAN));
	}
	fputs("</table>\n<h2>Top changes (measured)</h2>\n", f);
	json_array_foreach(ex, i, x) {
		json_t *m = json_object_get(x, "metric");

		if (strcmp(pd_rec_str(x, "status"), "measured") || k >= 3)
			continue;
		k++;
		fprintf(f, "<h3>%zu. ", k);
		audit_html_esc(f, pd_rec_str(x, "experiment"));
		fprintf(f, ": %.3f\xc3\x97 faster</h3>\n<p>wall time %.3f s "
		    "\xc2\xb1 %.3f before, %.3f s \xc2\xb1 %.3f after (noise %.3f"
		    " s, %lld runs each)</p>\n<pre>", pd_rec_num(x, "speedup", 0),
		    pd_rec_num(m, "before", 0), pd_rec_num(m, "before_sd", 0),
		    pd_rec_num(m, "after", 0), pd_rec_num(m, "after_sd", 0),
		    pd_rec_num(m, "noise", 0), (long long)pd_rec_int(x, "runs",
		    0));
		audit_html_esc(f, pd_rec_str(x, "diff"));
		fputs("</pre>\n", f);
	}
	if (!k)
		fputs("<p>No change gave a measurable gain.</p>\n", f);
	fputs("<h2>Speed-ups</h2>\n", f);
	chart_speedups(f, ex);
	fputs("<table><tr><th>experiment</th><th>status</th><th>speed-up</th>"
	    "<th>log</th></tr>\n", f);
	json_array_foreach(ex, i, x) {
		fputs("<tr><td>", f);
		audit_html_esc(f, pd_rec_str(x, "experiment"));
		fputs("</td><td>", f);
		audit_html_esc(f, pd_rec_str(x, "status"));
		if (pd_rec_str(x, "reason")) {
			fputs(": ", f);
			audit_html_esc(f, pd_rec_str(x, "reason"));
		}
		fprintf(f, "</td><td>%.3f\xc3\x97</td><td>", pd_rec_num(x,
		    "speedup", NAN));
		audit_html_esc(f, pd_rec_str(x, "log"));
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n<h2>Strategies</h2>\n<ol>\n", f);
	json_array_foreach(a->strategies, i, x) {
		fputs("<li>", f);
		audit_html_esc(f, pd_rec_str(x, "id"));
		fprintf(f, " (%s, expected %.1f %%): ", pd_rec_str(x, "level"),
		    100 * pd_rec_num(x, "expected_gain_ratio", 0));
		audit_html_esc(f, pd_rec_str(x, "proposal"));
		fputs("</li>\n", f);
	}
	fputs("</ol>\n<h2>Reproduce</h2>\n<pre>", f);
	if (a->run) {
		fputs("pd-collect -- ", f);
		command_of(a->run, f, 1);
		fputs(" &gt; run.jsonl\n", f);
	}
	fputs("cat context.jsonl run.jsonl | pd-audit-limits -s -o "
	    "report/efficiency &gt; audit.jsonl\n", f);
	json_array_foreach(ex, i, x) {
		fprintf(f, "pd-audit-limits -o report/efficiency -x ");
		audit_html_esc(f, pd_rec_str(x, "experiment"));
		fprintf(f, " -N %lld -b '", (long long)pd_rec_int(x, "runs", 0));
		audit_html_esc(f, pd_rec_str(x, "before_command"));
		fputs("' -a '", f);
		audit_html_esc(f, pd_rec_str(x, "after_command"));
		fputs("' &gt;&gt; audit.jsonl\n", f);
	}
	fputs("pd-audit-limits -R -o report/efficiency audit.jsonl</pre>\n"
	    "</body></html>\n", f);
	fclose(f);
	return buf;
}

int
audit_report(json_t *recs, const char *outdir)
{
	struct in a;
	json_t *ex;
	char *md, *html;
	int rc = 0;

	gather(recs, &a);
	if (!a.verdict)
		pd_warn(NULL, 0, "no pd.verdict in the input: the report has no "
		    "verdict");
	ex = ranked(a.experiments);
	md = report_md(&a, ex);
	html = report_html(&a, ex);
	if (pd_atomic_write(outdir, "final_report.md", md, strlen(md)) ||
	    pd_atomic_write(outdir, "final_report.html", html, strlen(html)))
		rc = -1;
	free(md);
	free(html);
	json_decref(ex);
	json_decref(a.strategies);
	json_decref(a.experiments);
	return rc;
}
