/* libFuzzer target for the small languages of the rules and pattern files
 * (make fuzz): the input's first line as a record path (pd_path_check,
 * pd_path_get, pd_path_num), as a glob (pd_glob_match against the rest and
 * against itself) and as an evidence template (pd_rules_render); the rest,
 * when it is JSON, is the record they read (else a small fixed one). */
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
	const char *why;
	json_t *o;

	if ((rest = memchr(s, '\n', size)))
		*rest++ = '\0';
	else
		rest = s + size;
	if (!(o = json_loads(rest, JSON_DECODE_ANY, NULL)))
		o = json_loads(rec, 0, NULL);
	pd_path_check(s, &why);
	pd_path_get(o, s);
	pd_path_num(o, s);
	pd_glob_match(s, rest);
	pd_glob_match(s, s);
	if ((r = pd_rules_render(s, o)))
		free(r);
	json_decref(o);
	free(s);
	return 0;
}
