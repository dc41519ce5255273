/* pd_swar: ASCII digits eight bytes at a time, in one 64-bit word (for
 * the trace scanner and pd_num_int). Little-endian GCC-compatible
 * compilers only: PD_HAVE_SWAR says whether they are here; without it
 * callers take their byte loops. */
#ifndef PD_SWAR_H
#define PD_SWAR_H

#include <stdint.h>
#include <string.h>

#if defined(__GNUC__) && defined(__BYTE_ORDER__) && \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define PD_HAVE_SWAR 1

#define PD_SWAR_ZEROS	0x3030303030303030ULL
#define PD_SWAR_HIGH	0x8080808080808080ULL

/* 10^n for the n digits of a word */
static const uint64_t pd_pow10_8[9] = { 1, 10, 100, 1000, 10000, 100000,
	1000000, 10000000, 100000000 };

/* The top bit of each byte of t (a word of text XOR PD_SWAR_ZEROS) that
 * is no digit: a digit is 0..9 there, and adding 0x76 sets the top bit
 * of a byte above 9. A carry out of one byte goes to the byte after it
 * and can only set that one's bit, never clear it: no byte that is no
 * digit is ever taken for one. */
static inline uint64_t
pd_swar_nondigit(uint64_t t)
{
	return ((t + 0x7676767676767676ULL) | t) & PD_SWAR_HIGH;
}

/* How many of the 8 bytes at s (readable) are digits before the first
 * that is not. */
static inline int
pd_swar_run(const char *s)
{
	uint64_t x, m;

	memcpy(&x, s, 8);
	m = pd_swar_nondigit(x ^ PD_SWAR_ZEROS);
	return m ? __builtin_ctzll(m) >> 3 : 8;
}

/* The value of the n digits in t (text XOR PD_SWAR_ZEROS, each byte
 * 0..9): they are its top n bytes in the text's order (the first, most
 * significant, the lowest of them), the bytes below them 0. */
static inline uint64_t
pd_swar_value(uint64_t t)
{
	t = t * 10 + (t >> 8);
	return (((t & 0x000000FF000000FFULL) * (100 + (1000000ULL << 32))) +
	    (((t >> 16) & 0x000000FF000000FFULL) * (1 + (10000ULL << 32)))) >>
	    32;
}
#endif

#endif
