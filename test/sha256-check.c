/* sha256-check: print "HEX  NAME" per file operand like sha256sum(1), or,
 * with -s STRING, the hash of the string; used by test/pd-report.bats to
 * check lib/pd_sha256 against sha256sum and known vectors. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pd_sha256.h"

int
main(int argc, char **argv)
{
	char hex[65];
	int i, rc = 0;

	if (argc == 3 && strcmp(argv[1], "-s") == 0) {
		pd_sha256_hex(argv[2], strlen(argv[2]), hex);
		printf("%s\n", hex);
		return 0;
	}
	for (i = 1; i < argc; i++) {
		if (pd_sha256_file(argv[i], hex, NULL) != 0) {
			fprintf(stderr, "sha256-check: %s: %s\n", argv[i],
			    strerror(errno));
			rc = 1;
			continue;
		}
		printf("%s  %s\n", hex, argv[i]);
	}
	return rc;
}
