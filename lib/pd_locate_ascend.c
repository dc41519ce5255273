/* pd_locate: recognising Ascend directories: the export kinds by file
 * name, torch_npu and MindSpore 2.x (*_ascend_pt, *_ascend_ms, a dir with
 * ASCEND_PROFILER_OUTPUT/ or flat export files), msprof-analyze
 * cluster_analysis_output/, the MindSpore legacy profiler/ dir, and the
 * rank and device each one names. CANN PROF_* dirs: pd_locate_msprof.c. */
#include "pd_locate_int.h"

#include "pd_locate.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <search.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pd_csv.h"
#include "pd_archive.h"
#include "pd_diag.h"
#include "pd_file.h"
#include "pd_formats.h"
#include "pd_nsys.h"
#include "pd_rec.h"
#include "pd_sqlite.h"
#include "pd_trace.h"

/* ---- export kinds ---- */

/* The kind of an export from its file name: the stem without extension,
 * without trailing _<digits> groups (rank, device, model, iteration,
 * timestamp) and without a _slice part. */
static int
stem_kind(const char *name, char *kind, size_t size, const char **ext)
{
	const char *dot = strrchr(name, '.');
	size_t n;
	int again = 1;

	if (!dot || dot == name)
		return 0;
	*ext = dot + 1;
	n = (size_t)(dot - name);
	if (n >= size)
		return 0;
	memcpy(kind, name, n);
	kind[n] = 0;
	while (again) {
		char *u = strrchr(kind, '_');
		again = 0;
		if (u && u != kind && pd_loc_all_digits(u + 1, strlen(u + 1))) {
			*u = 0;
			again = 1;
		} else if (u && u != kind && strcmp(u, "_slice") == 0) {
			*u = 0;
			again = 1;
		}
	}
	return kind[0] != 0;
}

/* Kinds of the torch_npu / MindSpore ASCEND_PROFILER_OUTPUT files. */
static const char *apo_kinds[] = {
	"step_trace_time", "trace_view", "kernel_details", "op_statistic",
	"api_statistic", "operator_details", "communication",
	"communication_matrix", "memory_record", "operator_memory",
	"npu_module_mem", "static_op_mem", "task_time", "l2_cache",
	"data_preprocess", "dataset", "minddata_pipeline_raw",
	"minddata_pipeline_summary", "op_summary", NULL
};

static const char *
apo_kind(const char *name, char *kind, size_t size)
{
	const char *ext;

	if (strcmp(name, "analysis.db") == 0)
		return "analysis_db";
	if (starts_with(name, "ascend_pytorch_profiler") && ends_with(name, ".db"))
		return "ascend_pytorch_profiler_db";
	if (starts_with(name, "ascend_mindspore_profiler") && ends_with(name, ".db"))
		return "ascend_mindspore_profiler_db";
	if (!stem_kind(name, kind, size, &ext))
		return NULL;
	if (strcmp(ext, "csv") && strcmp(ext, "json"))
		return NULL;
	return in_list(apo_kinds, kind) ? kind : NULL;
}

/* Kinds in msprof output (mindstudio_profiler_output/, device_N/timeline,
 * device_N/summary). */
const char *
pd_loc_msprof_kind(const char *name, char *kind, size_t size)
{
	const char *ext;

	if (!stem_kind(name, kind, size, &ext))
		return NULL;
	if (strcmp(ext, "json") == 0) {
		if (strcmp(kind, "msprof") == 0)
			return "msprof_timeline";
		if (strcmp(kind, "step_trace") == 0)
			return "step_trace_timeline";
		if (strcmp(kind, "hccl") == 0)
			return "hccl_timeline";
		return kind;
	}
	return strcmp(ext, "csv") == 0 ? kind : NULL;
}

