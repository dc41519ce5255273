#!/bin/sh
# make bench: throughput and peak RSS of the PyTorch-trace tools on a
# generated trace of >= 1 GiB (plain and gzip), next to `cat` and
# `gzip -dc` on the same file in the same run.
#
# The trace is a real corpus trace (the largest one: 51 MiB of JSON, 216k
# events, 28k [memory] events, 2k NCCL kernels) repeated: copy k has every
# ts shifted by k x (span + 1 s), ProfilerStep#N renumbered to N + 1000 k
# and the host pid shifted by k (the copies stand for ranks of one job
# merged into one file). It is generated once under bench/out/
# (gitignored). Environment: PD_CORPUS (default ../shared/corpus),
# BENCH_GIB (size, default 1), BENCH_TOOLS (default: the pd-sum-* tools
# and pd-hotspots), BIN (default bin/), TESTBIN (default build/test/, for
# the bare reader trace-dump), BENCH_PARTS (default all; else some of:
# scan tools pipeline rss set8 ir startup archive nsys reduce).
#
# The rows of each tool alone run with the trace cache off (PD_CACHE=0):
# they measure the parse. The pipeline rows run the whole evidence
# pipeline (pd-locate | the six tools | pd-profile) with it off, then cold
# and warm on a cache directory of their own under bench/out/ (removed
# first), and give its CPU time as a ratio to one tool alone, cache off
# (x_one: pd-sum-step; x_max: pd-hotspots). Target: <= 1.5. The notes
# give the system time apart (sys): the cold pipeline writes its entry
# and its tools' temporary files into new page-cache pages, which the
# "page cache" line prices on this machine (on a virtual machine pages
# it let go of can cost ten times those just freed). The replay
# row is the bare reader on the warm entry: what each tool pays to read.
# The "stage by stage" line runs the cold pipeline's six tools one after
# the other on an empty cache (the first builds the entry), each with
# its CPU and system time: where the cold pipeline's time goes.
#
# Then: peak RSS on a 256 MiB trace against the big one (flat: <= 1.10);
# the 8 x 51 MiB set (the corpus trace as 8 ranks) through the pipeline,
# next to cat and gzip -dc of it; with valgrind, the instructions of the
# cold pipeline's six tools on one rank of the set against pd-hotspots
# alone (stable where times are not); each tool's start-up (median wall of 200
# runs, --version and a tiny input, next to true and cat; <= 5 ms;
# pd-classify's tiny row with the cache on (its default rules built in),
# its built-in row with PD_CACHE=0, and, for the record, its parse row:
# an edited copy of the default rules with the cache off, parsed each
# start).
set -eu
cd "$(dirname "$0")/.."
TOP=$(pwd)
BIN=${BIN:-$TOP/bin}
OUT=$TOP/bench/out
CORPUS=${PD_CORPUS:-$TOP/../shared/corpus}
SRC=$CORPUS/pytorch/hta-memory-events-v100/df_index_resolver.json.gz
GIB=${BENCH_GIB:-1}
TOOLS=${BENCH_TOOLS:-"pd-sum-step pd-sum-comm pd-sum-mem pd-sum-input pd-sum-gaps pd-hotspots"}
export PD_SHAREDIR="${PD_SHAREDIR:-$TOP/share}"
export PD_CACHE=0

if [ ! -f "$SRC" ]; then
	echo "bench: corpus trace not found ($SRC); skipped"
	exit 0
fi
if ! command -v python3 >/dev/null; then
	echo "bench: python3 is needed to generate the trace; skipped"
	exit 0
fi
mkdir -p "$OUT"
${CC:-cc} -O2 -o "$OUT/rusage" bench/rusage.c
part() { case " ${BENCH_PARTS:-all} " in *" all "*|*" $1 "*) return 0 ;; esac; return 1; }

BIG=$OUT/big-${GIB}g.pt.trace.json
cat >"$OUT/gen.py" <<'PY'
import gzip, json, math, re, sys
from decimal import Decimal
src, dst, gib = sys.argv[1], sys.argv[2], float(sys.argv[3])
d = json.load(gzip.open(src), parse_float=Decimal)
evs = d.pop("traceEvents")
ts = [Decimal(str(e["ts"])) for e in evs if "ts" in e]
span = max(ts) - min(ts) + 1000000          # + 1 s (trace units are us)
stepre = re.compile(r"^ProfilerStep#(\d+)$")
tmpl = []
for e in evs:
    e = dict(e)
    t = e.get("ts")
    m = stepre.match(e.get("name", ""))
    if t is not None:
        e["ts"] = "@TS@"
    if m:
        e["name"] = "ProfilerStep#@N@"
    pid = e.get("pid")
    host = isinstance(pid, int) and pid > 64  # GPU pids are device ids
    if host:
        e["pid"] = "@PID@"
    s = json.dumps(e, separators=(", ", ": "), default=str)
    tmpl.append((s, None if t is None else Decimal(str(t)),
                 int(m.group(1)) if m else None, pid if host else None))
