/* Numbers for people, shared by report.md and report.html so that the two
 * pages print every value the same way: three significant digits and a
 * unit chosen for the size ("889 µs", "1.24 ms", "3.2 s", "12.5 GiB"),
 * trailing zeros dropped; a missing value is "-". */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report.h"

static char *
slot(void)
{
	static char bufs[8][64];
	static int i;

	i = (i + 1) % 8;
	return bufs[i];
}

/* x to three significant digits
 * without trailing zeros, then the unit. */
static const char *
sig3(double x, const char *unit)
{
	char *b = slot(), *p, *e;
	double a = fabs(x);

	if (a < 0.0005)
		x = 0;
	if (a >= 99.95)
		snprintf(b, 64, "%.0f", x);
	else if (a >= 9.995)
		snprintf(b, 64, "%.1f", x);
	else if (a >= 0.9995 || x == 0)
		snprintf(b, 64, "%.2f", x);
	else
		snprintf(b, 64, "%.3g", x);
	if ((p = strchr(b, '.')) && !strchr(b, 'e')) {
		for (e = b + strlen(b); e > p + 1 && e[-1] == '0'; e--)
			;
		if (e == p + 1)
			e = p;
		*e = 0;
	}
	if (strcmp(b, "-0") == 0)
		strcpy(b, "0");
	if (*unit) {
		strncat(b, " ", 63 - strlen(b));
		strncat(b, unit, 63 - strlen(b));
	}
	return b;
}

const char *
fmt_dus(double us)
{
	double a = fabs(us);

	if (!isfinite(us))
		return "-";
	if (a < 999.5)
		return sig3(us, "\xc2\xb5s");
	if (a < 999.5e3)
		return sig3(us / 1e3, "ms");
	return sig3(us / 1e6, "s");
}

const char *
fmt_us(json_t *v)
{
	return json_is_number(v) ? fmt_dus(json_number_value(v)) : "-";
}

const char *
fmt_dratio(double x)
{
	char *b;

	if (!isfinite(x * 100))
		return "-";
	b = slot();
	snprintf(b, 64, "%.1f %%", fabs(x) < 0.0005 ? 0 : x * 100);
	return b;
}

const char *
fmt_ratio(json_t *v)
{
	return json_is_number(v) ? fmt_dratio(json_number_value(v)) : "-";
}

const char *
fmt_dbytes(double x)
{
	static const char *unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	char *b;
	int u = 0;

	if (!isfinite(x))
		return "-";
	while (fabs(x) >= 999.5 && u < 5) {
		x /= 1024;
		u++;
	}
	if (u == 0) {
		b = slot();
		snprintf(b, 64, "%.0f B", x);
		return b;
	}
	return sig3(x, unit[u]);
}

const char *
fmt_bytes(json_t *v)
{
	return json_is_number(v) ? fmt_dbytes(json_number_value(v)) : "-";
}

const char *
fmt_sig(json_t *v)
{
	if (!json_is_number(v) || !isfinite(json_number_value(v)))
		return "-";
	if (json_is_integer(v))
		return fmt_num(v);
	return sig3(json_number_value(v), "");
}

const char *
steps_text(json_t *st)
{
	json_t *n = json_object_get(st, "n"), *pr = json_object_get(st,
	    "per_rank");
	char *b = slot();

	if (json_is_integer(n) && json_is_integer(pr) &&
	    json_integer_value(pr) != json_integer_value(n))
		snprintf(b, 64, "%lld steps, %lld per rank",
		    (long long)json_integer_value(n),
		    (long long)json_integer_value(pr));
	else if (json_is_integer(n) && json_integer_value(n) == 1)
		snprintf(b, 64, "1 step");
	else
		snprintf(b, 64, "%s steps", fmt_num(n));
	return b;
}

const char *
fmt_num(json_t *v)
{
	char *b;

	if (json_is_integer(v)) {
		b = slot();
		snprintf(b, 64, "%lld", (long long)json_integer_value(v));
		return b;
	}
	if (json_is_real(v)) {
		b = slot();
		snprintf(b, 64, "%.15g", json_real_value(v));
		return b;
	}
	if (json_is_boolean(v))
		return json_is_true(v) ? "true" : "false";
	return "-";
}

/* A metric's value, formatted by its unit suffix. */
const char *
fmt_metric(const char *name, json_t *v)
{
	size_t n = name ? strlen(name) : 0;

	if (n > 3 && strcmp(name + n - 3, "_us") == 0)
		return fmt_us(v);
	if (n > 6 && strcmp(name + n - 6, "_ratio") == 0)
		return fmt_ratio(v);
	if (n > 6 && strcmp(name + n - 6, "_bytes") == 0)
		return fmt_bytes(v);
	return fmt_sig(v);
}

static const struct { const char *metric, *label; } labels[] = {
	{ "step_us", "step time" },
	{ "steps_per_s", "steps per second" },
	{ "peak_allocated_bytes", "peak memory allocated" },
	{ "peak_reserved_bytes", "peak memory reserved" },
	{ "computing_ratio", "computing share" },
	{ "comm_not_overlapped_ratio", "communication not overlapped" },
	{ "free_ratio", "device free share" },
	{ "input_ratio", "data loading share" },
	{ "idle_ratio", "device idle share" },
	{ "hotspot_ratio", "top operator share" },
	{ "impact", "impact" },
	{ NULL, NULL }
};

