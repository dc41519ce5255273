#include "pd_recfile.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pd_archive.h"
#include "pd_diag.h"

static int
blank(const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strchr(" \t\r\n", p[i]))
			return 0;
	return 1;
}

static void
read_lines(struct pd_stream *s, FILE *f, const char *name)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	long lineno = 0;
	json_error_t err;
	json_t *rec;

	while ((n = getline(&line, &cap, f)) > 0) {
		lineno++;
		if (!s->no_passthrough)
			pd_rec_write_line(line, (size_t)n);
		if (blank(line, (size_t)n))
			continue;
		rec = json_loadb(line, (size_t)n, 0, &err);
		if (!rec || !json_is_object(rec)) {
			pd_warn(name, lineno, "not a JSON object%s%s; forwarded "
			    "unchanged", rec ? "" : ": ", rec ? "" : err.text);
			pd_diag_status(PD_EXIT_INPUT);
			json_decref(rec);
			continue;
		}
		if (s->on_record)
			s->on_record(rec, s->ctx);
		json_decref(rec);
	}
	free(line);
}

int
pd_recfile_readf(struct pd_stream *s, FILE *f, const char *name)
{
	read_lines(s, f, name);
	if (ferror(f)) {
		pd_error(name, 0, "read error: %s", strerror(errno));
		return PD_EXIT_SYSTEM;
	}
	return 0;
}

int
pd_recfile_read(struct pd_stream *s, const char *path)
{
	FILE *f;
	struct stat st;
	int rc = 0;

	if (strcmp(path, "-") == 0) {
		read_lines(s, stdin, "<stdin>");
		f = stdin;
	} else {
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
			pd_error(path, 0, "is a directory, not a file of records");
			return PD_EXIT_SYSTEM;
		}
		if (!(f = fopen(path, "r"))) {
			pd_error(path, 0, "%s", strerror(errno));
			return PD_EXIT_SYSTEM;
		}
		read_lines(s, f, path);
	}
	if (ferror(f)) {
		pd_error(path, 0, "read error: %s", strerror(errno));
		rc = PD_EXIT_SYSTEM;
	}
	if (f != stdin)
		fclose(f);
	return rc;
}

/* Whether the text at p (NUL-terminated) opens a record: blanks allowed
 * between the tokens of {"type":"pd. (a record written with spaces after
 * its colons, as json.dumps does by default). */
static int
opens_record(const char *p)
{
	static const char *const tok[] = { "{", "\"type\"", ":", "\"pd.", NULL };
	int k;

	for (k = 0; tok[k]; k++) {
		p += strspn(p, " \t\r\n");
		if (strncmp(p, tok[k], strlen(tok[k])) != 0)
			return 0;
		p += strlen(tok[k]);
	}
	return 1;
}

/* Whether a whole first line (NUL-terminated) is a JSON object whose
 * "type" is a pd. record type, in whatever key order. */
static int
line_is_record(const char *line)
{
	json_t *o = json_loads(line, JSON_DECODE_ANY, NULL);
	const char *t = json_string_value(json_object_get(o, "type"));
	int yes = json_is_object(o) && t && strncmp(t, "pd.", 3) == 0;

	json_decref(o);
	return yes;
}

int
pd_recfile_is_dump(const char *path)
{
	char head[65536], *nl;
	struct stat st;
	ssize_t n = 0, r;
	int fd, i = 0;

	if (strcmp(path, "-") == 0 || stat(path, &st) != 0)
		return 0;
	if (S_ISDIR(st.st_mode))
		return 1;
	if (!S_ISREG(st.st_mode) || st.st_size == 0)
		return 0;
	if (pd_archive_name(path))
		return 1;
	if ((fd = open(path, O_RDONLY | O_NONBLOCK)) < 0)
		return 0;
	while (n < (ssize_t)sizeof head - 1 && (r = read(fd, head + n,
	    sizeof head - 1 - (size_t)n)) > 0)
		n += r;
	close(fd);
	if (n <= 0)
		return 0;
	head[n] = 0;
	while (i < n && (head[i] == ' ' || head[i] == '\t' ||
	    head[i] == '\n' || head[i] == '\r'))
		i++;
	/* records as the tools write them, or with blanks between the
	 * tokens, or a first line that is a pd record in another key order;
	 * anything else is a dump */
	if (opens_record(head + i))
		return 0;
	if ((nl = strchr(head + i, '\n')))
		*nl = 0;
	else if (n == (ssize_t)sizeof head - 1)
		return 1;	/* a first line longer than head: not a record */
	return !line_is_record(head + i);
}

static const char *
self_dir(void)
{
	static char buf[4096];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
	char *slash;

	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	if (!(slash = strrchr(buf, '/')))
		return NULL;
	*slash = '\0';
	return buf;
}

/* The path of a tool: next to the running binary when it is there, else
 * its name (looked up in PATH). */
static char *
tool_path(const char *bin, const char *tool)
{
	char *prog = NULL;

	if (bin && asprintf(&prog, "%s/%s", bin, tool) >= 0 &&
	    access(prog, X_OK) == 0)
		return prog;
	free(prog);
	return strdup(tool);
}

