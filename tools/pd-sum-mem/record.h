/* pd-sum-mem: the entries of pd.mem devices, whichever family read them.
 *
 * A family reader fills a struct memdev per device (whole numbers with a
 * bit per value it has, ratios NaN when none, the series as built);
 * memdev_json() writes the entry with the same keys for every family,
 * null where the family has no value (pd-record(5)). */
#ifndef PD_SUM_MEM_RECORD_H
#define PD_SUM_MEM_RECORD_H

#include <jansson.h>
#include <stdint.h>

/* The whole-number values of a device, by record key. */
enum {
	MD_DEVICE,		/* device */
	MD_PEAK_ALLOC,		/* peak_allocated_bytes */
	MD_PEAK_RES,		/* peak_reserved_bytes */
	MD_PEAK_ACT,		/* peak_active_bytes */
	MD_PEAK_TIME,		/* peak_time_ns */
	MD_CAP,			/* capacity_bytes */
	MD_FRAG,		/* fragmentation_bytes */
	MD_APP_PEAK_RES,	/* app_peak_reserved_bytes */
	MD_PEAK_RES_TIME,	/* peak_reserved_time_ns */
	MD_EVENTS,		/* events */
	MD_ALLOCS,		/* allocs */
	MD_FREES,		/* frees */
	MD_ALLOC_BYTES,		/* alloc_bytes */
	MD_FREE_BYTES,		/* free_bytes */
	MD_N
};

struct memdev {
	int64_t v[MD_N];
	unsigned have;		/* bit per MD_ */
	double growth_bytes_per_s, fragmentation_ratio;	/* NaN: null */
	const char *component, *kind;	/* NULL: null */
	/* each a new reference or NULL (null) */
	json_t *components, *steps, *phases, *timeline;
	int totals_from_trace;	/* -1: null */
};

/* A device with no value: every key null. */
void memdev_init(struct memdev *d);
void memdev_set(struct memdev *d, int k, int64_t v);
/* The devices entry, a new reference; d's json parts are taken. */
json_t *memdev_json(struct memdev *d);

#endif
