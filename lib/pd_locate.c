/* Minimal first version: Kineto/autograd trace files and torch_npu
 * *_ascend_pt directories. Extended by the pd-locate work. */
#include "pd_locate.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pd_diag.h"
#include "pd_rec.h"
#include "pd_trace.h"

static json_t *
trace_root(const char *abs, off_t size)
{
	json_t *r = pd_rec_new("pd.root", 1, NULL);
	json_t *ex = json_array(), *e = json_object();

	pd_set_str(r, "root", abs);
	pd_set_null(r, "rank");
	pd_set_null(r, "device");
	pd_set_str(r, "format", "kineto");
	pd_set_str(e, "kind", "kineto_trace");
	pd_set_str(e, "path", abs);
	pd_set_int(e, "bytes", size);
	json_array_append_new(ex, e);
	pd_set(r, "exports", ex);
	return r;
}

int
pd_locate(const char *path, const struct pd_locate_opts *o, pd_root_cb cb,
    void *ctx)
{
	struct stat st;
	char abs[PATH_MAX];
	json_t *r;

	(void)o;
	if (stat(path, &st) < 0 || !realpath(path, abs)) {
		pd_error(path, 0, "%s", strerror(errno));
		return PD_EXIT_SYSTEM;
	}
	if (S_ISREG(st.st_mode) && pd_trace_sniff(abs)) {
		r = trace_root(abs, st.st_size);
		cb(r, ctx);
		json_decref(r);
	}
	return 0;
}

const char *
pd_root_export(json_t *root, const char *kind, size_t idx)
{
	json_t *ex = json_object_get(root, "exports"), *e;
	size_t i, n = 0;

	json_array_foreach(ex, i, e) {
		const char *k = pd_rec_str(e, "kind");
		if (k && strcmp(k, kind) == 0 && n++ == idx)
			return pd_rec_str(e, "path");
	}
	return NULL;
}
