/* FLOPs and bytes of the operators whose shapes a trace records
 * (record_shapes: args "Input Dims", "Input type", "Concrete Inputs"),
 * their device time, achieved FLOP/s, MFU against share/limits/peaks.yaml
 * and roofline placement.
 *
 * An operator of a FLOP-bearing family (matmul, convolution, attention;
 * the table below) is counted only when no other readable operator of
 * those families encloses it on its thread: aten::linear counts,
 * the aten::addmm inside it does not. Its device time is that of the GPU
 * activities whose launch call (linked by args.correlation) starts on the
 * same thread within the operator's span. The formulas are in
 * man/pd-hotspots.1. */
#include "flops.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pd_diag.h"
#include "pd_i64map.h"
#include "pd_num.h"
#include "pd_rec.h"
#include "pd_share.h"
#include "pd_spill.h"
#include "pd_yamlio.h"

enum { F_MM, F_ADDMM, F_BMM, F_BADDBMM, F_MATMUL, F_LINEAR, F_CONV,
	F_CONV_BWD, F_ATTN, F_ATTN_BWD };
enum { L_BHSD, L_BSHD };	/* attention tensor layouts */
enum { TAG_LAUNCH = 1, TAG_KERNEL = 2 };
#define SADD(a, b) ((a) = pd_num_add_sat((a), (b)))	/* sums of counts */

/* Argument positions of a convolution (-1: not an argument). */
struct convargs {
	int stride, pad, dil, groups, transposed, outpad;
};

static const struct famdef {
	const char *name;
	int fam, arg;		/* arg: attention layout, conv transposed */
	struct convargs c;
	int causal;		/* attention: 1 + the position of is_causal
				 * in "Concrete Inputs", or -(1 + that of an
				 * int custom_mask_type); 0: none */
} fams[] = {
	{ "aten::mm", F_MM, 0, { 0 }, 0 },
	{ "aten::addmm", F_ADDMM, 0, { 0 }, 0 },
	{ "aten::bmm", F_BMM, 0, { 0 }, 0 },
	{ "aten::baddbmm", F_BADDBMM, 0, { 0 }, 0 },
	{ "aten::matmul", F_MATMUL, 0, { 0 }, 0 },
	{ "aten::linear", F_LINEAR, 0, { 0 }, 0 },
	{ "aten::conv1d", F_CONV, 0, { 3, 4, 5, 6, -1, -1 }, 0 },
	{ "aten::conv2d", F_CONV, 0, { 3, 4, 5, 6, -1, -1 }, 0 },
	{ "aten::conv3d", F_CONV, 0, { 3, 4, 5, 6, -1, -1 }, 0 },
	{ "aten::convolution", F_CONV, 0, { 3, 4, 5, 8, 6, 7 }, 0 },
	{ "aten::_convolution", F_CONV, 0, { 3, 4, 5, 8, 6, 7 }, 0 },
	{ "aten::cudnn_convolution", F_CONV, 0, { 3, 2, 4, 5, -1, -1 }, 0 },
	{ "aten::mkldnn_convolution", F_CONV, 0, { 4, 3, 5, 6, -1, -1 }, 0 },
	{ "aten::miopen_convolution", F_CONV, 0, { 4, 3, 5, 6, -1, -1 }, 0 },
	{ "aten::conv_transpose1d", F_CONV, 1, { 3, 4, 7, 6, -1, 5 }, 0 },
	{ "aten::conv_transpose2d", F_CONV, 1, { 3, 4, 7, 6, -1, 5 }, 0 },
	{ "aten::conv_transpose3d", F_CONV, 1, { 3, 4, 7, 6, -1, 5 }, 0 },
	{ "aten::cudnn_convolution_transpose", F_CONV, 1,
	    { 4, 2, 5, 6, -1, 3 }, 0 },
	{ "aten::convolution_backward", F_CONV_BWD, 0, { 4, 5, 6, 9, 7, 8 },
	    0 },
	{ "aten::scaled_dot_product_attention", F_ATTN, L_BHSD, { 0 }, 6 },
	{ "aten::_scaled_dot_product_flash_attention", F_ATTN, L_BHSD, { 0 },
	    5 },
	{ "aten::_scaled_dot_product_flash_attention_for_cpu", F_ATTN, L_BHSD,
	    { 0 }, 5 },
	{ "aten::_scaled_dot_product_efficient_attention", F_ATTN, L_BHSD,
	    { 0 }, 7 },
	{ "aten::_scaled_dot_product_cudnn_attention", F_ATTN, L_BHSD, { 0 },
	    7 },
	{ "aten::_flash_attention_forward", F_ATTN, L_BSHD, { 0 }, 9 },
	{ "aten::_efficient_attention_forward", F_ATTN, L_BSHD, { 0 }, -10 },
	{ "flash_attn::_flash_attn_forward", F_ATTN, L_BSHD, { 0 }, 6 },
	{ "aten::_scaled_dot_product_flash_attention_backward", F_ATTN_BWD,
	    L_BHSD, { 0 }, 12 },
	{ "aten::_scaled_dot_product_efficient_attention_backward",
	    F_ATTN_BWD, L_BHSD, { 0 }, 12 },
	{ "aten::_scaled_dot_product_cudnn_attention_backward", F_ATTN_BWD,
	    L_BHSD, { 0 }, 15 },
	{ "aten::_flash_attention_backward", F_ATTN_BWD, L_BSHD, { 0 }, 12 },
	{ "aten::_efficient_attention_backward", F_ATTN_BWD, L_BSHD, { 0 },
	    -15 },
	{ "flash_attn::_flash_attn_backward", F_ATTN_BWD, L_BSHD, { 0 }, 12 },
	{ NULL, 0, 0, { 0 }, 0 }
};

