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
	static const struct pd_reader readers[] = {
		{ "ascend", sum_step_ascend },
		{ "pytorch", sum_step_pytorch },
		{ NULL, NULL }
	};
	struct pd_tool t = {
		.name = "pd-sum-step", .record = "pd.step",
		.what = "per-rank step breakdown",
		.readers = readers,
		.opts = "pS"
	};

	return pd_tool_main(&t, argc, argv);
}
