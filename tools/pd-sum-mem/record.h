/* pd-sum-mem: the pd.mem record, whichever family read the memory.
 *
 * A family reader fills a struct memdev per device (whole numbers with a
 * bit per value it has, ratios NaN when none, the series as built);
 * memdev_json() writes the entry with the same keys for every family,
 * null where the family has no value (pd-record(5)). The rest of the
 * record is a struct memrec, the same way: memrec_write() writes every
 * pd.mem key after source, each part with one key list, null where the
 * family has no value. */
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

/* The whole-number values of the record, by record key. */
enum {
	MR_PEAK_ALLOC,		/* peak_allocated_bytes */
	MR_PEAK_RES,		/* peak_reserved_bytes */
	MR_CAP,			/* capacity_bytes */
	MR_FRAG,		/* fragmentation_bytes */
	MR_SKIPPED,		/* skipped_rows */
	MR_INEXACT,		/* inexact_rows */
	MR_UNORDERED,		/* unordered_entries */
	MR_NPU_APP,		/* npu_mem.app_peak_bytes */
	MR_NPU_DEV,		/* npu_mem.device_peak_bytes */
	MR_N
};

/* An operator of top_allocators or top_by_lifetime. */
struct memop {
	const char *name;	/* borrowed */
	int64_t bytes, count;
	int has_bytes;
	double lifetime_us;	/* NaN: null */
};

/* Blocks and their bytes (never_released, frees_without_alloc,
 * static_ops, allocs_without_op). */
struct memcount {
	int have;		/* 0: the whole object null */
	int64_t count, bytes;
	int has_bytes;
};

/* A modules entry, or a categories_at_peak entry (name: the category). */
struct memname {
	const char *name;	/* borrowed */
	int64_t bytes;
	int has_bytes;
};

/* A list of n entries; have 0: null rather than []. */
#define MEMLIST(T) struct { T *v; size_t n, cap; int have; }

struct memrec {
	json_t *devices;	/* the memdev_json entries; NULL: [] */
	int64_t v[MR_N];
	unsigned have;		/* bit per MR_ */
	double peak_ratio, fragmentation_ratio;	/* NaN: null */
	MEMLIST(struct memop) top, by_life;
	struct memcount never_released, frees_without_alloc, static_ops,
	    allocs_without_op;
	MEMLIST(struct memname) modules, categories;
	int has_npu_mem;	/* 0: npu_mem null */
	int has_actions;	/* 0: actions null */
	int64_t actions[4];	/* preexisting, create, increment_version,
				 * destroy */
	const char *path;	/* NULL: null */
	int truncated;
};

/* A record with no value: every key null (devices []). */
void memrec_init(struct memrec *r);
void memrec_set(struct memrec *r, int k, int64_t v);
/* A new entry (zeroed, lifetime NaN) at the end of a list, which is then
 * had (not null). */
struct memop *memrec_op(struct memrec *r, int by_life);
struct memname *memrec_module(struct memrec *r);
struct memname *memrec_category(struct memrec *r);
/* Append the keys after source to rec (type, v, root, rank and source
 * set by the family) and emit it; rec is consumed, and r's lists and
 * devices are released. */
void memrec_write(json_t *rec, struct memrec *r);

#endif
