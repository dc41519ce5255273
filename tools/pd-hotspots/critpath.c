/* critpath: the critical path of a Kineto trace, after HTA 0.6.1's
 * critical_path_analysis (the facts are taken from it; the code is ours).
 *
 * Every CPU op and launch/runtime call and every GPU activity becomes two
 * nodes (its start and end). Edges: an op's or kernel's span (weight:
 * its duration, or the part between two nested ops), operator nesting
 * and sequence on a CPU thread (a DFS over the thread's call stack;
 * consecutive top-level ops are linked with weight 0), the CUDA runtime
 * lock between overlapping cudaLaunchKernel/cudaMemcpyAsync/cudaHostAlloc
 * calls, the launch (call start -> kernel start) when the stream was empty,
 * else the gap to the previous kernel of the stream (under 1.5 ms), and
 * zero-weight sync edges: the last kernel of a stream to the end of the
 * cudaStreamSynchronize / cudaDeviceSynchronize that waited for it, the
 * kernel before a cudaEventRecord to the cudaEventSynchronize (or
 * cudaEventQuery) on that event, and to the next kernel launched after a
 * cudaStreamWaitEvent on it (the cuda_sync events name the event by the
 * correlation id of its record). A blocking call's own span weighs 0:
 * its time is the GPU's. The longest path of this DAG is the critical
 * path; each of its edges is bound by the CPU, the GPU, a launch or a
 * kernel-kernel gap.
 *
 * Memory: while reading, each event coded in about 20 bytes, past 256 KiB
 * in a temporary file (pd_spill); then the events kept (80 bytes each),
 * the nodes and the edges. Past max_events only one ProfilerStep (the
 * median one by duration) is kept, and when the trace has steps already
 * past step_events (fewer: a quarter of the memory). */
#include "critpath.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pd_diag.h"
#include "pd_i64map.h"
#include "pd_kineto.h"
#include "pd_msort.h"
#include "pd_rec.h"
#include "pd_spill.h"

#define CP_MAX_EVENTS 1000000
#define CP_STEP_EVENTS 250000	/* with steps, past this only one is kept */
#define REC_MAX 128		/* the longest coded event: 1 + 11 x 10 bytes */
#define KK_DELAY_NS 1500000	/* HTA's KERNEL_KERNEL_DELAY_THRESHOLD_US */

enum { K_OP, K_RT, K_ANNOT, K_GPU, K_SYNC };	/* event kinds */
enum { E_OP, E_DEP, E_LAUNCH, E_KK, E_SYNC };	/* edge types */
enum {
	B_CPU, B_DATA, B_COMPUTE, B_COMM, B_KK, B_LAUNCH, NBOUND
};
static const char *bound_name[NBOUND] = {
	"cpu_bound", "data_loading", "gpu_compute_bound",
	"gpu_communication_bound", "gpu_kernel_kernel_overhead",
	"gpu_kernel_launch_overhead"
};

/* Name flags. */
enum {
	N_LOCK = 1,		/* takes the CUDA runtime lock */
	N_BLOCK = 2,		/* a blocking call */
	N_LAUNCH = 4,		/* launches a kernel, memcpy or memset */
	N_RECORD = 8,		/* cudaEventRecord */
	N_SWE = 16,		/* "Stream Wait Event" */
	N_DEVSYNC = 32,		/* "Event Sync", "Context Sync" (stream -1) */
	N_STREAMSYNC = 64,	/* "Stream Sync" */
	N_FWD = 128,		/* contains "forward" */
	N_BWD = 256,		/* contains "autograd" */
	N_DATA = 512,		/* DataLoader */
	N_COMM = 1024,		/* communication kernel */
	N_EVSYNC = 2048,	/* "Event Sync" */
	N_CTXSYNC = 4096	/* "Context Sync" */
};

struct cev {
	int64_t ts, dur;
	int64_t corr, wait_corr, wait_stream;
	int64_t stream;		/* -1 on the CPU */
	int64_t pid;		/* device of a GPU event */
	uint32_t name, thread, seq;
	uint8_t kind, kc;
};

struct cthread {
	int64_t pid, tid;
};

struct cnode {
	int64_t ts;
	uint32_t ev;
	uint8_t start;
};

struct cedge {
	uint32_t u, v;
	int64_t w;
	int32_t attr;		/* event the time is attributed to, -1 none */
	uint8_t type;
};

struct cp {
	const struct pd_patterns *comm;
	uint64_t max;
	json_t *index;		/* name -> index */
	struct pd_idmemo ids;	/* ev->name_id -> index */
	char **names;
	unsigned *nflag;
	size_t nnames, capnames;
	struct cev *ev;
	size_t nev, capev;
	struct cthread *th;
	size_t nth, capth, lastth;
	struct pd_ksteps steps;
	struct pd_spill sp;	/* the events of the reading, coded */
	struct cev prev;	/* the last one: the next is coded against it */
	uint64_t stepmax;	/* with steps, more than this: one kept */
	int over;		/* more than max events came */
	int pass;		/* 1: one step kept */
	int end;		/* cp_end was called */
	int done;		/* the events are in ev (finish) */
	int err;		/* errno of the spill, 0 */
	int64_t ws, we;		/* the step window of the second reading */
	int64_t step;

	/* the graph */
	struct cnode *node;
	size_t nnode;
	int32_t *snode, *enode;	/* event -> start / end node, -1 */
	int32_t *xcorr;		/* event -> correlated event, -1 */
	int32_t *parent;	/* call-stack parent, -1 */
	struct cedge *edge;
	size_t nedge, capedge;
	uint64_t negative;

	/* the path by name, kept after cp_json (have: a path was built) */
	int have;
	int64_t total;
	int64_t *kns;		/* name -> time of its GPU activities' spans */
	int64_t (*opb)[NBOUND];	/* name -> time of the CPU op, by bound */
};

static const char *const launch_names[] = {
	"cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel",
	"cuLaunchKernelEx", "cudaMemcpyAsync", "cudaMemsetAsync",
	"hipLaunchKernel", "hipExtModuleLaunchKernel", "hipMemsetAsync",
	"hipMemcpyAsync", "hipMemcpyWithStream", NULL
};
static const char *const block_names[] = {
	"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventQuery",
	"cudaEventSynchronize", "cudaMemcpy", "cudaMemcpyAsync", NULL
};
static const char *const lock_names[] = {
	"cudaHostAlloc", "cudaLaunchKernel", "cudaMemcpyAsync", NULL
};

static int
in(const char *const *l, const char *s)
{
	for (; *l; l++)
		if (strcmp(*l, s) == 0)
			return 1;
	return 0;
}

static uint32_t
intern(struct cp *c, const char *name)
{
	json_t *v = json_object_get(c->index, name);
	unsigned f = 0;
	size_t i;

	if (v)
		return (uint32_t)json_integer_value(v);
	if (c->nnames == c->capnames) {
		c->capnames = c->capnames ? c->capnames * 2 : 64;
		c->names = pd_xrealloc(c->names, c->capnames * sizeof *c->names);
		c->nflag = pd_xrealloc(c->nflag, c->capnames * sizeof *c->nflag);
	}
	i = c->nnames++;
	c->names[i] = pd_xstrdup(name);
	f |= in(lock_names, name) ? N_LOCK : 0;
	f |= in(block_names, name) ? N_BLOCK : 0;
	f |= in(launch_names, name) ? N_LAUNCH : 0;
	f |= strcmp(name, "cudaEventRecord") == 0 ? N_RECORD : 0;
	f |= strcmp(name, "Stream Wait Event") == 0 ? N_SWE : 0;
	f |= strcmp(name, "Event Sync") == 0 ? N_DEVSYNC | N_EVSYNC : 0;
	f |= strcmp(name, "Context Sync") == 0 ? N_DEVSYNC | N_CTXSYNC : 0;
	f |= strcmp(name, "Stream Sync") == 0 ? N_STREAMSYNC : 0;
	f |= strstr(name, "forward") ? N_FWD : 0;
	f |= strstr(name, "autograd") ? N_BWD : 0;
	f |= pd_kineto_is_dataloader(name) ? N_DATA : 0;
	f |= pd_patterns_match(c->comm, name) ? N_COMM : 0;
	c->nflag[i] = f;
	json_object_set_new_nocheck(c->index, name, json_integer((json_int_t)i));
	return (uint32_t)i;
}

