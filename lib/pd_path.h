/* pd_path: reading a value inside a record by a path such as
 * "shares.free_ratio", "top[0].name", "transports[transport=RDMA].bytes"
 * or "host_api[name~Compile].count".
 *
 * Segments are separated by '.'; a segment is a key followed by any number
 * of selectors: [N] (array index), [key=value] (first element whose key's
 * string or number equals value), [key~text] (first element whose key is a
 * string containing text). Everything returned is borrowed. */
#ifndef PD_PATH_H
#define PD_PATH_H

#include <jansson.h>

/* The value at path, or NULL when any step is missing. */
json_t *pd_path_get(json_t *o, const char *path);

/* The number at path, or NaN when absent or not a number. */
double pd_path_num(json_t *o, const char *path);

/* Whether path is well formed; on error, *why says what is wrong. */
int pd_path_check(const char *path, const char **why);

#endif
