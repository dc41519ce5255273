/* png-check: read an 8-bit RGB or RGBA PNG (what Chromium's --screenshot
 * writes) and print "WIDTH HEIGHT COLORS BACKGROUND_RATIO": the number of
 * distinct colours (counted up to 4096) and the share of pixels that have
 * the most common colour. Used by test/report-browser.bats to tell a
 * rendered page from a blank one. Exit 1 on a file it cannot read. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define MAXC 4096

static uint32_t
be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
}

static int
paeth(int a, int b, int c)
{
	int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);

	if (pa <= pb && pa <= pc)
		return a;
	return pb <= pc ? b : c;
}

static int
fail(const char *msg)
{
	fprintf(stderr, "png-check: %s\n", msg);
	return 1;
}

int
main(int argc, char **argv)
{
	static const unsigned char sig[8] = { 137, 'P', 'N', 'G', 13, 10, 26, 10 };
	unsigned char hdr[8], *idat = NULL, *raw, *prev, *cur;
	size_t nidat = 0, rowlen, i;
	uint32_t w = 0, h = 0, y, colors[MAXC], counts[MAXC];
	int bpp = 0, ncol = 0, over = 0;
	uLongf rawlen;
	FILE *f;

	if (argc != 2)
		return fail("usage: png-check FILE.png");
	if (!(f = fopen(argv[1], "rb")) || fread(hdr, 1, 8, f) != 8 ||
	    memcmp(hdr, sig, 8) != 0)
		return fail("not a PNG file");
	for (;;) {
		unsigned char len[8];
		uint32_t n;
		unsigned char *d;

		if (fread(len, 1, 8, f) != 8)
			return fail("truncated");
		n = be32(len);
		if (n > (1u << 30) || !(d = malloc(n + 4)) ||
		    fread(d, 1, n + 4, f) != n + 4)
			return fail("truncated chunk");
		if (memcmp(len + 4, "IHDR", 4) == 0) {
			w = be32(d);
			h = be32(d + 4);
			if (d[8] != 8 || (d[9] != 2 && d[9] != 6) || d[12])
				return fail("only 8-bit RGB/RGBA, not interlaced");
			bpp = d[9] == 6 ? 4 : 3;
		} else if (memcmp(len + 4, "IDAT", 4) == 0) {
			idat = realloc(idat, nidat + n);
			memcpy(idat + nidat, d, n);
			nidat += n;
		} else if (memcmp(len + 4, "IEND", 4) == 0) {
			free(d);
			break;
		}
		free(d);
	}
	fclose(f);
	if (!bpp || !w || !h)
		return fail("no image header");
	rowlen = (size_t)w * bpp;
	rawlen = (uLongf)((rowlen + 1) * h);
	raw = malloc(rawlen);
	if (uncompress(raw, &rawlen, idat, nidat) != Z_OK ||
	    rawlen != (rowlen + 1) * h)
		return fail("bad image data");
	prev = calloc(rowlen, 1);
	memset(counts, 0, sizeof counts);
	for (y = 0; y < h; y++) {
		unsigned char ft = raw[y * (rowlen + 1)];

		cur = raw + y * (rowlen + 1) + 1;
		for (i = 0; i < rowlen; i++) {
			int a = i >= (size_t)bpp ? cur[i - bpp] : 0;
			int b = prev[i];
			int c = i >= (size_t)bpp ? prev[i - bpp] : 0;

			switch (ft) {
			case 0: break;
			case 1: cur[i] += a; break;
			case 2: cur[i] += b; break;
			case 3: cur[i] += (a + b) / 2; break;
			case 4: cur[i] += paeth(a, b, c); break;
			default: return fail("bad filter");
			}
		}
		for (i = 0; i < rowlen; i += bpp) {
			uint32_t px = (uint32_t)cur[i] << 16 |
			    (uint32_t)cur[i + 1] << 8 | cur[i + 2];
			int k;

			for (k = 0; k < ncol && colors[k] != px; k++)
				;
			if (k == ncol) {
				if (ncol == MAXC) {
					over = 1;
					continue;
				}
				colors[ncol++] = px;
			}
			counts[k]++;
		}
		memcpy(prev, cur, rowlen);
	}
	{
		uint32_t best = 0;
		int k;

		for (k = 0; k < ncol; k++)
			if (counts[k] > best)
				best = counts[k];
		printf("%u %u %d%s %.4f\n", w, h, ncol, over ? "+" : "",
		    (double)best / ((double)w * h));
	}
	free(raw);
	free(prev);
	free(idat);
	return 0;
}