one = sum(len(s) + 2 for s, *_ in tmpl)
copies = max(1, math.ceil(gib * (1 << 30) / one))
with open(dst, "w") as f:
    f.write("{\n")
    for k, v in d.items():
        f.write("  %s: %s,\n" % (json.dumps(k), json.dumps(v, default=str)))
    f.write('  "traceEvents": [\n')
    first = True
    for c in range(copies):
        sh = span * c
        for s, t, n, pid in tmpl:
            if t is not None:
                s = s.replace('"@TS@"', str(t + sh))
            if n is not None:
                s = s.replace("@N@", str(n + 1000 * c))
            if pid is not None:
                s = s.replace('"@PID@"', str(pid + c))
            f.write(("  " if first else ",\n  ") + s)
            first = False
    f.write("\n  ]\n}\n")
print("bench: %d copies of %d events" % (copies, len(tmpl)))
PY
if [ ! -s "$BIG" ] || [ ! -s "$BIG.gz" ]; then
	echo "bench: generating $BIG (and .gz) from $(basename "$SRC")"
	python3 - "$SRC" "$BIG.tmp" "$GIB" <"$OUT/gen.py"
	mv "$BIG.tmp" "$BIG"
	gzip -c "$BIG" >"$BIG.gz.tmp" && mv "$BIG.gz.tmp" "$BIG.gz"
fi

