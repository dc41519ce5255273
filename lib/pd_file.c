/* pd_file: regular files only, opened without blocking (see pd_file.h). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

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
