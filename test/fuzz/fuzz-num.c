/* libFuzzer target for the pd_num parsers (make fuzz): field values as the
 * CSV and trace readers hand them over (not NUL-terminated), and option
 * values as the tools read them (NUL-terminated). */
#include "fuzz.h"
#include <limits.h>

#include "pd_num.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *b = (const char *)data;
	char *s;
	int64_t v;
	double d;
	long long ll;

	pd_num_us_to_ns(b, size, &v);
	pd_num_int(b, size, &v);
	if (pd_num_double(b, size, &d) == PD_NUM_OK)
		pd_num_round_i64(d, &v);
	pd_num_is_missing(b, size);
	s = fuzz_str(data, size);
	pd_num_opt_int(s, -1000, 1000, &ll);
	pd_num_opt_int(s, LLONG_MIN, LLONG_MAX, &ll);
	pd_num_opt_real(s, 0, 1, &d);
	pd_num_opt_real(s, -1e300, 1e300, &d);
	free(s);
	return 0;
}