/* intern(ev->name), by the number the reader gave the name when it did */
static uint32_t
intern_ev(struct cp *c, const struct pd_ev *ev)
{
	int32_t i = pd_idmemo_get(&c->ids, ev, ev->name_id);
	uint32_t n;

	if (i >= 0)
		return (uint32_t)i;
	n = intern(c, ev->name);
	if (n < INT32_MAX)
		pd_idmemo_set(&c->ids, ev, ev->name_id, (int32_t)n);
	return n;
}

struct cp *
cp_new(const struct pd_patterns *comm, uint64_t max_events,
    uint64_t step_events)
{
	struct cp *c = pd_xcalloc(1, sizeof *c);

	c->comm = comm;
	c->max = max_events ? max_events : CP_MAX_EVENTS;
	/* a bound set alone is the bound with steps too */
	c->stepmax = step_events ? step_events : max_events ? c->max :
	    CP_STEP_EVENTS;
	if (c->stepmax > c->max)
		c->stepmax = c->max;
	c->index = json_object();
	c->step = -1;
	return c;
}

static uint32_t
thread_of(struct cp *c, const struct pd_ev *ev)
{
	int64_t pid = ev->pid_is_num ? ev->pid_num : -1;
	int64_t tid = ev->tid_is_num ? ev->tid_num : -1;
	size_t i;

	if (c->lastth < c->nth && c->th[c->lastth].pid == pid &&
	    c->th[c->lastth].tid == tid)
		return (uint32_t)c->lastth;
	for (i = 0; i < c->nth; i++)
		if (c->th[i].pid == pid && c->th[i].tid == tid)
			break;
	if (i == c->nth) {
		if (c->nth == c->capth) {
			c->capth = c->capth ? c->capth * 2 : 8;
			c->th = pd_xrealloc(c->th, c->capth * sizeof *c->th);
		}
		c->th[i].pid = pid;
		c->th[i].tid = tid;
		c->nth++;
	}
	c->lastth = i;
	return (uint32_t)i;
}

static int64_t
arg_int(const char *v, size_t len, int64_t dflt)
{
	int64_t x;

	return v && pd_kineto_raw_int(v, len, &x) ? x : dflt;
}

/* ---- the events of the reading ---- */

static void
spill_add(struct cp *c, const struct cev *e)
{
	unsigned char *p = pd_spill_reserve(&c->sp, REC_MAX);
	struct cev *q = &c->prev;

	*p++ = (unsigned char)(e->kind | e->kc << 3);
	p = pd_spill_put_u(p, (uint32_t)(e->seq - q->seq));
	p = pd_spill_put_d(p, e->ts, q->ts);
	p = pd_spill_put_d(p, e->dur, 0);
	p = pd_spill_put_d(p, e->corr, q->corr);
	p = pd_spill_put_d(p, e->wait_corr, -1);
	p = pd_spill_put_d(p, e->wait_stream, -1);
	p = pd_spill_put_d(p, e->stream, q->stream);
	p = pd_spill_put_d(p, e->pid, q->pid);
	p = pd_spill_put_u(p, e->name);
	p = pd_spill_put_u(p, e->thread);
	pd_spill_commit(&c->sp, p);
	*q = *e;
}

static void
keep_ev(struct cp *c, const struct cev *e)
{
	if (c->nev == c->capev) {
		c->capev = c->capev ? c->capev * 2 : 1024;
		c->ev = pd_xrealloc(c->ev, c->capev * sizeof *c->ev);
	}
	c->ev[c->nev++] = *e;
}

/* Past max_events: the step's CPU events, GPU ones up to a step's
 * length after it (those launched in it are kept later), threads
 * numbered anew in order of appearance. */
static void
keep_step(struct cp *c, struct cev *e, uint32_t *renum, struct cthread *th)
{
	if (e->ts < c->ws || (e->kind <= K_ANNOT && e->ts > c->we) ||
	    e->ts > c->we + (c->we - c->ws) || c->over)
		return;
	if (c->nev >= c->max) {
		c->over = 1;
		return;
	}
	if (renum[e->thread] == UINT32_MAX) {
		renum[e->thread] = (uint32_t)c->nth;
		th[c->nth++] = c->th[e->thread];
	}
	e->thread = renum[e->thread];
	keep_ev(c, e);
}

struct replay {
	struct cp *c;
	struct cev e;		/* the last event read */
	int step;
	uint32_t *renum;	/* first reading's thread -> kept one */
	struct cthread *th;	/* the threads kept */
	size_t nth;		/* of the first reading */
	int bad;
};

static const unsigned char *
replay_one(const unsigned char *p, const unsigned char *end, void *ctx)
{
	struct replay *r = ctx;
	struct cev *e = &r->e;
	unsigned b = *p++;

	e->kind = (uint8_t)(b & 7);
	e->kc = (uint8_t)(b >> 3);
	e->seq += (uint32_t)pd_spill_get_u(&p, end);
	e->ts = pd_spill_get_d(&p, end, e->ts);
	e->dur = pd_spill_get_d(&p, end, 0);
	e->corr = pd_spill_get_d(&p, end, e->corr);
	e->wait_corr = pd_spill_get_d(&p, end, -1);
	e->wait_stream = pd_spill_get_d(&p, end, -1);
	e->stream = pd_spill_get_d(&p, end, e->stream);
	e->pid = pd_spill_get_d(&p, end, e->pid);
	e->name = (uint32_t)pd_spill_get_u(&p, end);
	e->thread = (uint32_t)pd_spill_get_u(&p, end);
	if (e->thread >= r->nth || e->name >= r->c->nnames) {
		r->bad = 1;
		return end;
	}
	if (r->step)
		keep_step(r->c, e, r->renum, r->th);
	else
		keep_ev(r->c, e);
	return p;
}

/* Keep the events of the spill (all, or those of the step: step), in
 * file order. Returns 0 or an errno. */
static int
spill_replay(struct cp *c, int step)
{
	struct replay r;
	size_t i;
	int err;

	memset(&r, 0, sizeof r);
	r.c = c;
	r.step = step;
	r.nth = c->nth;
	if (step) {
		r.renum = pd_xrealloc(NULL, (r.nth + 1) * sizeof *r.renum);
		r.th = pd_xrealloc(NULL, (r.nth + 1) * sizeof *r.th);
		for (i = 0; i < r.nth; i++)
			r.renum[i] = UINT32_MAX;
		c->nth = 0;
	}
	err = pd_spill_each(&c->sp, REC_MAX, replay_one, &r);
	if (step) {
		free(c->th);
		c->th = r.th;
		c->capth = r.nth + 1;
		free(r.renum);
	}
	return err ? err : r.bad ? EINVAL : 0;
}

