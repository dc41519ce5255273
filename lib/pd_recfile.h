/* pd_recfile: reading a file of records (JSON Lines) as if it came on stdin.
 *
 * For the reduce tools (pd-profile, pd-classify, pd-compare), whose operands
 * are saved streams rather than dump directories. Every line is forwarded
 * unless s->no_passthrough; a line that is not a JSON object is forwarded
 * with a warning (file:line) and makes the status 3; each object is given
 * to s->on_record (borrowed). */
#ifndef PD_RECFILE_H
#define PD_RECFILE_H

#include <stdio.h>

#include "pd_rec.h"

/* Read path ("-" is stdin). A file that cannot be opened or read is an
 * error (pd_error, PD_EXIT_SYSTEM returned); otherwise 0. */
int pd_recfile_read(struct pd_stream *s, const char *path);

/* Read an open stream (not closed); name is used in messages. Returns
 * PD_EXIT_SYSTEM on a read error, else 0. */
int pd_recfile_readf(struct pd_stream *s, FILE *f, const char *name);

#endif
