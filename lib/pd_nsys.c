/* pd_nsys: Nsight Systems SQLite exports as trace events (pd_nsys.h).
 * The facts about the format (globalPid/globalTid encoding, per-process
 * correlation ids, backtrace twin rows, lazy tables, copy and memory
 * kinds) are those of the corpus exports of schema 2.9.1 to 3.25.0 and
 * of NVIDIA's export documentation (docs.nvidia.com/nsight-systems,
 * "SQLite Schema Reference"). */
#include "pd_nsys.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <sqlite3.h>

#include "pd_diag.h"
#include "pd_file.h"
#include "pd_i64map.h"
#include "pd_rec.h"
#include "pd_sqlite.h"
#include "pd_tcache.h"

#define PID_OF(col)	"((" col " >> 24) & 16777215)"

static const char *const event_tables[] = {
	"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME",
	"NVTX_EVENTS", "CUPTI_ACTIVITY_KIND_MEMCPY", NULL
};

int
pd_nsys_sniff(const char *path)
{
	char head[16];
	sqlite3 *db;
	int fd, ok = 0, i;
	ssize_t n;

	if ((fd = pd_file_open(path, NULL)) < 0)
		return 0;
	n = read(fd, head, sizeof head);
	close(fd);
	if (n != (ssize_t)sizeof head || memcmp(head, "SQLite format 3", 16))
		return 0;
	if (!(db = pd_sqlite_open(path)))
		return -1;	/* said */
	if (pd_sqlite_has_table(db, "StringIds"))
		for (i = 0; event_tables[i] && !ok; i++)
			ok = pd_sqlite_has_table(db, event_tables[i]);
	sqlite3_close(db);
	return ok;
}

void
pd_nsys_api_name(char *s)
{
	char *v = strrchr(s, '_');
	const char *p;

	if (!v || v[1] != 'v' || !v[2])
		return;
	for (p = v + 2; *p; p++)
		if (*p < '0' || *p > '9')
			return;
	*v = 0;
}

int
pd_nsys_op_name(char *s)
{
	static const char *const cut[] = { ", op_id = ", ", seq = ",
		", sizes = ", NULL };
	char *c, *first = NULL;
	int i;

	for (i = 0; cut[i]; i++)
		if ((c = strstr(s, cut[i])) && (!first || c < first))
			first = c;
	if (first)
		*first = 0;
	return first != NULL || strncmp(s, "aten::", 6) == 0;
}

/* ---- reading ---- */

struct rd {
	const char *path;
	sqlite3 *db;
	int64_t pid;
	const struct pd_trace_cb *cb;
	struct pd_trace_stats *st;
	int stop;
	/* correlationId -> the sync kind of the API call that made it, until
	 * its sync row comes */
	struct pd_i64map syncapi;
	char *name;	/* an NVTX range's name, cut (nvtx_row) */
	size_t ncap;
};

static sqlite3_stmt *
prep(struct rd *r, const char *sql)
{
	sqlite3_stmt *s = NULL;

	if (sqlite3_prepare_v2(r->db, sql, -1, &s, NULL) != SQLITE_OK) {
		sqlite3_finalize(s);
		return NULL;
	}
	if (sqlite3_bind_parameter_count(s) >= 1)
		sqlite3_bind_int64(s, 1, r->pid);
	return s;
}

static int
has_column(sqlite3 *db, const char *table, const char *col)
{
	char sql[256];
	sqlite3_stmt *s = NULL;
	int ok;

	snprintf(sql, sizeof sql, "SELECT \"%s\" FROM \"%s\" LIMIT 0", col,
	    table);
	ok = sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK;
	sqlite3_finalize(s);
	return ok;
}

static const char *
text_of(sqlite3_stmt *s, int i)
{
	const unsigned char *t = sqlite3_column_text(s, i);

	return t ? (const char *)t : "";
}

static int64_t
int_of(sqlite3_stmt *s, int i, int64_t dflt)
{
	return sqlite3_column_type(s, i) == SQLITE_NULL ? dflt :
	    sqlite3_column_int64(s, i);
}

