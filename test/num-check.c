/* num-check: parse each argument as decimal µs -> ns and print
 * "<text> -> <ns> <code>" (code: ok, missing, bad, inexact).
 * num-check -i: as an integer (pd_num_int) instead. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "pd_num.h"

int
main(int argc, char **argv)
{
	int i = 1, as_int = argc > 1 && strcmp(argv[1], "-i") == 0;

	for (i += as_int; i < argc; i++) {
		int64_t ns = 0;
		int rc = as_int ? pd_num_int(argv[i], strlen(argv[i]), &ns) :
		    pd_num_us_to_ns(argv[i], strlen(argv[i]), &ns);
		const char *code = rc == PD_NUM_OK ? "ok" : rc == PD_NUM_MISSING ?
		    "missing" : rc == PD_NUM_INEXACT ? "inexact" : "bad";
		if (rc == PD_NUM_OK || rc == PD_NUM_INEXACT)
			printf("%s -> %" PRId64 " %s\n", argv[i], ns, code);
		else
			printf("%s -> - %s\n", argv[i], code);
	}
	return 0;
}
