#!/usr/bin/env bats
# report.html in a real browser: headless Chromium renders the page of the
# pd-report fixture and of the demo job; the page must have its charts in
# the DOM, a screenshot that is not blank, and no console message (the
# page has no script, so any console line is an error: a blocked request,
# a CSP violation). Skipped only where Chromium is not installed.
load helper

setup() {
	B=$(chromium_bin)
	[ -n "$B" ] || skip "chromium is not installed (apt-get install chromium)"
	D=$BATS_TEST_TMPDIR
}

# check_page HTML [SVGS [RECTS]]: DOM, console and screenshot checks (at
# least SVGS charts and RECTS bars, 3 each unless told); sets $dom.
check_page() {
	local html=$1 svgs=${2:-3} rects=${3:-3}
	# one start of the browser for both: the DOM on stdout, the screenshot
	rm -f "$D/shot.png"
	chrome --window-size=1000,1400 --screenshot="$D/shot.png" \
	    --dump-dom "file://$html" >"$D/dom.html" 2>"$D/dom.err"
	dom=$D/dom.html
	# no console output at all, no blocked load
	if grep -E 'CONSOLE|Refused to|ERR_' "$D/dom.err"; then
		return 1
	fi
	# the page was parsed and its charts are in the DOM
	grep -q '<h1>perfdiag report' "$dom"
	[ "$(grep -o '<svg ' "$dom" | wc -l)" -ge "$svgs" ]
	[ "$(grep -o '<rect ' "$dom" | wc -l)" -ge "$rects" ]
	not grep -q '<script' "$dom"
	# not blank: many colours, and the background is not everything
	read -r w h colors bg < <("$PD_TESTBIN/png-check" "$D/shot.png")
	echo "screenshot: ${w}x$h, $colors colours, background $bg" >&2
	[ "$w" = 1000 ] && [ "$h" = 1400 ]
	[ "${colors%+}" -ge 50 ]
	awk -v b="$bg" 'BEGIN { exit !(b < 0.95) }'
}

# The checks themselves, on one start as check_page makes it: a page with
# nothing drawn and a script that logs an error gives a screenshot of one
# colour, all background, and the console line on stderr.
@test "report-browser: png-check tells a blank page, the console check sees a console message" {
	printf '%s\n' '<!DOCTYPE html><script>console.error("boom")</script>' \
	    >"$D/bad.html"
	chrome --window-size=400,300 --screenshot="$D/bad.png" \
	    --dump-dom "file://$D/bad.html" >/dev/null 2>"$D/bad.err"
	grep -q CONSOLE "$D/bad.err"
	run_pd "$PD_TESTBIN/png-check" "$D/bad.png"
	[ "$output" = "400 300 1 1.0000" ]
}

@test "report-browser: the fixture report renders with all its charts" {
	sed "s|@DIR@|$FIX/pd-report/run|g" "$FIX/pd-report/stream.jsonl.in" >"$D/s.jsonl"
	run_pd pd-report -o "$D/out" "$D/s.jsonl"
	check_page "$D/out/report.html"
	grep -qF '<h1>perfdiag report: job-7</h1>' "$dom"
	for id in chart-steps chart-step-series chart-candidates chart-hotspots chart-memory chart-comparison; do
		grep -q "<svg id=\"$id\"" "$dom"
	done
	# the memory timeline is drawn as lines, the hotspot name as text
	grep -q '<polyline' "$dom"
	grep -qF '&lt;script&gt;alert' "$dom"
}

# pd-collect's records alone (no profiler output): the page has the
# utilization chart only, its lines drawn (a polyline per series: the
# job's CPU and the host's memory), and renders like the others.
@test "report-browser: a pd-collect run renders its utilization chart" {
	pd-collect -n -i 0.1 -- sh -c 'i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done' >"$D/c.jsonl"
	run_pd pd-report -o "$D/out" <"$D/c.jsonl"
	check_page "$D/out/report.html" 1 0
	grep -q '<svg id="chart-utilization"' "$dom"
	[ "$(grep -o '<polyline class="util"' "$dom" | wc -l)" = 2 ]
	grep -qF '>100 %</text>' "$dom"
	grep -qF 'CPU (job) (median ' "$dom"
	cp "$D/shot.png" "${REPORT_SHOT:-$D/x.png}.collect.png"
}

@test "report-browser: the demo report renders" {
	run_pd sh "$TOP/share/examples/demo.sh" "$D/demo"
	check_page "$D/demo/report/report.html"
	grep -q '<svg id="chart-steps"' "$dom"
	grep -q '<svg id="chart-comparison"' "$dom"
	# the strip of the median step: data loading then host operators
	grep -q '<svg id="chart-strip"' "$dom"
	grep -qF '<title>data loading: ' "$dom"
	grep -qF '<title>host operators: ' "$dom"
	cp "$D/shot.png" "${REPORT_SHOT:-$D/demo.png}"
}

