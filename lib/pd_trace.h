/* pd_trace: a streaming reader of Chrome trace-event files.
 *
 * Reads plain or gzip JSON: an object with "traceEvents" (Kineto) or a bare
 * array (Ascend trace_view.json, the legacy autograd exporter, msprof
 * timelines). Events are handed to a callback one at a time; memory use is
 * bounded by the largest single event, never by the file. Timestamps and
 * durations (µs, number or string, float with ns digits) are parsed into
 * int64 nanoseconds without going through a double. The other top-level
 * keys of a Kineto trace (deviceProperties, distributedInfo, ...) are
 * parsed with jansson and handed to a second callback. */
#ifndef PD_TRACE_H
#define PD_TRACE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

struct pd_ev {
	char ph;		/* 0 when absent */
	const char *name;	/* unescaped, NUL-terminated; "" when absent */
	const char *cat;	/* unescaped; "" when absent */
	const char *pid;	/* text of pid (number text or string); NULL if absent */
	const char *tid;
	int64_t pid_num, tid_num;	/* valid when *_is_num */
	int pid_is_num, tid_is_num;
	int64_t ts_ns, dur_ns;
	int has_ts, has_dur;
	/* raw JSON text of "args": NULL when absent, or when a reader
	 * hands the event out with its args not read yet (lazy set, the
	 * cache's replay): read them with pd_ev_args(), never here */
	const char *args;
	size_t args_len;	/* of the text, read or not */
	const struct pd_lazyargs *lazy;	/* args not read yet; else NULL */
	const char *id;		/* raw text of "id" (quotes stripped), NULL if absent */
	size_t id_len;
	const char *raw;	/* the whole event object text */
	size_t raw_len;
	uint64_t index;		/* ordinal of the event in the file, from 0 */
	struct pd_argmemo *memo;	/* the reader's; NULL: none */
	/* Numbers a reader may give (a read through the cache does, one
	 * that builds the entry as one that replays it; 0 when it does
	 * not), the same within one read (read_no) for the same
	 * (ph, name, cat, pid, pid_is_num) and for the same name: */
	uint32_t shape_id, name_id;
	uint64_t read_no;
};

/* A reader's way to args it has not read yet: get(ev) reads them (NULL
 * when they cannot be had), valid during the on_event call only. find
 * (NULL: none) looks key (klen bytes) up as pd_ev_arg_memo() does, from
 * what the reader keeps of the args without their text: 1 found (*v,
 * *vlen: the value's text), 0 absent, -1 when it cannot answer (the
 * lookup then reads the text). find_n (NULL: none) looks n keys up at
 * once, each as find does (v[i] NULL and vlen[i] 0 when absent): the
 * number found, or -1 when it cannot answer. */
struct pd_lazyargs {
	const char *(*get)(const struct pd_ev *ev);
	int (*find)(const struct pd_ev *ev, const char *key, size_t klen,
	    const char **v, size_t *vlen);
	int (*find_n)(const struct pd_ev *ev, const char *const *keys,
	    const size_t *klen, int n, const char **v, size_t *vlen);
};

/* The text of ev's args (args_len bytes, NUL after them); NULL when it
 * has none. Reads them when the reader handed them out unread. */
static inline const char *
pd_ev_args(const struct pd_ev *ev)
{
	return ev->args ? ev->args : ev->lazy ? ev->lazy->get(ev) : NULL;
}

/* A caller's values (>= 0) for the shapes or names of a read's events,
 * by those numbers: what it worked out once for a name, it looks up by
 * number after. Zero it first; a new read empties it. */
struct pd_idmemo {
	int32_t *v;		/* value + 1; 0: none */
	size_t cap;
	uint64_t read_no;
};
/* The value set for id (ev->shape_id or ev->name_id) in ev's read; -1
 * when none was, or id is 0. */
int32_t pd_idmemo_get(struct pd_idmemo *m, const struct pd_ev *ev,
    uint32_t id);
/* Set it (nothing when id is 0 or memory is short). */
void pd_idmemo_set(struct pd_idmemo *m, const struct pd_ev *ev, uint32_t id,
    int32_t v);
void pd_idmemo_free(struct pd_idmemo *m);

/* What the lookups into one event's args (pd_ev_arg_*, pd_kineto_args)
 * have read of it so far: its top-level keys and values in order, so
 * that each is read once however many lookups the tools make. A reader
 * keeps one for the whole read (zeroed at its start) and points each
 * event it hands out to it; the lookups fill it for the event they are
 * given (it knows its event by args, args_len and index). Private to
 * the lookups: a reader only zeroes it. An event with no memo (one a
 * caller made itself) is read again at each lookup, with the same
 * answers. */
