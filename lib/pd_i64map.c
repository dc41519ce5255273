#include "pd_i64map.h"

#include <stdlib.h>
#include <string.h>

#include "pd_diag.h"

static size_t
slot(int64_t key, size_t cap)
{
	uint64_t x = (uint64_t)key;

	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return (size_t)x & (cap - 1);
}

static void
grow(struct pd_i64map *m)
{
	struct pd_i64ent *old = m->e;
	size_t oldcap = m->cap, i, j;

	m->cap = oldcap ? oldcap * 2 : 64;
	m->e = calloc(m->cap, sizeof *m->e);
	if (!m->e)
		pd_oom();
	for (i = 0; i < oldcap; i++) {
		if (!old[i].tag)
			continue;
		j = slot(old[i].key, m->cap);
		while (m->e[j].tag)
			j = (j + 1) & (m->cap - 1);
		m->e[j] = old[i];
	}
	free(old);
}

struct pd_i64ent *
pd_i64map_put(struct pd_i64map *m, int64_t key, uint8_t tag)
{
	size_t j;

	if ((m->n + 1) * 2 > m->cap)
		grow(m);
	j = slot(key, m->cap);
	while (m->e[j].tag)
		j = (j + 1) & (m->cap - 1);
	memset(&m->e[j], 0, sizeof m->e[j]);
	m->e[j].key = key;
	m->e[j].tag = tag ? tag : 1;
	m->n++;
	return &m->e[j];
}

struct pd_i64ent *
pd_i64map_get(struct pd_i64map *m, int64_t key, uint8_t tag)
{
	size_t j;

	if (!m->cap)
		return NULL;
	for (j = slot(key, m->cap); m->e[j].tag; j = (j + 1) & (m->cap - 1))
		if (m->e[j].key == key && (!tag || m->e[j].tag == tag))
			return &m->e[j];
	return NULL;
}

/* Backward-shift deletion: no tombstones, probes stay short. */
void
pd_i64map_del(struct pd_i64map *m, struct pd_i64ent *ent)
{
	size_t mask = m->cap - 1, i = (size_t)(ent - m->e), j = i, k;

	m->e[i].tag = 0;
	m->n--;
	for (;;) {
		j = (j + 1) & mask;
		if (!m->e[j].tag)
			return;
		k = slot(m->e[j].key, m->cap);
		/* move e[j] to the hole at i when its home k is not in (i, j] */
		if ((j > i && (k <= i || k > j)) || (j < i && (k <= i && k > j))) {
			m->e[i] = m->e[j];
			m->e[j].tag = 0;
			i = j;
		}
	}
}

void
pd_i64map_free(struct pd_i64map *m)
{
	free(m->e);
	memset(m, 0, sizeof *m);
}