void
cp_add(struct cp *c, const struct pd_ev *ev, int kc)
{
	static const char *const keys[] = {
		"correlation", "stream", "wait_on_stream",
		"wait_on_cuda_event_record_corr_id"
	};
	const char *v[4];
	size_t len[4];
	struct cev e;
	int kind;
	int64_t step;

	if (!ev->has_ts || !ev->has_dur || c->done)
		return;
	step = pd_kineto_is_cpu_range(kc) ? pd_kineto_step_num(ev->name) : -1;
	if (step >= 0)
		pd_ksteps_add(&c->steps, step, ev->ts_ns, ev->ts_ns +
		    (ev->dur_ns > 0 ? ev->dur_ns : 0));
	if (step >= 0 || kc == PD_KC_ANNOT)
		kind = K_ANNOT;
	else if (kc == PD_KC_CPU_OP)
		kind = K_OP;
	else if (kc == PD_KC_RUNTIME)
		kind = K_RT;
	else if (pd_kineto_is_gpu(kc))
		kind = K_GPU;
	else if (kc == PD_KC_SYNC)
		kind = K_SYNC;
	else
		return;
	/* the wait and the stream args serve the syncs alone */
	pd_kineto_args(ev, keys, kind == K_SYNC ? 4 : 1, v, len);
	if (kind != K_SYNC)
		v[2] = v[3] = NULL;
	e.ts = ev->ts_ns;
	e.dur = ev->dur_ns;
	e.corr = arg_int(v[0], len[0], -1);
	e.wait_stream = arg_int(v[2], len[2], -1);
	e.wait_corr = arg_int(v[3], len[3], -1);
	e.stream = -1;
	if (kind == K_GPU)
		e.stream = pd_kineto_stream(ev);
	else if (kind == K_SYNC)
		e.stream = arg_int(v[1], len[1], -1);
	e.pid = ev->pid_is_num ? ev->pid_num : -1;
	e.name = intern_ev(c, ev);
	e.thread = thread_of(c, ev);
	e.seq = (uint32_t)ev->index;
	e.kind = (uint8_t)kind;
	e.kc = (uint8_t)kc;
	spill_add(c, &e);
	if (c->sp.n > c->max)
		c->over = 1;
}

/* The reading is over: keep its events (all of them, or, past stepmax
 * with steps or past max, the median ProfilerStep's). */
static void
finish(struct cp *c)
{
	size_t i, n;
	int64_t *d;
	struct pd_kstep *s;

	if (c->done)
		return;
	c->done = 1;
	if (!c->over && (c->sp.n <= c->stepmax || c->steps.n == 0 ||
	    !c->end)) {
		c->capev = c->sp.n + 1;	/* all of them: no doubling */
		c->ev = pd_xrealloc(NULL, c->capev * sizeof *c->ev);
		c->err = spill_replay(c, 0);
		return;
	}
	if (c->steps.n == 0 || !c->end) {
		pd_spill_free(&c->sp);
		return;
	}
	/* the median step by duration (the earlier of two) */
	n = c->steps.n;
	d = pd_xrealloc(NULL, n * sizeof *d);
	pd_ksteps_sort(&c->steps);
	for (i = 0; i < n; i++)
		d[i] = c->steps.v[i].e - c->steps.v[i].s;
	{
		size_t j, best = 0, rank, want = (n - 1) / 2;

		for (i = 0; i < n; i++) {
			rank = 0;
			for (j = 0; j < n; j++)
				if (d[j] < d[i] || (d[j] == d[i] && j < i))
					rank++;
			if (rank == want) {
				best = i;
				break;
			}
		}
		s = &c->steps.v[best];
	}
	free(d);
	c->ws = s->s;
	c->we = s->e;
	c->step = s->num;
	c->pass = 1;
	c->over = 0;
	c->err = spill_replay(c, 1);
}

void
cp_end(struct cp *c)
{
	c->end = 1;
	finish(c);
}

/* ---- the graph ---- */

static const struct cev *sort_ev;

static int
node_cmp(const void *x, const void *y)
{
	const struct cnode *a = x, *b = y;
	const struct cev *e = sort_ev;

	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	if (e[a->ev].seq != e[b->ev].seq)
		return e[a->ev].seq < e[b->ev].seq ? -1 : 1;
	return (int)b->start - (int)a->start;
}

#define NODE_LE(a, b) (node_cmp((a), (b)) <= 0)
/* a total order: distinct events have distinct seq */
PD_MSORT(sort_nodes, struct cnode, NODE_LE, 1)

static void
add_edge(struct cp *c, int32_t u, int32_t v, int type, int zero, int32_t attr)
{
	struct cedge *e;
	int64_t w;

	if (u < 0 || v < 0 || u == v)
		return;
	w = (type == E_DEP || type == E_SYNC || zero) ? 0 :
	    c->node[v].ts - c->node[u].ts;
	if (w < 0) {
		c->negative++;
		w = 0;
	}
	if (c->nedge == c->capedge) {
		c->capedge = c->capedge ? c->capedge * 2 : 1024;
		c->edge = pd_xrealloc(c->edge, c->capedge * sizeof *c->edge);
	}
	e = &c->edge[c->nedge++];
	e->u = (uint32_t)u;
	e->v = (uint32_t)v;
	e->w = w;
	e->type = (uint8_t)type;
	e->attr = -1;
	if (type == E_OP || type == E_KK)
		e->attr = attr;
}

/* HTA's rule for nested ops: a span is the start event's when it begins
 * at a start, the end event's when it ends at an end, and otherwise
 * (between two children) the parent's; a gap between kernels is the
 * earlier kernel's. */
static int32_t
attribute(struct cp *c, int32_t u, int32_t v, int type, int32_t parent)
{
	if (type == E_KK || c->node[u].start)
		return (int32_t)c->node[u].ev;
	if (!c->node[v].start)
		return (int32_t)c->node[v].ev;
	return parent;
}

static void
edge_at(struct cp *c, int32_t u, int32_t v, int type, int zero, int32_t parent)
{
	if (u < 0 || v < 0 || u == v)
		return;
	add_edge(c, u, v, type, zero, attribute(c, u, v, type, parent));
}

static int
is_lock(struct cp *c, int32_t n)
{
	return (c->nflag[c->ev[c->node[n].ev].name] & N_LOCK) != 0;
}

/* Two nodes in a row that hold the runtime lock, other than the end of one
 * call and the start of the next: the lock edges link them. */
static int
shares_lock(struct cp *c, int32_t a, int32_t b)
{
	return is_lock(c, a) && is_lock(c, b) &&
	    (c->node[a].start || !c->node[b].start);
}

static void
lock_edges(struct cp *c)
{
	int32_t *st = pd_xrealloc(NULL, (c->nnode + 1) * sizeof *st);
	size_t sp = 0, i;
	int32_t last = -1;

	for (i = 0; i < c->nnode; i++) {
		int32_t n = (int32_t)i;

		if (!is_lock(c, n))
			continue;
		if (c->node[n].start) {
			st[sp++] = n;
		} else {
			while (sp > 0) {
				int32_t p = st[--sp];

				if (c->node[p].ev == c->node[n].ev)
					edge_at(c, p, n, E_OP, 0,
					    (int32_t)c->node[n].ev);
				else
					add_edge(c, p, n, E_DEP, 0, -1);
			}
			if (last >= 0 && !c->node[last].start)
				add_edge(c, last, n, E_DEP, 0, -1);
		}
		last = n;
	}
	free(st);
}

/* Call stacks: HTA's order of starts and ends on one thread. */
struct sev {
	int64_t t, dur;
	uint32_t ev, seq;
	int start;
};

