/* pd_locate: finding profiler roots below a path (see pd_locate.h and
 * pd-locate(1) for the rules). Directories are read with their entries
 * sorted (C order); the records of one operand are collected and emitted
 * sorted by root path, then device. Files are identified by name and by
 * their first bytes only: a trace is never read past its header. */
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

#define DEFAULT_DEPTH	8
#define SNIFF_BYTES	(64 * 1024)	/* trace header window */
#define SMALL_JSON	(4 << 20)	/* larger info files are not parsed */
#define DEVICE_SCAN	(4 << 20)	/* Kineto event text looked at for a device */

struct cand {
	json_t *rec;
	struct timespec mtime;	/* newest of the root and its exports */
	char *archive;		/* the archive it was found in, or NULL */
};

/* A directory the walk has entered, by (device, inode): a symbolic link
 * leading back to it is a loop, one leading to it from elsewhere a second
 * name for what was searched already. */
struct seen {
	dev_t dev;
	ino_t ino;
	int active;	/* on the path being walked */
	int warned;	/* a second name was reported */
	char *path;	/* the name it was searched under */
};

struct loc {
	int maxdepth;
	int status;
	struct cand *c;
	size_t n, cap;
	void *seen;	/* tsearch tree of struct seen */
};

/* ---- small helpers ---- */

static int
ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);

	return a >= b && strcmp(s + a - b, suf) == 0;
}

static int
starts_with(const char *s, const char *pre)
{
	return strncmp(s, pre, strlen(pre)) == 0;
}

