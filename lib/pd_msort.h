/* pd_msort: a merge sort made for one element type, its comparison
 * inlined: for the hot sorts, where qsort's call through a pointer and its
 * byte-wise moves cost more than the comparisons.
 *
 *   PD_MSORT(name, type, le, total)
 *
 * defines static void name(type *v, size_t n), which sorts v with le(a, b)
 * (pointers to two elements: nonzero when a may stay before b, as
 * cmp(a, b) <= 0). It splits and merges exactly as glibc's qsort does
 * (its merge sort: the first n / 2 and the rest, each sorted, then merged
 * taking from the first half while le holds), so it gives the same order
 * for the same comparison, a total order or not. Stable; n elements of
 * scratch memory (pd_xmalloc: out of memory ends the program, as the
 * tools' other allocations do). name_any(void *v, size_t n) is the same
 * for pd_xsort_set_sort.
 *
 * total: nonzero when le is a total order (ties only between elements
 * that may come in either order: stable anyway). Then two halves already
 * in order (the last of the first le the first of the second) are not
 * merged, which is what the merge would give: input mostly in order costs
 * about n comparisons. Where le is not transitive (a comparison made to
 * match a peer's, say), total must be 0: only the merge itself gives
 * qsort's order then. */
#ifndef PD_MSORT_H
#define PD_MSORT_H

#include <stdlib.h>
#include <string.h>

#include "pd_diag.h"

#define PD_MSORT(name, type, le, total)				\
static void								\
name##_rec(type *b, size_t n, type *t)					\
{									\
	size_t n1 = n / 2, n2 = n - n1;					\
	type *b1 = b, *b2 = b + n1, *o = t;				\
									\
	if (n < 2)							\
		return;							\
	if (n == 2) {	/* the merge of two, without its copies */	\
		if (!le(b1, b2)) {	/* bytes, padding too, as memcpy */ \
			type x_;					\
			memcpy(&x_, b1, sizeof x_);			\
			memcpy(b1, b2, sizeof x_);			\
			memcpy(b2, &x_, sizeof x_);			\
		}							\
		return;							\
	}								\
	name##_rec(b1, n1, t);						\
	name##_rec(b2, n2, t);						\
	if ((total) && le(b2 - 1, b2))					\
		return;							\
	while (n1 > 0 && n2 > 0) {					\
		if (le(b1, b2)) {					\
			*o++ = *b1++;					\
			n1--;						\
		} else {						\
			*o++ = *b2++;					\
			n2--;						\
		}							\
	}								\
	if (n1 > 0)							\
		memcpy(o, b1, n1 * sizeof *b1);				\
	memcpy(b, t, (n - n2) * sizeof *b);				\
}									\
									\
static void								\
name(type *v, size_t n)							\
{									\
	type *t;							\
									\
	if (n < 2)							\
		return;							\
	t = pd_xmalloc(n * sizeof *t);					\
	name##_rec(v, n, t);						\
	free(t);							\
}									\
									\
static void name##_any(void *v, size_t n) __attribute__((unused));	\
static void								\
name##_any(void *v, size_t n)						\
{									\
	name((type *)v, n);						\
}

#endif
