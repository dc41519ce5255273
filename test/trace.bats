#!/usr/bin/env bats
# The trace reader with a filter (pd_trace_cb.want): an event the filter
# declines has the rest of its object skipped, not read, as soon as its
# ph, name, cat and pid are known. Whatever the order of an event's keys,
# a filtered read hands out exactly the events of the unfiltered read that
# the filter keeps, each the same in every field, with the same indexes,
# stats and diagnostics. No number here is computed by hand: each check
# compares a filtered read with the unfiltered one (PD_CACHE=0 both, so
# that the parse itself is compared), and the unfiltered read is checked
# against jansson (trace-check) on the fixtures and, in test/lib.bats, on
# the corpus.
load helper

T=$FIX/trace
TC=$PD_TESTBIN/tcache-check

# filtered FILE: tcache-check -f (its filter keeps ph X, not cat
# "cuda_runtime", not pid 0 nor "Spans") hands out the lines of the
# unfiltered read of the events it keeps, picked from that read with grep
# on their fields (" ph=88 " is X; " 1/0 tid=" follows a pid that is the
# number 0), and the same metas, stats and status; PD_TRACE_FILTER=0
# gives the unfiltered read (not checked when a second operand says
# "quick": the corpus loop, where it is the same code path every time).
filtered() {
	local d=$BATS_TEST_TMPDIR rc frc
	PD_CACHE=0 "$TC" "$1" >"$d/all" 2>/dev/null && rc=0 || rc=$?
	grep -v -E '^[0-9]+ ' "$d/all" >"$d/rest" || true
	{ grep -E '^[0-9]+ ph=88 ' "$d/all" |
	    grep -v -E ' cat=12:cuda_runtime | 1/0 tid=| pid=5:Spans 0/0 tid=' ||
	    true; } >"$d/kept"
	PD_CACHE=0 "$TC" -f "$1" >"$d/f" 2>/dev/null && frc=0 || frc=$?
	[ "$rc" = "$frc" ] || { echo "status $rc, filtered $frc" >&2; return 1; }
	grep -E '^[0-9]+ ' "$d/f" | diff "$d/kept" - >&2
	grep -v -E '^[0-9]+ ' "$d/f" | diff "$d/rest" - >&2
	[ "${2:-}" = quick ] ||
	    PD_TRACE_FILTER=0 PD_CACHE=0 "$TC" -f "$1" 2>/dev/null | cmp - "$d/all"
}

@test "trace: the fixtures of many key orders read as jansson reads them" {
	local f
	for f in "$T"/key-orders.json "$T"/repeats.json; do
		run_pd "$PD_TESTBIN/trace-check" "$f"
		# every element of the event array is an object with good
		# times: the reader hands out as many as jq counts
		[ "$output" = "ok $(jq '(.traceEvents? // .) | length' "$f") events" ]
	done
}

@test "trace: a filter keeps the same events whatever the order of their keys" {
	filtered "$T"/key-orders.json
	# the fixture has events of each kind: some kept, some declined by
	# ph, by cat, by pid 0 and by pid "Spans", and one read whole with
	# no cat (the filter is asked at its end)
	grep -q ' name=14:ProfilerStep#7 ' "$BATS_TEST_TMPDIR/all"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/kept")" -ge 8 ]
	[ "$(grep -c -E '^[0-9]+ ' "$BATS_TEST_TMPDIR/all")" -ge 18 ]
	# tcache-check -F, the corpus loop's comparison, finds the same
	# events kept of the same events read
	PD_CACHE=0 run_pd "$TC" -F "$T"/key-orders.json
	[ "$output" = "same $T/key-orders.json kept=$(wc -l <"$BATS_TEST_TMPDIR/kept") of $(grep -c -E '^[0-9]+ ' "$BATS_TEST_TMPDIR/all") cache=off,off" ]
}

@test "trace: a key repeated after the filter's answer is read, and asked again" {
	filtered "$T"/repeats.json
	# the last ph, cat and pid count (jansson keeps the last one too):
	# "declined, then ph X" and "pid 0, then pid 1" are kept, whole
	grep -q '^0 ph=88 name=19:declined, then ph X .* args=8:{"k": 1} ' \
	    "$BATS_TEST_TMPDIR/f"
	grep -q '^2 ph=88 name=17:pid 0, then pid 1 .* args=8:{"k": 2} ' \
	    "$BATS_TEST_TMPDIR/f"
	not grep -q 'then cat cuda_runtime\|then pid Spans\|still declined' \
	    "$BATS_TEST_TMPDIR/f"
}

