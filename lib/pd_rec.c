#include "pd_rec.h"
#include "pd_num.h"

#include "pd_archive.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pd_diag.h"
#include "pd_locate.h"

static const char *cur_file = "-";
static long cur_line;

const char *
pd_stream_file(void)
{
	return cur_file;
}

long
pd_stream_line(void)
{
	return cur_line;
}

void
pd_rec_write_line(const char *line, size_t len)
{
	fwrite(line, 1, len, stdout);
	if (len == 0 || line[len - 1] != '\n')
		fputc('\n', stdout);
}

/* The dump's pieces (a key, a comma, a number) gathered before they go
 * to stdout: one fwrite per 8 KiB, not per piece. */
struct outbuf {
	size_t n;
	char b[8192];
};

static int
flush_out(struct outbuf *o)
{
	size_t n = o->n;

	o->n = 0;
	return fwrite(o->b, 1, n, stdout) == n ? 0 : -1;
}

static int
dump_cb(const char *buf, size_t size, void *data)
{
	struct outbuf *o = data;

	if (size > sizeof o->b - o->n) {
		if (flush_out(o) < 0)
			return -1;
		if (size > sizeof o->b)
			return fwrite(buf, 1, size, stdout) == size ? 0 : -1;
	}
	memcpy(o->b + o->n, buf, size);
	o->n += size;
	return 0;
}

/* One key set per evidence record type, whichever family wrote it: the
 * keys in this order, null where the family has no value (pd-record(5)).
 * A key a writer adds that is not listed goes before the last one
 * (truncated), so nothing is lost. */
static const char *const shape_comm[] = { "type", "v", "root", "rank",
	"source", "total_us", "wait_ratio", "sync_ratio", "small_ratio", "ops",
	"transports", "links", "groups", "alignment", "slowest", "wait_us",
	"op_count", "lane", "collectives_total", "collectives", "skipped",
	"path", "truncated", NULL };
static const char *const shape_gaps[] = { "type", "v", "root", "rank",
	"source", "span_us", "busy_us", "idle_us", "idle_ratio", "streams",
	"large_gaps", "low_util_chunks", "launch", "sync_in_step",
	"pageable_memcpy", "large_gaps_total", "sync_calls", "sync_in_step_us",
	"pageable_memcpy_us", "steps", "events", "skipped_events", "free_us",
	"node_launch", "sync_after_launch", "sync_after_launch_ratio",
	"strip", "truncated", NULL };
static const char *const shape_hotspot[] = { "type", "v", "root", "rank",
	"source", "total_us", "top", "by_type", "by_core", "aicpu", "copies",
	"short_ops", "short_ratio", "host_api", "classes", "optimizers",
	"op_state", "cpu_ops", "kernels", "short_threshold_us",
	"linked_kernels", "host_checks", "top_rest", "cpu_ops_rest",
	"critical_path", "flops", "counters", "events", "skipped_events",
	"skipped_rows", "copy_overlap", "kernel_sequences", "gpu",
	"host_api_kinds", "truncated", NULL };
static const char *const shape_input[] = { "type", "v", "root", "rank",
	"source", "steps", "input_us_mean", "input_ratio", "class",
	"queue_empty_ratio", "slowest_op", "dataloader_spans",
	"slow_dataloader_calls", "slowest_call", "steps_from", "iterator",
	"calls", "first_call_us", "getnext_empty_ratio", "pipeline", "tick_mhz",
	"skipped_rows", "path", "truncated", NULL };
static const char *const shape_mem[] = { "type", "v", "root", "rank",
	"source", "devices", "peak_allocated_bytes", "peak_reserved_bytes",
	"capacity_bytes", "peak_ratio", "top_allocators", "never_released",
	"frees_without_alloc", "top_by_lifetime", "modules", "static_ops",
	"npu_mem", "fragmentation_bytes", "fragmentation_ratio",
	"allocs_without_op", "skipped_rows", "path", "inexact_rows",
	"categories_at_peak", "actions", "unordered_entries", "truncated",
	NULL };
