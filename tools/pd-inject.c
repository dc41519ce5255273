/* pd-inject: instrument a Python training script with a profiler.
 *
 * Reads: one Python entry script (the operand); records on stdin are
 * passed through only when "-" is an operand.
 * Writes: an instrumented copy of the script (never the script itself,
 * replaced atomically): a prologue that defines the profiler of the
 * script's stack (torch, torch_npu or mindspore, from share/inject/), and
 * the iterable of the step loop wrapped in a generator that steps the
 * profiler once per item; then one pd.inject record saying what was done
 * and the commands to run next.
 * Streams: one script, read whole. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pd_diag.h"
#include "pd_file.h"
#include "pd_tool.h"
#include "pd_rec.h"
#include "pd_share.h"
#include "pd-inject/inject.h"

#define MAXBYTES (16L << 20)

static const char usage[] =
    "usage: pd-inject [-kq] [-o out] [-s stack] [-w wait] [-W warmup]\n"
    "                 [-a active] [-d outdir] [-S sharedir] SCRIPT [-]\n"
    "  -a active  profiled steps (default 5)\n"
    "  -d outdir  where the profiler writes (default pd_trace next to out)\n"
    "  -h, --help this help\n"
    "  --version  the version\n"
    "  -k         record Python stacks (with_stack=True)\n"
    "  -o out     instrumented copy (default SCRIPT with _pd before .py)\n"
    "  -q         no warnings\n"
    "  -S dir     share directory holding inject/*.py\n"
    "  -s stack   torch, torch_npu or mindspore (default: from imports)\n"
    "  -w wait    steps before the profiler starts (default 1)\n"
    "  -W warmup  warmup steps, traced but discarded (default 1)\n"
    "  -          also pass the records on stdin through\n";

static const char *stack_name[] = { "torch", "torch_npu", "mindspore" };
static const char *api_name[] = { "torch.profiler.profile",
    "torch_npu.profiler.profile", "mindspore.Profiler" };

static struct {
	const char *out, *outdir;
	int stack, with_stack;
	long wait, warmup, active;
} opt = { NULL, NULL, -1, 0, 1, 1, 5 };

static int
fail(const char *file, int code, const char *fmt, const char *arg)
{
	pd_error(file, 0, fmt, arg);
	pd_diag_status(code);
	return code;
}

static int
read_script(const char *path, char **buf, size_t *len)
{
	struct stat st;
	FILE *f;

	if (stat(path, &st) != 0)
		return fail(path, PD_EXIT_SYSTEM, "%s", strerror(errno));
	if (!S_ISREG(st.st_mode))
		return fail(path, PD_EXIT_INPUT, "%s", "not a regular file");
	if (st.st_size > MAXBYTES)
		return fail(path, PD_EXIT_INPUT, "%s",
		    "larger than 16 MiB, not a script");
	if (!(f = fopen(path, "rb")))
		return fail(path, PD_EXIT_SYSTEM, "%s", strerror(errno));
	if (!(*buf = malloc((size_t)st.st_size + 1)))
		pd_oom();
	*len = fread(*buf, 1, (size_t)st.st_size, f);
	if (ferror(f) || *len != (size_t)st.st_size) {
		fclose(f);
		free(*buf);
		return fail(path, PD_EXIT_SYSTEM, "%s", "read error");
	}
	fclose(f);
	(*buf)[*len] = '\0';
	return 0;
}

/* An absolute path for p, which need not exist: its directory must. */
static char *
abspath(const char *p)
{
	char *d = strdup(p), *b = strdup(p), *rd, *o;

	if (!d || !b)
		pd_oom();
	rd = realpath(dirname(d), NULL);
	if (rd && asprintf(&o, "%s%s%s", rd, strcmp(rd, "/") ? "/" : "",
	    basename(b)) < 0)
		pd_oom();
	free(d);
	free(b);
	if (!rd)
		return NULL;
	free(rd);
	return o;
}

static char *
default_out(const char *script)
{
	size_t n = strlen(script);
	char *o;

	if (n > 3 && strcmp(script + n - 3, ".py") == 0) {
		if (asprintf(&o, "%.*s_pd.py", (int)(n - 3), script) < 0)
			pd_oom();
	} else if (asprintf(&o, "%s_pd", script) < 0)
		pd_oom();
	return o;
}

