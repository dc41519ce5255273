/* The samplers; every delta is over the time since the previous tick. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collect.h"
#include "pd_diag.h"
#include "pd_rec.h"
#include "pd_smi.h"

#define NV_FIELDS "index,name,utilization.gpu,utilization.memory," \
	"memory.used,memory.total,power.draw,power.limit,clocks.sm," \
	"clocks.max.sm"

/* now: monotonic seconds; t_s is relative to the start of the command,
 * interval_s to the previous tick. */
static json_t *
sample(struct collect *c, double now, const char *resource, const char *dev,
    const char *source)
{
	json_t *r = pd_rec_new("pd.sample", 1, NULL);

	pd_set_null(r, "root");
	pd_set_null(r, "rank");
	pd_set_str(r, "run", c->run);
	pd_set_real(r, "t_s", now - c->t0, 3);
	pd_set_real(r, "interval_s", now - c->last, 3);
	pd_set_str(r, "resource", resource);
	pd_set_str(r, "device", dev);
	pd_set_str(r, "source", source);
	return r;
}

/* Samples wait in a temporary file until pd.run is written: memory stays
 * bounded on long runs. Steals r. */
static void
store(struct collect *c, json_t *r)
{
	if (c->spool && json_dumpf(r, c->spool, JSON_COMPACT |
	    JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15)) == 0 &&
	    fputc('\n', c->spool) != EOF)
		c->nsamples++;
	json_decref(r);
}

static void
add_source(struct collect *c, const char *s)
{
	json_array_append_new(c->sources, pd_str(s));
}

/* "cpu" and "cpuN" lines; busy excludes guest (already in user/nice). */
static int
read_stat(struct cputicks *all, struct cputicks *core, int max)
{
	FILE *f = fopen("/proc/stat", "r");
	char line[512];
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof line, f)) {
		unsigned long long v[10] = { 0 };
		struct cputicks *t;
		char name[16];

		if (strncmp(line, "cpu", 3))
			continue;
		if (sscanf(line, "%15s %llu %llu %llu %llu %llu %llu %llu %llu "
		    "%llu %llu", name, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
		    &v[6], &v[7], &v[8], &v[9]) < 5)
			continue;
		if (strcmp(name, "cpu") == 0)
			t = all;
		else if (n < max)
			t = &core[n++];
		else
			continue;
		t->busy = (v[0] - v[8]) + (v[1] - v[9]) + v[2] + v[5] + v[6] +
		    v[7];
		t->steal = v[7];
		t->iowait = v[4];
		t->total = t->busy + v[3] + v[4];
	}
	fclose(f);
	return n;
}

static double
ratio(unsigned long long a1, unsigned long long a0, unsigned long long b1,
    unsigned long long b0)
{
	return b1 > b0 ? (double)(a1 - a0) / (double)(b1 - b0) : NAN;
}

/* ---- the job: pd-collect's descendants ---- */

struct proc {
	int pid, ppid, in;
	unsigned long long ticks;	/* utime+stime+cutime+cstime */
	long long rss;			/* pages */
};

static int
cmp_pid(const void *a, const void *b)
{
	const struct proc *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* The fields after "(comm)" of a /proc stat line, NULL when malformed. */
static const char *
stat_rest(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	char *rp;

	if (!f)
		return NULL;
	if (!fgets(buf, (int)size, f) || !(rp = strrchr(buf, ')')) ||
	    rp[1] != ' ') {
		fclose(f);
		return NULL;
	}
	fclose(f);
	return rp + 2;
}

/* Every process of the host with its parent and CPU ticks. */
static struct proc *
all_procs(size_t *np)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	struct proc *p = NULL;
	size_t n = 0, cap = 0;

	*np = 0;
	if (!d)
		return NULL;
	while ((de = readdir(d)) != NULL) {
		char path[300], buf[1024];
		const char *r;
		unsigned long long ut, st, cut, cst;
		long long rss;
		int ppid;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof path, "/proc/%.200s/stat", de->d_name);
		if (!(r = stat_rest(path, buf, sizeof buf)) ||
		    sscanf(r, "%*c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu "
		    "%llu %llu %llu %*d %*d %*d %*d %*u %*u %lld", &ppid, &ut,
		    &st, &cut, &cst, &rss) != 6)
			continue;
		if (n == cap) {
			struct proc *q = realloc(p, (cap = cap ? 2 * cap : 256) *
			    sizeof *p);

			if (!q)
				break;
			p = q;
		}
		p[n].pid = atoi(de->d_name);
		p[n].ppid = ppid;
		p[n].in = 0;
		p[n].ticks = ut + st + cut + cst;
		p[n].rss = rss;
		n++;
	}
	closedir(d);
	qsort(p, n, sizeof *p, cmp_pid);
	*np = n;
	return p;
}

