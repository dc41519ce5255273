/* What the pages show of the device's work (pd.hotspot flops,
 * kernel_sequences and counters of report.json), and when: each where it
 * explains the verdict or a finding among the candidates, so that a page
 * about a data-loading stall does not list FLOPs. */
#include <math.h>
#include <string.h>

#include "report.h"

/* Whether one of the candidates is rule id (or one of ids, NULL-ended). */
static int
has_rule(json_t *r, const char *const *ids)
{
	json_t *b;
	const char *id;
	size_t i;
	int k;

	json_array_foreach(json_object_get(r, "bottlenecks"), i, b) {
		id = json_string_value(json_object_get(b, "rule"));
		for (k = 0; id && ids[k]; k++)
			if (!strcmp(id, ids[k]))
				return 1;
	}
	return 0;
}

static int
dominant_in(json_t *r, const char *a, const char *b)
{
	const char *d = json_string_value(json_object_get(json_object_get(r,
	    "dominant"), "domain"));

	return d && (!strcmp(d, a) || (b && !strcmp(d, b)));
}

int
report_shows_flops(json_t *r)
{
	static const char *const ids[] = { "perfdiag.compute.fp32_matmul",
	    NULL };
	json_t *fl = json_object_get(r, "flops");

	return json_is_object(fl) &&
	    json_integer_value(json_object_get(fl, "ops")) > 0 &&
	    (dominant_in(r, "compute", "operator_hotspot") || has_rule(r, ids));
}

/* The findings of many short kernels or launches, which fusing the
 * repeated runs answers. */
int
report_shows_sequences(json_t *r)
{
	static const char *const ids[] = { "perfdiag.kernel_sequence_fusion",
	    "msprof.small_ops.launch", "msprof.short_ops", "hta.launch_delay",
	    NULL };

	return json_array_size(json_object_get(json_object_get(r,
	    "kernel_sequences"), "top")) > 0 &&
	    (dominant_in(r, "operator_hotspot", NULL) || has_rule(r, ids));
}

/* A trace of range counters has no kernel activity: the counters are
 * then the device's only evidence. */
int
report_shows_counters(json_t *r)
{
	static const char *const ids[] = {
	    "perfdiag.evidence.no_device_activity",
	    "perfdiag.evidence.little_device_work", NULL };

	return json_array_size(json_object_get(json_object_get(r, "counters"),
	    "kernels")) > 0 && (dominant_in(r, "compute", "operator_hotspot") ||
	    has_rule(r, ids));
}

/* The length of a name's base: up to its template or parameter list. */
static size_t
base_len(const char *s)
{
	static const char anon[] = "(anonymous namespace)";
	size_t n = 0;

	for (;;) {
		n += strcspn(s + n, "<(");
		if (strncmp(s + n, anon, sizeof anon - 1) != 0)
			break;
		n += sizeof anon - 1;
	}

	while (n > 0 && s[n - 1] == ' ')
		n--;
	return n;
}

/* The last "::" component of s[0, n). */
static const char *
last_part(const char *s, size_t *n)
{
	const char *p = s, *q;

	while ((q = strstr(p, "::")) && q + 2 < s + *n)
		p = q + 2;
	*n -= (size_t)(p - s);
	return p;
}

/* "Kernel", "kernel2": a name that says nothing. */
static int
generic(const char *s, size_t n)
{
	size_t k = 0;

	if (n >= 6 && (*s == 'k' || *s == 'K') &&
	    !strncmp(s + 1, "ernel", 5))
		k = 6;
	while (k && k < n && s[k] >= '0' && s[k] <= '9')
		k++;
	return k > 0 && k == n;
}

const char *
kernel_short(const char *name)
{
	static char bufs[8][KERNEL_SHORT + 8];
	static int slot;
	char *b = bufs[slot = (slot + 1) % 8];
	const char *s = name, *p;
	size_t n;

	if (!name)
		return "-";
	if (!strncmp(s, "void ", 5))
		s += 5;
	n = base_len(s);
	p = last_part(s, &n);
	if (generic(p, n) && s[base_len(s)] == '<') {
		/* cutlass::Kernel2<cutlass_80_wmma_...>: the argument names it */
		const char *a = s + base_len(s) + 1;
		size_t m = strcspn(a, ",<>(");

		while (*a == ' ' && m > 0) {
			a++;
			m--;
		}
		if (m > 0) {
			p = last_part(a, &m);
			n = m;
		}
	}
	if (n == 0) {
		p = name;
		n = strlen(name);
	}
	if (n > KERNEL_SHORT) {
		n = KERNEL_SHORT;
		while (n > 0 && ((unsigned char)p[n] & 0xc0) == 0x80)
			n--;
		memcpy(b, p, n);
		strcpy(b + n, "...");
	} else {
		memcpy(b, p, n);
		b[n] = 0;
	}
	return b;
}

const char *
fmt_dflop(double x)
{
	static const char *const u[] = { "FLOP", "kFLOP", "MFLOP", "GFLOP",
	    "TFLOP", "PFLOP", "EFLOP" };
	int k = 0;

	if (!isfinite(x))
		return "-";
	if (x == 0)
		return "0";
	while (k < 6 && fabs(x) >= 999.5) {
		x /= 1000;
		k++;
	}
	return fmt_dsig(x, u[k]);
}
