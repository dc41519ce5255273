/* pd_patterns: lists of name patterns, e.g. which GPU kernels are
 * communication (share/comm-patterns.txt, plus a user's -p FILE).
 *
 * File syntax: one pattern per line. Blanks around a pattern are ignored,
 * as are empty lines and lines whose first non-blank character is '#'.
 * A pattern is matched against the whole name: '*' matches any run of
 * characters (also none), '?' any one character, every other character
 * only itself (case-sensitive; no brackets and no escapes, because kernel
 * names are full of [ ] ( ) < >). So "nccl*" is "starts with nccl",
 * "*ncclKernel*" is "contains ncclKernel", "foo" is "is exactly foo". */
#ifndef PD_PATTERNS_H
#define PD_PATTERNS_H

#include <stddef.h>

struct pd_patterns;

struct pd_patterns *pd_patterns_new(void);
void pd_patterns_free(struct pd_patterns *p);

/* Add one pattern (copied). Returns 0, -1 when out of memory. */
int pd_patterns_add(struct pd_patterns *p, const char *glob);

/* Add the patterns of a file. Returns 0, or -1 when it cannot be read
 * (errno set). */
int pd_patterns_load(struct pd_patterns *p, const char *path);

size_t pd_patterns_count(const struct pd_patterns *p);
/* The i-th pattern (borrowed). */
const char *pd_patterns_get(const struct pd_patterns *p, size_t i);

/* 1 + index of the first pattern matching name, 0 when none does. */
size_t pd_patterns_match(const struct pd_patterns *p, const char *name);

/* The same for an event's name, looked up by the number the reader gave
 * the name where it did (pd_ev name_id): once a name a read. */
struct pd_ev;
size_t pd_patterns_match_ev(const struct pd_patterns *p,
    const struct pd_ev *ev);

/* Does glob match the whole of name? (the matcher above, alone) */
int pd_glob_match(const char *glob, const char *name);

/* The communication kernel patterns: share/comm-patterns.txt, then the
 * patterns of extra (a tool's -p FILE; may be NULL). Loaded at the first
 * call and kept for the life of the process (borrowed: do not free). When
 * a file cannot be read this says so once with pd_error, records
 * PD_EXIT_CONFIG and returns NULL (then and on later calls). */
const struct pd_patterns *pd_patterns_comm(const char *extra);

#endif
