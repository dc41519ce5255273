/* The job: workload, stack, world size and the parallel layout (groups,
 * pipeline stages), each with where it came from; the pd.context of a run. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pd_formats.h"
#include "pd_diag.h"
#include "pd_path.h"
#include "pd_rec.h"
#include "pd-profile/profile.h"

/* Every pd.context of the stream (pd_runs keeps only the first). */
static json_t *contexts;

void
job_contexts_add(json_t *ctx)
{
	if (!contexts)
		contexts = json_array();
	json_array_append(contexts, ctx);
}

void
job_contexts_free(void)
{
	json_decref(contexts);
	contexts = NULL;
}

/* ---- workload and stack ---- */

static int
names_match(json_t *list, const char *const *words)
{
	size_t i;
	int w;

	for (i = 0; i < json_array_size(list); i++) {
		const char *n = pd_rec_str(json_array_get(list, i), "name");

		for (w = 0; n && words[w]; w++)
			if (strcasestr(n, words[w]))
				return 1;
	}
	return 0;
}

static void
source(json_t *srcs, const char *key, const char *from)
{
	pd_set_str(srcs, key, from);
}

/* A value where the traces and pd.context disagree: the trace wins. */
static void
conflict(json_t *confl, const char *field, json_t *trace, json_t *ctx)
{
	json_t *c = json_object();

	pd_set_str(c, "field", field);
	pd_set(c, "trace", trace);
	pd_set(c, "context", ctx);
	json_array_append_new(confl, c);
}

/* Whether some root's dump says which framework wrote it. */
static int
framework_known(struct prun *pr)
{
	size_t i;

	for (i = 0; i < pr->n; i++) {
		json_t *v = pr->un[i].view;
		json_t *f = pd_path_get(v, "root.format");
		json_t *rf = pd_path_get(v, "root.framework");
		const struct pd_format *pf = json_is_string(f) ?
		    pd_format_get(json_string_value(f)) : NULL;

		if (json_is_string(rf) || !pf || !pf->any_program)
			return 1;
	}
	return 0;
}

void
set_workload(json_t *p, struct prun *pr, json_t *srcs, json_t *confl)
{
	/* matched without case; FSDP's hooks and activation checkpointing
	 * are training machinery, so a window of forward passes only (an
	 * nsys slice) still reads as training */
	static const char *const train[] = { "backward", "Grad", "optimizer",
	    "Adam", "SGD", "zero_grad", "flash_bwd", "FSDP::",
	    "_checkpoint_wrapped_module", "DistributedDataParallel",
	    "autograd::engine", NULL };
	struct pd_run *u = pr->u;
	const char *w = u->context ? pd_rec_str(u->context, "workload") : NULL;
	const char *cw;
	size_t i;
	int seen = 0, cue = 0;

	if (w && strcmp(w, "training") && strcmp(w, "inference"))
		w = NULL;
	for (i = 0; i < pr->n; i++) {
		json_t *h = json_object_get(pr->un[i].view, "hotspot");

		if (!h)
			continue;
		seen = 1;
		cue |= names_match(json_object_get(h, "top"), train) ||
		    names_match(json_object_get(h, "cpu_ops"), train) ||
		    names_match(json_object_get(h, "by_type"), train);
	}
	/* no training operators says "inference" only of a framework's
	 * trace: a CUDA program (an nsys export of no framework) has none */
	cw = !seen ? NULL : cue ? "training" : framework_known(pr) ?
	    "inference" : NULL;
	/* Training operators in the trace are evidence and win over the
	 * context; "inference" from their absence does not. */
	if (w && !cue) {
		pd_set_str(p, "workload", w);
		pd_set_str(p, "workload_source", "context");
		source(srcs, "workload", cw && !strcmp(cw, w) ? "both" :
		    "context");
		if (cw && strcmp(cw, w))
			conflict(confl, "workload", json_string(cw),
			    json_string(w));
		return;
	}
	pd_set_str(p, "workload", cw);
	pd_set_str(p, "workload_source", seen ? "cues" : NULL);
	source(srcs, "workload", !cw ? NULL : w && !strcmp(w, cw) ? "both" :
	    "trace");
	if (w && cw && strcmp(w, cw))
		conflict(confl, "workload", json_string(cw), json_string(w));
}