static int
all_digits(const char *s, size_t n)
{
	size_t i;

	if (n == 0)
		return 0;
	for (i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

/* dir/name into buf (cut at size; PATH_MAX paths do not reach that). */
static void
join(char *buf, size_t size, const char *dir, const char *name)
{
	size_t a = strlen(dir), b = strlen(name);

	if (a == 1 && dir[0] == '/')
		a = 0;
	if (a + b + 2 > size) {
		buf[0] = 0;
		return;
	}
	memmove(buf, dir, a);
	buf[a] = '/';
	memcpy(buf + a + 1, name, b + 1);
}

static int
is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int
is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static void
parent_of(const char *path, char *buf, size_t size)
{
	char *s;

	snprintf(buf, size, "%s", path);
	s = strrchr(buf, '/');
	if (s == buf)
		buf[1] = 0;
	else if (s)
		*s = 0;
}

static const char *
base_of(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* "device_N" -> N, else -1. */
static int
device_dir(const char *name)
{
	if (!starts_with(name, "device_") || !all_digits(name + 7,
	    strlen(name + 7)))
		return -1;
	return atoi(name + 7);
}

static int
by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* Sorted entry names of dir, without "." and ".."; NULL (errno set) when
 * the directory cannot be read. */
static char **
list_dir(const char *dir, int *n)
{
	struct dirent **ents;
	char **names;
	int i, k = 0, m;

	m = scandir(dir, &ents, NULL, by_name);
	if (m < 0)
		return NULL;
	names = calloc((size_t)m + 1, sizeof *names);
	for (i = 0; i < m; i++) {
		if (strcmp(ents[i]->d_name, ".") && strcmp(ents[i]->d_name, ".."))
			names[k++] = strdup(ents[i]->d_name);
		free(ents[i]);
	}
	free(ents);
	*n = k;
	return names;
}

static void
free_list(char **names, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* Read up to size-1 bytes of a file (gzip inflated) into buf; returns the
 * number of bytes read, -1 on error. */
static int
sniff(const char *path, char *buf, int size)
{
	struct pd_zfile *z = pd_file_zopen(path);
	long n;

	if (!z)
		return -1;
	/* a damaged or cut gzip file still shows its head; the reader of the
	 * trace says what is wrong with it */
	n = pd_file_zread(z, buf, (size_t)size - 1);
	pd_file_zclose(z);
	if (n < 0)
		return -1;
	buf[n] = 0;
	return (int)n;
}

/* A JSON integer or an integer string (rank_id is both in the wild);
 * negative values mean "unset". Returns -1 when absent or unset. */
static int64_t
json_rank(json_t *v)
{
	const char *s;
	char *end;
	long long x;

	if (json_is_integer(v))
		return json_integer_value(v) < 0 ? -1 : json_integer_value(v);
	if (!json_is_string(v))
		return -1;
	s = json_string_value(v);
	errno = 0;
	x = strtoll(s, &end, 10);
	if (end == s || *end || errno || x < 0)
		return -1;
	return x;
}

static json_t *
load_small_json(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > SMALL_JSON)
		return NULL;
	return json_load_file(path, 0, NULL);
}

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
		if (u && u != kind && all_digits(u + 1, strlen(u + 1))) {
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

static int
in_list(const char **list, const char *s)
{
	int i;

	for (i = 0; list[i]; i++)
		if (strcmp(list[i], s) == 0)
			return 1;
	return 0;
}

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
static const char *
msprof_kind(const char *name, char *kind, size_t size)
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
		    !all_digits(name + a, n - a - b))
			continue;
		*dev = atoi(name + a);
		*core = ms_legacy[i].core;
		return ms_legacy[i].kind;
	}
	return NULL;
}

/* Score weights: 3 for the evidence most tools start from, 2 for
 * communication, memory and operator tables, 1 for the rest. */
static const char *weight3[] = {
	"step_trace_time", "trace_view", "kernel_details", "op_summary",
	"kineto_trace", "msprof_timeline", "step_trace_timeline",
	"ascend_timeline_display", "step_trace_raw_detail_time",
	"cluster_step_trace_time", "analysis_db", "ascend_pytorch_profiler_db",
	"ascend_mindspore_profiler_db", "task_time", NULL
};
static const char *weight2[] = {
	"communication", "communication_matrix", "cluster_communication",
	"cluster_communication_matrix", "hccl_timeline", "hccl_raw",
	"memory_record", "operator_memory", "npu_module_mem",
	"memory_timeline_raw", "op_statistic", "operator_details",
	"framework_raw", "aicore_intermediate_detail", "minddata_pipeline_raw",
	"device_queue_profiling", NULL
};

/* ---- records ---- */

struct root {
	char path[PATH_MAX];
	const char *format;
	int64_t rank, device, world_size;	/* -1: unknown */
	int64_t process;	/* nsys: the pid of the process; -1 */
	const char *framework;	/* NULL: the format's (pd_formats.h) */
	char run[PATH_MAX + 64];
	json_t *exports;	/* array of {kind, path, bytes} */
	json_t *env;		/* profiler_metadata ENV_VARIABLES, or NULL */
	struct timespec mtime;
};

static void
root_init(struct root *r, const char *path, const char *format)
{
	struct stat st;

	memset(r, 0, sizeof *r);
	snprintf(r->path, sizeof r->path, "%s", path);
	r->format = format;
	r->rank = r->device = r->world_size = r->process = -1;
	parent_of(path, r->run, sizeof r->run);
	r->exports = json_array();
	if (stat(path, &st) == 0)
		r->mtime = st.st_mtim;
}

static void
newer(struct timespec *a, const struct timespec *b)
{
	if (b->tv_sec > a->tv_sec || (b->tv_sec == a->tv_sec &&
	    b->tv_nsec > a->tv_nsec))
		*a = *b;
}

static void
add_export(struct root *r, const char *kind, const char *path)
{
	struct stat st;
	json_t *e;

	if (stat(path, &st) < 0)
		return;
	if (!S_ISREG(st.st_mode)) {
		pd_warn(path, 0, "not a regular file; not read as '%s'", kind);
		pd_diag_status(PD_EXIT_INPUT);
		return;
	}
	e = json_object();
	pd_set_str(e, "kind", kind);
	pd_set_str(e, "path", path);
	pd_set_int(e, "bytes", st.st_size);
	json_array_append_new(r->exports, e);
	newer(&r->mtime, &st.st_mtim);
}

static int
by_export_path(const void *a, const void *b)
{
	json_t *const *x = a, *const *y = b;

	return strcmp(pd_rec_str(*x, "path"), pd_rec_str(*y, "path"));
}

static int64_t
score(json_t *exports, int64_t rank)
{
	json_t *seen = json_object(), *e;
	const char *k;
	int64_t s = rank >= 0 ? 1 : 0;
	size_t i;

	json_array_foreach(exports, i, e) {
		k = pd_rec_str(e, "kind");
		if (!k || json_object_get(seen, k))
			continue;
		json_object_set_new(seen, k, json_true());
		s += in_list(weight3, k) ? 3 : in_list(weight2, k) ? 2 : 1;
	}
	json_decref(seen);
	return s;
}

static void
set_opt_int(json_t *o, const char *key, int64_t v)
{
	if (v < 0)
		pd_set_null(o, key);
	else
		pd_set_int(o, key, v);
}

/* Turn a root into its record and keep it. */
static void
keep(struct loc *l, struct root *r)
{
	json_t *rec = pd_rec_new("pd.root", 1, NULL), *sorted;
	const struct pd_format *fmt;
	size_t n = json_array_size(r->exports), i;
	json_t **v = calloc(n + 1, sizeof *v);

	for (i = 0; i < n; i++)
		v[i] = json_array_get(r->exports, i);
	qsort(v, n, sizeof *v, by_export_path);
	sorted = json_array();
	for (i = 0; i < n; i++)
		json_array_append(sorted, v[i]);
	free(v);
	pd_set_str(rec, "root", r->path);
	set_opt_int(rec, "rank", r->rank);
	set_opt_int(rec, "device", r->device);
	pd_set_str(rec, "format", r->format);
	fmt = pd_format_get(r->format);
	pd_set_str(rec, "framework", r->framework ? r->framework :
	    fmt ? fmt->framework : NULL);
	pd_set_str(rec, "run", r->run);
	pd_set_int(rec, "score", score(sorted, r->rank));
	pd_set(rec, "exports", sorted);
	set_opt_int(rec, "world_size", r->world_size);
	set_opt_int(rec, "process", r->process);
	pd_set(rec, "env", r->env ? r->env : json_null());
	r->env = NULL;
	json_decref(r->exports);
	r->exports = NULL;
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 16;
		l->c = realloc(l->c, l->cap * sizeof *l->c);
	}
	l->c[l->n].rec = rec;
	l->c[l->n].mtime = r->mtime;
	l->c[l->n].archive = NULL;
	l->n++;
}

