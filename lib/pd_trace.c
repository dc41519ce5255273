/* The hot loop of perfdiag: a hand-written scanner for trace events.
 * Cross-checked against jansson on the corpus (test/lib.bats), a filtered
 * read against an unfiltered one (test/trace.bats), and fuzzed (make
 * fuzz). Every parse function works on [p, end) and returns OK, MORE (the
 * buffer ended inside the value: read more and retry) or BAD (syntax
 * error). */
#include "pd_trace.h"
#include "pd_diag.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pd_file.h"
#include "pd_num.h"
#include "pd_swar.h"
#include "pd_tcache.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

enum { OK = 0, MORE = 1, BAD = -1 };

#define CHUNK (1 << 20)

#if defined(__GNUC__) || defined(__clang__)
#define INLINE inline __attribute__((always_inline))
#else
#define INLINE inline
#endif

/* A guess of up to 8 bytes: those that count, and a mask of them */
struct g8 {
	uint64_t text, mask;
};

struct rd {
	struct pd_zfile *z;	/* NULL when reading from memory */
	char *buf;
	size_t cap, pos, len;
	int eof, owned;
	int have_events;	/* a traceEvents array was read */
	long lines_before;
	uint64_t bytes;
	char *scr;
	size_t scap, slen;
	/* the keys of the last event of each kind (ph & 7), in order */
	struct kpred {
		struct g8 key;	/* its first bytes (len), which count */
		unsigned char kind, len;	/* len 0: no guess */
		/* and the bytes from the ',' before it to its value (up
		 * to 16: ', "name": '), when it came after one */
		unsigned char skind, slen;	/* slen 0: no guess */
		unsigned short smask;	/* bits of the bytes past slen */
		unsigned char sep[16];
	} pred[8][16];
	/* where an event's args' keys and values are read as it is (when
	 * the read was asked to: pd_trace_read_src's args_kv), and how
	 * many (-1: not read so) */
	struct pd_argkv *kv;
	int nkv;
	int args_kv;	/* asked for */
	/* the last plain integer pid and tid: its bytes and the byte that
	 * ended it (len + 1 <= 8 of them), and its number */
	struct idguess {
		struct g8 bytes;
		int64_t num;
		size_t len;	/* 0: none */
	} idg[2];
};

/* The scanners below look at 16 bytes at a time where SSE2 is there (the
 * x86-64 baseline) and at least 16 bytes are left before the end they were
 * given; they never read past that end. Elsewhere, and for the tail, a
 * byte at a time. */
#ifdef __SSE2__
static unsigned
mask16(__m128i v, char c)
{
	return (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v,
	    _mm_set1_epi8(c)));
}

#define LOAD16(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#endif

static long
count_nl(const char *p, const char *e)
{
	long n = 0;

#ifdef __SSE2__
	const __m128i nl = _mm_set1_epi8('\n'), zero = _mm_setzero_si128();

	while (e - p >= 64) {
		__m128i acc = zero, s;
		int i;
		/* per-byte counters: at most 255 newlines before summing */
		for (i = 0; i < 63 && e - p >= 64; i++, p += 64) {
			acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(LOAD16(p), nl));
			acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(LOAD16(p + 16),
			    nl));
			acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(LOAD16(p + 32),
			    nl));
			acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(LOAD16(p + 48),
			    nl));
		}
		s = _mm_sad_epu8(acc, zero);
		n += _mm_cvtsi128_si32(s) + _mm_cvtsi128_si32(
		    _mm_srli_si128(s, 8));
	}
#endif
	for (; p < e; p++)
		n += *p == '\n';
	return n;
}

/* The first '"' or '\\' in [p, end), or end. */
static INLINE const char *
find_qb(const char *p, const char *end)
{
#ifdef __SSE2__
	while (end - p >= 16) {
		__m128i v = LOAD16(p);
		unsigned m = mask16(v, '"') | mask16(v, '\\');
		if (m)
			return p + __builtin_ctz(m);
		p += 16;
	}
#endif
	while (p < end && *p != '"' && *p != '\\')
		p++;
	return p;
}

static int
fill(struct rd *r)
{
	long n;

	if (r->eof)
		return 0;
	if (r->pos > 0) {
		r->lines_before += count_nl(r->buf, r->buf + r->pos);
		memmove(r->buf, r->buf + r->pos, r->len - r->pos);
		r->len -= r->pos;
		r->pos = 0;
	}
	if (r->cap - r->len < CHUNK / 2) {
		size_t nc = r->cap ? r->cap * 2 : CHUNK;
		char *nb = realloc(r->buf, nc + 1);
		if (!nb)
			return -1;
		r->buf = nb;
		r->cap = nc;
	}
	n = pd_file_zread(r->z, r->buf + r->len, r->cap - r->len);
	if (n < 0)
		return -1;
	if (n == 0)
		r->eof = 1;
	r->len += (size_t)n;
	r->bytes += (uint64_t)n;
	return (int)n;
}

static const unsigned char wsch[256] = {
	[' '] = 1, ['\n'] = 1, ['\r'] = 1, ['\t'] = 1,
};

static INLINE int
isws(int c)
{
	return wsch[c];
}

/* The bytes that may end a number or another scalar: ',' '}' ']' and
 * the blanks */
static const unsigned char numend[256] = {
	[','] = 1, ['}'] = 1, [']'] = 1, [' '] = 1, ['\n'] = 1, ['\r'] = 1,
	['\t'] = 1,
};

static INLINE const char *
ws(const char *p, const char *end)
{
	/* most tokens follow no blank or one space */
	if (p < end && (unsigned char)*p > ' ')
		return p;
	if (end - p > 1 && *p == ' ' && (unsigned char)p[1] > ' ')
		return p + 1;
	while (p < end && isws((unsigned char)*p))
		p++;
	return p;
}

/* p at the opening quote; *q set after the closing one; *esc when the
 * string holds a backslash. */
static INLINE int
str_end(const char *p, const char *end, const char **q, int *esc)
{
	const char *s = p + 1;

	*esc = 0;
	for (;;) {
		s = find_qb(s, end);
		if (s >= end)
			return MORE;
		if (*s == '"') {
			*q = s + 1;
			return OK;
		}
		*esc = 1;
		s += 2;		/* the backslash and the byte it escapes */
		if (s > end)
			return MORE;
	}
}

/* A scalar (number, true, false, null, or what a bad file has there)
 * ends at a blank or at ',' '}' ']' ; '{' '[' '"' ':' in it make it bad.
 * Sixteen bytes at a time: a byte that is none of those nor another
 * control byte is passed over without a look (a control byte that is not
 * a blank, part of the scalar, is looked at by the loop below). */
static int
scalar_end(const char *p, const char *end, const char **q)
{
#ifdef __SSE2__
	while (end - p >= 16) {
		__m128i v = LOAD16(p);
		__m128i f = _mm_or_si128(v, _mm_set1_epi8(0x20));
		/* <= ' ', unsigned: control bytes and the blank */
		__m128i lo = _mm_cmpeq_epi8(_mm_max_epu8(v,
		    _mm_set1_epi8(' ')), _mm_set1_epi8(' '));
		unsigned m = (unsigned)_mm_movemask_epi8(lo) | mask16(v, ',') |
		    mask16(v, ':') | mask16(v, '"') | mask16(f, '{') |
		    mask16(f, '}');

		if (m) {
			p += __builtin_ctz(m);
			break;
		}
		p += 16;
	}
#endif
	while (p < end) {
		char c = *p;
		if (numend[(unsigned char)c]) {
			*q = p;
			return OK;
		}
		if (c == '{' || c == '[' || c == '"' || c == ':')
			return BAD;
		p++;
	}
	return MORE;
}

