/* pd-sum-mem for Ascend roots: device memory peaks, fragmentation,
 * growth and the biggest allocators.
 *
 * Reads, per root: memory_record.csv (MB header of torch_npu, KB header of
 * the msprof CLI; per component), operator_memory.csv (per allocation),
 * npu_module_mem.csv (per CANN module), static_op_mem.csv, and the NPU MEM
 * counters (APP/..., Device/..., KB) of trace_view.json.
 * When the root has none of these (torch_npu's export_type=db), the same
 * from ascend_pytorch_profiler_{rank}.db: MEMORY_RECORD, NPU_MEM (the APP
 * and device lanes), OP_MEMORY and NPU_MODULE_MEM, names from STRING_IDS
 * and ENUM_MODULE, sizes in bytes and times in ns.
 * Writes one pd.mem per root that has any of them; streams every file.
 * MB and KB in these files are binary (MiB, KiB): values like
 * 2109.6015625 MB are exact multiples of 2^-20 MiB. */
#include "record.h"
#include "sum_mem.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pd_csv.h"
#include "pd_diag.h"
#include "pd_locate.h"
#include "pd_num.h"
#include "pd_rec.h"
#include "pd_sqlite.h"
#include "pd_trace.h"

#define MIB 1048576.0
#define KIB 1024.0

/* One memory_record component on one device. */
struct comp {
	char name[32];
	int64_t device;		/* -1 unknown */
	int have_alloc, have_res, have_act;
	double peak_alloc, peak_res, peak_act, res_at_peak;
	int64_t peak_ts;	/* INT64_MIN when the peak row had no exact time */
	/* least squares of allocated over time (s, from t0) */
	int64_t t0;
	long n;
	double st, sy, stt, sty;
};

struct alloc {
	char *name;
	double bytes, lifetime_us;
	long count;
};

struct mem {
	struct comp *c;
	size_t nc, capc;
	struct alloc *a;
	size_t na, capa;
	json_t *aindex;
	json_t *modules;	/* component -> peak bytes (real) */
	long skipped, inexact;
	int truncated;		/* a file ended early */
	long never_n, free_n, static_n;
	double never_b, free_b, static_b;
	int have_opmem, have_static, have_lane;
	double lane_app, lane_dev;
	json_t *sources;
};

static struct comp *
comp_get(struct mem *m, const char *name, int64_t dev)
{
	size_t i;
	struct comp *c;

	for (i = 0; i < m->nc; i++)
		if (m->c[i].device == dev && strcmp(m->c[i].name, name) == 0)
			return &m->c[i];
	if (m->nc == m->capc) {
		m->capc = m->capc ? 2 * m->capc : 16;
		m->c = realloc(m->c, m->capc * sizeof *m->c);
		if (!m->c)
			pd_oom();
	}
	c = &m->c[m->nc++];
	memset(c, 0, sizeof *c);
	snprintf(c->name, sizeof c->name, "%s", name);
	c->device = dev;
	c->peak_ts = INT64_MIN;
	return c;
}

static struct alloc *
alloc_get(struct mem *m, const char *name)
{
	json_t *v;
	struct alloc *a;

	if (!m->aindex)
		m->aindex = json_object();
	if ((v = json_object_get(m->aindex, name)))
		return &m->a[json_integer_value(v)];
	if (m->na == m->capa) {
		m->capa = m->capa ? 2 * m->capa : 64;
		m->a = realloc(m->a, m->capa * sizeof *m->a);
		if (!m->a)
			pd_oom();
	}
	a = &m->a[m->na];
	memset(a, 0, sizeof *a);
	a->name = strdup(name);
	json_object_set_new_nocheck(m->aindex, name, json_integer(m->na));
	m->na++;
	return a;
}

static void
skip_row(struct mem *m, struct pd_csv *c, const char *what)
{
	pd_warn(pd_csv_name(c), pd_csv_line(c), "%s: row skipped", what);
	pd_diag_status(PD_EXIT_INPUT);
	m->skipped++;
}