# measure CMD...: sets W (wall s), C (CPU s: user + sys), SYS (sys s; S
# rounded to 0.01), R (peak RSS KiB), RC (exit status)
measure() {
	"$OUT/rusage" "$@" >/dev/null 2>"$OUT/m.err" </dev/null || true
	set -- $(tail -n 1 "$OUT/m.err")
	W=$1 C=$2 R=$3 RC=$4 SYS=${5:-0}	# system time, and rounded:
	S=$(awk -v s="$SYS" 'BEGIN { printf "%.2f", s }')
}
# Runs of three (one run moves by tens of percent with the machine):
# keep_run adds the last measure to $runs; median_run sets C W R RC SYS
# to those of the run of median CPU time; med and listed give the median
# of three numbers in a list (one a line) and the list on one line.
keep_run() { runs="$runs$C $W $R $RC $SYS
"; }
median_run() {
	set -- $(printf '%s' "$runs" | sort -n | sed -n 2p)
	C=$1 W=$2 R=$3 RC=$4 SYS=${5:-0}
}
med() { printf '%s' "$1" | sort -n | sed -n 2p; }
listed() { printf '%s' "$1" | tr '\n' ' ' | sed 's/ $//'; }
# ms_mib N: ms of system time a MiB of the last measure, for N MiB
ms_mib() { awk -v s="$SYS" -v m="$1" 'BEGIN { printf "%.2f", s * 1000 / m }'; }

MIB=$(awk -v b="$(wc -c <"$BIG")" 'BEGIN { printf "%.1f", b / 1048576 }')
GZMIB=$(awk -v b="$(wc -c <"$BIG.gz")" 'BEGIN { printf "%.1f", b / 1048576 }')
# MiB/s is MiB of raw JSON per CPU second of the command (each tool runs
# on one core; on a loaded machine the wall time says more about the load)
rate() { awk -v m="$MIB" -v c="$1" 'BEGIN { printf "%.0f", (c > 0 ? m / c : 0) }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
# uratio CPU_A SYS_A CPU_B SYS_B: ratio of the two user times
uratio() { awk -v a="$1" -v s="$2" -v b="$3" -v t="$4" 'BEGIN { printf "%.2f", (b - t > 0 ? (a - s) / (b - t) : 0) }'; }
mib() { awk -v r="$1" 'BEGIN { printf "%.1f", r / 1024 }'; }
row() { printf '%-14s %-5s %7s %7s %7s %8s %8s  %s\n' "$@"; }
pipe_of() {	# pipe_of SRC: the evidence pipeline's command on SRC, in pipe
	pipe="'$BIN/pd-locate' '$1'"
	for t in pd-sum-step pd-sum-comm pd-sum-mem pd-sum-input \
	    pd-sum-gaps pd-hotspots pd-profile; do
		pipe="$pipe | '$BIN/$t' -q"
	done
}

echo "bench: $BIG: $MIB MiB of JSON, $GZMIB MiB as gzip"
echo "bench: $(nproc 2>/dev/null || echo '?') cores, load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"
ZD=${TESTBIN:-$TOP/build/test}/zread-dump
[ -x "$ZD" ] && echo "bench: gzip inflated by $("$ZD" "$BIG.gz" 2>&1 >/dev/null | cut -d' ' -f2) (PD_INFLATE=zlib for zlib)"
measure cat "$BIG"; CATC=$C
row tool input wall_s cpu_s "MiB/s" rss_MiB x_base note
row cat plain "$W" "$C" "$(rate "$C")" "$(mib "$R")" 1.00 "baseline for plain"
measure gzip -dc "$BIG.gz"; GZC=$C
row "gzip -dc" gzip "$W" "$C" "$(rate "$C")" "$(mib "$R")" 1.00 "baseline for gzip"
# The bare reader (trace-dump -c: every event parsed, nothing done with
# it): what the scanner alone costs, next to cat and gzip -dc.
SCAN=${TESTBIN:-$TOP/build/test}/trace-dump
if ! part scan; then
	:
elif [ -x "$SCAN" ]; then
	# three pairs, each the baseline then the scan (a pair shares the
	# machine's drift, which moves one run by tens of percent here):
	# the row is the scan of median CPU time, x_base the median of the
	# pairs' ratios (listed)
	for in in plain gzip; do
		f=$BIG base="cat"
		if [ $in = gzip ]; then f=$BIG.gz base="gzip -dc"; fi
		runs="" xs=""
		for k in 1 2 3; do
			measure $base "$f"; A=$C
			measure "$SCAN" -c "$f"
			keep_run
			xs="$xs$(ratio "$C" "$A")
"
		done
		median_run
		x=$(med "$xs")
		note="median of 3 (x_base of the pairs: $(listed "$xs"))"
		[ "$RC" -ne 0 ] && note="$note exit $RC"
		[ $in = plain ] && [ "$(rate "$C")" -lt 1024 ] && note="$note <1GiB/s"
		[ $in = plain ] && [ "$(echo "$x" | tr -d .)" -gt 500 ] &&
		    note="$note >5x cat"
		row "scan" $in "$W" "$C" "$(rate "$C")" "$(mib "$R")" "$x" "$note"
	done
else
	echo "bench: $SCAN missing (make builds it); scan rows skipped"
fi
part tools || part rss || TOOLS_RUN=
for t in ${TOOLS_RUN-$TOOLS}; do
	if [ ! -x "$BIN/$t" ]; then
		echo "bench: $BIN/$t missing; skipped"
		continue
	fi
	for in in plain gzip; do
		f=$BIG base=$CATC
		if [ $in = gzip ]; then f=$BIG.gz base=$GZC; fi
		measure "$BIN/$t" -q "$f"
		[ $in = plain ] && eval "RSS_$(echo "$t" | tr - _)=$R"
		note=""
		[ "$RC" -ne 0 ] && note="exit $RC"
		[ "$R" -gt 32768 ] && note="$note rss>32MiB"
		[ $in = plain ] && [ "$(rate "$C")" -lt 400 ] && note="$note <400MiB/s"
		# x_base: CPU time of the tool / CPU time of cat or gzip -dc
		row "$t" $in "$W" "$C" "$(rate "$C")" "$(mib "$R")" \
		    "$(ratio "$C" "$base")" "$note"
	done
done
# The whole pipeline, once per input form: cache off, cold, warm. The
# first stage to read the trace builds its cache entry while the others
# wait for it, then replay it. x_one: its CPU time over that of
# pd-sum-step alone (cache off); x_max: over that of pd-hotspots alone,
# the heaviest of the six on this trace, run alone just before each run
# of the pipeline: x_max is the median of the three pairs' ratios (listed
# in the note). Each pipeline row is the run of median CPU time of three:
# one run moves by 20 % and more with what the machine did just before
# (the cold one writes its entry, ~0.21 x the trace, into memory the
# kernel may first have to get back). "user alone" is x_max in user time
# only (the median of the pairs'): the work of the tools, without what
# the kernel charged for pages, which moves with the machine's phases
# (the page cache line above) by a factor of ten.
if part pipeline && [ -x "$BIN/pd-sum-step" ] && [ -x "$BIN/pd-hotspots" ] &&
    [ -x "$BIN/pd-profile" ]; then
	CDIR=$OUT/cache
	# What the kernel charges for page-cache pages: 256 MiB written to
	# a new file 3 s after the last one was removed (pages the machine
	# had let go of: a virtual machine's host may have to back them
	# again), then at once again (pages just freed). A cold pipeline
	# writes its entry (~0.21 x the trace) and the tools' temporary
	# files into new pages; one tool alone writes only its own.
	rm -f "$OUT/fresh"
	sleep 3
	measure dd if=/dev/zero of="$OUT/fresh" bs=1M count=256
	F1=$(ms_mib 256)
	rm -f "$OUT/fresh"
	measure dd if=/dev/zero of="$OUT/fresh" bs=1M count=256
	F2=$(ms_mib 256)
	rm -f "$OUT/fresh"
	echo "bench: page cache: 256 MiB written into pages freed 3 s before: $F1 ms of system time a MiB; into pages just freed: $F2 ms a MiB"
	for in in plain gzip; do
		f=$BIG base=$CATC
		if [ $in = gzip ]; then f=$BIG.gz base=$GZC; fi
		measure -n 3 "$BIN/pd-sum-step" -q "$f"; ONE=$C
		row "step alone" $in "$W" "$C" "$(rate "$C")" "$(mib "$R")" \
		    "$(ratio "$C" "$base")" "cache off, sys $S"
		measure -n 3 "$BIN/pd-hotspots" -q "$f"; MAX=$C
		row "hotspots alone" $in "$W" "$C" "$(rate "$C")" "$(mib "$R")" \
		    "$(ratio "$C" "$base")" "cache off, sys $S"
		pipe_of "$f"
		rm -rf "$CDIR"
		for mode in off cold warm; do
			c=1
			[ $mode = off ] && c=0
			# the run of median CPU time of three (cold: each
			# on an empty cache, emptied outside the measure);
			# each right after a run of pd-hotspots alone, and
			# x_max the median of the three ratios of the pairs:
			# the machine's speed drifts by tens of percent within
			# minutes here, and a pair shares the drift
			runs="" xs="" xu=""
			for k in 1 2 3; do
				measure "$BIN/pd-hotspots" -q "$f"; A=$C AS=$SYS
				[ $mode = cold ] && rm -rf "$CDIR"
				measure env PD_CACHE=$c PD_CACHE_DIR="$CDIR" \
				    sh -c "$pipe"
				keep_run
				xs="$xs$(ratio "$C" "$A")
"
				xu="$xu$(uratio "$C" "$SYS" "$A" "$AS")
"
			done
			median_run
			S=$(awk -v s="$SYS" 'BEGIN { printf "%.2f", s }')
			[ $in$mode = plainwarm ] && RSS_pipeline=$R
			note="sys $S x_one $(ratio "$C" "$ONE") x_max $(med "$xs") (pairs: $(listed "$xs")), user alone $(med "$xu")"
			[ "$RC" -ne 0 ] && note="$note exit $RC"
			row "pipeline $mode" $in "$W" "$C" "$(rate "$C")" \
			    "$(mib "$R")" "$(ratio "$C" "$base")" "$note"
		done
		# the bare replay (trace-dump -c, the entry now built): what
		# each of the six tools pays to read the trace when warm
		if [ -x "$SCAN" ]; then
			measure env PD_CACHE=1 PD_CACHE_DIR="$CDIR" "$SCAN" -c "$f"
			note="one read of the entry, x_max $(ratio "$C" "$MAX")"
			[ "$RC" -ne 0 ] && note="$note exit $RC"
			row "replay" $in "$W" "$C" "$(rate "$C")" "$(mib "$R")" \
			    "$(ratio "$C" "$base")" "$note"
		fi
		echo "bench: cache entry for $in: $(du -sk "$CDIR" | cut -f1) KiB"
		# where a cold pipeline's time goes: its stages one after the
		# other on an empty cache (the first builds the entry), each
		# with its CPU and system seconds
		if [ $in = plain ]; then
			rm -rf "$CDIR"
			line="" sum=0
			for t in pd-sum-step pd-sum-comm pd-sum-mem \
			    pd-sum-input pd-sum-gaps pd-hotspots; do
				measure env PD_CACHE=1 PD_CACHE_DIR="$CDIR" \
				    "$BIN/$t" -q "$f"
				line="$line ${t#pd-} $(awk -v c="$C" -v s="$SYS" \
				    'BEGIN { printf "%.2f/%.2f", c, s }')"
				sum=$(awk -v a="$sum" -v c="$C" 'BEGIN { print a + c }')
			done
			echo "bench: cold pipeline stage by stage, cpu/sys s:$line; in all $(awk -v a="$sum" 'BEGIN { printf "%.2f", a }') s, x_max $(ratio "$sum" "$MAX")"
		fi
	done
	rm -rf "$CDIR"
fi
# Peak RSS against trace size: each tool (cache off) and the pipeline
# (cache warm) on a 256 MiB trace made the same way, next to their rows
# above on the big one; x_base here is big / 256 MiB. Target: <= 1.10
# (flat). The issue's figure is 256 MiB -> 2 GiB: BENCH_GIB=2 for that
# (it needs about 3 GiB free for the trace and its gzip, and 1.5 GiB
# more for the cache entry). What still grows with the trace, per tool:
# pd-sum-mem and pd-sum-step sort what they keep per event with pd_xsort
# in runs of 1 MiB (PD_SORT_MEM), past one run in temporary files under
# TMPDIR, merged 64 at a time with 16 KiB each: flat in memory, on disk
# up to about twice the records (pd-sum-mem: 64 B per [memory] event,
# 32 B per operator range, ~90 MiB at the peak for the 1 GiB trace;
# pd-sum-step: 24 B per kernel, copy, set and operator, those inside the
# one before of their class left out).
# In memory what grows is per step (pd-sum-mem 56 B per step and device,
# pd-sum-step about 100 B), and pd-sum-mem's entry per operator name,
# address and block still held.
# pd-sum-gaps sorts the same way 40 B per device activity, and 24 B more
# per one-to-one launch (its delay and start), and logs host spans and
# synchronize calls in a few bytes each (pd_spill, 256 KiB in memory); in
# memory it grows per step (40 B), per stream and per launch call or
# activity not yet linked (40 B).
# pd-hotspots sorts the same way its kernels and copies (24 B each) and
# the copies' bandwidths (16 B), and logs the critical path's events (about
# 20 B each, pd_spill); it grows per distinct name, and the critical path
# keeps a trace with steps whole up to 250k events (PD_CRITPATH_STEP_EVENTS;
# about 250 B each in all, nodes and edges: ~70 MiB), past that one step
# (the 256 MiB trace has 676k), one without steps up to 1M.
# pd-sum-comm keeps of the collectives only the -n slowest and the first
# 4096 by start (40 B each, at most twice as many at a time); it grows per
# step (24 B), per collective type and per process group.
SMALL=$OUT/big-0.25g.pt.trace.json
if part rss && [ "$GIB" != 0.25 ] && [ ! -s "$SMALL" ]; then
	echo "bench: generating $SMALL"
	python3 - "$SRC" "$SMALL.tmp" 0.25 <"$OUT/gen.py" && mv "$SMALL.tmp" "$SMALL"
fi
if part rss && [ "$GIB" != 0.25 ] && [ -s "$SMALL" ]; then
	SMIB=$(awk -v b="$(wc -c <"$SMALL")" 'BEGIN { printf "%.0f", b / 1048576 }')
	echo "bench: peak RSS, $SMIB MiB trace -> $MIB MiB (x_base: the ratio)"
	flat() {	# flat NAME RSS_SMALL_KIB RSS_BIG_KIB
		x=$(ratio "$3" "$2")
		note="rss $(mib "$2") -> $(mib "$3") MiB"
		[ "$(echo "$x" | tr -d .)" -gt 110 ] && note="$note >1.10"
		# less on the big trace: a bound met on the small one only
		# (pd-hotspots' critical path, kept whole under its bounds)
		[ "$(echo "$x" | tr -d .)" -lt 90 ] && note="$note, bounded: less past a cap"
		row "$1" plain - - - "$(mib "$3")" "$x" "$note"
	}
	for t in $TOOLS; do
		[ -x "$BIN/$t" ] || continue
		measure "$BIN/$t" -q "$SMALL"
		eval "big=\${RSS_$(echo "$t" | tr - _):-0}"
		flat "$t" "$R" "$big"
	done
	if [ -n "${RSS_pipeline:-}" ]; then
		pipe_of "$SMALL"
		rm -rf "$OUT/cache"
		PD_CACHE=1 PD_CACHE_DIR="$OUT/cache" sh -c "$pipe" >/dev/null 2>&1 || true
		measure env PD_CACHE=1 PD_CACHE_DIR="$OUT/cache" sh -c "$pipe"
		flat "pipeline warm" "$R" "$RSS_pipeline"
		rm -rf "$OUT/cache"
	fi
fi
# The 8 x 51 MiB set: the corpus trace as 8 ranks of one job (rank k in
# distributedInfo, ts shifted by k ms), plain and gzip, through the whole
# pipeline with the cache off, cold and warm, next to cat and gzip -dc of
# the 8 files (x_base).
SET=$OUT/set8
if part set8 && [ ! -f "$SET/.done" ]; then
	echo "bench: generating $SET"
	rm -rf "$SET"
	mkdir -p "$SET/plain" "$SET/gz"
	python3 - "$SRC" "$SET/plain" <<'PY'
import gzip, json, sys
from decimal import Decimal
src, out = sys.argv[1], sys.argv[2]
d = json.load(gzip.open(src), parse_float=Decimal)
evs = d["traceEvents"]
for k in range(8):
    d["distributedInfo"] = dict(d.get("distributedInfo") or {}, rank=k,
                                world_size=8)
    d["traceEvents"] = [dict(e, ts=e["ts"] + 1000 * k) if "ts" in e else e
                        for e in evs]
    with open("%s/rank%d.pt.trace.json" % (out, k), "w") as f:
        json.dump(d, f, default=str)
PY
	for k in 0 1 2 3 4 5 6 7; do
		gzip -c "$SET/plain/rank$k.pt.trace.json" >"$SET/gz/rank$k.pt.trace.json.gz"
	done
	touch "$SET/.done"
fi
if part set8 && [ -f "$SET/.done" ] && [ -x "$BIN/pd-locate" ]; then
	SETMIB=$(cat "$SET"/plain/rank?.pt.trace.json | wc -c | awk '{ printf "%.1f", $1 / 1048576 }')
	echo "bench: $SET: 8 traces, $SETMIB MiB of JSON"
	srate() { awk -v m="$SETMIB" -v c="$1" 'BEGIN { printf "%.0f", (c > 0 ? m / c : 0) }'; }
	measure sh -c "cat '$SET'/plain/rank?.pt.trace.json"; SCATC=$C
	row "cat" set8 "$W" "$C" "$(srate "$C")" "$(mib "$R")" 1.00 "baseline for the set"
	measure sh -c "gzip -dc '$SET'/gz/rank?.pt.trace.json.gz"; SGZC=$C
	row "gzip -dc" set8.gz "$W" "$C" "$(srate "$C")" "$(mib "$R")" 1.00 "baseline for the gzip set"
	for in in plain gzip; do
		d=$SET/plain base=$SCATC
		[ $in = gzip ] && d=$SET/gz base=$SGZC
		pipe_of "$d"
		rm -rf "$OUT/cache"
		for mode in off cold warm; do
			c=1
			[ $mode = off ] && c=0
			# the run of median CPU time of three (cold: each on
			# an empty cache): one run moves by tens of percent
			# with the machine
			runs=""
			for k in 1 2 3; do
				[ $mode = cold ] && rm -rf "$OUT/cache"
				measure env PD_CACHE=$c PD_CACHE_DIR="$OUT/cache" \
				    sh -c "$pipe"
				keep_run
			done
			median_run
			# HTA's figure for the plain set (56.8 s of CPU,
			# measured on this machine when the speed issue was
			# filed, on the same events as the source's 51 MiB
			# layout, these files being 45 MiB; HTA is not run
			# here): the issue's target is >= 30 x
			note="median of 3"
			[ $in = plain ] && note="$note, HTA 56.8 s / this: $(ratio 56.8 "$C") x"
			[ "$RC" -ne 0 ] && note="$note exit $RC"
			row "set8 $mode" $in "$W" "$C" "$(srate "$C")" "$(mib "$R")" \
			    "$(ratio "$C" "$base")" "$note"
		done
		rm -rf "$OUT/cache"
	done
fi
# Instructions (valgrind's callgrind, when installed): the cold pipeline
# over one rank of the set (45 MiB), tool by tool as the pipeline runs
# them (pd-locate's records on stdin; the first builds the cache entry,
# the others replay it), against pd-hotspots alone with the cache off.
# Counts do not move with what the machine does meanwhile, as the times
# above do (20-60 % on a shared 2-core VM), so two runs of different
# builds compare: a change's effect on the ratio shows here first. Not
# the issue's figure (that is CPU time, above), and the kernel's work
# (page cache, faults) is not in it.
IRF=$SET/plain/rank0.pt.trace.json
if part ir && command -v valgrind >/dev/null && [ -s "$IRF" ]; then
	irc() {	# irc CMD...: sets I to the instructions it ran, in millions
		I=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null \
		    "$@" 2>&1 >/dev/null </dev/null | sed -n \
		    's/.*Collected : \([0-9]*\).*/\1/p' | tail -n 1)
		I=$(awk -v i="${I:-0}" 'BEGIN { printf "%.1f", i / 1e6 }')
	}
	irs() {	# irs CMD...: irc with the root records on stdin
		I=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null \
		    "$@" 2>&1 >/dev/null <"$OUT/ir-root.jsonl" | sed -n \
		    's/.*Collected : \([0-9]*\).*/\1/p' | tail -n 1)
		I=$(awk -v i="${I:-0}" 'BEGIN { printf "%.1f", i / 1e6 }')
	}
	"$BIN/pd-locate" "$IRF" >"$OUT/ir-root.jsonl"
	echo "bench: instructions (M) on $(basename "$IRF"), the cold pipeline tool by tool"
	rm -rf "$OUT/ir-cache"
	SUM=0
	for t in pd-sum-step pd-sum-comm pd-sum-mem pd-sum-input pd-sum-gaps \
	    pd-hotspots; do
		PD_CACHE=1 PD_CACHE_DIR="$OUT/ir-cache" irs "$BIN/$t" -q
		SUM=$(awk -v a="$SUM" -v b="$I" 'BEGIN { printf "%.1f", a + b }')
		note="replays the entry"
		[ $t = pd-sum-step ] && note="builds the entry"
		row "$t" ir - "${I}M" - - - "$note"
	done
	PD_CACHE=0 irc "$BIN/pd-hotspots" -q "$IRF"
	row "hotspots alone" ir - "${I}M" - - 1.00 "cache off"
	row "six, cold" ir - "${SUM}M" - - "$(ratio "$SUM" "$I")" \
	    "x_max in instructions"
	rm -rf "$OUT/ir-cache" "$OUT/ir-root.jsonl"
