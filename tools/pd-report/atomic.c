/* Writing the report's files: temporary file in the same directory, then
 * rename(2), so a reader (or an interrupted run) never sees half a file. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pd_diag.h"
#include "report.h"

/* The temporary file being written, removed if a signal ends the run. */
static char pending[PATH_MAX + 16];
static volatile sig_atomic_t have_pending;

static void
on_signal(int sig)
{
	if (have_pending)
		unlink(pending);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void
catch_signals(void)
{
	static int done;
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
	size_t i;

	if (done)
		return;
	done = 1;
	for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		if (signal(sigs[i], on_signal) == SIG_IGN)
			signal(sigs[i], SIG_IGN);
}

static int
mkdirs(const char *path)
{
	char buf[PATH_MAX];
	char *p;

	if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(buf, 0777) != 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(buf, 0777) != 0 && errno != EEXIST)
		return -1;
	return 0;
}

int
report_write(const char *dir, const char *name, const char *data, size_t len)
{
	char path[PATH_MAX], tmp[PATH_MAX + 16], parent[PATH_MAX];
	char *slash;
	int fd, err;

	if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path) {
		pd_error(dir, 0, "path too long");
		return -1;
	}
	snprintf(parent, sizeof parent, "%s", path);
	slash = strrchr(parent, '/');
	*slash = 0;
	if (mkdirs(parent) != 0) {
		pd_error(parent, 0, "%s", strerror(errno));
		return -1;
	}
	snprintf(tmp, sizeof tmp, "%s/.%s.XXXXXX", parent, slash + 1);
	catch_signals();
	have_pending = 0;
	memcpy(pending, tmp, sizeof pending);
	fd = mkstemp(pending);
	if (fd >= 0) {
		memcpy(tmp, pending, sizeof tmp);
		have_pending = 1;
	}
	if (fd < 0) {
		pd_error(parent, 0, "%s", strerror(errno));
		return -1;
	}
	while (len > 0) {
		ssize_t n = write(fd, data, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			goto fail;
		data += n;
		len -= (size_t)n;
	}
	if (fchmod(fd, 0644) != 0 || fsync(fd) != 0)
		goto fail;
	if (close(fd) != 0) {
		fd = -1;
		goto fail;
	}
	if (rename(tmp, path) != 0) {
		fd = -1;
		goto fail;
	}
	have_pending = 0;
	return 0;
fail:
	err = errno ? errno : EIO;
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	have_pending = 0;
	pd_error(path, 0, "%s", strerror(err));
	return -1;
}

int
report_unlink(const char *dir, const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof path, "%s/%s", dir, name);
	if (unlink(path) != 0 && errno != ENOENT) {
		pd_error(path, 0, "%s", strerror(errno));
		return -1;
	}
	return 0;
}

char *
report_dump(json_t *doc)
{
	char *s = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY |
	    JSON_REAL_PRECISION(15));
	size_t n;
	char *t;

	if (!s)
		return NULL;
	n = strlen(s);
	t = realloc(s, n + 2);
	if (!t) {
		free(s);
		return NULL;
	}
	t[n] = '\n';
	t[n + 1] = 0;
	return t;
}

static char *
slot(void)
{
	static char bufs[8][64];
	static int i;

	i = (i + 1) % 8;
	return bufs[i];
}

const char *
fmt_us(json_t *v)
{
	char *b;
	double us;

	if (!json_is_number(v))
		return "-";
	b = slot();
	us = json_number_value(v);
	if (fabs(us) >= 1e6)
		snprintf(b, 64, "%.3f s", us / 1e6);
	else if (fabs(us) >= 1e3)
		snprintf(b, 64, "%.3f ms", us / 1e3);
	else
		snprintf(b, 64, "%.3f us", us);
	return b;
}

const char *
fmt_ratio(json_t *v)
{
	char *b;

	if (!json_is_number(v))
		return "-";
	b = slot();
	snprintf(b, 64, "%.2f %%", json_number_value(v) * 100);
	return b;
}

const char *
fmt_bytes(json_t *v)
{
	static const char *unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	char *b;
	double x;
	int u = 0;

	if (!json_is_number(v))
		return "-";
	b = slot();
	x = json_number_value(v);
	while (fabs(x) >= 1024 && u < 4) {
		x /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(b, 64, "%.0f B", x);
	else
		snprintf(b, 64, "%.2f %s", x, unit[u]);
	return b;
}

const char *
fmt_num(json_t *v)
{
	char *b;

	if (json_is_integer(v)) {
		b = slot();
		snprintf(b, 64, "%lld", (long long)json_integer_value(v));
		return b;
	}
	if (json_is_real(v)) {
		b = slot();
		snprintf(b, 64, "%.15g", json_real_value(v));
		return b;
	}
	if (json_is_boolean(v))
		return json_is_true(v) ? "true" : "false";
	return "-";
}
