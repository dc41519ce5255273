/* report.md: a short projection of report.json for a terminal or a pull
 * request. Every number is printed from report.json with the shared
 * formatters, so it reads the same here and in report.html. */
#include <math.h>
#include <string.h>

#include "report.h"

/* Text from the input, safe inside a Markdown table cell. */
static void
md_text(FILE *f, const char *s)
{
	if (!s) {
		fputs("-", f);
		return;
	}
	for (; *s; s++) {
		if (*s == '\n' || *s == '\r' || *s == '\t')
			fputc(' ', f);
		else if (strchr("\\|<>*`[]", *s)) {
			fputc('\\', f);
			fputc(*s, f);
		} else
			fputc(*s, f);
	}
}

/* Text inside `...`: a backquote cannot end it early. */
static void
md_code(FILE *f, const char *s)
{
	for (; s && *s; s++)
		fputc(*s == '`' || *s == '\n' || *s == '\r' ? '\'' : *s, f);
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

/* The head of the report: what limits the job, what to do, how sure, in
 * the job's terms (the finding's title and texts, which name its
 * operators and speak its stack); the rule id comes last. */
static void
summary(json_t *r, FILE *f)
{
	json_t *dom = get(r, "dominant"), *fix = get(r, "proposed_fix");
	json_t *stack = get(get(r, "workload"), "stack");

	fputs("# perfdiag report", f);
	if (str(r, "name")) {
		fputs(": ", f);
		md_text(f, str(r, "name"));
	}
	fputs("\n\n", f);
	if (json_is_object(dom)) {
		fputs("**Dominant bottleneck:** ", f);
		md_text(f, str(dom, "title"));
		fprintf(f, ": impact %s%s", fmt_ratio(get(dom, "impact")),
		    json_is_true(get(dom, "impact_estimated")) ?
		    " estimated, not measured" : "");
		if (str(stack, "framework") || str(stack, "device")) {
			fputs(" (", f);
			md_text(f, str(stack, "framework") ?
			    str(stack, "framework") : str(stack, "family"));
			fputs(" on ", f);
			md_text(f, str(stack, "device") ? str(stack, "device") :
			    "an unknown device");
			fputs(")", f);
		}
		fputs("\n\n", f);
		if (json_is_object(fix) && str(fix, "proposal")) {
			fputs("**Fix:** ", f);
			md_text(f, str(fix, "proposal"));
			fputs("\n\n", f);
		}
		fprintf(f, "**Confidence:** %s (%s)",
		    str(dom, "confidence_level") ?
		    str(dom, "confidence_level") : "-",
		    fmt_ratio(get(dom, "confidence")));
		if (str(dom, "confidence_basis")) {
			fputs(": ", f);
			md_text(f, str(dom, "confidence_basis"));
		}
		fputs("\n\n", f);
		if (str(dom, "evidence")) {
			fputs("Evidence: ", f);
			md_text(f, str(dom, "evidence"));
			fputs("\n\n", f);
		}
	} else {
		fputs("**No dominant bottleneck:** ", f);
		md_text(f, str(get(r, "symptom"), "summary"));
		fputs("\n\n", f);
	}
	if (json_is_object(fix) && (str(fix, "effect") || str(fix, "change"))) {
		if (str(fix, "effect")) {
			fputs("- expected effect: ", f);
			md_text(f, str(fix, "effect"));
			fputc('\n', f);
		}
		if (str(fix, "change")) {
			fputs("- change: ", f);
			md_text(f, str(fix, "change"));
			fputc('\n', f);
		}
		fputc('\n', f);
	}
	if (json_is_object(dom))
		fprintf(f, "Rule `%s`, domain %s, severity %s.\n\n",
		    str(dom, "rule") ? str(dom, "rule") : "-",
		    str(dom, "domain") ? str(dom, "domain") : "-",
		    str(dom, "severity") ? str(dom, "severity") : "-");
	/* the run id last, so that the head stays the job's terms */
	if (str(r, "run") && (!str(r, "name") ||
	    strcmp(str(r, "run"), str(r, "name")) != 0)) {
		fputs("Run `", f);
		md_code(f, str(r, "run"));
		fputs("`\n\n", f);
	}
}

static void
workload(json_t *r, FILE *f)
{
	json_t *w = get(r, "workload"), *rt = get(r, "runtime");
	json_t *st = get(rt, "step"), *stack = get(w, "stack");
	json_t *sym = get(r, "symptom");

	fputs("## Workload\n\n| | |\n|---|---|\n", f);
	fputs("| symptom | ", f);
	md_text(f, str(sym, "symptom"));
	fputs(" |\n| workload | ", f);
	md_text(f, str(w, "workload"));
	fputs(" |\n| stack | ", f);
	md_text(f, str(stack, "family"));
	fputs(" / ", f);
	md_text(f, str(stack, "device"));
	fprintf(f, " |\n| ranks | %s |\n", ranks_text(w));
	if (str(w, "entry_script")) {
		fputs("| entry script | ", f);
		md_text(f, str(w, "entry_script"));
		fputs(" |\n", f);
	}
	fprintf(f, "| mean step | %s (median %s, p90 %s, %s) |\n",
	    fmt_us(get(st, "mean_us")), fmt_us(get(st, "median_us")),
	    fmt_us(get(st, "p90_us")), steps_text(st));
	fprintf(f, "| steps per second | %s |\n",
	    fmt_sig(get(st, "steps_per_s")));
	fprintf(f, "| confidence | %s (%s) |\n\n",
	    fmt_ratio(get(rt, "confidence")),
	    str(rt, "confidence_level") ? str(rt, "confidence_level") : "-");
}

#define segs report_segs
#define RANK_ROWS 32	/* more ranks: their distribution, the slowest */
#define ROOTS_SHOWN 16	/* profiler roots listed when there are more */

/* Whether any rank has a value for segment k (columns without one are
 * left out). */
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

static void
steps(json_t *r, FILE *f)
{
	json_t *a = get(r, "steps_by_rank"), *e;
	size_t i;
	int k;

	json_t *st = get(r, "rank_stats"), *sl = NULL, *x;
	size_t j, n = json_array_size(a);

	if (n == 0)
		return;
	if (n > RANK_ROWS && json_is_object(st)) {
		fprintf(f, "## Step time across ranks\n\n%s ranks: mean step "
		    "from %s (rank %s) to %s (rank %s), median %s. The %zu "
		    "slowest ranks (every rank is in report.json):\n\n",
		    fmt_num(get(st, "ranks")), fmt_us(get(st, "min_us")),
		    fmt_num(get(st, "min_rank")), fmt_us(get(st, "max_us")),
		    fmt_num(get(st, "max_rank")), fmt_us(get(st, "median_us")),
		    json_array_size(get(st, "slowest")));
		sl = get(st, "slowest");
	} else
		fputs("## Step breakdown (mean per step)\n\n", f);
	fputs("| rank | steps | step |", f);
	for (k = 0; segs[k].key; k++)
		if (seg_used(a, k))
			fprintf(f, " %s |", segs[k].label);
	fputs("\n|---|---:|---:|", f);
	for (k = 0; segs[k].key; k++)
		if (seg_used(a, k))
			fputs("---:|", f);
	fputc('\n', f);
	json_array_foreach(a, i, e) {
		if (sl) {
			int keep = 0;

			json_array_foreach(sl, j, x)
				keep |= json_equal(get(x, "rank"), get(e, "rank"));
			if (!keep)
				continue;
		}
		fprintf(f, "| %s | %s | %s |", rank_label(e, json_array_size(a)),
		    fmt_num(get(e, "steps")), fmt_us(get(e, "mean_us")));
		for (k = 0; segs[k].key; k++)
			if (seg_used(a, k))
				fprintf(f, " %s |", fmt_us(get(get(e,
				    "segments"), segs[k].key)));
		fputc('\n', f);
	}
	fputc('\n', f);
}

#define STRIP_CELLS 56	/* text columns of a lane */
#define STRIP_NAME 26	/* width of a lane's name */

/* Fraction of each of n cells of [0, dur) that a lane's spans cover;
 * any instant (a launch call) in a cell counts as a trace of use. */
static void
strip_cover(json_t *lane, double dur, int n, double *cov)
{
	json_t *sp;
	size_t i;
	int c;

	memset(cov, 0, n * sizeof *cov);
	json_array_foreach(get(lane, "spans"), i, sp) {
		double a = json_number_value(json_array_get(sp, 0));
		double b = a + json_number_value(json_array_get(sp, 1));
		double w = dur / n;

		if (!(a >= 0) || !(w > 0) || a / w >= n)
			continue;
		if (b <= a) {	/* an instant */
			if ((c = (int)(a / w)) < n)
				cov[c] += 1e-9;
			continue;
		}
		for (c = (int)(a / w); c < n && c * w < b; c++) {
			double lo = a > c * w ? a : c * w;
			double hi = b < (c + 1) * w ? b : (c + 1) * w;

			if (hi > lo)
				cov[c] += (hi - lo) / w;
		}
	}
}

/* One step of the job, lane by lane (pd.gaps strip): where each lane is
 * busy, as a bar of text cells. */
static void
strip(json_t *r, FILE *f)
{
	json_t *s = get(r, "strip"), *l;
	double dur = json_number_value(get(s, "dur_us")), cov[STRIP_CELLS];
	size_t i, n = json_array_size(get(s, "lanes"));
	int c;

	if (!json_is_object(s) || n == 0 || !(dur > 0))
		return;
	fputs("## One step, lane by lane\n\n", f);
	fputs(strip_what(s), f);
	fprintf(f, ", %s; each cell is %s: `#` busy most of it, `+` "
	    "partly, `|` a launch call, `.` idle.\n\n```\n", fmt_us(get(s,
	    "dur_us")), fmt_dus(dur / STRIP_CELLS));
	fprintf(f, "%-*s %-*s %7s  %s\n", STRIP_NAME, "lane", STRIP_CELLS,
	    "", "busy", "spans");
	json_array_foreach(get(s, "lanes"), i, l) {
		const char *name = str(l, "name") ? str(l, "name") : "-";
		const char *kind = str(l, "kind") ? str(l, "kind") : "";
		int launch = !strcmp(kind, "launch"), w;
		char label[STRIP_NAME + 1];

		/* a device stream mostly running collectives says so */
		snprintf(label, sizeof label, "%s%s", name, !strcmp(kind,
		    "communication") && strncmp(name, "collectives", 11) ?
		    " (comm)" : "");
		for (w = 0; label[w]; w++)
			fputc(label[w] == '\n' || label[w] == '`' ? ' ' :
			    label[w], f);
		fprintf(f, "%*s ", STRIP_NAME - w, "");
		strip_cover(l, dur, STRIP_CELLS, cov);
		for (c = 0; c < STRIP_CELLS; c++)
			fputc(cov[c] <= 0 ? '.' : launch ? '|' : cov[c] >= 0.5 ?
			    '#' : '+', f);
		fprintf(f, " %7s", launch ? "" : fmt_dratio(json_number_value(
		    get(l, "busy_us")) / dur));
		fprintf(f, "  %s", fmt_num(get(l, "count")));
		if (json_number_value(get(l, "wait_us")) > 0)
			fprintf(f, "  (waits on another stream %s)", fmt_dratio(
			    json_number_value(get(l, "wait_us")) / dur));
		fputc('\n', f);
	}
	fputs("```\n\n", f);
	if (json_integer_value(get(s, "lanes_left_out")) > 0)
		fprintf(f, "%s quieter device lanes are left out.\n\n",
		    fmt_num(get(s, "lanes_left_out")));
}

#define PATH_ROWS 10	/* events of the critical path listed */

/* The critical path (pd.hotspot critical_path): what bounds the time, by
 * bound type, and the events on it. */
static void
critical_path(json_t *r, FILE *f)
{
	json_t *cp = get(r, "critical_path"), *e;
	size_t i;
	int k, n = 0;

	if (!json_is_object(cp) || !(json_number_value(get(cp, "total_us")) > 0))
		return;
	fprintf(f, "## Critical path\n\n%s: the chain of host work, launches, "
	    "kernels and waits that bounds it is %s long; it is", path_what(cp),
	    fmt_us(get(cp, "total_us")));
	for (k = 0; report_bounds[k].key; k++) {
		json_t *v = get(get(cp, "shares"), report_bounds[k].key);

		if (json_number_value(v) >= 0.0005)
			fprintf(f, "%s %s %s", n++ ? "," : "", fmt_ratio(v),
			    report_bounds[k].label);
	}
	fputs(n ? ".\n\n" : " empty.\n\n", f);
	if (json_array_size(get(cp, "top")) == 0)
		return;
	fputs("| on the path | type | bound by | time | share |\n"
	    "|---|---|---|---:|---:|\n", f);
	json_array_foreach(get(cp, "top"), i, e) {
		if (i == PATH_ROWS)
			break;
		fputs("| ", f);
		md_text(f, str(e, "name"));
		fputs(" | ", f);
		md_text(f, str(e, "type"));
		fputs(" | ", f);
		md_text(f, bound_label(str(e, "bound")));
		fprintf(f, " | %s | %s |\n", fmt_us(get(e, "us")),
		    fmt_ratio(get(e, "ratio")));
	}
	fputc('\n', f);
}

#define FLOP_ROWS 10	/* operators of the FLOPs table */

/* x as fmt_sig prints it. */
static const char *
sig(double x)
{
	json_t *v = json_real(x);
	const char *s = fmt_sig(v);

	json_decref(v);
	return s;
}

/* FLOPs, MFU and roofline (pd.hotspot flops), where they explain the
 * verdict: a compute or operator verdict, or the fp32 matmul finding. */
static void
flops(json_t *r, FILE *f)
{
	json_t *fl = get(r, "flops"), *e;
	size_t i;
	double x;

	if (!report_shows_flops(r))
		return;
	fputs("## FLOPs and roofline\n\n", f);
	if (json_is_integer(get(fl, "rank")))
		fprintf(f, "Rank %s: ", fmt_num(get(fl, "rank")));
	x = json_number_value(get(fl, "flops"));
	fprintf(f, "%s %s in %s matmul, convolution and attention "
	    "operators with recorded shapes", sig(x >= 1e12 ? x / 1e12 :
	    x / 1e9), x >= 1e12 ? "TFLOP" : "GFLOP", fmt_num(get(fl, "ops")));
	if (str(fl, "device")) {
		fputs(" on ", f);
		md_text(f, str(fl, "device"));
	}
	fprintf(f, ": %s TFLOP/s over the device's busy time (MFU %s)",
	    fmt_sig(get(fl, "busy_tflop_per_s")),
	    fmt_ratio(get(fl, "mfu_busy_ratio")));
	if (json_is_number(get(fl, "step_us")))
		fprintf(f, ", %s TFLOP/s over the step time (MFU %s)",
		    fmt_sig(get(fl, "step_tflop_per_s")),
		    fmt_ratio(get(fl, "mfu_step_ratio")));
	fputs(".", f);
	if (!str(fl, "peak_key"))
		fputs(" The device has no entry in the peak table: no MFU, "
		    "no roofline.", f);
	fputs("\n\n| operator | dtype | shapes | count | device time | "
	    "TFLOP/s | MFU | FLOP/byte | bound |\n"
	    "|---|---|---|---:|---:|---:|---:|---:|---|\n", f);
	json_array_foreach(get(fl, "top"), i, e) {
		if (i == FLOP_ROWS)
			break;
		fputs("| ", f);
		md_text(f, str(e, "name"));
		fputs(" | ", f);
		md_text(f, str(e, "dtype") ? str(e, "dtype") : "-");
		fputs(" | ", f);
		md_text(f, str(e, "shape"));
		fprintf(f, " | %s | %s | %s | %s | %s | %s |\n",
		    fmt_num(get(e, "count")), fmt_us(get(e, "device_us")),
		    fmt_sig(get(e, "tflop_per_s")),
		    fmt_ratio(get(e, "mfu_ratio")),
		    fmt_sig(get(e, "intensity_flop_per_byte")),
		    str(e, "bound") ? str(e, "bound") : "-");
	}
	fputc('\n', f);
}

#define SEQ_ROWS 5	/* kernel sequences listed */

/* Repeated kernel sequences (pd.hotspot kernel_sequences), where short
 * kernels or launches are a finding: the fusion candidates by time. */
static void
sequences(json_t *r, FILE *f)
{
	json_t *ks = get(r, "kernel_sequences"), *e, *k;
	size_t i, j;

	if (!report_shows_sequences(r))
		return;
	fputs("## Repeated kernel sequences\n\n", f);
	if (json_is_integer(get(ks, "rank")))
		fprintf(f, "Rank %s: ", fmt_num(get(ks, "rank")));
	fprintf(f, "%s distinct runs of up to %s kernels repeat %s times or "
	    "more on one stream. The first by time are the candidates for "
	    "fusion: one kernel instead of several, fewer launches and fewer "
	    "trips through memory.\n\n| # | kernels (launched by) | stream | "
	    "count | time | per kernel | share |\n"
	    "|---:|---|---:|---:|---:|---:|---:|\n", fmt_num(get(ks,
	    "repeated")), fmt_num(get(ks, "max_length")), fmt_num(get(ks,
	    "min_count")));
	json_array_foreach(get(ks, "top"), i, e) {
		if (i == SEQ_ROWS)
			break;
		fprintf(f, "| %zu | ", i + 1);
		json_array_foreach(get(e, "kernels"), j, k) {
			fputs(j ? " \xe2\x86\x92 " : "", f);
			md_text(f, kernel_short(str(k, "name")));
			if (str(k, "op")) {
				fputs(" (", f);
				md_text(f, str(k, "op"));
				fputs(")", f);
			}
		}
		fprintf(f, " | %s | %s | %s | %s | %s |\n",
		    fmt_num(get(e, "stream")), fmt_num(get(e, "count")),
		    fmt_us(get(e, "total_us")), fmt_us(get(e, "kernel_mean_us")),
		    fmt_ratio(get(e, "ratio")));
	}
	fputc('\n', f);
}

#define COUNTER_ROWS 10	/* kernels of the counters table */

/* Whether a kernel of counters has mean counters. */
static int
has_means(json_t *c)
{
	json_t *e;
	size_t i;

	json_array_foreach(get(c, "kernels"), i, e)
		if (json_object_size(get(e, "means")) > 0)
			return 1;
	return 0;
}

/* Range profiler counters (pd.hotspot counters): FLOPs per kernel and
 * precision, and the mean of each other counter. */
static void
counters(json_t *r, FILE *f)
{
	json_t *c = get(r, "counters"), *t = get(c, "totals"), *e, *v;
	const char *k;
	size_t i;
	int means = has_means(c), n;

	if (!report_shows_counters(r))
		return;
	fputs("## Hardware counters\n\n", f);
	if (json_is_integer(get(c, "rank")))
		fprintf(f, "Rank %s: ", fmt_num(get(c, "rank")));
	fprintf(f, "the CUPTI range profiler counted %s ranges: %s in all "
	    "(fp64 %s, fp32 %s, fp16 %s). No rate: a range's duration "
	    "includes the profiler's replays.\n\n| kernel | ranges | fp64 | "
	    "fp32 | fp16 | FLOPs |%s\n|---|---:|---:|---:|---:|---:|%s\n",
	    fmt_num(get(c, "ranges")), fmt_dflop(json_number_value(get(t,
	    "flops"))), fmt_dflop(json_number_value(get(t, "flops_fp64"))),
	    fmt_dflop(json_number_value(get(t, "flops_fp32"))),
	    fmt_dflop(json_number_value(get(t, "flops_fp16"))),
	    means ? " mean counters |" : "", means ? "---|" : "");
	json_array_foreach(get(c, "kernels"), i, e) {
		if (i == COUNTER_ROWS)
			break;
		fputs("| ", f);
		md_text(f, kernel_short(str(e, "name")));
		fprintf(f, " | %s | %s | %s | %s | %s |", fmt_num(get(e,
		    "count")), fmt_dflop(json_number_value(get(e,
		    "flops_fp64"))), fmt_dflop(json_number_value(get(e,
		    "flops_fp32"))), fmt_dflop(json_number_value(get(e,
		    "flops_fp16"))), fmt_dflop(json_number_value(get(e,
		    "flops"))));
		if (means) {
			n = 0;
			json_object_foreach(get(e, "means"), k, v) {
				fputs(n++ ? ", " : " ", f);
				md_text(f, k);
				fprintf(f, " %s", fmt_num(v));
			}
			fputs(n ? " |" : " - |", f);
		}
		fputc('\n', f);
	}
	if (json_array_size(get(c, "kernels")) > COUNTER_ROWS)
		fprintf(f, "\nThe first %d of %zu kernels by FLOPs.\n",
		    COUNTER_ROWS, json_array_size(get(c, "kernels")));
	fputc('\n', f);
}

static void
candidates(json_t *r, FILE *f)
{
	json_t *a = get(r, "bottlenecks"), *b, *v;
	size_t i, j;

	if (json_array_size(a) == 0)
		return;
	fputs("## Bottleneck candidates\n\n"
	    "| # | candidate | rule | domain | impact | confidence | severity |\n"
	    "|---:|---|---|---|---:|---:|---|\n", f);
	json_array_foreach(a, i, b) {
		fprintf(f, "| %s | ", fmt_num(get(b, "position")));
		md_text(f, str(b, "title"));
		fputs(" | `", f);
		fputs(str(b, "rule") ? str(b, "rule") : "-", f);
		fprintf(f, "` | %s | %s | %s | %s |\n",
		    str(b, "domain") ? str(b, "domain") : "-",
		    fmt_ratio(get(b, "impact")),
		    fmt_ratio(get(b, "confidence")),
		    str(b, "severity") ? str(b, "severity") : "-");
	}
	fputc('\n', f);
	json_array_foreach(a, i, b) {
		fprintf(f, "### %s. ", fmt_num(get(b, "position")));
		md_text(f, str(b, "title"));
		fputs("\n\n", f);
		if (str(b, "evidence")) {
			md_text(f, str(b, "evidence"));
			fputs("\n\n", f);
		}
		if (str(b, "explained_by")) {
			fputs("- follows from: `", f);
			fputs(str(b, "explained_by"), f);
			fputs("`\n", f);
		}
		json_array_foreach(get(b, "validation"), j, v) {
			fputs("- check: ", f);
			md_text(f, json_string_value(v));
			fputc('\n', f);
		}
		json_array_foreach(get(b, "hints"), j, v) {
			fputs("- hint: ", f);
			md_text(f, json_string_value(v));
			fputc('\n', f);
		}
		fputc('\n', f);
	}
}

#define BOUND_OPS 5	/* operators named as bounding the step */

/* The operators that bound the step: those on the critical path, by their
 * time on it (critical_path operators). */
static void
bounding_ops(json_t *r, FILE *f)
{
	json_t *cp = get(r, "critical_path"), *e;
	double total = json_number_value(get(cp, "total_us"));
	double rest = json_number_value(get(cp, "unattributed_us"));
	size_t i;

	if (json_array_size(get(cp, "operators")) == 0 || !(total > 0))
		return;
	fprintf(f, "%s: the operators that bound it, by their share of its "
	    "%s critical path:", path_what(cp), fmt_us(get(cp, "total_us")));
	json_array_foreach(get(cp, "operators"), i, e) {
		if (i == BOUND_OPS)
			break;
		fputs(i ? ", " : " ", f);
		md_text(f, str(e, "name"));
		fprintf(f, " %s (chiefly %s)", fmt_ratio(get(e, "ratio")),
		    bound_label(str(e, "bound")));
	}
	if (rest > 0)
		fprintf(f, "; %s in no operator", fmt_dratio(rest / total));
	fputs(".\n\n", f);
}

static void
hotspots(json_t *r, FILE *f)
{
	json_t *h = get(r, "hotspots"), *e;
	size_t i;
	int crit = 0;

	if (json_array_size(get(h, "top")) == 0)
		return;
	json_array_foreach(get(h, "top"), i, e)
		crit |= json_is_number(get(e, "critical_ratio"));
	fprintf(f, "## Top hotspots (%s operators)\n\n", str(h, "kind"));
	bounding_ops(r, f);
	fprintf(f, "| operator | type | count | time | share |%s\n"
	    "|---|---|---:|---:|---:|%s\n", crit ? " on path |" : "",
	    crit ? "---:|" : "");
	json_array_foreach(get(h, "top"), i, e) {
		fputs("| ", f);
		md_text(f, str(e, "name"));
		fputs(" | ", f);
		md_text(f, str(e, "type"));
		fprintf(f, " | %s | %s | %s |", fmt_num(get(e, "count")),
		    fmt_us(get(e, "total_us")), fmt_ratio(get(e, "ratio")));
		if (crit)
			fprintf(f, " %s |", fmt_ratio(get(e, "critical_ratio")));
		fputc('\n', f);
	}
	fputc('\n', f);
}

static double
dnum(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* The memory timeline in a line (where allocated memory starts, peaks and
 * ends; how high reserved goes), then the peaks per phase. */
static void
memory_timeline(json_t *tl, FILE *f)
{
	json_t *pts = get(tl, "points"), *p, *first = NULL, *last = NULL;
	json_t *top = NULL, *e;
	double res = NAN;
	size_t i;

	json_array_foreach(pts, i, p) {
		if (!json_is_number(get(p, "t_us")))
			continue;
		if (!first)
			first = p;
		last = p;
		if (!top || dnum(p, "allocated_bytes") >
		    dnum(top, "allocated_bytes"))
			top = p;
		if (!(dnum(p, "reserved_bytes") <= res))
			res = dnum(p, "reserved_bytes");
	}
	if (!first)
		return;
	fputs("Over time (", f);
	if (json_is_integer(get(tl, "rank")))
		fprintf(f, "rank %s, ", fmt_num(get(tl, "rank")));
	if (json_is_integer(get(tl, "device")))
		fprintf(f, "device %s, ", fmt_num(get(tl, "device")));
	fprintf(f, "%zu points over %s): allocated %s at the start, %s at its "
	    "highest (+%s), %s at the end",
	    json_array_size(pts), fmt_dus(dnum(last, "t_us") -
	    dnum(first, "t_us")), fmt_bytes(get(first, "allocated_bytes")),
	    fmt_bytes(get(top, "allocated_bytes")),
	    fmt_dus(dnum(top, "t_us") - dnum(first, "t_us")),
	    fmt_bytes(get(last, "allocated_bytes")));
	if (!isnan(res))
		fprintf(f, "; reserved up to %s", fmt_dbytes(res));
	fputs(".\n\n", f);
	if (json_array_size(get(tl, "phases")) == 0)
		return;
	fputs("| phase | peak allocated | peak reserved | allocations |\n"
	    "|---|---:|---:|---:|\n", f);
	json_array_foreach(get(tl, "phases"), i, e) {
		fputs("| ", f);
		md_text(f, str(e, "phase"));
		fprintf(f, " | %s | %s | %s |\n",
		    fmt_bytes(get(e, "peak_allocated_bytes")),
		    fmt_bytes(get(e, "peak_reserved_bytes")),
		    fmt_num(get(e, "allocs")));
	}
	fputc('\n', f);
}

static void
memory(json_t *r, FILE *f)
{
	json_t *m = get(r, "memory");

	if (json_array_size(get(m, "devices")) == 0 ||
	    (!json_is_number(get(m, "peak_allocated_bytes")) &&
	    !json_is_number(get(m, "peak_reserved_bytes"))))
		return;
	fprintf(f, "## Memory\n\nPeak allocated %s, peak reserved %s, "
	    "capacity %s, peak ratio %s.\n\n",
	    fmt_bytes(get(m, "peak_allocated_bytes")),
	    fmt_bytes(get(m, "peak_reserved_bytes")),
	    fmt_bytes(get(m, "capacity_bytes")),
	    fmt_ratio(get(m, "peak_ratio")));
	memory_timeline(get(m, "timeline"), f);
}

/* One line: the samples and each series' median and maximum. */
static void
utilization(json_t *r, FILE *f)
{
	json_t *u = get(r, "utilization"), *e;
	double span;
	size_t i;

	if (!json_is_object(u))
		return;
	span = json_number_value(get(u, "t1_s")) -
	    json_number_value(get(u, "t0_s"));
	fprintf(f, "## Utilization over time\n\n%s samples over %s "
	    "(pd-collect): ", fmt_num(get(u, "samples")), fmt_dus(span * 1e6));
	json_array_foreach(get(u, "series"), i, e) {
		fputs(i ? "; " : "", f);
		md_text(f, str(e, "label"));
		fprintf(f, " median %s", fmt_ratio(get(e, "median_ratio")));
		fprintf(f, ", max %s", fmt_ratio(get(e, "max_ratio")));
	}
	fputs(".\n\n", f);
	if (str(u, "limits_summary")) {
		fputs("pd-audit-limits: ", f);
		md_text(f, str(u, "limits_summary"));
		fputs("\n\n", f);
	}
}

static void
comparison(json_t *r, FILE *f)
{
	json_t *c = get(r, "comparison"), *e, *d;
	size_t i;

	if (!json_is_object(c))
		return;
	fprintf(f, "## Before / after: %s\n\n",
	    str(c, "verdict") ? str(c, "verdict") : "-");
	if (str(c, "reason")) {
		md_text(f, str(c, "reason"));
		fputs("\n\n", f);
	}
	fputs("| metric | before | after | change | noise | verdict |\n"
	    "|---|---:|---:|---:|---:|---|\n", f);
	json_array_foreach(get(c, "metrics"), i, e) {
		const char *m = str(e, "metric");

		fputs("| ", f);
		md_text(f, metric_label(m));
		fprintf(f, " | %s | %s | %s | \xc2\xb1 %s | %s", fmt_metric(m,
		    get(e, "before")), fmt_metric(m, get(e, "after")),
		    fmt_ratio(get(e, "delta_ratio")),
		    fmt_metric(m, get(e, "noise")),
		    str(e, "verdict") ? str(e, "verdict") : "no data");
		if (json_is_integer(get(e, "steps_needed")))
			fprintf(f, " (%s steps per run would settle it)",
			    fmt_num(get(e, "steps_needed")));
		fputs(" |\n", f);
	}
	fputc('\n', f);
	d = get(c, "dominant");
	if (json_is_object(d) && str(d, "rule")) {
		fputs("Before: `", f);
		md_code(f, str(d, "rule"));
		fprintf(f, "` (impact %s -> %s, %s). After the change the "
		    "dominant bottleneck is `", fmt_ratio(get(d, "before")),
		    fmt_ratio(get(d, "after")), json_is_true(get(d,
		    "fired_after")) ? "still fires after" :
		    "no longer fires after");
		md_code(f, str(d, "after_rule") ? str(d, "after_rule") : "none");
		fputs("`.\n\n", f);
	}
}

static void
limits(json_t *r, FILE *f)
{
	json_t *l = get(r, "limits");

	if (!json_is_object(l))
		return;
	fputs("## Machine limits\n\nVerdict: ", f);
	md_text(f, str(l, "verdict"));
	if (str(l, "reason")) {
		fputs(" (", f);
		md_text(f, str(l, "reason"));
		fputc(')', f);
	}
	fputs("\n\n", f);
}

static void
findings(json_t *r, FILE *f)
{
	json_t *a = get(r, "findings"), *e;
	size_t i;

	if (json_array_size(a) == 0)
		return;
	fputs("## From the code\n\n", f);
	json_array_foreach(a, i, e) {
		fputs("- ", f);
		md_text(f, str(e, "file"));
		fprintf(f, ":%s (%s, %s): ", fmt_num(get(e, "line")),
		    str(e, "check") ? str(e, "check") : "-",
		    str(e, "severity") ? str(e, "severity") : "-");
		md_text(f, str(e, "text"));
		fputc('\n', f);
	}
	fputc('\n', f);
}

static void
actions(json_t *r, FILE *f)
{
	json_t *a = get(r, "next_actions"), *v;
	size_t i;

	if (json_array_size(a) == 0)
		return;
	fputs("## Next actions\n\n", f);
	json_array_foreach(a, i, v) {
		fprintf(f, "%zu. ", i + 1);
		if (is_fix_action(r, json_string_value(v)))
			fputs("try the proposed fix (above)", f);
		else
			md_text(f, json_string_value(v));
		fputc('\n', f);
	}
	fputc('\n', f);
}

static void
files(json_t *r, FILE *f)
{
	json_t *es = get(r, "evidence_sources"), *v;
	const char *k;
	size_t i;

	fputs("## Evidence and files\n\nTools: ", f);
	json_array_foreach(get(es, "tools"), i, v) {
		fputs(i ? ", " : "", f);
		md_text(f, json_string_value(v));
	}
	fputs(".\n\nProfiler roots:\n\n", f);
	json_array_foreach(get(es, "roots"), i, v) {
		if (i == ROOTS_SHOWN && json_array_size(get(es, "roots")) >
		    ROOTS_SHOWN + 1) {
			fprintf(f, "- and %zu more (every root is in "
			    "report.json)\n", json_array_size(get(es, "roots")) -
			    ROOTS_SHOWN);
			break;
		}
		fprintf(f, "- %s, %s: ", rank_label(v, json_array_size(get(es, "roots"))),
		    str(v, "format") ? str(v, "format") : "-");
		md_text(f, str(v, "root"));
		fputc('\n', f);
	}
	fputs("\nFiles of this report:", f);
	json_object_foreach(get(r, "artifacts"), k, v)
		if (json_is_string(v))
			fprintf(f, " %s", json_string_value(v));
	fputs("\n", f);
}

void
report_md(json_t *r, FILE *f)
{
	summary(r, f);
	workload(r, f);
	steps(r, f);
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
	files(r, f);
}
