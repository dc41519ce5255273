/* pd-sum-comm: the pd.comm record, whichever family read the collectives.
 *
 * A family reader fills a struct commrec: the rank's totals, one struct
 * commop per operator type and one struct commcall per slowest call, in
 * record units (us, ratios, GB/s; rounded here) with a bit per value it
 * has; commrec_write() writes every pd.comm key after source, the same
 * keys for every family, null where the family has no value
 * (pd-record(5)). The transports, links and alignment (Ascend's so far)
 * are lists of structs too, written with one key list each; the
 * collectives (PyTorch) and groups are given as built. */
#ifndef PD_SUM_COMM_RECORD_H
#define PD_SUM_COMM_RECORD_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* The values of an operator type, in the order of its record keys after
 * op_type. */
enum {
	CO_COUNT,	/* count */
	CO_TOTAL,	/* total_us */
	CO_TRANSIT,	/* transit_us */
	CO_WAIT,	/* wait_us */
	CO_SYNC,	/* sync_us */
	CO_IDLE,	/* idle_us */
	CO_WAIT_RATIO,	/* wait_ratio */
	CO_SYNC_RATIO,	/* sync_ratio */
	CO_BYTES,	/* bytes */
	CO_ALGBW,	/* algbw_gb_per_s */
	CO_MEAN,	/* mean_us */
	CO_MAX,		/* max_us */
	CO_SIZED,	/* sized_count */
	CO_BUSBW,	/* busbw_gb_per_s */
	CO_SMALL,	/* small_count */
	CO_SMALL_RATIO,	/* small_ratio */
	CO_N
};

struct commop {
	const char *type;	/* borrowed */
	double v[CO_N];		/* counts and bytes are whole numbers */
	unsigned have;		/* bit per CO_ */
};

/* One of the slowest calls. */
struct commcall {
	const char *name;	/* borrowed */
	double elapse_us;
	int64_t step;
	int has_step;
	const char *op_type;	/* NULL: null */
	int64_t start_ns;
	int has_start;
};

/* A transports entry. */
struct commtransport {
	const char *name;	/* borrowed */
	int64_t bytes, ops;
	double time_us;
	double bandwidth_gb_per_s, small_packet_ratio;	/* NaN: null */
};

/* A links entry: src and dst are rank names, written as integers when
 * they are whole numbers. */
struct commlink {
	const char *src, *dst;	/* borrowed */
	const char *group, *transport;	/* borrowed; NULL: null */
	int64_t bytes;
	double time_us, bandwidth_gb_per_s;	/* NaN: null */
};

/* An op of the byte-alignment check (alignment.ops). */
struct communaligned {
	const char *name;	/* borrowed */
	int64_t step;
	int has_step;
	int64_t bytes;
	double time_us, unaligned_us, bandwidth_gb_per_s;	/* NaN: null */
};

/* The byte-alignment check. */
struct commalign {
	int have;		/* 0: null */
	int64_t checked_ops, unaligned_ops;
	double sdma_us, unaligned_us, unaligned_ratio;	/* NaN: null */
	struct communaligned *ops;
	size_t nops, capops;
};

struct commrec {
	struct commop *ops;	/* in record order */
	size_t nops, capops;
	struct commcall *slowest;	/* in record order */
	size_t nslowest, capslowest;
	double total_us, wait_ratio, sync_ratio, small_ratio, wait_us;
	int has_total, has_wait_ratio, has_sync_ratio, has_small_ratio,
	    has_wait_us;
	int64_t op_count;
	const char *lane;	/* NULL: null */
	int64_t collectives_total;
	int has_collectives_total;
	struct commtransport *transports;	/* in record order */
	size_t ntransports, captransports;
	int has_transports;	/* 0: null */
	struct commlink *links;	/* in record order */
	size_t nlinks, caplinks;
	int has_links;		/* 0: null */
	struct commalign alignment;
	/* new references or NULL (null) */
	json_t *collectives, *groups;
	int64_t skipped;
	const char *path;	/* NULL: null */
	int truncated;
};

void commop_set(struct commop *o, int k, double v);
/* A new operator type or slowest call (zeroed) at the end of the list. */
struct commop *commrec_op(struct commrec *r);
struct commcall *commrec_call(struct commrec *r);
/* A new transport, link or alignment op (zeroed, ratios NaN) at the end
 * of its list, which is then had (not null). */
struct commtransport *commrec_transport(struct commrec *r);
struct commlink *commrec_link(struct commrec *r);
struct communaligned *commrec_unaligned(struct commrec *r);
/* Append the keys after source to rec (type, v, root, rank and source
 * set by the family) and emit it; rec is consumed, and r's json parts
 * are released. */
void commrec_write(json_t *rec, struct commrec *r);

#endif
