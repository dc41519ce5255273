/* The host's ceilings: CPU topology, availability, frequency and SIMD width
 * from sysfs/procfs (or an lscpu capture), memory bandwidth from a short
 * STREAM triad, disk sequential read. Measured values are wall-clock
 * results and differ from run to run. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "limits.h"
#include "pd_diag.h"
#include "pd_rec.h"
#include "pd_smi.h"

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* First line of a small file, trimmed; NULL when unreadable. */
static char *
read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return NULL;
	if (!fgets(buf, (int)size, f)) {
		fclose(f);
		return NULL;
	}
	fclose(f);
	n = strlen(buf);
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = 0;
	return buf;
}

static int
has_flag(json_t *flags, const char *f)
{
	size_t i;
	json_t *v;

	json_array_foreach(flags, i, v)
		if (strcmp(json_string_value(v), f) == 0)
			return 1;
	return 0;
}

/* FLOPs per cycle per core: FMA units x (vector bits / element bits) x 2,
 * with 2 FMA units assumed (flags cannot tell the unit count). */
static void
simd(json_t *o, json_t *flags, const char *arch)
{
	const char *name = "scalar";
	int bits = 64, fma = 0;

	if (has_flag(flags, "avx512f"))
		name = "avx512", bits = 512, fma = 1;
	else if (has_flag(flags, "avx2") && has_flag(flags, "fma"))
		name = "avx2_fma", bits = 256, fma = 1;
	else if (has_flag(flags, "avx"))
		name = "avx", bits = 256;
	else if (has_flag(flags, "sse2"))
		name = "sse2", bits = 128;
	else if (has_flag(flags, "sve"))
		name = "sve", bits = 128, fma = 1;
	else if (has_flag(flags, "asimd"))
		name = "asimd", bits = 128, fma = 1;
	else if (arch && strcmp(arch, "aarch64") == 0)
		name = "asimd", bits = 128, fma = 1;
	pd_set_str(o, "simd", name);
	pd_set_int(o, "vector_bits", bits);
	pd_set_int(o, "fma_units_assumed", fma ? 2 : 0);
	/* without FMA: one add and one multiply port of the width */
	pd_set_int(o, "flops_per_cycle_fp64", 2 * (bits / 64) * (fma ? 2 : 1));
	pd_set_int(o, "flops_per_cycle_fp32", 2 * (bits / 32) * (fma ? 2 : 1));
}

static json_t *
cpuinfo_flags(char *model, size_t msize, double *mhz)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	json_t *fl = json_array();
	char *line = NULL;
	size_t cap = 0;
	int got = 0;

	*mhz = NAN;
	if (!f)
		return fl;
	while (getline(&line, &cap, f) > 0) {
		char *c = strchr(line, ':');
		double x;

		if (!c)
			continue;
		c++;
		c[strcspn(c, "\n")] = 0;
		while (*c == ' ')
			c++;
		if (!strncmp(line, "model name", 10) && !*model)
			snprintf(model, msize, "%s", c);
		else if (!strncmp(line, "cpu MHz", 7) &&
		    (x = atof(c)) > 0 && (isnan(*mhz) || x > *mhz))
			*mhz = x;
		else if (!got && (!strncmp(line, "flags", 5) ||
		    !strncmp(line, "Features", 8))) {
			char *save = NULL, *t;

			for (t = strtok_r(c, " ", &save); t;
			    t = strtok_r(NULL, " ", &save))
				json_array_append_new(fl, pd_str(t));
			got = 1;
		}
	}
	free(line);
	fclose(f);
	return fl;
}

