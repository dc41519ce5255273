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
	struct pd_tool t = { "pd-sum-mem", "pd.mem", "memory: peaks, fragmentation, growth, top allocators",
	    sum_mem_ascend, sum_mem_pytorch, 0, 0, 0 };

	return pd_tool_main(&t, argc, argv);
}
