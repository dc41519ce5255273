/* pd_sqlite: SQLite exports (torch_npu / msprof db export, Nsight Systems)
 * opened read-only, never written: a profiler may still hold the file,
 * and several tools read it at once. */
#ifndef PD_SQLITE_H
#define PD_SQLITE_H

#include <sqlite3.h>
#include <stdint.h>

/* libsqlite3 is loaded when the first database is opened, not at every
 * tool's start (mapping and relocating it cost every start of every tool,
 * while most runs read no SQLite export). The calls below go through
 * this table, typed from sqlite3.h's own declarations; pd_sqlite_open and
 * pd_sqlite_peek load it, and nothing else is called before a database
 * is open. */
struct pd_sqlite_api {
	__typeof__(sqlite3_open_v2) *open_v2;
	__typeof__(sqlite3_close) *close;
	__typeof__(sqlite3_exec) *exec;
	__typeof__(sqlite3_errmsg) *errmsg;
	__typeof__(sqlite3_prepare_v2) *prepare_v2;
	__typeof__(sqlite3_step) *step;
	__typeof__(sqlite3_reset) *reset;
	__typeof__(sqlite3_finalize) *finalize;
	__typeof__(sqlite3_bind_text) *bind_text;
	__typeof__(sqlite3_bind_int64) *bind_int64;
	__typeof__(sqlite3_bind_parameter_count) *bind_parameter_count;
	__typeof__(sqlite3_column_count) *column_count;
	__typeof__(sqlite3_column_name) *column_name;
	__typeof__(sqlite3_column_type) *column_type;
	__typeof__(sqlite3_column_text) *column_text;
	__typeof__(sqlite3_column_int) *column_int;
	__typeof__(sqlite3_column_int64) *column_int64;
	__typeof__(sqlite3_column_double) *column_double;
};
extern struct pd_sqlite_api pd_sqlite_fn;

#define sqlite3_open_v2 (*pd_sqlite_fn.open_v2)
#define sqlite3_close (*pd_sqlite_fn.close)
#define sqlite3_exec (*pd_sqlite_fn.exec)
#define sqlite3_errmsg (*pd_sqlite_fn.errmsg)
#define sqlite3_prepare_v2 (*pd_sqlite_fn.prepare_v2)
#define sqlite3_step (*pd_sqlite_fn.step)
#define sqlite3_reset (*pd_sqlite_fn.reset)
#define sqlite3_finalize (*pd_sqlite_fn.finalize)
#define sqlite3_bind_text (*pd_sqlite_fn.bind_text)
#define sqlite3_bind_int64 (*pd_sqlite_fn.bind_int64)
#define sqlite3_bind_parameter_count (*pd_sqlite_fn.bind_parameter_count)
#define sqlite3_column_count (*pd_sqlite_fn.column_count)
#define sqlite3_column_name (*pd_sqlite_fn.column_name)
#define sqlite3_column_type (*pd_sqlite_fn.column_type)
#define sqlite3_column_text (*pd_sqlite_fn.column_text)
#define sqlite3_column_int (*pd_sqlite_fn.column_int)
#define sqlite3_column_int64 (*pd_sqlite_fn.column_int64)
#define sqlite3_column_double (*pd_sqlite_fn.column_double)

/* Open path (a regular file; ARCHIVE//MEMBER resolved) read-only and
 * immutable. NULL with the problem said (file: message) and exit 3. */
sqlite3 *pd_sqlite_open(const char *path);

/* pd_sqlite_open saying nothing: for a glance at metadata (the locator's)
 * whose failure the tool that reads the file will report. */
sqlite3 *pd_sqlite_peek(const char *path);

/* Whether the database has a table of that name. */
int pd_sqlite_has_table(sqlite3 *db, const char *table);

/* The index of a result column by name (case-insensitive), or -1. */
int pd_sqlite_col(sqlite3_stmt *st, const char *name);

/* Column col of the current row as an exact integer: an INTEGER, a TEXT
 * that is one (torch_npu writes some ns times as text), or a REAL with no
 * fraction. 1 with *v set, 0 when NULL, absent (col < 0) or not one. */
int pd_sqlite_i64(sqlite3_stmt *st, int col, int64_t *v);

/* A span in ns from columns col (start) and col + 1 (end), each as
 * pd_sqlite_i64 reads it: 1 with *ts and *dur set, 0 when either is
 * missing, the end is before the start, or the difference overflows. */
int pd_sqlite_span(sqlite3_stmt *st, int col, int64_t *ts, int64_t *dur);

#endif
