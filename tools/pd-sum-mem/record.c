/* pd-sum-mem: a pd.mem devices entry from a struct memdev (record.h). */
#include "record.h"

#include <math.h>
#include <string.h>

#include "pd_rec.h"

void
memdev_init(struct memdev *d)
{
	memset(d, 0, sizeof *d);
	d->growth_bytes_per_s = d->fragmentation_ratio = NAN;
	d->totals_from_trace = -1;
}

void
memdev_set(struct memdev *d, int k, int64_t v)
{
	d->v[k] = v;
	d->have |= 1u << k;
}

static void
set_v(json_t *o, const char *key, const struct memdev *d, int k)
{
	if ((d->have >> k) & 1)
		pd_set_int(o, key, d->v[k]);
	else
		pd_set_null(o, key);
}

json_t *
memdev_json(struct memdev *d)
{
	json_t *o = json_object();

	set_v(o, "device", d, MD_DEVICE);
	set_v(o, "peak_allocated_bytes", d, MD_PEAK_ALLOC);
	set_v(o, "peak_reserved_bytes", d, MD_PEAK_RES);
	set_v(o, "peak_active_bytes", d, MD_PEAK_ACT);
	set_v(o, "peak_time_ns", d, MD_PEAK_TIME);
	set_v(o, "capacity_bytes", d, MD_CAP);
	set_v(o, "fragmentation_bytes", d, MD_FRAG);
	pd_set_real(o, "growth_bytes_per_s", d->growth_bytes_per_s, 3);
	pd_set_str(o, "component", d->component);
	set_v(o, "app_peak_reserved_bytes", d, MD_APP_PEAK_RES);
	pd_set(o, "components", d->components);
	pd_set_real(o, "fragmentation_ratio", d->fragmentation_ratio, 4);
	pd_set(o, "steps", d->steps);
	pd_set(o, "phases", d->phases);
	pd_set(o, "timeline", d->timeline);
	pd_set_str(o, "kind", d->kind);
	set_v(o, "peak_reserved_time_ns", d, MD_PEAK_RES_TIME);
	set_v(o, "events", d, MD_EVENTS);
	set_v(o, "allocs", d, MD_ALLOCS);
	set_v(o, "frees", d, MD_FREES);
	set_v(o, "alloc_bytes", d, MD_ALLOC_BYTES);
	set_v(o, "free_bytes", d, MD_FREE_BYTES);
	if (d->totals_from_trace >= 0)
		pd_set_bool(o, "totals_from_trace", d->totals_from_trace);
	else
		pd_set_null(o, "totals_from_trace");
	d->components = d->steps = d->phases = d->timeline = NULL;
	return o;
}
