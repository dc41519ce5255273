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

/* {"n":..,"mean":..,"median":..,"p90":..,"min":..,"max":..,"cv":..},
 * values rounded to dec decimals (new reference). */
json_t *pd_summary_json(const struct pd_summary *s, int dec);

#endif
