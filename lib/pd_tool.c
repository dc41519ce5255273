#include "pd_tool.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pd_diag.h"
#include "pd_rec.h"
#include "pd_share.h"

static const char *ascend_formats[] = {
	"torch_npu", "mindspore", "mindspore_legacy", "msprof",
	"msprof_legacy", "cluster_analysis", NULL
};

const char *
pd_root_family(json_t *root)
{
	const char *f = pd_rec_str(root, "format");
	int i;

	if (!f)
		return NULL;
	for (i = 0; ascend_formats[i]; i++)
		if (strcmp(f, ascend_formats[i]) == 0)
			return "ascend";
	if (strcmp(f, "kineto") == 0 || strcmp(f, "autograd") == 0)
		return "pytorch";
	return NULL;
}

static int
on_root(json_t *root, void *ctx)
{
	struct pd_tool *t = ctx;
	const char *fam = pd_root_family(root);
	int rc = 0;

	if (!fam)
		return 0;
	if (strcmp(fam, "ascend") == 0 && t->ascend)
		rc = t->ascend(root, t);
	else if (strcmp(fam, "pytorch") == 0 && t->pytorch)
		rc = t->pytorch(root, t);
	if (rc)
		pd_diag_status(rc);
	fflush(stdout);
	return rc;
}

static void usage(const struct pd_tool *t, int code) __attribute__((noreturn));

static void
usage(const struct pd_tool *t, int code)
{
	char u[1024];

	snprintf(u, sizeof u,
	    "usage: %s [-q] [-d depth] [-n N] [-p patterns] [-S sharedir] [DIR|FILE|-]...\n"
	    "  reads pd.root records on stdin (or locates roots below the operands)\n"
	    "  and appends one %s record per root (%s)\n"
	    "  -d depth     directory levels searched below operands (default 8)\n"
	    "  -n N         length of top-N lists (default 20)\n"
	    "  -p patterns  extra communication kernel patterns file\n"
	    "  -q           no warnings\n"
	    "  -S sharedir  where the share/ files are\n"
	    "  -h           this help\n", t->name, t->record, t->what);
	pd_usage_exit(u, code);
}

int
pd_tool_main(struct pd_tool *t, int argc, char **argv)
{
	struct pd_stream s;
	int c;

	pd_diag_init(argv[0]);
	memset(&s, 0, sizeof s);
	if (t->topn <= 0)
		t->topn = 20;
	while ((c = getopt(argc, argv, "d:hn:p:qS:")) != -1) {
		switch (c) {
		case 'd': s.maxdepth = atoi(optarg); break;
		case 'h': usage(t, 0);
		case 'n':
			t->topn = atoi(optarg);
			if (t->topn <= 0)
				usage(t, 2);
			break;
		case 'p': t->patterns = optarg; break;
		case 'q': pd_diag_quiet(1); break;
		case 'S': pd_share_set(optarg); break;
		default: usage(t, 2);
		}
	}
	s.ctx = t;
	s.on_root = on_root;
	pd_stream_run(&s, argc - optind, argv + optind);
	return pd_diag_finish();
}