/* outdir as given when absolute, else below the output's directory when
 * defaulted, else below the current directory. */
static char *
outdir_for(const char *out)
{
	char *o, *d, cwd[PATH_MAX];

	if (opt.outdir && opt.outdir[0] == '/')
		return strdup(opt.outdir);
	if (opt.outdir) {
		if (!getcwd(cwd, sizeof cwd))
			return NULL;
		if (asprintf(&o, "%s%s%s", cwd, strcmp(cwd, "/") ? "/" : "",
		    opt.outdir) < 0)
			pd_oom();
		return o;
	}
	if (!(d = strdup(out)))
		pd_oom();
	if (asprintf(&o, "%s/pd_trace", dirname(d)) < 0)
		pd_oom();
	free(d);
	return o;
}

static char *
prologue(int stack, const char *outdir, const char *script, const char *nl)
{
	char wait[24], warm[24], act[24], *lit = inj_pystr(outdir), *a, *b,
	    *o, path[PATH_MAX], name[64];
	const char *names[] = { "@PD_WAIT@", "@PD_WARMUP@", "@PD_ACTIVE@",
	    "@PD_OUTDIR@", "@PD_WITH_STACK@", NULL };
	const char *vals[] = { wait, warm, act, lit,
	    opt.with_stack ? "True" : "False", NULL };

	snprintf(wait, sizeof wait, "%ld", opt.wait);
	snprintf(warm, sizeof warm, "%ld", opt.warmup);
	snprintf(act, sizeof act, "%ld", opt.active);
	snprintf(name, sizeof name, "inject/%s.py", stack_name[stack]);
	a = pd_share_path(name, path, sizeof path) ?
	    inj_template(path, names, vals) : NULL;
	b = pd_share_path("inject/steps.py", path, sizeof path) ?
	    inj_template(path, names, vals) : NULL;
	free(lit);
	if (!a || !b) {
		free(a);
		free(b);
		fail(NULL, PD_EXIT_CONFIG, "cannot read %s from the share "
		    "directory (see -S and PD_SHAREDIR)", !a ? name :
		    "inject/steps.py");
		return NULL;
	}
	lit = inj_pystr(script);
	if (asprintf(&o, "# pd-inject: begin: a profiler around the step loop "
	    "of %s;\n# to undo, delete this block and the _pd_inject_steps( ) "
	    "around the loop's iterable.\n%s\n\n%s# pd-inject: end\n\n",
	    lit, a, b) < 0)
		pd_oom();
	free(lit);
	free(a);
	free(b);
	if (strcmp(nl, "\n") != 0) {	/* the script's CRLF line ends */
		char *c = o, *q;

		if (!(q = o = malloc(2 * strlen(c) + 1)))
			pd_oom();
		for (a = c; *a; a++)
			*a == '\n' ? (*q++ = '\r', *q++ = '\n') : (*q++ = *a);
		*q = '\0';
		free(c);
	}
	return o;
}

/* The instrumented text, to a temporary file beside out, then renamed. */
static int
write_out(const char *out, const char *buf, size_t len,
    const struct inj_plan *p, const char *pro, mode_t mode)
{
	static const char wrap[] = "_pd_inject_steps(";
	char *tmp;
	int fd, e = 0;

	if (asprintf(&tmp, "%s.XXXXXX", out) < 0)
		pd_oom();
	if ((fd = mkstemp(tmp)) < 0) {
		fail(out, PD_EXIT_SYSTEM, "%s", strerror(errno));
		free(tmp);
		return -1;
	}
	if (pd_file_write_all(fd, buf, p->prologue_off) ||
	    pd_file_write_all(fd, pro, strlen(pro)) ||
	    pd_file_write_all(fd, buf + p->prologue_off, p->iter_beg - p->prologue_off) ||
	    pd_file_write_all(fd, wrap, sizeof wrap - 1) ||
	    pd_file_write_all(fd, buf + p->iter_beg, p->iter_end - p->iter_beg) ||
	    pd_file_write_all(fd, ")", 1) ||
	    pd_file_write_all(fd, buf + p->iter_end, len - p->iter_end) ||
	    fchmod(fd, mode & 0777) != 0)
		e = errno;
	if (close(fd) != 0 && !e)
		e = errno;
	if (!e && rename(tmp, out) != 0)
		e = errno;
	if (e) {
		unlink(tmp);
		fail(out, PD_EXIT_SYSTEM, "%s", strerror(e));
	}
	free(tmp);
	return e ? -1 : 0;
}

