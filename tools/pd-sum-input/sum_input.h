/* pd-sum-input: the per-family handlers (see lib/pd_tool.h). */
#ifndef PD_SUM_INPUT_H
#define PD_SUM_INPUT_H

#include "pd_tool.h"

int sum_input_ascend(json_t *root, const struct pd_tool *t);
int sum_input_pytorch(json_t *root, const struct pd_tool *t);

#endif
