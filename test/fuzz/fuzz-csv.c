/* libFuzzer target for the CSV reader (make fuzz). */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz.h"
#include "pd_csv.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pd_csv *c = pd_csv_mem((const char *)data, size, "fuzz");
	int n, i;
	int64_t ns;

	if (!c)
		return 0;
	pd_csv_header(c);
	pd_csv_col(c, "Step", "Name", NULL);
	while ((n = pd_csv_next(c)) > 0 || n == -2) {
		for (i = 0; i < pd_csv_nfields(c); i++)
			pd_csv_us_ns(c, i, &ns);
		if (n == -2)
			break;
	}
	pd_csv_close(c);
	return 0;
}
