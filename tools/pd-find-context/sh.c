/* The shell scanner: commands split on newlines, ; & | and && (quotes,
 * backslash-newlines, $(...) and comments understood), then per command
 * variable assignments, device visibility variables, the launcher with its
 * world size, the Python entry it starts, and config files it names. */
#include "pd-find-context/fc.h"
#include "pd_diag.h"

#include "pd_diag.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tok {
	char *s;
	long line;
};

struct shs {
	struct fc_ws *w;
	struct fc_file *f;
	struct fc_text t;
	struct tok *tok;
	size_t n, cap;
	json_t *vars;		/* name -> value, as stored by setvar */
	long line;		/* of the word being expanded */
	size_t work;		/* bytes scanned by expansion in this file */
	int cut_said;
};

/* What expansion may cost (pd-find-context(1), shell scripts under Input): a value
 * longer than FC_SH_VALMAX bytes is cut there and ends in "..."; the
 * expansions of one file scan at most FC_SH_WORK bytes in all, later
 * words are kept as written; references nest at most 5 deep. A script
 * that doubles a variable 30 times would otherwise need 4 GiB. */
#define FC_SH_VALMAX 4096
#define FC_SH_WORK ((size_t)16 << 20)

static void
push(struct shs *sh, char *s, long line)
{
	if (sh->n == sh->cap) {
		sh->cap = sh->cap ? 2 * sh->cap : 32;
		sh->tok = realloc(sh->tok, sh->cap * sizeof *sh->tok);
		if (!sh->tok)
			pd_oom();
	}
	sh->tok[sh->n].s = s;
	sh->tok[sh->n].line = line;
	sh->n++;
}

static const char *getvar(struct shs *sh, const char *name, size_t n);

struct val {
	char *s;
	size_t n, cap;
	int cut;
};

/* Append k bytes of s, up to FC_SH_VALMAX in all. */
static void
vput(struct val *o, const char *s, size_t k)
{
	if (o->n + k > FC_SH_VALMAX) {
		k = FC_SH_VALMAX - o->n;
		o->cut = 1;
	}
	if (o->n + k + 1 > o->cap) {
		o->cap = o->n + k + 1 > 2 * o->cap ? o->n + k + 1 : 2 * o->cap;
		if (!(o->s = realloc(o->s, o->cap)))
			pd_oom();
	}
	memcpy(o->s + o->n, s, k);
	o->n += k;
	o->s[o->n] = '\0';
}

/* s with $X, ${X}, ${X:-d}, ${X-d}, ${X:=d} expanded into o. */
static void
expand_into(struct shs *sh, struct val *o, const char *s, int depth)
{
	size_t k, e;
	const char *v, *c;
	char *d;

	while (*s && !o->cut) {
		int br = s[0] == '$' && s[1] == '{';

		if (sh->work > FC_SH_WORK) {	/* the rest as written */
			vput(o, s, strlen(s));
			return;
		}
		if (s[0] != '$' || depth > 4 || !(br || fc_ident(s[1]))) {
			k = s[0] == '$' ? 1 : strcspn(s, "$");
			sh->work += k;
			vput(o, s, k);
			s += k;
			continue;
		}
		for (k = 0; fc_ident(s[1 + br + k]); k++)
			;
		v = getvar(sh, s + 1 + br, k);
		e = 1 + br + k;
		sh->work += e;
		d = NULL;
		if (br) {
			if (!(c = strchr(s + e, '}'))) {
				vput(o, s, strlen(s));
				return;
			}
			sh->work += (size_t)(c - s) + 1 - e;
			if (s[e] == ':' && (s[e + 1] == '-' || s[e + 1] == '='))
				d = strndup(s + e + 2, (size_t)(c - s) - e - 2);
			else if (s[e] == '-')
				d = strndup(s + e + 1, (size_t)(c - s) - e - 1);
			else if (s[e] != '}') {
				vput(o, s, (size_t)(c - s) + 1);
				s = c + 1;
				continue;
			}
			e = (size_t)(c - s) + 1;
		}
		if (v || d)
			expand_into(sh, o, v ? v : d, depth + 1);
		else
			vput(o, s, e);
		free(d);
		s += e;
	}
}

