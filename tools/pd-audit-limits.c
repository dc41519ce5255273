/* pd-audit-limits: the machine's ceilings, and whether a run reached any.
 *
 * Reads: the machine (sysfs/procfs, sched_getaffinity, cgroup cpu.max, a
 * short STREAM triad, optionally a sequential disk read), accelerator
 * inventories (nvidia-smi / npu-smi run with a timeout, or captures given
 * with -g), the peak table share/limits/peaks.yaml; records on stdin or in
 * operand files (pd.sample from pd-collect; everything passed through).
 * Writes: one pd.limits record (and theoretical_limits.yaml in -o DIR,
 * atomically); with pd.sample records, one pd.verdict: the red alarm when
 * no resource is saturated. Aggregates: the verdict comes after all input.
 * Measured values (memory and disk bandwidth) are wall-clock results. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pd-audit-limits/audit.h"
#include "pd-audit-limits/limits.h"
#include "pd_diag.h"
#include "pd_tool.h"
#include "pd_rec.h"
#include "pd_recfile.h"
#include "pd_share.h"
#include "pd_smi.h"
#include "pd_yamlio.h"

static const char usage[] =
    "usage: pd-audit-limits [-ens] [-c LSCPU] [-D DIR] [-g SMI]... [-o DIR]\n"
    "           [-P PEAKS] [-S SMI]... [-t SECONDS] [FILE|-]...\n"
    "       pd-audit-limits -o DIR -x NAME [-N RUNS] -b BEFORE -a AFTER [FILE|-]...\n"
    "       pd-audit-limits -R -o DIR [FILE|-]...\n"
    "  -a CMD      with -x: the command line with the change (run by sh -c)\n"
    "  -b CMD      with -x: the command line before the change\n"
    "  -c LSCPU    CPU from an lscpu capture instead of this machine\n"
    "  -D DIR      measure sequential read bandwidth of a file in DIR\n"
    "  -e          exit 1 when the red alarm fires (no resource saturated)\n"
    "  -g SMI      accelerators from an nvidia-smi / npu-smi capture\n"
    "  -n          do not run nvidia-smi / npu-smi\n"
    "  -N RUNS     with -x: runs of each command (default 3; 2 to 50)\n"
    "  -o DIR      write DIR/theoretical_limits.yaml\n"
    "  -P PEAKS    peak table (default: share/limits/peaks.yaml)\n"
    "  -R          write DIR/final_report.html and .md from the audit's records\n"
    "  -s          with a verdict: rank strategies, write DIR/strategies.md,\n"
    "              DIR/analysis.html and edited copies in DIR/experiments/\n"
    "  -S SMI      an nvidia-smi / npu-smi capture as one pd.sample per device\n"
    "  -t SECONDS  time for the memory and CPU rate runs (default 1; 0: skip)\n"
    "  -x NAME     run the experiment NAME: BEFORE and AFTER under pd-collect\n"
    "  -h, --help  this help\n"
    "  --version   the version\n"
    "  FILE|-      records with pd.sample (default: stdin unless a terminal)\n";

struct st {
	json_t *samples;	/* pd.sample records */
	json_t *limits_in;	/* last pd.limits read (disk ceiling) */
	json_t *device_ev;	/* pd.context device_evidence (first) */
	json_t *all;		/* every record read */
};

static int
on_record(json_t *rec, void *ctx)
{
	struct st *s = ctx;

	json_array_append(s->all, rec);
	if (pd_rec_is(rec, "pd.sample") && pd_rec_int(rec, "v", 0) == 1)
		json_array_append(s->samples, rec);
	else if (pd_rec_is(rec, "pd.context") && pd_rec_int(rec, "v", 0) == 1 &&
	    !s->device_ev && json_array_size(json_object_get(rec,
	    "device_evidence")))
		s->device_ev = json_incref(json_object_get(rec,
		    "device_evidence"));
	else if (pd_rec_is(rec, "pd.limits") && pd_rec_int(rec, "v", 0) == 1) {
		json_decref(s->limits_in);
		s->limits_in = json_incref(rec);
	}
	return 0;
}

