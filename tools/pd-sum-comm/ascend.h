/* pd-sum-comm for Ascend roots: what the readers of each source file
 * (ascend_*.c) share: a rank's sums (struct agg) and the walk over the
 * JSON summaries. Times are ms and sizes MB, as in the files. */
#ifndef PD_SUM_COMM_ASCEND_H
#define PD_SUM_COMM_ASCEND_H

#include <stdint.h>

#include <jansson.h>

#include "pd_tool.h"

/* msprof-analyze's packet rule: an op moving less than this on a transport
 * is a small packet (MB): RDMA 1, intra-node (SDMA, HCCS, PCIE, SIO) 16. */
#define SMALL_RDMA_MB 1.0
#define SMALL_SDMA_MB 16.0
/* msprof-analyze's byte-alignment rule (ByteAlignmentChecker): an SDMA task
 * off the chip moving more than 512 bytes is checked; one whose size is not
 * a multiple of 512 bytes is unaligned. */
#define ALIGN_BYTES 512

/* The sums of one operator type: elapse, transit, wait, synchronization
 * and idle time (ms), size moved (MB); has_ says a file gave it. */
struct op_type_sum {
	char *type;
	long count;
	double el, tr, wa, sy, id, mb;	/* ms, MB */
	int has_tr, has_wa, has_sy, has_id, has_mb;
};

/* One transport type (RDMA, SDMA, HCCS...): size, time, ops, small ones. */
struct transport {
	char *name;
	double mb, ms;
	long nops, nsmall;
};

/* One link (src rank to dst rank over a transport). */
struct link {
	char *src, *dst, *transport;
	char *group;		/* the group whose ranks src, dst count (not
				 * mapped to global ranks), or NULL: global */
	double mb, ms;
};

/* One call of an operator. */
struct op_call {
	char *name;
	double el;
	int64_t step;
	int has_step;
	/* the SDMA tasks off the chip (Size Distribution of HCCS, PCIE,
	 * SIO) larger than ALIGN_BYTES: bytes, ms, and ms of the unaligned */
	double al_bytes, al_ms, un_ms;
	int has_al;
};

/* What a rank's files add up to. */
struct agg {
	int64_t rank;
	int has_rank;
	struct op_type_sum *ops;
	size_t nops;
	struct transport *transports;
	size_t ntransports;
	struct link *links;
	size_t nlinks;
	struct op_call *calls;
	size_t ncalls;
	long skipped;
	int truncated;
	char source[128];
	double raw_ms, raw_wait_ms;	/* hccl_raw: per-step totals */
	int has_raw;
	json_t *gmap;		/* group name (hash) -> global ranks, or NULL */
	json_t *groups;		/* pd.comm groups, or NULL (unknown) */
};

/* A summary file is an object nested `leaf` levels deep; the leaves (one
 * operator, or one operator's links) are parsed with jansson, the levels
 * above are walked without building them (see pd_jscan). */
struct walk {
	const char *path;
	struct agg *a;		/* where rejected entries are counted */
	int leaf;		/* depth of the leaves */
	const char *keys[8];	/* the keys down to the current member */
	int depth;
	int totals_at;		/* depth of the matrix's size-bucket keys, or -1 */
	int totals;		/* the current container has "-total" keys */
	const char *skip_key;	/* a key at depth 2 that is not an entry */
	void (*on_leaf)(struct walk *w, const char *where, json_t *v);
	const char *cut_at;	/* where the text broke, deepest first */
	void *ctx;
};

void *grow(void *p, size_t n, size_t size);
void agg_free(struct agg *a);
void add_source(struct agg *a, const char *kind);
void op_type(const char *name, char *buf, size_t size);
int num(json_t *o, const char *key, double *v);
struct op_type_sum *op_type_get(struct agg *a, const char *type);
void transport_add(struct agg *a, const char *name, double mb, double ms);
void link_add(struct agg *a, const char *src, const char *dst,
    const char *transport, const char *group, double mb, double ms);
void op_call_add(struct agg *a, const char *name, double el, int64_t step,
    int has);
void reject(struct agg *a, const char *path, const char *where,
    const char *why);
int step_of(const char *key, int64_t *step);
void add_op(struct agg *a, const char *path, const char *where,
    const char *name, json_t *op, int64_t step, int has_step);
int is_total(const char *op);
void walk_file(struct walk *w);
void walk_init(struct walk *w, struct agg *a, const char *path, int leaf,
    void (*on_leaf)(struct walk *, const char *, json_t *));
void read_comm(struct agg *a, const char *path);
void add_links(struct agg *a, const char *path, const char *where, json_t *op,
    const char *only_src, const char *group);
void read_matrix(struct agg *a, const char *path);
void emit_rank(json_t *root, struct agg *a, const struct pd_tool *t);
void do_cluster(json_t *root, const struct pd_tool *t);
void read_db(struct agg *a, const char *path);
json_t *load_groups(const char *path);
void apply_groups(struct agg *a, json_t *info, int64_t rank);
void metadata_groups(struct agg *a, const char *path, int64_t rank);
void read_hccl_timeline(struct agg *a, const char *path);
void read_hccl_raw(struct agg *a, const char *path);

#endif
