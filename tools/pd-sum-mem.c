/* pd-sum-mem: memory: peaks, fragmentation, growth, top allocators.
 *
 * Reads: pd.root records (stdin) or dump dirs/traces (operands).
 * Writes: the input unchanged, then one pd.mem per root it understands.
 * Streams: one root at a time; memory bounded by what is aggregated.
 * The per-family work is in tools/pd-sum-mem/. */
#include "pd_tool.h"
#include "pd-sum-mem/sum_mem.h"

int
main(int argc, char **argv)
{
	static const struct pd_reader readers[] = {
		{ "ascend", sum_mem_ascend },
		{ "pytorch", sum_mem_pytorch },
		{ NULL, NULL }
	};
	struct pd_tool t = {
		.name = "pd-sum-mem", .record = "pd.mem",
		.what = "memory: peaks, fragmentation, growth, top allocators",
		.readers = readers,
		.opts = "n"
	};

	return pd_tool_main(&t, argc, argv);
}
