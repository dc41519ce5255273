/* The Python scanner: logical lines from lib/pd_pyscan (brackets and
 * backslashes joined, comments dropped, the inside of triple-quoted strings
 * blanked, newlines kept so an offset maps back to its line), then cues per
 * line (pass 1, every file) and the static checks of an entry script
 * (pass 2). */
#include "pd-find-context/fc.h"
#include "pd_diag.h"
#include "pd_pyscan.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

int
fc_ident(int c)
{
	return isalnum((unsigned char)c) || c == '_';
}

const char *
fc_tok(const char *s, const char *pat, int whole)
{
	size_t n = strlen(pat);
	const char *p = s;

	while ((p = strstr(p, pat)) != NULL) {
		if ((!fc_ident(pat[0]) || p == s || !fc_ident(p[-1])) &&
		    (!whole || !fc_ident(p[n])))
			return p;
		p++;
	}
	return NULL;
}

static int
starts(const char *s, const char *w)
{
	size_t n = strlen(w);

	return strncmp(s, w, n) == 0 && !fc_ident(s[n]);
}

/* End of the bracketed region that starts at p ('('), or the string end. */
static const char *
close_paren(const char *p)
{
	int d = 0;
	char q = 0;

	for (; *p; p++) {
		if (q) {
			if (*p == '\\' && p[1])
				p++;
			else if (*p == q)
				q = 0;
			continue;
		}
		if (*p == '\'' || *p == '"')
			q = *p;
		else if (*p == '(' || *p == '[' || *p == '{')
			d++;
		else if ((*p == ')' || *p == ']' || *p == '}') && --d == 0)
			return p;
	}
	return p;
}

/* ---- pass 1: cues ---- */

struct scan {
	struct fc_ws *w;
	struct fc_file *f;
	struct fc_text t;
};

static const char *train_cues[] = {
	".backward(", "zero_grad(", ".train(", "value_and_grad(",
	"TrainOneStepCell", "set_train()", "set_train(True)", NULL
};
static const char *infer_cues[] = {
	"no_grad(", "inference_mode(", ".eval()", ".generate(", ".predict(",
	"set_train(False)", NULL
};

static int
stack_of(const char *mod)
{
	if (starts(mod, "torch_npu"))
		return FC_NPU;
	if (starts(mod, "mindspore"))
		return FC_MS;
	if (starts(mod, "torch"))
		return FC_TORCH;
	return -1;
}

/* Record a module name for following local imports. */
static void
module(struct scan *sc, const char *p, size_t n, const char *sub, size_t sn)
{
	char *m;

	if (n == 0 || json_array_size(sc->f->py.mods) >= 256)
		return;
	if (asprintf(&m, "%.*s%s%.*s", (int)n, p,
	    sn && p[n - 1] != '.' ? "." : "", (int)sn, sub) < 0)
		pd_oom();
	json_array_append_new(sc->f->py.mods, fc_jstr(m, strlen(m), 0));
	free(m);
}

static size_t
modlen(const char *p)
{
	size_t n = 0;

	while (fc_ident(p[n]) || p[n] == '.')
		n++;
	return n;
}

static const char *
skipws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '(' ||
	    *p == ')')
		p++;
	return p;
}

static void
imports(struct scan *sc, const struct pd_pyline *l)
{
	const char *p = l->c, *from;
	size_t n, m;
	int k, seen = 0;

	if (starts(p, "from")) {
		from = skipws(p + 4);
		n = modlen(from);
		if ((k = stack_of(from)) >= 0)
			fc_ev_add(sc->f->py.imp[k], fc_ev(sc->f, &sc->t,
			    l->line));
		module(sc, from, n, "", 0);
		p = skipws(from + n);
		if (!starts(p, "import"))
			return;
		for (p = skipws(p + 6); *p; p = skipws(p + 1)) {
			if ((m = modlen(p)) > 0)
				module(sc, from, n, p, m);
			if (!(p = strchr(p, ',')))
				break;
		}
		return;
	}
	if (!starts(p, "import"))
		return;
	for (p = skipws(p + 6); *p; p = skipws(p + 1)) {
		/* one evidence per stack and logical line */
		if ((k = stack_of(p)) >= 0 && !(seen & 1 << k)) {
			seen |= 1 << k;
			fc_ev_add(sc->f->py.imp[k], fc_ev(sc->f, &sc->t,
			    pd_pyscan_line_at(l, p)));
		}
		module(sc, p, modlen(p), "", 0);
		if (!(p = strchr(p, ',')))
			break;
	}
}

