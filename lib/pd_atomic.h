/* pd_atomic: write a whole file so that readers see the old one or the new
 * one, never half: a temporary file in the same directory, fsync, rename.
 * The directory is created when missing. 0, or -1 after pd_error. */
#ifndef PD_ATOMIC_H
#define PD_ATOMIC_H

#include <stddef.h>

int pd_atomic_write(const char *dir, const char *name, const char *buf,
    size_t len);

#endif
