/* pd-sum-mem for ascend roots. Not written yet: emits nothing. */
#include "sum_mem.h"

int
sum_mem_ascend(json_t *root, const struct pd_tool *t)
{
	(void)root;
	(void)t;
	return 0;
}
