/* xsort-check N SEED [own]: sort N pseudo-random records (a key with many
 * repeats, a sequence number) with pd_xsort and check what comes back:
 * prints "n=N runs=R sorted=S sum=K" (R: the runs merged at the end),
 * S 1 when every record came back once, in (key, seq) order; K the sum of the keys read (to compare with
 * the one of the keys written, printed first as "in=K"). Exit 0 unless
 * the sorter reported an I/O error (then 5, and the error). With "own",
 * runs are sorted by an insertion sort given with pd_xsort_set_sort
 * instead of qsort, and "own=C" says how many runs it sorted. "asc" and
 * "mix" sort with it too, but the keys are not pseudo-random: with
 * "asc" they come in order (i / 3: runs already sorted are left as they
 * are, own=0); with "mix", the records of every other run of 10 (the
 * odd ones: PD_SORT_MEM=160) come in reverse order (key -i), the others
 * in order. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pd_xsort.h"
#include "xrec.h"

static size_t nown;

/* the run sorter of "own": insertion sort in cmp's order */
static void
own_sort(void *buf, size_t n)
{
	struct rec *v = buf, t;
	size_t i, j;

	for (i = 1; i < n; i++) {
		t = v[i];
		for (j = i; j > 0 && cmp(&v[j - 1], &t) > 0; j--)
			v[j] = v[j - 1];
		v[j] = t;
	}
	nown++;
}

int
main(int argc, char **argv)
{
	struct pd_xsort x;
	const struct rec *r;
	struct rec prev;
	uint64_t n, i, seed, got = 0;
	int64_t in = 0, out = 0;
	int sorted = 1;
	unsigned char *seen;

	if (argc != 3 && (argc != 4 || (strcmp(argv[3], "own") &&
	    strcmp(argv[3], "asc") && strcmp(argv[3], "mix"))))
		return 2;
	n = strtoull(argv[1], NULL, 10);
	seed = strtoull(argv[2], NULL, 10);
	seen = calloc(n + 1, 1);
	pd_xsort_init(&x, sizeof(struct rec), cmp);
	if (argc == 4)
		pd_xsort_set_sort(&x, own_sort);
	for (i = 0; i < n; i++) {
		struct rec *s = pd_xsort_slot(&x);
		if (!s)
			break;
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		s->key = (int64_t)(seed >> 33) % 97 - 48;
		if (argc == 4 && strcmp(argv[3], "asc") == 0)
			s->key = (int64_t)(i / 3);
		else if (argc == 4 && strcmp(argv[3], "mix") == 0)
			s->key = i / 10 % 2 ? -(int64_t)i : (int64_t)(i / 3);
		s->seq = i;
		in += s->key;
	}
	if (pd_xsort_finish(&x) == 0) {
		for (; (r = pd_xsort_peek(&x)); pd_xsort_next(&x)) {
			if ((got && cmp(&prev, r) >= 0) || r->seq >= n ||
			    seen[r->seq])
				sorted = 0;
			else
				seen[r->seq] = 1;
			prev = *r;
			out += r->key;
			got++;
		}
	}
	if (x.err) {
		fprintf(stderr, "xsort-check: %s\n", strerror(x.err));
		pd_xsort_free(&x);
		free(seen);
		return 5;
	}
	printf("in=%" PRId64 "\n", in);
	printf("n=%" PRIu64 " runs=%zu sorted=%d sum=%" PRId64 "\n", got,
	    x.nruns, sorted && got == n, out);
	if (argc == 4)
		printf("own=%zu\n", nown);
	pd_xsort_free(&x);
	free(seen);
	return 0;
}
