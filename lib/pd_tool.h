/* pd_tool: the shared main of the per-root evidence tools (pd-sum-*,
 * pd-hotspots). A tool supplies its name, record, one line on what it
 * summarizes and one handler per input
 * family; everything else (options, the stream, pass-through, exit status)
 * is here.
 *
 * Common options: -h, -d depth (when locating operands), -S sharedir,
 * -q (no warnings), -n N (top-N lists; default 20), -p FILE (extra
 * communication kernel patterns, one per line). */
#ifndef PD_TOOL_H
#define PD_TOOL_H

#include <jansson.h>

struct pd_tool {
	const char *name;	/* "pd-sum-step" */
	const char *record;	/* "pd.step" */
	const char *what;	/* "per-rank step breakdown" (for the usage text) */
	/* Called per pd.root of that family (borrowed); emit records with
	 * pd_rec_emit(). Return 0, or an exit code (also recorded). */
	int (*ascend)(json_t *root, const struct pd_tool *t);
	int (*pytorch)(json_t *root, const struct pd_tool *t);
	void *ctx;
	/* filled in from options */
	int topn;
	const char *patterns;
};

/* "ascend", "pytorch", or NULL, from a pd.root's "format". */
const char *pd_root_family(json_t *root);

int pd_tool_main(struct pd_tool *t, int argc, char **argv);

#endif
