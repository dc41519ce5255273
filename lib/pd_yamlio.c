#include "pd_atomic.h"
#include "pd_yamlio.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "pd_diag.h"

static json_t *
scalar(yaml_node_t *n)
{
	const char *s = (const char *)n->data.scalar.value;
	char *end;

	if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return json_string(s);
	if (!*s || strcmp(s, "~") == 0 || strcmp(s, "null") == 0)
		return json_null();
	if (strcmp(s, "true") == 0)
		return json_true();
	if (strcmp(s, "false") == 0)
		return json_false();
	errno = 0;
	long long i = strtoll(s, &end, 10);
	if (!*end && !errno)
		return json_integer(i);
	double d = strtod(s, &end);
	if (!*end && end != s && isfinite(d))
		return json_real(d);
	return json_string(s);
}

static json_t *
node(yaml_document_t *doc, yaml_node_t *n, int depth)
{
	json_t *o;

	if (!n || depth > PD_YAMLIO_MAX_DEPTH)
		return json_null();
	switch (n->type) {
	case YAML_SCALAR_NODE:
		return scalar(n);
	case YAML_SEQUENCE_NODE: {
		yaml_node_item_t *it;

		o = json_array();
		for (it = n->data.sequence.items.start;
		    it < n->data.sequence.items.top; it++)
			json_array_append_new(o, node(doc,
			    yaml_document_get_node(doc, *it), depth + 1));
		return o;
	}
	case YAML_MAPPING_NODE: {
		yaml_node_pair_t *p;

		o = json_object();
		for (p = n->data.mapping.pairs.start;
		    p < n->data.mapping.pairs.top; p++) {
			yaml_node_t *k = yaml_document_get_node(doc, p->key);

			if (!k || k->type != YAML_SCALAR_NODE)
				continue;
			json_object_set_new(o, (const char *)k->data.scalar.value,
			    node(doc, yaml_document_get_node(doc, p->value),
			    depth + 1));
		}
		return o;
	}
	default:
		return json_null();
	}
}

struct chk {
	const char *path;
	yaml_document_t *doc;
	unsigned char *state;	/* 0 not seen, 1 being walked, 2 done */
	size_t *size;		/* the nodes a done node expands to */
	size_t limit;
	int errors;
};

static void __attribute__((format(printf, 3, 4)))
chk_error(struct chk *c, yaml_node_t *n, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	pd_error(NULL, 0, "%s:%lu:%lu: %s", c->path,
	    (unsigned long)n->start_mark.line + 1,
	    (unsigned long)n->start_mark.column + 1, msg);
	c->errors++;
}

struct key {
	const char *s;
	size_t i;
};

static int
key_cmp(const void *a, const void *b)
{
	const struct key *x = a, *y = b;
	int r = strcmp(x->s, y->s);

	return r ? r : (x->i > y->i) - (x->i < y->i);
}

/* Every key of mapping n that an earlier key of n gave already (keys are
 * compared as the loaders use them: as C strings). */
static void
dup_keys(struct chk *c, yaml_node_t *n)
{
	yaml_node_pair_t *pair = n->data.mapping.pairs.start;
	size_t np = (size_t)(n->data.mapping.pairs.top - pair), i, k = 0;
	struct key *v;
	size_t *first;	/* per pair: the pair whose key it repeats */

	if (np < 2)
		return;
	if (!(v = malloc(np * sizeof *v)) || !(first = malloc(np *
	    sizeof *first)))
		pd_oom();
	for (i = 0; i < np; i++) {
		yaml_node_t *kn = yaml_document_get_node(c->doc, pair[i].key);

		first[i] = i;
		if (kn && kn->type == YAML_SCALAR_NODE) {
			v[k].s = (const char *)kn->data.scalar.value;
			v[k++].i = i;
		}
	}
	qsort(v, k, sizeof *v, key_cmp);
	for (i = 1; i < k; i++)
		if (!strcmp(v[i].s, v[i - 1].s))
			first[v[i].i] = first[v[i - 1].i];
	for (i = 0; i < np; i++)
		if (first[i] != i) {
			yaml_node_t *kn = yaml_document_get_node(c->doc,
			    pair[i].key), *fn = yaml_document_get_node(c->doc,
			    pair[first[i]].key);

			chk_error(c, kn, "key %s given twice (first at %lu:%lu)",
			    pd_diag_quote((const char *)kn->data.scalar.value,
			    (size_t)-1), (unsigned long)fn->start_mark.line + 1,
			    (unsigned long)fn->start_mark.column + 1);
		}
	free(v);
	free(first);
}

static size_t walk(struct chk *, int, int);

/* Adds the expansion of node id to *sum; 0 after an error that ends the
 * walk. */
