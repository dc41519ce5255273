/* libFuzzer target for the small languages of the rules and pattern files
 * (make fuzz). The input's first line is a record path (pd_path_check,
 * pd_path_get, pd_path_num), a glob (pd_glob_match against the rest and
 * against itself; a pattern list's shortcuts must give the same answer)
 * and an evidence template (pd_rules_render); the rest, when it is JSON,
 * is the record they read (else a small fixed one). The whole input is
 * also a patterns file (pd_patterns_load): each pattern matches itself. */
#include "fuzz.h"
#include "pd_path.h"
#include "pd_patterns.h"
#include "pd_rules.h"

static const char rec[] = "{\"shares\":{\"free_ratio\":0.25},\"top\":"
    "[{\"name\":\"nccl\",\"v\":1},{\"name\":\"gemm\",\"v\":2.5}],"
    "\"transports\":[{\"transport\":\"RDMA\",\"bytes\":1e9}],\"s\":null}";

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size), *rest, *r;
	const char *why, *path = fuzz_path(data, size);
	struct pd_patterns *pats = pd_patterns_new(), *one = pd_patterns_new();
	json_t *o;
	size_t i;

	if ((rest = memchr(s, '\n', size)))
		*rest++ = '\0';
	else
		rest = s + size;
	if (!(o = json_loads(rest, JSON_DECODE_ANY, NULL)))
		o = json_loads(rec, 0, NULL);
	pd_path_check(s, &why);
	pd_path_get(o, s);
	pd_path_num(o, s);
	/* the list's shortcuts (prefix, contains) agree with the matcher */
	pd_patterns_add(one, s);
	if (!pd_patterns_match(one, rest) != !pd_glob_match(s, rest))
		abort();
	pd_patterns_free(one);
	pd_glob_match(s, s);
	if ((r = pd_rules_render(s, o)))
		free(r);
	if (pd_patterns_load(pats, path) == 0) {
		pd_patterns_match(pats, s);
		for (i = 0; i < pd_patterns_count(pats); i++)
			if (!pd_glob_match(pd_patterns_get(pats, i),
			    pd_patterns_get(pats, i)))
				abort();
	}
	pd_patterns_free(pats);
	json_decref(o);
	free(s);
	return 0;
}