/* Hand one event to the callback. */
static void
emit(struct rd *r, const char *cat, const char *name, int64_t pid,
    int64_t tid, int64_t start, int64_t end, const char *args)
{
	struct pd_ev ev;
	char ps[24], ts[24];

	if (r->stop)
		return;
	if (end < start) {
		r->st->skipped++;
		return;
	}
	memset(&ev, 0, sizeof ev);
	snprintf(ps, sizeof ps, "%" PRId64, pid);
	snprintf(ts, sizeof ts, "%" PRId64, tid);
	ev.ph = 'X';
	ev.cat = cat;
	ev.name = name;
	ev.pid = ps;
	ev.tid = ts;
	ev.pid_num = pid;
	ev.tid_num = tid;
	ev.pid_is_num = ev.tid_is_num = 1;
	ev.ts_ns = start;
	ev.dur_ns = end - start;
	ev.has_ts = ev.has_dur = 1;
	ev.args = args;
	ev.args_len = strlen(args);
	ev.raw = args;
	ev.raw_len = ev.args_len;
	ev.index = r->st->events++;
	if (r->cb->on_event && r->cb->on_event(&ev, r->cb->ctx))
		r->stop = 1;
}

/* A statement that failed half way: a read error, the rows read before
 * it kept. */
static void
failed(struct rd *r)
{
	pd_warn(r->path, 0, "reading the export: %s; summarized the rows "
	    "read before it", sqlite3_errmsg(r->db));
	pd_diag_status(PD_EXIT_INPUT);
	r->st->truncated = 1;
}

/* Each event table is one query whose first column is the row's start;
 * its row() hands the current row out. */

/* The args of a device row as Kineto writes them: device, stream,
 * correlation, and bytes when *bytes (NULL: none). */
static void
dev_args(char *buf, size_t size, int64_t dev, int64_t str, int64_t corr,
    const int64_t *bytes)
{
	int n = snprintf(buf, size, "{\"device\": %" PRId64 ", \"stream\": %"
	    PRId64 ", \"correlation\": %" PRId64, dev, str, corr);

	if (n > 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, bytes ? ", \"bytes\": %"
		    PRId64 "}" : "}", bytes ? *bytes : 0);
}

static sqlite3_stmt *
q_kernels(struct rd *r)
{
	const char *T = "CUPTI_ACTIVITY_KIND_KERNEL";
	char sql[768];

	if (!pd_sqlite_has_table(r->db, T))
		return NULL;
	snprintf(sql, sizeof sql, "SELECT k.start, k.\"end\", k.deviceId, "
	    "k.streamId, k.correlationId, COALESCE(a.value, b.value, "
	    "'kernel') FROM %s k LEFT JOIN StringIds a ON a.id = k.shortName "
	    "LEFT JOIN StringIds b ON b.id = k.demangledName WHERE ?1 < 0 OR "
	    PID_OF("k.globalPid") " = ?1", T);
	return prep(r, sql);
}

static void
kernel_row(struct rd *r, sqlite3_stmt *s)
{
	int64_t dev = int_of(s, 2, 0), str = int_of(s, 3, 0);
	char args[160];

	dev_args(args, sizeof args, dev, str, int_of(s, 4, 0), NULL);
	emit(r, "kernel", text_of(s, 5), dev, str, int_of(s, 0, 0),
	    int_of(s, 1, 0), args);
}

/* Graph-level tracing: one row per graph launch, no kernel rows. */
static sqlite3_stmt *
q_graphs(struct rd *r)
{
	const char *T = "CUPTI_ACTIVITY_KIND_GRAPH_TRACE";
	char sql[512];

	if (!pd_sqlite_has_table(r->db, T) || !has_column(r->db, T, "graphId"))
		return NULL;
	snprintf(sql, sizeof sql, "SELECT start, \"end\", deviceId, streamId, "
	    "correlationId, graphId FROM %s WHERE ?1 < 0 OR "
	    PID_OF("globalPid") " = ?1", T);
	return prep(r, sql);
}

static void
graph_row(struct rd *r, sqlite3_stmt *s)
{
	int64_t dev = int_of(s, 2, 0), str = int_of(s, 3, 0);
	char args[160], name[48];

	dev_args(args, sizeof args, dev, str, int_of(s, 4, 0), NULL);
	snprintf(name, sizeof name, "CUDA graph %" PRId64, int_of(s, 5, 0));
	emit(r, "kernel", name, dev, str, int_of(s, 0, 0), int_of(s, 1, 0),
	    args);
}

