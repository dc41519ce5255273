/* trace-check: cross-check the streaming reader against jansson.
 * Loads the whole (plain or gzip) trace with jansson and compares, event by
 * event, ph, name, cat, pid, tid exactly, an integer pid/tid's number, ts/dur
 * within the precision a double keeps (jansson parses numbers as doubles),
 * the raw "id", and every top-level key of "args" as pd_ev_arg_raw finds it
 * (its text parsed again must equal jansson's value), and the same found
 * through the reader's memo as without it, by pd_ev_arg_raw and by
 * pd_kineto_args, asked in reverse order. Prints "ok N events"
 * or the first difference; exit 0 / 1. A test tool, not for big files.
 *   trace-check FILE     the reader (no cache)
 *   trace-check -c FILE  a replay of the trace's cache entry, built in
 *                        memory: the lookups into args read from the
 *                        entry before any text is asked for (by
 *                        skeleton: without the text), and the args'
 *                        text, put together, is the same JSON */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <zlib.h>

#include "pd_kineto.h"
#include "pd_tcache.h"
#include "pd_trace.h"

static json_t *events;
static size_t pos;
static int bad, replayed;

static const char *
text(json_t *v, char *buf, size_t n)
{
	if (json_is_string(v))
		return json_string_value(v);
	if (json_is_integer(v)) {
		snprintf(buf, n, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		return buf;
	}
	return NULL;
}

static int
near(int has, int64_t ns, json_t *v)
{
	double d, want;

	if (!v || json_is_null(v))
		return !has;
	if (json_is_string(v))
		d = strtod(json_string_value(v), NULL);
	else
		d = json_number_value(v);
	want = d * 1000.0;
	return has && fabs((double)ns - want) <= fabs(want) * 1e-15 + 1.0;
}

/* An integer pid/tid is a number to the reader too, with that value. */
static int
same_num(int is_num, int64_t num, json_t *v)
{
	if (!json_is_integer(v))
		return 1;
	return is_num && num == json_integer_value(v);
}

/* The raw "id" text (quotes stripped) reads back as jansson's value. */
static int
same_id(const struct pd_ev *e, json_t *v)
{
	json_t *r;
	int ok;

	if (!v)
		return e->id == NULL;
	if (!e->id)
		return 0;
	if (json_is_string(v)) {	/* the text between the quotes */
		char *q = malloc(e->id_len + 3);

		if (!q)
			return 0;
		q[0] = '"';
		memcpy(q + 1, e->id, e->id_len);
		q[e->id_len + 1] = '"';
		q[e->id_len + 2] = '\0';
		r = json_loadb(q, e->id_len + 2, JSON_DECODE_ANY, NULL);
		free(q);
	} else {
		r = json_loadb(e->id, e->id_len, JSON_DECODE_ANY, NULL);
	}
	ok = r && json_equal(r, v);
	json_decref(r);
	return ok;
}

/* The lookups through the event's memo find what they find without it:
 * each key of args from the last to the first (the memo read to the end
 * at the first one), an absent key, then all of them at once with
 * pd_kineto_args. */
static int
same_memo(const struct pd_ev *e, json_t *args)
{
	const char *keys[8], *v, *w, *va[8], *wa[8];
	size_t n, m, na[8], ma[8];
	struct pd_ev plain = *e;
	const char *key;
	json_t *val;
	int k = 0, i, a, b;

	plain.memo = NULL;
	json_object_foreach(args, key, val)
		if (k < 8)
			keys[k++] = key;
	for (i = k; i >= 0; i--) {
		const char *q = i == k ? "no such key" : keys[i];
		a = pd_ev_arg_raw(e, q, &v, &n);
		b = pd_ev_arg_raw(&plain, q, &w, &m);
		/* a replay's keys and values may not be in the text */
		if (a != b || (a && (n != m || (v != w && (!replayed ||
		    memcmp(v, w, n) != 0))))) {
			printf("event %" PRIu64 ": args '%s' differs through "
			    "the memo\n", e->index, q);
			return 0;
		}
	}
	a = pd_kineto_args(e, keys, k, va, na);
	b = pd_kineto_args(&plain, keys, k, wa, ma);
	for (i = 0; i < k && a == b; i++)
		if (na[i] != ma[i] || (va[i] != wa[i] && (!replayed ||
		    !va[i] || !wa[i] || memcmp(va[i], wa[i], na[i]) != 0)))
			break;
	if (a != b || i < k) {
		printf("event %" PRIu64 ": pd_kineto_args differs through the "
		    "memo\n", e->index);
		return 0;
	}
	return 1;
}

/* Each top-level key of an args object is found by pd_ev_arg_raw, and its
 * raw text is the same value. Keys that needed escapes are left out (the
 * lookup compares raw key text). */
static int
same_args(const struct pd_ev *e, json_t *args)
{
	const char *key, *v;
	json_t *val, *r;
	size_t n;
	int ok;

	if (!json_is_object(args))
		return !e->args && !e->lazy;
	if (!e->args && !e->lazy) {
		printf("event %" PRIu64 ": args missed\n", e->index);
		return 0;
	}
	if (!e->memo) {
		printf("event %" PRIu64 ": no memo\n", e->index);
		return 0;
	}
	if (!same_memo(e, args))
		return 0;
	json_object_foreach(args, key, val) {
		if (strpbrk(key, "\"\\/") || strlen(key) != strcspn(key,
		    "\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d"
		    "\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a"
		    "\x1b\x1c\x1d\x1e\x1f"))
			continue;
		if (!pd_ev_arg_raw(e, key, &v, &n)) {
			printf("event %" PRIu64 ": args key '%s' not found\n",
			    e->index, key);
			return 0;
		}
		r = json_loadb(v, n, JSON_DECODE_ANY, NULL);
		ok = r && json_equal(r, val);
		json_decref(r);
		if (!ok) {
			printf("event %" PRIu64 ": args '%s' differs\n",
			    e->index, key);
			return 0;
		}
	}
	/* the text, last (a replay puts it together only now) */
	v = pd_ev_args(e);
	r = v ? json_loadb(v, e->args_len, 0, NULL) : NULL;
	ok = r && json_equal(r, args);
	json_decref(r);
	if (!ok) {
		printf("event %" PRIu64 ": args text differs\n", e->index);
		return 0;
	}
	return 1;
}

static int
cmp(const struct pd_ev *e, void *ctx)
{
	json_t *j;
	char b1[64];
	const char *s;

	(void)ctx;
	while ((j = json_array_get(events, pos)) && !json_is_object(j))
		pos++;
	if (!j) {
		printf("extra event %" PRIu64 "\n", e->index);
		bad = 1;
		return 1;
	}
	pos++;
	s = json_string_value(json_object_get(j, "name"));
	if (strcmp(s ? s : "", e->name) != 0) {
		printf("event %" PRIu64 ": name '%s' vs '%s'\n", e->index, e->name, s);
		bad = 1;
	}
	s = json_string_value(json_object_get(j, "cat"));
	if (strcmp(s ? s : "", e->cat) != 0) {
		printf("event %" PRIu64 ": cat differs\n", e->index);
		bad = 1;
	}
	s = text(json_object_get(j, "pid"), b1, sizeof b1);
	if ((s == NULL) != (e->pid == NULL) || (s && strcmp(s, e->pid))) {
		printf("event %" PRIu64 ": pid differs\n", e->index);
		bad = 1;
	}
	s = text(json_object_get(j, "tid"), b1, sizeof b1);
	if ((s == NULL) != (e->tid == NULL) || (s && strcmp(s, e->tid))) {
		printf("event %" PRIu64 ": tid differs\n", e->index);
		bad = 1;
	}
	s = json_string_value(json_object_get(j, "ph"));
	if (e->ph != (s ? s[0] : 0)) {
		printf("event %" PRIu64 ": ph differs\n", e->index);
		bad = 1;
	}
	if (!same_num(e->pid_is_num, e->pid_num, json_object_get(j, "pid")) ||
	    !same_num(e->tid_is_num, e->tid_num, json_object_get(j, "tid"))) {
		printf("event %" PRIu64 ": pid/tid number differs\n", e->index);
		bad = 1;
	}
	if (!same_id(e, json_object_get(j, "id"))) {
		printf("event %" PRIu64 ": id differs\n", e->index);
		bad = 1;
	}
	if (!same_args(e, json_object_get(j, "args")))
		bad = 1;
	if (!near(e->has_ts, e->ts_ns, json_object_get(j, "ts")) ||
	    !near(e->has_dur, e->dur_ns, json_object_get(j, "dur"))) {
		printf("event %" PRIu64 ": ts/dur differ (%" PRId64 ")\n",
		    e->index, e->ts_ns);
		bad = 1;
	}
	return bad;
}

/* The whole document is built in an arena (freed at once at the end):
 * jansson allocates an object per value, and malloc's bookkeeping and
 * first-touch page faults were most of this check's time. Only the
 * document lives there; the per-argument parses in cmp() use malloc. */
#define ARENA_CHUNK ((size_t)32 << 20)
union align {
	long double d;
	long long l;
	void *p;
};
struct chunk {
	struct chunk *next;
	size_t size, used;
	union align data[];
};
static struct chunk *arena;

static void *
arena_alloc(size_t n)
{
	struct chunk *c = arena;
	size_t want = (n + sizeof(union align) - 1) & ~(sizeof(union align) - 1);
	size_t room = ARENA_CHUNK - sizeof *c;

	if (!c || c->used + want > room) {
		size_t sz = want > room ? want + sizeof *c : ARENA_CHUNK;

		c = mmap(NULL, sz, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (c == MAP_FAILED)
			return NULL;
		/* huge pages where the kernel has them: a fault per 2 MiB */
		madvise(c, sz, MADV_HUGEPAGE);
		c->size = sz;
		c->next = arena;
		c->used = 0;
		arena = c;
	}
	c->used += want;
	return (char *)c->data + c->used - want;
}

static void
arena_free(void *p)
{
	(void)p;
}

int
main(int argc, char **argv)
{
	gzFile gz;
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int n;
	json_t *root, *j;
	json_error_t err;
	int rc;
	struct pd_trace_cb cb = { NULL, cmp, NULL, NULL, NULL };
	struct pd_trace_stats st;
	void *img = NULL;
	size_t imglen = 0;

	if (argc == 3 && strcmp(argv[1], "-c") == 0) {
		replayed = 1;
		argv++, argc--;
	}
	if (argc != 2)
		return 2;
	pd_tcache_disable();	/* the parser itself is checked, not a replay */
	gz = gzopen(argv[1], "rb");
	if (!gz)
		return 5;
	for (;;) {
		if (cap - len < 65536) {
			cap = cap ? cap * 2 : 1 << 20;
			buf = realloc(buf, cap);
		}
		n = gzread(gz, buf + len, (unsigned)(cap - len));
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	gzclose(gz);
	json_set_alloc_funcs(arena_alloc, arena_free);
	root = json_loadb(buf, len, 0, &err);
	json_set_alloc_funcs(malloc, free);
	if (replayed && pd_tcache_build_mem(buf, len, &img, &imglen) < 0) {
		printf("not cacheable\n");
		return 1;
	}
	free(buf);
	if (!root) {
		printf("jansson: %s at line %d\n", err.text, err.line);
		return 1;
	}
	events = json_is_array(root) ? root : json_object_get(root, "traceEvents");
	if (replayed)
		rc = pd_tcache_replay_mem(img, imglen, 1, &cb, &st);
	else
		rc = pd_trace_read(argv[1], &cb, &st);
	free(img);
	if (!json_is_array(events)) {
		/* an object without an event array (a summary file): the
		 * reader must say so, having read no event */
		if (rc != 1 || st.events ||
		    strcmp(st.err, "no traceEvents array") != 0) {
			printf("no traceEvents array, but the reader says "
			    "rc=%d events=%" PRIu64 " '%s'\n", rc, st.events,
			    st.err);
			bad = 1;
		}
	} else if (rc != 0 && !bad) {
		printf("reader stopped: %s\n", st.err);
		bad = 1;
	} else if (!bad) {
		while ((j = json_array_get(events, pos)) && !json_is_object(j))
			pos++;
		if (j) {
			printf("event %zu missed by the reader\n", pos);
			bad = 1;
		}
	}
	if (!bad)
		printf("ok %" PRIu64 " events\n", st.events);
	while (arena) {	/* the document, all at once (no json_decref) */
		struct chunk *c = arena;

		arena = c->next;
		munmap(c, c->size);
	}
	return bad;
}