#define MAXD 8			/* tensor rank read */
#define MAXCONV INT32_MAX	/* a convolution's sizes and scalars: their
				 * sums of products stay within int64 */

struct tensor {
	int n;			/* rank; -1: not a tensor */
	int64_t d[MAXD];
};

struct group {
	char *name, *shape;
	char dtype[8];
	int64_t count, flops, bytes, dev_ns;
	int tf32;		/* a kernel of an fp32 op ran on TF32 */
	int es;
};

struct op {
	int64_t ts, end, flops, bytes, dev_ns;
	uint32_t th, seq, group;
	int inner, mask;
};

/* A GPU activity linked to its launch call: coded in ln (linked). */
struct link {
	int64_t ts, ns;		/* launch start, activity duration */
	uint32_t th;		/* launch thread */
	int tf32;
};
#define LINK_MAX 32		/* the longest coded link: 3 x 10 bytes */

struct thr {
	int64_t pid, tid;
};

struct flops {
	json_t *gindex;
	struct group *g;
	size_t ng, capg;
	struct op *op;
	size_t nop, capop;
	struct pd_spill ln;	/* the links, in a temporary file past 256 KiB */
	int64_t lts;		/* the last link's ts */
	struct thr *th;
	size_t nth, capth;
	struct pd_i64map corr;
	struct pd_ksteps steps;
	int64_t unreadable, device;
	int have_device;
	struct pd_idmemo fam;	/* ev->name_id -> family + 1, 0: none */
	struct pd_idmemo lnch;	/* ev->name_id -> a launch, memcpy, memset */
};

struct flops *
flops_new(void)
{
	struct flops *f = pd_xcalloc(1, sizeof *f);

	f->gindex = json_object();
	return f;
}

void
flops_free(struct flops *f)
{
	size_t i;

	if (!f)
		return;
	for (i = 0; i < f->ng; i++) {
		free(f->g[i].name);
		free(f->g[i].shape);
	}
	free(f->g);
	free(f->op);
	pd_spill_free(&f->ln);
	free(f->th);
	json_decref(f->gindex);
	pd_i64map_free(&f->corr);
	pd_ksteps_free(&f->steps);
	pd_idmemo_free(&f->fam);
	pd_idmemo_free(&f->lnch);
	free(f);
}

static void *
grow(void *p, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return p;
	*cap = *cap ? *cap * 2 : 64;
	return pd_xrealloc(p, *cap * size);
}

static uint32_t
thread_of(struct flops *f, const struct pd_ev *ev)
{
	int64_t pid = pd_ev_pid_key(ev), tid = pd_ev_tid_key(ev);
	size_t i;

	for (i = 0; i < f->nth; i++)
		if (f->th[i].pid == pid && f->th[i].tid == tid)
			return (uint32_t)i;
	f->th = grow(f->th, &f->capth, f->nth, sizeof *f->th);
	f->th[f->nth].pid = pid;
	f->th[f->nth].tid = tid;
	return (uint32_t)f->nth++;
}

/* ---- shapes ---- */

/* *acc *= x; 0 when x is negative or the product overflows. */
static int
mul(int64_t *acc, int64_t x)
{
	if (x < 0 || (x > 0 && *acc > INT64_MAX / x))
		return 0;
	*acc *= x;
	return 1;
}

static int
add(int64_t *acc, int64_t x)
{
	if (x < 0 || *acc > INT64_MAX - x)
		return 0;
	*acc += x;
	return 1;
}

static int64_t
numel(const struct tensor *t)
{
	int64_t n = 1;
	int i;

	for (i = 0; i < t->n; i++)
		if (!mul(&n, t->d[i]))
			return -1;
	return n;
}

static void
tensor_at(json_t *dims, size_t i, struct tensor *t)
{
	json_t *a = json_array_get(dims, i), *v;
	size_t j;

	t->n = -1;
	if (!json_is_array(a) || json_array_size(a) > MAXD)
		return;
	json_array_foreach(a, j, v) {
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			return;
		t->d[j] = json_integer_value(v);
	}
	t->n = (int)json_array_size(a);
}

/* "fp32", "bf16", ... from a PyTorch dtype name; "" when none of those. */
static const char *
dtype_of(const char *t)
{
	if (!t)
		return "";
	if (!strcmp(t, "float") || !strcmp(t, "Float"))
		return "fp32";
	if (!strcmp(t, "c10::BFloat16") || !strcmp(t, "BFloat16"))
		return "bf16";
	if (!strcmp(t, "c10::Half") || !strcmp(t, "Half"))
		return "fp16";
	if (!strcmp(t, "double") || !strcmp(t, "Double"))
		return "fp64";
	if (!strncmp(t, "Float8", 6) || !strncmp(t, "c10::Float8", 11))
		return "fp8";
	return "";
}

/* A "Concrete Inputs" entry as n integers: "[2, 2]", "[1]" or "1" (one
 * value for every dimension). 1 when read. */
static int
intlist(json_t *concrete, int pos, int n, int64_t *out)
{
	const char *s;
	char *end;
	int k = 0, i;

	if (pos < 0 || !json_is_string(json_array_get(concrete, (size_t)pos)))
		return 0;
	s = json_string_value(json_array_get(concrete, (size_t)pos));
	while (*s == '[' || *s == ' ')
		s++;
	while (*s && *s != ']' && k < MAXD) {
		long long v = strtoll(s, &end, 10);

		if (end == s || v < 0 || v > MAXCONV)
			return 0;
		out[k++] = v;
		s = end;
		while (*s == ',' || *s == ' ')
			s++;
	}
	if (k == 1)
		for (i = 1; i < n; i++)
			out[i] = out[0];
	else if (k != n)
		return 0;
	return 1;
}