static const char *
copy_kind(int64_t k)
{
	static const char *const n[] = { "Unknown", "HtoD", "DtoH", "HtoA",
		"AtoH", "AtoA", "AtoD", "DtoA", "DtoD", "HtoH", "PtoP" };

	return k >= 0 && k <= 10 ? n[k] : "Unknown";
}

static const char *
mem_kind(int64_t k)
{
	static const char *const n[] = { "Pageable", "Pinned", "Device",
		"Array", "Managed", "Device Static", "Managed Static" };

	return k >= 0 && k <= 6 ? n[k] : "Unknown";
}

static sqlite3_stmt *
q_copies(struct rd *r)
{
	const char *T = "CUPTI_ACTIVITY_KIND_MEMCPY";
	char sql[512];

	if (!pd_sqlite_has_table(r->db, T))
		return NULL;
	snprintf(sql, sizeof sql, "SELECT start, \"end\", deviceId, streamId, "
	    "correlationId, bytes, copyKind, srcKind, dstKind FROM %s WHERE "
	    "?1 < 0 OR " PID_OF("globalPid") " = ?1", T);
	return prep(r, sql);
}

static void
copy_row(struct rd *r, sqlite3_stmt *s)
{
	int64_t dev = int_of(s, 2, 0), str = int_of(s, 3, 0), bytes;
	char args[200], name[96];

	bytes = int_of(s, 5, 0);
	dev_args(args, sizeof args, dev, str, int_of(s, 4, 0), &bytes);
	snprintf(name, sizeof name, "Memcpy %s (%s -> %s)",
	    copy_kind(int_of(s, 6, 0)), mem_kind(int_of(s, 7, -1)),
	    mem_kind(int_of(s, 8, -1)));
	emit(r, "gpu_memcpy", name, dev, str, int_of(s, 0, 0),
	    int_of(s, 1, 0), args);
}

static sqlite3_stmt *
q_memsets(struct rd *r)
{
	const char *T = "CUPTI_ACTIVITY_KIND_MEMSET";
	char sql[512];

	if (!pd_sqlite_has_table(r->db, T))
		return NULL;
	snprintf(sql, sizeof sql, "SELECT start, \"end\", deviceId, streamId, "
	    "correlationId, bytes, memKind FROM %s WHERE ?1 < 0 OR "
	    PID_OF("globalPid") " = ?1", T);
	return prep(r, sql);
}

static void
memset_row(struct rd *r, sqlite3_stmt *s)
{
	int64_t dev = int_of(s, 2, 0), str = int_of(s, 3, 0), bytes;
	char args[200], name[64];

	bytes = int_of(s, 5, 0);
	dev_args(args, sizeof args, dev, str, int_of(s, 4, 0), &bytes);
	snprintf(name, sizeof name, "Memset (%s)", mem_kind(int_of(s, 6, 2)));
	emit(r, "gpu_memset", name, dev, str, int_of(s, 0, 0),
	    int_of(s, 1, 0), args);
}

/* A sync is named by the API call that made it (same process, same
 * correlationId), as Kineto names its cuda_sync rows; 0 when the call is
 * no synchronization. */
static const char *const sync_names[] = { "Sync", "Stream Wait Event",
	"Stream Sync", "Event Sync", "Context Sync" };

/* correlation ids repeat across processes: key them by both */
static int64_t
corr_key(int64_t pid, int64_t corr)
{
	return (int64_t)(((uint64_t)pid << 32) ^ (uint64_t)corr);
}

static int
sync_kind(const char *api)
{
	if (!strstr(api, "Synchronize") && !strstr(api, "Query") &&
	    !strstr(api, "WaitEvent"))
		return 0;
	if (strstr(api, "StreamWaitEvent"))
		return 1;
	if (strstr(api, "StreamSynchronize") || strstr(api, "StreamQuery"))
		return 2;
	if (strstr(api, "EventSynchronize") || strstr(api, "EventQuery"))
		return 3;
	if (strstr(api, "DeviceSynchronize") || strstr(api, "CtxSynchronize"))
		return 4;
	return 0;
}

static sqlite3_stmt *
q_syncs(struct rd *r)
{
	const char *T = "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION";
	char sql[512];

	if (!pd_sqlite_has_table(r->db, T))
		return NULL;
	snprintf(sql, sizeof sql, "SELECT start, \"end\", deviceId, streamId, "
	    "correlationId, " PID_OF("globalPid") " FROM %s WHERE ?1 < 0 OR "
	    PID_OF("globalPid") " = ?1", T);
	return prep(r, sql);
}

