/* pd_rcache: the compiled form of a small source file (a rules file),
 * kept so that a later start reads it instead of parsing the source.
 *
 * Entries live in the trace cache's directory (pd_tcache_dir(): off with
 * PD_CACHE=0), one file of mode 0600 per source path,
 * KIND-HASH.pdrc (HASH: of the path made absolute by realpath(3)). An
 * entry holds a copy of the source bytes it was compiled from and the
 * identity (device, inode, size, mtime) of the program that compiled
 * it; it is used only when both are the same as now (the source
 * compared byte for byte, so an edit is never served stale, however fast
 * it follows the last one), and a 64-bit checksum over the whole entry
 * holds. Anything else is a miss: the caller parses the source and puts
 * the new form, which replaces the entry (written to a temporary file,
 * renamed in place). Nothing here ever prints: a cache that cannot be
 * read or written only costs the parse. */
#ifndef PD_RCACHE_H
#define PD_RCACHE_H

#include <stddef.h>

/* A compiled form found: data[0..len), mapped read-only, valid until
 * pd_rcache_release (a caller may keep it for the life of the process). */
struct pd_rcache_form {
	const void *data;
	size_t len;
	void *map;
	size_t maplen;
};

/* The compiled form of the srclen bytes that fd (open on path) holds
 * from its start, read here a piece at a time: 0 and *f (the entry
 * mapped), or -1. */
int pd_rcache_get(const char *kind, const char *path, int fd,
    size_t srclen, struct pd_rcache_form *f);
void pd_rcache_release(struct pd_rcache_form *f);

/* Store data[0..len) as the compiled form of src[0..srclen). */
void pd_rcache_put(const char *kind, const char *path, const void *src,
    size_t srclen, const void *data, size_t len);

/* Whether there is a cache directory to keep compiled forms in (no:
 * PD_CACHE=0, or none usable). */
int pd_rcache_on(void);

/* Compiled forms built into a program: a program that links an array
 * pd_rcache_builtins (ended by a NULL kind; made at build time by
 * build-aux/rcache-form from a source the project ships) reads such a
 * source with no parse and no cache directory. Like an entry, a form is
 * used only for exactly the bytes it was compiled from (compared here,
 * a piece at a time): an edited source is parsed. A program without the
 * array (the weak reference stays NULL) has none. */
struct pd_rcache_builtin {
	const char *kind;
	const unsigned char *src, *data;
	size_t srclen, len;
};
extern const struct pd_rcache_builtin pd_rcache_builtins[]
    __attribute__((weak));

/* The built-in form of kind when fd holds exactly its srclen source
 * bytes: 0 and *f (its data in the program: nothing to release, though
 * pd_rcache_release may be called), or -1. */
int pd_rcache_builtin(const char *kind, int fd, size_t srclen,
    struct pd_rcache_form *f);

/* What the last pd_rcache_get of this process did (for tests). */
enum { PD_RCACHE_OFF = 0, PD_RCACHE_HIT, PD_RCACHE_MISS };
int pd_rcache_last(void);

#endif