static void
csv_end(struct mem *m, struct pd_csv *c, int r)
{
	if (r == -2) {
		pd_warn(pd_csv_name(c), pd_csv_line(c), "file ends inside a "
		    "quoted field (truncated?): last row skipped");
		pd_diag_status(PD_EXIT_INPUT);
		m->skipped++;
		m->truncated = 1;
	} else if (r < 0) {
		pd_warn(pd_csv_name(c), pd_csv_line(c), "read error");
		pd_diag_status(PD_EXIT_INPUT);
	}
	pd_csv_close(c);
}

/* Name a file kind in "source" once its header was understood. */
static void
add_source(struct mem *m, const char *source)
{
	size_t n = json_array_size(m->sources);

	if (!n || strcmp(json_string_value(json_array_get(m->sources, n - 1)),
	    source) != 0)
		json_array_append_new(m->sources, pd_str(source));
}

/* Column idx in MiB or KiB, by its header; *unit gets the multiplier. */
static int
col_unit(struct pd_csv *c, const char *base, double *unit)
{
	char mb[64], kb[64];
	int i;

	snprintf(mb, sizeof mb, "%s(MB)", base);
	snprintf(kb, sizeof kb, "%s(KB)", base);
	if ((i = pd_csv_col(c, mb, NULL)) >= 0) {
		*unit = MIB;
		return i;
	}
	*unit = KIB;
	return pd_csv_col(c, kb, NULL);
}

/* "NPU:3" -> 3; a Device_id number; else the root's device. */
static int64_t
row_device(struct pd_csv *c, int dtype, int did, int64_t dflt)
{
	const char *s, *colon;
	int64_t v;

	if (dtype >= 0) {
		s = pd_csv_field(c, dtype);
		colon = strrchr(s, ':');
		if (colon && pd_num_int(colon + 1, strlen(colon + 1), &v) ==
		    PD_NUM_OK)
			return v;
		if (pd_num_int(s, strlen(s), &v) == PD_NUM_OK)
			return v;
	}
	if (did >= 0 && pd_csv_int(c, did, &v) == PD_NUM_OK)
		return v;
	return dflt;
}

/* A timestamp; INT64_MIN when missing or not exact (warned once per file
 * with its line, counted per row). */
static int64_t
row_ts(struct mem *m, struct pd_csv *c, int col, long *inexact)
{
	int64_t ns;
	int r = pd_csv_us_ns(c, col, &ns);

	if (r == PD_NUM_OK)
		return ns;
	if (r == PD_NUM_INEXACT || r == PD_NUM_BAD) {
		if ((*inexact)++ == 0)
			pd_warn(pd_csv_name(c), pd_csv_line(c),
			    "%s timestamp %s: row kept for peaks, left out "
			    "of growth and peak time", r == PD_NUM_INEXACT ?
			    "inexact (Excel exponent form)" : "bad",
			    pd_csv_quote(c, col));
		pd_diag_status(PD_EXIT_INPUT);
		m->inexact++;
	}
	return INT64_MIN;
}

static void
comp_add(struct comp *k, int64_t ts, int ha, double alloc, int hr,
    double res, int hac, double act)
{
	double t, y;

	if (hr && (!k->have_res || res > k->peak_res))
		k->peak_res = res;
	k->have_res |= hr;
	if (hac && (!k->have_act || act > k->peak_act))
		k->peak_act = act;
	k->have_act |= hac;
	if (!ha)
		return;
	if (!k->have_alloc || alloc > k->peak_alloc) {
		k->peak_alloc = alloc;
		k->res_at_peak = hr ? res : NAN;
		k->peak_ts = ts;
	}
	k->have_alloc = 1;
	if (ts == INT64_MIN)
		return;
	if (k->n == 0)
		k->t0 = ts;
	t = (double)(ts - k->t0) / 1e9;
	y = alloc;
	k->n++;
	k->st += t;
	k->sy += y;
	k->stt += t * t;
	k->sty += t * y;
}

