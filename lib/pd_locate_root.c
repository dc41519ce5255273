/* pd_locate: a root being built (its exports, score and record), and
 * the helpers on names, directories and small files the recognisers
 * share. */
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

/* ---- small helpers ---- */

int
pd_loc_all_digits(const char *s, size_t n)
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
void
pd_loc_join(char *buf, size_t size, const char *dir, const char *name)
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

void
pd_loc_parent_of(const char *path, char *buf, size_t size)
{
	char *s;

	snprintf(buf, size, "%s", path);
	s = strrchr(buf, '/');
	if (s == buf)
		buf[1] = 0;
	else if (s)
		*s = 0;
}

/* "device_N" -> N, else -1. */
int
pd_loc_device_dir(const char *name)
{
	if (!starts_with(name, "device_") || !pd_loc_all_digits(name + 7,
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
char **
pd_loc_list_dir(const char *dir, int *n)
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

void
pd_loc_free_list(char **names, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* Read up to size-1 bytes of a file (gzip inflated) into buf; returns the
 * number of bytes read, -1 on error. */
int
pd_loc_sniff(const char *path, char *buf, int size)
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

json_t *
pd_loc_load_small_json(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > SMALL_JSON)
		return NULL;
	return json_load_file(path, 0, NULL);
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

void
pd_loc_root_init(struct root *r, const char *path, const char *format)
{
	struct stat st;

	memset(r, 0, sizeof *r);
	snprintf(r->path, sizeof r->path, "%s", path);
	r->format = format;
	r->rank = r->device = r->world_size = r->process = -1;
	pd_loc_parent_of(path, r->run, sizeof r->run);
	r->exports = json_array();
	if (stat(path, &st) == 0)
		r->mtime = st.st_mtim;
}

void
pd_loc_newer(struct timespec *a, const struct timespec *b)
{
	if (b->tv_sec > a->tv_sec || (b->tv_sec == a->tv_sec &&
	    b->tv_nsec > a->tv_nsec))
		*a = *b;
}

void
pd_loc_add_export(struct root *r, const char *kind, const char *path)
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
	pd_loc_newer(&r->mtime, &st.st_mtim);
}

static int
by_export_path(const void *a, const void *b)
{
	json_t *const *x = a, *const *y = b;

	return strcmp(pd_rec_str(*x, "path"), pd_rec_str(*y, "path"));
}

int64_t
pd_loc_score(json_t *exports, int64_t rank)
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
set_int_or_null(json_t *o, const char *key, int64_t v)
{
	if (v < 0)
		pd_set_null(o, key);
	else
		pd_set_int(o, key, v);
}

/* Turn a root into its record and keep it. */
void
pd_loc_keep(struct loc *l, struct root *r)
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
	set_int_or_null(rec, "rank", r->rank);
	set_int_or_null(rec, "device", r->device);
	pd_set_str(rec, "format", r->format);
	fmt = pd_format_get(r->format);
	pd_set_str(rec, "framework", r->framework ? r->framework :
	    fmt ? fmt->framework : NULL);
	pd_set_str(rec, "run", r->run);
	pd_set_int(rec, "score", pd_loc_score(sorted, r->rank));
	pd_set(rec, "exports", sorted);
	set_int_or_null(rec, "world_size", r->world_size);
	set_int_or_null(rec, "process", r->process);
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
