/* Accelerator peaks: each device's name matched against share/limits/
 * peaks.yaml (first entry whose pattern hits, case-insensitive substring,
 * "=" for the whole name); Ascend peaks derived from Aicore Count x 8192
 * FLOP/cycle x Aicore Freq when npu-smi -t common gave them (a -t common
 * block completes the table row of the same NPU and chip). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "limits.h"
#include "pd_rec.h"

static const char *const dtypes[] = { "fp32_tflops", "tf32_tflops",
	"fp16_tflops", "bf16_tflops", "fp8_tflops", "mem_bw_tb_per_s" };
#define NDT (sizeof dtypes / sizeof dtypes[0])

static int
pattern_hits(const char *pat, const char *name)
{
	if (pat[0] == '=')
		return strcasecmp(pat + 1, name) == 0;
	return strcasestr(name, pat) != NULL;
}

static json_t *
match(json_t *peaks, const char *name)
{
	json_t *list = json_object_get(peaks, "accelerators"), *e, *p;
	size_t i, j;

	if (!name)
		return NULL;
	json_array_foreach(list, i, e)
		json_array_foreach(json_object_get(e, "match"), j, p)
			if (json_is_string(p) &&
			    pattern_hits(json_string_value(p), name))
				return e;
	return NULL;
}

static json_t *
one(json_t *dev, json_t *peaks)
{
	json_t *o = json_object(), *e;
	const char *name = pd_rec_str(dev, "name");
	double chips = 1, cnt, freq;
	size_t i;

	pd_set_str(o, "vendor", pd_rec_str(dev, "vendor"));
	pd_set(o, "index", json_incref(json_object_get(dev, "index")));
	if (json_object_get(dev, "chip"))
		pd_set(o, "chip", json_incref(json_object_get(dev, "chip")));
	pd_set_str(o, "name", name);
	e = match(peaks, name);
	cnt = pd_rec_num(dev, "aicore_count", NAN);
	freq = pd_rec_num(dev, "aicore_freq_mhz", NAN);
	pd_set_str(o, "peak_key", e ? pd_rec_str(e, "key") : NULL);
	if (e && pd_rec_str(e, "per") && !strcmp(pd_rec_str(e, "per"), "package"))
		chips = pd_rec_num(e, "chips", 1);
	if (!isnan(cnt) && !isnan(freq)) {
		pd_set_str(o, "peak_source", "derived");
		pd_set_str(o, "confidence", "derived");
	} else {
		pd_set_str(o, "peak_source", e ? "table" : NULL);
		pd_set_str(o, "confidence", e ? pd_rec_str(e, "confidence") :
		    NULL);
	}
	pd_set_real(o, "chips_per_package", e ? chips : NAN, 0);
	for (i = 0; i < NDT; i++) {
		double v = e ? pd_rec_num(e, dtypes[i], NAN) / chips : NAN;

		if (!isnan(cnt) && !isnan(freq) && (i == 2 || i == 3))
			v = cnt * 8192 * freq * 1e6 / 1e12;
		pd_set_real(o, dtypes[i], v, 3);
	}
	{
		double f = pd_rec_num(o, "bf16_tflops", NAN);
		double bw = pd_rec_num(o, "mem_bw_tb_per_s", NAN);

		if (isnan(f))
			f = pd_rec_num(o, "fp16_tflops", NAN);
		pd_set_real(o, "ridge_flop_per_byte", f / bw, 1);
	}
	pd_set(o, "mem_total_bytes",
	    json_incref(json_object_get(dev, "mem_total_bytes")));
	pd_set_real(o, "power_limit_w", pd_rec_num(dev, "power_limit_w", NAN), 2);
	pd_set_str(o, "source", pd_rec_str(dev, "source"));
	return o;
}

static int
same_chip(json_t *a, json_t *b)
{
	return json_equal(json_object_get(a, "index"),
	    json_object_get(b, "index")) &&
	    json_equal(json_object_get(a, "chip"), json_object_get(b, "chip"));
}

/* An npu-smi -t common block (no name, Aicore Count/Freq) of the same NPU
 * and chip as a table row completes that row instead of standing alone. */
static int
merged(json_t *devices, size_t i)
{
	json_t *c = json_array_get(devices, i), *d;
	const char *keys[] = { "aicore_count", "aicore_freq_mhz",
		"aicore_cur_freq_mhz" };
	size_t j, k;

	if (pd_rec_str(c, "name") || !json_object_get(c, "aicore_count"))
		return 0;
	json_array_foreach(devices, j, d) {
		if (j == i || !pd_rec_str(d, "name") || !same_chip(c, d))
			continue;
		for (k = 0; k < 3; k++)
			if (json_object_get(c, keys[k]))
				json_object_set(d, keys[k],
				    json_object_get(c, keys[k]));
		return 1;
	}
	return 0;
}

json_t *
limits_accel(json_t *devices, json_t *peaks)
{
	json_t *out = json_array(), *d;
	size_t i;
	char *drop = calloc(json_array_size(devices) + 1, 1);

	for (i = 0; i < json_array_size(devices); i++)
		drop[i] = (char)merged(devices, i);
	json_array_foreach(devices, i, d)
		if (!drop[i])
			json_array_append_new(out, one(d, peaks));
	free(drop);
	return out;
}
