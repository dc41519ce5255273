/* pd-hotspots: copies and memsets by kind (HTA's memory_bw_summary). */
#ifndef PD_HOTSPOTS_COPIES_H
#define PD_HOTSPOTS_COPIES_H

#include <jansson.h>
#include <stdint.h>

#include "pd_stats.h"
#include "pd_trace.h"

struct copy_kind {
	char name[48];		/* "Memcpy HtoD": the event name before " (" */
	int64_t count, bytes, total_ns, pageable, with_bw;
	struct pd_vec bw;	/* GB/s of each event */
};

struct copies {
	struct copy_kind *k;
	size_t n, cap;
};

/* One gpu_memcpy / gpu_memset event. */
void copies_add(struct copies *c, const struct pd_ev *ev);
/* The kinds, most time first (new reference; an empty array when none). */
json_t *copies_json(const struct copies *c);
void copies_free(struct copies *c);

#endif
