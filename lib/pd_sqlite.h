/* pd_sqlite: SQLite exports (torch_npu / msprof db export, Nsight Systems)
 * opened read-only, never written: a profiler may still hold the file,
 * and several tools read it at once. */
#ifndef PD_SQLITE_H
#define PD_SQLITE_H

#include <sqlite3.h>
#include <stdint.h>

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