elif part ir; then
	echo "bench: instruction rows skipped (valgrind not installed, or no set: BENCH_PARTS with set8)"
fi
# Start-up: the median wall time of 50 runs of each tool with --version
# and with a tiny input (the smallest kineto fixture, or no records on
# stdin for the tools that read records), next to true and cat of it.
# Target: <= 5 ms each.
TINY=$TOP/test/fixtures/kineto/sum-kineto.json
startup() {	# startup CMD...: sets W to the median wall ms of 200 runs
	"$OUT/rusage" -n 200 "$@" >/dev/null 2>"$OUT/m.err" </dev/null || true
	W=$(tail -n 1 "$OUT/m.err" | awk '{ printf "%.2f", $1 * 1000 }')
}
if part startup; then
	startup true; ST0=$W
	row "true" start "${W}ms" - - - 1.00 "baseline for start-up (median of 200)"
	startup cat "$TINY"; STC=$W
	row "cat" tiny "${W}ms" - - - 1.00 "baseline for a tiny input"
	for b in "$BIN"/pd-*; do
		t=$(basename "$b")
		startup "$b" --version
		note=""
		[ "$(awk -v w="$W" 'BEGIN { print (w > 5) }')" = 1 ] && note=">5ms"
		row "$t" version "${W}ms" - - - "$(ratio "$W" "$ST0")" "$note"
		case $t in
		pd-sum-*|pd-hotspots|pd-locate) startup "$b" -q "$TINY" ;;
		pd-profile) startup "$b" -q ;;
		pd-classify)
			# as a user starts it: the cache on, in a directory of
			# its own; the default rules are read from their form
			# built into the program, not from it
			W=$(unset PD_CACHE; export PD_CACHE_DIR="$OUT/startup-cache"
			    rm -rf "$PD_CACHE_DIR"
			    "$b" -q </dev/null >/dev/null 2>&1 || true
			    startup "$b" -q; echo "$W") ;;
		*) continue ;;
		esac
		note=""
		[ "$(awk -v w="$W" 'BEGIN { print (w > 5) }')" = 1 ] && note=">5ms"
		row "$t" tiny "${W}ms" - - - "$(ratio "$W" "$STC")" "$note"
		[ "$t" = pd-classify ] || continue
		startup "$b" -q
		note="default rules built in (PD_CACHE=0)"
		[ "$(awk -v w="$W" 'BEGIN { print (w > 5) }')" = 1 ] && note=">5ms, $note"
		row "$t" builtin "${W}ms" - - - "$(ratio "$W" "$STC")" "$note"
		# a rules file of a user's, 120 KB of YAML, parsed: work
		# on an input rather than start-up (the cache keeps its
		# form when it is on), not held to the 5 ms
		{ cat "$TOP/share/rules/default.yaml"; echo "# edited"; } \
		    >"$OUT/rules-edited.yaml"
		startup "$b" -q -R -r "$OUT/rules-edited.yaml"
		row "$t" parse "${W}ms" - - - "$(ratio "$W" "$STC")" \
		    "an edited copy of the default rules parsed (PD_CACHE=0)"
	done