static void
read_record(struct mem *m, const char *path, int64_t rootdev)
{
	static const char *names[] = { "Component", "Timestamp(us)",
	    "Total Reserved(MB)' or 'Total Reserved(KB)" };
	struct pd_csv *c = pd_csv_open_header(path);
	int idx[3], al, ac, dt, di, r, ha, hr, hac;
	double ua = MIB, ur = MIB, uc = MIB, va, vr, vc;
	long inexact = 0;
	int64_t ts;

	if (!c)
		return;
	idx[0] = pd_csv_col(c, "Component", NULL);
	idx[1] = pd_csv_col(c, "Timestamp(us)", NULL);
	idx[2] = col_unit(c, "Total Reserved", &ur);
	al = col_unit(c, "Total Allocated", &ua);
	ac = col_unit(c, "Total Active", &uc);
	dt = pd_csv_col(c, "Device Type", "Device", NULL);
	di = pd_csv_col(c, "Device_id", NULL);
	if (pd_csv_require(path, names, idx, 3)) {
		pd_csv_close(c);
		return;
	}
	add_source(m, "memory_record");
	while ((r = pd_csv_next(c)) > 0) {
		ts = row_ts(m, c, idx[1], &inexact);
		ha = al >= 0 && pd_csv_double(c, al, &va) == PD_NUM_OK;
		hr = pd_csv_double(c, idx[2], &vr) == PD_NUM_OK;
		hac = ac >= 0 && pd_csv_double(c, ac, &vc) == PD_NUM_OK;
		if (!ha && !hr && !hac) {
			skip_row(m, c, "no memory value");
			continue;
		}
		comp_add(comp_get(m, pd_csv_field(c, idx[0]),
		    row_device(c, dt, di, rootdev)), ts, ha, va * ua,
		    hr && vr >= 0, vr * ur, hac, vc * uc);
	}
	if (inexact > 1)
		pd_warn(path, 0, "%ld rows with inexact or bad timestamps",
		    inexact);
	csv_end(m, c, r);
}

static void
read_opmem(struct mem *m, const char *path)
{
	static const char *names[] = { "Name", "Size(KB)",
	    "Release Time(us)" };
	struct pd_csv *c = pd_csv_open_header(path);
	int idx[3], dur, r;
	double kb, us;
	struct alloc *a;

	if (!c)
		return;
	idx[0] = pd_csv_col(c, "Name", NULL);
	idx[1] = pd_csv_col(c, "Size(KB)", NULL);
	idx[2] = pd_csv_col(c, "Release Time(us)", NULL);
	dur = pd_csv_col(c, "Duration(us)", NULL);
	if (pd_csv_require(path, names, idx, 3)) {
		pd_csv_close(c);
		return;
	}
	add_source(m, "operator_memory");
	m->have_opmem = 1;
	while ((r = pd_csv_next(c)) > 0) {
		if (pd_csv_double(c, idx[1], &kb) != PD_NUM_OK) {
			skip_row(m, c, "bad size");
			continue;
		}
		if (kb < 0) {
			m->free_n++;
			m->free_b += -kb * KIB;
			continue;
		}
		a = alloc_get(m, pd_csv_field(c, idx[0]));
		a->count++;
		a->bytes += kb * KIB;
		if (pd_num_is_missing(pd_csv_field(c, idx[2]),
		    pd_csv_len(c, idx[2]))) {
			m->never_n++;
			m->never_b += kb * KIB;
		} else if (dur >= 0 && pd_csv_double(c, dur, &us) ==
		    PD_NUM_OK && us > 0)
			a->lifetime_us += us;
	}
	csv_end(m, c, r);
}

static void
read_modules(struct mem *m, const char *path)
{
	static const char *names[] = { "Component",
	    "Total Reserved(MB)' or 'Total Reserved(KB)" };
	struct pd_csv *c = pd_csv_open_header(path);
	int idx[2], r;
	double u, v;
	json_t *old;

	if (!c)
		return;
	idx[0] = pd_csv_col(c, "Component", NULL);
	idx[1] = col_unit(c, "Total Reserved", &u);
	if (pd_csv_require(path, names, idx, 2)) {
		pd_csv_close(c);
		return;
	}
	add_source(m, "npu_module_mem");
	if (!m->modules)
		m->modules = json_object();
	while ((r = pd_csv_next(c)) > 0) {
		if ((r = pd_csv_double(c, idx[1], &v)) != PD_NUM_OK) {
			if (r != PD_NUM_MISSING)
				skip_row(m, c, "bad reserved size");
			continue;
		}
		if (v < 0)	/* msprof writes -1 for "not collected" */
			continue;
		old = json_object_get(m->modules, pd_csv_field(c, idx[0]));
		if (!old || json_real_value(old) < v * u)
			json_object_set_new(m->modules,
			    pd_csv_field(c, idx[0]), json_real(v * u));
	}
	csv_end(m, c, r);
}

