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

/* A dump (directory, archive, export file) instead of records: run the evidence pipeline on it
 * (pd-locate DIR | pd-sum-step | pd-sum-comm | pd-sum-mem | pd-sum-input |
 * pd-sum-gaps | pd-hotspots, then pd-profile and pd-classify up to and
 * including the tool named upto; NULL: only the evidence tools), with the
 * tools installed next to the running binary (else from PATH), and read
 * its output like a file of records. hotspot_n > 0 is passed to
 * pd-hotspots as -n. The stages run without a shell (the dump reaches
 * pd-locate after --) and each stage's status is read: a stage that
 * fails (a status other than 0 and 3, or a signal other than SIGPIPE) is
 * an error naming it (PD_EXIT_SYSTEM returned); one that rejected some
 * input records status 3 and PD_EXIT_INPUT is returned; otherwise 0. */
int pd_recfile_dir(struct pd_stream *s, const char *dir, const char *upto,
    int hotspot_n);

/* Whether path is a dump to diagnose (pd_recfile_dir) rather than a file
 * of records: a directory, an archive, or a regular file that neither
 * starts as the tools' records do ({"type":"pd., blanks allowed between
 * the tokens) nor has a first line (up to 64 KiB) that is a JSON object
 * with a "type" of "pd.*": an Nsight Systems export, a trace. "-" and
 * empty files are records. */
int pd_recfile_is_dump(const char *path);

#endif
