/* pd_archive: profiler dumps inside .tar, .tar.gz, .tgz, .tar.bz2,
 * .tar.xz, .tar.zst and .zip archives, read with libarchive.
 *
 * A file inside an archive is named "ARCHIVE//MEMBER": the archive's path,
 * two slashes, the member's path inside it. The first time a process
 * needs a member of an archive, the whole archive is read once, its
 * regular files copied into a private temporary directory (mode 0700,
 * under $TMPDIR), which is removed when the process exits, and on
 * SIGINT, SIGTERM, SIGHUP and SIGPIPE. Only that copy is ever opened by
 * the readers; no path that names it reaches a record or a message
 * (pd_archive_unmap turns it back into ARCHIVE//MEMBER).
 *
 * Members whose names are absolute or climb out with "..", links and
 * special files are warned about and not copied. An archive that is
 * corrupt or cut short is said with the member where reading stopped
 * (exit 3), and the members before it are kept. */
#ifndef PD_ARCHIVE_H
#define PD_ARCHIVE_H

#include <jansson.h>
#include <stddef.h>

/* Whether the name ends as an archive does (.tar, .tar.gz, .tgz, .zip,
 * ...): the length of that ending, 0 when it is not an archive's. */
int pd_archive_name(const char *path);

/* The directory holding the copy of the archive's members, read once per
 * process; NULL when the archive cannot be opened at all (said). */
const char *pd_archive_dir(const char *archive);

/* When path is ARCHIVE//MEMBER with ARCHIVE an archive file: the path of
 * the member's copy in out, and 1 (0 when the member is not in the
 * archive's copy: out is still set, so opening it says ENOENT). 0 when
 * path names no archive member (out untouched); -1 when the archive
 * cannot be read. */
int pd_archive_resolve(const char *path, char *out, size_t size);

/* The text s with every copy directory of this process written back as
 * ARCHIVE/ (so that a copy's path reads ARCHIVE//MEMBER): a new string,
 * or NULL when s names no copy. */
char *pd_archive_unmap(const char *s);

/* pd_archive_unmap on every string inside a JSON object or array: each
 * string that names a copy is replaced in its container by a new value
 * (a string value itself is never changed: it may be shared). */
void pd_archive_unmap_json(json_t *v);

/* Whether any archive has been read by this process. */
int pd_archive_active(void);

#endif
