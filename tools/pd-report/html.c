/* report.html: one self-contained page drawn from report.json: inline CSS,
 * inline SVG charts, no script, no network request. Everything taken from
 * the input is HTML-escaped. */
#include <math.h>
#include <string.h>

#include "report.h"

#define W 760		/* chart width */
#define LABEL 150	/* label column of bar charts */
#define ROW 24		/* bar row height */
#define CAND_X 250	/* where the candidates' bars start */
#define RANK_BARS 32	/* more ranks: a heatmap and a histogram */
#define CELLS 1024	/* heatmap cells at most (a cell per rank range) */
#define COLS 64		/* heatmap columns */
#define ROOTS_SHOWN 16	/* profiler roots listed when there are more */

static const char css[] =
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;"
    "margin:0;background:#f6f7f9;color:#1d2330}"
    "main{max-width:960px;margin:0 auto;padding:24px}"
    "h1{font-size:24px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;"
    "border-bottom:1px solid #d8dce3;padding-bottom:4px}"
    "h3{font-size:15px;margin:16px 0 4px}"
    ".card{background:#fff;border:1px solid #d8dce3;border-radius:8px;"
    "padding:14px 18px;margin:12px 0}"
    ".dominant{border-left:6px solid #c0392b}"
    ".muted{color:#5b6475}.big{font-size:20px;font-weight:600}"
    "table{border-collapse:collapse;width:100%;background:#fff}"
    "th,td{border:1px solid #e1e4ea;padding:4px 8px;text-align:left;"
    "vertical-align:top}td.n,th.n{text-align:right;white-space:nowrap;"
    "font-variant-numeric:tabular-nums}th{background:#eef0f4}"
    "code{font:12px ui-monospace,monospace;background:#eef0f4;"
    "padding:1px 4px;border-radius:3px}"
    "svg{display:block;width:100%;height:auto;background:#fff;"
    "border:1px solid #e1e4ea;border-radius:6px}"
    "svg text{font:12px system-ui,sans-serif;fill:#1d2330}"
    "svg .axis{stroke:#9aa3b2;stroke-width:1}"
    "svg .grid{stroke:#e6e9ef;stroke-width:1}"
    ".legend span{display:inline-block;margin-right:14px}"
    ".legend i{display:inline-block;width:11px;height:11px;margin-right:4px;"
    "vertical-align:-1px;border-radius:2px}"
    "ul{margin:4px 0;padding-left:20px}li{margin:2px 0}"
    ".sev-high{color:#c0392b;font-weight:600}.sev-medium{color:#b9770e}"
    ".sev-low{color:#5b6475}"
    ".improved{color:#1e8449;font-weight:600}"
    ".regressed{color:#c0392b;font-weight:600}"
    "footer{margin:32px 0 8px;color:#5b6475;font-size:12px}"
    "code,td,p,li{overflow-wrap:anywhere}.run{margin:0 0 4px}";

#define segs report_segs

static void
esc(FILE *f, const char *s)
{
	if (!s) {
		fputs("-", f);
		return;
	}
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*s, f);
		}
	}
}

/* At most n characters of s, escaped, with "..." when cut (UTF-8 safe:
 * never cuts inside a sequence). */
static void
esc_cut(FILE *f, const char *s, size_t n)
{
	char buf[256];
	size_t len;

	if (!s || strlen(s) <= n || n + 4 > sizeof buf) {
		esc(f, s);
		return;
	}
	len = n;
	while (len > 0 && ((unsigned char)s[len] & 0xc0) == 0x80)
		len--;
	memcpy(buf, s, len);
	strcpy(buf + len, "...");
	esc(f, buf);
}

static const char *
str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static json_t *
get(json_t *o, const char *key)
{
	return json_object_get(o, key);
}

static double
num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static void
svg_open(FILE *f, const char *id, int h, const char *label)
{
	fprintf(f, "<svg id=\"%s\" role=\"img\" aria-label=\"", id);
	esc(f, label);
	fprintf(f, "\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
	    "xmlns=\"http://www.w3.org/2000/svg\">\n", W, h, W, h);
}

static void
bar(FILE *f, double x, double y, double w, double h, const char *color,
    const char *tip, const char *tipval)
{
	if (!(w > 0) || !isfinite(x + y + w + h))
		return;	/* no "inf" or "nan" in an attribute */
	fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
	    "fill=\"%s\"><title>", x, y, w, h, color);
	esc(f, tip);
	fputs(": ", f);
	esc(f, tipval);
	fputs("</title></rect>\n", f);
}

/* Whether any rank of steps_by_rank has a value for segment k. */
static int
seg_used(json_t *a, int k)
{
	json_t *e;
	size_t i;

	json_array_foreach(a, i, e)
		if (json_is_number(get(get(e, "segments"), segs[k].key)))
			return 1;
	return 0;
}

/* One rank's row of the step table: rank, steps, mean step, then each
 * segment some rank of a has. */
static void
rank_row(FILE *f, json_t *a, json_t *e, size_t n)
{
	int k;

	fprintf(f, "<tr><td>%s</td><td class=\"n\">%s</td>"
	    "<td class=\"n\">%s</td>", rank_label(e, n),
	    fmt_num(get(e, "steps")), fmt_us(get(e, "mean_us")));
	for (k = 0; segs[k].key; k++)
		if (seg_used(a, k))
			fprintf(f, "<td class=\"n\">%s</td>",
			    fmt_us(get(get(e, "segments"), segs[k].key)));
	fputs("</tr>\n", f);
}

static void
legend(FILE *f, json_t *a)
{
	int k;

	fputs("<p class=\"legend\">", f);
	for (k = 0; segs[k].key; k++)
		if (seg_used(a, k))
			fprintf(f, "<span><i style=\"background:%s\"></i>%s"
			    "</span>", segs[k].color, segs[k].label);
	fputs("</p>\n", f);
}

static void
header(json_t *r, FILE *f)
{
	json_t *dom = get(r, "dominant"), *fix = get(r, "proposed_fix");
	json_t *sym = get(r, "symptom");

	fputs("<header><h1>perfdiag report", f);
	if (str(r, "name")) {
		fputs(": ", f);
		esc(f, str(r, "name"));
	}
	fputs("</h1>", f);
	if (str(r, "run") && (!str(r, "name") ||
	    strcmp(str(r, "run"), str(r, "name")) != 0)) {
		fputs("<p class=\"run muted\">run <code>", f);
		esc(f, str(r, "run"));
		fputs("</code></p>", f);
	}
	fputs("<p class=\"muted\">symptom: ", f);
	esc(f, str(sym, "symptom"));
	fputs(" &middot; ", f);
	esc(f, str(sym, "summary"));
	fputs("</p></header>\n", f);
	if (json_is_object(dom)) {
		fputs("<section class=\"card dominant\" id=\"dominant\">"
		    "<div class=\"muted\">Dominant bottleneck</div>"
		    "<div class=\"big\">", f);
		esc(f, str(dom, "title"));
		fputs("</div><p><code>", f);
		esc(f, str(dom, "rule"));
		fputs("</code> &middot; domain ", f);
		esc(f, str(dom, "domain"));
		fprintf(f, " &middot; impact <b>%s</b>%s &middot; confidence %s (",
		    fmt_ratio(get(dom, "impact")),
		    json_is_true(get(dom, "impact_estimated")) ?
		    " estimated, not measured" : "",
		    fmt_ratio(get(dom, "confidence")));
		esc(f, str(dom, "confidence_level"));
		fputs(")</p>", f);
		if (str(dom, "evidence")) {
			fputs("<p>", f);
			esc(f, str(dom, "evidence"));
			fputs("</p>", f);
		}
		if (json_is_object(fix) && str(fix, "proposal")) {
			fputs("<p><b>Proposed fix:</b> ", f);
			esc(f, str(fix, "proposal"));
			if (str(fix, "effect")) {
				fputs(" <span class=\"muted\">Expected effect: ", f);
				esc(f, str(fix, "effect"));
				fputs("</span>", f);
			}
			if (str(fix, "change")) {
				fputs("<br><b>Change:</b> ", f);
				esc(f, str(fix, "change"));
			}
			fputs("</p>", f);
		}
		fputs("</section>\n", f);
	}
}

static void
row(FILE *f, const char *k, const char *v)
{
	fprintf(f, "<tr><th>%s</th><td>", k);
	esc(f, v);
	fputs("</td></tr>\n", f);
}

static void
workload(json_t *r, FILE *f)
{
	json_t *w = get(r, "workload"), *rt = get(r, "runtime");
	json_t *st = get(rt, "step"), *stack = get(w, "stack");
	char buf[256];

	fputs("<h2>Workload and runtime</h2>\n<table id=\"workload\">\n", f);
	row(f, "workload", str(w, "workload"));
	snprintf(buf, sizeof buf, "%s / %s",
	    str(stack, "family") ? str(stack, "family") : "-",
	    str(stack, "device") ? str(stack, "device") : "-");
	row(f, "stack", buf);
	row(f, "ranks", ranks_text(w));
	if (str(w, "entry_script"))
		row(f, "entry script", str(w, "entry_script"));
	snprintf(buf, sizeof buf, "%s (median %s, p90 %s, %s)",
	    fmt_us(get(st, "mean_us")), fmt_us(get(st, "median_us")),
	    fmt_us(get(st, "p90_us")), steps_text(st));
	row(f, "mean step", buf);
	row(f, "steps per second", fmt_sig(get(st, "steps_per_s")));
	snprintf(buf, sizeof buf, "%s (%s)", fmt_ratio(get(rt, "confidence")),
	    str(rt, "confidence_level") ? str(rt, "confidence_level") : "-");
	row(f, "confidence", buf);
	fputs("</table>\n", f);
}

/* The heat colour of t in [0, 1]: pale blue (fast) to red (slow). */
static const char *
heat(double t)
{
	static char b[8];
	static const int c0[3] = { 219, 231, 248 }, c1[3] = { 192, 57, 43 };
	int c[3], k;

	if (!(t >= 0))
		t = 0;
	if (t > 1)
		t = 1;
	for (k = 0; k < 3; k++)
		c[k] = (int)lround(c0[k] + (c1[k] - c0[k]) * t);
	snprintf(b, sizeof b, "#%02x%02x%02x", c[0], c[1], c[2]);
	return b;
}

/* Many ranks: one cell per rank (per range of ranks beyond CELLS, drawn
 * by its slowest), coloured by the mean step from the fastest rank to the
 * slowest; then the histogram of rank_stats. */
