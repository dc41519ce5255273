/* runs-check: hold the records read from stdin (JSON Lines) in a pd_runs
 * with packed arrays, the way the reduce tools do, then print what is
 * held and which values are shared.
 *
 * For each record read it prints "add TYPE" with the type read from the
 * record after pd_runs_add (a borrowed string that must stay valid until
 * the next add). After pd_runs_group, for each run and each view (sorted
 * by key) and each record type in it (sorted): "KEY TYPE TEXT", TEXT the
 * held record with its packed arrays unpacked, compact, keys sorted.
 * Last, "shared KEY: S of N", for each top-level key that holds a string
 * or a number in some held record: N the records holding it there, S how
 * many of them hold the very same value (one json_t) as the first one,
 * so S == N where the values are shared and S == 1 where they are not. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "pd_runs.h"

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static const char **
keys_of(json_t *o, size_t *n)
{
	const char **k = malloc((json_object_size(o) + 1) * sizeof *k);
	const char *key;
	json_t *v;
	size_t i = 0;

	json_object_foreach(o, key, v)
		k[i++] = key;
	qsort(k, i, sizeof *k, cmp_str);
	*n = i;
	return k;
}

int
main(void)
{
	struct pd_runs *r = pd_runs_new();
	json_t *firsts = json_object(), *counts = json_object();
	char line[1 << 16];
	size_t i, j, t, nv, nt, nk;

	pd_runs_pack(r, 1);
	while (fgets(line, sizeof line, stdin)) {
		json_error_t e;
		json_t *rec = json_loads(line, JSON_DECODE_ANY |
		    JSON_ALLOW_NUL, &e);
		const char *type;

		if (!json_is_object(rec)) {
			fprintf(stderr, "runs-check: %s\n", e.text);
			json_decref(rec);
			return 2;
		}
		pd_runs_add(r, rec);
		type = json_string_value(json_object_get(rec, "type"));
		printf("add %s\n", type ? type : "-");
		json_decref(rec);	/* held by r now, or gone */
	}
	for (i = pd_runs_group(r); i-- > 0;) {
		struct pd_run *u = pd_runs_get(r, i);
		const char **views = keys_of(u->views, &nv);

		for (j = 0; j < nv; j++) {
			json_t *v = json_object_get(u->views, views[j]);
			const char **types = keys_of(v, &nt);

			for (t = 0; t < nt; t++) {
				json_t *rec = json_object_get(v, types[t]);
				json_t *o = pd_runs_unpacked(rec);
				char *s = json_dumps(o, JSON_COMPACT |
				    JSON_SORT_KEYS | JSON_ENCODE_ANY |
				    JSON_REAL_PRECISION(17));
				const char **ks = keys_of(rec, &nk);
				size_t k;

				printf("%s %s %s\n", views[j], types[t], s);
				for (k = 0; k < nk; k++) {
					json_t *x = json_object_get(rec, ks[k]);
					json_t *f = json_object_get(firsts,
					    ks[k]);
					json_t *c;

					if (!json_is_string(x) &&
					    !json_is_number(x))
						continue;
					if (!f) {
						/* the first holder's value */
						json_object_set_new(firsts,
						    ks[k], json_pack("{s:I,s:I}",
						    "p", (json_int_t)(size_t)x,
						    "n", (json_int_t)0));
						f = json_object_get(firsts,
						    ks[k]);
						json_object_set_new(counts,
						    ks[k], json_integer(0));
					}
					c = json_object_get(f, "n");
					json_integer_set(c, json_integer_value(c) +
					    1);
					if (json_integer_value(json_object_get(f,
					    "p")) == (json_int_t)(size_t)x) {
						c = json_object_get(counts,
						    ks[k]);
						json_integer_set(c,
						    json_integer_value(c) + 1);
					}
				}
				free(ks);
				free(s);
				json_decref(o);
			}
			free(types);
		}
		free(views);
	}
	{
		const char **ks = keys_of(firsts, &nk);

		for (i = 0; i < nk; i++)
			printf("shared %s: %lld of %lld\n", ks[i],
			    (long long)json_integer_value(json_object_get(
			    counts, ks[i])), (long long)json_integer_value(
			    json_object_get(json_object_get(firsts, ks[i]),
			    "n")));
		free(ks);
	}
	json_decref(firsts);
	json_decref(counts);
	pd_runs_free(r);
	return 0;
}