/* Physical cores and sockets from topology; total last-level cache. */
static void
topology(int *cores, int *sockets, double *llc)
{
	glob_t g;
	size_t i, j;
	char (*seen)[160] = NULL, (*groups)[256] = NULL;
	int pk[1024];
	size_t nseen = 0, npk = 0, ngroups = 0;

	*cores = *sockets = 0;
	*llc = 0;
	if (glob("/sys/devices/system/cpu/cpu[0-9]*", 0, NULL, &g) != 0)
		return;
	seen = calloc(g.gl_pathc, sizeof *seen);
	groups = calloc(g.gl_pathc, sizeof *groups);
	for (i = 0; i < g.gl_pathc; i++) {
		char p[512], a[64], b[64], key[160];
		int lvl, best = -1, bestval = 0;

		snprintf(p, sizeof p, "%s/topology/physical_package_id",
		    g.gl_pathv[i]);
		if (!read_line(p, a, sizeof a))
			continue;
		snprintf(p, sizeof p, "%s/topology/core_id", g.gl_pathv[i]);
		if (!read_line(p, b, sizeof b))
			continue;
		snprintf(key, sizeof key, "%s/%s", a, b);
		for (j = 0; j < nseen && strcmp(seen[j], key); j++)
			;
		if (j == nseen)
			snprintf(seen[nseen++], sizeof seen[0], "%s", key);
		for (j = 0; j < npk && pk[j] != atoi(a); j++)
			;
		if (j == npk && npk < 1024)
			pk[npk++] = atoi(a);
		/* highest cache level of this cpu and who shares it */
		for (lvl = 0; lvl < 8; lvl++) {
			char lv[16];

			snprintf(p, sizeof p, "%s/cache/index%d/level",
			    g.gl_pathv[i], lvl);
			if (!read_line(p, lv, sizeof lv))
				break;
			if (atoi(lv) > bestval) {
				bestval = atoi(lv);
				best = lvl;
			}
		}
		if (best >= 0) {
			char sh[256], sz[64];

			snprintf(p, sizeof p, "%s/cache/index%d/shared_cpu_list",
			    g.gl_pathv[i], best);
			if (!read_line(p, sh, sizeof sh))
				continue;
			for (j = 0; j < ngroups && strcmp(groups[j], sh); j++)
				;
			if (j < ngroups)
				continue;
			snprintf(groups[ngroups++], sizeof groups[0], "%s", sh);
			snprintf(p, sizeof p, "%s/cache/index%d/size",
			    g.gl_pathv[i], best);
			if (read_line(p, sz, sizeof sz)) {
				double v = atof(sz);
				char u = sz[strspn(sz, "0123456789.")];

				*llc += u == 'K' ? v * 1024 : u == 'M' ?
				    v * 1048576 : v;
			}
		}
	}
	*cores = (int)nseen;
	*sockets = (int)npk;
	free(seen);
	free(groups);
	globfree(&g);
}

/* cgroup v2 cpu.max: quota/period CPUs, NaN when unlimited or absent. */
static double
cgroup_quota(void)
{
	char buf[128];
	double q, p;

	if (!read_line("/sys/fs/cgroup/cpu.max", buf, sizeof buf))
		return NAN;
	if (sscanf(buf, "%lf %lf", &q, &p) != 2 || p <= 0)
		return NAN;
	return q / p;
}

static void
peaks(json_t *o, int cores, double mhz)
{
	double f64 = pd_rec_num(o, "flops_per_cycle_fp64", NAN);
	double f32 = pd_rec_num(o, "flops_per_cycle_fp32", NAN);

	pd_set_real(o, "peak_gflops_fp64", cores > 0 ? cores * mhz / 1e3 * f64 :
	    NAN, 1);
	pd_set_real(o, "peak_gflops_fp32", cores > 0 ? cores * mhz / 1e3 * f32 :
	    NAN, 1);
}

