/* pd_tool: option handling for every tool, and the shared main of the
 * per-root evidence tools (pd-sum-*, pd-hotspots).
 *
 * Every tool parses its options with pd_getopt(), which adds --help and
 * --version, and reads numeric values with pd_opt_int() / pd_opt_real(),
 * which refuse anything but a whole number in range (usage error, exit 2).
 *
 * An evidence tool supplies its name, record, one line on what it
 * summarizes, the options it uses and one handler per input family;
 * everything else (options, the stream, pass-through, exit status) is
 * here. Options: -h, -q (no warnings), -d depth (when locating operands);
 * and, when the tool names them in `opts`: -n N (top-N lists; default 20),
 * -p FILE (extra communication kernel patterns, one per line), -S sharedir. */
#ifndef PD_TOOL_H
#define PD_TOOL_H

#include <getopt.h>
#include <jansson.h>

/* getopt_long(3) over `optstring` and `longopts` (may be NULL), plus
 * --help (returned as 'h') and --version (prints "prog VERSION" to stdout
 * and exits 0). `usage` is kept for the pd_opt_ errors. */
int pd_getopt(int argc, char *const argv[], const char *optstring,
    const struct option *longopts, const char *usage);

/* The value of option -opt: an integer (or a real) in [min, max], else
 * "-opt: WHAT must be MIN to MAX[ UNIT], not 'ARG'", usage on stderr, exit
 * 2. `unit` may be NULL. */
long long pd_opt_int(int opt, const char *arg, long long min, long long max,
    const char *what, const char *unit);
double pd_opt_real(int opt, const char *arg, double min, double max,
    const char *what, const char *unit);

struct pd_tool;

/* A tool's reader of one family of formats (pd_formats.h's family):
 * called per pd.root of that family (borrowed); emits records with
 * pd_rec_emit(). Returns 0, or an exit code (also recorded). */
struct pd_reader {
	const char *family;	/* "ascend", "pytorch" */
	int (*read)(json_t *root, const struct pd_tool *t);
};

struct pd_tool {
	const char *name;	/* "pd-sum-step" */
	const char *record;	/* "pd.step" */
	const char *what;	/* "per-rank step breakdown" (for the usage text) */
	/* the readers by family, ended by { NULL, NULL }; a root of a family
	 * without one is passed over */
	const struct pd_reader *readers;
	void *ctx;
	const char *opts;	/* of "npS": the optional options it uses */
	/* filled in from options */
	int topn;
	const char *patterns;
};

/* "ascend", "pytorch", or NULL, from a pd.root's "format" (the family
 * of its format in pd_formats.h: which handler reads it). */
const char *pd_root_family(json_t *root);

int pd_tool_main(struct pd_tool *t, int argc, char **argv);

#endif
