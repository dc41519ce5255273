/* libFuzzer target for pd_jscan (make fuzz): members of the top object,
 * then of every member that is an object itself, two levels down, as the
 * summary readers descend; every range handed out must lie in the input. */
#include "fuzz.h"
#include "pd_jscan.h"

struct ctx {
	const char *b, *e;
	int depth;
};

static int
member(const char *key, const char *vb, const char *ve, int cut, void *p)
{
	struct ctx *c = p, sub;
	const char *where;

	(void)cut;
	if (!key || vb < c->b || ve > c->e || vb > ve)
		abort();
	pd_jscan_line(c->b, vb);
	if (c->depth < 2 && vb < ve && *vb == '{') {
		sub = *c;
		sub.depth++;
		pd_jscan_members(vb, ve, member, &sub, &where);
	}
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *b = (const char *)data, *where = NULL;
	struct ctx c = { b, b + size, 0 };

	if (pd_jscan_members(b, b + size, member, &c, &where) == PD_JSCAN_CUT &&
	    where && (where < b || where > b + size))
		abort();
	return 0;
}
