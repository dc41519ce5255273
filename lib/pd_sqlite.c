/* pd_sqlite: read-only SQLite exports (pd_sqlite.h). */
#include "pd_sqlite.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "pd_archive.h"
#include "pd_diag.h"
#include "pd_file.h"
#include "pd_num.h"

/* path as a file: URI, every byte outside the unreserved set
 * percent-encoded (a '?' or '#' in a name is not a URI parameter). */
static int
uri_of(const char *path, char *out, size_t size)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = 0;
	const unsigned char *p;

	n = (size_t)snprintf(out, size, "file:");
	for (p = (const unsigned char *)path; *p; p++) {
		if (n + 4 >= size)
			return -1;
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("/-._~", *p))
			out[n++] = (char)*p;
		else {
			out[n++] = '%';
			out[n++] = hex[*p >> 4];
			out[n++] = hex[*p & 15];
		}
	}
	if (n + 24 >= size)
		return -1;
	strcpy(out + n, "?mode=ro&immutable=1");
	return 0;
}

struct pd_sqlite_api pd_sqlite_fn;

#define SQ_SYM(f) \
	(*(void **)&pd_sqlite_fn.f = dlsym(h, "sqlite3_" #f)) != NULL

/* 0 when libsqlite3 is loaded (now or before); -1 with *why set when it
 * cannot be (then nothing is loaded: every entry stays NULL). */
static int
sq_load(const char **why)
{
	static char err[256];
	static void *h;
	const char *e;

	if (h)
		return 0;
	if (!(h = dlopen("libsqlite3.so.0", RTLD_NOW | RTLD_LOCAL)))
		h = dlopen("libsqlite3.so", RTLD_NOW | RTLD_LOCAL);
	if (h && SQ_SYM(open_v2) && SQ_SYM(close) && SQ_SYM(exec) &&
	    SQ_SYM(errmsg) && SQ_SYM(prepare_v2) && SQ_SYM(step) &&
	    SQ_SYM(reset) && SQ_SYM(finalize) && SQ_SYM(bind_text) &&
	    SQ_SYM(bind_int64) && SQ_SYM(bind_parameter_count) &&
	    SQ_SYM(column_count) && SQ_SYM(column_name) &&
	    SQ_SYM(column_type) && SQ_SYM(column_text) &&
	    SQ_SYM(column_int) && SQ_SYM(column_int64) &&
	    SQ_SYM(column_double))
		return 0;
	e = dlerror();
	snprintf(err, sizeof err, "libsqlite3 could not be loaded (%s); "
	    "install libsqlite3-0", e ? e : "symbol missing");
	*why = err;
	if (h)
		dlclose(h);
	h = NULL;
	memset(&pd_sqlite_fn, 0, sizeof pd_sqlite_fn);
	return -1;
}

/* The problem with path, said (and exit 3) when say is set. */
static void
fail(int say, const char *path, const char *fmt, const char *what)
{
	if (!say)
		return;
	pd_warn(path, 0, fmt, what);
	pd_diag_status(PD_EXIT_INPUT);
}

static sqlite3 *
open_db(const char *path, int say)
{
	char real[PATH_MAX], uri[3 * PATH_MAX + 64];
	const char *why = NULL;
	sqlite3 *db = NULL;
	int fd;

	/* regular files only (a FIFO would hang), as every reader */
	if ((fd = pd_file_open(path, NULL)) < 0) {
		fail(say, path, "%s; skipped", pd_file_strerror(errno));
		return NULL;
	}
	close(fd);
	if (sq_load(&why) < 0) {
		if (say) {
			pd_warn(path, 0, "cannot read SQLite exports: %s", why);
			pd_diag_status(PD_EXIT_SYSTEM);
		}
		return NULL;
	}
	if (pd_archive_resolve(path, real, sizeof real) > 0)
		path = real;
	if (uri_of(path, uri, sizeof uri) < 0 ||
	    sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI,
	    NULL) != SQLITE_OK) {
		fail(say, path, "cannot open as SQLite: %s; skipped",
		    db ? sqlite3_errmsg(db) : "name too long");
		sqlite3_close(db);
		return NULL;
	}
	/* a file that is not a database fails on the first read */
	if (sqlite3_exec(db, "SELECT count(*) FROM sqlite_master", NULL, NULL,
	    NULL) != SQLITE_OK) {
		fail(say, path, "not a readable SQLite database: %s; skipped",
		    sqlite3_errmsg(db));
		sqlite3_close(db);
		return NULL;
	}
	return db;
}

sqlite3 *
pd_sqlite_open(const char *path)
{
	return open_db(path, 1);
}

sqlite3 *
pd_sqlite_peek(const char *path)
{
	return open_db(path, 0);
}

int
pd_sqlite_has_table(sqlite3 *db, const char *table)
{
	sqlite3_stmt *st;
	int has = 0;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE "
	    "type = 'table' AND name = ?", -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	has = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return has;
}

int
pd_sqlite_col(sqlite3_stmt *st, const char *name)
{
	int i, n = sqlite3_column_count(st);

	for (i = 0; i < n; i++)
		if (sqlite3_column_name(st, i) &&
		    strcasecmp(sqlite3_column_name(st, i), name) == 0)
			return i;
	return -1;
}

int
pd_sqlite_i64(sqlite3_stmt *st, int col, int64_t *v)
{
	const char *s;
	double d;

	if (col < 0)
		return 0;
	switch (sqlite3_column_type(st, col)) {
	case SQLITE_INTEGER:
		*v = sqlite3_column_int64(st, col);
		return 1;
	case SQLITE_TEXT:
		s = (const char *)sqlite3_column_text(st, col);
		return s && pd_num_int(s, strlen(s), v) == PD_NUM_OK;
	case SQLITE_FLOAT:
		d = sqlite3_column_double(st, col);
		if (d != d || d < -9.2e18 || d > 9.2e18 || d != (double)(int64_t)d)
			return 0;
		*v = (int64_t)d;
		return 1;
	default:
		return 0;
	}
}

int
pd_sqlite_span(sqlite3_stmt *st, int col, int64_t *ts, int64_t *dur)
{
	int64_t b, e;

	if (!pd_sqlite_i64(st, col, &b) || !pd_sqlite_i64(st, col + 1, &e) ||
	    e < b || (b < 0 && e > INT64_MAX + b))
		return 0;
	*ts = b;
	*dur = e - b;
	return 1;
}
