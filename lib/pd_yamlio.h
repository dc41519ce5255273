/* pd_yamlio: YAML <-> JSON values through libyaml (no hand-rolled YAML).
 *
 * pd_yamlio_load reads the first document of a YAML file as a JSON value
 * (NEW reference): mappings -> objects (key order kept), sequences ->
 * arrays, plain scalars typed like YAML 1.2 core (null/~, true/false,
 * integers, reals), quoted scalars stay strings. On error it reports
 * "file:line:col: message" through pd_error and returns NULL.
 *
 * pd_yamlio_write writes a JSON value as a YAML document, atomically
 * (temporary file in the same directory, fsync, rename); creates the
 * directory. 0, or -1 after pd_error. */
#ifndef PD_YAMLIO_H
#define PD_YAMLIO_H

#include <jansson.h>

json_t *pd_yamlio_load(const char *path);
int pd_yamlio_write(const char *dir, const char *name, json_t *doc);

#endif
