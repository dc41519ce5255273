/* pd-hotspots: FLOPs, bytes, achieved FLOP/s, MFU and roofline placement
 * of the operators whose shapes the trace records (record_shapes). */
#ifndef PD_HOTSPOTS_FLOPS_H
#define PD_HOTSPOTS_FLOPS_H

#include <jansson.h>
#include <stdint.h>

#include "pd_kineto.h"
#include "pd_trace.h"

struct flops;

struct flops *flops_new(void);
/* One 'X' event with ts and dur, of pd_kineto_class kc. */
void flops_event(struct flops *f, const struct pd_ev *ev, int kc);
/* The record's "flops" value (new reference; null when no operator of
 * the families had its shapes recorded). busy_ns: the device's busy time
 * outside communication (the record's total_us), 0 when unknown. */
json_t *flops_json(struct flops *f, const struct pd_kineto_info *info,
    int64_t busy_ns, int topn);
void flops_free(struct flops *f);

#endif
