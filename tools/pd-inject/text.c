/* Building the prologue: Python string literals and templates from
 * share/inject/ with @NAME@ placeholders. */
#include "pd-inject/inject.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *
inj_pystr(const char *s)
{
	char *o = malloc(4 * strlen(s) + 3), *p = o;

	if (!o)
		abort();
	*p++ = '"';
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			*p++ = '\\';
			*p++ = (char)c;
		} else if (c < 0x20 || c == 0x7f)
			p += sprintf(p, "\\x%02x", c);
		else
			*p++ = (char)c;
	}
	*p++ = '"';
	*p = '\0';
	return o;
}

static char *
slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *b = NULL;
	size_t n = 0, cap = 0, r;

	if (!f)
		return NULL;
	do {
		if (cap - n < 4096) {
			cap = cap ? 2 * cap : 8192;
			if (!(b = realloc(b, cap + 1)))
				abort();
		}
		r = fread(b + n, 1, cap - n, f);
		n += r;
	} while (r > 0);
	if (ferror(f)) {
		fclose(f);
		free(b);
		return NULL;
	}
	fclose(f);
	b[n] = '\0';
	return b;
}

char *
inj_template(const char *path, const char **names, const char **values)
{
	char *t = slurp(path), *o = NULL, *p;
	size_t n = 0, i;
	FILE *m;

	if (!t)
		return NULL;
	if (!(m = open_memstream(&o, &n)))
		abort();
	for (p = t; *p;) {
		for (i = 0; names[i]; i++)
			if (strncmp(p, names[i], strlen(names[i])) == 0)
				break;
		if (names[i]) {
			fputs(values[i], m);
			p += strlen(names[i]);
		} else
			fputc(*p++, m);
	}
	if (fclose(m) != 0)
		abort();
	free(t);
	return o;
}
