/* pd-locate: find profiler output below directories.
 *
 * Reads: operands (directories or trace files); "-" reads records from
 * stdin and passes them through unchanged.
 * Writes: one pd.root per profiler root found (torch_npu, MindSpore,
 * MindSpore legacy, CANN msprof PROF_*, msprof-analyze cluster output,
 * Kineto and autograd traces), sorted by root path within each operand.
 * Streams: per operand (the roots of an operand are sorted, then written);
 * files are identified by name and first bytes, never read whole. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "pd_diag.h"
#include "pd_tool.h"
#include "pd_locate.h"
#include "pd_rec.h"

static const char usage[] =
    "usage: pd-locate [-b] [-d depth] DIR|FILE|-...\n"
    "  -b, --best   one root per (run, rank): the newest when several exist\n"
    "  -d depth     directory levels to search below each operand (default 8)\n"
    "  -h, --help   this help\n"
    "  --version    the version\n"
    "  -            pass the records on stdin through\n";

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
	static const struct option longopts[] = {
		{ "best", no_argument, NULL, 'b' },
		{ NULL, 0, NULL, 0 }
	};
	struct pd_locate_opts o = { 0, 0 };
	struct pd_stream s;
	int c, i, used_stdin = 0;

	pd_diag_init(argv[0]);
	while ((c = pd_getopt(argc, argv, "bd:h", longopts, usage)) != -1) {
		switch (c) {
		case 'b':
			o.best = 1;
			break;
		case 'd':
			o.maxdepth = (int)pd_opt_int('d', optarg, 1, 64, "depth",
			    NULL);
			break;
		case 'h':
			pd_usage_exit(usage, 0);
		default:
			pd_usage_exit(usage, 2);
		}
	}
	if (optind == argc)
		pd_usage_exit(usage, 2);
	memset(&s, 0, sizeof s);
	for (i = optind; i < argc; i++) {
		if (strcmp(argv[i], "-") == 0) {
			if (!used_stdin)
				pd_stream_run(&s, 0, NULL);
			used_stdin = 1;
			continue;
		}
		pd_diag_status(pd_locate(argv[i], &o, emit, NULL));
	}
	return pd_diag_finish();
}