static void
rank_heatmap(json_t *r, FILE *f)
{
	json_t *a = get(r, "steps_by_rank"), *st = get(r, "rank_stats"), *e;
	json_t *hist = get(st, "histogram");
	size_t i, n = json_array_size(a), per = (n + CELLS - 1) / CELLS;
	size_t cells = (n + per - 1) / per, rows = (cells + COLS - 1) / COLS;
	double lo = num(st, "min_us"), hi = num(st, "max_us"), cw, hmax = 0;
	int h, b, nb = (int)json_array_size(hist);

	fprintf(f, "<p id=\"rank-stats\">%s ranks: mean step from <b>%s</b> "
	    "(rank %s) to <b>%s</b> (rank %s), median %s.</p>\n",
	    fmt_num(get(st, "ranks")), fmt_us(get(st, "min_us")),
	    fmt_num(get(st, "min_rank")), fmt_us(get(st, "max_us")),
	    fmt_num(get(st, "max_rank")), fmt_us(get(st, "median_us")));
	cw = (double)(W - 20) / COLS;
	h = 20 + (int)rows * (int)(cw + 0.5) + 24;
	svg_open(f, "chart-rank-heatmap", h, "mean step per rank, as colour");
	for (i = 0; i < cells; i++) {
		size_t j, first = i * per, last = first + per;
		double worst = NAN;
		json_t *we = NULL;

		if (last > n)
			last = n;
		for (j = first; j < last; j++) {
			double x = num(json_array_get(a, j), "mean_us");

			if (!isnan(x) && (isnan(worst) || x > worst)) {
				worst = x;
				we = json_array_get(a, j);
			}
		}
		e = json_array_get(a, first);
		fprintf(f, "<rect class=\"cell\" x=\"%.1f\" y=\"%.1f\" "
		    "width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>",
		    10 + cw * (double)(i % COLS), 10 + cw * (double)(i / COLS),
		    cw - 1, cw - 1, isnan(worst) ? "#ffffff" : heat(hi > lo ?
		    (worst - lo) / (hi - lo) : 0));
		if (per > 1)
			fprintf(f, "%s to %s, slowest %s: ", rank_label(e, n),
			    rank_label(json_array_get(a, last - 1), n),
			    we ? rank_label(we, n) : "-");
		else
			fprintf(f, "%s: ", rank_label(e, n));
		fprintf(f, "%s</title></rect>\n", fmt_dus(worst));
	}
	fprintf(f, "<text x=\"10\" y=\"%d\">fastest %s</text><text x=\"%d\" "
	    "y=\"%d\" text-anchor=\"end\">slowest %s</text>\n</svg>\n",
	    h - 8, fmt_dus(lo), W - 10, h - 8, fmt_dus(hi));
	if (nb == 0)
		return;
	for (b = 0; b < nb; b++)
		if (num(json_array_get(hist, (size_t)b), "count") > hmax)
			hmax = num(json_array_get(hist, (size_t)b), "count");
	h = 200;
	svg_open(f, "chart-rank-hist", h, "ranks by mean step");
	for (b = 0; b < nb; b++) {
		json_t *x = json_array_get(hist, (size_t)b);
		double bw = (W - 80.0) / nb, c = num(x, "count");
		double bh = hmax > 0 ? c / hmax * 140 : 0;
		char tip[96];

		snprintf(tip, sizeof tip, "%s to %s", fmt_us(get(x, "lo_us")),
		    fmt_us(get(x, "hi_us")));
		fprintf(f, "<rect class=\"bin\" x=\"%.1f\" y=\"%.1f\" "
		    "width=\"%.1f\" height=\"%.1f\" fill=\"#3b6fd8\"><title>"
		    "%s: %s ranks</title></rect>\n", 60 + bw * b + 1, 160 - bh,
		    bw - 2, bh, tip, fmt_num(get(x, "count")));
	}
	fprintf(f, "<line class=\"axis\" x1=\"60\" y1=\"160\" x2=\"%d\" "
	    "y2=\"160\"/>\n<text x=\"54\" y=\"24\" text-anchor=\"end\">"
	    "%.0f</text><text x=\"54\" y=\"164\" text-anchor=\"end\">0"
	    "</text>\n<text x=\"60\" y=\"178\">%s</text><text x=\"%d\" "
	    "y=\"178\" text-anchor=\"end\">%s</text>\n<text x=\"%d\" "
	    "y=\"194\" text-anchor=\"middle\">mean step (median %s)</text>"
	    "<text x=\"14\" y=\"90\" text-anchor=\"middle\" "
	    "transform=\"rotate(-90 14 90)\">ranks</text>\n</svg>\n",
	    W - 20, hmax, fmt_dus(lo), W - 20, fmt_dus(hi), W / 2 + 20,
	    fmt_us(get(st, "median_us")));
}

/* A colour by name from a table of n {name, colour} pairs; dflt for a
 * name not in it (or NULL). */
struct name_color {
	const char *name, *color;
};

static const char *
pick_color(const struct name_color *k, size_t n, const char *name,
    const char *dflt)
{
	size_t i;

	for (i = 0; name && i < n; i++)
		if (!strcmp(name, k[i].name))
			return k[i].color;
	return dflt;
}

/* The strip's lanes: colour by kind. */
static const char *
lane_color(const char *kind)
{
	static const struct name_color k[] = {
		{ "input", "#e67e22" }, { "host", "#7f8c8d" },
		{ "launch", "#5d6d7e" }, { "sync", "#c0392b" },
		{ "communication", "#8e44ad" }, { "device", "#2e86c1" },
	};

	return pick_color(k, sizeof k / sizeof k[0], kind, "#95a5a6");
}

#define STRIP_ROW 22	/* a lane's height */
#define STRIP_X 190	/* where the timeline starts */
#define STRIP_R 64	/* busy share column on the right */

/* One step, lane by lane (report.json strip): each lane's spans as one
 * path (a few hundred at most), launch calls as ticks. */
static void
strip(json_t *r, FILE *f)
{
	json_t *s = get(r, "strip"), *l, *sp;
	double dur = num(s, "dur_us"), tw = W - STRIP_X - STRIP_R;
	size_t i, j, n = json_array_size(get(s, "lanes"));
	int h, t;

	if (!json_is_object(s) || n == 0 || !(dur > 0))
		return;
	fputs("<h2>One step, lane by lane</h2>\n<p id=\"strip-what\">", f);
	esc(f, strip_what(s));
	fprintf(f, ", %s.", fmt_us(get(s, "dur_us")));
	if (json_integer_value(get(s, "lanes_left_out")) > 0)
		fprintf(f, " %s quieter device lanes are left out.",
		    fmt_num(get(s, "lanes_left_out")));
	fputs("</p>\n", f);
	h = 10 + (int)n * STRIP_ROW + 26;
	svg_open(f, "chart-strip", h, "one step, lane by lane");
	for (t = 0; t <= 4; t++) {
		double x = STRIP_X + tw * t / 4;

		fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"8\" x2=\"%.1f\" "
		    "y2=\"%d\"/><text x=\"%.1f\" y=\"%d\" text-anchor=\"%s\">"
		    "%s</text>\n", x, x, h - 22, x, h - 8, t == 0 ? "start" :
		    t == 4 ? "end" : "middle", fmt_dus(dur * t / 4));
	}
	json_array_foreach(get(s, "lanes"), i, l) {
		const char *kind = str(l, "kind");
		int launch = kind && !strcmp(kind, "launch");
		double y = 10 + (double)i * STRIP_ROW;

		fprintf(f, "<g class=\"lane\"><title>");
		esc(f, str(l, "name"));
		fprintf(f, ": %s busy, %s spans", launch ? "-" :
		    fmt_us(get(l, "busy_us")), fmt_num(get(l, "count")));
		if (num(l, "wait_us") > 0)
			fprintf(f, ", %s waiting for another stream",
			    fmt_us(get(l, "wait_us")));
		fprintf(f, "</title><text x=\"6\" y=\"%.1f\">", y + 15);
		esc_cut(f, str(l, "name"), 26);
		fprintf(f, "</text><path fill=\"%s\" d=\"", lane_color(kind));
		json_array_foreach(get(l, "spans"), j, sp) {
			double a = json_number_value(json_array_get(sp, 0));
			double d = json_number_value(json_array_get(sp, 1));
			double x = STRIP_X + a / dur * tw, w = d / dur * tw;

			if (!isfinite(x + w))
				continue;
			if (w < 0.6)
				w = 0.6;	/* an instant or a short span */
			fprintf(f, "M%.1f %.1fh%.1fv%dh%.1fz", x, y + (launch ?
			    6 : 3), w, launch ? 8 : STRIP_ROW - 6, -w);
		}
		fprintf(f, "\"/><text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">"
		    "%s</text></g>\n", W - 6, y + 15, launch ? "" :
		    fmt_dratio(num(l, "busy_us") / dur));
	}
	fputs("</svg>\n", f);
}

/* Many ranks: the table of the slowest ones (rank_stats), their parts. */
static void
slowest_table(json_t *r, FILE *f)
{
	json_t *a = get(r, "steps_by_rank"), *sl = get(get(r, "rank_stats"),
	    "slowest"), *x, *e;
	size_t i, j, n = json_array_size(a);
	int k;

	fprintf(f, "<p class=\"muted\">The %zu slowest ranks (every rank is in "
	    "report.json):</p>\n<table id=\"slowest-ranks\"><tr><th>rank</th>"
	    "<th class=\"n\">steps</th><th class=\"n\">step</th>",
	    json_array_size(sl));
	for (k = 0; segs[k].key; k++)
		if (seg_used(a, k))
			fprintf(f, "<th class=\"n\">%s</th>", segs[k].label);
	fputs("</tr>\n", f);
	json_array_foreach(sl, j, x) {
		e = NULL;
		json_array_foreach(a, i, e)
			if (json_equal(get(e, "rank"), get(x, "rank")))
				break;
		if (i >= n || !e)
			continue;
		rank_row(f, a, e, n);
	}
	fputs("</table>\n", f);
}

