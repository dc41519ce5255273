/* pd-hotspots for ascend roots. Not written yet: emits nothing. */
#include "hotspots.h"

int
hotspots_ascend(json_t *root, const struct pd_tool *t)
{
	(void)root;
	(void)t;
	return 0;
}
