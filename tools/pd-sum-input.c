/* pd-sum-input: input pipeline: data-loading time per step.
 *
 * Reads: pd.root records (stdin) or dump dirs/traces (operands).
 * Writes: the input unchanged, then one pd.input per root it understands.
 * Streams: one root at a time; memory bounded by what is aggregated.
 * The per-family work is in tools/pd-sum-input/. */
#include "pd_tool.h"
#include "pd-sum-input/sum_input.h"

static const char usage[] =
    "usage: pd-sum-input [-q] [-d depth] [-n N] [-p patterns] [-S sharedir] [DIR|FILE|-]...\n"
    "  reads pd.root records on stdin (or locates roots below the operands)\n"
    "  and appends one pd.input record per root (input pipeline: data-loading time per step)\n"
    "  -d depth     directory levels searched below operands (default 8)\n"
    "  -n N         length of top-N lists (default 20)\n"
    "  -p patterns  extra communication kernel patterns file\n"
    "  -q           no warnings\n"
    "  -S sharedir  where the share/ files are\n"
    "  -h           this help\n";

int
main(int argc, char **argv)
{
	struct pd_tool t = { usage, sum_input_ascend, sum_input_pytorch, 0, 0, 0 };

	return pd_tool_main(&t, argc, argv);
}