/* s expanded from the script's own assignments (a default when X is
 * unset); other text as is. A cap reached is said once per file, at the
 * line of the word. New string. */
static char *
expand(struct shs *sh, const char *s)
{
	struct val o = { NULL, 0, 0, 0 };
	int spent = sh->work > FC_SH_WORK;

	vput(&o, "", 0);
	expand_into(sh, &o, s, 0);
	if (o.cut) {
		o.cut = 0;
		o.n = FC_SH_VALMAX - 3;
		vput(&o, "...", 3);
		if (!sh->cut_said) {
			sh->cut_said = 1;
			pd_warn(sh->f->abs, sh->line, "a shell variable expands "
			    "to more than %d bytes: cut there (later cuts in "
			    "this file are not reported)", FC_SH_VALMAX);
			pd_diag_status(PD_EXIT_INPUT);
		}
	}
	if (!spent && sh->work > FC_SH_WORK) {
		pd_warn(sh->f->abs, sh->line, "shell variable expansion "
		    "stopped after %zu MiB of work: the words from here on are "
		    "kept as written", FC_SH_WORK >> 20);
		pd_diag_status(PD_EXIT_INPUT);
	}
	return o.s;
}

/* Values are stored expanded, so that N=${N:-4} does not refer to
 * itself. */
static void
setvar(struct shs *sh, const char *name, size_t n, const char *raw)
{
	char *val = expand(sh, raw);

	json_object_setn_new_nocheck(sh->vars, name, n,
	    json_stringn_nocheck(val, strlen(val)));
	free(val);
}

static const char *
getvar(struct shs *sh, const char *name, size_t n)
{
	return json_string_value(json_object_getn(sh->vars, name, n));
}

/* An integer from a literal, $X, ${X}, ${X:-8}, ${X-8}, ${X:=8}; -1. */
static long
intval(struct shs *sh, const char *s, int depth)
{
	const char *v, *d = NULL;
	char *end;
	size_t n;
	long r;

	if (!s || !*s || depth > 4)
		return -1;
	if (s[0] != '$') {
		r = strtol(s, &end, 10);	/* no count above 2^20 is real */
		return *end || end == s || r < 0 || r > 1L << 20 ? -1 : r;
	}
	s++;
	if (*s == '{') {
		s++;
		for (n = 0; fc_ident(s[n]); n++)
			;
		if (s[n] == ':' && (s[n + 1] == '-' || s[n + 1] == '='))
			d = s + n + 2;
		else if (s[n] == '-')
			d = s + n + 1;
		else if (s[n] != '}')
			return -1;
	} else
		for (n = 0; fc_ident(s[n]); n++)
			;
	if ((v = getvar(sh, s, n)) != NULL)
		return intval(sh, v, depth + 1);
	if (d) {
		char *dv = strndup(d, strcspn(d, "}"));

		r = intval(sh, dv, depth + 1);
		free(dv);
		return r;
	}
	return -1;
}

static const char *
base(const char *s)
{
	const char *b = strrchr(s, '/');

	return b ? b + 1 : s;
}

/* Value of --opt=v or --opt v among tokens [a, e); NULL if absent. */
static const char *
opt(struct shs *sh, size_t a, size_t e, const char *name)
{
	size_t i, n = strlen(name);

	for (i = a; i < e; i++) {
		const char *s = sh->tok[i].s;

		if (strncmp(s, name, n) != 0)
			continue;
		if (s[n] == '=')
			return s + n + 1;
		if (s[n] == '\0' && i + 1 < e)
			return sh->tok[i + 1].s;
	}
	return NULL;
}

