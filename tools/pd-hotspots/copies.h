/* pd-hotspots: copies and memsets by kind (HTA's memory_bw_summary), and
 * how much of each kind's time ran beside a kernel of the same device
 * (overlapped) or with none (exposed). */
#ifndef PD_HOTSPOTS_COPIES_H
#define PD_HOTSPOTS_COPIES_H

#include <jansson.h>
#include <stdint.h>

#include "pd_ivl.h"
#include "pd_stats.h"
#include "pd_trace.h"

struct copy_kind {
	char name[48];		/* "Memcpy HtoD": the event name before " (" */
	int64_t count, bytes, total_ns, pageable, with_bw;
	int64_t pinned, pageable_ns, pinned_ns;
	int64_t overlap_ns;	/* set by copies_finish */
	int memcpy;		/* a copy, not a memset */
	struct pd_vec bw;	/* GB/s of each event */
};

/* One copy or memset on the device timeline. */
struct copy_span {
	int64_t s, e;
	uint32_t dev, kind;	/* indexes into copies.dev and copies.k */
};

/* The union of one device's kernels. */
struct copy_dev {
	int64_t id;
	struct pd_ivl busy;
};

struct copies {
	struct copy_kind *k;
	size_t n, cap;
	struct copy_span *sp;
	size_t nsp, capsp;
	struct copy_dev *dev;
	size_t ndev, capdev;
};

/* One gpu_memcpy / gpu_memset event. */
void copies_add(struct copies *c, const struct pd_ev *ev);
/* One kernel (compute or communication): the device is busy. */
void copies_kernel(struct copies *c, const struct pd_ev *ev);
/* Once all events are in: each kind's time beside a kernel. */
void copies_finish(struct copies *c);
/* The kinds, most time first (new reference; an empty array when none). */
json_t *copies_json(const struct copies *c);
/* The memcpy kinds together: {copies, total_us, overlapped_us,
 * exposed_us, exposed_ratio}; null when there are none (new reference). */
json_t *copies_overlap_json(const struct copies *c);
void copies_free(struct copies *c);

#endif
