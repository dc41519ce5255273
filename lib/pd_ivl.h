/* pd_ivl: sets of half-open time intervals [s, e) in integer ns, for
 * unions ("busy time"), intersections ("overlap") and clipping to windows
 * ("per step"), as HTA computes them but without leaving integers.
 *
 * Intervals are added in any order. Memory: an interval that overlaps or
 * touches the last one added is folded into it, and the set is sorted and
 * merged in place whenever it has doubled since the last merge, so it holds
 * about as many intervals as its union has disjoint pieces. */
#ifndef PD_IVL_H
#define PD_IVL_H

#include <stddef.h>
#include <stdint.h>

struct pd_span {
	int64_t s, e;
};

struct pd_ivl {
	struct pd_span *v;
	size_t n, cap;
	size_t merged;	/* v[0..merged) is sorted and disjoint */
	size_t limit;	/* merge again when n reaches this */
};

/* Add [s, e); empty or inverted intervals are ignored. Aborts when out of
 * memory (like pd_vec_push). */
void pd_ivl_add(struct pd_ivl *a, int64_t s, int64_t e);

/* Sort and merge: afterwards v[0..n) is sorted and disjoint. The query
 * functions below need this (they call it themselves). */
void pd_ivl_merge(struct pd_ivl *a);

/* Total length of the union. */
int64_t pd_ivl_len(struct pd_ivl *a);

/* Length of the union inside the window [s, e). */
int64_t pd_ivl_len_in(struct pd_ivl *a, int64_t s, int64_t e);

/* Length of (a ∩ b) inside [s, e); s = INT64_MIN, e = INT64_MAX for all. */
int64_t pd_ivl_both_len_in(struct pd_ivl *a, struct pd_ivl *b, int64_t s,
    int64_t e);

/* Length of the union of k sets inside [s, e), without building it. */
int64_t pd_ivl_union_len_in(struct pd_ivl **sets, int k, int64_t s,
    int64_t e);

/* dst gets the union of dst and src. */
void pd_ivl_add_all(struct pd_ivl *dst, struct pd_ivl *src);

/* First start and last end of the union (0 when empty: then returns 0). */
int pd_ivl_hull(struct pd_ivl *a, int64_t *s, int64_t *e);

void pd_ivl_free(struct pd_ivl *a);

#endif