/* A sync row comes after the API call that made it (it starts inside
 * the call, and at one start the runtime rows go first): the call's
 * entry is taken then, one sync row a call. */
static void
sync_row(struct rd *r, sqlite3_stmt *s)
{
	int64_t dev = int_of(s, 2, 0), str = int_of(s, 3, 0);
	int64_t corr = int_of(s, 4, 0), pid = int_of(s, 5, 0);
	struct pd_i64ent *e = pd_i64map_get(&r->syncapi, corr_key(pid, corr),
	    1);
	int kind = e ? (int)e->v[0] : 0;
	char args[160];

	if (e)
		pd_i64map_del(&r->syncapi, e);
	dev_args(args, sizeof args, dev, str, corr, NULL);
	emit(r, "cuda_sync", sync_names[kind], dev, str, int_of(s, 0, 0),
	    int_of(s, 1, 0), args);
}

static sqlite3_stmt *
q_runtime(struct rd *r)
{
	const char *T = "CUPTI_ACTIVITY_KIND_RUNTIME";
	char sql[512];

	if (!pd_sqlite_has_table(r->db, T))
		return NULL;
	/* eventClass 67: the CUDA-backtrace twin of a traced call */
	snprintf(sql, sizeof sql, "SELECT r.start, r.\"end\", r.globalTid, "
	    "r.correlationId, COALESCE(s.value, 'cudaUnknown') FROM %s r "
	    "LEFT JOIN StringIds s ON s.id = r.nameId WHERE "
	    "COALESCE(r.eventClass, 0) <> 67 AND (?1 < 0 OR "
	    PID_OF("r.globalTid") " = ?1)", T);
	return prep(r, sql);
}

static void
runtime_row(struct rd *r, sqlite3_stmt *s)
{
	int64_t g = int_of(s, 2, 0);
	char args[96], name[256];
	int kind;

	snprintf(name, sizeof name, "%s", text_of(s, 4));
	pd_nsys_api_name(name);
	if ((kind = sync_kind(name)) != 0) {
		struct pd_i64ent *e = pd_i64map_put(&r->syncapi,
		    corr_key((g >> 24) & 0xFFFFFF, int_of(s, 3, 0)), 1);

		e->v[0] = kind;
	}
	snprintf(args, sizeof args, "{\"correlation\": %" PRId64 "}",
	    int_of(s, 3, 0));
	emit(r, "cuda_runtime", name, (g >> 24) & 0xFFFFFF, g & 0xFFFFFF,
	    int_of(s, 0, 0), int_of(s, 1, 0), args);
}

static sqlite3_stmt *
q_nvtx(struct rd *r)
{
	const char *T = "NVTX_EVENTS";
	char sql[512];

	if (!pd_sqlite_has_table(r->db, T))
		return NULL;
	/* 59: push/pop range, 60: start/end range */
	snprintf(sql, sizeof sql, "SELECT n.start, n.\"end\", n.globalTid, "
	    "COALESCE(n.text, s.value, '') FROM %s n LEFT JOIN StringIds s "
	    "ON s.id = n.textId WHERE n.eventType IN (59, 60) AND n.\"end\" "
	    "IS NOT NULL AND (?1 < 0 OR " PID_OF("n.globalTid") " = ?1) "
	    "ORDER BY n.start, n.\"end\" DESC", T);
	return prep(r, sql);
}

static void
nvtx_row(struct rd *r, sqlite3_stmt *s)
{
	int64_t g = int_of(s, 2, 0);
	const char *t = text_of(s, 3);
	size_t n = strlen(t) + 1;
	int op;

	if (n > r->ncap) {
		free(r->name);
		if (!(r->name = malloc(n)))
			pd_oom();
		r->ncap = n;
	}
	memcpy(r->name, t, n);
	op = pd_nsys_op_name(r->name);
	emit(r, op ? "cpu_op" : "user_annotation", r->name, (g >> 24) &
	    0xFFFFFF, g & 0xFFFFFF, int_of(s, 0, 0), int_of(s, 1, 0), "{}");
}

/* The event tables, read side by side: at each step the row that starts
 * first goes out (at one start, the table first here). The exports keep
 * each table in time order, or nearly (rowid order; NVTX's is sorted),
 * so that a kernel comes out near its launch call and a sync row near
 * its call: the tools that link them hold what is in flight, not a whole
 * table. */