/* The "Concrete Inputs" entry at pos as a boolean ("True"/"False"),
 * dflt when absent. */
static int
boolarg(json_t *concrete, int pos, int dflt)
{
	json_t *v = pos < 0 ? NULL : json_array_get(concrete, (size_t)pos);

	if (!json_is_string(v))
		return dflt;
	if (!strcmp(json_string_value(v), "True"))
		return 1;
	if (!strcmp(json_string_value(v), "False"))
		return 0;
	return dflt;
}

enum { A_NONE, A_CAUSAL, A_FULL, A_UNKNOWN };	/* attention masks */

struct cost {
	int64_t flops, bytes;	/* bytes in elements until scaled */
	int first;		/* index of the operand giving the dtype */
	int mask;		/* attention: A_CAUSAL, A_FULL, A_UNKNOWN */
};

/* a[..., M, K] x b[..., K, N] as torch.matmul broadcasts them (a 1-D a
 * is [1, K], a 1-D b is [K, 1]). bias: elements of an added input, -1
 * when none. */
static int
matmul_cost(const struct tensor *a, const struct tensor *b, int64_t bias,
    int add_bias, struct cost *c)
{
	int64_t m, k, n, kb, batch = 1, out, x, y;
	int na, nb, i, nbatch;

	if (a->n < 1 || b->n < 1)
		return 0;
	m = a->n >= 2 ? a->d[a->n - 2] : 1;
	k = a->d[a->n - 1];
	kb = b->n >= 2 ? b->d[b->n - 2] : b->d[0];
	n = b->n >= 2 ? b->d[b->n - 1] : 1;
	if (k != kb)
		return 0;
	na = a->n > 2 ? a->n - 2 : 0;
	nb = b->n > 2 ? b->n - 2 : 0;
	nbatch = na > nb ? na : nb;
	for (i = 0; i < nbatch; i++) {	/* broadcast from the right */
		x = i < na ? a->d[na - 1 - i] : 1;
		y = i < nb ? b->d[nb - 1 - i] : 1;
		if (x != y && x != 1 && y != 1)
			return 0;
		if (!mul(&batch, x > y ? x : y))
			return 0;
	}
	out = batch;
	c->flops = 2;
	if (!mul(&out, m) || !mul(&out, n) || !mul(&c->flops, out) ||
	    !mul(&c->flops, k))
		return 0;
	if (add_bias && !add(&c->flops, out))
		return 0;
	c->bytes = out;
	if (!add(&c->bytes, numel(a)) || !add(&c->bytes, numel(b)))
		return 0;
	return bias < 0 || add(&c->bytes, bias);
}

/* Multiply-accumulates of a convolution: N x the spatial size of the
 * output (of the input, for a transposed one) x every weight element. */
static int
conv_macs(int64_t batch, const int64_t *sp, int nsp, const struct tensor *w,
    int64_t *macs)
{
	int i;

	*macs = batch;
	for (i = 0; i < nsp; i++)
		if (!mul(macs, sp[i]))
			return 0;
	return mul(macs, numel(w) < 0 ? -1 : numel(w));
}

static int
conv_cost(const struct famdef *fd, json_t *dims, json_t *concrete,
    struct cost *c)
{
	struct tensor in, w, bias;
	int64_t st[MAXD], pd[MAXD], dl[MAXD], op[MAXD], osp[MAXD], g = 1;
	int64_t out, macs;
	int nsp, i, tr = fd->arg;

	tensor_at(dims, 0, &in);
	tensor_at(dims, 1, &w);
	tensor_at(dims, 2, &bias);
	if (in.n < 3 || w.n != in.n)
		return 0;
	nsp = in.n - 2;
	tr = boolarg(concrete, fd->c.transposed, tr);
	if (!intlist(concrete, fd->c.stride, nsp, st) ||
	    !intlist(concrete, fd->c.dil, nsp, dl))
		return 0;
	if (!intlist(concrete, fd->c.pad, nsp, pd)) {
		json_t *p = json_array_get(concrete, (size_t)fd->c.pad);

		if (!json_is_string(p))
			return 0;
		if (!strcmp(json_string_value(p), "valid"))
			memset(pd, 0, sizeof pd);
		else if (strcmp(json_string_value(p), "same"))
			return 0;
		else	/* "same" allows stride 1 only: output = input */
			for (i = 0; i < nsp; i++)
				pd[i] = -1;
	}
	if (fd->c.outpad < 0 || !intlist(concrete, fd->c.outpad, nsp, op))
		memset(op, 0, sizeof op);
	if (fd->c.groups >= 0 && !intlist(concrete, fd->c.groups, 1, &g))
		return 0;
	for (i = 0; i < nsp; i++) {
		int64_t h = in.d[2 + i], k = w.d[2 + i];

		if (h > MAXCONV || k > MAXCONV)
			return 0;
		if (pd[i] < 0)
			osp[i] = h;
		else if (tr)
			osp[i] = (h - 1) * st[i] - 2 * pd[i] + dl[i] * (k - 1) +
			    op[i] + 1;
		else if (st[i] > 0)
			osp[i] = (h + 2 * pd[i] - dl[i] * (k - 1) - 1) / st[i] + 1;
		else
			return 0;
		if (osp[i] <= 0)
			return 0;
	}
	if (!conv_macs(in.d[0], tr ? in.d + 2 : osp, nsp, &w, &macs))
		return 0;
	c->flops = 2;
	if (!mul(&c->flops, macs))
		return 0;
	out = in.d[0];	/* N x Cout x output spatial */
	if (!mul(&out, tr ? w.d[1] : w.d[0]) || (tr && !mul(&out, g)))
		return 0;
	for (i = 0; i < nsp; i++)
		if (!mul(&out, osp[i]))
			return 0;
	c->bytes = out;
	if (!add(&c->bytes, numel(&in)) || !add(&c->bytes, numel(&w)))
		return 0;
	if (bias.n > 0 && !add(&c->bytes, numel(&bias)))
		return 0;
	return 1;
}