static long
opt2(struct shs *sh, size_t a, size_t e, const char *n1, const char *n2)
{
	const char *v = opt(sh, a, e, n1);

	if (!v && n2)
		v = opt(sh, a, e, n2);
	return v ? intval(sh, v, 0) : -2;	/* -2: absent */
}

static int
ispython(const char *s)
{
	const char *b = base(s);

	return strncmp(b, "python", 6) == 0 &&
	    (b[6] == '\0' || b[6] == '3' || b[6] == '2');
}

static int
endswith(const char *s, const char *e)
{
	size_t n = strlen(s), m = strlen(e);

	return n > m && strcmp(s + n - m, e) == 0;
}

static void
mark_entry(struct shs *sh, const char *name)
{
	long i = fc_resolve(sh->w, sh->f, name, FC_PY);
	size_t k;

	if (i < 0)	/* "$DIR/train.py": the first .py of that name */
		for (k = 0; k < sh->w->n && i < 0; k++)
			if (sh->w->f[k].kind == FC_PY &&
			    strcmp(base(sh->w->f[k].rel), base(name)) == 0)
				i = (long)k;
	if (i >= 0)
		sh->w->f[i].launched = 1;
}

static void
module_entry(struct shs *sh, const char *mod)
{
	char *p = malloc(strlen(mod) + 4), *q;

	if (!p)
		pd_oom();
	strcpy(p, mod);
	for (q = p; *q; q++)
		if (*q == '.')
			*q = '/';
	strcat(p, ".py");
	mark_entry(sh, p);
	free(p);
}

/* Launcher names, in the order of the enum below. */
enum { L_NONE, L_SHELL, L_TORCHRUN, L_TDRUN, L_TDLAUNCH, L_MSRUN, L_MPIRUN,
	L_DEEPSPEED, L_ACCEL, L_SRUN };
static const char *lname[] = { NULL, "shell", "torchrun",
	"torch.distributed.run", "torch.distributed.launch", "msrun",
	"mpirun", "deepspeed", "accelerate", "srun" };

static long
world(struct shs *sh, int l, size_t a, size_t e)
{
	long x, y;

	switch (l) {
	case L_TORCHRUN: case L_TDRUN: case L_TDLAUNCH:
		x = opt2(sh, a, e, "--nproc_per_node", "--nproc-per-node");
		y = opt2(sh, a, e, "--nnodes", NULL);
		if (y == -2)
			y = 1;
		return x >= 0 && y >= 0 ? x * y : -1;
	case L_MSRUN:
		x = opt2(sh, a, e, "--worker_num", "--worker-num");
		if (x == -2)
			x = opt2(sh, a, e, "--local_worker_num",
			    "--local-worker-num");
		return x;
	case L_MPIRUN:
		x = opt2(sh, a, e, "-np", "-n");
		if (x == -2)
			x = opt2(sh, a, e, "--np", "-c");
		return x;
	case L_DEEPSPEED:
		x = opt2(sh, a, e, "--num_gpus", "--num-gpus");
		y = opt2(sh, a, e, "--num_nodes", "--num-nodes");
		if (y == -2)
			y = 1;
		return x >= 0 && y >= 0 ? x * y : -1;
	case L_ACCEL:
		return opt2(sh, a, e, "--num_processes", "--num-processes");
	case L_SRUN:
		x = opt2(sh, a, e, "--ntasks", "-n");
		if (x != -2)
			return x;
		x = opt2(sh, a, e, "--ntasks-per-node", NULL);
		y = opt2(sh, a, e, "--nodes", "-N");
		if (y == -2)
			y = 1;
		return x >= 0 && y >= 0 ? x * y : -1;
	}
	return -1;
}

static void
launch(struct shs *sh, int l, size_t at, size_t script)
{
	struct fc_ws *w = sh->w;
	int prio = l == L_SHELL ? 1 : 3;	/* mp.spawn in Python is 2 */
	long ws;

	if (prio <= w->launch_prio)
		return;
	w->launch_prio = prio;
	w->launcher = lname[l];
	ws = world(sh, l, at + 1, script);
	json_decref(w->world_size);
	w->world_size = ws >= 0 ? json_integer(ws) : json_null();
	json_decref(w->launch_ev);
	w->launch_ev = fc_ev(sh->f, &sh->t, sh->tok[at].line);
}