static int
sev_cmp(const void *x, const void *y)
{
	const struct sev *a = x, *b = y;

	if (a->ev == b->ev)
		return a->start ? -1 : 1;
	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	if (a->start == b->start) {
		if (a->dur == b->dur) {
			if (a->start)
				return a->seq < b->seq ? -1 : 1;
			return a->seq < b->seq ? 1 : -1;
		}
		if (a->start)
			return a->dur < b->dur ? 1 : -1;
		return a->dur < b->dur ? -1 : 1;
	}
	if (a->dur > 0 && b->dur > 0)
		return a->start ? 1 : -1;
	if (a->dur == 0 && b->dur == 0)
		return a->seq < b->seq ? -1 : 1;
	return a->start ? -1 : 1;
}

#define SEV_LE(a, b) (sev_cmp((a), (b)) <= 0)
/* not transitive where ends and starts of ops with and without a
 * duration meet at one time: merged exactly as qsort merges */
PD_MSORT(sort_sevs, struct sev, SEV_LE, 0)

struct walk {
	int32_t last, last_parent;
	int depth;
};

static void
enter(struct cp *c, struct walk *w, uint32_t ev)
{
	int32_t s = c->snode[ev];

	if (s < 0 || c->enode[ev] < 0)
		return;
	if (w->last >= 0 && !shares_lock(c, w->last, s))
		edge_at(c, w->last, s, w->depth == 0 ? E_DEP : E_OP, 0,
		    w->last_parent);
	w->last = s;
	w->last_parent = c->parent[ev];
	w->depth++;
}

static void
leave(struct cp *c, struct walk *w, uint32_t ev)
{
	int32_t s = c->snode[ev], e = c->enode[ev];

	if (s < 0 || e < 0)
		return;
	if (w->last >= 0 && !shares_lock(c, w->last, e))
		edge_at(c, w->last, e, E_OP,
		    (c->nflag[c->ev[ev].name] & N_BLOCK) != 0, w->last_parent);
	w->last = e;
	w->last_parent = c->parent[ev];
	w->depth--;
}

/* One thread's ops (evs, n of them): its call stack, then a depth-first
 * walk that adds the nesting and sequence edges. */
static void
stack_edges(struct cp *c, const uint32_t *evs, size_t n, int32_t *first,
    int32_t *next, int32_t *lastc)
{
	struct sev *s = pd_xrealloc(NULL, 2 * n * sizeof *s);
	uint32_t *st = pd_xrealloc(NULL, (n + 1) * sizeof *st);
	int32_t root_first = -1, root_last = -1;
	size_t i, sp = 0, k = 0;
	struct walk w = { -1, -1, 0 };

	for (i = 0; i < n; i++) {
		const struct cev *e = &c->ev[evs[i]];
		int64_t d = e->dur > 0 ? e->dur : 0;

		s[k++] = (struct sev){ e->ts, d, evs[i], e->seq, 1 };
		s[k++] = (struct sev){ e->ts + d, d, evs[i], e->seq, 0 };
	}
	sort_sevs(s, k);
	for (i = 0; i < k; i++) {
		uint32_t ev = s[i].ev;

		if (!s[i].start) {
			if (sp > 0)
				sp--;
			continue;
		}
		c->parent[ev] = sp > 0 ? (int32_t)st[sp - 1] : -1;
		first[ev] = next[ev] = lastc[ev] = -1;
		if (sp > 0) {
			uint32_t p = st[sp - 1];

			if (lastc[p] < 0)
				first[p] = (int32_t)ev;
			else
				next[lastc[p]] = (int32_t)ev;
			lastc[p] = (int32_t)ev;
		} else {
			if (root_last < 0)
				root_first = (int32_t)ev;
			else
				next[root_last] = (int32_t)ev;
			root_last = (int32_t)ev;
		}
		st[sp++] = ev;
	}
	/* iterative DFS: st holds the path from the root */
	sp = 0;
	for (int32_t cur = root_first; cur >= 0 || sp > 0;) {
		if (cur >= 0) {
			enter(c, &w, (uint32_t)cur);
			st[sp++] = (uint32_t)cur;
			cur = first[cur];
			continue;
		}
		cur = (int32_t)st[--sp];
		leave(c, &w, (uint32_t)cur);
		cur = next[cur];
	}
	free(s);
	free(st);
}

static void
call_stack_edges(struct cp *c, const unsigned char *keep)
{
	int64_t fwd = -1, bwd = -1;
	int nfwd = 0, nbwd = 0;
	size_t i, j, n, ng = 0;
	uint32_t *evs = pd_xrealloc(NULL, (c->nev + 1) * sizeof *evs);
	int32_t *first = pd_xrealloc(NULL, (c->nev + 1) * sizeof *first);
	int32_t *next = pd_xrealloc(NULL, (c->nev + 1) * sizeof *next);
	int32_t *lastc = pd_xrealloc(NULL, (c->nev + 1) * sizeof *lastc);
	size_t *group = pd_xrealloc(NULL, (c->nth + 1) * sizeof *group);
	size_t *off = pd_xcalloc(c->nth + 2, sizeof *off);
	int64_t *gtid = pd_xrealloc(NULL, (c->nth + 1) * sizeof *gtid);

	/* HTA moves the backward thread (the one thread with "autograd"
	 * ops) onto the forward one (the one with "forward" ops); nfwd
	 * counts changes of thread, so 1 means a single thread */
	for (i = 0; i < c->nev; i++) {
		const struct cev *e = &c->ev[i];
		int64_t tid = c->th[e->thread].tid;

		if (!keep[i] || (e->kind != K_OP && e->kind != K_ANNOT))
			continue;
		if (c->nflag[e->name] & N_FWD) {
			if (nfwd == 0 || tid != fwd)
				nfwd++;
			fwd = tid;
		}
		if (c->nflag[e->name] & N_BWD) {
			if (nbwd == 0 || tid != bwd)
				nbwd++;
			bwd = tid;
		}
	}
	for (i = 0; i < c->nth; i++) {
		gtid[i] = c->th[i].tid;
		if (nfwd == 1 && nbwd == 1 && fwd != bwd && gtid[i] == bwd)
			gtid[i] = fwd;
		for (j = 0; j < i; j++)
			if (c->th[j].pid == c->th[i].pid && gtid[j] == gtid[i])
				break;
		group[i] = j < i ? group[j] : ng++;
	}
	/* the events of each group, in file order (a counting sort) */
	for (i = 0; i < c->nev; i++)
		if (keep[i] && c->ev[i].kind <= K_ANNOT)
			off[group[c->ev[i].thread] + 1]++;
	for (i = 0; i < ng; i++)
		off[i + 1] += off[i];
	for (i = 0; i < c->nev; i++)
		if (keep[i] && c->ev[i].kind <= K_ANNOT)
			evs[off[group[c->ev[i].thread]]++] = (uint32_t)i;
	for (i = 0, j = 0; i < ng; i++) {
		n = off[i] - j;
		if (n)
			stack_edges(c, evs + j, n, first, next, lastc);
		j = off[i];
	}
	free(evs);
	free(first);
	free(next);
	free(lastc);
	free(group);
	free(off);
	free(gtid);
}

/* ---- GPU side ---- */

static struct cp *sort_cp;

#define QNONE INT32_MIN

struct qitem {
	int64_t stream, ts;
	uint32_t ev, seq;
	int launch;
};