/* MindSpore legacy flat files: prefix{dev}suffix. */
static const struct {
	const char *pre, *suf, *kind;
	int core;	/* marks a legacy profiler dir by itself */
} ms_legacy[] = {
	{ "step_trace_raw_", "_detail_time.csv", "step_trace_raw_detail_time", 1 },
	{ "minddata_pipeline_raw_", ".csv", "minddata_pipeline_raw", 0 },
	{ "pipeline_profiling_", ".json", "pipeline_profiling", 0 },
	{ "device_queue_profiling_", ".txt", "device_queue_profiling", 0 },
	{ "dataset_iterator_profiling_", ".txt", "dataset_iterator_profiling", 0 },
	{ "minddata_aicpu_", ".txt", "minddata_aicpu", 0 },
	{ "minddata_cpu_utilization_", ".json", "minddata_cpu_utilization", 0 },
	{ "aicore_intermediate_", "_detail.csv", "aicore_intermediate_detail", 1 },
	{ "aicore_intermediate_", "_type.csv", "aicore_intermediate_type", 1 },
	{ "aicpu_intermediate_", ".csv", "aicpu_intermediate", 1 },
	{ "framework_raw_", ".csv", "framework_raw", 1 },
	{ "hccl_raw_", ".csv", "hccl_raw", 1 },
	{ "ascend_timeline_display_", ".json", "ascend_timeline_display", 1 },
	{ "ascend_timeline_summary_", ".json", "ascend_timeline_summary", 0 },
	{ "flops_summary_", ".json", "flops_summary", 0 },
	{ NULL, NULL, NULL, 0 }
};

/* The legacy kind of name and its device ({dev}), or NULL. */
static const char *
legacy_kind(const char *name, int *dev, int *core)
{
	int i;

	for (i = 0; ms_legacy[i].pre; i++) {
		size_t a = strlen(ms_legacy[i].pre), b = strlen(ms_legacy[i].suf);
		size_t n = strlen(name);
		if (n <= a + b || !starts_with(name, ms_legacy[i].pre) ||
		    !ends_with(name, ms_legacy[i].suf) ||
		    !pd_loc_all_digits(name + a, n - a - b))
			continue;
		*dev = atoi(name + a);
		*core = ms_legacy[i].core;
		return ms_legacy[i].kind;
	}
	return NULL;
}
/* ---- rank and device sources ---- */

/* profiler_info[_N].json: "rank_id" (int or string), else the N. */
static void
rank_from_profiler_info(struct root *r, const char *path, const char *name)
{
	json_t *j = pd_loc_load_small_json(path);
	int64_t x = -1;
	const char *s = name + strlen("profiler_info");

	if (j)
		x = json_rank(json_object_get(j, "rank_id"));
	json_decref(j);
	if (x < 0 && *s == '_' && pd_loc_all_digits(s + 1, strlen(s + 1) - 5))
		x = atoll(s + 1);
	if (r->rank < 0)
		r->rank = x;
}

/* profiler_metadata.json: distributed_args.rank / world_size, and the
 * environment variables torch_npu recorded (ENV_VARIABLES, strings as
 * written: "" is a variable that was not set). */
static void
from_metadata(struct root *r, const char *path, int64_t *rank)
{
	json_t *j = pd_loc_load_small_json(path), *d, *v;
	const char *k;

	d = json_object_get(j, "distributed_args");
	if (d) {
		*rank = json_rank(json_object_get(d, "rank"));
		if (r->world_size < 0)
			r->world_size = json_rank(json_object_get(d, "world_size"));
	}
	d = json_object_get(j, "ENV_VARIABLES");
	if (json_is_object(d) && !r->env) {
		r->env = json_object();
		json_object_foreach(d, k, v)
			if (json_is_string(v))
				json_object_set(r->env, k, v);
	}
	json_decref(j);
}

/* ascend_pytorch_profiler_{rank}.db (export_type=db): what the text
 * export keeps in profiler_metadata.json and the CSVs, from META_DATA
 * (name 'ENV_VARIABLES', a JSON object as text) and RANK_DEVICE_MAP
 * (rankId, deviceId: one row per process). Only what is still unset. */
