/* pd_archive: members of archives through a private copy (pd_archive.h). */
#include "pd_archive.h"

#include <archive.h>
#include <archive_entry.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pd_diag.h"
#include "pd_file.h"
#include "pd_rec.h"

struct copy {
	char *archive;		/* as given */
	char *dir;		/* the private directory, or NULL: unreadable */
};

static struct copy *copies;
static size_t ncopies;

/* Every file and directory made, in order, for the cleanup; read (never
 * changed) by the signal handler. */
static char **made;
static volatile size_t nmade;
static size_t nfiles;		/* members copied from the archive being read */
static size_t capmade;
static int hooked;

static void
cleanup(void)
{
	size_t i = nmade;

	while (i-- > 0)
		if (unlink(made[i]) != 0)
			rmdir(made[i]);
}

static void
on_signal(int sig)
{
	cleanup();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void
cleanup_at_exit(void)
{
	size_t i;

	cleanup();
	for (i = 0; i < nmade; i++)
		free(made[i]);
	free(made);
	made = NULL;
	nmade = capmade = 0;
	for (i = 0; i < ncopies; i++) {
		free(copies[i].archive);
		free(copies[i].dir);
	}
	free(copies);
	copies = NULL;
	ncopies = 0;
}

static void
hook(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
	size_t i;

	if (hooked)
		return;
	hooked = 1;
	atexit(cleanup_at_exit);
	for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		struct sigaction sa, old;

		if (sigaction(sigs[i], NULL, &old) == 0 &&
		    old.sa_handler == SIG_IGN)
			continue;	/* keep what the caller chose */
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		sigaction(sigs[i], &sa, NULL);
	}
}

static void
remember(const char *path)
{
	char *p = strdup(path);

	if (!p)
		pd_oom();
	if (nmade == capmade) {
		size_t cap = capmade ? capmade * 2 : 64;
		char **v = malloc(cap * sizeof *v);

		if (!v)
			pd_oom();
		/* a new array, filled before it is published, so that the
		 * handler never sees one half copied */
		if (nmade)
			memcpy(v, made, nmade * sizeof *v);
		{
			char **old = made;

			made = v;
			free(old);
		}
		capmade = cap;
	}
	made[nmade] = p;
	nmade = nmade + 1;
}

int
pd_archive_name(const char *path)
{
	static const char *ext[] = { ".tar", ".tar.gz", ".tgz", ".tar.bz2",
	    ".tbz2", ".tar.xz", ".txz", ".tar.zst", ".tzst", ".zip", NULL };
	size_t n = strlen(path), i;

	for (i = 0; ext[i]; i++) {
		size_t k = strlen(ext[i]);

		if (n > k && strcasecmp(path + n - k, ext[i]) == 0)
			return (int)k;
	}
	return 0;
}

/* The member's name made safe to join to the copy directory: leading
 * "./" dropped, empty components squeezed; an absolute name, or one with
 * a "." or ".." component, is refused (0). */
static int
safe_name(const char *name, char *out, size_t size)
{
	const char *p = name, *e;
	size_t l = 0;

	while (p[0] == '.' && p[1] == '/')
		p += 2;
	if (!*p || *p == '/')
		return 0;
	while (*p) {
		e = strchr(p, '/');
		if (!e)
			e = p + strlen(p);
		if (e == p) {		/* "a//b" */
			p++;
			continue;
		}
		if ((e - p == 1 && p[0] == '.') ||
		    (e - p == 2 && p[0] == '.' && p[1] == '.'))
			return 0;
		if (l + (size_t)(e - p) + 2 > size)
			return 0;
		if (l)
			out[l++] = '/';
		memcpy(out + l, p, (size_t)(e - p));
		l += (size_t)(e - p);
		p = *e ? e + 1 : e;
	}
	out[l] = '\0';
	return l > 0;
}

/* mkdir -p of the parents of dir/rel inside dir. */
static int
parents(const char *dir, const char *rel)
{
	char p[PATH_MAX];
	size_t base = strlen(dir), i;

	if ((size_t)snprintf(p, sizeof p, "%s/%s", dir, rel) >= sizeof p)
		return -1;
	for (i = base + 1; p[i]; i++) {
		if (p[i] != '/')
			continue;
		p[i] = '\0';
		if (mkdir(p, 0700) == 0)
			remember(p);
		else if (errno != EEXIST) {
			p[i] = '/';
			return -1;
		}
		p[i] = '/';
	}
	return 0;
}

/* libarchive is loaded when the first archive is read, not at start-up:
 * with its compression and XML libraries it is 12 of a tool's 19 shared
 * objects, a few ms at every start of every tool, while most runs read
 * no archive. The headers still check every call against the library's
 * declarations; SONAME 13 is libarchive 3's. */
