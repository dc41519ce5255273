/* diag-check: the diagnostics module on text read from stdin, for
 * test/lib.bats:
 *   diag-check quote   prints pd_diag_quote() of the text on stdout
 *   diag-check warn    warns with the text as the whole message, raw
 *                      (what a caller that forgets pd_diag_quote() does) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pd_diag.h"

int
main(int argc, char **argv)
{
	char *buf = NULL;
	size_t n = 0, cap = 0, k;

	pd_diag_init(argv[0]);
	if (argc != 2 || (strcmp(argv[1], "quote") && strcmp(argv[1], "warn"))) {
		fprintf(stderr, "usage: diag-check quote|warn <TEXT\n");
		return 2;
	}
	do {
		if (n + 4096 + 1 > cap) {
			cap = 2 * cap + 8192;
			if (!(buf = realloc(buf, cap)))
				return 5;
		}
		k = fread(buf + n, 1, 4096, stdin);
		n += k;
	} while (k > 0);
	buf[n] = '\0';
	if (strcmp(argv[1], "quote") == 0)
		printf("%s\n", pd_diag_quote(buf, n));
	else
		pd_warn(NULL, 0, "%s", buf);
	free(buf);
	return pd_diag_finish();
}