static void
from_profiler_db(struct root *r, const char *path)
{
	sqlite3 *db = pd_sqlite_peek(path);
	sqlite3_stmt *st;
	int64_t v;

	if (!db)
		return;
	if (!r->env && pd_sqlite_has_table(db, "META_DATA") &&
	    sqlite3_prepare_v2(db, "SELECT value FROM META_DATA WHERE "
	    "name = 'ENV_VARIABLES' LIMIT 1", -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW) {
			const char *t = (const char *)sqlite3_column_text(st, 0);
			json_t *j = t ? json_loads(t, 0, NULL) : NULL, *e;
			const char *k;
			if (json_is_object(j)) {
				r->env = json_object();
				json_object_foreach(j, k, e)
					if (json_is_string(e))
						json_object_set(r->env, k, e);
			}
			json_decref(j);
		}
		sqlite3_finalize(st);
	}
	if (r->device < 0 && pd_sqlite_has_table(db, "RANK_DEVICE_MAP") &&
	    sqlite3_prepare_v2(db, "SELECT deviceId FROM RANK_DEVICE_MAP",
	    -1, &st, NULL) == SQLITE_OK) {
		/* one device, or none: a map of several says nothing of this
		 * process */
		int rows = 0;
		int64_t dev = -1;
		while (sqlite3_step(st) == SQLITE_ROW && rows < 2)
			if (pd_sqlite_i64(st, 0, &v) && v >= 0 && v != dev) {
				dev = v;
				rows++;
			}
		sqlite3_finalize(st);
		if (rows == 1)
			r->device = dev;
	}
	sqlite3_close(db);
}

/* The first data row of a CSV: the device of column col ("NPU:3" or
 * "3"), or -1. Only the header and one row are read. */
int64_t
pd_loc_device_from_csv(const char *path, const char *col, const char *col2)
{
	struct pd_csv *c = pd_csv_open(path);
	int64_t dev = -1;
	int i, k;

	if (!c)
		return -1;
	if (pd_csv_header(c) > 0 && (i = pd_csv_col(c, col, col2, NULL)) >= 0) {
		for (k = 0; k < 8 && pd_csv_next(c) > 0; k++) {
			const char *f = pd_csv_field(c, i);
			if (starts_with(f, "NPU:"))
				f += 4;
			if (pd_loc_all_digits(f, strlen(f))) {
				dev = atoll(f);
				break;
			}
		}
	}
	pd_csv_close(c);
	return dev;
}

/* info.json.N: "rank_id" (-1 = unset). */
int64_t
pd_loc_rank_from_info_json(const char *path)
{
	json_t *j = pd_loc_load_small_json(path);
	int64_t x = j ? json_rank(json_object_get(j, "rank_id")) : -1;

	json_decref(j);
	return x;
}

/* ---- torch_npu and MindSpore 2.x: *_ascend_pt, *_ascend_ms, a dir with
 * ASCEND_PROFILER_OUTPUT/, or a flat copy of that output ---- */

static void
apo_exports(struct root *r, const char *dir, int *ndb_rank, int64_t *db_rank)
{
	char **names, p[PATH_MAX], kind[256];
	const char *k;
	int n, i;

	if (!(names = pd_loc_list_dir(dir, &n)))
		return;
	for (i = 0; i < n; i++) {
		pd_loc_join(p, sizeof p, dir, names[i]);
		if (!(k = apo_kind(names[i], kind, sizeof kind)))
			continue;
		pd_loc_add_export(r, k, p);
		if (strcmp(k, "ascend_pytorch_profiler_db") == 0 ||
		    strcmp(k, "ascend_mindspore_profiler_db") == 0) {
			const char *u = strrchr(names[i], '_');
			if (u && pd_loc_all_digits(u + 1, strlen(u + 1) - 3)) {
				*db_rank = atoll(u + 1);
				(*ndb_rank)++;
			}
		}
	}
	pd_loc_free_list(names, n);
}

