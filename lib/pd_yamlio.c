#include "pd_atomic.h"
#include "pd_yamlio.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
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

	if (!n || depth > 64)
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

json_t *
pd_yamlio_load(const char *path)
{
	FILE *f = fopen(path, "rb");
	yaml_parser_t parser;
	yaml_document_t doc;
	json_t *r;

	if (!f) {
		pd_error(path, 0, "%s", strerror(errno));
		return NULL;
	}
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_file(&parser, f);
	if (!yaml_parser_load(&parser, &doc)) {
		pd_error(path, (long)parser.problem_mark.line + 1, "%lu: %s",
		    (unsigned long)parser.problem_mark.column + 1,
		    parser.problem ? parser.problem : "YAML error");
		yaml_parser_delete(&parser);
		fclose(f);
		return NULL;
	}
	r = node(&doc, yaml_document_get_root_node(&doc), 0);
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	fclose(f);
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