/* One command: tokens [0, n). */
static void
command(struct shs *sh)
{
	size_t i = 0, k;
	int l = L_NONE;
	size_t at = 0;

	static const char *pre[] = { "do", "then", "else", "time", "nohup",
	    "exec", "env", "export", "local", "declare", "readonly", NULL };
	int j;

	for (j = 0; pre[j] && i < sh->n; j++)
		if (strcmp(sh->tok[i].s, pre[j]) == 0)
			i++, j = -1;
	for (; i < sh->n; i++) {	/* NAME=value words */
		const char *s = sh->tok[i].s, *eq;
		size_t n = 0;

		while (fc_ident(s[n]))
			n++;
		if (n == 0 || s[n] != '=' || (s[0] >= '0' && s[0] <= '9'))
			break;
		eq = s + n;
		sh->line = sh->tok[i].line;
		setvar(sh, s, n, eq + 1);
		if (fc_devvar(s, n)) {
			json_t *o = json_object();

			json_object_set_new(o, "var", pd_strn(s, n));
			json_object_set_new(o, "value", fc_jstr(eq + 1,
			    strlen(eq + 1), 200));
			json_object_set_new(o, "file", fc_jstr(sh->f->rel,
			    strlen(sh->f->rel), 0));
			json_object_set_new(o, "line",
			    json_integer(sh->tok[i].line));
			json_array_append_new(sh->w->devices, o);
		}
		if (((n == 9 && strncmp(s, "RANK_SIZE", 9) == 0) ||
		    (n == 10 && strncmp(s, "WORLD_SIZE", 10) == 0)) &&
		    sh->w->rank_size < 0)
			sh->w->rank_size = intval(sh, eq + 1, 0);
	}
	for (k = i; k < sh->n; k++) {	/* the command's words, expanded */
		char *x;

		sh->line = sh->tok[k].line;
		x = expand(sh, sh->tok[k].s);

		free(sh->tok[k].s);
		sh->tok[k].s = x;
	}
	for (k = i; k < sh->n; k++) {
		const char *s = sh->tok[k].s, *v = strchr(s, '=');

		fc_add_config(sh->w, sh->f, s[0] == '-' && v ? v + 1 : s);
	}
	for (; i < sh->n && l == L_NONE; i++) {
		const char *b = base(sh->tok[i].s);

		at = i;
		if (strcmp(b, "torchrun") == 0)
			l = L_TORCHRUN;
		else if (strcmp(b, "msrun") == 0)
			l = L_MSRUN;
		else if (strcmp(b, "mpirun") == 0 || strcmp(b, "mpiexec") == 0)
			l = L_MPIRUN;
		else if (strcmp(b, "deepspeed") == 0)
			l = L_DEEPSPEED;
		else if (strcmp(b, "srun") == 0)
			l = L_SRUN;
		else if (strcmp(b, "accelerate") == 0 && i + 1 < sh->n &&
		    strcmp(sh->tok[i + 1].s, "launch") == 0)
			l = L_ACCEL;
		else if (ispython(b)) {
			l = L_SHELL;
			if (i + 2 < sh->n && strcmp(sh->tok[i + 1].s, "-m") == 0) {
				const char *m = sh->tok[i + 2].s;

				if (strcmp(m, "torch.distributed.run") == 0)
					l = L_TDRUN;
				else if (strcmp(m, "torch.distributed.launch") == 0)
					l = L_TDLAUNCH;
				else {
					module_entry(sh, m);
					launch(sh, l, at, i + 3);
					return;
				}
			}
		}
	}
	if (l == L_NONE)
		return;
	for (k = at + 1; k < sh->n; k++)
		if (endswith(sh->tok[k].s, ".py"))
			break;
	if (k < sh->n)
		mark_entry(sh, sh->tok[k].s);
	else if (l == L_SHELL)
		return;		/* python without a script: not a launch */
	launch(sh, l, at, k);
}

