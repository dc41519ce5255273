/* pd-sum-step: the per-family handlers (see lib/pd_tool.h). */
#ifndef PD_SUM_STEP_H
#define PD_SUM_STEP_H

#include "pd_tool.h"

int sum_step_ascend(json_t *root, const struct pd_tool *t);
int sum_step_pytorch(json_t *root, const struct pd_tool *t);

#endif
