/* patterns-check: pd_patterns_match against fnmatch(3), through the
 * memo's churn.
 *
 *   patterns-check [-n NAMES] [-r ROUNDS]
 *
 * Matches NAMES pseudo-random names (fixed seed; lengths 1..700, so some
 * are longer than the memo keeps; made of pieces of the patterns so
 * that each pattern matches some) ROUNDS times over, in a shuffled order
 * each round, then adds a pattern and goes over them once more. Each
 * answer must be 1 + the index of the first pattern that fnmatch(3)
 * (flags 0: the same '*' and '?' and, with no '[' or '\' in patterns or
 * names, nothing else) matches, 0 when none does: an independent
 * implementation of the globs pd_patterns documents. The names' bytes
 * go far past the memo's arena, so its slots are emptied and filled
 * again many times. Prints "checked N, matched M, wrong W" and exits 1
 * when W > 0. */
#include <fnmatch.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pd_patterns.h"

static const char *const globs[] = {
	"nccl*", "*AllReduce*", "*_kernel", "exact_name", "a?c*", "*x?y*z",
	NULL
};
static const char *const late = "*Sendrecv*";
static const char *const pieces[] = {
	"nccl", "AllReduce", "_kernel", "exact_name", "abc", "aXc", "x", "y",
	"z", "Sendrecv", "void ", "at::native::", "<float>", "(", ")", "_",
	"elementwise", "gemm", "a"
};
#define NPIECES (sizeof pieces / sizeof *pieces)

static uint64_t seed = 0x9E3779B97F4A7C15ULL;

static uint64_t
rnd(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return seed;
}

static size_t
expect(const char *const *g, size_t ng, const char *name)
{
	size_t i;

	for (i = 0; i < ng; i++)
		if (fnmatch(g[i], name, 0) == 0)
			return i + 1;
	return 0;
}

int
main(int argc, char **argv)
{
	const char *all[16];
	size_t n = 6000, rounds = 3, ng = 0, i, r, checked = 0, matched = 0;
	size_t wrong = 0, *order;
	char **names;
	struct pd_patterns *p = pd_patterns_new();
	int c;

	while ((c = getopt(argc, argv, "n:r:")) != -1) {
		if (c == 'n')
			n = (size_t)strtoul(optarg, NULL, 10);
		else if (c == 'r')
			rounds = (size_t)strtoul(optarg, NULL, 10);
		else
			return 2;
	}
	if (!p || n == 0)
		return 2;
	for (; globs[ng]; ng++) {
		all[ng] = globs[ng];
		if (pd_patterns_add(p, globs[ng]) < 0)
			return 2;
	}
	names = calloc(n, sizeof *names);
	order = calloc(n, sizeof *order);
	if (!names || !order)
		return 2;
	for (i = 0; i < n; i++) {
		size_t want = 1 + rnd() % (i % 10 == 0 ? 700 : 160), len = 0;
		char *s = malloc(want + 32);

		if (!s)
			return 2;
		while (len < want) {
			const char *q = pieces[rnd() % NPIECES];
			size_t l = strlen(q);

			memcpy(s + len, q, l);
			len += l;
		}
		s[want] = 0;	/* cut inside a piece too */
		names[i] = s;
		order[i] = i;
	}
	for (r = 0; r <= rounds; r++) {
		if (r == rounds) {	/* a new pattern empties the memo */
			all[ng++] = late;
			if (pd_patterns_add(p, late) < 0)
				return 2;
		}
		for (i = n; i > 1; i--) {
			size_t j = rnd() % i, t = order[i - 1];

			order[i - 1] = order[j];
			order[j] = t;
		}
		for (i = 0; i < n; i++) {
			const char *s = names[order[i]];
			size_t got = pd_patterns_match(p, s),
			    want = expect(all, ng, s);

			checked++;
			matched += want != 0;
			if (got != want) {
				if (wrong++ < 5)
					fprintf(stderr, "wrong: %zu, want %zu: "
					    "%.80s\n", got, want, s);
			}
			/* at once again: from the memo */
			if (pd_patterns_match(p, s) != want)
				wrong++;
		}
	}
	printf("checked %zu, matched %zu, wrong %zu\n", checked, matched, wrong);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(order);
	pd_patterns_free(p);
	return wrong != 0;
}
