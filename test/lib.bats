#!/usr/bin/env bats
# The shared library on nasty inputs. Expected values were worked out by
# hand from the fixture bytes (comments say how).
load helper

L=$BATS_TEST_DIRNAME/fixtures/lib

@test "num: decimal µs to int64 ns without a double" {
	run_pd "$PD_TESTBIN/num-check" 1736408883704643.212 "1736408883704643.212	" \
	    4458676522690.655 12 0.0004 0.0005 -2.0005 N/A "" abc 1.69512E+15 1.2.3
	# epoch µs with ns digits keep every digit (a double would round the
	# last ones); a trailing TAB (Excel guard) is ignored; below 1 ns
	# rounds half away from zero; Excel exponent forms are flagged.
	[ "${lines[0]}" = "1736408883704643.212 -> 1736408883704643212 ok" ]
	[ "${lines[1]}" = "1736408883704643.212	 -> 1736408883704643212 ok" ]
	[ "${lines[2]}" = "4458676522690.655 -> 4458676522690655 ok" ]
	[ "${lines[3]}" = "12 -> 12000 ok" ]
	[ "${lines[4]}" = "0.0004 -> 0 ok" ]
	[ "${lines[5]}" = "0.0005 -> 1 ok" ]
	[ "${lines[6]}" = "-2.0005 -> -2001 ok" ]
	[ "${lines[7]}" = "N/A -> - missing" ]
	[ "${lines[8]}" = " -> - missing" ]
	[ "${lines[9]}" = "abc -> - bad" ]
	[ "${lines[10]}" = "1.69512E+15 -> 1695120000000000000 inexact" ]
	[ "${lines[11]}" = "1.2.3 -> - bad" ]
}

# Integers (pd_num_int: args such as "External id", "Bytes"): plain digits
# take a short way, everything else the general one; the answers, worked
# out by hand, are the same either way: 18 characters still fit (< 10^18),
# 19 digits go the general way, a lone '-' is missing, a fraction rounds
# half up, quotes and blanks are trimmed, an exponent is inexact; the
# general way keeps a margin below INT64_MAX: 9223372036854775799 is the
# largest it takes.
@test "num: integers, plain digits and the rest" {
	run_pd "$PD_TESTBIN/num-check" -i 0 -0 123 -123 00042 \
	    999999999999999999 -99999999999999999 1234567890123456789 \
	    - "" 12a 1.5 " 7" '"7"' 1e3 +5 -12- 9223372036854775799 \
	    9223372036854775800
	[ "${lines[0]}" = "0 -> 0 ok" ]
	[ "${lines[1]}" = "-0 -> 0 ok" ]
	[ "${lines[2]}" = "123 -> 123 ok" ]
	[ "${lines[3]}" = "-123 -> -123 ok" ]
	[ "${lines[4]}" = "00042 -> 42 ok" ]
	[ "${lines[5]}" = "999999999999999999 -> 999999999999999999 ok" ]
	[ "${lines[6]}" = "-99999999999999999 -> -99999999999999999 ok" ]
	[ "${lines[7]}" = "1234567890123456789 -> 1234567890123456789 ok" ]
	[ "${lines[8]}" = "- -> - missing" ]
	[ "${lines[9]}" = " -> - missing" ]
	[ "${lines[10]}" = "12a -> - bad" ]
	[ "${lines[11]}" = "1.5 -> 2 ok" ]
	[ "${lines[12]}" = " 7 -> 7 ok" ]
	[ "${lines[13]}" = '"7" -> 7 ok' ]
	[ "${lines[14]}" = "1e3 -> 1000 inexact" ]
	[ "${lines[15]}" = "+5 -> 5 ok" ]
	[ "${lines[16]}" = "-12- -> - bad" ]
	[ "${lines[17]}" = "9223372036854775799 -> 9223372036854775799 ok" ]
	[ "${lines[18]}" = "9223372036854775800 -> - bad" ]
}

# 8 to 16 digits are read 8 bytes a step (the last 8 bytes for the rest):
# every length from 1 to 19, signed and not, with a byte that is no
# digit at each place (one of the 10 bytes around the digits), against
# python's int() over the same text (an independent reading: a text of
# digits alone, with at most one leading '-', is that integer; anything
# else here is bad, a blank at either end trimmed first).
@test "num: integers of 8 to 16 digits read as a byte at a time" {
	python3 - >"$BATS_TEST_TMPDIR/in" <<'PY'
import random
random.seed(7)
for n in range(1, 20):
    for sign in ("", "-"):
        d = "".join(random.choice("0123456789") for _ in range(n))
        print(sign + d)
        for k in range(n):
            for c in "/:x .+\x00e-,":
                if c == "\x00":
                    continue
                print(sign + d[:k] + c + d[k + 1:])
PY
	while IFS= read -r l; do set -- "$@" "$l"; done <"$BATS_TEST_TMPDIR/in"
	"$PD_TESTBIN/num-check" -i "$@" >"$BATS_TEST_TMPDIR/got"
	python3 - "$BATS_TEST_TMPDIR/in" "$BATS_TEST_TMPDIR/got" <<'PY'
import re, sys
ins = open(sys.argv[1]).read().split("\n")[:-1]
got = open(sys.argv[2]).read().split("\n")[:-1]
assert len(ins) == len(got), (len(ins), len(got))
checked = 0
for t, g in zip(ins, got):
    s = t.strip(" ")
    if not re.fullmatch(r"-?[0-9]+", s) or len(s) > 18:
        continue        # fractions, signs, long ones: the test above
    want = "%s -> %d ok" % (t, int(s))
    assert g == want, (t, g, want)
    checked += 1
bad = sum(1 for t, g in zip(ins, got)
          if re.search(r"[/:x,]", t) and not g.endswith(" bad"))
assert bad == 0, bad
print(checked)
PY
}

