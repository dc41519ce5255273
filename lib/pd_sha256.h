/* pd_sha256: SHA-256 (FIPS 180-4) of a buffer or a file, as lowercase hex.
 *
 * Used to pin the inputs a report was made from (pd-report's perf.lock.json).
 * None of jansson, zlib or libyaml has a hash, so this is the one small
 * implementation in the tree; test/sha256-check.c checks it against known
 * vectors and sha256sum(1). */
#ifndef PD_SHA256_H
#define PD_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct pd_sha256 {
	uint32_t h[8];
	uint64_t len;		/* bytes hashed so far */
	unsigned char buf[64];
	size_t nbuf;
};

void pd_sha256_init(struct pd_sha256 *c);
void pd_sha256_update(struct pd_sha256 *c, const void *data, size_t n);
/* Writes 64 hex digits and a NUL into hex[65]. */
void pd_sha256_final(struct pd_sha256 *c, char hex[65]);

/* One call for a buffer. */
void pd_sha256_hex(const void *data, size_t n, char hex[65]);

/* Hash a regular file (pd_file_open: a FIFO or a device is refused, with
 * errno PD_ENOTREG); *bytes gets its size. Returns 0, or -1 with errno set. */
int pd_sha256_file(const char *path, char hex[65], uint64_t *bytes);

#endif
