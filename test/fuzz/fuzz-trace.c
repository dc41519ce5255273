/* libFuzzer target for the hand-written trace scanner (make fuzz).
 * Besides crashes and sanitizer reports, it checks that every event handed
 * out has a raw span inside the input, args and id spans inside that, a
 * numeric pid/tid equal to what pd_num reads in its text, and that args
 * lookups stay inside. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "pd_num.h"
#include "pd_trace.h"

static int
ev(const struct pd_ev *e, void *ctx)
{
	char buf[64];
	int64_t v;
	double d;

	(void)ctx;
	if (e->raw_len == 0 || e->raw[0] != '{' || e->raw[e->raw_len - 1] != '}')
		abort();
	/* a skipped value only counts brackets: "{...]" closes too */
	if (e->args && (e->args <= e->raw || e->args + e->args_len >
	    e->raw + e->raw_len || e->args[0] != '{' ||
	    (e->args[e->args_len - 1] != '}' &&
	    e->args[e->args_len - 1] != ']')))
		abort();
	if (e->id && (e->id <= e->raw || e->id + e->id_len >
	    e->raw + e->raw_len))
		abort();
	/* a pid/tid the scanner read as a number is the number pd_num
	 * reads in its text */
	if (e->pid_is_num && (pd_num_int(e->pid, strlen(e->pid), &v) !=
	    PD_NUM_OK || v != e->pid_num))
		abort();
	if (e->tid_is_num && (pd_num_int(e->tid, strlen(e->tid), &v) !=
	    PD_NUM_OK || v != e->tid_num))
		abort();
	pd_ev_arg_int(e, "correlation", &v);
	pd_ev_arg_double(e, "Bytes", &d);
	pd_ev_arg_str(e, "name", buf, sizeof buf);
	json_decref(pd_ev_args_json(e));
	return 0;
}

static void
meta(const char *key, json_t *v, void *ctx)
{
	(void)key;
	(void)v;
	(void)ctx;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pd_trace_cb cb = { NULL, ev, meta, NULL };
	struct pd_trace_stats st;

	pd_trace_read_mem((const char *)data, size, &cb, &st);
	return 0;
}