/* s quoted for a POSIX shell when it needs it (new string). */
static char *
shq(const char *s)
{
	char *o, *q;

	if (*s && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvw"
	    "xyz0123456789_/.,:=+-@%") == strlen(s))
		return strdup(s);
	if (!(q = o = malloc(4 * strlen(s) + 3)))
		pd_oom();
	*q++ = '\'';
	for (; *s; s++)
		if (*s == '\'')
			q = stpcpy(q, "'\\''");
		else
			*q++ = *s;
	*q++ = '\'';
	*q = '\0';
	return o;
}

static void
emit(const char *script, const char *out, const char *outdir, int stack,
    int from_opt, const struct inj_plan *p)
{
	json_t *r = pd_rec_new("pd.inject", 1, NULL), *l = json_object(),
	    *pr = json_object(), *act = json_array();
	char *qo = shq(out), *qd = shq(outdir), *rep, *qr, *cmd, *then;

	if (!(rep = strdup(outdir)))
		pd_oom();
	*strrchr(rep, '/') = '\0';	/* the report goes beside outdir */
	if (asprintf(&cmd, "%s/pd_report", *rep ? rep : "") < 0)
		pd_oom();
	qr = shq(cmd);
	free(cmd);
	if (asprintf(&cmd, "%s %s", p->distributed && stack != INJ_MS ?
	    "torchrun --standalone --nproc_per_node=1" : "python3", qo) < 0 ||
	    asprintf(&then, "pd-locate %s | pd-sum-step | pd-sum-comm | "
	    "pd-sum-mem | pd-sum-input | pd-sum-gaps | pd-hotspots | "
	    "pd-profile | pd-classify | pd-report -o %s", qd, qr) < 0)
		pd_oom();
	pd_set_str(r, "script", script);
	pd_set_str(r, "output", out);
	pd_set_str(r, "stack", stack_name[stack]);
	pd_set_str(r, "stack_from", from_opt ? "option" : "imports");
	pd_set_str(l, "file", script);
	pd_set_int(l, "line", p->loop_line);
	pd_set_str(l, "iterable", p->iterable);
	pd_set_str(l, "found_by", p->why);
	pd_set(r, "loop", l);
	pd_set_str(pr, "api", api_name[stack]);
	pd_set_int(pr, "wait", opt.wait);
	pd_set_int(pr, "warmup", opt.warmup);
	pd_set_int(pr, "active", opt.active);
	pd_set_int(pr, "repeat", 1);
	json_array_append_new(act, json_string("CPU"));
	json_array_append_new(act, json_string(stack == INJ_TORCH ?
	    "CUDA" : "NPU"));
	pd_set(pr, "activities", act);
	pd_set_bool(pr, "record_shapes", 1);
	pd_set_bool(pr, "profile_memory", 1);
	pd_set_bool(pr, "with_stack", opt.with_stack);
	pd_set_str(pr, "profiler_level", stack == INJ_NPU ? "Level1" : NULL);
	pd_set_str(pr, "aic_metrics", stack == INJ_NPU ? "PipeUtilization" :
	    NULL);
	pd_set_str(pr, "trace_handler", stack == INJ_MS ? NULL :
	    "tensorboard_trace_handler");
	pd_set(r, "profiler", pr);
	pd_set_str(r, "outdir", outdir);
	pd_set_bool(r, "distributed", p->distributed);
	pd_set_str(r, "command", cmd);
	pd_set_str(r, "then", then);
	pd_rec_emit(r);
	free(qo);
	free(qd);
	free(qr);
	free(rep);
	free(cmd);
	free(then);
}

