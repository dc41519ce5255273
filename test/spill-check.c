/* spill-check: write N records (N from argv[1]) through a pd_spill kept
 * in memory up to LIMIT bytes (argv[2]), read them back and compare.
 * A record is a signed difference from the previous value and an
 * unsigned one, from a fixed sequence that includes INT64_MIN, INT64_MAX,
 * 0 and -1. Prints "N records, BYTES bytes, file|memory, ok" or the first
 * mismatch (exit 1); a failed spill exits 5 with its errno text. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pd_spill.h"

static int64_t
value(uint64_t i)
{
	static const int64_t edge[] = { INT64_MIN, INT64_MAX, 0, -1, 1 };
	uint64_t x = i * 6364136223846793005ULL + 1442695040888963407ULL;

	if (i % 7 < 5)
		return edge[i % 7];
	return (int64_t)(x ^ x >> 29);	/* any bits at all */
}

struct back {
	uint64_t i, bad;
	int64_t prev;
};

static const unsigned char *
check(const unsigned char *p, const unsigned char *end, void *ctx)
{
	struct back *b = ctx;
	int64_t v = pd_spill_get_d(&p, end, b->prev);
	uint64_t u = pd_spill_get_u(&p, end);

	if ((v != value(b->i) || u != (uint64_t)value(b->i + 1)) && !b->bad)
		b->bad = b->i + 1;
	b->prev = v;
	b->i++;
	return p;
}

int
main(int argc, char **argv)
{
	struct pd_spill s;
	struct back b;
	uint64_t n, i;
	int64_t prev = 0;
	size_t bytes = 0;
	int file, err;

	if (argc != 3) {
		fprintf(stderr, "usage: spill-check N LIMIT\n");
		return 2;
	}
	n = strtoull(argv[1], NULL, 10);
	memset(&s, 0, sizeof s);
	s.limit = (size_t)strtoull(argv[2], NULL, 10);
	for (i = 0; i < n; i++) {
		unsigned char *p = pd_spill_reserve(&s, 20), *q;

		q = pd_spill_put_d(p, value(i), prev);
		q = pd_spill_put_u(q, (uint64_t)value(i + 1));
		bytes += (size_t)(q - p);
		pd_spill_commit(&s, q);
		prev = value(i);
	}
	file = s.f != NULL;
	memset(&b, 0, sizeof b);
	if ((err = pd_spill_each(&s, 20, check, &b)) != 0) {
		printf("spill failed: %s\n", strerror(err));
		return 5;
	}
	if (b.bad || b.i != n) {
		printf("record %" PRIu64 " differs (%" PRIu64 " read)\n",
		    b.bad, b.i);
		return 1;
	}
	printf("%" PRIu64 " records, %zu bytes, %s, ok\n", n, bytes,
	    file ? "file" : "memory");
	return 0;
}
