/* pd-sum-input for ascend roots. Not written yet: emits nothing. */
#include "sum_input.h"

int
sum_input_ascend(json_t *root, const struct pd_tool *t)
{
	(void)root;
	(void)t;
	return 0;
}