static void
cues(struct scan *sc, const struct pd_pyline *l, const char **list, json_t *ev,
    int optim)
{
	const char *p = NULL;
	int i;

	for (i = 0; list[i] && !p; i++)
		p = fc_tok(l->c, list[i], 0);
	if (!p && optim)
		p = pd_pyscan_optim_step(l->c);
	if (p)
		fc_ev_add(ev, fc_ev(sc->f, &sc->t, pd_pyscan_line_at(l, p)));
}

/* "fp16: false", "--bf16 False", "fp16=False" switch a cue off; the
 * setting ends at , ; ) or the line's end. */
static int
negated(const char *p)
{
	const char *q;

	for (q = p; *q && q < p + 32 && !strchr(",;)\n", *q); q++)
		if (strncmp(q, "false", 5) == 0 || strncmp(q, "none", 4) == 0 ||
		    strncmp(q, ": no", 4) == 0 || strncmp(q, "=no", 3) == 0 ||
		    strncmp(q, "off", 3) == 0 || strncmp(q, ": 0", 3) == 0 ||
		    strncmp(q, "= 0", 3) == 0 || strncmp(q, "=0", 2) == 0)
			return 1;
	return 0;
}

int
fc_amp_cue(const char *s)
{
	static const char *subs[] = { "autocast", "gradscaler", "bf16",
	    "fp16", "float16", "mixed_precision", "amp_level",
	    "loss_scale", ".half()", "amp", NULL };
	const char *p;
	char *low = strdup(s);
	size_t i;
	int k, r = 0;

	if (!low)
		pd_oom();
	for (i = 0; low[i]; i++)
		low[i] = (char)tolower((unsigned char)low[i]);
	for (k = 0; subs[k] && !r; k++)
		for (p = low; !r && (p = strstr(p, subs[k])) != NULL; p++)
			if (strcmp(subs[k], "amp") != 0 || ((p == low ||
			    !fc_ident(p[-1])) && !fc_ident(p[3])))
				r = !negated(p);
	free(low);
	return r;
}

int
fc_devvar(const char *s, size_t n)
{
	static const char *vars[] = { "CUDA_VISIBLE_DEVICES",
	    "ASCEND_RT_VISIBLE_DEVICES", "ASCEND_VISIBLE_DEVICES",
	    "HIP_VISIBLE_DEVICES", NULL };
	int i;

	for (i = 0; vars[i]; i++)
		if (strlen(vars[i]) == n && strncmp(s, vars[i], n) == 0)
			return 1;
	return 0;
}

static void
device(struct scan *sc, const struct pd_pyline *l, const char *p, size_t vn)
{
	const char *v = p + vn, *e;
	json_t *o;

	/* os.environ["X"] = v, os.environ.setdefault("X", v),
	 * os.putenv("X", v): skip the closing quote, then ] = or , */
	if (*v == '"' || *v == '\'')
		v++;
	while (*v == ' ')
		v++;
	if (*v == ']') {
		v++;
		while (*v == ' ')
			v++;
		if (v[0] != '=' || v[1] == '=')
			return;
		v++;
	} else if (*v == ',') {
		if (!strstr(l->s, "setdefault(") && !strstr(l->s, "putenv("))
			return;
		v++;
	} else
		return;
	while (*v == ' ')
		v++;
	if (*v == '"' || *v == '\'') {
		e = strchr(v + 1, *v);
		v++;
		if (!e)
			e = v + strlen(v);
	} else {
		e = v;
		while (*e && *e != '\n' && *e != ';' && *e != '#')
			e++;
		if (strstr(l->s, "setdefault(") || strstr(l->s, "putenv("))
			while (e > v && e[-1] != ')')
				e--;
		if (e > v && e[-1] == ')' && *v != '(' &&
		    (strstr(l->s, "setdefault(") || strstr(l->s, "putenv(")))
			e--;
		while (e > v && e[-1] == ' ')
			e--;
	}
	o = json_object();
	json_object_set_new(o, "var", pd_strn(p, vn));
	json_object_set_new(o, "value", fc_jstr(v, (size_t)(e - v), 200));
	json_object_set_new(o, "file", fc_jstr(sc->f->rel,
	    strlen(sc->f->rel), 0));
	json_object_set_new(o, "line", json_integer(pd_pyscan_line_at(l, p)));
	json_array_append_new(sc->w->devices, o);
}

