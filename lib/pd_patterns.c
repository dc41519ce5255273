#include "pd_patterns.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pd_diag.h"
#include "pd_share.h"
#include "pd_trace.h"

/* Shapes matched without the general matcher (same results). */
enum { G_ANY, G_EXACT, G_PREFIX, G_CONTAINS, G_SUFFIX };

/* Names matched lately and their answers, by a hash of the name: a
 * tool asks about the same few kernel names millions of times. The
 * memory is allocated once: no allocation a name, whatever the churn.
 * A slot holds an answer of the memo's generation gen only, its name
 * packed in the arena after the names before it: the memory starts
 * zeroed (generation 0, never current), and a new pattern, or a name
 * that no longer fits in the arena, empties every slot by a new
 * generation. So nothing is written before it is used: a tool's
 * start-up does not fault in the memo's 136 KiB, and the few names of a
 * small trace share a page or two. */
#define MEMO		256
#define MEMO_LEN	512	/* longer names are matched every time */

struct memo {
	uint64_t gen;		/* the current generation, from 1 */
	size_t used;		/* of the arena, in this generation */
	struct slot {
		uint64_t gen;	/* the generation it was filled in */
		size_t len, m, off;	/* off: its name in the arena */
	} slot[MEMO];
	char arena[MEMO * MEMO_LEN];
};

struct pd_patterns {
	char **v;
	unsigned char *kind;
	size_t *lit;		/* length of the literal part */
	size_t n, cap;
	struct memo *memo;	/* NULL: none */
	struct pd_idmemo *ids;	/* answers by ev->name_id; NULL: none */
};

static void
memo_clear(struct pd_patterns *p)
{
	if (p->memo) {
		p->memo->gen++;
		p->memo->used = 0;
	}
}

static size_t
memo_slot(const char *s, size_t n)
{
	uint64_t x = 0x9E3779B97F4A7C15ULL ^ n, w;

	for (; n >= 8; n -= 8, s += 8) {
		memcpy(&w, s, 8);
		x = (x ^ w) * 0x100000001B3ULL;
		x ^= x >> 29;
	}
	w = 0;
	memcpy(&w, s, n);
	x = (x ^ w) * 0x9E3779B97F4A7C15ULL;
	return (size_t)(x >> 56) % MEMO;
}

static void
classify(const char *g, unsigned char *kind, size_t *lit)
{
	size_t n = strlen(g), i, stars = 0;
	int lead = n > 0 && g[0] == '*', trail = n > 1 && g[n - 1] == '*';

	for (i = 0; i < n; i++) {
		if (g[i] == '?')
			break;
		if (g[i] == '*')
			stars++;
	}
	*kind = G_ANY;
	*lit = 0;
	if (i < n)
		return;	/* has '?' */
	if (stars == 0)
		*kind = G_EXACT, *lit = n;
	else if (stars == 1 && trail)
		*kind = G_PREFIX, *lit = n - 1;
	else if (stars == 1 && lead)
		*kind = G_SUFFIX, *lit = n - 1;
	else if (stars == 2 && lead && trail)
		*kind = G_CONTAINS, *lit = n - 2;
}

struct pd_patterns *
pd_patterns_new(void)
{
	struct pd_patterns *p = calloc(1, sizeof *p);

	if (p) {	/* may fail */
		if ((p->memo = calloc(1, sizeof *p->memo)))
			p->memo->gen = 1;
		p->ids = calloc(1, sizeof *p->ids);
	}
	return p;
}

void
pd_patterns_free(struct pd_patterns *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->n; i++)
		free(p->v[i]);
	free(p->v);
	free(p->kind);
	free(p->lit);
	free(p->memo);
	if (p->ids)
		pd_idmemo_free(p->ids);
	free(p->ids);
	free(p);
}

int
pd_patterns_add(struct pd_patterns *p, const char *glob)
{
	char *s;

	if (p->n == p->cap) {
		size_t nc = p->cap ? p->cap * 2 : 16;
		char **nv = realloc(p->v, nc * sizeof *nv);
		unsigned char *nk;
		size_t *nl;
		if (!nv)
			return -1;
		p->v = nv;
		if (!(nk = realloc(p->kind, nc)))
			return -1;
		p->kind = nk;
		if (!(nl = realloc(p->lit, nc * sizeof *nl)))
			return -1;
		p->lit = nl;
		p->cap = nc;
	}
	if (!(s = strdup(glob)))
		return -1;
	memo_clear(p);
	if (p->ids)
		pd_idmemo_free(p->ids);
	classify(s, &p->kind[p->n], &p->lit[p->n]);
	p->v[p->n++] = s;
	return 0;
}

