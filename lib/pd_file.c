/* pd_file: regular files only, opened without blocking (see pd_file.h). */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "pd_file.h"

#include <limits.h>

#include "pd_archive.h"

int
pd_file_open(const char *path, struct stat *st)
{
	struct stat sb;
	int fd, fl;

	/* O_NONBLOCK: a FIFO opens at once instead of waiting for a writer;
	 * it is refused by the fstat below and never read. */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0 && (errno == ENOTDIR || errno == ENOENT) &&
	    strstr(path, "//")) {
		/* ARCHIVE//MEMBER: the member's private copy */
		char real[PATH_MAX];
		int err = errno;

		if (pd_archive_resolve(path, real, sizeof real) > 0)
			fd = open(real, O_RDONLY | O_NONBLOCK | O_CLOEXEC |
			    O_NOCTTY);
		else
			errno = err;
	}
	if (fd < 0)
		return -1;
	if (fstat(fd, &sb) != 0) {
		int err = errno;

		close(fd);
		errno = err;
		return -1;
	}
	if (!S_ISREG(sb.st_mode)) {
		close(fd);
		errno = S_ISDIR(sb.st_mode) ? EISDIR : PD_ENOTREG;
		return -1;
	}
	fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	if (st)
		*st = sb;
	return fd;
}

FILE *
pd_file_fopen(const char *path)
{
	int fd = pd_file_open(path, NULL), err;
	FILE *f;

	if (fd < 0)
		return NULL;
	if (!(f = fdopen(fd, "rb"))) {
		err = errno;
		close(fd);
		errno = err;
	}
	return f;
}

const char *
pd_file_strerror(int err)
{
	return err == PD_ENOTREG ? "not a regular file" : strerror(err);
}

int
pd_file_is_regular(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

#define ZCHUNK (64 * 1024)

struct pd_zfile {
	int fd, gz, status, done, err;
	int between;		/* a member ended: another, or the end */
	int in_eof;
	z_stream zs;
	unsigned char in[ZCHUNK];
};

struct pd_zfile *
pd_file_zopen(const char *path)
{
	struct pd_zfile *z;
	unsigned char m[2];
	int fd = pd_file_open(path, NULL), err;
	ssize_t n;

	if (fd < 0)
		return NULL;
	/* the input buffer is not zeroed: its pages are touched only as
	 * far as input is read into it */
	if (!(z = malloc(sizeof *z))) {
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	memset(z, 0, offsetof(struct pd_zfile, in));
	z->fd = fd;
	while ((n = read(fd, m, 2)) < 0 && errno == EINTR)
		;
	if (n == 2 && m[0] == 0x1f && m[1] == 0x8b) {
		z->gz = 1;
		if (inflateInit2(&z->zs, 15 + 16) != Z_OK) {
			close(fd);
			free(z);
			errno = ENOMEM;
			return NULL;
		}
	}
	if (n < 0 || lseek(fd, 0, SEEK_SET) < 0) {
		err = errno;
		pd_file_zclose(z);
		errno = err;
		return NULL;
	}
	return z;
}

/* More compressed input; 0 at the end of the file, -1 on an error. */
static int
zfill(struct pd_zfile *z)
{
	ssize_t n;

	while ((n = read(z->fd, z->in, sizeof z->in)) < 0 && errno == EINTR)
		;
	if (n < 0)
		return -1;
	if (n == 0)
		z->in_eof = 1;
	z->zs.next_in = z->in;
	z->zs.avail_in = (uInt)n;
	return n > 0;
}

/* Why inflate said Z_DATA_ERROR (zlib names the trailer checks). */
static int
zdata_error(const z_stream *zs)
{
	if (zs->msg && strstr(zs->msg, "data check"))
		return PD_Z_CRC;
	if (zs->msg && strstr(zs->msg, "length check"))
		return PD_Z_SIZE;
	return PD_Z_BAD;
}

long
pd_file_zread(struct pd_zfile *z, void *buf, size_t n)
{
	ssize_t r;
	int ret;

	if (!z->gz) {
		while ((r = read(z->fd, buf, n)) < 0 && errno == EINTR)
			;
		return (long)r;
	}
	if (z->err) {
		errno = z->err;
		return -1;
	}
	if (n > (1u << 30))
		n = 1u << 30;
	z->zs.next_out = buf;
	z->zs.avail_out = (uInt)n;
	while (!z->done && z->zs.avail_out > 0) {
		if (z->zs.avail_in == 0 && !z->in_eof && zfill(z) < 0) {
			z->err = errno;
			break;
		}
		if (z->between) {
			if (z->zs.avail_in == 0) {
				z->done = 1;	/* the end, after a whole member */
				break;
			}
			if (z->zs.next_in[0] != 0x1f) {
				z->status = PD_Z_TRAIL;
				z->done = 1;
				break;
			}
			inflateReset(&z->zs);
			z->between = 0;
		}
		if (z->zs.avail_in == 0) {	/* in_eof inside a member */
			z->status = PD_Z_CUT;
			z->done = 1;
			break;
		}
		ret = inflate(&z->zs, Z_NO_FLUSH);
		if (ret == Z_STREAM_END) {
			z->between = 1;
		} else if (ret == Z_DATA_ERROR) {
			z->status = zdata_error(&z->zs);
			z->done = 1;
		} else if (ret == Z_MEM_ERROR) {
			z->err = ENOMEM;
			break;
		} else if (ret != Z_OK && ret != Z_BUF_ERROR) {
			z->status = PD_Z_BAD;	/* Z_NEED_DICT: not gzip */
			z->done = 1;
		}
	}
	n -= z->zs.avail_out;
	if (n == 0 && z->err) {
		errno = z->err;
		return -1;
	}
	return (long)n;
}

int
pd_file_zstatus(const struct pd_zfile *z)
{
	return z->status;
}

const char *
pd_file_zwhat(int status)
{
	switch (status) {
	case PD_Z_CUT:
		return "gzip stream cut short";
	case PD_Z_CRC:
		return "gzip CRC mismatch";
	case PD_Z_SIZE:
		return "gzip length mismatch";
	case PD_Z_BAD:
		return "corrupt gzip data";
	case PD_Z_TRAIL:
		return "data after the gzip stream";
	}
	return "";
}

void
pd_file_zclose(struct pd_zfile *z)
{
	if (!z)
		return;
	if (z->gz)
		inflateEnd(&z->zs);
	close(z->fd);
	free(z);
}

const char *
pd_file_tmpdir(void)
{
	const char *dir = getenv("TMPDIR");

	return dir && *dir ? dir : "/tmp";
}

int
pd_file_tmp(const char *tag)
{
	char path[PATH_MAX];
	int fd, e;

	if (snprintf(path, sizeof path, "%s/%s.XXXXXX", pd_file_tmpdir(),
	    tag) >= (int)sizeof path) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if ((fd = mkstemp(path)) < 0)
		return -1;
	e = errno;
	unlink(path);
	errno = e;
	return fd;
}

int
pd_file_write_all(int fd, const void *p, size_t n)
{
	const char *b = p;

	while (n > 0) {
		ssize_t w = write(fd, b, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (w == 0)
				errno = ENOSPC;
			return -1;
		}
		b += w;
		n -= (size_t)w;
	}
	return 0;
}