static void
devices(struct scan *sc, const struct pd_pyline *l)
{
	const char *p;

	if (!strstr(l->s, "VISIBLE_DEVICES") || !(strstr(l->s, "environ") ||
	    strstr(l->s, "putenv")))
		return;
	for (p = l->s; *p; p++) {
		size_t n = 0;

		if (*p != '"' && *p != '\'')
			continue;
		while (fc_ident(p[1 + n]))
			n++;
		if (p[1 + n] == *p && fc_devvar(p + 1, n)) {
			device(sc, l, p + 1, n);
			p += n + 1;
		}
	}
}

/* String literals naming config files. */
static void
configs(struct scan *sc, const struct pd_pyline *l)
{
	const char *p = l->s, *e;
	char *name;

	while ((p = strpbrk(p, "'\"")) != NULL) {
		e = strchr(p + 1, *p);
		if (!e)
			break;
		if (e - p > 1 && e - p < 512 && !memchr(p, '\n', (size_t)(e - p))) {
			name = strndup(p + 1, (size_t)(e - p - 1));
			fc_add_config(sc->w, sc->f, name);
			free(name);
		}
		p = e + 1;
	}
}

static void
bench(struct scan *sc, const struct pd_pyline *l)
{
	const char *p = strstr(l->c, "cudnn.benchmark");

	if (!p)
		return;
	p += 15;
	while (*p == ' ')
		p++;
	if (p[0] != '=' || p[1] == '=')
		return;
	p++;
	while (*p == ' ')
		p++;
	if (starts(p, "True") && !sc->f->py.bench_true)
		sc->f->py.bench_true = l->line;
	else if (starts(p, "False") && !sc->f->py.bench_false)
		sc->f->py.bench_false = l->line;
}

/* torch.multiprocessing.spawn(fn, nprocs=N): a launcher in Python, above
 * a shell script running python, below a distributed launcher. */
static void
spawn(struct scan *sc, const struct pd_pyline *l)
{
	struct fc_ws *w = sc->w;
	const char *p = fc_tok(l->c, "spawn", 1), *v;
	char *end;
	long n = -1;

	if (!p || p[5] != '(' || w->launch_prio >= 2 || p - l->c < 3 ||
	    (strncmp(p - 3, "mp.", 3) != 0 && (p - l->c < 16 ||
	    strncmp(p - 16, "multiprocessing.", 16) != 0)))
		return;
	if ((v = strstr(p, "nprocs")) != NULL) {
		v += 6;
		while (*v == ' ')
			v++;
		if (*v == '=') {
			n = strtol(v + 1, &end, 10);
			while (*end == ' ' || *end == '\n')
				end++;
			if (end == v + 1 || (*end != ',' && *end != ')') ||
			    n <= 0)
				n = -1;
		}
	}
	w->launch_prio = 2;
	w->launcher = "mp.spawn";
	json_decref(w->world_size);
	w->world_size = n > 0 ? json_integer(n) : json_null();
	json_decref(w->launch_ev);
	w->launch_ev = fc_ev(sc->f, &sc->t, pd_pyscan_line_at(l, p));
}

