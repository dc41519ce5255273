/* rcache-form: write, as C, the compiled form of a source the project
 * ships, for a program to carry (pd_rcache.h, pd_rcache_builtins).
 *
 *   rcache-form KIND=SOURCE... >builtin.c
 *
 * KIND is the kind of form (rules: a rules file, pd_rules_compile). The
 * source's bytes go in with the form made from exactly those bytes (read
 * once here), so that a program uses the form only for a file that holds
 * them. Run at build time by the Makefile; exit 1 when a source cannot be
 * read or compiled (its problems said as the tools say them). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pd_diag.h"
#include "pd_rules.h"
#include "pd_smi.h"

static void
bytes(const char *name, int i, const unsigned char *p, size_t n)
{
	size_t k;

	printf("static const unsigned char %s%d[] = {", name, i);
	for (k = 0; k < n; k++)
		printf("%s%u,", k % 24 ? "" : "\n", p[k]);
	printf("\n0 };\n");	/* never empty; not counted in the length */
}

int
main(int argc, char **argv)
{
	unsigned char **src;
	void **form;
	size_t *srclen, *flen;
	int i, n = argc - 1, rc = 0;

	pd_diag_init("rcache-form");
	if (n < 1) {
		fprintf(stderr, "usage: rcache-form KIND=SOURCE... >file.c\n");
		return 2;
	}
	src = pd_xcalloc((size_t)n, sizeof *src);
	form = pd_xcalloc((size_t)n, sizeof *form);
	srclen = pd_xcalloc((size_t)n, sizeof *srclen);
	flen = pd_xcalloc((size_t)n, sizeof *flen);
	/* every source compiled before a byte is written */
	for (i = 0; i < n && !rc; i++) {
		const char *a = argv[i + 1], *eq = strchr(a, '=');

		if (!eq || eq - a != 5 || strncmp(a, "rules", 5)) {
			fprintf(stderr, "rcache-form: %s: not rules=FILE\n", a);
			rc = 2;
		} else if (!(src[i] = (unsigned char *)pd_smi_slurp(eq + 1,
		    &srclen[i]))) {
			fprintf(stderr, "rcache-form: %s: %s\n", eq + 1,
			    strerror(errno));
			rc = 1;
		} else if (pd_rules_compile(eq + 1, src[i], srclen[i],
		    &form[i], &flen[i]) != 0) {
			rc = 1;
		}
	}
	if (!rc) {
		printf("/* Made by build-aux/rcache-form at build time: do not "
		    "edit. */\n#include \"pd_rcache.h\"\n\n");
		for (i = 0; i < n; i++) {
			bytes("src", i + 1, src[i], srclen[i]);
			bytes("form", i + 1, form[i], flen[i]);
		}
		printf("\nconst struct pd_rcache_builtin pd_rcache_builtins[] "
		    "= {\n");
		for (i = 1; i <= n; i++)
			printf("\t{ \"rules\", src%d, form%d, sizeof src%d - 1, "
			    "sizeof form%d - 1 },\n", i, i, i, i);
		printf("\t{ 0, 0, 0, 0, 0 }\n};\n");
		if (fflush(stdout) != 0 || ferror(stdout))
			rc = 1;
	}
	for (i = 0; i < n; i++) {
		free(src[i]);
		free(form[i]);
	}
	free(src);
	free(form);
	free(srclen);
	free(flen);
	return rc;
}