static void
torch_root(struct loc *l, const char *path, const char *format, int flat)
{
	struct root r;
	char **names, p[PATH_MAX];
	int n, i, ndb = 0, ndev = 0;
	int64_t db_rank = -1, md_rank = -1, dev = -1;

	pd_loc_root_init(&r, path, format);
	if (!(names = pd_loc_list_dir(path, &n))) {
		json_decref(r.exports);
		return;
	}
	for (i = 0; i < n; i++) {
		pd_loc_join(p, sizeof p, path, names[i]);
		if (starts_with(names[i], "profiler_info") &&
		    ends_with(names[i], ".json")) {
			pd_loc_add_export(&r, "profiler_info", p);
			rank_from_profiler_info(&r, p, names[i]);
		} else if (strcmp(names[i], "profiler_metadata.json") == 0) {
			pd_loc_add_export(&r, "profiler_metadata", p);
			from_metadata(&r, p, &md_rank);
		} else if (starts_with(names[i], "PROF_") && is_dir(p)) {
			char **dn;
			int m, j;
			if ((dn = pd_loc_list_dir(p, &m))) {
				for (j = 0; j < m; j++) {
					int d = pd_loc_device_dir(dn[j]);
					if (d >= 0 && d != dev) {
						dev = d;
						ndev++;
					}
				}
				pd_loc_free_list(dn, m);
			}
		}
	}
	pd_loc_free_list(names, n);
	if (flat) {
		apo_exports(&r, path, &ndb, &db_rank);
	} else {
		pd_loc_join(p, sizeof p, path, "ASCEND_PROFILER_OUTPUT");
		apo_exports(&r, p, &ndb, &db_rank);
	}
	if (r.rank < 0 && ndb == 1)
		r.rank = db_rank;
	if (r.rank < 0)
		r.rank = md_rank;
	if (ndev == 1)
		r.device = dev;
	if (r.device < 0 || !r.env) {
		const char *mp;
		size_t k;
		json_t *e;
		json_array_foreach(r.exports, k, e) {
			const char *kd = pd_rec_str(e, "kind");
			mp = pd_str_bytes(pd_rec_str(e, "path"));
			if (strcmp(kd, "ascend_pytorch_profiler_db") == 0 ||
			    strcmp(kd, "ascend_mindspore_profiler_db") == 0)
				from_profiler_db(&r, mp);
			else if (r.device >= 0)
				continue;
			else if (strcmp(kd, "npu_module_mem") == 0)
				r.device = pd_loc_device_from_csv(mp, "Device",
				    NULL);
			else if (strcmp(kd, "memory_record") == 0)
				r.device = pd_loc_device_from_csv(mp,
				    "Device Type", "Device");
			if (r.device >= 0 && r.env)
				break;
		}
	}
	pd_loc_keep(l, &r);
}

/* ---- msprof-analyze cluster_analysis_output/ ---- */

static void
cluster_root(struct loc *l, const char *path)
{
	char **names, p[PATH_MAX], kind[256], kd[300];
	const char *ext;
	struct root r;
	int n, i;

	pd_loc_root_init(&r, path, "cluster_analysis");
	if ((names = pd_loc_list_dir(path, &n))) {
		for (i = 0; i < n; i++) {
			pd_loc_join(p, sizeof p, path, names[i]);
			if (!stem_kind(names[i], kind, sizeof kind, &ext))
				continue;
			if (strcmp(ext, "db") == 0) {
				snprintf(kd, sizeof kd, "%s_db", kind);
				pd_loc_add_export(&r, kd, p);
			} else if (!strcmp(ext, "csv") || !strcmp(ext, "json")) {
				pd_loc_add_export(&r, kind, p);
			}
		}
		pd_loc_free_list(names, n);
	}
	pd_loc_keep(l, &r);
}

/* ---- MindSpore legacy flat profiler/ dir: one root per device ---- */