/* One byte of a container being skipped: strings are passed over (a
 * backslash in one hides the next byte), brackets counted. Returns 1 when
 * the container closed at this byte. */
#define SKIP_BYTE(c, skip_next)						\
	do {								\
		if (instr) {						\
			if ((c) == '\\')				\
				skip_next;				\
			else if ((c) == '"')				\
				instr = 0;				\
		} else if ((c) == '"') {				\
			instr = 1;					\
		} else if ((c) == '{' || (c) == '[') {			\
			depth++;					\
		} else if ((c) == '}' || (c) == ']') {			\
			if (--depth == 0)				\
				closed = 1;				\
		}							\
	} while (0)

/* p at '{' or '['. A block of 16 bytes without a backslash is done
 * without a loop over its bytes: the bytes inside strings are those after
 * an odd number of quotes (a prefix XOR of the quote bits); only the
 * brackets outside them are looked at one by one. */
static int
skip_container(const char *p, const char *end, const char **q)
{
	int depth = 0, instr = 0, closed = 0;

#ifdef __SSE2__
	while (end - p >= 16) {
		__m128i v = LOAD16(p);
		/* '[' ']' '{' '}' are 0x5B 0x5D 0x7B 0x7D: or 0x20 folds them */
		__m128i f = _mm_or_si128(v, _mm_set1_epi8(0x20));
		unsigned bs = mask16(v, '\\'), qm = mask16(v, '"');
		unsigned op = mask16(f, '{'), cl = mask16(f, '}');
		int i = 0, skip = 0;

		if (!bs) {
			unsigned in = qm;

			in ^= in << 1;
			in ^= in << 2;
			in ^= in << 4;
			in ^= in << 8;
			in = (in ^ (instr ? 0xFFFFu : 0)) & 0xFFFFu;
			instr = (int)(in >> 15);
			op &= ~in;
			cl &= ~in;
			for (op |= cl; op; op &= op - 1) {
				i = __builtin_ctz(op);
				if (!(cl >> i & 1)) {
					depth++;
				} else if (--depth == 0) {
					*q = p + i + 1;
					return OK;
				}
			}
			p += 16;
			continue;
		}
		unsigned m = qm | bs | op | cl;
		while (m) {
			i = __builtin_ctz(m);
			m &= m - 1;
			SKIP_BYTE(p[i], (skip = i + 2, m &= ~(1u << (i + 1))));
			if (closed) {
				*q = p + i + 1;
				return OK;
			}
		}
		p += skip > 16 ? skip : 16;
	}
#endif
	for (; p < end; p++) {
		SKIP_BYTE(*p, p++);
		if (closed) {
			*q = p + 1;
			return OK;
		}
	}
	return MORE;
}

static int
skip_value(const char *p, const char *end, const char **q)
{
	int esc, rc;

	if (p >= end)
		return MORE;
	if (*p == '"')
		return str_end(p, end, q, &esc);
	if (*p != '{' && *p != '[') {
		rc = scalar_end(p, end, q);
		if (rc == OK && *q == p)
			return BAD;
		return rc;
	}
	return skip_container(p, end, q);
}

/* The bytes of a number (1) and between those of an array of numbers
 * (2: those, ',' and ' ') */
static const unsigned char numch[256] = {
	[' '] = 2, [','] = 2, ['+'] = 3, ['-'] = 3, ['.'] = 3, ['e'] = 3,
	['E'] = 3, ['0'] = 3, ['1'] = 3, ['2'] = 3, ['3'] = 3, ['4'] = 3,
	['5'] = 3, ['6'] = 3, ['7'] = 3, ['8'] = 3, ['9'] = 3,
};

/* The end of the value at p (before end), as skip_value() finds it, for
 * the values args mostly have: a number, an array of numbers (of arrays
 * of them); the others through skip_value(). */
static INLINE int
plain_value(const char *p, const char *end, const char **q)
{
	const char *s = p;

	if (numch[(unsigned char)*s] & 1) {
		/* a scalar ends at ',' or '}' as at a blank, and none of
		 * these bytes ends it or makes it bad; digits go 8 a step */
		s++;
#ifdef PD_HAVE_SWAR
		while (end - s >= 8) {
			int n = pd_swar_run(s);

			s += n;
			if (n < 8)
				break;
		}
#endif
		while (s < end && (numch[(unsigned char)*s] & 1))
			s++;
		if (s < end && (*s == ',' || *s == '}')) {
			*q = s;
			return OK;
		}
	} else if (*s == '[') {
		/* numbers and arrays of them: no string, no brace in it, it
		 * ends at the ']' that closes it */
		int depth = 1;

		while (++s < end) {
			if (numch[(unsigned char)*s] & 2)
				continue;
			if (*s == '[') {
				depth++;
			} else if (*s == ']') {
				if (--depth == 0) {
					*q = s + 1;
					return OK;
				}
			} else {
				break;
			}
		}
	}
	return skip_value(p, end, q);
}

/* The keys and values of the object at a (before end) as writers mostly
 * write it: no blank but one space after a colon or comma, none inside
 * the braces; at most max of them into kv, read as the lookups read them.
 * Returns their number and sets *qe after the object's '}'; -2 when it
 * is not so written (or goes past end): read it the long way. */
static int
obj_walk(const char *a, const char *end, struct pd_argkv *kv, int max,
    const char **qe)
{
	const char *p = a + 1, *ke, *q;
	int i = 0, esc;

	if (p >= end)
		return -2;
	if (*p == '}') {
		*qe = p + 1;
		return 0;
	}
	for (;;) {
		if (*p != '"' || i == max || str_end(p, end, &ke, &esc) != OK ||
		    ke >= end || *ke != ':')
			return -2;
		kv[i].k = p + 1;
		kv[i].kn = (size_t)(ke - 1 - (p + 1));
		p = ke + 1;
		if (p < end && *p == ' ')
			p++;
		if (p >= end || (unsigned char)*p <= ' ' ||
		    plain_value(p, end, &q) != OK || q >= end)
			return -2;
		kv[i].v = p;
		kv[i].vn = (size_t)(q - p);
		i++;
		if (*q == '}') {
			*qe = q + 1;
			return i;
		}
		if (*q != ',')
			return -2;
		p = q + 1;
		if (p < end && *p == ' ')
			p++;
		if (p >= end)
			return -2;
	}
}

/* The memo's reading (pd_argmemo.state): more to read, at the end, a
 * value the lookups' reader rejects, no room for more keys. */
enum { AM_MORE, AM_END, AM_BAD, AM_FULL };

static void
sgrow(struct rd *r, size_t need)
{
	size_t nc = (r->scap ? r->scap : 256);

	while (nc < need)
		nc *= 2;
	r->scr = realloc(r->scr, nc);
	if (!r->scr)
		pd_oom();
	r->scap = nc;
}

/* Leaves room for one more byte (the NUL). */
static INLINE void
sput(struct rd *r, const char *s, size_t n)
{
	if (r->slen + n + 1 > r->scap)
		sgrow(r, r->slen + n + 1);
	memcpy(r->scr + r->slen, s, n);
	r->slen += n;
}

static int
hex4(const char *s, unsigned *v)
{
	int i;

	*v = 0;
	for (i = 0; i < 4; i++) {
		char c = s[i];
		*v <<= 4;
		if (c >= '0' && c <= '9')
			*v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			*v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			*v |= (unsigned)(c - 'A' + 10);
		else
			return -1;
	}
	return 0;
}