static json_t *
cpu_lscpu(const char *text)
{
	json_t *l = pd_smi_lscpu(text), *o = json_object();
	int64_t cpus = pd_rec_int(l, "cpus", -1);
	int64_t tpc = pd_rec_int(l, "threads_per_core", -1);
	int64_t cps = pd_rec_int(l, "cores_per_socket", -1);
	int64_t so = pd_rec_int(l, "sockets", -1);
	double mhz = pd_rec_num(l, "max_mhz", NAN);
	const char *fs = "lscpu_max_mhz";
	int cores = cps > 0 && so > 0 ? (int)(cps * so) : -1;

	if (isnan(mhz)) {
		mhz = pd_rec_num(l, "nominal_mhz", NAN);
		fs = isnan(mhz) ? NULL : "model_name";
	}
	pd_set_str(o, "source", "lscpu");
	pd_set_str(o, "model", pd_rec_str(l, "model_name") ?
	    pd_rec_str(l, "model_name") : pd_rec_str(l, "bios_model_name"));
	pd_set_str(o, "architecture", pd_rec_str(l, "architecture"));
	pd_set(o, "logical_cpus", cpus > 0 ? json_integer(cpus) : NULL);
	pd_set(o, "physical_cores", cores > 0 ? json_integer(cores) : NULL);
	pd_set(o, "sockets", so > 0 ? json_integer(so) : NULL);
	pd_set(o, "threads_per_core", tpc > 0 ? json_integer(tpc) : NULL);
	pd_set_null(o, "affinity_cpus");
	pd_set_null(o, "quota_cpus");
	pd_set_real(o, "available_cpus", cpus > 0 ? (double)cpus : NAN, 2);
	pd_set_real(o, "max_mhz", mhz, 1);
	pd_set_str(o, "freq_source", fs);
	pd_set_real(o, "llc_bytes", pd_rec_num(l, "l3_bytes", NAN), 0);
	simd(o, json_object_get(l, "flags"), pd_rec_str(l, "architecture"));
	peaks(o, cores, mhz);
	json_decref(l);
	return o;
}

json_t *
limits_cpu(const char *lscpu_text)
{
	json_t *o, *flags;
	char model[256] = "", buf[64];
	int logical, cores, sockets, aff = -1;
	double mhz, cpuinfo_mhz, llc, quota, avail;
	const char *fs = NULL;
	cpu_set_t set;

	if (lscpu_text)
		return cpu_lscpu(lscpu_text);
	o = json_object();
	logical = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (sched_getaffinity(0, sizeof set, &set) == 0)
		aff = CPU_COUNT(&set);
	quota = cgroup_quota();
	topology(&cores, &sockets, &llc);
	flags = cpuinfo_flags(model, sizeof model, &cpuinfo_mhz);
	mhz = NAN;
	if (read_line("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq",
	    buf, sizeof buf)) {
		mhz = atof(buf) / 1000;
		fs = "cpufreq";
	} else if (!isnan(cpuinfo_mhz)) {
		mhz = cpuinfo_mhz;
		fs = "cpuinfo";
	}
	pd_set_str(o, "source", "machine");
	pd_set_str(o, "model", *model ? model : NULL);
#if defined(__x86_64__)
	pd_set_str(o, "architecture", "x86_64");
#elif defined(__aarch64__)
	pd_set_str(o, "architecture", "aarch64");
#else
	pd_set_null(o, "architecture");
#endif
	pd_set_int(o, "logical_cpus", logical);
	pd_set(o, "physical_cores", cores > 0 ? json_integer(cores) : NULL);
	pd_set(o, "sockets", sockets > 0 ? json_integer(sockets) : NULL);
	pd_set(o, "threads_per_core", cores > 0 ?
	    json_integer((logical + cores - 1) / cores) : NULL);
	pd_set(o, "affinity_cpus", aff > 0 ? json_integer(aff) : NULL);
	pd_set_real(o, "quota_cpus", quota, 2);
	avail = aff > 0 ? aff : logical;
	if (!isnan(quota) && quota < avail)
		avail = quota;
	pd_set_real(o, "available_cpus", avail, 2);
	pd_set_real(o, "max_mhz", mhz, 1);
	pd_set_str(o, "freq_source", fs);
	pd_set_real(o, "llc_bytes", llc > 0 ? llc : NAN, 0);
	simd(o, flags, pd_rec_str(o, "architecture"));
	/* the job can use only the available CPUs' cores */
	{
		int usable = cores;

		if (cores > 0 && avail < logical)
			usable = (int)ceil(avail * cores / logical);
		peaks(o, usable, mhz);
	}
	json_decref(flags);
	return o;
}

/* ---- memory: STREAM triad a = b + q*c, 24 bytes and 2 FLOP per element ---- */

