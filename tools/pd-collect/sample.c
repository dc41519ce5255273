/* The samplers; every delta is over the time since the previous tick. */
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
	json_array_append_new(c->sources, json_string(s));
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

/* Ticks (utime+stime) of each thread of pid. */
static int
threads(pid_t pid, int *tid, unsigned long long *ticks, int max)
{
	char path[64];
	DIR *d;
	struct dirent *de;
	int n = 0;

	snprintf(path, sizeof path, "/proc/%ld/task", (long)pid);
	if (!(d = opendir(path)))
		return 0;
	while ((de = readdir(d)) != NULL && n < max) {
		char p[320], buf[1024], *rp;
		unsigned long long ut, stt;
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof p, "%s/%.200s/stat", path, de->d_name);
		if (!(f = fopen(p, "r")))
			continue;
		if (!fgets(buf, sizeof buf, f) || !(rp = strrchr(buf, ')')) ||
		    sscanf(rp + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u "
		    "%*u %llu %llu", &ut, &stt) != 2) {
			fclose(f);
			continue;
		}
		fclose(f);
		tid[n] = atoi(de->d_name);
		ticks[n++] = ut + stt;
	}
	closedir(d);
	return n;
}

static void
tick_cpu(struct collect *c, double now, double dt)
{
	struct cputicks all, core[COLLECT_MAXCPU];
	int n = read_stat(&all, core, COLLECT_MAXCPU), i, nt;
	double maxcore = NAN, busy, top = NAN, proc = 0;
	static int tid[COLLECT_MAXTHR];
	static unsigned long long tk[COLLECT_MAXTHR];
	long hz = sysconf(_SC_CLK_TCK);
	json_t *r;

	if (n < 0)
		return;
	for (i = 0; i < n && i < c->ncore; i++) {
		double x = ratio(core[i].busy, c->core[i].busy, core[i].total,
		    c->core[i].total);

		if (!isnan(x) && (isnan(maxcore) || x > maxcore))
			maxcore = x;
	}
	nt = threads(c->pid, tid, tk, COLLECT_MAXTHR);
	for (i = 0; i < nt; i++) {
		int j;

		for (j = 0; j < c->nthr && c->thr[j].tid != tid[i]; j++)
			;
		if (j < c->nthr && dt > 0) {
			double x = (tk[i] - c->thr[j].ticks) / (double)hz / dt;

			proc += x;
			if (isnan(top) || x > top)
				top = x;
		}
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
	pd_set_real(r, "process_cpus", nt ? proc : NAN, 3);
	pd_set_real(r, "top_thread_ratio", top, 4);
	store(c, r);
	c->cpu = all;
	memcpy(c->core, core, n * sizeof *core);
	c->ncore = n;
	for (i = 0; i < nt; i++) {
		c->thr[i].tid = tid[i];
		c->thr[i].ticks = tk[i];
	}
	c->nthr = nt;
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
	store(c, r);
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
}

void
collect_begin(struct collect *c, double t0)
{
	c->t0 = t0;
	c->ncore = read_stat(&c->cpu, c->core, COLLECT_MAXCPU);
	if (c->ncore < 0)
		c->ncore = 0;
	tick_disk(c, t0, 0, 0);
	if (c->smi && in_path("nvidia-smi"))
		nv_start(c);
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
	tick_disk(c, now, dt, 1);
	if (c->npu)
		tick_npu(c, now);
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
}
