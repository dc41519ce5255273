/* The trace cache (pd_tcache.h).
 *
 * An entry, in native byte order (it never leaves the machine):
 *   header (struct hdr), then
 *   events:   chunks of up to CHUNK_REC events: a struct chunk, the
 *             numbers of the shapes its events have (each once, 4 bytes
 *             each, padded to 8 bytes), the span of each one's events
 *             in the chunk (struct cspan, in the same order), its
 *             records (struct nrec when every event of the chunk fits
 *             one, else struct rec) padded to 8 bytes, the id texts of
 *             those events in their order (each followed by a NUL)
 *             padded to 8 bytes, then
 *             their args texts by class (NCLS blocks, each padded to 8
 *             bytes; an event's class is its category's: each of the
 *             first NCLS - 1 categories met has one, the rest share the
 *             last), each args text followed by a NUL
 *   shapes:   nshp struct shape: what an event's filter may look at
 *   strings:  nstr struct str, then their bytes (each NUL-terminated)
 *   skips:    struct skip: how many entries were skipped before event pos
 *   metas:    struct meta, then the key, a NUL, the value as compact JSON,
 *             a NUL, padded to 8 bytes
 * Names, categories, pid and tid texts are interned: a record holds the
 * number of its shape (ph, name, cat, pid) and of its tid. A filter
 * (pd_trace_cb.want) is asked once per shape; the events it declines are
 * passed over by their record alone.
 *
 * Checking: the header's checksum covers every byte after the events,
 * then the header with its sum field 0; it is checked before anything is
 * handed out. A chunk's sum covers its header, shapes (their numbers and
 * spans), records and ids,
 * checked when the replay comes to the chunk, before its first event is
 * handed out; its header and shapes have a sum of their own, checked
 * before the shapes decide that none of its events is wanted (then the
 * rest of the chunk is not read); each args block has its own, checked
 * when the block is read.
 * A chunk or record found bad half way hands the read over to the trace
 * itself, from that event on; an args block found bad when an event's
 * args are asked for gives that event the trace's args (the trace parsed
 * up to it), and the read goes on from the trace after it.
 *
 * Reading: the header and the sections after the events are read when
 * the entry is opened; then each chunk's header, records and ids with
 * read(2) into one buffer (faulting in the pages of a mapping of the
 * entry cost more than the rest of the replay), and an args block only
 * when the args of one of its events are first asked for (pd_ev_args):
 * most tools read the args of a few categories, some of none, and args
 * are two thirds of an entry. In memory (pd_tcache_replay_mem) every
 * block is checked when its chunk is come to and args are handed out
 * read. */
#include "pd_tcache.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <dirent.h>
#include <unistd.h>

#include "pd_archive.h"
#include "pd_file.h"

#define VERSION		8
#define NONE		UINT32_MAX
#define MIN_AGE_NS	2000000000LL	/* a trace younger is not cached */
#define STALL_NS	5000000000LL	/* a builder silent this long: read */
#define DEFAULT_MIB	4096
#define FLUSH		(1 << 20)
#define CHUNK_REC	4096		/* events a chunk */
#define CHUNK_ARGS	(1 << 20)	/* args bytes that end a chunk early */
#define NCLS		16	/* args classes: a chunk's args by category */
#define PAD8(n)		(((uint64_t)(n) + 7) & ~(uint64_t)7)	/* to 8 bytes */
#define QUICK_BITS	12
#define QUICK		(1 << QUICK_BITS)	/* the builder's string memo */

enum {
	F_TS = 1, F_DUR = 2, F_TIDNUM = 4, F_ARGS = 8, F_ID = 16,
	F_ENC = 32	/* args by skeleton (below), not their text */
};
#define ID_MAX		((1u << 24) - 1)	/* an event's id text, at most */
#define SKEL_MAX	65536	/* skeletons an entry has, at most */
#define KC_N		256	/* keys looked up by skeleton, remembered */
#define KC_KEY		40	/* the longest key remembered */

struct key {
	uint64_t dev, ino, size;
	int64_t mtime_s, mtime_ns, ctime_s, ctime_ns;
	uint64_t member_hash;	/* of ARCHIVE//MEMBER's member; 0 for a file;
				 * with a variant (pd_tcache_read_as) mixed in */
};

struct hdr {
	char magic[8];
	uint32_t version, hdr_size;
	uint64_t order;
	uint64_t sum;
	uint64_t file_size;
	struct key key;
	int32_t rc, format, truncated, malformed;
	int64_t err_line;
	uint64_t events, skipped, bytes;
	char err[160];
	uint64_t ev_off, ev_len, nev;
	uint64_t shp_off, nshp;
	uint64_t str_off, nstr, sbytes_off, sbytes_len;
	uint64_t skip_off, nskip;
	uint64_t meta_off, meta_len, nmeta;
	uint64_t skel_off, skel_len, nskel;
};

struct chunk {
	uint32_t nrec, ncls;	/* ncls: NCLS */
	uint64_t id_len;	/* the ids, padding not counted */
	uint64_t sum;		/* of the chunk (sum 0), its shapes, records
				 * and ids (padding included) */
	uint64_t hsum;		/* of the chunk (sum, hsum 0) and its shapes */
	int64_t ts_base;	/* narrow records' ts are after it */
	uint32_t rsize;		/* a record's bytes: struct nrec or rec */
	uint32_t nshp;		/* shapes its events have */
	uint64_t alen[NCLS];	/* each class's args, padding not counted */
	uint64_t asum[NCLS];	/* of each class's args, padding included */
};

struct rec {
	int64_t ts_ns, dur_ns;
	uint32_t shape, tid;
	uint32_t args_len;	/* of the text */
	uint32_t blk_len;	/* of what its class's block holds of them */
	uint32_t raw_len;
	uint32_t idfl;		/* the id's length | the flags << 24 */
};
#define R_IDLEN(r)	((r)->idfl & ID_MAX)
#define R_FL(r)		((r)->idfl >> 24)

/* A record half the size, for a chunk whose events all fit one: ts
 * within 2^32 ns after the chunk's ts_base (or 0 without F_TS), dur from
 * 0 to 2^32 - 1 ns, shape, tid (NONE: N16) and lengths below 2^16, the
 * id's below 2^8. A dense trace's chunk spans milliseconds; its events'
 * records are read by every replay, and were most of an entry. */
struct nrec {
	uint32_t ts, dur;
	uint16_t shape, tid, args_len, blk_len, raw_len;
	uint8_t fl, idlen;
};
#define N16		UINT16_MAX

/* An event's args are held in its class's block either as their text and
 * a NUL, or (F_ENC), when that is shorter, by skeleton: the text with
 * each top-level value cut out, kept once in the entry, then for the
 * event the skeleton's number (4 bytes), the length of each value (a
 * LEB128 number) and the values' bytes. A replay hands out the keys and
 * values from there (pd_lazyargs.find) without putting the text together;
 * it does so only for a caller that asks for the text. Encoded are only
 * whole objects (pd_json_obj_kv), so that the keys and values are those
 * the lookups would read from the text.
 *
 * A skeleton in the entry: a skh, nv skv, the text and a NUL, padded to
 * 8 bytes. */
struct skh {
	uint32_t len, nv;	/* of the text; values */
};
struct skv {
	uint32_t koff, klen;	/* the key (between its quotes) in the text */
	uint32_t cut;		/* where the value goes in the text */
};

struct shape {
	uint32_t name, cat, pid;
	uint8_t ph, pid_is_num;
	uint8_t cls, pad;	/* cls: its args' class (< NCLS) */
};
_Static_assert(sizeof(struct shape) == 16, "a shape is two words");
_Static_assert(sizeof(struct nrec) == 20 && sizeof(struct rec) == 40 &&
    sizeof(struct chunk) == 304, "records and chunk headers as written");

struct str {
	uint64_t off;
	uint32_t len, has_num;
	int64_t num;
};

struct skip {
	uint64_t pos, count;
};

/* The span of a chunk's events of one shape, as pd_tspan_add keeps it,
 * written so: lo > hi when it has none. A replay whose filter keeps only
 * the time of a shape's events (PD_SPAN) takes it from here for a chunk
 * it passes over. */
struct cspan {
	int64_t lo, hi;
};

struct meta {
	uint64_t pos;
	uint32_t key_len, val_len;
};

static const char magic[8] = "PDTCACHE";
static int disabled, last;
static uint64_t reads;	/* reads so far (builds, replays): read_no */

void
pd_tcache_disable(void)
{
	disabled = 1;
}

void
pd_tcache_enable(void)
{
	disabled = 0;
}

int
pd_tcache_last(void)
{
	return last;
}

/* ---- checksums: multiply-xor over 8-byte words ---- */

struct cs {
	uint64_t h[4];
	uint64_t n;	/* words so far */
};

#define CS_P	0x9E3779B97F4A7C15ULL

static void
cs_init(struct cs *c)
{
	c->h[0] = 0x243F6A8885A308D3ULL;
	c->h[1] = 0x13198A2E03707344ULL;
	c->h[2] = 0xA4093822299F31D0ULL;
	c->h[3] = 0x082EFA98EC4E6C89ULL;
	c->n = 0;
}

/* len is a multiple of 8 */
static void
cs_add(struct cs *c, const void *p, size_t len)
{
	const unsigned char *b = p;
	size_t i = 0, n = len / 8;
	uint64_t w, h0, h1, h2, h3;

	while (i < n && (c->n & 3)) {
		memcpy(&w, b + 8 * i++, 8);
		c->h[c->n & 3] = (c->h[c->n & 3] ^ w) * CS_P;
		c->n++;
	}
	h0 = c->h[0], h1 = c->h[1], h2 = c->h[2], h3 = c->h[3];
	for (; i + 4 <= n; i += 4) {
		uint64_t w4[4];
		memcpy(w4, b + 8 * i, 32);
		h0 = (h0 ^ w4[0]) * CS_P;
		h1 = (h1 ^ w4[1]) * CS_P;
		h2 = (h2 ^ w4[2]) * CS_P;
		h3 = (h3 ^ w4[3]) * CS_P;
		c->n += 4;
	}
	c->h[0] = h0, c->h[1] = h1, c->h[2] = h2, c->h[3] = h3;
	while (i < n) {
		memcpy(&w, b + 8 * i++, 8);
		c->h[c->n & 3] = (c->h[c->n & 3] ^ w) * CS_P;
		c->n++;
	}
}

static uint64_t
cs_end(const struct cs *c)
{
	uint64_t x = c->n;
	int i;

	for (i = 0; i < 4; i++) {
		x = (x ^ c->h[i]) * CS_P;
		x ^= x >> 31;
	}
	return x;
}

static uint64_t
fnv(const void *p, size_t n, uint64_t x)
{
	const unsigned char *s = p;

	while (n--)
		x = (x ^ *s++) * 1099511628211ULL;
	return x;
}

/* A hash for the builder's tables: 8 bytes a step. */
static uint64_t
whash(const void *p, size_t n)
{
	const char *s = p;
	uint64_t x = 0x452821E638D01377ULL ^ n, w;

	for (; n >= 8; n -= 8, s += 8) {
		memcpy(&w, s, 8);
		x = (x ^ w) * CS_P;
		x ^= x >> 29;
	}
	w = 0;
	memcpy(&w, s, n);
	x = (x ^ w) * CS_P;
	return x ^ (x >> 32);
}

/* ---- writing an entry ---- */

struct wr {
	int fd;			/* -1: in memory */
	char *buf;
	size_t len, cap;
	uint64_t off;		/* bytes before buf (written out) */
	int tail;		/* past the events: summed in cs */
	struct cs cs;		/* the sections after the events */
	int err;
};

static void
wreserve(struct wr *w, size_t n)
{
	size_t nc;
	char *nb;

	if (w->err || w->len + n <= w->cap)
		return;
	nc = w->cap ? w->cap : FLUSH + 4096;
	while (nc < w->len + n)
		nc *= 2;
	if (!(nb = realloc(w->buf, nc))) {
		w->err = 1;
		return;
	}
	w->buf = nb;
	w->cap = nc;
}

static void
wput(struct wr *w, const void *p, size_t n)
{
	if (n == 0)
		return;
	wreserve(w, n);
	if (w->err)
		return;
	memcpy(w->buf + w->len, p, n);
	w->len += n;
}

static void
wpad(struct wr *w)
{
	static const char z[8];

	if ((w->off + w->len) & 7)
		wput(w, z, 8 - ((w->off + w->len) & 7));
}

static uint64_t
wpos(const struct wr *w)
{
	return w->off + w->len;
}

/* Out with what is buffered (at an 8-byte boundary); in memory, nothing:
 * the buffer is the image. */
