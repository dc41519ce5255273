#include "pd_stats.h"
#include "pd_diag.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pd_rec.h"

void
pd_vec_push(struct pd_vec *a, double x)
{
	if (a->n == a->cap) {
		a->cap = a->cap ? a->cap * 2 : 16;
		a->v = realloc(a->v, a->cap * sizeof *a->v);
		if (!a->v)
			pd_oom();
	}
	a->v[a->n++] = x;
}

void
pd_vec_free(struct pd_vec *a)
{
	free(a->v);
	memset(a, 0, sizeof *a);
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void
pd_squant_init(struct pd_squant *q, size_t n, double p)
{
	double pos = p * (double)(n ? n - 1 : 0);
	size_t i = (size_t)floor(pos);

	q->frac = pos - (double)i;
	q->lo = q->hi = n ? n - 1 : 0;
	if (i + 1 < n)
		q->lo = i, q->hi = i + 1;
	q->vlo = q->vhi = NAN;
}

double
pd_squant_value(const struct pd_squant *q)
{
	if (q->lo == q->hi)
		return q->vhi;
	return q->vlo + (q->vhi - q->vlo) * q->frac;
}

double
pd_quantile_sorted(const double *v, size_t n, double q)
{
	struct pd_squant s;

	if (n == 0)
		return NAN;
	pd_squant_init(&s, n, q);
	pd_squant_see(&s, s.lo, v[s.lo]);
	pd_squant_see(&s, s.hi, v[s.hi]);
	return pd_squant_value(&s);
}

void
pd_stats(const struct pd_vec *a, struct pd_summary *s)
{
	double *v;
	size_t i;
	double ss = 0;

	memset(s, 0, sizeof *s);
	s->n = a->n;
	if (a->n == 0) {
		s->mean = s->median = s->p90 = s->min = s->max = NAN;
		s->stdev = s->cv = NAN;
		return;
	}
	v = malloc(a->n * sizeof *v);
	if (!v)
		pd_oom();
	memcpy(v, a->v, a->n * sizeof *v);
	qsort(v, a->n, sizeof *v, cmp);
	for (i = 0; i < a->n; i++)
		s->sum += v[i];
	s->mean = s->sum / (double)a->n;
	for (i = 0; i < a->n; i++)
		ss += (v[i] - s->mean) * (v[i] - s->mean);
	/* population stdev: the steps seen are the population described */
	s->stdev = sqrt(ss / (double)a->n);
	s->cv = s->mean != 0 ? s->stdev / s->mean : 0;
	s->min = v[0];
	s->max = v[a->n - 1];
	s->median = pd_quantile_sorted(v, a->n, 0.5);
	s->p90 = pd_quantile_sorted(v, a->n, 0.9);
	free(v);
}

json_t *
pd_summary_json(const struct pd_summary *s, int dec)
{
	json_t *o = json_object();

	pd_set_int(o, "n", (int64_t)s->n);
	pd_set_real(o, "mean", s->mean, dec);
	pd_set_real(o, "median", s->median, dec);
	pd_set_real(o, "p90", s->p90, dec);
	pd_set_real(o, "min", s->min, dec);
	pd_set_real(o, "max", s->max, dec);
	pd_set_real(o, "cv", s->cv, 4);
	return o;
}

void
pd_noise_rule(const struct pd_summary *b, const struct pd_summary *a,
    double rel, double abs, struct pd_noise *out)
{
	out->spread = b->n >= 2 && a->n >= 2 ? 2 * sqrt(b->stdev * b->stdev /
	    (double)b->n + a->stdev * a->stdev / (double)a->n) : NAN;
	out->floor = isnan(b->mean) ? abs : fmax(rel * fabs(b->mean), abs);
	out->noise = isnan(out->spread) || out->spread < out->floor ?
	    out->floor : out->spread;
}

const char *
pd_noise_verdict(double delta, const struct pd_noise *nz, int lower_better)
{
	if (isnan(delta))
		return NULL;
	if (fabs(delta) <= nz->floor)
		return "unchanged";
	if (fabs(delta) <= nz->noise)
		return "inconclusive";
	return (delta < 0) == (lower_better != 0) ? "improved" : "regressed";
}

long
pd_noise_samples(double sd_b, double sd_a, double delta)
{
	double z = PD_Z_ALPHA + PD_Z_BETA, n;

	if (isnan(sd_b) || isnan(sd_a) || isnan(delta) || delta == 0)
		return -1;
	n = ceil(z * z * (sd_b * sd_b + sd_a * sd_a) / (delta * delta));
	if (n > 1e15)
		return -1;
	return n < 2 ? 2 : (long)n;
}