static void
scan_line(const struct pd_pyline *l, void *ctx)
{
	struct scan *sc = ctx;
	struct fc_py *py = &sc->f->py;
	const char *p;

	imports(sc, l);
	if (l->indent == 0 && starts(l->s, "if") && strstr(l->s, "__name__") &&
	    strstr(l->s, "__main__") && !py->guard)
		py->guard = l->line;
	cues(sc, l, train_cues, py->train, 1);
	cues(sc, l, infer_cues, py->infer, 0);
	if (!py->amp && fc_amp_cue(l->s))
		py->amp = 1;
	if (!py->accel && (fc_tok(l->s, "cuda", 0) || fc_tok(l->s, "npu", 0)))
		py->accel = 1;
	if ((p = strstr(l->c, ".cuda(")) || (p = strstr(l->c, ".npu(")) ||
	    (p = strstr(l->s, "'cuda")) || (p = strstr(l->s, "\"cuda")) ||
	    (p = strstr(l->s, "'npu")) || (p = strstr(l->s, "\"npu")))
		fc_ev_add(py->device, fc_ev(sc->f, &sc->t,
		    pd_pyscan_line_at(l, p)));
	if (!py->conv && ((p = strcasestr(l->c, "conv2d")) ||
	    (p = strcasestr(l->c, "conv3d")) || (p = strcasestr(l->c, "resnet"))))
		py->conv = pd_pyscan_line_at(l, p);
	bench(sc, l);
	spawn(sc, l);
	devices(sc, l);
	configs(sc, l);
}

void
fc_py_scan(struct fc_ws *w, struct fc_file *f, const char *buf, size_t len)
{
	struct scan sc = { w, f, { NULL, 0, NULL, 0 } };

	fc_text_init(&sc.t, buf, len);
	pd_pyscan_lines(buf, len, scan_line, &sc);
	fc_text_free(&sc.t);
}

/* ---- pass 2: static checks of an entry script ---- */

#define HINT_NOTE " This is a hint from reading the code, not a verdict: " \
	"confirm it with the profile before acting on it."

enum {
	C_WORKERS_ABSENT, C_WORKERS_ZERO, C_PIN_ABSENT, C_PIN_OFF, C_NO_AMP,
	C_ITEM, C_CPU, C_PRINT, C_SYNC, C_DISK, C_BENCH_ABSENT, C_BENCH_OFF
};

static const struct check {
	const char *id, *severity, *why, *hint;
} checks[] = {
	{ "dataloader_workers", "warn",
	  "DataLoader is built without num_workers, so it defaults to 0: "
	  "every batch is loaded and transformed in the training process "
	  "between steps while the device waits.",
	  "set num_workers (for example 4 to 8 per device, within the CPU "
	  "cores available) and persistent_workers=True" },
	{ "dataloader_workers", "warn",
	  "DataLoader has num_workers=0: every batch is loaded and "
	  "transformed in the training process between steps while the "
	  "device waits.",
	  "set num_workers (for example 4 to 8 per device, within the CPU "
	  "cores available) and persistent_workers=True" },
	{ "pin_memory", "info",
	  "DataLoader without pin_memory on an accelerator job: each batch "
	  "is copied to the device from pageable memory, which is slower and "
	  "cannot overlap with compute.",
	  "pass pin_memory=True and move batches with "
	  ".to(device, non_blocking=True)" },
	{ "pin_memory", "warn",
	  "DataLoader has pin_memory=False on an accelerator job: each batch "
	  "is copied to the device from pageable memory, which is slower and "
	  "cannot overlap with compute.",
	  "pass pin_memory=True and move batches with "
	  ".to(device, non_blocking=True)" },
	{ "no_amp", "info",
	  "no automatic mixed precision anywhere in the workspace (no "
	  "autocast, torch.cuda.amp, amp.initialize, GradScaler, bf16 or "
	  "fp16 flag): the job likely computes in float32, which leaves the "
	  "matrix units underused and doubles memory traffic.",
	  "run the forward pass under torch.autocast (bf16 where supported, "
	  "fp16 with a GradScaler), or set a MindSpore amp_level" },
	{ "item_in_loop", "warn",
	  ".item() inside the step loop copies a value to the host and waits "
	  "for the device to finish all queued work, every step.",
	  "accumulate on the device and read values every N steps or after "
	  "the loop" },
	{ "cpu_in_loop", "warn",
	  ".cpu()/.numpy()/.tolist() inside the step loop copies a tensor to "
	  "the host and waits for the device, every step.",
	  "keep tensors on the device in the loop; copy every N steps or "
	  "after the loop" },
	{ "print_in_loop", "warn",
	  "print of a tensor value inside the step loop forces a "
	  "device-to-host copy and a wait for the device.",
	  "log every N steps, from values already on the host" },
	{ "sync_in_loop", "warn",
	  "synchronize() inside the step loop stalls the host until the "
	  "device is idle, so no work is queued ahead of the device.",
	  "remove it, or keep it only around regions timed while profiling" },
	{ "disk_io_in_loop", "warn",
	  "data is read from disk inside the step loop, on the training "
	  "process's critical path, while the device waits.",
	  "load through a Dataset and a DataLoader with workers, or once "
	  "before the loop" },
	{ "cudnn_benchmark", "info",
	  "a convolutional network on a CUDA job without "
	  "torch.backends.cudnn.benchmark = True: cuDNN runs default "
	  "convolution algorithms instead of timing the fastest for the "
	  "input shapes.",
	  "set torch.backends.cudnn.benchmark = True when input shapes are "
	  "fixed" },
	{ "cudnn_benchmark", "warn",
	  "torch.backends.cudnn.benchmark is set False for a convolutional "
	  "network on a CUDA job: cuDNN runs default convolution algorithms "
	  "instead of timing the fastest for the input shapes.",
	  "set torch.backends.cudnn.benchmark = True when input shapes are "
	  "fixed" },
};