/* ---- rank and device sources ---- */

/* profiler_info[_N].json: "rank_id" (int or string), else the N. */
static void
rank_from_profiler_info(struct root *r, const char *path, const char *name)
{
	json_t *j = load_small_json(path);
	int64_t x = -1;
	const char *s = name + strlen("profiler_info");

	if (j)
		x = json_rank(json_object_get(j, "rank_id"));
	json_decref(j);
	if (x < 0 && *s == '_' && all_digits(s + 1, strlen(s + 1) - 5))
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
	json_t *j = load_small_json(path), *d, *v;
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
static int64_t
device_from_csv(const char *path, const char *col, const char *col2)
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
			if (all_digits(f, strlen(f))) {
				dev = atoll(f);
				break;
			}
		}
	}
	pd_csv_close(c);
	return dev;
}

/* info.json.N: "rank_id" (-1 = unset). */
static int64_t
rank_from_info_json(const char *path)
{
	json_t *j = load_small_json(path);
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

	if (!(names = list_dir(dir, &n)))
		return;
	for (i = 0; i < n; i++) {
		join(p, sizeof p, dir, names[i]);
		if (!(k = apo_kind(names[i], kind, sizeof kind)))
			continue;
		add_export(r, k, p);
		if (strcmp(k, "ascend_pytorch_profiler_db") == 0 ||
		    strcmp(k, "ascend_mindspore_profiler_db") == 0) {
			const char *u = strrchr(names[i], '_');
			if (u && all_digits(u + 1, strlen(u + 1) - 3)) {
				*db_rank = atoll(u + 1);
				(*ndb_rank)++;
			}
		}
	}
	free_list(names, n);
}

static void
torch_root(struct loc *l, const char *path, const char *format, int flat)
{
	struct root r;
	char **names, p[PATH_MAX];
	int n, i, ndb = 0, ndev = 0;
	int64_t db_rank = -1, md_rank = -1, dev = -1;

	root_init(&r, path, format);
	if (!(names = list_dir(path, &n))) {
		json_decref(r.exports);
		return;
	}
	for (i = 0; i < n; i++) {
		join(p, sizeof p, path, names[i]);
		if (starts_with(names[i], "profiler_info") &&
		    ends_with(names[i], ".json")) {
			add_export(&r, "profiler_info", p);
			rank_from_profiler_info(&r, p, names[i]);
		} else if (strcmp(names[i], "profiler_metadata.json") == 0) {
			add_export(&r, "profiler_metadata", p);
			from_metadata(&r, p, &md_rank);
		} else if (starts_with(names[i], "PROF_") && is_dir(p)) {
			char **dn;
			int m, j;
			if ((dn = list_dir(p, &m))) {
				for (j = 0; j < m; j++) {
					int d = device_dir(dn[j]);
					if (d >= 0 && d != dev) {
						dev = d;
						ndev++;
					}
				}
				free_list(dn, m);
			}
		}
	}
	free_list(names, n);
	if (flat) {
		apo_exports(&r, path, &ndb, &db_rank);
	} else {
		join(p, sizeof p, path, "ASCEND_PROFILER_OUTPUT");
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
				r.device = device_from_csv(mp, "Device", NULL);
			else if (strcmp(kd, "memory_record") == 0)
				r.device = device_from_csv(mp, "Device Type",
				    "Device");
			if (r.device >= 0 && r.env)
				break;
		}
	}
	keep(l, &r);
}

/* ---- CANN msprof PROF_* ---- */

static void
msprof_dir_exports(struct root *r, const char *dir)
{
	char **names, p[PATH_MAX], kind[256];
	const char *k;
	int n, i;

	if (!(names = list_dir(dir, &n)))
		return;
	for (i = 0; i < n; i++) {
		join(p, sizeof p, dir, names[i]);
		if ((k = msprof_kind(names[i], kind, sizeof kind)))
			add_export(r, k, p);
	}
	free_list(names, n);
}

