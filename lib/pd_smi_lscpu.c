/* pd_smi: lscpu. */
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

/* ---- lscpu ---- */

static double
size_bytes(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s)
		return NAN;
	while (*end == ' ')
		end++;
	switch (*end) {
	case 'K': return v * 1024;
	case 'M': return v * MIB;
	case 'G': return v * MIB * 1024;
	case 'B': case 0: return v;
	}
	return NAN;
}

static double
ghz_in(const char *s)
{
	const char *at = s ? strchr(s, '@') : NULL;
	char *end;
	double v;

	if (!at)
		return NAN;
	v = strtod(at + 1, &end);
	if (end == at + 1)
		return NAN;
	while (*end == ' ')
		end++;
	if (strncasecmp(end, "GHz", 3) == 0)
		return v * 1000;
	if (strncasecmp(end, "MHz", 3) == 0)
		return v;
	return NAN;
}

static void
set_num_or_null(json_t *o, const char *key, double v, int isint)
{
	int64_t iv;

	if (isnan(v) || (isint && pd_num_round_i64(v, &iv) != PD_NUM_OK))
		pd_set_null(o, key);
	else if (isint)
		pd_set_int(o, key, (json_int_t)iv);
	else
		pd_set_real(o, key, v, 4);
}

json_t *
pd_smi_lscpu(const char *text)
{
	const char *keys[] = { "Architecture", "CPU(s)", "Thread(s) per core",
		"Core(s) per socket", "Socket(s)", "Model name",
		"BIOS Model name", "CPU max MHz", "L3 cache", "NUMA node(s)",
		"Flags" };
	char *val[11] = { 0 };
	struct lines L;
	json_t *o = json_object(), *fl;
	size_t i, j;
	double nominal;

	pd_smi_lines_split(&L, text);
	for (i = 0; i < L.n; i++) {
		char *c = strchr(L.v[i], ':'), *k = L.v[i], *e;

		if (!c)
			continue;
		*c = 0;
		for (e = c; e > k && isspace((unsigned char)e[-1]);)
			*--e = 0;
		for (c++; isspace((unsigned char)*c); c++)
			;
		for (j = 0; j < 11; j++)
			if (strcmp(k, keys[j]) == 0 && !val[j])
				val[j] = c;
	}
	pd_set_str(o, "architecture", val[0]);
	set_num_or_null(o, "cpus", val[1] ? nums(val[1]) : NAN, 1);
	set_num_or_null(o, "threads_per_core", val[2] ? nums(val[2]) : NAN, 1);
	set_num_or_null(o, "cores_per_socket", val[3] ? nums(val[3]) : NAN, 1);
	set_num_or_null(o, "sockets", val[4] ? nums(val[4]) : NAN, 1);
	pd_set_str(o, "model_name", val[5] && strcmp(val[5], "-") ? val[5] :
	    NULL);
	pd_set_str(o, "bios_model_name", val[6]);
	set_num_or_null(o, "max_mhz", val[7] ? nums(val[7]) : NAN, 0);
	nominal = ghz_in(val[5]);
	if (isnan(nominal))
		nominal = ghz_in(val[6]);
	set_num_or_null(o, "nominal_mhz", nominal, 0);
	set_num_or_null(o, "l3_bytes", val[8] ? size_bytes(val[8]) : NAN, 1);
	set_num_or_null(o, "numa_nodes", val[9] ? nums(val[9]) : NAN, 1);
	fl = json_array();
	if (val[10]) {
		char *save = NULL, *t;

		for (t = strtok_r(val[10], " ", &save); t;
		    t = strtok_r(NULL, " ", &save))
			json_array_append_new(fl, pd_str(t));
	}
	pd_set(o, "flags", fl);
	pd_smi_lines_free(&L);
	return o;
}
