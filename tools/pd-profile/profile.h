/* pd-profile's parts: the units a run is made of (units.c), the job model
 * and the run's context (job.c), shares and domains (shares.c), the
 * cross-rank analysis (crossrank.c). */
#ifndef PD_PROFILE_H
#define PD_PROFILE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "pd_runs.h"

#define SLOW_RATIO 0.05	/* msprof-analyze advisor: (max - min) / mean > 5 % */

/* One (root, rank): the summary records of one rank of one profiler root.
 * A root holds one unit per rank (msprof-analyze's cluster output holds a
 * whole job under one root). view: object, record type without "pd." ->
 * record, plus "root" -> the root's pd.root. All borrowed. */
struct unit {
	const char *root;
	json_t *rank;		/* integer or null (owned by the prun) */
	json_t *view;
	int stage;		/* pipeline stage, -1 unknown (job.c) */
};

struct prun {
	struct pd_run *u;
	struct unit *un;	/* sorted: integer ranks ascending, then null */
	size_t n;
	json_t *dups;		/* [{rank, roots, used}] ranks seen in several roots */
};

/* units.c */
void units_init(void);
void units_add(json_t *rec);
void units_free(void);
void units_of_run(struct pd_run *u, struct prun *p);
void prun_free(struct prun *p);
int prun_has(struct prun *p, const char *type);

/* colls.c: the collectives of the ranks' pd.comm records, compact */
struct coll {
	int64_t start, end;	/* trace ns */
	uint32_t key;		/* group, op type, seq: the same on every rank */
};
struct colls;
/* Take a pd.comm record's collectives and trim it (pd_rec_trim). */
void colls_take(json_t *comm);
/* After a choice between two pd.comm records of one (root, rank): kept is
 * held, dropped (or NULL) is not. */
void colls_keep(json_t *kept, json_t *dropped);
/* Order of two taken records by their collectives (for ties). */
int colls_less(json_t *a, json_t *b);
/* A held record's collectives (NULL: none taken). */
const struct colls *colls_of(json_t *comm);
const struct coll *colls_list(const struct colls *s, size_t *n);
size_t colls_keys(void);	/* keys interned so far */
void colls_free(void);

/* shares.c */
struct acc {
	double sum, max, min;
	int n;
	json_t *max_rank, *min_rank;
};
void acc_add(struct acc *a, double x, json_t *rank);
double acc_mean(const struct acc *a);
struct acc over_units(struct prun *p, const char *path);
double mean_of(struct prun *p, const char *path);
json_t *rank_json(json_t *r);
json_t *profile_shares(struct prun *p, json_t *prof, const char *workload,
    double *mean_step, int *close_top);

/* job.c */
void job_contexts_add(json_t *ctx);
void job_contexts_free(void);
json_t *pick_context(struct pd_run *u, size_t nruns);
void set_workload(json_t *p, struct prun *pr, json_t *srcs, json_t *confl);
json_t *stack(struct prun *pr, json_t *srcs, json_t *confl);
json_t *world_size(struct prun *pr, json_t *srcs, json_t *confl);
json_t *job_model(struct prun *pr, json_t *ws, const char *ws_src);
json_t *sorted_unique(json_t *arr);

/* crossrank.c */
json_t *cross_rank(struct prun *p, json_t *job);

#endif