static void
steps(json_t *r, FILE *f)
{
	json_t *a = get(r, "steps_by_rank"), *e;
	double max = 0, scale;
	size_t i, n = json_array_size(a);
	int h, k;

	if (n == 0)
		return;
	json_array_foreach(a, i, e)
		if (num(e, "mean_us") > max)
			max = num(e, "mean_us");
	if (n > RANK_BARS && json_is_object(get(r, "rank_stats"))) {
		fputs("<h2>Step time across ranks</h2>\n", f);
		rank_heatmap(r, f);
		slowest_table(r, f);
		return;
	}
	h = 30 + (int)n * ROW;
	fputs("<h2>Step breakdown per rank</h2>\n"
	    "<p class=\"muted\">Mean time per step and what it was spent on."
	    "</p>\n", f);
	svg_open(f, "chart-steps", h, "step breakdown per rank");
	scale = max > 0 ? (W - LABEL - 110) / max : 0;
	json_array_foreach(a, i, e) {
		double x = LABEL, y = 10 + (double)i * ROW;
		json_t *sg = get(e, "segments");
		int known = 0;

		fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">",
		    LABEL - 8, y + 15);
		fputs(rank_label(e, n), f);
		fputs("<title>", f);
		esc(f, str(e, "root"));
		fputs("</title></text>\n", f);
		for (k = 0; segs[k].key; k++)
			known += !isnan(num(sg, segs[k].key));
		if (!known) {
			bar(f, x, y + 2, num(e, "mean_us") * scale, ROW - 6,
			    "#7f8c8d", "step (no breakdown)",
			    fmt_us(get(e, "mean_us")));
			if (!isnan(num(e, "mean_us")))
				x += num(e, "mean_us") * scale;
		}
		for (k = 0; known && segs[k].key; k++) {
			double v = num(sg, segs[k].key);

			if (isnan(v))
				continue;
			bar(f, x, y + 2, v * scale, ROW - 6, segs[k].color,
			    segs[k].label, fmt_us(get(sg, segs[k].key)));
			x += v * scale;
		}
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">%s</text>\n", x + 6,
		    y + 15, fmt_us(get(e, "mean_us")));
	}
	fprintf(f, "<line class=\"axis\" x1=\"%d\" y1=\"6\" x2=\"%d\" "
	    "y2=\"%d\"/>\n</svg>\n", LABEL, LABEL, h - 14);
	legend(f, a);
	fputs("<table><tr><th>rank</th><th class=\"n\">steps</th>"
	    "<th class=\"n\">step</th>", f);
	for (k = 0; segs[k].key; k++)
		if (seg_used(a, k))
			fprintf(f, "<th class=\"n\">%s</th>", segs[k].label);
	fputs("</tr>\n", f);
	json_array_foreach(a, i, e) {
		rank_row(f, a, e, n);
	}
	fputs("</table>\n", f);
}

/* The step at i of the series: its time, and the parts drawn. */
static double
series_top(json_t *e)
{
	double t = num(e, "step_us"), sum = 0;
	int k;

	for (k = 0; segs[k].key; k++)
		if (!isnan(num(e, segs[k].key)))
			sum += num(e, segs[k].key);
	return isnan(t) || sum > t ? sum : t;
}

/* Per step of one rank: a stacked bar of the step's parts (the pd.step
 * values), the rest of the step time as "other". */
static void
step_series(json_t *r, FILE *f)
{
	json_t *ser = get(r, "step_series"), *a = get(ser, "steps"), *e;
	size_t i, n = json_array_size(a), every;
	double max = 0, slot, bw, x0 = 70, y0 = 220, ph = 200;
	int h = 260, k, used[16] = { 0 };

	if (n == 0)
		return;
	json_array_foreach(a, i, e)
		if (series_top(e) > max)
			max = series_top(e);
	if (!(max > 0) || !isfinite(max))
		return;
	fputs("<h2>Step by step</h2>\n<p class=\"muted\">", f);
	fprintf(f, "Each step of %s", rank_label(ser, 1));
	if (str(ser, "chosen") && !strcmp(str(ser, "chosen"), "slowest"))
		fprintf(f, " (the slowest of %s ranks by mean step)",
		    fmt_num(get(ser, "ranks")));
	if (json_integer_value(get(ser, "steps_total")) > (json_int_t)n)
		fprintf(f, ", the first %zu of %s steps", n,
		    fmt_num(get(ser, "steps_total")));
	fputs(", and what it was spent on.</p>\n", f);
	svg_open(f, "chart-step-series", h, "step time per step");
	slot = (W - x0 - 14) / (double)n;
	bw = slot > 3 ? slot * 0.8 : slot;
	every = n > 12 ? (n + 11) / 12 : 1;
	for (k = 0; k <= 2; k++) {
		double y = y0 - ph * k / 2;

		fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" "
		    "x2=\"%d\" y2=\"%.1f\"/>\n<text x=\"%.1f\" y=\"%.1f\" "
		    "text-anchor=\"end\">%s</text>\n", x0, y, W - 14, y,
		    x0 - 6, y + 4, fmt_dus(max * k / 2));
	}
	json_array_foreach(a, i, e) {
		double x = x0 + slot * (double)i + (slot - bw) / 2, y = y0;
		double t = num(e, "step_us"), sum = 0, v;
		int known = 0;

		fprintf(f, "<g class=\"step\"><title>step %s: %s</title>\n",
		    fmt_num(get(e, "step")), fmt_us(get(e, "step_us")));
		for (k = 0; segs[k].key; k++) {
			if (isnan(v = num(e, segs[k].key)))
				continue;
			known++;
			sum += v;
			used[k] |= v > 0;
			if (!(v > 0))
				continue;
			fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			    "height=\"%.1f\" fill=\"%s\"><title>step %s, %s: "
			    "%s</title></rect>\n", x, y - v / max * ph, bw,
			    v / max * ph, segs[k].color, fmt_num(get(e, "step")),
			    segs[k].label, fmt_us(get(e, segs[k].key)));
			y -= v / max * ph;
		}
		/* the step time the parts leave, or the whole step */
		v = isnan(t) ? 0 : t - sum;
		if (v > 0.0005 && v / max * ph > 0.05) {
			fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			    "height=\"%.1f\" fill=\"#7f8c8d\"><title>step %s, "
			    "%s: %s</title></rect>\n", x, y - v / max * ph, bw,
			    v / max * ph, fmt_num(get(e, "step")),
			    known ? "other" : "step (no breakdown)", fmt_dus(v));
			used[15] = 1;
		}
		fputs("</g>\n", f);
		if (i % every == 0)
			fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" "
			    "text-anchor=\"middle\">%s</text>\n", x + bw / 2,
			    y0 + 16, fmt_num(get(e, "step")));
	}
	fprintf(f, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%d\" "
	    "y2=\"%.1f\"/>\n<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" "
	    "x2=\"%.1f\" y2=\"%.1f\"/>\n", x0, y0, W - 14, y0, x0, y0 - ph,
	    x0, y0);
	fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">step"
	    "</text>\n<text x=\"14\" y=\"%.1f\" text-anchor=\"middle\" "
	    "transform=\"rotate(-90 14 %.1f)\">time per step</text>\n</svg>\n",
	    x0 + (W - x0 - 14) / 2, h - 6, y0 - ph / 2, y0 - ph / 2);
	fputs("<p class=\"legend\">", f);
	for (k = 0; segs[k].key; k++)
		if (used[k])
			fprintf(f, "<span><i style=\"background:%s\"></i>%s"
			    "</span>", segs[k].color, segs[k].label);
	if (used[15])
		fputs("<span><i style=\"background:#7f8c8d\"></i>other"
		    "</span>", f);
	fputs("</p>\n", f);
}

static const char *
sev_class(const char *s)
{
	if (s && strcmp(s, "high") == 0)
		return "sev-high";
	if (s && strcmp(s, "medium") == 0)
		return "sev-medium";
	return "sev-low";
}

static void
list(FILE *f, const char *what, json_t *a)
{
	json_t *v;
	size_t i;

	if (json_array_size(a) == 0)
		return;
	fprintf(f, "<div class=\"muted\">%s</div><ul>", what);
	json_array_foreach(a, i, v) {
		fputs("<li>", f);
		esc(f, json_string_value(v));
		fputs("</li>", f);
	}
	fputs("</ul>\n", f);
}

static void
candidates(json_t *r, FILE *f)
{
	json_t *a = get(r, "bottlenecks"), *b;
	size_t i, n = json_array_size(a);
	int h;

	if (n == 0)
		return;
	fputs("<h2>Ranked bottleneck candidates</h2>\n", f);
	h = 20 + (int)n * ROW;
	svg_open(f, "chart-candidates", h, "bottleneck candidates by impact");
	json_array_foreach(a, i, b) {
		double y = 10 + (double)i * ROW, imp = num(b, "impact");
		char lab[64];

		fputs("<text x=\"8\" y=\"", f);
		fprintf(f, "%.1f\">", y + 15);
		esc_cut(f, str(b, "title") ? str(b, "title") : str(b, "rule"),
		    34);
		fputs("<title>", f);
		esc(f, str(b, "title"));
		fputs(" (", f);
		esc(f, str(b, "rule"));
		fputs(")</title></text>\n", f);
		snprintf(lab, sizeof lab, "impact %s",
		    fmt_ratio(get(b, "impact")));
		fprintf(f, "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" "
		    "height=\"%d\" fill=\"#eef0f4\"/>\n", CAND_X, y + 2,
		    W - CAND_X - 90, ROW - 6);
		if (!isnan(imp))
			bar(f, CAND_X, y + 2, imp * (W - CAND_X - 90),
			    ROW - 6, i == 0 ? "#c0392b" : "#e59866",
			    str(b, "title") ? str(b, "title") : str(b, "rule"),
			    lab);
		fprintf(f, "<text x=\"%d\" y=\"%.1f\">%s</text>\n",
		    W - 82, y + 15, fmt_ratio(get(b, "impact")));
	}
	fputs("</svg>\n", f);
	json_array_foreach(a, i, b) {
		json_t *fix = get(b, "fix");

		fprintf(f, "<section class=\"card\"><h3>%s. ",
		    fmt_num(get(b, "position")));
		esc(f, str(b, "title"));
		fputs(" <code>", f);
		esc(f, str(b, "rule"));
		fprintf(f, "</code></h3><p>domain ");
		esc(f, str(b, "domain"));
		fprintf(f, " &middot; impact %s &middot; confidence %s &middot; "
		    "<span class=\"%s\">", fmt_ratio(get(b, "impact")),
		    fmt_ratio(get(b, "confidence")),
		    sev_class(str(b, "severity")));
		esc(f, str(b, "severity"));
		fputs("</span></p>", f);
		if (str(b, "evidence")) {
			fputs("<p>", f);
			esc(f, str(b, "evidence"));
			fputs("</p>\n", f);
		}
		if (str(b, "explained_by")) {
			fputs("<p>Follows from <code>", f);
			esc(f, str(b, "explained_by"));
			fputs("</code></p>\n", f);
		}
		list(f, "How to confirm", get(b, "validation"));
		list(f, "Hints", get(b, "hints"));
		/* the dominant one's fix is at the top of the page */
		if (json_is_object(fix) && str(fix, "proposal") &&
		    !json_is_true(get(b, "dominant"))) {
			fputs("<p><b>Fix:</b> ", f);
			esc(f, str(fix, "proposal"));
			fputs("</p>", f);
		}
		fputs("</section>\n", f);
	}
}

#define BOUND_OPS 5	/* operators named as bounding the step */

