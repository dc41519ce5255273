/* pd-collect: run a workload and sample what it uses.
 *
 * Reads: a command after "--" (run as a child; it keeps stdin and stderr,
 * its stdout goes to our stderr so the record stream stays clean), /proc/
 * stat, /proc/meminfo, /proc/diskstats, /proc/net/dev and the job (every
 * process descended from us, each thread of each: CPU, run-queue wait,
 * memory, storage I/O) every interval, and nvidia-smi --query-gpu -lms /
 * npu-smi info when present.
 * Writes: one pd.run (command, exit status, wall time, start/end), then the
 * pd.sample records (one per interval per resource), then a pd.root per
 * profiler root the command produced below the -p directories. Wall-clock
 * fields (start, end, wall_s, t_s) differ from run to run by nature.
 * Aggregates: records are written when the command has ended (samples
 * wait in a temporary file meanwhile). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pd-collect/collect.h"
#include "pd_diag.h"
#include "pd_tool.h"
#include "pd_locate.h"
#include "pd_rec.h"
#include "pd_smi.h"

static const char usage[] =
    "usage: pd-collect [-an] [-i SECONDS] [-p DIR]... [-r RUN] -- CMD [ARG]...\n"
    "  -a          with -p: every root found, not only those written during the run\n"
    "  -i SECONDS  sampling interval (default 1; 0.05 to 3600)\n"
    "  -n          do not run nvidia-smi / npu-smi\n"
    "  -p DIR      search DIR for profiler output the command wrote\n"
    "  -r RUN      run id for the records (default collect-<start>-<pid>)\n"
    "  -h, --help  this help\n"
    "  --version   the version\n";

static volatile pid_t child;

static void
forward(int sig)
{
	if (child > 0)
		kill(child, sig);
}

static double
mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void
iso_now(char *buf, size_t size)
{
	struct timespec ts;
	struct tm tm;
	char t[32];

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(t, sizeof t, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, size, "%.20s.%03dZ", t, (int)(ts.tv_nsec / 1000000));
}

/* Spawn argv with stdout -> stderr; -1 with errno when it cannot run. */
static pid_t
spawn(char **argv)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe2(p, O_CLOEXEC) != 0)
		return -1;
	if ((pid = fork()) < 0)
		return -1;
	if (pid == 0) {
		int e;

		close(p[0]);
		dup2(2, 1);
		execvp(argv[0], argv);
		e = errno;
		(void)!write(p[1], &e, sizeof e);
		_exit(127);
	}
	close(p[1]);
	{
		int e;
		ssize_t n = read(p[0], &e, sizeof e);

		close(p[0]);
		if (n == sizeof e) {
			waitpid(pid, NULL, 0);
			errno = e;
			return -1;
		}
	}
	(void)c;
	return pid;
}

static const char *
signame(int sig)
{
	switch (sig) {
	case SIGINT: return "SIGINT";
	case SIGTERM: return "SIGTERM";
	case SIGKILL: return "SIGKILL";
	case SIGHUP: return "SIGHUP";
	case SIGQUIT: return "SIGQUIT";
	case SIGSEGV: return "SIGSEGV";
	case SIGABRT: return "SIGABRT";
	case SIGBUS: return "SIGBUS";
	case SIGPIPE: return "SIGPIPE";
	case SIGUSR1: return "SIGUSR1";
	case SIGUSR2: return "SIGUSR2";
	}
	return "signal";
}

/* Reap what ended: the command (1, its status in *st), the nvidia-smi
 * child, orphans of the job adopted as subreaper (their CPU time and I/O
 * stay the job's). */
