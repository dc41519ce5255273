/* pd-sum-comm for Ascend roots: analysis.db of torch_npu's db export
 * (CommAnalyzerTime, CommAnalyzerBandwidth, CommAnalyzerMatrix). */
#include "ascend.h"

#include "sum_comm.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pd_csv.h"
#include "pd_diag.h"
#include "pd_jscan.h"
#include "pd_locate.h"
#include "pd_sqlite.h"
#include "pd_num.h"
#include "pd_rec.h"
#include "pd_trace.h"

/* ---- analysis.db (torch_npu export_type=db) ---- */

/* A column's value as text ("0" for the REAL 0.0 a rank may be stored
 * as); "" for NULL. */
static const char *
db_text(sqlite3_stmt *st, int col, char *buf, size_t size)
{
	const unsigned char *t;

	if (col < 0 || sqlite3_column_type(st, col) == SQLITE_NULL)
		return "";
	if (sqlite3_column_type(st, col) == SQLITE_FLOAT) {
		double v = sqlite3_column_double(st, col);

		if (v == floor(v) && fabs(v) < 1e15) {
			snprintf(buf, size, "%lld", (long long)v);
			return buf;
		}
	}
	t = sqlite3_column_text(st, col);
	snprintf(buf, size, "%s", t ? (const char *)t : "");
	return buf;
}

static void
db_num(json_t *o, const char *key, sqlite3_stmt *st, int col)
{
	if (col >= 0 && sqlite3_column_type(st, col) != SQLITE_NULL)
		json_object_set_new(o, key,
		    json_real(sqlite3_column_double(st, col)));
}

/* CommAnalyzerTime: one row per operator (ms), as communication.json's
 * "Communication Time Info"; CommAnalyzerBandwidth: per operator and
 * transport (then per packet size), its "Communication Bandwidth Info". */
static void
db_ops(struct agg *a, const char *path, sqlite3 *db)
{
	/* the times, as communication.json names them */
	static const char *times[][2] = {
		{ "elapse_time", "Elapse Time(ms)" },
		{ "transit_time", "Transit Time(ms)" },
		{ "wait_time", "Wait Time(ms)" },
		{ "synchronization_time", "Synchronization Time(ms)" },
		{ "idle_time", "Idle Time(ms)" },
	};
	enum { NT = sizeof times / sizeof times[0] };
	sqlite3_stmt *t = NULL, *b = NULL;
	int cn, cg, cst, ct[NT], k, rc;
	long row = 0;
	char name[512], group[128], stp[64], where[96], full[700];

	if (sqlite3_prepare_v2(db, "SELECT * FROM CommAnalyzerTime ORDER BY "
	    "rowid", -1, &t, NULL) != SQLITE_OK) {
		pd_warn(path, 0, "CommAnalyzerTime: %s; skipped",
		    sqlite3_errmsg(db));
		pd_diag_status(PD_EXIT_INPUT);
		return;
	}
	if (pd_sqlite_has_table(db, "CommAnalyzerBandwidth"))
		sqlite3_prepare_v2(db, "SELECT transport_type, transit_size, "
		    "transit_time FROM CommAnalyzerBandwidth WHERE hccl_op_name "
		    "= ?1 AND group_name = ?2 AND step = ?3 ORDER BY rowid", -1,
		    &b, NULL);
	cn = pd_sqlite_col(t, "hccl_op_name");
	cg = pd_sqlite_col(t, "group_name");
	cst = pd_sqlite_col(t, "step");
	for (k = 0; k < NT; k++)
		ct[k] = pd_sqlite_col(t, times[k][0]);
	while ((rc = sqlite3_step(t)) == SQLITE_ROW) {
		json_t *op = json_object(), *ti = json_object(), *bi = json_object();
		int64_t step = 0;
		int has;

		row++;
		snprintf(where, sizeof where, "CommAnalyzerTime row %ld", row);
		db_text(t, cn, name, sizeof name);
		db_text(t, cg, group, sizeof group);
		db_text(t, cst, stp, sizeof stp);
		if (!strcmp(name, "Total Op Info")) {	/* the sum again */
			json_decref(op);
			json_decref(ti);
			json_decref(bi);
			continue;
		}
		has = step_of(stp, &step);
		for (k = 0; k < NT; k++)
			db_num(ti, times[k][1], t, ct[k]);
		json_object_set_new(op, "Communication Time Info", ti);
		if (b) {
			sqlite3_reset(b);
			sqlite3_bind_text(b, 1, name, -1, SQLITE_TRANSIENT);
			sqlite3_bind_text(b, 2, group, -1, SQLITE_TRANSIENT);
			sqlite3_bind_text(b, 3, stp, -1, SQLITE_TRANSIENT);
			while (sqlite3_step(b) == SQLITE_ROW) {
				char transport[64];
				json_t *e;

				db_text(b, 0, transport, sizeof transport);
				if (!*transport ||
				    json_object_get(bi, transport))
					continue;	/* one row per packet size */
				e = json_object();
				db_num(e, "Transit Size(MB)", b, 1);
				db_num(e, "Transit Time(ms)", b, 2);
				json_object_set_new(bi, transport, e);
			}
		}
		json_object_set_new(op, "Communication Bandwidth Info", bi);
		snprintf(full, sizeof full, "%s%s%s", name, *group ? "@" : "",
		    group);
		add_op(a, path, where, full, op, step, has);
		json_decref(op);
	}
	if (rc != SQLITE_DONE) {
		pd_warn(path, 0, "CommAnalyzerTime: %s; the rows before are "
		    "kept", sqlite3_errmsg(db));
		a->truncated = 1;
		pd_diag_status(PD_EXIT_INPUT);
	}
	sqlite3_finalize(b);
	sqlite3_finalize(t);
}

