#!/usr/bin/env bats
# The trace cache (pd_tcache.h, pd(7) ENVIRONMENT and FILES): a read
# through it hands out exactly what a parse does, and the tools' output is
# the same bytes with the cache off, cold (built) and warm (replayed).
# No number here is computed: each check compares a run with the cache
# against the same run without it (PD_CACHE=0), and tcache-check prints
# every pd_ev field, every on_meta call and every stats field of a read.
load helper
# these tests look into the cache: one of their own, whatever make check
# shares
export PD_CACHE_DIR="${BATS_TEST_TMPDIR:-${BATS_RUN_TMPDIR:-/tmp}}.cache"

TC=$PD_TESTBIN/tcache-check
KF=$FIX/kineto

# A file changed under 2 s ago is never cached (its times could repeat
# after another change, and ctime cannot be set back): the tests that need
# a file they wrote cached wait that long.
settle() { sleep 2.1; }

dump3() {	# dump3 FILE: off, cold, warm dumps of FILE must be equal
	PD_CACHE=0 "$TC" "$1" >"$BATS_TEST_TMPDIR/off" 2>"$BATS_TEST_TMPDIR/off.e"
	"$TC" "$1" >"$BATS_TEST_TMPDIR/cold" 2>"$BATS_TEST_TMPDIR/cold.e"
	"$TC" "$1" >"$BATS_TEST_TMPDIR/warm" 2>"$BATS_TEST_TMPDIR/warm.e"
	cmp "$BATS_TEST_TMPDIR/off" "$BATS_TEST_TMPDIR/cold"
	cmp "$BATS_TEST_TMPDIR/off" "$BATS_TEST_TMPDIR/warm"
	[ "$(cat "$BATS_TEST_TMPDIR/off.e")" = "cache: off" ]
	[ "$(cat "$BATS_TEST_TMPDIR/cold.e")" = "cache: built" ]
	[ "$(cat "$BATS_TEST_TMPDIR/warm.e")" = "cache: hit" ]
}

entry() { ls "$PD_CACHE_DIR"/*.pdtc; }

# dumpf FILE: with tcache-check's filter (-f: ph X only, no cat
# "cuda_runtime", no pid 0 or "Spans"), off, cold and warm must hand out
# the lines of the unfiltered read of the events it keeps, the same
# indexes, metas and stats; with PD_TRACE_FILTER=0, the unfiltered read.
# The expected lines are picked from the unfiltered dump with grep, on
# its fields (" ph=88 " is X; " 1/0 tid=" follows a pid that is the
# number 0), not by the code under test.
dumpf() {
	local d=$BATS_TEST_TMPDIR m
	rm -rf "$PD_CACHE_DIR"
	PD_CACHE=0 "$TC" "$1" >"$d/all" 2>/dev/null
	grep -v -E '^[0-9]+ ' "$d/all" >"$d/rest" || true
	{ grep -E '^[0-9]+ ph=88 ' "$d/all" |
	    grep -v -E ' cat=12:cuda_runtime | 1/0 tid=| pid=5:Spans 0/0 tid=' ||
	    true; } >"$d/kept"
	# the events in their order, then the metas and stats (tcache-check
	# prints metas where they come: compare each part on its own)
	for m in off cold warm; do
		if [ $m = off ]; then
			PD_CACHE=0 "$TC" -f "$1" >"$d/f.$m" 2>/dev/null
		else
			"$TC" -f "$1" >"$d/f.$m" 2>"$d/f.$m.e"
		fi
		grep -E '^[0-9]+ ' "$d/f.$m" | cmp - "$d/kept"
		grep -v -E '^[0-9]+ ' "$d/f.$m" | cmp - "$d/rest"
	done
	[ "$(cat "$d/f.cold.e")" = "cache: built" ]
	[ "$(cat "$d/f.warm.e")" = "cache: hit" ]
	PD_TRACE_FILTER=0 "$TC" -f "$1" 2>/dev/null | cmp - "$d/all"
	PD_TRACE_FILTER=0 PD_CACHE=0 "$TC" -f "$1" 2>/dev/null | cmp - "$d/all"
}

# filtered_reads FILE...: tcache-check -F (the lines of a read with its
# filter against those of the events the same test keeps from a read
# without it, as dumpf compares them; test/trace.bats checks -F against
# dumpf's grep), in a cache of their own: off; then into the empty cache
# the filtered read first (it builds the entry) and the unfiltered one
# replayed; then both replayed. Sets DECLINED, the events the filter
# declined in all the files.
filtered_reads() {
	local mode want l kept all
	rm -rf "$PD_CACHE_DIR"
	for mode in off built hit; do
		case $mode in
		off) PD_CACHE=0 run_pd "$TC" -F "$@"; want=off,off ;;
		built) run_pd "$TC" -F -r "$@"; want=hit,built ;;
		hit) run_pd "$TC" -F "$@"; want=hit,hit ;;
		esac
		[ "${#lines[@]}" -eq $# ]
		DECLINED=0
		for l in "${lines[@]}"; do
			[[ $l == "same "*" cache=$want" ]] || { echo "$mode: $l" >&2; return 1; }
			kept=${l#* kept=} kept=${kept%% *}
			all=${l#* of } all=${all%% *}
			DECLINED=$((DECLINED + all - kept))
		done
	done
}

# three3 FILE...: dump3 of each FILE in one process (tcache-check -3:
# the off, cold and warm reads of each, compared in memory); each line
# must say the three are the same and that the cache was off, then built
# the entry, then replayed it (the single-file tests below use dump3,
# three processes).
three3() {
	local f i
	run_pd 0 "$TC" -3 "$@"
	[ "${#lines[@]}" -eq "$#" ]
	i=0	# (after run: bats's run sets an i of its own)
	for f; do
		[ "${lines[i]}" = "same $f cache=off,built,hit" ] ||
		    { echo "line $i: ${lines[i]}" >&2; return 1; }
		i=$((i + 1))
	done
}

@test "cache: every kineto fixture reads the same off, cold and warm" {
	local f=("$KF"/*.json)
	[ "${#f[@]}" -ge 20 ]
	three3 "${f[@]}"
	[ "$(ls "$PD_CACHE_DIR"/*.pdtc | wc -l)" -eq "${#f[@]}" ]
	# a file given twice: its second off read is followed by two hits
	run_pd 0 "$TC" -3 "$KF/sum-kineto.json"
	[ "$output" = "same $KF/sum-kineto.json cache=off,hit,hit" ]
}

@test "cache: corpus traces (gzip, bare array, truncated) read the same" {
	require_corpus
	local f
	for f in "$CORPUS"/pytorch/hta-critical-path-a100/alexnet_trace.json.gz \
	    "$CORPUS"/pytorch/hta-misc-format-variants/*.json.gz \
	    "$CORPUS"/pytorch/hta-nccl-2rank-a100/nccl_data.json.gz \
	    "$CORPUS"/ascend/pta_1rank_level0_text/*/ASCEND_PROFILER_OUTPUT/trace_view.json; do
		[ -f "$f" ] || { echo "missing: $f" >&2; return 1; }
	done
	three3 "$CORPUS"/pytorch/hta-critical-path-a100/alexnet_trace.json.gz \
	    "$CORPUS"/pytorch/hta-misc-format-variants/*.json.gz \
	    "$CORPUS"/pytorch/hta-nccl-2rank-a100/nccl_data.json.gz \
	    "$CORPUS"/ascend/pta_1rank_level0_text/*/ASCEND_PROFILER_OUTPUT/trace_view.json
}