/* The operators that bound the step, by their time on the critical path. */
static void
path_ops(json_t *r, FILE *f)
{
	json_t *cp = get(r, "critical_path"), *e;
	size_t i;

	if (json_array_size(get(cp, "operators")) == 0 ||
	    !(num(cp, "total_us") > 0))
		return;
	fputs("<p id=\"path-ops\">", f);
	esc(f, path_what(cp));
	fprintf(f, ": the operators that bound it, by their share of its %s "
	    "critical path:", fmt_us(get(cp, "total_us")));
	json_array_foreach(get(cp, "operators"), i, e) {
		if (i == BOUND_OPS)
			break;
		fputs(i ? ", <code>" : " <code>", f);
		esc(f, str(e, "name"));
		fprintf(f, "</code> %s (chiefly ", fmt_ratio(get(e, "ratio")));
		esc(f, bound_label(str(e, "bound")));
		fputc(')', f);
	}
	if (num(cp, "unattributed_us") > 0)
		fprintf(f, "; %s in no operator", fmt_dratio(num(cp,
		    "unattributed_us") / num(cp, "total_us")));
	fputs(".</p>\n", f);
}

static void
hotspots(json_t *r, FILE *f)
{
	json_t *h = get(r, "hotspots"), *a = get(h, "top"), *e;
	size_t i, n = json_array_size(a);
	double max = 0, pad = 150;
	int ht;

	if (n == 0)
		return;
	fputs("<h2>Top hotspots (", f);
	esc(f, str(h, "kind"));
	fputs(" operators)</h2>\n", f);
	json_array_foreach(a, i, e) {
		if (num(e, "total_us") > max)
			max = num(e, "total_us");
		if (json_is_number(get(e, "critical_ratio")))
			pad = 230;	/* room for "on path" */
	}
	path_ops(r, f);
	ht = 20 + (int)n * ROW;
	svg_open(f, "chart-hotspots", ht, "top hotspots by time");
	json_array_foreach(a, i, e) {
		double y = 10 + (double)i * ROW;
		double w = max > 0 ? num(e, "total_us") / max *
		    (W - 2 * LABEL - pad) : 0;

		fprintf(f, "<text x=\"8\" y=\"%.1f\">", y + 15);
		esc_cut(f, str(e, "name"), 36);
		fputs("<title>", f);
		esc(f, str(e, "name"));
		fputs("</title></text>\n", f);
		bar(f, 2 * LABEL, y + 2, w, ROW - 6, "#3b6fd8",
		    str(e, "name"), fmt_us(get(e, "total_us")));
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">%s &#183; %s",
		    2 * LABEL + w + 6, y + 15, fmt_us(get(e, "total_us")),
		    fmt_ratio(get(e, "ratio")));
		if (json_is_number(get(e, "critical_ratio")))
			fprintf(f, " &#183; %s on path",
			    fmt_ratio(get(e, "critical_ratio")));
		fputs("</text>\n", f);
	}
	fputs("</svg>\n", f);
}

#define FLOP_ROWS 10	/* operators of the roofline and its table */
#define SEQ_ROWS 5	/* kernel sequences drawn */
#define COUNTER_ROWS 10	/* kernels of the counters table */

static const char *
dtype_color(const char *d)
{
	static const struct name_color k[] = {
		{ "fp32", "#e67e22" }, { "tf32", "#b9770e" },
		{ "bf16", "#3b6fd8" }, { "fp16", "#16a085" },
		{ "fp8", "#8e44ad" }, { "fp64", "#c0392b" },
	};

	return pick_color(k, sizeof k / sizeof k[0], d, "#5b6475");
}

/* A decade's label: "0.01", "1", "1000". */
static const char *
decade(int p)
{
	static char b[4][32];
	static int s;

	s = (s + 1) % 4;
	snprintf(b[s], sizeof b[s], "%.*f", p < 0 ? -p : 0, pow(10, p));
	return b[s];
}

/* An operator of flops.top, for a tooltip: name dtype shape. */
static void
op_tip(FILE *f, json_t *e, size_t i)
{
	fprintf(f, "%zu. ", i + 1);
	esc(f, str(e, "name"));
	fputs(" ", f);
	esc(f, str(e, "dtype"));
	fputs(" [", f);
	esc(f, str(e, "shape"));
	fputs("]", f);
}

struct roof {
	double peak;		/* TFLOP/s */
	char name[40];		/* its dtypes: "fp16/bf16" */
	const char *color;
};

/* The compute roofs of the dtypes the operators use (by_dtype), one per
 * peak. */
static int
roofs(json_t *fl, struct roof *rf, int max)
{
	json_t *d;
	size_t i;
	int n = 0, k;

	json_array_foreach(get(fl, "by_dtype"), i, d) {
		double p = num(d, "peak_tflops");
		const char *dt = str(d, "dtype");

		if (!(p > 0) || !isfinite(p) || !dt)
			continue;
		for (k = 0; k < n && rf[k].peak != p; k++)
			;
		if (k < n) {
			size_t l = strlen(rf[k].name);

			if (l + strlen(dt) + 2 < sizeof rf[k].name)
				snprintf(rf[k].name + l, sizeof rf[k].name - l,
				    "/%s", dt);
			continue;
		}
		if (n == max)
			continue;
		rf[n].peak = p;
		snprintf(rf[n].name, sizeof rf[n].name, "%.30s", dt);
		rf[n].color = dtype_color(dt);
		n++;
	}
	return n;
}

/* A point's label, placed where it covers no label placed before
 * (right above the point, else right below, left above, left below);
 * boxes (x0, y0, x1, y1) of the labels placed, n of them. */
static void
label_at(FILE *f, double x, double y, const char *lab, double box[][4],
    int *n)
{
	static const double off[4][2] = { { 7, -5 }, { 7, 15 }, { -7, -5 },
	    { -7, 15 } };
	double w = 7.0 * (double)strlen(lab), bx = 0, by = 0;
	int k, j, clear = 0;

	for (k = 0; k < 4 && !clear; k++) {
		bx = off[k][0] > 0 ? x + off[k][0] : x + off[k][0] - w;
		by = y + off[k][1];
		for (clear = 1, j = 0; j < *n && clear; j++)
			clear = bx + w < box[j][0] || bx > box[j][2] ||
			    by < box[j][1] || by - 12 > box[j][3];
	}
	if (!clear) {	/* nowhere clear: the first place */
		bx = x + off[0][0];
		by = y + off[0][1];
	}
	box[*n][0] = bx;
	box[*n][1] = by - 12;
	box[*n][2] = bx + w;
	box[*n][3] = by;
	(*n)++;
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">%s</text>", bx, by, lab);
}

/* x = FLOPs per byte, y = achieved TFLOP/s, both log; the bandwidth roof
 * and a compute roof per dtype; an operator group per point, numbered as
 * in the table. 0 when there is nothing to place (no peak, no point). */
static int
roofline(json_t *fl, FILE *f)
{
	json_t *e;
	struct roof rf[6];
	double bw = num(fl, "mem_bw_tb_per_s"), xlo = INFINITY, xhi = 0;
	double ylo = INFINITY, yhi = 0, pmax = 0, x0 = 64, y0 = 14;
	double pw = W - 64 - 170, ph = 250, xs, ly[6];
	double px[FLOP_ROWS], py[FLOP_ROWS], lb[2 * FLOP_ROWS][4];
	int h = 310, n = 0, nr = roofs(fl, rf, 6), k, lx0, lx1, ly0, ly1;
	int nlb = 0;
	size_t i, j;

	for (i = 0; i < FLOP_ROWS; i++)
		px[i] = py[i] = NAN;

#define RX(v) (x0 + (log10(v) - lx0) / (lx1 - lx0) * pw)
#define RY(v) (y0 + ph - (log10(v) - ly0) / (ly1 - ly0) * ph)
	json_array_foreach(get(fl, "top"), i, e) {
		double x = num(e, "intensity_flop_per_byte");
		double y = num(e, "tflop_per_s");

		if (i == FLOP_ROWS)
			break;
		if (!(x > 0) || !(y > 0) || !isfinite(x * y))
			continue;
		n++;
		xlo = x < xlo ? x : xlo;
		xhi = x > xhi ? x : xhi;
		ylo = y < ylo ? y : ylo;
		yhi = y > yhi ? y : yhi;
	}
	if (n == 0 || nr == 0 || !(bw > 0) || !isfinite(bw))
		return 0;
	for (k = 0; k < nr; k++) {
		double ridge = rf[k].peak / bw;

		xlo = ridge < xlo ? ridge : xlo;
		xhi = ridge > xhi ? ridge : xhi;
		pmax = rf[k].peak > pmax ? rf[k].peak : pmax;
	}
	yhi = pmax > yhi ? pmax : yhi;
	for (k = 0; k < nr; k++)	/* every roof in sight */
		ylo = rf[k].peak < ylo ? rf[k].peak : ylo;
	lx0 = (int)floor(log10(xlo));
	lx1 = (int)ceil(log10(xhi * 1.5));
	ly0 = (int)floor(log10(ylo));
	ly1 = (int)ceil(log10(yhi * 1.5));
	if (lx1 - lx0 > 12 || ly1 - ly0 > 12)
		return 0;	/* not a chart one can read */
	svg_open(f, "chart-roofline", h, "roofline: achieved TFLOP/s by "
	    "arithmetic intensity");
	for (k = lx0; k <= lx1; k++)
		fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" "
		    "x2=\"%.1f\" y2=\"%.1f\"/><text x=\"%.1f\" y=\"%.1f\" "
		    "text-anchor=\"middle\">%s</text>\n", RX(pow(10, k)), y0,
		    RX(pow(10, k)), y0 + ph, RX(pow(10, k)), y0 + ph + 16,
		    decade(k));
	for (k = ly0; k <= ly1; k++)
		fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" "
		    "x2=\"%.1f\" y2=\"%.1f\"/><text x=\"%.1f\" y=\"%.1f\" "
		    "text-anchor=\"end\">%s</text>\n", x0, RY(pow(10, k)),
		    x0 + pw, RY(pow(10, k)), x0 - 6, RY(pow(10, k)) + 4,
		    decade(k));
	fprintf(f, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
	    "y2=\"%.1f\"/><line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" "
	    "x2=\"%.1f\" y2=\"%.1f\"/>\n", x0, y0 + ph, x0 + pw, y0 + ph, x0,
	    y0, x0, y0 + ph);
	/* the bandwidth roof, from the chart's edge to the highest ridge */
	xs = pow(10, lx0) > pow(10, ly0) / bw ? pow(10, lx0) : pow(10, ly0) / bw;
	fprintf(f, "<line class=\"roof\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
	    "y2=\"%.1f\" stroke=\"#1d2330\" stroke-width=\"2\"><title>memory "
	    "bandwidth %s TB/s</title></line>\n<text x=\"%.1f\" y=\"%.1f\" "
	    "text-anchor=\"end\">%s TB/s</text>\n", RX(xs), RY(bw * xs),
	    RX(pmax / bw), RY(pmax), fmt_dsig(bw, ""), (RX(xs) +
	    RX(pmax / bw)) / 2 - 4, (RY(bw * xs) + RY(pmax)) / 2 - 8,
	    fmt_dsig(bw, ""));
	for (k = 0; k < nr; k++) {
		double y = RY(rf[k].peak);

		/* a label clear of the one above it */
		ly[k] = y + 4;
		for (j = 0; j < (size_t)k; j++)
			if (fabs(ly[k] - ly[j]) < 13)
				ly[k] = ly[j] + 13;

		fprintf(f, "<line class=\"roof\" x1=\"%.1f\" y1=\"%.1f\" "
		    "x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\">"
		    "<title>", RX(rf[k].peak / bw), y, x0 + pw, y, rf[k].color);
		esc(f, rf[k].name);
		fprintf(f, " peak %s TFLOP/s, ridge %s FLOP/byte</title></line>\n"
		    "<text x=\"%.1f\" y=\"%.1f\">", fmt_dsig(rf[k].peak, ""),
		    fmt_dsig(rf[k].peak / bw, ""), x0 + pw + 6, ly[k]);
		esc(f, rf[k].name);
		fprintf(f, " %s TFLOP/s</text>\n", fmt_dsig(rf[k].peak, ""));
	}
	json_array_foreach(get(fl, "top"), i, e) {
		double x = num(e, "intensity_flop_per_byte");
		double y = num(e, "tflop_per_s");

		if (i == FLOP_ROWS)
			break;
		if (!(x > 0) || !(y > 0) || !isfinite(x * y))
			continue;
		px[i] = RX(x);
		py[i] = RY(y);
		/* the points are in the way of the labels */
		lb[nlb][0] = px[i] - 5;
		lb[nlb][1] = py[i] - 5;
		lb[nlb][2] = px[i] + 5;
		lb[nlb++][3] = py[i] + 5;
	}
	json_array_foreach(get(fl, "top"), i, e) {
		if (i == FLOP_ROWS)
			break;
		if (isnan(px[i]))
			continue;
		fprintf(f, "<g class=\"op\"><circle cx=\"%.1f\" cy=\"%.1f\" "
		    "r=\"5\" fill=\"%s\" stroke=\"#fff\"/>", px[i], py[i],
		    dtype_color(str(e, "dtype")));
		/* points on top of each other share one label: "1, 4" */
		for (j = 0; j < i && !(hypot(px[j] - px[i], py[j] - py[i]) < 8);
		    j++)
			;
		if (j == i) {
			char lab[64];
			int len = snprintf(lab, sizeof lab, "%zu", i + 1);

			for (j = i + 1; j < FLOP_ROWS; j++) {
				json_t *o = json_array_get(get(fl, "top"), j);
				double ox = num(o, "intensity_flop_per_byte");
				double oy = num(o, "tflop_per_s");

				if (ox > 0 && oy > 0 && isfinite(ox * oy) &&
				    hypot(RX(ox) - px[i], RY(oy) - py[i]) < 8)
					len += snprintf(lab + len, sizeof lab -
					    (size_t)len, ", %zu", j + 1);
			}
			label_at(f, px[i], py[i], lab, lb, &nlb);
		}
		fputs("<title>", f);
		op_tip(f, e, i);
		fprintf(f, ": %s TFLOP/s, %s FLOP/byte, MFU %s, %s</title>"
		    "</g>\n", fmt_sig(get(e, "tflop_per_s")),
		    fmt_sig(get(e, "intensity_flop_per_byte")),
		    fmt_ratio(get(e, "mfu_ratio")), fmt_us(get(e, "device_us")));
	}
	fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">FLOPs "
	    "per byte (arithmetic intensity)</text><text x=\"14\" y=\"%.1f\" "
	    "text-anchor=\"middle\" transform=\"rotate(-90 14 %.1f)\">achieved "
	    "TFLOP/s</text>\n</svg>\n", x0 + pw / 2, h - 6, y0 + ph / 2,
	    y0 + ph / 2);
