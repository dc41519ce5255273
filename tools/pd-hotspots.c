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
	struct pd_tool t = { "pd-hotspots", "pd.hotspot", "top operators and kernels",
	    hotspots_ascend, hotspots_pytorch, 0, 0, 0 };

	return pd_tool_main(&t, argc, argv);
}