static int
reap(struct collect *col, int *st)
{
	int done = 0;

	for (;;) {
		struct rusage ru;
		int s;
		pid_t w = wait4(-1, &s, WNOHANG, &ru);

		if (w <= 0) {
			if (w < 0 && errno == ECHILD)
				done = 1;
			if (w < 0 && errno == EINTR)
				continue;
			return done;
		}
		if (w == col->nv_pid) {
			col->nv_pid = 0;
			continue;
		}
		collect_reaped(col, ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
		    (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6,
		    ru.ru_inblock * 512.0, ru.ru_oublock * 512.0);
		if (w == child) {
			*st = s;
			done = 1;
		}
	}
}

struct roots {
	json_t *list;
	double start;	/* wall-clock epoch seconds */
	int all;
};

static int
keep_root(json_t *root, void *ctx)
{
	struct roots *r = ctx;
	struct stat st;
	const char *p = pd_str_bytes(pd_rec_str(root, "root"));

	if (!r->all && (!p || stat(p, &st) != 0 ||
	    st.st_mtime + 1 < (time_t)r->start))
		return 0;
	json_array_append(r->list, root);
	return 0;
}

int
main(int argc, char **argv)
{
	struct collect col;
	struct roots rts;
	json_t *dirs = json_array(), *run, *cmd, *v;
	const char *runid = NULL;
	char start[40], end[40], idbuf[80];
	double interval = 1, t0, next, wall;
	int c, noprobe = 0, st = 0, done = 0;
	size_t k;
	struct sigaction sa;

	pd_diag_init(argv[0]);
	memset(&rts, 0, sizeof rts);
	while ((c = pd_getopt(argc, argv, "+ahi:np:r:", NULL, usage)) != -1) {
		switch (c) {
		case 'a': rts.all = 1; break;
		case 'i':
			interval = pd_opt_real('i', optarg, 0.05, 3600, "interval",
			    "seconds");
			break;
		case 'n': noprobe = 1; break;
		case 'p': json_array_append_new(dirs, pd_str(optarg));
			break;
		case 'r': runid = optarg; break;
		case 'h': pd_usage_exit(usage, 0);
		default: pd_usage_exit(usage, 2);
		}
	}
	if (optind == argc)
		pd_usage_exit(usage, 2);
	iso_now(start, sizeof start);
	rts.start = (double)time(NULL);
	if (!runid) {
		char compact[40];
		size_t i, j = 0;

		for (i = 0; start[i] && start[i] != '.' && j < 39; i++)
			if (start[i] != '-' && start[i] != ':')
				compact[j++] = start[i];
		compact[j] = 0;
		snprintf(idbuf, sizeof idbuf, "collect-%sZ-%ld", compact,
		    (long)getpid());
		runid = idbuf;
	}
	collect_init(&col, runid, interval, !noprobe);
	if (!col.spool) {
		pd_error(NULL, 0, "temporary file: %s", strerror(errno));
		pd_diag_status(PD_EXIT_SYSTEM);
		collect_free(&col);
		json_decref(dirs);
		return pd_diag_finish();
	}
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = forward;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	/* orphans of the job are re-parented to us, not to init */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	t0 = mono();
	collect_begin(&col, t0);
	child = spawn(argv + optind);
	if (child < 0) {
		pd_error(argv[optind], 0, "%s", strerror(errno));
		pd_diag_status(PD_EXIT_SYSTEM);
		collect_end(&col);
		collect_free(&col);
		json_decref(dirs);
		return pd_diag_finish();
	}
	col.pid = child;
	next = t0 + interval;
	while (!done) {
		double now = mono();

		collect_wait(&col, next > now ? next - now : 0);
		done = reap(&col, &st);
		now = mono();
		if (now >= next || (done && now - (next - interval) >=
		    interval / 4)) {
			collect_tick(&col, now);
			next += interval;
			if (next < now)
				next = now + interval;
		}
	}
	wall = mono() - t0;
	iso_now(end, sizeof end);
	collect_end(&col);

	run = pd_rec_new("pd.run", 1, NULL);
	pd_set_null(run, "root");
	pd_set_null(run, "rank");
	pd_set_str(run, "run", runid);
	cmd = json_array();
	for (c = optind; c < argc; c++)
		json_array_append_new(cmd, pd_str(argv[c]));
	pd_set(run, "command", cmd);
	if (WIFEXITED(st)) {
		pd_set_int(run, "exit_status", WEXITSTATUS(st));
		pd_set_null(run, "signal");
	} else {
		pd_set_null(run, "exit_status");
		pd_set_str(run, "signal", WIFSIGNALED(st) ?
		    signame(WTERMSIG(st)) : NULL);
	}
	pd_set_real(run, "wall_s", wall, 3);
	pd_set_str(run, "start", start);
	pd_set_str(run, "end", end);
	pd_set_real(run, "interval_s", interval, 3);
	pd_set_int(run, "samples", (json_int_t)col.nsamples);
	pd_set(run, "sources", json_incref(col.sources));
	pd_rec_emit(run);
	if (col.spool) {
		char buf[65536];
		size_t n;

		fflush(stdout);
		rewind(col.spool);
		while ((n = fread(buf, 1, sizeof buf, col.spool)) > 0)
			fwrite(buf, 1, n, stdout);
		if (ferror(col.spool)) {
			pd_error(NULL, 0, "sample spool: %s", strerror(errno));
			pd_diag_status(PD_EXIT_SYSTEM);
		}
	}
	rts.list = json_array();
	json_array_foreach(dirs, k, v) {
		struct pd_locate_opts lo = { 0, 0 };

		pd_diag_status(pd_locate(json_string_value(v), &lo, keep_root,
		    &rts));
	}
	json_array_foreach(rts.list, k, v)
		pd_rec_emit(json_incref(v));
	json_decref(rts.list);
	json_decref(dirs);
	collect_free(&col);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		pd_warn(NULL, 0, "%s: %s %d", argv[optind], WIFEXITED(st) ?
		    "exited with status" : "killed by signal", WIFEXITED(st) ?
		    WEXITSTATUS(st) : WTERMSIG(st));
		pd_diag_status(PD_EXIT_INPUT);
	}
	return pd_diag_finish();
}
