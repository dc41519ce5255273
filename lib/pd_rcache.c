/* The compiled-form cache (pd_rcache.h).
 *
 * An entry, in native byte order (it never leaves the machine):
 *   struct hdr (magic, the program's identity, the sizes), the source
 *   bytes, the compiled bytes, a 64-bit checksum of all that. */
#include "pd_rcache.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pd_file.h"
#include "pd_tcache.h"

#define MAX_ENTRY	(64u << 20)	/* larger sources are not kept */

struct hdr {
	char magic[8];
	uint64_t exe[5];	/* dev, ino, size, mtime s, mtime ns */
	uint64_t srclen, len;
};

static const char magic[8] = "PDRCACH1";
static int last;

int
pd_rcache_on(void)
{
	return pd_tcache_dir() >= 0;
}

int
pd_rcache_last(void)
{
	return last;
}

/* 64-bit multiply-xor over the bytes (8 a step); not for adversaries,
 * only to see a damaged entry. */
static uint64_t
sum(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t w;

	for (; n >= 8; n -= 8, b += 8) {
		memcpy(&w, b, 8);
		h = (h ^ w) * 0x9E3779B97F4A7C15ULL;
		h ^= h >> 29;
	}
	while (n--)
		h = (h ^ *b++) * 0x100000001B3ULL;
	return h;
}

/* The program's identity: a rebuilt program may read a source otherwise,
 * so its entries are not used. */
static int
exe_id(uint64_t id[5])
{
	struct stat sb;

	if (stat("/proc/self/exe", &sb) != 0)
		return -1;
	id[0] = (uint64_t)sb.st_dev;
	id[1] = (uint64_t)sb.st_ino;
	id[2] = (uint64_t)sb.st_size;
	id[3] = (uint64_t)sb.st_mtim.tv_sec;
	id[4] = (uint64_t)sb.st_mtim.tv_nsec;
	return 0;
}

/* The entry's name for path; -1 when it has none. */
static int
entry_name(const char *kind, const char *path, char *name, size_t n)
{
	char *abs = realpath(path, NULL);
	uint64_t h;

	if (!abs)
		return -1;
	h = sum(0xCBF29CE484222325ULL, abs, strlen(abs));
	free(abs);
	return snprintf(name, n, "%s-%016llx.pdrc", kind,
	    (unsigned long long)h) < (int)n ? 0 : -1;
}

/* Whether fd holds exactly the n bytes at p (pieces through a buffer
 * on the stack: no fresh pages, no mapping to take down). */
static int
same_bytes(int fd, const unsigned char *p, size_t n)
{
	unsigned char b[16384];
	size_t off = 0;
	ssize_t r;

	for (;;) {
		r = pread(fd, b, sizeof b, (off_t)off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 || (size_t)r > n - off || memcmp(b, p + off,
		    (size_t)r) != 0)
			return 0;
		if (r == 0)
			return off == n;
		off += (size_t)r;
	}
}

int
pd_rcache_builtin(const char *kind, int fd, size_t srclen,
    struct pd_rcache_form *f)
{
	const struct pd_rcache_builtin *b;

	memset(f, 0, sizeof *f);
	if (!pd_rcache_builtins)
		return -1;
	for (b = pd_rcache_builtins; b->kind; b++)
		if (!strcmp(b->kind, kind) && b->srclen == srclen &&
		    same_bytes(fd, b->src, srclen)) {
			f->data = b->data;
			f->len = b->len;
			return 0;
		}
	return -1;
}

int
pd_rcache_get(const char *kind, const char *path, int src,
    size_t srclen, struct pd_rcache_form *f)
{
	char name[128];
	struct hdr h;
	struct stat sb;
	uint64_t exe[5], s;
	const unsigned char *buf;
	size_t total;
	void *map;
	int dir, fd;

	memset(f, 0, sizeof *f);
	last = PD_RCACHE_OFF;
	if (srclen > MAX_ENTRY || (dir = pd_tcache_dir()) < 0 ||
	    entry_name(kind, path, name, sizeof name) < 0 || exe_id(exe) < 0)
		return -1;
	last = PD_RCACHE_MISS;
	if ((fd = openat(dir, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0)
		return -1;
	/* mapped, not read: the page cache's pages, not fresh ones */
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) ||
	    (size_t)sb.st_size < sizeof h + 8 || (size_t)sb.st_size >
	    2 * (size_t)MAX_ENTRY + sizeof h + 8 ||
	    (map = mmap(NULL, (size_t)sb.st_size, PROT_READ,
	    MAP_PRIVATE | MAP_POPULATE, fd, 0)) == MAP_FAILED) {
		close(fd);
		return -1;
	}
	close(fd);
	total = (size_t)sb.st_size;
	buf = map;
	memcpy(&h, buf, sizeof h);
	memcpy(&s, buf + total - 8, 8);
	if (memcmp(h.magic, magic, sizeof magic) != 0 ||
	    memcmp(h.exe, exe, sizeof exe) != 0 || h.srclen != srclen ||
	    h.len > total || sizeof h + h.srclen + h.len + 8 != total ||
	    sum(0, buf, total - 8) != s ||
	    !same_bytes(src, buf + sizeof h, srclen)) {
		munmap(map, total);
		return -1;
	}
	f->data = buf + sizeof h + srclen;
	f->len = (size_t)h.len;
	f->map = map;
	f->maplen = total;
	last = PD_RCACHE_HIT;
	return 0;
}

void
pd_rcache_release(struct pd_rcache_form *f)
{
	if (f->map)
		munmap(f->map, f->maplen);
	memset(f, 0, sizeof *f);
}

void
pd_rcache_put(const char *kind, const char *path, const void *src,
    size_t srclen, const void *data, size_t len)
{
	char name[128], tmp[160];
	struct hdr h;
	unsigned char *buf;
	size_t total = sizeof h + srclen + len + 8;
	uint64_t s;
	int dir, fd, ok;

	if (srclen > MAX_ENTRY || len > MAX_ENTRY ||
	    (dir = pd_tcache_dir()) < 0 ||
	    entry_name(kind, path, name, sizeof name) < 0 ||
	    exe_id(h.exe) < 0 || !(buf = malloc(total)))
		return;
	memcpy(h.magic, magic, sizeof magic);
	h.srclen = srclen;
	h.len = len;
	memcpy(buf, &h, sizeof h);
	memcpy(buf + sizeof h, src, srclen);
	memcpy(buf + sizeof h + srclen, data, len);
	s = sum(0, buf, total - 8);
	memcpy(buf + total - 8, &s, 8);
	snprintf(tmp, sizeof tmp, "%s.%ld.tmp", name, (long)getpid());
	fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC |
	    O_NOFOLLOW, 0600);
	if (fd >= 0) {
		ok = pd_file_write_all(fd, buf, total) == 0;
		ok &= close(fd) == 0;
		if (!ok || renameat(dir, tmp, dir, name) != 0)
			unlinkat(dir, tmp, 0);
	}
	free(buf);
}
