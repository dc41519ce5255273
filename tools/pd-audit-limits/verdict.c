/* The red alarm (reference machine-limits 3.6): over the pd.sample records
 * of a run, a resource is saturated when the median of its saturation
 * metric is >= 0.70 of its ceiling (equivalently, at least half of the
 * samples are); the alarm fires when at least one resource could be judged
 * and none is saturated: speed is provably being wasted.
 *
 * Pitfalls kept in view: GPU utilization.gpu / dmon sm and Ascend AICore%
 * are busy-TIME ratios (one kernel on one SM reads 100 %), so a high value
 * blocks the alarm only with low confidence and a low value proves
 * headroom; DCGM sm_active_ratio is used instead when present; a single
 * thread >= 90 % of a core in more than half of the samples blocks the
 * alarm (single-thread bound) whatever the aggregate CPU says; the CPU is
 * judged from the job's own demand (run + run-queue wait of its process
 * tree), the host's business reported apart as contention; disk %util
 * counts only on rotational disks, otherwise throughput is compared with
 * the measured sequential read ceiling; memory capacity is reported but
 * is not a speed ceiling. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "limits.h"
#include "pd_rec.h"
#include "pd_stats.h"

#define SAT 0.70		/* saturation threshold */
#define THREAD_SAT 0.90		/* one thread's share of a core */
#define THREAD_FRAC 0.50	/* of the samples */
#define CONTEND 0.25		/* others' share of the job's CPUs */
#define THROTTLE 0.10		/* steal / throttled / clock lost */

struct group {
	char resource[16], device[64];
	json_t *samples;	/* array, borrowed records */
};

static int
cmp_group(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	int c = strcmp(x->resource, y->resource);

	return c ? c : strcmp(x->device, y->device);
}

/* Values of key (scaled by 1/div) over the samples; NaN values skipped. */
static void
collect(json_t *samples, const char *key, double div, struct pd_vec *v)
{
	size_t i;
	json_t *s;

	json_array_foreach(samples, i, s) {
		double x = pd_rec_num(s, key, NAN);

		if (!isnan(x))
			pd_vec_push(v, x / div);
	}
}

static int
any(json_t *samples, const char *key)
{
	size_t i;
	json_t *s;

	json_array_foreach(samples, i, s)
		if (json_is_number(json_object_get(s, key)))
			return 1;
	return 0;
}

static double
frac_at_least(const struct pd_vec *v, double t)
{
	size_t i, k = 0;

	for (i = 0; i < v->n; i++)
		k += v->v[i] >= t;
	return v->n ? (double)k / v->n : NAN;
}

/* The first sample's value of a string key that has one. */
static const char *
first_str(json_t *samples, const char *key)
{
	size_t i;
	json_t *s;

	json_array_foreach(samples, i, s)
		if (pd_rec_str(s, key))
			return pd_rec_str(s, key);
	return NULL;
}

/* The common part of a resource entry, from the ratios in v. */
static json_t *
entry(struct group *g, const char *metric, const char *semantics,
    struct pd_vec *v, int counts, const char *confidence)
{
	json_t *o = json_object();
	struct pd_summary s;

	pd_stats(v, &s);
	pd_set_str(o, "resource", g->resource);
	pd_set_str(o, "device", *g->device ? g->device : NULL);
	pd_set_str(o, "name", first_str(g->samples, "name"));
	pd_set_str(o, "metric", metric);
	pd_set_str(o, "semantics", semantics);
	pd_set_int(o, "samples", (json_int_t)v->n);
	pd_set_real(o, "median_ratio", v->n ? s.median : NAN, 4);
	pd_set_real(o, "p90_ratio", v->n ? s.p90 : NAN, 4);
	pd_set_real(o, "max_ratio", v->n ? s.max : NAN, 4);
	pd_set_real(o, "saturated_fraction", frac_at_least(v, SAT), 4);
	if (!v->n)
		pd_set_null(o, "saturated");
	else
		pd_set_bool(o, "saturated", s.median >= SAT);
	pd_set_bool(o, "counts", counts);
	pd_set_str(o, "confidence", v->n ? confidence : NULL);
	pd_set_null(o, "note");
	return o;
}

static double
median_of(json_t *samples, const char *key, double div)
{
	struct pd_vec v = { 0 };
	struct pd_summary s;

	collect(samples, key, div, &v);
	pd_stats(&v, &s);
	pd_vec_free(&v);
	return s.n ? s.median : NAN;
}