@test "csv: BOM, CRLF, quoted TAB timestamps, doubled quotes, quoted newlines, blank lines" {
	run_pd "$PD_TESTBIN/csv-dump" "$L/nasty.csv"
	# the file: a BOM, CRLF line ends, row 2 spans lines 3-4 (quoted
	# newline), line 5 is blank, the last row is cut inside a quote.
	[ "${lines[0]}" = 'header(5): Step|Start Time(us)|Call Stack|Input Shapes|Duration(us)' ]
	[ "${lines[1]}" = 'L2 n=5: 1|1736413971558972.912||"32,3,224,224";"64"|N/A' ]
	[ "${lines[2]}" = 'L3 n=5: 2|1736408883704643.212|a.py(1): f\nb.py(2): g||12.5' ]
	[ "${lines[3]}" = 'L6 n=4: 3|7|say "hi"|x' ]
	[ "${lines[4]}" = 'L7 n=3 (unterminated quote): 4|8|open quote\n' ]
	[ "${#lines[@]}" -eq 5 ]
}

# Written here: blank lines of spaces and TABs at lines 3 and 5, and the last
# line (6) of blanks with no line end: none is a record (the last one used
# to come back as a row of one empty field).
@test "csv: a line of blanks is no record, the last one without a line end too" {
	printf 'a,b\n1,2\n  \t \n3,4\n\t\n \t' >"$BATS_TEST_TMPDIR/ws.csv"
	run_pd "$PD_TESTBIN/csv-dump" "$BATS_TEST_TMPDIR/ws.csv"
	[ "$output" = 'header(2): a|b
L2 n=2: 1|2
L4 n=2: 3|4' ]
}

# Written here: CR alone ends lines (old Mac files; the whole file used to
# be one header record). The quoted CR of row 3 is kept and counted as a
# line, so row 4 starts on line 5; a CRLF among them is one line end.
@test "csv: CR alone is a line end, inside quotes a line too" {
	printf 'a,b\r1,2\r"x\ry",3\r4,5\r\n6,7\r' >"$BATS_TEST_TMPDIR/cr.csv"
	run_pd "$PD_TESTBIN/csv-dump" "$BATS_TEST_TMPDIR/cr.csv"
	[ "$output" = 'header(2): a|b
L2 n=2: 1|2
L3 n=2: x\ry|3
L5 n=2: 4|5
L6 n=2: 6|7' ]
}

# Written here: the file ends inside its header (no line end after it):
# the header comes back as -3, its names as read.
@test "csv: a header cut by the end of the file is -3" {
	printf 'a,b,Comm' >"$BATS_TEST_TMPDIR/cut.csv"
	run_pd "$PD_TESTBIN/csv-dump" "$BATS_TEST_TMPDIR/cut.csv"
	[ "$output" = 'header(-3): a|b|Comm' ]
}

@test "csv: columns are found by name, with alternatives and case-insensitively" {
	run_pd "$PD_TESTBIN/csv-dump" "$L/nasty.csv" -c "Duration(us)" \
	    "Block Dim/Start Time(us)" step missing
	[ "${lines[1]}" = "Duration(us)=4" ]
	[ "${lines[2]}" = "Block Dim/Start Time(us)=1" ]
	[ "${lines[3]}" = "step=0" ]
	[ "${lines[4]}" = "missing=-1" ]
}

@test "trace: ts as number, float with ns digits, string; escapes; ids above 2^53" {
	run_pd "$PD_TESTBIN/trace-dump" "$L/ts-forms.json"
	[ "${lines[0]}" = "meta schemaVersion" ]
	[ "${lines[1]}" = "meta distributedInfo" ]
	[ "${lines[2]}" = "0 X 1 2 1669783687464181000 45000 |num-int" ]
	# 4458676522690.655 µs = 4458676522690655 ns; dur 0.001 µs = 1 ns
	[ "${lines[3]}" = "1 X 1 2 4458676522690655 1 |num-float-ns" ]
	# string ts (Ascend trace_view.json), string pid/tid (legacy, 2021)
	[ "${lines[4]}" = "2 X CPU functions stream 7 1736408883688177930 2500 |str-epoch" ]
	# \" \u00e9 \n \\ unescaped; 1.0004 -> 1000 ns, 1.0005 -> 1001 ns
	[ "${lines[5]}" = '3 X 3 25738 1000 1001 k\at|esc"apedé' ]
	# 2^53 + 1 survives: never through a double
	# (bats drops the empty line the unescaped \n makes)
	[ "${lines[6]}" = "4 f 1 1 5000 - |big-id id=9007199254740993" ]
	[ "${lines[7]}" = "5 M 3170820512 - - - |process_name" ]
	[ "${lines[8]}" = "6 i 1 1 - - |no-ts" ]
	# the "soon" ts event and the array entry are skipped (2), not fatal
	[ "${lines[9]}" = "7 X -1 0 1695120 - |exp" ]
	[ "${lines[10]}" = "meta traceName" ]
	[[ "${lines[11]}" == "rc=0 events=8 skipped=2 "* ]]
}

# scan-paths.json (written for this test) holds values that take each path
# of the scanner: escapes at and across its 16-byte blocks, long strings,
# nested args with brackets and quotes inside strings, exponents, ns
# digits, negative values, string pids, 16-digit values at the int64 edge.
# trace-check compares every field with jansson; the ns values below are
# the input text scaled by hand (the first digit past 1 ns rounds half up).
@test "trace: each scanner path agrees with jansson; ns exact at the rounding digit and the int64 edge" {
	run_pd "$PD_TESTBIN/trace-check" "$L/scan-paths.json"
	[ "$output" = "ok 16 events" ]
	run_pd "$PD_TESTBIN/trace-dump" "$L/scan-paths.json"
	[ "${lines[1]}" = '0 X 1 2 1000 1000 cpu_op|aaaaaaaaaaaaaaa\' ]
	[ "${lines[2]}" = '1 X 1 2 1000 1000 cpu_op|bbbbbbbbbbbbbb"cccccccccccccccccccc' ]
	# ts 1669783687464181, dur 0
	[ "${lines[6]}" = "4 X 1 2 1669783687464181000 0 cpu_op|nums" ]
	# 4458676522690.6554 -> ...690655 (4 drops); dur 0.0005 -> 1
	[ "${lines[7]}" = "5 X 1 2 4458676522690655 1 cpu_op|ns" ]
	# 4458676522690.6545 -> ...690655 (5 rounds up); dur 0.0004 -> 0
	[ "${lines[8]}" = "6 X 1 2 4458676522690655 0 cpu_op|ns2" ]
	# 1.5e3 -> 1500000; 2E-3 -> 2
	[ "${lines[9]}" = "7 X 1 2 1500000 2 cpu_op|exp" ]
	# -12.25 -> -12250; -0.0015 -> -2 (half away from zero); tid -0
	[ "${lines[10]}" = "8 X -3 0 -12250 -2 cpu_op|neg" ]
	# "1736408883688177.930" and "2.5" as strings
	[ "${lines[11]}" = "9 X 7 stream 7 1736408883688177930 2500 cpu_op|str-ts" ]
	# 9000000000000000.123 and 8999999999999999.9995: below INT64_MAX
	[ "${lines[12]}" = "10 X 1234567890123456 12345678901234567 9000000000000000123 9000000000000000000 cpu_op|edge-ts-big-ids" ]
	[[ "${lines[${#lines[@]} - 1]}" == "rc=0 events=16 skipped=0 "* ]]
}

@test "trace: gzip input gives the same events" {
	diff <("$PD_TESTBIN/trace-dump" "$L/ts-forms.json" | sed '$d') \
	    <("$PD_TESTBIN/trace-dump" "$L/ts-forms.json.gz" | sed '$d')
}

@test "trace: a file cut in the middle of an event keeps what was read" {
	run_pd 1 "$PD_TESTBIN/trace-dump" "$L/cut.json"
	[ "${lines[0]}" = "0 X 1 1 1000 2000 |a" ]
	[ "${lines[1]}" = "1 X 1 1 3000 4000 |b" ]
	[[ "${lines[2]}" == *"events=2 "*"truncated=1 malformed=0 line=3 err=file ends inside an event" ]]
}

@test "trace: a cut gzip stream keeps what was read" {
	f=$BATS_TEST_TMPDIR/cut.json.gz
	# 200 events, gzip, then drop the last half of the compressed bytes
	{ printf '['; for i in $(seq 1 200); do printf '{"ph":"X","name":"e%d","pid":1,"tid":1,"ts":%d,"dur":1},\n' $i $i; done; printf '{}]'; } | gzip -c >"$f.full"
	head -c $(( $(wc -c <"$f.full") / 2 )) "$f.full" >"$f"
	run_pd 1 "$PD_TESTBIN/trace-dump" -c "$f"
	[[ "$output" == *"truncated=1"* ]]
	n=$(printf '%s' "$output" | sed 's/.*events=\([0-9]*\).*/\1/')
	[ "$n" -gt 0 ] && [ "$n" -lt 200 ]
}

# lib/pd_file's gzip reader (pd_file_zread), through the trace reader:
# members written one after the other read as one stream (gzip -d does
# so); bytes after the last member that are not gzip are said, with the
# events before them kept. The three events are those of the printf.
@test "trace: concatenated gzip members are one stream; bytes after the last are said" {
	local f=$BATS_TEST_TMPDIR/m.json.gz
	{ printf '[{"ph":"X","name":"a","ts":1,"dur":1},' | gzip -c
	  printf '{"ph":"X","name":"b","ts":2,"dur":1},' | gzip -c
	  printf '{"ph":"X","name":"c","ts":3,"dur":1}]\n' | gzip -c; } >"$f"
	run_pd 0 "$PD_TESTBIN/trace-dump" -c "$f"
	[[ "$output" == "rc=0 events=3 skipped=0 "*"truncated=0 malformed=0"* ]]
	printf '\0\0\0\0' >>"$f"
	run_pd 1 "$PD_TESTBIN/trace-dump" -c "$f"
	[[ "$output" == "rc=1 events=3 skipped=0 "*"truncated=1 malformed=0 line=2 err=data after the gzip stream" ]]
}

# The end of a bare array (Ascend trace_view.json) is checked as a
# Kineto object's is: text after it is said (the events kept), and a BOM
# before it is skipped.
@test "trace: a bare array with data after it, or a BOM before it" {
	local f=$BATS_TEST_TMPDIR/a.json
	printf '[{"ph":"X","name":"a","ts":1,"dur":1}]\n]\n' >"$f"
	run_pd 1 "$PD_TESTBIN/trace-dump" -c "$f"
	[[ "$output" == "rc=1 events=1 "*"truncated=0 malformed=1 line=2 err=data after the top-level value" ]]
	printf '\357\273\277[{"ph":"X","name":"a","ts":1,"dur":1}]\n' >"$f"
	run_pd 0 "$PD_TESTBIN/trace-dump" -c "$f"
	[[ "$output" == "rc=0 events=1 "* ]]
}

@test "trace: a syntax error stops with its line" {
	run_pd 1 "$PD_TESTBIN/trace-dump" "$L/missing-comma.json"
	[[ "${lines[1]}" == *"events=1 "*"malformed=1 line=2 err=expected ',' or ']' between events" ]]
}

@test "trace: empty array and empty file" {
	run_pd 0 "$PD_TESTBIN/trace-dump" "$L/empty-array.json"
	[[ "$output" == "rc=0 events=0 "* ]]
	run_pd 1 "$PD_TESTBIN/trace-dump" "$L/empty.json"
	[[ "$output" == *"err=empty file" ]]
}

# trace_check_corpus [-c]: trace-check (with -c: through a replay of
# each trace's cache entry, made in memory) on every corpus trace
trace_check_corpus() {
	local n=0 f
	require_corpus
	while IFS= read -r f; do
		run "$PD_TESTBIN/trace-check" "$@" "$f"
		[ "$status" -eq 0 ] || { echo "$f: $output" >&2; return 1; }
		n=$((n + 1))
	done < <(find "$CORPUS/pytorch" "$CORPUS/ascend" -type f \
	    \( -name '*.json' -o -name '*.json.gz' -o -name '*.raw.gz' \) \
	    -size -64M | sort)
	[ "$n" -gt 30 ]
}

@test "trace: the streaming reader agrees with jansson on every corpus trace" {
	trace_check_corpus
}

# The same through a replay of each trace's cache entry: the args' keys
# and values as the entry keeps them (by skeleton, for most) looked up
# before any text is asked for, then the text put together again.
@test "trace: a cache replay agrees with jansson on every corpus trace" {
	trace_check_corpus -c
}

# A NUL byte inside a for line (pd-inject and pd-find-context read such
# files): the logical line keeps its length (the NUL reads as a space, so
# N == STRLEN) and the header is still a loop ending in ':'. Before, the
# copy stopped at the NUL and the ':' test read past it.
@test "pyscan: a NUL byte in a for line is a space, the line keeps its length" {
	local f=$BATS_TEST_TMPDIR/nul.py
	printf 'import torch\nfor x in loader\0:\n    loss.backward()\n' >"$f"
	run_pd "$PD_TESTBIN/pyscan-dump" "$f"
	[ "${lines[1]}" = "2 0 17 17 1 for x in loader :" ]
	[ "${lines[2]}" = "3 4 15 15 0 loss.backward()" ]
}

@test "tool: a pd.root export that is missing or not a regular file is said, exit 3 (no hang)" {
	local d=$BATS_TEST_TMPDIR t
	mkfifo "$d/fifo.csv"
	# a torch_npu root of two exports: step_trace_time missing, trace_view
	# a FIFO with no writer
	printf '%s\n' "{\"type\":\"pd.root\",\"v\":1,\"root\":\"$d/r_ascend_pt\",\"rank\":0,\"device\":0,\"format\":\"torch_npu\",\"run\":\"$d\",\"score\":2,\"exports\":[{\"kind\":\"step_trace_time\",\"path\":\"$d/missing.csv\",\"bytes\":9},{\"kind\":\"trace_view\",\"path\":\"$d/fifo.csv\",\"bytes\":9}]}" >"$d/in.jsonl"
	for t in pd-sum-step pd-sum-comm pd-sum-mem pd-sum-input pd-sum-gaps pd-hotspots; do
		run_pd 3 timeout 20 "$t" <"$d/in.jsonl"
		[ "$stderr" = "$t: warning: $d/missing.csv: export 'step_trace_time' of '$d/r_ascend_pt': No such file or directory; skipped
$t: warning: $d/fifo.csv: export 'trace_view' of '$d/r_ascend_pt': not a regular file; skipped" ]
		# the record itself is passed on unchanged
		[ "${lines[0]}" = "$(cat "$d/in.jsonl")" ]
	done
}

@test "diag: a quote is cut at 64 bytes (PD_QUOTE_MAX), never inside a UTF-8 sequence" {
	# 'x' and 100 two-byte e-acutes: 201 bytes; 'x' + 31 of them is 63
	# bytes, the 32nd would end at byte 65, so it is left out whole.
	local f=$BATS_TEST_TMPDIR/in e
	e=$(printf '\303\251')
	{ printf x; for i in $(seq 100); do printf '%s' "$e"; done; } >"$f"
	run_pd "$PD_TESTBIN/diag-check" quote <"$f"
	[ "$output" = "'x$(for i in $(seq 31); do printf '%s' "$e"; done)'... (201 bytes)" ]
	# control bytes, a quote, a backslash and a bad byte are escaped; short
	# text is whole
	printf "a\tb\\\\c'd\377" >"$f"
	run_pd "$PD_TESTBIN/diag-check" quote <"$f"
	[ "$output" = "'a\\x09b\\\\c\\'d\\xFF'" ]
}

@test "diag: a message over 4096 bytes (PD_MSG_MAX) is cut on a UTF-8 boundary and says its size" {
	# 'a' + 500000 e-acutes = 1000001 bytes given raw to pd_warn: bytes
	# 4095-4096 are one e-acute, so the text keeps 'a' + 2047 of them.
	python3 -c 'import sys; sys.stdout.write("a" + "\u00e9" * 500000)' >"$BATS_TEST_TMPDIR/big"
	run_pd "$PD_TESTBIN/diag-check" warn <"$BATS_TEST_TMPDIR/big"
	want="diag-check: warning: a$(python3 -c 'import sys; sys.stdout.write("\u00e9" * 2047)')... (message of 1000001 bytes cut)"
	[ "$stderr" = "$want" ]
}

@test "diag: a 1 MB CSV field that is not a number is quoted cut, the row skipped, the rest read" {
	# step_trace_time.csv: row 2 (line 3) has 1048576 'x' as Computing;
	# rows 1 and 3 are good. The warning quotes 64 bytes of the field.
	d=$BATS_TEST_TMPDIR
	python3 - "$d/stt.csv" <<-'PY'
	import sys
	h = "Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,Stage,Bubble,Communication(Not Overlapped and Exclude Receive),Preparing\n"
	with open(sys.argv[1], "w") as f:
	    f.write(h + "1,100,50,10,60,20,170,0,50,5\n")
	    f.write("2," + "x" * 1048576 + ",50,10,60,20,170,0,50,5\n")
	    f.write("3,100,50,10,60,20,170,0,50,5\n")
	PY
	printf '%s\n' "{\"type\":\"pd.root\",\"v\":1,\"root\":\"/r\",\"rank\":0,\"format\":\"torch_npu\",\"exports\":[{\"kind\":\"step_trace_time\",\"path\":\"$d/stt.csv\",\"bytes\":0}]}" >"$d/in.jsonl"
	run_pd 3 pd-sum-step <"$d/in.jsonl"
	[ "$stderr" = "pd-sum-step: warning: $d/stt.csv:3: \"Computing\": not a number: '$(printf 'x%.0s' $(seq 64))'... (1048576 bytes); row skipped" ]
	[ "$(jqr pd.step '[.steps[].step, .skipped_rows]')" = '[1,3,1]' ]
}

@test "diag: a 1 MB stdin line that is not JSON: one short warning, the line forwarded unchanged" {
	# DESIGN.md: such a line is reported with its line number and passed
	# on byte for byte. The message carries the parser's text (jansson
	# bounds it at 160 bytes), never the line.
	python3 -c 'print("{\"type\":\"pd.x\"}"); print("x" * 1048576); print("{\"type\":\"pd.y\"}")' >"$BATS_TEST_TMPDIR/in"
	run_pd 3 pd-sum-gaps <"$BATS_TEST_TMPDIR/in"
	[ "$stderr" = "pd-sum-gaps: warning: <stdin>:2: not a JSON object: '[' or '{' expected; forwarded unchanged" ]
	[ "$output" = "$(cat "$BATS_TEST_TMPDIR/in")" ]
}

# The noise rule of pd-compare and pd-audit-limits -x, with the
# experiment's floors (5 % of before, 0.1 s). Population sds.
# 2.0 2.6 vs 1.7 2.3: means 2.3, 2.0, sd 0.3 each; spread 2 * sqrt(0.09/2
# + 0.09/2) = 0.6, floor max(0.05 * 2.3, 0.1) = 0.115; |delta| 0.3 between
# them: inconclusive; samples ceil((2 + 0.8416)^2 * 0.18 / 0.09) =
# ceil(16.1494) = 17.
# 2.0 2.2 vs 1.0 1.2: sd 0.1 each, spread 0.2, floor 0.105; delta -1:
# improved. The man page's two "sleep 0.1" pairs, 0.219 0.218 vs 0.191
# 0.179: spread 2 * sqrt(0.0005^2/2 + 0.006^2/2) = 0.0085, floor 0.1;
# delta -0.0335 under the floor: unchanged.
@test "stats: the shared noise rule: floors, spread, verdict, samples" {
	run_pd "$PD_TESTBIN/noise-check" 0.05 0.1 "2.0 2.6" "1.7 2.3"
	[ "$output" = "spread 0.6000 floor 0.1150 noise 0.6000 verdict inconclusive samples 17" ]
	run_pd "$PD_TESTBIN/noise-check" 0.05 0.1 "2.0 2.2" "1.0 1.2"
	[ "$output" = "spread 0.2000 floor 0.1050 noise 0.2000 verdict improved samples 2" ]
	run_pd "$PD_TESTBIN/noise-check" 0.05 0.1 "0.219 0.218" "0.191 0.179"
	[ "$output" = "spread 0.0085 floor 0.1000 noise 0.1000 verdict unchanged samples 2" ]
	# one value a side: no spread, the floors alone; no change: no samples
	run_pd "$PD_TESTBIN/noise-check" 0.05 0.1 "3" "3"
	[ "$output" = "spread nan floor 0.1500 noise 0.1500 verdict unchanged samples -1" ]
}

# spill-check writes records of varint-coded int64 differences (INT64_MIN,
# INT64_MAX, 0, -1, 1 and arbitrary bits: every difference wraps) through
# a pd_spill and compares what comes back with what went in. Past its
# limit the log goes to a temporary file, read back in blocks of that
# size (a limit of 1 byte: every record straddles blocks); without a
# temporary directory it stays in memory, for the same records.
@test "spill: records come back whole from memory and from a temporary file" {
	run_pd "$PD_TESTBIN/spill-check" 100 1048576
	[[ "$output" = "100 records, "*" bytes, memory, ok" ]]
	run_pd "$PD_TESTBIN/spill-check" 100000 4096
	[[ "$output" = "100000 records, "*" bytes, file, ok" ]]
	run_pd "$PD_TESTBIN/spill-check" 1000 1
	[[ "$output" = "1000 records, "*" bytes, file, ok" ]]
	TMPDIR=$BATS_TEST_TMPDIR/none run_pd "$PD_TESTBIN/spill-check" 100000 4096
	[[ "$output" = "100000 records, "*" bytes, memory, ok" ]]
	run_pd "$PD_TESTBIN/spill-check" 0 16
	[ "$output" = "0 records, 0 bytes, memory, ok" ]
}

# pd_xtop keeps the K smallest of N records (keys -48..48 with many
# repeats, ties broken by the order added) in a buffer of at most 2K: the
# same records in the same order as the first K of a qsort over all N
# (which xtop-check does itself), for K smaller than N, K = 1, K larger
# than N and N = 0.
@test "xtop: the k smallest, as a sort of all of them, in 2k records" {
	local a
	for a in "1000 7 10 10" "100000 5 300 300" "1000 3 1 1" "5 1 10 5" \
	    "0 1 3 0"; do
		set -- $a
		run_pd "$PD_TESTBIN/xtop-check" "$1" "$2" "$3"
		[ "$output" = "kept=$4 same=1 bounded=1" ]
	done
}

# pd_xsort with runs of 10 records (16 bytes each): 1000 records with keys
# -48..48 (many repeats) come back in (key, sequence) order, each once,
# from 100 runs, the oldest merged into one until 64 are left (one merge
# of 100 - 64 + 1 = 37); 100000 records: 10000 runs, 157 merges of 64
# (10000 - 157 x 63 = 109 left), then one of 46: 64, the first merged
# runs merged again; 20 records fill exactly two runs; 0 and 1 need
# no file. The sum of the keys read is that of the keys written (printed
# first). With a TMPDIR that does not exist no file can be made: all is
# sorted in memory, in the same order.
@test "xsort: records come back sorted, each once, across runs" {
	local a
	for a in "1000 7 64" "100000 5 64" "20 3 2" "1 1 0" "0 1 0"; do
		set -- $a
		PD_SORT_MEM=160 TMPDIR=$BATS_TEST_TMPDIR run_pd \
		    "$PD_TESTBIN/xsort-check" "$1" "$2"
		[ "${lines[1]}" = "n=$1 runs=$3 sorted=1 sum=${lines[0]#in=}" ]
	done
	# no temporary file can be made (a TMPDIR that does not exist): the
	# same order, all in memory (no run written)
	PD_SORT_MEM=160 TMPDIR=$BATS_TEST_TMPDIR/none run_pd \
	    "$PD_TESTBIN/xsort-check" 1000 7
	[ "${lines[1]}" = "n=1000 runs=0 sorted=1 sum=-217" ]
	# in one run, nothing is written: no TMPDIR needed
	TMPDIR=$BATS_TEST_TMPDIR/none run_pd "$PD_TESTBIN/xsort-check" 1000 7
	[ "${lines[1]}" = "n=1000 runs=0 sorted=1 sum=-217" ]
}

# A run sorter of one's own (pd_xsort_set_sort; here an insertion sort)
# sorts every run instead of qsort: the 100 runs of 10 of 1000 records
# (64 left to merge at the end, as above), or the one run in memory, and
# the records come back the same.
@test "xsort: runs sorted by a sorter given with pd_xsort_set_sort" {
	PD_SORT_MEM=160 TMPDIR=$BATS_TEST_TMPDIR run_pd \
	    "$PD_TESTBIN/xsort-check" 1000 7 own
	[ "${lines[1]}" = "n=1000 runs=64 sorted=1 sum=-217" ]
	[ "${lines[2]}" = "own=100" ]
	TMPDIR=$BATS_TEST_TMPDIR/none run_pd "$PD_TESTBIN/xsort-check" 1000 7 own
	[ "${lines[1]}" = "n=1000 runs=0 sorted=1 sum=-217" ]
	[ "${lines[2]}" = "own=1" ]
}

# A run that comes in order already is not sorted again: 1000 records
# in key order (i / 3: their sum 166167, worked out apart; runs of 10),
# none of the 100 runs handed to the sorter, and each starts at or after
# the end of the one before: all kept as one run (read back without a
# merge); every other run in reverse order (keys -i): those 50 are
# sorted, each starts below the end of the run before it (a run of its
# own) and the in-order run after it starts above its end (more of it):
# 1 + 50 runs. The records come back in order, each once, either way.
@test "xsort: runs already in order are not sorted again, and runs in order across are one" {
	PD_SORT_MEM=160 TMPDIR=$BATS_TEST_TMPDIR run_pd \
	    "$PD_TESTBIN/xsort-check" 1000 7 asc
	[ "${lines[1]}" = "n=1000 runs=1 sorted=1 sum=166167" ]
	[ "${lines[2]}" = "own=0" ]
	PD_SORT_MEM=160 TMPDIR=$BATS_TEST_TMPDIR run_pd \
	    "$PD_TESTBIN/xsort-check" 1000 7 mix
	[ "${lines[1]}" = "n=1000 runs=51 sorted=1 sum=${lines[0]#in=}" ]
	[ "${lines[2]}" = "own=50" ]
}

# The reduce tools hold each rank's summaries (pd_runs); the ranks of a job
# repeat strings and small numbers, held once each: a record's strings and
# its integers and whole reals in [0, 1024) are replaced by one shared value
# (lib/pd_runs.c). The records below are written with sorted keys, so the
# held ones must print back as the same text: -0.0 stays -0.0, 3 an integer
# and 3.0 a real, the NUL inside a string stays. Shared: "a" 0.0, "c" 3,
# "d" 3.0, "g" 1023.0, the string "n", "run", "source", "v" (every holder
# holds the first holder's value); not: -0.0, 1024.0 (out of range), 2.5;
# "rank" and "root" only within a root (2 of 5: its hotspot and step), "type"
# within a type. The type read from a record after it was added is still
# valid (runs-check prints it; the sanitizer build would catch a freed one).
@test "runs: held records share equal strings and small numbers, unchanged" {
	f=$BATS_TEST_TMPDIR/runs.jsonl
	h='"a":0.0,"b":-0.0,"c":3,"d":3.0,"e":1024.0,"f":2.5,"g":1023.0,"n":"x\u0000y"'
	s='"steps":[{"step":0,"step_us":10.0},{"step":1,"step_us":12.5}]'
	for r in 0 1 2; do
		echo "{$h,\"rank\":$r,\"root\":\"/j/r$r\",\"run\":\"J\",\"source\":\"kineto_trace\",\"type\":\"pd.hotspot\",\"v\":1}"
		[ $r = 2 ] || echo "{\"rank\":$r,\"root\":\"/j/r$r\",$s,\"type\":\"pd.step\",\"v\":1}"
	done >"$f"
	run_pd "$PD_TESTBIN/runs-check" <"$f"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "add pd.hotspot" ]
	[ "${lines[1]}" = "add pd.step" ]
	[ "${lines[4]}" = "add pd.hotspot" ]
	# views by root, then types: each line "ROOT TYPE" and its input record
	for i in 5 6 7 8 9; do
		rec=${lines[$i]#* * }
		r=${rec#*\"root\":\"}; r=${r%%\"*}
		t=${rec#*\"type\":\"pd.}; t=${t%%\"*}
		[ "${lines[$i]}" = "$r $t $rec" ]
		grep -Fxq -- "$rec" "$f"
	done
	[ "${lines[5]% \{*}" = "/j/r0 hotspot" ]
	[ "${lines[6]% \{*}" = "/j/r0 step" ]
	[ "${lines[9]% \{*}" = "/j/r2 hotspot" ]
	[ "$(printf '%s\n' "${lines[@]:5:5}" | sort -u | wc -l)" -eq 5 ]
	[ "${lines[10]}" = "shared a: 3 of 3" ]
	[ "${lines[11]}" = "shared b: 1 of 3" ]
	[ "${lines[12]}" = "shared c: 3 of 3" ]
	[ "${lines[13]}" = "shared d: 3 of 3" ]
	[ "${lines[14]}" = "shared e: 1 of 3" ]
	[ "${lines[15]}" = "shared f: 1 of 3" ]
	[ "${lines[16]}" = "shared g: 3 of 3" ]
	[ "${lines[17]}" = "shared n: 3 of 3" ]
	[ "${lines[18]}" = "shared rank: 2 of 5" ]
	[ "${lines[19]}" = "shared root: 2 of 5" ]
	[ "${lines[20]}" = "shared run: 3 of 3" ]
	[ "${lines[21]}" = "shared source: 3 of 3" ]
	[ "${lines[23]}" = "shared type: 3 of 5" ]
	[ "${lines[24]}" = "shared v: 5 of 5" ]
}

# The evidence tools act on pd.root records only and forward the others;
# pd_rec_quick tells a line's type without building it, and must never
# call a line an object that jansson would not read as one (with that
# type). quick-check compares the two on every line and, with -m, on
# variants of each line (cut short, one byte replaced by a quote, brace,
# comma, digit, control or non-ASCII byte) at 64 places each. The records
# the pipeline writes (a fixture through all six tools) are every one
# answered by pd_rec_quick itself, not left to jansson.
@test "records: pd_rec_quick agrees with jansson, and answers for the pipeline's records" {
	d=$BATS_TEST_TMPDIR
	"$PD_BIN/pd-locate" "$FIX/kineto/small-collectives.json" |
	    "$PD_BIN/pd-sum-step" -q | "$PD_BIN/pd-sum-comm" -q |
	    "$PD_BIN/pd-sum-mem" -q | "$PD_BIN/pd-sum-input" -q |
	    "$PD_BIN/pd-sum-gaps" -q | "$PD_BIN/pd-hotspots" -q >"$d/recs"
	[ "$(wc -l <"$d/recs")" -eq 7 ]
	run_pd "$PD_TESTBIN/quick-check" <"$d/recs"
	[ "$output" = "lines 7 texts 7 quick 7 wrong 0" ]
	run_pd "$PD_TESTBIN/quick-check" -m <"$d/recs"
	[ "$status" -eq 0 ]
	[[ "$output" == "lines 7 texts 9415 quick "*" wrong 0" ]]
	cat >"$d/tricky" <<-'J'
	{"type":"pd.root"}
	{"type":"pd.r\u006fot"}
	{"type":"pd.x","type":"pd.root"}
	{"a":{"type":"pd.root"},"type":"pd.y"}
	 { "type" : "pd.z" , "n" : [ 1 , 2.5e-3 , -0 , true , false , null , { } , [ ] ] } 
	{"n":9223372036854775807}
	{"n":9223372036854775808}
	{"n":-9223372036854775809}
	{"n":1e400}
	{"n":01}
	{"s":"a\/b\"c\\d\n"}
	{"s":"\u0000"}
	{"type":"pd.a"} x
	[{"type":"pd.a"}]
	{"a":[1,]}
	J
	run_pd "$PD_TESTBIN/quick-check" -m <"$d/tricky"
	[ "$status" -eq 0 ]
	[[ "$output" == *" wrong 0" ]]
	# answered: 1, 3, 4, 5, 6, 11 (the others are wrong or left to jansson)
	run_pd "$PD_TESTBIN/quick-check" <"$d/tricky"
	[ "$output" = "lines 15 texts 15 quick 6 wrong 0" ]
	# UTF-8 in strings, as jansson takes it: paths and names in any
	# script, U+FFFF, U+10FFFF and DEL answered; an overlong form (C0 AF,
	# E0 80 AF, F0 80 80 AF), a surrogate (ED A0 80), past U+10FFFF (F4 90
	# 80 80), a sequence cut short (C3) and a control byte left to jansson
	printf '%s\n' '{"type":"pd.root","root":"/数据/rank0"}' \
	    '{"type":"pd.comm","root":"/données/r1","s":"Ω≈ç√∫"}' \
	    '{"type":"pd.x","s":"😀"}' >"$d/utf8"
	for b in '\xef\xbf\xbf' '\xf4\x8f\xbf\xbf' '\x7f' '\xc0\xaf' \
	    '\xe0\x80\xaf' '\xf0\x80\x80\xaf' '\xed\xa0\x80' \
	    '\xf4\x90\x80\x80' '\xc3' '\x01'; do
		printf '{"type":"pd.x","s":"a'"$b"'"}\n'
	done >>"$d/utf8"
	run_pd "$PD_TESTBIN/quick-check" <"$d/utf8"
	[ "$output" = "lines 13 texts 13 quick 6 wrong 0" ]
	run_pd "$PD_TESTBIN/quick-check" -m <"$d/utf8"
	[ "$status" -eq 0 ]
	[[ "$output" == *" wrong 0" ]]
}

# What the stream does with the lines it passes over: forwarded byte for
# byte; a record cut short is still said (jansson's message, its line);
# a root whose type is written with an escape is still a root.
@test "records: an evidence tool forwards other records as they are, says a broken one, finds an escaped root" {
	f=$FIX/kineto/small-collectives.json
	root=$("$PD_BIN/pd-locate" "$f")
	esc=${root/\"type\":\"pd.root\"/\"type\":\"pd.r\\u006fot\"}
	[ "$esc" != "$root" ]
	{
		echo ' {"type" : "pd.comm",  "v":1, "n":[1.50,2e3]} '
		echo '{"type":"pd.comm","v":1,"collectives":[{"a":1},'
		echo "$esc"
	} >"$BATS_TEST_TMPDIR/in"
	run_pd 3 pd-sum-step <"$BATS_TEST_TMPDIR/in"
	[[ "$stderr" == "pd-sum-step: warning: <stdin>:2: not a JSON object: "*"; forwarded unchanged" ]]
	[ "${lines[0]}" = ' {"type" : "pd.comm",  "v":1, "n":[1.50,2e3]} ' ]
	[ "${lines[1]}" = '{"type":"pd.comm","v":1,"collectives":[{"a":1},' ]
	[ "${lines[2]}" = "$esc" ]
	# the escaped root's step record, after it (jq reads that line alone)
	[ "${#lines[@]}" -eq 4 ]
	[ "$(jq -r '.type + " " + .root' <<<"${lines[3]}")" = "pd.step $f" ]
}

# Which kernels are communication is a list of globs (pd_patterns), its
# answers memoized by name in a fixed arena that a new pattern, or a name
# past its end, empties. The answers are compared with fnmatch(3), an
# independent implementation of the same globs, over 6000 names (some
# longer than the memo keeps) matched four times in shuffled orders, the
# last after a pattern was added: their bytes pass the arena many times.
@test "patterns: memoized answers equal fnmatch(3) through the memo's churn" {
	run_pd "$PD_TESTBIN/patterns-check"
	[ "$status" -eq 0 ]
	[ "$output" = "checked 24000, matched 16253, wrong 0" ]
}

# gzip traces are inflated with ISA-L where libisal.so.2 loads, else (or
# with PD_INFLATE=zlib) with zlib (lib/pd_file.c). Over 180 made files
# (test/gzip-variants.py: header fields, stored and incompressible data,
# empty and many members, member boundaries around the 64 KiB read, and
# each with trailing bytes, a wrong CRC or ISIZE, cut at 11 places, one bit
# flipped at 3), each engine read 64 KiB and 7 bytes at a time: always the
# same status, and the same bytes, except where a member is cut short or
# corrupt: there one may decode a little further than the other before it
# stops (they read ahead differently, and decode corrupt data in different
# steps), so the two agree but for their last < 64 bytes. Under CI ISA-L
# must be there; elsewhere the comparison is skipped without it.
near() {	# A B: the same bytes, or (cut, flipped) all but the last ones
	cmp -s "$1" "$2" && return 0
	case $1 in *-cut*|*-flip*) ;; *) echo "$1: bytes differ"; return 1 ;; esac
	local a b k
	a=$(wc -c <"$1") b=$(wc -c <"$2")
	k=$((a < b ? a : b)); k=$((k > 64 ? k - 64 : 0))
	cmp -s -n "$k" "$1" "$2" && [ $((a - b)) -lt 64 ] && [ $((b - a)) -lt 64 ] ||
	    { echo "$1 and $2: apart before their last 64 bytes"; return 1; }
	NEAR=$((NEAR + 1))
}

@test "gzip: ISA-L and zlib inflate to the same bytes and status" {
	d=$BATS_TEST_TMPDIR/gz
	run python3 "$BATS_TEST_DIRNAME/gzip-variants.py" "$d"
	[ "$status" -eq 0 ]
	[ "$output" = 180 ]
	"$PD_TESTBIN/zread-dump" "$d/plain.gz" >/dev/null 2>"$d/engine" || true
	if ! grep -q '^engine isa-l ' "$d/engine"; then
		[ "${CI:-}" != true ] || { cat "$d/engine"; false; }
		skip "libisal.so.2 not loadable: only zlib here"
	fi
	for e in zlib isal; do
		for b in 65536 7; do
			mkdir "$d/$e$b"
			PD_INFLATE=$e "$PD_TESTBIN/zread-dump" -b $b -o "$d/$e$b" \
			    "$d"/*.gz >"$d/$e$b.st"
			# the engine is the one asked for (a file too short to
			# show the gzip magic is read as it is)
			[ "$(grep -c ": engine $([ $e = isal ] && echo isa-l || echo zlib) " "$d/$e$b.st")" -eq 171 ]
			[ "$(grep -c ": engine  status 0 () bytes 1$" "$d/$e$b.st")" -eq 9 ]
			sed 's/ engine [^ ]* / /; s/ bytes.*//' "$d/$e$b.st" >"$d/$e$b.s"
		done
	done
	[ "$(wc -l <"$d/zlib65536.s")" -eq 180 ]
	NEAR=0
	for x in zlib7 isal65536 isal7; do
		cmp "$d/zlib65536.s" "$d/$x.s"
		for f in "$d"/zlib65536/*.out; do
			near "$f" "$d/$x/${f##*/}"
		done
	done
	echo "near: $NEAR"
	[ "$NEAR" -le 24 ]
}

# PD_MSORT (lib/pd_msort.h) sorts as glibc's qsort merges (n / 2 and the
# rest, then a merge taking from the first half while cmp <= 0): for a
# comparison that is not transitive (rock-paper-scissors on v % 3) the
# order is that of a merge sort written that way in the test (on this
# Debian's glibc 2.36, qsort's own: checked when it was written); for a
# total order that of qsort. On input in order it makes n - 1
# comparisons (999 for 1000, 99999 for 100000: one per merge, the
# halves found in order), not n log n.
@test "msort: qsort's order, comparison by comparison, and input in order in n - 1" {
	local a
	for a in "1000 7 999" "100000 3 99999" "37 5 36" "1 1 0" "0 1 0"; do
		set -- $a
		run_pd "$PD_TESTBIN/msort-check" "$1" "$2"
		[ "$status" -eq 0 ]
		[ "$output" = "cyclic=1 total=1 sorted=1 cmps=$3" ]
	done
}
