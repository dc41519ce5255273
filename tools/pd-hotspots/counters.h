/* pd-hotspots: the CUPTI range profiler's counters (Kineto events of cat
 * "cuda_profiler_range", one per kernel, counter values in args). */
#ifndef PD_HOTSPOTS_COUNTERS_H
#define PD_HOTSPOTS_COUNTERS_H

#include <jansson.h>

#include "pd_trace.h"

struct counters;

struct counters *counters_new(void);
/* Any event; only cuda_profiler_range ones are read. */
void counters_event(struct counters *c, const struct pd_ev *ev);
/* The record's "counters" value (new reference; null when the trace had
 * no cuda_profiler_range event). */
json_t *counters_json(struct counters *c, int topn);
void counters_free(struct counters *c);

#endif
