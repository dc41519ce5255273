/* zread-dump: files through pd_file_zread, as the trace reader reads them.
 *
 *   zread-dump [-b BYTES] FILE
 *   zread-dump [-b BYTES] -o DIR FILE...
 *
 * Writes the bytes read to stdout (with -o, each FILE's to DIR/NAME.out,
 * NAME its last path component), BYTES (default 65536, at most 1 MiB)
 * asked for at a time, then one line for each FILE, on stderr (with -o,
 * on stdout, "NAME: " first): "engine E status S (W) bytes N": E what
 * inflated it (pd_file_zengine), S and W its pd_file_zstatus and
 * pd_file_zwhat, N the bytes read. Exit 0, or 1 when a file cannot be
 * opened or read. Tests run it with PD_INFLATE=zlib and without and
 * compare the two. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pd_file.h"

static int
dump(const char *path, size_t b, FILE *out, FILE *msg, const char *name)
{
	static char buf[1 << 20];
	unsigned long long total = 0;
	struct pd_zfile *z;
	long n;

	if (!(z = pd_file_zopen(path))) {
		perror(path);
		return 1;
	}
	while ((n = pd_file_zread(z, buf, b)) > 0) {
		fwrite(buf, 1, (size_t)n, out);
		total += (unsigned long long)n;
	}
	if (name)
		fprintf(msg, "%s: ", name);
	fprintf(msg, "engine %s status %d (%s) bytes %llu\n",
	    pd_file_zengine(z), pd_file_zstatus(z),
	    pd_file_zwhat(pd_file_zstatus(z)), total);
	pd_file_zclose(z);
	return n < 0;
}

int
main(int argc, char **argv)
{
	const char *dir = NULL;
	size_t b = 65536;
	int c, rc = 0;

	while ((c = getopt(argc, argv, "b:o:")) != -1) {
		if (c == 'b')
			b = (size_t)strtoul(optarg, NULL, 10);
		else if (c == 'o')
			dir = optarg;
		else
			return 2;
	}
	if (optind >= argc || (!dir && optind != argc - 1) || b == 0 ||
	    b > (1 << 20))
		return 2;
	if (!dir)
		return dump(argv[optind], b, stdout, stderr, NULL);
	for (; optind < argc; optind++) {
		const char *name = strrchr(argv[optind], '/');
		char out[4096];
		FILE *f;

		name = name ? name + 1 : argv[optind];
		snprintf(out, sizeof out, "%s/%s.out", dir, name);
		if (!(f = fopen(out, "wb"))) {
			perror(out);
			return 1;
		}
		rc |= dump(argv[optind], b, f, stdout, name);
		if (fclose(f) != 0)
			rc = 1;
	}
	return rc;
}
