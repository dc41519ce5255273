/* pd-hotspots: repeated kernel sequences, the candidates for fusion
 * (what HTA's frequent CUDA kernel sequences look for). */
#ifndef PD_HOTSPOTS_SEQUENCES_H
#define PD_HOTSPOTS_SEQUENCES_H

#include <jansson.h>
#include <stdint.h>

#include "pd_trace.h"

struct seqs;

/* min_count: the fewest occurrences a sequence needs to be listed. */
struct seqs *seqs_new(int64_t min_count);
/* A host operator (CPU op) with its name's index, for naming where the
 * kernels come from (by args "External id"). */
void seqs_op(struct seqs *s, const struct pd_ev *ev, uint32_t name);
/* A launch call (cudaLaunchKernel...) with its correlation id: links a
 * kernel to its operator when the kernel's own External id does not. */
void seqs_launch(struct seqs *s, const struct pd_ev *ev, int64_t corr);
/* A compute kernel with its name's index. */
void seqs_kernel(struct seqs *s, const struct pd_ev *ev, uint32_t name);
/* The names of the indexes given above: which is 'k' (kernel) or 'o'
 * (operator); borrowed. */
typedef const char *(*seqs_name_fn)(void *ctx, int which, uint32_t idx);
/* {min_count, max_len, distinct, pruned, top: [...]} with at most topn
 * sequences; device_ns is the device time the ratios are over. New
 * reference. */
json_t *seqs_json(struct seqs *s, seqs_name_fn name, void *ctx, int topn,
    int64_t device_ns);
void seqs_free(struct seqs *s);

#endif
