/* pd-sum-step for Ascend roots: step_trace_time.csv (three header
 * variants; Step may be empty), and the CSV helpers the other CSV readers
 * use. */
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

/* ---- CSV sources ---- */

static const char *csv_names[] = {
	"Computing", "Communication(Not Overlapped)", "Overlapped",
	"Communication", "Free", "Preparing", "Bubble", "Stage"
};

/* Look up the metric columns; an unknown header variant is an error that
 * names the missing columns. Returns 0 when usable. */
int
csv_map(struct pd_csv *c, struct csvmap *m, int cluster)
{
	char miss[512] = "";
	int i;

	for (i = 0; i < CSV_COLS; i++) {
		m->col[i] = pd_csv_col(c, csv_names[i], NULL);
		if (m->col[i] < 0 && i < CSV_REQUIRED) {
			if (*miss)
				strncat(miss, ", ", sizeof miss - strlen(miss) - 1);
			strncat(miss, "'", sizeof miss - strlen(miss) - 1);
			strncat(miss, csv_names[i], sizeof miss - strlen(miss) - 1);
			strncat(miss, "'", sizeof miss - strlen(miss) - 1);
		}
	}
	m->step = pd_csv_col(c, "Step", NULL);
	m->device = pd_csv_col(c, "Device_id", NULL);
	m->type = pd_csv_col(c, "Type", NULL);
	m->index = pd_csv_col(c, "Index", NULL);
	if (cluster && (m->type < 0 || m->index < 0)) {
		if (*miss)
			strncat(miss, ", ", sizeof miss - strlen(miss) - 1);
		strncat(miss, m->type < 0 ? "'Type'" : "'Index'",
		    sizeof miss - strlen(miss) - 1);
	}
	if (m->step < 0 && !*miss)
		strcpy(miss, "'Step'");
	if (*miss) {
		pd_error(pd_csv_name(c), 1,
		    "unknown header variant: missing column%s %s",
		    strchr(miss, ',') ? "s" : "", miss);
		return -1;
	}
	return 0;
}

/* Read the metric fields of the current row into s. Returns 0, or -1 when
 * the row is rejected (warned, counted). */
int
csv_row(struct pd_csv *c, const struct csvmap *m, struct run *r,
    struct step *s)
{
	int64_t ns;
	int i, rc;

	for (i = 0; i < CSV_COLS; i++) {
		if (m->col[i] < 0)
			continue;
		rc = pd_csv_us_ns(c, m->col[i], &ns);
		if (rc == PD_NUM_MISSING)
			continue;
		if (rc == PD_NUM_BAD) {
			pd_warn(pd_csv_name(c), pd_csv_line(c),
			    "\"%s\": not a number: %s; row skipped",
			    csv_names[i], pd_csv_quote(c, m->col[i]));
			return -1;
		}
		if (rc == PD_NUM_INEXACT) {
			pd_warn(pd_csv_name(c), pd_csv_line(c),
			    "\"%s\": number in exponent form (edited in a "
			    "spreadsheet?): %s; kept, digits may be lost",
			    csv_names[i], pd_csv_quote(c, m->col[i]));
			r->inexact++;
			pd_diag_status(PD_EXIT_INPUT);
		}
		step_put(s, i, ns);
	}
	rc = pd_csv_int(c, m->step, &s->id);
	if (rc == PD_NUM_OK)
		s->has_id = 1;
	else if (rc != PD_NUM_MISSING) {
		pd_warn(pd_csv_name(c), pd_csv_line(c),
		    "\"Step\": not a step number: %s; row skipped",
		    pd_csv_quote(c, m->step));
		return -1;
	}
	return 0;
}

void
csv_reject(struct run *r)
{
	r->skipped++;
	pd_diag_status(PD_EXIT_INPUT);
}

/* A read that ended early: say where and mark the record. */
void
csv_end(struct pd_csv *c, int rc, struct run *r)
{
	if (rc == -2) {
		pd_warn(pd_csv_name(c), pd_csv_line(c),
		    "file ends inside a quoted field; last row skipped");
		r->truncated = 1;
		csv_reject(r);
	} else if (rc < 0) {
		pd_warn(pd_csv_name(c), pd_csv_line(c), "read error");
		r->truncated = 1;
		pd_diag_status(PD_EXIT_SYSTEM);
	}
}

struct pd_csv *
csv_open(const char *path)
{
	struct pd_csv *c = pd_csv_open(path);

	if (!c) {
		pd_error(path, 0, "%s", strerror(errno));
		pd_diag_status(PD_EXIT_SYSTEM);
	}
	return c;
}

int
csv_header(struct pd_csv *c)
{
	int rc = pd_csv_header(c);

	if (rc == 0)
		pd_warn(pd_csv_name(c), 0, "no header row; file skipped");
	pd_csv_header_warn(c, rc);
	return rc;
}

/* step_trace_time.csv: one row per step. Returns 1 when usable. */
int
read_step_trace_time(const char *path, struct run *r)
{
	struct pd_csv *c = csv_open(path);
	struct csvmap m;
	struct step tmp;
	int rc, ok = 0;
	int64_t dev;

	if (!c)
		return 0;
	if (csv_header(c) <= 0 || csv_map(c, &m, 0) < 0) {
		pd_diag_status(PD_EXIT_INPUT);
		goto out;
	}
	ok = 1;
	while ((rc = pd_csv_next(c)) > 0) {
		memset(&tmp, 0, sizeof tmp);
		if (csv_row(c, &m, r, &tmp) < 0) {
			csv_reject(r);
			continue;
		}
		if (m.device >= 0 && !r->has_device &&
		    pd_csv_int(c, m.device, &dev) == PD_NUM_OK) {
			r->device = dev;
			r->has_device = 1;
		}
		*step_add(r) = tmp;
	}
	csv_end(c, rc, r);
out:
	pd_csv_close(c);
	return ok;
}