static struct {
	void *h;
	struct archive *(*read_new)(void);
	int (*filter_all)(struct archive *);
	int (*format_all)(struct archive *);
	int (*open_fd)(struct archive *, int, size_t);
	int (*open_cb)(struct archive *, void *, archive_open_callback *,
	    archive_read_callback *, archive_close_callback *);
	void (*set_error)(struct archive *, int, const char *, ...);
	int (*next_header)(struct archive *, struct archive_entry **);
	la_ssize_t (*data_block)(struct archive *, const void **, size_t *,
	    la_int64_t *);
	int (*read_free)(struct archive *);
	const char *(*error_string)(struct archive *);
	const char *(*pathname)(struct archive_entry *);
	__LA_MODE_T (*filetype)(struct archive_entry *);
	const char *(*hardlink)(struct archive_entry *);
	int (*mtime_is_set)(struct archive_entry *);
	time_t (*mtime)(struct archive_entry *);
	long (*mtime_nsec)(struct archive_entry *);
} la;

#define LA_SYM(f, name) \
	(*(void **)&la.f = dlsym(la.h, name)) != NULL

/* 0 when loaded; -1 with *why set when it cannot be. */
static int
la_load(const char **why)
{
	static char err[256];
	const char *e;

	if (la.h)
		return 0;
	if (!(la.h = dlopen("libarchive.so.13", RTLD_NOW | RTLD_LOCAL)))
		la.h = dlopen("libarchive.so", RTLD_NOW | RTLD_LOCAL);
	if (la.h && LA_SYM(read_new, "archive_read_new") &&
	    LA_SYM(filter_all, "archive_read_support_filter_all") &&
	    LA_SYM(format_all, "archive_read_support_format_all") &&
	    LA_SYM(open_fd, "archive_read_open_fd") &&
	    LA_SYM(open_cb, "archive_read_open") &&
	    LA_SYM(set_error, "archive_set_error") &&
	    LA_SYM(next_header, "archive_read_next_header") &&
	    LA_SYM(data_block, "archive_read_data_block") &&
	    LA_SYM(read_free, "archive_read_free") &&
	    LA_SYM(error_string, "archive_error_string") &&
	    LA_SYM(pathname, "archive_entry_pathname") &&
	    LA_SYM(filetype, "archive_entry_filetype") &&
	    LA_SYM(hardlink, "archive_entry_hardlink") &&
	    LA_SYM(mtime_is_set, "archive_entry_mtime_is_set") &&
	    LA_SYM(mtime, "archive_entry_mtime") &&
	    LA_SYM(mtime_nsec, "archive_entry_mtime_nsec"))
		return 0;
	e = dlerror();
	snprintf(err, sizeof err, "libarchive could not be loaded (%s); "
	    "install libarchive13", e ? e : "symbol missing");
	*why = err;
	if (la.h)
		dlclose(la.h);
	memset(&la, 0, sizeof la);
	return -1;
}

static int
copy_data(struct archive *a, int fd, const char **why)
{
	const void *buf;
	size_t len;
	la_int64_t off;
	int r;

	for (;;) {
		r = la.data_block(a, &buf, &len, &off);
		if (r == ARCHIVE_EOF)
			return 0;
		if (r < ARCHIVE_WARN) {
			*why = la.error_string(a);
			return -1;
		}
		if (lseek(fd, (off_t)off, SEEK_SET) < 0) {
			*why = strerror(errno);
			return -1;
		}
		if (pd_file_write_all(fd, buf, len) != 0) {
			*why = strerror(errno);
			return -1;
		}
	}
}

/* A gzip archive (.tar.gz, .tgz) whose inflater is ISA-L is inflated by
 * pd_file (lib/pd_file.c: about three times zlib's speed) and its tar
 * handed to libarchive, which would inflate it with zlib. What the gzip
 * layer says of damage (cut short, CRC or ISIZE wrong, corrupt data) is
 * libarchive's read error, so it is said where libarchive meets it; bytes
 * after the last member end the archive, as they do for libarchive.
 * libarchive stops reading at the tar's end, before the gzip trailer:
 * after the last member the rest is inflated here so that a wrong CRC or
 * ISIZE (the data read may be damaged) is said too, which libarchive's
 * own gzip reading leaves unsaid. */
struct zsrc {
	struct pd_zfile *z;
	char buf[1 << 16];
};
static struct zsrc *zcur;	/* the open one, for the check at the end */

/* After the last member: the gzip stream read to its end and checked. */
static void
z_check_end(const char *archive)
{
	int st;

	if (!zcur)
		return;
	while (pd_file_zread(zcur->z, zcur->buf, sizeof zcur->buf) > 0)
		;
	st = pd_file_zstatus(zcur->z);
	if (st == PD_Z_OK || st == PD_Z_TRAIL)
		return;
	pd_warn(archive, 0, "%s after the last of its %zu members: they may "
	    "be damaged", pd_file_zwhat(st), nfiles);
	pd_diag_status(PD_EXIT_INPUT);
}

