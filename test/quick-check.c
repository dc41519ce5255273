/* quick-check: pd_rec_quick against jansson, line by line.
 *
 * quick-check [-m] < LINES: for each line (and with -m, for variants of
 * it: cut short at 64 places, and with one byte replaced by each of a set
 * of troublesome ones at 64 places), pd_rec_quick's answer is checked
 * against json_loadb's: where pd_rec_quick says 1, jansson must read one
 * object whose top-level "type" is the string it gave (or, when it gave
 * none, is absent, not a string, or a string it was right not to read).
 * Prints "lines L texts T quick Q wrong W" (T: texts checked, Q: those
 * pd_rec_quick answered itself) and, for the first few wrong ones, the
 * text; exits 1 when W > 0. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "pd_rec.h"

static unsigned long ntext, nquick, nwrong;

static void
check(const char *t, size_t n)
{
	const char *tb, *te;
	int q = pd_rec_quick(t, t + n, &tb, &te);
	json_error_t err;
	json_t *j, *ty;
	int ok;

	ntext++;
	if (!q)
		return;
	nquick++;
	j = json_loadb(t, n, 0, &err);
	ty = json_object_get(j, "type");
	if (!json_is_object(j))
		ok = 0;
	else if (tb)
		ok = json_is_string(ty) && json_string_length(ty) ==
		    (size_t)(te - tb) && memcmp(json_string_value(ty), tb,
		    (size_t)(te - tb)) == 0;
	else
		ok = !json_is_string(ty);
	if (!ok && nwrong++ < 5)
		printf("wrong: %.*s\n", (int)(n > 200 ? 200 : n), t);
	json_decref(j);
}

int
main(int argc, char **argv)
{
	static const char bytes[] = "\"\\{}[],:0-.e+ \t\001\177\200\377a";
	int mutate = argc > 1 && strcmp(argv[1], "-m") == 0;
	char *line = NULL, *v = NULL;
	size_t cap = 0, vcap = 0;
	unsigned long nline = 0;
	ssize_t r;

	while ((r = getline(&line, &cap, stdin)) > 0) {
		size_t n = (size_t)r, k, b;

		nline++;
		check(line, n);
		if (!mutate)
			continue;
		if (vcap < n + 1 && !(v = realloc(v, (vcap = n + 1))))
			return 2;
		for (k = 0; k < 64; k++) {
			size_t at = n * k / 64;

			check(line, at);
			for (b = 0; b < sizeof bytes - 1; b++) {
				memcpy(v, line, n);
				v[at] = bytes[b];
				check(v, n);
			}
		}
	}
	printf("lines %lu texts %lu quick %lu wrong %lu\n", nline, ntext,
	    nquick, nwrong);
	free(line);
	free(v);
	return nwrong > 0;
}
