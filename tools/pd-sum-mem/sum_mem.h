/* pd-sum-mem: the per-family handlers (see lib/pd_tool.h). */
#ifndef PD_SUM_MEM_H
#define PD_SUM_MEM_H

#include "pd_tool.h"

int sum_mem_ascend(json_t *root, const struct pd_tool *t);
int sum_mem_pytorch(json_t *root, const struct pd_tool *t);

#endif
