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

#define MIB 1048576.0

/* Device values in the documented key order; ABSENT = the format has no
 * such value (key left out), NAN = printed as not available (null). */
enum { K_INDEX, K_CHIP, K_PHY, K_PID, K_UTIL, K_MEMUTIL, K_VECUTIL,
	K_MEMUSED, K_MEMTOTAL, K_MEMUSEDRATIO, K_DDRUSED, K_DDRTOTAL, K_POWER,
	K_POWERLIM, K_TEMP, K_SMCLK, K_SMCLKMAX, K_MEMCLK, K_AICNT, K_AIFREQ,
	K_AICUR, K_N };
static const char *const knames[K_N] = { "index", "chip", "phy_id", "pid",
	"util_ratio", "mem_util_ratio", "vector_util_ratio", "mem_used_bytes",
	"mem_total_bytes", "mem_used_ratio", "ddr_used_bytes",
	"ddr_total_bytes", "power_w", "power_limit_w", "temp_c",
	"sm_clock_mhz", "sm_clock_max_mhz", "mem_clock_mhz", "aicore_count",
	"aicore_freq_mhz", "aicore_cur_freq_mhz" };
/* integer-valued keys */
static const unsigned long kint = 1ul << K_INDEX | 1ul << K_CHIP |
	1ul << K_PHY | 1ul << K_PID | 1ul << K_MEMUSED | 1ul << K_MEMTOTAL |
	1ul << K_DDRUSED | 1ul << K_DDRTOTAL | 1ul << K_AICNT;

#define ABSENT (-INFINITY)

struct dev {
	const char *source, *vendor;
	char name[160], health[32], bus_id[32], process[96];
	int has_name, has_health, has_bus, has_process;
	double k[K_N];
};

static void
dev_init(struct dev *d, const char *source, const char *vendor)
{
	int i;

	memset(d, 0, sizeof *d);
	d->source = source;
	d->vendor = vendor;
	for (i = 0; i < K_N; i++)
		d->k[i] = ABSENT;
}

static void
set_str(char *dst, size_t size, int *has, const char *s, size_t len)
{
	while (len > 0 && isspace((unsigned char)*s))
		s++, len--;
	while (len > 0 && isspace((unsigned char)s[len - 1]))
		len--;
	if (len >= size)
		len = size - 1;
	memcpy(dst, s, len);
	dst[len] = 0;
	*has = 1;
}

static void
put_str(json_t *o, const char *key, int has, const char *s)
{
	if (!has)
		return;
	if (!*s || strcmp(s, "-") == 0 || strcmp(s, "N/A") == 0 ||
	    strcmp(s, "[N/A]") == 0)
		pd_set_null(o, key);
	else
		pd_set_str(o, key, s);
}

static json_t *
dev_json(const struct dev *d)
{
	json_t *o = json_object();
	int i;

	pd_set_str(o, "source", d->source);
	pd_set_str(o, "vendor", d->vendor);
	for (i = 0; i < K_N; i++) {
		double v = d->k[i];
		int64_t iv = 0;

		if (i == K_UTIL) {
			put_str(o, "name", d->has_name, d->name);
			put_str(o, "health", d->has_health, d->health);
			put_str(o, "bus_id", d->has_bus, d->bus_id);
			put_str(o, "process", d->has_process, d->process);
		}
		if (v == ABSENT)
			continue;
		if (isnan(v) || ((kint & (1ul << i)) &&
		    pd_num_round_i64(v, &iv) != PD_NUM_OK))
			pd_set_null(o, knames[i]);
		else if (kint & (1ul << i))
			pd_set_int(o, knames[i], (json_int_t)iv);
		else
			pd_set_real(o, knames[i], v, 4);
	}
	return o;
}

/* A number at the start of s (after blanks), allowing a unit suffix
 * ("81920 MiB", "100 %", "358W"); NaN for N/A, [N/A], NA, -, blank or
 * anything else. */
