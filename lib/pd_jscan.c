#include "pd_jscan.h"
#include "pd_file.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int
pd_jmap_open(const char *path, struct pd_jmap *m)
{
	struct stat st;
	void *p;
	int fd = pd_file_open(path, NULL);

	m->buf = NULL;
	m->len = 0;
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return -1;
	}
	if (st.st_size > 0) {
		p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED) {
			close(fd);
			return -1;
		}
		m->buf = p;
		m->len = (size_t)st.st_size;
	}
	close(fd);
	return 0;
}

void
pd_jmap_close(struct pd_jmap *m)
{
	if (m->buf)
		munmap((void *)m->buf, m->len);
	m->buf = NULL;
	m->len = 0;
}

static const char *
ws(const char *p, const char *e)
{
	while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

/* p at the opening quote; returns the position after the closing quote, or
 * NULL when the text ends first. */
static const char *
skip_string(const char *p, const char *e)
{
	for (p++; p < e; p++) {
		if (*p == '\\')
			p++;
		else if (*p == '"')
			return p + 1;
	}
	return NULL;
}

/* Past one value, or NULL when the text ends (or breaks) inside it. */
static const char *
skip_value(const char *p, const char *e)
{
	int depth = 0;

	p = ws(p, e);
	if (p >= e)
		return NULL;
	if (*p == '"')
		return skip_string(p, e);
	if (*p != '{' && *p != '[') {
		while (p < e && !strchr(",}] \t\r\n", *p))
			p++;
		return p < e ? p : NULL;	/* a member value is followed */
	}
	for (; p < e; p++) {
		if (*p == '"') {
			if (!(p = skip_string(p, e)))
				return NULL;
			p--;
		} else if (*p == '{' || *p == '[')
			depth++;
		else if ((*p == '}' || *p == ']') && --depth == 0)
			return p + 1;
	}
	return NULL;
}

/* The key text [b, e) (without quotes) unescaped into buf. */
static void
unescape(const char *b, const char *e, char *buf, size_t size)
{
	json_t *s;

	if (!memchr(b, '\\', (size_t)(e - b)) || !(s = json_loadb(b - 1,
	    (size_t)(e - b) + 2, JSON_DECODE_ANY, NULL))) {
		snprintf(buf, size, "%.*s", (int)(e - b), b);
		return;
	}
	snprintf(buf, size, "%s", json_string_value(s) ? json_string_value(s) :
	    "");
	json_decref(s);
}

/* p just past the object's (or empty array's) end: only whitespace may
 * follow it. */
static int
end_of_text(const char *p, const char *e, const char **where)
{
	p = ws(p, e);
	if (p >= e)
		return PD_JSCAN_OK;
	if (where)
		*where = p;
	return PD_JSCAN_TRAILING;
}

int
pd_jscan_members(const char *b, const char *e, pd_jscan_cb cb, void *ctx,
    const char **where)
{
	const char *p = ws(b, e), *k, *v, *ve;
	char key[512];
	int rc;

	/* A UTF-8 byte order mark (Windows tools write one) is skipped. */
	if (e - p >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
		p = ws(p + 3, e);
	if (p < e && *p == '[') {
		p = ws(p + 1, e);
		if (p < e && *p == ']')
			return end_of_text(p + 1, e, where);
		return p < e ? PD_JSCAN_NOTOBJ : PD_JSCAN_CUT;
	}
	if (p >= e || *p != '{') {
		if (where)
			*where = p;
		return p >= e ? PD_JSCAN_CUT : PD_JSCAN_NOTOBJ;
	}
	p = ws(p + 1, e);
	if (p < e && *p == '}')
		return end_of_text(p + 1, e, where);
	while (p < e) {
		if (*p != '"' || !(k = skip_string(p, e)))
			break;
		unescape(p + 1, k - 1, key, sizeof key);
		p = ws(k, e);
		if (p >= e || *p != ':')
			break;
		v = ws(p + 1, e);
		if (!(ve = skip_value(v, e))) {
			if (v < e)
				cb(key, v, e, 1, ctx);
			p = e;
			break;
		}
		if ((rc = cb(key, v, ve, 0, ctx)))
			return rc;
		p = ws(ve, e);
		if (p < e && *p == '}')
			return end_of_text(p + 1, e, where);
		if (p >= e || *p != ',')
			break;
		p = ws(p + 1, e);
	}
	if (where)
		*where = p;
	return PD_JSCAN_CUT;
}

long
pd_jscan_line(const char *buf, const char *p)
{
	long n = 1;

	for (; buf < p; buf++)
		if (*buf == '\n')
			n++;
	return n;
}
