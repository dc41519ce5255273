/* pd_rec: the record stream.
 *
 * Input: JSON Lines on stdin (when no operands, or "-" among them) and/or
 * operands. Every input line is copied to stdout unchanged, byte for byte,
 * as soon as it is read (a final line without a newline gets one). A line
 * that is not a JSON object is forwarded too, with a warning naming its
 * line number, and makes the exit status 3.
 *
 * Output: pd_rec_emit() writes one record per line, compact, keys in
 * insertion order (so build records in the documented order), reals with
 * 15 significant digits.
 *
 * Ownership: functions returning json_t * return a NEW reference unless the
 * comment says "borrowed". pd_rec_emit() steals its argument. */
#ifndef PD_REC_H
#define PD_REC_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

struct pd_stream {
	void *ctx;
	/* Every input JSON object, after it was forwarded (borrowed). */
	int (*on_record)(json_t *rec, void *ctx);
	/* Every pd.root: from the input stream and from located operands
	 * (borrowed). */
	int (*on_root)(json_t *root, void *ctx);
	/* Called for each operand instead of locating roots below it. */
	int (*on_operand)(const char *path, void *ctx);
	/* Once, after all input. */
	int (*on_end)(void *ctx);
	int no_passthrough;	/* do not copy input lines to stdout */
	int no_emit_roots;	/* do not emit pd.root records located from operands */
	int maxdepth;		/* for locating operands; 0 = default */
};

/* Run the stream over the operands (argv[0..argc-1], after option parsing).
 * Returns the exit status so far (see pd_diag). */
int pd_stream_run(struct pd_stream *s, int argc, char **argv);

/* Whether the text [p, e) is one JSON object (blanks around it allowed)
 * that jansson reads, told without building it: 1, with [*tb, *te) its
 * top-level "type" when that is a string without escapes (else both
 * NULL); 0 when only jansson can say (a wrong line, bad UTF-8 or a
 * control character in a string, a \u escape, a number near or past what
 * jansson takes, nesting deeper than 256). The stream uses it to pass
 * over the records a stage forwards without reading them. */
int pd_rec_quick(const char *p, const char *e, const char **tb,
    const char **te);

/* Name of the input being read and its current line (for messages). */
const char *pd_stream_file(void);
long pd_stream_line(void);

/* A new record: {"type":type,"v":v} and, when root is not NULL, "root" and
 * "rank" copied from it (a pd.root or any record carrying them). */
json_t *pd_rec_new(const char *type, int v, json_t *root);

/* Write a record (steals the reference). */
void pd_rec_emit(json_t *rec);
/* The record in its type's one key set (pd.step, pd.comm, pd.mem,
 * pd.input, pd.gaps, pd.hotspot): listed keys in order, null where
 * missing, other keys kept before the last; other types unchanged.
 * Steals rec, returns the record to use. pd_rec_emit applies it. */
json_t *pd_rec_shape(json_t *rec);

/* What the reduce tools (pd-profile, pd-classify, pd-compare, pd-report)
 * keep of an evidence record they hold until the end of their input: the
 * record less its per-event lists that no reduce reads as such (pd.comm
 * collectives, up to 4096 a rank, which pd-profile takes beforehand in a
 * compact form), pd.comm slowest cut to its first entry, and pd.gaps
 * strip (the timeline of one step: pd_runs keeps a few). Without
 * this, 4096 ranks of records held as JSON trees take gigabytes. Changes
 * rec in place; a record of another type is left as it is. */
void pd_rec_trim(json_t *rec);

/* Write one raw line (already a record) to stdout. */
void pd_rec_write_line(const char *line, size_t len);

/* Borrowed lookups with defaults. */
const char *pd_rec_str(json_t *rec, const char *key);	/* NULL if not a string */
int64_t pd_rec_int(json_t *rec, const char *key, int64_t dflt);
double pd_rec_num(json_t *rec, const char *key, double dflt);
int pd_rec_is(json_t *rec, const char *type);

/* Setters that keep call sites short; they steal nothing, copy values.
 * pd_set_real rounds to `dec` decimals first (dec < 0: as is). */
void pd_set_str(json_t *o, const char *key, const char *s);	/* NULL -> null */
/* v when have, else null (a value one family of readers may lack). */
void pd_set_int_if(json_t *o, const char *key, int64_t v, int have);
void pd_set_int(json_t *o, const char *key, int64_t v);
void pd_set_real(json_t *o, const char *key, double v, int dec);
void pd_set_bool(json_t *o, const char *key, int v);
void pd_set_null(json_t *o, const char *key);
/* Steals val. */
void pd_set(json_t *o, const char *key, json_t *val);

/* A real rounded to dec decimals, as a json_t (new reference); NaN/inf -> null. */
json_t *pd_real(double v, int dec);

/* Names are bytes (file names, kernel names, CSV fields); JSON strings are
 * UTF-8. Every string a tool writes goes through pd_str, which keeps valid
 * UTF-8 and writes each other byte b (an invalid sequence, a NUL in
 * pd_strn) as the code point U+10FF00 + b, which pd_str_bytes maps back.
 * The mapping is idempotent: valid U+10FF00..U+10FFFF are kept as they are
 * (and so read back as bytes). See pd-record(5), "Names that are not
 * UTF-8". A name that had to be changed is warned about (the first few).
 *
 * pd_str, pd_strn: new reference; s NULL -> null. */
json_t *pd_str(const char *s);
json_t *pd_strn(const char *s, size_t n);
/* The escaped form as a new NUL-terminated string (malloc), or NULL when s
 * is valid UTF-8 without a NUL in its n bytes and needs no change. */
char *pd_str_escape(const char *s, size_t n);
/* The bytes a written string stands for (a path to open): s itself when it
 * holds no escaped byte, else a decoded copy kept until exit (borrowed).
 * NULL -> NULL. An escaped NUL ends the decoded name (a path has none). */
const char *pd_str_bytes(const char *s);
/* Length of the valid UTF-8 sequence at s (n bytes there), 0 if none (a NUL,
 * a bad, overlong or surrogate sequence, one cut by n). */
size_t pd_utf8_seq(const char *s, size_t n);

/* Walk the objects and arrays in v: a value for which fn gives a new one
 * (a new reference) is replaced by it in its container, never changed in
 * place; one for which it gives NULL is kept, and walked into. */
void pd_json_replace(json_t *v, json_t *(*fn)(json_t *x, void *ctx),
    void *ctx);

/* A new array of the values of arr (an array) or of an object's values in
 * key order of iteration, sorted with cmp (called on json_t *const *). */
json_t *pd_json_sorted(json_t *arr_or_obj, int (*cmp)(const void *, const void *));

#endif
