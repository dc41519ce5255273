/* pd-sum-comm: the per-family handlers (see lib/pd_tool.h). */
#ifndef PD_SUM_COMM_H
#define PD_SUM_COMM_H

#include "pd_tool.h"

int sum_comm_ascend(json_t *root, const struct pd_tool *t);
int sum_comm_pytorch(json_t *root, const struct pd_tool *t);

/* The kind of parallelism a process group's name or description says:
 * "dp", "tp", "pp", "ep", "cp", else "unknown" (pytorch.c). */
const char *group_kind(const char *desc);

#endif