static int
cmp_json_str(const void *a, const void *b)
{
	return strcmp(json_string_value(*(json_t *const *)a),
	    json_string_value(*(json_t *const *)b));
}

json_t *
sorted_unique(json_t *arr)
{
	json_t *v = pd_json_sorted(arr, cmp_json_str), *out = json_array();
	size_t i;

	for (i = 0; i < json_array_size(v); i++)
		if (i == 0 || strcmp(json_string_value(json_array_get(v, i)),
		    json_string_value(json_array_get(v, i - 1))))
			json_array_append(out, json_array_get(v, i));
	json_decref(v);
	json_decref(arr);
	return out;
}

json_t *
stack(struct prun *pr, json_t *srcs, json_t *confl)
{
	struct pd_run *u = pr->u;
	json_t *s = json_object(), *formats = json_array();
	const char *fam = NULL, *dev = NULL, *fdev = NULL, *fw = NULL, *cfw;
	json_t *v;
	size_t i;
	int kernels = 0, cpu_only = 0, fwmix = 0, famix = 0, devmix = 0;
	int undev = 0;

	cfw = u->context ? pd_rec_str(u->context, "stack") : NULL;
	if (cfw && strcmp(cfw, "torch") && strcmp(cfw, "torch_npu") &&
	    strcmp(cfw, "mindspore"))
		cfw = NULL;
	for (i = 0; i < pr->n; i++) {
		const char *f;
		double k, c;

		v = pr->un[i].view;
		f = pd_path_get(v, "root.format") ?
		    json_string_value(pd_path_get(v, "root.format")) : NULL;
		k = pd_path_num(v, "gaps.launch.kernels");
		c = pd_path_num(v, "hotspot.classes.compute_us");

		if (f) {
			const struct pd_format *pf = pd_format_get(f);
			json_t *rf = pd_path_get(v, "root.framework");
			/* the root's own (an nsys export of a PyTorch job),
			 * else its format's */
			const char *ff = json_is_string(rf) ?
			    json_string_value(rf) : pf ? pf->framework : NULL;

			if (ff && fw && strcmp(ff, fw))
				fwmix = 1;
			if (ff)
				fw = ff;
			json_array_append_new(formats, json_string(f));
			if (pf && fam && strcmp(fam, pf->stack))
				famix = 1;
			if (pf)
				fam = pf->stack;
			if (pf && !pf->device)
				undev = 1;
			else if (pf && fdev && strcmp(fdev, pf->device))
				devmix = 1;
			if (pf && pf->device)
				fdev = pf->device;
		}
		if (k > 0 || c > 0)
			kernels = 1;
		else if (json_object_get(v, "hotspot"))
			cpu_only = 1;
	}
	if (famix)
		fam = "mixed";
	/* the formats' device kind; a trace says by what it holds */
	if (fdev && !undev && !devmix)
		dev = fdev;
	else if (undev && (!fdev || !strcmp(fdev, "gpu")) && !devmix)
		dev = kernels ? "gpu" : cpu_only && !fdev ? "cpu" : fdev;
	if (fwmix)
		fw = NULL;
	if (fw && cfw && strcmp(fw, cfw))
		conflict(confl, "stack", json_string(fw), json_string(cfw));
	source(srcs, "stack", fw ? (cfw && !strcmp(fw, cfw) ? "both" :
	    "trace") : cfw ? "context" : NULL);
	if (!fw && cfw) {
		/* no dump says which framework: the code does */
		fw = cfw;
		if (!fam)
			fam = strcmp(cfw, "torch") ? "ascend" : "pytorch";
		if (!dev && strcmp(cfw, "torch"))
			dev = "npu";
	}
	pd_set_str(s, "family", fam);
	pd_set(s, "formats", sorted_unique(formats));
	pd_set_str(s, "device", dev);
	pd_set_str(s, "framework", fw);
	return s;
}


/* The world size: the dumps' own (pd.root world_size, from Kineto
 * distributedInfo or profiler_metadata.json), else pd.context's (what the
 * launcher starts) unless the dumps show more ranks than that, else the
 * number of distinct ranks seen. */
