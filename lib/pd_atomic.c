#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pd_atomic.h"
#include "pd_file.h"
#include "pd_diag.h"

int
pd_atomic_write(const char *dir, const char *name, const char *buf,
    size_t len)
{
	char path[PATH_MAX], tmp[PATH_MAX + 16];
	int fd, err;

	if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path) {
		pd_error(dir, 0, "path too long");
		return -1;
	}
	if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
		pd_error(dir, 0, "%s", strerror(errno));
		return -1;
	}
	snprintf(tmp, sizeof tmp, "%s/.%s.XXXXXX", dir, name);
	if ((fd = mkstemp(tmp)) < 0) {
		pd_error(dir, 0, "%s", strerror(errno));
		return -1;
	}
	if (pd_file_write_all(fd, buf, len) != 0)
		goto fail;
	if (fchmod(fd, 0644) != 0 || fsync(fd) != 0)
		goto fail;
	if (close(fd) != 0) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (rename(tmp, path) != 0)
		goto fail;
	return 0;
fail:
	err = errno ? errno : EIO;
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	pd_error(path, 0, "%s", strerror(err));
	return -1;
}