static void
wflush(struct wr *w, int force)
{
	if (w->err || w->fd < 0 || (!force && w->len < FLUSH))
		return;
	if (w->tail)
		cs_add(&w->cs, w->buf, w->len);
	if (pd_file_write_all(w->fd, w->buf, w->len) != 0) {
		w->err = 1;
		return;
	}
	w->off += w->len;
	w->len = 0;
}

/* Out with the n pieces of v, past what is buffered (nothing, after
 * wflush); together a multiple of 8 bytes long. */
static void
wvec(struct wr *w, struct iovec *v, int n)
{
	int i;

	if (w->err || w->len)
		return;
	while (n > 0) {
		ssize_t r = writev(w->fd, v, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			w->err = 1;
			return;
		}
		w->off += (uint64_t)r;
		for (i = 0; i < n && (size_t)r >= v[i].iov_len; i++)
			r -= (ssize_t)v[i].iov_len;
		v += i;
		n -= i;
		if (n > 0) {
			v->iov_base = (char *)v->iov_base + r;
			v->iov_len -= (size_t)r;
		}
	}
}

/* ---- the builder: recording what the source reader hands out ---- */

struct ient {
	uint64_t hash;
	uint32_t id;
};

/* An open-addressing table of numbers 1.. (0: empty) by hash. */
struct itab {
	struct ient *t;
	size_t cap, n;
};

/* A string by its length and its ends: the first and last 8 bytes
 * (4 and 4 below 8; the bytes themselves below 4), which are the whole
 * string up to 16 bytes; its number + 1 (0: none). */
struct qstr {
	uint64_t a, z;
	uint32_t n, id1;
};

struct bld {
	const struct pd_trace_cb *cb;	/* the caller's */
	struct pd_trace_stats *st;	/* the source's, as it fills */
	int filter;			/* cb's filter is on */
	struct wr w;
	/* the chunk being filled: records, ids, args by class; its
	 * records narrowed when they fit (nrecs) */
	struct rec *recs;
	struct nrec *nrecs;
	size_t nrec;
	struct buf {
		char *p;
		size_t len, cap;
	} ids, args[NCLS];
	size_t alen;		/* args bytes in the chunk */
	/* what the builder knows of each shape: its args' class and the
	 * caller's filter's answer (0 not asked yet, 1 yes, 2 no: it
	 * answers from the shape's fields alone) */
	struct shx {
		uint8_t cls, want;
		uint32_t sk;	/* its last event's skeleton + 1 */
		uint32_t chunk;	/* the last chunk it is in + 1 */
		uint32_t ci;	/* its place in that chunk's list */
	} *sx;
	size_t sxcap;
	/* the shapes of the chunk being filled, each once, and the span
	 * of each one's events there; chunks out */
	uint32_t *cshp;
	struct pd_tspan *csp;
	struct cspan *cspw;	/* csp as written */
	size_t ncshp;
	uint32_t nchunk;
	/* the categories of the first NCLS - 1 classes (the rest share
	 * the last) */
	uint32_t clscat[NCLS - 1];
	int ncat;
	/* interned strings and shapes */
	struct itab stab, htab;
	struct str *strs;
	size_t nstr, scap;
	char *sb;
	size_t sblen, sbcap;
	struct shape *shps;
	size_t nshp, hcap;
	/* strings met lately, by their length and ends, and the string
	 * each field (name, cat, pid, tid) had in the event before; shapes
	 * met lately, and the previous event's: most events repeat them */
	struct qstr quick[QUICK], last[4];
	uint32_t qshp[QUICK];	/* number + 1; 0: none */
	uint32_t prev_shp;
	uint32_t cur_shp;	/* the shape of the event just recorded, */
	int has_cur;		/* when it was */
	/* skips and metas, small */
	struct skip *skips;
	size_t nskip, skcap;
	struct wr mw;	/* metas, in memory */
	uint64_t nmeta;
	uint64_t nev, last_skipped;
	uint64_t read_no;	/* the read's number for ev->read_no */
	/* skeletons: as the entry has them, where each starts, by hash;
	 * a new one made in tmp; the keys and values of an event's args */
	struct buf sk, tmp;
	uint64_t *skoff;
	size_t nskel, skocap;
	struct itab ktab;
	struct pd_argkv kv[PD_ARGMEMO_MAX];
	int failed, stopped;
};

static void *
grow(void *p, size_t *cap, size_t need, size_t size, size_t first, int *failed)
{
	size_t nc = *cap ? *cap : first;
	void *np;

	if (need <= *cap)
		return p;
	while (nc < need)
		nc *= 2;
	if (nc > SIZE_MAX / size || !(np = realloc(p, nc * size))) {
		*failed = 1;
		return NULL;
	}
	*cap = nc;
	return np;
}

/* The slot of hash h in t (its id, or 0 where it would go): eq(id) says
 * whether id is the one looked for. Grows t first; NULL when it cannot. */
static struct ient *
itab_find(struct itab *t, uint64_t h, int (*eq)(struct bld *, uint32_t,
    const void *), struct bld *b, const void *key)
{
	size_t i;

	if (t->n * 2 >= t->cap) {
		size_t nc = t->cap ? t->cap * 2 : 1024, j;
		struct ient *nt = calloc(nc, sizeof *nt);
		if (!nt || t->n >= NONE - 1) {
			free(nt);
			b->failed = 1;
			return NULL;
		}
		for (j = 0; j < t->cap; j++) {
			struct ient e = t->t[j];
			if (!e.id)
				continue;
			for (i = e.hash & (nc - 1); nt[i].id; i = (i + 1) & (nc - 1))
				;
			nt[i] = e;
		}
		free(t->t);
		t->t = nt;
		t->cap = nc;
	}
	for (i = h & (t->cap - 1); t->t[i].id; i = (i + 1) & (t->cap - 1))
		if (t->t[i].hash == h && eq(b, t->t[i].id - 1, key))
			break;
	t->t[i].hash = h;
	return &t->t[i];
}

struct skey {
	const char *s;
	size_t n;
};

static int
str_eq(struct bld *b, uint32_t id, const void *key)
{
	const struct skey *k = key;
	const struct str *x = &b->strs[id];

	return x->len == k->n && memcmp(b->sb + x->off, k->s, k->n) == 0;
}

static uint32_t intern(struct bld *b, const char *s, const struct qstr *k);

/* s's length and ends (k->id1 not set). */
static void
qkey(const char *s, struct qstr *k)
{
	size_t n = strlen(s);
	uint32_t x, y;

	k->n = (uint32_t)n;
	if (n >= 8) {		/* fixed-size copies: plain loads */
		memcpy(&k->a, s, 8);
		memcpy(&k->z, s + n - 8, 8);
	} else if (n >= 4) {
		memcpy(&x, s, 4);
		memcpy(&y, s + n - 4, 4);
		k->a = x;
		k->z = y;
	} else {
		k->a = n ? (unsigned char)s[0] |
		    (uint64_t)(unsigned char)s[n / 2] << 8 |
		    (uint64_t)(unsigned char)s[n - 1] << 16 : 0;
		k->z = 0;
	}
}

/* Is q (a string met before) the string s of key k? */
static int
qsame(const struct bld *b, const struct qstr *q, const char *s,
    const struct qstr *k)
{
	if (!q->id1 || q->n != k->n || q->a != k->a || q->z != k->z)
		return 0;
	/* the ends are all of it up to 16 bytes */
	return k->n <= 16 ||
	    memcmp(b->sb + b->strs[q->id1 - 1].off + 8, s + 8, k->n - 16) == 0;
}

/* A field's string, most often the one the field had in the event
 * before (a process's pid, a category): that one is tried first. */
static uint32_t
intern_f(struct bld *b, int f, const char *s)
{
	struct qstr k, *l = &b->last[f];
	uint32_t id;

	qkey(s, &k);
	if (qsame(b, l, s, &k))
		return l->id1 - 1;
	id = intern(b, s, &k);
	if (!b->failed) {
		*l = k;
		l->id1 = id + 1;
	}
	return id;
}

static uint32_t
intern(struct bld *b, const char *s, const struct qstr *qk)
{
	struct skey k = { s, qk->n };
	struct ient *e;
	size_t need;
	char *nb;
	struct str *ns;
	struct qstr *q;

	/* first the memo: a slot by the length and ends */
	q = &b->quick[(((qk->a ^ qk->n) * CS_P ^ qk->z) * CS_P) >>
	    (64 - QUICK_BITS)];
	if (qsame(b, q, s, qk))
		return q->id1 - 1;
	e = itab_find(&b->stab, whash(s, k.n), str_eq, b, &k);
	if (!e)
		return 0;
	if (!e->id) {
		if ((ns = grow(b->strs, &b->scap, b->nstr + 1, sizeof *ns,
		    256, &b->failed)) == NULL)
			return 0;
		b->strs = ns;
		need = b->sblen + k.n + 1;
		if ((nb = grow(b->sb, &b->sbcap, need, 1, 4096,
		    &b->failed)) == NULL)
			return 0;
		b->sb = nb;
		memcpy(b->sb + b->sblen, s, k.n + 1);
		b->strs[b->nstr] = (struct str){ b->sblen, (uint32_t)k.n, 0,
		    0 };
		b->sblen += k.n + 1;
		e->id = (uint32_t)++b->nstr;
		b->stab.n++;
	}
	*q = *qk;
	q->id1 = e->id;
	return e->id - 1;
}

/* An id text (pid, tid) and the number the reader made of it: the
 * number is kept with the string, and must be the same every time. */
static uint32_t
intern_id(struct bld *b, int f, const char *s, int64_t num)
{
	uint32_t id;
	struct str *x;

	if (!s)
		return NONE;
	id = intern_f(b, f, s);
	if (b->failed)
		return NONE;
	x = &b->strs[id];
	if (x->has_num && x->num != num)
		b->failed = 1;
	x->has_num = 1;
	x->num = num;
	return id;
}

static int
shp_eq(struct bld *b, uint32_t id, const void *key)
{
	return memcmp(&b->shps[id], key, sizeof(struct shape)) == 0;
}

/* The args class of a category: one of its own for the first NCLS - 1
 * met, the last for the rest. A replay reads a chunk's args a class at
 * a time, when asked for them: a tool that reads the args of kernels
 * alone reads no other category's. */
static uint8_t
cat_class(struct bld *b, uint32_t cat)
{
	int i;

	for (i = 0; i < b->ncat; i++)
		if (b->clscat[i] == cat)
			return (uint8_t)i;
	if (b->ncat == NCLS - 1)
		return NCLS - 1;
	b->clscat[b->ncat] = cat;
	return (uint8_t)b->ncat++;
}

/* Is x (a shape of the table) s? (cls is 0 in both while building.) */
static int
shp_same(const struct shape *x, const struct shape *s)
{
	return x->name == s->name && x->cat == s->cat && x->pid == s->pid &&
	    x->ph == s->ph && x->pid_is_num == s->pid_is_num;
}

static uint32_t
intern_shape(struct bld *b, const struct shape *s)
{
	struct ient *e;
	struct shape *ns;
	struct shx *x;

	uint64_t w0, w1;
	uint32_t *q;

	/* s was just written field by field: its fields compared, not
	 * its bytes (a wider load of narrower stores waits for them) */
	if (b->prev_shp < b->nshp && shp_same(&b->shps[b->prev_shp], s))
		return b->prev_shp;
	w0 = s->name | (uint64_t)s->cat << 32;
	w1 = s->pid | (uint64_t)s->ph << 32 | (uint64_t)s->pid_is_num << 40;
	q = &b->qshp[((w0 * CS_P ^ w1) * CS_P) >> (64 - QUICK_BITS)];
	if (*q && shp_same(&b->shps[*q - 1], s))
		return b->prev_shp = *q - 1;
	e = itab_find(&b->htab, whash(s, sizeof *s), shp_eq, b, s);
	if (!e)
		return 0;
	if (e->id) {
		*q = e->id;
		return b->prev_shp = e->id - 1;
	}
	if ((ns = grow(b->shps, &b->hcap, b->nshp + 1, sizeof *ns, 256,
	    &b->failed)) == NULL)
		return 0;
	b->shps = ns;
	if (!(x = grow(b->sx, &b->sxcap, b->nshp + 1, sizeof *x, 256,
	    &b->failed)))
		return 0;
	b->sx = x;
	b->shps[b->nshp] = *s;
	b->sx[b->nshp].cls = cat_class(b, s->cat);
	b->sx[b->nshp].want = 0;
	b->sx[b->nshp].sk = 0;
	b->sx[b->nshp].chunk = 0;
	e->id = (uint32_t)++b->nshp;
	b->htab.n++;
	*q = e->id;
	return b->prev_shp = e->id - 1;
}