/* convolution_backward(grad_output, input, weight, bias_sizes, ...,
 * output_mask): the forward's MACs once for the input gradient and once
 * for the weight gradient (each as output_mask asks; both when it is not
 * recorded). */
static int
conv_bwd_cost(const struct famdef *fd, json_t *dims, json_t *concrete,
    struct cost *c)
{
	struct tensor go, in, w;
	int64_t macs, mask[3] = { 1, 1, 0 };
	json_t *m = json_array_get(concrete, 10);
	int tr, nsp, k;

	tensor_at(dims, 0, &go);
	tensor_at(dims, 1, &in);
	tensor_at(dims, 2, &w);
	if (in.n < 3 || go.n != in.n || w.n != in.n)
		return 0;
	nsp = in.n - 2;
	tr = boolarg(concrete, fd->c.transposed, 0);
	if (json_is_string(m)) {
		const char *s = json_string_value(m);

		for (k = 0; k < 3 && (s = strpbrk(s, "TF")); k++, s++)
			mask[k] = *s == 'T';
	}
	if (!conv_macs(in.d[0], tr ? in.d + 2 : go.d + 2, nsp, &w, &macs))
		return 0;
	c->flops = 2 * (mask[0] + mask[1]);
	if (!mul(&c->flops, macs))
		return 0;
	c->bytes = numel(&go);	/* read grad_output, input, weight */
	if (!add(&c->bytes, numel(&in)) || !add(&c->bytes, numel(&w)) ||
	    (mask[0] && !add(&c->bytes, numel(&in))) ||
	    (mask[1] && !add(&c->bytes, numel(&w))))
		return 0;
	return 1;
}

/* Whether an attention is causal, as its "Concrete Inputs" say: is_causal
 * "True" or "False", or custom_mask_type "0" (none), "1" or "2" (causal,
 * from the top left or the bottom right); anything else is unknown. */
static int
attn_mask(const struct famdef *fd, json_t *concrete)
{
	int pos = fd->causal > 0 ? fd->causal - 1 : -fd->causal - 1;
	const char *v = pos < 0 ? NULL : json_string_value(json_array_get(
	    concrete, (size_t)pos));

	if (!v)
		return A_UNKNOWN;
	if (fd->causal > 0)
		return !strcmp(v, "True") ? A_CAUSAL : !strcmp(v, "False") ?
		    A_FULL : A_UNKNOWN;
	return !strcmp(v, "0") ? A_FULL : !strcmp(v, "1") || !strcmp(v, "2") ?
	    A_CAUSAL : A_UNKNOWN;
}

/* Attention: 2 x B x H x Sq x Sk x (D + Dv) forward (Q K^T and P V);
 * the backward twice that (torch.utils.flop_counter); a causal one half
 * of it (the FlashAttention benchmarks' convention). */
static int
attn_cost(const struct famdef *fd, json_t *dims, json_t *concrete,
    struct cost *c)
{
	struct tensor q, k, v;
	int64_t b, h, sq, sk, d, dv, o;
	int base = fd->fam == F_ATTN_BWD;

	tensor_at(dims, (size_t)base, &q);
	tensor_at(dims, (size_t)base + 1, &k);
	tensor_at(dims, (size_t)base + 2, &v);
	if (q.n != 4 || k.n != 4 || v.n != 4)
		return 0;
	b = q.d[0];
	h = fd->arg == L_BHSD ? q.d[1] : q.d[2];
	sq = fd->arg == L_BHSD ? q.d[2] : q.d[1];
	sk = fd->arg == L_BHSD ? k.d[2] : k.d[1];
	d = q.d[3];
	dv = v.d[3];
	c->flops = 2 * (base + 1);
	o = b;
	if (d > INT64_MAX - dv)
		return 0;
	if (!mul(&c->flops, b) || !mul(&c->flops, h) || !mul(&c->flops, sq) ||
	    !mul(&c->flops, sk) || !mul(&c->flops, d + dv) || !mul(&o, h) ||
	    !mul(&o, sq) || !mul(&o, dv))
		return 0;
	c->first = base;
	c->bytes = o;	/* Q K V O; backward: dO Q K V O, dQ dK dV */
	if (!add(&c->bytes, numel(&q)) || !add(&c->bytes, numel(&k)) ||
	    !add(&c->bytes, numel(&v)))
		return 0;
	if (base && !mul(&c->bytes, 2))
		return 0;
	c->mask = attn_mask(fd, concrete);
	if (c->mask == A_CAUSAL)
		c->flops /= 2;	/* even: 2 x ... */
	return 1;
}

static int
cost_of(const struct famdef *fd, json_t *dims, json_t *concrete,
    struct cost *c)
{
	struct tensor a, b, x;