static void
read_static(struct mem *m, const char *path)
{
	static const char *names[] = { "Op Name", "Size(KB)" };
	struct pd_csv *c = pd_csv_open_header(path);
	int idx[2], r;
	double kb;

	if (!c)
		return;
	idx[0] = pd_csv_col(c, "Op Name", NULL);
	idx[1] = pd_csv_col(c, "Size(KB)", NULL);
	if (pd_csv_require(path, names, idx, 2)) {
		pd_csv_close(c);
		return;
	}
	add_source(m, "static_op_mem");
	m->have_static = 1;
	while ((r = pd_csv_next(c)) > 0) {
		if (pd_csv_double(c, idx[1], &kb) != PD_NUM_OK) {
			skip_row(m, c, "bad size");
			continue;
		}
		m->static_n++;
		m->static_b += kb * KIB;
	}
	csv_end(m, c, r);
}

/* NPU MEM counters: "APP/Memory" and "Device/Memory" in KB. */
static int
on_counter(const struct pd_ev *ev, void *ctx)
{
	struct mem *m = ctx;
	double kb;

	if (ev->ph != 'C' || !pd_ev_arg_double(ev, "KB", &kb))
		return 0;
	if (strcmp(ev->name, "APP/Memory") == 0 && kb * KIB > m->lane_app)
		m->lane_app = kb * KIB;
	else if (strcmp(ev->name, "Device/Memory") == 0 &&
	    kb * KIB > m->lane_dev)
		m->lane_dev = kb * KIB;
	else
		return 0;
	m->have_lane = 1;
	return 0;
}

static void
read_lane(struct mem *m, const char *path)
{
	struct pd_trace_cb cb = { 0, on_counter, NULL, NULL, NULL };
	struct pd_trace_stats st;
	int r;

	cb.ctx = m;
	r = pd_trace_read(path, &cb, &st);
	if (r < 0) {
		pd_error(path, 0, "%s", strerror(errno));
		pd_diag_status(PD_EXIT_SYSTEM);
		return;
	}
	if (r > 0) {
		pd_warn(path, st.err_line, "%s: NPU MEM peaks cover the %llu "
		    "events read", st.err, (unsigned long long)st.events);
		pd_diag_status(PD_EXIT_INPUT);
		m->truncated = 1;
	}
	if (m->have_lane)
		add_source(m, "trace_view");
}

/* ---- the db export ---- */

/* Run sql on db, calling row() per row; a table that is missing is
 * absent data (0), a failing query is said (file: table: message). */
static int
db_rows(sqlite3 *db, const char *path, const char *table, const char *sql,
    void (*row)(struct mem *, sqlite3_stmt *, int64_t), struct mem *m,
    int64_t rootdev)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (!pd_sqlite_has_table(db, table))
		return 0;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		pd_warn(path, 0, "%s: %s; skipped", table, sqlite3_errmsg(db));
		pd_diag_status(PD_EXIT_INPUT);
		sqlite3_finalize(st);
		return 0;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		row(m, st, rootdev);
	if (rc != SQLITE_DONE) {
		pd_warn(path, 0, "%s: %s; the rows before are kept", table,
		    sqlite3_errmsg(db));
		pd_diag_status(PD_EXIT_INPUT);
		m->truncated = 1;
	}
	sqlite3_finalize(st);
	add_source(m, table);
	return 1;
}

static const char *
db_text(sqlite3_stmt *st, int col, const char *dflt)
{
	const char *s = (const char *)sqlite3_column_text(st, col);

	return s && *s ? s : dflt;
}

static int
db_num(sqlite3_stmt *st, int col, double *v)
{
	int t = sqlite3_column_type(st, col);

	if (t != SQLITE_INTEGER && t != SQLITE_FLOAT)
		return 0;
	*v = sqlite3_column_double(st, col);
	return isfinite(*v);
}