static json_t *
finding(int c, const struct fc_file *f, long line)
{
	json_t *o = json_object();
	char *text;

	if (asprintf(&text, "%s%s", checks[c].why, HINT_NOTE) < 0)
		pd_oom();
	json_object_set_new(o, "check", json_string(checks[c].id));
	json_object_set_new(o, "file", fc_jstr(f->rel, strlen(f->rel), 0));
	json_object_set_new(o, "line", json_integer(line));
	json_object_set_new(o, "severity", json_string(checks[c].severity));
	json_object_set_new(o, "text", pd_str(text));
	json_object_set_new(o, "hint", json_string(checks[c].hint));
	free(text);
	return o;
}

json_t *
fc_finding_bench(const struct fc_file *f, long line, int off)
{
	return finding(off ? C_BENCH_OFF : C_BENCH_ABSENT, f, line);
}

/* keyword=value inside args [a, e): pointer to the value or NULL. */
static const char *
kwarg(const char *a, const char *e, const char *kw)
{
	const char *p = a;

	while ((p = fc_tok(p, kw, 1)) != NULL && p < e) {
		const char *v = p + strlen(kw);

		while (*v == ' ' || *v == '\n')
			v++;
		if (v[0] == '=' && v[1] != '=') {
			v++;
			while (*v == ' ' || *v == '\n')
				v++;
			return v;
		}
		p++;
	}
	return NULL;
}

struct check_ctx {
	const struct fc_file *f;
	const struct fc_job *job;
	json_t *out;
	char **loaders;		/* names assigned from DataLoader( */
	size_t nloaders;
	long first_loop, train_loop;
};

static void
add(struct check_ctx *cc, int c, long line)
{
	json_array_append_new(cc->out, finding(c, cc->f, line));
}

static void
dataloader(struct check_ctx *cc, const struct pd_pyline *l)
{
	const char *p = l->c, *a, *e, *v, *eq;

	if (starts(p, "class") || starts(p, "def") || starts(p, "import") ||
	    starts(p, "from"))
		return;
	while ((p = fc_tok(p, "DataLoader", 1)) != NULL) {
		a = p + 10;
		if (*a != '(') {
			p++;
			continue;
		}
		e = close_paren(a);
		/* the name it is assigned to, for finding the step loop */
		eq = strchr(l->c, '=');
		if (eq && eq < p && eq[1] != '=') {
			const char *s = l->c, *t = s;

			while (fc_ident(*t) || *t == '.')
				t++;
			if (t > s && cc->nloaders < 64) {
				cc->loaders = realloc(cc->loaders,
				    (cc->nloaders + 1) * sizeof *cc->loaders);
				cc->loaders[cc->nloaders++] =
				    strndup(s, (size_t)(t - s));
			}
		}
		if (!memmem(a, (size_t)(e - a), "**", 2)) {
			if (!(v = kwarg(a, e, "num_workers")) || v >= e)
				add(cc, C_WORKERS_ABSENT, pd_pyscan_line_at(l, p));
			else if (v[0] == '0' && !fc_ident(v[1]) && v[1] != '.')
				add(cc, C_WORKERS_ZERO, pd_pyscan_line_at(l, v));
			if (cc->job->accel && cc->job->stack != FC_MS) {
				v = kwarg(a, e, "pin_memory");
				if (!v || v >= e)
					add(cc, C_PIN_ABSENT, pd_pyscan_line_at(l, p));
				else if (starts(v, "False"))
					add(cc, C_PIN_OFF, pd_pyscan_line_at(l, v));
			}
		}
		p = e;
	}
}

