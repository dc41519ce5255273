/* pd-sum-gaps: the per-family handlers (see lib/pd_tool.h). */
#ifndef PD_SUM_GAPS_H
#define PD_SUM_GAPS_H

#include "pd_tool.h"
#include "pd_trace.h"

int sum_gaps_ascend(json_t *root, const struct pd_tool *t);
int sum_gaps_pytorch(json_t *root, const struct pd_tool *t);

/* After reading a trace: warn about a truncated/malformed file or skipped
 * events, append events, skipped_events, truncated to rec; returns the
 * exit code to record (0 or PD_EXIT_INPUT). */
int sum_gaps_read_status(const char *path, int rc,
    const struct pd_trace_stats *st, json_t *rec, uint64_t missing);

#endif
