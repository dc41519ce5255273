/* Step 4 of the audit: an experiment. The command before the change and
 * the one after it run N times each, alternating, each under pd-collect
 * (sh -c, the job's whole process tree sampled); a run that fails is run
 * again, at most 3 tries. The wall times are compared with pd-compare's
 * noise rule: the change is measured when |after - before| of the means
 * exceeds 2 x sqrt(sd_b^2/n_b + sd_a^2/n_a), floored at 5 % of before
 * and at 0.1 s (whole-process wall times jitter by a few per cent between
 * identical runs, and the start of a process tree under pd-collect by
 * tens of milliseconds on a loaded host: two runs each of "sleep 0.1"
 * once read 0.219, 0.218 against 0.191, 0.179 s).
 * The pairs alternate their order (before then after, after then
 * before, ...: ABBA), so that neither side always runs first.
 * A failing run or no measurable gain marks the experiment FAILED. Each
 * run is logged to experiments/<name>.log. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "audit.h"
#include "pd_atomic.h"
#include "pd_diag.h"
#include "pd_file.h"
#include "pd_rec.h"
#include "pd_smi.h"
#include "pd_stats.h"

#define TRIES 3
#define TOL 0.05
#define TOL_ABS_S 0.1

/* pd-collect beside this program when it was run by path, else PATH. */
static void
collector(const char *argv0, char *buf, size_t size)
{
	const char *slash = strrchr(argv0, '/');

	if (slash) {
		snprintf(buf, size, "%.*s/pd-collect", (int)(slash - argv0),
		    argv0);
		if (access(buf, X_OK) == 0)
			return;
	}
	snprintf(buf, size, "pd-collect");
}

/* Run cmd under pd-collect; *wall and *status from its pd.run. 0 when the
 * command ran and exited 0. The records go to rec (appended). */
static int
run_one(const char *pdc, const char *runid, const char *cmd, FILE *log,
    json_t *rec, double *wall, int *status)
{
	char tmpl[] = "/tmp/pd-audit-XXXXXX", *text, *line, *save = NULL;
	int fd = mkstemp(tmpl), st = 0;
	pid_t pid;

	*wall = NAN;
	*status = -1;
	if (fd < 0)
		return -1;
	unlink(tmpl);
	fflush(log);
	if ((pid = fork()) == 0) {
		int null = open("/dev/null", O_RDONLY);

		dup2(fd, 1);
		dup2(fileno(log), 2);
		dup2(null, 0);
		execlp(pdc, pdc, "-n", "-i", "0.5", "-r", runid, "--", "sh", "-c",
		    cmd, (char *)NULL);
		_exit(127);
	}
	if (pid < 0) {
		close(fd);
		return -1;
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	lseek(fd, 0, SEEK_SET);
	{
		FILE *f = fdopen(fd, "r");
		size_t n = 0, cap = 0;
		char *b = NULL, chunk[65536];
		size_t k;

		while (f && (k = fread(chunk, 1, sizeof chunk, f)) > 0) {
			if (n + k + 1 > cap) {
				cap = (n + k + 1) * 2;
				b = realloc(b, cap);
			}
			memcpy(b + n, chunk, k);
			n += k;
		}
		if (b)
			b[n] = 0;
		if (f)
			fclose(f);
		else
			close(fd);
		text = b;
	}
	for (line = text ? strtok_r(text, "\n", &save) : NULL; line;
	    line = strtok_r(NULL, "\n", &save)) {
		json_t *r = json_loads(line, 0, NULL);

		if (r && pd_rec_is(r, "pd.run")) {
			*wall = pd_rec_num(r, "wall_s", NAN);
			*status = (int)pd_rec_int(r, "exit_status", -1);
		}
		if (r)
			json_array_append_new(rec, r);
	}
	free(text);
	return WIFEXITED(st) && *status == 0 && !isnan(*wall) ? 0 : -1;
}

/* A one-hunk unified diff of two texts (common head and tail lines kept
 * out); NULL when they are equal. */
static char *
diff_texts(const char *a, const char *b, const char *na, const char *nb)
{
	const char *la[4096], *lb[4096];
	size_t n1 = 0, n2 = 0, h = 0, t = 0, i;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	for (i = 0; a[i] && n1 < 4096; )
		la[n1++] = a + i, i += strcspn(a + i, "\n"), i += a[i] == '\n';
	for (i = 0; b[i] && n2 < 4096; )
		lb[n2++] = b + i, i += strcspn(b + i, "\n"), i += b[i] == '\n';
#define LEQ(x, y) (strcspn(x, "\n") == strcspn(y, "\n") && \
	!strncmp(x, y, strcspn(x, "\n")))
	while (h < n1 && h < n2 && LEQ(la[h], lb[h]))
		h++;
	while (t < n1 - h && t < n2 - h && LEQ(la[n1 - 1 - t], lb[n2 - 1 - t]))
		t++;
	if (h == n1 && h == n2)
		return NULL;
	f = open_memstream(&buf, &len);
	fprintf(f, "--- %s\n+++ %s\n@@ -%zu,%zu +%zu,%zu @@\n", na, nb, h + 1,
	    n1 - h - t, h + 1, n2 - h - t);
	for (i = h; i < n1 - t; i++)
		fprintf(f, "-%.*s\n", (int)strcspn(la[i], "\n"), la[i]);
	for (i = h; i < n2 - t; i++)
		fprintf(f, "+%.*s\n", (int)strcspn(lb[i], "\n"), lb[i]);
	fclose(f);
	return buf;
}