int
pd_patterns_load(struct pd_patterns *p, const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int rc = 0;

	if (!f)
		return -1;
	while ((len = getline(&line, &cap, f)) >= 0) {
		char *s = line, *e = line + len;
		while (s < e && strchr(" \t\r\n", *s))
			s++;
		while (e > s && strchr(" \t\r\n", e[-1]))
			e--;
		if (s == e || *s == '#')
			continue;
		*e = 0;
		if (pd_patterns_add(p, s) < 0) {
			rc = -1;
			break;
		}
	}
	if (ferror(f))
		rc = -1;
	free(line);
	fclose(f);
	return rc;
}

size_t
pd_patterns_count(const struct pd_patterns *p)
{
	return p ? p->n : 0;
}

const char *
pd_patterns_get(const struct pd_patterns *p, size_t i)
{
	return p && i < p->n ? p->v[i] : NULL;
}

/* Classic single-backtrack glob: on a mismatch after a '*', let that star
 * swallow one more character and retry. Linear in practice. */
int
pd_glob_match(const char *g, const char *s)
{
	const char *star = NULL, *resume = NULL;

	while (*s) {
		if (*g == '*') {
			star = ++g;
			resume = s;
		} else if (*g && (*g == '?' || *g == *s)) {
			g++;
			s++;
		} else if (star) {
			g = star;
			s = ++resume;
		} else {
			return 0;
		}
	}
	while (*g == '*')
		g++;
	return *g == 0;
}

static size_t
match(const struct pd_patterns *p, const char *name, size_t n)
{
	size_t i;
	char buf[256];

	for (i = 0; i < p->n; i++) {
		const char *g = p->v[i];
		size_t l = p->lit[i];
		int m;
		switch (p->kind[i]) {
		case G_EXACT:
			m = strcmp(g, name) == 0;
			break;
		case G_PREFIX:
			m = n >= l && memcmp(g, name, l) == 0;
			break;
		case G_SUFFIX:
			m = n >= l && memcmp(g + 1, name + n - l, l) == 0;
			break;
		case G_CONTAINS:
			if (l >= sizeof buf) {
				m = pd_glob_match(g, name);
				break;
			}
			memcpy(buf, g + 1, l);
			buf[l] = 0;
			m = strstr(name, buf) != NULL;
			break;
		default:
			m = pd_glob_match(g, name);
		}
		if (m)
			return i + 1;
	}
	return 0;
}

size_t
pd_patterns_match(const struct pd_patterns *p, const char *name)
{
	struct memo *mm;
	struct slot *e;
	size_t n;

	if (!p)
		return 0;
	n = strlen(name);
	if (!(mm = p->memo) || n > MEMO_LEN)
		return match(p, name, n);
	e = &mm->slot[memo_slot(name, n)];
	if (e->gen == mm->gen && e->len == n &&
	    memcmp(mm->arena + e->off, name, n) == 0)
		return e->m;
	if (n > sizeof mm->arena - mm->used) {	/* full: a new generation */
		mm->gen++;
		mm->used = 0;
	}
	memcpy(mm->arena + mm->used, name, n);
	e->gen = mm->gen;
	e->off = mm->used;
	e->len = n;
	e->m = match(p, name, n);
	mm->used += n;
	return e->m;
}

const struct pd_patterns *
pd_patterns_comm(const char *extra)
{
	static struct pd_patterns *comm;
	static int tried;
	char path[PATH_MAX];

	if (tried)
		return comm;
	tried = 1;
	comm = pd_patterns_new();
	if (!comm) {
		pd_error(NULL, 0, "out of memory");
		pd_diag_status(PD_EXIT_SYSTEM);
		return NULL;
	}
	if (!pd_share_path("comm-patterns.txt", path, sizeof path)) {
		pd_error(NULL, 0, "'comm-patterns.txt' not found in the share "
		    "directories (set PD_SHAREDIR or -S)");
		goto fail;
	}
	if (pd_patterns_load(comm, path) < 0) {
		pd_error(path, 0, "%s", strerror(errno));
		goto fail;
	}
	if (extra && pd_patterns_load(comm, extra) < 0) {
		pd_error(extra, 0, "%s", strerror(errno));
		goto fail;
	}
	return comm;
fail:
	pd_diag_status(PD_EXIT_CONFIG);
	pd_patterns_free(comm);
	comm = NULL;
	return NULL;
}

size_t
pd_patterns_match_ev(const struct pd_patterns *p, const struct pd_ev *ev)
{
	int32_t k;
	size_t m;

	if (!p)
		return 0;
	if (p->ids && (k = pd_idmemo_get(p->ids, ev, ev->name_id)) >= 0)
		return (size_t)k;
	m = pd_patterns_match(p, ev->name);
	if (p->ids && m < INT32_MAX)
		pd_idmemo_set(p->ids, ev, ev->name_id, (int32_t)m);
	return m;
}
