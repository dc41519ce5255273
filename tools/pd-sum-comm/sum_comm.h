/* pd-sum-comm: the per-family handlers (see lib/pd_tool.h). */
#ifndef PD_SUM_COMM_H
#define PD_SUM_COMM_H

#include "pd_tool.h"

int sum_comm_ascend(json_t *root, const struct pd_tool *t);
int sum_comm_pytorch(json_t *root, const struct pd_tool *t);

#endif