/* component, timestamp, allocated, reserved, active, device. A total
 * active of 0 beside a positive allocated is not collected (GE's rows,
 * left blank in memory_record.csv), not a measure. */
static void
db_record(struct mem *m, sqlite3_stmt *st, int64_t rootdev)
{
	int64_t ts, dev;
	double va = 0, vr = 0, vc = 0;
	int ha = db_num(st, 2, &va), hr = db_num(st, 3, &vr),
	    hac = db_num(st, 4, &vc);

	if (hac && vc == 0 && ha && va > 0)
		hac = 0;
	if (!ha && !hr && !hac) {
		m->skipped++;
		return;
	}
	if (!pd_sqlite_i64(st, 1, &ts))
		ts = INT64_MIN;
	if (!pd_sqlite_i64(st, 5, &dev))
		dev = rootdev;
	comp_add(comp_get(m, db_text(st, 0, "?"), dev), ts, ha, va,
	    hr && vr >= 0, vr, hac, vc);
}

/* NPU_MEM: type (app, device), hbm bytes, timestamp, device. The app
 * lane is also the APP component, as memory_record.csv has it. */
static void
db_npumem(struct mem *m, sqlite3_stmt *st, int64_t rootdev)
{
	const char *type = db_text(st, 0, "");
	int64_t ts, dev;
	double b;

	if (!db_num(st, 1, &b) || b < 0) {
		m->skipped++;
		return;
	}
	if (!pd_sqlite_i64(st, 2, &ts))
		ts = INT64_MIN;
	if (!pd_sqlite_i64(st, 3, &dev))
		dev = rootdev;
	if (strcmp(type, "app") == 0) {
		comp_add(comp_get(m, "APP", dev), ts, 0, 0, 1, b, 0, 0);
		if (b > m->lane_app)
			m->lane_app = b;
	} else if (strcmp(type, "device") == 0) {
		if (b > m->lane_dev)
			m->lane_dev = b;
	} else
		return;
	m->have_lane = 1;
}

/* OP_MEMORY: name, size (bytes; negative a free), release time (NULL:
 * never released), duration (ns). */
static void
db_opmem(struct mem *m, sqlite3_stmt *st, int64_t rootdev)
{
	struct alloc *a;
	double b, ns;

	(void)rootdev;
	m->have_opmem = 1;
	if (!db_num(st, 1, &b)) {
		m->skipped++;
		return;
	}
	if (b < 0) {
		m->free_n++;
		m->free_b += -b;
		return;
	}
	a = alloc_get(m, db_text(st, 0, "?"));
	a->count++;
	a->bytes += b;
	if (sqlite3_column_type(st, 2) == SQLITE_NULL) {
		m->never_n++;
		m->never_b += b;
	} else if (db_num(st, 3, &ns) && ns > 0)
		a->lifetime_us += ns / 1e3;
}

/* NPU_MODULE_MEM: module name, reserved bytes (-1: not collected). */
static void
db_module(struct mem *m, sqlite3_stmt *st, int64_t rootdev)
{
	const char *name = db_text(st, 0, "?");
	json_t *old;
	double v;

	(void)rootdev;
	if (!m->modules)
		m->modules = json_object();
	if (!db_num(st, 1, &v)) {
		if (sqlite3_column_type(st, 1) != SQLITE_NULL)
			m->skipped++;
		return;
	}
	if (v < 0)
		return;
	old = json_object_get(m->modules, name);
	if (!old || json_real_value(old) < v)
		json_object_set_new(m->modules, name, json_real(v));
}

