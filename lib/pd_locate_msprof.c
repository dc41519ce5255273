/* pd_locate: recognising CANN msprof PROF_* directories
 * (mindstudio_profiler_output/ and the older device_N/). */
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

/* ---- CANN msprof PROF_* ---- */

static void
msprof_dir_exports(struct root *r, const char *dir)
{
	char **names, p[PATH_MAX], kind[256];
	const char *k;
	int n, i;

	if (!(names = pd_loc_list_dir(dir, &n)))
		return;
	for (i = 0; i < n; i++) {
		pd_loc_join(p, sizeof p, dir, names[i]);
		if ((k = pd_loc_msprof_kind(names[i], kind, sizeof kind)))
			pd_loc_add_export(r, k, p);
	}
	pd_loc_free_list(names, n);
}

/* Exports of the PROF dir itself (shared by its devices). */
static void
prof_shared(struct root *r, const char *prof)
{
	char **names, p[PATH_MAX];
	int n, i;

	pd_loc_join(p, sizeof p, prof, "mindstudio_profiler_output");
	msprof_dir_exports(r, p);
	pd_loc_join(p, sizeof p, prof, "analyze");
	if (is_dir(p)) {
		char q[PATH_MAX];
		pd_loc_join(q, sizeof q, p, "communication.json");
		pd_loc_add_export(r, "communication", q);
		pd_loc_join(q, sizeof q, p, "communication_matrix.json");
		pd_loc_add_export(r, "communication_matrix", q);
		pd_loc_join(q, sizeof q, p, "communication_analyzer.db");
		pd_loc_add_export(r, "communication_analyzer_db", q);
	}
	if (!(names = pd_loc_list_dir(prof, &n)))
		return;
	for (i = 0; i < n; i++) {
		if (starts_with(names[i], "msprof_") && ends_with(names[i], ".db")) {
			pd_loc_join(p, sizeof p, prof, names[i]);
			pd_loc_add_export(r, "msprof_db", p);
		}
	}
	pd_loc_free_list(names, n);
}

static void
prof_device(struct root *r, const char *prof, int dev)
{
	char d[PATH_MAX], p[PATH_MAX], name[64];

	snprintf(name, sizeof name, "device_%d", dev);
	pd_loc_join(d, sizeof d, prof, name);
	snprintf(name, sizeof name, "info.json.%d", dev);
	pd_loc_join(p, sizeof p, d, name);
	if (is_file(p)) {
		pd_loc_add_export(r, "info_json", p);
		r->rank = pd_loc_rank_from_info_json(p);
	}
	pd_loc_join(p, sizeof p, d, "timeline");
	msprof_dir_exports(r, p);
	pd_loc_join(p, sizeof p, d, "summary");
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
		    (d = pd_loc_device_from_csv(p, "Device_id", NULL)) >= 0)
			return d;
	}
	return -1;
}

/* Returns 1 when path is a PROF root (and keeps its records). */
int
pd_loc_prof_root(struct loc *l, const char *path)
{
	char **names, p[PATH_MAX], q[PATH_MAX];
	int n, i, ndev = 0, legacy = 0, mso;
	int devs[256];
	struct root r;

	pd_loc_join(p, sizeof p, path, "mindstudio_profiler_output");
	mso = is_dir(p);
	if (!(names = pd_loc_list_dir(path, &n)))
		return 0;
	for (i = 0; i < n; i++) {
		int d = pd_loc_device_dir(names[i]);
		if (d < 0 || ndev == (int)(sizeof devs / sizeof *devs))
			continue;
		pd_loc_join(p, sizeof p, path, names[i]);
		if (!is_dir(p))
			continue;
		devs[ndev++] = d;
		pd_loc_join(q, sizeof q, p, "timeline");
		if (is_dir(q))
			legacy = 1;
		pd_loc_join(q, sizeof q, p, "summary");
		if (is_dir(q))
			legacy = 1;
	}
	pd_loc_free_list(names, n);
	if (!mso && !legacy)
		return 0;
	if (ndev <= 1) {
		pd_loc_root_init(&r, path, mso ? "msprof" : "msprof_legacy");
		prof_shared(&r, path);
		if (ndev == 1)
			prof_device(&r, path, devs[0]);
		else
			r.device = msprof_csv_device(r.exports);
		pd_loc_keep(l, &r);
		return 1;
	}
	for (i = 0; i < ndev; i++) {
		char name[64];
		snprintf(name, sizeof name, "device_%d", devs[i]);
		pd_loc_join(p, sizeof p, path, name);
		pd_loc_root_init(&r, p, mso ? "msprof" : "msprof_legacy");
		pd_loc_parent_of(path, r.run, sizeof r.run);
		prof_shared(&r, path);
		prof_device(&r, path, devs[i]);
		pd_loc_keep(l, &r);
	}
	return 1;
}