static void
flush_cmd(struct shs *sh)
{
	size_t i;

	if (sh->n)
		command(sh);
	for (i = 0; i < sh->n; i++)
		free(sh->tok[i].s);
	sh->n = 0;
}

struct word {
	char *s;
	size_t n, cap;
	int on;
};

static void
wput(struct word *w, char c)
{
	if (w->n + 1 >= w->cap) {
		w->cap = w->cap ? 2 * w->cap : 64;
		w->s = realloc(w->s, w->cap);
		if (!w->s)
			pd_oom();
	}
	w->s[w->n++] = c;
	w->s[w->n] = '\0';
	w->on = 1;
}

static void
wend(struct shs *sh, struct word *w, long line)
{
	if (!w->on)
		return;
	push(sh, strndup(w->s ? w->s : "", w->n), line);
	w->n = 0;
	w->on = 0;
}

void
fc_sh_scan(struct fc_ws *w, struct fc_file *f, const char *b, size_t len)
{
	struct shs sh;
	struct word wd = { NULL, 0, 0, 0 };
	size_t i;
	long line = 1, wline = 1;
	int depth = 0;
	char q = 0;

	memset(&sh, 0, sizeof sh);
	sh.w = w;
	sh.f = f;
	sh.vars = json_object();
	fc_text_init(&sh.t, b, len);
	for (i = 0; i < len; i++) {	/* AMP flags anywhere in the script */
		const char *e = memchr(b + i, '\n', len - i);
		size_t n = e ? (size_t)(e - (b + i)) : len - i;
		char *ln = strndup(b + i, n);
		char *c = strchr(ln, '#');

		if (c && (c == ln || c[-1] == ' ' || c[-1] == '\t'))
			*c = '\0';
		if (fc_amp_cue(ln))
			w->amp = 1;
		free(ln);
		i += n;
	}
	for (i = 0; i < len; i++) {
		char c = b[i];

		if (!wd.on)
			wline = line;
		if (q == '\'') {
			if (c == '\'')
				q = 0;
			else {
				if (c == '\n')
					line++;
				wput(&wd, c);
			}
			continue;
		}
		if (c == '\\' && i + 1 < len) {
			if (b[i + 1] == '\n')
				line++;
			else
				wput(&wd, b[i + 1]);
			i++;
			continue;
		}
		if (q == '"') {
			if (c == '"')
				q = 0;
			else {
				if (c == '\n')
					line++;
				wput(&wd, c);
			}
			continue;
		}
		if (depth) {	/* inside $( ... ) or ` ... ` */
			if (c == '(' )
				depth++;
			else if (c == ')' || c == '`')
				depth--;
			if (c == '\n')
				line++;
			wput(&wd, c);
			continue;
		}
		switch (c) {
		case '\'':
		case '"':
			q = c;
			wd.on = 1;
			continue;
		case '#':
			if (!wd.on) {
				while (i + 1 < len && b[i + 1] != '\n')
					i++;
				continue;
			}
			break;
		case '$':
			if (i + 1 < len && b[i + 1] == '(') {
				wput(&wd, c);
				wput(&wd, '(');
				i++;
				depth = 1;
				continue;
			}
			break;
		case '`':
			wput(&wd, c);
			depth = 1;
			continue;
		case ' ': case '\t': case '\r':
			wend(&sh, &wd, wline);
			continue;
		case '\n': case ';': case '&': case '|': case '(': case ')':
			wend(&sh, &wd, wline);
			flush_cmd(&sh);
			if (c == '\n')
				line++;
			continue;
		}
		wput(&wd, c);
	}
	wend(&sh, &wd, wline);
	flush_cmd(&sh);
	free(wd.s);
	free(sh.tok);
	json_decref(sh.vars);
	fc_text_free(&sh.t);
}