/* Exports of the PROF dir itself (shared by its devices). */
static void
prof_shared(struct root *r, const char *prof)
{
	char **names, p[PATH_MAX];
	int n, i;

	join(p, sizeof p, prof, "mindstudio_profiler_output");
	msprof_dir_exports(r, p);
	join(p, sizeof p, prof, "analyze");
	if (is_dir(p)) {
		char q[PATH_MAX];
		join(q, sizeof q, p, "communication.json");
		add_export(r, "communication", q);
		join(q, sizeof q, p, "communication_matrix.json");
		add_export(r, "communication_matrix", q);
		join(q, sizeof q, p, "communication_analyzer.db");
		add_export(r, "communication_analyzer_db", q);
	}
	if (!(names = list_dir(prof, &n)))
		return;
	for (i = 0; i < n; i++) {
		if (starts_with(names[i], "msprof_") && ends_with(names[i], ".db")) {
			join(p, sizeof p, prof, names[i]);
			add_export(r, "msprof_db", p);
		}
	}
	free_list(names, n);
}

static void
prof_device(struct root *r, const char *prof, int dev)
{
	char d[PATH_MAX], p[PATH_MAX], name[64];

	snprintf(name, sizeof name, "device_%d", dev);
	join(d, sizeof d, prof, name);
	snprintf(name, sizeof name, "info.json.%d", dev);
	join(p, sizeof p, d, name);
	if (is_file(p)) {
		add_export(r, "info_json", p);
		r->rank = rank_from_info_json(p);
	}
	join(p, sizeof p, d, "timeline");
	msprof_dir_exports(r, p);
	join(p, sizeof p, d, "summary");
	msprof_dir_exports(r, p);
	r->device = dev;
}

/* Device from the first row of an msprof CSV with a Device_id column. */
static int64_t
msprof_csv_device(json_t *exports)
{
	static const char *kinds[] = { "op_summary", "task_time", NULL };
	json_t *e;
	size_t i;
	int64_t d;

	json_array_foreach(exports, i, e) {
		const char *p = pd_str_bytes(pd_rec_str(e, "path"));
		if (in_list(kinds, pd_rec_str(e, "kind")) && ends_with(p, ".csv") &&
		    (d = device_from_csv(p, "Device_id", NULL)) >= 0)
			return d;
	}
	return -1;
}

/* Returns 1 when path is a PROF root (and keeps its records). */
static int
prof_root(struct loc *l, const char *path)
{
	char **names, p[PATH_MAX], q[PATH_MAX];
	int n, i, ndev = 0, legacy = 0, mso;
	int devs[256];
	struct root r;

	join(p, sizeof p, path, "mindstudio_profiler_output");
	mso = is_dir(p);
	if (!(names = list_dir(path, &n)))
		return 0;
	for (i = 0; i < n; i++) {
		int d = device_dir(names[i]);
		if (d < 0 || ndev == (int)(sizeof devs / sizeof *devs))
			continue;
		join(p, sizeof p, path, names[i]);
		if (!is_dir(p))
			continue;
		devs[ndev++] = d;
		join(q, sizeof q, p, "timeline");
		if (is_dir(q))
			legacy = 1;
		join(q, sizeof q, p, "summary");
		if (is_dir(q))
			legacy = 1;
	}
	free_list(names, n);
	if (!mso && !legacy)
		return 0;
	if (ndev <= 1) {
		root_init(&r, path, mso ? "msprof" : "msprof_legacy");
		prof_shared(&r, path);
		if (ndev == 1)
			prof_device(&r, path, devs[0]);
		else
			r.device = msprof_csv_device(r.exports);
		keep(l, &r);
		return 1;
	}
	for (i = 0; i < ndev; i++) {
		char name[64];
		snprintf(name, sizeof name, "device_%d", devs[i]);
		join(p, sizeof p, path, name);
		root_init(&r, p, mso ? "msprof" : "msprof_legacy");
		parent_of(path, r.run, sizeof r.run);
		prof_shared(&r, path);
		prof_device(&r, path, devs[i]);
		keep(l, &r);
	}
	return 1;
}

/* ---- msprof-analyze cluster_analysis_output/ ---- */

