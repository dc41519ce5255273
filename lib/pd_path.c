#include "pd_path.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int
elem_matches(json_t *e, const char *key, size_t klen, char op,
    const char *val, size_t vlen)
{
	char k[128], v[256], num[64];
	json_t *x;

	if (klen >= sizeof k || vlen >= sizeof v)
		return 0;
	memcpy(k, key, klen);
	k[klen] = '\0';
	memcpy(v, val, vlen);
	v[vlen] = '\0';
	x = json_object_get(e, k);
	if (json_is_string(x))
		return op == '=' ? strcmp(json_string_value(x), v) == 0 :
		    strstr(json_string_value(x), v) != NULL;
	if (op == '=' && json_is_integer(x)) {
		snprintf(num, sizeof num, "%lld", (long long)json_integer_value(x));
		return strcmp(num, v) == 0;
	}
	if (op == '=' && json_is_real(x))
		return json_real_value(x) == strtod(v, NULL);
	if (op == '=' && json_is_boolean(x))
		return strcmp(v, json_is_true(x) ? "true" : "false") == 0;
	return 0;
}

/* Apply one selector "[...]" (p points after '['; len excludes ']'). */
static json_t *
select_one(json_t *cur, const char *p, size_t len)
{
	const char *op;
	size_t i;

	if (!json_is_array(cur))
		return NULL;
	op = memchr(p, '=', len);
	if (!op)
		op = memchr(p, '~', len);
	if (!op) {
		char buf[32];

		if (len == 0 || len >= sizeof buf)
			return NULL;
		memcpy(buf, p, len);
		buf[len] = '\0';
		return json_array_get(cur, (size_t)strtoul(buf, NULL, 10));
	}
	for (i = 0; i < json_array_size(cur); i++) {
		json_t *e = json_array_get(cur, i);

		if (elem_matches(e, p, (size_t)(op - p), *op, op + 1,
		    len - (size_t)(op - p) - 1))
			return e;
	}
	return NULL;
}

json_t *
pd_path_get(json_t *o, const char *path)
{
	json_t *cur = o;
	const char *p = path;
	char key[128];

	while (cur && *p) {
		size_t n = strcspn(p, ".[");

		if (n) {
			if (n >= sizeof key)
				return NULL;
			memcpy(key, p, n);
			key[n] = '\0';
			cur = json_object_get(cur, key);
			p += n;
		}
		while (cur && *p == '[') {
			const char *end = strchr(p, ']');

			if (!end)
				return NULL;
			cur = select_one(cur, p + 1, (size_t)(end - p - 1));
			p = end + 1;
		}
		if (*p == '.')
			p++;
	}
	return cur;
}

double
pd_path_num(json_t *o, const char *path)
{
	json_t *v = pd_path_get(o, path);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

int
pd_path_check(const char *path, const char **why)
{
	const char *p = path;

	if (!*p) {
		*why = "empty path";
		return 0;
	}
	while (*p) {
		size_t n = strcspn(p, ".[]");

		if (n == 0 && *p != '[') {
			*why = "empty segment";
			return 0;
		}
		p += n;
		while (*p == '[') {
			const char *end = strchr(p, ']');

			if (!end) {
				*why = "unclosed '['";
				return 0;
			}
			if (end == p + 1) {
				*why = "empty selector";
				return 0;
			}
			p = end + 1;
		}
		if (*p == ']') {
			*why = "unexpected ']'";
			return 0;
		}
		if (*p == '.') {
			p++;
			if (!*p) {
				*why = "path ends with '.'";
				return 0;
			}
		} else if (*p && *p != '[') {
			*why = "expected '.' or '['";
			return 0;
		}
	}
	return 1;
}