/* CommAnalyzerMatrix: links per size bucket of each group and step,
 * src and dst within the group, as communication_matrix.json; only the
 * "-total" rows when there are some. */
static void
db_links(struct agg *a, const char *path, sqlite3 *db)
{
	sqlite3_stmt *m = NULL;
	int totals, cn, cg, cs, cd, ct, cz, cm, rc;
	long row = 0;

	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM CommAnalyzerMatrix "
	    "WHERE hccl_op_name LIKE '%-total'", -1, &m, NULL) != SQLITE_OK)
		return;
	totals = sqlite3_step(m) == SQLITE_ROW && sqlite3_column_int(m, 0) > 0;
	sqlite3_finalize(m);
	if (sqlite3_prepare_v2(db, "SELECT * FROM CommAnalyzerMatrix ORDER BY "
	    "rowid", -1, &m, NULL) != SQLITE_OK)
		return;
	cn = pd_sqlite_col(m, "hccl_op_name");
	cg = pd_sqlite_col(m, "group_name");
	cs = pd_sqlite_col(m, "src_rank");
	cd = pd_sqlite_col(m, "dst_rank");
	ct = pd_sqlite_col(m, "transport_type");
	cz = pd_sqlite_col(m, "transit_size");
	cm = pd_sqlite_col(m, "transit_time");
	while ((rc = sqlite3_step(m)) == SQLITE_ROW) {
		char name[256], group[128], src[32], dst[32], transport[64];
		char key[80], where[96];
		json_t *one, *lv;

		row++;
		db_text(m, cn, name, sizeof name);
		if (!strcmp(name, "Total Op Info") ||
		    (totals && !is_total(name)))
			continue;
		db_text(m, cg, group, sizeof group);
		db_text(m, cs, src, sizeof src);
		db_text(m, cd, dst, sizeof dst);
		db_text(m, ct, transport, sizeof transport);
		snprintf(where, sizeof where, "CommAnalyzerMatrix row %ld", row);
		snprintf(key, sizeof key, "%s-%s", src, dst);
		lv = json_object();
		if (*transport)
			json_object_set_new(lv, "Transport Type",
			    json_string(transport));
		db_num(lv, "Transit Size(MB)", m, cz);
		db_num(lv, "Transit Time(ms)", m, cm);
		one = json_object();
		json_object_set_new(one, key, lv);
		add_links(a, path, where, one, NULL, *group ? group : NULL);
		json_decref(one);
	}
	sqlite3_finalize(m);
}

void
read_db(struct agg *a, const char *path)
{
	sqlite3 *db = pd_sqlite_open(path);

	if (!db)
		return;
	if (pd_sqlite_has_table(db, "CommAnalyzerTime")) {
		add_source(a, "analysis_db");
		db_ops(a, path, db);
		if (pd_sqlite_has_table(db, "CommAnalyzerMatrix"))
			db_links(a, path, db);
	}
	sqlite3_close(db);
}