	c->first = 0;
	c->mask = A_NONE;
	switch (fd->fam) {
	case F_MM:
	case F_BMM:
	case F_MATMUL:
		tensor_at(dims, 0, &a);
		tensor_at(dims, 1, &b);
		if ((fd->fam == F_MM && (a.n != 2 || b.n != 2)) ||
		    (fd->fam == F_BMM && (a.n != 3 || b.n != 3)))
			return 0;
		return matmul_cost(&a, &b, -1, 0, c);
	case F_ADDMM:
	case F_BADDBMM:
		tensor_at(dims, 0, &x);
		tensor_at(dims, 1, &a);
		tensor_at(dims, 2, &b);
		if (x.n < 0 || a.n != b.n || a.n != (fd->fam == F_ADDMM ? 2 : 3))
			return 0;
		return matmul_cost(&a, &b, numel(&x), 1, c);
	case F_LINEAR:	/* x[..., K] w[N, K] bias[N]: x @ w^T + bias */
		tensor_at(dims, 0, &a);
		tensor_at(dims, 1, &x);
		tensor_at(dims, 2, &b);
		if (x.n != 2 || a.n < 1)
			return 0;
		{
			struct tensor wt = { 2, { x.d[1], x.d[0] } };

			return matmul_cost(&a, &wt, b.n > 0 ? numel(&b) : -1,
			    b.n > 0, c);
		}
	case F_CONV:
		return conv_cost(fd, dims, concrete, c);
	case F_CONV_BWD:
		return conv_bwd_cost(fd, dims, concrete, c);
	default:
		return attn_cost(fd, dims, concrete, c);
	}
}

/* "16x559x1024, 1024x1024": the tensor operands' dims. */
static char *
shape_text(json_t *dims)
{
	size_t cap = 64, len = 0, i, j;
	char *s = pd_xrealloc(NULL, cap);
	json_t *a, *v;

	s[0] = '\0';
	json_array_foreach(dims, i, a) {
		if (!json_is_array(a) || json_array_size(a) == 0)
			continue;
		json_array_foreach(a, j, v) {
			char buf[32];
			int n = snprintf(buf, sizeof buf, "%s%lld",
			    j ? "x" : len ? ", " : "",
			    (long long)json_integer_value(v));

			while (len + (size_t)n + 1 > cap)
				s = pd_xrealloc(s, cap *= 2);
			memcpy(s + len, buf, (size_t)n + 1);
			len += (size_t)n;
		}
	}
	return s;
}

static uint32_t
group_of(struct flops *f, const char *name, const char *dtype, char *shape,
    int es)
{
	size_t len = strlen(name) + strlen(dtype) + strlen(shape) + 3;
	char *key = pd_xrealloc(NULL, len);
	json_t *v;
	struct group *g;

	snprintf(key, len, "%s\x1f%s\x1f%s", name, dtype, shape);
	if ((v = json_object_get(f->gindex, key))) {
		free(key);
		free(shape);
		return (uint32_t)json_integer_value(v);
	}
	f->g = grow(f->g, &f->capg, f->ng, sizeof *f->g);
	g = &f->g[f->ng];
	memset(g, 0, sizeof *g);
	g->name = pd_xrealloc(NULL, strlen(name) + 1);
	strcpy(g->name, name);
	snprintf(g->dtype, sizeof g->dtype, "%s", dtype);
	g->shape = shape;
	g->es = es;
	json_object_set_new(f->gindex, key, json_integer((json_int_t)f->ng));
	free(key);
	return (uint32_t)f->ng++;
}

static void
on_op(struct flops *f, const struct pd_ev *ev, const struct famdef *fd)
{
	json_t *args = pd_ev_args_json(ev), *dims, *types;
	struct cost c;
	const char *tname;
	struct op *o;
	int es;

	dims = json_object_get(args, "Input Dims");
	types = json_object_get(args, "Input type");
	if (!json_is_array(dims)) {	/* shapes not recorded */
		json_decref(args);
		return;
	}
	if (!cost_of(fd, dims, json_object_get(args, "Concrete Inputs"), &c) ||
	    !(tname = json_string_value(json_array_get(types,
	    (size_t)c.first))) || (es = pd_kineto_dtype_size(tname)) == 0 ||
	    !mul(&c.bytes, es)) {
		f->unreadable++;
		json_decref(args);
		return;
	}
	f->op = grow(f->op, &f->capop, f->nop, sizeof *f->op);
	o = &f->op[f->nop++];
	memset(o, 0, sizeof *o);
	o->ts = ev->ts_ns;
	o->end = pd_num_add_sat(ev->ts_ns, ev->dur_ns > 0 ? ev->dur_ns : 0);
	o->flops = c.flops;
	o->bytes = c.bytes;
	o->mask = c.mask;
	o->th = thread_of(f, ev);
	o->seq = (uint32_t)ev->index;
	o->group = group_of(f, ev->name, dtype_of(tname), shape_text(dims),
	    es);
	json_decref(args);
}

static int
is_tf32(const char *kernel)
{
	return strstr(kernel, "tf32") || strstr(kernel, "s1688");
}

static void
linked(struct flops *f, int64_t ts, uint32_t th, int64_t ns, int tf32)
{
	unsigned char *p = pd_spill_reserve(&f->ln, LINK_MAX);

	p = pd_spill_put_d(p, ts, f->lts);
	p = pd_spill_put_u(p, (uint64_t)th << 1 | (tf32 != 0));
	p = pd_spill_put_d(p, ns, 0);
	pd_spill_commit(&f->ln, p);
	f->lts = ts;
}

static void
on_gpu(struct flops *f, const struct pd_ev *ev)
{
	struct pd_i64ent *e;
	int64_t corr, dev, ns = ev->dur_ns > 0 ? ev->dur_ns : 0;

	if (!f->have_device && pd_ev_arg_int(ev, "device", &dev)) {
		f->device = dev;
		f->have_device = 1;
	}
	if (!pd_ev_arg_int(ev, "correlation", &corr))
		return;
	if ((e = pd_i64map_get(&f->corr, corr, TAG_LAUNCH))) {
		linked(f, e->v[0], (uint32_t)e->v[1], ns, is_tf32(ev->name));
		pd_i64map_del(&f->corr, e);
		return;
	}
	e = pd_i64map_put(&f->corr, corr, TAG_KERNEL);
	e->v[0] = ns;
	e->u = (uint32_t)is_tf32(ev->name);
}