static double
num(const char *s, size_t len)
{
	char buf[64], *end;
	double v;

	while (len > 0 && isspace((unsigned char)*s))
		s++, len--;
	while (len > 0 && isspace((unsigned char)s[len - 1]))
		len--;
	if (len == 0 || len >= sizeof buf)
		return NAN;
	memcpy(buf, s, len);
	buf[len] = 0;
	if (!isdigit((unsigned char)buf[0]) &&
	    !(buf[0] == '-' && isdigit((unsigned char)buf[1])) &&
	    !(buf[0] == '.' && isdigit((unsigned char)buf[1])))
		return NAN;
	if (strncmp(buf, "0x", 2) == 0)
		return NAN;
	errno = 0;
	v = strtod(buf, &end);
	if (errno || end == buf)
		return NAN;
	while (*end == ' ')
		end++;
	for (; *end; end++)
		if (!isalpha((unsigned char)*end) && *end != '%' && *end != '/')
			return NAN;
	return v;
}

static double
nums(const char *s)
{
	return num(s, strlen(s));
}

/* Lines of a text, in a modifiable copy. */
struct lines {
	char *buf;
	char **v;
	size_t n;
};

static void
lines_split(struct lines *L, const char *text)
{
	size_t cap = 64;
	char *p;

	L->buf = strdup(text ? text : "");
	L->v = malloc(cap * sizeof *L->v);
	L->n = 0;
	for (p = L->buf; p && *p;) {
		char *nl = strchr(p, '\n');
		size_t len;

		if (nl)
			*nl = 0;
		len = strlen(p);
		if (len > 0 && p[len - 1] == '\r')
			p[len - 1] = 0;
		if (L->n == cap)
			L->v = realloc(L->v, (cap *= 2) * sizeof *L->v);
		L->v[L->n++] = p;
		p = nl ? nl + 1 : NULL;
	}
}

static void
lines_free(struct lines *L)
{
	free(L->buf);
	free(L->v);
}

/* Split s at sep into at most max trimmed fields (pointers into s). */
static size_t
split(char *s, int sep, char **f, size_t max)
{
	size_t n = 0;
	char *p = s;

	while (n < max) {
		char *q = strchr(p, sep), *e;

		if (q)
			*q = 0;
		while (isspace((unsigned char)*p))
			p++;
		e = p + strlen(p);
		while (e > p && isspace((unsigned char)e[-1]))
			*--e = 0;
		f[n++] = p;
		if (!q)
			break;
		p = q + 1;
	}
	return n;
}

static size_t
words(char *s, char **f, size_t max)
{
	size_t n = 0;
	char *save = NULL, *t;

	for (t = strtok_r(s, " \t", &save); t && n < max;
	    t = strtok_r(NULL, " \t", &save))
		f[n++] = t;
	return n;
}

/* ---- nvidia-smi --query-gpu CSV ---- */

static int
csv_key(const char *f)
{
	static const struct { const char *name; int k; } m[] = {
		{ "index", K_INDEX }, { "utilization.gpu", K_UTIL },
		{ "utilization.memory", K_MEMUTIL },
		{ "memory.used", K_MEMUSED }, { "memory.total", K_MEMTOTAL },
		{ "power.draw", K_POWER }, { "power.limit", K_POWERLIM },
		{ "enforced.power.limit", K_POWERLIM },
		{ "temperature.gpu", K_TEMP }, { "clocks.gr", K_SMCLK },
		{ "clocks.sm", K_SMCLK }, { "clocks.current.sm", K_SMCLK },
		{ "clocks.current.graphics", K_SMCLK },
		{ "clocks.max.gr", K_SMCLKMAX }, { "clocks.max.sm", K_SMCLKMAX },
		{ "clocks.max.graphics", K_SMCLKMAX },
		{ "clocks.mem", K_MEMCLK }, { "clocks.current.memory", K_MEMCLK },
	};
	size_t i;

	for (i = 0; i < sizeof m / sizeof m[0]; i++)
		if (strcmp(f, m[i].name) == 0)
			return m[i].k;
	return -1;
}

#define MAXF 64

