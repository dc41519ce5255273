/* The workspace walk: sorted, depth-bounded, skipping hidden dirs, virtual
 * environments, caches and big files; reading files whole with checks. */
#include "pd-find-context/fc.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pd_diag.h"

static const char *skipdirs[] = {
	"__pycache__", "node_modules", "site-packages", "venv", "virtualenv",
	NULL
};

static int
has_ext(const char *name, const char *ext)
{
	size_t n = strlen(name), e = strlen(ext);

	return n > e && strcasecmp(name + n - e, ext) == 0;
}

int
fc_conf_ext(const char *name)
{
	static const char *ext[] = { ".yaml", ".yml", ".json", ".toml",
	    ".ini", ".cfg", NULL };
	int i;

	for (i = 0; ext[i]; i++)
		if (has_ext(name, ext[i]))
			return 1;
	return 0;
}

static int
kind_of(const char *name)
{
	if (strcmp(name, "env.lock.json") == 0)
		return FC_LOCK;
	if (has_ext(name, ".py"))
		return FC_PY;
	if (has_ext(name, ".sh") || has_ext(name, ".bash") ||
	    has_ext(name, ".slurm") || has_ext(name, ".sbatch"))
		return FC_SH;
	if (has_ext(name, ".log") || has_ext(name, ".txt") ||
	    has_ext(name, ".out"))
		return FC_LOG;
	if (fc_conf_ext(name))
		return FC_CONF;
	return FC_OTHER;
}

void
fc_skip(struct fc_ws *w, const char *rel, const char *why)
{
	json_t *o = json_object();

	json_object_set_new(o, "file", fc_jstr(rel, strlen(rel), 0));
	json_object_set_new(o, "reason", pd_str(why));
	json_array_append_new(w->skipped, o);
}