static void
add_note(json_t *o, const char *text)
{
	const char *was = pd_rec_str(o, "note");
	char buf[1024];

	if (!was) {
		pd_set_str(o, "note", text);
		return;
	}
	snprintf(buf, sizeof buf, "%s; %s", text, was);
	pd_set_str(o, "note", buf);
}

/* Who used an accelerator, from pd-collect's process samples
 * (nvidia-smi --query-compute-apps, npu-smi info's process table): the
 * most processes and device memory seen at once. Scope "job" when only
 * the job's processes ran on it; "shared" when other processes of the
 * host did too (its busy time is not all the job's); "others" when only
 * they did: the device is not the job's ceiling and does not count for
 * its verdict; "unused" when no process ran on it. Processes the tool
 * names but this host's /proc does not show (a container sees host pids)
 * leave the use unattributed. */
static void
job_use(struct group *g, json_t *o)
{
	json_int_t job = 0, other = 0, unseen = 0, jm = 0, om = 0;
	json_t *others = NULL, *s;
	char text[512];
	size_t i;

	if (!any(g->samples, "job_processes"))
		return;
	json_array_foreach(g->samples, i, s) {
		json_int_t x;

		if (!json_is_integer(json_object_get(s, "job_processes")))
			continue;
		if ((x = json_integer_value(json_object_get(s,
		    "job_processes"))) > job)
			job = x;
		if ((x = json_integer_value(json_object_get(s,
		    "other_processes"))) > other) {
			other = x;
			others = json_object_get(s, "others");
		}
		if ((x = json_integer_value(json_object_get(s,
		    "unseen_processes"))) > unseen)
			unseen = x;
		if ((x = json_integer_value(json_object_get(s,
		    "job_mem_bytes"))) > jm)
			jm = x;
		if ((x = json_integer_value(json_object_get(s,
		    "other_mem_bytes"))) > om)
			om = x;
	}
	pd_set_int(o, "job_processes", job);
	pd_set_int(o, "other_processes", other);
	pd_set_int(o, "unseen_processes", unseen);
	pd_set_int(o, "job_mem_bytes", jm);
	pd_set_int(o, "other_mem_bytes", om);
	pd_set(o, "others", others ? json_incref(others) : json_array());
	if (job && other) {
		pd_set_str(o, "scope", "shared");
		snprintf(text, sizeof text, "%lld other process%s used this "
		    "device too: its busy time is not all the job's",
		    (long long)other, other > 1 ? "es" : "");
		add_note(o, text);
	} else if (job) {
		pd_set_str(o, "scope", "job");
	} else if (other) {
		pd_set_str(o, "scope", "others");
		pd_set_bool(o, "counts", 0);
		snprintf(text, sizeof text, "only other processes (%lld) used "
		    "this device: its busy time is theirs, not the job's",
		    (long long)other);
		add_note(o, text);
	} else if (unseen) {
		pd_set_null(o, "scope");
		add_note(o, "the processes on this device are not visible "
		    "here (another PID namespace, as in a container): its use "
		    "is not attributed to the job");
	} else {
		pd_set_str(o, "scope", "unused");
		add_note(o, "no process of the job ran on this device");
	}
}

static json_t *
judge_gpu(struct group *g)
{
	struct pd_vec v = { 0 };
	json_t *o;
	double pw, lim;

	if (any(g->samples, "sm_active_ratio")) {
		collect(g->samples, "sm_active_ratio", 1, &v);
		o = entry(g, "sm_active_ratio", "sm_active", &v, 1, "high");
		pd_vec_free(&v);
		job_use(g, o);
		return o;
	}
	collect(g->samples, "util_ratio", 1, &v);
	o = entry(g, "util_ratio", "busy_time", &v, 1, "low");
	pw = median_of(g->samples, "power_w", 1);
	lim = median_of(g->samples, "power_limit_w", 1);
	if (json_is_true(json_object_get(o, "saturated"))) {
		if (!isnan(pw) && lim > 0 && pw / lim < 0.3)
			pd_set_str(o, "note", "GPU-Util is high at under 30 % "
			    "of the power limit: busy waiting, not computing; "
			    "utilization.gpu is the time a kernel ran, not SM "
			    "occupancy");
		else
			pd_set_str(o, "note", "utilization.gpu is the time a "
			    "kernel ran, not SM occupancy: high proves "
			    "nothing; check SM_ACTIVE (DCGM) or a profile");
	} else if (v.n) {
		pd_set_str(o, "note", "utilization.gpu is an upper bound of "
		    "SM activity: below 70 % the GPU is idle part of the "
		    "time");
	}
	pd_vec_free(&v);
	job_use(g, o);
	return o;
}

