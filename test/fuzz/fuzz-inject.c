/* libFuzzer target for pd-inject's planning (make fuzz): finding the step
 * loop and the prologue's place in any source (tools/pd-inject/loop.c),
 * and the Python literal of its iterable (text.c). The offsets of a plan
 * must lie in the input. */
#include "fuzz.h"
#include "pd-inject/inject.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct inj_plan p;
	char *s;

	memset(&p, 0, sizeof p);
	if (inj_plan((const char *)data, size, &p) == 0) {
		if (p.iter_beg > p.iter_end || p.iter_end > size ||
		    p.prologue_off > size)
			abort();
		if (p.iterable) {
			s = inj_pystr(p.iterable);
			free(s);
		}
	}
	inj_plan_free(&p);
	s = fuzz_str(data, size);
	free(inj_pystr(s));
	free(s);
	return 0;
}
