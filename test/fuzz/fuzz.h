/* What the libFuzzer targets share (make fuzz): the library's diagnostics
 * set up once, and for entry points that take a path, the input written to
 * one memfd per run and named through /proc/self/fd. */
#ifndef FUZZ_H
#define FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pd_diag.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	pd_diag_init((*argv)[0]);
	pd_diag_quiet(1);
	return 0;
}

/* The input as a file: a path valid until the next call. */
static inline const char *
fuzz_path(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	size_t off = 0;
	ssize_t n;

	if (fd < 0) {
		if ((fd = memfd_create("fuzz", 0)) < 0)
			abort();
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) < 0)
		abort();
	while (off < size) {
		if ((n = pwrite(fd, data + off, size - off, (off_t)off)) <= 0)
			abort();
		off += (size_t)n;
	}
	return path;
}

/* The input as a NUL-terminated string (caller frees). */
static inline char *
fuzz_str(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

#endif
