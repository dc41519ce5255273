/* pd-report parts: the model (report.json, built from the stream), its
 * projections (Markdown, HTML), the lock file, and the atomic writer. */
#ifndef PD_REPORT_H
#define PD_REPORT_H

#include <jansson.h>
#include <stdio.h>

#include "pd_runs.h"

struct report_opts {
	const char *outdir;
	const char *run;	/* -R: the run to report, or NULL */
	const char *rules;	/* -r: rules file to pin, or NULL */
	int timestamp;		/* -t: write the generation time */
	int topn;		/* -n: hotspots listed */
	int all;		/* -A, or a dump operand: every run, and an
				 * index */
};

/* Everything pd-report keeps from the stream (references held). */
struct report_in {
	struct pd_runs *runs;
	json_t *roots;		/* every pd.root, input order */
	json_t *comparisons;	/* every pd.comparison */
	json_t *verdicts;	/* every pd.verdict */
	json_t *findings;	/* every pd.finding */
	json_t *counts;		/* object: record type -> count */
	json_t *collects;	/* every pd.run (pd-collect) */
	json_t *samples;	/* the pd.sample records of cpu, mem, gpu and
				 * npu with a t_s, input order */
	size_t nruns;		/* runs grouped from the stream */
};

/* model.c: the pd.comparison shown for run (borrowed, NULL if none). */
json_t *report_comparison_of(struct report_in *in, struct pd_run *run);
/* model.c: report.json (new reference) for the chosen run. */
json_t *report_build(struct report_in *in, struct pd_run *run,
    const struct report_opts *o);
/* The job's name for people, from its run id (model.c); NULL without an
 * id. Caller frees. */
char *report_job_name(const char *id, json_t *roots);
/* For a run that is one trace file: "job/stem" (the file's name without
 * .pt.trace.json.gz and the like), to tell the traces of one directory
 * apart; NULL for other runs. Caller frees. */
char *report_trace_name(const char *id, json_t *roots);
/* The generation time, as report.json's generated_at (-t). */
json_t *report_time(void);
/* The tool that writes a record type ("pd.step" -> "pd-sum-step"), or NULL. */
const char *report_producer(const char *type);
/* Sort an array of strings in place. */
void sort_strings(json_t *a);
/* The meta/ documents, each a new reference. */
json_t *report_meta_profile(struct pd_run *run);
json_t *report_meta_bottlenecks(struct pd_run *run);
json_t *report_meta_verdict(json_t *report);
/* lock.c: artifacts/perf.lock.json (new reference); errors are warned.
 * Its inputs are the exports of every pd.root, or of the run's roots when
 * run is not NULL. */
json_t *report_lock(struct report_in *in, const struct report_opts *o,
    struct pd_run *run);

/* md.c, html.c: write the projection of report.json to f. */
void report_md(json_t *report, FILE *f);
void report_html(json_t *report, FILE *f);
/* html.c: index.html, the page of index.json (the runs, each linked). */
void report_index_html(json_t *index, FILE *f);

/* atomic.c: the files appear as one set. report_out_begin resolves dir
 * (made with its parents), locks its parent, checks that what is there is
 * a previous set (no symbolic link, nothing pd-report does not write) and
 * makes a temporary directory next to it; report_write puts one file
 * ("report.json", "meta/x.json") there; report_out_commit renames the set
 * into the place of dir and removes the previous one; report_out_abort
 * removes the temporary directory and leaves dir as it was. 0 or -1 (error
 * printed). */
int report_out_begin(const char *dir);
int report_write(const char *name, const char *data, size_t len);
int report_out_commit(void);
void report_out_abort(void);
/* The output directory, absolute (after report_out_begin). */
const char *report_out_dir(void);
/* The output of many runs: report_runs_begin makes dir (with its
 * parents), locks its parent and checks that it holds only what pd-report
 * writes there (index.json, index.html, directories: the runs' sets,
 * each replaced with report_out_begin as one run's output);
 * report_runs_write puts one file (the index) in it by a temporary file
 * and a rename, under the directory's lock; report_runs_end releases the
 * lock. 0 or -1 (error printed). */
int report_runs_begin(const char *dir);
const char *report_runs_dir(void);
int report_runs_write(const char *name, const char *data, size_t len);
void report_runs_end(void);
/* json_dumps with the report's formatting (2-space indent, order kept),
 * newline-terminated; caller frees. */
char *report_dump(json_t *doc);

/* fmt.c: formatting shared by the projections (static buffers, rotate
 * 8): three significant digits and a unit for the size, "-" for a missing
 * value. */
const char *fmt_us(json_t *v);		/* "889 µs", "1.24 ms", "3.2 s" */
const char *fmt_dus(double us);
const char *fmt_ratio(json_t *v);	/* "81.6 %" */
const char *fmt_dratio(double x);
const char *fmt_bytes(json_t *v);	/* "12.5 GiB", "512 B" */
const char *fmt_dbytes(double x);
const char *fmt_sig(json_t *v);		/* "6.52"; integers whole */
const char *fmt_num(json_t *v);		/* a number as JSON prints it, else "-" */
/* A profile's step count: "16 steps, 1 per rank", "1 step". */
const char *steps_text(json_t *st);
/* By the unit suffix of a metric name (_us, _ratio, _bytes). */
const char *fmt_metric(const char *name, json_t *v);
/* A pd.comparison metric's name for people ("step_us" -> "step time");
 * the name itself when it has none. */
const char *metric_label(const char *name);
/* The workload's ranks: "single process", "16 ranks", "2 of 8 ranks". */
const char *ranks_text(json_t *workload);
/* "rank 3"; a row without a rank: "single process" when it is the only
 * one of rows. */
const char *rank_label(json_t *row, size_t rows);
/* What the strip of report.json shows: "Rank 0, step 50 (the median of
 * 3 steps by duration)", "Step 50 (the only step)", "... the whole
 * trace (it has no step markers)". */
const char *strip_what(json_t *strip);
/* "Rank 0, the whole trace" / "Rank 0, step 12": what the critical path
 * of report.json covers. */
const char *path_what(json_t *cp);
/* A bound type's name for people; the key itself when it has none. */
const char *bound_label(const char *key);
/* Whether a next action of report.json only repeats the proposed fix. */
int is_fix_action(json_t *report, const char *action);
/* The parts of a step, in drawing order (key NULL ends). */
struct report_seg {
	const char *key, *label, *color;
};
extern const struct report_seg report_segs[];
/* The critical path's bound types (pd.hotspot critical_path shares), in
 * drawing order, with names for people and colours (key NULL ends). */
extern const struct report_seg report_bounds[];

/* compute.c: whether the pages show report.json's flops (a compute or
 * operator verdict, or the fp32 matmul finding), kernel_sequences (the
 * findings of short kernels and launches, or an operator verdict) and
 * counters (a compute or operator verdict, or a trace without device
 * activity). */
int report_shows_flops(json_t *report);
int report_shows_sequences(json_t *report);
int report_shows_counters(json_t *report);
/* A kernel's name for people: no "void ", templates or parameters, the
 * last "::" part (a template's first argument where that part is only
 * "Kernel2"), at most KERNEL_SHORT bytes then "..." (static buffers,
 * rotate 8). */
#define KERNEL_SHORT 48
const char *kernel_short(const char *name);
/* "10.6 GFLOP", "8.11 kFLOP", "48 FLOP", "0". */
const char *fmt_dflop(double flop);
/* x to three significant digits, then unit when not "". */
const char *fmt_dsig(double x, const char *unit);

#endif