static const char *const shape_step[] = { "type", "v", "root", "rank",
	"source", "steps", "totals", "shares", "step_stats", "slowest_step",
	"skipped_rows", "path", "scope", "stage", "stages", "device",
	"inexact_values", "events", "gpu_events", "gpu", "tick_mhz",
	"unassigned_us", "truncated", NULL };
static const struct {
	const char *type;
	const char *const *keys;
} shapes[] = {
	{ "pd.comm", shape_comm }, { "pd.gaps", shape_gaps },
	{ "pd.hotspot", shape_hotspot }, { "pd.input", shape_input },
	{ "pd.mem", shape_mem }, { "pd.step", shape_step }, { NULL, NULL }
};

static int
listed(const char *const *keys, const char *k)
{
	for (; *keys; keys++)
		if (!strcmp(*keys, k))
			return 1;
	return 0;
}

json_t *
pd_rec_shape(json_t *rec)
{
	const char *t = pd_rec_str(rec, "type"), *k;
	const char *const *keys = NULL;
	json_t *o, *v;
	size_t i;

	for (i = 0; t && shapes[i].type; i++)
		if (!strcmp(t, shapes[i].type))
			keys = shapes[i].keys;
	if (!keys)
		return rec;
	o = json_object();
	for (i = 0; keys[i]; i++) {
		if (!keys[i + 1])	/* the extras before the last key */
			json_object_foreach(rec, k, v)
				if (!listed(keys, k))
					json_object_set(o, k, v);
		v = json_object_get(rec, keys[i]);
		json_object_set(o, keys[i], v ? v : json_null());
	}
	json_decref(rec);
	return o;
}

/* Per record type, the lists a reduce keeps the first `keep` entries
 * of (pd_rec_trim). */
static const struct {
	const char *type, *key;
	size_t keep;
} trims[] = {
	{ "pd.comm", "collectives", 0 },
	{ "pd.comm", "slowest", 1 },
	{ "pd.gaps", "strip", 0 },
	{ NULL, NULL, 0 }
};

void
pd_rec_trim(json_t *rec)
{
	const char *t = pd_rec_str(rec, "type");
	json_t *a;
	size_t i;

	for (i = 0; t && trims[i].type; i++) {
		if (strcmp(t, trims[i].type))
			continue;
		a = json_object_get(rec, trims[i].key);
		if (trims[i].keep == 0 && a && !json_is_null(a))
			pd_set_null(rec, trims[i].key);
		else if (json_is_array(a))
			while (json_array_size(a) > trims[i].keep)
				json_array_remove(a, json_array_size(a) - 1);
	}
}

void
pd_rec_emit(json_t *rec)
{
	struct outbuf b;

	b.n = 0;
	if (!rec)
		return;
	rec = pd_rec_shape(rec);
	if (pd_archive_active())
		pd_archive_unmap_json(rec);
	json_dump_callback(rec, dump_cb, &b,
	    JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
	flush_out(&b);
	fputc('\n', stdout);
	json_decref(rec);
}

json_t *
pd_rec_new(const char *type, int v, json_t *root)
{
	json_t *o = json_object();

	json_object_set_new(o, "type", json_string(type));
	json_object_set_new(o, "v", json_integer(v));
	if (root) {
		json_t *r = json_object_get(root, "root");
		json_t *k = json_object_get(root, "rank");

		json_object_set(o, "root", r ? r : json_null());
		json_object_set(o, "rank", k ? k : json_null());
	}
	return o;
}

const char *
pd_rec_str(json_t *rec, const char *key)
{
	return json_string_value(json_object_get(rec, key));
}

int64_t
pd_rec_int(json_t *rec, const char *key, int64_t dflt)
{
	json_t *v = json_object_get(rec, key);
	int64_t i;

	if (json_is_integer(v))
		return json_integer_value(v);
	if (json_is_real(v) && pd_num_round_i64(json_real_value(v), &i) ==
	    PD_NUM_OK)
		return i;
	return dflt;
}

double
pd_rec_num(json_t *rec, const char *key, double dflt)
{
	json_t *v = json_object_get(rec, key);

	return json_is_number(v) ? json_number_value(v) : dflt;
}

int
pd_rec_is(json_t *rec, const char *type)
{
	const char *t = pd_rec_str(rec, "type");

	return t && strcmp(t, type) == 0;
}

json_t *
pd_real(double v, int dec)
{
	if (isnan(v) || isinf(v))
		return json_null();
	if (dec >= 0) {
		/* 10^dec exactly, as pow() gives it, without the libm
		 * pages pow() touches at each tool's start */
		static const double p10[] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5,
		    1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
		    1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };
		double m = dec < (int)(sizeof p10 / sizeof *p10) ? p10[dec] :
		    pow(10, dec);
		v = round(v * m) / m;
		if (v == 0)
			v = 0;	/* no "-0.0" */
	}
	return json_real(v);
}