static int
add(struct chk *c, yaml_node_t *n, int id, int depth, size_t *sum)
{
	size_t k = walk(c, id, depth + 1);

	if (!k)
		return 0;
	*sum += k;
	if (*sum > c->limit) {
		chk_error(c, n, "aliases expand the document past %zu nodes",
		    c->limit);
		return 0;
	}
	return 1;
}

/* The nodes that node id expands to, every alias counted as a copy of
 * what it names; 0 after an error that ends the walk. */
static size_t
walk(struct chk *c, int id, int depth)
{
	yaml_node_t *n = yaml_document_get_node(c->doc, id);
	size_t i = (size_t)id - 1, sum = 1;

	if (!n)
		return 1;
	if (c->state[i] == 2)
		return c->size[i];
	if (c->state[i] == 1) {
		chk_error(c, n, "an alias inside the node it names");
		return 0;
	}
	if (depth > PD_YAMLIO_MAX_DEPTH) {
		chk_error(c, n, "nested deeper than %d levels",
		    PD_YAMLIO_MAX_DEPTH);
		return 0;
	}
	c->state[i] = 1;
	if (n->type == YAML_SEQUENCE_NODE) {
		yaml_node_item_t *it;

		for (it = n->data.sequence.items.start;
		    it < n->data.sequence.items.top; it++)
			if (!add(c, n, *it, depth, &sum))
				return 0;
	} else if (n->type == YAML_MAPPING_NODE) {
		yaml_node_pair_t *p;

		dup_keys(c, n);
		for (p = n->data.mapping.pairs.start;
		    p < n->data.mapping.pairs.top; p++) {
			yaml_node_t *kn = yaml_document_get_node(c->doc,
			    p->key);

			/* The loaders take keys as strings: a list or a
			 * mapping as a key would be dropped. */
			if (kn && kn->type != YAML_SCALAR_NODE)
				chk_error(c, kn, "a key must be a plain value, "
				    "not a %s", kn->type == YAML_SEQUENCE_NODE ?
				    "list" : "mapping");
			if (!add(c, n, p->key, depth, &sum) ||
			    !add(c, n, p->value, depth, &sum))
				return 0;
		}
	}
	c->state[i] = 2;
	c->size[i] = sum;
	return sum;
}

static int
check(const char *path, yaml_document_t *doc)
{
	size_t nn = (size_t)(doc->nodes.top - doc->nodes.start);
	struct chk c = { path, doc, calloc(nn + 1, 1),
	    calloc(nn + 1, sizeof (size_t)), nn > PD_YAMLIO_MAX_NODES ? nn :
	    PD_YAMLIO_MAX_NODES, 0 };

	if (!c.state || !c.size)
		pd_oom();
	if (nn)
		walk(&c, 1, 0);
	free(c.state);
	free(c.size);
	return c.errors ? -1 : 0;
}

/* Load the first document from a parser set on its input. */
static int
parse(const char *path, yaml_parser_t *parser, yaml_document_t *doc)
{
	if (!yaml_parser_load(parser, doc)) {
		pd_error(NULL, 0, "%s:%lu:%lu: %s%s%s", path,
		    (unsigned long)parser->problem_mark.line + 1,
		    (unsigned long)parser->problem_mark.column + 1,
		    parser->problem ? parser->problem : "YAML error",
		    parser->context ? " " : "",
		    parser->context ? parser->context : "");
		return -1;
	}
	if (check(path, doc) != 0) {
		yaml_document_delete(doc);
		return -1;
	}
	return 0;
}

int
pd_yamlio_parse(const char *path, yaml_document_t *doc)
{
	FILE *f = fopen(path, "rb");
	yaml_parser_t parser;
	int r;

	if (!f) {
		pd_error(path, 0, "%s", strerror(errno));
		return -1;
	}
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_file(&parser, f);
	r = parse(path, &parser, doc);
	yaml_parser_delete(&parser);
	fclose(f);
	return r;
}

int
pd_yamlio_parse_mem(const char *path, const void *text, size_t len,
    yaml_document_t *doc)
{
	yaml_parser_t parser;
	int r;

	yaml_parser_initialize(&parser);
	yaml_parser_set_input_string(&parser, text, len);
	r = parse(path, &parser, doc);
	yaml_parser_delete(&parser);
	return r;
}

json_t *
pd_yamlio_load(const char *path)
{
	yaml_document_t doc;
	json_t *r;

	if (pd_yamlio_parse(path, &doc) != 0)
		return NULL;
	r = node(&doc, yaml_document_get_root_node(&doc), 0);
	yaml_document_delete(&doc);
	return r;
}

struct buf {
	char *p;
	size_t n, cap;
};

