/* pyscan-dump: print the logical lines lib/pd_pyscan makes of a file, one
 * per line: "LINE INDENT N STRLEN LOOP TEXT" (LOOP 1 for a for/while
 * header; newlines inside TEXT shown as |).
 *   pyscan-dump FILE */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pd_pyscan.h"

int
main(int argc, char **argv)
{
	struct pd_pylines ls;
	char *buf = NULL;
	size_t len = 0, cap = 0, r, i;
	FILE *f;

	if (argc != 2 || !(f = fopen(argv[1], "rb"))) {
		fprintf(stderr, "usage: pyscan-dump FILE\n");
		return 2;
	}
	do {
		if (cap - len < 4096 && !(buf = realloc(buf, cap += 65536)))
			abort();
		r = fread(buf + len, 1, cap - len, f);
		len += r;
	} while (r > 0);
	fclose(f);
	pd_pyscan_all(buf, len, &ls);
	for (i = 0; i < ls.n; i++) {
		char *p;

		for (p = ls.l[i].s; *p; p++)
			if (*p == '\n')
				*p = '|';
		printf("%ld %d %zu %zu %d %s\n", ls.l[i].line, ls.l[i].indent,
		    ls.l[i].n, strlen(ls.l[i].s),
		    pd_pyscan_loop_header(&ls.l[i]), ls.l[i].s);
	}
	pd_pyscan_free(&ls);
	free(buf);
	return 0;
}
