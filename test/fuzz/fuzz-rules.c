/* libFuzzer target for the YAML readers (make fuzz): the input as a rules
 * file (pd_rules_load, then pd_rules_check, rendering each rule's evidence
 * and reading its values on a small record) and as a YAML document
 * (pd_yamlio_load). */
#include "fuzz.h"
#include "pd_rules.h"
#include "pd_yamlio.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_path(data, size);
	struct pd_rules r = { 0 };
	json_t *o;
	char *s;
	size_t i;
	int ck;

	json_decref(pd_yamlio_load(path));
	pd_rules_load(&r, path);
	pd_rules_check(&r);
	o = json_loads("{\"step\":{\"time_ms\":12.5,\"n\":3},\"comm\":"
	    "{\"ratio\":0.4,\"top\":[{\"name\":\"x\",\"v\":1}]},"
	    "\"profile\":{\"stack\":{\"framework\":\"torch\"}}}", 0, NULL);
	for (i = 0; i < r.n; i++) {
		s = pd_rules_render(r.v[i].evidence ? r.v[i].evidence : "", o);
		free(s);
		json_decref(pd_rules_values(&r.v[i], o));
		if (r.v[i].nwhen) {
			pd_rules_test(&r.v[i].when[0], o, &ck);
			pd_rules_margin(&r.v[i].when[0], o);
		}
		pd_rules_variant(&r.v[i], json_object_get(
		    json_object_get(o, "profile"), "stack"), o);
	}
	json_decref(o);
	pd_rules_free(&r);
	return 0;
}
