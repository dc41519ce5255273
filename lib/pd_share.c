#include "pd_share.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef PD_SHAREDIR
#define PD_SHAREDIR "/usr/local/share/perfdiag"
#endif

static const char *explicit_dir;

void
pd_share_set(const char *dir)
{
	explicit_dir = dir;
}

static int
try(const char *dir, const char *name, char *buf, size_t size)
{
	if (!dir || !*dir)
		return 0;
	if ((size_t)snprintf(buf, size, "%s/%s", dir, name) >= size)
		return 0;
	return access(buf, R_OK) == 0;
}

char *
pd_share_path(const char *name, char *buf, size_t size)
{
	char exe[PATH_MAX], dir[PATH_MAX + 16];
	ssize_t n;

	if (explicit_dir)	/* explicit means only there */
		return try(explicit_dir, name, buf, size) ? buf : NULL;
	if (try(getenv("PD_SHAREDIR"), name, buf, size))
		return buf;
	n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		char *s;
		exe[n] = 0;
		s = strrchr(exe, '/');
		if (s) {
			*s = 0;
			s = strrchr(exe, '/');
			if (s && strcmp(s, "/bin") == 0) {
				*s = 0;
				snprintf(dir, sizeof dir, "%s/share", exe);
				if (try(dir, name, buf, size))
					return buf;
			}
		}
	}
	if (try(PD_SHAREDIR, name, buf, size))
		return buf;
	return NULL;
}