static json_t *
judge_npu(struct group *g)
{
	struct pd_vec a = { 0 }, b = { 0 };
	struct pd_summary sa, sb;
	json_t *o;
	double used, total;

	collect(g->samples, "util_ratio", 1, &a);
	collect(g->samples, "mem_util_ratio", 1, &b);
	pd_stats(&a, &sa);
	pd_stats(&b, &sb);
	if (b.n && (!a.n || sb.median > sa.median))
		o = entry(g, "mem_util_ratio", "hbm_bandwidth", &b, 1, "low");
	else
		o = entry(g, "util_ratio", "busy_time", &a, 1, "low");
	used = median_of(g->samples, "mem_used_bytes", 1);
	total = median_of(g->samples, "mem_total_bytes", 1);
	if (a.n && sa.max == 0)
		pd_set_str(o, "note", "AICore reads 0: also the case under "
		    "vNPU or while msprof is attached");
	else if (a.n && sa.median < SAT && total > 0 && used / total >= 0.8)
		pd_set_str(o, "note", "device memory is over 80 % used while "
		    "AICore is low: memory held is not compute busy");
	else if (json_is_true(json_object_get(o, "saturated")))
		pd_set_str(o, "note", "AICore(%) is a busy-time ratio, not a "
		    "FLOP ratio: high proves nothing");
	pd_vec_free(&a);
	pd_vec_free(&b);
	job_use(g, o);
	return o;
}

/* The job's CPU: run + run-queue wait of its process tree over the CPUs
 * it may use (what it asked for, whatever others took); samples without
 * the job's figures (captures, older pd-collect) fall back to the host. */
static json_t *
judge_cpu(struct group *g)
{
	struct pd_vec v = { 0 }, t = { 0 };
	json_t *o;
	double f;
	int job = any(g->samples, "job_demand_ratio");

	if (job) {
		collect(g->samples, "job_demand_ratio", 1, &v);
		o = entry(g, "job_demand_ratio", "job_cpu_demand", &v, 1,
		    "high");
	} else {
		collect(g->samples, "util_ratio", 1, &v);
		o = entry(g, "util_ratio", "busy_of_available_cpus", &v, 1,
		    "high");
		pd_set_str(o, "note", "host-wide: the samples do not say what "
		    "the job itself used");
	}
	pd_set_str(o, "scope", job ? "job" : "host");
	collect(g->samples, "top_thread_ratio", 1, &t);
	f = frac_at_least(&t, THREAD_SAT);
	pd_set_real(o, "top_thread_saturated_fraction", f, 4);
	if (t.n && f > THREAD_FRAC) {
		pd_set_bool(o, "saturated", 1);
		pd_set_str(o, "note", "single-thread bound: one thread of the "
		    "workload uses over 90 % of a core in most samples (GIL, "
		    "data loader or launch thread)");
	}
	pd_vec_free(&v);
	pd_vec_free(&t);
	return o;
}

/* The job's own storage I/O against the measured read ceiling. */
static json_t *
judge_io(struct group *g, json_t *limits)
{
	struct pd_vec v = { 0 };
	json_t *o, *s;
	size_t i;
	double ceil_gb = pd_rec_num(json_object_get(limits, "disk"),
	    "read_gb_per_s", NAN);

	if (!isnan(ceil_gb) && ceil_gb > 0)
		json_array_foreach(g->samples, i, s) {
			double r = pd_rec_num(s, "read_bytes_per_s", NAN);
			double w = pd_rec_num(s, "write_bytes_per_s", 0);

			if (!isnan(r))
				pd_vec_push(&v, (r + w) / (ceil_gb * 1e9));
		}
	o = entry(g, "throughput_of_measured_read", "throughput", &v, 1,
	    v.n ? "high" : NULL);
	pd_set_str(o, "scope", "job");
	if (!v.n)
		pd_set_str(o, "note", "no measured disk ceiling "
		    "(pd-audit-limits -D): the job's I/O is not judged");
	pd_vec_free(&v);
	return o;
}