static void
note_skips(struct bld *b)
{
	struct skip *ns;

	if (b->st->skipped == b->last_skipped)
		return;
	if ((ns = grow(b->skips, &b->skcap, b->nskip + 1, sizeof *ns, 16,
	    &b->failed)) == NULL)
		return;
	b->skips = ns;
	b->skips[b->nskip++] = (struct skip){ b->nev,
	    b->st->skipped - b->last_skipped };
	b->last_skipped = b->st->skipped;
}

/* A buffer's bytes padded with zeros to 8, and their sum; 0 or -1
 * (out of memory). */
static int
bpad(struct bld *b, struct buf *x, uint64_t *sum)
{
	size_t ab = (size_t)PAD8(x->len);
	char *nb;
	struct cs s;

	if (!(nb = grow(x->p, &x->cap, ab ? ab : 1, 1, 4096, &b->failed)))
		return -1;
	x->p = nb;
	memset(x->p + x->len, 0, ab - x->len);
	if (sum) {
		cs_init(&s);
		cs_add(&s, x->p, ab);
		*sum = cs_end(&s);
	}
	return 0;
}

/* The chunk's records as struct nrec in b->nrecs (padded with zeros to
 * 8 bytes), when each fits one: 1; else 0 (they stay struct rec). */
static int
narrow(struct bld *b, int64_t *base)
{
	const struct rec *r = b->recs, *e = r + b->nrec;
	struct nrec *n;
	int64_t lo = INT64_MAX;
	size_t i;

	for (; r < e; r++)
		if ((R_FL(r) & F_TS) && r->ts_ns < lo)
			lo = r->ts_ns;
	if (!b->nrecs && !(b->nrecs = calloc(CHUNK_REC + 1, sizeof *n)))
		return 0;
	/* each record checked as it is written: the first that does not
	 * fit leaves the chunk wide */
	for (i = 0, r = b->recs, n = b->nrecs; r < e; r++, n++, i++) {
		if ((R_FL(r) & F_TS ? (uint64_t)r->ts_ns - (uint64_t)lo >
		    UINT32_MAX : r->ts_ns != 0) || r->dur_ns < 0 ||
		    r->dur_ns > UINT32_MAX || r->shape >= N16 ||
		    (r->tid >= N16 && r->tid != NONE) || r->args_len > N16 ||
		    r->blk_len > N16 || r->raw_len > N16 || R_IDLEN(r) > 255)
			return 0;
		n->ts = R_FL(r) & F_TS ? (uint32_t)((uint64_t)r->ts_ns -
		    (uint64_t)lo) : 0;
		n->dur = (uint32_t)r->dur_ns;
		n->shape = (uint16_t)r->shape;
		n->tid = r->tid == NONE ? N16 : (uint16_t)r->tid;
		n->args_len = (uint16_t)r->args_len;
		n->blk_len = (uint16_t)r->blk_len;
		n->raw_len = (uint16_t)r->raw_len;
		n->fl = (uint8_t)R_FL(r);
		n->idlen = (uint8_t)R_IDLEN(r);
	}
	memset(n, 0, (size_t)PAD8(i * sizeof *n) - i * sizeof *n);
	*base = lo == INT64_MAX ? 0 : lo;
	return 1;
}

/* A narrow record as the struct rec it stands for. */
static inline void
widen(struct rec *r, const struct nrec *n, int64_t base)
{
	r->ts_ns = n->fl & F_TS ? (int64_t)((uint64_t)base + n->ts) : 0;
	r->dur_ns = n->dur;
	r->shape = n->shape;
	r->tid = n->tid == N16 ? NONE : n->tid;
	r->args_len = n->args_len;
	r->blk_len = n->blk_len;
	r->raw_len = n->raw_len;
	r->idfl = (uint32_t)n->idlen | (uint32_t)n->fl << 24;
}

/* The chunk filled so far out to the entry: its header, records, ids,
 * then each class's args. */
static void
chunk_out(struct bld *b)
{
	struct chunk c;
	struct cs s;
	struct iovec v[5 + NCLS];
	const void *rp = b->recs;
	size_t rb, lb, sb, i;
	int k, nv = 0;

	if (b->nrec == 0)
		return;
	memset(&c, 0, sizeof c);
	c.nrec = (uint32_t)b->nrec;
	c.ncls = NCLS;
	c.rsize = sizeof *b->recs;
	if (narrow(b, &c.ts_base)) {
		rp = b->nrecs;
		c.rsize = sizeof *b->nrecs;
	}
	rb = (size_t)PAD8(b->nrec * c.rsize);
	c.nshp = (uint32_t)b->ncshp;
	lb = (size_t)PAD8(b->ncshp * sizeof *b->cshp);
	b->cshp[b->ncshp] = 0;	/* the padding, if any */
	sb = b->ncshp * sizeof *b->cspw;
	for (i = 0; i < b->ncshp; i++) {
		b->cspw[i].lo = b->csp[i].any ? b->csp[i].lo : INT64_MAX;
		b->cspw[i].hi = b->csp[i].any ? b->csp[i].hi : INT64_MIN;
	}
	c.id_len = b->ids.len;
	if (bpad(b, &b->ids, NULL) < 0)
		return;
	for (k = 0; k < NCLS; k++) {
		c.alen[k] = b->args[k].len;
		if (bpad(b, &b->args[k], &c.asum[k]) < 0)
			return;
	}
	cs_init(&s);
	cs_add(&s, &c, sizeof c);
	cs_add(&s, b->cshp, lb);
	cs_add(&s, b->cspw, sb);
	c.hsum = cs_end(&s);
	cs_init(&s);
	cs_add(&s, &c, sizeof c);
	cs_add(&s, b->cshp, lb);
	cs_add(&s, b->cspw, sb);
	cs_add(&s, rp, rb);
	cs_add(&s, b->ids.p, (size_t)PAD8(b->ids.len));
	c.sum = cs_end(&s);
	v[nv++] = (struct iovec){ &c, sizeof c };
	v[nv++] = (struct iovec){ b->cshp, lb };
	v[nv++] = (struct iovec){ b->cspw, sb };
	v[nv++] = (struct iovec){ (void *)rp, rb };
	if (b->ids.len)
		v[nv++] = (struct iovec){ b->ids.p, (size_t)PAD8(b->ids.len) };
	for (k = 0; k < NCLS; k++)
		if (b->args[k].len)
			v[nv++] = (struct iovec){ b->args[k].p,
			    (size_t)PAD8(b->args[k].len) };
	if (b->w.fd >= 0) {
		/* to the file from where the chunk is: no copy into w */
		wflush(&b->w, 1);
		wvec(&b->w, v, nv);
	} else {
		for (k = 0; k < nv; k++)
			wput(&b->w, v[k].iov_base, v[k].iov_len);
	}
	if (b->w.err)
		b->failed = 1;
	b->nrec = 0;
	b->ncshp = 0;
	b->nchunk++;
	b->alen = 0;
	b->ids.len = 0;
	for (k = 0; k < NCLS; k++)
		b->args[k].len = 0;
}

/* s (n bytes) and a NUL onto x. */
static void
bput(struct bld *b, struct buf *x, const char *s, size_t n)
{
	char *nb = grow(x->p, &x->cap, x->len + n + 1, 1, 4096, &b->failed);

	if (!nb)
		return;
	x->p = nb;
	if (n)
		memcpy(x->p + x->len, s, n);
	x->p[x->len + n] = 0;
	x->len += n + 1;
}

/* ---- args by skeleton (struct skh) ---- */

static const struct skh *
sk_at(const struct bld *b, uint32_t id)
{
	return (const void *)(b->sk.p + b->skoff[id]);
}

static size_t
sk_size(const struct skh *x)
{
	return sizeof *x + x->nv * sizeof(struct skv) + x->len + 1;
}

static int
sk_eq(struct bld *b, uint32_t id, const void *key)
{
	const struct skh *x = sk_at(b, id), *y = key;

	return x->len == y->len && x->nv == y->nv &&
	    memcmp(x, y, sk_size(x)) == 0;
}

/* Are the n bytes at x and y the same? (Short ones mostly: a few loads
 * rather than a call.) */
static inline int
same(const char *x, const char *y, size_t n)
{
	uint64_t a, b;
	uint32_t c, d;

	if (n >= 8) {
		for (; n > 8; x += 8, y += 8, n -= 8) {
			memcpy(&a, x, 8);
			memcpy(&b, y, 8);
			if (a != b)
				return 0;
		}
		memcpy(&a, x + n - 8, 8);	/* the last 8, overlapping */
		memcpy(&b, y + n - 8, 8);
		return a == b;
	}
	if (n >= 4) {
		memcpy(&c, x, 4);
		memcpy(&d, y, 4);
		if (c != d)
			return 0;
		memcpy(&c, x + n - 4, 4);
		memcpy(&d, y + n - 4, 4);
		return c == d;
	}
	for (; n; n--)
		if (*x++ != *y++)
			return 0;
	return 1;
}

/* Copy n bytes from y to x, the short ones (most values) with a few
 * loads and stores of their bytes alone rather than a call. */
static inline void
copy(char *x, const char *y, size_t n)
{
	uint64_t a, b;
	uint32_t c, d;

	if (n > 16) {
		memcpy(x, y, n);
	} else if (n >= 8) {	/* the first 8 and the last 8 */
		memcpy(&a, y, 8);
		memcpy(&b, y + n - 8, 8);
		memcpy(x, &a, 8);
		memcpy(x + n - 8, &b, 8);
	} else if (n >= 4) {
		memcpy(&c, y, 4);
		memcpy(&d, y + n - 4, 4);
		memcpy(x, &c, 4);
		memcpy(x + n - 4, &d, 4);
	} else {
		for (; n; n--)
			*x++ = *y++;
	}
}

/* Are the n keys and values kv of the text a (len bytes) skeleton id's? */
static int
sk_match(const struct bld *b, uint32_t id, const char *a, size_t len,
    const struct pd_argkv *kv, int n)
{
	const struct skh *h = sk_at(b, id);
	const struct skv *v = (const void *)(h + 1);
	const char *t = (const char *)(v + h->nv);
	size_t ps = 0, ts = 0, pe, te;
	int i;

	if (h->nv != (uint32_t)n)
		return 0;
	for (i = 0; i < n; i++) {	/* the text before each value */
		pe = (size_t)(kv[i].v - a);
		te = v[i].cut;
		if (te - ts != pe - ps || !same(a + ps, t + ts, pe - ps))
			return 0;
		ps = pe + kv[i].vn;
		ts = te;
	}
	/* and after the last */
	return h->len - ts == len - ps && same(a + ps, t + ts, len - ps);
}

/* The skeleton of the text a (len bytes) with the n keys and values kv:
 * its number, made when new; NONE when there is no room for it. */
static uint32_t
sk_make(struct bld *b, const char *a, size_t len, const struct pd_argkv *kv,
    int n)
{
	struct skh *h;
	struct skv *v;
	struct ient *e;
	char *t, *np;
	size_t vl = 0, need, ps = 0, ts = 0, pe;
	uint64_t *no;
	int i;

	for (i = 0; i < n; i++)
		vl += kv[i].vn;
	need = sizeof *h + (size_t)n * sizeof *v + (len - vl) + 1;
	if (len - vl >= NONE ||
	    !(np = grow(b->tmp.p, &b->tmp.cap, PAD8(need), 1, 256, &b->failed)))
		return NONE;
	b->tmp.p = np;
	memset(np, 0, PAD8(need));
	h = (void *)np;
	v = (void *)(h + 1);
	t = (char *)(v + n);
	h->len = (uint32_t)(len - vl);
	h->nv = (uint32_t)n;
	for (i = 0; i <= n; i++) {
		pe = i < n ? (size_t)(kv[i].v - a) : len;
		memcpy(t + ts, a + ps, pe - ps);
		if (i < n) {
			v[i].koff = (uint32_t)(ts + (size_t)(kv[i].k - a) - ps);
			v[i].klen = (uint32_t)kv[i].kn;
			ts += pe - ps;
			v[i].cut = (uint32_t)ts;
			ps = pe + kv[i].vn;
		}
	}
	e = itab_find(&b->ktab, whash(np, need), sk_eq, b, np);
	if (!e)
		return NONE;
	if (e->id)
		return e->id - 1;
	if (b->nskel >= SKEL_MAX)
		return NONE;
	if (!(no = grow(b->skoff, &b->skocap, b->nskel + 1, sizeof *no, 64,
	    &b->failed)) ||
	    !(np = grow(b->sk.p, &b->sk.cap, b->sk.len + PAD8(need), 1, 4096,
	    &b->failed)))
		return NONE;
	b->skoff = no;
	b->sk.p = np;
	memcpy(b->sk.p + b->sk.len, b->tmp.p, PAD8(need));
	b->skoff[b->nskel] = b->sk.len;
	b->sk.len += PAD8(need);
	e->id = (uint32_t)++b->nskel;
	b->ktab.n++;
	return e->id - 1;
}

