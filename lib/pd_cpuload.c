/* pd_cpuload: the job's share of the host's CPUs, from cpu samples. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pd_cpuload.h"
#include "pd_diag.h"
#include "pd_rec.h"
#include "pd_stats.h"

struct pd_cpuload {
	char *run;		/* the pd-collect run of the first sample */
	int seen, mixed;	/* a sample counted; one of another run */
	struct pd_vec avail, job, wait, other, wait_ratio, other_ratio;
};

struct pd_cpuload *
pd_cpuload_new(void)
{
	struct pd_cpuload *c = calloc(1, sizeof *c);

	if (!c)
		pd_oom();
	return c;
}

void
pd_cpuload_free(struct pd_cpuload *c)
{
	if (!c)
		return;
	free(c->run);
	pd_vec_free(&c->avail);
	pd_vec_free(&c->job);
	pd_vec_free(&c->wait);
	pd_vec_free(&c->other);
	pd_vec_free(&c->wait_ratio);
	pd_vec_free(&c->other_ratio);
	free(c);
}

void
pd_cpuload_add(struct pd_cpuload *c, json_t *rec)
{
	const char *r = pd_rec_str(rec, "resource");
	const char *run = pd_rec_str(rec, "run");
	double avail, job, wait, other;

	if (!pd_rec_is(rec, "pd.sample") || !r || strcmp(r, "cpu"))
		return;
	avail = pd_rec_num(rec, "available_cpus", NAN);
	job = pd_rec_num(rec, "process_cpus", NAN);
	wait = pd_rec_num(rec, "job_wait_cpus", NAN);
	other = pd_rec_num(rec, "other_cpus", NAN);
	if (!isfinite(job) || job < 0)
		return;
	if (!c->seen) {
		c->seen = 1;
		c->run = pd_xstrdup(run);
	} else if ((!run) != (!c->run) || (run && strcmp(run, c->run)))
		c->mixed = 1;
	pd_vec_push(&c->job, job);
	if (isfinite(avail) && avail > 0)
		pd_vec_push(&c->avail, avail);
	if (isfinite(wait) && wait >= 0) {
		pd_vec_push(&c->wait, wait);
		if (job + wait > 0)
			pd_vec_push(&c->wait_ratio, wait / (job + wait));
	}
	if (isfinite(other) && other >= 0) {
		pd_vec_push(&c->other, other);
		if (isfinite(avail) && avail > 0)
			pd_vec_push(&c->other_ratio, fmin(1, other / avail));
	}
}

static double
median(const struct pd_vec *v)
{
	struct pd_summary s;

	pd_stats(v, &s);
	return s.n ? s.median : NAN;
}

json_t *
pd_cpuload_summary(const struct pd_cpuload *c)
{
	json_t *o;

	if (!c || c->mixed || c->job.n == 0)
		return NULL;
	o = json_object();
	pd_set_str(o, "run", c->run);
	pd_set_int(o, "samples", (int64_t)c->job.n);
	pd_set_real(o, "available_cpus", median(&c->avail), 3);
	pd_set_real(o, "job_cpus", median(&c->job), 3);
	pd_set_real(o, "job_wait_cpus", median(&c->wait), 3);
	pd_set_real(o, "other_cpus", median(&c->other), 3);
	pd_set_real(o, "wait_ratio", median(&c->wait_ratio), 4);
	pd_set_real(o, "other_ratio", median(&c->other_ratio), 4);
	return o;
}
