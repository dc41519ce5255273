#include "pd_num.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pd_swar.h"

static void
trim(const char **s, size_t *len)
{
	const char *p = *s;
	size_t n = *len;

	while (n > 0 && (*p == ' ' || *p == '\t' || *p == '"' || *p == '\r' ||
	    *p == '\n'))
		p++, n--;
	while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '"' ||
	    p[n - 1] == '\r' || p[n - 1] == '\n'))
		n--;
	*s = p;
	*len = n;
}

int
pd_num_is_missing(const char *s, size_t len)
{
	trim(&s, &len);
	if (len == 0)
		return 1;
	if ((len == 3 && strncasecmp(s, "N/A", 3) == 0) ||
	    (len == 2 && strncasecmp(s, "NA", 2) == 0) ||
	    (len == 1 && *s == '-') ||
	    (len == 4 && strncmp(s, "null", 4) == 0))
		return 1;
	return 0;
}

/* Scale a decimal (digits with an implied point after `point` of them) by
 * 10^shift into an int64, rounding. */
static int
scaled(const char *s, size_t len, int shift, int64_t *out)
{
	const char *p = s, *end = s + len;
	int neg = 0, exp10 = 0, seen = 0, inexact = 0;
	int64_t v = 0;
	int frac_digits = 0, in_frac = 0, round_digit = -1;
	int sticky = 0;

	if (p < end && (*p == '-' || *p == '+'))
		neg = *p++ == '-';
	/* First pass: find the exponent to know where the point lands. */
	const char *e = p;
	while (e < end && *e != 'e' && *e != 'E')
		e++;
	if (e < end) {
		char buf[16];
		size_t n = (size_t)(end - e - 1);
		char *q;
		long x;

		if (n == 0 || n >= sizeof buf)
			return PD_NUM_BAD;
		memcpy(buf, e + 1, n);
		buf[n] = 0;
		errno = 0;
		x = strtol(buf, &q, 10);
		if (*q || errno || x > 40 || x < -40)
			return PD_NUM_BAD;
		exp10 = (int)x;
		inexact = 1;
		end = e;
	}
	shift += exp10;
	for (; p < end; p++) {
		if (*p == '.') {
			if (in_frac)
				return PD_NUM_BAD;
			in_frac = 1;
			continue;
		}
		if (*p < '0' || *p > '9')
			return PD_NUM_BAD;
		seen = 1;
		if (in_frac)
			frac_digits++;
		/* Digits that land above the unit are kept; the first one
		 * below decides rounding, later ones are sticky. */
		if (!in_frac || frac_digits <= shift) {
			if (v > (INT64_MAX - 9) / 10)
				return PD_NUM_BAD;
			v = v * 10 + (*p - '0');
		} else if (round_digit < 0) {
			round_digit = *p - '0';
		} else if (*p != '0') {
			sticky = 1;
		}
	}
	if (!seen)
		return PD_NUM_BAD;
	/* Pad missing fraction digits. */
	int keep = shift > 0 ? shift : 0;
	int pad = shift - (frac_digits < keep ? frac_digits : keep);
	if (pad < 0) {
		/* negative shift: drop integer digits (rounding) */
		while (pad < 0) {
			int d = (int)(v % 10);
			if (round_digit >= 0 && round_digit != 0)
				sticky = 1;
			round_digit = d;
			v /= 10;
			pad++;
		}
	}
	for (; pad > 0; pad--) {
		if (v > INT64_MAX / 10)
			return PD_NUM_BAD;
		v *= 10;
	}
	(void)sticky;
	if (round_digit >= 5)
		v++;
	*out = neg ? -v : v;
	return inexact ? PD_NUM_INEXACT : PD_NUM_OK;
}

int
pd_num_us_to_ns(const char *s, size_t len, int64_t *ns)
{
	trim(&s, &len);
	if (pd_num_is_missing(s, len))
		return PD_NUM_MISSING;
	return scaled(s, len, 3, ns);
}

