/* pd-sum-input: input pipeline: data-loading time per step.
 *
 * Reads: pd.root records (stdin) or dump dirs/traces (operands).
 * Writes: the input unchanged, then one pd.input per root it understands.
 * Streams: one root at a time; memory bounded by what is aggregated.
 * The per-family work is in tools/pd-sum-input/. */
#include "pd_tool.h"
#include "pd-sum-input/sum_input.h"

int
main(int argc, char **argv)
{
	static const struct pd_reader readers[] = {
		{ "ascend", sum_input_ascend },
		{ "pytorch", sum_input_pytorch },
		{ NULL, NULL }
	};
	struct pd_tool t = {
		.name = "pd-sum-input", .record = "pd.input",
		.what = "input pipeline: data-loading time per step",
		.readers = readers,
		.opts = ""
	};

	return pd_tool_main(&t, argc, argv);
}