static void
cluster_root(struct loc *l, const char *path)
{
	char **names, p[PATH_MAX], kind[256], kd[300];
	const char *ext;
	struct root r;
	int n, i;

	root_init(&r, path, "cluster_analysis");
	if ((names = list_dir(path, &n))) {
		for (i = 0; i < n; i++) {
			join(p, sizeof p, path, names[i]);
			if (!stem_kind(names[i], kind, sizeof kind, &ext))
				continue;
			if (strcmp(ext, "db") == 0) {
				snprintf(kd, sizeof kd, "%s_db", kind);
				add_export(&r, kd, p);
			} else if (!strcmp(ext, "csv") || !strcmp(ext, "json")) {
				add_export(&r, kind, p);
			}
		}
		free_list(names, n);
	}
	keep(l, &r);
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
			root_init(&r, p, "mindspore_legacy");
			parent_of(path, r.run, sizeof r.run);
		} else
			root_init(&r, path, "mindspore_legacy");
		r.device = devs[j];
		for (i = 0; i < n; i++) {
			if (!(k = legacy_kind(names[i], &d, &c)) || d != devs[j])
				continue;
			join(p, sizeof p, path, names[i]);
			add_export(&r, k, p);
		}
		keep(l, &r);
	}
	return 1;
}

/* ---- trace files ---- */

static const char *kineto_keys[] = {
	"\"schemaVersion\"", "\"deviceProperties\"", "\"distributedInfo\"",
	"\"traceName\"", "\"displayTimeUnit\"", "\"baseTimeNanoseconds\"", NULL
};

struct header {
	int64_t rank, world_size, device;
	size_t seen;	/* bytes of event text looked at */
};

static const char *gpu_cats[] = {
	"kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset", NULL
};

/* The device is the args.device of the first GPU activity, looked for in
 * the first DEVICE_SCAN bytes of events only; otherwise it stays unknown. */
static int
scan_event(const struct pd_ev *ev, void *ctx)
{
	struct header *h = ctx;
	int64_t d;

	h->seen += ev->raw_len;
	if (in_list(gpu_cats, ev->cat) && (pd_ev_arg_int(ev, "device", &d) ||
	    pd_ev_arg_int(ev, "Device", &d)) && d >= 0) {
		h->device = d;
		return 1;
	}
	return h->seen >= DEVICE_SCAN;
}

static void
header_key(const char *key, json_t *v, void *ctx)
{
	struct header *h = ctx;

	/* only the keys before traceEvents: what comes after an event may be
	 * gigabytes away */
	if (h->seen == 0 && strcmp(key, "distributedInfo") == 0 &&
	    json_is_object(v)) {
		h->rank = json_rank(json_object_get(v, "rank"));
		h->world_size = json_rank(json_object_get(v, "world_size"));
	}
}

static const char *
skip_ws(const char *s)
{
	if ((unsigned char)s[0] == 0xEF && (unsigned char)s[1] == 0xBB &&
	    (unsigned char)s[2] == 0xBF)
		s += 3;
	while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
		s++;
	return s;
}

static int
is_sqlite_name(const char *name)
{
	return ends_with(name, ".sqlite") || ends_with(name, ".sqlite3");
}

/* An Nsight Systems export: one root per profiled process (pd_nsys.h),
 * named by the file, told apart by "process"; its rank is the process's
 * "MPI Rank N" thread name, else, when the file holds several processes,
 * its place in device order. Returns 1 when path is one (or an SQLite
 * file that cannot be read, which is said). */
static int
nsys_root(struct loc *l, const char *path)
{
	struct pd_nsys_proc *p;
	struct root r;
	int n, i;

	if ((n = pd_nsys_sniff(path)) <= 0) {
		if (n < 0 && l->status < PD_EXIT_INPUT)
			l->status = PD_EXIT_INPUT;
		return n < 0;	/* an unreadable SQLite file is said */
	}
	if ((n = pd_nsys_processes(path, &p)) < 0) {
		if (l->status < PD_EXIT_INPUT)
			l->status = PD_EXIT_INPUT;
		return 1;
	}
	if (n == 0) {
		pd_warn(path, 0, "Nsight Systems export without CUDA or NVTX "
		    "rows of any process; nothing to summarize");
		if (l->status < PD_EXIT_INPUT)
			l->status = PD_EXIT_INPUT;
	}
	for (i = 0; i < n; i++) {
		root_init(&r, path, "nsys");
		snprintf(r.run, sizeof r.run, "%s", path);
		r.rank = p[i].rank >= 0 ? p[i].rank : n > 1 ? i : -1;
		r.device = p[i].device;
		r.world_size = n > 1 ? n : -1;
		r.process = p[i].pid;
		r.framework = p[i].torch ? "torch" : NULL;
		add_export(&r, "nsys_sqlite", path);
		keep(l, &r);
	}
	free(p);
	return 1;
}