fi
# An archive: the trace as the only member of a .tar.gz, read in place by
# pd-locate | pd-sum-step (one pass of libarchive into a private copy,
# then the plain read), next to tar -xzOf of the same archive.
TGZ=$OUT/big-${GIB}g.tar.gz
if part archive && [ ! -s "$TGZ" ]; then
	echo "bench: generating $TGZ"
	tar -C "$OUT" -czf "$TGZ.tmp" "$(basename "$BIG")" && mv "$TGZ.tmp" "$TGZ"
fi
if part archive; then
	measure tar -xzOf "$TGZ"; TARC=$C
	row "tar -xzOf" tar.gz "$W" "$C" "$(rate "$C")" "$(mib "$R")" 1.00 "baseline for archives"
fi
if part archive && [ -x "$BIN/pd-locate" ] && [ -x "$BIN/pd-sum-step" ]; then
	measure sh -c "TMPDIR='$OUT' '$BIN/pd-locate' '$TGZ' | '$BIN/pd-sum-step' -q"
	note=""
	[ "$RC" -ne 0 ] && note="exit $RC"
	row "locate|step" tar.gz "$W" "$C" "$(rate "$C")" "$(mib "$R")" \
	    "$(ratio "$C" "$TARC")" "$note (two processes, each unpacks once)"
