/* Internal interface of pd-find-context: a workspace walk (walk.c), a
 * Python line scanner (py.c), a shell scanner (sh.c) and a log scanner
 * (logs.c), all filling one struct fc_ws that pd-find-context.c turns into
 * records. Every json_t * stored in these structs is owned by the struct. */
#ifndef FC_H
#define FC_H

#include <jansson.h>
#include <stddef.h>

#include "pd_rec.h"

#define FC_MAXBYTES (4L << 20)	/* larger files are skipped with a note */
#define FC_MAXEV 20		/* evidence entries kept per list */
#define FC_MAXMETRICS 20	/* figures kept per log file and metric name */

enum fc_kind { FC_OTHER, FC_PY, FC_SH, FC_LOG, FC_CONF, FC_LOCK };
enum fc_stack { FC_MS, FC_NPU, FC_TORCH, FC_NSTACK };

/* What one Python file says (pass 1, every .py file). */
struct fc_py {
	json_t *imp[FC_NSTACK];	/* import evidence per stack */
	json_t *train, *infer;	/* workload cue evidence */
	json_t *device;		/* .cuda() / .to('cuda') / .npu() evidence */
	json_t *mods;		/* imported module names (strings) */
	long guard;		/* line of if __name__ == "__main__", 0 none */
	long conv;		/* first conv-net cue */
	long bench_true, bench_false;	/* cudnn.benchmark = True / False */
	int amp;		/* an autocast / AMP / fp16 / bf16 cue */
	int accel;		/* mentions cuda or npu */
};

struct fc_file {
	char *rel;		/* relative to the workspace root */
	char *abs;
	int kind, depth;
	int launched;		/* named by a launcher command */
	int config;		/* reported as a config file */
	struct fc_py py;
};

struct fc_ws {
	char *root;		/* absolute */
	int maxdepth;
	struct fc_file *f;
	size_t n, cap;
	json_t *skipped;	/* [{file, reason}] */
	json_t *devices;	/* visible_devices */
	json_t *metrics;
	long metrics_omitted;
	const char *launcher;	/* static string */
	int launch_prio;
	json_t *world_size;	/* integer or null */
	json_t *launch_ev;	/* {file, line, text} or NULL */
	long rank_size;		/* RANK_SIZE / WORLD_SIZE in a script, -1 */
	int amp;		/* AMP cue in a shell script or config */
};

/* A file's lines: line n (1-based) is buf[off[n-1]] up to its newline. */
struct fc_text {
	const char *buf;
	size_t len;
	size_t *off;
	long n;
};

/* walk.c */
int fc_walk(struct fc_ws *w);
/* Note a file in the record's skipped list. */
void fc_skip(struct fc_ws *w, const char *rel, const char *why);
/* Read a file whole; 0 ok, -1 rejected (warned, counted, skipped). */
int fc_read(struct fc_ws *w, struct fc_file *f, char **buf, size_t *len);
void fc_text_init(struct fc_text *t, const char *buf, size_t len);
void fc_text_free(struct fc_text *t);
/* Line n, trimmed, as a new JSON string (bounded, valid UTF-8). */
json_t *fc_text_line(const struct fc_text *t, long n);
/* A new JSON string from arbitrary bytes: invalid UTF-8 becomes '?',
 * cut at max bytes (0: no limit). */
json_t *fc_jstr(const char *s, size_t n, size_t max);
/* {file, line, text} (new reference). */
json_t *fc_ev(const struct fc_file *f, const struct fc_text *t, long line);
void fc_ev_add(json_t *arr, json_t *ev);	/* steals; keeps FC_MAXEV */
/* Index of the file a script's reference names (relative to the root,
 * then to the script's directory), of the given kind (0: any); -1. */
long fc_resolve(struct fc_ws *w, const struct fc_file *from,
    const char *name, int kind);
int fc_conf_ext(const char *name);
void fc_add_config(struct fc_ws *w, const struct fc_file *from,
    const char *name);

/* text helpers (py.c) */
int fc_ident(int c);
/* First occurrence of pat in s with no identifier char before it (when pat
 * starts with one) and, when whole is set, none after it. */
const char *fc_tok(const char *s, const char *pat, int whole);
int fc_amp_cue(const char *s);
int fc_devvar(const char *s, size_t n);	/* a visibility variable name */

/* py.c */
void fc_py_scan(struct fc_ws *w, struct fc_file *f, const char *buf,
    size_t len);
struct fc_job {
	int stack;		/* enum fc_stack, or -1 unknown */
	int accel, amp, bench_true;
	long bench_false;
	const struct fc_file *conv_file;
	long conv_line;
};
/* Static checks of a file; no_amp only when it is an entry script. */
void fc_py_check(struct fc_ws *w, const struct fc_file *f, const char *buf,
    size_t len, const struct fc_job *job, int entry, json_t *findings);
/* The cudnn_benchmark finding: {check, file, line, severity, text, hint},
 * for the setting absent or (off) set False. */
json_t *fc_finding_bench(const struct fc_file *f, long line, int off);

/* sh.c */
void fc_sh_scan(struct fc_ws *w, struct fc_file *f, const char *buf,
    size_t len);

/* logs.c */
int fc_log_init(void);
void fc_log_scan(struct fc_ws *w, const struct fc_file *f, const char *buf,
    size_t len);
void fc_conf_scan(struct fc_ws *w, const struct fc_file *f, const char *buf,
    size_t len);

#endif