static const struct part {
	sqlite3_stmt *(*query)(struct rd *);
	void (*row)(struct rd *, sqlite3_stmt *);
} parts[] = {
	{ q_nvtx, nvtx_row }, { q_runtime, runtime_row },
	{ q_kernels, kernel_row }, { q_graphs, graph_row },
	{ q_copies, copy_row }, { q_memsets, memset_row },
	{ q_syncs, sync_row }
};
#define NPART	(sizeof parts / sizeof parts[0])

static void
read_parts(struct rd *r)
{
	sqlite3_stmt *s[NPART];
	int64_t start[NPART];
	size_t i, best;
	int rc;

	for (i = 0; i < NPART; i++) {
		if ((s[i] = parts[i].query(r)) == NULL)
			continue;
		if ((rc = sqlite3_step(s[i])) == SQLITE_ROW) {
			start[i] = int_of(s[i], 0, 0);
			continue;
		}
		if (rc != SQLITE_DONE)
			failed(r);
		sqlite3_finalize(s[i]);
		s[i] = NULL;
	}
	while (!r->stop) {
		for (best = NPART, i = 0; i < NPART; i++)
			if (s[i] && (best == NPART || start[i] < start[best]))
				best = i;
		if (best == NPART)
			break;
		parts[best].row(r, s[best]);
		if ((rc = sqlite3_step(s[best])) == SQLITE_ROW) {
			start[best] = int_of(s[best], 0, 0);
			continue;
		}
		if (rc != SQLITE_DONE && !r->stop)
			failed(r);
		sqlite3_finalize(s[best]);
		s[best] = NULL;
	}
	for (i = 0; i < NPART; i++)
		sqlite3_finalize(s[i]);	/* (NULL: nothing) */
}

/* deviceProperties for the device the process ran on, where the export
 * says which GPU it is: TARGET_INFO_CUDA_DEVICE (gpuId, cudaId, pid) when
 * present, else a TARGET_INFO_GPU whose CUDA GPUs (smCount > 0) are all
 * of one model. Absent (3.25.0 containers) or ambiguous: unknown. */
static json_t *
devices(struct rd *r, int64_t dev)
{
	const char *sql = "SELECT name, totalMemory, smCount, computeMajor, "
	    "computeMinor FROM TARGET_INFO_GPU WHERE smCount > 0 ORDER BY id";
	sqlite3_stmt *s;
	json_t *one = NULL, *arr;
	int models = 0;

	if (dev < 0 || !pd_sqlite_has_table(r->db, "TARGET_INFO_GPU") ||
	    !has_column(r->db, "TARGET_INFO_GPU", "smCount"))
		return NULL;
	if (sqlite3_prepare_v2(r->db, sql, -1, &s, NULL) != SQLITE_OK) {
		sqlite3_finalize(s);
		return NULL;
	}
	while (sqlite3_step(s) == SQLITE_ROW) {
		const char *name = text_of(s, 0);
		int64_t mem = int_of(s, 1, -1);

		if (one && (strcmp(json_string_value(json_object_get(one,
		    "name")), name) || json_integer_value(json_object_get(one,
		    "totalGlobalMem")) != mem)) {
			models++;
			continue;
		}
		if (one)
			continue;
		one = json_object();
		json_object_set_new(one, "id", json_integer(dev));
		json_object_set_new(one, "name", json_string_nocheck(name));
		json_object_set_new(one, "totalGlobalMem", json_integer(mem));
		json_object_set_new(one, "numSms", json_integer(int_of(s, 2, 0)));
		json_object_set_new(one, "computeMajor",
		    json_integer(int_of(s, 3, 0)));
		json_object_set_new(one, "computeMinor",
		    json_integer(int_of(s, 4, 0)));
		models = 1;
	}
	sqlite3_finalize(s);
	if (!one)
		return NULL;
	if (models != 1 || !json_is_string(json_object_get(one, "name"))) {
		json_decref(one);
		return NULL;
	}
	arr = json_array();
	json_array_append_new(arr, one);
	return arr;
}