fi
# An Nsight Systems export: the corpus's mfu_2gpu_before.sqlite (2
# processes) with its event tables repeated BENCH_NSYS_COPIES times (copy
# k shifted by k x 1 s), read by pd-locate | pd-sum-step, pd-sum-gaps and
# pd-hotspots, next to cat of the same file (it has no steps: pd-sum-gaps
# holds its strip's spans of the whole export), then by the whole
# pipeline with the cache off, cold and warm.
NSRC=$CORPUS/nsys/nsysai-mfu-train-h100-2gpu-before-after/mfu_2gpu_before.sqlite
NBIG=$OUT/big-nsys.sqlite
if part nsys && [ -f "$NSRC" ] && [ ! -s "$NBIG" ]; then
	echo "bench: generating $NBIG"
	python3 - "$NSRC" "$NBIG.tmp" "${BENCH_NSYS_COPIES:-100}" <<'PY'
import sqlite3, sys
src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
db = sqlite3.connect(dst)
db.execute("ATTACH DATABASE ? AS s", ("file:%s?mode=ro" % src,))
tabs = [r[0] for r in db.execute("SELECT name FROM s.sqlite_master WHERE type = 'table'")]
timed = ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME",
         "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
         "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "NVTX_EVENTS")
for t in tabs:
    db.execute('CREATE TABLE main."%s" AS SELECT * FROM s."%s"' % (t, t))
    if t not in timed:
        continue
    cols = [r[1] for r in db.execute('PRAGMA s.table_info("%s")' % t)]
    for k in range(1, n):
        sel = ", ".join('"%s" + %d' % (c, k * 10**9) if c in ("start", "end")
                        else '"%s"' % c for c in cols)
        db.execute('INSERT INTO main."%s" SELECT %s FROM s."%s"' % (t, sel, t))
