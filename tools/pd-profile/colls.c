/* The collectives of every rank, compact, for their alignment across
 * ranks (crossrank.c).
 *
 * A pd.comm record lists up to 4096 collectives of its rank; held as JSON
 * trees for thousands of ranks they would take gigabytes, so each is kept
 * here as 24 bytes (its key, start and end in trace ns) and the record's
 * list is dropped (pd_rec_trim). The key is what matches a collective
 * across ranks: group, op type and sequence number; keys are interned.
 *
 * The whole job keeps at most COLLS_BUDGET collectives: past it, every
 * rank keeps its first BUDGET / ranks (in start order, the record's
 * order), the same for every rank, so the result does not depend on the
 * order of the input. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pd_diag.h"
#include "pd_i64map.h"
#include "pd_rec.h"
#include "pd-profile/profile.h"

#define COLLS_BUDGET (1u << 21)

struct colls {
	struct coll *c;
	size_t n;
	int counted;	/* a rank's kept list, in held and ranks */
};

static struct colls *tab;	/* by slot */
static size_t ntab, captab, held;
static struct pd_i64map byrec;	/* pd.comm record -> slot (v[0]) */
static json_t *keyids;		/* key text -> id */
static char **keytext;		/* id -> key text */
static size_t nkeys, capkeys, ranks, cap_per_rank = SIZE_MAX;

static uint32_t
key_id(const char *k)
{
	json_t *id = json_object_get(keyids, k);

	if (!id) {
		if (nkeys == capkeys) {
			capkeys = capkeys ? capkeys * 2 : 256;
			if (!(keytext = realloc(keytext,
			    capkeys * sizeof *keytext)))
				pd_oom();
		}
		if (!(keytext[nkeys] = strdup(k)))
			pd_oom();
		id = json_integer((json_int_t)nkeys++);
		json_object_set_new(keyids, k, id);
	}
	return (uint32_t)json_integer_value(id);
}

/* Cut every rank's list to the budget's share. */
static void
fit(void)
{
	size_t i;

	if (ranks == 0 || held <= COLLS_BUDGET)
		return;
	cap_per_rank = COLLS_BUDGET / ranks;
	for (i = 0; i < ntab; i++)
		if (tab[i].counted && tab[i].n > cap_per_rank) {
			held -= tab[i].n - cap_per_rank;
			tab[i].n = cap_per_rank;
		}
}

static struct colls
parse(json_t *list)
{
	struct colls s = { NULL, 0, 0 };
	size_t j, n = json_array_size(list);
	char k[400];

	if (n && !(s.c = malloc(n * sizeof *s.c)))
		pd_oom();
	for (j = 0; j < n; j++) {
		json_t *e = json_array_get(list, j), *st, *q;
		const char *g = pd_rec_str(e, "group");
		const char *op = pd_rec_str(e, "op_type");
		double dur = pd_rec_num(e, "dur_us", NAN);

		st = json_object_get(e, "start_ns");
		q = json_object_get(e, "seq");
		if ((!g && !op) || !json_is_integer(st) ||
		    !json_is_integer(q) || isnan(dur) || dur < 0)
			continue;
		snprintf(k, sizeof k, "%s\037%s\037%s#%lld", g ? g : "",
		    op ? op : "", g ? "g" : "o",
		    (long long)json_integer_value(q));
		s.c[s.n].key = key_id(k);
		s.c[s.n].start = json_integer_value(st);
		s.c[s.n].end = s.c[s.n].start + (int64_t)llround(dur * 1000);
		s.n++;
	}
	return s;
}

static int
cmp_colls(const struct colls *a, const struct colls *b)
{
	size_t i;

	for (i = 0; i < a->n && i < b->n; i++) {
		const struct coll *x = &a->c[i], *y = &b->c[i];

		int c = strcmp(keytext[x->key], keytext[y->key]);

		if (c)
			return c;
		if (x->start != y->start)
			return x->start < y->start ? -1 : 1;
		if (x->end != y->end)
			return x->end < y->end ? -1 : 1;
	}
	return (a->n > b->n) - (a->n < b->n);
}

void
colls_take(json_t *comm)
{
	struct colls s;

	if (!keyids)
		keyids = json_object();
	s = parse(json_object_get(comm, "collectives"));
	pd_rec_trim(comm);
	if (ntab == captab) {
		captab = captab ? captab * 2 : 64;
		if (!(tab = realloc(tab, captab * sizeof *tab)))
			pd_oom();
	}
	tab[ntab] = s;
	pd_i64map_put(&byrec, (int64_t)(intptr_t)comm, 1)->v[0] =
	    (int64_t)ntab;
	ntab++;
}

int
colls_less(json_t *a, json_t *b)
{
	const struct colls *x = colls_of(a), *y = colls_of(b);
	static const struct colls none = { NULL, 0, 0 };

	return cmp_colls(x ? x : &none, y ? y : &none) < 0;
}

void
colls_keep(json_t *kept, json_t *dropped)
{
	struct pd_i64ent *e;
	struct colls *s;

	if (dropped &&
	    (e = pd_i64map_get(&byrec, (int64_t)(intptr_t)dropped, 1))) {
		s = &tab[e->v[0]];
		if (s->counted) {
			held -= s->n;
			ranks--;
		}
		free(s->c);
		memset(s, 0, sizeof *s);
		pd_i64map_del(&byrec, e);
	}
	if (!(e = pd_i64map_get(&byrec, (int64_t)(intptr_t)kept, 1)) ||
	    (s = &tab[e->v[0]])->counted)
		return;
	s->counted = 1;
	ranks++;
	if (s->n > cap_per_rank)
		s->n = cap_per_rank;
	held += s->n;
	fit();
}

const struct colls *
colls_of(json_t *comm)
{
	struct pd_i64ent *e;

	if (!comm || !(e = pd_i64map_get(&byrec, (int64_t)(intptr_t)comm, 1)))
		return NULL;
	return &tab[e->v[0]];
}

const struct coll *
colls_list(const struct colls *s, size_t *n)
{
	*n = s ? s->n : 0;
	return s ? s->c : NULL;
}

size_t
colls_keys(void)
{
	return nkeys;
}

void
colls_free(void)
{
	size_t i;

	for (i = 0; i < ntab; i++)
		free(tab[i].c);
	free(tab);
	for (i = 0; i < nkeys; i++)
		free(keytext[i]);
	free(keytext);
	keytext = NULL;
	capkeys = 0;
	tab = NULL;
	ntab = captab = held = ranks = nkeys = 0;
	cap_per_rank = SIZE_MAX;
	pd_i64map_free(&byrec);
	json_decref(keyids);
	keyids = NULL;
}
