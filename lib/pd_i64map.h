/* pd_i64map: a hash multimap from int64 keys to small fixed records, for
 * linking trace events by id (a CUDA launch and its kernel by correlation,
 * a CANN launch and its device tasks by connection_id).
 *
 * Open addressing with linear probing; a key may be present several times
 * (one entry per put). Entries carry a caller-defined tag (1..255) so that
 * one map can hold different kinds of entries under the same key. Memory is
 * what is in the map: delete entries once they are linked to keep it small.
 * Pointers to entries are valid until the next put or del. */
#ifndef PD_I64MAP_H
#define PD_I64MAP_H

#include <stddef.h>
#include <stdint.h>

struct pd_i64ent {
	int64_t key;
	int64_t v[3];
	uint32_t u;
	uint8_t tag;		/* 0: empty slot */
};

struct pd_i64map {
	struct pd_i64ent *e;
	size_t n, cap;		/* cap is 0 or a power of two */
};

/* Add an entry (the map grows as needed; aborts when out of memory).
 * Returns the new entry, its key and tag set, values zeroed. */
struct pd_i64ent *pd_i64map_put(struct pd_i64map *m, int64_t key, uint8_t tag);

/* The first entry with this key and tag (tag 0: any tag), or NULL. */
struct pd_i64ent *pd_i64map_get(struct pd_i64map *m, int64_t key, uint8_t tag);

/* Delete an entry returned by put or get. */
void pd_i64map_del(struct pd_i64map *m, struct pd_i64ent *ent);

void pd_i64map_free(struct pd_i64map *m);

#endif