# args-forms.json: args objects written plainly and otherwise (blanks
# around colons and braces, new lines), escapes, nested values, strings
# holding brackets and commas, {} and { }, 32 and 33 keys (the lookups
# keep 32), a value over 127 and one over 16383 bytes, args first in the
# event and none; args-dups.json: keys repeated (the first one counts).
@test "cache: args kept by skeleton read as their text does, whatever their form" {
	three3 "$FIX/trace/args-forms.json" "$FIX/trace/args-dups.json"
	# the replay of an entry made in memory: every key of every event's
	# args looked up before the text is asked for (by skeleton: from the
	# values kept), then the text, put together: jansson's values
	run_pd 0 "$PD_TESTBIN/trace-check" -c "$FIX/trace/args-forms.json"
	[ "$output" = "ok $(jq '.traceEvents | length' "$FIX/trace/args-forms.json") events" ]
}

# 2000 events of one kind whose args differ in their values alone: by
# skeleton an event keeps its values (here 4 + 3 + 1 + 2 + 4 = 14 bytes
# at most for '{"External id": N, "Ev Idx": M, "Sequence number": K}' with
# N, M < 10000, K < 100: the skeleton's number, three lengths, the digits)
# where its text and a NUL take 54 to 60 bytes; the text kept instead
# would make the entry larger than 40 bytes a record and half the args
# text.
@test "cache: an entry keeps repeated args by skeleton, shorter than their text" {
	local t=$BATS_TEST_TMPDIR/rep.json e args size
	awk 'BEGIN { printf "{\"traceEvents\": ["
		for (i = 0; i < 2000; i++)
			printf "%s{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1, \"ts\": %d, \"dur\": 1, \"args\": {\"External id\": %d, \"Ev Idx\": %d, \"Sequence number\": %d}}", (i ? ", " : ""), i, i * 3, i % 1000, i % 100
		printf "]}\n" }' >"$t"
	settle
	dump3 "$t"
	e=$(entry)
	# the args' text and a NUL each, as an entry would keep them
	args=$(grep -o '"args": {[^}]*}' "$t" |
	    awk '{ n += length($0) - length("\"args\": ") + 1 } END { print n }')
	size=$(stat -c %s "$e")
	[ "$args" -gt 100000 ]
	[ "$size" -lt $((2000 * 40 + args / 2)) ]
	# the values are the text's
	grep -q '^1999 .* look=External id:4:5997;Ev Idx:3:999; lookn=External id:4:5997;Ev Idx:3:999; args=59:' "$BATS_TEST_TMPDIR/off"
}

