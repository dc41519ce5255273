/* pd-sum-step for ascend roots. Not written yet: emits nothing. */
#include "sum_step.h"

int
sum_step_ascend(json_t *root, const struct pd_tool *t)
{
	(void)root;
	(void)t;
	return 0;
}
