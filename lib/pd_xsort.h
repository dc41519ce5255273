/* pd_xsort: sort fixed-size records in bounded memory (an external merge
 * sort), for tools that must see a trace's events in an order the file
 * does not have them in (time order per thread or device).
 *
 * Records are added one at a time into a run buffer of at most
 * PD_XSORT_MEM bytes (1 MiB; the environment variable PD_SORT_MEM, in
 * bytes, overrides it, at least two records). A full buffer is sorted (a
 * run that came in order already, as a thread's events by time often do,
 * is left as it is: n - 1 compares) and
 * written to an unlinked temporary file under $TMPDIR (else /tmp); a run
 * that starts at or after the end of the one written before it (records
 * that come in order across runs) is kept as more of that run, so that
 * records added in order are read back as one run (no merge). When
 * everything fits in one buffer nothing is written; when no temporary
 * file can be made, the buffer grows instead and everything is sorted in
 * memory (the same order; memory then grows with the records). A write
 * that fails once the file is made is an error (err). Reading back merges
 * the runs with a read buffer of 16 KiB each, 64 runs at most: with more,
 * the oldest are first merged into one at the end of the file, 64 at a
 * time, the last time only as many as leave 64 (the file then holds
 * those records more than once). Memory: the run buffer while adding,
 * then at most 64 x 16 KiB (and as much again while merging runs into
 * one), whatever the number of records.
 *
 * cmp must be a total order (add a sequence number to break ties): the
 * order of records that compare equal is not defined. */
#ifndef PD_XSORT_H
#define PD_XSORT_H

#include <stddef.h>
#include <sys/types.h>

#define PD_XSORT_MEM	(1u << 20)

struct pd_xsort_run;

struct pd_xsort {
	size_t size;		/* bytes of a record */
	int (*cmp)(const void *, const void *);
	char *buf;		/* the run being filled, or all of them */
	size_t n, cap, max;	/* records in buf, allocated, at most */
	size_t total;		/* records added */
	int fd;			/* the temporary file, -1 before the first */
	off_t off;		/* bytes written to it */
	char *last;		/* the last record of the last run written */
	struct pd_xsort_run *runs;
	size_t nruns;
	size_t *heap, nheap;	/* runs by their current record */
	size_t pos;		/* reading without runs: next record of buf */
	int reading;
	int err;		/* errno of the first I/O error, else 0 */
	void (*sort)(void *, size_t);	/* sorts a run; NULL: qsort */
};

void pd_xsort_init(struct pd_xsort *x, size_t size,
    int (*cmp)(const void *, const void *));

/* Sort each run with sort(buf, n) instead of qsort with cmp (a radix
 * sort of integer keys, say): it must give the order cmp gives, which
 * still merges the runs. */
void pd_xsort_set_sort(struct pd_xsort *x, void (*sort)(void *, size_t));

/* Room for one more record (size bytes, to be filled by the caller before
 * the next call), or NULL after an I/O error (x->err says which). */
void *pd_xsort_slot(struct pd_xsort *x);

/* Adding is over: sort, and get ready to read. 0, or -1 after an I/O
 * error (x->err). */
int pd_xsort_finish(struct pd_xsort *x);

/* The smallest record not yet read, NULL at the end or after an I/O error
 * (x->err); valid until the next pd_xsort_next. */
const void *pd_xsort_peek(struct pd_xsort *x);
void pd_xsort_next(struct pd_xsort *x);

void pd_xsort_free(struct pd_xsort *x);

/* Where the temporary files go: $TMPDIR, else /tmp (for messages). */
const char *pd_xsort_dir(void);

/* pd_xtop: the k smallest of a stream of fixed-size records, for a list
 * cut to its first k (the slowest calls, the first collectives), in
 * memory for at most 2k records whatever the number added: a full buffer
 * is sorted and cut to its first k, and a record not smaller than the
 * k-th kept is dropped at once. cmp must be a total order (add a sequence
 * number to break ties), so that the result is that of sorting them all. */
struct pd_xtop {
	size_t size, k;
	int (*cmp)(const void *, const void *);
	char *buf;
	size_t n, cap, max;	/* records in buf, allocated, at most */
	int cut;		/* cut once: buf[k - 1] is the bound */
};

void pd_xtop_init(struct pd_xtop *t, size_t size, size_t k,
    int (*cmp)(const void *, const void *));
/* Add a copy of the record rec. */
void pd_xtop_add(struct pd_xtop *t, const void *rec);
/* The smallest min(k, added) records, sorted, in t->buf; their number. */
size_t pd_xtop_finish(struct pd_xtop *t);
void pd_xtop_free(struct pd_xtop *t);

#endif
