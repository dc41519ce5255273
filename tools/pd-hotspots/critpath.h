/* critpath: the critical path of a Kineto trace (CPU ops, launch calls,
 * GPU activities and the synchronizations between them), after HTA's
 * critical_path_analysis; see pd-hotspots(1). */
#ifndef CRITPATH_H
#define CRITPATH_H

#include <jansson.h>
#include <stdint.h>

#include "pd_patterns.h"
#include "pd_trace.h"

struct cp;

/* max_events bounds the events kept for the graph, step_events those of
 * a trace with ProfilerSteps kept whole (0: the defaults; max_events
 * alone bounds both). */
struct cp *cp_new(const struct pd_patterns *comm, uint64_t max_events,
    uint64_t step_events);

/* Every X event of the trace, with its pd_kineto_class. */
void cp_add(struct cp *c, const struct pd_ev *ev, int kclass);

/* The trace was read to its end: past max_events, one step is kept (the
 * median ProfilerStep by duration). Without this call (a trace read only
 * in part) none is: cp_json warns. */
void cp_end(struct cp *c);

/* The critical_path object (new reference; json null when there is
 * nothing to build a graph from, or the graph has a cycle: warned with
 * path). */
json_t *cp_json(struct cp *c, const char *path, int topn);

/* After cp_json: to each entry of list (a pd.hotspot list of ops when
 * ops, else of GPU activities; entries with "name"), critical_us and
 * critical_ratio, its time on the path and its share of total_us (null
 * when no path was built or c is NULL). */
void cp_annotate(const struct cp *c, json_t *list, int ops);

void cp_free(struct cp *c);

#endif
