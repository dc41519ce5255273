/* csv-dump: print what the CSV reader sees, for test/lib.bats:
 *   header: a|b|c
 *   L<line> n=<fields>: f1|f2|...
 * and with -c NAME...: the header index of each name (alternatives
 * separated by '/'). Field bytes are printed as is, except newline -> \n
 * and TAB -> \t so they can be compared on one line. */
#include <stdio.h>
#include <string.h>

#include "pd_csv.h"

static void
show(const char *s)
{
	for (; *s; s++) {
		if (*s == '\n')
			fputs("\\n", stdout);
		else if (*s == '\t')
			fputs("\\t", stdout);
		else if (*s == '\r')
			fputs("\\r", stdout);
		else
			putchar(*s);
	}
}

int
main(int argc, char **argv)
{
	struct pd_csv *c;
	int n, i;

	if (argc < 2) {
		fprintf(stderr, "usage: csv-dump FILE [-c NAME...]\n");
		return 2;
	}
	c = pd_csv_open(argv[1]);
	if (!c) {
		perror(argv[1]);
		return 5;
	}
	n = pd_csv_header(c);
	printf("header(%d):", n);
	for (i = 0; i < pd_csv_ncols(c); i++) {
		putchar(i ? '|' : ' ');
		show(pd_csv_colname(c, i));
	}
	putchar('\n');
	if (argc > 3 && strcmp(argv[2], "-c") == 0) {
		for (i = 3; i < argc; i++) {
			char buf[256], *a, *b, *save;
			snprintf(buf, sizeof buf, "%s", argv[i]);
			a = strtok_r(buf, "/", &save);
			b = strtok_r(NULL, "/", &save);
			printf("%s=%d\n", argv[i], pd_csv_col(c, a, b, NULL));
		}
		pd_csv_close(c);
		return 0;
	}
	while ((n = pd_csv_next(c)) != 0) {
		printf("L%ld n=%d%s:", pd_csv_line(c), pd_csv_nfields(c),
		    n == -2 ? " (unterminated quote)" : "");
		for (i = 0; i < pd_csv_nfields(c); i++) {
			putchar(i ? '|' : ' ');
			show(pd_csv_field(c, i));
		}
		putchar('\n');
		if (n < 0)
			break;
	}
	pd_csv_close(c);
	return 0;
}
