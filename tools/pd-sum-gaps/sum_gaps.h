/* pd-sum-gaps: the per-family handlers (see lib/pd_tool.h). */
#ifndef PD_SUM_GAPS_H
#define PD_SUM_GAPS_H

#include "pd_tool.h"

int sum_gaps_ascend(json_t *root, const struct pd_tool *t);
int sum_gaps_pytorch(json_t *root, const struct pd_tool *t);

#endif