#undef RX
#undef RY
	return 1;
}

/* Without peaks: the achieved TFLOP/s of each operator group. */
static void
flops_bars(json_t *fl, FILE *f)
{
	json_t *e;
	double max = 0;
	size_t i, n = 0;
	int h;

	json_array_foreach(get(fl, "top"), i, e) {
		if (i == FLOP_ROWS)
			break;
		n++;
		if (num(e, "tflop_per_s") > max)
			max = num(e, "tflop_per_s");
	}
	if (!(max > 0))
		return;
	h = 20 + (int)n * ROW;
	svg_open(f, "chart-flops", h, "achieved TFLOP/s per operator group");
	json_array_foreach(get(fl, "top"), i, e) {
		double y = 10 + (double)i * ROW, v = num(e, "tflop_per_s");
		char val[48];

		if (i == FLOP_ROWS)
			break;
		fprintf(f, "<text x=\"8\" y=\"%.1f\">%zu. ", y + 15, i + 1);
		esc_cut(f, str(e, "name"), 30);
		fputs(" ", f);
		esc(f, str(e, "dtype"));
		fputs("<title>", f);
		op_tip(f, e, i);
		fputs("</title></text>\n", f);
		snprintf(val, sizeof val, "%s TFLOP/s", fmt_sig(get(e,
		    "tflop_per_s")));
		if (v > 0) {
			bar(f, 2 * LABEL, y + 2, v / max * (W - 2 * LABEL - 150),
			    ROW - 6, dtype_color(str(e, "dtype")), str(e, "name"),
			    val);
			fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">%s</text>\n",
			    2 * LABEL + v / max * (W - 2 * LABEL - 150) + 6,
			    y + 15, val);
		}
	}
	fputs("</svg>\n", f);
}

/* FLOPs, MFU and roofline (report.json flops), where they explain the
 * verdict (report_shows_flops): the totals, the roofline of the first
 * operator groups (bars of TFLOP/s without the device's peaks), the
 * table. */
