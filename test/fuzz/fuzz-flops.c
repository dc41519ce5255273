/* libFuzzer target for pd-hotspots' FLOPs (tools/pd-hotspots/flops.c,
 * make fuzz): a PyTorch-profiler trace from a file, every complete event
 * through flops_event as pd-hotspots feeds it, then the flops object. */
#include "fuzz.h"
#include "pd_kineto.h"
#include "pd-hotspots/flops.h"

static int
ev(const struct pd_ev *e, void *ctx)
{
	if (e->ph == 'X' && e->has_ts && e->has_dur)
		flops_event(ctx, e, pd_kineto_class(e));
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct flops *f = flops_new();
	struct pd_trace_cb cb = { f, ev, NULL, NULL, NULL };
	struct pd_kineto_info info;
	struct pd_trace_stats st;

	memset(&info, 0, sizeof info);
	pd_kineto_read(NULL, fuzz_path(data, size), &cb, &info, &st);
	json_decref(flops_json(f, &info, 1000, 5));
	flops_free(f);
	pd_kineto_info_free(&info);
	return 0;
}