/* Mark the descendants of self, the nvidia-smi child's tree left out. */
static void
mark_tree(struct proc *p, size_t n, int self, int skip)
{
	int more = 1;

	while (more) {
		size_t i;

		more = 0;
		for (i = 0; i < n; i++) {
			struct proc key, *par;

			if (p[i].in || p[i].pid == self || p[i].pid == skip)
				continue;
			key.pid = p[i].ppid;
			par = p[i].ppid == self ? NULL : bsearch(&key, p, n,
			    sizeof *p, cmp_pid);
			if (p[i].ppid == self || (par && par->in)) {
				p[i].in = 1;
				more = 1;
			}
		}
	}
}

static void
proc_io(int pid, double *rd, double *wr)
{
	char path[64], line[128];
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/io", pid);
	if (!(f = fopen(path, "r")))
		return;
	while (fgets(line, sizeof line, f)) {
		if (!strncmp(line, "read_bytes: ", 12))
			*rd += atof(line + 12);
		else if (!strncmp(line, "write_bytes: ", 13))
			*wr += atof(line + 13);
	}
	fclose(f);
}

/* The proportional and resident set sizes of pid in bytes
 * (/proc/PID/smaps_rollup, Linux 4.14): a page shared by k processes
 * counts 1/k in each PSS, so the sum over the tree counts pages shared
 * inside it once. Both come from one read, so that a process that ends
 * between the listing of the tree and this read counts in neither sum
 * (before, its RSS from the listing stayed while its PSS was 0).
 * 1: read (*rss stays as it is where the file has no Rss line);
 * 0: the process has ended; -1: unreadable. */
static int
proc_mem(int pid, double *rss, double *pss)
{
	char path[64], line[128];
	FILE *f;
	double kb = -1;

	snprintf(path, sizeof path, "/proc/%d/smaps_rollup", pid);
	if (!(f = fopen(path, "r")))
		return errno == ENOENT || errno == ESRCH ? 0 : -1;
	while (fgets(line, sizeof line, f))
		if (!strncmp(line, "Rss:", 4))
			*rss = atof(line + 4) * 1024;
		else if (!strncmp(line, "Pss:", 4)) {
			kb = atof(line + 4);
			break;
		}
	/* an empty read: the process ended after the open */
	if (kb < 0 && !ferror(f) && feof(f) && ftell(f) == 0) {
		fclose(f);
		return 0;
	}
	fclose(f);
	if (kb < 0)
		return -1;
	*pss = kb * 1024;
	return 1;
}

static int
cmp_tid(const void *a, const void *b)
{
	const struct thr *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

/* Threads of pid: utime+stime ticks and run-queue wait (schedstat). */
static int
threads(int pid, struct thr *t, int room)
{
	char path[64];
	DIR *d;
	struct dirent *de;
	int n = 0;

	snprintf(path, sizeof path, "/proc/%d/task", pid);
	if (!(d = opendir(path)))
		return 0;
	while ((de = readdir(d)) != NULL && n < room) {
		char p[320], buf[1024];
		const char *r;
		unsigned long long ut, stt, run, wait;
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof p, "%s/%.200s/stat", path, de->d_name);
		if (!(r = stat_rest(p, buf, sizeof buf)) ||
		    sscanf(r, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u "
		    "%*u %llu %llu", &ut, &stt) != 2)
			continue;
		t[n].tid = atoi(de->d_name);
		t[n].ticks = ut + stt;
		t[n].wait_ns = 0;
		snprintf(p, sizeof p, "%s/%.200s/schedstat", path, de->d_name);
		if ((f = fopen(p, "r"))) {
			if (fscanf(f, "%llu %llu", &run, &wait) == 2)
				t[n].wait_ns = wait;
			fclose(f);
		}
		n++;
	}
	closedir(d);
	return n;
}

struct job {
	int nproc, nthr, pss_ok;
	double cpus, wait_cpus, top, rss_bytes, pss_bytes, rd_per_s, wr_per_s;
};

/* One look at the job: CPU, run-queue wait, busiest thread, memory and
 * storage I/O over dt. A process's cutime/cstime and /proc io include
 * the children it reaped, so the sum over the live tree plus what
 * pd-collect reaped itself only grows. */
