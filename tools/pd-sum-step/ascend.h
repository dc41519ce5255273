/* pd-sum-step for Ascend roots: what the readers of each source file
 * (ascend_*.c) share: a rank's run of steps and the CSV column map. */
#ifndef PD_SUM_STEP_ASCEND_H
#define PD_SUM_STEP_ASCEND_H

#include <stdint.h>

#include "pd_csv.h"
#include "record.h"
#include "pd_tool.h"
#include "pd_trace.h"

/* Per-step values, in the order of the record keys. */
enum {
	K_COMP, K_CNO, K_OVL, K_COMM, K_FREE, K_PREP, K_BUBBLE, K_STAGE,
	K_FPBP, K_TAIL, K_N
};

struct step {
	int64_t id;
	int has_id;
	int64_t v[K_N];		/* ns */
	unsigned have;		/* bit per K_ */
	int64_t total;		/* legacy: the iteration time, ns */
	int has_total;
	/* trace lanes: device span of the step */
	int64_t host_start, first, last;
	int has_span;
};

struct run {
	struct step *s;
	size_t n, cap;
	long skipped;		/* rows or events rejected */
	long inexact;		/* numbers in exponent form, kept */
	int truncated;
	int64_t device;
	int has_device;
	int64_t unassigned;	/* trace lanes: ns before the first step */
	int has_unassigned;
	const char *source;	/* export kind */
	const char *path;
	double tick_mhz;	/* legacy MindSpore: counter frequency */
};

/* Columns every variant has; Preparing, Bubble, Stage may be missing. */
enum { CSV_REQUIRED = 5, CSV_COLS = 8 };

struct csvmap {
	int col[CSV_COLS];
	int step, device, type, index;
};

void run_free(struct run *r);
struct step *step_add(struct run *r);
struct step *step_find(struct run *r, int64_t id);
void step_put(struct step *s, int k, int64_t ns);
int step_has(const struct step *s, int k);
int step_ns(const struct step *s, int64_t *ns);
/* The totals of a cluster stage row (step_us not had). */
void stage_totals(const struct run *r, struct stepval *sum);
void emit_run(json_t *root, struct run *r, int64_t rank, const char *scope,
    int64_t stage, const struct stepstage *stages, size_t nstages);
int csv_map(struct pd_csv *c, struct csvmap *m, int cluster);
int csv_row(struct pd_csv *c, const struct csvmap *m, struct run *r,
    struct step *s);
void csv_reject(struct run *r);
void csv_end(struct pd_csv *c, int rc, struct run *r);
struct pd_csv *csv_open(const char *path);
int csv_header(struct pd_csv *c);
int read_step_trace_time(const char *path, struct run *r);
int read_analysis_db(const char *path, struct run *r);
int trace_view_read(const char *path, const struct pd_trace_cb *cb,
    struct run *r, int pass);
int read_trace_view(const char *path, struct run *r);
int read_ms_legacy(const char *path, struct run *r);
int read_legacy_timelines(json_t *root, struct run *r);
int read_cluster(json_t *root, const char *path);

#endif
