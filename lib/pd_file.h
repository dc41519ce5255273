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

/* Reading a file that may be gzip-compressed: a file that starts with the
 * gzip magic (1f 8b) is inflated, with ISA-L's igzip where libisal.so.2
 * can be loaded (unless PD_INFLATE=zlib), else with zlib, concatenated
 * members one after the other as gzip -d does; any other file is read as
 * it is. Both give the same bytes and the same status. Unlike
 * gzread(3), every byte inflated is handed over before a damaged or
 * missing trailer is reported, and a stream cut short is told apart from
 * its end: pd_file_zread returns 0 at either, pd_file_zstatus says which. */
struct pd_zfile;

enum {
	PD_Z_OK = 0,	/* read to its end (or not gzip at all) */
	PD_Z_CUT,	/* the file ends inside a gzip member */
	PD_Z_CRC,	/* a member's CRC32 does not match its data */
	PD_Z_SIZE,	/* a member's ISIZE does not match its data */
	PD_Z_BAD,	/* corrupt gzip data: reading stopped there */
	PD_Z_TRAIL	/* bytes after the last member that are not gzip */
};

/* Open path (pd_file_open's rules); NULL with errno set. */
struct pd_zfile *pd_file_zopen(const char *path);
/* Up to n bytes into buf: the count, 0 at the end of the data, -1 on a
 * read error (errno set). */
long pd_file_zread(struct pd_zfile *z, void *buf, size_t n);
/* How the data ended (PD_Z_*); PD_Z_OK until the end was met. */
int pd_file_zstatus(const struct pd_zfile *z);
/* What inflates z: "isa-l", "zlib", or "" for a file that is not gzip. */
const char *pd_file_zengine(const struct pd_zfile *z);
/* The problem in words ("gzip CRC mismatch", ...); "" for PD_Z_OK. */
const char *pd_file_zwhat(int status);
void pd_file_zclose(struct pd_zfile *z);

/* Scratch space for data a tool spills out of memory (pd_spill,
 * pd_xsort): the directory, $TMPDIR else /tmp, and a new file in it,
 * already unlinked (gone when closed, even on a crash), opened read-write;
 * -1 with errno set when none can be made. tag names it while it exists
 * ("pd-sort"). */
const char *pd_file_tmpdir(void);
int pd_file_tmp(const char *tag);

/* All n bytes at p to fd: a short write is continued, EINTR retried, a
 * write of 0 bytes is ENOSPC. 0, or -1 with errno set. */
int pd_file_write_all(int fd, const void *p, size_t n);

#endif