/* A network interface against its link speed (host-wide: /proc does not
 * tell the job's traffic from the host's). */
static json_t *
judge_net(struct group *g)
{
	struct pd_vec v = { 0 };
	json_t *o;

	collect(g->samples, "util_ratio", 1, &v);
	o = entry(g, "util_ratio", "throughput_of_link", &v, 1,
	    v.n ? "medium" : NULL);
	pd_set_str(o, "scope", "host");
	pd_set_str(o, "note", v.n ? "host-wide traffic of the interface" :
	    "link speed unknown: not judged");
	pd_vec_free(&v);
	return o;
}

static json_t *
judge_disk(struct group *g, json_t *limits, int job_io)
{
	struct pd_vec v = { 0 };
	json_t *o, *s;
	size_t i;
	double ceil_gb = pd_rec_num(json_object_get(limits, "disk"),
	    "read_gb_per_s", NAN);
	int rot = json_is_true(json_object_get(json_array_get(g->samples, 0),
	    "rotational"));

	if (!isnan(ceil_gb) && ceil_gb > 0) {
		json_array_foreach(g->samples, i, s) {
			double r = pd_rec_num(s, "read_bytes_per_s", NAN);
			double w = pd_rec_num(s, "write_bytes_per_s", 0);

			if (!isnan(r))
				pd_vec_push(&v, (r + w) / (ceil_gb * 1e9));
		}
		o = entry(g, "throughput_of_measured_read", "throughput", &v, 1,
		    "high");
	} else if (rot) {
		collect(g->samples, "busy_ratio", 1, &v);
		o = entry(g, "busy_ratio", "busy_time", &v, 1, "high");
	} else {
		o = entry(g, "busy_ratio", "busy_time", &v, 1, NULL);
		pd_set_str(o, "note", "no measured disk ceiling (pd-audit-limits"
		    " -D) and %util does not show saturation on SSD/NVMe");
	}
	pd_set_str(o, "scope", "host");
	if (job_io) {
		pd_set_bool(o, "counts", 0);
		pd_set_str(o, "note", "host-wide: the job's own I/O is the io "
		    "entry");
	}
	pd_vec_free(&v);
	return o;
}

static json_t *
judge_mem(struct group *g)
{
	struct pd_vec v = { 0 };
	json_t *o;

	struct pd_vec jv = { 0 };
	struct pd_summary js;
	int pss = any(g->samples, "job_pss_bytes");
	double total;

	collect(g->samples, "used_ratio", 1, &v);
	o = entry(g, "used_ratio", "capacity", &v, 0, "high");
	pd_set_str(o, "note", "memory capacity, not a speed ceiling");
	pd_vec_free(&v);
	/* the job's own peak: proportional set sizes (a page its processes
	 * share counted once); resident sizes from older samples count a
	 * shared page once per process */
	collect(g->samples, pss ? "job_pss_bytes" : "job_rss_bytes", 1, &jv);
	pd_stats(&jv, &js);
	total = median_of(g->samples, "total_bytes", 1);
	pd_set_real(o, "job_peak_bytes", jv.n ? js.max : NAN, 0);
	pd_set_str(o, "job_basis", !jv.n ? NULL : pss ? "pss" : "rss");
	pd_set_real(o, "job_peak_ratio", jv.n && total > 0 ? js.max / total :
	    NAN, 4);
	pd_vec_free(&jv);
	return o;
}

static json_t *
judge(struct group *g, json_t *limits, int job_io)
{
	if (!strcmp(g->resource, "gpu"))
		return judge_gpu(g);
	if (!strcmp(g->resource, "npu"))
		return judge_npu(g);
	if (!strcmp(g->resource, "cpu"))
		return judge_cpu(g);
	if (!strcmp(g->resource, "disk"))
		return judge_disk(g, limits, job_io);
	if (!strcmp(g->resource, "io"))
		return judge_io(g, limits);
	if (!strcmp(g->resource, "net"))
		return judge_net(g);
	if (!strcmp(g->resource, "mem"))
		return judge_mem(g);
	return NULL;
}