json_t *
world_size(struct prun *pr, json_t *srcs, json_t *confl)
{
	struct pd_run *u = pr->u;
	json_t *cx;
	size_t i, n = 0;
	json_int_t tw = 0, cw = 0;

	cx = u->context ? json_object_get(u->context, "world_size") : NULL;
	if (json_is_integer(cx) && json_integer_value(cx) > 0)
		cw = json_integer_value(cx);
	for (i = 0; i < pr->n; i++) {
		json_t *w = pd_path_get(pr->un[i].view, "root.world_size");

		if (json_is_integer(w) && json_integer_value(w) > tw)
			tw = json_integer_value(w);
		n += json_is_integer(pr->un[i].rank);
	}
	if (!tw && (json_int_t)n > cw)
		tw = (json_int_t)n;	/* the dumps show more ranks */
	if (tw && cw && tw != cw)
		conflict(confl, "world_size", json_integer(tw),
		    json_integer(cw));
	source(srcs, "world_size", tw ? (tw == cw ? "both" : "trace") :
	    cw ? "context" : NULL);
	return tw ? json_integer(tw) : cw ? json_integer(cw) : json_null();
}

/* Whether path lies in dir (or is dir). */
static int
under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	return !strncmp(path, dir, n) && (path[n] == '/' || !path[n]);
}

/* The pd.context of a run: the one whose workspace dir holds every root
 * of the run (the deepest, if several do); else, when the stream has one
 * run and one pd.context, that one; else none. */
json_t *
pick_context(struct pd_run *u, size_t nruns)
{
	json_t *best = NULL, *c;
	size_t i, j, bl = 0;

	json_array_foreach(contexts, i, c) {
		const char *d = pd_rec_str(c, "root");
		int all = d && json_array_size(u->roots) > 0;

		for (j = 0; all && j < json_array_size(u->roots); j++)
			all = under(json_string_value(json_array_get(u->roots,
			    j)), d);
		if (all && strlen(d) >= bl) {
			best = c;
			bl = strlen(d);
		}
	}
	if (!best && nruns == 1 && json_array_size(contexts) == 1)
		best = json_array_get(contexts, 0);
	return best;
}

/* ---- the parallel layout ---- */

static const char *kinds[] = { "dp", "tp", "pp", "ep", "cp", NULL };

static int
cmp_int(const void *a, const void *b)
{
	json_int_t x = *(const json_int_t *)a, y = *(const json_int_t *)b;

	return x < y ? -1 : x > y;
}

/* A sorted copy of an array of integer ranks; NULL when it is not one. */
static json_t *
rank_set(json_t *arr)
{
	size_t n = json_array_size(arr), i;
	json_int_t *v;
	json_t *out;

	if (!json_is_array(arr) || n == 0)
		return NULL;
	v = malloc(n * sizeof *v);
	if (!v)
		pd_oom();
	for (i = 0; i < n; i++) {
		if (!json_is_integer(json_array_get(arr, i))) {
			free(v);
			return NULL;
		}
		v[i] = json_integer_value(json_array_get(arr, i));
	}
	qsort(v, n, sizeof *v, cmp_int);
	out = json_array();
	for (i = 0; i < n; i++)
		if (i == 0 || v[i] != v[i - 1])
			json_array_append_new(out, json_integer(v[i]));
	free(v);
	return out;
}

static int
cmp_group(const void *a, const void *b)
{
	json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
	char *sx = json_dumps(x, JSON_COMPACT | JSON_SORT_KEYS);
	char *sy = json_dumps(y, JSON_COMPACT | JSON_SORT_KEYS);
	const char *kx = pd_rec_str(x, "kind"), *ky = pd_rec_str(y, "kind");
	int r = strcmp(kx ? kx : "", ky ? ky : "");

	if (!r)
		r = strcmp(sx ? sx : "", sy ? sy : "");
	free(sx);
	free(sy);
	return r;
}

/* The communication groups of the run (pd.comm groups), one per name and
 * rank set, sorted by kind and text. */