static int
by_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static int
legacy_root(struct loc *l, const char *path, char **names, int n)
{
	int devs[256], ndev = 0, core = 0, i, j, d, c;
	char p[PATH_MAX];
	const char *k;
	struct root r;

	for (i = 0; i < n; i++) {
		if (!(k = legacy_kind(names[i], &d, &c)))
			continue;
		core |= c;
		for (j = 0; j < ndev && devs[j] != d; j++)
			;
		if (j == ndev && ndev < (int)(sizeof devs / sizeof *devs))
			devs[ndev++] = d;
	}
	if (!core)
		return 0;
	qsort(devs, (size_t)ndev, sizeof *devs, by_int);
	for (j = 0; j < ndev; j++) {
		/* several devices share the dir: each is a root of its own,
		 * named DIR#device=N (the join key must differ) */
		if (ndev > 1) {
			snprintf(p, sizeof p, "%s#device=%d", path, devs[j]);
			pd_loc_root_init(&r, p, "mindspore_legacy");
			pd_loc_parent_of(path, r.run, sizeof r.run);
		} else
			pd_loc_root_init(&r, path, "mindspore_legacy");
		r.device = devs[j];
		for (i = 0; i < n; i++) {
			if (!(k = legacy_kind(names[i], &d, &c)) || d != devs[j])
				continue;
			pd_loc_join(p, sizeof p, path, names[i]);
			pd_loc_add_export(&r, k, p);
		}
		pd_loc_keep(l, &r);
	}
	return 1;
}

static const char *flat_markers[] = {
	"trace_view.json", "kernel_details.csv", "step_trace_time.csv",
	"operator_details.csv", NULL
};

/* Does dir hold a directory that is a root by its name (or by holding
 * ASCEND_PROFILER_OUTPUT/)? Then stray export files next to it do not
 * make dir a flat root that would hide it. */
static int
holds_named_root(const char *path, char **names, int n)
{
	char p[PATH_MAX], q[PATH_MAX];
	int i;

	for (i = 0; i < n; i++) {
		pd_loc_join(p, sizeof p, path, names[i]);
		if (!is_dir(p))
			continue;
		pd_loc_join(q, sizeof q, p, "ASCEND_PROFILER_OUTPUT");
		if (ends_with(names[i], "_ascend_pt") ||
		    ends_with(names[i], "_ascend_ms") ||
		    starts_with(names[i], "PROF_") ||
		    strcmp(names[i], "cluster_analysis_output") == 0 ||
		    is_dir(q))
			return 1;
	}
	return 0;
}

/* Is dir a root? Keeps its records and returns 1 if so. */
int
pd_loc_dir_root(struct loc *l, const char *path, char **names, int n)
{
	const char *name = base_of(path);
	char p[PATH_MAX];
	int i;

	if (ends_with(name, "_ascend_pt")) {
		torch_root(l, path, "torch_npu", 0);
		return 1;
	}
	if (ends_with(name, "_ascend_ms")) {
		torch_root(l, path, "mindspore", 0);
		return 1;
	}
	if (strcmp(name, "cluster_analysis_output") == 0) {
		cluster_root(l, path);
		return 1;
	}
	if (starts_with(name, "PROF_") && pd_loc_prof_root(l, path))
		return 1;
	for (i = 0; i < n; i++) {
		if (strcmp(names[i], "ASCEND_PROFILER_OUTPUT") == 0) {
			pd_loc_join(p, sizeof p, path, names[i]);
			if (is_dir(p)) {
				torch_root(l, path, "torch_npu", 0);
				return 1;
			}
		}
	}
	if (legacy_root(l, path, names, n))
		return 1;
	if (holds_named_root(path, names, n))
		return 0;
	for (i = 0; i < n; i++) {
		if (in_list(flat_markers, names[i])) {
			pd_loc_join(p, sizeof p, path, names[i]);
			if (is_file(p)) {
				torch_root(l, path, "torch_npu", 1);
				return 1;
			}
		}
	}
	return 0;
}
