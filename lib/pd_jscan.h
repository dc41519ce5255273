/* pd_jscan: walking the members of big JSON objects without building them.
 *
 * For summary files that are one nested object (communication.json and the
 * like): the file is mapped, and an object's members are handed to a
 * callback as raw text ranges, so a caller descends level by level and
 * parses only the small leaves (with jansson). A file cut short still gives
 * every member before the cut: the member that runs into the end of the
 * text is handed over with `cut` set, so the caller can descend into it. */
#ifndef PD_JSCAN_H
#define PD_JSCAN_H

#include <stddef.h>

struct pd_jmap {
	const char *buf;
	size_t len;
};

/* Map a file read-only (an empty file gives len 0). Returns 0, or -1 with
 * errno set. */
int pd_jmap_open(const char *path, struct pd_jmap *m);
void pd_jmap_close(struct pd_jmap *m);

/* Called per member: key (unescaped, NUL-terminated), the value's text
 * [vb, ve), and cut = 1 when the text ends inside that value. Return 0 to
 * go on, nonzero to stop (pd_jscan_members returns it). */
typedef int (*pd_jscan_cb)(const char *key, const char *vb, const char *ve,
    int cut, void *ctx);

enum {
	PD_JSCAN_OK = 0,
	PD_JSCAN_CUT = -1,	/* the text ends or breaks inside the object */
	PD_JSCAN_NOTOBJ = -2,	/* not an object (an empty array "[]" is
				 * taken as an empty object) */
	PD_JSCAN_TRAILING = -3	/* the whole object was read, but more than
				 * whitespace follows it */
};

/* Hand the members of the object at the start of [b, e) to cb; a UTF-8
 * byte order mark before it is skipped. On PD_JSCAN_CUT and
 * PD_JSCAN_TRAILING, *where (if not NULL) is where reading stopped. */
int pd_jscan_members(const char *b, const char *e, pd_jscan_cb cb, void *ctx,
    const char **where);

/* 1-based line number of p in buf. */
long pd_jscan_line(const char *buf, const char *p);

#endif