void
pd_set(json_t *o, const char *key, json_t *val)
{
	json_object_set_new(o, key, val ? val : json_null());
}

void
pd_set_int_if(json_t *o, const char *key, int64_t v, int have)
{
	if (have)
		pd_set_int(o, key, v);
	else
		pd_set_null(o, key);
}

/* ---- names that are not UTF-8 ---- */

size_t
pd_utf8_seq(const char *p, size_t n)
{
	const unsigned char *s = (const unsigned char *)p;
	unsigned c = s[0];

	if (n == 0 || c == 0)
		return 0;
	if (c < 0x80)
		return 1;
	if (c < 0xC2 || c > 0xF4)
		return 0;
	if (c < 0xE0)
		return n >= 2 && (s[1] & 0xC0) == 0x80 ? 2 : 0;
	if (c < 0xF0) {
		if (n < 3 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80)
			return 0;
		if ((c == 0xE0 && s[1] < 0xA0) || (c == 0xED && s[1] >= 0xA0))
			return 0;	/* overlong, or a surrogate */
		return 3;
	}
	if (n < 4 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80 ||
	    (s[3] & 0xC0) != 0x80)
		return 0;
	if ((c == 0xF0 && s[1] < 0x90) || (c == 0xF4 && s[1] >= 0x90))
		return 0;	/* overlong, or above U+10FFFF */
	return 4;
}

char *
pd_str_escape(const char *s, size_t n)
{
	size_t i = 0, j = 0, k;
	char *out;

	while (i < n && (k = pd_utf8_seq(s + i, n - i)))
		i += k;
	if (i == n)
		return NULL;
	if (!(out = malloc(4 * n + 1)))
		pd_oom();
	for (i = 0; i < n;) {
		if ((k = pd_utf8_seq(s + i, n - i))) {
			memcpy(out + j, s + i, k);
			i += k;
			j += k;
			continue;
		}
		unsigned b = (unsigned char)s[i++];
		out[j++] = (char)0xF4;
		out[j++] = (char)0x8F;
		out[j++] = (char)(0xBC | (b >> 6));
		out[j++] = (char)(0x80 | (b & 0x3F));
	}
	out[j] = 0;
	return out;
}

static void
escaped_note(const char *s, size_t n)
{
	static char *seen[3];
	static int count;
	int i;

	for (i = 0; i < count && i < 3; i++)
		if (strlen(seen[i]) == n && memcmp(seen[i], s, n) == 0)
			return;
	if (count < 3 && (seen[count] = strndup(s, n)) == NULL)
		pd_oom();
	if (count < 3)
		pd_warn(NULL, 0, "name %s is not valid UTF-8: each bad byte "
		    "is written as U+10FF00 plus its value (pd-record(5))",
		    pd_diag_quote(s, n));
	else if (count == 3)
		pd_warn(NULL, 0, "more names are not valid UTF-8 "
		    "(escaped the same way, not reported)");
	count++;
}

json_t *
pd_strn(const char *s, size_t n)
{
	char *e;
	json_t *j;

	if (!s)
		return json_null();
	if (!(e = pd_str_escape(s, n)))
		return json_stringn(s, n);
	escaped_note(s, n);
	j = json_string(e);
	free(e);
	return j;
}

json_t *
pd_str(const char *s)
{
	return s ? pd_strn(s, strlen(s)) : json_null();
}

