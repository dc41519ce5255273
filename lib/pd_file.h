/* pd_file: opening an input file for reading without ever blocking on it.
 *
 * Only regular files are read as inputs (exports, traces, CSVs, files to
 * hash). A FIFO with no writer would hang open(2), and a device such as
 * /dev/zero never ends; both are refused here, before any byte is read,
 * so every reader gets the same rule from one place. */
#ifndef PD_FILE_H
#define PD_FILE_H

#include <stdio.h>
#include <sys/stat.h>

/* errno value for "not a regular file" (no POSIX errno says so). */
#define PD_ENOTREG 4096

/* A read-only, close-on-exec descriptor for path when it is a regular file
 * (symbolic links followed); -1 with errno set otherwise (PD_ENOTREG when
 * it is something else). A member of an archive, ARCHIVE//MEMBER, is
 * opened from its private copy (pd_archive.h). st, when not NULL, gets its
 * status. */
int pd_file_open(const char *path, struct stat *st);

/* The same as a stdio stream ("rb"); NULL with errno set. */
FILE *pd_file_fopen(const char *path);

/* strerror(3) that also knows PD_ENOTREG ("not a regular file"). */
const char *pd_file_strerror(int err);

/* Whether path names a regular file (stat(2), links followed). */
int pd_file_is_regular(const char *path);

#endif
