/* pd_smi: nvidia-smi captures: --query-gpu CSV, the default table,
 * dmon and pmon. */
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
	json_array_append_new(out, pd_smi_dev_json(&d));
}

json_t *
pd_smi_nv_csv(const char *text, const char *fields)
{
	json_t *out = json_array();
	struct lines L;
	char *fbuf = NULL, *names[MAXF], *v[MAXF];
	size_t nf = 0, i = 0;

	pd_smi_lines_split(&L, text);
	if (fields) {
		fbuf = strdup(fields);
		nf = pd_smi_split(fbuf, ',', names, MAXF);
	} else {
		for (; i < L.n && !strchr(L.v[i], ','); i++)
			;
		if (i == L.n)
			goto done;
		nf = pd_smi_split(L.v[i++], ',', names, MAXF);
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
		if (pd_smi_split(L.v[i], ',', v, MAXF) == nf)
			csv_row(out, names, nf, v);
	}
done:
	free(fbuf);
	pd_smi_lines_free(&L);
	return out;
}

/* ---- nvidia-smi default table ---- */

int
pd_smi_is_bus_id(const char *s)
{
	/* 00000000:10:1C.0 or 0000:C1:00.0 */
	const char *c = strchr(s, ':');

	return c && c > s && strchr(c + 1, ':') && strchr(c, '.') &&
	    isxdigit((unsigned char)s[0]);
}

/* "a / b" pairs in s, in order: up to max of them. */
size_t
pd_smi_fractions(const char *s, double *a, double *b, size_t max)
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

	pd_smi_lines_split(&L, text);
	for (i = 0; i + 1 < L.n; i++) {
		char *c[8], *c2[8], *w[32];
		size_t n, n2, nw;
		struct dev d;
		double a[2], b[2];

		if (L.v[i][0] != '|')
			continue;
		n = pd_smi_split(L.v[i] + 1, '|', c, 8);
		if (n < 3 || !pd_smi_is_bus_id(c[1]))
			continue;
		nw = pd_smi_words(c[0], w, 32);
		if (nw < 2 || !isdigit((unsigned char)w[0][0]))
			continue;
		dev_init(&d, "nvidia-smi-table", "nvidia");
		d.k[K_INDEX] = atof(w[0]);
		/* name: pd_smi_words between the index and Persistence-M */
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

			if (pd_smi_words(c[1], bw, 4) >= 1)
				set_str(d.bus_id, sizeof d.bus_id, &d.has_bus,
				    bw[0], strlen(bw[0]));
		}
		if (L.v[i + 1][0] == '|') {
			n2 = pd_smi_split(L.v[i + 1] + 1, '|', c2, 8);
			if (n2 >= 3) {
				char *pw[16];
				size_t np, j;

				/* "N/A 64C P0 358W / 400W": the last
				 * slash is the power one */
				np = pd_smi_fractions(c2[0], a, b, 2);
				if (np >= 1) {
					d.k[K_POWER] = a[np - 1];
					d.k[K_POWERLIM] = b[np - 1];
				}
				if (pd_smi_fractions(c2[1], a, b, 1) == 1) {
					d.k[K_MEMUSED] = a[0] * MIB;
					d.k[K_MEMTOTAL] = b[0] * MIB;
				}
				np = pd_smi_words(c2[0], pw, 16);
				d.k[K_TEMP] = NAN;
				for (j = 0; j < np; j++) {
					size_t l = strlen(pw[j]);
					if (l > 1 && pw[j][l - 1] == 'C' &&
					    isdigit((unsigned char)pw[j][0]))
						d.k[K_TEMP] = atof(pw[j]);
				}
				np = pd_smi_words(c2[2], pw, 16);
				d.k[K_UTIL] = np ? nums(pw[0]) / 100 : NAN;
			}
			i++;
		}
		json_array_append_new(out, pd_smi_dev_json(&d));
	}
	pd_smi_lines_free(&L);
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

	pd_smi_lines_split(&L, text);
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
				nn = pd_smi_words(hbuf, names, MAXF);
				pmon = 0;
				for (j = 0; j < nn; j++)
					pmon |= strcmp(names[j], "pid") == 0;
			} else if (nn && strstr(s, "Idx")) {
				free(ubuf);
				ubuf = strdup(s);
				pd_smi_words(ubuf, units, MAXF);
			}
			continue;
		}
		if (!nn)
			continue;
		nv = pd_smi_words(s, v, MAXF);
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
		json_array_append_new(out, pd_smi_dev_json(&d));
	}
	free(hbuf);
	free(ubuf);
	pd_smi_lines_free(&L);
	return out;
}