struct stream {
	double *a, *b, *c;
	size_t n;
	int nth;
	pthread_barrier_t bar;
	volatile int stop;
};

struct worker {
	struct stream *s;
	size_t lo, hi;
};

static void *
stream_worker(void *arg)
{
	struct worker *w = arg;
	struct stream *s = w->s;
	size_t i;

	for (i = w->lo; i < w->hi; i++) {	/* first touch: local pages */
		s->a[i] = 0;
		s->b[i] = 1;
		s->c[i] = 2;
	}
	pthread_barrier_wait(&s->bar);
	for (;;) {
		pthread_barrier_wait(&s->bar);
		if (s->stop)
			break;
		for (i = w->lo; i < w->hi; i++)
			s->a[i] = s->b[i] + 3.0 * s->c[i];
		pthread_barrier_wait(&s->bar);
	}
	return NULL;
}

static long
meminfo(const char *key)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[256];
	size_t kl = strlen(key);
	long v = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof line, f))
		if (!strncmp(line, key, kl) && line[kl] == ':') {
			v = atol(line + kl + 1);
			break;
		}
	fclose(f);
	return v;
}

static double
stream_run(double seconds, int nth, double llc, size_t *bytes, int *passes)
{
	struct stream s;
	struct worker *w;
	pthread_t *t;
	double best = INFINITY, t0, start;
	long availkb = meminfo("MemAvailable");
	size_t n = 1 << 20, cap;
	int i;

	if (llc <= 0)
		llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
	if (llc <= 0)
		llc = 32 << 20;	/* unknown: assume a large LLC */
	if ((size_t)(4 * llc / 8) > n)
		n = (size_t)(4 * llc / 8);
	cap = availkb > 0 ? (size_t)availkb * 1024 / 4 / 24 : (size_t)1 << 24;
	if (n > cap)
		n = cap;
	/* bound the time: 256 MiB per array per second of -t */
	if (n > (size_t)(seconds * (1 << 25)) && (size_t)(seconds * (1 << 25))
	    > (size_t)1 << 20)
		n = (size_t)(seconds * (1 << 25));
	else if (n > (size_t)(seconds * (1 << 25)))
		n = (size_t)1 << 20;
	if (n < 1024)
		return NAN;
	memset(&s, 0, sizeof s);
	s.n = n;
	s.nth = nth;
	s.a = malloc(n * sizeof(double));
	s.b = malloc(n * sizeof(double));
	s.c = malloc(n * sizeof(double));
	w = calloc(nth, sizeof *w);
	t = calloc(nth, sizeof *t);
	if (!s.a || !s.b || !s.c || !w || !t) {
		free(s.a), free(s.b), free(s.c), free(w), free(t);
		return NAN;
	}
	pthread_barrier_init(&s.bar, NULL, nth + 1);
	for (i = 0; i < nth; i++) {
		w[i].s = &s;
		w[i].lo = n * i / nth;
		w[i].hi = n * (i + 1) / nth;
		pthread_create(&t[i], NULL, stream_worker, &w[i]);
	}
	pthread_barrier_wait(&s.bar);	/* initialized */
	start = now_s();
	*passes = 0;
	do {
		t0 = now_s();
		pthread_barrier_wait(&s.bar);
		pthread_barrier_wait(&s.bar);
		if (now_s() - t0 < best)
			best = now_s() - t0;
		++*passes;
	} while (now_s() - start < seconds || *passes < 3);
	s.stop = 1;
	pthread_barrier_wait(&s.bar);
	for (i = 0; i < nth; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&s.bar);
	*bytes = n * sizeof(double);
	free(s.a), free(s.b), free(s.c), free(w), free(t);
	return 24.0 * n / best;
}

