/* pd-collect's sampler: /proc/stat (CPU), /proc/meminfo, /proc/diskstats,
 * the workload's threads, and nvidia-smi (one long-running -lms child) or
 * npu-smi (one call per interval). Samples are kept in memory until the
 * workload ends (pd.run comes first in the output), in a temporary file. */
#ifndef COLLECT_H
#define COLLECT_H

#include <jansson.h>
#include <stdio.h>
#include <sys/types.h>

#define COLLECT_MAXCPU 1024
#define COLLECT_MAXDISK 64
#define COLLECT_MAXTHR 4096

struct cputicks {
	unsigned long long busy, total, steal, iowait;
};

struct collect {
	const char *run;
	double interval, t0, last;
	int smi;
	pid_t pid;			/* the workload */
	FILE *spool;			/* pd.sample lines, written later */
	size_t nsamples;
	json_t *sources;		/* array (owned) */
	struct cputicks cpu, core[COLLECT_MAXCPU];
	int ncore;
	struct { char name[32]; unsigned long long rd, wr, ticks; }
	    disk[COLLECT_MAXDISK];
	int ndisk;
	struct { int tid; unsigned long long ticks; } thr[COLLECT_MAXTHR];
	int nthr;
	double avail_cpus;
	pid_t nv_pid;			/* nvidia-smi -lms child */
	int nv_fd;
	char nv_buf[65536];
	size_t nv_len;
	int npu;			/* npu-smi present */
};

void collect_init(struct collect *c, const char *run, double interval,
    int smi);
void collect_begin(struct collect *c, double t0);
/* Wait up to timeout seconds, reading nvidia-smi lines meanwhile. */
void collect_wait(struct collect *c, double timeout);
void collect_tick(struct collect *c, double now);
void collect_end(struct collect *c);
void collect_free(struct collect *c);

#endif