/* Decoded names, kept until exit, looked up by their escaped form. */
struct dec {
	struct dec *next;
	char *esc, *raw;
};
static struct dec *dec_tab[1024];

static int
escaped_at(const char *p)
{
	const unsigned char *s = (const unsigned char *)p;

	return s[0] == 0xF4 && s[1] == 0x8F && s[2] >= 0xBC && s[2] <= 0xBF &&
	    (s[3] & 0xC0) == 0x80;
}

const char *
pd_str_bytes(const char *s)
{
	const char *p;
	unsigned h = 5381;
	struct dec *d;
	size_t i, j;

	if (!s)
		return NULL;
	for (p = s; (p = strchr(p, '\xF4')); p++)
		if (escaped_at(p))
			break;
	if (!p)
		return s;
	for (p = s; *p; p++)
		h = h * 33 + (unsigned char)*p;
	h %= sizeof dec_tab / sizeof dec_tab[0];
	for (d = dec_tab[h]; d; d = d->next)
		if (strcmp(d->esc, s) == 0)
			return d->raw;
	if (!(d = malloc(sizeof *d)) || !(d->esc = strdup(s)) ||
	    !(d->raw = malloc(strlen(s) + 1)))
		pd_oom();
	for (i = j = 0; s[i];) {
		if (escaped_at(s + i)) {
			d->raw[j++] = (char)(((s[i + 2] & 3) << 6) |
			    (s[i + 3] & 0x3F));
			i += 4;
		} else {
			d->raw[j++] = s[i++];
		}
	}
	d->raw[j] = 0;
	d->next = dec_tab[h];
	dec_tab[h] = d;
	return d->raw;
}

void
pd_set_str(json_t *o, const char *key, const char *s)
{
	pd_set(o, key, pd_str(s));
}

void
pd_set_int(json_t *o, const char *key, int64_t v)
{
	pd_set(o, key, json_integer(v));
}

void
pd_set_real(json_t *o, const char *key, double v, int dec)
{
	pd_set(o, key, pd_real(v, dec));
}

void
pd_set_bool(json_t *o, const char *key, int v)
{
	pd_set(o, key, json_boolean(v));
}

void
pd_set_null(json_t *o, const char *key)
{
	pd_set(o, key, json_null());
}

struct run {
	struct pd_stream *s;
};

static int
located(json_t *root, void *ctx)
{
	struct pd_stream *s = ctx;
	int rc = 0, r;

	if (!s->no_emit_roots && !s->no_passthrough)
		pd_rec_emit(json_incref(root));
	/* statuses are ranked, not bits: the worse one (3 and 4 is 4) */
	if (s->on_record && (r = s->on_record(root, s->ctx)) > rc)
		rc = r;
	if (s->on_root && (r = s->on_root(root, s->ctx)) > rc)
		rc = r;
	return rc;
}

/* ---- telling a root from the other records without building them ----
 *
 * A stage that acts on pd.root records only (the evidence tools) forwards
 * every other record as it is; building each one's tree just to find its
 * type cost them more than their own work over many ranks (jansson parses
 * such lines at ~50 MB/s). pd_rec_quick reads a line as strict JSON
 * without building anything and gives the top-level "type" when that is
 * a plain string (the last one, as jansson keeps the last of equal keys).
 * It answers only what it can answer the way jansson would: a line with a
 * \u escape, a number jansson could find too big or nesting deeper than
 * QMAX is left to jansson (Q_ASK), as is every line it finds wrong (for
 * jansson's message: a control character or bad UTF-8 in a string...). */

#define QMAX 256

enum { Q_ASK, Q_OK };