static void
job_scan(struct collect *c, double dt, struct job *j)
{
	static struct thr t[COLLECT_MAXTHR];
	size_t n, i;
	struct proc *p = all_procs(&n);
	long hz = sysconf(_SC_CLK_TCK), page = sysconf(_SC_PAGESIZE);
	double ticks = 0, rd = 0, wr = 0, tot, iord, iowr;
	int nt = 0, k;

	memset(j, 0, sizeof *j);
	j->top = NAN;
	j->pss_ok = 1;
	mark_tree(p, n, (int)getpid(), (int)c->nv_pid);
	c->njob_pids = 0;
	for (i = 0; i < n; i++) {
		double rss, pss;

		if (!p[i].in)
			continue;
		c->job_pids = pd_xrealloc(c->job_pids, (size_t)(c->njob_pids +
		    1) * sizeof *c->job_pids);
		c->job_pids[c->njob_pids++] = p[i].pid;	/* p is sorted */
		j->nproc++;
		ticks += (double)p[i].ticks;
		rss = (double)p[i].rss * page;
		pss = 0;
		switch (proc_mem(p[i].pid, &rss, &pss)) {
		case 0:	/* ended since the listing: in neither sum */
			rss = 0;
			break;
		case -1:
			j->pss_ok = 0;
			break;
		}
		j->rss_bytes += rss;
		j->pss_bytes += pss;
		proc_io(p[i].pid, &rd, &wr);
		nt += threads(p[i].pid, t + nt, COLLECT_MAXTHR - nt);
	}
	free(p);
	j->nthr = nt;
	tot = ticks / hz + c->reaped_s;
	iord = rd + c->reaped_rd;
	iowr = wr + c->reaped_wr;
	if (dt > 0) {
		j->cpus = fmax(0, (tot - c->job_s) / dt);
		j->rd_per_s = fmax(0, (iord - c->job_io_rd) / dt);
		j->wr_per_s = fmax(0, (iowr - c->job_io_wr) / dt);
	}
	c->job_s = tot;
	c->job_io_rd = iord;
	c->job_io_wr = iowr;
	/* threads: new ones (born since the last look) count whole */
	for (k = 0; k < nt && dt > 0; k++) {
		struct thr key, *o;
		unsigned long long t0 = 0, w0 = 0;
		double x;

		key.tid = t[k].tid;
		if ((o = bsearch(&key, c->thr, (size_t)c->nthr, sizeof *c->thr,
		    cmp_tid)) != NULL) {
			t0 = o->ticks <= t[k].ticks ? o->ticks : t[k].ticks;
			w0 = o->wait_ns <= t[k].wait_ns ? o->wait_ns :
			    t[k].wait_ns;
		}
		x = (t[k].ticks - t0) / (double)hz / dt;
		if (isnan(j->top) || x > j->top)
			j->top = x;
		j->wait_cpus += (t[k].wait_ns - w0) / 1e9 / dt;
	}
	qsort(t, (size_t)nt, sizeof *t, cmp_tid);
	memcpy(c->thr, t, (size_t)nt * sizeof *t);
	c->nthr = nt;
}

void
collect_reaped(struct collect *c, double cpu_s, double rd, double wr)
{
	c->reaped_s += cpu_s;
	c->reaped_rd += rd;
	c->reaped_wr += wr;
}

/* cgroup v2 cpu.stat throttled_usec of our cgroup; 0 when absent. */
static int
throttled(unsigned long long *us)
{
	char cg[512] = "", path[700], line[256];
	FILE *f = fopen("/proc/self/cgroup", "r");
	int ok = 0;

	if (f) {
		while (fgets(line, sizeof line, f))
			if (!strncmp(line, "0::", 3)) {
				snprintf(cg, sizeof cg, "%s", line + 3);
				cg[strcspn(cg, "\n")] = 0;
			}
		fclose(f);
	}
	snprintf(path, sizeof path, "/sys/fs/cgroup%s/cpu.stat",
	    strcmp(cg, "/") ? cg : "");
	if (!(f = fopen(path, "r")) && !(f = fopen("/sys/fs/cgroup/cpu.stat",
	    "r")))
		return 0;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "throttled_usec %llu", us) == 1)
			ok = 1;
	fclose(f);
	return ok;
}

/* Mean current frequency over the maximum, cpufreq CPUs; NaN without. */
static double
freq_ratio(int ncpu)
{
	double sum = 0;
	int i, k = 0;

	for (i = 0; i < ncpu && i < 512; i++) {
		char p[128];
		FILE *f;
		double cur = 0, max = 0;

		snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu%d/cpufreq/"
		    "scaling_cur_freq", i);
		if (!(f = fopen(p, "r")))
			continue;
		if (fscanf(f, "%lf", &cur) != 1)
			cur = 0;
		fclose(f);
		snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu%d/cpufreq/"
		    "cpuinfo_max_freq", i);
		if (!(f = fopen(p, "r")))
			continue;
		if (fscanf(f, "%lf", &max) != 1)
			max = 0;
		fclose(f);
		if (cur > 0 && max > 0) {
			sum += cur / max;
			k++;
		}
	}
	return k ? sum / k : NAN;
}