/* Returns 1 when path is a trace root (and keeps it). */
static int
trace_root(struct loc *l, const char *path)
{
	const char *name = base_of(path), *s;
	int json = ends_with(name, ".json") || ends_with(name, ".json.gz");
	int memtl = strstr(name, "memory_timeline") && (json ||
	    ends_with(name, ".gz"));
	char *buf;
	int n, i, found = 0;
	struct root r;

	if (is_sqlite_name(name))
		return nsys_root(l, path);
	if (!json && !memtl)
		return 0;
	buf = malloc(SNIFF_BYTES);
	n = sniff(path, buf, SNIFF_BYTES);
	if (n <= 0) {
		free(buf);
		return 0;
	}
	s = skip_ws(buf);
	if (*s == '[') {
		const char *t = skip_ws(s + 1);
		if (memtl && *t == '[') {
			root_init(&r, path, "kineto");
			snprintf(r.run, sizeof r.run, "%s", path);
			add_export(&r, "memory_timeline_raw", path);
			keep(l, &r);
			found = 1;
		} else if (json && *t == '{' && (strstr(s, "\"CPU functions\"") ||
		    strstr(s, "\"CUDA functions\""))) {
			root_init(&r, path, "autograd");
			snprintf(r.run, sizeof r.run, "%s", path);
			add_export(&r, "kineto_trace", path);
			keep(l, &r);
			found = 1;
		}
	} else if (json && *s == '{') {
		found = strstr(s, "\"traceEvents\"") != NULL;
		for (i = 0; !found && n == SNIFF_BYTES - 1 && kineto_keys[i]; i++)
			found = strstr(s, kineto_keys[i]) != NULL;
		if (found) {
			struct header h = { -1, -1, -1, 0 };
			struct pd_trace_cb cb = { &h, scan_event, header_key };
			struct pd_trace_stats st;
			char dir[PATH_MAX];

			pd_trace_read(path, &cb, &st);
			root_init(&r, path, "kineto");
			r.rank = h.rank;
			r.world_size = h.world_size;
			r.device = h.device;
			if (h.world_size >= 0) {
				parent_of(path, dir, sizeof dir);
				snprintf(r.run, sizeof r.run, "%s#world_size=%lld",
				    dir, (long long)h.world_size);
			} else {
				snprintf(r.run, sizeof r.run, "%s", path);
			}
			add_export(&r, "kineto_trace", path);
			keep(l, &r);
		}
	}
	free(buf);
	return found;
}

/* ---- the walk ---- */

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
		join(p, sizeof p, path, names[i]);
		if (!is_dir(p))
			continue;
		join(q, sizeof q, p, "ASCEND_PROFILER_OUTPUT");
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
static int
dir_root(struct loc *l, const char *path, char **names, int n)
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
	if (starts_with(name, "PROF_") && prof_root(l, path))
		return 1;
	for (i = 0; i < n; i++) {
		if (strcmp(names[i], "ASCEND_PROFILER_OUTPUT") == 0) {
			join(p, sizeof p, path, names[i]);
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
			join(p, sizeof p, path, names[i]);
			if (is_file(p)) {
				torch_root(l, path, "torch_npu", 1);
				return 1;
			}
		}
	}
	return 0;
}

static int
seen_cmp(const void *a, const void *b)
{
	const struct seen *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return 0;
}

static void
seen_free(void *p)
{
	struct seen *s = p;

	free(s->path);
	free(s);
}

/* Enter the directory path (status st): its entry, or NULL when it was
 * entered before under another name (not searched again: a loop never
 * repeats, a second name gives no second root; said once per directory). */
static struct seen *
enter(struct loc *l, const char *path, const struct stat *st)
{
	struct seen key, *s, **slot;

	key.dev = st->st_dev;
	key.ino = st->st_ino;
	slot = tfind(&key, &l->seen, seen_cmp);
	if (slot) {
		s = *slot;
		if (s->warned++)
			return NULL;
		if (s->active)
			pd_warn(path, 0, "symbolic link loop: leads back to "
			    "'%s'; not followed", s->path);
		else
			pd_warn(path, 0, "the directory already searched as "
			    "'%s'; not searched again", s->path);
		return NULL;
	}
	s = calloc(1, sizeof *s);
	if (!s || !(s->path = strdup(path))) {
		free(s);
		return NULL;
	}
	s->dev = st->st_dev;
	s->ino = st->st_ino;
	if (!tsearch(s, &l->seen, seen_cmp)) {
		seen_free(s);
		return NULL;
	}
	return s;
}

static void walk(struct loc *l, const char *path, const struct stat *dst,
    int depth);

/* The roots inside an archive: its members are read from a private copy
 * (pd_archive.h), searched like a directory, and the roots found named
 * ARCHIVE//MEMBER, with the archive in "archive". */
static void
in_archive(struct loc *l, const char *path, int depth)
{
	size_t first = l->n, i;
	int before = pd_diag_get_status();
	const char *dir = pd_archive_dir(path);
	struct stat st;

	if (pd_diag_get_status() > before && l->status < PD_EXIT_INPUT)
		l->status = PD_EXIT_INPUT;
	if (!dir || stat(dir, &st) != 0)
		return;
	walk(l, dir, &st, depth + 1);
	for (i = first; i < l->n; i++) {
		if (!l->c[i].rec)
			continue;
		pd_archive_unmap_json(l->c[i].rec);
		l->c[i].archive = strdup(path);
		if (!l->c[i].archive)
			pd_oom();
	}
}