json_t *
limits_memory(double seconds, int threads, double llc)
{
	json_t *o = json_object();
	long total = meminfo("MemTotal"), avail = meminfo("MemAvailable");
	double bw = NAN;
	size_t bytes = 0;
	int passes = 0;

	pd_set(o, "total_bytes", total > 0 ? json_integer((json_int_t)total *
	    1024) : NULL);
	pd_set(o, "available_bytes", avail > 0 ? json_integer((json_int_t)avail
	    * 1024) : NULL);
	if (seconds > 0 && threads > 0)
		bw = stream_run(seconds, threads, llc, &bytes, &passes);
	pd_set_real(o, "stream_triad_gb_per_s", bw / 1e9, 3);
	pd_set(o, "stream_threads", isnan(bw) ? NULL : json_integer(threads));
	pd_set(o, "stream_array_bytes", isnan(bw) ? NULL :
	    json_integer((json_int_t)bytes));
	pd_set(o, "stream_passes", isnan(bw) ? NULL : json_integer(passes));
	return o;
}

/* ---- disk: sequential read of a file written for the purpose ---- */

#define DBLOCK (1 << 20)
#define DFILE (256 << 20)

json_t *
limits_disk(const char *dir, double seconds)
{
	json_t *o = json_object();
	char path[4096];
	void *buf = NULL;
	int fd, direct = 1;
	size_t done = 0, written = 0;
	double t0, dt;

	pd_set_str(o, "dir", dir);
	snprintf(path, sizeof path, "%s/.pd-audit-limits.XXXXXX", dir);
	if (posix_memalign(&buf, 4096, DBLOCK) != 0 ||
	    (fd = mkstemp(path)) < 0) {
		pd_error(dir, 0, "%s", strerror(errno));
		pd_diag_status(PD_EXIT_SYSTEM);
		free(buf);
		pd_set_null(o, "read_gb_per_s");
		return o;
	}
	memset(buf, 0x5a, DBLOCK);
	t0 = now_s();
	while (written < DFILE && now_s() - t0 < seconds &&
	    write(fd, buf, DBLOCK) == DBLOCK)
		written += DBLOCK;
	fdatasync(fd);
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
	fd = open(path, O_RDONLY | O_DIRECT);
	if (fd < 0) {
		direct = 0;
		fd = open(path, O_RDONLY);
	}
	t0 = now_s();
	while (fd >= 0 && done < written) {
		ssize_t r = read(fd, buf, DBLOCK);

		if (r < 0 && direct && errno == EINVAL) {
			/* filesystem without O_DIRECT (tmpfs, overlay) */
			close(fd);
			direct = 0;
			fd = open(path, O_RDONLY);
			done = 0;
			t0 = now_s();
			continue;
		}
		if (r <= 0)
			break;
		done += (size_t)r;
	}
	dt = now_s() - t0;
	if (fd >= 0)
		close(fd);
	unlink(path);
	free(buf);
	pd_set_real(o, "read_gb_per_s", done > 0 && dt > 0 ? done / dt / 1e9 :
	    NAN, 3);
	pd_set_int(o, "bytes", (json_int_t)done);
	pd_set_int(o, "block_bytes", DBLOCK);
	pd_set_int(o, "queue_depth", 1);
	pd_set_bool(o, "direct", direct);
	pd_set_bool(o, "cached_possible", !direct);
	return o;
}

/* ---- CPU: a measured FMA rate, fp64, on every usable core, per second
 * of CPU time each thread got ---- */

struct flop {
	double seconds, gflop;
	pthread_barrier_t *bar;
};

static volatile double flop_sink;

/* 12 independent accumulators hide the FMA latency; 2 FLOP per lane. */
/* CPU time of the calling thread: the rate per second of CPU the thread
 * got is the cores' capacity even when other processes take turns. */
static double
thread_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#if defined(__x86_64__)
__attribute__((target("avx2,fma"))) static void
fma_avx2(struct flop *f)
{
	__m256d acc[12], m = _mm256_set1_pd(0.999999), a = _mm256_set1_pd(1e-7);
	double n = 0, t0, c0, out[4];
	int i, k;

	for (i = 0; i < 12; i++)
		acc[i] = _mm256_set1_pd(1e-3 * i);
	pthread_barrier_wait(f->bar);
	t0 = now_s();
	c0 = thread_s();
	do {
		for (k = 0; k < 4096; k++)
			for (i = 0; i < 12; i++)
				acc[i] = _mm256_fmadd_pd(acc[i], m, a);
		n += 4096.0 * 12 * 2 * 4;
	} while (now_s() - t0 < f->seconds);
	f->gflop = n / (thread_s() - c0) / 1e9;
	for (i = 1; i < 12; i++)
		acc[0] = _mm256_add_pd(acc[0], acc[i]);
	_mm256_storeu_pd(out, acc[0]);
	flop_sink = out[0];
}
#endif