static int
q_cmp(const void *x, const void *y)
{
	const struct qitem *a = x, *b = y;

	if (a->stream != b->stream)
		return a->stream < b->stream ? -1 : 1;
	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	if (a->launch != b->launch)
		return b->launch - a->launch;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

#define Q_LE(a, b) (q_cmp((a), (b)) <= 0)
PD_MSORT(sort_q, struct qitem, Q_LE, 1)

/* Is ev a launch call linked to a GPU activity? */
static int
is_launch(struct cp *c, size_t i)
{
	const struct cev *e = &c->ev[i];

	return e->kind == K_RT && (c->nflag[e->name] & N_LAUNCH) &&
	    c->xcorr[i] >= 0 && c->ev[c->xcorr[i]].stream != -1;
}

/* HTA's queue length of a stream: +1 at each launch, -1 at each start of
 * the activity it launched; qrt is the length just after the launch of an
 * activity, q just after its start. */
static void
queue_lengths(struct cp *c, int32_t *qrt, int32_t *q)
{
	struct qitem *it;
	size_t i, n = 0;
	int64_t stream = 0;
	int32_t len = 0;

	for (i = 0; i < c->nev; i++)
		n += is_launch(c, i) ? 2 : 0;
	it = pd_xrealloc(NULL, (n + 1) * sizeof *it);
	n = 0;
	for (i = 0; i < c->nev; i++) {
		qrt[i] = q[i] = QNONE;
		if (!is_launch(c, i))
			continue;
		const struct cev *g = &c->ev[c->xcorr[i]];

		it[n++] = (struct qitem){ g->stream, c->ev[i].ts,
		    (uint32_t)c->xcorr[i], c->ev[i].seq, 1 };
		it[n++] = (struct qitem){ g->stream, g->ts,
		    (uint32_t)c->xcorr[i], g->seq, 0 };
	}
	sort_q(it, n);
	for (i = 0; i < n; i++) {
		if (i == 0 || it[i].stream != stream)
			len = 0;
		stream = it[i].stream;
		len += it[i].launch ? 1 : -1;
		if (it[i].launch)
			qrt[it[i].ev] = len;
		else
			q[it[i].ev] = len;
	}
	free(it);
}

/* Launches sorted by (device, stream, ts) to find the last one before a
 * cudaEventRecord, and by (pid, tid, stream, ts) to find the first one
 * after a cudaStreamWaitEvent. */
static int
by_dev_cmp(const void *x, const void *y)
{
	const struct cp *c = sort_cp;
	uint32_t i = *(const uint32_t *)x, j = *(const uint32_t *)y;
	const struct cev *a = &c->ev[c->xcorr[i]], *b = &c->ev[c->xcorr[j]];

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->stream != b->stream)
		return a->stream < b->stream ? -1 : 1;
	if (c->ev[i].ts != c->ev[j].ts)
		return c->ev[i].ts < c->ev[j].ts ? -1 : 1;
	return (c->ev[i].seq > c->ev[j].seq) - (c->ev[i].seq < c->ev[j].seq);
}

#define BY_DEV_LE(a, b) (by_dev_cmp((a), (b)) <= 0)
PD_MSORT(sort_by_dev, uint32_t, BY_DEV_LE, 1)

static int
by_thread_cmp(const void *x, const void *y)
{
	const struct cp *c = sort_cp;
	uint32_t i = *(const uint32_t *)x, j = *(const uint32_t *)y;
	const struct cthread *ta = &c->th[c->ev[i].thread];
	const struct cthread *tb = &c->th[c->ev[j].thread];
	int64_t sa = c->ev[c->xcorr[i]].stream, sb = c->ev[c->xcorr[j]].stream;

	if (ta->pid != tb->pid)
		return ta->pid < tb->pid ? -1 : 1;
	if (ta->tid != tb->tid)
		return ta->tid < tb->tid ? -1 : 1;
	if (sa != sb)
		return sa < sb ? -1 : 1;
	if (c->ev[i].ts != c->ev[j].ts)
		return c->ev[i].ts < c->ev[j].ts ? -1 : 1;
	return (c->ev[i].seq > c->ev[j].seq) - (c->ev[i].seq < c->ev[j].seq);
}

#define BY_THREAD_LE(a, b) (by_thread_cmp((a), (b)) <= 0)
PD_MSORT(sort_by_thread, uint32_t, BY_THREAD_LE, 1)

/* The GPU activity of the last launch on (dev, stream) at or before ts. */
static int32_t
launch_before(struct cp *c, const uint32_t *l, size_t n, int64_t dev,
    int64_t stream, int64_t ts)
{
	size_t lo = 0, hi = n;
	int32_t best = -1;

	while (lo < hi) {	/* first entry past (dev, stream, ts) */
		size_t mid = lo + (hi - lo) / 2;
		const struct cev *g = &c->ev[c->xcorr[l[mid]]];
		int64_t t = c->ev[l[mid]].ts;
		int after = g->pid != dev ? g->pid > dev : g->stream != stream ?
		    g->stream > stream : t > ts;

		if (after)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (lo > 0) {
		const struct cev *g = &c->ev[c->xcorr[l[lo - 1]]];

		if (g->pid == dev && g->stream == stream)
			best = c->xcorr[l[lo - 1]];
	}
	return best;
}

/* The GPU activity of the first launch on (pid, tid, stream) at or after
 * ts. */
static int32_t
launch_after(struct cp *c, const uint32_t *l, size_t n, const struct cthread *t,
    int64_t stream, int64_t ts)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {	/* first entry at or past (pid, tid, stream, ts) */
		size_t mid = lo + (hi - lo) / 2;
		const struct cthread *u = &c->th[c->ev[l[mid]].thread];
		int64_t s = c->ev[c->xcorr[l[mid]]].stream;
		int64_t tm = c->ev[l[mid]].ts;
		int before = u->pid != t->pid ? u->pid < t->pid :
		    u->tid != t->tid ? u->tid < t->tid :
		    s != stream ? s < stream : tm < ts;

		if (before)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < n) {
		const struct cthread *u = &c->th[c->ev[l[lo]].thread];

		if (u->pid == t->pid && u->tid == t->tid &&
		    c->ev[c->xcorr[l[lo]]].stream == stream)
			return c->xcorr[l[lo]];
	}
	return -1;
}

struct gpu {
	int32_t *qrt, *q;
	int32_t *ksync;		/* kernel -> kernel it waits for, -1 */
	uint32_t *byrec, *bynext;
	size_t nl;
	struct pd_i64map rec;	/* record correlation -> its event */
	int64_t *lstream;	/* last end node of each stream */
	int32_t *lnode;
	size_t nls;
};

static int32_t *
last_on(struct gpu *g, int64_t stream, int create)
{
	size_t i;

	for (i = 0; i < g->nls; i++)
		if (g->lstream[i] == stream)
			return &g->lnode[i];
	if (!create)
		return NULL;
	g->lstream = pd_xrealloc(g->lstream, (g->nls + 1) * sizeof *g->lstream);
	g->lnode = pd_xrealloc(g->lnode, (g->nls + 1) * sizeof *g->lnode);
	g->lstream[g->nls] = stream;
	g->lnode[g->nls] = -1;
	return &g->lnode[g->nls++];
}

/* The kernel a cudaEventRecord-based sync waits for: the activity of the
 * last launch on the recorded stream before the record, -1 if unknown. */
static int32_t
record_src(struct cp *c, struct gpu *g, const struct cev *row)
{
	struct pd_i64ent *r;

	if (row->wait_corr < 0 || row->wait_stream < 0)
		return -1;
	if (!(r = pd_i64map_get(&g->rec, row->wait_corr, 1)))
		return -1;
	return launch_before(c, g->byrec, g->nl, row->pid, row->wait_stream,
	    c->ev[r->v[0]].ts);
}