static int
buf_write(void *data, unsigned char *s, size_t size)
{
	struct buf *b = data;

	if (b->n + size + 1 > b->cap) {
		b->cap = (b->n + size + 1) * 2;
		b->p = realloc(b->p, b->cap);
	}
	memcpy(b->p + b->n, s, size);
	b->n += size;
	return 1;
}

/* A string that a YAML reader would take for another type. */
static int
ambiguous(const char *s)
{
	json_t *v;
	yaml_node_t n;
	int r;

	memset(&n, 0, sizeof n);
	n.type = YAML_SCALAR_NODE;
	n.data.scalar.value = (yaml_char_t *)s;
	n.data.scalar.style = YAML_PLAIN_SCALAR_STYLE;
	v = scalar(&n);
	r = !json_is_string(v) || !strcmp(s, "yes") || !strcmp(s, "no");
	json_decref(v);
	return r;
}

/* plain: a number/boolean/null token; otherwise a string, plain when
 * libyaml finds that safe, double-quoted when it would read as another
 * type. */
static int
emit_scalar(yaml_emitter_t *e, const char *s, int plain)
{
	yaml_event_t ev;
	int quote = !plain && ambiguous(s);

	yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s,
	    (int)strlen(s), !quote, 1, plain ? YAML_PLAIN_SCALAR_STYLE :
	    quote ? YAML_DOUBLE_QUOTED_SCALAR_STYLE : YAML_ANY_SCALAR_STYLE);
	return yaml_emitter_emit(e, &ev);
}

static int
emit_value(yaml_emitter_t *e, json_t *v)
{
	yaml_event_t ev;
	char num[64];

	switch (json_typeof(v)) {
	case JSON_OBJECT: {
		const char *k;
		json_t *x;

		yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
		    YAML_BLOCK_MAPPING_STYLE);
		if (!yaml_emitter_emit(e, &ev))
			return 0;
		json_object_foreach(v, k, x)
			if (!emit_scalar(e, k, 0) || !emit_value(e, x))
				return 0;
		yaml_mapping_end_event_initialize(&ev);
		return yaml_emitter_emit(e, &ev);
	}
	case JSON_ARRAY: {
		size_t i;
		json_t *x;
		int flow = 1;

		json_array_foreach(v, i, x)
			flow &= !json_is_object(x) && !json_is_array(x);
		yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1,
		    flow ? YAML_FLOW_SEQUENCE_STYLE : YAML_BLOCK_SEQUENCE_STYLE);
		if (!yaml_emitter_emit(e, &ev))
			return 0;
		json_array_foreach(v, i, x)
			if (!emit_value(e, x))
				return 0;
		yaml_sequence_end_event_initialize(&ev);
		return yaml_emitter_emit(e, &ev);
	}
	case JSON_STRING:
		return emit_scalar(e, json_string_value(v), 0);
	case JSON_INTEGER:
		snprintf(num, sizeof num, "%" JSON_INTEGER_FORMAT,
		    json_integer_value(v));
		return emit_scalar(e, num, 1);
	case JSON_REAL:
		snprintf(num, sizeof num, "%.15g", json_real_value(v));
		if (!strpbrk(num, ".eEn"))
			strcat(num, ".0");
		return emit_scalar(e, num, 1);
	case JSON_TRUE:
		return emit_scalar(e, "true", 1);
	case JSON_FALSE:
		return emit_scalar(e, "false", 1);
	default:
		return emit_scalar(e, "null", 1);
	}
}

static int
to_yaml(json_t *doc, struct buf *b)
{
	yaml_emitter_t e;
	yaml_event_t ev;
	int ok;

	yaml_emitter_initialize(&e);
	yaml_emitter_set_output(&e, buf_write, b);
	yaml_emitter_set_unicode(&e, 1);
	yaml_emitter_set_width(&e, 100);
	yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
	ok = yaml_emitter_emit(&e, &ev);
	yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 0);
	ok = ok && yaml_emitter_emit(&e, &ev) && emit_value(&e, doc);
	yaml_document_end_event_initialize(&ev, 1);
	ok = ok && yaml_emitter_emit(&e, &ev);
	yaml_stream_end_event_initialize(&ev);
	ok = ok && yaml_emitter_emit(&e, &ev);
	yaml_emitter_delete(&e);
	return ok ? 0 : -1;
}

int
pd_yamlio_write(const char *dir, const char *name, json_t *doc)
{
	struct buf b = { NULL, 0, 0 };
	int r;

	if (to_yaml(doc, &b) != 0) {
		free(b.p);
		pd_error(dir, 0, "%s: cannot emit YAML", name);
		return -1;
	}
	r = pd_atomic_write(dir, name, b.p, b.n);
	free(b.p);
	return r;
}
