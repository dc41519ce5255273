/* pd_yamlio: YAML <-> JSON values through libyaml (no hand-rolled YAML).
 *
 * pd_yamlio_parse reads the first document of a YAML file into *doc and
 * checks what libyaml lets through: a mapping with the same key twice, an
 * alias inside the node it names (a cycle), nesting deeper than
 * PD_YAMLIO_MAX_DEPTH, and aliases that expand the document past
 * PD_YAMLIO_MAX_NODES nodes (an "alias bomb"; a document without aliases
 * is never refused for its size). Returns 0 (the caller deletes doc with
 * yaml_document_delete), or -1 after reporting every problem as
 * "file:line:col: message" through pd_error (doc is then freed already).
 *
 * pd_yamlio_parse_mem does the same on the bytes text[0..len) of the file
 * path (read already; path only names it in the messages).
 *
 * pd_yamlio_load reads the first document of a YAML file as a JSON value
 * (NEW reference): mappings -> objects (key order kept), sequences ->
 * arrays, plain scalars typed like YAML 1.2 core (null/~, true/false,
 * integers, reals), quoted scalars stay strings. It parses with
 * pd_yamlio_parse; on error it returns NULL (reported already).
 *
 * pd_yamlio_write writes a JSON value as a YAML document, atomically
 * (temporary file in the same directory, fsync, rename); creates the
 * directory. 0, or -1 after pd_error. */
#ifndef PD_YAMLIO_H
#define PD_YAMLIO_H

#include <jansson.h>
#include <yaml.h>

#define PD_YAMLIO_MAX_DEPTH 64
#define PD_YAMLIO_MAX_NODES 100000

int pd_yamlio_parse(const char *path, yaml_document_t *doc);
int pd_yamlio_parse_mem(const char *path, const void *text, size_t len,
    yaml_document_t *doc);
json_t *pd_yamlio_load(const char *path);
int pd_yamlio_write(const char *dir, const char *name, json_t *doc);

#endif