#define PD_ARGMEMO_MAX	32
struct pd_argmemo {
	const char *args;	/* the event it holds: its args, ... */
	size_t args_len;
	uint64_t index;		/* ... and its index */
	const char *pos;	/* where the keys not read yet start */
	int state;		/* more to read, end, bad value, full */
	int whole;		/* all of them read, as pd_json_obj_kv() */
	int n;
	struct pd_argkv {
		const char *k, *v;
		size_t kn, vn;
	} kv[PD_ARGMEMO_MAX];
};

/* The lookups' view of the memo, for pd_kineto_args: the value of key
 * (klen bytes) in ev's args: 1 found, 0 absent, -1 no answer from the
 * memo (no memo, too many keys, or a value the lookups' reader rejects:
 * the caller reads the args itself). A reader's own answer
 * (pd_lazyargs.find) comes first; pd_ev_arg_memo_text is the memo's. */
int pd_ev_arg_memo_text(const struct pd_ev *ev, const char *key,
    size_t klen, const char **v, size_t *vlen);
static inline int
pd_ev_arg_memo(const struct pd_ev *ev, const char *key, size_t klen,
    const char **v, size_t *vlen)
{
	int rc;

	/* a reader that has the keys and values without the text (it
	 * needs no memo) answers first; then the memo, from the text */
	if (!ev->args && ev->lazy && ev->lazy->find &&
	    (rc = ev->lazy->find(ev, key, klen, v, vlen)) >= 0)
		return rc;
	return pd_ev_arg_memo_text(ev, key, klen, v, vlen);
}

/* The keys and values of a whole JSON object (n bytes at a: '{', keys
 * and values read as the lookups read them, '}', blanks around), at most
 * max of them, in order into kv: their number, or -1 when the object is
 * not whole or has more than max keys. */
int pd_json_obj_kv(const char *a, size_t n, struct pd_argkv *kv, int max);

/* The earliest start and latest end of events (pd_tspan_add): lo, hi
 * valid when any. */
struct pd_tspan {
	int any;
	int64_t lo, hi;
};

/* An event's time into s, when it has ts and dur >= 0 (and ts + dur is
 * an int64). */
static inline void
pd_tspan_add(struct pd_tspan *s, int has_ts, int64_t ts, int has_dur,
    int64_t dur)
{
	int64_t end;

	if (!has_ts || !has_dur || dur < 0 ||
	    __builtin_add_overflow(ts, dur, &end))
		return;
	if (!s->any || ts < s->lo)
		s->lo = ts;
	if (!s->any || end > s->hi)
		s->hi = end;
	s->any = 1;
}

/* o's span joined to s. */
static inline void
pd_tspan_join(struct pd_tspan *s, const struct pd_tspan *o)
{
	if (!o->any)
		return;
	if (!s->any || o->lo < s->lo)
		s->lo = o->lo;
	if (!s->any || o->hi > s->hi)
		s->hi = o->hi;
	s->any = 1;
}

struct pd_trace_stats {
	uint64_t events;	/* events read (handed to the callback unless
				 * its filter declined them) */
	uint64_t skipped;	/* array entries that were not objects, or bad ts/dur */
	uint64_t bytes;		/* bytes of JSON read (after inflate) */
	int truncated;		/* the file ended before the JSON did */
	int malformed;		/* syntax error: reading stopped */
	long err_line;		/* where reading stopped (1-based), when one of the above */
	char err[160];		/* what went wrong, when one of the above */
	int format;		/* PD_TRACE_OBJECT or PD_TRACE_ARRAY, 0 if neither */
	/* The events the filter declined but its span callback kept
	 * (pd_trace_cb.span): their earliest ts and latest ts + dur */
	struct pd_tspan span;
};

enum { PD_TRACE_OBJECT = 1, PD_TRACE_ARRAY = 2 };

