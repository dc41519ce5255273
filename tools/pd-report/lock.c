/* artifacts/perf.lock.json: exactly what a report was made from: every
 * input file named by a pd.root (path, size, sha256), the tools that wrote
 * the records, pd-report's version and the rules file's hash. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "pd_diag.h"
#include "pd_file.h"
#include "pd_rec.h"
#include "pd_sha256.h"
#include "pd_share.h"
#include "report.h"

/* Where pd-classify's default rules may be, under share/. */
static const char *rules_names[] = { "rules.yaml", "rules/default.yaml", NULL };

static json_t *
hash_file(const char *path, int quiet_missing)
{
	json_t *o = json_object();
	char hex[65];
	uint64_t bytes = 0;

	pd_set_str(o, "path", path);
	if (pd_sha256_file(path, hex, &bytes) != 0) {
		if (!quiet_missing) {
			pd_warn(path, 0, "cannot hash: %s", pd_file_strerror(errno));
			pd_diag_status(PD_EXIT_INPUT);
		}
		pd_set_null(o, "bytes");
		pd_set_null(o, "sha256");
		return o;
	}
	pd_set_int(o, "bytes", (int64_t)bytes);
	pd_set_str(o, "sha256", hex);
	return o;
}

static int
path_cmp(const void *a, const void *b)
{
	json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;

	return strcmp(pd_rec_str(x, "path"), pd_rec_str(y, "path"));
}

/* Every export of every pd.root (of the run's roots when run is not
 * NULL), one entry per path (the first root and kind naming it), sorted by
 * path. */
static json_t *
inputs(struct report_in *in, struct pd_run *run)
{
	json_t *by = json_object(), *r, *e, *a;
	const char *path;
	size_t i, j;

	json_array_foreach(in->roots, i, r) {
		json_t *id = json_object_get(r, "run");

		if (run && !json_equal(id ? id : json_null(), run->id))
			continue;
		json_array_foreach(json_object_get(r, "exports"), j, e) {
			json_t *f;

			path = pd_rec_str(e, "path");
			if (!path || json_object_get(by, path))
				continue;
			f = hash_file(pd_str_bytes(path), 0);
			pd_set_str(f, "kind", pd_rec_str(e, "kind"));
			pd_set_str(f, "root", pd_rec_str(r, "root"));
			json_object_set_new(by, path, f);
		}
	}
	a = pd_json_sorted(by, path_cmp);
	json_decref(by);
	return a;
}

static json_t *
rules(const struct report_opts *o)
{
	char buf[4096];
	const char *path = o->rules;
	int i;

	for (i = 0; !path && rules_names[i]; i++)
		path = pd_share_path(rules_names[i], buf, sizeof buf);
	if (!path)
		return json_null();
	return hash_file(path, 0);
}

json_t *
report_lock(struct report_in *in, const struct report_opts *o,
    struct pd_run *run)
{
	json_t *l = json_object(), *tool = json_object(), *tools = json_array();
	const char *type;
	json_t *v;

	pd_set_str(l, "schema", "perfdiag.lock");
	pd_set_int(l, "v", 1);
	pd_set_str(tool, "name", "pd-report");
	pd_set_str(tool, "version", PD_VERSION);
	json_object_set_new(l, "tool", tool);
	json_object_foreach(in->counts, type, v) {
		const char *t = report_producer(type);
		json_t *x;
		size_t i;
		int dup = 0;

		if (!t)
			continue;
		json_array_foreach(tools, i, x)
			dup |= strcmp(json_string_value(x), t) == 0;
		if (!dup)
			json_array_append_new(tools, json_string(t));
	}
	sort_strings(tools);
	json_object_set_new(l, "tools", tools);
	json_object_set_new(l, "rules", rules(o));
	json_object_set_new(l, "inputs", inputs(in, run));
	return l;
}