db.commit()
db.execute("DETACH DATABASE s")
db.execute("VACUUM")
db.close()
PY
	mv "$NBIG.tmp" "$NBIG"
fi
if part nsys && [ -s "$NBIG" ]; then
	NMIB=$(awk -v b="$(wc -c <"$NBIG")" 'BEGIN { printf "%.1f", b / 1048576 }')
	nrate() { awk -v m="$NMIB" -v c="$1" 'BEGIN { printf "%.0f", (c > 0 ? m / c : 0) }'; }
	echo "bench: $NBIG: $NMIB MiB of SQLite"
	measure cat "$NBIG"; NCATC=$C
	row cat sqlite "$W" "$C" "$(nrate "$C")" "$(mib "$R")" 1.00 "baseline for nsys"
	for t in pd-sum-step pd-sum-gaps pd-hotspots; do
		measure sh -c "'$BIN/pd-locate' '$NBIG' | '$BIN/$t' -q"
		note=""
		[ "$RC" -ne 0 ] && note="exit $RC"
		row "locate|${t#pd-}" sqlite "$W" "$C" "$(nrate "$C")" "$(mib "$R")" \
		    "$(ratio "$C" "$NCATC")" "$note (2 processes, each read once)"
		NMAX=$C		# (pd-hotspots last: the heaviest)
	done
	# the whole pipeline on it, cache off, cold and warm (one run each;
	# x_max: over locate|hotspots above): the first tool to read a
	# process's events keeps them (pd(7), The trace cache)
	pipe_of "$NBIG"
	rm -rf "$OUT/nsys-cache"
	for mode in off cold warm; do
		c=1
		[ $mode = off ] && c=0
		measure env PD_CACHE=$c PD_CACHE_DIR="$OUT/nsys-cache" sh -c "$pipe"
		note="sys $S x_max $(ratio "$C" "$NMAX")"
		[ "$RC" -ne 0 ] && note="$note exit $RC"
		row "pipeline $mode" sqlite "$W" "$C" "$(nrate "$C")" \
		    "$(mib "$R")" "$(ratio "$C" "$NCATC")" "$note"
	done
	rm -rf "$OUT/nsys-cache"
