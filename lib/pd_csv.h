/* pd_csv: a streaming reader for the CSV files profilers write.
 *
 * RFC 4180 plus the quirks seen in real Ascend exports: a UTF-8 BOM, CRLF
 * (or CR alone), quoted fields with embedded newlines and doubled quotes,
 * timestamps with a trailing TAB (quoted or not). Fields come back with the TAB, CR and
 * surrounding blanks removed. Columns are looked up by header name, so
 * header variants across versions work as long as the names exist. */
#ifndef PD_CSV_H
#define PD_CSV_H

#include <stddef.h>
#include <stdint.h>

struct pd_csv;

/* Open a file (NULL and errno set on failure). */
struct pd_csv *pd_csv_open(const char *path);
/* Read from a memory buffer (not copied; must outlive the reader). */
struct pd_csv *pd_csv_mem(const char *buf, size_t len, const char *name);
void pd_csv_close(struct pd_csv *c);

/* Read the next record. Returns its number of fields, 0 at end of file, -1
 * on a read error, -2 when the file ends inside a quoted field (the partial
 * record is still available). A line end is LF, CRLF or a CR alone (old Mac
 * files). A line of blanks (spaces, TABs) only is no record, wherever it
 * is, the last line without a line end too. */
int pd_csv_next(struct pd_csv *c);

/* Read the next record and keep it as the header. Same returns, and -3 when
 * the file ends inside the header, with no line end after it (a cut file:
 * its last name may be cut too; the partial header is kept). */
int pd_csv_header(struct pd_csv *c);
/* For r < 0 from pd_csv_header: a warning at file:line saying why the
 * header cannot be used ("...; file skipped") and exit status 3. Nothing
 * for r >= 0. */
void pd_csv_header_warn(struct pd_csv *c, int r);

/* Field i of the current record ("" if out of range); its length. */
const char *pd_csv_field(struct pd_csv *c, int i);
size_t pd_csv_len(struct pd_csv *c, int i);
/* Field i quoted for a message, cut if long (pd_diag_quote()): the one way
 * a field is shown in a diagnostic. */
const char *pd_csv_quote(struct pd_csv *c, int i);
int pd_csv_nfields(struct pd_csv *c);

/* Line number where the current record starts (1-based). */
long pd_csv_line(struct pd_csv *c);
const char *pd_csv_name(struct pd_csv *c);

/* Index of the first header column named any of the NULL-terminated
 * names (exact match after trimming, then case-insensitive), or -1. */
int pd_csv_col(struct pd_csv *c, ...);
/* Header column name i, or NULL. */
const char *pd_csv_colname(struct pd_csv *c, int i);
int pd_csv_ncols(struct pd_csv *c);

/* Open a CSV and read its header row. On failure reports it (an error and
 * status 5 when the file cannot be opened; pd_csv_header_warn when the
 * header cannot be read or is cut; nothing for an empty file) and returns
 * NULL. */
struct pd_csv *pd_csv_open_header(const char *path);

/* An unknown header variant: when any idx[i] < 0, report one error naming
 * every missing column ("missing column 'A'" / "missing columns 'A', 'B'"),
 * record exit status 3 and return -1; otherwise return 0. */
int pd_csv_require(const char *path, const char *const *names, const int *idx,
    int n);

/* Number helpers on field i (see pd_num.h for the return codes). */
int pd_csv_double(struct pd_csv *c, int i, double *v);
int pd_csv_us_ns(struct pd_csv *c, int i, int64_t *ns);
int pd_csv_int(struct pd_csv *c, int i, int64_t *v);

#endif