static void
fma_scalar(struct flop *f)
{
	double acc[12], m = 0.999999, a = 1e-7, n = 0, t0, c0;
	int i, k;

	for (i = 0; i < 12; i++)
		acc[i] = a * i;
	pthread_barrier_wait(f->bar);
	t0 = now_s();
	c0 = thread_s();
	do {
		for (k = 0; k < 4096; k++)
			for (i = 0; i < 12; i++)
				acc[i] = acc[i] * m + a;
		n += 4096.0 * 12 * 2;
	} while (now_s() - t0 < f->seconds);
	f->gflop = n / (thread_s() - c0) / 1e9;
	for (i = 1; i < 12; i++)
		acc[0] += acc[i];
	flop_sink = acc[0];
}

static int
has_avx2_fma(void)
{
#if defined(__x86_64__)
	return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
	return 0;
#endif
}

static void *
flop_worker(void *arg)
{
	struct flop *f = arg;

#if defined(__x86_64__)
	if (has_avx2_fma()) {
		fma_avx2(f);
		return NULL;
	}
#endif
	fma_scalar(f);
	return NULL;
}

json_t *
limits_cpu_measure(double seconds, int threads)
{
	json_t *o = json_object();
	struct flop *f = NULL;
	pthread_t *t = NULL;
	pthread_barrier_t bar;
	double sum = 0;
	int i;

	if (seconds > 0 && threads > 0) {
		f = calloc(threads, sizeof *f);
		t = calloc(threads, sizeof *t);
	}
	if (!f || !t) {
		free(f);
		free(t);
		pd_set_null(o, "measured_gflops_fp64");
		pd_set_null(o, "measured_threads");
		pd_set_null(o, "measured_kernel");
		return o;
	}
	pthread_barrier_init(&bar, NULL, threads);
	for (i = 0; i < threads; i++) {
		f[i].seconds = seconds;
		f[i].bar = &bar;
		pthread_create(&t[i], NULL, flop_worker, &f[i]);
	}
	for (i = 0; i < threads; i++) {
		pthread_join(t[i], NULL);
		sum += f[i].gflop;
	}
	pthread_barrier_destroy(&bar);
	free(f);
	free(t);
	pd_set_real(o, "measured_gflops_fp64", sum, 1);
	pd_set_int(o, "measured_threads", threads);
	pd_set_str(o, "measured_kernel", has_avx2_fma() ? "avx2_fma" :
	    "scalar");
	return o;
}

/* ---- network: link speeds ---- */

json_t *
limits_network(void)
{
	json_t *a = json_array();
	DIR *d = opendir("/sys/class/net");
	struct dirent *de;
	char names[64][64];
	int n = 0, i, j;

	while (d && (de = readdir(d)) != NULL && n < 64)
		if (de->d_name[0] != '.' && strcmp(de->d_name, "lo"))
			snprintf(names[n++], sizeof names[0], "%.63s", de->d_name);
	if (d)
		closedir(d);
	for (i = 1; i < n; i++)		/* sorted: deterministic */
		for (j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
			char t[64];

			memcpy(t, names[j], sizeof t);
			memcpy(names[j], names[j - 1], sizeof t);
			memcpy(names[j - 1], t, sizeof t);
		}
	for (i = 0; i < n; i++) {
		char p[160], buf[32];
		json_t *o;

		snprintf(p, sizeof p, "/sys/class/net/%.63s/speed", names[i]);
		if (!read_line(p, buf, sizeof buf) || atol(buf) <= 0)
			continue;
		o = json_object();
		pd_set_str(o, "interface", names[i]);
		pd_set_real(o, "speed_gb_per_s", atol(buf) / 8e3, 4);
		json_array_append_new(a, o);
	}
	return a;
}