static void
on_launch(struct flops *f, const struct pd_ev *ev)
{
	struct pd_i64ent *e;
	int64_t corr;
	uint32_t th;
	int any = 0;

	int32_t l = pd_idmemo_get(&f->lnch, ev, ev->name_id);

	if (l < 0) {
		l = strstr(ev->name, "Launch") || strstr(ev->name, "Memcpy") ||
		    strstr(ev->name, "Memset");
		pd_idmemo_set(&f->lnch, ev, ev->name_id, l);
	}
	if (!l)
		return;
	if (!pd_ev_arg_int(ev, "correlation", &corr))
		return;
	th = thread_of(f, ev);
	while ((e = pd_i64map_get(&f->corr, corr, TAG_KERNEL))) {
		linked(f, ev->ts_ns, th, e->v[0], (int)e->u);
		pd_i64map_del(&f->corr, e);
		any = 1;
	}
	if (!any) {
		e = pd_i64map_put(&f->corr, corr, TAG_LAUNCH);
		e->v[0] = ev->ts_ns;
		e->v[1] = th;
	}
}

void
flops_event(struct flops *f, const struct pd_ev *ev, int kc)
{
	static size_t famlen[sizeof fams / sizeof *fams];
	size_t i, len;
	int64_t step;
	int32_t k;

	if (pd_kineto_is_gpu(kc)) {
		on_gpu(f, ev);
		return;
	}
	if (kc == PD_KC_RUNTIME) {
		on_launch(f, ev);
		return;
	}
	if (pd_kineto_is_cpu_range(kc) &&
	    (step = pd_kineto_step_num(ev->name)) >= 0) {
		pd_ksteps_add(&f->steps, step, ev->ts_ns,
		    pd_num_add_sat(ev->ts_ns, ev->dur_ns));
		return;
	}
	if (kc != PD_KC_CPU_OP)
		return;
	if ((k = pd_idmemo_get(&f->fam, ev, ev->name_id)) < 0) {
		if (!famlen[0])
			for (i = 0; fams[i].name; i++)
				famlen[i] = strlen(fams[i].name);
		len = strlen(ev->name);
		for (i = 0; fams[i].name; i++)
			if (famlen[i] == len &&
			    !memcmp(fams[i].name, ev->name, len))
				break;
		k = fams[i].name ? (int32_t)i + 1 : 0;
		pd_idmemo_set(&f->fam, ev, ev->name_id, k);
	}
	if (k > 0)
		on_op(f, ev, &fams[k - 1]);
}

/* ---- at the end ---- */

static int
cmp_op(const void *x, const void *y)
{
	const struct op *a = x, *b = y;

	if (a->th != b->th)
		return a->th < b->th ? -1 : 1;
	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	if (a->end != b->end)
		return a->end > b->end ? -1 : 1;	/* outer first */
	return (a->seq > b->seq) - (a->seq < b->seq);
}

struct attr {
	struct flops *f;
	struct link l;		/* the last one read */
};

/* Give one link to the outer op whose span holds its launch: the last
 * outer op of its thread starting at or before it. */
static const unsigned char *
attr_one(const unsigned char *p, const unsigned char *end, void *ctx)
{
	struct attr *a = ctx;
	struct flops *f = a->f;
	struct link *l = &a->l;
	size_t lo = 0, hi = f->nop, first;
	struct op *o;
	uint64_t th;

	l->ts = pd_spill_get_d(&p, end, l->ts);
	th = pd_spill_get_u(&p, end);
	l->th = (uint32_t)(th >> 1);
	l->tf32 = (int)(th & 1);
	l->ns = pd_spill_get_d(&p, end, 0);
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct op *m = &f->op[mid];

		if (m->th < l->th || (m->th == l->th && m->ts <= l->ts))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (first = lo; first > 0 && f->op[first - 1].inner; first--)
		;
	if (first == 0)
		return p;
	o = &f->op[first - 1];
	if (o->th != l->th || l->ts >= o->end)
		return p;
	SADD(o->dev_ns, l->ns);
	if (l->tf32)
		f->g[o->group].tf32 = 1;
	return p;
}

/* Mark the ops inside another one of their thread, then give each linked
 * activity to the outer op whose span holds its launch. */
static void
attribute(struct flops *f)
{
	struct attr a;
	size_t i;
	int64_t end = 0;
	uint32_t th = UINT32_MAX;
	int err;

	if (f->nop > 1)
		qsort(f->op, f->nop, sizeof *f->op, cmp_op);
	for (i = 0; i < f->nop; i++) {
		struct op *o = &f->op[i];

		if (o->th == th && o->ts < end) {
			o->inner = 1;
			continue;
		}
		th = o->th;
		end = o->end;
	}
	memset(&a, 0, sizeof a);
	a.f = f;
	if (f->nop == 0)
		pd_spill_free(&f->ln);
	else if ((err = pd_spill_each(&f->ln, LINK_MAX, attr_one, &a)))
		pd_warn(NULL, 0, "the launches of the FLOP-bearing operators "
		    "could not be kept in a temporary file (%s); their "
		    "device times are partial", strerror(err));
}

/* ---- peaks ---- */

static json_t *
load_peaks(void)
{
	static json_t *peaks;
	static int tried;
	char buf[4096];
	const char *p;

	if (tried)
		return peaks;
	tried = 1;
	if (!(p = pd_share_path("limits/peaks.yaml", buf, sizeof buf))) {
		pd_warn(NULL, 0, "limits/peaks.yaml not found (set PD_SHAREDIR "
		    "or -S): no MFU");
		return NULL;
	}
	peaks = pd_yamlio_load(p);
	return peaks;
}