static int64_t
first_device(struct rd *r)
{
	static const char *const t[] = { "CUPTI_ACTIVITY_KIND_KERNEL",
		"CUPTI_ACTIVITY_KIND_MEMCPY", NULL };
	char sql[256];
	sqlite3_stmt *s;
	int64_t d = -1;
	int i;

	for (i = 0; t[i] && d < 0; i++) {
		if (!pd_sqlite_has_table(r->db, t[i]))
			continue;
		snprintf(sql, sizeof sql, "SELECT MIN(deviceId) FROM %s WHERE "
		    "?1 < 0 OR " PID_OF("globalPid") " = ?1", t[i]);
		if (!(s = prep(r, sql)))
			continue;
		if (sqlite3_step(s) == SQLITE_ROW)
			d = int_of(s, 0, -1);
		sqlite3_finalize(s);
	}
	return d;
}

/* Open path for reading into r: 0, or -1 (said). */
static int
rd_open(struct rd *r, const char *path, int64_t pid,
    const struct pd_trace_cb *cb, struct pd_trace_stats *st)
{
	memset(r, 0, sizeof *r);
	if (!(r->db = pd_sqlite_open(path)))
		return -1;
	r->path = path;
	r->pid = pid;
	r->cb = cb;
	r->st = st;
	return 0;
}

static void
rd_close(struct rd *r)
{
	pd_i64map_free(&r->syncapi);
	free(r->name);
	sqlite3_close(r->db);
}

/* Read path's process pid (-1: all) as events; *dev (dev NULL: not
 * asked) the GPU's deviceProperties, NULL where unknown. 0, or -1 when
 * the file cannot be read (said). */
static int
read_export(const char *path, int64_t pid, const struct pd_trace_cb *cb,
    struct pd_trace_stats *st, json_t **dev)
{
	struct rd r;

	memset(st, 0, sizeof *st);
	if (rd_open(&r, path, pid, cb, st) < 0)
		return -1;
	read_parts(&r);
	if (dev)
		*dev = devices(&r, first_device(&r));
	rd_close(&r);
	return 0;
}

int
pd_nsys_read(const char *path, int64_t pid, const struct pd_trace_cb *cb,
    struct pd_kineto_info *info, struct pd_trace_stats *st)
{
	return read_export(path, pid, cb, st, info && !info->devices ?
	    &info->devices : NULL);
}

/* The trace cache's source (pd_tcache_read_as) for the process src_pid:
 * its events, then the GPU's deviceProperties as a meta (kept in the
 * entry with them: a replay asks nothing of the export); 2 when a table
 * could not be read to its end (said then; an entry would not say it
 * again), so that nothing is cached. */
static int64_t src_pid;

static int
events_src(const char *path, const struct pd_trace_cb *cb,
    struct pd_trace_stats *st, int args_kv)
{
	json_t *dev = NULL;

	(void)args_kv;
	if (read_export(path, src_pid, cb, st, &dev) < 0)
		return -1;
	if (dev && cb->on_meta)
		cb->on_meta("deviceProperties", dev, cb->ctx);
	json_decref(dev);
	return st->truncated ? 2 : 0;
}

/* The deviceProperties meta of events_src into the read's info (the
 * caller's on_meta is not shown it: it never was). */
static struct pd_kineto_info *meta_info;

static void
devices_meta(const char *key, json_t *v, void *ctx)
{
	(void)ctx;
	if (meta_info && !meta_info->devices &&
	    strcmp(key, "deviceProperties") == 0)
		meta_info->devices = json_incref(v);
}

int
pd_nsys_events(json_t *root, const char *path, const struct pd_trace_cb *cb,
    struct pd_kineto_info *info, struct pd_trace_stats *st)
{
	int64_t pid = pd_rec_int(root, "process", -1);
	struct pd_trace_cb c = *cb;
	int rc;

	/* each tool of a pipeline reads the export once through the cache:
	 * the first one's read is the others' entry (one a process) */
	src_pid = pid;
	meta_info = info;
	c.on_meta = devices_meta;
	rc = pd_tcache_read_as(path, (uint64_t)pid ^ 0x6e737973ULL, &c, st,
	    events_src);
	meta_info = NULL;
	if (rc < 0)
		return -1;
	if (st->skipped) {
		pd_warn(path, 0, "%" PRIu64 " rows skipped (end before start)",
		    st->skipped);
		pd_diag_status(PD_EXIT_INPUT);
	}
	return st->truncated ? 1 : 0;
}

/* ---- the processes ---- */