static const char *
q_ws(const char *p, const char *e)
{
	while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

/* A string at p ('"'): its end after the closing quote, or NULL. The
 * contents are [*b, *ce) when plain (no escape), else *b is NULL. No
 * control character; the escapes \" \\ \/ \b \f \n \r \t (\u is
 * left to jansson); bytes above 0x7f as jansson takes UTF-8. */
static const char *
q_str(const char *p, const char *e, const char **b, const char **ce)
{
	int esc = 0;
	size_t n;

	*b = ++p;
	while (p < e) {
		unsigned char c = (unsigned char)*p;

		if (c == '"') {
			*ce = p;
			if (esc)
				*b = NULL;
			return p + 1;
		}
		if (c < 0x20)
			return NULL;
		if (c == '\\') {
			esc = 1;
			if (++p >= e || !*p || !strchr("\"\\/bfnrt", *p))
				return NULL;
			p++;
			continue;
		}
		if (!(n = pd_utf8_seq(p, (size_t)(e - p))))
			return NULL;	/* as jansson: pd_utf8_seq's rules */
		p += n;
	}
	return NULL;
}

/* A number at p: its end, or NULL when it is wrong or when jansson could
 * find it too big (an integer out of int64's range, a real of more than
 * 200 digits before its point or an exponent of more than 2 digits). */
static const char *
q_num(const char *p, const char *e)
{
	int nint = 0, real = 0, nexp = 0, neg = 0;
	const char *d;

	if (p < e && *p == '-') {
		p++;
		neg = 1;
	}
	d = p;
	if (p < e && *p == '0') {
		p++;
		nint = 1;
	} else
		for (; p < e && *p >= '0' && *p <= '9'; p++)
			nint++;
	if (nint == 0)
		return NULL;
	if (p < e && *p == '.') {
		real = 1;
		if (++p >= e || *p < '0' || *p > '9')
			return NULL;
		while (p < e && *p >= '0' && *p <= '9')
			p++;
	}
	if (p < e && (*p == 'e' || *p == 'E')) {
		real = 1;
		if (++p < e && (*p == '+' || *p == '-'))
			p++;
		for (; p < e && *p >= '0' && *p <= '9'; p++)
			nexp++;
		if (nexp == 0)
			return NULL;
	}
	if (real ? nint > 200 || nexp > 2 : nint > 19 || (nint == 19 &&
	    memcmp(d, neg ? "9223372036854775808" : "9223372036854775807",
	    19) > 0))
		return NULL;
	return p;
}

int
pd_rec_quick(const char *p, const char *e, const char **tb, const char **te)
{
	char stack[QMAX];	/* the open '{' and '[' */
	int depth = 0;
	const char *b, *ce;

	*tb = *te = NULL;
	p = q_ws(p, e);
	if (p >= e || *p != '{')
		return Q_ASK;
	for (;;) {
		int is_type = 0;

		/* at a value; in an object, its key first */
		p = q_ws(p, e);
		if (depth > 0 && stack[depth - 1] == '{') {
			if (p >= e || *p != '"' || !(p = q_str(p, e, &b, &ce)))
				return Q_ASK;
			is_type = depth == 1 && b && ce - b == 4 &&
			    memcmp(b, "type", 4) == 0;
			if (is_type)
				*tb = *te = NULL;
			p = q_ws(p, e);
			if (p >= e || *p++ != ':')
				return Q_ASK;
			p = q_ws(p, e);
		}
		if (p >= e)
			return Q_ASK;
		if (*p == '{' || *p == '[') {
			if (depth == QMAX)
				return Q_ASK;
			stack[depth++] = *p++;
			p = q_ws(p, e);
			if (p >= e || *p != (stack[depth - 1] == '{' ? '}' : ']'))
				continue;	/* to its first member */
			p++;
			depth--;
		} else if (*p == '"') {
			if (!(p = q_str(p, e, &b, &ce)) || (is_type && !b))
				return Q_ASK;
			if (is_type)
				*tb = b, *te = ce;
		} else if (*p == '-' || (*p >= '0' && *p <= '9')) {
			if (!(p = q_num(p, e)))
				return Q_ASK;
		} else if (e - p >= 4 && memcmp(p, "true", 4) == 0) {
			p += 4;
		} else if (e - p >= 5 && memcmp(p, "false", 5) == 0) {
			p += 5;
		} else if (e - p >= 4 && memcmp(p, "null", 4) == 0) {
			p += 4;
		} else
			return Q_ASK;
		/* after a value: what closes here, then ',' or the end */
		for (;;) {
			p = q_ws(p, e);
			if (depth == 0)
				return p == e ? Q_OK : Q_ASK;
			if (p < e && *p == ',') {
				p++;
				break;
			}
			if (p >= e || *p != (stack[depth - 1] == '{' ? '}' : ']'))
				return Q_ASK;
			p++;
			depth--;
		}
	}
}

static void
read_stdin(struct pd_stream *s)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	json_error_t err;
	const char *tb, *te;

	cur_file = "-";
	cur_line = 0;
	while ((n = getline(&line, &cap, stdin)) > 0) {
		size_t len = (size_t)n;
		json_t *rec;

		cur_line++;
		if (!s->no_passthrough)
			pd_rec_write_line(line, len);
		/* whitespace-only lines are forwarded and otherwise ignored */
		size_t i = 0;
		while (i < len && (line[i] == ' ' || line[i] == '\t' ||
		    line[i] == '\r' || line[i] == '\n'))
			i++;
		if (i == len)
			continue;
		if (!s->on_record && pd_rec_quick(line + i, line + len, &tb,
		    &te) == Q_OK && !(tb && te - tb == 7 &&
		    memcmp(tb, "pd.root", 7) == 0))
			continue;	/* not a root: forwarded, nothing to do */
		rec = json_loadb(line, len, 0, &err);
		if (!rec || !json_is_object(rec)) {
			pd_warn("<stdin>", cur_line, "not a JSON object%s%s; "
			    "forwarded unchanged", rec ? "" : ": ",
			    rec ? "" : err.text);
			pd_diag_status(PD_EXIT_INPUT);
			json_decref(rec);
			continue;
		}
		if (s->on_record)
			pd_diag_status(s->on_record(rec, s->ctx));
		if (s->on_root && pd_rec_is(rec, "pd.root"))
			pd_diag_status(s->on_root(rec, s->ctx));
		json_decref(rec);
	}
	if (ferror(stdin)) {
		pd_error("<stdin>", 0, "read error: %s", strerror(errno));
		pd_diag_status(PD_EXIT_SYSTEM);
	}
	free(line);
}

