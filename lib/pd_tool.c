#include "pd_tool.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pd_archive.h"
#include "pd_diag.h"
#include "pd_file.h"
#include "pd_formats.h"
#include "pd_num.h"
#include "pd_rec.h"
#include "pd_share.h"
#include "pd_tcache.h"

#ifndef PD_VERSION
#define PD_VERSION "unknown"
#endif

static const char *opt_usage = "";

int
pd_getopt(int argc, char *const argv[], const char *optstring,
    const struct option *longopts, const char *usage)
{
	static struct option all[16];
	size_t n = 0;
	int c;

	opt_usage = usage;
	while (longopts && longopts[n].name && n < 13) {
		all[n] = longopts[n];
		n++;
	}
	all[n++] = (struct option){ "help", no_argument, NULL, 'h' };
	all[n++] = (struct option){ "version", no_argument, NULL, 1 };
	all[n] = (struct option){ NULL, 0, NULL, 0 };
	opterr = 0;
	c = getopt_long(argc, argv, optstring, all, NULL);
	if (c == '?') {
		const char *q = optopt > 1 && optopt != ':' && optopt != '+' ?
		    strchr(optstring, optopt) : NULL;

		const char *a = optind > 1 ? argv[optind - 1] : "";

		if (strncmp(a, "--", 2) == 0)
			pd_error(NULL, 0, "bad option %s",
			    pd_diag_quote(a, (size_t)-1));
		else if (q && q[1] == ':')
			pd_error(NULL, 0, "option '-%c' needs a value", optopt);
		else
			pd_error(NULL, 0, "unknown option '-%c'", optopt);
	}
	if (c == 1) {
		printf("%s %s\n", pd_diag_prog(), PD_VERSION);
		exit(pd_diag_finish());
	}
	return c;
}

static void bad_value(int, const char *, const char *, const char *,
    const char *) __attribute__((noreturn));

static void
bad_value(int opt, const char *arg, const char *what, const char *range,
    const char *unit)
{
	pd_error(NULL, 0, "-%c: %s must be %s%s%s, not %s", opt, what,
	    range, unit ? " " : "", unit ? unit : "",
	    pd_diag_quote(arg, (size_t)-1));
	pd_usage_exit(opt_usage, 2);
}

long long
pd_opt_int(int opt, const char *arg, long long min, long long max,
    const char *what, const char *unit)
{
	char range[64];
	long long v;

	if (pd_num_opt_int(arg, min, max, &v) == PD_NUM_OK)
		return v;
	snprintf(range, sizeof range, "%lld to %lld", min, max);
	bad_value(opt, arg, what, range, unit);
}

double
pd_opt_real(int opt, const char *arg, double min, double max,
    const char *what, const char *unit)
{
	char range[64];
	double v;

	if (pd_num_opt_real(arg, min, max, &v) == PD_NUM_OK)
		return v;
	snprintf(range, sizeof range, "%g to %g", min, max);
	bad_value(opt, arg, what, range, unit);
}

const char *
pd_root_family(json_t *root)
{
	const struct pd_format *f = pd_format_get(pd_rec_str(root, "format"));

	return f ? f->family : NULL;
}

/* The root with only the exports that are regular files: one that is
 * missing, or a FIFO, a device, a directory, is said (exit 3) and left
 * out, so that no reader opens it. An export inside an archive
 * (ARCHIVE//MEMBER) is read from its private copy (pd_archive.h). A new
 * reference. */
static json_t *
usable(json_t *root)
{
	json_t *ex = json_object_get(root, "exports"), *keep, *e, *r;
	const char *path;
	char real[PATH_MAX];
	struct stat st;
	size_t i;
	int dropped = 0;

	if (!json_is_array(ex))
		return json_incref(root);
	keep = json_array();
	json_array_foreach(ex, i, e) {
		const char *kind = pd_rec_str(e, "kind");
		const char *rp = pd_rec_str(root, "root");
		int err = 0, in;

		path = pd_rec_str(e, "path");
		in = path ? pd_archive_resolve(pd_str_bytes(path), real,
		    sizeof real) : 0;
		if (in > 0) {
			json_t *c = json_copy(e);

			pd_set(c, "path", pd_str(real));
			json_array_append_new(keep, c);
			dropped = 1;	/* the root is rewritten */
			continue;
		}
		if (in < 0)
			err = EIO;
		/* the bytes of the name, as a reader opens it */
		else if (path && stat(pd_str_bytes(path), &st) != 0)
			err = errno;
		else if (path && !S_ISREG(st.st_mode))
			err = S_ISDIR(st.st_mode) ? EISDIR : PD_ENOTREG;
		if (err) {
			pd_warn(path, 0, "export '%s' of '%s': %s; skipped",
			    kind ? kind : "?", rp ? rp : "?",
			    pd_file_strerror(err));
			pd_diag_status(PD_EXIT_INPUT);
			dropped = 1;
			continue;
		}
		json_array_append(keep, e);
	}
	if (!dropped) {
		json_decref(keep);
		return json_incref(root);
	}
	r = json_copy(root);
	json_object_set_new(r, "exports", keep);
	return r;
}

