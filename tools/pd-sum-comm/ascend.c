/* pd-sum-comm for ascend roots. Not written yet: emits nothing. */
#include "sum_comm.h"

int
sum_comm_ascend(json_t *root, const struct pd_tool *t)
{
	(void)root;
	(void)t;
	return 0;
}
