/* pd_smi: which processes use the devices: nvidia-smi's process table,
 * --query-compute-apps, the GPU UUIDs, npu-smi's process table. */
#include "pd_smi_int.h"

#include "pd_smi.h"
#include "pd_num.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <strings.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pd_rec.h"

/* ---- which processes use the devices ---- */

/* A pid field: digits only, else -1. */
static long
pid_of(const char *s)
{
	char *end;
	long v;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	return errno || *end || v <= 0 || v > INT_MAX ? -1 : v;
}

static json_t *
proc_json(const char *dev_key, json_t *dev, long pid, const char *name,
    double mib)
{
	json_t *o = json_object();

	pd_set(o, dev_key, dev);
	pd_set_int(o, "pid", pid);
	pd_set_str(o, "process", name && *name && strcmp(name, "-") ? name :
	    NULL);
	if (isnan(mib) || mib < 0 || mib * MIB > 9e18)
		pd_set_null(o, "mem_used_bytes");
	else
		pd_set_int(o, "mem_used_bytes", (json_int_t)(mib * MIB));
	return o;
}

/* "pid, [process_name, ]gpu_uuid, used_memory": the name may hold commas,
 * so the pid is cut at the first comma and the last two fields at the
 * last two. */
json_t *
pd_smi_nv_apps(const char *text)
{
	json_t *out = json_array();
	struct lines L;
	size_t i;

	pd_smi_lines_split(&L, text);
	for (i = 0; i < L.n; i++) {
		char *s = L.v[i], *c1 = strchr(s, ','), *cl = strrchr(s, ','),
		    *cu, *name = NULL, *uuid;
		long pid;

		if (!c1 || c1 == cl)
			continue;
		*c1 = *cl = 0;
		cu = strrchr(c1 + 1, ',');
		if (cu) {
			*cu = 0;
			name = c1 + 1;
			pd_smi_split(name, 0, &name, 1);
			uuid = cu + 1;
		} else
			uuid = c1 + 1;
		pd_smi_split(s, 0, &s, 1);
		pd_smi_split(uuid, 0, &uuid, 1);
		if ((pid = pid_of(s)) < 0 || strncmp(uuid, "GPU-", 4) != 0)
			continue;
		json_array_append_new(out, proc_json("gpu_uuid", pd_str(uuid),
		    pid, name, nums(cl + 1)));
	}
	pd_smi_lines_free(&L);
	return out;
}

json_t *
pd_smi_nv_uuids(const char *text)
{
	json_t *out = json_object();
	struct lines L;
	size_t i;

	pd_smi_lines_split(&L, text);
	for (i = 0; i < L.n; i++) {
		char *f[3];
		long idx;

		if (pd_smi_split(L.v[i], ',', f, 3) != 2 ||
		    strncmp(f[1], "GPU-", 4) || !isdigit((unsigned char)f[0][0]) ||
		    (idx = atol(f[0])) > 65535)
			continue;
		json_object_set_new(out, f[1], json_integer(idx));
	}
	pd_smi_lines_free(&L);
	return out;
}

json_t *
pd_smi_npu_procs(const char *text)
{
	json_t *out = json_array();
	struct lines L;
	size_t i;
	int in_procs = 0;

	pd_smi_lines_split(&L, text);
	for (i = 0; i < L.n; i++) {
		char *c[6], *w[4];
		size_t n;
		long pid;
		char dev[48];

		if (L.v[i][0] != '|')
			continue;
		n = pd_smi_split(L.v[i] + 1, '|', c, 6);
		if (n >= 3 && (strstr(c[1], "Process id") ||
		    strstr(c[2], "Process id"))) {
			in_procs = 1;
			continue;
		}
		if (n >= 3 && strstr(c[0], "NPU") && strstr(c[0], "Name"))
			in_procs = 0;
		/* | NPU Chip | Process id | Process name | Process memory(MB) | */
		if (!in_procs || n < 4 || pd_smi_words(c[0], w, 4) != 2 ||
		    !isdigit((unsigned char)w[0][0]) ||
		    !isdigit((unsigned char)w[1][0]) || (pid = pid_of(c[1])) < 0)
			continue;
		snprintf(dev, sizeof dev, "%d:%d", atoi(w[0]), atoi(w[1]));
		json_array_append_new(out, proc_json("device", pd_str(dev), pid,
		    c[2], nums(c[3])));
	}
	pd_smi_lines_free(&L);
	return out;
}
