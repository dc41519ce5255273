/* Writing the report's files as one set. Everything is written into a
 * fresh temporary directory next to the output directory (same file
 * system), then that directory takes the output directory's place with one
 * rename(2) (renameat2 RENAME_EXCHANGE when a previous set is there), so a
 * reader sees the old set or the new one, never a mix, and a run that fails
 * (a full disk, a signal) leaves the old set as it was. The parent directory
 * is locked (flock) while this happens, so concurrent runs into one
 * directory take turns. Nothing below the output directory is followed: a
 * previous set holding a symbolic link, or anything pd-report does not
 * write, is refused, and the old set is removed without following links. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pd_diag.h"
#include "pd_file.h"
#include "report.h"

#define MAXMADE 32

/* The output in progress; static so that a signal handler can remove the
 * temporary directory with async-signal-safe calls only. */
static struct {
	char abs[PATH_MAX];	/* the output directory, absolute */
	char base[NAME_MAX + 1];	/* its last component */
	char tmp[NAME_MAX + 1];	/* the temporary sibling's name */
	int pfd, tfd;		/* parent (locked), temporary directory */
	int exists;		/* a previous set is in place */
	int failed;		/* a write failed: the set is not made */
	mode_t mode;		/* mode the set's directory gets */
	char made[MAXMADE][64];	/* created below tmp, in order */
	int made_dir[MAXMADE];
	volatile sig_atomic_t nmade, active;
} out = { .pfd = -1, .tfd = -1 };

/* The many-run output (report_runs_begin): its directory, its parent
 * (locked while pd-report writes there) and the temporary file of the
 * index file being written. */
static struct {
	char abs[PATH_MAX];
	char tmp[NAME_MAX + 1];
	int pfd, dfd;
	volatile sig_atomic_t active;
} runs = { .pfd = -1, .dfd = -1 };

static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };

/* Remove what this run created: the files, then the directories. */
static void
remove_made(void)
{
	int i;

	for (i = out.nmade - 1; i >= 0; i--)
		unlinkat(out.tfd, out.made[i], out.made_dir[i] ? AT_REMOVEDIR : 0);
	unlinkat(out.pfd, out.tmp, AT_REMOVEDIR);
}