static void
sync_row(struct cp *c, struct gpu *g, uint32_t i)
{
	const struct cev *row = &c->ev[i];
	unsigned f = c->nflag[row->name];
	int32_t rt = c->xcorr[i], src, dst;
	size_t k;

	if (rt < 0)
		return;
	if (f & (N_SWE | N_EVSYNC)) {
		if ((src = record_src(c, g, row)) < 0)
			return;
		if (f & N_SWE) {
			dst = launch_after(c, g->bynext, g->nl,
			    &c->th[c->ev[rt].thread], row->stream,
			    c->ev[rt].ts);
			if (dst >= 0)
				g->ksync[dst] = src;
		} else if (c->enode[src] >= 0) {
			add_edge(c, c->enode[src], c->enode[rt], E_SYNC, 0, -1);
		}
		return;
	}
	if (f & N_CTXSYNC) {
		for (k = 0; k < g->nls; k++)
			add_edge(c, g->lnode[k], c->enode[rt], E_SYNC, 0, -1);
	} else if (f & N_STREAMSYNC) {
		int32_t *l = last_on(g, row->stream, 0);

		if (l)
			add_edge(c, *l, c->enode[rt], E_SYNC, 0, -1);
	}
}

static void
kernel_row(struct cp *c, struct gpu *g, uint32_t i)
{
	int32_t s = c->snode[i], e = c->enode[i], rt = c->xcorr[i];
	int32_t *last, sync, send = -1;
	int64_t rts;

	if (s < 0 || e < 0)
		return;
	edge_at(c, s, e, E_OP, 0, -1);
	last = last_on(g, c->ev[i].stream, 1);
	sync = g->ksync[i];
	if (sync >= 0) {
		if ((send = c->enode[sync]) < 0)
			sync = -1;
		else
			add_edge(c, send, s, E_SYNC, 0, -1);
		g->ksync[i] = -1;
	}
	rts = rt >= 0 ? c->ev[rt].ts : 0;
	if (rt >= 0 && g->qrt[i] == 1 && g->q[i] == 0 &&
	    (*last < 0 || c->node[*last].ts < rts) &&
	    (sync < 0 || c->node[send].ts < rts) && c->snode[rt] >= 0) {
		add_edge(c, c->snode[rt], s, E_LAUNCH, 0, -1);
	} else if (*last >= 0 && c->node[s].ts - c->node[*last].ts <
	    KK_DELAY_NS && (sync < 0 || c->node[send].ts <
	    c->node[*last].ts)) {
		edge_at(c, *last, s, E_KK, 0, -1);
	}
	*last = e;
}

struct row {
	int64_t key;
	uint32_t ev, seq;
};