static json_t *
groups(struct prun *pr)
{
	json_t *seen = json_object(), *out;
	size_t i, j;

	for (i = 0; i < pr->n; i++) {
		json_t *gs = pd_path_get(pr->un[i].view, "comm.groups");

		for (j = 0; j < json_array_size(gs); j++) {
			json_t *e = json_array_get(gs, j), *o, *rs;
			const char *kind = pd_rec_str(e, "kind");
			char *key;

			if (!(rs = rank_set(json_object_get(e, "ranks"))))
				continue;
			o = json_object();
			pd_set_str(o, "name", pd_rec_str(e, "name"));
			pd_set_str(o, "kind", kind ? kind : "unknown");
			pd_set(o, "ranks", rs);
			key = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
			if (key && !json_object_get(seen, key))
				json_object_set_new(seen, key, o);
			else
				json_decref(o);
			free(key);
		}
	}
	out = pd_json_sorted(seen, cmp_group);
	json_decref(seen);
	return out;
}

/* The size shared by every group of a kind, else 0. The pp degree is
 * its groups' size when they say, else the number of stages seen. */
static json_int_t
degree(json_t *gs, const char *kind)
{
	json_int_t d = 0;
	size_t i;

	for (i = 0; i < json_array_size(gs); i++) {
		json_t *g = json_array_get(gs, i);
		json_int_t n = (json_int_t)json_array_size(json_object_get(g,
		    "ranks"));

		if (strcmp(pd_rec_str(g, "kind"), kind))
			continue;
		if (d && n != d)
			return 0;
		d = n;
	}
	return d;
}

/* Pipeline stages: pd.step "stage" (an integer, or the rank set of the
 * stage as msprof-analyze writes it), else the rank's place in its pp
 * group. Sets each unit's stage; returns the sources used. */
static const char *
stages(struct prun *pr, json_t *gs)
{
	json_t *sets, *sorted;
	size_t i, j;
	int from_step = 0;

	for (i = 0; i < pr->n; i++) {
		json_t *s = pd_path_get(pr->un[i].view, "step.stage");

		if (json_is_integer(s) && json_integer_value(s) >= 0 &&
		    json_integer_value(s) < 1 << 20) {
			pr->un[i].stage = (int)json_integer_value(s);
			from_step = 1;
		}
	}
	/* rank sets: the stage is the set's place among the sets, by first rank */
	sets = json_array();
	for (i = 0; i < pr->n; i++) {
		json_t *rs = rank_set(pd_path_get(pr->un[i].view, "step.stage"));
		int dup = 0;

		if (!rs)
			continue;
		for (j = 0; j < json_array_size(sets) && !dup; j++)
			dup = json_equal(json_array_get(sets, j), rs);
		if (dup)
			json_decref(rs);
		else
			json_array_append_new(sets, rs);
	}
	if (json_array_size(sets) > 0) {
		sorted = json_array();
		while (json_array_size(sets)) {
			size_t best = 0;

			for (j = 1; j < json_array_size(sets); j++)
				if (json_integer_value(json_array_get(json_array_get(
				    sets, j), 0)) < json_integer_value(json_array_get(
				    json_array_get(sets, best), 0)))
					best = j;
			json_array_append(sorted, json_array_get(sets, best));
			json_array_remove(sets, best);
		}
		for (i = 0; i < pr->n; i++) {
			json_t *rs = rank_set(pd_path_get(pr->un[i].view,
			    "step.stage"));

			for (j = 0; rs && j < json_array_size(sorted); j++)
				if (json_equal(json_array_get(sorted, j), rs))
					pr->un[i].stage = (int)j;
			json_decref(rs);
		}
		json_decref(sorted);
		from_step = 1;
	}
	json_decref(sets);
	if (from_step)
		return "pd.step stage";
	for (i = 0; i < json_array_size(gs); i++) {
		json_t *g = json_array_get(gs, i), *rs = json_object_get(g, "ranks");

		if (strcmp(pd_rec_str(g, "kind"), "pp"))
			continue;
		for (j = 0; j < pr->n; j++) {
			size_t k;

			for (k = 0; json_is_integer(pr->un[j].rank) &&
			    k < json_array_size(rs); k++)
				if (json_integer_value(json_array_get(rs, k)) ==
				    json_integer_value(pr->un[j].rank))
					pr->un[j].stage = (int)k;
		}
		from_step = 2;
	}
	return from_step ? "pd.comm groups (pp)" : NULL;
}