static int
inject(const char *path, void *ctx)
{
	struct inj_plan p;
	struct stat st;
	char *buf, *script = NULL, *out = NULL, *outdir = NULL, *pro = NULL,
	    *given = opt.out ? strdup(opt.out) : default_out(path);
	size_t len;
	int stack, rc = -1;

	(void)ctx;
	if (read_script(path, &buf, &len) != 0) {
		free(given);
		return pd_diag_get_status();
	}
	stat(path, &st);
	inj_plan(buf, len, &p);
	if (!(script = realpath(path, NULL)) && !(script = strdup(path)))
		pd_oom();
	stack = opt.stack >= 0 ? opt.stack : p.stack;
	if (p.instrumented)
		fail(path, PD_EXIT_INPUT, "%s", "already instrumented by "
		    "pd-inject (it holds _pd_inject_steps)");
	else if (!p.loop_line)
		fail(path, PD_EXIT_INPUT, "%s", "no step loop found: no for "
		    "loop around backward() or an optimizer step, nor over a "
		    "data loader; nothing written");
	else if (stack < 0)
		fail(path, PD_EXIT_INPUT, "%s", "no torch, torch_npu or "
		    "mindspore import: name the stack with -s");
	else if (!(out = abspath(given)))
		fail(given, PD_EXIT_SYSTEM, "%s", strerror(errno));
	else if (script && strcmp(script, out) == 0)
		fail(given, PD_EXIT_USAGE, "%s", "the output would replace the "
		    "script itself");
	else if (!(outdir = outdir_for(out)))
		fail(NULL, PD_EXIT_SYSTEM, "%s", strerror(errno));
	else if ((pro = prologue(stack, outdir, script,
	    p.prologue_off > 0 && buf[p.prologue_off - 1] == '\n' &&
	    p.prologue_off > 1 && buf[p.prologue_off - 2] == '\r' ?
	    "\r\n" : "\n")) != NULL &&
	    write_out(out, buf, len, &p, pro, st.st_mode) == 0) {
		emit(script, out, outdir, stack, opt.stack >= 0, &p);
		rc = 0;
	}
	inj_plan_free(&p);
	free(buf);
	free(script);
	free(out);
	free(outdir);
	free(pro);
	free(given);
	return rc == 0 ? 0 : pd_diag_get_status();
}

int
main(int argc, char **argv)
{
	struct pd_stream s;
	int c, i, n = 0;

	pd_diag_init(argv[0]);
	while ((c = pd_getopt(argc, argv, "a:d:hkqo:S:s:w:W:", NULL, usage)) != -1) {
		switch (c) {
		case 'a':
			opt.active = (int)pd_opt_int('a', optarg, 0, 100000, "steps",
			    NULL);
			break;
		case 'd': opt.outdir = optarg; break;
		case 'h': pd_usage_exit(usage, 0);
		case 'k': opt.with_stack = 1; break;
		case 'o': opt.out = optarg; break;
		case 'q': pd_diag_quiet(1); break;
		case 'S': pd_share_set(optarg); break;
		case 's':
			for (opt.stack = 0; opt.stack < INJ_NSTACK &&
			    strcmp(optarg, stack_name[opt.stack]); opt.stack++)
				;
			if (opt.stack == INJ_NSTACK)
				pd_usage_exit(usage, 2);
			break;
		case 'w':
			opt.wait = (int)pd_opt_int('w', optarg, 0, 100000, "steps",
			    NULL);
			break;
		case 'W':
			opt.warmup = (int)pd_opt_int('W', optarg, 0, 100000, "steps",
			    NULL);
			break;
		default: pd_usage_exit(usage, 2);
		}
	}
	for (i = optind; i < argc; i++)
		n += strcmp(argv[i], "-") != 0;
	if (n != 1 || opt.active == 0 || (opt.outdir && !*opt.outdir) ||
	    (opt.out && !*opt.out))
		pd_usage_exit(usage, 2);
	memset(&s, 0, sizeof s);
	s.on_operand = inject;
	pd_stream_run(&s, argc - optind, argv + optind);
	return pd_diag_finish();
}
