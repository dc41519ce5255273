/* pd_num: exact number parsing for profiler fields.
 *
 * Timestamps in profiler files are decimal microseconds, often epoch-based
 * with nanosecond digits ("1736408883704643.212"). A double holds about 16
 * significant digits, so they are parsed straight into int64 nanoseconds. */
#ifndef PD_NUM_H
#define PD_NUM_H

#include <stddef.h>
#include <stdint.h>

enum {
	PD_NUM_MISSING = 0,	/* empty, "N/A", "NA", "-", "null" */
	PD_NUM_OK = 1,
	PD_NUM_BAD = -1,	/* not a number */
	PD_NUM_INEXACT = 2	/* parsed, but written in exponent form (Excel) */
};

/* Parse a decimal microsecond value (optionally signed, fraction, exponent,
 * surrounding spaces/TAB/quotes) into nanoseconds, rounding half away from
 * zero below 1 ns. Returns one of the PD_NUM_ codes. */
int pd_num_us_to_ns(const char *s, size_t len, int64_t *ns);

/* Same, for a value that is already in the target unit (an integer count):
 * the fraction is rounded. */
int pd_num_int(const char *s, size_t len, int64_t *v);

/* A floating value; same codes (never PD_NUM_INEXACT). */
int pd_num_double(const char *s, size_t len, double *v);

/* Is the text one of the "no value" spellings? */
int pd_num_is_missing(const char *s, size_t len);

/* Strict values for command-line options: the whole string, nothing
 * around it (no spaces, quotes or "N/A"). An integer is [+-]digits; a real
 * is [+-]digits[.digits][e[+-]digits] (no hex, inf or nan). Either must lie
 * in [min, max]. Returns PD_NUM_OK, or PD_NUM_BAD (not such a number, too
 * large for the type, or out of range); *v is set only on PD_NUM_OK. */
int pd_num_opt_int(const char *s, long long min, long long max, long long *v);
int pd_num_opt_real(const char *s, double min, double max, double *v);

/* A double rounded to the nearest int64 (half away from zero): PD_NUM_OK,
 * or PD_NUM_BAD when it is NaN, infinite or outside the int64 range (*v
 * is then left alone). llround on such a value is undefined or
 * INT64_MIN. */
int pd_num_round_i64(double d, int64_t *v);

/* a + b, held at INT64_MAX / INT64_MIN instead of overflowing. */
int64_t pd_num_add_sat(int64_t a, int64_t b);

#endif