/* The change: the command lines, and the diff of each pair of words that
 * differ and name regular files. */
static char *
diff_of(const char *before, const char *after)
{
	char *buf = NULL, *wa, *wb, *sa = NULL, *sb = NULL, *x, *y;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fprintf(f, "- %s\n+ %s\n", before, after);
	wa = strdup(before);
	wb = strdup(after);
	for (x = strtok_r(wa, " \t", &sa), y = strtok_r(wb, " \t", &sb); x && y;
	    x = strtok_r(NULL, " \t", &sa), y = strtok_r(NULL, " \t", &sb)) {
		char *ta, *tb, *d;

		if (!strcmp(x, y) || !pd_file_is_regular(x) ||
		    !pd_file_is_regular(y))
			continue;
		ta = pd_smi_slurp(x, NULL);
		tb = pd_smi_slurp(y, NULL);
		if (ta && tb && (d = diff_texts(ta, tb, x, y))) {
			fputs(d, f);
			free(d);
		}
		free(ta);
		free(tb);
	}
	free(wa);
	free(wb);
	fclose(f);
	return buf;
}

static json_t *
reals(const struct pd_vec *v)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < v->n; i++)
		json_array_append_new(a, json_real(round(v->v[i] * 1e3) / 1e3));
	return a;
}

