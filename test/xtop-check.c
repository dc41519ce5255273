/* xtop-check N SEED K: add N pseudo-random records (a key with many
 * repeats, a sequence number) to a pd_xtop of K and compare what it keeps
 * with the first K of all N sorted by qsort: prints "kept=M same=S
 * bounded=B", M the records kept, S 1 when they are those first K (or all
 * N) in the same order, B 1 when the buffer never held more than 2K. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pd_xsort.h"
#include "xrec.h"

int
main(int argc, char **argv)
{
	struct pd_xtop t;
	struct rec *all;
	uint64_t n, i, seed, k;
	size_t kept, want;
	int bounded = 1;

	if (argc != 4)
		return 2;
	n = strtoull(argv[1], NULL, 10);
	seed = strtoull(argv[2], NULL, 10);
	k = strtoull(argv[3], NULL, 10);
	all = calloc(n + 1, sizeof *all);
	if (!all)
		return 5;
	pd_xtop_init(&t, sizeof(struct rec), (size_t)k, cmp);
	for (i = 0; i < n; i++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		all[i].key = (int64_t)(seed >> 33) % 97 - 48;
		all[i].seq = i;
		pd_xtop_add(&t, &all[i]);
		if (t.cap > 2 * k)
			bounded = 0;
	}
	kept = pd_xtop_finish(&t);
	qsort(all, n, sizeof *all, cmp);
	want = n < k ? (size_t)n : (size_t)k;
	printf("kept=%zu same=%d bounded=%d\n", kept, kept == want &&
	    (kept == 0 || memcmp(t.buf, all, kept * sizeof *all) == 0),
	    bounded);
	pd_xtop_free(&t);
	free(all);
	return 0;
}