/* The cpu pd.sample records (NEW array of borrowed records). */
static json_t *
cpu_samples(json_t *samples)
{
	json_t *a = json_array(), *s;
	size_t i;

	json_array_foreach(samples, i, s)
		if (pd_rec_str(s, "resource") && !strcmp(pd_rec_str(s,
		    "resource"), "cpu"))
			json_array_append(a, s);
	return a;
}

/* Medians of the host's and the job's CPU; contention when others used
 * at least CONTEND of the CPUs the job may use; throttling when the
 * hypervisor (steal) or the cgroup quota took THROTTLE (the clock's
 * ratio is reported only: under load it is below the turbo maximum).
 * Steals cpu; NULL when no sample has the job's figures. */
static json_t *
contention(json_t *cpu)
{
	json_t *o;
	double host, job, other, wait, steal, thr, freq, avail;
	char text[256];
	int contended, throttling;

	if (!any(cpu, "process_cpus")) {
		json_decref(cpu);
		return NULL;
	}
	avail = median_of(cpu, "available_cpus", 1);
	host = median_of(cpu, "util_ratio", 1);
	job = median_of(cpu, "job_util_ratio", 1);
	other = fmin(1, median_of(cpu, "other_cpus", avail));
	wait = fmin(1, median_of(cpu, "job_wait_cpus", avail));
	steal = median_of(cpu, "steal_ratio", 1);
	thr = median_of(cpu, "throttled_ratio", 1);
	freq = median_of(cpu, "freq_ratio", 1);
	json_decref(cpu);
	contended = !isnan(other) && other >= CONTEND;
	throttling = (!isnan(steal) && steal >= THROTTLE) ||
	    (!isnan(thr) && thr >= THROTTLE);
	o = json_object();
	pd_set_real(o, "host_busy_ratio", host, 4);
	pd_set_real(o, "job_ratio", job, 4);
	pd_set_real(o, "other_ratio", other, 4);
	pd_set_real(o, "job_wait_ratio", wait, 4);
	pd_set_bool(o, "contended", contended);
	pd_set_real(o, "steal_ratio", steal, 4);
	pd_set_real(o, "throttled_ratio", thr, 4);
	pd_set_real(o, "freq_ratio", freq, 4);
	pd_set_bool(o, "throttling", throttling);
	if (contended)
		snprintf(text, sizeof text, "the host was %.0f %% busy, the job "
		    "used %.0f %%: other processes", host * 100, job * 100);
	else
		snprintf(text, sizeof text, "the host was %.0f %% busy, the job "
		    "used %.0f %%", host * 100, job * 100);
	pd_set_str(o, "text", text);
	return o;
}

/* One line: "saturated: cpu (the job)", "red alarm, with contention:
 * ...", "no evidence". */
static char *
summary(int alarm, int judged, json_t *sat, json_t *res, json_t *cont)
{
	static char buf[1024];
	size_t i, j, n = 0;
	json_t *x, *o;
	int contended = json_is_true(json_object_get(cont, "contended"));

	if (alarm)
		n = (size_t)snprintf(buf, sizeof buf, "red alarm%s%s",
		    contended ? ", with contention: " : "", contended ?
		    pd_rec_str(cont, "text") : "");
	else if (!judged)
		n = (size_t)snprintf(buf, sizeof buf, "no evidence");
	else {
		n = (size_t)snprintf(buf, sizeof buf, "saturated:");
		json_array_foreach(sat, i, x) {
			const char *scope = NULL, *nm = json_string_value(x);

			json_array_foreach(res, j, o) {
				char id[96];
				const char *d = pd_rec_str(o, "device");

				snprintf(id, sizeof id, "%s%s%s",
				    pd_rec_str(o, "resource"), d ? ":" : "",
				    d ? d : "");
				if (!strcmp(id, nm))
					scope = pd_rec_str(o, "scope");
			}
			n += (size_t)snprintf(buf + n, n < sizeof buf ?
			    sizeof buf - n : 0, "%s %s%s", i ? "," : "", nm,
			    !scope ? "" : !strcmp(scope, "job") ?
			    " (the job)" : !strcmp(scope, "shared") ?
			    " (shared with other processes)" : " (host-wide)");
			if (n >= sizeof buf)
				break;
		}
		if (contended && n < sizeof buf)
			n += (size_t)snprintf(buf + n, sizeof buf - n,
			    "; contention: %s", pd_rec_str(cont, "text"));
	}
	if (json_is_true(json_object_get(cont, "throttling")) &&
	    n < sizeof buf)
		snprintf(buf + n, sizeof buf - n, "; the host throttles "
		    "(steal or cgroup quota)");
	return buf;
}

