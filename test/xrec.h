/* The record of the sorter checks (xsort-check, xtop-check): a key with
 * many repeats and a sequence number, ordered by key, then sequence. */
#ifndef XREC_H
#define XREC_H

#include <stdint.h>

struct rec {
	int64_t key;
	uint64_t seq;
};

static int
cmp(const void *x, const void *y)
{
	const struct rec *a = x, *b = y;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

#endif