static int
by_device_pid(const void *a, const void *b)
{
	const struct pd_nsys_proc *x = a, *y = b;

	if (x->device != y->device)
		return x->device < y->device ? -1 : 1;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* The "MPI Rank N" thread name of a process, -1 when none. */
static int64_t
mpi_rank(sqlite3 *db, int64_t pid)
{
	sqlite3_stmt *s;
	int64_t rank = -1;
	const char *sql = "SELECT s.value FROM ThreadNames t JOIN StringIds s "
	    "ON s.id = t.nameId WHERE " PID_OF("t.globalTid") " = ?1 AND "
	    "s.value LIKE 'MPI Rank %' LIMIT 1";

	if (!pd_sqlite_has_table(db, "ThreadNames") ||
	    sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(s, 1, pid);
	if (sqlite3_step(s) == SQLITE_ROW) {
		const char *v = text_of(s, 0) + 9;
		char *e;
		long long n = strtoll(v, &e, 10);

		if (e != v && !*e && n >= 0)
			rank = n;
	}
	sqlite3_finalize(s);
	return rank;
}

/* Does the process have NVTX ranges of PyTorch ops (emit_nvtx, or
 * nsys --pytorch)? */
static int
torch_ranges(sqlite3 *db, int64_t pid)
{
	sqlite3_stmt *s;
	int yes = 0;
	const char *sql = "SELECT 1 FROM NVTX_EVENTS WHERE text LIKE 'aten::%' "
	    "AND " PID_OF("globalTid") " = ?1 LIMIT 1";

	if (!pd_sqlite_has_table(db, "NVTX_EVENTS") ||
	    sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_int64(s, 1, pid);
	yes = sqlite3_step(s) == SQLITE_ROW;
	sqlite3_finalize(s);
	return yes;
}

int
pd_nsys_processes(const char *path, struct pd_nsys_proc **out)
{
	static const char *const dev[] = { "CUPTI_ACTIVITY_KIND_KERNEL",
		"CUPTI_ACTIVITY_KIND_GRAPH_TRACE", "CUPTI_ACTIVITY_KIND_MEMCPY",
		"CUPTI_ACTIVITY_KIND_MEMSET", NULL };
	char inner[1024], sql[1200];
	size_t n = 0, cap = 0;
	struct pd_nsys_proc *p = NULL;
	sqlite3_stmt *s;
	sqlite3 *db;
	int i, any = 0;

	*out = NULL;
	if (!(db = pd_sqlite_open(path)))
		return -1;
	inner[0] = 0;
	for (i = 0; dev[i]; i++) {
		size_t l = strlen(inner);

		if (!pd_sqlite_has_table(db, dev[i]))
			continue;
		snprintf(inner + l, sizeof inner - l, "%sSELECT " PID_OF("globalPid")
		    " AS pid, deviceId AS dev FROM %s", any ? " UNION ALL " : "",
		    dev[i]);
		any = 1;
	}
	if (!any && pd_sqlite_has_table(db, "CUPTI_ACTIVITY_KIND_RUNTIME"))
		snprintf(inner, sizeof inner, "SELECT " PID_OF("globalTid")
		    " AS pid, NULL AS dev FROM CUPTI_ACTIVITY_KIND_RUNTIME");
	else if (!any) {
		sqlite3_close(db);
		return 0;
	}
	snprintf(sql, sizeof sql, "SELECT pid, MIN(dev), COUNT(*) FROM (%s) "
	    "GROUP BY pid", inner);
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {
		pd_warn(path, 0, "reading the processes: %s; skipped",
		    sqlite3_errmsg(db));
		pd_diag_status(PD_EXIT_INPUT);
		sqlite3_finalize(s);
		sqlite3_close(db);
		return -1;
	}
	while (sqlite3_step(s) == SQLITE_ROW) {
		if (n == cap) {
			cap = cap ? 2 * cap : 8;
			if (!(p = realloc(p, cap * sizeof *p)))
				pd_oom();
		}
		p[n].pid = int_of(s, 0, 0);
		p[n].device = int_of(s, 1, -1);
		p[n].kernels = any ? int_of(s, 2, 0) : 0;
		p[n].rank = mpi_rank(db, p[n].pid);
		p[n].torch = torch_ranges(db, p[n].pid);
		n++;
	}
	sqlite3_finalize(s);
	sqlite3_close(db);
	if (n)
		qsort(p, n, sizeof *p, by_device_pid);
	*out = p;
	return (int)n;
}