#define STAGES 9

struct stage {
	char *prog;
	const char *argv[8];
	pid_t pid;
	int status;
};

/* Start the stages as one pipeline, without a shell: each stage's stdout is
 * the next one's stdin; the last one's stdout is returned (-1 on error,
 * with errno). Stages that could not be started have pid -1. */
static int
start_stages(struct stage *st, int n)
{
	int in = -1, fds[2], i;

	for (i = 0; i < n; i++) {
		st[i].pid = -1;
		if (pipe(fds) != 0)
			goto fail;
		fcntl(fds[0], F_SETFD, FD_CLOEXEC);
		fcntl(fds[1], F_SETFD, FD_CLOEXEC);
		fflush(NULL);
		if ((st[i].pid = fork()) < 0) {
			close(fds[0]);
			close(fds[1]);
			goto fail;
		}
		if (st[i].pid == 0) {
			if (in >= 0 && dup2(in, 0) < 0)
				_exit(127);
			if (dup2(fds[1], 1) < 0)
				_exit(127);
			execvp(st[i].prog, (char *const *)st[i].argv);
			_exit(127);
		}
		if (in >= 0)
			close(in);
		close(fds[1]);
		in = fds[0];
	}
	return in;
fail:
	if (in >= 0)
		close(in);
	return -1;
}

int
pd_recfile_dir(struct pd_stream *s, const char *dir, const char *upto,
    int hotspot_n)
{
	static const char *tools[STAGES] = { "pd-locate", "pd-sum-step",
	    "pd-sum-comm", "pd-sum-mem", "pd-sum-input", "pd-sum-gaps",
	    "pd-hotspots", "pd-profile", "pd-classify" };
	struct stage st[STAGES];
	const char *bin = self_dir();
	char nbuf[32], *rejecters = NULL;
	size_t rejecters_len = 0;
	FILE *names;
	int i, n, fd, rc = 0, failed = 0, rejected = 0, err;
	FILE *out;

	n = upto && !strcmp(upto, "pd-classify") ? 9 :
	    upto && !strcmp(upto, "pd-profile") ? 8 : 7;
	snprintf(nbuf, sizeof nbuf, "%d", hotspot_n);
	memset(st, 0, sizeof st);
	for (i = 0; i < n; i++) {
		const char **v = st[i].argv;

		st[i].prog = tool_path(bin, tools[i]);
		*v++ = tools[i];
		if (i == 0) {	/* pd-locate: the dump, never an option */
			*v++ = "--";
			*v++ = dir;
		} else
			*v++ = "-q";
		if (hotspot_n > 0 && !strcmp(tools[i], "pd-hotspots")) {
			*v++ = "-n";
			*v++ = nbuf;
		}
		*v = NULL;
	}
	fd = start_stages(st, n);
	err = errno;
	if (fd >= 0 && (out = fdopen(fd, "r"))) {
		rc = pd_recfile_readf(s, out, dir);
		fclose(out);
	} else {
		if (fd >= 0)
			close(fd);
		pd_error(dir, 0, "cannot run the diagnosis pipeline: %s",
		    strerror(err));
		rc = PD_EXIT_SYSTEM;
		failed = 1;
	}
	for (i = 0; i < n; i++)
		if (st[i].pid > 0)
			while (waitpid(st[i].pid, &st[i].status, 0) < 0 &&
			    errno == EINTR)
				;
	/* every stage's status counts, not only the last one's; a stage
	 * that died of SIGPIPE because a later one failed is not named */
	if (!(names = open_memstream(&rejecters, &rejecters_len)))
		pd_oom();
	for (i = 0; i < n && st[i].pid > 0; i++) {
		int ws = st[i].status;

		if (WIFEXITED(ws) && WEXITSTATUS(ws) == 0)
			continue;
		if (WIFEXITED(ws) && WEXITSTATUS(ws) == PD_EXIT_INPUT) {
			if (!rejected++)
				fprintf(names, "%s", tools[i]);
			else
				fprintf(names, ", %s", tools[i]);
			continue;
		}
		if (WIFSIGNALED(ws) && WTERMSIG(ws) == SIGPIPE)
			continue;
		failed = 1;
		if (WIFSIGNALED(ws))
			pd_error(dir, 0, "the diagnosis pipeline failed: %s "
			    "was killed by signal %d", tools[i], WTERMSIG(ws));
		else if (WEXITSTATUS(ws) == 127)
			pd_error(dir, 0, "the diagnosis pipeline failed: "
			    "cannot run %s", st[i].prog);
		else
			pd_error(dir, 0, "the diagnosis pipeline failed: %s "
			    "exited with status %d", tools[i],
			    WEXITSTATUS(ws));
	}
	for (i = 0; i < n; i++)
		free(st[i].prog);
	fclose(names);
	if (rejected && !failed) {
		pd_warn(dir, 0, "some input was rejected while diagnosing "
		    "(by %s: run it on the dump to see why)", rejecters);
		pd_diag_status(PD_EXIT_INPUT);
	}
	free(rejecters);
	return failed ? PD_EXIT_SYSTEM : rc ? rc : rejected ? PD_EXIT_INPUT : 0;
}
