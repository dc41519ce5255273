/* pd_runs: grouping summary records into runs, for the reduce tools.
 *
 * Records are kept per root (joined by "root"); roots are grouped into runs
 * by the "run" key of their pd.root record (roots without one form the run
 * whose id is null). Only summary records are held, so memory grows with
 * the number of roots, not with the size of their traces.
 *
 * A view is a JSON object keyed by the record type without "pd."
 * ("root", "step", "comm", "mem", "input", "gaps", "hotspot", ...); the
 * first record of a type for a (root, rank) wins, kept as pd_rec_trim
 * leaves it. A root whose records
 * carry two ranks or more (a cluster-wide export such as msprof-analyze's
 * cluster_analysis_output) has one view per rank, keyed "ROOT#rank=N",
 * the root's rank-less records (its pd.root) added for the types the rank
 * lacks; any other root has one view keyed by its path. pd.profile and pd.bottleneck
 * records are kept per run (by their "run" key; the last pd.profile wins,
 * and a pd.bottleneck with position 1 starts a new list); pd.context is
 * kept once (the first one) and shown to every run.
 *
 * Packed arrays: with pd_runs_pack on, the per-step arrays of the held
 * records ("steps" of pd.step and pd.input: one object a step, its values
 * numbers, null or booleans, the same keys in each) are held as one
 * column blob each (8 bytes a value, none for a column of nulls) instead
 * of a JSON tree, so a rank costs a few hundred bytes more a step, not
 * kilobytes. Such a record holds a string in place of the array: read it
 * with pd_runs_array, never directly, and while a pd_runs lives (the key
 * lists the arrays share go with the last one freed).
 *
 * Shared values: the ranks of a job repeat strings (names, sources,
 * kinds, the run id) and small numbers; a held record's strings and its
 * integers and whole reals in [0, 1024) are replaced, in their
 * containers, by one value shared by every held record (no value is
 * changed in place). This is done at the next pd_runs_add or at
 * pd_runs_group, so what a caller borrowed from a record (pd_rec_str)
 * stays valid until then, not longer.
 *
 * Ownership: everything returned is borrowed from the pd_runs, except
 * where a function says new. */
#ifndef PD_RUNS_H
#define PD_RUNS_H

#include <jansson.h>
#include <stddef.h>

/* A pd.gaps keeps its timeline strip ("strip", dropped by pd_rec_trim)
 * when its rank is below this or unknown, or when its window is the
 * longest of the other ranks' (one strip): the report draws the dominant
 * bottleneck's rank, the lowest rank or the slowest one. */
#define PD_RUNS_STRIP_RANKS 8

struct pd_run {
	json_t *id;		/* string or null */
	json_t *roots;		/* array of root paths, sorted */
	json_t *views;		/* object: view key (root path, or
				 * "ROOT#rank=N") -> view */
	json_t *profile;	/* the run's pd.profile, or NULL */
	json_t *bottlenecks;	/* array of pd.bottleneck, in input order */
	json_t *context;	/* pd.context, or NULL */
};

struct pd_runs;

struct pd_runs *pd_runs_new(void);

/* Hold the per-step arrays of the records added from now on packed (on
 * non-zero), or as JSON (0, the default). */
void pd_runs_pack(struct pd_runs *r, int on);

/* rec's array under key, packed or not (new reference); NULL when rec
 * holds none there. */
json_t *pd_runs_array(json_t *rec, const char *key);

/* Its size without unpacking it (0 when there is none). */
size_t pd_runs_array_size(json_t *rec, const char *key);

/* rec with its packed arrays as JSON (new reference: rec itself when
 * nothing in it is packed, else a shallow copy). */
json_t *pd_runs_unpacked(json_t *rec);
void pd_runs_free(struct pd_runs *r);

/* Keep what the record contributes (borrowed; references are taken). */
void pd_runs_add(struct pd_runs *r, json_t *rec);

/* Group (call once, after the last pd_runs_add). Runs are sorted by id,
 * the null run first. */
size_t pd_runs_group(struct pd_runs *r);
struct pd_run *pd_runs_get(struct pd_runs *r, size_t i);

/* The view of (root, rank) in a run: the root's own view, else its view
 * for that rank; NULL when there is none (borrowed). */
json_t *pd_runs_view(struct pd_run *u, const char *root, json_t *rank);

/* How many keys of an object keyed by rank ("0", "1", ..., "null" for
 * records without one) are ranks. */
size_t pd_runs_ranked(json_t *byrank);

/* Whether a rank found both in a root of many ranks (a cluster-wide
 * export) and in its own root takes this record type ("step", "root")
 * from the many-rank root: its step is aligned with the other ranks';
 * the other summaries come from the rank's own root, which the
 * cluster-wide files only abridge. type without "pd.". */
int pd_runs_from_cluster(const char *type);

/* Whether any record of the given type (e.g. "pd.profile") was added. */
int pd_runs_seen(struct pd_runs *r, const char *type);

#endif