/* The peaks.yaml entry of a device name (first pattern that hits:
 * case-insensitive substring, "=" for the whole name), borrowed. */
static json_t *
peak_entry(const char *name)
{
	json_t *list = json_object_get(load_peaks(), "accelerators"), *e, *p;
	size_t i, j;

	if (!name)
		return NULL;
	json_array_foreach(list, i, e)
		json_array_foreach(json_object_get(e, "match"), j, p) {
			const char *s = json_string_value(p);

			if (s && (s[0] == '=' ? !strcasecmp(s + 1, name) :
			    strcasestr(name, s) != NULL))
				return e;
		}
	return NULL;
}

static const char *
device_name(struct flops *f, const struct pd_kineto_info *info)
{
	json_t *d;
	size_t i;

	if (json_array_size(info->devices) == 1)
		return json_string_value(json_object_get(json_array_get(
		    info->devices, 0), "name"));
	json_array_foreach(info->devices, i, d)
		if (f->have_device && json_integer_value(json_object_get(d,
		    "id")) == f->device)
			return json_string_value(json_object_get(d, "name"));
	return NULL;
}

/* TFLOP/s of a dtype on the device, NAN when unknown. */
static double
peak_of(json_t *e, const char *dtype)
{
	char key[24];

	if (!e || !*dtype || !strcmp(dtype, "fp64"))
		return NAN;
	snprintf(key, sizeof key, "%s_tflops", dtype);
	return pd_rec_num(e, key, NAN);
}

static const char *
eff_dtype(const struct group *g)
{
	return g->tf32 && !strcmp(g->dtype, "fp32") ? "tf32" : g->dtype;
}

/* ---- output ---- */

static struct flops *sort_f;

static int
cmp_group(const void *x, const void *y)
{
	const struct group *a = &sort_f->g[*(const size_t *)x];
	const struct group *b = &sort_f->g[*(const size_t *)y];
	int c;

	if (a->dev_ns != b->dev_ns)
		return a->dev_ns > b->dev_ns ? -1 : 1;
	if (a->flops != b->flops)
		return a->flops > b->flops ? -1 : 1;
	if ((c = strcmp(a->name, b->name)))
		return c;
	if ((c = strcmp(a->dtype, b->dtype)))
		return c;
	return strcmp(a->shape, b->shape);
}

static double
tflops(int64_t flops, int64_t ns)
{
	return ns > 0 ? (double)flops / (double)ns / 1e3 : NAN;
}

static json_t *
group_json(const struct group *g, json_t *peak, double bw)
{
	json_t *o = json_object();
	double pk = peak_of(peak, eff_dtype(g)), ai, ridge;

	pd_set_str(o, "name", g->name);
	pd_set_str(o, "dtype", *g->dtype ? eff_dtype(g) : NULL);
	pd_set_str(o, "shape", g->shape);
	pd_set_int(o, "count", g->count);
	pd_set_int(o, "flops", g->flops);
	pd_set_int(o, "bytes", g->bytes);
	pd_set_real(o, "device_us", (double)g->dev_ns / 1e3, 3);
	pd_set_real(o, "tflop_per_s", tflops(g->flops, g->dev_ns), 3);
	pd_set_real(o, "mfu_ratio", tflops(g->flops, g->dev_ns) / pk, 4);
	ai = g->bytes > 0 ? (double)g->flops / (double)g->bytes : NAN;
	ridge = pk / bw;
	pd_set_real(o, "intensity_flop_per_byte", ai, 2);
	pd_set_real(o, "ridge_flop_per_byte", ridge, 1);
	pd_set_str(o, "bound", isnan(ai) || isnan(ridge) ? "unknown" :
	    ai >= ridge ? "compute" : "memory");
	return o;
}

struct dsum {
	char dtype[8];
	int64_t count, flops, dev_ns;
};

static int
cmp_dsum(const void *x, const void *y)
{
	const struct dsum *a = x, *b = y;

	if (a->flops != b->flops)
		return a->flops > b->flops ? -1 : 1;
	return strcmp(a->dtype, b->dtype);
}

static json_t *
by_dtype_json(struct flops *f, json_t *peak, int64_t busy_ns)
{
	struct dsum *d = pd_xcalloc(f->ng + 1, sizeof *d);
	size_t n = 0, i, j;
	json_t *a = json_array();

	for (i = 0; i < f->ng; i++) {
		const char *t = eff_dtype(&f->g[i]);

		if (f->g[i].count == 0)	/* only ever inside another */
			continue;
		for (j = 0; j < n && strcmp(d[j].dtype, t); j++)
			;
		if (j == n)
			snprintf(d[n++].dtype, sizeof d->dtype, "%s", t);
		SADD(d[j].count, f->g[i].count);
		SADD(d[j].flops, f->g[i].flops);
		SADD(d[j].dev_ns, f->g[i].dev_ns);
	}
	qsort(d, n, sizeof *d, cmp_dsum);
	for (i = 0; i < n; i++) {
		json_t *o = json_object();

		pd_set_str(o, "dtype", *d[i].dtype ? d[i].dtype : NULL);
		pd_set_int(o, "count", d[i].count);
		pd_set_int(o, "flops", d[i].flops);
		pd_set_real(o, "device_us", (double)d[i].dev_ns / 1e3, 3);
		pd_set_real(o, "device_ratio", busy_ns > 0 ?
		    (double)d[i].dev_ns / (double)busy_ns : NAN, 4);
		pd_set_real(o, "peak_tflops", peak_of(peak, d[i].dtype), 3);
		json_array_append_new(a, o);
	}
	free(d);
	return a;
}

