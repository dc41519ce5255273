/* Internal interface of pd-inject: finding the step loop and where the
 * prologue goes (loop.c), and building the instrumented text (text.c). */
#ifndef INJECT_H
#define INJECT_H

#include <stddef.h>

enum inj_stack { INJ_TORCH, INJ_NPU, INJ_MS, INJ_NSTACK };

struct inj_plan {
	int stack;		/* from the imports, -1 none */
	int distributed;	/* init_process_group / LOCAL_RANK seen */
	int instrumented;	/* already holds a pd-inject block */
	long loop_line;		/* physical line of the loop header, 0 none */
	const char *why;	/* "train_step" or "loader" */
	size_t iter_beg, iter_end;	/* the iterable, byte offsets */
	size_t prologue_off;	/* where the prologue is inserted */
	char *iterable;		/* the iterable, whitespace collapsed */
};

/* Plan the edit of buf; 0 with plan->loop_line set when a loop was found
 * and its header could be rewritten, -1 otherwise. */
int inj_plan(const char *buf, size_t len, struct inj_plan *plan);
void inj_plan_free(struct inj_plan *plan);

/* A Python string literal for s, plain ASCII with no control character
 * (new string): safe in code and in a comment. */
char *inj_pystr(const char *s);
/* The template text with every @NAME@ in names replaced by values[i] (new
 * string, NULL when the file cannot be read). */
char *inj_template(const char *path, const char **names,
    const char **values);

#endif
