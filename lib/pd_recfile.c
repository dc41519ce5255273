#include "pd_recfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