/* "0-7", "0,2,4": a rank list for people. */
static json_t *
ranks_text(json_t *rs)
{
	char buf[512];
	size_t i, n = json_array_size(rs), len = 0;

	buf[0] = 0;
	for (i = 0; i < n && len < sizeof buf - 48; i++) {
		json_int_t a = json_integer_value(json_array_get(rs, i)), b = a;
		size_t j = i;

		while (j + 1 < n && json_integer_value(json_array_get(rs,
		    j + 1)) == b + 1)
			b = json_integer_value(json_array_get(rs, ++j));
		len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%lld",
		    len ? "," : "", (long long)a);
		if (b > a + 1 || (b == a + 1 && j > i))
			len += (size_t)snprintf(buf + len, sizeof buf - len,
			    "%s%lld", b == a + 1 ? "," : "-", (long long)b);
		i = j;
	}
	if (i < n)
		snprintf(buf + len, sizeof buf - len, ",...");
	return json_string(buf);
}

json_t *
job_model(struct prun *pr, json_t *ws, const char *ws_src)
{
	json_t *j = json_object(), *ranks = json_array(), *lay = json_object();
	json_t *srcs = json_object(), *gs = groups(pr), *st, *rs;
	const char *ss;
	size_t i, nst = 0;
	int k, maxst = -1;

	for (i = 0; i < pr->n; i++)
		if (json_is_integer(pr->un[i].rank))
			json_array_append(ranks, pr->un[i].rank);
	pd_set(j, "world_size", json_incref(ws));
	pd_set(j, "ranks", ranks);
	pd_set(j, "ranks_text", ranks_text(ranks));
	pd_set_int(j, "ranks_seen", (int64_t)json_array_size(ranks));
	if (json_is_integer(ws) && json_integer_value(ws) >=
	    (json_int_t)json_array_size(ranks))
		pd_set_int(j, "ranks_missing", (int64_t)(json_integer_value(ws) -
		    (json_int_t)json_array_size(ranks)));
	else
		pd_set_null(j, "ranks_missing");
	source(srcs, "world_size", ws_src);
	ss = stages(pr, gs);
	for (i = 0; i < pr->n; i++)
		if (pr->un[i].stage > maxst)
			maxst = pr->un[i].stage;
	st = json_array();
	for (k = 0; k <= maxst; k++) {
		json_t *o = json_object();

		rs = json_array();
		for (i = 0; i < pr->n; i++)
			if (pr->un[i].stage == k && json_is_integer(pr->un[i].rank))
				json_array_append(rs, pr->un[i].rank);
		if (!json_array_size(rs)) {
			json_decref(rs);
			json_decref(o);
			continue;
		}
		pd_set_int(o, "stage", k);
		pd_set(o, "ranks_text", ranks_text(rs));
		pd_set(o, "ranks", rs);
		json_array_append_new(st, o);
		nst++;
	}
	for (k = 0; kinds[k]; k++) {
		json_int_t d = degree(gs, kinds[k]);

		if (!strcmp(kinds[k], "pp") && nst > 0 && !d) {
			pd_set_int(lay, "pp", (int64_t)nst);
			source(srcs, "pp", ss);
		} else if (d > 0) {
			pd_set_int(lay, kinds[k], (int64_t)d);
			source(srcs, kinds[k], "pd.comm groups");
		} else {
			pd_set_null(lay, kinds[k]);
			source(srcs, kinds[k], NULL);
		}
	}
	pd_set(j, "layout", lay);
	source(srcs, "groups", json_array_size(gs) ? "pd.comm groups" : NULL);
	pd_set(j, "groups", gs);
	if (nst)
		pd_set(j, "stages", st);
	else {
		json_decref(st);
		pd_set_null(j, "stages");
	}
	source(srcs, "stages", nst ? ss : NULL);
	pd_set(j, "sources", srcs);
	pd_set(j, "duplicate_ranks", json_incref(pr->dups));
	return j;
}