@test "trace: declined events count as before: bad times skipped, a bad tid stops" {
	filtered "$T"/unwanted-bad.json
	# the unfiltered read: 2 events, 4 skipped (two declined ones with a
	# bad ts or dur, a kept one with a bad dur, the number 7), then the
	# declined event whose tid is an object is malformed, on its line
	tail -n 1 "$BATS_TEST_TMPDIR/f" | grep -q \
	    ' events=2 skipped=4 .* malformed=1 line=8 format=1 err=malformed event$'
}

@test "trace: a trace cut inside a declined event's args ends the same" {
	filtered "$T"/unwanted-cut.json
	tail -n 1 "$BATS_TEST_TMPDIR/f" | grep -q \
	    ' events=1 skipped=0 .* truncated=1 malformed=0 line=3 .* err=file ends inside an event$'
}

# The corpus loop compares in one process (tcache-check -F: the same test
# applied to the unfiltered read's whole events, then the lines compared
# in memory), which the key orders' test checks against filtered's.
@test "trace: a filter keeps the same events on every corpus trace" {
	require_corpus
	local n
	find "$CORPUS/pytorch" "$CORPUS/ascend" -type f \
	    \( -name '*.json' -o -name '*.json.gz' \) -size -64M | sort >"$BATS_TEST_TMPDIR/files"
	n=$(wc -l <"$BATS_TEST_TMPDIR/files")
	[ "$n" -gt 30 ]
	PD_CACHE=0 run_pd "$TC" -F $(cat "$BATS_TEST_TMPDIR/files")
	[ "$(grep -c '^same ' <<<"$output")" = "$n" ]
}

@test "trace: keys read by their guessed bytes read as jansson reads them" {
	# Events of one kind whose keys come after a ',' mostly in the bytes
	# of the event before (the guess of the ',', the key and the ':'
	# taken as one), then with the separators, orders and value types
	# changed every few events: ', "name": ' and ',"name":' and
	# ',  "name" : ' and a newline, a key swapped for another of the
	# same length, a name with an escape, ts as a string, an unknown key
	# in a known key's place; and a pid that changes each event, from
	# bytes that begin as the last one's (11 then 110) or end sooner. trace-check reads the file with jansson too
	# and compares every field of every event.
	local f=$BATS_TEST_TMPDIR/guess.json
	python3 - "$f" <<'PY'
import sys
seps = [', ', ',', ',  ', ',\n ', ', ']
keys = [('"ph"', '"X"'), ('"cat"', '"cpu_op"'), ('"name"', '"aten::mm"'),
        ('"pid"', '11'), ('"tid"', '12'), ('"ts"', '1669783687497485.5'),
        ('"dur"', '9'), ('"args"', '{"External id": 4249, "Ev Idx": 1}')]
out = []
for n in range(400):
    ks = list(keys)
    v = n // 7          # a change every 7 events, each kept a while
    if v % 5 == 1:
        ks[1], ks[2] = ks[2], ks[1]          # name before cat
    if v % 5 == 2:
        ks[3], ks[4] = ks[4], ks[3]          # "tid" where "pid" was
    if v % 6 == 3:
        ks[2] = ('"name"', '"aten::\\u006dm%d"' % n)  # escaped
    if v % 7 == 4:
        ks[5] = ('"ts"', '"%d.25"' % (1669783687497000 + n))
    if v % 4 == 3:
        ks[6] = ('"bar"', '"d"')             # not a key of ours
    # a pid that starts as the last one did and goes on, one that ends
    # sooner, one as a string, one negative
    ks[3] = (ks[3][0], ['11', '110', '1', '"11"', '-11', '11'][n % 6])
    sep = seps[v % len(seps)]
    colon = ' : ' if v % 3 == 2 else ': '
    body = ks[0][0] + colon + ks[0][1]
    for k, val in ks[1:]:
        body += sep + k + colon + val
    out.append('{' + body + '}')
open(sys.argv[1], 'w').write('{"traceEvents": [\n' + ',\n'.join(out) + '\n]}\n')
PY
	PD_CACHE=0 run_pd "$PD_TESTBIN/trace-check" "$f"
	[ "$output" = "ok 400 events" ]
	filtered "$f"
}
