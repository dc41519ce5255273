/* pd-locate: find profiler output below directories.
 *
 * Reads: operands (directories or files); stdin records are passed through.
 * Writes: one pd.root per profiler root found.
 * Streams: yes (roots are written as they are found, in path order). */
#include <getopt.h>
#include <stdlib.h>

#include "pd_diag.h"
#include "pd_locate.h"
#include "pd_rec.h"

static const char usage[] =
    "usage: pd-locate [-b] [-d depth] DIR|FILE...\n"
    "  -b        one root per rank: the newest when several exist\n"
    "  -d depth  directory levels to search below each operand (default 8)\n"
    "  -h        this help\n";

static int
emit(json_t *root, void *ctx)
{
	(void)ctx;
	pd_rec_emit(json_incref(root));
	return 0;
}

int
main(int argc, char **argv)
{
	struct pd_locate_opts o = { 0, 0 };
	int c, i;

	pd_diag_init(argv[0]);
	while ((c = getopt(argc, argv, "bd:h")) != -1) {
		switch (c) {
		case 'b': o.best = 1; break;
		case 'd': o.maxdepth = atoi(optarg); break;
		case 'h': pd_usage_exit(usage, 0);
		default: pd_usage_exit(usage, 2);
		}
	}
	if (optind == argc)
		pd_usage_exit(usage, 2);
	for (i = optind; i < argc; i++)
		pd_diag_status(pd_locate(argv[i], &o, emit, NULL));
	return pd_diag_finish();
}
