/* pd-sum-comm: communication: collectives, transports, links.
 *
 * Reads: pd.root records (stdin) or dump dirs/traces (operands).
 * Writes: the input unchanged, then one pd.comm per root it understands.
 * Streams: one root at a time; memory bounded by what is aggregated.
 * The per-family work is in tools/pd-sum-comm/. */
#include "pd_tool.h"
#include "pd-sum-comm/sum_comm.h"

int
main(int argc, char **argv)
{
	static const struct pd_reader readers[] = {
		{ "ascend", sum_comm_ascend },
		{ "pytorch", sum_comm_pytorch },
		{ NULL, NULL }
	};
	struct pd_tool t = {
		.name = "pd-sum-comm", .record = "pd.comm",
		.what = "communication: collectives, transports, links",
		.readers = readers,
		.opts = "npS"
	};

	return pd_tool_main(&t, argc, argv);
}