static la_ssize_t
z_read(struct archive *a, void *cd, const void **buf)
{
	struct zsrc *s = cd;
	long n = pd_file_zread(s->z, s->buf, sizeof s->buf);
	int st = pd_file_zstatus(s->z);

	*buf = s->buf;
	if (n < 0) {
		la.set_error(a, errno, "%s", strerror(errno));
		return -1;
	}
	if (n == 0 && st != PD_Z_OK && st != PD_Z_TRAIL) {
		la.set_error(a, EINVAL, "%s", pd_file_zwhat(st));
		return -1;
	}
	return n;
}

static int
z_close(struct archive *a, void *cd)
{
	struct zsrc *s = cd;

	(void)a;
	if (zcur == s)
		zcur = NULL;
	pd_file_zclose(s->z);
	free(s);
	return ARCHIVE_OK;
}

/* Open a: through z_read where the file is gzip and ISA-L inflates it
 * (*fd closed, set to -1), else from *fd as it is (left open: libarchive
 * does not close it). ARCHIVE_OK or libarchive's error. */
static int
open_archive(struct archive *a, const char *archive, int *fd)
{
	struct zsrc *s;
	struct pd_zfile *z = pd_file_zopen(archive);

	if (!z || strcmp(pd_file_zengine(z), "isa-l") != 0 ||
	    !(s = malloc(sizeof *s))) {
		if (z)
			pd_file_zclose(z);
		return la.open_fd(a, *fd, 65536);
	}
	s->z = z;
	zcur = s;
	close(*fd);
	*fd = -1;
	/* libarchive calls z_close (freeing s) even when the open fails */
	return la.open_cb(a, s, NULL, z_read, z_close);
}

/* Read the archive into dir; problems are said, what was read is kept. */
static void
unpack(const char *archive, const char *dir)
{
	struct archive *a;
	struct archive_entry *e;
	char rel[PATH_MAX], p[PATH_MAX];
	const char *lwhy = NULL;
	int fd, afd, oerr, r, st;

	nfiles = 0;
	if (la_load(&lwhy) < 0 || !(a = la.read_new())) {
		pd_warn(archive, 0, "cannot read archives: %s",
		    lwhy ? lwhy : "out of memory");
		pd_diag_status(PD_EXIT_SYSTEM);
		return;
	}
	la.filter_all(a);
	la.format_all(a);
	afd = pd_file_open(archive, NULL);
	oerr = afd < 0 ? errno : 0;
	if (afd < 0 || open_archive(a, archive, &afd) != ARCHIVE_OK) {
		pd_warn(archive, 0, "not a readable archive: %s",
		    oerr ? pd_file_strerror(oerr) :
		    la.error_string(a) ? la.error_string(a) : "?");
		pd_diag_status(PD_EXIT_INPUT);
		la.read_free(a);
		if (afd >= 0)
			close(afd);
		return;
	}
	for (;;) {
		const char *name, *why = NULL;

		r = la.next_header(a, &e);
		if (r == ARCHIVE_EOF) {
			z_check_end(archive);
			break;
		}
		if (r < ARCHIVE_WARN) {
			pd_warn(archive, 0, "archive cut short or broken after "
			    "%zu members: %s; the members before it are read",
			    nfiles, la.error_string(a) ?
			    la.error_string(a) : "?");
			pd_diag_status(PD_EXIT_INPUT);
			break;
		}
		name = la.pathname(e);
		st = la.filetype(e);
		if (!name)
			continue;
		if (st == AE_IFDIR)
			continue;	/* made as a parent when needed */
		if (!safe_name(name, rel, sizeof rel)) {
			pd_warn(archive, 0, "member %s: an absolute name or "
			    "one that leaves the archive; skipped",
			    pd_diag_quote(name, strlen(name)));
			pd_diag_status(PD_EXIT_INPUT);
			continue;
		}
		if (st != AE_IFREG || la.hardlink(e)) {
			pd_warn(archive, 0, "member %s: not a regular file; "
			    "skipped", pd_diag_quote(name, strlen(name)));
			pd_diag_status(PD_EXIT_INPUT);
			continue;
		}
		if (parents(dir, rel) < 0 ||
		    (size_t)snprintf(p, sizeof p, "%s/%s", dir, rel) >= sizeof p) {
			pd_warn(archive, 0, "member %s: %s; skipped",
			    pd_diag_quote(name, strlen(name)), strerror(errno));
			pd_diag_status(PD_EXIT_INPUT);
			continue;
		}
		fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, 0600);
		if (fd < 0) {
			/* the same member twice: the first copy is kept */
			pd_warn(archive, 0, "member %s: %s; skipped",
			    pd_diag_quote(name, strlen(name)), strerror(errno));
			pd_diag_status(PD_EXIT_INPUT);
			continue;
		}
		remember(p);
		nfiles++;
		if (copy_data(a, fd, &why) < 0) {
			pd_warn(archive, 0, "member %s: %s; the members "
			    "before it are read", pd_diag_quote(name,
			    strlen(name)), why ? why : "read error");
			pd_diag_status(PD_EXIT_INPUT);
			close(fd);
			break;
		}
		if (la.mtime_is_set(e)) {
			/* the member's own time, for pd-locate --best */
			struct timespec ts[2];

			ts[0].tv_sec = ts[1].tv_sec = la.mtime(e);
			ts[0].tv_nsec = ts[1].tv_nsec = la.mtime_nsec(e);
			futimens(fd, ts);
		}
		close(fd);
	}
	la.read_free(a);
	if (afd >= 0)
		close(afd);
}

