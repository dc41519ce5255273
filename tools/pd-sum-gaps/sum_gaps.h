/* pd-sum-gaps: the per-family handlers (see lib/pd_tool.h). */
#ifndef PD_SUM_GAPS_H
#define PD_SUM_GAPS_H

#include "pd_tool.h"
#include "pd_trace.h"

int sum_gaps_ascend(json_t *root, const struct pd_tool *t);
int sum_gaps_pytorch(json_t *root, const struct pd_tool *t);

/* After reading a trace: append events, skipped_events, truncated to rec
 * (the reader has already warned and recorded the exit status). */
void sum_gaps_read_keys(int rc, const struct pd_trace_stats *st, json_t *rec,
    uint64_t missing);

struct gaps;
/* gaps_fill failed: say so (path, the temporary directory, g->ioerr). */
void sum_gaps_ioerr(const char *path, const struct gaps *g);

#endif