static int
loaderish(struct check_ctx *cc, const char *s, size_t n)
{
	char *it = strndup(s, n), *p;
	size_t i;
	int r = 0;

	for (p = it; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	if (strstr(it, "loader") || strstr(it, "create_dict_iterator") ||
	    strstr(it, "create_tuple_iterator") || fc_tok(it, "dl", 1) ||
	    strstr(it, "_dl"))
		r = 1;
	for (i = 0; i < cc->nloaders && !r; i++)
		if (fc_tok(s, cc->loaders[i], 1) &&
		    fc_tok(s, cc->loaders[i], 1) < s + n)
			r = 1;
	free(it);
	return r;
}

/* "for ... in ITER:" with a data loader as ITER. */
static int
step_loop(struct check_ctx *cc, const struct pd_pyline *l)
{
	const char *p = l->c, *in;

	if (starts(p, "async"))
		p += 5;
	while (*p == ' ')
		p++;
	if (!starts(p, "for") || l->c[l->n - 1] != ':')
		return 0;
	if (!(in = fc_tok(p, "in", 1)))
		return 0;
	return loaderish(cc, in + 2, (size_t)(l->c + l->n - 1 - (in + 2)));
}

static int
tensorish(const char *a, const char *e)
{
	static const char *w[] = { "loss", "logit", "output", "pred",
	    "tensor", "grad", ".item(", ".mean(", ".sum(", NULL };
	char *s = strndup(a, (size_t)(e - a)), *p;
	int i, r = 0;

	for (p = s; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	for (i = 0; w[i] && !r; i++)
		r = strstr(s, w[i]) != NULL;
	free(s);
	return r;
}

/* The condition of an if or elif header (from the keyword to the end)
 * is a logging interval: a modulo, as in "step % log_every == 0" or
 * "(i + 1) % args.log_interval == 0", strings blanked. */
static int
interval_if(const char *c, const char *before)
{
	const char *m;

	if (!starts(c, "if") && !starts(c, "elif"))
		return 0;
	m = strchr(c, '%');
	return m && (!before || m < before);
}

/* Line j of the loop body whose header is line h runs every N steps only:
 * it is, or sits under, an if on a logging interval (p is where the call
 * is in line j, for "if i % 10 == 0: print(loss)" on one line). */
static int
interval_guarded(const struct pd_pylines *ls, size_t h, size_t j,
    const char *p)
{
	const struct pd_pyline *l = &ls->l[j];
	int thr = l->indent;
	size_t k;

	if (interval_if(l->c, l->c + (p - l->s)))
		return 1;
	for (k = j; k-- > h + 1 && thr > ls->l[h].indent;) {
		if (ls->l[k].indent >= thr)
			continue;
		if (interval_if(ls->l[k].c, NULL))
			return 1;
		thr = ls->l[k].indent;
	}
	return 0;
}

/* Line j of the body of the step loop whose header is line h. The host
 * copies (.item(), .cpu(), print of a tensor) are what the hints say to do
 * every N steps: under a logging interval they are not flagged. */
static void
in_loop(struct check_ctx *cc, const struct pd_pylines *ls, size_t h,
    size_t j)
{
	const struct pd_pyline *l = &ls->l[j];
	static const char *disk[] = { "np.load(", "numpy.load(", "torch.load(",
	    "Image.open(", "pd.read_csv(", "pandas.read_csv(", "cv2.imread(",
	    "imageio.imread(", "pickle.load(", "json.load(", "h5py.File(",
	    NULL };
	const char *p;
	int i;

	/* host-device syncs cost only on an accelerator */
	if (cc->job->accel && (p = strstr(l->s, ".item()")) &&
	    !interval_guarded(ls, h, j, p))
		add(cc, C_ITEM, pd_pyscan_line_at(l, p));
	if (cc->job->accel && ((p = strstr(l->s, ".cpu()")) ||
	    (p = strstr(l->s, ".numpy()")) || (p = strstr(l->s, ".tolist()"))) &&
	    !interval_guarded(ls, h, j, p))
		add(cc, C_CPU, pd_pyscan_line_at(l, p));
	if (cc->job->accel && (p = fc_tok(l->s, "print", 1)) && p[5] == '(' &&
	    (p == l->s || p[-1] != '.') && tensorish(p, close_paren(p + 5)) &&
	    !interval_guarded(ls, h, j, p))
		add(cc, C_PRINT, pd_pyscan_line_at(l, p));
	if (cc->job->accel && (p = strstr(l->s, "synchronize(")))
		add(cc, C_SYNC, pd_pyscan_line_at(l, p));
	p = NULL;
	for (i = 0; disk[i] && !p; i++)
		p = fc_tok(l->s, disk[i], 0);
	if (!p && (p = fc_tok(l->s, "open(", 0)) && p > l->s && p[-1] == '.')
		p = NULL;
	if (p)
		add(cc, C_DISK, pd_pyscan_line_at(l, p));
}

static int
loop_header(const struct pd_pyline *l)
{
	const char *p = l->c;

	if (starts(p, "async"))
		p += 5;
	while (*p == ' ')
		p++;
	return (starts(p, "for") || starts(p, "while")) && l->c[l->n - 1] == ':';
}

static int
train_step(const char *c)
{
	return strstr(c, ".backward(") || pd_pyscan_optim_step(c);
}

/* Mark the innermost loop around each backward() or optimizer step: a
 * training step loop even when it does not iterate a loader (for step in
 * range(n): x = next(it)). */
static void
train_loops(const struct pd_pylines *ls, char *mark)
{
	size_t j, k;

	for (j = 0; j < ls->n; j++) {
		int thr = ls->l[j].indent;

		if (!train_step(ls->l[j].c))
			continue;
		for (k = j; k-- > 0 && thr > 0;) {
			const struct pd_pyline *h = &ls->l[k];

			if (h->indent >= thr)
				continue;
			if (loop_header(h)) {
				mark[k] = 1;
				break;
			}
			if (starts(h->c, "def") || starts(h->c, "class") ||
			    starts(h->c, "async"))
				break;
			thr = h->indent;
		}
	}
}

void
fc_py_check(struct fc_ws *w, const struct fc_file *f, const char *buf,
    size_t len, const struct fc_job *job, int entry, json_t *findings)
{
	struct pd_pylines ls;
	struct check_ctx cc = { f, job, findings, NULL, 0, 0, 0 };
	size_t i, j;
	long guard = f->py.guard ? f->py.guard : 1;
	char *mark;

	(void)w;
	pd_pyscan_all(buf, len, &ls);
	if (!(mark = calloc(ls.n + 1, 1)))
		pd_oom();
	train_loops(&ls, mark);
	if (job->stack == FC_TORCH || job->stack == FC_NPU || job->stack < 0)
		for (i = 0; i < ls.n; i++)
			dataloader(&cc, &ls.l[i]);
	for (i = 0; i < ls.n; i++) {
		if (!mark[i] && !step_loop(&cc, &ls.l[i]))
			continue;
		if (!cc.first_loop)
			cc.first_loop = ls.l[i].line;
		for (j = i + 1; j < ls.n && ls.l[j].indent > ls.l[i].indent;
		    j++) {
			in_loop(&cc, &ls, i, j);
			if (!cc.train_loop && train_step(ls.l[j].c))
				cc.train_loop = ls.l[i].line;
		}
		i = j - 1;
	}
	if (entry && !job->amp && job->stack >= 0 && job->accel)
		add(&cc, C_NO_AMP, cc.train_loop ? cc.train_loop :
		    cc.first_loop ? cc.first_loop : guard);
	pd_pyscan_free(&ls);
	free(mark);
	for (i = 0; i < cc.nloaders; i++)
		free(cc.loaders[i]);
	free(cc.loaders);
}
