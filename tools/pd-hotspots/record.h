/* pd-hotspots: the pd.hotspot record, whichever family read the
 * operators.
 *
 * A family reader fills a struct hsrec: the root's totals and, per list,
 * one struct hsent per entry (in record order, record units: us, ratios;
 * rounded here); hsrec_write() writes every pd.hotspot key after source
 * from it, the same keys for every family and the same keys in every
 * entry of a list, null where the family has no value (pd-record(5)).
 * The parts one family's analyses build (copies, critical_path, flops,
 * counters, ...) are given as built. A real that is NaN is written as
 * null. */
#ifndef PD_HOTSPOTS_RECORD_H
#define PD_HOTSPOTS_RECORD_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

struct cp;

/* One entry of a list. Which members a list writes, under which keys:
 *   top:        name, type, core, count, total_us (us), mean_us, ratio,
 *               bound, bound_ratio (then critical_us, critical_ratio)
 *   by_type:    type (name), count, total_us (us), ratio
 *   by_core:    core (name), total_us (us), ratio, count
 *   aicpu:      name, count, total_us (us)
 *   host_api:   name, count, total_us (us), level (type)
 *   cpu_ops:    name, count, self_us (us) (then critical_us ..)
 *   optimizers: name, class (from name), count, host_total_us (us),
 *               device_total_us (device_us)
 * Strings are borrowed; NULL is null;
 * bound_ratio is null without bound. */
struct hsent {
	const char *name, *type, *core, *bound;
	int64_t count;
	double us, mean_us, ratio, bound_ratio, device_us;
};

struct hslist {
	struct hsent *e;
	size_t n, cap;
	int have;		/* 0: null (the family has no such table) */
};

/* What a list cut at -n leaves out: {count, total_us or self_us}. */
struct hsrest {
	int have;		/* 0: null */
	int64_t count;
	double us;
};

struct hsrec {
	double total_us;	/* NaN: null */
	struct hslist top, by_type, by_core, aicpu, host_api, cpu_ops,
	    optimizers;
	int64_t short_ops;
	int has_short_ops;
	double short_ratio;	/* NaN: null */
	struct {
		int have;	/* 0: null */
		double compute_us, comm_us, memcpy_us, memset_us;
	} classes;
	struct {
		int have;	/* 0: null */
		int64_t ops, dynamic, static_ops;
		double dynamic_us;
	} op_state;
	int64_t kernels;
	int has_kernels;
	double short_threshold_us;
	int64_t linked_kernels;
	int has_linked_kernels;
	struct {
		int have;	/* 0: null */
		int64_t compile_execute_count;
		int has_compile_execute_count;
		int64_t launches, sync_after_launch;
		int has_launches;	/* launches, sync_after_launch, ratio */
		double sync_after_launch_ratio;	/* NaN: null */
	} host_checks;
	struct hsrest top_rest, cpu_ops_rest;
	/* the critical path of the trace at path (critpath.h): critical_path
	 * (at most topn operators) and the critical_us and critical_ratio of
	 * the top and cpu_ops entries; NULL: null */
	struct cp *cp;
	const char *path;
	int topn;
	/* the parts one family has, each a new reference or NULL (null) */
	json_t *copies, *flops, *counters, *copy_overlap, *kernel_sequences,
	    *gpu, *host_api_kinds;
	int64_t events, skipped_events;
	int has_events;		/* events and skipped_events */
	int64_t skipped_rows;
	int has_skipped_rows;
	int truncated;
};

/* A new entry (zeroed) at the end of l; l->have is set. */
struct hsent *hslist_add(struct hslist *l);
/* Append the keys after source to rec (type, v, root, rank and source
 * set by the family) and emit it; rec is consumed, r's lists and json
 * parts are released. */
void hsrec_write(json_t *rec, struct hsrec *r);

#endif