static void
read_db(struct mem *m, const char *path, int64_t rootdev)
{
	static const char *tables[] = { "MEMORY_RECORD", "NPU_MEM",
	    "OP_MEMORY", "NPU_MODULE_MEM", NULL };
	sqlite3 *db = pd_sqlite_open(path);
	int i, any = 0;

	if (!db)
		return;
	for (i = 0; tables[i]; i++)
		any |= pd_sqlite_has_table(db, tables[i]);
	if (!any) {
		pd_warn(path, 0, "no memory tables (MEMORY_RECORD, NPU_MEM, "
		    "OP_MEMORY, NPU_MODULE_MEM): profiled without "
		    "profile_memory=True? no pd.mem for this root");
		pd_diag_status(PD_EXIT_INPUT);
		sqlite3_close(db);
		return;
	}
	db_rows(db, path, "MEMORY_RECORD", "SELECT s.value, m.timestamp, "
	    "m.totalAllocated, m.totalReserved, m.totalActive, m.deviceId "
	    "FROM MEMORY_RECORD m LEFT JOIN STRING_IDS s ON s.id = "
	    "m.component ORDER BY m.rowid", db_record, m, rootdev);
	db_rows(db, path, "NPU_MEM", "SELECT s.value, n.hbm, n.timestampNs, "
	    "n.deviceId FROM NPU_MEM n LEFT JOIN STRING_IDS s ON s.id = "
	    "n.type ORDER BY n.rowid", db_npumem, m, rootdev);
	db_rows(db, path, "OP_MEMORY", "SELECT s.value, o.size, "
	    "o.releaseTime, o.duration FROM OP_MEMORY o LEFT JOIN STRING_IDS "
	    "s ON s.id = o.name ORDER BY o.rowid", db_opmem, m, rootdev);
	db_rows(db, path, "NPU_MODULE_MEM", pd_sqlite_has_table(db,
	    "ENUM_MODULE") ? "SELECT e.name, n.totalReserved FROM "
	    "NPU_MODULE_MEM n LEFT JOIN ENUM_MODULE e ON e.id = n.moduleId "
	    "ORDER BY n.rowid" : "SELECT CAST(moduleId AS TEXT), "
	    "totalReserved FROM NPU_MODULE_MEM ORDER BY rowid", db_module, m,
	    rootdev);
	sqlite3_close(db);
}

static json_t *
bytes(int have, double v)
{
	int64_t iv;

	return have && pd_num_round_i64(v, &iv) == PD_NUM_OK ?
	    json_integer((json_int_t)iv) :
	    json_null();
}

/* Value k of d: v rounded to whole bytes, when had and a number. */
static void
md_bytes(struct memdev *d, int k, int have, double v)
{
	int64_t iv;

	if (have && pd_num_round_i64(v, &iv) == PD_NUM_OK)
		memdev_set(d, k, iv);
}

/* The framework's own total: PTA+GE, else PTA, else GE. */
static struct comp *
framework(struct mem *m, int64_t dev)
{
	static const char *pref[] = { "PTA+GE", "PTA", "GE", NULL };
	size_t i;
	int p;

	for (p = 0; pref[p]; p++)
		for (i = 0; i < m->nc; i++)
			if (m->c[i].device == dev && m->c[i].have_alloc &&
			    strcmp(m->c[i].name, pref[p]) == 0)
				return &m->c[i];
	return NULL;
}

static struct comp *
find_comp(struct mem *m, int64_t dev, const char *name)
{
	size_t i;

	for (i = 0; i < m->nc; i++)
		if (m->c[i].device == dev && strcmp(m->c[i].name, name) == 0)
			return &m->c[i];
	return NULL;
}

static double
slope(const struct comp *k)
{
	double d;

	if (k->n < 2)
		return NAN;
	d = k->n * k->stt - k->st * k->st;
	if (d <= 0)
		return NAN;
	return (k->n * k->sty - k->st * k->sy) / d;
}

static int
cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static int
comp_by_name(const void *x, const void *y)
{
	return strcmp((*(struct comp *const *)x)->name,
	    (*(struct comp *const *)y)->name);
}

/* Every memory_record component of a device, by name. */
static json_t *
components(struct mem *m, int64_t dev)
{
	json_t *a = json_array(), *o;
	struct comp **v = calloc(m->nc + 1, sizeof *v);
	size_t i, n = 0;

	if (!v)
		pd_oom();
	for (i = 0; i < m->nc; i++)
		if (m->c[i].device == dev)
			v[n++] = &m->c[i];
	if (n > 1)
		qsort(v, n, sizeof *v, comp_by_name);
	for (i = 0; i < n; i++) {
		o = json_object();
		pd_set_str(o, "component", v[i]->name);
		pd_set(o, "peak_allocated_bytes", bytes(v[i]->have_alloc,
		    v[i]->peak_alloc));
		pd_set(o, "peak_reserved_bytes", bytes(v[i]->have_res,
		    v[i]->peak_res));
		pd_set(o, "peak_active_bytes", bytes(v[i]->have_act,
		    v[i]->peak_act));
		json_array_append_new(a, o);
	}
	free(v);
	return a;
}