int
pd_num_int(const char *s, size_t len, int64_t *v)
{
	/* the common case first: up to 18 characters, all digits but a
	 * leading '-' (< 10^18: no overflow), the same answer as the
	 * general way below */
	if (len > 0 && len <= 18) {
		size_t i = s[0] == '-';
		int64_t x = 0;

		if (i < len) {
#ifdef PD_HAVE_SWAR
			/* 8 to 16 digits: the first 8 from one load, the
			 * rest from the last 8 bytes (the ones already read
			 * masked off); anything else the loop below */
			size_t nd = len - i, r;
			uint64_t t, m;

			if (nd >= 8 && nd <= 16) {
				r = nd - 8;
				memcpy(&t, s + i, 8);
				t ^= PD_SWAR_ZEROS;
				if (pd_swar_nondigit(t))
					goto bytes;
				x = (int64_t)pd_swar_value(t);
				if (r) {
					memcpy(&t, s + len - 8, 8);
					t ^= PD_SWAR_ZEROS;
					m = ~0ULL << 8 * (8 - r);
					if (pd_swar_nondigit(t) & m)
						goto bytes;
					x = x * (int64_t)pd_pow10_8[r] +
					    (int64_t)pd_swar_value(t & m);
				}
				*v = s[0] == '-' ? -x : x;
				return PD_NUM_OK;
			}
bytes:
			x = 0;
#endif
			for (; i < len && s[i] >= '0' && s[i] <= '9'; i++)
				x = x * 10 + (s[i] - '0');
			if (i == len) {
				*v = s[0] == '-' ? -x : x;
				return PD_NUM_OK;
			}
		}
	}
	trim(&s, &len);
	if (pd_num_is_missing(s, len))
		return PD_NUM_MISSING;
	return scaled(s, len, 0, v);
}

int
pd_num_double(const char *s, size_t len, double *v)
{
	char buf[64], *end;
	double d;

	trim(&s, &len);
	if (pd_num_is_missing(s, len))
		return PD_NUM_MISSING;
	if (len >= sizeof buf)
		return PD_NUM_BAD;
	memcpy(buf, s, len);
	buf[len] = 0;
	errno = 0;
	d = strtod(buf, &end);
	if (*end || errno == ERANGE || isnan(d) || isinf(d))
		return PD_NUM_BAD;
	*v = d;
	return PD_NUM_OK;
}

int
pd_num_opt_int(const char *s, long long min, long long max, long long *v)
{
	const char *p = s;
	char *end;
	long long x;

	if (*p == '+' || *p == '-')
		p++;
	if (*p < '0' || *p > '9')
		return PD_NUM_BAD;
	errno = 0;
	x = strtoll(s, &end, 10);
	if (errno || *end || x < min || x > max)
		return PD_NUM_BAD;
	*v = x;
	return PD_NUM_OK;
}

int
pd_num_opt_real(const char *s, double min, double max, double *v)
{
	const char *p = s;
	char *end;
	int digits = 0;
	double x;

	if (*p == '+' || *p == '-')
		p++;
	for (; *p >= '0' && *p <= '9'; p++)
		digits++;
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			digits++;
	if (!digits)
		return PD_NUM_BAD;
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (*p < '0' || *p > '9')
			return PD_NUM_BAD;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p)
		return PD_NUM_BAD;
	errno = 0;
	x = strtod(s, &end);
	if (*end || errno == ERANGE || !isfinite(x) || !(x >= min && x <= max))
		return PD_NUM_BAD;
	*v = x;
	return PD_NUM_OK;
}

int
pd_num_round_i64(double d, int64_t *v)
{
	/* 2^63 is exact as a double; every double below it fits */
	if (!isfinite(d) || d >= 9223372036854775808.0 ||
	    d < -9223372036854775808.0)
		return PD_NUM_BAD;
	*v = (int64_t)llround(d);
	return PD_NUM_OK;
}

int64_t
pd_num_add_sat(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return r;
}
