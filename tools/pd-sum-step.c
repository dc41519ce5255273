/* pd-sum-step: per-rank step breakdown.
 *
 * Reads: pd.root records (stdin) or dump dirs/traces (operands).
 * Writes: the input unchanged, then one pd.step per root it understands.
 * Streams: one root at a time; memory bounded by what is aggregated.
 * The per-family work is in tools/pd-sum-step/. */
#include "pd_tool.h"
#include "pd-sum-step/sum_step.h"

int
main(int argc, char **argv)
{
	struct pd_tool t = { "pd-sum-step", "pd.step", "per-rank step breakdown",
	    sum_step_ascend, sum_step_pytorch, 0, 0, 0 };

	return pd_tool_main(&t, argc, argv);
}