@test "cache: a filter hands out the events it keeps, off, cold and warm" {
	local f
	filtered_reads "$KF"/*.json
	# it did decline events (and keep some)
	[ "$DECLINED" -gt 100 ]
	[[ "${lines[*]}" == *" kept="[1-9]* ]]
	# PD_TRACE_FILTER=0: the unfiltered read, cache off and replayed
	for f in "$KF"/sum-kineto.json "$KF"/sum-2021.json; do
		dumpf "$f"
	done
	# a read stopped by the callback, and an image replayed from memory
	f=$KF/sum-kineto.json
	[ "$(PD_CACHE=0 "$TC" -f -s 5 "$f" 2>/dev/null)" = "$("$TC" -f -s 5 "$f" 2>/dev/null)" ]
	[ "$(PD_CACHE=0 "$TC" -f "$f" 2>/dev/null)" = "$("$TC" -f -m "$f")" ]
}

@test "cache: a pid or tid repeated past the filter's answer leaves no number behind" {
	local t=$BATS_TEST_TMPDIR/rep.json d=$BATS_TEST_TMPDIR
	# the filter is asked once ph, name, cat and pid are read: here with
	# pid 1 and tid 2, which the event then names again as texts
	printf '%s' '[{"ph":"X","cat":"c","name":"a","pid":1,"tid":2,"ts":1,"dur":1,"pid":"P","tid":"T"},{"ph":"X","name":"b","pid":3,"ts":2}]' >"$t"
	settle
	dumpf "$t"
	# the unfiltered read: texts that are not numbers (0/0), as parsed
	grep -q '^0 .* pid=1:P 0/0 tid=1:T 0/0 ' "$d/all"
	grep -q '^0 .* pid=1:P 0/0 tid=1:T 0/0 ' "$d/f.off"
}

@test "cache: a filter on corpus traces (pids 0 and Spans, gzip, truncated)" {
	require_corpus
	local f files=("$CORPUS"/pytorch/hta-critical-path-a100/alexnet_trace.json.gz
	    "$CORPUS"/pytorch/hta-misc-format-variants/*.json.gz
	    "$CORPUS"/pytorch/hta-nccl-2rank-a100/nccl_data.json.gz)
	for f in "${files[@]}"; do
		[ -f "$f" ] || { echo "missing: $f" >&2; return 1; }
	done
	filtered_reads "${files[@]}"
	[ "$DECLINED" -gt 1000 ]
}

@test "cache: a truncated and a malformed trace replay their diagnostics" {
	local f
	for f in "$KF"/sum-cut.json "$FIX"/lib/missing-comma.json; do
		dump3 "$f"
		# the reader's verdict is in the replayed stats line
		tail -n 1 "$BATS_TEST_TMPDIR/warm" | grep -E 'rc=1 .*(truncated=1|malformed=1)'
	done
}

@test "cache: an image built in memory replays as the parse" {
	local f
	for f in "$KF"/sum-kineto.json "$KF"/sum-autograd.json "$KF"/sum-cut.json; do
		run_pd 0 "$TC" -m "$f"
		[ "$output" = "$(PD_CACHE=0 "$TC" "$f" 2>/dev/null)" ]
	done
}

# t.json: metas before and after the events, an entry that is not an
# object and one with a bad ts between events (skipped), a pid written
# "+5" (its number is 5, but it is not all digits), an id and args.
mkskips() {
	printf '%s' '{"a":{"x":[1,2.5,"s"]},"traceEvents":[{"ph":"X","name":"a","ts":1},1,{"ts":"bad"},{"ph":"X","name":"b","pid":"+5","tid":7,"ts":2,"id":"0x1","args":{"k":"v"}},2,{"ph":"X","ts":3}],"z":[true,null]}' >"$1"
}

@test "cache: a read stopped by the callback sees the same events, skips and metas" {
	local t=$BATS_TEST_TMPDIR/t.json s
	mkskips "$t"
	settle
	run_pd 0 "$TC" "$t"
	[ "$stderr" = "cache: built" ]
	# the whole read: 3 events, 3 skipped, both metas
	[ "$(printf '%s\n' "$output" | grep -c '^meta')" -eq 2 ]
	printf '%s\n' "$output" | tail -n 1 | grep 'events=3 skipped=3'
	for s in 1 2 3; do
		run_pd 0 "$TC" -s "$s" "$t"
		[ "$stderr" = "cache: hit" ]
		[ "$output" = "$(PD_CACHE=0 "$TC" -s "$s" "$t" 2>/dev/null)" ]
	done
	# stopped after event 1: the two skipped entries before event 1
	# counted, the meta after the events not called
	run_pd 0 "$TC" -s 2 "$t"
	printf '%s\n' "$output" | tail -n 1 | grep 'events=2 skipped=2'
	[ "$(printf '%s\n' "$output" | grep -c '^meta')" -eq 1 ]
}

@test "cache: a stopped read writes no entry" {
	local t=$BATS_TEST_TMPDIR/t.json
	mkskips "$t"
	settle
	run_pd 0 "$TC" -s 1 "$t"
	[ "$stderr" = "cache: source" ]
	run ls "$PD_CACHE_DIR"/*.pdtc
	[ "$status" -ne 0 ]
}

@test "cache: a trace changed under 2 s ago is parsed, and a changed trace is never replayed stale" {
	local t=$BATS_TEST_TMPDIR/t.json
	printf '[{"ph":"X","name":"aaa","ts":1}]' >"$t"
	run_pd 0 "$TC" "$t"
	[ "$stderr" = "cache: source" ]
	settle
	run_pd 0 "$TC" "$t"
	[ "$stderr" = "cache: built" ]
	# the same size, rewritten in place
	printf '[{"ph":"X","name":"bbb","ts":1}]' >"$t"
	run_pd 0 "$TC" "$t"
	[ "$stderr" = "cache: source" ]
	printf '%s\n' "$output" | grep 'name=3:bbb'
}

flip() {	# flip FILE OFFSET: one bit changed (a negative offset: from the end)
	python3 -c 'import sys; p=sys.argv[1]; b=bytearray(open(p,"rb").read()); b[int(sys.argv[2])]^=1; open(p,"wb").write(b)' "$1" "$2"
}

# chunks ENTRY: a line a chunk of the entry: its offset, record size,
# shapes, events, where its records start and its ids' length
# (lib/pd_tcache.c: the header is 448 bytes, its events' offset and
# length at 312; a chunk's 304: nrec at 0, id_len at 8, rsize at 40,
# nshp at 44, the args blocks' lengths at 48; then its shapes, 4 bytes
# each, padded to 8, their spans, 16 bytes each (the earliest start and
# latest end of the shape's events in the chunk: two int64s), its
# records, rsize bytes each (20 narrow, 40 wide; a record
# starts with ts then dur), its ids, then its args blocks, each padded
# to 8)
chunks() {
	python3 -c '
import struct, sys
b = open(sys.argv[1], "rb").read()
o, n = struct.unpack_from("=QQ", b, 312)
p8 = lambda x: (x + 7) // 8 * 8
p, end = o, o + n
while p < end:
    nr, = struct.unpack_from("=I", b, p)
    il, = struct.unpack_from("=Q", b, p + 8)
    rs, ns = struct.unpack_from("=II", b, p + 40)
    al = struct.unpack_from("=16Q", b, p + 48)
    print(p, rs, ns, nr, p + 304 + p8(4 * ns) + 16 * ns, il)
    p += 304 + p8(4 * ns) + 16 * ns + p8(rs * nr) + p8(il) + sum(p8(a) for a in al)' "$1"
}
# chunk0 ENTRY FIELD: where in the entry the first chunk's FIELD is:
#   dur0  the first event's dur
#   args0 the first args block's first byte + 1 (in the first event's
#         args when its category is the first met)
chunk0() {
	chunks "$1" | awk -v f="$2" 'NR == 1 {
		if (f == "dur0")
			print $5 + ($2 == 20 ? 4 : 8)
		else
			print $5 + int(($2 * $4 + 7) / 8) * 8 + int(($6 + 7) / 8) * 8 + 1
	}'
}
args0() {
	chunk0 "$1" args0
}
# evmid ENTRY: half way through the events (ev_off at 312, ev_len at 320)
evmid() {
	python3 -c 'import struct, sys; b = open(sys.argv[1], "rb").read(); o, n = struct.unpack_from("=QQ", b, 312); print(o + n // 2)' "$1"
}

@test "cache: a corrupt, cut or foreign entry is rebuilt, never used" {
	local f=$KF/sum-kineto.json e n
	dump3 "$f"
	e=$(entry)
	# the first event's dur: its chunk is checked before it is handed
	# out, and the read goes on from the trace itself
	flip "$e" "$(chunk0 "$e" dur0)"
	run_pd 0 "$TC" "$f"
	[ "$stderr" = "cache: source" ]
	[ "$output" = "$(cat "$BATS_TEST_TMPDIR/off")" ]
	[ ! -e "$e" ]
	run_pd 0 "$TC" "$f"
	[ "$stderr" = "cache: built" ]
	# the first event's args (in its category's block, after the
	# chunk's records and ids): the block is checked when the first args
	# in it are asked for, the event's args are then the trace's, and the
	# read goes on from the trace after it
	n=$(grep -c -E '^[0-9]+ ' "$BATS_TEST_TMPDIR/off")
	[ "$n" -lt 4096 ]	# one chunk
	grep -q '^0 .* args=[1-9]' "$BATS_TEST_TMPDIR/off"
	flip "$e" "$(args0 "$e")"
	run_pd 0 "$TC" "$f"
	[ "$stderr" = "cache: source" ]
	[ "$output" = "$(cat "$BATS_TEST_TMPDIR/off")" ]
	[ ! -e "$e" ]
	run_pd 0 "$TC" "$f"
	[ "$stderr" = "cache: built" ]
	# the sections after the events (here 8 bytes from the end):
	# checked when the entry is opened
	flip "$e" -8
	run_pd 0 "$TC" "$f"
	[ "$stderr" = "cache: built" ]
	[ "$output" = "$(cat "$BATS_TEST_TMPDIR/off")" ]
	# cut short
	head -c 1000 "$e" >"$e.x" && mv "$e.x" "$e"
	run_pd 0 "$TC" "$f"
	[ "$stderr" = "cache: built" ]
	[ "$output" = "$(cat "$BATS_TEST_TMPDIR/off")" ]
	# another trace's entry under this name
	"$TC" "$KF/sum-2021.json" >/dev/null 2>&1
	for x in "$PD_CACHE_DIR"/*.pdtc; do
		[ "$x" = "$e" ] || cp "$x" "$e"
	done
	run_pd 0 "$TC" "$f"
	[ "$stderr" = "cache: built" ]
	[ "$output" = "$(cat "$BATS_TEST_TMPDIR/off")" ]
}

@test "cache: a replay reads a category's args only when they are asked for" {
	local f=$KF/sum-kineto.json e off
	dump3 "$f"
	e=$(entry)
	# a bit of the first event's args (user_annotation's block) changed:
	# a read that asks for no args (-q) replays the entry as it is
	flip "$e" "$(args0 "$e")"
	run_pd 0 "$TC" -q "$f"
	[ "$stderr" = "cache: hit" ]
	[ -e "$e" ]
	# one that asks for them finds the block bad, has that event's args
	# from the trace and goes on from the trace: the same dump
	run_pd 0 "$TC" "$f"
	[ "$stderr" = "cache: source" ]
	[ "$output" = "$(cat "$BATS_TEST_TMPDIR/off")" ]
	[ ! -e "$e" ]
	# a read that stops at that event (-s 1) has its args from the trace
	# too, and the entry is removed all the same
	PD_CACHE=0 "$TC" -s 1 "$f" >"$BATS_TEST_TMPDIR/off1"
	"$TC" "$f" >/dev/null 2>&1
	flip "$e" "$(args0 "$e")"
	run_pd 0 "$TC" -s 1 "$f"
	[ "$stderr" = "cache: source" ]
	[ "$output" = "$(cat "$BATS_TEST_TMPDIR/off1")" ]
	grep -q '^0 .* args=[1-9]' "$BATS_TEST_TMPDIR/off1"
	[ ! -e "$e" ]
}

@test "cache: a bad chunk half way through goes on from the trace" {
	require_corpus
	local f=$CORPUS/pytorch/hta-nccl-2rank-a100/nccl_data.json.gz e
	dump3 "$f"
	e=$(entry)
	# half way through the events: a later chunk of events (4096 each),
	# after thousands of events were handed out from the entry
	flip "$e" "$(evmid "$e")"
	run_pd 0 "$TC" "$f"
	[ "$stderr" = "cache: source" ]
	[ "$output" = "$(cat "$BATS_TEST_TMPDIR/off")" ]
}

# span_of DUMP: the span tcache-check -f -S must give, from its dump
# without a filter: the earliest ts and the latest ts + dur of the events
# with ph X (88) and cat "cuda_runtime" that have both, dur >= 0
# ("span=LO..HI", else "span=-"); the fields read by their lengths, the
# sums in Python's integers.
span_of() {
	python3 - "$1" <<'PY'
import re, sys
lo = hi = None
for line in open(sys.argv[1], encoding="utf-8", errors="surrogateescape"):
    m = re.match(r"\d+ ph=(\d+) name=(\d+):", line)
    if not m or m.group(1) != "88":
        continue
    rest = line[m.end() + int(m.group(2)):]
    m = re.match(r" cat=(\d+):", rest)
    n = int(m.group(1))
    if rest[m.end():m.end() + n] != "cuda_runtime":
        continue
    m = re.search(r" ts=(\d)/(-?\d+) dur=(\d)/(-?\d+) look=", rest)
    if m.group(1) != "1" or m.group(3) != "1" or int(m.group(4)) < 0:
        continue
    t, e = int(m.group(2)), int(m.group(2)) + int(m.group(4))
    lo = t if lo is None or t < lo else lo
    hi = e if hi is None or e > hi else hi
print("span=-" if lo is None else "span=%d..%d" % (lo, hi))
PY
}

# A filter's span callback (tcache-check -S: of the events -f declines,
# those of ph X and cat "cuda_runtime") gives the earliest start and the
# latest end of those events, as span_of finds them in the unfiltered
# dump: off, cold and warm, from an image in memory (the plain fixture),
# and after a bad
# chunk half way through (the rest read from the trace). What is handed
# out is what -f alone hands out; with PD_TRACE_FILTER=0 everything is
# handed out and no span kept. Fails if a reader hands those events out,
# drops them, or keeps them only from the records it reads whole.
@test "cache: a filter's span keeps the time of events it declines, off, cold and warm" {
	require_corpus
	local f want d=$BATS_TEST_TMPDIR e
	for f in "$KF"/sum-kineto.json \
	    "$CORPUS"/pytorch/hta-nccl-2rank-a100/nccl_data.json.gz; do
		rm -rf "$PD_CACHE_DIR"
		PD_CACHE=0 "$TC" "$f" >"$d/all" 2>/dev/null
		want=$(span_of "$d/all")
		[ "$want" != "span=-" ]
		PD_CACHE=0 "$TC" -f "$f" 2>/dev/null | sed '$d' >"$d/kept"
		PD_CACHE=0 "$TC" -f -S "$f" >"$d/off" 2>/dev/null
		"$TC" -f -S "$f" >"$d/cold" 2>"$d/cold.e"
		"$TC" -f -S "$f" >"$d/warm" 2>"$d/warm.e"
		[ "$(cat "$d/cold.e")" = "cache: built" ]
		[ "$(cat "$d/warm.e")" = "cache: hit" ]
		[[ "$(tail -n 1 "$d/off")" == *" $want "* ]]
		cmp "$d/off" "$d/cold"
		cmp "$d/off" "$d/warm"
		sed '$d' "$d/off" | cmp - "$d/kept"
		# an image built in memory (of plain JSON: not the gzip one)
		[ "${f%.gz}" != "$f" ] ||
		    [ "$("$TC" -f -S -m "$f")" = "$(cat "$d/off")" ]
		[[ "$(PD_TRACE_FILTER=0 "$TC" -f -S "$f" 2>/dev/null |
		    tail -n 1)" == *" span=- "* ]]
	done
	# the corpus trace's entry with a bad record in each chunk in turn:
	# a chunk whose events the filter all declines or keeps for their
	# time alone is passed over (its spans give their time), so the entry
	# is still used; a chunk with an event the filter keeps is read, and
	# the span is that of the events replayed before it and of those
	# read from the trace. This trace has chunks of both kinds (its
	# second half is GPU and runtime events only).
	local k n skipped=0 read=0 at
	e=$(entry)
	n=$(chunks "$e" | wc -l)
	for k in $(seq 1 "$n"); do
		at=$(chunks "$e" | awk -v k="$k" 'NR == k { print $5 + 4 }')
		flip "$e" "$at"
		"$TC" -f -S "$f" >"$d/bad" 2>"$d/bad.e"
		cmp "$d/off" "$d/bad"
		if [ "$(cat "$d/bad.e")" = "cache: source" ]; then
			read=$((read + 1))
			[ ! -e "$e" ]
			"$TC" -f -S "$f" >/dev/null 2>"$d/bad.e"
			[ "$(cat "$d/bad.e")" = "cache: built" ]
		else
			[ "$(cat "$d/bad.e")" = "cache: hit" ]
			skipped=$((skipped + 1))
			flip "$e" "$at"
		fi
	done
	[ "$skipped" -ge 1 ] && [ "$read" -ge 1 ]
}

# big.json: 10000 events (three chunks of the entry, 4096 events each),
# event 5000's args a 300000-byte string (larger than one read of the
# replay, 64 KiB), starting "MARK" so that a test can find it in the entry
mkbig() {
	python3 - "$1" <<'PY'
import json, sys
ev = []
for i in range(10000):
    e = {"ph": "X", "cat": "kernel", "name": "k%d" % (i % 7), "pid": 0,
         "tid": 7, "ts": 1000 + i, "dur": 1, "args": {"External id": i}}
    if i == 5000:
        e["args"]["big"] = "MARK" + "x" * 300000
    ev.append(e)
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
PY
}

@test "cache: an event larger than one read, events over several chunks" {
	local t=$BATS_TEST_TMPDIR/big.json e off
	mkbig "$t"
	settle
	dump3 "$t"
	grep -q '^5000 .* args=300' "$BATS_TEST_TMPDIR/off"
	[ "$(grep -c -E '^[0-9]+ ' "$BATS_TEST_TMPDIR/off")" -eq 10000 ]
	# a bit of the big args changed: found when its chunk is read (after
	# events 0 to 4095 were handed out), the rest read from the trace
	e=$(entry)
	off=$(python3 -c 'import sys; print(open(sys.argv[1],"rb").read().index(b"MARK") + 1000)' "$e")
	flip "$e" "$off"
	run_pd 0 "$TC" "$t"
	[ "$stderr" = "cache: source" ]
	[ "$output" = "$(cat "$BATS_TEST_TMPDIR/off")" ]
	[ ! -e "$e" ]
}

# mkchunks FILE: four chunks of 4096 events: the first all cat
# "cuda_runtime" (the -f filter declines each of them), the second with
# one event of 5 s (past a narrow record's dur), the third with one 10 s
# after the rest (past a narrow record's ts), the fourth instants (ph i:
# declined too) and a few kernels after them
mkchunks() {
	python3 - "$1" <<'PY'
import json, sys
ev = []
for c in range(4):
    for i in range(4096):
        t = 1700000000000000 + c * 100000 + i * 10
        e = {"ph": "X", "cat": "kernel", "name": "k%d" % (i % 5), "pid": 1,
             "tid": 7, "ts": t, "dur": 3}
        if c == 0:
            e["cat"] = "cuda_runtime"
        if c == 1 and i == 100:
            e["dur"] = 5000000
        if c == 2 and i == 200:
            e["ts"] = t + 10000000
        if c == 3:
            e = {"ph": "i", "cat": "cpu_instant_event", "name": "m",
                 "pid": 1, "tid": 7, "ts": t, "s": "t"}
        ev.append(e)
for i in range(3):
    ev.append({"ph": "X", "cat": "kernel", "name": "k", "pid": 1, "tid": 7,
               "ts": 1700000000500000 + i, "dur": 1})
json.dump({"traceEvents": ev, "after": 1}, open(sys.argv[1], "w"))
PY
}

@test "cache: narrow records where a chunk's events fit; a declined chunk is not read" {
	local t=$BATS_TEST_TMPDIR/chunks.json e c1 c2
	mkchunks "$t"
	settle
	dump3 "$t"
	e=$(entry)
	# record sizes: 20 (narrow), 40 (a dur or a ts past 2^32 ns), then
	# narrow again; the shapes each chunk has (k0..k4; the second and
	# third add their event "k" only in the fifth)
	chunks "$e" | awk '{ print $2, $3, $4 }' >"$BATS_TEST_TMPDIR/ch"
	printf '%s\n' "20 5 4096" "40 5 4096" "40 5 4096" "20 1 4096" \
	    "20 1 3" | cmp - "$BATS_TEST_TMPDIR/ch"
	# with the filter: the same events, off, cold and warm
	dumpf "$t"
	# a bit of the first chunk's records changed: the filter declines
	# every shape the chunk lists, so its records are not read (the
	# entry is used); a read without the filter finds the sum wrong
	c1=$(chunks "$e" | awk 'NR == 1 { print $5 + 4 }')
	flip "$e" "$c1"
	"$TC" -f "$t" >"$BATS_TEST_TMPDIR/f.bad" 2>"$BATS_TEST_TMPDIR/f.bad.e"
	[ "$(cat "$BATS_TEST_TMPDIR/f.bad.e")" = "cache: hit" ]
	cmp "$BATS_TEST_TMPDIR/f.bad" "$BATS_TEST_TMPDIR/f.warm"
	run_pd 0 "$TC" "$t"
	[ "$stderr" = "cache: source" ]
	[ "$output" = "$(cat "$BATS_TEST_TMPDIR/all")" ]
	[ ! -e "$e" ]
	# the fourth chunk's list of shapes changed (a bit of its one
	# number): its own sum is wrong, and the filtered read goes on from
	# the trace
	"$TC" -f "$t" >/dev/null 2>&1
	c2=$(chunks "$e" | awk 'NR == 4 { print $1 + 304 }')
	flip "$e" "$c2"
	"$TC" -f "$t" >"$BATS_TEST_TMPDIR/f.bad" 2>"$BATS_TEST_TMPDIR/f.bad.e"
	[ "$(cat "$BATS_TEST_TMPDIR/f.bad.e")" = "cache: source" ]
	cmp "$BATS_TEST_TMPDIR/f.bad" "$BATS_TEST_TMPDIR/f.warm"
	[ ! -e "$e" ]
}

# With a span callback too (tcache-check -f -S keeps the time of the
# cuda_runtime events the filter declines), the first chunk of
# mkchunks's trace, all cuda_runtime, is passed over by its shapes'
# spans: a bit of its records changed is not read, and the span is still
# the one span_of finds in the unfiltered dump; a bit of its spans
# changed is found by the sum of its header and shapes, and the read
# goes on from the trace with the same answer.
@test "cache: a chunk kept for its time alone is passed over by its spans" {
	local t=$BATS_TEST_TMPDIR/chunks.json d=$BATS_TEST_TMPDIR e want at
	mkchunks "$t"
	settle
	rm -rf "$PD_CACHE_DIR"
	PD_CACHE=0 "$TC" "$t" >"$d/all" 2>/dev/null
	want=$(span_of "$d/all")
	[ "$want" = "span=1700000000000000000..1700000000040953000" ]
	PD_CACHE=0 "$TC" -f -S "$t" >"$d/off" 2>/dev/null
	[[ "$(tail -n 1 "$d/off")" == *" $want "* ]]
	"$TC" -f -S "$t" >"$d/cold" 2>"$d/cold.e"
	[ "$(cat "$d/cold.e")" = "cache: built" ]
	cmp "$d/off" "$d/cold"
	e=$(entry)
	# the first record's dur
	flip "$e" "$(chunks "$e" | awk 'NR == 1 { print $5 + 4 }')"
	"$TC" -f -S "$t" >"$d/warm" 2>"$d/warm.e"
	[ "$(cat "$d/warm.e")" = "cache: hit" ]
	cmp "$d/off" "$d/warm"
	# its first shape's span: the first byte of its hi (after the list
	# of its shapes, 4 bytes each padded to 8, and lo)
	flip "$e" "$(chunks "$e" | awk 'NR == 1 {
	    print $1 + 304 + int((4 * $3 + 7) / 8) * 8 + 8 }')"
	"$TC" -f -S "$t" >"$d/bad" 2>"$d/bad.e"
	[ "$(cat "$d/bad.e")" = "cache: source" ]
	cmp "$d/off" "$d/bad"
	[ ! -e "$e" ]
}

@test "cache: a symlinked entry is not followed" {
	local f=$KF/sum-kineto.json e
	dump3 "$f"
	e=$(entry)
	mv "$e" "$BATS_TEST_TMPDIR/real.pdtc"
	ln -s "$BATS_TEST_TMPDIR/real.pdtc" "$e"
	run_pd 0 "$TC" "$f"
	[ "$stderr" = "cache: built" ]
	[ ! -L "$e" ] && [ -f "$e" ]
}

@test "cache: the directory is made 0700, entries 0600; one others may write to is not used" {
	dump3 "$KF/sum-kineto.json"
	[ "$(stat -c %a "$PD_CACHE_DIR")" = 700 ]
	[ "$(stat -c %a "$(entry)")" = 600 ]
	chmod 0777 "$PD_CACHE_DIR"
	run_pd 0 "$TC" "$KF/sum-kineto.json"
	[ "$stderr" = "cache: off" ]
}

@test "cache: the default place is \$XDG_CACHE_HOME/perfdiag, else ~/.cache/perfdiag" {
	unset PD_CACHE_DIR
	XDG_CACHE_HOME=$BATS_TEST_TMPDIR/xdg run_pd 0 "$TC" "$KF/sum-kineto.json"
	[ "$stderr" = "cache: built" ]
	ls "$BATS_TEST_TMPDIR"/xdg/perfdiag/*.pdtc
	HOME=$BATS_TEST_TMPDIR/home run_pd 0 "$TC" "$KF/sum-kineto.json"
	[ "$stderr" = "cache: built" ]
	ls "$BATS_TEST_TMPDIR"/home/.cache/perfdiag/*.pdtc
}

@test "cache: PD_CACHE=0 and --no-cache turn it off" {
	PD_CACHE=0 run_pd 0 "$TC" "$KF/sum-kineto.json"
	[ "$stderr" = "cache: off" ]
	PD_CACHE=0 run_pd 0 pd-sum-step "$KF/sum-kineto.json"
	run_pd 0 pd-sum-step --no-cache "$KF/sum-kineto.json"
	[ ! -e "$PD_CACHE_DIR" ] || [ -z "$(ls "$PD_CACHE_DIR")" ]
	run_pd 0 pd-sum-step "$KF/sum-kineto.json"
	entry
}

@test "cache: PD_CACHE_SIZE bounds the directory, least recently used first" {
	mkdir -m 0700 "$PD_CACHE_DIR"
	# an old entry of 1 MiB and a dead builder's leftover
	head -c 1048576 /dev/zero >"$PD_CACHE_DIR/0000000000000000.pdtc"
	: >"$PD_CACHE_DIR/0000000000000000.999.tmp"
	touch -d '2000-01-01' "$PD_CACHE_DIR"/0000000000000000.*
	PD_CACHE_SIZE=1 run_pd 0 "$TC" "$KF/sum-kineto.json"
	[ "$stderr" = "cache: built" ]
	[ "$(ls "$PD_CACHE_DIR" | grep -c '^0000000000000000')" -eq 0 ]
	entry
	# an entry larger than the bound is not kept
	PD_CACHE_SIZE=0 run_pd 0 "$TC" "$KF/sum-2021.json"
	[ "$stderr" = "cache: built" ]
	[ "$(ls "$PD_CACHE_DIR"/*.pdtc | wc -l)" -eq 0 ]
}

@test "cache: concurrent readers wait for one builder" {
	require_corpus
	local f=$CORPUS/pytorch/hta-nccl-2rank-a100/nccl_data.json.gz i
	PD_CACHE=0 "$TC" "$f" >"$BATS_TEST_TMPDIR/off" 2>/dev/null
	for i in 1 2 3 4; do
		"$TC" "$f" >"$BATS_TEST_TMPDIR/o$i" 2>"$BATS_TEST_TMPDIR/e$i" &
	done
	wait
	for i in 1 2 3 4; do
		cmp "$BATS_TEST_TMPDIR/off" "$BATS_TEST_TMPDIR/o$i"
	done
	[ "$(cat "$BATS_TEST_TMPDIR"/e? | sort | uniq -c | tr -s ' ')" = " 1 cache: built
 3 cache: hit" ]
}

@test "cache: a builder that stalls is given up on; one that dies leaves no entry" {
	local f=$KF/sum-kineto.json pid
	PD_CACHE=0 "$TC" "$f" >"$BATS_TEST_TMPDIR/off" 2>/dev/null
	# a builder slowed to 1 s an event, then stopped
	"$TC" -w 1000 "$f" >/dev/null 2>&1 &
	pid=$!
	while ! ls "$PD_CACHE_DIR"/*.tmp >/dev/null 2>&1; do sleep 0.1; done
	kill -STOP "$pid"
	run_pd 0 "$TC" "$f"
	[ "$stderr" = "cache: source" ]
	[ "$output" = "$(cat "$BATS_TEST_TMPDIR/off")" ]
	kill -KILL "$pid"
	wait "$pid" || true
	run ls "$PD_CACHE_DIR"/*.pdtc
	[ "$status" -ne 0 ]
	# its lock died with it
	run_pd 0 "$TC" "$f"
	[ "$stderr" = "cache: built" ]
	[ "$output" = "$(cat "$BATS_TEST_TMPDIR/off")" ]
}

pipeline() {	# pipeline DIR: the evidence pipeline's stdout, then each
	# stage's stderr in stage order (the stages run at once: into one
	# file their messages would interleave, even within a line)
	local e=$BATS_TEST_TMPDIR/stderr
	pd-locate "$1" 2>"$e.1" | pd-sum-step 2>"$e.2" | pd-sum-comm 2>"$e.3" |
	    pd-sum-mem 2>"$e.4" | pd-sum-input 2>"$e.5" |
	    pd-sum-gaps 2>"$e.6" | pd-hotspots 2>"$e.7" | pd-profile 2>"$e.8"
	cat "$e".[1-8]
}

# The tools' filters against none (PD_TRACE_FILTER=0), with the cache
# off; then the cache built and replayed, with the filters. A replay with
# the filters turned off hands out the parse's events (dumpf above).
@test "cache: the pipeline's output is the same bytes off, cold and warm, with the tools' filters or without" {
	require_corpus
	local d
	for d in pytorch/hta-critical-path-a100 pytorch/hta-misc-format-variants \
	    pytorch/hta-sampled-2of128rank pytorch/hta-nccl-2rank-a100 \
	    pytorch/hta-memory-events-v100 archives/two-jobs-ascend-pta-and-kineto; do
		rm -rf "$PD_CACHE_DIR"
		PD_CACHE=0 PD_TRACE_FILTER=0 pipeline "$CORPUS/$d" >"$BATS_TEST_TMPDIR/all"
		PD_CACHE=0 pipeline "$CORPUS/$d" >"$BATS_TEST_TMPDIR/off"
		pipeline "$CORPUS/$d" >"$BATS_TEST_TMPDIR/cold"
		pipeline "$CORPUS/$d" >"$BATS_TEST_TMPDIR/warm"
		cmp "$BATS_TEST_TMPDIR/all" "$BATS_TEST_TMPDIR/off"
		cmp "$BATS_TEST_TMPDIR/off" "$BATS_TEST_TMPDIR/cold"
		cmp "$BATS_TEST_TMPDIR/off" "$BATS_TEST_TMPDIR/warm"
		grep -q '"type":"pd.profile"' "$BATS_TEST_TMPDIR/off"
		entry >/dev/null
	done
	# an Nsight Systems export is kept as the events of each of its
	# processes (the mfu exports: two each, pd-locate's test in
	# nsys.bats), read once for the pipeline: the same bytes
	d=nsys/nsysai-mfu-train-h100-2gpu-before-after
	rm -rf "$PD_CACHE_DIR"
	PD_CACHE=0 PD_TRACE_FILTER=0 pipeline "$CORPUS/$d" >"$BATS_TEST_TMPDIR/all"
	PD_CACHE=0 pipeline "$CORPUS/$d" >"$BATS_TEST_TMPDIR/off"
	pipeline "$CORPUS/$d" >"$BATS_TEST_TMPDIR/cold"
	[ "$(entry | wc -l)" -eq 4 ]
	pipeline "$CORPUS/$d" >"$BATS_TEST_TMPDIR/warm"
	PD_TRACE_FILTER=0 pipeline "$CORPUS/$d" >"$BATS_TEST_TMPDIR/wall"
	cmp "$BATS_TEST_TMPDIR/all" "$BATS_TEST_TMPDIR/off"
	cmp "$BATS_TEST_TMPDIR/off" "$BATS_TEST_TMPDIR/cold"
	cmp "$BATS_TEST_TMPDIR/off" "$BATS_TEST_TMPDIR/warm"
	cmp "$BATS_TEST_TMPDIR/off" "$BATS_TEST_TMPDIR/wall"
	[ "$(entry | wc -l)" -eq 4 ]
	grep -q '"type":"pd.profile"' "$BATS_TEST_TMPDIR/off"
}

@test "cache: every Nsight export reads the same off, cold and warm; a damaged one is never kept" {
	require_corpus
	local f
	for f in "$CORPUS"/nsys/*/*.sqlite; do
		rm -rf "$PD_CACHE_DIR"
		PD_CACHE=0 pipeline "$f" >"$BATS_TEST_TMPDIR/off"
		pipeline "$f" >"$BATS_TEST_TMPDIR/cold"
		pipeline "$f" >"$BATS_TEST_TMPDIR/warm"
		cmp "$BATS_TEST_TMPDIR/off" "$BATS_TEST_TMPDIR/cold"
		cmp "$BATS_TEST_TMPDIR/off" "$BATS_TEST_TMPDIR/warm"
		# one entry a process pd-locate finds in it
		[ "$(entry | wc -l)" -eq "$(pd-locate "$f" | grep -c '"type":"pd.root"')" ]
	done
	# a page of the mfu export's tables overwritten: each read of it
	# stops at that page with a warning (one a process, each run) and
	# nothing is kept, so that a replay cannot drop the warning
	cp "$CORPUS/nsys/nsysai-mfu-train-h100-2gpu-before-after/mfu_2gpu_before.sqlite" \
	    "$BATS_TEST_TMPDIR/bad.sqlite"
	chmod u+w "$BATS_TEST_TMPDIR/bad.sqlite"
	python3 -c 'import sys; f = open(sys.argv[1], "r+b"); f.seek(1500 * 1024); f.write(b"\xff" * 4096)' \
	    "$BATS_TEST_TMPDIR/bad.sqlite"
	settle
	rm -rf "$PD_CACHE_DIR"
	for f in off cold warm; do
		if [ $f = off ]; then
			PD_CACHE=0 run_pd 3 bash -c "pd-locate '$BATS_TEST_TMPDIR/bad.sqlite' | pd-sum-step"
		else
			run_pd 3 bash -c "pd-locate '$BATS_TEST_TMPDIR/bad.sqlite' | pd-sum-step"
		fi
		[ "$(grep -c 'bad.sqlite: reading the export: database disk image is malformed; summarized the rows read before it' <<<"$stderr")" -eq 2 ]
		cp <(printf '%s\n' "$output") "$BATS_TEST_TMPDIR/bad.$f"
	done
	cmp "$BATS_TEST_TMPDIR/bad.off" "$BATS_TEST_TMPDIR/bad.warm"
	not entry 2>/dev/null
}

@test "cache: the fixtures' pipeline is the same bytes off, cold and warm, with the tools' filters or without" {
	PD_CACHE=0 PD_TRACE_FILTER=0 pipeline "$KF" >"$BATS_TEST_TMPDIR/all"
	PD_CACHE=0 pipeline "$KF" >"$BATS_TEST_TMPDIR/off"
	pipeline "$KF" >"$BATS_TEST_TMPDIR/cold"
	pipeline "$KF" >"$BATS_TEST_TMPDIR/warm"
	PD_TRACE_FILTER=0 pipeline "$KF" >"$BATS_TEST_TMPDIR/wall"
	cmp "$BATS_TEST_TMPDIR/all" "$BATS_TEST_TMPDIR/off"
	cmp "$BATS_TEST_TMPDIR/off" "$BATS_TEST_TMPDIR/cold"
	cmp "$BATS_TEST_TMPDIR/off" "$BATS_TEST_TMPDIR/warm"
	cmp "$BATS_TEST_TMPDIR/off" "$BATS_TEST_TMPDIR/wall"
	[ "$(grep -c '"type":"pd.step"' "$BATS_TEST_TMPDIR/off")" -ge 10 ]
}
