/* msort-check N SEED: sorts N pseudo-random elements with PD_MSORT and
 * compares the order with two others: for a comparison that is not
 * transitive (rock-paper-scissors on v % 3, then seq), with a plain merge
 * sort written below as glibc's qsort merges (n / 2 and the rest, sorted,
 * then merged taking from the first half while cmp <= 0; glibc 2.36's
 * msort.c, Debian bookworm's); for a total order (v, then seq) with
 * qsort, on random input and on input in order but for every tenth
 * element. Prints "cyclic=S total=S sorted=S cmps=K": S 1 when the two
 * orders are the same element for element; K the comparisons PD_MSORT
 * made on input already in order (with total set: n - 1, one a merge). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pd_msort.h"

struct el {
	int64_t v;
	uint32_t seq;
};

static unsigned long ncmp;

static int
cyc_cmp(const void *x, const void *y)
{
	const struct el *a = x, *b = y;
	int d = (int)(((a->v - b->v) % 3 + 3) % 3);

	if (d)
		return d == 1 ? 1 : -1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

static int
tot_cmp(const void *x, const void *y)
{
	const struct el *a = x, *b = y;

	ncmp++;
	if (a->v != b->v)
		return a->v < b->v ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

#define CYC_LE(a, b) (cyc_cmp((a), (b)) <= 0)
#define TOT_LE(a, b) (tot_cmp((a), (b)) <= 0)
PD_MSORT(sort_cyc, struct el, CYC_LE, 0)
PD_MSORT(sort_tot, struct el, TOT_LE, 1)

/* the reference: a merge sort through a comparison function */
static void
ref_rec(struct el *b, size_t n, struct el *t, int (*cmp)(const void *,
    const void *))
{
	size_t n1 = n / 2, n2 = n - n1, k = 0;
	struct el *b1 = b, *b2 = b + n1;

	if (n < 2)
		return;
	ref_rec(b1, n1, t, cmp);
	ref_rec(b2, n2, t, cmp);
	while (n1 > 0 && n2 > 0) {
		if (cmp(b1, b2) <= 0)
			t[k++] = *b1++, n1--;
		else
			t[k++] = *b2++, n2--;
	}
	memcpy(t + k, b1, n1 * sizeof *b1);
	memcpy(b, t, (n - n2) * sizeof *b);
}

static uint64_t state;

static uint64_t
rnd(void)
{
	state = state * 6364136223846793005ULL + 1442695040888963407ULL;
	return state >> 33;
}

int
main(int argc, char **argv)
{
	size_t n, i;
	struct el *a, *b, *t;
	int cyc, tot, srt;

	if (argc != 3) {
		fprintf(stderr, "usage: msort-check N SEED\n");
		return 2;
	}
	n = strtoul(argv[1], NULL, 10);
	state = strtoull(argv[2], NULL, 10);
	a = malloc((n + 1) * sizeof *a);
	b = malloc((n + 1) * sizeof *b);
	t = malloc((n + 1) * sizeof *t);
	if (!a || !b || !t)
		return 1;
	for (i = 0; i < n; i++)
		a[i] = (struct el){ (int64_t)(rnd() % 50), (uint32_t)i };
	memcpy(b, a, n * sizeof *a);
	sort_cyc(a, n);
	ref_rec(b, n, t, cyc_cmp);
	cyc = memcmp(a, b, n * sizeof *a) == 0;
	for (i = 0; i < n; i++)
		a[i] = (struct el){ (int64_t)(rnd() % 50), (uint32_t)i };
	memcpy(b, a, n * sizeof *a);
	sort_tot(a, n);
	qsort(b, n, sizeof *b, tot_cmp);
	tot = memcmp(a, b, n * sizeof *a) == 0;
	for (i = 0; i < n; i++)	/* in order, every tenth out of it */
		a[i] = (struct el){ i % 10 ? (int64_t)i : (int64_t)(rnd() % 1000),
		    (uint32_t)i };
	memcpy(b, a, n * sizeof *a);
	sort_tot(a, n);
	qsort(b, n, sizeof *b, tot_cmp);
	srt = memcmp(a, b, n * sizeof *a) == 0;
	for (i = 0; i < n; i++)
		a[i] = (struct el){ (int64_t)i, (uint32_t)i };
	ncmp = 0;
	sort_tot(a, n);
	printf("cyclic=%d total=%d sorted=%d cmps=%lu\n", cyc, tot, srt, ncmp);
	free(a);
	free(b);
	free(t);
	return 0;
}