static void
csv_row(json_t *out, char **names, size_t nf, char **v)
{
	struct dev d;
	size_t i;

	dev_init(&d, "nvidia-smi-csv", "nvidia");
	for (i = 0; i < nf; i++) {
		int k = csv_key(names[i]);
		double x;

		if (strcmp(names[i], "name") == 0) {
			set_str(d.name, sizeof d.name, &d.has_name, v[i],
			    strlen(v[i]));
			continue;
		}
		if (strcmp(names[i], "pci.bus_id") == 0) {
			set_str(d.bus_id, sizeof d.bus_id, &d.has_bus, v[i],
			    strlen(v[i]));
			continue;
		}
		if (k < 0)
			continue;
		x = nums(v[i]);
		if (k == K_UTIL || k == K_MEMUTIL)
			x /= 100;
		else if (k == K_MEMUSED || k == K_MEMTOTAL)
			x *= MIB;
		d.k[k] = x;
	}
	json_array_append_new(out, dev_json(&d));
}

json_t *
pd_smi_nv_csv(const char *text, const char *fields)
{
	json_t *out = json_array();
	struct lines L;
	char *fbuf = NULL, *names[MAXF], *v[MAXF];
	size_t nf = 0, i = 0;

	lines_split(&L, text);
	if (fields) {
		fbuf = strdup(fields);
		nf = split(fbuf, ',', names, MAXF);
	} else {
		for (; i < L.n && !strchr(L.v[i], ','); i++)
			;
		if (i == L.n)
			goto done;
		nf = split(L.v[i++], ',', names, MAXF);
		for (size_t j = 0; j < nf; j++) {
			char *b = strchr(names[j], '[');
			if (b) {
				while (b > names[j] && b[-1] == ' ')
					b--;
				*b = 0;
			}
		}
	}
	for (; i < L.n; i++) {
		if (!strchr(L.v[i], ','))
			continue;
		if (split(L.v[i], ',', v, MAXF) == nf)
			csv_row(out, names, nf, v);
	}
done:
	free(fbuf);
	lines_free(&L);
	return out;
}

/* ---- nvidia-smi default table ---- */

static int
is_bus_id(const char *s)
{
	/* 00000000:10:1C.0 or 0000:C1:00.0 */
	const char *c = strchr(s, ':');

	return c && c > s && strchr(c + 1, ':') && strchr(c, '.') &&
	    isxdigit((unsigned char)s[0]);
}

/* "a / b" pairs in s, in order: up to max of them. */
static size_t
fractions(const char *s, double *a, double *b, size_t max)
{
	size_t n = 0;
	const char *p = s;

	while (n < max && (p = strchr(p, '/')) != NULL) {
		const char *l = p, *r = p + 1;
		char *end;

		while (l > s && l[-1] == ' ')
			l--;
		while (l > s && !isspace((unsigned char)l[-1]))
			l--;
		a[n] = strtod(l, &end);
		if (end == l)
			a[n] = NAN;
		while (*r == ' ')
			r++;
		b[n] = strtod(r, &end);
		if (end == r)
			b[n] = NAN;
		n++;
		p++;
	}
	return n;
}