static json_t *
devices(struct mem *m, double *pa, double *pr, int *ha, int *hr)
{
	json_t *a = json_array(), *o;
	int64_t *devs = calloc(m->nc + 1, sizeof *devs);
	size_t i, nd = 0;
	struct comp *k, *app;
	struct memdev md;

	for (i = 0; i < m->nc; i++)
		if (!nd || !bsearch(&m->c[i].device, devs, nd, sizeof *devs,
		    cmp_i64)) {
			devs[nd++] = m->c[i].device;
			qsort(devs, nd, sizeof *devs, cmp_i64);
		}
	for (i = 0; i < nd; i++) {
		k = framework(m, devs[i]);
		app = find_comp(m, devs[i], "APP");
		memdev_init(&md);
		if (devs[i] >= 0)
			memdev_set(&md, MD_DEVICE, devs[i]);
		md_bytes(&md, MD_PEAK_ALLOC, k != NULL, k ? k->peak_alloc : 0);
		md_bytes(&md, MD_PEAK_RES, k && k->have_res,
		    k ? k->peak_res : 0);
		md_bytes(&md, MD_PEAK_ACT, k && k->have_act,
		    k ? k->peak_act : 0);
		if (k && k->peak_ts != INT64_MIN)
			memdev_set(&md, MD_PEAK_TIME, k->peak_ts);
		md_bytes(&md, MD_FRAG, k != NULL,
		    k ? k->res_at_peak - k->peak_alloc : NAN);
		md.growth_bytes_per_s = k ? slope(k) : NAN;
		md.component = k ? k->name : NULL;
		md_bytes(&md, MD_APP_PEAK_RES, app && app->have_res,
		    app ? app->peak_res : 0);
		md.components = components(m, devs[i]);
		/* the PyTorch trace's series and counts: no such rows here */
		o = memdev_json(&md);
		json_array_append_new(a, o);
		if (k && (!*ha || k->peak_alloc > *pa)) {
			*pa = k->peak_alloc;
			*ha = 1;
		}
		if (k && k->have_res && (!*hr || k->peak_res > *pr)) {
			*pr = k->peak_res;
			*hr = 1;
		}
	}
	free(devs);
	return a;
}

static int
alloc_by_bytes(const void *x, const void *y)
{
	const struct alloc *a = x, *b = y;

	if (a->bytes != b->bytes)
		return a->bytes < b->bytes ? 1 : -1;
	return strcmp(a->name, b->name);
}

static int
alloc_by_life(const void *x, const void *y)
{
	const struct alloc *a = x, *b = y;

	if (a->lifetime_us != b->lifetime_us)
		return a->lifetime_us < b->lifetime_us ? 1 : -1;
	return strcmp(a->name, b->name);
}

/* v rounded to whole bytes, when a number. */
static int
whole(double v, int64_t *iv)
{
	return pd_num_round_i64(v, iv) == PD_NUM_OK;
}

static void
allocators(struct mem *m, size_t topn, int by_life, struct memrec *r)
{
	struct memop *o;
	size_t i;

	if (m->na > 1)
		qsort(m->a, m->na, sizeof *m->a, by_life ? alloc_by_life :
		    alloc_by_bytes);
	if (!by_life)
		r->top.have = 1;
	else
		r->by_life.have = 1;
	for (i = 0; i < m->na && i < topn; i++) {
		o = memrec_op(r, by_life);
		o->name = m->a[i].name;
		o->has_bytes = whole(m->a[i].bytes, &o->bytes);
		o->count = m->a[i].count;
		o->lifetime_us = m->a[i].lifetime_us;
	}
}

static void
count_bytes(struct memcount *c, long n, double b)
{
	c->have = 1;
	c->count = n;
	c->has_bytes = whole(b, &c->bytes);
}

struct modpeak {
	const char *name;
	double b;
};