static int
row_cmp(const void *x, const void *y)
{
	const struct row *a = x, *b = y;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

#define ROW_LE(a, b) (row_cmp((a), (b)) <= 0)
PD_MSORT(sort_rows, struct row, ROW_LE, 1)

static void
gpu_edges(struct cp *c, const unsigned char *keep)
{
	struct gpu g;
	struct row *rows = pd_xrealloc(NULL, (c->nev + 1) * sizeof *rows);
	size_t i, n = 0;

	memset(&g, 0, sizeof g);
	g.qrt = pd_xrealloc(NULL, (c->nev + 1) * sizeof *g.qrt);
	g.q = pd_xrealloc(NULL, (c->nev + 1) * sizeof *g.q);
	g.ksync = pd_xrealloc(NULL, (c->nev + 1) * sizeof *g.ksync);
	g.byrec = pd_xrealloc(NULL, (c->nev + 1) * sizeof *g.byrec);
	g.bynext = pd_xrealloc(NULL, (c->nev + 1) * sizeof *g.bynext);
	queue_lengths(c, g.qrt, g.q);
	for (i = 0; i < c->nev; i++) {
		const struct cev *e = &c->ev[i];

		g.ksync[i] = -1;
		if (is_launch(c, i))
			g.byrec[g.nl++] = (uint32_t)i;
		if (e->kind == K_RT && (c->nflag[e->name] & N_RECORD) &&
		    e->corr >= 0 && !pd_i64map_get(&g.rec, e->corr, 1))
			pd_i64map_put(&g.rec, e->corr, 1)->v[0] = (int64_t)i;
		if (!keep[i] || e->corr < 0 || (e->stream == -1 &&
		    !(c->nflag[e->name] & N_DEVSYNC)) ||
		    (e->kind != K_GPU && e->kind != K_SYNC))
			continue;
		/* a sync ends when its wait does: order it by its end */
		rows[n].key = e->ts + (e->kind == K_SYNC ? e->dur : 0);
		rows[n].ev = (uint32_t)i;
		rows[n++].seq = e->seq;
	}
	memcpy(g.bynext, g.byrec, g.nl * sizeof *g.bynext);
	sort_cp = c;
	sort_by_dev(g.byrec, g.nl);
	sort_by_thread(g.bynext, g.nl);
	sort_rows(rows, n);
	for (i = 0; i < n; i++) {
		if (c->ev[rows[i].ev].kind == K_SYNC)
			sync_row(c, &g, rows[i].ev);
		else
			kernel_row(c, &g, rows[i].ev);
	}
	free(rows);
	free(g.qrt);
	free(g.q);
	free(g.ksync);
	free(g.byrec);
	free(g.bynext);
	free(g.lstream);
	free(g.lnode);
	pd_i64map_free(&g.rec);
}

/* ---- building and the longest path ---- */

static int
gpu_side(const struct cp *c, const struct cev *e)
{
	return (e->stream >= 0 && e->corr >= 0) ||
	    (c->nflag[e->name] & N_DEVSYNC);
}

/* Launch and activity by correlation id (the first of each side). */
static void
correlate(struct cp *c)
{
	struct pd_i64map m;
	size_t i;

	memset(&m, 0, sizeof m);
	for (i = 0; i < c->nev; i++) {
		const struct cev *e = &c->ev[i];
		uint8_t tag = gpu_side(c, e) ? 2 : 1;

		c->xcorr[i] = -1;
		if (e->corr < 0 || pd_i64map_get(&m, e->corr, tag))
			continue;
		pd_i64map_put(&m, e->corr, tag)->v[0] = (int64_t)i;
	}
	for (i = 0; i < c->nev; i++) {
		const struct cev *e = &c->ev[i];
		struct pd_i64ent *o;

		if (e->corr < 0)
			continue;
		o = pd_i64map_get(&m, e->corr, gpu_side(c, e) ? 1 : 2);
		if (o)
			c->xcorr[i] = (int32_t)o->v[0];
	}
	pd_i64map_free(&m);
}

static int
in_window(const struct cp *c, const struct cev *e)
{
	return !c->pass || (e->ts >= c->ws && e->ts <= c->we);
}

/* HTA's clipping: CPU events that last, GPU ones launched by such. */
static void
clip(struct cp *c, unsigned char *keep)
{
	size_t i;

	for (i = 0; i < c->nev; i++) {
		const struct cev *e = &c->ev[i];

		if (e->stream == -1) {
			keep[i] = e->dur > 0 && in_window(c, e);
		} else {
			const struct cev *r = c->xcorr[i] >= 0 ?
			    &c->ev[c->xcorr[i]] : NULL;

			keep[i] = (r && r->stream == -1 && r->dur > 0 &&
			    in_window(c, r)) || (c->nflag[e->name] & N_SWE);
		}
	}
}

static void
make_nodes(struct cp *c, const unsigned char *keep)
{
	size_t i, n = 0;

	c->node = pd_xrealloc(NULL, (2 * c->nev + 1) * sizeof *c->node);
	for (i = 0; i < c->nev; i++) {
		const struct cev *e = &c->ev[i];

		c->snode[i] = c->enode[i] = -1;
		if (!keep[i])
			continue;
		/* (HTA makes nodes of the syncs on a stream too, but gives
		 * them no edges) */
		if (e->kind == K_OP || e->kind == K_RT || (e->kind == K_GPU &&
		    e->stream != -1 && e->corr >= 0)) {
			int64_t d = e->dur > 0 ? e->dur : 0;

			c->node[n++] = (struct cnode){ e->ts, (uint32_t)i, 1 };
			c->node[n++] = (struct cnode){ e->ts + d, (uint32_t)i, 0 };
		}
	}
	sort_ev = c->ev;
	sort_nodes(c->node, n);
	for (i = 0; i < n; i++) {
		if (c->node[i].start)
			c->snode[c->node[i].ev] = (int32_t)i;
		else
			c->enode[c->node[i].ev] = (int32_t)i;
	}
	c->nnode = n;
}

/* Longest path of the DAG (Kahn's order, then relaxing each node's out
 * edges); a predecessor is kept even over a zero-weight edge so that the
 * path reaches back to its source. Returns the number of edges on the
 * path written to path (last to first), -1 when there is a cycle. */
static long
longest(struct cp *c, int32_t *path)
{
	size_t n = c->nnode, i, head = 0, tail = 0;
	size_t *off = pd_xcalloc(n + 1, sizeof *off);
	uint32_t *out = pd_xrealloc(NULL, (c->nedge + 1) * sizeof *out);
	uint32_t *indeg = pd_xcalloc(n + 1, sizeof *indeg);
	uint32_t *queue = pd_xrealloc(NULL, (n + 1) * sizeof *queue);
	int64_t *dist = pd_xcalloc(n + 1, sizeof *dist);
	int32_t *pred = pd_xrealloc(NULL, (n + 1) * sizeof *pred);
	size_t *fill = pd_xrealloc(NULL, (n + 1) * sizeof *fill);
	long len = -1;
	int32_t best = -1;

	for (i = 0; i < c->nedge; i++) {
		off[c->edge[i].u + 1]++;
		indeg[c->edge[i].v]++;
	}
	for (i = 0; i < n; i++) {
		off[i + 1] += off[i];
		fill[i] = off[i];
		pred[i] = -1;
	}
	for (i = 0; i < c->nedge; i++)
		out[fill[c->edge[i].u]++] = (uint32_t)i;
	for (i = 0; i < n; i++)
		if (indeg[i] == 0)
			queue[tail++] = (uint32_t)i;
	while (head < tail) {
		uint32_t u = queue[head++];
		size_t k;

		if (best < 0 || dist[u] > dist[best])
			best = (int32_t)u;
		for (k = off[u]; k < off[u + 1]; k++) {
			const struct cedge *e = &c->edge[out[k]];
			int64_t d = dist[u] + e->w;

			if (pred[e->v] < 0 || d > dist[e->v]) {
				dist[e->v] = d;
				pred[e->v] = (int32_t)out[k];
			}
			if (--indeg[e->v] == 0)
				queue[tail++] = e->v;
		}
	}
	if (tail == n) {
		len = 0;
		for (int32_t v = best; v >= 0 && pred[v] >= 0;
		    v = (int32_t)c->edge[pred[v]].u)
			path[len++] = pred[v];
	}
	free(off);
	free(out);
	free(indeg);
	free(queue);
	free(dist);
	free(pred);
	free(fill);
	return len;
}

static int
bound_of(const struct cp *c, const struct cedge *e)
{
	const struct cev *a;

	if (e->type == E_KK)
		return B_KK;
	if (e->type == E_LAUNCH)
		return B_LAUNCH;
	if (e->type != E_OP)
		return -1;
	if (e->attr < 0)
		return B_CPU;
	a = &c->ev[e->attr];
	if (a->stream < 0)
		return (c->nflag[a->name] & N_DATA) ? B_DATA : B_CPU;
	return (c->nflag[a->name] & N_COMM) ? B_COMM : B_COMPUTE;
}

static const char *
type_of(const struct cev *e)
{
	switch (e->kind) {
	case K_OP:
		return "cpu_op";
	case K_RT:
		return "runtime";
	case K_ANNOT:
		return "annotation";
	case K_SYNC:
		return "sync";
	default:
		return e->kc == PD_KC_MEMCPY ? "memcpy" : e->kc ==
		    PD_KC_MEMSET ? "memset" : "kernel";
	}
}

struct topent {
	uint32_t name;
	int32_t ev;		/* one event of the name, for its type */
	int64_t ns;
};

static const struct cp *top_cp;

static int
top_cmp(const void *x, const void *y)
{
	const struct topent *a = x, *b = y;

	if (a->ns != b->ns)
		return a->ns > b->ns ? -1 : 1;
	return strcmp(top_cp->names[a->name], top_cp->names[b->name]);
}

static double
us(int64_t ns)
{
	return (double)ns / 1000.0;
}


/* The CPU op a path edge's time belongs to, -1 none: an op's own span is
 * its own; a launch or runtime call belongs to the innermost op around
 * it on its call stack; a GPU activity (its span, the gap after it, the
 * launch delay before it) to the op around the call that launched it. */
static int32_t
op_of(const struct cp *c, int32_t a)
{
	if (a >= 0 && c->ev[a].kind == K_GPU) {
		a = c->xcorr[a];
		if (a >= 0 && c->ev[a].kind != K_RT)
			return -1;
	}
	if (a >= 0 && c->ev[a].kind == K_RT)
		for (a = c->parent[a]; a >= 0 && c->ev[a].kind != K_OP;)
			a = c->parent[a];
	return a >= 0 && c->ev[a].kind == K_OP ? a : -1;
}

static int32_t
edge_event(const struct cp *c, const struct cedge *e)
{
	if (e->type == E_LAUNCH)
		return (int32_t)c->node[e->v].ev;
	return e->type == E_OP || e->type == E_KK ? e->attr : -1;
}


struct opent {
	uint32_t name;
	int64_t ns;
};

static int
op_cmp(const void *x, const void *y)
{
	const struct opent *a = x, *b = y;

	if (a->ns != b->ns)
		return a->ns > b->ns ? -1 : 1;
	return strcmp(top_cp->names[a->name], top_cp->names[b->name]);
}

/* operators (the CPU ops that bound the path, by their time on it),
 * operators_rest (those past topn) and unattributed_us (the rest). */
static void
operators_json(struct cp *c, json_t *o, int topn)
{
	struct opent *v = pd_xcalloc(c->nnames + 1, sizeof *v);
	json_t *arr = json_array(), *rest = json_object();
	int64_t on = 0, rn = 0, rns = 0;
	size_t i, n = 0;
	int b, best;

	for (i = 0; i < c->nnames; i++) {
		int64_t ns = 0;

		for (b = 0; b < NBOUND; b++)
			ns += c->opb[i][b];
		if (ns > 0)
			v[n++] = (struct opent){ (uint32_t)i, ns };
		on += ns;
	}
	top_cp = c;
	qsort(v, n, sizeof *v, op_cmp);
	for (i = 0; i < n; i++) {
		json_t *x, *bus;

		if ((int)i >= topn) {
			rn++;
			rns += v[i].ns;
			continue;
		}
		x = json_object();
		bus = json_object();
		best = 0;
		for (b = 0; b < NBOUND; b++) {
			pd_set_real(bus, bound_name[b],
			    us(c->opb[v[i].name][b]), 3);
			if (c->opb[v[i].name][b] > c->opb[v[i].name][best])
				best = b;
		}
		pd_set_str(x, "name", c->names[v[i].name]);
		pd_set_real(x, "us", us(v[i].ns), 3);
		pd_set_real(x, "ratio", c->total > 0 ? (double)v[i].ns /
		    (double)c->total : 0, 4);
		pd_set_str(x, "bound", bound_name[best]);
		pd_set(x, "bound_us", bus);
		json_array_append_new(arr, x);
	}
	pd_set(o, "operators", arr);
	pd_set_int(rest, "count", rn);
	pd_set_real(rest, "us", us(rns), 3);
	pd_set(o, "operators_rest", rest);
	pd_set_real(o, "unattributed_us", us(c->total - on), 3);
	free(v);
}

static json_t *
result_json(struct cp *c, const int32_t *path, long len, int topn)
{
	json_t *o = json_object(), *bus = json_object(), *sh = json_object();
	json_t *top = json_array();
	int64_t bns[NBOUND] = { 0 }, total = 0;
	struct topent *t = pd_xcalloc(c->nnames + 1, sizeof *t);
	size_t i, nt = 0;
	int b;

	for (i = 0; i < c->nnames; i++) {
		t[i].name = (uint32_t)i;
		t[i].ev = -1;
	}
	c->kns = pd_xcalloc(c->nnames + 1, sizeof *c->kns);
	c->opb = pd_xcalloc(c->nnames + 1, sizeof *c->opb);
	for (i = 0; i < (size_t)len; i++) {
		const struct cedge *e = &c->edge[path[i]];
		int32_t a = edge_event(c, e), op = op_of(c, a);

		total += e->w;
		if ((b = bound_of(c, e)) >= 0)
			bns[b] += e->w;
		if (op >= 0 && b >= 0)
			c->opb[c->ev[op].name][b] += e->w;
		if (e->type == E_OP && a >= 0 && c->ev[a].kind == K_GPU)
			c->kns[c->ev[a].name] += e->w;
		if (e->type == E_OP && e->attr >= 0) {
			struct topent *x = &t[c->ev[e->attr].name];

			x->ns += e->w;
			if (x->ev < 0)
				x->ev = e->attr;
		}
	}
	pd_set_str(o, "window", c->pass ? "step" : "trace");
	if (c->pass)
		pd_set_int(o, "step", c->step);
	else
		pd_set_null(o, "step");
	pd_set_real(o, "total_us", us(total), 3);
	for (b = 0; b < NBOUND; b++) {
		pd_set_real(bus, bound_name[b], us(bns[b]), 3);
		pd_set_real(sh, bound_name[b], total > 0 ?
		    (double)bns[b] / (double)total : 0, 4);
	}
	pd_set(o, "shares", sh);
	pd_set(o, "bound_us", bus);
	for (i = 0; i < c->nnames; i++)
		if (t[i].ev >= 0 && t[i].ns > 0)
			t[nt++] = t[i];
	top_cp = c;
	qsort(t, nt, sizeof *t, top_cmp);
	for (i = 0; i < nt && (int)i < topn; i++) {
		json_t *x = json_object();
		struct cedge probe = { 0, 0, 0, t[i].ev, E_OP };

		pd_set_str(x, "name", c->names[t[i].name]);
		pd_set_str(x, "type", type_of(&c->ev[t[i].ev]));
		pd_set_str(x, "bound", bound_name[bound_of(c, &probe)]);
		pd_set_real(x, "us", us(t[i].ns), 3);
		pd_set_real(x, "ratio", total > 0 ? (double)t[i].ns /
		    (double)total : 0, 4);
		json_array_append_new(top, x);
	}
	pd_set(o, "top", top);
	c->have = 1;
	c->total = total;
	operators_json(c, o, topn);
	pd_set_int(o, "nodes", (int64_t)c->nnode);
	pd_set_int(o, "edges", (int64_t)c->nedge);
	pd_set_int(o, "path_edges", len);
	pd_set_int(o, "negative_edges", (int64_t)c->negative);
	for (i = 0, nt = 0; i < c->nev; i++)
		nt += c->ev[i].kind == K_SYNC;
	pd_set_int(o, "sync_events", (int64_t)nt);
	free(t);
	return o;
}

static void
graph_free(struct cp *c)
{
	free(c->node);
	free(c->snode);
	free(c->enode);
	free(c->xcorr);
	free(c->parent);
	free(c->edge);
	c->node = NULL;
	c->snode = c->enode = c->xcorr = c->parent = NULL;
	c->edge = NULL;
	c->nnode = c->nedge = c->capedge = 0;
}

json_t *
cp_json(struct cp *c, const char *path, int topn)
{
	unsigned char *keep;
	int32_t *p;
	json_t *o;
	long len;
	size_t i;

	finish(c);
	if (c->err) {
		pd_warn(path, 0, "the critical path's events could not be kept "
		    "in a temporary file (%s); critical_path is null",
		    strerror(c->err));
		return json_null();
	}
	if (c->over) {
		if (c->pass)
			pd_warn(path, 0, "ProfilerStep#%lld alone has more than "
			    "%llu events for the critical path; critical_path "
			    "is null", (long long)c->step,
			    (unsigned long long)c->max);
		else
			pd_warn(path, 0, "more than %llu events for the "
			    "critical path and no ProfilerStep to keep; "
			    "critical_path is null", (unsigned long long)c->max);
		return json_null();
	}
	if (c->nev == 0)
		return json_null();
	keep = pd_xcalloc(c->nev, 1);
	c->snode = pd_xrealloc(NULL, c->nev * sizeof *c->snode);
	c->enode = pd_xrealloc(NULL, c->nev * sizeof *c->enode);
	c->xcorr = pd_xrealloc(NULL, c->nev * sizeof *c->xcorr);
	c->parent = pd_xrealloc(NULL, c->nev * sizeof *c->parent);
	for (i = 0; i < c->nev; i++)
		c->parent[i] = -1;
	correlate(c);
	clip(c, keep);
	make_nodes(c, keep);
	lock_edges(c);
	call_stack_edges(c, keep);
	gpu_edges(c, keep);
	free(keep);
	if (c->nnode == 0) {
		graph_free(c);
		return json_null();
	}
	p = pd_xrealloc(NULL, (c->nedge + 1) * sizeof *p);
	len = longest(c, p);
	if (len < 0) {
		pd_warn(path, 0, "the critical-path graph has a cycle (clocks "
		    "out of step?); critical_path is null");
		o = json_null();
	} else {
		o = result_json(c, p, len, topn);
	}
	free(p);
	graph_free(c);
	return o;
}

/* critical_us and critical_ratio of the entries of a pd.hotspot list:
 * ops (1) or GPU activities (0) by name; null without a path. */
void
cp_annotate(const struct cp *c, json_t *list, int ops)
{
	size_t i;
	json_t *x;

	json_array_foreach(list, i, x) {
		json_t *v = c && c->have ? json_object_get(c->index,
		    pd_rec_str(x, "name") ? pd_rec_str(x, "name") : "") : NULL;
		int64_t ns = 0;
		int b;

		if (!c || !c->have) {
			pd_set_null(x, "critical_us");
			pd_set_null(x, "critical_ratio");
			continue;
		}
		if (v) {
			size_t k = (size_t)json_integer_value(v);

			if (ops)
				for (b = 0; b < NBOUND; b++)
					ns += c->opb[k][b];
			else
				ns = c->kns[k];
		}
		pd_set_real(x, "critical_us", us(ns), 3);
		pd_set_real(x, "critical_ratio", c->total > 0 ? (double)ns /
		    (double)c->total : 0, 4);
	}
}

void
cp_free(struct cp *c)
{
	size_t i;

	if (!c)
		return;
	graph_free(c);
	free(c->kns);
	free(c->opb);
	for (i = 0; i < c->nnames; i++)
		free(c->names[i]);
	free(c->names);
	free(c->nflag);
	free(c->ev);
	free(c->th);
	pd_spill_free(&c->sp);
	pd_ksteps_free(&c->steps);
	json_decref(c->index);
	pd_idmemo_free(&c->ids);
	free(c);
}