json_t *
pd_smi_nv_table(const char *text)
{
	json_t *out = json_array();
	struct lines L;
	size_t i;

	lines_split(&L, text);
	for (i = 0; i + 1 < L.n; i++) {
		char *c[8], *c2[8], *w[32];
		size_t n, n2, nw;
		struct dev d;
		double a[2], b[2];

		if (L.v[i][0] != '|')
			continue;
		n = split(L.v[i] + 1, '|', c, 8);
		if (n < 3 || !is_bus_id(c[1]))
			continue;
		nw = words(c[0], w, 32);
		if (nw < 2 || !isdigit((unsigned char)w[0][0]))
			continue;
		dev_init(&d, "nvidia-smi-table", "nvidia");
		d.k[K_INDEX] = atof(w[0]);
		/* name: words between the index and Persistence-M */
		{
			char name[160] = "";
			size_t j, end = nw > 2 ? nw - 1 : nw;

			for (j = 1; j < end; j++) {
				if (j > 1)
					strcat(name, " ");
				if (strlen(name) + strlen(w[j]) + 2 > sizeof name)
					break;
				strcat(name, w[j]);
			}
			set_str(d.name, sizeof d.name, &d.has_name, name,
			    strlen(name));
		}
		{
			char *bw[4];

			if (words(c[1], bw, 4) >= 1)
				set_str(d.bus_id, sizeof d.bus_id, &d.has_bus,
				    bw[0], strlen(bw[0]));
		}
		if (L.v[i + 1][0] == '|') {
			n2 = split(L.v[i + 1] + 1, '|', c2, 8);
			if (n2 >= 3) {
				char *pw[16];
				size_t np, j;

				/* "N/A 64C P0 358W / 400W": the last
				 * slash is the power one */
				np = fractions(c2[0], a, b, 2);
				if (np >= 1) {
					d.k[K_POWER] = a[np - 1];
					d.k[K_POWERLIM] = b[np - 1];
				}
				if (fractions(c2[1], a, b, 1) == 1) {
					d.k[K_MEMUSED] = a[0] * MIB;
					d.k[K_MEMTOTAL] = b[0] * MIB;
				}
				np = words(c2[0], pw, 16);
				d.k[K_TEMP] = NAN;
				for (j = 0; j < np; j++) {
					size_t l = strlen(pw[j]);
					if (l > 1 && pw[j][l - 1] == 'C' &&
					    isdigit((unsigned char)pw[j][0]))
						d.k[K_TEMP] = atof(pw[j]);
				}
				np = words(c2[2], pw, 16);
				d.k[K_UTIL] = np ? nums(pw[0]) / 100 : NAN;
			}
			i++;
		}
		json_array_append_new(out, dev_json(&d));
	}
	lines_free(&L);
	return out;
}

/* ---- dmon / pmon ---- */

json_t *
pd_smi_nv_mon(const char *text)
{
	json_t *out = json_array();
	struct lines L;
	char *names[MAXF], *units[MAXF], *v[MAXF], *hbuf = NULL, *ubuf = NULL;
	size_t nn = 0, i;
	int pmon = 0;

	lines_split(&L, text);
	for (i = 0; i < L.n; i++) {
		char *s = L.v[i];
		size_t nv, j;
		struct dev d;

		if (s[0] == '#') {
			s++;
			if (strstr(s, "gpu") && (strstr(s, "sm") ||
			    strstr(s, "pwr"))) {
				free(hbuf);
				hbuf = strdup(s);
				nn = words(hbuf, names, MAXF);
				pmon = 0;
				for (j = 0; j < nn; j++)
					pmon |= strcmp(names[j], "pid") == 0;
			} else if (nn && strstr(s, "Idx")) {
				free(ubuf);
				ubuf = strdup(s);
				words(ubuf, units, MAXF);
			}
			continue;
		}
		if (!nn)
			continue;
		nv = words(s, v, MAXF);
		if (nv < nn - (pmon ? 1 : 0) || !isdigit((unsigned char)v[0][0])) {
			if (nv && s[0] != ' ')
				nn = 0;	/* left the block */
			continue;
		}
		dev_init(&d, pmon ? "nvidia-smi-pmon" : "nvidia-smi-dmon",
		    "nvidia");
		for (j = 0; j < nn && j < nv; j++) {
			const char *f = names[j];
			double x = nums(v[j]);

			if (strcmp(f, "gpu") == 0)
				d.k[K_INDEX] = x;
			else if (strcmp(f, "pid") == 0)
				d.k[K_PID] = x;
			else if (strcmp(f, "sm") == 0)
				d.k[K_UTIL] = x / 100;
			else if (strcmp(f, "mem") == 0)
				d.k[K_MEMUTIL] = x / 100;
			else if (strcmp(f, "pwr") == 0)
				d.k[K_POWER] = x;
			else if (strcmp(f, "gtemp") == 0)
				d.k[K_TEMP] = x;
			else if (strcmp(f, "fb") == 0)
				d.k[K_MEMUSED] = x * MIB;
			else if (strcmp(f, "pclk") == 0)
				d.k[K_SMCLK] = x;
			else if (strcmp(f, "mclk") == 0)
				d.k[K_MEMCLK] = x;
			else if (strcmp(f, "command") == 0)
				set_str(d.process, sizeof d.process,
				    &d.has_process, v[j], strlen(v[j]));
		}
		json_array_append_new(out, dev_json(&d));
	}
	free(hbuf);
	free(ubuf);
	lines_free(&L);
	return out;
}