static void
tick_cpu(struct collect *c, double now, double dt)
{
	struct cputicks all, core[COLLECT_MAXCPU];
	int n = read_stat(&all, core, COLLECT_MAXCPU), i;
	double maxcore = NAN, busy, thr = NAN;
	unsigned long long tus = 0;
	struct job j;
	json_t *r;

	if (n < 0)
		return;
	for (i = 0; i < n && i < c->ncore; i++) {
		double x = ratio(core[i].busy, c->core[i].busy, core[i].total,
		    c->core[i].total);

		if (!isnan(x) && (isnan(maxcore) || x > maxcore))
			maxcore = x;
	}
	job_scan(c, dt, &j);
	if (throttled(&tus)) {
		if (c->has_throttle && dt > 0 && tus >= c->throttled_us)
			thr = (tus - c->throttled_us) / 1e6 / dt;
		c->throttled_us = tus;
		c->has_throttle = 1;
	}
	busy = ratio(all.busy, c->cpu.busy, all.total, c->cpu.total);
	r = sample(c, now, "cpu", NULL, "/proc/stat");
	/* busy CPUs of the host over the CPUs this job may use */
	pd_set_real(r, "util_ratio", fmin(1, busy * n / c->avail_cpus), 4);
	pd_set_real(r, "busy_cpus", busy * n, 3);
	pd_set_real(r, "available_cpus", c->avail_cpus, 2);
	pd_set_real(r, "steal_ratio", ratio(all.steal, c->cpu.steal,
	    all.total, c->cpu.total), 4);
	pd_set_real(r, "iowait_ratio", ratio(all.iowait, c->cpu.iowait,
	    all.total, c->cpu.total), 4);
	pd_set_real(r, "max_core_ratio", maxcore, 4);
	/* the job's own: its whole process tree */
	pd_set_real(r, "process_cpus", j.cpus, 3);
	pd_set_real(r, "top_thread_ratio", j.nthr ? j.top : NAN, 4);
	pd_set_int(r, "job_processes", j.nproc);
	pd_set_int(r, "job_threads", j.nthr);
	pd_set_real(r, "job_util_ratio", fmin(1, j.cpus / c->avail_cpus), 4);
	pd_set_real(r, "job_wait_cpus", j.wait_cpus, 3);
	pd_set_real(r, "job_demand_ratio", fmin(1, (j.cpus + j.wait_cpus) /
	    c->avail_cpus), 4);
	pd_set_real(r, "other_cpus", fmax(0, busy * n - j.cpus), 3);
	pd_set_real(r, "throttled_ratio", thr, 4);
	pd_set_real(r, "freq_ratio", freq_ratio(n), 4);
	store(c, r);
	c->cpu = all;
	memcpy(c->core, core, n * sizeof *core);
	c->ncore = n;
	c->job_rss = j.rss_bytes;
	c->job_pss = j.pss_ok ? j.pss_bytes : -1;
	c->job_rd_per_s = j.rd_per_s;
	c->job_wr_per_s = j.wr_per_s;
}

static long long
meminfo_kb(const char *buf, const char *key)
{
	const char *p = strstr(buf, key);

	return p ? atoll(p + strlen(key)) : -1;
}

static void
tick_mem(struct collect *c, double now)
{
	char buf[8192];
	int fd = open("/proc/meminfo", O_RDONLY);
	ssize_t n;
	long long tot, av, st, sf;
	json_t *r;

	if (fd < 0)
		return;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = 0;
	tot = meminfo_kb(buf, "MemTotal:");
	av = meminfo_kb(buf, "MemAvailable:");
	st = meminfo_kb(buf, "SwapTotal:");
	sf = meminfo_kb(buf, "SwapFree:");
	r = sample(c, now, "mem", NULL, "/proc/meminfo");
	pd_set_int(r, "total_bytes", tot * 1024);
	pd_set_int(r, "available_bytes", av * 1024);
	pd_set_real(r, "used_ratio", tot > 0 ? 1 - (double)av / tot : NAN, 4);
	pd_set_int(r, "swap_used_bytes", (st - sf) * 1024);
	/* resident pages of the job's processes (shared ones per process),
	 * and their proportional share (shared ones once) */
	pd_set_int(r, "job_rss_bytes", (json_int_t)c->job_rss);
	if (c->job_pss >= 0)
		pd_set_int(r, "job_pss_bytes", (json_int_t)c->job_pss);
	else
		pd_set_null(r, "job_pss_bytes");
	store(c, r);
}

