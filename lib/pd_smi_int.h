/* pd_smi_int: what the parts of pd_smi share (not an interface: pd_smi.h
 * is). A reader of one capture format (pd_smi_nvidia.c, pd_smi_npu.c,
 * pd_smi_procs.c, pd_smi_lscpu.c) fills a struct dev per device, and
 * pd_smi_dev_json (pd_smi.c) writes it in the documented key order. */
#ifndef PD_SMI_INT_H
#define PD_SMI_INT_H

#include <ctype.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

#include <jansson.h>

#define MIB 1048576.0

/* Device values in the documented key order; ABSENT = the format has no
 * such value (key left out), NAN = printed as not available (null). */
enum { K_INDEX, K_CHIP, K_PHY, K_PID, K_UTIL, K_MEMUTIL, K_VECUTIL,
	K_MEMUSED, K_MEMTOTAL, K_MEMUSEDRATIO, K_DDRUSED, K_DDRTOTAL, K_POWER,
	K_POWERLIM, K_TEMP, K_SMCLK, K_SMCLKMAX, K_MEMCLK, K_AICNT, K_AIFREQ,
	K_AICUR, K_N };
#define ABSENT (-INFINITY)

/* One device of a capture; k[] by the K_ keys. */
struct dev {
	const char *source, *vendor;
	char name[160], health[32], bus_id[32], process[96];
	int has_name, has_health, has_bus, has_process;
	double k[K_N];
};

/* Lines of a text, in a modifiable copy. */
struct lines {
	char *buf;
	char **v;
	size_t n;
};

#define MAXF 64	/* fields of a row, at most */

/* pd_smi.c: a device's JSON (a new reference); numbers, lines, fields */
json_t *pd_smi_dev_json(const struct dev *d);
double pd_smi_num(const char *s, size_t len);
void pd_smi_lines_split(struct lines *L, const char *text);
void pd_smi_lines_free(struct lines *L);
size_t pd_smi_split(char *s, int sep, char **f, size_t max);
size_t pd_smi_words(char *s, char **f, size_t max);
/* pd_smi_nvidia.c: the table's cells */
int pd_smi_is_bus_id(const char *s);
size_t pd_smi_fractions(const char *s, double *a, double *b, size_t max);

/* s[0..len) without blanks around it into dst, cut to size. */
static inline void
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

static inline double
nums(const char *s)
{
	return pd_smi_num(s, strlen(s));
}

static inline void
dev_init(struct dev *d, const char *source, const char *vendor)
{
	int i;

	memset(d, 0, sizeof *d);
	d->source = source;
	d->vendor = vendor;
	for (i = 0; i < K_N; i++)
		d->k[i] = ABSENT;
}

#endif