json_t *
limits_verdict(json_t *samples, json_t *limits, int *alarm)
{
	struct group *g = NULL;
	size_t ng = 0, i, j, nsamp = json_array_size(samples);
	json_t *r, *res = json_array(), *sat = json_array(), *s;
	int judged = 0, job_io = 0;
	char reason[512];
	json_t *cont, *bound = NULL;
	double bound_r = -1;

	*alarm = 0;
	if (!nsamp) {
		json_decref(res);
		json_decref(sat);
		return NULL;
	}
	g = calloc(nsamp, sizeof *g);
	json_array_foreach(samples, i, s) {
		const char *rs = pd_rec_str(s, "resource");
		const char *dv = pd_rec_str(s, "device");

		if (!rs)
			continue;
		for (j = 0; j < ng; j++)
			if (!strcmp(g[j].resource, rs) &&
			    !strcmp(g[j].device, dv ? dv : ""))
				break;
		if (j == ng) {
			snprintf(g[ng].resource, sizeof g[0].resource, "%s", rs);
			snprintf(g[ng].device, sizeof g[0].device, "%s",
			    dv ? dv : "");
			g[ng++].samples = json_array();
		}
		json_array_append(g[j].samples, s);
	}
	qsort(g, ng, sizeof *g, cmp_group);
	for (j = 0; j < ng; j++)
		job_io |= !strcmp(g[j].resource, "io");
	for (j = 0; j < ng; j++) {
		json_t *o = judge(&g[j], limits, job_io);

		if (o) {
			json_t *st = json_object_get(o, "saturated");

			if (json_is_true(json_object_get(o, "counts")) &&
			    !json_is_null(st)) {
				double m = pd_rec_num(o, "median_ratio", -1);

				judged++;
				/* the bound: saturated first, then the closest
				 * to its ceiling (sorted order breaks ties) */
				if ((json_is_true(st) ? m + 10 : m) > bound_r) {
					bound_r = json_is_true(st) ? m + 10 : m;
					bound = o;
				}
				if (json_is_true(st)) {
					char nm[96];

					snprintf(nm, sizeof nm, "%s%s%s",
					    g[j].resource, *g[j].device ? ":" :
					    "", g[j].device);
					json_array_append_new(sat,
					    pd_str(nm));
				}
			}
			json_array_append_new(res, o);
		}
		json_decref(g[j].samples);
	}
	free(g);
	*alarm = judged > 0 && json_array_size(sat) == 0;
	cont = contention(cpu_samples(samples));
	r = pd_rec_new("pd.verdict", 1, NULL);
	pd_set_null(r, "root");
	pd_set_null(r, "rank");
	pd_set_bool(r, "alarm", *alarm);
	pd_set_str(r, "verdict", *alarm ? "speedup_possible" :
	    judged ? "saturated" : "no_evidence");
	if (*alarm)
		snprintf(reason, sizeof reason, "no resource reached %.0f %% of "
		    "its ceiling in half of the samples: speed is provably "
		    "being wasted", SAT * 100);
	else if (judged)
		snprintf(reason, sizeof reason, "%zu of %d judged resources "
		    "saturated (see confidence: busy-time ratios are upper "
		    "bounds)", json_array_size(sat), judged);
	else
		snprintf(reason, sizeof reason, "no resource could be judged");
	pd_set_str(r, "reason", reason);
	pd_set_int(r, "samples", (json_int_t)nsamp);
	pd_set_real(r, "threshold_ratio", SAT, 2);
	pd_set_real(r, "thread_threshold_ratio", THREAD_SAT, 2);
	pd_set_str(r, "summary", summary(*alarm, judged, sat, res, cont));
	pd_set(r, "bound", bound ? json_pack("{s:o,s:o,s:o}", "resource",
	    json_incref(json_object_get(bound, "resource")), "device",
	    json_incref(json_object_get(bound, "device")), "median_ratio",
	    json_incref(json_object_get(bound, "median_ratio"))) : NULL);
	pd_set(r, "saturated", sat);
	pd_set(r, "contention", cont);
	pd_set(r, "resources", res);
	return r;
}
