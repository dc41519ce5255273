/* pd_stats: summary statistics over a growing array of doubles. */
#ifndef PD_STATS_H
#define PD_STATS_H

#include <jansson.h>
#include <stddef.h>

struct pd_vec {
	double *v;
	size_t n, cap;
};

void pd_vec_push(struct pd_vec *a, double x);
void pd_vec_free(struct pd_vec *a);

struct pd_summary {
	size_t n;
	double sum, mean, median, p90, min, max, stdev, cv;	/* cv = stdev/mean */
};

/* Summarize (sorts a copy; a is unchanged). Linear interpolation between
 * closest ranks for quantiles (numpy's default). */
void pd_stats(const struct pd_vec *a, struct pd_summary *s);
double pd_quantile_sorted(const double *v, size_t n, double q);

/* The same quantile of n values seen one at a time in increasing order
 * (read back from a sort, say) without holding them: init, then the i-th
 * value (from 0) to see for each i, then the value (NaN for none). Only
 * the values at lo and hi count; a reader may stop after hi. */
struct pd_squant {
	size_t lo, hi;
	double frac, vlo, vhi;
};
void pd_squant_init(struct pd_squant *q, size_t n, double p);
static inline void
pd_squant_see(struct pd_squant *q, size_t i, double v)
{
	if (i == q->lo)
		q->vlo = v;
	if (i == q->hi)
		q->vhi = v;
}
double pd_squant_value(const struct pd_squant *q);

/* {"n":..,"mean":..,"median":..,"p90":..,"min":..,"max":..,"cv":..},
 * values rounded to dec decimals (new reference). */
json_t *pd_summary_json(const struct pd_summary *s, int dec);

/* The noise rule of a before/after comparison of two means, shared by
 * pd-compare and pd-audit-limits -x. spread = 2 * sqrt(sd_b^2/n_b +
 * sd_a^2/n_a), two standard errors of the difference of the means (NAN
 * when a side has fewer than 2 values); floor = the larger of rel *
 * |mean_b| and abs, the smallest change that counts; noise = the larger
 * of spread and floor. */
struct pd_noise {
	double spread, floor, noise;
};

void pd_noise_rule(const struct pd_summary *b, const struct pd_summary *a,
    double rel, double abs, struct pd_noise *out);

/* The verdict on delta = after - before: NULL when delta is NAN;
 * "unchanged" when |delta| <= floor (below what counts); "inconclusive"
 * when floor < |delta| <= noise (it would count, but the spread hides
 * it); else "improved" or "regressed" by the better direction. */
const char *pd_noise_verdict(double delta, const struct pd_noise *nz,
    int lower_better);

/* z values of pd_noise_samples: PD_Z_ALPHA = 2, the noise rule's two
 * standard errors (two-sided alpha 0.0455); PD_Z_BETA = 0.8416, the
 * standard normal quantile of 0.8 (80 % power). */
#define PD_Z_ALPHA 2.0
#define PD_Z_BETA 0.8416

/* Values per side for a two-sample comparison of means to detect delta
 * at the standard deviations sd_b and sd_a (normal approximation, equal
 * sizes): ceil((PD_Z_ALPHA + PD_Z_BETA)^2 * (sd_b^2 + sd_a^2) / delta^2),
 * at least 2; -1 when delta is 0 or a value is NAN. */
long pd_noise_samples(double sd_b, double sd_a, double delta);

#endif
