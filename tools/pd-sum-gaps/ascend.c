/* pd-sum-gaps for ascend roots. Not written yet: emits nothing. */
#include "sum_gaps.h"

int
sum_gaps_ascend(json_t *root, const struct pd_tool *t)
{
	(void)root;
	(void)t;
	return 0;
}
