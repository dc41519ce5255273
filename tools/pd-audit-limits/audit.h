/* pd-audit-limits, the audit's steps 3 to 5: ranked strategies
 * (strategy.c), experiments (experiment.c) and the final report
 * (report.c). Every json_t * returned is a NEW reference. */
#ifndef AUDIT_H
#define AUDIT_H

#include <jansson.h>
#include <stdio.h>

/* pd.strategy records, ranked, for the records in (borrowed) and the
 * verdict and limits (borrowed, verdict may be NULL); writes strategies
 * .md, analysis.html and edited copies below outdir. file: the strategy
 * catalogue (NULL: share/limits/strategies.yaml). NULL on a catalogue or
 * rules error (status set). */
json_t *audit_strategies(json_t *in, json_t *verdict, json_t *limits,
    const char *outdir, const char *file);

/* Runs before and after (shell command lines) runs times each under
 * pd-collect; appends their records to records; writes experiments/
 * name.log below outdir; returns the pd.experiment record, NULL on a
 * system error (status set). */
json_t *audit_experiment(const char *argv0, const char *name,
    const char *before, const char *after, int runs, const char *outdir,
    json_t *records);

/* final_report.md and final_report.html below outdir; 0 or -1. */
int audit_report(json_t *recs, const char *outdir);

void audit_html_esc(FILE *f, const char *s);

#endif