const char *
metric_label(const char *name)
{
	int i;

	for (i = 0; name && labels[i].metric; i++)
		if (strcmp(labels[i].metric, name) == 0)
			return labels[i].label;
	return name;
}

const struct report_seg report_segs[] = {
	{ "computing_us", "computing", "#3b6fd8" },
	{ "comm_not_overlapped_us", "communication not overlapped", "#e67e22" },
	{ "free_us", "device free", "#b8c0cc" },
	{ "preparing_us", "preparing", "#9b59b6" },
	{ "bubble_us", "pipeline bubble", "#e74c3c" },
	{ "input_us", "data loading", "#16a085" },
	{ "other_us", "other", "#7f8c8d" },
	{ NULL, NULL, NULL }
};

/* The workload's ranks: "single process", "16 ranks", "2 of 8 ranks". */
const char *
ranks_text(json_t *w)
{
	json_t *n = json_object_get(w, "ranks");
	json_t *ws = json_object_get(w, "world_size");
	char *b = slot();

	if (!json_is_integer(n))
		return "-";
	if (json_integer_value(n) <= 1 && (!json_is_integer(ws) ||
	    json_integer_value(ws) <= 1))
		return "single process";
	if (json_is_integer(ws) && json_integer_value(ws) !=
	    json_integer_value(n))
		snprintf(b, 64, "%lld of %lld ranks",
		    (long long)json_integer_value(n),
		    (long long)json_integer_value(ws));
	else
		snprintf(b, 64, "%lld ranks", (long long)json_integer_value(n));
	return b;
}

/* A row's rank ("rank 3"); a row without one is the single process when
 * it is the only row. */
const char *
rank_label(json_t *e, size_t rows)
{
	json_t *r = json_object_get(e, "rank");
	char *b;

	if (!json_is_integer(r))
		return rows == 1 ? "single process" : "rank ?";
	b = slot();
	snprintf(b, 64, "rank %lld", (long long)json_integer_value(r));
	return b;
}

const struct report_seg report_bounds[] = {
	{ "cpu_bound", "host (CPU) work", "#7f8c8d" },
	{ "data_loading", "data loading", "#e67e22" },
	{ "gpu_compute_bound", "device compute", "#2e86c1" },
	{ "gpu_communication_bound", "communication", "#8e44ad" },
	{ "gpu_kernel_kernel_overhead", "kernel-to-kernel gaps", "#c0392b" },
	{ "gpu_kernel_launch_overhead", "kernel launch delay", "#f1c40f" },
	{ NULL, NULL, NULL }
};

const char *
bound_label(const char *key)
{
	int k;

	for (k = 0; key && report_bounds[k].key; k++)
		if (!strcmp(key, report_bounds[k].key))
			return report_bounds[k].label;
	return key;
}

const char *
path_what(json_t *cp)
{
	static char b[96];
	json_t *rank = json_object_get(cp, "rank"), *st = json_object_get(cp,
	    "step");
	char who[40] = "";

	if (json_is_integer(rank))
		snprintf(who, sizeof who, "Rank %lld, ", (long long)
		    json_integer_value(rank));
	if (json_is_integer(st))
		snprintf(b, sizeof b, "%s%ctep %lld", who, *who ? 's' : 'S',
		    (long long)json_integer_value(st));
	else
		snprintf(b, sizeof b, "%s%che whole trace", who, *who ? 't' :
		    'T');
	return b;
}

const char *
strip_what(json_t *s)
{
	json_t *num = json_object_get(s, "step_num");
	static char b[160];
	char who[40] = "";
	int64_t n = json_integer_value(json_object_get(s, "steps"));

	if (json_is_integer(json_object_get(s, "rank")))
		snprintf(who, sizeof who, "Rank %lld, ", (long long)
		    json_integer_value(json_object_get(s, "rank")));
	if (!json_is_integer(json_object_get(s, "step")))
		snprintf(b, sizeof b, "%s%s", who, *who ? "the whole trace (it has "
		    "no step markers)" : "The whole trace (it has no step "
		    "markers)");
	else if (n <= 1)
		snprintf(b, sizeof b, "%s%ctep %lld (the only step)", who, *who ?
		    's' : 'S', (long long)json_integer_value(json_is_integer(
		    num) ? num : json_object_get(s, "step")));
	else
		snprintf(b, sizeof b, "%s%ctep %lld (the median of %lld steps by "
		    "duration)", who, *who ? 's' : 'S', (long long)
		    json_integer_value(json_is_integer(num) ? num :
		    json_object_get(s, "step")), (long long)n);
	return b;
}

/* Whether a next action only repeats the proposed fix that the top of
 * the page shows. */
int
is_fix_action(json_t *r, const char *action)
{
	const char *ch = json_string_value(json_object_get(json_object_get(r,
	    "proposed_fix"), "change"));
	static const char pre[] = "try the proposed fix: ";

	return ch && action && strncmp(action, pre, sizeof pre - 1) == 0 &&
	    strcmp(action + sizeof pre - 1, ch) == 0;
}

/* x to three significant digits, then unit (sig3 for the other files). */
const char *
fmt_dsig(double x, const char *unit)
{
	return isfinite(x) ? sig3(x, unit) : "-";
}
