/* libFuzzer target for pd_recfile (make fuzz): records read from a FILE *
 * (fmemopen), each record through the lookups the reduce tools use. */
#include "fuzz.h"
#include "pd_recfile.h"

static int
rec(json_t *r, void *ctx)
{
	(void)ctx;
	pd_rec_is(r, "pd.root");
	pd_rec_str(r, "type");
	pd_rec_int(r, "rank", -1);
	pd_rec_num(r, "v", 0);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pd_stream s = { 0 };
	FILE *f;

	if (size == 0)
		return 0;
	if (!(f = fmemopen((void *)data, size, "r")))
		return 0;
	s.on_record = rec;
	s.no_passthrough = 1;
	pd_recfile_readf(&s, f, "fuzz");
	fclose(f);
	return 0;
}
