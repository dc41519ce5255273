/* pd_formats: the table of dump formats (pd_formats.h). */
#include "pd_formats.h"

#include <string.h>

#include "pd_nsys.h"

const struct pd_format pd_formats[] = {
	{ .name = "torch_npu", .family = "ascend", .stack = "ascend",
	  .framework = "torch_npu", .device = "npu",
	  .found = "*_ascend_pt directory or ASCEND_PROFILER_OUTPUT/" },
	{ .name = "mindspore", .family = "ascend", .stack = "ascend",
	  .framework = "mindspore", .device = "npu",
	  .found = "*_ascend_ms directory" },
	{ .name = "mindspore_legacy", .family = "ascend", .stack = "ascend",
	  .framework = "mindspore", .device = "npu",
	  .found = "MindSpore 1.x/2.0 profiler/ files (*_<device>.csv/.json)" },
	{ .name = "msprof", .family = "ascend", .stack = "ascend",
	  .device = "npu",
	  .found = "PROF_* directory of CANN msprof" },
	{ .name = "msprof_legacy", .family = "ascend", .stack = "ascend",
	  .device = "npu",
	  .found = "CANN 5.x/6.x PROF_*/device_N/ without "
	    "mindstudio_profiler_output" },
	{ .name = "cluster_analysis", .family = "ascend", .stack = "ascend",
	  .device = "npu",
	  .found = "cluster_analysis_output/ of msprof-analyze",
	  .cluster = 1 },
	{ .name = "kineto", .family = "pytorch", .stack = "pytorch",
	  .framework = "torch",
	  .found = "*.json[.gz] with traceEvents (torch.profiler, Kineto)" },
	{ .name = "autograd", .family = "pytorch", .stack = "pytorch",
	  .framework = "torch",
	  .found = "*.json array with \"CPU functions\"/\"CUDA functions\" "
	    "lanes" },
	{ .name = "nsys", .family = "pytorch", .stack = "nsys",
	  .device = "gpu",
	  .found = "*.sqlite of nsys export with StringIds and CUPTI/NVTX "
	    "tables, one root per profiled process",
	  .trace_export = "nsys_sqlite",
	  .read_events = pd_nsys_events,
	  .whole_process = 1, .no_call_stacks = 1, .any_program = 1 },
	{ .name = NULL }
};

const struct pd_format *
pd_format_get(const char *name)
{
	const struct pd_format *f;

	if (!name)
		return NULL;
	for (f = pd_formats; f->name; f++)
		if (strcmp(f->name, name) == 0)
			return f;
	return NULL;
}
