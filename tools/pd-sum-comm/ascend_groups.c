/* pd-sum-comm for Ascend roots: the process groups of a rank, from
 * communication_group.json and profiler_metadata.json. */
#include "ascend.h"

#include "sum_comm.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pd_csv.h"
#include "pd_diag.h"
#include "pd_jscan.h"
#include "pd_locate.h"
#include "pd_sqlite.h"
#include "pd_num.h"
#include "pd_rec.h"
#include "pd_trace.h"

/* communication_group.json (msprof-analyze), read once; NULL when it
 * cannot be read (said) or has no comm_group_parallel_info (an older file
 * without group names). */
json_t *
load_groups(const char *path)
{
	json_error_t e;
	json_t *d = path ? json_load_file(path, 0, &e) : NULL, *info;

	if (path && !d) {
		pd_warn(path, e.line, "%s; its groups are not used", e.text);
		pd_diag_status(PD_EXIT_INPUT);
		return NULL;
	}
	info = json_object_get(d, "comm_group_parallel_info");
	if (!json_is_array(info)) {
		json_decref(d);
		return NULL;
	}
	json_incref(info);
	json_decref(d);
	return info;
}

/* One group for the map (group name -> global ranks) and, when rank is
 * one of its ranks (or rank < 0), for the record's groups; the first
 * source to name a group wins. */
static void
add_group(struct agg *a, const char *name, json_t *ranks, const char *kind,
    int64_t rank)
{
	json_t *r, *o;
	size_t j;
	int mine = rank < 0;

	if (!a->gmap) {
		a->gmap = json_object();
		a->groups = json_array();
	}
	if (json_object_get(a->gmap, name))
		return;
	json_object_set(a->gmap, name, ranks);
	json_array_foreach(ranks, j, r)
		mine = mine || json_integer_value(r) == rank;
	if (!mine)
		return;
	o = json_object();
	pd_set_str(o, "name", name);
	pd_set_str(o, "kind", group_kind(kind));
	pd_set(o, "ranks", json_incref(ranks));
	json_array_append_new(a->groups, o);
}

/* Whether v is a non-empty list of integer ranks. */
static int
rank_list(json_t *v)
{
	json_t *r;
	size_t j;

	if (!json_is_array(v) || !json_array_size(v))
		return 0;
	json_array_foreach(v, j, r)
		if (!json_is_integer(r))
			return 0;
	return 1;
}

/* From comm_group_parallel_info: each group's name (the hash in the op
 * names), global ranks and pg_name. */
void
apply_groups(struct agg *a, json_t *info, int64_t rank)
{
	json_t *g;
	size_t i;

	json_array_foreach(info, i, g) {
		const char *name = pd_rec_str(g, "group_name");

		if (name && *name && rank_list(json_object_get(g, "rank_set")))
			add_group(a, name, json_object_get(g, "rank_set"),
			    pd_rec_str(g, "pg_name"), rank);
	}
}

/* The name torch_npu gives a group in the op names: two 32-bit
 * polynomial hashes of its key (factors 29 and 131), high and low word
 * (msprof-analyze; checked on msinsight_server_fixtures, where
 * communication_group.json pairs each group_id with its group_name). */
static uint64_t
group_hash(const char *key)
{
	uint32_t h1 = 0, h2 = 0;
	const unsigned char *p;

	for (p = (const unsigned char *)key; *p; p++) {
		h1 = h1 * 29u + *p;
		h2 = h2 * 131u + *p;
	}
	return (uint64_t)h1 << 32 | h2;
}

/* profiler_metadata.json's parallel_group_info: {key: {group_name,
 * group_rank, global_ranks}}, the groups of the rank that wrote it; the
 * op names carry the key's hash. */
void
metadata_groups(struct agg *a, const char *path, int64_t rank)
{
	json_error_t e;
	json_t *d = json_load_file(path, 0, &e), *info, *v;
	const char *key;
	char name[32];

	if (!d) {
		pd_warn(path, e.line, "%s; its groups are not used", e.text);
		pd_diag_status(PD_EXIT_INPUT);
		return;
	}
	info = json_object_get(d, "parallel_group_info");
	json_object_foreach(info, key, v) {
		json_t *rs = json_object_get(v, "global_ranks");

		if (!rank_list(rs))
			continue;
		snprintf(name, sizeof name, "%llu",
		    (unsigned long long)group_hash(key));
		add_group(a, name, rs, pd_rec_str(v, "group_name"), rank);
	}
	json_decref(d);
}
