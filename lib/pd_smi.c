/* pd_smi: utilization captures of nvidia-smi, npu-smi and lscpu (see
 * pd_smi.h). Here: a device and its JSON, the number and line helpers the
 * readers share, which format a capture is (pd_smi_parse), and running
 * and sampling the tools. One file per kind of capture: pd_smi_nvidia.c,
 * pd_smi_npu.c, pd_smi_procs.c (process tables), pd_smi_lscpu.c. */
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

static const char *const key_names[K_N] = { "index", "chip", "phy_id", "pid",
	"util_ratio", "mem_util_ratio", "vector_util_ratio", "mem_used_bytes",
	"mem_total_bytes", "mem_used_ratio", "ddr_used_bytes",
	"ddr_total_bytes", "power_w", "power_limit_w", "temp_c",
	"sm_clock_mhz", "sm_clock_max_mhz", "mem_clock_mhz", "aicore_count",
	"aicore_freq_mhz", "aicore_cur_freq_mhz" };
/* integer-valued keys */
static const unsigned long int_keys = 1ul << K_INDEX | 1ul << K_CHIP |
	1ul << K_PHY | 1ul << K_PID | 1ul << K_MEMUSED | 1ul << K_MEMTOTAL |
	1ul << K_DDRUSED | 1ul << K_DDRTOTAL | 1ul << K_AICNT;

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

json_t *
pd_smi_dev_json(const struct dev *d)
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
		if (isnan(v) || ((int_keys & (1ul << i)) &&
		    pd_num_round_i64(v, &iv) != PD_NUM_OK))
			pd_set_null(o, key_names[i]);
		else if (int_keys & (1ul << i))
			pd_set_int(o, key_names[i], (json_int_t)iv);
		else
			pd_set_real(o, key_names[i], v, 4);
	}
	return o;
}

/* A number at the start of s (after blanks), allowing a unit suffix
 * ("81920 MiB", "100 %", "358W"); NaN for N/A, [N/A], NA, -, blank or
 * anything else. */
double
pd_smi_num(const char *s, size_t len)
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

void
pd_smi_lines_split(struct lines *L, const char *text)
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

void
pd_smi_lines_free(struct lines *L)
{
	free(L->buf);
	free(L->v);
}

/* Split s at sep into at most max trimmed fields (pointers into s). */
size_t
pd_smi_split(char *s, int sep, char **f, size_t max)
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

size_t
pd_smi_words(char *s, char **f, size_t max)
{
	size_t n = 0;
	char *save = NULL, *t;

	for (t = strtok_r(s, " \t", &save); t && n < max;
	    t = strtok_r(NULL, " \t", &save))
		f[n++] = t;
	return n;
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