static size_t
leb_len(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

/* The args a (len bytes) of an event of shape x onto out by skeleton:
 * the bytes they take there, or 0 when their text is to be kept (not a
 * whole object, or not shorter so). */
static uint32_t
enc_args(struct bld *b, struct shx *x, struct buf *out,
    const struct pd_ev *ev)
{
	const struct pd_argmemo *m = ev->memo;
	const struct pd_argkv *kv = b->kv;
	const char *a = ev->args;
	size_t len = ev->args_len;
	int n, i;

	/* read with the event by the source, or now */
	if (m && m->whole && m->args == a && m->args_len == len &&
	    m->index == ev->index) {
		kv = m->kv;
		n = m->n;
	} else {
		n = pd_json_obj_kv(a, len, b->kv, PD_ARGMEMO_MAX);
	}
	size_t vl = 0, bl = 4;
	uint32_t id;
	unsigned char *q;
	char *np;

	if (n < 0)
		return 0;
	for (i = 0; i < n; i++) {
		vl += kv[i].vn;
		bl += leb_len(kv[i].vn);
	}
	bl += vl;
	if (bl > len)
		return 0;
	if (x->sk && sk_match(b, x->sk - 1, a, len, kv, n)) {
		id = x->sk - 1;
	} else {
		if ((id = sk_make(b, a, len, kv, n)) == NONE)
			return 0;
		x->sk = id + 1;
	}
	if (!(np = grow(out->p, &out->cap, out->len + bl, 1, 4096,
	    &b->failed)))
		return 0;
	out->p = np;
	q = (unsigned char *)out->p + out->len;
	memcpy(q, &id, 4);
	q += 4;
	for (i = 0; i < n; i++) {
		size_t v = kv[i].vn;
		while (v >= 0x80) {
			*q++ = (unsigned char)(v | 0x80);
			v >>= 7;
		}
		*q++ = (unsigned char)v;
	}
	for (i = 0; i < n; i++) {
		copy((char *)q, kv[i].v, kv[i].vn);
		q += kv[i].vn;
	}
	out->len += bl;
	return (uint32_t)bl;
}

static void
record(struct bld *b, const struct pd_ev *ev)
{
	struct shape sh;
	struct rec *r;
	uint32_t fl;

	/* a name or cat the reader left NULL would come back "" */
	if (ev->index != b->nev || ev->args_len >= NONE ||
	    ev->id_len > ID_MAX || ev->raw_len >= NONE || !ev->name ||
	    !ev->cat || (!ev->pid && ev->pid_num) ||
	    (!ev->tid && ev->tid_num) || (ev->pid_is_num && !ev->pid) ||
	    (ev->tid_is_num && !ev->tid)) {
		b->failed = 1;
		return;
	}
	memset(&sh, 0, sizeof sh);
	sh.name = intern_f(b, 0, ev->name);
	sh.cat = intern_f(b, 1, ev->cat);
	sh.pid = intern_id(b, 2, ev->pid, ev->pid_num);
	sh.ph = (uint8_t)ev->ph;
	sh.pid_is_num = ev->pid_is_num != 0;
	if ((!b->recs && !(b->recs = malloc(CHUNK_REC * sizeof *b->recs))) ||
	    (!b->cshp && !(b->cshp = calloc(CHUNK_REC + 1, sizeof *b->cshp))) ||
	    (!b->csp && !(b->csp = calloc(CHUNK_REC, sizeof *b->csp))) ||
	    (!b->cspw && !(b->cspw = calloc(CHUNK_REC, sizeof *b->cspw))))
		b->failed = 1;
	if (b->failed)
		return;
	r = &b->recs[b->nrec];
	memset(r, 0, sizeof *r);
	r->shape = intern_shape(b, &sh);
	b->cur_shp = r->shape;
	b->has_cur = !b->failed;
	if (b->failed)
		return;
	if (b->sx[r->shape].chunk != b->nchunk + 1) {
		b->sx[r->shape].chunk = b->nchunk + 1;
		b->sx[r->shape].ci = (uint32_t)b->ncshp;
		b->csp[b->ncshp].any = 0;
		b->cshp[b->ncshp++] = r->shape;
	}
	pd_tspan_add(&b->csp[b->sx[r->shape].ci], ev->has_ts, ev->ts_ns,
	    ev->has_dur, ev->dur_ns);
	r->tid = intern_id(b, 3, ev->tid, ev->tid_num);
	r->ts_ns = ev->ts_ns;
	r->dur_ns = ev->dur_ns;
	r->raw_len = (uint32_t)ev->raw_len;
	fl = (ev->has_ts ? F_TS : 0) | (ev->has_dur ? F_DUR : 0) |
	    (ev->tid_is_num ? F_TIDNUM : 0) | (ev->args ? F_ARGS : 0) |
	    (ev->id ? F_ID : 0);
	if (ev->args) {
		struct shx *x = &b->sx[r->shape];
		struct buf *ab = &b->args[x->cls];

		r->args_len = (uint32_t)ev->args_len;
		if ((r->blk_len = enc_args(b, x, ab, ev)) != 0) {
			fl |= F_ENC;
		} else {
			bput(b, ab, ev->args, ev->args_len);
			r->blk_len = r->args_len + 1;
		}
	}
	if (ev->id)
		bput(b, &b->ids, ev->id, ev->id_len);
	r->idfl = (ev->id ? (uint32_t)ev->id_len : 0) | fl << 24;
	b->alen += r->blk_len;
	if (b->failed)
		return;
	if (++b->nrec == CHUNK_REC || b->alen >= CHUNK_ARGS)
		chunk_out(b);
}

/* The caller's filter's answer for ev (the one just recorded): PD_WANT,
 * PD_SPAN or PD_DECLINE. Asked once a shape, as the replay asks it. */
static int
wanted(struct bld *b, const struct pd_ev *ev)
{
	struct shx *x;

	if (b->failed || !b->has_cur)	/* no record of it: ask */
		return pd_trace_answer(b->cb, ev);
	x = &b->sx[b->cur_shp];
	if (!x->want)
		x->want = (uint8_t)(pd_trace_answer(b->cb, ev) + 1);
	return x->want - 1;
}

static int
b_event(const struct pd_ev *ev, void *ctx)
{
	struct bld *b = ctx;
	struct pd_ev e;
	int stop, w;

	b->has_cur = 0;
	if (!b->failed) {
		note_skips(b);
		record(b, ev);
	}
	b->nev++;
	if (b->filter && (w = wanted(b, ev)) != PD_WANT) {
		if (w == PD_SPAN)	/* the source's stats, as it fills */
			pd_tspan_add(&b->st->span, ev->has_ts, ev->ts_ns,
			    ev->has_dur, ev->dur_ns);
		return 0;
	}
	if (b->has_cur) {
		/* the numbers of its shape and name, as a replay gives
		 * them: the caller's memos work on this read too */
		e = *ev;
		e.shape_id = b->cur_shp + 1;
		e.name_id = b->shps[b->cur_shp].name + 1;
		e.read_no = b->read_no;
		ev = &e;
	}
	stop = b->cb->on_event ? b->cb->on_event(ev, b->cb->ctx) : 0;
	if (stop)
		b->stopped = 1;
	return stop;
}

static void
b_meta(const char *key, json_t *v, void *ctx)
{
	struct bld *b = ctx;

	if (!b->failed) {
		char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
		json_t *back = s ? json_loads(s, JSON_DECODE_ANY, NULL) : NULL;
		/* the replay parses the text again: it must give the same */
		if (!back || !json_equal(back, v) || strlen(key) >= NONE ||
		    strlen(s) >= NONE) {
			b->failed = 1;
		} else {
			struct meta m = { b->nev, (uint32_t)strlen(key),
			    (uint32_t)strlen(s) };
			note_skips(b);
			wput(&b->mw, &m, sizeof m);
			wput(&b->mw, key, m.key_len + 1);
			wput(&b->mw, s, m.val_len + 1);
			wpad(&b->mw);
			if (b->mw.err)
				b->failed = 1;
			b->nmeta++;
		}
		json_decref(back);
		free(s);
	}
	if (b->cb->on_meta)
		b->cb->on_meta(key, v, b->cb->ctx);
}

static void
bld_free(struct bld *b)
{
	int k;

	free(b->w.buf);
	free(b->mw.buf);
	free(b->recs);
	free(b->nrecs);
	free(b->cshp);
	free(b->csp);
	free(b->cspw);
	free(b->ids.p);
	for (k = 0; k < NCLS; k++)
		free(b->args[k].p);
	free(b->sx);
	free(b->stab.t);
	free(b->htab.t);
	free(b->strs);
	free(b->sb);
	free(b->shps);
	free(b->skips);
	free(b->sk.p);
	free(b->tmp.p);
	free(b->skoff);
	free(b->ktab.t);
}

/* After the source read: the rest of the entry and its header. Returns 0
 * when the entry is complete (in memory: b->w.buf, wpos bytes). */
static int
bld_finish(struct bld *b, int rc, const struct pd_trace_stats *st,
    const struct key *k)
{
	struct hdr h;
	struct cs hc;
	size_t i, tail;

	if (b->failed || b->stopped || (rc != 0 && rc != 1) ||
	    st->events != b->nev)
		return -1;
	note_skips(b);
	chunk_out(b);
	if (b->failed)
		return -1;
	memset(&h, 0, sizeof h);
	memcpy(h.magic, magic, sizeof magic);
	h.version = VERSION;
	h.hdr_size = sizeof h;
	h.order = 0x0102030405060708ULL;
	if (k)
		h.key = *k;
	h.rc = rc;
	h.format = st->format;
	h.truncated = st->truncated;
	h.malformed = st->malformed;
	h.err_line = st->err_line;
	h.events = st->events;
	h.skipped = st->skipped;
	h.bytes = st->bytes;
	memcpy(h.err, st->err, sizeof h.err);
	h.err[sizeof h.err - 1] = 0;
	h.ev_off = sizeof h;
	h.ev_len = wpos(&b->w) - sizeof h;
	h.nev = b->nev;
	/* the events are all in: what follows is summed as it goes out */
	wflush(&b->w, 1);
	b->w.tail = 1;
	tail = b->w.len;
	h.shp_off = wpos(&b->w);
	h.nshp = b->nshp;
	for (i = 0; i < b->nshp; i++)	/* the table is done with */
		b->shps[i].cls = b->sx[i].cls;
	wput(&b->w, b->shps, b->nshp * sizeof *b->shps);
	h.str_off = wpos(&b->w);
	h.nstr = b->nstr;
	wput(&b->w, b->strs, b->nstr * sizeof *b->strs);
	h.sbytes_off = wpos(&b->w);
	h.sbytes_len = b->sblen;
	wput(&b->w, b->sb, b->sblen);
	wpad(&b->w);
	h.skip_off = wpos(&b->w);
	h.nskip = b->nskip;
	wput(&b->w, b->skips, b->nskip * sizeof *b->skips);
	h.meta_off = wpos(&b->w);
	h.meta_len = b->mw.len;
	h.nmeta = b->nmeta;
	wput(&b->w, b->mw.buf, b->mw.len);
	wpad(&b->w);
	h.skel_off = wpos(&b->w);
	h.skel_len = b->sk.len;
	h.nskel = b->nskel;
	wput(&b->w, b->sk.p, b->sk.len);
	h.file_size = wpos(&b->w);
	if (b->w.fd >= 0)
		wflush(&b->w, 1);
	else if (!b->w.err)
		cs_add(&b->w.cs, b->w.buf + tail, b->w.len - tail);
	if (b->w.err)
		return -1;
	hc = b->w.cs;
	cs_add(&hc, &h, sizeof h);
	h.sum = cs_end(&hc);
	if (b->w.fd < 0) {
		memcpy(b->w.buf, &h, sizeof h);
		return 0;
	}
	for (i = 0; i < sizeof h;) {
		ssize_t n = pwrite(b->w.fd, (char *)&h + i, sizeof h - i,
		    (off_t)i);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		i += (size_t)n;
	}
	return 0;
}

/* Read the source through the recorder into w (fd, or memory when -1).
 * Returns the source's result; *ok says whether the entry is complete. */
static int
bld_run(int fd, const char *path, const char *mem, size_t memlen,
    const struct pd_trace_cb *cb, struct pd_trace_stats *st,
    pd_tcache_source src, const struct key *k, struct bld *b, int *ok)
{
	static const struct hdr zero;
	struct pd_trace_cb tcb;
	int rc;

	memset(b, 0, sizeof *b);
	b->cb = cb;
	b->st = st;
	b->read_no = ++reads;
	b->filter = pd_trace_filters(cb);
	b->w.fd = fd;
	b->mw.fd = -1;
	cs_init(&b->w.cs);
	wput(&b->w, &zero, sizeof zero);
	if (fd >= 0) {
		/* the header is written last */
		if (write(fd, &zero, sizeof zero) != (ssize_t)sizeof zero)
			b->w.err = 1;
		b->w.off = sizeof zero;
		b->w.len = 0;
	}
	memset(&tcb, 0, sizeof tcb);
	tcb.ctx = b;
	tcb.on_event = b_event;
	tcb.on_meta = b_meta;
	memset(st, 0, sizeof *st);
	if (path)
		rc = src(path, &tcb, st, 1);
	else
		rc = pd_trace_read_mem_src(mem, memlen, &tcb, st, 1);
	*ok = bld_finish(b, rc, st, k) == 0;
	return rc;
}

int
pd_tcache_build_mem(const char *buf, size_t len, void **img, size_t *imglen)
{
	struct bld b;
	struct pd_trace_cb cb;
	struct pd_trace_stats st;
	int ok;

	memset(&cb, 0, sizeof cb);
	bld_run(-1, NULL, buf, len, &cb, &st, NULL, NULL, &b, &ok);
	if (!ok) {
		bld_free(&b);
		return -1;
	}
	*img = b.w.buf;
	*imglen = wpos(&b.w);
	b.w.buf = NULL;
	bld_free(&b);
	return 0;
}

/* ---- replaying an entry ---- */

struct img {
	const char *p;		/* in memory: the whole image */
	int fd;			/* else the entry, read as the replay goes */
	size_t len;
	int verify;
	struct hdr hb;		/* the header read from fd */
	const struct hdr *h;
	const char *t;		/* the sections after the events, ... */
	uint64_t toff;		/* ... from this offset of the entry */
	char *tbuf;		/* t when read from fd */
	char *buf;		/* the events read from fd: ... */
	size_t bcap, blen;
	uint64_t boff;		/* ... blen bytes from this offset */
	const struct shape *shps;
	const struct str *strs;
	const char *sb;
	struct shv {		/* each shape's strings, checked */
		const char *name, *cat, *pid;	/* pid: NULL when none */
		int64_t pid_num;
	} *sv;
	struct skx {		/* the skeletons, checked */
		const struct skv *v;
		const char *t;
		uint32_t len, nv;
	} *sk;
	char *rt;		/* args put together from their skeleton */
	size_t rtcap;
	/* the event whose args by skeleton were last looked into: its
	 * values' offsets (nv + 1), checked */
	uint64_t vo_ev;		/* its index + 1; 0: none */
	const struct skx *vo_sk;
	uint32_t vo_sid;	/* its number */
	const char *vo_base;
	uint32_t vo[PD_ARGMEMO_MAX + 1];
	/* keys looked up by skeleton: where each is (its slot, -1 absent),
	 * by the skeleton and the key's text (up to KC_KEY bytes) */
	struct kc {
		uint32_t sk1;	/* skeleton + 1; 0: empty */
		int32_t slot;
		size_t kl;
		char key[KC_KEY];
	} kc[KC_N];
	uint64_t stop_ev, stop_meta;	/* where a bad chunk stopped it */
	/* the current chunk's args, a block a class: read (p set, checked)
	 * or, from a file, where it is */
	struct cblk {
		const char *p;
		uint64_t off, len, sum;
		char *buf;	/* what p points into, from a file */
		size_t cap;
	} cb[NCLS];
	/* the event handed out with its args unread */
	struct lazy {
		struct pd_lazyargs la;	/* first: ev->lazy points here */
		struct img *m;
		uint64_t index, off, len;	/* len: of the block's bytes */
		int cls, enc;
	} lz;
	/* an args block found bad when read: the event's args from the
	 * trace itself, which the read then goes on from */
	const char *path;
	pd_tcache_source src;
	int lz_bad;
	char *fb;
	uint64_t fb_index;	/* + 1; 0: none */
};

/* The bytes at off of the sections after the events. */
static const char *
at(const struct img *m, uint64_t off)
{
	return m->t + (off - m->toff);
}

static int
readall(int fd, char *b, size_t n, uint64_t off)
{
	while (n) {
		ssize_t r = pread(fd, b, n, (off_t)off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		b += r;
		n -= (size_t)r;
		off += (uint64_t)r;
	}
	return 0;
}

/* At least n bytes at *buf (cap of them), their contents kept; -1 when
 * memory is short. */
static int
room(char **buf, size_t *cap, size_t n)
{
	char *nb;

	if (n <= *cap)
		return 0;
	if (!(nb = realloc(*buf, n)))
		return -1;
	*buf = nb;
	*cap = n;
	return 0;
}

/* The n bytes at off of the events (off + n within them); NULL when they
 * cannot be read. From a file, they are read into one buffer, no more
 * than asked (the args blocks between the records are read only when
 * asked for): read(2) costs less than faulting in the pages of a
 * mapping. What the buffer holds from off on is kept when it moves on. */
static const char *
ev_bytes(struct img *m, uint64_t off, uint64_t n)
{
	uint64_t want = n;
	size_t keep = 0;

	if (m->fd < 0)
		return m->p + off;
	if (off >= m->boff && off - m->boff <= m->blen &&
	    n <= m->blen - (off - m->boff))
		return m->buf + (off - m->boff);
	if (want > SIZE_MAX)
		return NULL;
	if (off >= m->boff && off - m->boff < m->blen) {
		keep = m->blen - (size_t)(off - m->boff);
		memmove(m->buf, m->buf + (off - m->boff), keep);
	}
	m->boff = off;
	m->blen = 0;
	if (room(&m->buf, &m->bcap, (size_t)want) < 0)
		return NULL;
	if (readall(m->fd, m->buf + keep, (size_t)want - keep, off + keep) < 0)
		return NULL;
	m->blen = (size_t)want;
	return m->buf;
}

static void
img_free(struct img *m)
{
	int k;

	free(m->tbuf);
	free(m->buf);
	m->tbuf = m->buf = NULL;
	for (k = 0; k < NCLS; k++) {
		free(m->cb[k].buf);
		m->cb[k].buf = NULL;
	}
	free(m->fb);
	m->fb = NULL;
	free(m->sk);
	free(m->rt);
	free(m->sv);
	m->sk = NULL;
	m->rt = NULL;
	m->sv = NULL;
}

static int
span_ok(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

/* Size-independent checks of the header and of the small sections. */
static int
img_check(struct img *m, int verify)
{
	const struct hdr *h = m->fd < 0 ? (const void *)m->p :
	    (const void *)&m->hb;
	uint64_t i, sum, nsk = 0, prev = 0, tail;

	if (m->len < sizeof *h || ((uintptr_t)m->p & 7))
		return -1;
	if (memcmp(h->magic, magic, sizeof magic) || h->version != VERSION ||
	    h->hdr_size != sizeof *h || h->order != 0x0102030405060708ULL ||
	    h->file_size != m->len)
		return -1;
	if ((h->rc != 0 && h->rc != 1) || h->format < 0 || h->format > 2 ||
	    h->events != h->nev || memchr(h->err, 0, sizeof h->err) == NULL)
		return -1;
	if (h->ev_off != sizeof *h || !span_ok(h->ev_off, h->ev_len, m->len) ||
	    h->shp_off != h->ev_off + h->ev_len ||
	    h->nshp > m->len / sizeof(struct shape) ||
	    !span_ok(h->shp_off, h->nshp * sizeof(struct shape), m->len) ||
	    h->nstr > m->len / sizeof(struct str) ||
	    !span_ok(h->str_off, h->nstr * sizeof(struct str), m->len) ||
	    !span_ok(h->sbytes_off, h->sbytes_len, m->len) ||
	    h->nskip > m->len / sizeof(struct skip) ||
	    !span_ok(h->skip_off, h->nskip * sizeof(struct skip), m->len) ||
	    !span_ok(h->meta_off, h->meta_len, m->len) ||
	    !span_ok(h->skel_off, h->skel_len, m->len) ||
	    h->nskel > SKEL_MAX ||
	    ((h->shp_off | h->str_off | h->skip_off | h->meta_off |
	    h->skel_off | h->ev_len | m->len) & 7) ||
	    h->nev > h->ev_len / sizeof(struct nrec) || h->nstr >= NONE ||
	    h->nshp >= NONE)
		return -1;
	m->verify = verify;
	m->h = h;
	tail = h->ev_off + h->ev_len;
	if (m->fd < 0) {
		m->t = m->p;
		m->toff = 0;
	} else {
		/* from a file: the small sections are read at once */
		if (m->len - tail > SIZE_MAX - 1 ||
		    !(m->tbuf = malloc((size_t)(m->len - tail) + 1)) ||
		    readall(m->fd, m->tbuf, (size_t)(m->len - tail), tail) < 0)
			return -1;
		m->t = m->tbuf;
		m->toff = tail;
	}
	if (verify) {
		struct cs c;
		struct hdr z;

		cs_init(&c);
		cs_add(&c, at(m, tail), m->len - tail);
		z = *h;
		z.sum = 0;
		cs_add(&c, &z, sizeof z);
		sum = cs_end(&c);
		if (sum != h->sum)
			return -1;
	}
	m->shps = (const void *)at(m, h->shp_off);
	m->strs = (const void *)at(m, h->str_off);
	m->sb = at(m, h->sbytes_off);
	for (i = 0; i < h->nstr; i++) {
		const struct str *s = &m->strs[i];
		if (!span_ok(s->off, (uint64_t)s->len + 1, h->sbytes_len) ||
		    m->sb[s->off + s->len] != 0)
			return -1;
	}
	if (!(m->sv = calloc(h->nshp ? (size_t)h->nshp : 1, sizeof *m->sv)))
		return -1;
	for (i = 0; i < h->nshp; i++) {
		const struct shape *s = &m->shps[i];
		if (s->name >= h->nstr || s->cat >= h->nstr ||
		    (s->pid != NONE && s->pid >= h->nstr) || s->cls >= NCLS)
			return -1;
		m->sv[i].name = m->sb + m->strs[s->name].off;
		m->sv[i].cat = m->sb + m->strs[s->cat].off;
		if (s->pid != NONE) {
			m->sv[i].pid = m->sb + m->strs[s->pid].off;
			m->sv[i].pid_num = m->strs[s->pid].num;
		}
	}
	for (i = 0; i < h->nskip; i++) {
		const struct skip *s = (const void *)at(m, h->skip_off +
		    i * sizeof *s);
		if (s->pos < prev || s->pos > h->nev || s->count == 0 ||
		    s->count > h->skipped - nsk)
			return -1;
		prev = s->pos;
		nsk += s->count;
	}
	if (nsk != h->skipped)
		return -1;
	for (i = 0, prev = 0; i < h->meta_len; ) {
		const struct meta *x = (const void *)at(m, h->meta_off + i);
		uint64_t n;
		if (h->meta_len - i < sizeof *x)
			return -1;
		n = sizeof *x + (uint64_t)x->key_len + x->val_len + 2;
		if (n > h->meta_len - i || x->pos < prev || x->pos > h->nev ||
		    ((const char *)(x + 1))[x->key_len] != 0 ||
		    ((const char *)(x + 1))[x->key_len + 1 + x->val_len] != 0)
			return -1;
		prev = x->pos;
		i += PAD8(n);
	}
	if (!(m->sk = calloc(h->nskel ? (size_t)h->nskel : 1, sizeof *m->sk)))
		return -1;
	for (i = 0, prev = 0; i < h->nskel; i++) {
		const struct skh *x;
		const struct skv *v;
		uint64_t n, j, cut = 0;

		if (h->skel_len - prev < sizeof *x)
			return -1;
		x = (const void *)at(m, h->skel_off + prev);
		if (x->nv > PD_ARGMEMO_MAX)
			return -1;
		n = sizeof *x + (uint64_t)x->nv * sizeof *v + x->len + 1;
		if (n > h->skel_len - prev)
			return -1;
		v = (const void *)(x + 1);
		for (j = 0; j < x->nv; j++) {
			if (v[j].cut < cut || v[j].cut > x->len ||
			    v[j].koff > x->len || v[j].klen > x->len - v[j].koff)
				return -1;
			cut = v[j].cut;
		}
		m->sk[i] = (struct skx){ v, (const char *)(v + x->nv), x->len,
		    x->nv };
		if (m->sk[i].t[x->len] != 0)
			return -1;
		prev += PAD8(n);
	}
	if (prev != h->skel_len)
		return -1;
	return 0;
}

/* The on_meta calls due before event upto (the metas at positions up to
 * it), from *off on; returns the position of the next one (UINT64_MAX:
 * none left), so that the replay calls again only when it is due. */
static uint64_t
meta_call(const struct img *m, const struct pd_trace_cb *cb, uint64_t *off,
    uint64_t upto, uint64_t *ncalled)
{
	const struct hdr *h = m->h;

	while (*off < h->meta_len) {
		const struct meta *x = (const void *)at(m, h->meta_off + *off);
		const char *k = (const char *)(x + 1);
		uint64_t n = sizeof *x + (uint64_t)x->key_len + x->val_len + 2;

		if (x->pos > upto)
			return x->pos;
		++*ncalled;
		if (cb->on_meta) {
			json_t *v = json_loadb(k + x->key_len + 1, x->val_len,
			    JSON_DECODE_ANY, NULL);
			if (v)
				cb->on_meta(k, v, cb->ctx);
			json_decref(v);
		}
		*off += PAD8(n);
	}
	return UINT64_MAX;
}

static void
bad_record(struct pd_trace_stats *st, uint64_t i)
{
	st->malformed = 1;
	st->err_line = 0;
	snprintf(st->err, sizeof st->err, "corrupt trace cache entry at "
	    "event %" PRIu64, i);
}

/* Is the padding after n bytes at p, up to 8, zero? */
static int
pad_ok(const char *p, uint64_t n)
{
	for (; n & 7; n++)
		if (p[n])
			return 0;
	return 1;
}

/* Is the args block c, its bytes at p, sound: its padding zero and,
 * verified, its sum right? */
static int
cblk_ok(const struct img *m, const struct cblk *c, const char *p)
{
	struct cs s;

	if (!pad_ok(p, c->len))
		return 0;
	if (!m->verify)
		return 1;
	cs_init(&s);
	cs_add(&s, p, (size_t)PAD8(c->len));
	return cs_end(&s) == c->sum;
}

/* Class k's args block of the current chunk, read (from a file) and
 * checked; NULL when it cannot be read or is bad. */
static const char *
cblk_get(struct img *m, int k)
{
	struct cblk *c = &m->cb[k];
	uint64_t ab = PAD8(c->len);

	if (c->p)
		return c->p;
	if (m->fd < 0 || ab > SIZE_MAX ||
	    room(&c->buf, &c->cap, (size_t)ab) < 0 ||
	    readall(m->fd, c->buf, (size_t)ab, c->off) < 0 ||
	    !cblk_ok(m, c, c->buf))
		return NULL;
	return c->p = c->buf;
}

static void shape_fields(struct pd_ev *e, const struct shape *s,
    const struct shv *v);

/* A chunk as chunk_at hands it out. */
struct cview {
	const void *recs;	/* nrec records of rsize bytes */
	int64_t base;		/* of narrow records' ts */
	uint32_t rsize, nrec;
	const char *ids, *iend;
	int skip;		/* none of its events is wanted: not read */
	struct pd_tspan span;	/* skip: of its events kept for their span */
};

/* The filter's answer for shape x (< nshp), asked once a replay (memo:
 * 0 not yet, else the answer + 1: M_WANT, M_DECLINE, M_SPAN): it sees
 * the shape's fields, the rest 0. */
enum { M_DECLINE = PD_DECLINE + 1, M_WANT = PD_WANT + 1, M_SPAN = PD_SPAN + 1 };

static int
shape_answer(const struct img *m, const struct pd_trace_cb *cb,
    unsigned char *memo, uint32_t x)
{
	static const struct pd_ev ev0;

	if (!memo[x]) {
		struct pd_ev k = ev0;

		shape_fields(&k, &m->shps[x], &m->sv[x]);
		memo[x] = cb->want(&k) ? M_WANT : cb->span && cb->span(&k) ?
		    M_SPAN : M_DECLINE;
	}
	return memo[x];
}

/* Does the filter decline every one of the chunk's n shapes, or keep
 * only their time? 1 yes (*span: the time of those it keeps so, from
 * the chunk's spans, n after the list), 0 no, -1 a shape number out of
 * range. */
static int
declined(const struct img *m, const struct pd_trace_cb *cb,
    unsigned char *memo, const char *list, uint32_t n,
    struct pd_tspan *span)
{
	const char *sp = list + PAD8((uint64_t)n * 4);
	struct cspan c;
	uint32_t i, x;
	int a;

	memset(span, 0, sizeof *span);
	for (i = 0; i < n; i++) {
		memcpy(&x, list + 4 * (size_t)i, 4);
		if (x >= m->h->nshp)
			return -1;
		if ((a = shape_answer(m, cb, memo, x)) == M_WANT)
			return 0;
		memcpy(&c, sp + sizeof c * i, sizeof c);
		if (a == M_SPAN && c.lo <= c.hi) {
			struct pd_tspan o = { 1, c.lo, c.hi };
			pd_tspan_join(span, &o);
		}
	}
	return 1;
}

/* The chunk at offset off (before end), checked: its records and ids in
 * *v, its args blocks in m->cb (read and checked from memory; from a
 * file, where they are, read when asked for); 0 when it is not sound
 * (or, verified, its sum is wrong) or cannot be read, else the offset
 * where the next chunk starts. With a filter (memo, as declined() keeps
 * it), a chunk whose shapes are all declined is passed over after its
 * header and shapes (v->skip). What it hands out stays valid until the
 * next call. */
static uint64_t
chunk_at(struct img *m, uint64_t off, uint64_t end, uint64_t left,
    const struct pd_trace_cb *cb, unsigned char *memo, struct cview *v)
{
	struct chunk c, z;
	struct cs s;
	uint64_t room = end - off, lb, rb, ib, at;
	const char *p;
	int k, d = 0;

	if (room < sizeof c || !(p = ev_bytes(m, off, sizeof c)))
		return 0;
	memcpy(&c, p, sizeof c);
	if (c.nrec == 0 || c.nrec > CHUNK_REC || c.nrec > left ||
	    c.ncls != NCLS || c.nshp == 0 || c.nshp > c.nrec ||
	    (c.rsize != sizeof(struct rec) && c.rsize != sizeof(struct nrec)))
		return 0;
	/* the list of shapes, then their spans */
	lb = PAD8((uint64_t)c.nshp * 4) + (uint64_t)c.nshp * sizeof(struct cspan);
	rb = PAD8((uint64_t)c.nrec * c.rsize);
	if (lb + rb > room - sizeof c || c.id_len > room - sizeof c - lb - rb)
		return 0;
	ib = PAD8(c.id_len);
	if (ib > room - sizeof c - lb - rb)
		return 0;
	z = c;
	z.sum = 0;
	if (memo) {
		if (!(p = ev_bytes(m, off, sizeof c + lb)) ||
		    !pad_ok(p + sizeof c, (uint64_t)c.nshp * 4))
			return 0;
		if (m->verify) {
			z.hsum = 0;
			cs_init(&s);
			cs_add(&s, &z, sizeof z);
			cs_add(&s, p + sizeof c, lb);
			if (cs_end(&s) != c.hsum)
				return 0;
			z.hsum = c.hsum;
		}
		if ((d = declined(m, cb, memo, p + sizeof c, c.nshp,
		    &v->span)) < 0)
			return 0;
	}
	v->nrec = c.nrec;
	v->skip = d;
	at = off + sizeof c + lb + rb + ib;
	if (d) {
		v->recs = NULL;
		v->ids = v->iend = NULL;
	} else {
		if (!(p = ev_bytes(m, off, sizeof c + lb + rb + ib)))
			return 0;
		if (m->verify) {
			cs_init(&s);
			cs_add(&s, &z, sizeof z);
			cs_add(&s, p + sizeof c, lb + rb + ib);
			if (cs_end(&s) != c.sum)
				return 0;
		}
		p += sizeof c + lb;
		v->recs = (const void *)p;
		v->base = c.ts_base;
		v->rsize = c.rsize;
		v->ids = p + rb;
		v->iend = v->ids + c.id_len;
		/* the padding is part of no event: it must be zero */
		if (!pad_ok(v->ids, c.id_len) ||
		    !pad_ok(p, (uint64_t)c.nrec * c.rsize))
			return 0;
	}
	for (k = 0; k < NCLS; k++) {
		struct cblk *b = &m->cb[k];
		uint64_t ab = PAD8(c.alen[k]);

		if (c.alen[k] > end - at || ab > end - at)
			return 0;
		b->p = NULL;
		b->off = at;
		b->len = d ? 0 : c.alen[k];
		b->sum = c.asum[k];
		if (m->fd < 0 && !d) {	/* in memory: checked now */
			b->p = m->p + at;
			if (!cblk_ok(m, b, b->p))
				return 0;
		}
		at += ab;
	}
	return at;
}

struct fb {
	uint64_t index;
	char *args;
};

static int
fb_event(const struct pd_ev *ev, void *ctx)
{
	struct fb *x = ctx;

	if (ev->index < x->index)
		return 0;
	if (ev->index == x->index && ev->args &&
	    (x->args = malloc(ev->args_len + 1)) != NULL) {
		memcpy(x->args, ev->args, ev->args_len);
		x->args[ev->args_len] = 0;
	}
	return 1;
}

/* The args of the event handed out (lz_get): read from its class's
 * block; when that block is bad, from the trace itself (parsed up to the
 * event), and the read goes on from the trace after this event. */
/* The values' offsets of the event handed out with its args by skeleton
 * (m->vo, from m->vo_base), read and checked once an event: 0, or -1
 * when the block or the bytes are bad. */
static int
enc_vo(struct img *m, const struct lazy *z, const struct pd_ev *ev)
{
	const unsigned char *q, *e;
	const char *p;
	const struct skx *k;
	uint64_t sum = 0, v;
	uint32_t id, i;
	int sh;

	if (m->vo_ev == ev->index + 1)
		return 0;
	if (!(p = cblk_get(m, z->cls)) || z->len < 4)
		return -1;
	q = (const unsigned char *)p + z->off;
	e = q + z->len;
	memcpy(&id, q, 4);
	q += 4;
	if (id >= m->h->nskel)
		return -1;
	k = &m->sk[id];
	if ((size_t)(e - q) >= k->nv) {
		/* the common case: every length under 128, one byte each */
		unsigned any = 0;

		for (i = 0; i < k->nv; i++) {
			m->vo[i] = (uint32_t)sum;
			any |= q[i];
			sum += q[i];
		}
		if (!(any & 0x80)) {
			q += k->nv;
			goto done;
		}
		sum = 0;
	}
	for (i = 0; i < k->nv; i++) {
		m->vo[i] = (uint32_t)sum;
		for (v = 0, sh = 0;; sh += 7) {
			if (q >= e || sh > 28)
				return -1;
			v |= (uint64_t)(*q & 0x7f) << sh;
			if (!(*q++ & 0x80))
				break;
		}
		sum += v;
	}
done:
	if (sum != (uint64_t)(e - q) || sum + k->len != ev->args_len)
		return -1;
	m->vo[k->nv] = (uint32_t)sum;
	m->vo_sk = k;
	m->vo_sid = id;
	m->vo_base = (const char *)q;
	m->vo_ev = ev->index + 1;
	return 0;
}

/* The slot of key (kl bytes) in the skeleton of the event whose values'
 * offsets are in m (enc_vo): the first key so written, remembered by
 * skeleton and key; -1 when it has none. */
static inline int32_t
lz_slot(struct img *m, const char *key, size_t kl)
{
	const struct skx *k = m->vo_sk;
	uint32_t sid = m->vo_sid, i;
	struct kc *c;
	int32_t slot = -1;

	c = &m->kc[((uintptr_t)key ^ (uintptr_t)key >> 9 ^ kl ^
	    (uintptr_t)sid * 0x9E3779B1u) % KC_N];
	if (c->sk1 == sid + 1 && c->kl == kl && same(c->key, key, kl))
		return c->slot;
	for (i = 0; i < k->nv; i++)
		if (k->v[i].klen == kl &&
		    memcmp(k->t + k->v[i].koff, key, kl) == 0) {
			slot = (int32_t)i;
			break;
		}
	if (kl <= KC_KEY) {
		c->sk1 = sid + 1;
		c->slot = slot;
		c->kl = kl;
		memcpy(c->key, key, kl);
	}
	return slot;
}

/* The values' offsets of the event handed out (lz_find, lz_find_n): 0,
 * or -1 when its args are not by skeleton or cannot be read from the
 * entry. */
static inline int
lz_vo(const struct pd_ev *ev, struct img **mp)
{
	const struct lazy *z = (const void *)ev->lazy;
	struct img *m = z->m;

	*mp = m;
	if (ev->index != z->index || !z->enc || m->lz_bad)
		return -1;
	if (m->vo_ev != ev->index + 1 && enc_vo(m, z, ev) < 0) {
		m->lz_bad = 1;	/* lz_get() reads them from the trace */
		return -1;
	}
	return 0;
}

/* pd_lazyargs.find: a key of args by skeleton, without their text: its
 * slot in the skeleton, its value from the event's. */
static int
lz_find(const struct pd_ev *ev, const char *key, size_t kl, const char **v,
    size_t *vlen)
{
	struct img *m;
	int32_t slot;

	if (lz_vo(ev, &m) < 0)
		return -1;
	if ((slot = lz_slot(m, key, kl)) < 0)
		return 0;
	*v = m->vo_base + m->vo[slot];
	*vlen = m->vo[slot + 1] - m->vo[slot];
	return 1;
}

/* pd_lazyargs.find_n: n keys at once, as lz_find finds each. */
static int
lz_find_n(const struct pd_ev *ev, const char *const *keys, const size_t *kl,
    int n, const char **v, size_t *vlen)
{
	struct img *m;
	int32_t slot;
	int i, found = 0;

	if (lz_vo(ev, &m) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		if ((slot = lz_slot(m, keys[i], kl[i])) < 0) {
			v[i] = NULL;
			vlen[i] = 0;
			continue;
		}
		v[i] = m->vo_base + m->vo[slot];
		vlen[i] = m->vo[slot + 1] - m->vo[slot];
		found++;
	}
	return found;
}

/* The text of the event's args by skeleton, put together in m->rt; NULL
 * when they are bad. */
static const char *
enc_text(struct img *m, const struct lazy *z, const struct pd_ev *ev)
{
	const struct skx *k;
	size_t ts = 0, o = 0, te, vn;
	uint32_t i;

	if (enc_vo(m, z, ev) < 0 ||
	    room(&m->rt, &m->rtcap, ev->args_len + 1) < 0)
		return NULL;
	k = m->vo_sk;
	for (i = 0; i <= k->nv; i++) {	/* a piece, then a value */
		te = i < k->nv ? k->v[i].cut : k->len;
		memcpy(m->rt + o, k->t + ts, te - ts);
		o += te - ts;
		ts = te;
		if (i < k->nv) {
			vn = m->vo[i + 1] - m->vo[i];
			memcpy(m->rt + o, m->vo_base + m->vo[i], vn);
			o += vn;
		}
	}
	m->rt[o] = 0;
	return m->rt;
}

static const char *
lz_get(const struct pd_ev *ev)
{
	const struct lazy *z = (const void *)ev->lazy;
	struct img *m = z->m;
	const char *p;

	if (ev->index != z->index)
		return NULL;
	if (!m->lz_bad && z->enc) {
		if ((p = enc_text(m, z, ev)) != NULL)
			return p;
		m->lz_bad = 1;
	}
	if (!m->lz_bad) {
		p = cblk_get(m, z->cls);
		if (p && ev->args_len + 1 == z->len &&
		    p[z->off + ev->args_len] == 0)
			return p + z->off;
		m->lz_bad = 1;
	}
	if (m->fb_index != ev->index + 1) {
		struct fb x = { ev->index, NULL };
		struct pd_trace_cb cb = { &x, fb_event, NULL, NULL, NULL };
		struct pd_trace_stats st;

		if (m->src && m->path)
			m->src(m->path, &cb, &st, 0);
		free(m->fb);
		m->fb = x.args;
		m->fb_index = ev->index + 1;
	}
	return m->fb;
}

/* An event's fields its shape gives. */
static void
shape_fields(struct pd_ev *e, const struct shape *s, const struct shv *v)
{
	e->ph = (char)s->ph;
	e->name = v->name;
	e->cat = v->cat;
	e->pid = v->pid;
	e->pid_num = v->pid_num;
	e->pid_is_num = s->pid_is_num;
}

/* The replay: the read's return code, or -3 when a bad chunk or record
 * stopped it before event m->stop_ev (m->stop_meta on_meta calls made). */
static int
replay(struct img *m, const struct pd_trace_cb *cb, struct pd_trace_stats *st)
{
	const struct hdr *h = m->h;
	uint64_t p = h->ev_off, end = p + h->ev_len;
	const char *ids = NULL, *iend = NULL;
	struct cview cv;
	unsigned char *memo = NULL;	/* per shape: 0 unknown, 1 yes, 2 no */
	uint32_t nrec = 0, j = 0;
	uint64_t i, moff = 0, nsk = 0, sk = 0, nmeta = 0, aoff[NCLS];
	uint64_t next_meta;
	struct pd_ev ev;
	struct pd_argmemo am;
	static const struct pd_ev ev0;
	int k;

	memset(st, 0, sizeof *st);
	memset(&am, 0, sizeof am);
	memset(&cv, 0, sizeof cv);
	memset(aoff, 0, sizeof aoff);
	st->format = h->format;
	++reads;
	m->lz.la.get = lz_get;
	m->lz.la.find = lz_find;
	m->lz.la.find_n = lz_find_n;
	m->lz.m = m;
	m->lz_bad = 0;
	if (pd_trace_filters(cb) && h->nshp &&
	    !(memo = calloc((size_t)h->nshp, 1)))
		return -3;	/* stop_ev 0: the trace read instead */
	next_meta = meta_call(m, cb, &moff, 0, &nmeta);
	ev = ev0;
	ev.memo = &am;
	ev.read_no = reads;
	for (i = 0; i < h->nev; i++, j++) {
		const struct rec *r;
		const struct nrec *nr = NULL;
		struct rec wr;
		const struct shape *s;
		const struct shv *v;
		const struct cblk *c;
		size_t na, ni;
		uint32_t fl, shp;

		if (i >= next_meta)
			next_meta = meta_call(m, cb, &moff, i, &nmeta);
		if (j == nrec) {
			/* every byte of the chunk's args and ids is some
			 * event's */
			if (ids != iend)
				goto bad;
			for (k = 0; k < NCLS && nrec; k++)
				if (aoff[k] != m->cb[k].len)
					goto bad;
			if (!(p = chunk_at(m, p, end, h->nev - i, cb, memo,
			    &cv)))
				goto bad;
			memset(aoff, 0, sizeof aoff);
			ids = cv.ids;
			iend = cv.iend;
			nrec = cv.nrec;
			j = 0;
			if (cv.skip) {
				/* the time of those kept for it, the metas
				 * among its events, then past it */
				pd_tspan_join(&st->span, &cv.span);
				if (i + nrec - 1 >= next_meta)
					next_meta = meta_call(m, cb, &moff,
					    i + nrec - 1, &nmeta);
				i += nrec - 1;
				j = nrec - 1;
				continue;
			}
		}
		/* what passing it over needs; the rest (narrow: widened)
		 * for an event handed out */
		if (cv.rsize == sizeof *r) {
			r = (const struct rec *)cv.recs + j;
			shp = r->shape;
			fl = R_FL(r);
			na = r->blk_len;
			ni = R_IDLEN(r);
		} else {
			nr = (const struct nrec *)cv.recs + j;
			r = NULL;
			shp = nr->shape;
			fl = nr->fl;
			na = nr->blk_len;
			ni = nr->idlen;
		}
		if (shp >= h->nshp)
			goto bad;
		s = &m->shps[shp];
		c = &m->cb[s->cls];
		ni = fl & F_ID ? ni + 1 : 0;
		if (na > c->len - aoff[s->cls] || (size_t)(iend - ids) < ni)
			goto bad;
		if (memo && memo[shp] != M_WANT && (memo[shp] ||
		    shape_answer(m, cb, memo, shp) != M_WANT)) {
			if (memo[shp] == M_SPAN) {	/* its time alone */
				if (!r) {
					widen(&wr, nr, cv.base);
					r = &wr;
				}
				pd_tspan_add(&st->span, (R_FL(r) & F_TS) != 0,
				    r->ts_ns, (R_FL(r) & F_DUR) != 0,
				    r->dur_ns);
			}
			aoff[s->cls] += na;
			ids += ni;
			continue;
		}
		v = &m->sv[shp];
		if (!r) {
			widen(&wr, nr, cv.base);
			r = &wr;
		}
		/* every field but raw, memo and read_no (set once) */
		shape_fields(&ev, s, v);
		if ((ni && ids[ni - 1] != 0) ||
		    (r->tid != NONE && r->tid >= h->nstr) ||
		    (fl & F_ARGS ? fl & F_ENC ? na < 4 :
		    na != (size_t)r->args_len + 1 : na != 0))
			goto bad;
		if (r->tid != NONE) {
			ev.tid = m->sb + m->strs[r->tid].off;
			ev.tid_num = m->strs[r->tid].num;
		} else {
			ev.tid = NULL;
			ev.tid_num = 0;
		}
		ev.tid_is_num = (fl & F_TIDNUM) != 0;
		ev.ts_ns = r->ts_ns;
		ev.dur_ns = r->dur_ns;
		ev.has_ts = (fl & F_TS) != 0;
		ev.has_dur = (fl & F_DUR) != 0;
		ev.args = NULL;
		ev.args_len = 0;
		ev.lazy = NULL;
		ev.id = NULL;
		ev.id_len = 0;
		if (fl & F_ARGS) {
			ev.args_len = r->args_len;
			if (c->p && !(fl & F_ENC)) {	/* read: checked now */
				if (c->p[aoff[s->cls] + r->args_len] != 0)
					goto bad;
				ev.args = c->p + aoff[s->cls];
			} else {	/* read when asked for */
				m->lz.index = i;
				m->lz.off = aoff[s->cls];
				m->lz.cls = s->cls;
				m->lz.len = na;
				m->lz.enc = (fl & F_ENC) != 0;
				ev.lazy = &m->lz.la;
			}
		}
		if (fl & F_ID) {
			ev.id = ids;
			ev.id_len = R_IDLEN(r);
		}
		ev.raw_len = r->raw_len;
		ev.index = i;
		ev.shape_id = r->shape + 1;
		ev.name_id = s->name + 1;
		aoff[s->cls] += na;
		ids += ni;
		st->events = i + 1;
		if (cb->on_event && cb->on_event(&ev, cb->ctx)) {
			/* stopped: the skips met before this event count */
			const struct skip *x = (const void *)at(m, h->skip_off);
			for (; sk < h->nskip && x[sk].pos <= i; sk++)
				nsk += x[sk].count;
			st->skipped = nsk;
			st->bytes = h->bytes;
			free(memo);
			return 0;
		}
		if (m->lz_bad) {	/* its args were not in the entry */
			free(memo);
			m->stop_ev = i + 1;
			m->stop_meta = nmeta;
			return -3;
		}
	}
	if (j != nrec || ids != iend || p != end)
		goto bad;	/* records left over */
	for (k = 0; k < NCLS && nrec; k++)
		if (aoff[k] != m->cb[k].len)
			goto bad;
	free(memo);
	meta_call(m, cb, &moff, h->nev, &nmeta);
	st->events = h->events;
	st->skipped = h->skipped;
	st->bytes = h->bytes;
	st->truncated = h->truncated;
	st->malformed = h->malformed;
	st->err_line = (long)h->err_line;
	memcpy(st->err, h->err, sizeof st->err);
	return h->rc;
bad:
	free(memo);
	if (!m->verify) {	/* unchecked (the fuzzer): no trace behind it */
		bad_record(st, i);
		return 1;
	}
	m->stop_ev = i;
	m->stop_meta = nmeta;
	return -3;
}

int
pd_tcache_replay_mem(const void *img, size_t len, int verify,
    const struct pd_trace_cb *cb, struct pd_trace_stats *st)
{
	struct img m;
	void *copy = NULL;
	int rc;

	memset(&m, 0, sizeof m);
	m.fd = -1;
	m.p = img;
	m.len = len;
	if ((uintptr_t)img & 7) {
		if (!(copy = malloc(len ? len : 1)))
			return -2;
		memcpy(copy, img, len);
		m.p = copy;
	}
	if (img_check(&m, verify) < 0) {
		img_free(&m);
		free(copy);
		return -2;
	}
	rc = replay(&m, cb, st);
	img_free(&m);
	free(copy);
	if (rc == -3 && m.stop_ev == 0 && m.stop_meta == 0)
		return -2;
	if (rc == -3) {	/* no trace to go on with */
		bad_record(st, m.stop_ev);
		return 1;
	}
	return rc;
}

/* ---- the cache directory ---- */

static int dirfd_ = -2;	/* -2: not looked at yet; -1: no cache */

static int
mkdirs(char *path)
{
	char *s;
	struct stat sb;

	if (stat(path, &sb) == 0)
		return S_ISDIR(sb.st_mode) ? 0 : -1;
	for (s = path + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		if (mkdir(path, 0700) < 0 && errno != EEXIST) {
			*s = '/';
			return -1;
		}
		*s = '/';
	}
	return mkdir(path, 0700) < 0 && errno != EEXIST ? -1 : 0;
}

static int
cache_dir(void)
{
	const char *e = getenv("PD_CACHE"), *d = getenv("PD_CACHE_DIR");
	char path[PATH_MAX];
	struct stat sb;
	int fd;

	if (dirfd_ != -2)
		return dirfd_;
	dirfd_ = -1;
	if (e && strcmp(e, "0") == 0)
		return -1;
	if (d && *d)
		snprintf(path, sizeof path, "%s", d);
	else if ((d = getenv("XDG_CACHE_HOME")) && *d == '/')
		snprintf(path, sizeof path, "%s/perfdiag", d);
	else if ((d = getenv("HOME")) && *d == '/')
		snprintf(path, sizeof path, "%s/.cache/perfdiag", d);
	else
		return -1;
	if (mkdirs(path) < 0)
		return -1;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	/* ours, and only we may write there; or not used at all */
	if (fstat(fd, &sb) < 0 || sb.st_uid != geteuid() ||
	    (sb.st_mode & 022)) {
		close(fd);
		return -1;
	}
	return dirfd_ = fd;
}

int
pd_tcache_dir(void)
{
	return disabled ? -1 : cache_dir();
}

/* The identity of the file a path names; -1 when it has none we can use
 * (the source reader then says what is wrong). */
static int
key_of(const char *path, struct key *k)
{
	struct stat sb;
	char *orig = pd_archive_unmap(path);	/* a member's private copy */
	const char *s;
	int rc;

	memset(k, 0, sizeof *k);
	if (orig) {
		rc = key_of(orig, k);
		free(orig);
		return k->member_hash ? rc : -1;
	}
	if (stat(path, &sb) != 0) {
		char arch[PATH_MAX];

		if (errno != ENOENT && errno != ENOTDIR)
			return -1;
		/* ARCHIVE//MEMBER: the archive's identity and the name */
		for (s = path;; s += 2) {
			size_t n;
			if (!(s = strstr(s, "//")))
				return -1;
			n = (size_t)(s - path);
			if (n == 0 || n >= sizeof arch)
				continue;
			memcpy(arch, path, n);
			arch[n] = 0;
			if (pd_archive_name(arch) && stat(arch, &sb) == 0 &&
			    S_ISREG(sb.st_mode))
				break;
		}
		k->member_hash = fnv(s + 2, strlen(s + 2),
		    1469598103934665603ULL) | 1;
	}
	if (!S_ISREG(sb.st_mode))
		return -1;
	k->dev = (uint64_t)sb.st_dev;
	k->ino = (uint64_t)sb.st_ino;
	k->size = (uint64_t)sb.st_size;
	k->mtime_s = (int64_t)sb.st_mtim.tv_sec;
	k->mtime_ns = (int64_t)sb.st_mtim.tv_nsec;
	k->ctime_s = (int64_t)sb.st_ctim.tv_sec;
	k->ctime_ns = (int64_t)sb.st_ctim.tv_nsec;
	return 0;
}

/* A variant read of the file (pd_tcache_read_as) has an identity of its
 * own: the variant mixed into the member's hash (never 0 then). */
static void
with_variant(struct key *k, uint64_t variant)
{
	if (variant)
		k->member_hash = fnv(&variant, sizeof variant,
		    k->member_hash ^ 0x9E3779B97F4A7C15ULL) | 1;
}

/* Changed too recently for its times to tell a later change apart. */
static int
too_young(const struct key *k)
{
	struct timespec now;
	int64_t t = k->mtime_s * 1000000000LL + k->mtime_ns,
	    c = k->ctime_s * 1000000000LL + k->ctime_ns, n;

	clock_gettime(CLOCK_REALTIME, &now);
	n = (int64_t)now.tv_sec * 1000000000LL + now.tv_nsec;
	if (c > t)
		t = c;
	return n - t < MIN_AGE_NS;
}

static int64_t
mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* Open an entry and read its header and small sections; 0 with m set
 * (m->fd open), -1 when absent or not valid. */
static int
entry_open(int dir, const char *name, const struct key *k, struct img *m)
{
	struct stat sb;
	int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	memset(m, 0, sizeof *m);
	m->fd = -1;
	if (fd < 0)
		return -1;
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode) ||
	    sb.st_uid != geteuid() || (size_t)sb.st_size < sizeof(struct hdr) ||
	    (uint64_t)sb.st_size > SIZE_MAX ||
	    readall(fd, (char *)&m->hb, sizeof m->hb, 0) < 0) {
		close(fd);
		return -1;
	}
	m->fd = fd;
	m->len = (size_t)sb.st_size;
	if (memcmp(&m->hb.key, k, sizeof *k) != 0 || img_check(m, 1) < 0) {
		img_free(m);
		close(fd);
		m->fd = -1;
		return -1;
	}
	futimens(fd, NULL);	/* last use, for eviction */
	return 0;
}

/* Going on from the trace itself, past what a bad entry handed out. */
struct resume {
	const struct pd_trace_cb *cb;
	uint64_t ev, meta, nmeta;
};

static int
res_event(const struct pd_ev *ev, void *ctx)
{
	struct resume *r = ctx;

	if (ev->index < r->ev || !r->cb->on_event)
		return 0;
	return r->cb->on_event(ev, r->cb->ctx);
}

static void
res_meta(const char *key, json_t *v, void *ctx)
{
	struct resume *r = ctx;

	if (r->nmeta++ >= r->meta && r->cb->on_meta)
		r->cb->on_meta(key, v, r->cb->ctx);
}

static int
entry_replay(struct img *m, const char *path, const struct pd_trace_cb *cb,
    struct pd_trace_stats *st, pd_tcache_source src, int dir,
    const char *name)
{
	int rc;

	m->path = path;
	m->src = src;
	rc = replay(m, cb, st);
	img_free(m);
	close(m->fd);
	last = PD_TCACHE_HIT;
	if (rc != -3 && m->lz_bad) {	/* stopped where a block was bad */
		unlinkat(dir, name, 0);
		last = PD_TCACHE_SOURCE;
	}
	if (rc == -3) {
		struct resume r = { cb, m->stop_ev, m->stop_meta, 0 };
		struct pd_trace_cb rcb = { &r, res_event, res_meta, cb->want,
		    cb->span };

		unlinkat(dir, name, 0);
		last = PD_TCACHE_SOURCE;
		rc = src(path, &rcb, st, 0);
	}
	return rc;
}

struct ent {
	char name[64];
	int64_t t;
	uint64_t size;
};

static int
ent_cmp(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Keep the directory under its bound: the least recently used entries
 * go first; leftovers of dead builders and unused locks after an hour. */
static void
evict(int dir, const char *keep)
{
	const char *e = getenv("PD_CACHE_SIZE");
	uint64_t bound = DEFAULT_MIB, total = 0;
	struct ent *v = NULL;
	size_t n = 0, cap = 0, i;
	struct dirent *de;
	struct timespec now;
	DIR *d;
	int fd;

	if (e && *e) {
		char *end;
		unsigned long long x = strtoull(e, &end, 10);
		if (*end == 0)
			bound = x;
	}
	bound *= 1024 * 1024;
	if ((fd = dup(dir)) < 0)
		return;
	if (!(d = fdopendir(fd))) {
		close(fd);
		return;
	}
	rewinddir(d);
	clock_gettime(CLOCK_REALTIME, &now);
	while ((de = readdir(d)) != NULL) {
		struct stat sb;
		size_t l = strlen(de->d_name);
		if (l >= sizeof v->name || de->d_name[0] == '.' ||
		    fstatat(dir, de->d_name, &sb, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISREG(sb.st_mode))
			continue;
		if (l > 4 && (strcmp(de->d_name + l - 4, ".tmp") == 0 ||
		    strcmp(de->d_name + l - 5, ".lock") == 0)) {
			if (now.tv_sec - sb.st_mtim.tv_sec > 3600)
				unlinkat(dir, de->d_name, 0);
			continue;
		}
		if (l < 5 || strcmp(de->d_name + l - 5, ".pdtc") != 0)
			continue;
		if (n == cap) {
			struct ent *nv;
			cap = cap ? cap * 2 : 64;
			if (!(nv = realloc(v, cap * sizeof *v)))
				break;
			v = nv;
		}
		memcpy(v[n].name, de->d_name, l + 1);
		v[n].t = (int64_t)sb.st_mtim.tv_sec * 1000000000LL +
		    sb.st_mtim.tv_nsec;
		v[n].size = (uint64_t)sb.st_size;
		total += v[n].size;
		n++;
	}
	closedir(d);
	qsort(v, n, sizeof *v, ent_cmp);
	for (i = 0; i < n && total > bound; i++) {
		if (strcmp(v[i].name, keep) == 0)
			continue;	/* the others go first */
		unlinkat(dir, v[i].name, 0);
		total -= v[i].size;
	}
	/* the one just written, when it alone is over the bound */
	if (total > bound)
		unlinkat(dir, keep, 0);
	free(v);
}

/* Wait for the lock on the entry; 0 when held, -1 when the builder
 * holding it stalled (its temporary file stopped growing). */
static int
lock_wait(int dir, int lk, const char *hex)
{
	int64_t seen = mono_ns();
	off_t size = -1;
	struct timespec nap = { 0, 20 * 1000 * 1000 };

	for (;;) {
		char pid[24], tmp[64];
		ssize_t n;
		struct stat sb;

		if (flock(lk, LOCK_EX | LOCK_NB) == 0)
			return 0;
		if (errno != EWOULDBLOCK && errno != EINTR)
			return -1;
		nanosleep(&nap, NULL);
		n = pread(lk, pid, sizeof pid - 1, 0);
		pid[n > 0 ? n : 0] = 0;
		snprintf(tmp, sizeof tmp, "%s.%ld.tmp", hex, strtol(pid, NULL, 10));
		if (fstatat(dir, tmp, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
		    sb.st_size != size) {
			size = sb.st_size;
			seen = mono_ns();
		} else if (mono_ns() - seen > STALL_NS) {
			return -1;
		}
	}
}

int
pd_tcache_read(const char *path, const struct pd_trace_cb *cb,
    struct pd_trace_stats *st, pd_tcache_source src)
{
	return pd_tcache_read_as(path, 0, cb, st, src);
}

int
pd_tcache_read_as(const char *path, uint64_t variant,
    const struct pd_trace_cb *cb, struct pd_trace_stats *st,
    pd_tcache_source src)
{
	struct key k, k2;
	struct img m;
	struct bld b;
	char hex[24], name[64], lockn[64], tmp[80], pid[24];
	struct stat sb;
	int dir, lk, fd, rc, ok, err;
	uint64_t h;

	last = PD_TCACHE_OFF;
	if (disabled || (dir = cache_dir()) < 0 || key_of(path, &k) < 0)
		return src(path, cb, st, 0);
	with_variant(&k, variant);
	h = fnv(&k, sizeof k, fnv("pd_tcache", 9, 1469598103934665603ULL) +
	    VERSION);
	snprintf(hex, sizeof hex, "%016" PRIx64, h);
	snprintf(name, sizeof name, "%s.pdtc", hex);
	if (entry_open(dir, name, &k, &m) == 0)
		return entry_replay(&m, path, cb, st, src, dir, name);
	last = PD_TCACHE_SOURCE;
	if (too_young(&k))
		return src(path, cb, st, 0);
	snprintf(lockn, sizeof lockn, "%s.lock", hex);
	lk = openat(dir, lockn, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (lk < 0 || fstat(lk, &sb) < 0 || !S_ISREG(sb.st_mode) ||
	    sb.st_uid != geteuid() || lock_wait(dir, lk, hex) < 0) {
		if (lk >= 0)
			close(lk);
		return src(path, cb, st, 0);
	}
	/* someone else may have built it while we waited */
	if (entry_open(dir, name, &k, &m) == 0) {
		close(lk);
		return entry_replay(&m, path, cb, st, src, dir, name);
	}
	snprintf(pid, sizeof pid, "%ld", (long)getpid());
	if (ftruncate(lk, 0) < 0 || pwrite(lk, pid, strlen(pid), 0) < 0) {
		close(lk);
		return src(path, cb, st, 0);
	}
	snprintf(tmp, sizeof tmp, "%s.%s.tmp", hex, pid);
	unlinkat(dir, tmp, 0);
	fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600);
	if (fd < 0) {
		close(lk);
		return src(path, cb, st, 0);
	}
	rc = bld_run(fd, path, NULL, 0, cb, st, src, &k, &b, &ok);
	err = errno;
	bld_free(&b);
	if (close(fd) < 0)
		ok = 0;
	/* changed while it was read: the entry may hold some of each */
	if (ok && (key_of(path, &k2) < 0 || (with_variant(&k2, variant),
	    memcmp(&k, &k2, sizeof k) != 0)))
		ok = 0;
	if (ok && renameat(dir, tmp, dir, name) == 0) {
		last = PD_TCACHE_BUILT;
		close(lk);
		evict(dir, name);
	} else {
		unlinkat(dir, tmp, 0);
		close(lk);
	}
	errno = err;
	return rc;
}