@test "report-browser: a 1024-rank report renders its heatmap and histogram" {
	python3 -c '
import json
for r in range(1024):
    print(json.dumps({"type": "pd.root", "v": 1, "root": "/jobs/big/rank%d" % r,
        "rank": r, "format": "torch_npu", "run": "big-job", "score": 5, "exports": []}))
for r in range(1024):
    t = 1000.0 + r
    print(json.dumps({"type": "pd.step", "v": 1, "root": "/jobs/big/rank%d" % r,
        "rank": r, "source": "step_trace_time", "steps": [{"step": 1, "step_us": t,
        "computing_us": 600.0, "free_us": 100.0}], "totals": {"step_us": t,
        "computing_us": 600.0, "free_us": 100.0}, "step_stats": {"n": 1, "mean": t}}))
' | pd-profile >"$D/big.jsonl"
	run_pd pd-report -o "$D/out" <"$D/big.jsonl"
	check_page "$D/out/report.html"
	grep -q '<svg id="chart-rank-heatmap"' "$dom"
	grep -q '<svg id="chart-rank-hist"' "$dom"
	[ "$(grep -o '<rect class="cell"' "$dom" | wc -l)" = 1024 ]
	cp "$D/shot.png" "${REPORT_SHOT:-$D/x.png}.1024.png"
}

# pd-report DIR... on two corpus runs (2 ranks Ascend, Kineto GPU): the
# index and each run's report render, with their charts.
@test "report-browser: the index of many runs renders, each report too" {
	require_corpus
	local n
	run_pd 0 pd-report -q -o "$D/idx" "$CORPUS/ascend/pta_2rank_level1_text" \
	    "$CORPUS/pytorch/hta-nccl-2rank-a100"
	chrome --dump-dom "file://$D/idx/index.html" >"$D/i.html" 2>"$D/i.err"
	not grep -E 'CONSOLE|Refused to|ERR_' "$D/i.err"
	grep -q '>pta_2rank_level1_text</a>' "$D/i.html"
	grep -q '>hta-nccl-2rank-a100</a>' "$D/i.html"
	for n in pta_2rank_level1_text hta-nccl-2rank-a100; do
		echo "case $n" >&2
		check_page "$D/idx/$n/report.html"
		grep -qF "<h1>perfdiag report: $n</h1>" "$dom"
		grep -q '<svg id="chart-steps"' "$dom"
		grep -q '<svg id="chart-step-series"' "$dom"
		grep -q '<svg id="chart-hotspots"' "$dom"
		# the strip: at least a host lane and two device streams
		grep -q '<svg id="chart-strip"' "$dom"
		[ "$(grep -o '<g class="lane">' "$dom" | wc -l)" -ge 3 ]
		grep -qF 'host launch calls: ' "$dom"
		# a Kineto trace has its critical path drawn
		case $n in hta-*) grep -q '<svg id="chart-path"' "$dom" ;; esac
		cp "$D/shot.png" "${REPORT_SHOT:-$D/x.png}.$n.png"
	done
}

# The roofline of kineto/flops-basic.json (hand-made, see
# pd-report-compute.bats): its 7 points and 4 roofs are in the DOM.
@test "report-browser: the roofline of a hand-made trace renders" {
	mkdir -p "$D/fp"
	cp "$FIX/kineto/flops-basic.json" "$D/fp/"
	pd-locate "$D/fp" | pd-sum-step -q | pd-sum-gaps -q | pd-hotspots -q \
	    | pd-profile | pd-classify | pd-report -o "$D/r" >/dev/null
	check_page "$D/r/report.html"
	grep -q '<svg id="chart-roofline"' "$dom"
	[ "$(grep -o '<g class="op"><circle ' "$dom" | wc -l)" = 7 ]
	[ "$(grep -o '<line class="roof"' "$dom" | wc -l)" = 4 ]
	grep -q '<table id="flops-top">' "$dom"
}

# The device's work where it explains the verdict (corpus): the roofline
# and the kernel sequences of Qwen on an H100, the counters of the range
# profiler trace; each page renders without a console message, with its
# points, bars and table in the DOM (values in pd-report-compute.bats).
@test "report-browser: roofline, kernel sequences and counters render" {
	require_corpus
	local c
	for c in tracelens-h100-inference/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz \
	    hta-misc-format-variants/cupti_profiler_counters_trace.json.gz; do
		pd-locate "$CORPUS/pytorch/$c" | pd-sum-step -q | pd-sum-gaps -q \
		    | pd-hotspots -q | pd-profile | pd-classify \
		    | pd-report -o "$D/r" >/dev/null 2>"$D/err"
		echo "case $c" >&2
		case $c in
		*Qwen*)
			check_page "$D/r/report.html"
			grep -q '<svg id="chart-roofline"' "$dom"
			[ "$(grep -o '<g class="op"><circle ' "$dom" | wc -l)" = 6 ]
			[ "$(grep -o '<line class="roof"' "$dom" | wc -l)" = 3 ]
			grep -q '<svg id="chart-sequences"' "$dom"
			[ "$(grep -o '<g class="seq">' "$dom" | wc -l)" = 5 ]
			grep -q '<table id="sequences-top">' "$dom"
			# the parsed DOM keeps the escaped template brackets
			grep -qF 'title="void at::native::vectorized_elementwise_kernel&lt;4, ' "$dom"
			;;
		*)
			check_page "$D/r/report.html" 1 0
			[ "$(sed -n '/<table id="counters">/,/<\/table>/p' "$dom" | grep -c '<code title=')" = 10 ]
			;;
		esac
		cp "$D/shot.png" "${REPORT_SHOT:-$D/x.png}.${c##*/}.png"
	done
}
