/* pd-hotspots: top operators and kernels.
 *
 * Reads: pd.root records (stdin) or dump dirs/traces (operands).
 * Writes: the input unchanged, then one pd.hotspot per root it understands.
 * Streams: one root at a time; memory bounded by what is aggregated.
 * The per-family work is in tools/pd-hotspots/. */
#include "pd_tool.h"
#include "pd-hotspots/hotspots.h"

int
main(int argc, char **argv)
{
	static const struct pd_reader readers[] = {
		{ "ascend", hotspots_ascend },
		{ "pytorch", hotspots_pytorch },
		{ NULL, NULL }
	};
	struct pd_tool t = {
		.name = "pd-hotspots", .record = "pd.hotspot",
		.what = "top operators and kernels",
		.readers = readers,
		.opts = "npS"
	};

	return pd_tool_main(&t, argc, argv);
}
