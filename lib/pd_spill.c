#include "pd_spill.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pd_diag.h"
#include "pd_file.h"

/* kept in memory: past it, the log goes out in writes of this size,
 * large enough to cost no more than larger ones */
#define LIMIT (1u << 18)

static size_t
limit_of(const struct pd_spill *s)
{
	return s->limit ? s->limit : LIMIT;
}

/* An unlinked file in $TMPDIR (else /tmp), NULL when none can be made. */
static FILE *
tmp_open(void)
{
	int fd = pd_file_tmp("pd-spill");
	FILE *f;

	if (fd < 0)
		return NULL;
	if (!(f = fdopen(fd, "w+b")))
		close(fd);
	return f;
}

unsigned char *
pd_spill_reserve(struct pd_spill *s, size_t max)
{
	if (s->len + max > s->cap) {
		size_t nc = s->cap ? s->cap * 2 : 65536;

		while (nc < s->len + max)
			nc *= 2;
		s->buf = pd_xrealloc(s->buf, nc);
		s->cap = nc;
	}
	return s->buf + s->len;
}

void
pd_spill_commit(struct pd_spill *s, unsigned char *end)
{
	s->len = (size_t)(end - s->buf);
	s->n++;
	if (s->len < limit_of(s) || s->err || s->nofile)
		return;
	if (!s->f && !(s->f = tmp_open())) {
		s->nofile = 1;
		return;
	}
	if (fwrite(s->buf, 1, s->len, s->f) != s->len)
		s->err = errno ? errno : EIO;
	s->len = 0;
}

int
pd_spill_each(struct pd_spill *s, size_t max,
    const unsigned char *(*fn)(const unsigned char *, const unsigned char *,
    void *), void *ctx)
{
	size_t lim = limit_of(s), have = 0, off = 0, r = 1;
	unsigned char *blk = NULL;
	const unsigned char *p;
	int err = s->err;

	if (s->f && !err && (fflush(s->f) != 0 || fseek(s->f, 0, SEEK_SET)))
		err = errno ? errno : EIO;
	if (s->f && !err) {
		blk = pd_xrealloc(NULL, lim + max);
		while (r > 0) {
			memmove(blk, blk + off, have - off);
			have -= off;
			off = 0;
			r = fread(blk + have, 1, lim, s->f);
			have += r;
			/* the file ends with a whole record */
			while (!err && off < have && (r == 0 ||
			    have - off >= max)) {
				p = fn(blk + off, blk + have, ctx);
				if (p <= blk + off)
					err = EINVAL;
				off = (size_t)(p - blk);
			}
			if (err)
				break;
		}
		if (!err && ferror(s->f))
			err = EIO;
	}
	for (p = s->buf; !err && p && p < s->buf + s->len;) {
		const unsigned char *q = fn(p, s->buf + s->len, ctx);

		if (q <= p)
			err = EINVAL;
		p = q;
	}
	free(blk);
	pd_spill_free(s);
	return err;
}

void
pd_spill_free(struct pd_spill *s)
{
	size_t limit = s->limit;

	if (s->f)
		fclose(s->f);
	free(s->buf);
	memset(s, 0, sizeof *s);
	s->limit = limit;
}

unsigned char *
pd_spill_put_u(unsigned char *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*p++ = (unsigned char)v;
	return p;
}

unsigned char *
pd_spill_put_d(unsigned char *p, int64_t x, int64_t prev)
{
	uint64_t d = (uint64_t)x - (uint64_t)prev;

	return pd_spill_put_u(p, (d << 1) ^ (0 - (d >> 63)));
}

uint64_t
pd_spill_get_u(const unsigned char **pp, const unsigned char *end)
{
	const unsigned char *p = *pp;
	uint64_t v = 0;
	int sh = 0;

	while (p < end && sh < 64) {
		v |= (uint64_t)(*p & 0x7f) << sh;
		sh += 7;
		if (!(*p++ & 0x80))
			break;
	}
	*pp = p;
	return v;
}

int64_t
pd_spill_get_d(const unsigned char **pp, const unsigned char *end,
    int64_t prev)
{
	uint64_t z = pd_spill_get_u(pp, end);

	return (int64_t)((uint64_t)prev + ((z >> 1) ^ (0 - (z & 1))));
}
