/* noise-check: lib's noise rule on two lists of values.
 * noise-check REL ABS "b1 b2 ..." "a1 a2 ..." prints
 * "spread S floor F noise N verdict V samples K" (verdict with lower
 * better; samples per side from pd_noise_samples, -1 when none). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pd_stats.h"

static void
parse(const char *text, struct pd_vec *v)
{
	char *s = strdup(text), *save = NULL, *w;

	for (w = strtok_r(s, " ", &save); w; w = strtok_r(NULL, " ", &save))
		pd_vec_push(v, strtod(w, NULL));
	free(s);
}

int
main(int argc, char **argv)
{
	struct pd_vec vb = { 0, 0, 0 }, va = { 0, 0, 0 };
	struct pd_summary b, a;
	struct pd_noise nz;
	const char *v;

	if (argc != 5)
		return 2;
	parse(argv[3], &vb);
	parse(argv[4], &va);
	pd_stats(&vb, &b);
	pd_stats(&va, &a);
	pd_noise_rule(&b, &a, strtod(argv[1], NULL), strtod(argv[2], NULL),
	    &nz);
	v = pd_noise_verdict(a.mean - b.mean, &nz, 1);
	printf("spread %.4f floor %.4f noise %.4f verdict %s samples %ld\n",
	    nz.spread, nz.floor, nz.noise, v ? v : "null",
	    pd_noise_samples(b.stdev, a.stdev, a.mean - b.mean));
	pd_vec_free(&vb);
	pd_vec_free(&va);
	return 0;
}