/* The job's storage I/O (/proc/PID/io read_bytes, write_bytes: what
 * reached the block layer, page-cache hits not included). */
static void
tick_io(struct collect *c, double now)
{
	json_t *r = sample(c, now, "io", "job", "/proc/PID/io");

	pd_set_real(r, "read_bytes_per_s", c->job_rd_per_s, 0);
	pd_set_real(r, "write_bytes_per_s", c->job_wr_per_s, 0);
	store(c, r);
}

/* Link speed in bytes/s from /sys/class/net/IF/speed (Mb/s); NaN. */
static double
link_speed(const char *ifname)
{
	char p[128];
	FILE *f;
	long mb = -1;

	snprintf(p, sizeof p, "/sys/class/net/%s/speed", ifname);
	if (!(f = fopen(p, "r")))
		return NAN;
	if (fscanf(f, "%ld", &mb) != 1)
		mb = -1;
	fclose(f);
	return mb > 0 ? mb * 1e6 / 8 : NAN;
}

static int
link_down(const char *ifname)
{
	char p[128], st[16] = "";
	FILE *f;

	snprintf(p, sizeof p, "/sys/class/net/%s/operstate", ifname);
	if (!(f = fopen(p, "r")))
		return 0;
	if (fscanf(f, "%15s", st) != 1)
		st[0] = 0;
	fclose(f);
	return !strcmp(st, "down");
}

/* Host network interfaces (lo and those down left out): the job's own share of the
 * traffic cannot be told apart from /proc. */
static void
tick_net(struct collect *c, double now, double dt, int emit)
{
	FILE *f = fopen("/proc/net/dev", "r");
	char line[512];

	if (!f)
		return;
	while (fgets(line, sizeof line, f)) {
		char name[32], *colon = strchr(line, ':');
		unsigned long long rx, tx;
		int i;

		if (!colon || sscanf(line, " %31[^:]: %llu %*u %*u %*u %*u %*u "
		    "%*u %*u %llu", name, &rx, &tx) != 3 || !strcmp(name, "lo") ||
		    link_down(name))
			continue;
		for (i = 0; i < c->nnet && strcmp(c->net[i].name, name); i++)
			;
		if (i == c->nnet) {
			if (c->nnet == COLLECT_MAXDISK)
				continue;
			snprintf(c->net[c->nnet++].name, 32, "%s", name);
		} else if (emit && dt > 0) {
			json_t *r = sample(c, now, "net", name, "/proc/net/dev");
			double sp = link_speed(name);
			double a = (rx - c->net[i].rx) / dt;
			double b = (tx - c->net[i].tx) / dt;

			pd_set_real(r, "rx_bytes_per_s", a, 0);
			pd_set_real(r, "tx_bytes_per_s", b, 0);
			pd_set_real(r, "speed_bytes_per_s", sp, 0);
			pd_set_real(r, "util_ratio", fmax(a, b) / sp, 4);
			store(c, r);
		}
		c->net[i].rx = rx;
		c->net[i].tx = tx;
	}
	fclose(f);
}

static int
whole_disk(const char *name)
{
	char p[128];

	if (!strncmp(name, "loop", 4) || !strncmp(name, "ram", 3) ||
	    !strncmp(name, "zram", 4) || !strncmp(name, "dm-", 3) ||
	    !strncmp(name, "md", 2) || !strncmp(name, "sr", 2))
		return 0;
	snprintf(p, sizeof p, "/sys/block/%s", name);
	return access(p, F_OK) == 0;
}

static int
rotational(const char *name)
{
	char p[128];
	FILE *f;
	int r = -1;

	snprintf(p, sizeof p, "/sys/block/%s/queue/rotational", name);
	if ((f = fopen(p, "r"))) {
		if (fscanf(f, "%d", &r) != 1)
			r = -1;
		fclose(f);
	}
	return r;
}