static int
byname(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static char *
join(const char *a, const char *b)
{
	char *s;

	if (!a || !*a)
		return strdup(b);
	if (asprintf(&s, "%s%s%s", a, a[strlen(a) - 1] == '/' ? "" : "/",
	    b) < 0)
		return NULL;
	return s;
}

static int
is_venv(const char *abs, const char *name)
{
	struct stat st;
	char *cfg;
	int i, r;

	for (i = 0; skipdirs[i]; i++)
		if (strcmp(name, skipdirs[i]) == 0)
			return 1;
	cfg = join(abs, "pyvenv.cfg");
	r = cfg && stat(cfg, &st) == 0;
	free(cfg);
	return r;
}

static void
add_file(struct fc_ws *w, const char *rel, const char *abs, int kind,
    int depth)
{
	struct fc_file *f;

	if (w->n == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 64;
		w->f = realloc(w->f, w->cap * sizeof *w->f);
		if (!w->f)
			pd_oom();
	}
	f = &w->f[w->n++];
	memset(f, 0, sizeof *f);
	f->rel = strdup(rel);
	f->abs = strdup(abs);
	f->kind = kind;
	f->depth = depth;
}

static void
walk(struct fc_ws *w, const char *rel, int depth)
{
	struct dirent **ent;
	char *dir = rel ? join(w->root, rel) : strdup(w->root);
	int i, n;

	n = scandir(dir, &ent, NULL, byname);
	if (n < 0) {
		pd_warn(dir, 0, "%s; skipped", strerror(errno));
		pd_diag_status(PD_EXIT_INPUT);
		fc_skip(w, rel ? rel : ".", "unreadable directory");
		free(dir);
		return;
	}
	for (i = 0; i < n; i++) {
		const char *name = ent[i]->d_name;
		char *crel, *cabs;
		struct stat st;
		int kind;

		if (name[0] == '.') {
			free(ent[i]);
			continue;
		}
		crel = join(rel, name);
		cabs = join(w->root, crel);
		if (lstat(cabs, &st) == 0 && S_ISDIR(st.st_mode)) {
			if (depth < w->maxdepth && !is_venv(cabs, name))
				walk(w, crel, depth + 1);
		} else if ((kind = kind_of(name)) != FC_OTHER &&
		    stat(cabs, &st) == 0 && S_ISREG(st.st_mode)) {
			if (st.st_size > FC_MAXBYTES) {
				pd_note("%s: skipped: larger than 4 MiB", cabs);
				fc_skip(w, crel, "larger than 4 MiB");
			} else
				add_file(w, crel, cabs, kind, depth);
		}
		free(crel);
		free(cabs);
		free(ent[i]);
	}
	free(ent);
	free(dir);
}

int
fc_walk(struct fc_ws *w)
{
	walk(w, NULL, 0);
	return 0;
}

int
fc_read(struct fc_ws *w, struct fc_file *f, char **buf, size_t *len)
{
	FILE *fp = fopen(f->abs, "rb");
	char *b;
	size_t n;

	*buf = NULL;
	*len = 0;
	if (!fp) {
		pd_warn(f->abs, 0, "%s; skipped", strerror(errno));
		pd_diag_status(PD_EXIT_INPUT);
		fc_skip(w, f->rel, "unreadable");
		return -1;
	}
	b = malloc(FC_MAXBYTES + 2);
	if (!b)
		pd_oom();
	n = fread(b, 1, FC_MAXBYTES + 1, fp);
	if (ferror(fp)) {
		pd_warn(f->abs, 0, "read error: %s; skipped", strerror(errno));
		pd_diag_status(PD_EXIT_INPUT);
		fc_skip(w, f->rel, "unreadable");
		fclose(fp);
		free(b);
		return -1;
	}
	fclose(fp);
	if (memchr(b, '\0', n)) {
		pd_warn(f->abs, 0, "binary file; skipped");
		pd_diag_status(PD_EXIT_INPUT);
		fc_skip(w, f->rel, "binary");
		free(b);
		return -1;
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}

void
fc_text_init(struct fc_text *t, const char *buf, size_t len)
{
	size_t i, cap = 64;

	t->buf = buf;
	t->len = len;
	t->n = 0;
	t->off = malloc(cap * sizeof *t->off);
	if (!t->off)
		pd_oom();
	t->off[t->n++] = 0;
	for (i = 0; i < len; i++) {
		if (buf[i] != '\n' || i + 1 == len)
			continue;
		if ((size_t)t->n == cap) {
			cap *= 2;
			t->off = realloc(t->off, cap * sizeof *t->off);
			if (!t->off)
				pd_oom();
		}
		t->off[t->n++] = i + 1;
	}
}

void
fc_text_free(struct fc_text *t)
{
	free(t->off);
	t->off = NULL;
}

static size_t
utf8_len(const unsigned char *s, size_t n)
{
	size_t k, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		k = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		k = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		k = 4;
	else
		return 0;
	if (k > n)
		return 0;
	for (i = 1; i < k; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if (k == 3 && s[0] == 0xe0 && s[1] < 0xa0)
		return 0;
	if (k == 3 && s[0] == 0xed && s[1] >= 0xa0)
		return 0;
	if (k == 4 && s[0] == 0xf0 && s[1] < 0x90)
		return 0;
	if (k == 4 && s[0] == 0xf4 && s[1] >= 0x90)
		return 0;
	return k;
}

json_t *
fc_jstr(const char *s, size_t n, size_t max)
{
	char *o = malloc(n + 1);
	size_t i = 0, j = 0, k;
	json_t *r;

	if (!o)
		pd_oom();
	while (i < n) {
		k = utf8_len((const unsigned char *)s + i, n - i);
		if (max && j + (k ? k : 1) > max)
			break;
		if (k == 0) {
			o[j++] = '?';
			i++;
			continue;
		}
		if (k == 1 && (unsigned char)s[i] < 0x20)
			o[j++] = ' ';	/* tabs and control bytes */
		else
			memcpy(o + j, s + i, k), j += k;
		i += k;
	}
	r = pd_strn(o, j);
	free(o);
	return r;
}

json_t *
fc_text_line(const struct fc_text *t, long n)
{
	const char *s, *e;

	if (n < 1 || n > t->n)
		return json_string("");
	s = t->buf + t->off[n - 1];
	e = memchr(s, '\n', t->len - t->off[n - 1]);
	if (!e)
		e = t->buf + t->len;
	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		e--;
	return fc_jstr(s, (size_t)(e - s), 200);
}

json_t *
fc_ev(const struct fc_file *f, const struct fc_text *t, long line)
{
	json_t *o = json_object();

	json_object_set_new(o, "file", fc_jstr(f->rel, strlen(f->rel), 0));
	json_object_set_new(o, "line", json_integer(line));
	json_object_set_new(o, "text", fc_text_line(t, line));
	return o;
}

void
fc_ev_add(json_t *arr, json_t *ev)
{
	if (json_array_size(arr) < FC_MAXEV)
		json_array_append(arr, ev);
	json_decref(ev);
}

/* Normalize a/./b and a/../b; returns a new string or NULL (escapes). */
static char *
normpath(const char *p)
{
	char *s = strdup(p), *out = malloc(strlen(p) + 2), *tok, *save;
	size_t n = 0;

	if (!s || !out)
		pd_oom();
	out[0] = '\0';
	for (tok = strtok_r(s, "/", &save); tok; tok = strtok_r(NULL, "/",
	    &save)) {
		if (strcmp(tok, ".") == 0)
			continue;
		if (strcmp(tok, "..") == 0) {
			char *sl;

			if (n == 0) {
				free(s);
				free(out);
				return NULL;
			}
			sl = strrchr(out, '/');
			n = sl ? (size_t)(sl - out) : 0;
			out[n] = '\0';
			continue;
		}
		if (n)
			out[n++] = '/';
		strcpy(out + n, tok);
		n += strlen(tok);
	}
	free(s);
	return out;
}

static long
lookup(struct fc_ws *w, const char *rel, int kind)
{
	size_t i;

	for (i = 0; i < w->n; i++)
		if (strcmp(w->f[i].rel, rel) == 0 &&
		    (!kind || w->f[i].kind == kind))
			return (long)i;
	return -1;
}

long
fc_resolve(struct fc_ws *w, const struct fc_file *from, const char *name,
    int kind)
{
	size_t rl = strlen(w->root);
	const char *sl;
	char *p, *q;
	long r = -1;

	if (!*name || strchr(name, '$'))
		return -1;
	if (name[0] == '/') {
		if (strncmp(name, w->root, rl) != 0 || name[rl] != '/')
			return -1;
		name += rl + 1;
	}
	if ((q = normpath(name)) != NULL) {
		r = lookup(w, q, kind);
		free(q);
	}
	if (r >= 0 || !from || !(sl = strrchr(from->rel, '/')))
		return r;
	if (asprintf(&p, "%.*s/%s", (int)(sl - from->rel), from->rel,
	    name) < 0)
		return -1;
	if ((q = normpath(p)) != NULL) {
		r = lookup(w, q, kind);
		free(q);
	}
	free(p);
	return r;
}

void
fc_add_config(struct fc_ws *w, const struct fc_file *from, const char *name)
{
	long i;

	if (!fc_conf_ext(name))
		return;
	i = fc_resolve(w, from, name, 0);
	if (i >= 0 && (w->f[i].kind == FC_CONF || w->f[i].kind == FC_LOCK))
		w->f[i].config = w->f[i].kind == FC_CONF;
}