/* ---- npu-smi info table ---- */

json_t *
pd_smi_npu_table(const char *text)
{
	json_t *out = json_array();
	struct lines L;
	size_t i;
	int hbm = 0, phy = 0, in_dev = 0, have1 = 0;
	struct dev d;

	lines_split(&L, text);
	dev_init(&d, "npu-smi-table", "ascend");
	for (i = 0; i < L.n; i++) {
		char *c[8], *w[16];
		size_t n, nw;
		double a[3], b[3];

		if (L.v[i][0] != '|')
			continue;
		n = split(L.v[i] + 1, '|', c, 8);
		if (n < 3)
			continue;
		if (strstr(c[0], "NPU") && strstr(c[0], "Name")) {
			in_dev = 1;
			continue;
		}
		if (strncmp(c[0], "Chip", 4) == 0) {
			hbm = strstr(c[2], "HBM") != NULL;
			phy = strstr(c[0], "Phy-ID") || strstr(c[0], "Device");
			continue;
		}
		if (strstr(c[2], "Process") || strstr(c[1], "Process")) {
			in_dev = 0;
			continue;
		}
		if (!in_dev)
			continue;
		nw = words(c[0], w, 16);
		if (nw == 0 || !isdigit((unsigned char)w[0][0]))
			continue;
		if (!is_bus_id(c[1])) {
			/* row 1: NPU Name | Health | Power Temp Hugepages */
			dev_init(&d, "npu-smi-table", "ascend");
			d.k[K_INDEX] = atof(w[0]);
			if (nw > 1)
				set_str(d.name, sizeof d.name, &d.has_name,
				    w[1], strlen(w[1]));
			set_str(d.health, sizeof d.health, &d.has_health,
			    c[1], strlen(c[1]));
			nw = words(c[2], w, 16);
			d.k[K_POWER] = nw > 0 ? nums(w[0]) : NAN;
			d.k[K_TEMP] = nw > 1 ? nums(w[1]) : NAN;
			have1 = 1;
			continue;
		}
		if (!have1)
			continue;
		/* row 2: Chip [Phy-ID] | Bus-Id | AICore Memory [HBM] */
		d.k[K_CHIP] = atof(w[0]);
		if (phy)
			d.k[K_PHY] = nw > 1 ? nums(w[1]) : NAN;
		set_str(d.bus_id, sizeof d.bus_id, &d.has_bus, c[1],
		    strlen(c[1]));
		{
			char *sp = c[2];
			size_t nfr;

			while (isspace((unsigned char)*sp))
				sp++;
			d.k[K_UTIL] = num(sp, strcspn(sp, " ")) / 100;
			nfr = fractions(sp, a, b, 3);
			if (hbm && nfr >= 2) {
				d.k[K_DDRUSED] = a[0] * MIB;
				d.k[K_DDRTOTAL] = b[0] * MIB;
				d.k[K_MEMUSED] = a[1] * MIB;
				d.k[K_MEMTOTAL] = b[1] * MIB;
			} else if (nfr >= 1) {
				d.k[K_MEMUSED] = a[0] * MIB;
				d.k[K_MEMTOTAL] = b[0] * MIB;
			}
		}
		json_array_append_new(out, dev_json(&d));
		have1 = 0;
	}
	lines_free(&L);
	return out;
}

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

	lines_split(&L, text);
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
			split(name, 0, &name, 1);
			uuid = cu + 1;
		} else
			uuid = c1 + 1;
		split(s, 0, &s, 1);
		split(uuid, 0, &uuid, 1);
		if ((pid = pid_of(s)) < 0 || strncmp(uuid, "GPU-", 4) != 0)
			continue;
		json_array_append_new(out, proc_json("gpu_uuid", pd_str(uuid),
		    pid, name, nums(cl + 1)));
	}
	lines_free(&L);
	return out;
}