static void
walk(struct loc *l, const char *path, const struct stat *dst, int depth)
{
	char **names, p[PATH_MAX];
	struct stat st;
	struct seen *me;
	int n, i;

	if (!(me = enter(l, path, dst)))
		return;
	if (!(names = list_dir(path, &n))) {
		pd_warn(path, 0, "cannot read directory: %s; skipped",
		    strerror(errno));
		if (l->status < PD_EXIT_INPUT)
			l->status = PD_EXIT_INPUT;
		return;
	}
	me->active = 1;
	if (dir_root(l, path, names, n)) {
		free_list(names, n);
		me->active = 0;
		return;
	}
	for (i = 0; i < n; i++) {
		join(p, sizeof p, path, names[i]);
		if (stat(p, &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			if (depth < l->maxdepth)
				walk(l, p, &st, depth + 1);
		} else if (S_ISREG(st.st_mode)) {
			if (pd_archive_name(p))
				in_archive(l, p, depth);
			else
				trace_root(l, p);
		} else {
			pd_warn(p, 0, "not a regular file or directory; "
			    "skipped");
			if (l->status < PD_EXIT_INPUT)
				l->status = PD_EXIT_INPUT;
		}
	}
	free_list(names, n);
	me->active = 0;
}

/* ---- ordering and --best ---- */

static int
by_root(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	int c = strcmp(pd_rec_str(x->rec, "root"), pd_rec_str(y->rec, "root"));
	int64_t u, v;

	if (c)
		return c;
	u = pd_rec_int(x->rec, "device", -1);
	v = pd_rec_int(y->rec, "device", -1);
	if (u != v)
		return u < v ? -1 : 1;
	u = pd_rec_int(x->rec, "process", -1);
	v = pd_rec_int(y->rec, "process", -1);
	return (u > v) - (u < v);
}

/* Is a better than b for --best: newer, then higher score, then later
 * path. */
static int
better(const struct cand *a, const struct cand *b)
{
	if (a->mtime.tv_sec != b->mtime.tv_sec)
		return a->mtime.tv_sec > b->mtime.tv_sec;
	if (a->mtime.tv_nsec != b->mtime.tv_nsec)
		return a->mtime.tv_nsec > b->mtime.tv_nsec;
	if (pd_rec_int(a->rec, "score", 0) != pd_rec_int(b->rec, "score", 0))
		return pd_rec_int(a->rec, "score", 0) >
		    pd_rec_int(b->rec, "score", 0);
	return by_root(a, b) > 0;
}

/* Drop all but the best candidate of each (run, rank) with a known rank. */
static void
best_only(struct loc *l)
{
	size_t i, j;

	for (i = 0; i < l->n; i++) {
		json_t *ri = l->c[i].rec;
		int64_t rk = pd_rec_int(ri, "rank", -1);
		if (!ri || rk < 0)
			continue;
		for (j = i + 1; j < l->n; j++) {
			json_t *rj = l->c[j].rec;
			if (!rj || pd_rec_int(rj, "rank", -1) != rk ||
			    strcmp(pd_rec_str(ri, "run"), pd_rec_str(rj, "run")))
				continue;
			if (better(&l->c[j], &l->c[i])) {
				json_decref(ri);
				l->c[i].rec = ri = rj;
				l->c[i].mtime = l->c[j].mtime;
			} else {
				json_decref(rj);
			}
			l->c[j].rec = NULL;
		}
	}
}

/* ---- a cluster_analysis root and the per-rank roots of its run ---- */

static int
by_cover(const void *a, const void *b)
{
	json_t *const *x = a, *const *y = b;
	int64_t p = pd_rec_int(*x, "rank", -1), q = pd_rec_int(*y, "rank", -1);

	if (p != q)
		return p < q ? -1 : 1;
	return strcmp(pd_rec_str(*x, "root"), pd_rec_str(*y, "root"));
}

static int
is_cluster(json_t *rec)
{
	const struct pd_format *f = pd_format_get(pd_rec_str(rec, "format"));

	return f && f->cluster;
}

/* Add an export to a record, keeping the exports sorted by path. */
static void
add_export_rec(json_t *rec, json_t *e)
{
	json_t *ex = json_object_get(rec, "exports"), *x;
	size_t i;

	json_array_foreach(ex, i, x)
		if (strcmp(pd_rec_str(x, "path"), pd_rec_str(e, "path")) > 0)
			break;
	json_array_insert_new(ex, i, e);
}

/* The cluster root of a run covers the per-rank roots (known rank) of the
 * same run: its "covers" lists them, and they get its communication_group
 * export (the job's groups, for mapping group-local ranks). Every other
 * record has "covers": null. */
static void
cover(struct loc *l)
{
	size_t i, j, k, n;
	json_t **v, *ri, *cg, *e, *a, *o;

	for (i = 0; i < l->n; i++)
		if ((ri = l->c[i].rec) && !is_cluster(ri))
			pd_set_null(ri, "covers");
	v = calloc(l->n + 1, sizeof *v);
	for (i = 0; i < l->n; i++) {
		if (!(ri = l->c[i].rec) || !is_cluster(ri))
			continue;
		cg = NULL;
		json_array_foreach(json_object_get(ri, "exports"), k, e)
			if (strcmp(pd_rec_str(e, "kind"), "communication_group") == 0)
				cg = e;
		for (n = 0, j = 0; j < l->n; j++) {
			json_t *rj = l->c[j].rec;
			if (!rj || is_cluster(rj) || pd_rec_int(rj, "rank", -1) < 0 ||
			    strcmp(pd_rec_str(rj, "run"), pd_rec_str(ri, "run")))
				continue;
			v[n++] = rj;
			if (cg)
				add_export_rec(rj, json_deep_copy(cg));
		}
		qsort(v, n, sizeof *v, by_cover);
		a = json_array();
		for (j = 0; j < n; j++) {
			o = json_object();
			pd_set_int(o, "rank", pd_rec_int(v[j], "rank", -1));
			pd_set_str(o, "root", pd_rec_str(v[j], "root"));
			json_array_append_new(a, o);
		}
		pd_set(ri, "covers", a);
	}
	free(v);
}

/* An operand inside a root (ASCEND_PROFILER_OUTPUT/, a PROF dir's
 * mindstudio_profiler_output/ or device_N/) stands for that root. */
static void
climb(char *abs, size_t size)
{
	char par[PATH_MAX];
	const char *name = base_of(abs);

	parent_of(abs, par, sizeof par);
	if (strcmp(name, "ASCEND_PROFILER_OUTPUT") == 0 ||
	    ((strcmp(name, "mindstudio_profiler_output") == 0 ||
	    device_dir(name) >= 0) && starts_with(base_of(par), "PROF_")))
		snprintf(abs, size, "%s", par);
}

int
pd_locate(const char *path, const struct pd_locate_opts *o, pd_root_cb cb,
    void *ctx)
{
	struct loc l;
	struct stat st;
	char abs[PATH_MAX];
	size_t i;
	int r;

	memset(&l, 0, sizeof l);
	l.maxdepth = o && o->maxdepth > 0 ? o->maxdepth : DEFAULT_DEPTH;
	if (stat(path, &st) < 0 || !realpath(path, abs)) {
		pd_error(path, 0, "%s", strerror(errno));
		return PD_EXIT_SYSTEM;
	}
	if (S_ISDIR(st.st_mode)) {
		climb(abs, sizeof abs);
		if (stat(abs, &st) == 0)
			walk(&l, abs, &st, 0);
	} else if (!S_ISREG(st.st_mode)) {
		pd_warn(path, 0, "not a regular file or directory; skipped");
		l.status = PD_EXIT_INPUT;
	} else if (pd_archive_name(abs)) {
		in_archive(&l, abs, 0);
	} else if (!trace_root(&l, abs) && (is_sqlite_name(abs) ||
	    !nsys_root(&l, abs))) {
		pd_warn(path, 0, "not a Kineto, autograd or Nsight Systems "
		    "trace; give its profiler directory instead");
		l.status = PD_EXIT_INPUT;
	}
	if (l.n)
		qsort(l.c, l.n, sizeof *l.c, by_root);
	if (o && o->best)
		best_only(&l);
	cover(&l);
	for (i = 0; i < l.n; i++) {
		if (l.c[i].rec) {
			pd_set(l.c[i].rec, "archive", l.c[i].archive ?
			    pd_str(l.c[i].archive) : json_null());
			/* statuses are ranked: the worst one is returned */
			if ((r = cb(l.c[i].rec, ctx)) > l.status)
				l.status = r;
		}
		json_decref(l.c[i].rec);
		free(l.c[i].archive);
	}
	free(l.c);
	tdestroy(l.seen, seen_free);
	return l.status;
}

const char *
pd_root_export(json_t *root, const char *kind, size_t idx)
{
	json_t *ex = json_object_get(root, "exports"), *e;
	size_t i, n = 0;

	json_array_foreach(ex, i, e) {
		const char *k = pd_rec_str(e, "kind");
		if (k && strcmp(k, kind) == 0 && n++ == idx)
			return pd_str_bytes(pd_rec_str(e, "path"));
	}
	return NULL;
}
