/* pd_locate: finding profiler roots below a path (see pd_locate.h and
 * pd-locate(1) for the rules). Directories are read with their entries
 * sorted (C order); the records of one operand are collected and emitted
 * sorted by root path, then device. Files are identified by name and by
 * their first bytes only: a trace is never read past its header.
 *
 * Here: the walk over directories and archives, and the entry point. What
 * the parts share is in pd_locate_int.h. */
#include "pd_locate_int.h"

#include "pd_locate.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <search.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pd_csv.h"
#include "pd_archive.h"
#include "pd_diag.h"
#include "pd_file.h"
#include "pd_formats.h"
#include "pd_nsys.h"
#include "pd_rec.h"
#include "pd_sqlite.h"
#include "pd_trace.h"

static int
seen_cmp(const void *a, const void *b)
{
	const struct seen *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return 0;
}

static void
seen_free(void *p)
{
	struct seen *s = p;

	free(s->path);
	free(s);
}

/* Enter the directory path (status st): its entry, or NULL when it was
 * entered before under another name (not searched again: a loop never
 * repeats, a second name gives no second root; said once per directory). */
static struct seen *
enter(struct loc *l, const char *path, const struct stat *st)
{
	struct seen key, *s, **slot;

	key.dev = st->st_dev;
	key.ino = st->st_ino;
	slot = tfind(&key, &l->seen, seen_cmp);
	if (slot) {
		s = *slot;
		if (s->warned++)
			return NULL;
		if (s->active)
			pd_warn(path, 0, "symbolic link loop: leads back to "
			    "'%s'; not followed", s->path);
		else
			pd_warn(path, 0, "the directory already searched as "
			    "'%s'; not searched again", s->path);
		return NULL;
	}
	s = calloc(1, sizeof *s);
	if (!s || !(s->path = strdup(path))) {
		free(s);
		return NULL;
	}
	s->dev = st->st_dev;
	s->ino = st->st_ino;
	if (!tsearch(s, &l->seen, seen_cmp)) {
		seen_free(s);
		return NULL;
	}
	return s;
}

static void walk(struct loc *l, const char *path, const struct stat *dst,
    int depth);

/* The roots inside an archive: its members are read from a private copy
 * (pd_archive.h), searched like a directory, and the roots found named
 * ARCHIVE//MEMBER, with the archive in "archive". */
static void
in_archive(struct loc *l, const char *path, int depth)
{
	size_t first = l->n, i;
	int before = pd_diag_get_status();
	const char *dir = pd_archive_dir(path);
	struct stat st;

	if (pd_diag_get_status() > before && l->status < PD_EXIT_INPUT)
		l->status = PD_EXIT_INPUT;
	if (!dir || stat(dir, &st) != 0)
		return;
	walk(l, dir, &st, depth + 1);
	for (i = first; i < l->n; i++) {
		if (!l->c[i].rec)
			continue;
		pd_archive_unmap_json(l->c[i].rec);
		l->c[i].archive = strdup(path);
		if (!l->c[i].archive)
			pd_oom();
	}
}

static void
walk(struct loc *l, const char *path, const struct stat *dst, int depth)
{
	char **names, p[PATH_MAX];
	struct stat st;
	struct seen *me;
	int n, i;

	if (!(me = enter(l, path, dst)))
		return;
	if (!(names = pd_loc_list_dir(path, &n))) {
		pd_warn(path, 0, "cannot read directory: %s; skipped",
		    strerror(errno));
		if (l->status < PD_EXIT_INPUT)
			l->status = PD_EXIT_INPUT;
		return;
	}
	me->active = 1;
	if (pd_loc_dir_root(l, path, names, n)) {
		pd_loc_free_list(names, n);
		me->active = 0;
		return;
	}
	for (i = 0; i < n; i++) {
		pd_loc_join(p, sizeof p, path, names[i]);
		if (stat(p, &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			if (depth < l->maxdepth)
				walk(l, p, &st, depth + 1);
		} else if (S_ISREG(st.st_mode)) {
			if (pd_archive_name(p))
				in_archive(l, p, depth);
			else
				pd_loc_trace_root(l, p);
		} else {
			pd_warn(p, 0, "not a regular file or directory; "
			    "skipped");
			if (l->status < PD_EXIT_INPUT)
				l->status = PD_EXIT_INPUT;
		}
	}
	pd_loc_free_list(names, n);
	me->active = 0;
}

/* An operand inside a root (ASCEND_PROFILER_OUTPUT/, a PROF dir's
 * mindstudio_profiler_output/ or device_N/) stands for that root. */
static void
climb(char *abs, size_t size)
{
	char par[PATH_MAX];
	const char *name = base_of(abs);

	pd_loc_parent_of(abs, par, sizeof par);
	if (strcmp(name, "ASCEND_PROFILER_OUTPUT") == 0 ||
	    ((strcmp(name, "mindstudio_profiler_output") == 0 ||
	    pd_loc_device_dir(name) >= 0) &&
	    starts_with(base_of(par), "PROF_")))
		snprintf(abs, size, "%s", par);
}

int
pd_locate(const char *path, const struct pd_locate_opts *o, pd_root_cb cb,
    void *ctx)
{
	struct loc l;
	struct stat st;
	char abs[PATH_MAX];
	size_t i;
	int r;

	memset(&l, 0, sizeof l);
	l.maxdepth = o && o->maxdepth > 0 ? o->maxdepth : DEFAULT_DEPTH;
	if (stat(path, &st) < 0 || !realpath(path, abs)) {
		pd_error(path, 0, "%s", strerror(errno));
		return PD_EXIT_SYSTEM;
	}
	if (S_ISDIR(st.st_mode)) {
		climb(abs, sizeof abs);
		if (stat(abs, &st) == 0)
			walk(&l, abs, &st, 0);
	} else if (!S_ISREG(st.st_mode)) {
		pd_warn(path, 0, "not a regular file or directory; skipped");
		l.status = PD_EXIT_INPUT;
	} else if (pd_archive_name(abs)) {
		in_archive(&l, abs, 0);
	} else if (!pd_loc_trace_root(&l, abs) && (is_sqlite_name(abs) ||
	    !pd_loc_nsys_root(&l, abs))) {
		pd_warn(path, 0, "not a Kineto, autograd or Nsight Systems "
		    "trace; give its profiler directory instead");
		l.status = PD_EXIT_INPUT;
	}
	if (l.n)
		qsort(l.c, l.n, sizeof *l.c, pd_loc_by_root);
	if (o && o->best)
		pd_loc_best_only(&l);
	pd_loc_cover(&l);
	for (i = 0; i < l.n; i++) {
		if (l.c[i].rec) {
			pd_set(l.c[i].rec, "archive", l.c[i].archive ?
			    pd_str(l.c[i].archive) : json_null());
			/* statuses are ranked: the worst one is returned */
			if ((r = cb(l.c[i].rec, ctx)) > l.status)
				l.status = r;
		}
		json_decref(l.c[i].rec);
		free(l.c[i].archive);
	}
	free(l.c);
	tdestroy(l.seen, seen_free);
	return l.status;
}

const char *
pd_root_export(json_t *root, const char *kind, size_t idx)
{
	json_t *ex = json_object_get(root, "exports"), *e;
	size_t i, n = 0;

	json_array_foreach(ex, i, e) {
		const char *k = pd_rec_str(e, "kind");
		if (k && strcmp(k, kind) == 0 && n++ == idx)
			return pd_str_bytes(pd_rec_str(e, "path"));
	}
	return NULL;
}