json_t *
pd_smi_nv_uuids(const char *text)
{
	json_t *out = json_object();
	struct lines L;
	size_t i;

	lines_split(&L, text);
	for (i = 0; i < L.n; i++) {
		char *f[3];
		long idx;

		if (split(L.v[i], ',', f, 3) != 2 || strncmp(f[1], "GPU-", 4) ||
		    !isdigit((unsigned char)f[0][0]) || (idx = atol(f[0])) > 65535)
			continue;
		json_object_set_new(out, f[1], json_integer(idx));
	}
	lines_free(&L);
	return out;
}

json_t *
pd_smi_npu_procs(const char *text)
{
	json_t *out = json_array();
	struct lines L;
	size_t i;
	int in_procs = 0;

	lines_split(&L, text);
	for (i = 0; i < L.n; i++) {
		char *c[6], *w[4];
		size_t n;
		long pid;
		char dev[48];

		if (L.v[i][0] != '|')
			continue;
		n = split(L.v[i] + 1, '|', c, 6);
		if (n >= 3 && (strstr(c[1], "Process id") ||
		    strstr(c[2], "Process id"))) {
			in_procs = 1;
			continue;
		}
		if (n >= 3 && strstr(c[0], "NPU") && strstr(c[0], "Name"))
			in_procs = 0;
		/* | NPU Chip | Process id | Process name | Process memory(MB) | */
		if (!in_procs || n < 4 || words(c[0], w, 4) != 2 ||
		    !isdigit((unsigned char)w[0][0]) ||
		    !isdigit((unsigned char)w[1][0]) || (pid = pid_of(c[1])) < 0)
			continue;
		snprintf(dev, sizeof dev, "%d:%d", atoi(w[0]), atoi(w[1]));
		json_array_append_new(out, proc_json("device", pd_str(dev), pid,
		    c[2], nums(c[3])));
	}
	lines_free(&L);
	return out;
}

/* ---- npu-smi info -t usages / -t common ---- */

static int
kv_key(const char *k, int *hbm_bw)
{
	static const struct { const char *name; int k; } m[] = {
		{ "Aicore Usage Rate(%)", K_UTIL },
		{ "Aivector Usage Rate(%)", K_VECUTIL },
		{ "Vectorcore Usage Rate(%)", K_VECUTIL },
		{ "HBM Usage Rate(%)", K_MEMUSEDRATIO },
		{ "HBM Capacity(MB)", K_MEMTOTAL },
		{ "DDR Capacity(MB)", K_DDRTOTAL },
		{ "Aicore Count", K_AICNT },
		{ "Aicore Freq(MHZ)", K_AIFREQ },
		{ "Aicore curFreq(MHZ)", K_AICUR },
		{ "NPU Real-time Power(W)", K_POWER },
		{ "Temperature(C)", K_TEMP },
	};
	size_t i;

	*hbm_bw = 0;
	if (strcmp(k, "HBM Bandwidth Usage Rate(%)") == 0) {
		*hbm_bw = 2;
		return K_MEMUTIL;
	}
	if (strcmp(k, "DDR Bandwidth Usage Rate(%)") == 0 ||
	    strcmp(k, "Memory Bandwidth Usage Rate(%)") == 0) {
		*hbm_bw = 1;
		return K_MEMUTIL;
	}
	for (i = 0; i < sizeof m / sizeof m[0]; i++)
		if (strcmp(k, m[i].name) == 0)
			return m[i].k;
	return -1;
}

struct kvstate {
	json_t *out;
	struct dev d;
	int npu, values, mcu, bwrank, chipset;
	double ddr_rate, mem_rate;
};

static void
kv_flush(struct kvstate *s)
{
	if (s->values && !s->mcu) {
		if (s->d.k[K_MEMTOTAL] == ABSENT &&
		    s->d.k[K_DDRTOTAL] != ABSENT) {
			/* no HBM: DDR is the device memory */
			s->d.k[K_MEMTOTAL] = s->d.k[K_DDRTOTAL];
			s->d.k[K_DDRTOTAL] = ABSENT;
			if (!isnan(s->ddr_rate))
				s->d.k[K_MEMUSEDRATIO] = s->ddr_rate;
		}
		if (s->d.k[K_MEMUSEDRATIO] == ABSENT && !isnan(s->mem_rate))
			s->d.k[K_MEMUSEDRATIO] = s->mem_rate;
		json_array_append_new(s->out, dev_json(&s->d));
	}
	dev_init(&s->d, "npu-smi-usages", "ascend");
	s->d.k[K_INDEX] = s->npu;
	s->values = s->mcu = s->bwrank = s->chipset = 0;
	s->ddr_rate = s->mem_rate = NAN;
}