/* Keep freed memory for what comes next instead of giving it back. By
 * default a block from 128 KiB (a read window, a sort's scratch, a hash
 * table outgrown, a root's tables and graphs) is mapped and unmapped each
 * time and the heap's top trimmed, until glibc's threshold adapts: the
 * same pages were faulted in again and again, within a root and across
 * roots (pd-hotspots on one rank of the 8-rank bench set: 13.7 k page
 * faults for a 36 MiB peak, half its CPU time in the kernel; 9.2 k when
 * kept from the root's start). The threshold is set where glibc's
 * adaptive one stops (32 MiB), and only more than 64 MiB free at the top
 * of the heap is given back. Set before a root whose exports hold a MiB
 * or more, else after the first root: a large block calloc'd from the
 * heap is cleared where a mapped one comes zeroed, page by page as it is
 * used, so a tool on a tiny trace (a ring of 64 Ki slots and hardly any
 * of it used) would take ~100 page faults more at start (~1 ms here).
 * Peak RSS stays flat with a trace's length (bench, 271 MiB -> 1 GiB:
 * 1.00-1.05 for every tool). */
static void
keep_freed(void)
{
	static int done;

	if (done)
		return;
	done = 1;
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
}

/* The bytes of the root's exports, as pd-locate counted them. */
static double
root_bytes(json_t *root)
{
	json_t *e;
	size_t i;
	double n = 0;

	json_array_foreach(json_object_get(root, "exports"), i, e)
		n += json_number_value(json_object_get(e, "bytes"));
	return n;
}

static int
on_root(json_t *root, void *ctx)
{
	struct pd_tool *t = ctx;
	const char *fam = pd_root_family(root);
	const struct pd_reader *r;
	int rc = 0;

	for (r = t->readers; fam && r && r->family; r++)
		if (!strcmp(fam, r->family))
			break;
	if (!fam || !r || !r->family)
		return 0;
	root = usable(root);
	if (root_bytes(root) >= 1 << 20)
		keep_freed();
	rc = r->read(root, t);
	json_decref(root);
	keep_freed();
	if (rc)
		pd_diag_status(rc);
	fflush(stdout);
	return rc;
}

static int
uses(const struct pd_tool *t, int opt)
{
	return t->opts && strchr(t->opts, opt) != NULL;
}

/* The usage text, from the options the tool uses. */
static void
usage_text(const struct pd_tool *t, char *u, size_t size)
{
	snprintf(u, size,
	    "usage: %s [-q] [-d depth]%s%s%s [DIR|FILE|-]...\n"
	    "  reads pd.root records on stdin (or locates roots below the operands)\n"
	    "  and appends one %s record per root (%s)\n"
	    "  -d depth     directory levels searched below operands (default 8)\n"
	    "%s%s"
	    "  -q           no warnings\n"
	    "%s"
	    "  --no-cache   do not use the trace cache (see pd(7))\n"
	    "  -h, --help   this help\n"
	    "  --version    the version\n", t->name,
	    uses(t, 'n') ? " [-n N]" : "", uses(t, 'p') ? " [-p patterns]" : "",
	    uses(t, 'S') ? " [-S sharedir]" : "", t->record, t->what,
	    uses(t, 'n') ? "  -n N         length of top-N lists (default 20)\n" : "",
	    uses(t, 'p') ? "  -p patterns  extra communication kernel patterns file\n" : "",
	    uses(t, 'S') ? "  -S sharedir  where the share/ files are\n" : "");
}

int
pd_tool_main(struct pd_tool *t, int argc, char **argv)
{
	static const struct option nocache[] = {
		{ "no-cache", no_argument, NULL, 2 }, { NULL, 0, NULL, 0 }
	};
	struct pd_stream s;
	char u[1024], optstring[16] = "d:hq";
	int c;

	pd_diag_init(argv[0]);
	memset(&s, 0, sizeof s);
	if (t->topn <= 0)
		t->topn = 20;
	if (uses(t, 'n'))
		strcat(optstring, "n:");
	if (uses(t, 'p'))
		strcat(optstring, "p:");
	if (uses(t, 'S'))
		strcat(optstring, "S:");
	usage_text(t, u, sizeof u);
	while ((c = pd_getopt(argc, argv, optstring, nocache, u)) != -1) {
		switch (c) {
		case 2: pd_tcache_disable(); break;
		case 'd':
			s.maxdepth = (int)pd_opt_int('d', optarg, 1, 64, "depth",
			    NULL);
			break;
		case 'h': pd_usage_exit(u, 0);
		case 'n':
			t->topn = (int)pd_opt_int('n', optarg, 1, INT_MAX,
			    "length", NULL);
			break;
		case 'p': t->patterns = optarg; break;
		case 'q': pd_diag_quiet(1); break;
		case 'S': pd_share_set(optarg); break;
		default: pd_usage_exit(u, 2);
		}
	}
	s.ctx = t;
	s.on_root = on_root;
	pd_stream_run(&s, argc - optind, argv + optind);
	return pd_diag_finish();
}
