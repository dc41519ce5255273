/* pd-collect's sampler: /proc/stat (CPU), /proc/meminfo, /proc/diskstats,
 * /proc/net/dev, the job's process tree, and nvidia-smi (one long-running -lms child,
 * and its compute-apps query) or npu-smi (one call per interval): which
 * processes use each accelerator, the job's or others'. Samples are kept in memory until the
 * workload ends (pd.run comes first in the output), in a temporary file. */
#ifndef COLLECT_H
#define COLLECT_H

#include <jansson.h>
#include <stdio.h>
#include <sys/types.h>

#define COLLECT_MAXCPU 1024
#define COLLECT_MAXDISK 64
#define COLLECT_MAXTHR 4096
#define COLLECT_MAXPROC 4096

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
	/* the job: every descendant of pd-collect (a child subreaper, so
	 * orphans stay in) but the nvidia-smi child */
	struct thr { int tid; unsigned long long ticks, wait_ns; }
	    thr[COLLECT_MAXTHR];		/* sorted by tid */
	int nthr;
	double job_s;			/* CPU seconds of the job so far */
	double job_io_rd, job_io_wr;	/* storage bytes of the job so far */
	double reaped_s;		/* CPU s of job processes reaped here */
	double reaped_rd, reaped_wr;	/* their storage bytes */
	double job_rss, job_rd_per_s, job_wr_per_s;	/* the last look */
	unsigned long long throttled_us;	/* cgroup cpu.stat */
	int has_throttle;
	struct { char name[32]; unsigned long long rx, tx; } net[COLLECT_MAXDISK];
	int nnet;
	double avail_cpus;
	double job_pss;			/* proportional set size, -1: none */
	int *job_pids, njob_pids;	/* the last look's tree, sorted */
	json_t *nv_uuids;		/* uuid -> GPU index (owned) */
	int apps_every, apps_wait;	/* compute-apps query every Nth tick */
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
/* A job process pd-collect reaped (an orphan it adopted, or the command):
 * its CPU time and storage I/O stay counted. */
void collect_reaped(struct collect *c, double cpu_s, double rd_bytes,
    double wr_bytes);
void collect_end(struct collect *c);
void collect_free(struct collect *c);

#endif
