/* pd-sum-step for pytorch roots. Not written yet: emits nothing. */
#include "sum_step.h"

int
sum_step_pytorch(json_t *root, const struct pd_tool *t)
{
	(void)root;
	(void)t;
	return 0;
}