const char *
pd_archive_dir(const char *archive)
{
	const char *tmp = getenv("TMPDIR");
	char dir[PATH_MAX];
	size_t i;

	for (i = 0; i < ncopies; i++)
		if (strcmp(copies[i].archive, archive) == 0)
			return copies[i].dir;
	hook();
	copies = realloc(copies, (ncopies + 1) * sizeof *copies);
	if (!copies)
		pd_oom();
	copies[ncopies].archive = strdup(archive);
	copies[ncopies].dir = NULL;
	if (!copies[ncopies].archive)
		pd_oom();
	snprintf(dir, sizeof dir, "%s/perfdiag-archive.XXXXXX",
	    tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		pd_error(archive, 0, "cannot make a private directory for its "
		    "members: %s", strerror(errno));
		pd_diag_status(PD_EXIT_SYSTEM);
		return copies[ncopies++].dir;
	}
	remember(dir);
	copies[ncopies].dir = strdup(dir);
	if (!copies[ncopies].dir)
		pd_oom();
	unpack(archive, dir);
	return copies[ncopies++].dir;
}

int
pd_archive_resolve(const char *path, char *out, size_t size)
{
	const char *s = path;
	char arch[PATH_MAX];
	const char *dir;

	while ((s = strstr(s, "//")) != NULL) {
		size_t k = (size_t)(s - path);

		if (k > 0 && k < sizeof arch) {
			memcpy(arch, path, k);
			arch[k] = '\0';
			if (pd_archive_name(arch) && pd_file_is_regular(arch)) {
				if (!(dir = pd_archive_dir(arch)))
					return -1;
				snprintf(out, size, "%s/%s", dir, s + 2);
				return pd_file_is_regular(out) ? 1 : 0;
			}
		}
		s += 2;
	}
	return 0;
}

char *
pd_archive_unmap(const char *s)
{
	size_t i;
	char *cur = NULL;

	for (i = 0; i < ncopies; i++) {
		const char *d = copies[i].dir, *src = cur ? cur : s, *hit;
		size_t dl, al, n = 0;
		char *o, *w;

		if (!d || !(hit = strstr(src, d)))
			continue;
		dl = strlen(d);
		al = strlen(copies[i].archive);
		for (hit = src; (hit = strstr(hit, d)); hit += dl)
			n++;
		o = malloc(strlen(src) + n * (al + 1) + 2);
		if (!o)
			pd_oom();
		w = o;
		while ((hit = strstr(src, d))) {
			memcpy(w, src, (size_t)(hit - src));
			w += hit - src;
			memcpy(w, copies[i].archive, al);
			w += al;
			*w++ = '/';
			src = hit + dl;
		}
		strcpy(w, src);
		free(cur);
		cur = o;
		/* the copy directory itself: the archive's top, ARCHIVE// */
		if (w > o && !*src && w[-1] == '/') {
			char *t = realloc(cur, strlen(cur) + 2);

			if (!t)
				pd_oom();
			cur = t;
			strcat(cur, "/");
		}
	}
	return cur;
}

int
pd_archive_active(void)
{
	return ncopies > 0;
}

/* The value for string v with its archive path mapped back (new
 * reference), or NULL when it names no extracted copy. */
static json_t *
unmapped(json_t *v, void *ctx)
{
	char *s;
	json_t *n;

	(void)ctx;
	if (!json_is_string(v) || !(s = pd_archive_unmap(json_string_value(v))))
		return NULL;
	n = pd_str(s);		/* the archive's name may not be UTF-8 */
	free(s);
	return n;
}

/* Strings are replaced in their container, never changed in place: a
 * value may be shared by other records (pd_runs). */
void
pd_archive_unmap_json(json_t *v)
{
	pd_json_replace(v, unmapped, NULL);
}