static void
flops(json_t *r, FILE *f)
{
	json_t *fl = get(r, "flops"), *e, *d;
	size_t i;

	if (!report_shows_flops(r))
		return;
	fputs("<h2>FLOPs and roofline</h2>\n<p id=\"flops-what\">", f);
	if (json_is_integer(get(fl, "rank")))
		fprintf(f, "Rank %s: ", fmt_num(get(fl, "rank")));
	fprintf(f, "%s in %s matmul, convolution and attention operators "
	    "with recorded shapes", fmt_dflop(num(fl, "flops")),
	    fmt_num(get(fl, "ops")));
	if (str(fl, "device")) {
		fputs(" on ", f);
		esc(f, str(fl, "device"));
	}
	fprintf(f, ": <b>%s TFLOP/s</b> over the device's busy time (MFU "
	    "<b>%s</b>)", fmt_sig(get(fl, "busy_tflop_per_s")),
	    fmt_ratio(get(fl, "mfu_busy_ratio")));
	if (json_is_number(get(fl, "step_us")))
		fprintf(f, ", %s TFLOP/s over the step time (MFU %s)",
		    fmt_sig(get(fl, "step_tflop_per_s")),
		    fmt_ratio(get(fl, "mfu_step_ratio")));
	fputs(".", f);
	if (!str(fl, "peak_key"))
		fputs(" The device has no entry in the peak table: no MFU, "
		    "no roofline.", f);
	fputs("</p>\n", f);
	if (!str(fl, "peak_key") || !roofline(fl, f))
		flops_bars(fl, f);
	else {
		fputs("<p class=\"legend\">", f);
		json_array_foreach(get(fl, "by_dtype"), i, d) {
			fprintf(f, "<span><i style=\"background:%s\"></i>",
			    dtype_color(str(d, "dtype")));
			esc(f, str(d, "dtype"));
			fprintf(f, " %s</span>", fmt_ratio(get(d,
			    "device_ratio")));
		}
		fputs(" <span class=\"muted\">(share of device time)</span>"
		    "</p>\n", f);
	}
	fputs("<table id=\"flops-top\"><tr><th class=\"n\">#</th>"
	    "<th>operator</th><th>dtype</th><th>shapes</th><th class=\"n\">"
	    "count</th><th class=\"n\">device time</th><th class=\"n\">"
	    "TFLOP/s</th><th class=\"n\">MFU</th><th class=\"n\">FLOP/byte"
	    "</th><th>bound</th></tr>\n", f);
	json_array_foreach(get(fl, "top"), i, e) {
		if (i == FLOP_ROWS)
			break;
		fprintf(f, "<tr><td class=\"n\">%zu</td><td><code>", i + 1);
		esc(f, str(e, "name"));
		fputs("</code></td><td>", f);
		esc(f, str(e, "dtype"));
		fputs("</td><td>", f);
		esc(f, str(e, "shape"));
		fprintf(f, "</td><td class=\"n\">%s</td><td class=\"n\">%s</td>"
		    "<td class=\"n\">%s</td><td class=\"n\">%s</td>"
		    "<td class=\"n\">%s</td><td style=\"white-space:nowrap\">",
		    fmt_num(get(e, "count")), fmt_us(get(e, "device_us")),
		    fmt_sig(get(e, "tflop_per_s")),
		    fmt_ratio(get(e, "mfu_ratio")),
		    fmt_sig(get(e, "intensity_flop_per_byte")));
		esc(f, str(e, "bound"));
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

/* A sequence's kernels, shortened, arrows between them (for a tooltip). */
static void
seq_tip(FILE *f, json_t *e)
{
	json_t *k;
	size_t j;

	json_array_foreach(get(e, "kernels"), j, k) {
		fputs(j ? " &#8594; " : "", f);
		esc(f, kernel_short(str(k, "name")));
	}
}

/* The operators that launched a sequence's kernels, without "aten::"
 * (a kernel without one: its name), arrows between them (a static
 * buffer). */
static const char *
seq_ops(json_t *e)
{
	static char b[256];
	json_t *k;
	const char *op;
	size_t j, len = 0;

	b[0] = 0;
	json_array_foreach(get(e, "kernels"), j, k) {
		op = str(k, "op") ? str(k, "op") : kernel_short(str(k,
		    "name"));
		if (!strncmp(op, "aten::", 6))
			op += 6;
		if (len + strlen(op) + 8 >= sizeof b)
			break;
		len += (size_t)snprintf(b + len, sizeof b - len, "%s%s",
		    j ? " \xe2\x86\x92 " : "", op);
	}
	return b;
}

/* Repeated kernel sequences (report.json kernel_sequences), where short
 * kernels or launches are a finding: bars by time, then each sequence's
 * kernels with the operators that launched them. */
static void
sequences(json_t *r, FILE *f)
{
	json_t *ks = get(r, "kernel_sequences"), *a = get(ks, "top"), *e, *k;
	size_t i, j, n = json_array_size(a);
	double max = 0;
	int h;

	if (!report_shows_sequences(r))
		return;
	if (n > SEQ_ROWS)
		n = SEQ_ROWS;
	fputs("<h2>Repeated kernel sequences</h2>\n<p id=\"sequences-what\">",
	    f);
	if (json_is_integer(get(ks, "rank")))
		fprintf(f, "Rank %s: ", fmt_num(get(ks, "rank")));
	fprintf(f, "%s distinct runs of up to %s kernels repeat %s times or "
	    "more on one stream. The first by time are the candidates for "
	    "fusion: one kernel instead of several, fewer launches and fewer "
	    "trips through memory.</p>\n", fmt_num(get(ks, "repeated")),
	    fmt_num(get(ks, "max_length")), fmt_num(get(ks, "min_count")));
	json_array_foreach(a, i, e)
		if (i < n && num(e, "total_us") > max)
			max = num(e, "total_us");
	h = 20 + (int)n * ROW;
	svg_open(f, "chart-sequences", h, "repeated kernel sequences by time");
	json_array_foreach(a, i, e) {
		double y = 10 + (double)i * ROW, w = max > 0 ?
		    num(e, "total_us") / max * (W - 2 * LABEL - 230) : 0;

		if (i == n)
			break;
		fprintf(f, "<g class=\"seq\"><title>%zu. ", i + 1);
		seq_tip(f, e);
		fprintf(f, ": %s</title><text x=\"8\" y=\"%.1f\">%zu. ",
		    fmt_us(get(e, "total_us")), y + 15, i + 1);
		esc_cut(f, seq_ops(e), 40);
		fputs("</text>\n", f);
		if (w > 0 && isfinite(w))
			fprintf(f, "<rect x=\"%d\" y=\"%.1f\" width=\"%.1f\" "
			    "height=\"%d\" fill=\"#8e44ad\"/>", 2 * LABEL,
			    y + 2, w, ROW - 6);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">%s &#183; %s &#183; "
		    "%s &#215; %s kernels</text></g>\n", 2 * LABEL + (w > 0 &&
		    isfinite(w) ? w : 0) + 6, y + 15, fmt_us(get(e, "total_us")),
		    fmt_ratio(get(e, "ratio")), fmt_num(get(e, "count")),
		    fmt_num(get(e, "length")));
	}
	fputs("</svg>\n<table id=\"sequences-top\"><tr><th class=\"n\">#</th>"
	    "<th>kernels, in order (launched by)</th><th class=\"n\">stream"
	    "</th><th class=\"n\">count</th><th class=\"n\">time</th>"
	    "<th class=\"n\">per kernel</th><th class=\"n\">share</th></tr>\n",
	    f);
	json_array_foreach(a, i, e) {
		if (i == n)
			break;
		fprintf(f, "<tr><td class=\"n\">%zu</td><td><ol style=\""
		    "margin:0;padding-left:22px\">", i + 1);
		json_array_foreach(get(e, "kernels"), j, k) {
			fputs("<li><code title=\"", f);
			esc(f, str(k, "name"));
			fputs("\">", f);
			esc(f, kernel_short(str(k, "name")));
			fputs("</code>", f);
			if (str(k, "op")) {
				fputs(" <span class=\"muted\">", f);
				esc(f, str(k, "op"));
				fputs("</span>", f);
			}
			fputs("</li>", f);
		}
		fprintf(f, "</ol></td><td class=\"n\">%s</td><td class=\"n\">%s"
		    "</td><td class=\"n\">%s</td><td class=\"n\">%s</td>"
		    "<td class=\"n\">%s</td></tr>\n", fmt_num(get(e, "stream")),
		    fmt_num(get(e, "count")), fmt_us(get(e, "total_us")),
		    fmt_us(get(e, "kernel_mean_us")), fmt_ratio(get(e, "ratio")));
	}
	fputs("</table>\n", f);
}

/* Range profiler counters (report.json counters), where they explain the
 * verdict: FLOPs per kernel and precision, the mean of the other
 * counters. */
static void
counters(json_t *r, FILE *f)
{
	static const char *const prec[] = { "flops_fp64", "flops_fp32",
	    "flops_fp16", "flops" };
	json_t *c = get(r, "counters"), *t = get(c, "totals"), *e, *v;
	const char *k;
	size_t i;
	int means = 0, p;

	if (!report_shows_counters(r))
		return;
	json_array_foreach(get(c, "kernels"), i, e)
		means |= json_object_size(get(e, "means")) > 0;
	fputs("<h2>Hardware counters</h2>\n<p id=\"counters-what\">", f);
	if (json_is_integer(get(c, "rank")))
		fprintf(f, "Rank %s: ", fmt_num(get(c, "rank")));
	fprintf(f, "the CUPTI range profiler counted %s ranges: <b>%s</b> in "
	    "all (fp64 %s, fp32 %s, fp16 %s). No rate: a range's duration "
	    "includes the profiler's replays.</p>\n<table id=\"counters\">"
	    "<tr><th>kernel</th><th class=\"n\">ranges</th><th class=\"n\">"
	    "fp64</th><th class=\"n\">fp32</th><th class=\"n\">fp16</th>"
	    "<th class=\"n\">FLOPs</th>%s</tr>\n", fmt_num(get(c, "ranges")),
	    fmt_dflop(num(t, "flops")), fmt_dflop(num(t, "flops_fp64")),
	    fmt_dflop(num(t, "flops_fp32")), fmt_dflop(num(t, "flops_fp16")),
	    means ? "<th>mean counters</th>" : "");
	json_array_foreach(get(c, "kernels"), i, e) {
		if (i == COUNTER_ROWS)
			break;
		fputs("<tr><td><code title=\"", f);
		esc(f, str(e, "name"));
		fputs("\">", f);
		esc(f, kernel_short(str(e, "name")));
		fprintf(f, "</code></td><td class=\"n\">%s</td>",
		    fmt_num(get(e, "count")));
		for (p = 0; p < 4; p++)
			fprintf(f, "<td class=\"n\">%s</td>",
			    fmt_dflop(num(e, prec[p])));
		if (means) {
			fputs("<td>", f);
			p = 0;
			json_object_foreach(get(e, "means"), k, v) {
				fputs(p++ ? "<br>" : "", f);
				fputs("<code>", f);
				esc(f, k);
				fprintf(f, "</code> %s", fmt_num(v));
			}
			fputs(p ? "</td>" : "-</td>", f);
		}
		fputs("</tr>\n", f);
	}
	if (json_array_size(get(c, "kernels")) > COUNTER_ROWS)
		fprintf(f, "<tr><td colspan=\"%d\" class=\"muted\">the first %d "
		    "of %zu kernels by FLOPs (all are in report.json)</td>"
		    "</tr>\n", means ? 7 : 6, COUNTER_ROWS,
		    json_array_size(get(c, "kernels")));
	fputs("</table>\n", f);
}

#define PATH_ROWS 10	/* events of the critical path listed */

/* The critical path: one bar of its bound types, then the events on it. */
static void
critical_path(json_t *r, FILE *f)
{
	json_t *cp = get(r, "critical_path"), *e;
	double total = num(cp, "total_us"), x = 8;
	size_t i;
	int k;

	if (!json_is_object(cp) || !(total > 0))
		return;
	fputs("<h2>Critical path</h2>\n<p id=\"path-what\">", f);
	esc(f, path_what(cp));
	fprintf(f, ": the chain of host work, launches, kernels and waits that "
	    "bounds it is <b>%s</b> long.</p>\n", fmt_us(get(cp, "total_us")));
	svg_open(f, "chart-path", 44, "critical path by bound type");
	for (k = 0; report_bounds[k].key; k++) {
		double s = num(get(cp, "shares"), report_bounds[k].key);
		double w = isfinite(s) ? s * (W - 16) : 0;

		bar(f, x, 8, w, 28, report_bounds[k].color,
		    report_bounds[k].label, fmt_dratio(s));
		x += w > 0 ? w : 0;
	}
	fputs("</svg>\n<p class=\"legend\">", f);
	for (k = 0; report_bounds[k].key; k++) {
		json_t *v = get(get(cp, "shares"), report_bounds[k].key);

		if (json_number_value(v) >= 0.0005)
			fprintf(f, "<span><i style=\"background:%s\"></i>%s "
			    "%s</span>", report_bounds[k].color,
			    report_bounds[k].label, fmt_ratio(v));
	}
	fputs("</p>\n", f);
	if (json_array_size(get(cp, "top")) == 0)
		return;
	fputs("<table id=\"path-top\"><tr><th>on the path</th><th>type</th>"
	    "<th>bound by</th><th class=\"n\">time</th><th class=\"n\">share"
	    "</th></tr>\n", f);
	json_array_foreach(get(cp, "top"), i, e) {
		if (i == PATH_ROWS)
			break;
		fputs("<tr><td><code>", f);
		esc(f, str(e, "name"));
		fputs("</code></td><td>", f);
		esc(f, str(e, "type"));
		fputs("</td><td>", f);
		esc(f, bound_label(str(e, "bound")));
		fprintf(f, "</td><td class=\"n\">%s</td><td class=\"n\">%s</td>"
		    "</tr>\n", fmt_us(get(e, "us")), fmt_ratio(get(e, "ratio")));
	}
	fputs("</table>\n", f);
}

static void
mem_timeline(json_t *tl, FILE *f)
{
	json_t *pts = get(tl, "points"), *p;
	double t0 = NAN, t1 = NAN, max = 0;
	size_t i;
	int h = 200, k;
	static const char *keys[] = { "reserved_bytes", "allocated_bytes" };
	static const char *cols[] = { "#e67e22", "#3b6fd8" };

	json_array_foreach(pts, i, p) {
		double t = num(p, "t_us");

		if (isnan(t))
			continue;
		if (isnan(t0) || t < t0)
			t0 = t;
		if (isnan(t1) || t > t1)
			t1 = t;
		for (k = 0; k < 2; k++)
			if (num(p, keys[k]) > max)
				max = num(p, keys[k]);
	}
	if (isnan(t0) || !(max > 0))
		return;
	fprintf(f, "<p class=\"muted\">Memory over time, %s, peak %s.</p>\n",
	    rank_label(tl, 1), fmt_dbytes(max));
	svg_open(f, "chart-memory", h, "memory over time");
	fprintf(f, "<line class=\"axis\" x1=\"60\" y1=\"%d\" x2=\"%d\" "
	    "y2=\"%d\"/>\n", h - 30, W - 10, h - 30);
	for (k = 0; k < 2; k++) {
		int first = 1;

		fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" "
		    "stroke-width=\"2\" points=\"", cols[k]);
		json_array_foreach(pts, i, p) {
			double t = num(p, "t_us"), v = num(p, keys[k]);

			if (isnan(t) || isnan(v))
				continue;
			fprintf(f, "%s%.1f,%.1f", first ? "" : " ",
			    60 + (t1 > t0 ? (t - t0) / (t1 - t0) : 0) *
			    (W - 80), (h - 30) - v / max * (h - 50));
			first = 0;
		}
		fputs("\"/>\n", f);
	}
	fprintf(f, "<text x=\"56\" y=\"24\" text-anchor=\"end\">%s</text>\n",
	    fmt_dbytes(max));
	fprintf(f, "<text x=\"60\" y=\"%d\">0</text><text x=\"%d\" y=\"%d\" "
	    "text-anchor=\"end\">%s</text>\n</svg>\n", h - 12, W - 10,
	    h - 12, fmt_dus(t1 - t0));
	fputs("<p class=\"legend\"><span><i style=\"background:#3b6fd8\"></i>"
	    "allocated</span><span><i style=\"background:#e67e22\"></i>"
	    "reserved</span></p>\n", f);
}

