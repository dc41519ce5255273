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
	static const struct pd_reader readers[] = {
		{ "ascend", sum_gaps_ascend },
		{ "pytorch", sum_gaps_pytorch },
		{ NULL, NULL }
	};
	struct pd_tool t = {
		.name = "pd-sum-gaps", .record = "pd.gaps",
		.what = "device idle gaps and host-bound evidence",
		.readers = readers,
		.opts = "np"
	};

	return pd_tool_main(&t, argc, argv);
}
