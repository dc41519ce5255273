/* pd_spill: an append-only log of small records that a pass over a trace
 * keeps for later (when it is over, or when it turns out to be needed),
 * in memory up to a bound and past it in an unlinked temporary file
 * ($TMPDIR, else /tmp), so that memory stays flat with the trace's size.
 * Without a temporary file the log stays in memory: the same results.
 *
 * Records are the caller's bytes; the varint helpers below code integers
 * in 1 to 10 bytes (small ones, and small differences, in one). The log
 * is read back once, in order, by pd_spill_each. */
#ifndef PD_SPILL_H
#define PD_SPILL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct pd_spill {
	unsigned char *buf;
	size_t len, cap;
	size_t limit;		/* bytes kept in memory; 0: 256 KiB */
	FILE *f;
	int nofile;		/* no temporary file could be made */
	int err;		/* errno of a failed write, 0 */
	uint64_t n;		/* records */
};

/* Room for one record of at most max bytes: write it at the pointer
 * returned, then pass its end to pd_spill_commit. */
unsigned char *pd_spill_reserve(struct pd_spill *s, size_t max);
void pd_spill_commit(struct pd_spill *s, unsigned char *end);

/* Hand each record to fn, in order, with at least max bytes readable
 * after p up to end (fewer at the end of the log); fn returns the end of
 * the record. Then the log is freed. Returns 0, or an errno when a write
 * or this read failed (records may then be missing). */
int pd_spill_each(struct pd_spill *s, size_t max,
    const unsigned char *(*fn)(const unsigned char *p,
    const unsigned char *end, void *ctx), void *ctx);

void pd_spill_free(struct pd_spill *s);

/* Unsigned varint; x - prev zigzagged (every int64 comes back whole). */
unsigned char *pd_spill_put_u(unsigned char *p, uint64_t v);
unsigned char *pd_spill_put_d(unsigned char *p, int64_t x, int64_t prev);
uint64_t pd_spill_get_u(const unsigned char **p, const unsigned char *end);
int64_t pd_spill_get_d(const unsigned char **p, const unsigned char *end,
    int64_t prev);

#endif