static void
on_signal(int sig)
{
	if (out.active)
		remove_made();
	if (runs.active)
		unlinkat(runs.dfd, runs.tmp, 0);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void
catch_signals(void)
{
	size_t i;

	for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		if (signal(sigs[i], on_signal) == SIG_IGN)
			signal(sigs[i], SIG_IGN);
	/* Past a file size limit, write(2) fails (EFBIG) and is reported
	 * like a full disk, instead of the signal ending the run. */
	signal(SIGXFSZ, SIG_IGN);
}

static void
block_signals(int how)
{
	sigset_t set;
	size_t i;

	sigemptyset(&set);
	for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		sigaddset(&set, sigs[i]);
	sigprocmask(how, &set, NULL);
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

/* out.abs from dir: the directory itself when it exists (a link to it is
 * followed), else its parent, made with its parents, plus the last name. */
static int
resolve(const char *dir)
{
	char buf[PATH_MAX], par[PATH_MAX];
	const char *base;
	char *slash;
	struct stat st;
	size_t n;

	if (snprintf(buf, sizeof buf, "%s", dir) >= (int)sizeof buf) {
		pd_error(dir, 0, "%s", strerror(ENAMETOOLONG));
		return -1;
	}
	for (n = strlen(buf); n > 1 && buf[n - 1] == '/'; )
		buf[--n] = 0;
	if (!realpath(buf, out.abs)) {
		if (errno != ENOENT || lstat(buf, &st) == 0) {
			pd_error(dir, 0, "%s", strerror(errno));
			return -1;
		}
		slash = strrchr(buf, '/');
		base = slash ? slash + 1 : buf;
		if (slash == buf)
			snprintf(par, sizeof par, "/");
		else if (slash) {
			*slash = 0;
			snprintf(par, sizeof par, "%s", buf);
		} else
			snprintf(par, sizeof par, ".");
		if (strcmp(base, ".") == 0 || strcmp(base, "..") == 0) {
			pd_error(dir, 0, "%s", strerror(ENOENT));
			return -1;
		}
		if (mkdirs(par) != 0 || !realpath(par, out.abs)) {
			pd_error(par, 0, "%s", strerror(errno));
			return -1;
		}
		n = strlen(out.abs);
		if (snprintf(out.abs + n, sizeof out.abs - n, "%s%s",
		    n > 1 ? "/" : "", base) >= (int)(sizeof out.abs - n)) {
			pd_error(dir, 0, "%s", strerror(ENAMETOOLONG));
			return -1;
		}
	}
	slash = strrchr(out.abs, '/');
	if (!slash[1] || strlen(slash + 1) > NAME_MAX) {
		pd_error(dir, 0, "not a directory pd-report can replace");
		return -1;
	}
	snprintf(out.base, sizeof out.base, "%s", slash + 1);
	snprintf(par, sizeof par, "%.*s", slash == out.abs ? 1 :
	    (int)(slash - out.abs), out.abs);
	out.pfd = open(par, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (out.pfd < 0) {
		pd_error(dir, 0, "%s", strerror(errno));
		return -1;
	}
	return 0;
}

static int
is_one_of(const char *name, const char *const *names)
{
	for (; *names; names++)
		if (strcmp(name, *names) == 0)
			return 1;
	return 0;
}

/* Whether the directory at fd (path p) holds only what pd-report writes:
 * at the top the report files and meta/, artifacts/; in those, regular
 * files. A symbolic link anywhere is refused, never followed. */
static int
check_set(int fd, const char *p, int top)
{
	static const char *const files[] = { "report.json", "report.md",
		"report.html", NULL };
	static const char *const dirs[] = { "meta", "artifacts", NULL };
	DIR *d = fdopendir(fd);
	struct dirent *e;
	struct stat st;
	int bad = 0;

	if (!d) {
		pd_error(p, 0, "%s", strerror(errno));
		close(fd);
		return -1;
	}
	while (!bad && (e = readdir(d))) {
		const char *n = e->d_name;
		int ok;

		if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0)
			continue;
		if (fstatat(fd, n, &st, AT_SYMLINK_NOFOLLOW) != 0) {
			pd_error(p, 0, "'%s': %s", n, strerror(errno));
			bad = -1;
		} else if (S_ISLNK(st.st_mode)) {
			pd_error(p, 0, "'%s' is a symbolic link; pd-report does "
			    "not follow links below its output directory", n);
			bad = -1;
		} else if (top && S_ISDIR(st.st_mode) && is_one_of(n, dirs)) {
			char sub[PATH_MAX];
			int sfd = openat(fd, n, O_RDONLY | O_DIRECTORY |
			    O_NOFOLLOW | O_CLOEXEC);

			snprintf(sub, sizeof sub, "%s/%s", p, n);
			if (sfd < 0) {
				pd_error(sub, 0, "%s", strerror(errno));
				bad = -1;
			} else
				bad = check_set(sfd, sub, 0);
		} else {
			ok = S_ISREG(st.st_mode) && (!top || is_one_of(n, files));
			if (!ok) {
				pd_error(p, 0, "'%s' is not a file pd-report "
				    "writes; not replacing '%s' (choose a new "
				    "or empty directory with -o)", n, out.abs);
				bad = -1;
			}
		}
	}
	closedir(d);
	return bad;
}

/* What is at the output directory now (under the lock): nothing, or a
 * previous set that may be replaced. */
static int
check_old(void)
{
	struct stat st;
	int fd;

	if (fstatat(out.pfd, out.base, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		if (errno == ENOENT)
			return 0;
		pd_error(out.abs, 0, "%s", strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		pd_error(out.abs, 0, "%s", strerror(S_ISLNK(st.st_mode) ?
		    ELOOP : ENOTDIR));
		return -1;
	}
	out.exists = 1;
	out.mode = st.st_mode & 07777;
	fd = openat(out.pfd, out.base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (fd < 0) {
		pd_error(out.abs, 0, "%s", strerror(errno));
		return -1;
	}
	return check_set(fd, out.abs, 1);
}

static void
lock_fd(int fd, const char *what)
{
	if (flock(fd, LOCK_EX | LOCK_NB) == 0)
		return;
	if (errno == EWOULDBLOCK) {
		pd_note("waiting for another run writing %s '%s'", what, out.abs);
		while (flock(fd, LOCK_EX) != 0 && errno == EINTR)
			;
	}
	/* Other errors (a file system without locks): go on unlocked. */
}

static void
lock_parent(void)
{
	lock_fd(out.pfd, "next to");
}

static void
close_out(void)
{
	if (out.tfd >= 0)
		close(out.tfd);
	if (out.pfd >= 0)
		close(out.pfd);	/* releases the lock */
	out.tfd = out.pfd = -1;
}

int
report_out_begin(const char *dir)
{
	char tmp[PATH_MAX];
	const char *slash;
	mode_t mask;

	memset(&out, 0, sizeof out);
	out.pfd = out.tfd = -1;
	mask = umask(0);
	umask(mask);
	out.mode = 0777 & ~mask;
	if (resolve(dir) != 0)
		goto fail;
	lock_parent();
	if (check_old() != 0)
		goto fail;
	catch_signals();
	snprintf(tmp, sizeof tmp, "%.*s/.%s.XXXXXX", (int)(strrchr(out.abs,
	    '/') - out.abs), out.abs, out.base);
	block_signals(SIG_BLOCK);
	if (!mkdtemp(tmp)) {
		block_signals(SIG_UNBLOCK);
		pd_error(out.abs, 0, "cannot make a temporary directory next "
		    "to it: %s", strerror(errno));
		goto fail;
	}
	slash = strrchr(tmp, '/');
	snprintf(out.tmp, sizeof out.tmp, "%s", slash + 1);
	out.active = 1;
	block_signals(SIG_UNBLOCK);
	out.tfd = openat(out.pfd, out.tmp, O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC);
	if (out.tfd < 0) {
		pd_error(tmp, 0, "%s", strerror(errno));
		report_out_abort();
		return -1;
	}
	return 0;
fail:
	close_out();
	return -1;
}

/* Note a name about to be created below the temporary directory. */
static int
note_made(const char *name, int isdir)
{
	if (out.nmade >= MAXMADE || strlen(name) >= sizeof out.made[0]) {
		errno = ENAMETOOLONG;
		return -1;
	}
	snprintf(out.made[out.nmade], sizeof out.made[0], "%s", name);
	out.made_dir[out.nmade] = isdir;
	out.nmade++;
	return 0;
}

int
report_write(const char *name, const char *data, size_t len)
{
	char sub[64];
	const char *slash = strchr(name, '/');
	int fd = -1, i, err;

	if (out.failed)
		return -1;
	if (slash) {
		snprintf(sub, sizeof sub, "%.*s", (int)(slash - name), name);
		for (i = 0; i < out.nmade; i++)
			if (out.made_dir[i] && strcmp(out.made[i], sub) == 0)
				break;
		if (i == out.nmade && (note_made(sub, 1) != 0 ||
		    mkdirat(out.tfd, sub, 0777) != 0))
			goto fail;
	}
	if (note_made(name, 0) != 0)
		goto fail;
	fd = openat(out.tfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0644);
	if (fd < 0)
		goto fail;
	if (pd_file_write_all(fd, data, len) != 0 || fchmod(fd, 0644) != 0 ||
	    fsync(fd) != 0)
		goto fail;
	if (close(fd) != 0) {
		fd = -1;
		goto fail;
	}
	return 0;
fail:
	err = errno ? errno : EIO;
	if (fd >= 0)
		close(fd);
	out.failed = 1;
	pd_error(NULL, 0, "%s/%s: %s", out.abs, name, strerror(err));
	return -1;
}

/* Remove the directory name below dfd and everything in it, following no
 * symbolic link (a link is removed, not what it names). */
static int
remove_tree(int dfd, const char *name, int depth)
{
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	struct dirent *e;
	struct stat st;
	DIR *d;

	if (fd < 0)
		return errno == ENOTDIR || errno == ELOOP ?
		    unlinkat(dfd, name, 0) : -1;
	if (!(d = fdopendir(fd))) {
		close(fd);
		return -1;
	}
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (depth < 8 && fstatat(fd, e->d_name, &st,
		    AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode))
			remove_tree(fd, e->d_name, depth + 1);
		else
			unlinkat(fd, e->d_name, 0);
	}
	closedir(d);
	return unlinkat(dfd, name, AT_REMOVEDIR);
}

static int
sync_dirs(void)
{
	int i, fd, rc = 0;

	for (i = 0; i < out.nmade; i++) {
		if (!out.made_dir[i])
			continue;
		fd = openat(out.tfd, out.made[i], O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 || fsync(fd) != 0)
			rc = -1;
		if (fd >= 0)
			close(fd);
	}
	if (fchmod(out.tfd, out.mode) != 0 || fsync(out.tfd) != 0)
		rc = -1;
	return rc;
}

/* Put the temporary directory in the place of the output directory; the
 * previous set, if any, ends up under the temporary name. */
static int
swap_in(void)
{
	char old[PATH_MAX];
	const char *slash;
	int n = (int)(strrchr(out.abs, '/') - out.abs);

	if (!out.exists)
		return renameat(out.pfd, out.tmp, out.pfd, out.base);
	if (renameat2(out.pfd, out.tmp, out.pfd, out.base,
	    RENAME_EXCHANGE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP)
		return -1;
	/* No exchange on this file system: move the old set aside (onto an
	 * empty directory of ours), then the new one in. */
	snprintf(old, sizeof old, "%.*s/.%s.XXXXXX", n, out.abs, out.base);
	if (!mkdtemp(old))
		return -1;
	slash = strrchr(old, '/') + 1;
	if (renameat(out.pfd, out.base, out.pfd, slash) != 0) {
		unlinkat(out.pfd, slash, AT_REMOVEDIR);
		return -1;
	}
	if (renameat(out.pfd, out.tmp, out.pfd, out.base) != 0) {
		int err = errno;

		renameat(out.pfd, slash, out.pfd, out.base);
		errno = err;
		return -1;
	}
	/* The empty temporary name now stands for the old set. */
	renameat(out.pfd, slash, out.pfd, out.tmp);
	return 0;
}

int
report_out_commit(void)
{
	int rc = 0;

	if (sync_dirs() != 0) {
		pd_error(out.abs, 0, "%s", strerror(errno));
		report_out_abort();
		return -1;
	}
	block_signals(SIG_BLOCK);
	if (swap_in() != 0) {
		pd_error(out.abs, 0, "cannot put the new report in place: %s",
		    strerror(errno));
		remove_made();
		rc = -1;
	} else if (out.exists && remove_tree(out.pfd, out.tmp, 0) != 0)
		pd_warn(out.abs, 0, "cannot remove the previous report, "
		    "left in '%s': %s", out.tmp, strerror(errno));
	fsync(out.pfd);
	out.active = 0;
	block_signals(SIG_UNBLOCK);
	close_out();
	return rc;
}

void
report_out_abort(void)
{
	block_signals(SIG_BLOCK);
	if (out.active)
		remove_made();
	out.active = 0;
	block_signals(SIG_UNBLOCK);
	close_out();
}

const char *
report_out_dir(void)
{
	return out.abs;
}

/* What the many-run directory may hold: the index files, the temporary
 * names pd-report makes next to them and to the runs' sets (".x.XXXXXX"),
 * and directories (a run's set, checked when it is replaced). */
static int
check_runs_dir(void)
{
	int fd = dup(runs.dfd), bad = 0;
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;
	struct stat st;

	if (!d) {
		pd_error(runs.abs, 0, "%s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while (!bad && (e = readdir(d))) {
		const char *n = e->d_name;

		if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0)
			continue;
		if (fstatat(runs.dfd, n, &st, AT_SYMLINK_NOFOLLOW) != 0) {
			pd_error(runs.abs, 0, "'%s': %s", n, strerror(errno));
			bad = -1;
		} else if (S_ISLNK(st.st_mode)) {
			pd_error(runs.abs, 0, "'%s' is a symbolic link; pd-report "
			    "does not follow links below its output directory",
			    n);
			bad = -1;
		} else if (!S_ISDIR(st.st_mode) && !(S_ISREG(st.st_mode) &&
		    (strcmp(n, "index.json") == 0 ||
		    strcmp(n, "index.html") == 0 || n[0] == '.'))) {
			pd_error(runs.abs, 0, "'%s' is not a file pd-report writes; "
			    "not writing the reports of many runs there (choose "
			    "a new or empty directory with -o)", n);
			bad = -1;
		}
	}
	closedir(d);
	return bad;
}

int
report_runs_begin(const char *dir)
{
	char buf[PATH_MAX];
	char *slash;

	runs.pfd = runs.dfd = -1;
	if (snprintf(buf, sizeof buf, "%s", dir) >= (int)sizeof buf) {
		pd_error(dir, 0, "%s", strerror(ENAMETOOLONG));
		return -1;
	}
	if (mkdirs(buf) != 0 || !realpath(buf, runs.abs)) {
		pd_error(dir, 0, "%s", strerror(errno));
		return -1;
	}
	slash = strrchr(runs.abs, '/');
	snprintf(buf, sizeof buf, "%.*s", slash == runs.abs ? 1 :
	    (int)(slash - runs.abs), runs.abs);
	if (!slash[1] || (runs.pfd = open(buf, O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) < 0 || (runs.dfd = open(runs.abs, O_RDONLY |
	    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		pd_error(dir, 0, "%s", slash[1] ? strerror(errno) :
		    "not a directory pd-report can write the runs in");
		report_runs_end();
		return -1;
	}
	/* The parent is locked, as for one run's set: two sweeps into one
	 * directory take turns. Each run's set locks this directory. */
	snprintf(out.abs, sizeof out.abs, "%s", runs.abs);
	lock_fd(runs.pfd, "next to");
	if (check_runs_dir() != 0) {
		report_runs_end();
		return -1;
	}
	catch_signals();
	return 0;
}

const char *
report_runs_dir(void)
{
	return runs.abs;
}

/* A new file ".NAME.XXXXXX" below dfd (as mkstemp makes them), its name
 * in tmp. */
static int
make_temp(int dfd, const char *name, char *tmp, size_t size)
{
	static const char set[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	static unsigned long seq;
	unsigned long x;
	int tries, fd, i;

	for (tries = 0; tries < 100; tries++) {
		x = (unsigned long)getpid() * 2654435761UL + ++seq * 40503UL +
		    (unsigned long)tries;
		snprintf(tmp, size, ".%s.XXXXXX", name);
		for (i = (int)strlen(tmp) - 6; tmp[i]; i++) {
			tmp[i] = set[x % 36];
			x = x / 36 + 7919;
		}
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, 0600);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return -1;
}

int
report_runs_write(const char *name, const char *data, size_t len)
{
	char tmp[NAME_MAX + 1];
	int fd = -1, err;

	/* Under the directory's lock, as the runs' sets are written. */
	snprintf(out.abs, sizeof out.abs, "%s", runs.abs);
	lock_fd(runs.dfd, "in");
	block_signals(SIG_BLOCK);
	if ((fd = make_temp(runs.dfd, name, tmp, sizeof tmp)) < 0) {
		block_signals(SIG_UNBLOCK);
		goto fail;
	}
	snprintf(runs.tmp, sizeof runs.tmp, "%s", tmp);
	runs.active = 1;
	block_signals(SIG_UNBLOCK);
	if (pd_file_write_all(fd, data, len) != 0 || fchmod(fd, 0644) != 0 ||
	    fsync(fd) != 0)
		goto fail;
	err = close(fd);
	fd = -1;
	if (err != 0 || renameat(runs.dfd, tmp, runs.dfd, name) != 0)
		goto fail;
	runs.active = 0;
	fsync(runs.dfd);
	flock(runs.dfd, LOCK_UN);
	return 0;
fail:
	err = errno ? errno : EIO;
	if (fd >= 0)
		close(fd);
	block_signals(SIG_BLOCK);
	if (runs.active)
		unlinkat(runs.dfd, runs.tmp, 0);
	runs.active = 0;
	block_signals(SIG_UNBLOCK);
	flock(runs.dfd, LOCK_UN);
	pd_error(NULL, 0, "%s/%s: %s", runs.abs, name, strerror(err));
	return -1;
}

void
report_runs_end(void)
{
	if (runs.dfd >= 0)
		close(runs.dfd);
	if (runs.pfd >= 0)
		close(runs.pfd);	/* releases the lock */
	runs.dfd = runs.pfd = -1;
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
