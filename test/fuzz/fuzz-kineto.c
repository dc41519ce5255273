/* libFuzzer target for pd_kineto_read (make fuzz): a PyTorch-profiler
 * trace from a file, every event through the classifiers the kineto tools
 * call, and the top-level info. */
#include "fuzz.h"
#include "pd_kineto.h"
#include "pd_num.h"

static int
ev(const struct pd_ev *e, void *ctx)
{
	static const char *const keys[] = { "stream", "correlation", "Bytes",
	    "External id" };
	const char *v[4];
	size_t len[4];
	int i, n;
	int64_t x;
	uint64_t bad = 0;

	(void)ctx;
	struct pd_ksteps *ks = ctx;
	int64_t num;

	pd_kineto_class(e);
	pd_kineto_stream(e);
	pd_kineto_is_dataloader(e->name);
	pd_kineto_dtype_size(e->name);
	if ((num = pd_kineto_step_num(e->name)) >= 0 && e->has_ts &&
	    e->has_dur)
		pd_ksteps_add(ks, num, e->ts_ns, pd_num_add_sat(e->ts_ns,
		    e->dur_ns));
	n = pd_kineto_args(e, keys, 4, v, len);
	(void)n;
	for (i = 0; i < 4; i++)
		if (v[i])
			pd_kineto_raw_int(v[i], len[i], &x);
	pd_kineto_bad_event("fuzz", e, "dur", &bad);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pd_ksteps ks = { 0 };
	struct pd_trace_cb cb = { &ks, ev, NULL, NULL, NULL };
	struct pd_kineto_info info;
	struct pd_trace_stats st;

	memset(&info, 0, sizeof info);
	pd_kineto_read(NULL, fuzz_path(data, size), &cb, &info, &st);
	pd_kineto_device_mem(&info, 0);
	pd_ksteps_sort(&ks);
	if (ks.n)
		pd_ksteps_find(&ks, ks.v[ks.n / 2].s);
	pd_ksteps_free(&ks);
	pd_kineto_info_free(&info);
	return 0;
}
