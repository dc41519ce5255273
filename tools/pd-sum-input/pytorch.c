/* pd-sum-input for pytorch roots. Not written yet: emits nothing. */
#include "sum_input.h"

int
sum_input_pytorch(json_t *root, const struct pd_tool *t)
{
	(void)root;
	(void)t;
	return 0;
}
