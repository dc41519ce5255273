/* pd_locate: recognising trace files: Kineto and autograd JSON traces,
 * PyTorch memory timelines, Nsight Systems SQLite exports. */
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

/* An Nsight Systems export: one root per profiled process (pd_nsys.h),
 * named by the file, told apart by "process"; its rank is the process's
 * "MPI Rank N" thread name, else, when the file holds several processes,
 * its place in device order. Returns 1 when path is one (or an SQLite
 * file that cannot be read, which is said). */
int
pd_loc_nsys_root(struct loc *l, const char *path)
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
		pd_loc_root_init(&r, path, "nsys");
		snprintf(r.run, sizeof r.run, "%s", path);
		r.rank = p[i].rank >= 0 ? p[i].rank : n > 1 ? i : -1;
		r.device = p[i].device;
		r.world_size = n > 1 ? n : -1;
		r.process = p[i].pid;
		r.framework = p[i].torch ? "torch" : NULL;
		pd_loc_add_export(&r, "nsys_sqlite", path);
		pd_loc_keep(l, &r);
	}
	free(p);
	return 1;
}

/* Returns 1 when path is a trace root (and keeps it). */
int
pd_loc_trace_root(struct loc *l, const char *path)
{
	const char *name = base_of(path), *s;
	int json = ends_with(name, ".json") || ends_with(name, ".json.gz");
	int memtl = strstr(name, "memory_timeline") && (json ||
	    ends_with(name, ".gz"));
	char *buf;
	int n, i, found = 0;
	struct root r;

	if (is_sqlite_name(name))
		return pd_loc_nsys_root(l, path);
	if (!json && !memtl)
		return 0;
	buf = malloc(SNIFF_BYTES);
	n = pd_loc_sniff(path, buf, SNIFF_BYTES);
	if (n <= 0) {
		free(buf);
		return 0;
	}
	s = skip_ws(buf);
	if (*s == '[') {
		const char *t = skip_ws(s + 1);
		if (memtl && *t == '[') {
			pd_loc_root_init(&r, path, "kineto");
			snprintf(r.run, sizeof r.run, "%s", path);
			pd_loc_add_export(&r, "memory_timeline_raw", path);
			pd_loc_keep(l, &r);
			found = 1;
		} else if (json && *t == '{' && (strstr(s, "\"CPU functions\"") ||
		    strstr(s, "\"CUDA functions\""))) {
			pd_loc_root_init(&r, path, "autograd");
			snprintf(r.run, sizeof r.run, "%s", path);
			pd_loc_add_export(&r, "kineto_trace", path);
			pd_loc_keep(l, &r);
			found = 1;
		}
	} else if (json && *s == '{') {
		found = strstr(s, "\"traceEvents\"") != NULL;
		for (i = 0; !found && n == SNIFF_BYTES - 1 && kineto_keys[i]; i++)
			found = strstr(s, kineto_keys[i]) != NULL;
		if (found) {
			struct header h = { -1, -1, -1, 0 };
			struct pd_trace_cb cb = { &h, scan_event, header_key,
			    NULL, NULL };
			struct pd_trace_stats st;
			char dir[PATH_MAX];

			pd_trace_read(path, &cb, &st);
			pd_loc_root_init(&r, path, "kineto");
			r.rank = h.rank;
			r.world_size = h.world_size;
			r.device = h.device;
			if (h.world_size >= 0) {
				pd_loc_parent_of(path, dir, sizeof dir);
				snprintf(r.run, sizeof r.run, "%s#world_size=%lld",
				    dir, (long long)h.world_size);
			} else {
				snprintf(r.run, sizeof r.run, "%s", path);
			}
			pd_loc_add_export(&r, "kineto_trace", path);
			pd_loc_keep(l, &r);
		}
	}
	free(buf);
	return found;
}