static void
tick_disk(struct collect *c, double now, double dt, int emit)
{
	FILE *f = fopen("/proc/diskstats", "r");
	char line[512];

	if (!f)
		return;
	while (fgets(line, sizeof line, f)) {
		char name[32];
		unsigned long long v[11];
		int i;

		if (sscanf(line, "%*u %*u %31s %llu %llu %llu %llu %llu %llu "
		    "%llu %llu %llu %llu", name, &v[0], &v[1], &v[2], &v[3],
		    &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]) != 11 ||
		    !whole_disk(name))
			continue;
		for (i = 0; i < c->ndisk && strcmp(c->disk[i].name, name); i++)
			;
		if (i == c->ndisk) {
			if (c->ndisk == COLLECT_MAXDISK)
				continue;
			snprintf(c->disk[c->ndisk++].name, 32, "%s", name);
			emit = 0;
		} else if (emit && dt > 0) {
			json_t *r = sample(c, now, "disk", name,
			    "/proc/diskstats");
			int rot = rotational(name);

			pd_set_real(r, "read_bytes_per_s",
			    (v[2] - c->disk[i].rd) * 512.0 / dt, 0);
			pd_set_real(r, "write_bytes_per_s",
			    (v[6] - c->disk[i].wr) * 512.0 / dt, 0);
			pd_set_real(r, "busy_ratio",
			    (v[9] - c->disk[i].ticks) / 1000.0 / dt, 4);
			if (rot < 0)
				pd_set_null(r, "rotational");
			else
				pd_set_bool(r, "rotational", rot);
			store(c, r);
		}
		c->disk[i].rd = v[2];
		c->disk[i].wr = v[6];
		c->disk[i].ticks = v[9];
	}
	fclose(f);
}

/* ---- accelerators ---- */

static int
in_path(const char *prog)
{
	const char *path = getenv("PATH");
	char buf[4096];

	while (path && *path) {
		size_t n = strcspn(path, ":");

		snprintf(buf, sizeof buf, "%.*s/%s", (int)n, path, prog);
		if (access(buf, X_OK) == 0)
			return 1;
		path += n + (path[n] == ':');
	}
	return 0;
}