struct pd_trace_cb {
	void *ctx;
	/* Return nonzero to stop reading. The event is valid during the call. */
	int (*on_event)(const struct pd_ev *ev, void *ctx);
	/* A top-level key other than traceEvents (value borrowed); may be NULL. */
	void (*on_meta)(const char *key, json_t *value, void *ctx);
	/* May be NULL. Which events on_event has any use for: given an
	 * event with only ph, name, cat and pid (pid_num, pid_is_num) set,
	 * the rest 0 or NULL, return 0 for one on_event would do nothing
	 * with. It must answer from those fields alone, the same every time.
	 * The reader then does not call on_event for such events, and
	 * skips the rest of their object once it has read those four keys
	 * (their order in the object does not matter); the cache's replay
	 * skips them without building them or touching their args. A reader may still hand them out (the Nsight reader does),
	 * so on_event must not depend on their absence. The events skipped
	 * count in stats and in ev->index as before. PD_TRACE_FILTER=0 turns
	 * every filter off (for comparing: the output must be the same). */
	int (*want)(const struct pd_ev *ev);
	/* May be NULL. Of the events want declines, those of which on_event
	 * would only use the time (asked as want is, from the same fields,
	 * nonzero for those): the reader keeps the earliest start and latest
	 * end of them in the stats' span instead of handing each out. A
	 * reader that hands out declined events (the Nsight reader) leaves
	 * the span empty: on_event still sees them. */
	int (*span)(const struct pd_ev *ev);
};

/* Does cb want ev (its filter applied to ph, name, cat and pid alone)?
 * 1 when cb has no filter or PD_TRACE_FILTER=0. */
int pd_trace_wants(const struct pd_trace_cb *cb, const struct pd_ev *ev);

/* Is filtering on (PD_TRACE_FILTER is not 0) and has cb a filter? */
int pd_trace_filters(const struct pd_trace_cb *cb);

/* What a read does with ev (ph, name, cat and pid alone, as
 * pd_trace_wants asks): PD_WANT hand it out, PD_SPAN keep its time in the
 * stats' span, PD_DECLINE pass it over. PD_WANT when cb has no filter or
 * PD_TRACE_FILTER=0. */
enum { PD_DECLINE = 0, PD_WANT = 1, PD_SPAN = 2 };
int pd_trace_answer(const struct pd_trace_cb *cb, const struct pd_ev *ev);

/* Read a trace. Returns 0 when the file was read to its end (even with
 * skipped events), 1 when it was truncated or malformed (stats say where),
 * -1 when it could not be opened or read (errno set). */
int pd_trace_read(const char *path, const struct pd_trace_cb *cb,
    struct pd_trace_stats *st);

/* Same, from memory (for tests and fuzzing). */
int pd_trace_read_mem(const char *buf, size_t len, const struct pd_trace_cb *cb,
    struct pd_trace_stats *st);

/* The reads without the cache (the cache's sources): args_kv nonzero,
 * each event's args' keys and values are read as the event is, where
 * the object is plainly written, and handed out in ev->memo as
 * pd_json_obj_kv() gives them (its whole set): the cache's builder keeps
 * them so. */
int pd_trace_read_src(const char *path, const struct pd_trace_cb *cb,
    struct pd_trace_stats *st, int args_kv);
int pd_trace_read_mem_src(const char *buf, size_t len,
    const struct pd_trace_cb *cb, struct pd_trace_stats *st, int args_kv);

/* Looking into an event's args (top-level keys only). Return 1 when found
 * with the right type, 0 otherwise. */
int pd_ev_arg_raw(const struct pd_ev *ev, const char *key, const char **v,
    size_t *len);
/* pd_ev_arg_raw of n keys (v[i] NULL, len[i] 0 where absent; klen: their
 * lengths, or NULL): the number found. At once where the reader can
 * answer so (pd_lazyargs.find_n, n at most 8), else one key at a time:
 * the same answers. */
int pd_ev_arg_raw_n(const struct pd_ev *ev, const char *const *keys,
    const size_t *klen, int n, const char **v, size_t *len);
int pd_ev_arg_int(const struct pd_ev *ev, const char *key, int64_t *v);
int pd_ev_arg_double(const struct pd_ev *ev, const char *key, double *v);
/* Copies the unescaped string (or the number text) into buf, NUL-terminated. */
int pd_ev_arg_str(const struct pd_ev *ev, const char *key, char *buf,
    size_t size);
/* The whole args object parsed with jansson (new reference, NULL if none). */
json_t *pd_ev_args_json(const struct pd_ev *ev);

/* A number for the event's pid (tid): the number itself when the trace
 * writes one, else a hash of its text (FNV-1a) with the top bit set, so
 * that string ids ("Spans", "stream 7") never equal a numeric one. */
int64_t pd_ev_pid_key(const struct pd_ev *ev);
int64_t pd_ev_tid_key(const struct pd_ev *ev);

/* Same lookups on any raw JSON object text. */
int pd_json_raw_get(const char *obj, size_t len, const char *key,
    const char **v, size_t *vlen);

/* Does the file look like a trace (sniffs the first bytes only)?
 * Returns PD_TRACE_OBJECT / PD_TRACE_ARRAY / 0. */
int pd_trace_sniff(const char *path);

#endif
