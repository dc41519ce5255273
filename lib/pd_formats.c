/* pd_formats: the table of dump formats (pd_formats.h). */
#include "pd_formats.h"

#include <string.h>

const struct pd_format pd_formats[] = {
	{ "torch_npu", "ascend", "ascend", "torch_npu", "npu",
	  "*_ascend_pt directory or ASCEND_PROFILER_OUTPUT/" },
	{ "mindspore", "ascend", "ascend", "mindspore", "npu",
	  "*_ascend_ms directory" },
	{ "mindspore_legacy", "ascend", "ascend", "mindspore", "npu",
	  "MindSpore 1.x/2.0 profiler/ files (*_<device>.csv/.json)" },
	{ "msprof", "ascend", "ascend", NULL, "npu",
	  "PROF_* directory of CANN msprof" },
	{ "msprof_legacy", "ascend", "ascend", NULL, "npu",
	  "CANN 5.x/6.x PROF_*/device_N/ without mindstudio_profiler_output" },
	{ "cluster_analysis", "ascend", "ascend", NULL, "npu",
	  "cluster_analysis_output/ of msprof-analyze" },
	{ "kineto", "pytorch", "pytorch", "torch", NULL,
	  "*.json[.gz] with traceEvents (torch.profiler, Kineto)" },
	{ "autograd", "pytorch", "pytorch", "torch", NULL,
	  "*.json array with \"CPU functions\"/\"CUDA functions\" lanes" },
	{ "nsys", "pytorch", "nsys", NULL, "gpu",
	  "*.sqlite of nsys export with StringIds and CUPTI/NVTX tables, "
	  "one root per profiled process" },
	{ NULL, NULL, NULL, NULL, NULL, NULL }
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