static void
nv_start(struct collect *c)
{
	int p[2];
	char ms[32];

	snprintf(ms, sizeof ms, "--loop-ms=%d", (int)(c->interval * 1000));
	if (pipe(p) != 0)
		return;
	c->nv_pid = fork();
	if (c->nv_pid == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(p[1], 1);
		dup2(null, 0);
		dup2(null, 2);
		close(p[0]);
		close(p[1]);
		setenv("LC_ALL", "C", 1);
		execlp("nvidia-smi", "nvidia-smi", "--query-gpu=" NV_FIELDS,
		    "--format=csv,noheader,nounits", ms, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	if (c->nv_pid < 0) {
		close(p[0]);
		return;
	}
	c->nv_fd = p[0];
	fcntl(c->nv_fd, F_SETFL, O_NONBLOCK);
	add_source(c, "nvidia-smi");
}

static void
nv_lines(struct collect *c, double now)
{
	char *nl;

	while ((nl = memchr(c->nv_buf, '\n', c->nv_len)) != NULL) {
		size_t len = (size_t)(nl - c->nv_buf) + 1;
		char *line = strndup(c->nv_buf, len - 1);
		json_t *d = pd_smi_nv_csv(line, NV_FIELDS), *x;
		size_t i;

		json_array_foreach(d, i, x) {
			json_t *r = pd_smi_sample(x, c->run, now - c->t0,
			    c->interval);

			store(c, r);
		}
		json_decref(d);
		free(line);
		memmove(c->nv_buf, c->nv_buf + len, c->nv_len - len);
		c->nv_len -= len;
	}
}

void
collect_wait(struct collect *c, double timeout)
{
	struct pollfd pf;
	double end;
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	end = ts.tv_sec + ts.tv_nsec / 1e9 + timeout;
	for (;;) {
		double now;
		int ms;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		now = ts.tv_sec + ts.tv_nsec / 1e9;
		if (now >= end)
			return;
		ms = (int)ceil((end - now) * 1000);
		if (ms > 50)
			ms = 50;	/* notice the workload's end soon */
		pf.fd = c->nv_fd;
		pf.events = POLLIN;
		if (poll(&pf, c->nv_fd >= 0 ? 1 : 0, ms) > 0 &&
		    (pf.revents & (POLLIN | POLLHUP))) {
			ssize_t n = read(c->nv_fd, c->nv_buf + c->nv_len,
			    sizeof c->nv_buf - c->nv_len - 1);

			if (n > 0) {
				c->nv_len += (size_t)n;
				nv_lines(c, now);
				if (c->nv_len == sizeof c->nv_buf - 1)
					c->nv_len = 0;
			} else if (n == 0) {
				close(c->nv_fd);
				c->nv_fd = -1;
			}
		}
		{
			siginfo_t si;

			si.si_pid = 0;
			if (waitid(P_PID, (id_t)c->pid, &si, WEXITED | WNOHANG |
			    WNOWAIT) == 0 && si.si_pid == c->pid)
				return;
		}
	}
}

/* ---- which processes use the accelerators ---- */

#define USE_MAXOTHERS 8

/* Per device: the job's processes and device memory; other processes of
 * this host (visible in /proc); processes not visible here (another PID
 * namespace: the tool reports host pids inside a container). */
struct use {
	char dev[48];
	long idx;
	int job, other, unseen;
	double job_mem, other_mem;
	json_t *others;		/* [{pid, process}], at most USE_MAXOTHERS */
};

static int
cmp_int(const void *a, const void *b)
{
	const int *x = a, *y = b;

	return (*x > *y) - (*x < *y);
}

static int
cmp_use(const void *a, const void *b)
{
	const struct use *x = a, *y = b;

	return (x->idx > y->idx) - (x->idx < y->idx);
}

static void
use_add(const struct collect *c, struct use *u, json_t *p)
{
	json_int_t pid = json_integer_value(json_object_get(p, "pid"));
	double mem = pd_rec_num(p, "mem_used_bytes", NAN);
	int key = (int)pid;
	char path[48];

	if (c->njob_pids && bsearch(&key, c->job_pids, (size_t)c->njob_pids,
	    sizeof key, cmp_int)) {
		u->job++;
		u->job_mem += isnan(mem) ? 0 : mem;
		return;
	}
	snprintf(path, sizeof path, "/proc/%lld", (long long)pid);
	if (access(path, F_OK) != 0) {
		u->unseen++;
		return;
	}
	u->other++;
	u->other_mem += isnan(mem) ? 0 : mem;
	if (json_array_size(u->others) < USE_MAXOTHERS)
		json_array_append_new(u->others, json_pack("{s:I,s:O}", "pid",
		    (json_int_t)pid, "process", json_object_get(p, "process") ?
		    json_object_get(p, "process") : json_null()));
}

/* One pd.sample per device; frees u. */
static void
use_store(struct collect *c, double now, const char *resource,
    const char *source, struct use *u, size_t n)
{
	size_t i;

	qsort(u, n, sizeof *u, cmp_use);
	for (i = 0; i < n; i++) {
		json_t *r = sample(c, now, resource, u[i].dev, source);

		pd_set_int(r, "job_processes", u[i].job);
		pd_set_int(r, "other_processes", u[i].other);
		pd_set_int(r, "unseen_processes", u[i].unseen);
		pd_set_int(r, "job_mem_bytes", (json_int_t)u[i].job_mem);
		pd_set_int(r, "other_mem_bytes", (json_int_t)u[i].other_mem);
		pd_set(r, "others", u[i].others);
		store(c, r);
	}
	free(u);
}

static struct use *
use_new(size_t n)
{
	struct use *u = pd_xcalloc(n ? n : 1, sizeof *u);
	size_t i;

	for (i = 0; i < n; i++)
		u[i].others = json_array();
	return u;
}

static double
mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* nvidia-smi --query-compute-apps every tick, or every Nth one when the
 * query is slow (without persistence mode a query can take a second):
 * it may take at most a tenth of the interval. */
static void
tick_gpu_apps(struct collect *c, double now)
{
	static char *argv[] = { "nvidia-smi",
	    "--query-compute-apps=pid,process_name,gpu_uuid,used_memory",
	    "--format=csv,noheader,nounits", NULL };
	size_t n = json_object_size(c->nv_uuids), i = 0, k;
	const char *uuid;
	json_t *v, *apps, *x;
	struct use *u;
	double t0, took;
	char *out;

	if (!n)
		return;
	if (c->apps_wait > 0) {
		c->apps_wait--;
		return;
	}
	t0 = mono();
	out = pd_smi_run(argv, 5);
	took = mono() - t0;
	c->apps_every = took > c->interval / 10 ? (int)fmin(60,
	    ceil(took * 10 / c->interval)) : 1;
	c->apps_wait = c->apps_every - 1;
	if (!out)
		return;
	apps = pd_smi_nv_apps(out);
	free(out);
	u = use_new(n);
	json_object_foreach(c->nv_uuids, uuid, v) {
		u[i].idx = (long)json_integer_value(v);
		snprintf(u[i].dev, sizeof u->dev, "%ld", u[i].idx);
		i++;
	}
	json_array_foreach(apps, k, x) {
		json_t *idx = json_object_get(c->nv_uuids, pd_rec_str(x,
		    "gpu_uuid") ? pd_rec_str(x, "gpu_uuid") : "");

		for (i = 0; idx && i < n; i++)
			if (u[i].idx == (long)json_integer_value(idx))
				use_add(c, &u[i], x);
	}
	json_decref(apps);
	use_store(c, now, "gpu", "nvidia-smi-apps", u, n);
}

/* The GPUs' uuids, to place compute-apps rows; none: no query. */
static void
gpu_uuids(struct collect *c)
{
	static char *argv[] = { "nvidia-smi", "--query-gpu=index,uuid",
	    "--format=csv,noheader", NULL };
	char *out = pd_smi_run(argv, 5);

	if (!out)
		return;
	c->nv_uuids = pd_smi_nv_uuids(out);
	free(out);
	if (json_object_size(c->nv_uuids))
		add_source(c, "nvidia-smi --query-compute-apps");
}

/* npu-smi info's process table, when it has one ("No running processes
 * found in NPU n" rows count as none). */
static void
npu_procs(struct collect *c, double now, const char *out, json_t *devs)
{
	size_t n = json_array_size(devs), i, k;
	json_t *procs, *x;
	struct use *u;

	if (!n || !strstr(out, "Process id"))
		return;
	procs = pd_smi_npu_procs(out);
	u = use_new(n);
	json_array_foreach(devs, i, x) {
		json_int_t npu = json_integer_value(json_object_get(x, "index"));
		json_int_t chip = json_integer_value(json_object_get(x, "chip"));

		u[i].idx = (long)(npu * 1024 + chip);
		snprintf(u[i].dev, sizeof u->dev, "%lld:%lld", (long long)npu,
		    (long long)chip);
	}
	json_array_foreach(procs, k, x)
		for (i = 0; i < n; i++)
			if (!strcmp(u[i].dev, pd_rec_str(x, "device") ?
			    pd_rec_str(x, "device") : ""))
				use_add(c, &u[i], x);
	json_decref(procs);
	use_store(c, now, "npu", "npu-smi-procs", u, n);
}

static void
tick_npu(struct collect *c, double now)
{
	static char *argv[] = { "npu-smi", "info", NULL };
	char *out = pd_smi_run(argv, 5);
	json_t *d, *x;
	size_t i;

	if (!out)
		return;
	d = pd_smi_npu_table(out);
	json_array_foreach(d, i, x)
		store(c, pd_smi_sample(x, c->run,
		    now - c->t0, c->interval));
	npu_procs(c, now, out, d);
	json_decref(d);
	free(out);
}

void
collect_init(struct collect *c, const char *run, double interval, int smi)
{
	cpu_set_t set;

	memset(c, 0, sizeof *c);
	c->run = run;
	c->interval = interval;
	c->smi = smi;
	c->nv_fd = -1;
	if ((c->spool = tmpfile()) != NULL)
		fcntl(fileno(c->spool), F_SETFD, FD_CLOEXEC);
	c->sources = json_array();
	c->avail_cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
		c->avail_cpus = CPU_COUNT(&set);
	add_source(c, "/proc/stat");
	add_source(c, "/proc/meminfo");
	add_source(c, "/proc/diskstats");
	add_source(c, "/proc/PID");
	add_source(c, "/proc/net/dev");
}

void
collect_begin(struct collect *c, double t0)
{
	c->t0 = t0;
	c->ncore = read_stat(&c->cpu, c->core, COLLECT_MAXCPU);
	if (c->ncore < 0)
		c->ncore = 0;
	tick_disk(c, t0, 0, 0);
	tick_net(c, t0, 0, 0);
	if (c->smi && in_path("nvidia-smi")) {
		nv_start(c);
		gpu_uuids(c);
	}
	if (c->smi && in_path("npu-smi")) {
		c->npu = 1;
		add_source(c, "npu-smi");
	}
}

void
collect_tick(struct collect *c, double now)
{
	double dt = now - (c->last > 0 ? c->last : c->t0);

	if (c->last <= 0)
		c->last = c->t0;
	tick_cpu(c, now, dt);
	tick_mem(c, now);
	tick_io(c, now);
	tick_disk(c, now, dt, 1);
	tick_net(c, now, dt, 1);
	if (c->npu)
		tick_npu(c, now);
	if (c->nv_uuids)
		tick_gpu_apps(c, now);
	c->last = now;
}

void
collect_end(struct collect *c)
{
	if (c->nv_pid > 0) {
		kill(c->nv_pid, SIGTERM);
		waitpid(c->nv_pid, NULL, 0);
		c->nv_pid = 0;
	}
	if (c->nv_fd >= 0) {
		close(c->nv_fd);
		c->nv_fd = -1;
	}
}

void
collect_free(struct collect *c)
{
	if (c->spool)
		fclose(c->spool);
	json_decref(c->sources);
	json_decref(c->nv_uuids);
	free(c->job_pids);
}
