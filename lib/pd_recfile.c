#include "pd_recfile.h"

#include <errno.h>
#include <fcntl.h>
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

int
pd_recfile_is_dump(const char *path)
{
	static const char rec[] = "{\"type\":\"pd.";
	char head[64];
	struct stat st;
	ssize_t n = 0;
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
	n = read(fd, head, sizeof head - 1);
	close(fd);
	if (n <= 0)
		return 0;
	head[n] = 0;
	while (i < n && (head[i] == ' ' || head[i] == '\t' ||
	    head[i] == '\n' || head[i] == '\r'))
		i++;
	/* records as the tools write them; anything else is a dump */
	return strncmp(head + i, rec, sizeof rec - 1) != 0;
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

static void
shquote(FILE *m, const char *s)
{
	fputc('\'', m);
	for (; *s; s++)
		if (*s == '\'')
			fputs("'\\''", m);
		else
			fputc(*s, m);
	fputc('\'', m);
}

static void
put_tool(FILE *m, const char *bin, const char *tool)
{
	char prog[4200];

	snprintf(prog, sizeof prog, "%s/%s", bin ? bin : ".", tool);
	shquote(m, bin && access(prog, X_OK) == 0 ? prog : tool);
}

int
pd_recfile_dir(struct pd_stream *s, const char *dir, const char *upto,
    int hotspot_n)
{
	static const char *tools[] = { "pd-sum-step", "pd-sum-comm",
	    "pd-sum-mem", "pd-sum-input", "pd-sum-gaps", "pd-hotspots",
	    "pd-profile", "pd-classify", NULL };
	const char *bin = self_dir();
	char *cmd = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&cmd, &len), *p;
	int i, rc, ws, code, last;

	if (!m)
		abort();
	put_tool(m, bin, "pd-locate");
	fputc(' ', m);
	shquote(m, dir);
	last = upto && !strcmp(upto, "pd-classify") ? 7 :
	    upto && !strcmp(upto, "pd-profile") ? 6 : 5;
	for (i = 0; i <= last; i++) {
		fputs(" | ", m);
		put_tool(m, bin, tools[i]);
		fputs(" -q", m);
		if (hotspot_n > 0 && strcmp(tools[i], "pd-hotspots") == 0)
			fprintf(m, " -n %d", hotspot_n);
	}
	fclose(m);
	if (!(p = popen(cmd, "r"))) {
		pd_error(dir, 0, "cannot run the pipeline: %s", strerror(errno));
		free(cmd);
		return PD_EXIT_SYSTEM;
	}
	rc = pd_recfile_readf(s, p, dir);
	ws = pclose(p);
	free(cmd);
	code = ws != -1 && WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
	if (code < 0 || code >= PD_EXIT_CONFIG) {
		pd_error(dir, 0, "the diagnosis pipeline failed (status %d)",
		    code);
		return PD_EXIT_SYSTEM;
	}
	if (code == PD_EXIT_INPUT) {
		pd_warn(dir, 0, "some input was rejected while diagnosing");
		pd_diag_status(PD_EXIT_INPUT);
	}
	return rc;
}
