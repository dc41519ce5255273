/* pd-hotspots for pytorch roots. Not written yet: emits nothing. */
#include "hotspots.h"

int
hotspots_pytorch(json_t *root, const struct pd_tool *t)
{
	(void)root;
	(void)t;
	return 0;
}