json_t *
flops_json(struct flops *f, const struct pd_kineto_info *info,
    int64_t busy_ns, int topn)
{
	static const char *const dts[] = { "fp32", "tf32", "fp16", "bf16",
		"fp8" };
	json_t *rec, *peak, *pk, *top, *rest;
	const char *dev = device_name(f, info);
	int64_t flops = 0, bytes = 0, dev_ns = 0, ops = 0, sflops = 0;
	int64_t step_ns = 0, rn = 0, rflops = 0, rdev = 0, causal = 0;
	int64_t unknown = 0;
	double t_busy = 0, t_step = 0, bw;	/* seconds at peak */
	int known = 1;
	size_t i, *v;

	if (f->nop == 0 && f->unreadable == 0)
		return json_null();
	attribute(f);
	pd_ksteps_sort(&f->steps);
	peak = dev ? peak_entry(dev) : NULL;
	bw = peak ? pd_rec_num(peak, "mem_bw_tb_per_s", NAN) : NAN;
	for (i = 0; i < f->nop; i++) {
		struct op *o = &f->op[i];
		struct group *g = &f->g[o->group];

		if (o->inner)
			continue;
		causal += o->mask == A_CAUSAL;
		unknown += o->mask == A_UNKNOWN;
		g->count++;
		SADD(g->flops, o->flops);
		SADD(g->bytes, o->bytes);
		SADD(g->dev_ns, o->dev_ns);
		if (f->steps.n && pd_ksteps_find(&f->steps, o->ts) >= 0)
			SADD(sflops, o->flops);
	}
	for (i = 0; i < f->ng; i++) {	/* after attribute: tf32 known */
		struct group *g = &f->g[i];
		double p = peak_of(peak, eff_dtype(g));

		SADD(ops, g->count);
		SADD(flops, g->flops);
		SADD(bytes, g->bytes);
		SADD(dev_ns, g->dev_ns);
		if (g->flops && isnan(p))
			known = 0;
		else if (g->flops)
			t_busy += (double)g->flops / (p * 1e12);
	}
	for (i = 0; i < f->nop && f->steps.n; i++) {
		struct op *o = &f->op[i];

		if (!o->inner && pd_ksteps_find(&f->steps, o->ts) >= 0)
			t_step += (double)o->flops / (peak_of(peak,
			    eff_dtype(&f->g[o->group])) * 1e12);
	}
	for (i = 0; i < f->steps.n; i++)
		if (f->steps.v[i].e > f->steps.v[i].s) {
			uint64_t d = (uint64_t)f->steps.v[i].e -
			    (uint64_t)f->steps.v[i].s;

			SADD(step_ns, d > INT64_MAX ? INT64_MAX : (int64_t)d);
		}
	rec = json_object();
	pd_set_int(rec, "ops", ops);
	pd_set_int(rec, "unreadable", f->unreadable);
	pd_set_int(rec, "causal_ops", causal);
	pd_set_int(rec, "causal_unknown_ops", unknown);
	pd_set_int(rec, "flops", flops);
	pd_set_int(rec, "bytes", bytes);
	pd_set_real(rec, "device_us", (double)dev_ns / 1e3, 3);
	pd_set_real(rec, "busy_us", busy_ns > 0 ? (double)busy_ns / 1e3 : NAN,
	    3);
	pd_set_real(rec, "device_ratio", busy_ns > 0 ? (double)dev_ns /
	    (double)busy_ns : NAN, 4);
	pd_set_real(rec, "busy_tflop_per_s", tflops(flops, busy_ns), 3);
	pd_set_real(rec, "mfu_busy_ratio", known && busy_ns > 0 ? t_busy /
	    ((double)busy_ns / 1e9) : NAN, 4);
	pd_set_int(rec, "steps", (int64_t)f->steps.n);
	pd_set_real(rec, "step_us", step_ns > 0 ? (double)step_ns / 1e3 : NAN,
	    3);
	if (f->steps.n)
		pd_set_int(rec, "step_flops", sflops);
	else
		pd_set_null(rec, "step_flops");
	pd_set_real(rec, "step_tflop_per_s", tflops(sflops, step_ns), 3);
	pd_set_real(rec, "mfu_step_ratio", known && step_ns > 0 ? t_step /
	    ((double)step_ns / 1e9) : NAN, 4);
	pd_set_str(rec, "device", dev);
	pd_set_str(rec, "peak_key", peak ? pd_rec_str(peak, "key") : NULL);
	if (peak) {
		pk = json_object();
		for (i = 0; i < sizeof dts / sizeof dts[0]; i++)
			pd_set_real(pk, dts[i], peak_of(peak, dts[i]), 3);
		pd_set(rec, "peak_tflops", pk);
	} else {
		pd_set_null(rec, "peak_tflops");
	}
	pd_set_real(rec, "mem_bw_tb_per_s", bw, 3);
	pd_set(rec, "by_dtype", by_dtype_json(f, peak, busy_ns));
	v = pd_xcalloc(f->ng + 1, sizeof *v);
	for (i = 0; i < f->ng; i++)
		v[i] = i;
	sort_f = f;
	qsort(v, f->ng, sizeof *v, cmp_group);
	top = json_array();
	for (i = 0; i < f->ng; i++) {
		struct group *g = &f->g[v[i]];

		if (g->count == 0)
			continue;
		if ((int)json_array_size(top) < topn) {
			json_array_append_new(top, group_json(g, peak, bw));
		} else {
			SADD(rn, g->count);
			SADD(rflops, g->flops);
			SADD(rdev, g->dev_ns);
		}
	}
	free(v);
	pd_set(rec, "top", top);
	rest = json_object();
	pd_set_int(rest, "count", rn);
	pd_set_int(rest, "flops", rflops);
	pd_set_real(rest, "device_us", (double)rdev / 1e3, 3);
	pd_set(rec, "top_rest", rest);
	return rec;
}