static void
put_utf8(struct rd *r, unsigned cp)
{
	char b[4];
	size_t n;

	if (cp < 0x80) {
		b[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		b[0] = (char)(0xC0 | (cp >> 6));
		b[1] = (char)(0x80 | (cp & 0x3F));
		n = 2;
	} else if (cp < 0x10000) {
		b[0] = (char)(0xE0 | (cp >> 12));
		b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		b[2] = (char)(0x80 | (cp & 0x3F));
		n = 3;
	} else {
		b[0] = (char)(0xF0 | (cp >> 18));
		b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
		b[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
		b[3] = (char)(0x80 | (cp & 0x3F));
		n = 4;
	}
	sput(r, b, n);
}

/* Append s..e to the scratch buffer, NUL-terminated; returns its
 * offset. Bytes up to lim may be read (past e): a text of up to 32 bytes
 * is copied as two blocks of 16 where 32 can be read, without a call. */
static INLINE size_t
scopy(struct rd *r, const char *s, const char *e, const char *lim)
{
	size_t off = r->slen, n = (size_t)(e - s);

	if (off + n + 33 > r->scap)
		sgrow(r, off + n + 33);
#ifdef __SSE2__
	if (n <= 32 && lim - s >= 32) {
		__m128i a = LOAD16(s), b = LOAD16(s + 16);

		_mm_storeu_si128((__m128i *)(void *)(r->scr + off), a);
		_mm_storeu_si128((__m128i *)(void *)(r->scr + off + 16), b);
	} else
#endif
		memcpy(r->scr + off, s, n);
	r->scr[off + n] = 0;
	r->slen = off + n + 1;
	return off;
}

/* Append the unescaped contents of the string s..e (without quotes) to the
 * scratch buffer, NUL-terminated; returns its offset. */
static size_t
unescape(struct rd *r, const char *s, const char *e, int esc)
{
	size_t off = r->slen;

	if (!esc) {
		sput(r, s, (size_t)(e - s));
		r->scr[r->slen++] = 0;
		return off;
	}
	while (s < e) {
		const char *b = memchr(s, '\\', (size_t)(e - s));
		if (!b) {
			sput(r, s, (size_t)(e - s));
			break;
		}
		sput(r, s, (size_t)(b - s));
		if (b + 1 >= e)
			break;
		char c = b[1], o;
		s = b + 2;
		switch (c) {
		case 'n': o = '\n'; break;
		case 't': o = '\t'; break;
		case 'r': o = '\r'; break;
		case 'b': o = '\b'; break;
		case 'f': o = '\f'; break;
		case 'u': {
			unsigned cp, lo;
			if (e - s < 4 || hex4(s, &cp) < 0) {
				o = '?';
				break;
			}
			s += 4;
			if (cp >= 0xD800 && cp < 0xDC00 && e - s >= 6 &&
			    s[0] == '\\' && s[1] == 'u' && hex4(s + 2, &lo) == 0 &&
			    lo >= 0xDC00 && lo < 0xE000) {
				cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
				s += 6;
			}
			/* a NUL would end the name: the escaped byte 0 (pd_str) */
			put_utf8(r, cp ? cp : 0x10FF00);
			continue;
		}
		default: o = c; break;
		}
		sput(r, &o, 1);
	}
	sput(r, "", 1);
	return off;
}

static int text_other(struct rd *, const char *, const char *,
    const char **, size_t *, int *);

/* A string or a number as text into scratch; *quoted for a string. */
static INLINE int
text_value(struct rd *r, const char *p, const char *end, const char **q,
    size_t *off, int *quoted)
{
	int esc, rc;

	if (*p != '"')
		return text_other(r, p, end, q, off, quoted);
	rc = str_end(p, end, q, &esc);
	if (rc != OK)
		return rc;
	*off = esc ? unescape(r, p + 1, *q - 1, esc) : scopy(r, p + 1,
	    *q - 1, end);
	*quoted = 1;
	return OK;
}

static int
text_other(struct rd *r, const char *p, const char *end, const char **q,
    size_t *off, int *quoted)
{
	int rc;

	rc = skip_value(p, end, q);
	if (rc != OK)
		return rc;
	if (*p == '{' || *p == '[')
		return BAD;
	*off = unescape(r, p, *q, 0);
	*quoted = 0;
	return OK;
}

static int
all_digits(const char *s, int64_t *v)
{
	return *s && pd_num_int(s, strlen(s), v) == PD_NUM_OK &&
	    strspn(s, "-0123456789") == strlen(s);
}

#ifdef PD_HAVE_SWAR
/* The run of ASCII digits that starts at s, 8 bytes of which may be read:
 * its length (at most 8), and in *v its value, from one load. */
static INLINE int
digits8(const char *s, uint64_t *v)
{
	uint64_t x;
	int n = pd_swar_run(s);

	if (n == 0) {
		*v = 0;
		return 0;
	}
	memcpy(&x, s, 8);
	/* leading zeros for the missing digits */
	*v = pd_swar_value((x ^ PD_SWAR_ZEROS) << 8 * (8 - n));
	return n;
}
#endif

static const uint64_t pow10_3[4] = { 1, 10, 100, 1000 };

/* A plain number, -?DIGITS(.DIGITS)?, at p and ending at a delimiter:
 * its value scaled by 10^shift (3 for µs to ns, 0 for an integer), as
 * pd_num_us_to_ns and pd_num_int compute it (the first dropped fraction
 * digit rounds half up), in one pass. Returns OK (*q at the delimiter),
 * MORE (the buffer ends inside it) or BAD for anything else (an exponent,
 * a sign '+', too many digits, no fraction allowed...), which the caller
 * then reads the general way. */
static INLINE int
plain_num(const char *p, const char *end, int shift, int frac,
    const char **q, int64_t *out)
{
	const char *s = p;
	uint64_t u = 0;
	int neg = 0, nd = 0, fd = 0, round = 0;

	if (s < end && *s == '-')
		neg = 1, s++;
#ifdef PD_HAVE_SWAR
	/* eight digits a step while eight bytes are left (wrapping past
	 * 16 digits does not matter: that is BAD below); after 16 the
	 * loop below looks at the next byte */
	while (end - s >= 8 && nd < 16) {
		uint64_t v;
		int n = digits8(s, &v);

		u = u * pd_pow10_8[n] + v;
		nd += n;
		s += n;
		if (n < 8)	/* a byte that is no digit follows */
			goto digits_done;
	}
#endif
	for (; s < end && (unsigned)(*s - '0') < 10; s++, nd++)
		u = u * 10 + (uint64_t)(*s - '0');
#ifdef PD_HAVE_SWAR
digits_done:
#endif
	if (nd == 0 || nd > 16)
		return s >= end && nd <= 16 ? MORE : BAD;
	if (s < end && *s == '.') {
		if (!frac)
			return BAD;
		for (s++; s < end && (unsigned)(*s - '0') < 10; s++, fd++) {
			if (fd < shift)
				u = u * 10 + (uint64_t)(*s - '0');
			else if (fd == shift)
				round = *s >= '5';
		}
		if (fd == 0)
			return s >= end ? MORE : BAD;
	}
	if (s >= end)
		return MORE;
	if (!numend[(unsigned char)*s])
		return BAD;
	if (fd < shift)
		u *= pow10_3[shift - fd];
	/* at most 19 digits: below 9e18, nothing pd_num refuses overflowed */
	if (u >= 9000000000000000000ULL)
		return BAD;
	u += (uint64_t)round;
	*out = neg ? -(int64_t)u : (int64_t)u;
	*q = s;
	return OK;
}

enum { K_OTHER, K_PH, K_NAME, K_CAT, K_PID, K_TID, K_TS, K_DUR, K_ARGS,
	K_ID, K_SKIPTID };

static int
key_kind(const char *k, size_t n)
{
	switch (n) {
	case 2:
		if (k[0] == 'p' && k[1] == 'h')
			return K_PH;
		if (k[0] == 't' && k[1] == 's')
			return K_TS;
		if (k[0] == 'i' && k[1] == 'd')
			return K_ID;
		break;
	case 3:
		if (memcmp(k, "pid", 3) == 0)
			return K_PID;
		if (memcmp(k, "tid", 3) == 0)
			return K_TID;
		if (memcmp(k, "cat", 3) == 0)
			return K_CAT;
		if (memcmp(k, "dur", 3) == 0)
			return K_DUR;
		break;
	case 4:
		if (memcmp(k, "name", 4) == 0)
			return K_NAME;
		if (memcmp(k, "args", 4) == 0)
			return K_ARGS;
		break;
	}
	return K_OTHER;
}

/* The key whose opening quote is at p, with 6 bytes readable there, when
 * it is one of ours written without escapes: its kind, *ke after its
 * closing quote. -1 for any other key (read the general way). */
static INLINE int
key_fast(const char *p, const char **ke)
{
	switch (p[1]) {
	case 'p':
		if (p[2] == 'h' && p[3] == '"')
			return *ke = p + 4, K_PH;
		if (memcmp(p + 2, "id\"", 3) == 0)
			return *ke = p + 5, K_PID;
		break;
	case 'n':
		if (memcmp(p + 2, "ame\"", 4) == 0)
			return *ke = p + 6, K_NAME;
		break;
	case 'c':
		if (memcmp(p + 2, "at\"", 3) == 0)
			return *ke = p + 5, K_CAT;
		break;
	case 't':
		if (p[2] == 's' && p[3] == '"')
			return *ke = p + 4, K_TS;
		if (memcmp(p + 2, "id\"", 3) == 0)
			return *ke = p + 5, K_TID;
		break;
	case 'd':
		if (memcmp(p + 2, "ur\"", 3) == 0)
			return *ke = p + 5, K_DUR;
		break;
	case 'a':
		if (memcmp(p + 2, "rgs\"", 4) == 0)
			return *ke = p + 6, K_ARGS;
		break;
	case 'i':
		if (p[2] == 'd' && p[3] == '"')
			return *ke = p + 4, K_ID;
		break;
	}
	return -1;
}

/* Are the bytes at p (8 readable) those g guesses? */
static INLINE int
g8_is(const char *p, const struct g8 *g)
{
	uint64_t w;

	memcpy(&w, p, 8);
	return (w & g->mask) == g->text;
}

/* Guess the n <= 8 bytes at p (only those are read). */
static void
g8_set(struct g8 *g, const char *p, size_t n)
{
	unsigned char t[8] = { 0 }, m[8] = { 0 };

	memcpy(t, p, n);
	memset(m, 0xFF, n);
	memcpy(&g->text, t, 8);
	memcpy(&g->mask, m, 8);
}

/* Is the key at p (8 bytes readable) the one k guesses? */
static INLINE int
key_is(const char *p, const struct kpred *k)
{
	return g8_is(p, &k->key);
}

/* Is what follows a value at p (16 bytes readable) the ',', the key
 * and the ':' that k guesses, byte for byte? */
static INLINE int
sep_is(const char *p, const struct kpred *k)
{
#ifdef __SSE2__
	__m128i v = _mm_cmpeq_epi8(LOAD16(p), LOAD16(k->sep));

	return ((unsigned)_mm_movemask_epi8(v) | k->smask) == 0xFFFFu;
#else
	return memcmp(p, k->sep, k->slen) == 0;
#endif
}

/* Remember the bytes c..v (at most 16), from the ',' before a key to
 * its value, as k's guess of them. */
static void
sep_learn(struct kpred *k, const char *c, const char *v, int kind)
{
	size_t n = (size_t)(v - c);

	memset(k->sep, 0, sizeof k->sep);
	memcpy(k->sep, c, n);
	k->smask = (unsigned short)(0xFFFFu << n);
	k->skind = (unsigned char)kind;
	k->slen = (unsigned char)n;
}

/* Remember the key p..ke (with its quotes, and the ':' and blanks after
 * it when they fit in 8 bytes too) as k's guess. */
static void
key_learn(struct kpred *k, const char *p, const char *ke, const char *v,
    int kind)
{
	size_t n = (size_t)(v - p);

	if (n > 8)
		n = (size_t)(ke - p);
	k->len = 0;
	if (n > 8)
		return;
	g8_set(&k->key, p, n);
	k->kind = (unsigned char)kind;
	k->len = (unsigned char)n;
}

/* pid or tid: a plain integer is read at once, else as text (the
 * number, when there is one, is found at the end of the event). */
static INLINE int
id_value(struct rd *r, const char *p, const char *end, const char **q,
    size_t *off, int *known, int64_t *num, struct idguess *g)
{
	int quoted, rc;

	/* the same bytes as the last one's, and the same byte after
	 * them: the same number (most events of a file share a few) */
	if (end - p >= 8 && g->len && g8_is(p, &g->bytes)) {
		*q = p + g->len;
		*num = g->num;
		*off = scopy(r, p, *q, end);
		*known = 1;
		return OK;
	}
	*known = 0;
	rc = plain_num(p, end, 0, 0, q, num);
	if (rc == OK) {
		size_t n = (size_t)(*q - p);

		*off = scopy(r, p, *q, end);
		*known = 1;
		g->len = 0;
		if (n < 8) {	/* its bytes and the next */
			g8_set(&g->bytes, p, n + 1);
			g->num = *num;
			g->len = n;
		}
		return OK;
	}
	if (rc == MORE)
		return MORE;
	return text_value(r, p, end, q, off, &quoted);
}

/* What parse_event has found of an event's texts: offsets into the
 * scratch buffer (SIZE_MAX: absent), which may move as it grows. */
struct texts {
	size_t name, cat, pid, tid;
	int pid_known, tid_known;
	int64_t pid_num, tid_num;
};

/* pid or tid: its text at off (SIZE_MAX: absent), its number when it
 * has one (a number known, or its text all digits) */
static INLINE void
set_id(struct rd *r, size_t off, int known, int64_t num, const char **id,
    int64_t *idnum, int *is_num)
{
	*idnum = 0;	/* all_digits may leave a number */
	if (off == SIZE_MAX) {
		*id = NULL;
		*is_num = 0;
	} else if (known) {
		*id = r->scr + off;
		*is_num = 1, *idnum = num;
	} else {
		*id = r->scr + off;
		*is_num = all_digits(*id, idnum);
	}
}

/* Called again after a key repeated past the filter's answer: nothing
 * of the first call stays. */
static INLINE void
set_texts(struct rd *r, struct pd_ev *ev, const struct texts *t)
{
	ev->name = t->name == SIZE_MAX ? "" : r->scr + t->name;
	ev->cat = t->cat == SIZE_MAX ? "" : r->scr + t->cat;
	set_id(r, t->pid, t->pid_known, t->pid_num, &ev->pid, &ev->pid_num,
	    &ev->pid_is_num);
	set_id(r, t->tid, t->tid_known, t->tid_num, &ev->tid, &ev->tid_num,
	    &ev->tid_is_num);
}

enum { S_PH = 1, S_NAME = 2, S_CAT = 4, S_PID = 8, S_ALL = 15 };

/* Parse one event object at p. With a filter (fcb, else NULL), *wanted
 * says whether it wants the event; it is asked as soon as ph, name, cat
 * and pid have all been read, and an event it declines has the rest of
 * its object only skipped: what it must still check is that the object
 * is well formed the same way (a pid, tid, name or cat that reading would
 * refuse) and ts and dur, which decide whether the event counts. Only a
 * repeated ph, name, cat or pid after that answer is read again, and the
 * filter asked again at the end: if it then wants the event, the event
 * is read again from its start, whole. */
static int
parse_event(struct rd *r, const char *p, const char *end, const char **q,
    struct pd_ev *ev, int *badts, const struct pd_trace_cb *fcb,
    int *wanted)
{
	const char *start = p, *ke, *k, *comma = NULL;
	struct texts t = { SIZE_MAX, SIZE_MAX, SIZE_MAX, SIZE_MAX, 0, 0, 0, 0 };
	int esc, rc, quoted, kind, seen = 0, asked = 0, skip = 0, again = 0;
	int i = 0, answer = PD_WANT;
	struct kpred *kp, *row = r->pred[0];
	static const struct pd_ev ev0;

	*ev = ev0;	/* a copy, not memset: "rep stos" is slow to start */
	r->slen = 0;
	r->nkv = -1;
	*badts = 0;
	*wanted = PD_WANT;
	p++;	/* '{' */
	for (;;) {
		p = ws(p, end);
		if (p >= end)
			return MORE;
		if (*p == '}') {
			p++;
			break;
		}
		if (*p != '"')
			return BAD;
next_key:	/* p at the opening quote of a key */
		/* the events of one kind (ph) in a file mostly have their
		 * keys in one order: the key that the last one had here is
		 * tried first */
		kp = i < 16 ? &row[i] : NULL;
		i++;
		if (kp && kp->len && end - p >= 8 && key_is(p, kp)) {
			kind = kp->kind;
			ke = p + kp->len;
			if (ke[-1] == '"') {	/* the key alone */
				ke = ws(ke, end);
				if (ke >= end)
					return MORE;
				if (*ke != ':')
					return BAD;
				ke++;
			}
		} else {
			if (end - p < 6 || (kind = key_fast(p, &ke)) < 0) {
				rc = str_end(p, end, &ke, &esc);
				if (rc != OK)
					return rc;
				kind = key_kind(p + 1,
				    (size_t)(ke - 1 - (p + 1)));
			}
			k = ke;
			ke = ws(ke, end);
			if (ke >= end)
				return MORE;
			if (*ke != ':')
				return BAD;
			ke = ws(ke + 1, end);
			if (kp && ke < end)
				key_learn(kp, p, k, ke, kind);
		}
		p = ws(ke, end);
		if (p >= end)
			return MORE;
		/* (a guess is bytes and the kind they mean: one left from
		 * another event is never wrong, at worst missed) */
		if (comma && kp && p - comma <= 16 && ((size_t)(p - comma) !=
		    kp->slen || kp->skind != kind))
			sep_learn(kp, comma, p, kind);
have_value:	/* p at the value of a key of this kind */
		;
		const char *v = p;
		if (asked) {	/* (skip is set with it only) */
			if (kind == K_PH || kind == K_NAME || kind == K_CAT ||
			    kind == K_PID)
				again = 1;
			if (skip) {
				if (kind == K_TID)
					kind = K_SKIPTID;
				else if (kind == K_ARGS || kind == K_ID)
					kind = K_OTHER;
			}
		}
		switch (kind) {
		case K_PH:
			seen |= S_PH;
			if (end - p > 2 && p[0] == '"' && p[2] == '"' &&
			    p[1] != '\\' && p[1] != '"') {
				ev->ph = p[1];
				row = r->pred[p[1] & 7];
				p += 3;
				rc = OK;
				break;
			}
			rc = skip_value(p, end, &p);
			if (rc == OK && *v == '"' && p - v > 2)
				ev->ph = v[1];
			row = r->pred[ev->ph & 7];
			break;
		case K_NAME:
			seen |= S_NAME;
			rc = text_value(r, p, end, &p, &t.name, &quoted);
			if (rc == BAD) {	/* name as object: ignore */
				rc = skip_value(v, end, &p);
				t.name = SIZE_MAX;
			}
			break;
		case K_CAT:
			seen |= S_CAT;
			rc = text_value(r, p, end, &p, &t.cat, &quoted);
			if (rc == BAD) {
				rc = skip_value(v, end, &p);
				t.cat = SIZE_MAX;
			}
			break;
		case K_PID:
			seen |= S_PID;
			rc = id_value(r, p, end, &p, &t.pid, &t.pid_known,
			    &t.pid_num, &r->idg[0]);
			break;
		case K_TID:
			rc = id_value(r, p, end, &p, &t.tid, &t.tid_known,
			    &t.tid_num, &r->idg[1]);
			break;
		case K_TS:
		case K_DUR: {
			int64_t ns;
			int x;

			rc = plain_num(p, end, 3, 1, &p, &ns);
			if (rc == OK) {
				x = PD_NUM_OK;
			} else if (rc == MORE) {
				break;
			} else {
				const char *s = v, *e;

				rc = skip_value(v, end, &p);
				if (rc != OK)
					break;
				e = p;
				if (*s == '"')
					s++, e--;
				x = pd_num_us_to_ns(s, (size_t)(e - s), &ns);
			}
			if (x == PD_NUM_OK || x == PD_NUM_INEXACT) {
				if (kind == K_DUR)
					ev->dur_ns = ns, ev->has_dur = 1;
				else
					ev->ts_ns = ns, ev->has_ts = 1;
			} else if (*v != 'n') {	/* null is absent */
				*badts = 1;
			}
			break;
		}
		case K_ARGS:
			if (r->kv && *v == '{' && (r->nkv = obj_walk(v, end,
			    r->kv, PD_ARGMEMO_MAX, &p)) >= 0) {
				/* the end skip_value() finds */
				rc = OK;
			} else {
				r->nkv = -1;
				rc = skip_value(p, end, &p);
			}
			if (rc == OK && *v == '{') {
				ev->args = v;
				ev->args_len = (size_t)(p - v);
			}
			break;
		case K_ID:
			rc = skip_value(p, end, &p);
			if (rc == OK) {
				ev->id = v;
				ev->id_len = (size_t)(p - v);
				if (*v == '"' && ev->id_len >= 2)
					ev->id++, ev->id_len -= 2;
			}
			break;
		case K_SKIPTID:	/* refused as id_value does: a container */
			rc = skip_value(p, end, &p);
			if (rc == OK && (*v == '{' || *v == '['))
				rc = BAD;
			break;
		default:
			rc = skip_value(p, end, &p);
			break;
		}
		if (rc != OK)
			return rc;
		if (fcb && !asked && seen == S_ALL) {
			asked = 1;
			set_texts(r, ev, &t);
			answer = pd_trace_answer(fcb, ev);
			skip = answer != PD_WANT;
		}
		/* the ',' and key that came here in the last event of this
		 * kind: straight to the value */
		if (i < 16 && row[i].slen && end - p > 16 &&
		    sep_is(p, &row[i])) {
			kind = row[i].skind;
			p += row[i].slen;	/* < end */
			i++;
			if ((unsigned char)*p <= ' ') {
				p = ws(p, end);
				if (p >= end)
					return MORE;
			}
			goto have_value;
		}
		/* ',', one blank or none, and the next key's quote, as
		 * writers mostly put them: straight to that key */
		if (end - p >= 3 && p[0] == ',') {
			const char *nq = p + 1 + (p[1] == ' ');

			if (*nq == '"') {
				comma = p;
				p = nq;
				goto next_key;
			}
		}
		p = ws(p, end);
		if (p >= end)
			return MORE;
		if (*p == ',') {
			comma = p;
			p++;
			continue;
		}
		if (*p == '}') {
			p++;
			break;
		}
		return BAD;
	}
	*q = p;
	if (skip && !again) {
		*wanted = answer;
		return OK;
	}
	ev->raw = start;
	ev->raw_len = (size_t)(p - start);
	set_texts(r, ev, &t);
	if (fcb && (!asked || again)) {
		*wanted = pd_trace_answer(fcb, ev);
		/* a repeated key made it wanted after all */
		if (*wanted == PD_WANT && skip)
			return parse_event(r, start, end, q, ev, badts, NULL,
			    wanted);
	}
	return OK;
}

static long
line_at(struct rd *r)
{
	long n = r->lines_before + 1;
	const char *p = r->buf, *e = r->buf + r->pos;

	while ((p = memchr(p, '\n', (size_t)(e - p))) != NULL)
		n++, p++;
	return n;
}

/* Skip whitespace, reading more as needed. Returns the next char or -1 at
 * the end of input, -2 on a read error. */
static int
peek(struct rd *r)
{
	for (;;) {
		while (r->pos < r->len && isws((unsigned char)r->buf[r->pos]))
			r->pos++;
		if (r->pos < r->len)
			return (unsigned char)r->buf[r->pos];
		if (r->eof)
			return -1;
		if (fill(r) < 0)
			return -2;
	}
}

static void
fail(struct rd *r, struct pd_trace_stats *st, int truncated, const char *msg)
{
	st->err_line = line_at(r);
	if (truncated)
		st->truncated = 1;
	else
		st->malformed = 1;
	snprintf(st->err, sizeof st->err, "%s", msg);
}

/* Run fn-like parse with refills until it stops asking for more. */
#define RETRY(call)							\
	for (;;) {							\
		const char *p_ = r->buf + r->pos, *e_ = r->buf + r->len; \
		const char *q_ = NULL;					\
		rc = call;						\
		if (rc != MORE || r->eof)				\
			break;						\
		if (fill(r) < 0)					\
			return -1;					\
	}

static int
events(struct rd *r, const struct pd_trace_cb *cb, struct pd_trace_stats *st)
{
	struct pd_ev ev;
	struct pd_argmemo memo;
	int c, rc, badts, wanted;
	const struct pd_trace_cb *fcb = pd_trace_filters(cb) ? cb : NULL;

	memset(&memo, 0, sizeof memo);
	r->kv = r->args_kv ? memo.kv : NULL;
	r->nkv = -1;

	r->pos++;	/* '[' */
	for (;;) {
		c = peek(r);
		if (c == -2)
			return -1;
		if (c < 0) {
			fail(r, st, 1, "file ends inside the event array");
			return 1;
		}
		if (c == ']') {
			r->pos++;
			return 0;
		}
		if (c == '{') {
			const char *after = NULL;
next_event:		/* r->pos at the event's '{' */
			for (;;) {
				const char *p_ = r->buf + r->pos, *e_ = r->buf + r->len;
				rc = parse_event(r, p_, e_, &after, &ev, &badts,
				    fcb, &wanted);
				if (rc != MORE || r->eof)
					break;
				if (fill(r) < 0)
					return -1;
			}
			if (rc == MORE) {
				fail(r, st, 1, "file ends inside an event");
				return 1;
			}
			if (rc == BAD) {
				fail(r, st, 0, "malformed event");
				return 1;
			}
			if (badts) {
				st->skipped++;
			} else {
				ev.index = st->events++;
				ev.memo = &memo;
				if (r->nkv >= 0 && ev.args) {	/* read whole */
					memo.args = ev.args;
					memo.args_len = ev.args_len;
					memo.index = ev.index;
					memo.n = r->nkv;
					memo.state = AM_END;
					memo.whole = 1;
				}
				if (wanted == PD_SPAN)
					pd_tspan_add(&st->span, ev.has_ts,
					    ev.ts_ns, ev.has_dur, ev.dur_ns);
				else if (cb->on_event && wanted == PD_WANT &&
				    cb->on_event(&ev, cb->ctx)) {
					r->pos = (size_t)(after - r->buf);
					return 2;
				}
			}
			r->pos = (size_t)(after - r->buf);
			/* ',', blanks and the next event's '{' in the buffer,
			 * as between most events: straight to that event */
			if (after < r->buf + r->len && *after == ',') {
				const char *nb = ws(after + 1, r->buf + r->len);

				if (nb < r->buf + r->len && *nb == '{') {
					r->pos = (size_t)(nb - r->buf);
					goto next_event;
				}
			}
		} else {
			const char *after = NULL;
			RETRY(skip_value(p_, e_, &q_); after = q_);
			if (rc != OK) {
				fail(r, st, rc == MORE, rc == MORE ?
				    "file ends inside an event" : "malformed event");
				return 1;
			}
			st->skipped++;
			r->pos = (size_t)(after - r->buf);
		}
		c = peek(r);
		if (c == -2)
			return -1;
		if (c == ',') {
			r->pos++;
			continue;
		}
		if (c == ']') {
			r->pos++;
			return 0;
		}
		if (c < 0) {
			fail(r, st, 1, "file ends inside the event array");
			return 1;
		}
		fail(r, st, 0, "expected ',' or ']' between events");
		return 1;
	}
}

static int
object(struct rd *r, const struct pd_trace_cb *cb, struct pd_trace_stats *st)
{
	int c, rc, esc;
	char key[256];

	r->pos++;	/* '{' */
	for (;;) {
		const char *after = NULL;
		c = peek(r);
		if (c == -2)
			return -1;
		if (c < 0) {
			fail(r, st, 1, "file ends inside the top-level object");
			return 1;
		}
		if (c == '}') {
			r->pos++;
			return 0;
		}
		if (c != '"') {
			fail(r, st, 0, "expected a key in the top-level object");
			return 1;
		}
		RETRY(str_end(p_, e_, &q_, &esc); after = q_);
		if (rc != OK) {
			fail(r, st, rc == MORE, "bad top-level key");
			return 1;
		}
		size_t kn = (size_t)(after - (r->buf + r->pos)) - 2;
		if (kn >= sizeof key)
			kn = sizeof key - 1;
		memcpy(key, r->buf + r->pos + 1, kn);
		key[kn] = 0;
		r->pos = (size_t)(after - r->buf);
		c = peek(r);
		if (c != ':') {
			fail(r, st, c < 0, "expected ':' after a top-level key");
			return 1;
		}
		r->pos++;
		c = peek(r);
		if (c < 0) {
			fail(r, st, 1, "file ends after a top-level key");
			return c == -2 ? -1 : 1;
		}
		if (strcmp(key, "traceEvents") == 0 && c == '[') {
			r->have_events = 1;
			rc = events(r, cb, st);
			if (rc != 0)
				return rc;
		} else {
			RETRY(skip_value(p_, e_, &q_); after = q_);
			if (rc != OK) {
				fail(r, st, rc == MORE, "bad top-level value");
				return 1;
			}
			if (cb->on_meta) {
				json_t *v = json_loadb(r->buf + r->pos,
				    (size_t)(after - (r->buf + r->pos)),
				    JSON_DECODE_ANY, NULL);
				if (v)
					cb->on_meta(key, v, cb->ctx);
				json_decref(v);
			}
			r->pos = (size_t)(after - r->buf);
		}
		c = peek(r);
		if (c == ',') {
			r->pos++;
			continue;
		}
		if (c == '}') {
			r->pos++;
			return 0;
		}
		if (c == -2)
			return -1;
		fail(r, st, c < 0, "expected ',' or '}' in the top-level object");
		return 1;
	}
}

/* A UTF-8 byte order mark before the value is skipped (Windows tools
 * write one). */
static int
skip_bom(struct rd *r)
{
	while (r->len - r->pos < 3 && !r->eof)
		if (fill(r) < 0)
			return -1;
	if (r->len - r->pos >= 3 && memcmp(r->buf + r->pos, "\xEF\xBB\xBF",
	    3) == 0)
		r->pos += 3;
	return 0;
}

/* After a whole value: only whitespace may follow, an object must have
 * had its events, and a gzip file must have ended well. A cut or damaged
 * gzip stream is named before what the JSON reader saw at the cut. */
static int
check_end(struct rd *r, struct pd_trace_stats *st, int rc)
{
	int c, z;

	if (rc == 0 && st->format == PD_TRACE_OBJECT && !r->have_events) {
		fail(r, st, 0, "no traceEvents array");
		rc = 1;
	} else if (rc == 0) {
		c = peek(r);
		if (c == -2)
			return -1;
		if (c >= 0) {
			fail(r, st, 0, "data after the top-level value");
			rc = 1;
		}
	}
	z = r->z && r->eof ? pd_file_zstatus(r->z) : PD_Z_OK;
	if (rc == 0 && z != PD_Z_OK) {
		fail(r, st, 1, pd_file_zwhat(z));
		rc = 1;
	} else if (rc == 1 && z != PD_Z_OK) {
		/* "<gzip problem>; <what the JSON reader met>" */
		const char *w = pd_file_zwhat(z);
		size_t wl = strlen(w) + 2, el = strlen(st->err);

		if (wl + el >= sizeof st->err)
			el = sizeof st->err - wl - 1;
		memmove(st->err + wl, st->err, el);
		memcpy(st->err, w, wl - 2);
		memcpy(st->err + wl - 2, "; ", 2);
		st->err[wl + el] = 0;
		st->truncated = 1;
	}
	return rc;
}

static int
run(struct rd *r, const struct pd_trace_cb *cb, struct pd_trace_stats *st)
{
	int c, rc;

	if (skip_bom(r) < 0)
		return -1;
	c = peek(r);
	if (c == -2)
		return -1;
	if (c == '[') {
		st->format = PD_TRACE_ARRAY;
		rc = events(r, cb, st);
	} else if (c == '{') {
		st->format = PD_TRACE_OBJECT;
		rc = object(r, cb, st);
	} else {
		fail(r, st, c < 0, c < 0 ? "empty file" :
		    "not a trace: expected '{' or '['");
		rc = 1;
	}
	if (rc == 0 || rc == 1)
		rc = check_end(r, st, rc);
	st->bytes = r->bytes;
	if (rc == 2)
		rc = 0;
	return rc;
}

int
pd_trace_read_src(const char *path, const struct pd_trace_cb *cb,
    struct pd_trace_stats *st, int args_kv)
{
	struct rd r;
	int rc, err;

	memset(st, 0, sizeof *st);
	memset(&r, 0, sizeof r);
	r.args_kv = args_kv;
	if (!(r.z = pd_file_zopen(path)))
		return -1;
	r.owned = 1;
	rc = run(&r, cb, st);
	err = errno;
	pd_file_zclose(r.z);
	errno = err;
	free(r.buf);
	free(r.scr);
	return rc;
}

int
pd_trace_filters(const struct pd_trace_cb *cb)
{
	static int off = -1;

	if (off < 0) {
		const char *e = getenv("PD_TRACE_FILTER");
		off = e && strcmp(e, "0") == 0;
	}
	return cb->want && !off;
}

/* What a filter is given of ev: ph, name, cat and pid alone. */
static void
filter_key(const struct pd_ev *ev, struct pd_ev *k)
{
	static const struct pd_ev zero;

	*k = zero;
	k->ph = ev->ph;
	k->name = ev->name;
	k->cat = ev->cat;
	k->pid = ev->pid;
	k->pid_num = ev->pid_num;
	k->pid_is_num = ev->pid_is_num;
}

int
pd_trace_wants(const struct pd_trace_cb *cb, const struct pd_ev *ev)
{
	struct pd_ev k;

	if (!pd_trace_filters(cb))
		return 1;
	filter_key(ev, &k);
	return cb->want(&k) != 0;
}

int
pd_trace_answer(const struct pd_trace_cb *cb, const struct pd_ev *ev)
{
	struct pd_ev k;

	if (!pd_trace_filters(cb))
		return PD_WANT;
	filter_key(ev, &k);
	if (cb->want(&k))
		return PD_WANT;
	return cb->span && cb->span(&k) ? PD_SPAN : PD_DECLINE;
}

/* Through the cache of parsed traces (pd_tcache.h). */
int
pd_trace_read(const char *path, const struct pd_trace_cb *cb,
    struct pd_trace_stats *st)
{
	return pd_tcache_read(path, cb, st, pd_trace_read_src);
}

int
pd_trace_read_mem(const char *buf, size_t len, const struct pd_trace_cb *cb,
    struct pd_trace_stats *st)
{
	return pd_trace_read_mem_src(buf, len, cb, st, 0);
}

int
pd_trace_read_mem_src(const char *buf, size_t len,
    const struct pd_trace_cb *cb, struct pd_trace_stats *st, int args_kv)
{
	struct rd r;
	int rc;

	memset(st, 0, sizeof *st);
	memset(&r, 0, sizeof r);
	r.args_kv = args_kv;
	/* copy so that the scanners may read one byte past values safely */
	r.buf = malloc(len + 1);
	if (!r.buf)
		return -1;
	memcpy(r.buf, buf, len);
	r.buf[len] = 0;
	r.len = r.cap = len;
	r.bytes = len;
	r.eof = 1;
	rc = run(&r, cb, st);
	free(r.buf);
	free(r.scr);
	return rc;
}

int
pd_json_raw_get(const char *obj, size_t len, const char *key, const char **v,
    size_t *vlen)
{
	const char *p = obj, *end = obj + len, *ke, *q;
	size_t kl = strlen(key);
	int esc;

	p = ws(p, end);
	if (p >= end || *p != '{')
		return 0;
	p++;
	for (;;) {
		p = ws(p, end);
		if (p >= end || *p != '"')
			return 0;
		if (str_end(p, end, &ke, &esc) != OK)
			return 0;
		const char *k = p + 1;
		size_t kn = (size_t)(ke - 1 - k);
		p = ws(ke, end);
		if (p >= end || *p != ':')
			return 0;
		p = ws(p + 1, end);
		if (skip_value(p, end, &q) != OK)
			return 0;
		if (kn == kl && memcmp(k, key, kl) == 0) {
			*v = p;
			*vlen = (size_t)(q - p);
			return 1;
		}
		p = ws(q, end);
		if (p >= end || *p != ',')
			return 0;
		p++;
	}
}

int32_t
pd_idmemo_get(struct pd_idmemo *m, const struct pd_ev *ev, uint32_t id)
{
	if (id == 0 || ev->read_no != m->read_no || id >= m->cap)
		return -1;
	return m->v[id] - 1;
}

void
pd_idmemo_set(struct pd_idmemo *m, const struct pd_ev *ev, uint32_t id,
    int32_t v)
{
	if (id == 0 || v < 0 || v == INT32_MAX)
		return;
	if (ev->read_no != m->read_no) {
		if (m->v)
			memset(m->v, 0, m->cap * sizeof *m->v);
		m->read_no = ev->read_no;
	}
	if (id >= m->cap) {
		size_t nc = m->cap ? m->cap : 256;
		int32_t *nv;
		while (nc <= id)
			nc *= 2;
		if (!(nv = realloc(m->v, nc * sizeof *nv)))
			return;
		memset(nv + m->cap, 0, (nc - m->cap) * sizeof *nv);
		m->v = nv;
		m->cap = nc;
	}
	m->v[id] = v + 1;
}

void
pd_idmemo_free(struct pd_idmemo *m)
{
	free(m->v);
	memset(m, 0, sizeof *m);
}

/* The next key and value of the memo's args, read as pd_json_raw_get
 * reads them: 1 when one was added, 0 when the reading is over. */
static int
memo_step(struct pd_argmemo *m)
{
	const char *p = m->pos, *end = m->args + m->args_len, *ke, *k, *q;
	int esc;

	p = ws(p, end);
	if (p >= end || *p != '"' || str_end(p, end, &ke, &esc) != OK) {
		m->state = AM_END;
		return 0;
	}
	k = p + 1;
	p = ws(ke, end);
	if (p >= end || *p != ':') {
		m->state = AM_END;
		return 0;
	}
	p = ws(p + 1, end);
	if (skip_value(p, end, &q) != OK) {
		m->state = AM_BAD;
		return 0;
	}
	if (m->n == PD_ARGMEMO_MAX) {
		m->state = AM_FULL;
		return 0;
	}
	m->kv[m->n].k = k;
	m->kv[m->n].kn = (size_t)(ke - 1 - k);
	m->kv[m->n].v = p;
	m->kv[m->n].vn = (size_t)(q - p);
	m->n++;
	p = ws(q, end);
	if (p >= end || *p != ',')
		m->state = AM_END;
	else
		m->pos = p + 1;
	return 1;
}

int
pd_json_obj_kv(const char *a, size_t n, struct pd_argkv *kv, int max)
{
	struct pd_argmemo m;
	const char *end = a + n, *p;
	int r;

	if (n >= 2 && *a == '{' &&
	    (r = obj_walk(a, end, kv, max, &p)) >= 0 && p == end)
		return r;
	p = ws(a, end);

	if (p >= end || *p != '{')
		return -1;
	memset(&m, 0, sizeof m);
	m.args = a;
	m.args_len = n;
	m.pos = p + 1;
	p = ws(p + 1, end);
	if (p < end && *p == '}') {	/* {} */
		p = ws(p + 1, end);
		return p == end ? 0 : -1;
	}
	while (m.state == AM_MORE && m.n < max && memo_step(&m))
		;
	/* whole: every key read, the last value followed by the object's
	 * end and nothing but blanks after it */
	if (m.state != AM_END || m.n == 0 || m.n > max)
		return -1;
	p = m.kv[m.n - 1].v + m.kv[m.n - 1].vn;
	p = ws(p, end);
	if (p >= end || *p != '}')
		return -1;
	p = ws(p + 1, end);
	if (p != end)
		return -1;
	memcpy(kv, m.kv, (size_t)m.n * sizeof *kv);
	return m.n;
}

int
pd_ev_arg_memo_text(const struct pd_ev *ev, const char *key, size_t kl,
    const char **v, size_t *vlen)
{
	struct pd_argmemo *m = ev->memo;
	const struct pd_argkv *x;
	const char *a;
	int i;

	if (!m || !(a = pd_ev_args(ev)))
		return -1;
	if (m->args != a || m->args_len != ev->args_len ||
	    m->index != ev->index) {
		const char *p = ws(a, a + ev->args_len);
		m->args = a;
		m->args_len = ev->args_len;
		m->index = ev->index;
		m->n = 0;
		m->whole = 0;
		m->state = AM_MORE;
		m->pos = p + 1;
		if (p >= a + ev->args_len || *p != '{')
			m->state = AM_END;
	}
	for (i = 0; i < m->n; i++) {
		x = &m->kv[i];
		if (x->kn == kl && memcmp(x->k, key, kl) == 0)
			goto found;
	}
	while (m->state == AM_MORE && memo_step(m)) {
		x = &m->kv[m->n - 1];
		if (x->kn == kl && memcmp(x->k, key, kl) == 0)
			goto found;
	}
	return m->state == AM_END ? 0 : -1;
found:
	*v = x->v;
	*vlen = x->vn;
	return 1;
}

int
pd_ev_arg_raw(const struct pd_ev *ev, const char *key, const char **v,
    size_t *len)
{
	const char *a;
	int rc;

	if ((rc = pd_ev_arg_memo(ev, key, strlen(key), v, len)) >= 0)
		return rc;
	if (!(a = pd_ev_args(ev)))
		return 0;
	return pd_json_raw_get(a, ev->args_len, key, v, len);
}

int
pd_ev_arg_raw_n(const struct pd_ev *ev, const char *const *keys,
    const size_t *klen, int n, const char **v, size_t *len)
{
	size_t kl[8] = { 0 };
	int i, found = 0;

	if (!ev->args && ev->lazy && ev->lazy->find_n && n <= 8) {
		for (i = 0; !klen && i < n; i++)
			kl[i] = strlen(keys[i]);
		if ((found = ev->lazy->find_n(ev, keys, klen ? klen : kl, n,
		    v, len)) >= 0)
			return found;
		found = 0;
	}
	for (i = 0; i < n; i++) {
		if (pd_ev_arg_raw(ev, keys[i], &v[i], &len[i])) {
			found++;
		} else {
			v[i] = NULL;
			len[i] = 0;
		}
	}
	return found;
}

int
pd_ev_arg_int(const struct pd_ev *ev, const char *key, int64_t *out)
{
	const char *v;
	size_t n;

	if (!pd_ev_arg_raw(ev, key, &v, &n))
		return 0;
	if (*v == '"')
		v++, n -= 2;
	return pd_num_int(v, n, out) == PD_NUM_OK;
}

int
pd_ev_arg_double(const struct pd_ev *ev, const char *key, double *out)
{
	const char *v;
	size_t n;

	if (!pd_ev_arg_raw(ev, key, &v, &n))
		return 0;
	if (*v == '"')
		v++, n -= 2;
	return pd_num_double(v, n, out) == PD_NUM_OK;
}

int
pd_ev_arg_str(const struct pd_ev *ev, const char *key, char *buf, size_t size)
{
	const char *v;
	size_t n;
	json_t *j;

	if (size == 0 || !pd_ev_arg_raw(ev, key, &v, &n))
		return 0;
	if (*v == '{' || *v == '[')
		return 0;
	if (*v == '"' && !memchr(v + 1, '\\', n - 2)) {
		n -= 2;
		if (n >= size)
			n = size - 1;
		memcpy(buf, v + 1, n);
		buf[n] = 0;
		return 1;
	}
	if (*v != '"') {
		if (n >= size)
			n = size - 1;
		memcpy(buf, v, n);
		buf[n] = 0;
		return 1;
	}
	j = json_loadb(v, n, JSON_DECODE_ANY, NULL);
	if (!j)
		return 0;
	snprintf(buf, size, "%s", json_string_value(j));
	json_decref(j);
	return 1;
}

json_t *
pd_ev_args_json(const struct pd_ev *ev)
{
	const char *a = pd_ev_args(ev);

	if (!a)
		return NULL;
	return json_loadb(a, ev->args_len, 0, NULL);
}

int
pd_trace_sniff(const char *path)
{
	char buf[512];
	struct pd_zfile *z = pd_file_zopen(path);
	long n;
	int i;

	if (!z)
		return 0;
	n = pd_file_zread(z, buf, sizeof buf - 1);
	pd_file_zclose(z);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	i = 0;
	if (n >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0)
		i = 3;
	while (i < n && isws((unsigned char)buf[i]))
		i++;
	if (i >= n)
		return 0;
	if (buf[i] == '[') {
		i++;
		while (i < n && isws((unsigned char)buf[i]))
			i++;
		return i < n && (buf[i] == '{' || buf[i] == ']') ?
		    PD_TRACE_ARRAY : 0;
	}
	if (buf[i] == '{') {
		i++;
		while (i < n && isws((unsigned char)buf[i]))
			i++;
		return i < n && buf[i] == '"' ? PD_TRACE_OBJECT : 0;
	}
	return 0;
}

static int64_t
id_key(const char *text, int is_num, int64_t num)
{
	const unsigned char *s;
	uint64_t x = 1469598103934665603ULL;

	if (is_num)
		return num;
	for (s = (const unsigned char *)(text ? text : ""); *s; s++)
		x = (x ^ *s) * 1099511628211ULL;
	return (int64_t)(x | 1ULL << 63);
}

int64_t
pd_ev_pid_key(const struct pd_ev *ev)
{
	return id_key(ev->pid, ev->pid_is_num, ev->pid_num);
}

int64_t
pd_ev_tid_key(const struct pd_ev *ev)
{
	return id_key(ev->tid, ev->tid_is_num, ev->tid_num);
}
