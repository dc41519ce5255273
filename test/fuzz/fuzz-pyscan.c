/* libFuzzer target for pd_pyscan (make fuzz): every logical line, checked
 * against the header's promises (strlen(s) == strlen(c) == n, lines in
 * order), and the helpers pd-find-context and pd-inject call on it. */
#include "fuzz.h"
#include "pd_pyscan.h"

static void
line(const struct pd_pyline *l, void *ctx)
{
	long *last = ctx;
	const char *p;

	if (strlen(l->s) != l->n || strlen(l->c) != l->n || l->line < *last)
		abort();
	*last = l->line;
	if ((p = pd_pyscan_tok(l->c, "for", 1)))
		pd_pyscan_line_at(l, p);
	pd_pyscan_line_at(l, l->c + l->n);
	pd_pyscan_optim_step(l->s);
	pd_pyscan_train_step(l->c);
	pd_pyscan_loop_header(l);
	pd_pyscan_starts(l->c, "import");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pd_pylines ls = { 0 };
	long last = 0;

	pd_pyscan_lines((const char *)data, size, line, &last);
	pd_pyscan_all((const char *)data, size, &ls);
	pd_pyscan_free(&ls);
	return 0;
}