static int
mod_cmp(const void *x, const void *y)
{
	const struct modpeak *a = x, *b = y;

	if (a->b != b->b)
		return a->b < b->b ? 1 : -1;
	return strcmp(a->name, b->name);
}

static void
modules(struct mem *m, size_t topn, struct memrec *r)
{
	json_t *v;
	const char *k;
	struct modpeak *p;
	struct memname *e;
	size_t n = 0, i;

	if (!m->modules)
		return;
	p = calloc(json_object_size(m->modules) + 1, sizeof *p);
	if (!p)
		pd_oom();
	json_object_foreach(m->modules, k, v) {
		p[n].name = k;
		p[n++].b = json_real_value(v);
	}
	qsort(p, n, sizeof *p, mod_cmp);
	r->modules.have = 1;
	for (i = 0; i < n && i < topn; i++) {
		e = memrec_module(r);
		e->name = p[i].name;
		e->has_bytes = whole(p[i].b, &e->bytes);
	}
	free(p);
}

static void
emit(struct mem *m, json_t *root, const struct pd_tool *t)
{
	json_t *rec = pd_rec_new("pd.mem", 1, root), *src;
	struct memrec r;
	double pa = 0, pr = 0;
	int ha = 0, hr = 0;
	int64_t iv;
	size_t i;
	char buf[256] = "";

	for (i = 0; i < json_array_size(m->sources); i++) {
		src = json_array_get(m->sources, i);
		snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s",
		    i ? "+" : "", json_string_value(src));
	}
	pd_set_str(rec, "source", buf);
	memrec_init(&r);
	r.devices = devices(m, &pa, &pr, &ha, &hr);
	if (ha && whole(pa, &iv))
		memrec_set(&r, MR_PEAK_ALLOC, iv);
	if (hr && whole(pr, &iv))
		memrec_set(&r, MR_PEAK_RES, iv);
	if (m->have_opmem) {
		allocators(m, (size_t)t->topn, 0, &r);
		count_bytes(&r.never_released, m->never_n, m->never_b);
		count_bytes(&r.frees_without_alloc, m->free_n, m->free_b);
		allocators(m, (size_t)t->topn, 1, &r);
	}
	modules(m, (size_t)t->topn, &r);
	if (m->have_static)
		count_bytes(&r.static_ops, m->static_n, m->static_b);
	if (m->have_lane) {
		r.has_npu_mem = 1;
		if (m->lane_app > 0 && whole(m->lane_app, &iv))
			memrec_set(&r, MR_NPU_APP, iv);
		if (m->lane_dev > 0 && whole(m->lane_dev, &iv))
			memrec_set(&r, MR_NPU_DEV, iv);
	}
	memrec_set(&r, MR_SKIPPED, m->skipped);
	memrec_set(&r, MR_INEXACT, m->inexact);
	r.truncated = m->truncated;
	memrec_write(rec, &r);
}

int
sum_mem_ascend(json_t *root, const struct pd_tool *t)
{
	struct mem m;
	const char *p;
	size_t i;
	int64_t dev = pd_rec_int(root, "device", -1);

	memset(&m, 0, sizeof m);
	m.sources = json_array();
	for (i = 0; (p = pd_root_export(root, "memory_record", i)); i++)
		read_record(&m, p, dev);
	for (i = 0; (p = pd_root_export(root, "operator_memory", i)); i++)
		read_opmem(&m, p);
	for (i = 0; (p = pd_root_export(root, "npu_module_mem", i)); i++)
		read_modules(&m, p);
	for (i = 0; (p = pd_root_export(root, "static_op_mem", i)); i++)
		read_static(&m, p);
	if ((p = pd_root_export(root, "trace_view", 0)))
		read_lane(&m, p);
	if (!json_array_size(m.sources) &&
	    (p = pd_root_export(root, "ascend_pytorch_profiler_db", 0)))
		read_db(&m, p, dev);
	if (json_array_size(m.sources))
		emit(&m, root, t);
	for (i = 0; i < m.na; i++)
		free(m.a[i].name);
	free(m.a);
	free(m.c);
	json_decref(m.aindex);
	json_decref(m.modules);
	json_decref(m.sources);
	return 0;
}
