/* Building the prologue: Python string literals and templates from
 * share/inject/ with @NAME@ placeholders. */
#include "pd-inject/inject.h"
#include "pd_diag.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pd_rec.h"

/* ASCII only, whatever the script's encoding: other code points as \u or
 * \U escapes, and a byte that is not UTF-8 as the lone surrogate U+DC00 +
 * byte, which Python's file system encoding (surrogateescape) turns back
 * into that byte when the string is used as a path. */
char *
inj_pystr(const char *s)
{
	size_t n = strlen(s), k;
	char *o = malloc(10 * n + 3), *p = o;

	if (!o)
		pd_oom();
	*p++ = '"';
	while (*s) {
		const unsigned char *u = (const unsigned char *)s;
		unsigned long cp;

		k = pd_utf8_seq(s, n);
		if (k == 1 && (*u == '"' || *u == '\\')) {
			*p++ = '\\';
			*p++ = (char)*u;
		} else if (k == 1 && *u >= 0x20 && *u < 0x7f) {
			*p++ = (char)*u;
		} else if (k == 1) {
			p += sprintf(p, "\\x%02x", *u);
		} else if (k == 0) {
			p += sprintf(p, "\\udc%02x", *u);
			k = 1;
		} else {
			cp = k == 2 ? (u[0] & 0x1Fu) : k == 3 ? (u[0] & 0x0Fu) :
			    (u[0] & 0x07u);
			for (size_t i = 1; i < k; i++)
				cp = cp << 6 | (u[i] & 0x3Fu);
			p += sprintf(p, cp < 0x10000 ? "\\u%04lx" :
			    "\\U%08lx", cp);
		}
		s += k;
		n -= k;
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
				pd_oom();
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
		pd_oom();
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
		pd_oom();
	free(t);
	return o;
}