static void
memory(json_t *r, FILE *f)
{
	json_t *m = get(r, "memory"), *a = get(m, "devices"), *e;
	size_t i, n = json_array_size(a);
	double max = 0;
	int h;

	if (n == 0 || (isnan(num(m, "peak_allocated_bytes")) &&
	    isnan(num(m, "peak_reserved_bytes"))))
		return;
	fprintf(f, "<h2>Memory</h2>\n<p>Peak allocated <b>%s</b>, peak "
	    "reserved <b>%s</b>, capacity %s, peak ratio %s.</p>\n",
	    fmt_bytes(get(m, "peak_allocated_bytes")),
	    fmt_bytes(get(m, "peak_reserved_bytes")),
	    fmt_bytes(get(m, "capacity_bytes")),
	    fmt_ratio(get(m, "peak_ratio")));
	if (json_is_object(get(m, "timeline"))) {
		mem_timeline(get(m, "timeline"), f);
		return;
	}
	json_array_foreach(a, i, e) {
		if (num(e, "peak_reserved_bytes") > max)
			max = num(e, "peak_reserved_bytes");
		if (num(e, "peak_allocated_bytes") > max)
			max = num(e, "peak_allocated_bytes");
		if (num(e, "capacity_bytes") > max)
			max = num(e, "capacity_bytes");
	}
	if (!(max > 0))
		return;
	if (n > RANK_BARS) {
		fprintf(f, "<p class=\"muted\">The first %d of %zu ranks.</p>\n",
		    RANK_BARS, n);
		n = RANK_BARS;
	}
	h = 20 + (int)n * ROW * 2;
	svg_open(f, "chart-memory", h, "peak memory per rank");
	json_array_foreach(a, i, e) {
		double y = 10 + (double)i * ROW * 2, sc = (W - LABEL - 120) / max;

		if (i >= n)
			break;
		double cap = num(e, "capacity_bytes");

		fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s"
		    "</text>\n", LABEL - 8, y + 20, rank_label(e, n));
		bar(f, LABEL, y + 2, num(e, "peak_reserved_bytes") * sc,
		    ROW - 8, "#e67e22", "peak reserved",
		    fmt_bytes(get(e, "peak_reserved_bytes")));
		bar(f, LABEL, y + ROW, num(e, "peak_allocated_bytes") * sc,
		    ROW - 8, "#3b6fd8", "peak allocated",
		    fmt_bytes(get(e, "peak_allocated_bytes")));
		if (!isnan(cap))
			fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			    "y2=\"%.1f\" stroke=\"#c0392b\" stroke-width=\"2\">"
			    "<title>capacity %s</title></line>\n",
			    LABEL + cap * sc, y, LABEL + cap * sc,
			    y + 2 * ROW - 4, fmt_bytes(get(e, "capacity_bytes")));
		fprintf(f, "<text x=\"%d\" y=\"%.1f\">%s / %s</text>\n",
		    W - 112, y + 20, fmt_bytes(get(e, "peak_allocated_bytes")),
		    fmt_bytes(get(e, "peak_reserved_bytes")));
	}
	fputs("</svg>\n<p class=\"legend\"><span><i style=\"background:"
	    "#3b6fd8\"></i>peak allocated</span><span><i style=\"background:"
	    "#e67e22\"></i>peak reserved</span><span><i style=\"background:"
	    "#c0392b\"></i>capacity</span></p>\n", f);
}

/* Utilization over time: a line per series on a 0-100 % axis. */
static void
utilization(json_t *r, FILE *f)
{
	static const char *cols[] = { "#3b6fd8", "#e67e22", "#1e8449",
	    "#8e44ad", "#c0392b", "#16a085", "#b9770e", "#5b6475" };
	json_t *u = get(r, "utilization"), *e, *ts, *vs;
	double t0 = num(u, "t0_s"), t1 = num(u, "t1_s");
	int h = 240, x0 = 60, y0 = 20, ph = 180, pw = W - 80, k;
	size_t i, j;

	if (!json_is_object(u) || isnan(t0) || isnan(t1))
		return;
	fprintf(f, "<h2>Utilization over time</h2>\n<p class=\"muted\">"
	    "%s samples of pd-collect over %s", fmt_num(get(u,
	    "samples")), fmt_dus((t1 - t0) * 1e6));
	if (json_is_number(get(u, "bucket_s")))
		fprintf(f, "; the highest sample of each %s shown",
		    fmt_dus(num(u, "bucket_s") * 1e6));
	fputs(".</p>\n", f);
	svg_open(f, "chart-utilization", h, "utilization over time, percent");
	for (k = 0; k <= 4; k++) {
		double y = y0 + ph - k * ph / 4.0;

		fprintf(f, "<line class=\"%s\" x1=\"%d\" y1=\"%.1f\" "
		    "x2=\"%d\" y2=\"%.1f\"%s/>\n", k ? "grid" : "axis", x0, y,
		    x0 + pw, y, k ? " stroke=\"#e3e6ec\"" : "");
		fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">"
		    "%d %%</text>\n", x0 - 4, y + 4, k * 25);
	}
	fprintf(f, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" "
	    "y2=\"%d\"/>\n", x0, y0, x0, y0 + ph);
	json_array_foreach(get(u, "series"), i, e) {
		int first = 1;

		ts = get(e, "t_s");
		vs = get(e, "ratio");
		fprintf(f, "<polyline class=\"util\" fill=\"none\" "
		    "stroke=\"%s\" stroke-width=\"2\" points=\"",
		    cols[i % 8]);
		for (j = 0; j < json_array_size(ts); j++) {
			double t = json_number_value(json_array_get(ts, j));
			double v = json_number_value(json_array_get(vs, j));

			if (!isfinite(t) || !isfinite(v))
				continue;
			v = v < 0 ? 0 : v > 1 ? 1 : v;
			fprintf(f, "%s%.1f,%.1f", first ? "" : " ", x0 +
			    (t1 > t0 ? (t - t0) / (t1 - t0) : 0) * pw,
			    y0 + ph - v * ph);
			first = 0;
		}
		fputs("\"><title>", f);
		esc(f, str(e, "label"));
		fprintf(f, ": median %s, max %s</title></polyline>\n",
		    fmt_ratio(get(e, "median_ratio")),
		    fmt_ratio(get(e, "max_ratio")));
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\">%s</text><text x=\"%d\" "
	    "y=\"%d\" text-anchor=\"end\">%s</text>\n<text x=\"%d\" "
	    "y=\"%d\" text-anchor=\"middle\">time since the command "
	    "started</text>\n</svg>\n", x0, y0 + ph + 16, fmt_dus(t0 * 1e6),
	    x0 + pw, y0 + ph + 16, fmt_dus(t1 * 1e6), x0 + pw / 2, y0 + ph + 34);
	fputs("<p class=\"legend\" id=\"utilization-legend\">", f);
	json_array_foreach(get(u, "series"), i, e) {
		fprintf(f, "<span><i style=\"background:%s\"></i>", cols[i % 8]);
		esc(f, str(e, "label"));
		fprintf(f, " (median %s)</span>", fmt_ratio(get(e,
		    "median_ratio")));
	}
	fputs("</p>\n", f);
	if (str(u, "limits_summary")) {
		fputs("<p id=\"utilization-limits\">pd-audit-limits: <b>", f);
		esc(f, str(u, "limits_summary"));
		fputs("</b></p>\n", f);
	}
}

