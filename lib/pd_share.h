/* pd_share: finding files under share/.
 *
 * Order: an explicit directory (a tool's -S option), $PD_SHAREDIR, the
 * compiled-in PD_SHAREDIR (set by the Makefile to $(PREFIX)/share/perfdiag),
 * and the share/ directory next to the running binary's bin/ (so a build
 * tree works without installing). */
#ifndef PD_SHARE_H
#define PD_SHARE_H

#include <stddef.h>

/* Set the explicit directory (NULL to clear). */
void pd_share_set(const char *dir);

/* Full path of name under the first share dir where it exists, written into
 * buf; returns buf, or NULL when not found anywhere. */
char *pd_share_path(const char *name, char *buf, size_t size);

#endif
