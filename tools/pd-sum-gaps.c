/* pd-sum-gaps: device idle gaps and host-bound evidence.
 *
 * Reads: pd.root records (stdin) or dump dirs/traces (operands).
 * Writes: the input unchanged, then one pd.gaps per root it understands.
 * Streams: one root at a time; memory bounded by what is aggregated.
 * The per-family work is in tools/pd-sum-gaps/. */
#include "pd_tool.h"
#include "pd-sum-gaps/sum_gaps.h"

int
main(int argc, char **argv)
{
	struct pd_tool t = { "pd-sum-gaps", "pd.gaps", "device idle gaps and host-bound evidence",
	    sum_gaps_ascend, sum_gaps_pytorch, 0, 0, 0 };

	return pd_tool_main(&t, argc, argv);
}
