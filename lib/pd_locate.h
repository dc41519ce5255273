/* pd_locate: finding profiler roots below a path.
 *
 * A root is a directory (or, for Kineto / autograd traces, a file) that one
 * profiler run of one rank left behind. Each root found is described by a
 * pd.root record (see pd-record(5)); formats are identified by sniffing the
 * first bytes of files, never by reading a large file whole. */
#ifndef PD_LOCATE_H
#define PD_LOCATE_H

#include <jansson.h>
#include <stddef.h>

struct pd_locate_opts {
	int maxdepth;	/* directory levels below an operand; <= 0: default 8 */
	int best;	/* one root per (run, rank) with a known rank: the newest */
};

/* Called once per root found, in a deterministic order (sorted by path).
 * The record is borrowed. A nonzero return (an exit status) does not stop
 * the walk; pd_locate returns the worst of them and its own. */
typedef int (*pd_root_cb)(json_t *root, void *ctx);

/* Locate roots below path (a directory or a file). A missing or unreadable
 * path is reported (pd_error) and returns PD_EXIT_SYSTEM. A subdirectory
 * that cannot be read, or a file operand that is not a trace, is reported
 * (pd_warn) and returns PD_EXIT_INPUT after the rest was searched;
 * otherwise 0. The records of one call are passed to cb sorted by root
 * path (then device); with o->best, only the newest root of each (run,
 * rank) with a known rank is passed. */
int pd_locate(const char *path, const struct pd_locate_opts *o,
    pd_root_cb cb, void *ctx);

/* The absolute path of the idx-th export of the given kind in a pd.root
 * record ("step_trace_time", "trace_view", "kineto_trace", ...), or NULL.
 * Borrowed from the record. */
const char *pd_root_export(json_t *root, const char *kind, size_t idx);

#endif
