/* pd_tcache: each trace parsed once for the whole pipeline.
 *
 * The first pd_trace_read() of a trace file records the events it hands
 * out in a compact binary form (fixed-width records, interned strings,
 * args by skeleton where that is shorter, else as text, id text
 * verbatim) next to the read's result (pd_trace_stats,
 * return code, the top-level keys given to on_meta); later reads of the
 * same file, in this process or another one, replay that entry instead of
 * parsing: the callbacks see the same events in the same order with the
 * same contents and indexes, the same on_meta calls and the same stats.
 * A gzip trace is thereby inflated once too, and an Nsight Systems
 * export queried once (pd_tcache_read_as, an entry a process).
 *
 * Entries live in $PD_CACHE_DIR, else $XDG_CACHE_HOME/perfdiag, else
 * ~/.cache/perfdiag (a directory of mode 0700 owned by the user: one that
 * is not is not used), one file of mode 0600 per trace, named from the
 * trace's identity: device, inode, size, mtime and ctime of the file (of
 * the archive, plus the member's name, for ARCHIVE//MEMBER). A changed
 * trace has a new identity, so a stale entry is never read; old ones are
 * evicted, oldest first (by last use), when the directory holds more than
 * $PD_CACHE_SIZE MiB (default 4096). PD_CACHE=0, or pd_tcache_disable(),
 * turns the cache off.
 *
 * Building: under an flock(2) on the entry's lock file the builder reads
 * the trace (calling the caller's callbacks as it goes), writes the entry
 * to a temporary file and renames it in place, so a half-written entry is
 * never seen, and a builder that dies releases the lock. A concurrent
 * reader of the same trace waits for the lock rather than parsing the
 * trace again, as long as the builder's temporary file keeps growing; one
 * stalled for 5 s is given up on and the trace read directly. Not cached:
 * a read that could not open or read the file (-1), a read stopped early
 * by the callback, a trace modified less than 2 s ago (its mtime could
 * still repeat after a change), a trace with an event over 4 GiB or an
 * id over 16 MiB.
 *
 * A filter (pd_trace_cb.want) is asked once per distinct (ph, name, cat,
 * pid) of the entry; the events it declines are passed over by their
 * fixed-width record alone, and a chunk of events (below) whose shapes it
 * all declines is passed over after its header and list of shapes,
 * without its records being read. The entry keeps the span of each
 * shape's events in each chunk, so that a chunk whose shapes the filter
 * declines or keeps for their time alone (pd_trace_cb.span) is passed
 * over so too.
 *
 * Checking: an entry starts with a magic, a version, its size and a
 * 64-bit checksum of its header and small sections, checked when it is
 * opened; its events are checked a chunk of up to 4096 at a time (each
 * chunk has a checksum of its header, shapes, records and ids, checked
 * before the chunk's first event is handed out, so that a replay reads
 * them once, and one of its header and shapes, checked before they are
 * trusted to pass over the chunk)
 * and its args a block at a time (a chunk's args of one category, or of
 * the categories past the first 15: each block has a checksum, checked
 * when the block is read, which is when the args of one of its events
 * are first asked for). Every section and record is bounds-checked. An
 * entry that fails when opened is rebuilt; one whose chunk, record or
 * args block fails half way is removed and the read goes on from the
 * trace itself, past the events already handed out (the caller sees one
 * whole read; an event whose args block was bad has the trace's args).
 * A cached replay differs from a parse in three places: ev->raw is NULL
 * (raw_len is kept); ev->args is NULL with ev->lazy set where the event
 * has args (pd_ev_args() reads them: a tool that asks for no args reads
 * none; the lookups into them, pd_ev_arg_* and pd_kineto_args, read an
 * event's keys and values kept by skeleton without its text); and after
 * a stop requested by the callback, stats.bytes is the size of the whole
 * trace. */
#ifndef PD_TCACHE_H
#define PD_TCACHE_H

#include <stddef.h>
#include <stdint.h>

#include "pd_trace.h"

/* The uncached reader (pd_trace.c's pd_trace_read_src). */
typedef int (*pd_tcache_source)(const char *path,
    const struct pd_trace_cb *cb, struct pd_trace_stats *st, int args_kv);

/* pd_trace_read() through the cache: the same return value, callbacks
 * and stats as src(path, cb, st). */
int pd_tcache_read(const char *path, const struct pd_trace_cb *cb,
    struct pd_trace_stats *st, pd_tcache_source src);

/* The same for a reader of another kind of file than a trace (src reads
 * path as trace events): variant tells apart the reads of one file that
 * give different events (an Nsight export's processes), and is part of
 * the entry's key. src returning other than 0 or 1 (or -1) is handed
 * back, and nothing is cached. */
int pd_tcache_read_as(const char *path, uint64_t variant,
    const struct pd_trace_cb *cb, struct pd_trace_stats *st,
    pd_tcache_source src);

/* Turn the cache off for this process (the tools' --no-cache), and on
 * again (tests that compare reads in one process). */
void pd_tcache_disable(void);
void pd_tcache_enable(void);

/* The cache directory (opened once, created with mode 0700 when missing),
 * for the other caches that keep their entries next to the traces'
 * (pd_rcache); -1 when the cache is off or has no usable directory. */
int pd_tcache_dir(void);

/* What the last pd_tcache_read() of this process did (for tests). */
enum {
	PD_TCACHE_OFF = 0,	/* not used: off, or the trace not cacheable */
	PD_TCACHE_HIT,		/* replayed an entry */
	PD_TCACHE_BUILT,	/* parsed the trace and wrote its entry */
	PD_TCACHE_SOURCE	/* parsed the trace, wrote nothing */
};
int pd_tcache_last(void);

/* In memory (tests, fuzzing): the entry image of a trace held in buf
 * (parsed with pd_trace_read_mem; *img is malloc'd, the caller frees it).
 * Returns 0, or -1 when the trace is not cacheable. */
int pd_tcache_build_mem(const char *buf, size_t len, void **img,
    size_t *imglen);

/* Replay an image: the return value of the read it records, or -2 when
 * the image is not a valid entry (nothing was called then). A chunk or
 * record found bad half way ends the replay as a malformed read ("corrupt
 * trace cache entry at event N"). With verify 0 no checksum is checked
 * (the fuzzer's way past them). cb's filter applies. */
int pd_tcache_replay_mem(const void *img, size_t len, int verify,
    const struct pd_trace_cb *cb, struct pd_trace_stats *st);

#endif