static void
add_devices(json_t *all, const char *path)
{
	char *text = pd_smi_slurp(path, NULL);
	json_t *d;

	if (!text) {
		pd_error(path, 0, "%s", strerror(errno));
		pd_diag_status(PD_EXIT_SYSTEM);
		return;
	}
	d = pd_smi_parse(text);
	if (!json_array_size(d)) {
		pd_warn(path, 0, "no nvidia-smi or npu-smi device found");
		pd_diag_status(PD_EXIT_INPUT);
	}
	json_array_extend(all, d);
	json_decref(d);
	free(text);
}

static void
probe(json_t *all)
{
	static char *nv[] = { "nvidia-smi", "--query-gpu=index,name,"
	    "memory.total,power.limit,clocks.max.sm", "--format=csv,noheader,"
	    "nounits", NULL };
	static char *npu[] = { "npu-smi", "info", NULL };
	char *out;
	json_t *d;

	if ((out = pd_smi_run(nv, 15)) != NULL) {
		d = pd_smi_nv_csv(out, "index,name,memory.total,power.limit,"
		    "clocks.max.sm");
		json_array_extend(all, d);
		json_decref(d);
		free(out);
	}
	if ((out = pd_smi_run(npu, 15)) != NULL) {
		d = pd_smi_npu_table(out);
		json_array_extend(all, d);
		json_decref(d);
		free(out);
	}
}

static json_t *
load_peaks(const char *path)
{
	char buf[4096];
	json_t *p;

	if (!path && !(path = pd_share_path("limits/peaks.yaml", buf,
	    sizeof buf))) {
		pd_error(NULL, 0, "limits/peaks.yaml not found (set "
		    "PD_SHAREDIR or use -P)");
		return NULL;
	}
	p = pd_yamlio_load(path);
	if (p && !json_is_array(json_object_get(p, "accelerators"))) {
		pd_error(path, 0, "no 'accelerators' list");
		json_decref(p);
		p = NULL;
	}
	return p;
}

/* The audit's warnings: the code puts work on a GPU/NPU (pd-find-context's
 * device_evidence) and none is visible (nvidia-smi / npu-smi found none,
 * no accelerator sample). Not judged when probing was switched off. */
static json_t *
warnings(struct st *s, json_t *devs, int unprobed)
{
	json_t *a = json_array(), *x, *ev;
	size_t i;
	char buf[512];

	if (!s->device_ev || unprobed || json_array_size(devs))
		return a;
	json_array_foreach(s->samples, i, x) {
		const char *r = pd_rec_str(x, "resource");

		if (r && (!strcmp(r, "gpu") || !strcmp(r, "npu")))
			return a;
	}
	ev = json_array_get(s->device_ev, 0);
	snprintf(buf, sizeof buf, "[WARNING] No GPU detected but code expects "
	    "one: %.200s:%lld: %.200s; the audit continues on CPU and I/O",
	    pd_rec_str(ev, "file") ? pd_rec_str(ev, "file") : "?",
	    (long long)pd_rec_int(ev, "line", 0), pd_rec_str(ev, "text") ?
	    pd_rec_str(ev, "text") : "");
	json_array_append_new(a, json_string(buf));
	pd_warn(pd_rec_str(ev, "file"), (long)pd_rec_int(ev, "line", 0),
	    "no GPU detected but code expects one; the audit continues on "
	    "CPU and I/O");
	return a;
}

/* theoretical_limits.yaml is for people: a peak the table does not know
 * says so instead of being null. */
static void
unknown_peaks(json_t *accel)
{
	static const char *const keys[] = { "fp32_tflops", "tf32_tflops",
		"fp16_tflops", "bf16_tflops", "fp8_tflops", "mem_bw_tb_per_s",
		"ridge_flop_per_byte" };
	json_t *a;
	size_t i, k;

	json_array_foreach(accel, i, a)
		for (k = 0; k < sizeof keys / sizeof keys[0]; k++)
			if (json_is_null(json_object_get(a, keys[k])))
				json_object_set_new(a, keys[k], json_string(
				    "UNKNOWN \xe2\x80\x94 fill in manually"));
}