int
pd_stream_run(struct pd_stream *s, int argc, char **argv)
{
	int i, used_stdin = 0;
	struct pd_locate_opts lo = { s->maxdepth, 0 };

	if (argc == 0) {
		read_stdin(s);
		used_stdin = 1;
	}
	for (i = 0; i < argc; i++) {
		if (strcmp(argv[i], "-") == 0) {
			if (!used_stdin)
				read_stdin(s);
			used_stdin = 1;
			continue;
		}
		cur_file = argv[i];
		cur_line = 0;
		if (s->on_operand)
			s->on_operand(argv[i], s->ctx);
		else
			pd_diag_status(pd_locate(argv[i], &lo, located, s));
		fflush(stdout);
	}
	if (s->on_end)
		s->on_end(s->ctx);
	return pd_diag_get_status();
}

void
pd_json_replace(json_t *v, json_t *(*fn)(json_t *x, void *ctx), void *ctx)
{
	json_t *x, *n;
	size_t i;
	void *it;

	if (json_is_object(v)) {
		for (it = json_object_iter(v); it;
		    it = json_object_iter_next(v, it)) {
			x = json_object_iter_value(it);
			if ((n = fn(x, ctx)))
				json_object_iter_set_new(v, it, n);
			else
				pd_json_replace(x, fn, ctx);
		}
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, x) {
			if ((n = fn(x, ctx)))
				json_array_set_new(v, i, n);
			else
				pd_json_replace(x, fn, ctx);
		}
	}
}

json_t *
pd_json_sorted(json_t *src, int (*cmp)(const void *, const void *))
{
	size_t n = json_is_object(src) ? json_object_size(src) :
	    json_array_size(src), i = 0;
	json_t **v = malloc((n + 1) * sizeof *v), *out = json_array(), *e;
	const char *k;

	if (!v || !out)
		pd_oom();
	if (json_is_object(src))
		json_object_foreach(src, k, e)
			v[i++] = e;
	else
		json_array_foreach(src, i, e)
			v[i] = e;
	qsort(v, n, sizeof *v, cmp);
	for (i = 0; i < n; i++)
		json_array_append(out, v[i]);
	free(v);
	return out;
}