json_t *
audit_experiment(const char *argv0, const char *name, const char *before,
    const char *after, int runs, const char *outdir, json_t *records)
{
	char pdc[4096], dir[4096], logpath[8192], runid[256], *d;
	struct pd_vec vb = { 0 }, va = { 0 };
	struct pd_summary sb, sa;
	json_t *r, *m;
	FILE *log;
	int k, j, failed = 0;
	double noise, delta;
	struct pd_noise nz;
	const char *reason = NULL;

	collector(argv0, pdc, sizeof pdc);
	snprintf(dir, sizeof dir, "%s/experiments", outdir);
	if (mkdir(outdir, 0777) != 0 && errno != EEXIST)
		goto syserr;
	if (mkdir(dir, 0777) != 0 && errno != EEXIST)
		goto syserr;
	snprintf(logpath, sizeof logpath, "%s/%s.log", dir, name);
	if (!(log = fopen(logpath, "w")))
		goto syserr;
	fprintf(log, "experiment %s: %d runs each, alternating (ABBA), "
	    "under %s\n"
	    "before: %s\nafter: %s\n", name, runs, pdc, before, after);
	/* pair k runs before then after when k is even, after then
	 * before when odd (ABBA...): a cost the first run of a pair pays
	 * (a cold page cache, a process tree's start on a busy host) and
	 * a drift of the machine fall on both sides alike */
	for (k = 0; k < runs && !failed; k++)
		for (j = 0; j < 2 && !failed; j++) {
			const int side = j ^ (k & 1);
			const char *cmd = side ? after : before;
			int t, ok = -1, status = -1;
			double wall = NAN;

			for (t = 1; t <= TRIES && ok != 0; t++) {
				snprintf(runid, sizeof runid, "%s-%s-%d-try%d",
				    name, side ? "after" : "before", k + 1, t);
				fprintf(log, "run %s: start\n", runid);
				ok = run_one(pdc, runid, cmd, log, records,
				    &wall, &status);
				fprintf(log, "run %s: %s, exit status %d, wall "
				    "%.3f s\n", runid, ok == 0 ? "ok" : "failed",
				    status, wall);
			}
			if (ok != 0) {
				failed = 1;
				reason = side ? "the changed command failed 3 "
				    "times" : "the original command failed 3 "
				    "times";
			} else
				pd_vec_push(side ? &va : &vb, wall);
		}
	pd_stats(&vb, &sb);
	pd_stats(&va, &sa);
	pd_noise_rule(&sb, &sa, TOL, TOL_ABS_S, &nz);
	noise = nz.noise;
	delta = sa.mean - sb.mean;
	if (!failed && !(vb.n && va.n && delta < 0 && -delta > noise)) {
		failed = 1;
		reason = "no measurable gain: the change of the mean wall time "
		    "is within the noise or slower";
	}
	r = pd_rec_new("pd.experiment", 1, NULL);
	pd_set_str(r, "experiment", name);
	pd_set_str(r, "status", failed ? "FAILED" : "measured");
	pd_set_str(r, "reason", reason);
	pd_set_str(r, "before_command", before);
	pd_set_str(r, "after_command", after);
	pd_set_int(r, "runs", runs);
	pd_set(r, "before_wall_s", reals(&vb));
	pd_set(r, "after_wall_s", reals(&va));
	m = json_object();
	pd_set_str(m, "metric", "wall_s");
	pd_set_real(m, "before", vb.n ? sb.mean : NAN, 3);
	pd_set_real(m, "after", va.n ? sa.mean : NAN, 3);
	pd_set_real(m, "before_sd", vb.n ? sb.stdev : NAN, 3);
	pd_set_real(m, "after_sd", va.n ? sa.stdev : NAN, 3);
	pd_set_real(m, "delta", vb.n && va.n ? delta : NAN, 3);
	pd_set_real(m, "noise", vb.n ? noise : NAN, 3);
	pd_set_str(m, "better", "lower");
	pd_set_str(m, "verdict", !vb.n || !va.n ? NULL :
	    pd_noise_verdict(delta, &nz, 1));
	pd_set(r, "metric", m);
	pd_set_real(r, "speedup", vb.n && va.n && sa.mean > 0 ? sb.mean /
	    sa.mean : NAN, 3);
	d = diff_of(before, after);
	pd_set_str(r, "diff", d);
	free(d);
	{
		char rel[512];

		snprintf(rel, sizeof rel, "experiments/%s.log", name);
		pd_set_str(r, "log", rel);
	}
	fprintf(log, "%s: before %.3f s (sd %.3f, n %zu), after %.3f s (sd "
	    "%.3f, n %zu), noise %.3f s, speed-up %.3fx%s%s\n", failed ?
	    "FAILED" : "measured", sb.mean, sb.stdev, vb.n, sa.mean, sa.stdev,
	    va.n, noise, sa.mean > 0 ? sb.mean / sa.mean : NAN, reason ? ": " :
	    "", reason ? reason : "");
	if (fclose(log) != 0) {
		pd_error(logpath, 0, "%s", strerror(errno));
		pd_diag_status(PD_EXIT_SYSTEM);
	}
	pd_vec_free(&vb);
	pd_vec_free(&va);
	return r;
syserr:
	pd_error(dir, 0, "%s", strerror(errno));
	pd_diag_status(PD_EXIT_SYSTEM);
	return NULL;
}