fi
# The reduce of a large job: the evidence records of one rank (the
# pipeline on test/fixtures/kineto/small-collectives.json: 150 collectives,
# its hotspots, gaps, 3 steps) repeated for BENCH_RANKS ranks (default
# 4096) of one run, then pd-profile, pd-classify and pd-report over them,
# next to cat of the same records. A second set is the same job with
# BENCH_LONG_STEPS steps a rank (default 30): the per-step arrays of
# pd.step and pd.input extended (step k a copy of step k mod 3), to show
# that a step costs a rank a few packed values, not a JSON tree.
RANKS=${BENCH_RANKS:-4096}
LONG=${BENCH_LONG_STEPS:-30}
if part reduce && [ -x "$BIN/pd-hotspots" ] && [ ! -s "$OUT/reduce-one.jsonl" ]; then
	mkdir -p "$OUT/reduce-src"
	cp test/fixtures/kineto/small-collectives.json "$OUT/reduce-src/"
	"$BIN/pd-locate" "$OUT/reduce-src" | "$BIN/pd-sum-step" -q |
	    "$BIN/pd-sum-comm" -q | "$BIN/pd-sum-mem" -q |
	    "$BIN/pd-sum-input" -q | "$BIN/pd-sum-gaps" -q |
	    "$BIN/pd-hotspots" -q >"$OUT/reduce-one.jsonl"
fi
for STEPS in 3 "$LONG"; do
RREC=$OUT/reduce-$RANKS-s$STEPS.jsonl
if part reduce && [ ! -s "$RREC" ] && [ -s "$OUT/reduce-one.jsonl" ]; then
	echo "bench: generating $RREC"
	python3 - "$OUT/reduce-one.jsonl" "$RREC.tmp" "$RANKS" "$STEPS" <<'PY'
import json, sys
one = [json.loads(l) for l in open(sys.argv[1])]
n, steps = int(sys.argv[3]), int(sys.argv[4])
def longer(a):
    return [dict(a[k % len(a)], step=k) for k in range(steps)]
with open(sys.argv[2], "w") as f:
    for r in range(n):
        for o in one:
            o = dict(o, rank=r, root="/job/rank%d.pt.trace.json" % r)
            if o["type"] == "pd.root":
                o["run"] = "/job#world_size=%d" % n
                o["world_size"] = n
                o["exports"] = [dict(e, path=o["root"]) for e in o["exports"]]
            if "path" in o:
                o["path"] = o["root"]
            if o["type"] in ("pd.step", "pd.input") and len(o["steps"]) != steps:
                o["steps"] = longer(o["steps"])
            f.write(json.dumps(o, separators=(",", ":")) + "\n")
PY
	mv "$RREC.tmp" "$RREC"
fi
if part reduce && [ -s "$RREC" ]; then
	RMIB=$(awk -v b="$(wc -c <"$RREC")" 'BEGIN { printf "%.1f", b / 1048576 }')
	rrate() { awk -v m="$RMIB" -v c="$1" 'BEGIN { printf "%.0f", (c > 0 ? m / c : 0) }'; }
	echo "bench: $RREC: $RANKS ranks, $STEPS steps a rank, $RMIB MiB of records"
	measure cat "$RREC"; RCATC=$C
	row cat records "$W" "$C" "$(rrate "$C")" "$(mib "$R")" 1.00 "baseline for the reduce ($STEPS steps)"
	"$BIN/pd-profile" <"$RREC" >"$OUT/reduce-p.jsonl" 2>/dev/null || true
	"$BIN/pd-classify" <"$OUT/reduce-p.jsonl" >"$OUT/reduce-c.jsonl" 2>/dev/null || true
	for t in "pd-profile <$RREC" "pd-classify <$OUT/reduce-p.jsonl" \
	    "pd-report -q -o $OUT/reduce-report <$OUT/reduce-c.jsonl"; do
		measure sh -c "'$BIN/'$t"
		note="$STEPS steps"
		[ "$RC" -gt 3 ] && note="$note, exit $RC"
		row "${t%% *}" records "$W" "$C" "$(rrate "$C")" "$(mib "$R")" \
		    "$(ratio "$C" "$RCATC")" "$note"
	done
fi
done
T3=$(awk -v n="$RANKS" 'BEGIN { printf "%.0f", 8 + n * 64 / 1024 }')
TL=$(awk -v n="$RANKS" -v s="$LONG" 'BEGIN { printf "%.0f", 8 + n * (64 * 1024 + 128 * (s - 3)) / 1048576 }')
echo "bench: targets: the whole pipeline, cache cold or warm, <= 1.5 x the CPU of one tool alone (x_one, x_max); peak rss flat with trace size (<= 1.10 x from 256 MiB); start-up <= 5 ms a tool; the bare scan >= 1 GiB/s per core on plain input and <= 5x cat; each tool >= 400 MiB/s per core on plain input; gzip limited by inflate (x_base near 1 + plain cost); rss <= 32 MiB; the reduce of $RANKS ranks (150 collectives a rank): rss <= $T3 MiB each at 3 steps, <= $TL MiB at $LONG (8 MiB, then 64 KiB a rank and 128 bytes a rank a step: the summaries held as trimmed JSON trees, their per-step arrays packed, the strings and small numbers ranks repeat held once, the collectives compact)"
