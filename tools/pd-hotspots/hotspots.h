/* pd-hotspots: the per-family handlers (see lib/pd_tool.h). */
#ifndef PD_HOTSPOTS_H
#define PD_HOTSPOTS_H

#include "pd_tool.h"

int hotspots_ascend(json_t *root, const struct pd_tool *t);
int hotspots_pytorch(json_t *root, const struct pd_tool *t);

#endif