static int
mkdir_p(const char *path)
{
	char b[4096], *p;

	snprintf(b, sizeof b, "%s", path);
	for (p = b + 1; *p; p++)
		if (*p == '/') {
			*p = 0;
			if (mkdir(b, 0777) != 0 && errno != EEXIST)
				return -1;
			*p = '/';
		}
	return mkdir(b, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

/* An experiment's name becomes a file name: letters, digits, - _ . */
static const char *
name_arg(const char *s)
{
	size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789-_.");

	if (!*s || s[n] || *s == '.' || n > 64) {
		pd_error(NULL, 0, "-x: name must be letters, digits, '-', '_' "
		    "or '.', not %s", pd_diag_quote(s, (size_t)-1));
		pd_usage_exit(usage, 2);
	}
	return s;
}

int
main(int argc, char **argv)
{
	struct st s = { json_array(), NULL, NULL, json_array() };
	const char *xname = NULL, *xb = NULL, *xa = NULL;
	int runs = 3, report = 0, strat = 0;
	struct pd_stream ps;
	json_t *gfiles = json_array(), *sfiles = json_array(), *devs = NULL;
	json_t *peaks = NULL, *lim = NULL, *cpu, *v = NULL, *yaml;
	const char *lscpu = NULL, *disk = NULL, *outdir = NULL, *peakfile = NULL;
	char *lscpu_text = NULL;
	double secs = 1;
	int c, i, e = 0, noprobe = 0, alarm = 0, threads;
	size_t k;

	pd_diag_init(argv[0]);
	while ((c = pd_getopt(argc, argv, "a:b:c:D:eg:hnN:o:P:RsS:t:x:", NULL,
	    usage)) != -1) {
		switch (c) {
		case 'a': xa = optarg; break;
		case 'b': xb = optarg; break;
		case 'N': runs = (int)pd_opt_int('N', optarg, 2, 50, "runs",
		    NULL); break;
		case 'R': report = 1; break;
		case 's': strat = 1; break;
		case 'x': xname = name_arg(optarg); break;
		case 'c': lscpu = optarg; break;
		case 'D': disk = optarg; break;
		case 'e': e = 1; break;
		case 'g': json_array_append_new(gfiles, pd_str(optarg));
			break;
		case 'n': noprobe = 1; break;
		case 'o': outdir = optarg; break;
		case 'P': peakfile = optarg; break;
		case 'S': json_array_append_new(sfiles, pd_str(optarg));
			break;
		case 't': secs = pd_opt_real('t', optarg, 0, 600, "seconds", NULL);
			break;
		case 'h': pd_usage_exit(usage, 0);
		default: pd_usage_exit(usage, 2);
		}
	}
	if ((xname || report || strat) && !outdir) {
		pd_error(NULL, 0, "%s needs -o DIR", xname ? "-x" : report ?
		    "-R" : "-s");
		pd_usage_exit(usage, 2);
	}
	if (xname && (!xb || !xa)) {
		pd_error(NULL, 0, "-x needs -b BEFORE and -a AFTER");
		pd_usage_exit(usage, 2);
	}
	if (outdir && mkdir_p(outdir) != 0) {
		pd_error(outdir, 0, "%s", strerror(errno));
		pd_diag_status(PD_EXIT_SYSTEM);
		goto out;
	}
	memset(&ps, 0, sizeof ps);
	ps.ctx = &s;
	ps.on_record = on_record;
	if (optind == argc && !isatty(0))
		pd_recfile_readf(&ps, stdin, "<stdin>");
	for (i = optind; i < argc; i++)
		pd_diag_status(pd_recfile_read(&ps, argv[i]));
	if (xname || report) {
		if (xname) {
			json_t *recs = json_array();

			if ((v = audit_experiment(argv[0], xname, xb, xa, runs,
			    outdir, recs)) != NULL)
				pd_rec_emit(v);	/* takes v */
			v = NULL;
			json_decref(recs);
		} else if (audit_report(s.all, outdir) != 0)
			pd_diag_status(PD_EXIT_SYSTEM);
		goto out;
	}
	if (!(peaks = load_peaks(peakfile))) {
		pd_diag_status(PD_EXIT_CONFIG);
		goto out;
	}
	/* smi captures as samples */
	json_array_foreach(sfiles, k, v) {
		json_t *d = json_array(), *x;
		size_t j;

		add_devices(d, json_string_value(v));
		json_array_foreach(d, j, x) {
			json_t *smp = pd_smi_sample(x, NULL, NAN, NAN);

			json_array_append(s.samples, smp);
			pd_rec_emit(smp);
		}
		json_decref(d);
	}
	devs = json_array();
	json_array_foreach(gfiles, k, v)
		add_devices(devs, json_string_value(v));
	if (!json_array_size(gfiles) && !noprobe && !lscpu)
		probe(devs);
	if (lscpu && !(lscpu_text = pd_smi_slurp(lscpu, NULL))) {
		pd_error(lscpu, 0, "%s", strerror(errno));
		pd_diag_status(PD_EXIT_SYSTEM);
		goto out;
	}
	cpu = limits_cpu(lscpu_text);
	if (!lscpu) {
		json_t *m = limits_cpu_measure(secs, (int)ceil(pd_rec_num(cpu,
		    "available_cpus", 1)));

		json_object_update(cpu, m);
		json_decref(m);
	}
	lim = pd_rec_new("pd.limits", 1, NULL);
	pd_set_null(lim, "root");
	pd_set_null(lim, "rank");
	pd_set_str(lim, "source", lscpu ? "lscpu" : "machine");
	threads = (int)pd_rec_int(cpu, "physical_cores", 0);
	if (threads <= 0 || threads > pd_rec_num(cpu, "available_cpus", 1e9))
		threads = (int)ceil(pd_rec_num(cpu, "available_cpus", 1));
	pd_set(lim, "cpu", cpu);
	pd_set(lim, "memory", lscpu ? json_null() : limits_memory(secs,
	    threads, pd_rec_num(cpu, "llc_bytes", 0)));
	if (disk)
		pd_set(lim, "disk", limits_disk(disk, secs > 0 ? secs : 1));
	else if (s.limits_in && json_is_object(json_object_get(s.limits_in,
	    "disk")))
		pd_set(lim, "disk", json_deep_copy(json_object_get(s.limits_in,
		    "disk")));
	else
		pd_set_null(lim, "disk");
	pd_set(lim, "accelerators", limits_accel(devs, peaks));
	pd_set(lim, "network", lscpu ? json_null() : limits_network());
	pd_set(lim, "warnings", warnings(&s, devs, noprobe &&
	    !json_array_size(gfiles)));
	if (outdir) {
		yaml = json_deep_copy(lim);
		json_object_del(yaml, "type");
		json_object_del(yaml, "v");
		json_object_del(yaml, "root");
		json_object_del(yaml, "rank");
		unknown_peaks(json_object_get(yaml, "accelerators"));
		if (pd_yamlio_write(outdir, "theoretical_limits.yaml", yaml))
			pd_diag_status(PD_EXIT_SYSTEM);
		json_decref(yaml);
	}
	if ((v = limits_verdict(s.samples, lim, &alarm)) != NULL) {
		pd_rec_emit(json_incref(lim));
		pd_rec_emit(json_incref(v));
	} else
		pd_rec_emit(json_incref(lim));
	if (strat) {
		json_t *st = audit_strategies(s.all, v, lim, outdir, NULL), *x;

		json_array_foreach(st, k, x)
			pd_rec_emit(json_incref(x));
		json_decref(st);
	}
	if (alarm && e)
		pd_diag_status(PD_EXIT_FOUND);
out:
	json_decref(v);
	json_decref(lim);
	json_decref(devs);
	json_decref(peaks);
	json_decref(gfiles);
	json_decref(sfiles);
	json_decref(s.samples);
	json_decref(s.limits_in);
	json_decref(s.device_ev);
	json_decref(s.all);
	free(lscpu_text);
	return pd_diag_finish();
}