static void
comparison(json_t *r, FILE *f)
{
	json_t *c = get(r, "comparison"), *a, *e, *d;
	size_t i, n = 0;
	double nz;
	int h, k = 0;

	if (!json_is_object(c))
		return;
	a = get(c, "metrics");
	json_array_foreach(a, i, e)
		if (!isnan(num(e, "before")) && !isnan(num(e, "after")))
			n++;
	fputs("<h2>Before / after: <span class=\"", f);
	esc(f, str(c, "verdict"));
	fputs("\">", f);
	esc(f, str(c, "verdict"));
	fputs("</span></h2>\n", f);
	if (str(c, "reason")) {
		fputs("<p>", f);
		esc(f, str(c, "reason"));
		fputs("</p>\n", f);
	}
	if (n > 0) {
		h = 20 + (int)n * ROW * 2;
		svg_open(f, "chart-comparison", h, "before and after");
		json_array_foreach(a, i, e) {
			double b = num(e, "before"), af = num(e, "after");
			double m = fabs(b) > fabs(af) ? fabs(b) : fabs(af);
			double y = 10 + (double)k * ROW * 2;
			double sc = m > 0 ? (W - LABEL - 140) / m : 0;
			const char *name = str(e, "metric");

			if (isnan(b) || isnan(af))
				continue;
			k++;
			fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">",
			    LABEL - 8, y + 20);
			esc_cut(f, metric_label(name), 22);
			fputs("<title>", f);
			esc(f, name);
			fputs("</title></text>\n", f);
			bar(f, LABEL, y + 2, fabs(b) * sc, ROW - 8, "#9aa3b2",
			    "before", fmt_metric(name, get(e, "before")));
			bar(f, LABEL, y + ROW, fabs(af) * sc, ROW - 8,
			    "#1e8449", "after", fmt_metric(name, get(e, "after")));
			/* the noise: a change inside the band is not real */
			nz = num(e, "noise");
			if (nz > 0 && isfinite(nz * sc)) {
				double x0 = fabs(b) - nz < 0 ? 0 : fabs(b) - nz;

				fprintf(f, "<rect class=\"noise\" x=\"%.1f\" "
				    "y=\"%.1f\" width=\"%.1f\" height=\"%d\" "
				    "fill=\"#1d2330\" fill-opacity=\"0.18\" "
				    "stroke=\"#1d2330\"><title>noise: before "
				    "&#177; %s</title></rect>\n", LABEL + x0 * sc,
				    y + 2, (fabs(b) + nz - x0) * sc, 2 * ROW - 6,
				    fmt_metric(name, get(e, "noise")));
			}
			fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">%s</text>\n",
			    LABEL + fabs(b) * sc + 6, y + 14,
			    fmt_metric(name, get(e, "before")));
			fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">%s</text>\n",
			    LABEL + fabs(af) * sc + 6, y + ROW + 12,
			    fmt_metric(name, get(e, "after")));
		}
		fputs("</svg>\n<p class=\"legend\"><span><i style=\"background:"
		    "#9aa3b2\"></i>before</span><span><i style=\"background:"
		    "#1e8449\"></i>after</span><span><i style=\"background:"
		    "#c5c7cc\"></i>noise (before &#177; the smallest real "
		    "change)</span></p>\n", f);
	}
	fputs("<table id=\"comparison\"><tr><th>metric</th><th class=\"n\">"
	    "before</th><th class=\"n\">after</th><th class=\"n\">change</th>"
	    "<th class=\"n\">noise</th><th>verdict</th></tr>\n", f);
	json_array_foreach(a, i, e) {
		const char *name = str(e, "metric");

		fputs("<tr><td>", f);
		esc(f, metric_label(name));
		fputs(" <code>", f);
		esc(f, name);
		fputs("</code>", f);
		fprintf(f, "</td><td class=\"n\">%s</td><td class=\"n\">%s</td>"
		    "<td class=\"n\">%s</td><td class=\"n ",
		    fmt_metric(name, get(e, "before")),
		    fmt_metric(name, get(e, "after")),
		    fmt_ratio(get(e, "delta_ratio")));
		esc(f, str(e, "verdict"));
		fprintf(f, "\">&#177; %s</td><td class=\"", fmt_metric(name,
		    get(e, "noise")));
		esc(f, str(e, "verdict"));
		fputs("\">", f);
		esc(f, str(e, "verdict") ? str(e, "verdict") : "no data");
		if (json_is_integer(get(e, "steps_needed")))
			fprintf(f, " (%s steps per run would settle it)",
			    fmt_num(get(e, "steps_needed")));
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
	d = get(c, "dominant");
	if (json_is_object(d) && str(d, "rule")) {
		fputs("<p id=\"after-dominant\">Before: <b>", f);
		esc(f, str(d, "rule"));
		fprintf(f, "</b> (impact %s &#8594; %s, ", fmt_ratio(get(d,
		    "before")), fmt_ratio(get(d, "after")));
		esc(f, json_is_true(get(d, "fired_after")) ? "still fires after" :
		    "no longer fires after");
		fputs("). After the change the dominant bottleneck is <b>", f);
		esc(f, str(d, "after_rule") ? str(d, "after_rule") : "none");
		fputs("</b>.</p>\n", f);
	}
}

static void
limits(json_t *r, FILE *f)
{
	json_t *l = get(r, "limits");

	if (!json_is_object(l))
		return;
	fputs("<h2>Machine limits</h2>\n<p id=\"limits\">Verdict: <b>", f);
	esc(f, str(l, "verdict"));
	fputs("</b>", f);
	if (str(l, "reason")) {
		fputs(" &middot; ", f);
		esc(f, str(l, "reason"));
	}
	fputs("</p>\n", f);
}

static void
findings(json_t *r, FILE *f)
{
	json_t *a = get(r, "findings"), *e;
	size_t i;

	if (json_array_size(a) == 0)
		return;
	fputs("<h2>From the code</h2>\n<ul id=\"findings\">", f);
	json_array_foreach(a, i, e) {
		fputs("<li><code>", f);
		esc(f, str(e, "file"));
		fprintf(f, ":%s</code> <span class=\"%s\">", fmt_num(get(e,
		    "line")), sev_class(str(e, "severity")));
		esc(f, str(e, "check"));
		fputs("</span> ", f);
		esc(f, str(e, "text"));
		if (str(e, "hint")) {
			fputs(" <span class=\"muted\">Hint: ", f);
			esc(f, str(e, "hint"));
			fputs("</span>", f);
		}
		fputs("</li>", f);
	}
	fputs("</ul>\n", f);
}

static void
actions(json_t *r, FILE *f)
{
	json_t *a = get(r, "next_actions"), *v;
	size_t i;

	if (json_array_size(a) == 0)
		return;
	fputs("<h2>Next actions</h2>\n<ol id=\"next-actions\">", f);
	json_array_foreach(a, i, v) {
		fputs("<li>", f);
		if (is_fix_action(r, json_string_value(v)))
			fputs("Try the proposed fix (at the top).", f);
		else
			esc(f, json_string_value(v));
		fputs("</li>", f);
	}
	fputs("</ol>\n", f);
}

static void
evidence(json_t *r, FILE *f)
{
	json_t *es = get(r, "evidence_sources"), *v;
	const char *k;
	size_t i;

	fputs("<h2>Evidence</h2>\n<p>Tools: ", f);
	json_array_foreach(get(es, "tools"), i, v) {
		fputs(i ? ", " : "", f);
		esc(f, json_string_value(v));
	}
	fputs(".</p>\n<table id=\"roots\"><tr><th>rank</th><th>format</th>"
	    "<th>profiler root</th><th class=\"n\">files</th></tr>\n", f);
	json_array_foreach(get(es, "roots"), i, v) {
		if (i == ROOTS_SHOWN && json_array_size(get(es, "roots")) >
		    ROOTS_SHOWN + 1) {
			fprintf(f, "<tr><td colspan=\"4\" class=\"muted\">and "
			    "%zu more (every root is in report.json)</td></tr>\n",
			    json_array_size(get(es, "roots")) - ROOTS_SHOWN);
			break;
		}
		fprintf(f, "<tr><td>%s</td><td>", rank_label(v,
		    json_array_size(get(es, "roots"))));
		esc(f, str(v, "format"));
		fputs("</td><td><code>", f);
		esc(f, str(v, "root"));
		fprintf(f, "</code></td><td class=\"n\">%s</td></tr>\n",
		    fmt_num(get(v, "files")));
	}
	fputs("</table>\n<footer>", f);
	fprintf(f, "perfdiag %s &middot; files:", PD_VERSION);
	json_object_foreach(get(r, "artifacts"), k, v)
		if (json_is_string(v)) {
			fputs(" ", f);
			esc(f, json_string_value(v));
		}
	if (json_is_string(get(r, "generated_at"))) {
		fputs(" &middot; generated ", f);
		esc(f, str(r, "generated_at"));
	}
	fputs("</footer>\n", f);
}

void
report_html(json_t *r, FILE *f)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	    "<meta charset=\"utf-8\">\n"
	    "<meta name=\"viewport\" content=\"width=device-width, "
	    "initial-scale=1\">\n"
	    "<meta http-equiv=\"Content-Security-Policy\" "
	    "content=\"default-src 'none'; style-src 'unsafe-inline'; "
	    "img-src data:\">\n<title>perfdiag report", f);
	if (str(r, "run")) {
		fputs(": ", f);
		esc(f, str(r, "run"));
	}
	fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n<main>\n",
	    css);
	header(r, f);
	workload(r, f);
	steps(r, f);
	step_series(r, f);
	strip(r, f);
	critical_path(r, f);
	flops(r, f);
	sequences(r, f);
	counters(r, f);
	candidates(r, f);
	hotspots(r, f);
	memory(r, f);
	utilization(r, f);
	comparison(r, f);
	limits(r, f);
	findings(r, f);
	actions(r, f);
	evidence(r, f);
	fputs("</main>\n</body>\n</html>\n", f);
}

/* index.html: one row per run of index.json: its name linked to its
 * report, the dominant bottleneck, the step time, the ranks; a run that
 * failed says why. */
void
report_index_html(json_t *x, FILE *f)
{
	json_t *a = get(x, "runs"), *e, *d;
	size_t i, nfail = 0;

	json_array_foreach(a, i, e)
		nfail += str(e, "status") && !strcmp(str(e, "status"), "failed");
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	    "<meta charset=\"utf-8\">\n"
	    "<meta name=\"viewport\" content=\"width=device-width, "
	    "initial-scale=1\">\n"
	    "<meta http-equiv=\"Content-Security-Policy\" "
	    "content=\"default-src 'none'; style-src 'unsafe-inline'; "
	    "img-src data:\">\n<title>perfdiag reports</title>\n", f);
	fprintf(f, "<style>%s</style>\n</head>\n<body>\n<main>\n", css);
	fprintf(f, "<h1>perfdiag reports</h1>\n<p class=\"muted\">%zu run%s"
	    "%s", json_array_size(a), json_array_size(a) == 1 ? "" : "s",
	    nfail ? ", " : "");
	if (nfail)
		fprintf(f, "<span class=\"sev-high\">%zu failed</span>", nfail);
	fputs("</p>\n<table id=\"runs\"><tr><th>run</th><th>dominant "
	    "bottleneck</th><th class=\"n\">impact</th><th class=\"n\">mean "
	    "step</th><th class=\"n\">ranks</th><th>status</th></tr>\n", f);
	json_array_foreach(a, i, e) {
		const char *st = str(e, "status");
		int failed = st && !strcmp(st, "failed");

		fputs("<tr><td>", f);
		if (str(e, "report")) {
			fputs("<a href=\"", f);
			esc(f, str(e, "report"));
			fputs("\">", f);
			esc(f, str(e, "name"));
			fputs("</a>", f);
		} else
			esc(f, str(e, "name"));
		if (str(e, "run")) {
			fputs("<br><code class=\"muted\">", f);
			esc(f, str(e, "run"));
			fputs("</code>", f);
		}
		fputs("</td><td>", f);
		d = get(e, "dominant");
		if (json_is_object(d)) {
			esc(f, str(d, "title"));
			fputs(" <code>", f);
			esc(f, str(d, "rule"));
			fputs("</code>", f);
		} else
			fputs(failed ? "-" : "none found", f);
		fprintf(f, "</td><td class=\"n\">%s</td><td class=\"n\">%s</td>"
		    "<td class=\"n\">%s</td><td", fmt_ratio(get(d, "impact")),
		    fmt_us(get(e, "step_mean_us")), fmt_num(get(e, "ranks")));
		fputs(failed ? " class=\"sev-high\">" : ">", f);
		esc(f, st);
		if (str(e, "reason")) {
			fputs(": ", f);
			esc(f, str(e, "reason"));
		}
		fputs("</td></tr>\n", f);
	}
	fprintf(f, "</table>\n<footer>perfdiag %s &middot; index.json", PD_VERSION);
	if (json_is_string(get(x, "generated_at"))) {
		fputs(" &middot; generated ", f);
		esc(f, str(x, "generated_at"));
	}
	fputs("</footer>\n</main>\n</body>\n</html>\n", f);
}