json_t *
pd_smi_npu_kv(const char *text)
{
	struct kvstate s;
	struct lines L;
	size_t i;
	int common = strstr(text, "Aicore Freq") != NULL ||
	    strstr(text, "Aicore Count") != NULL;

	memset(&s, 0, sizeof s);
	s.out = json_array();
	s.npu = -1;
	lines_split(&L, text);
	kv_flush(&s);
	for (i = 0; i < L.n; i++) {
		char *colon = strchr(L.v[i], ':'), *f[2];
		int k, bw;
		double x;

		if (!colon || L.v[i][strspn(L.v[i], " \t")] == '#')
			continue;
		if (split(L.v[i], ':', f, 2) != 2)
			continue;
		s.d.source = common ? "npu-smi-common" : "npu-smi-usages";
		if (strcmp(f[0], "NPU ID") == 0) {
			kv_flush(&s);
			s.npu = atoi(f[1]);
			s.d.k[K_INDEX] = s.npu;
			continue;
		}
		if (strcmp(f[0], "Chip ID") == 0) {
			if (s.values && !s.chipset) {
				s.d.k[K_CHIP] = atof(f[1]);
				kv_flush(&s);
			} else {
				kv_flush(&s);
				s.d.k[K_CHIP] = atof(f[1]);
				s.chipset = 1;
			}
			continue;
		}
		if (strcmp(f[0], "Chip Name") == 0) {
			kv_flush(&s);
			s.mcu = strcasecmp(f[1], "mcu") == 0;
			continue;
		}
		x = nums(f[1]);
		if (strcmp(f[0], "DDR Usage Rate(%)") == 0) {
			s.ddr_rate = x / 100;
			s.values = 1;
			continue;
		}
		if (strcmp(f[0], "Memory Usage Rate(%)") == 0) {
			s.mem_rate = x / 100;
			s.values = 1;
			continue;
		}
		if ((k = kv_key(f[0], &bw)) < 0)
			continue;
		if (k == K_MEMUTIL) {
			if (bw < s.bwrank)
				continue;
			s.bwrank = bw;
		}
		if (k == K_UTIL || k == K_VECUTIL || k == K_MEMUSEDRATIO ||
		    k == K_MEMUTIL)
			x /= 100;
		else if (k == K_MEMTOTAL || k == K_DDRTOTAL)
			x *= MIB;
		s.d.k[k] = x;
		s.values = 1;
	}
	kv_flush(&s);
	lines_free(&L);
	return s.out;
}

/* ---- detection ---- */

json_t *
pd_smi_parse(const char *text)
{
	const char *q = strstr(text, "--query-gpu=");
	json_t *r;

	if (q) {
		size_t flen = strcspn(q + 12, " \t\n`'\"");
		char *fields = strndup(q + 12, flen);
		const char *body = strchr(q, '\n');
		const char *next = body ? strstr(body, "nvidia-smi") : NULL;
		char *seg = body ? strndup(body, next ? (size_t)(next - body) :
		    strlen(body)) : strdup("");

		r = pd_smi_nv_csv(seg, fields);
		free(fields);
		free(seg);
		if (json_array_size(r))
			return r;
		json_decref(r);
	}
	if (strstr(text, "utilization.gpu") || strstr(text, "index, name")) {
		r = pd_smi_nv_csv(text, NULL);
		if (json_array_size(r))
			return r;
		json_decref(r);
	}
	if (strstr(text, "NVIDIA-SMI") || strstr(text, "Persistence-M")) {
		r = pd_smi_nv_table(text);
		if (json_array_size(r))
			return r;
		json_decref(r);
	}
	if (strstr(text, "npu-smi") || strstr(text, "Hugepages") ||
	    strstr(text, "AICore(%)")) {
		r = pd_smi_npu_table(text);
		if (json_array_size(r))
			return r;
		json_decref(r);
	}
	if (strstr(text, "# gpu") || strstr(text, "#gpu")) {
		r = pd_smi_nv_mon(text);
		if (json_array_size(r))
			return r;
		json_decref(r);
	}
	return pd_smi_npu_kv(text);
}

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

	lines_split(&L, text);
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
	lines_free(&L);
	return o;
}

