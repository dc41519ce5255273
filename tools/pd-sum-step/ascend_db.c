/* pd-sum-step for Ascend roots: analysis.db StepTraceTime (the db
 * export of torch_npu: the columns of step_trace_time.csv, in us). */
#include "ascend.h"

#include "sum_step.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pd_csv.h"
#include "pd_diag.h"
#include "pd_locate.h"
#include "pd_num.h"
#include "pd_rec.h"
#include "pd_sqlite.h"
#include "pd_stats.h"
#include "pd_trace.h"

/* ---- analysis.db (torch_npu export_type=db) ---- */

static const char *db_names[CSV_COLS] = {
	"computing", "communication_not_overlapped", "overlapped",
	"communication", "free", "preparing", "bubble", "stage"
};

/* analysis.db's StepTraceTime: the columns of step_trace_time.csv, in us
 * (REAL), one row per step (step as text). Returns 1 when usable. */
int
read_analysis_db(const char *path, struct run *r)
{
	sqlite3 *db = pd_sqlite_open(path);
	sqlite3_stmt *st = NULL;
	int col[CSV_COLS], scol, i, rc, ok = 0;
	long row = 0;

	if (!db)
		return 0;
	if (!pd_sqlite_has_table(db, "StepTraceTime")) {
		pd_warn(path, 0, "no StepTraceTime table (the step breakdown "
		    "of the db export); skipped");
		pd_diag_status(PD_EXIT_INPUT);
		goto out;
	}
	if (sqlite3_prepare_v2(db, "SELECT * FROM StepTraceTime", -1, &st,
	    NULL) != SQLITE_OK) {
		pd_warn(path, 0, "StepTraceTime: %s; skipped",
		    sqlite3_errmsg(db));
		pd_diag_status(PD_EXIT_INPUT);
		goto out;
	}
	for (i = 0; i < CSV_COLS; i++)
		col[i] = pd_sqlite_col(st, db_names[i]);
	scol = pd_sqlite_col(st, "step");
	for (i = 0; i < CSV_REQUIRED; i++)
		if (col[i] < 0) {
			pd_error(path, 0, "StepTraceTime: no column '%s'; "
			    "skipped", db_names[i]);
			pd_diag_status(PD_EXIT_INPUT);
			goto out;
		}
	ok = 1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct step tmp;
		const unsigned char *sv;
		char *end;

		row++;
		memset(&tmp, 0, sizeof tmp);
		for (i = 0; i < CSV_COLS; i++) {
			double us;

			if (col[i] < 0 ||
			    sqlite3_column_type(st, col[i]) == SQLITE_NULL)
				continue;
			us = sqlite3_column_double(st, col[i]);
			if (!isfinite(us) || fabs(us) > 9e12) {
				pd_warn(path, 0, "StepTraceTime row %ld: \"%s\" "
				    "is not a time; row skipped", row,
				    db_names[i]);
				goto reject;
			}
			step_put(&tmp, i, llround(us * 1000));
		}
		if (scol >= 0 && (sv = sqlite3_column_text(st, scol)) && *sv) {
			errno = 0;
			tmp.id = strtoll((const char *)sv, &end, 10);
			if (errno || *end) {
				pd_warn(path, 0, "StepTraceTime row %ld: "
				    "\"step\": not a step number: %s; row "
				    "skipped", row, pd_diag_quote((const char *)sv,
				    (size_t)-1));
				goto reject;
			}
			tmp.has_id = 1;
		}
		*step_add(r) = tmp;
		continue;
reject:
		csv_reject(r);
	}
	if (rc != SQLITE_DONE) {
		pd_warn(path, 0, "StepTraceTime: %s; the rows before are kept",
		    sqlite3_errmsg(db));
		r->truncated = 1;
		pd_diag_status(PD_EXIT_INPUT);
	}
out:
	sqlite3_finalize(st);
	sqlite3_close(db);
	return ok;
}
