/* pd_locate_int: what the parts of pd_locate share (not an interface:
 * pd_locate.h is). The walk (pd_locate.c) hands each directory to the
 * Ascend recognisers (pd_locate_ascend.c, pd_locate_msprof.c) and each
 * file to the trace recogniser (pd_locate_trace.c); a recogniser builds
 * a struct root and keeps it (pd_locate_root.c); the roots kept are
 * ordered and grouped into runs (pd_locate_group.c). */
#ifndef PD_LOCATE_INT_H
#define PD_LOCATE_INT_H

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <jansson.h>

#define DEFAULT_DEPTH	8
#define SNIFF_BYTES	(64 * 1024)	/* trace header window */
#define SMALL_JSON	(4 << 20)	/* larger info files are not parsed */
#define DEVICE_SCAN	(4 << 20)	/* Kineto event text looked at for a device */

struct cand {
	json_t *rec;
	struct timespec mtime;	/* newest of the root and its exports */
	char *archive;		/* the archive it was found in, or NULL */
};

/* A directory the walk has entered, by (device, inode): a symbolic link
 * leading back to it is a loop, one leading to it from elsewhere a second
 * name for what was searched already. */
struct seen {
	dev_t dev;
	ino_t ino;
	int active;	/* on the path being walked */
	int warned;	/* a second name was reported */
	char *path;	/* the name it was searched under */
};

/* One operand's search: the roots kept, the directories entered. */
struct loc {
	int maxdepth;
	int status;
	struct cand *c;
	size_t n, cap;
	void *seen;	/* tsearch tree of struct seen */
};

/* A root a recogniser is building; pd_loc_keep turns it into its record. */
struct root {
	char path[PATH_MAX];
	const char *format;
	int64_t rank, device, world_size;	/* -1: unknown */
	int64_t process;	/* nsys: the pid of the process; -1 */
	const char *framework;	/* NULL: the format's (pd_formats.h) */
	char run[PATH_MAX + 64];
	json_t *exports;	/* array of {kind, path, bytes} */
	json_t *env;		/* profiler_metadata ENV_VARIABLES, or NULL */
	struct timespec mtime;
};

/* pd_locate_root.c: names, directories, small files; a root's record */
int pd_loc_all_digits(const char *s, size_t n);
void pd_loc_join(char *buf, size_t size, const char *dir, const char *name);
void pd_loc_parent_of(const char *path, char *buf, size_t size);
int pd_loc_device_dir(const char *name);
char **pd_loc_list_dir(const char *dir, int *n);
void pd_loc_free_list(char **names, int n);
int pd_loc_sniff(const char *path, char *buf, int size);
json_t *pd_loc_load_small_json(const char *path);
void pd_loc_root_init(struct root *r, const char *path, const char *format);
void pd_loc_newer(struct timespec *a, const struct timespec *b);
void pd_loc_add_export(struct root *r, const char *kind, const char *path);
int64_t pd_loc_score(json_t *exports, int64_t rank);
void pd_loc_keep(struct loc *l, struct root *r);
/* pd_locate_ascend.c: the Ascend directories */
const char *pd_loc_msprof_kind(const char *name, char *kind, size_t size);
int64_t pd_loc_device_from_csv(const char *path, const char *col,
    const char *col2);
int64_t pd_loc_rank_from_info_json(const char *path);
int pd_loc_dir_root(struct loc *l, const char *path, char **names, int n);
/* pd_locate_msprof.c: a CANN PROF_* directory */
int pd_loc_prof_root(struct loc *l, const char *path);
/* pd_locate_trace.c: a trace file or an Nsight Systems export */
int pd_loc_nsys_root(struct loc *l, const char *path);
int pd_loc_trace_root(struct loc *l, const char *path);
/* pd_locate_group.c: order, --best, a cluster root's covers */
int pd_loc_by_root(const void *a, const void *b);
void pd_loc_best_only(struct loc *l);
void pd_loc_cover(struct loc *l);

/* Small helpers on names and paths. */
static inline int
ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);

	return a >= b && strcmp(s + a - b, suf) == 0;
}

static inline int
starts_with(const char *s, const char *pre)
{
	return strncmp(s, pre, strlen(pre)) == 0;
}

static inline int
in_list(const char **list, const char *s)
{
	int i;

	for (i = 0; list[i]; i++)
		if (strcmp(list[i], s) == 0)
			return 1;
	return 0;
}

static inline const char *
base_of(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static inline int
is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static inline int
is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* A JSON integer or an integer string (rank_id is both in the wild);
 * negative values mean "unset". Returns -1 when absent or unset. */
static inline int64_t
json_rank(json_t *v)
{
	const char *s;
	char *end;
	long long x;

	if (json_is_integer(v))
		return json_integer_value(v) < 0 ? -1 : json_integer_value(v);
	if (!json_is_string(v))
		return -1;
	s = json_string_value(v);
	errno = 0;
	x = strtoll(s, &end, 10);
	if (end == s || *end || errno || x < 0)
		return -1;
	return x;
}

static inline int
is_sqlite_name(const char *name)
{
	return ends_with(name, ".sqlite") || ends_with(name, ".sqlite3");
}

#endif
