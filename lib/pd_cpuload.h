/* pd_cpuload: what the job got of the host's CPUs while it ran, from
 * pd-collect's cpu pd.sample records.
 *
 * pd-profile gives the summary to the rules as pd.profile host_cpu, so a
 * run whose operators look slow on the CPU because other processes held
 * the CPUs is said to be contended, not compute-bound. */
#ifndef PD_CPULOAD_H
#define PD_CPULOAD_H

#include <jansson.h>

struct pd_cpuload;

struct pd_cpuload *pd_cpuload_new(void);
void pd_cpuload_free(struct pd_cpuload *c);

/* Take a record: a pd.sample of resource cpu with the job's figures
 * (process_cpus) counts, others are ignored (borrowed, not kept). */
void pd_cpuload_add(struct pd_cpuload *c, json_t *rec);

/* The summary (new reference), or NULL when no sample counted or the
 * samples come from more than one pd-collect run (which job's would it
 * be?): {"run", "samples", and the medians over the samples of
 * "available_cpus", "job_cpus" (process_cpus), "job_wait_cpus" (the
 * job's threads in the run queue), "other_cpus" (other processes),
 * "wait_ratio" (job_wait_cpus / (job_cpus + job_wait_cpus): the share of
 * its runnable time the job waited for a CPU), "other_ratio" (other_cpus
 * / available_cpus, at most 1)}. */
json_t *pd_cpuload_summary(const struct pd_cpuload *c);

#endif
