/* pd_smi: npu-smi captures: the info table, and info -t usages / -t
 * common. */
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

/* ---- npu-smi info table ---- */

json_t *
pd_smi_npu_table(const char *text)
{
	json_t *out = json_array();
	struct lines L;
	size_t i;
	int hbm = 0, phy = 0, in_dev = 0, have1 = 0;
	struct dev d;

	pd_smi_lines_split(&L, text);
	dev_init(&d, "npu-smi-table", "ascend");
	for (i = 0; i < L.n; i++) {
		char *c[8], *w[16];
		size_t n, nw;
		double a[3], b[3];

		if (L.v[i][0] != '|')
			continue;
		n = pd_smi_split(L.v[i] + 1, '|', c, 8);
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
		nw = pd_smi_words(c[0], w, 16);
		if (nw == 0 || !isdigit((unsigned char)w[0][0]))
			continue;
		if (!pd_smi_is_bus_id(c[1])) {
			/* row 1: NPU Name | Health | Power Temp Hugepages */
			dev_init(&d, "npu-smi-table", "ascend");
			d.k[K_INDEX] = atof(w[0]);
			if (nw > 1)
				set_str(d.name, sizeof d.name, &d.has_name,
				    w[1], strlen(w[1]));
			set_str(d.health, sizeof d.health, &d.has_health,
			    c[1], strlen(c[1]));
			nw = pd_smi_words(c[2], w, 16);
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
			d.k[K_UTIL] = pd_smi_num(sp, strcspn(sp, " ")) / 100;
			nfr = pd_smi_fractions(sp, a, b, 3);
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
		json_array_append_new(out, pd_smi_dev_json(&d));
		have1 = 0;
	}
	pd_smi_lines_free(&L);
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
		json_array_append_new(s->out, pd_smi_dev_json(&s->d));
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
	pd_smi_lines_split(&L, text);
	kv_flush(&s);
	for (i = 0; i < L.n; i++) {
		char *colon = strchr(L.v[i], ':'), *f[2];
		int k, bw;
		double x;

		if (!colon || L.v[i][strspn(L.v[i], " \t")] == '#')
			continue;
		if (pd_smi_split(L.v[i], ':', f, 2) != 2)
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
	pd_smi_lines_free(&L);
	return s.out;
}