/* ---- I/O helpers ---- */

char *
pd_smi_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0, r;

	if (!f)
		return NULL;
	do {
		if (cap - n < 4096)
			buf = realloc(buf, cap = cap ? cap * 2 : 8192);
		r = fread(buf + n, 1, cap - n - 1, f);
		n += r;
	} while (r > 0);
	if (ferror(f)) {
		int e = errno;
		fclose(f);
		free(buf);
		errno = e ? e : EIO;
		return NULL;
	}
	fclose(f);
	buf[n] = 0;
	if (len)
		*len = n;
	return buf;
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

char *
pd_smi_run(char *const argv[], double timeout_s)
{
	int fd[2], st;
	pid_t pid;
	char *buf = NULL;
	size_t n = 0, cap = 0;
	double t0 = now_s();

	if (pipe(fd) != 0)
		return NULL;
	pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return NULL;
	}
	if (pid == 0) {
		int null = open("/dev/null", 0);

		dup2(fd[1], 1);
		if (null >= 0)
			dup2(null, 2);
		close(fd[0]);
		close(fd[1]);
		setenv("LC_ALL", "C", 1);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(fd[1]);
	for (;;) {
		fd_set rs;
		struct timeval tv;
		double left = timeout_s - (now_s() - t0);
		ssize_t r;

		if (left <= 0) {
			kill(pid, SIGKILL);
			break;
		}
		FD_ZERO(&rs);
		FD_SET(fd[0], &rs);
		tv.tv_sec = (long)left;
		tv.tv_usec = (long)((left - (long)left) * 1e6);
		if (select(fd[0] + 1, &rs, NULL, NULL, &tv) < 0) {
			if (errno == EINTR)
				continue;
			kill(pid, SIGKILL);
			break;
		}
		if (!FD_ISSET(fd[0], &rs))
			continue;
		if (cap - n < 4096)
			buf = realloc(buf, cap = cap ? cap * 2 : 8192);
		r = read(fd[0], buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!buf || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		free(buf);
		return NULL;
	}
	buf[n] = 0;
	return buf;
}

json_t *
pd_smi_sample(json_t *dev, const char *run, double t_s, double interval_s)
{
	json_t *r = pd_rec_new("pd.sample", 1, NULL), *v;
	const char *vendor = pd_rec_str(dev, "vendor"), *k, *src;
	char id[64];
	int ascend = vendor && strcmp(vendor, "ascend") == 0;
	json_t *chip = json_object_get(dev, "chip");

	pd_set_null(r, "root");
	pd_set_null(r, "rank");
	pd_set_str(r, "run", run);
	pd_set_real(r, "t_s", t_s, 3);
	pd_set_real(r, "interval_s", interval_s, 3);
	pd_set_str(r, "resource", ascend ? "npu" : "gpu");
	if (json_is_integer(chip))
		snprintf(id, sizeof id, "%" JSON_INTEGER_FORMAT ":%"
		    JSON_INTEGER_FORMAT, (json_int_t)pd_rec_int(dev, "index", -1),
		    json_integer_value(chip));
	else
		snprintf(id, sizeof id, "%" JSON_INTEGER_FORMAT,
		    (json_int_t)pd_rec_int(dev, "index", -1));
	pd_set_str(r, "device", id);
	src = pd_rec_str(dev, "source");
	pd_set_str(r, "source", src);
	json_object_foreach(dev, k, v) {
		if (strcmp(k, "source") == 0 || strcmp(k, "vendor") == 0 ||
		    strcmp(k, "index") == 0 || strcmp(k, "chip") == 0 ||
		    strcmp(k, "phy_id") == 0)
			continue;
		json_object_set(r, k, v);
	}
	return r;
}
