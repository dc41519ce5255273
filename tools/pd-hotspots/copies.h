/* pd-hotspots: copies and memsets by kind (HTA's memory_bw_summary), and
 * how much of each kind's time ran beside a kernel of the same device
 * (overlapped) or with none (exposed). */
#ifndef PD_HOTSPOTS_COPIES_H
#define PD_HOTSPOTS_COPIES_H

#include <jansson.h>
#include <stdint.h>

#include "pd_xsort.h"
#include "pd_trace.h"

struct copy_kind {
	char name[48];		/* "Memcpy HtoD": the event name before " (" */
	int64_t count, bytes, total_ns, pageable, with_bw;
	int64_t pinned, pageable_ns, pinned_ns;
	int memcpy;		/* a copy, not a memset */
	/* set by copies_finish: */
	int64_t overlap_ns;
	double bw_mean, bw_median, bw_min, bw_max;	/* of with_bw events */
};

/* The copies and memsets and the kernels are kept to the end in pd_xsorts
 * (flat memory, past 1 MiB each in temporary files): the kernels by
 * device and start, merged into each device's busy pieces as they are
 * read back; the copies by device and start beside them; each copy's
 * bandwidth by kind and value (the figures pd_stats gives). */
struct copies {
	struct copy_kind *k;
	size_t n, cap;
	int64_t *dev;		/* the devices' ids, by first seen */
	size_t ndev, capdev;
	struct pd_xsort ks, cs, bs;	/* kernels, copies, bandwidths */
	int init;		/* the sorts are set up */
	int err;		/* errno of a temporary file, 0 */
};

/* One gpu_memcpy / gpu_memset event. */
void copies_add(struct copies *c, const struct pd_ev *ev);
/* One kernel (compute or communication): the device is busy. */
void copies_kernel(struct copies *c, const struct pd_ev *ev);
/* Once all events are in: each kind's time beside a kernel and its
 * bandwidth figures. 0, or the errno of a temporary file that failed
 * (those figures are then left out: null). */
int copies_finish(struct copies *c);
/* The kinds, most time first (new reference; an empty array when none). */
json_t *copies_json(const struct copies *c);
/* The memcpy kinds together: {copies, total_us, overlapped_us,
 * exposed_us, exposed_ratio}; null when there are none (new reference). */
json_t *copies_overlap_json(const struct copies *c);
void copies_free(struct copies *c);

#endif
