#!/usr/bin/env bats
# pd-report on a hand-written stream (fixtures/pd-report/stream.jsonl.in:
# two ranks of one run, every summary type, two ranked candidates, a
# comparison) and on the demo job. Every number asserted below is worked
# out from the records in that file; each test says how.
load helper
load contract

setup() {
	D=$BATS_TEST_TMPDIR
	S=$D/stream.jsonl
	sed "s|@DIR@|$FIX/pd-report/run|g" "$FIX/pd-report/stream.jsonl.in" >"$S"
}

# Formatting used by report.md and report.html (tools/pd-report/fmt.c,
# done again here with awk): three significant digits, trailing zeros
# dropped, in the unit that keeps the value under 1000; ratios as
# percentages with one decimal; null is printed as "-".
FMT_AWK='function sig(v,  b, s) { b = v < 0 ? -v : v
		if (b < 0.0005) v = 0
		if (b >= 99.95) s = sprintf("%.0f", v)
		else if (b >= 9.995) s = sprintf("%.1f", v)
		else if (b >= 0.9995 || v == 0) s = sprintf("%.2f", v)
		else s = sprintf("%.3g", v)
		if (s ~ /\./ && s !~ /e/) { sub(/0+$/, "", s); sub(/\.$/, "", s) }
		return s == "-0" ? "0" : s }
	function us(x,  a) { if (x == "null") return "-"
		x += 0
		a = x < 0 ? -x : x
		if (a < 999.5) return sig(x) " \302\265s"
		if (a < 999.5e3) return sig(x / 1e3) " ms"
		return sig(x / 1e6) " s" }
	function pct(x) { return x == "null" ? "-" : sprintf("%.1f %%", x * 100) }'

# agree DIR: the dominant bottleneck and the numbers of report.json appear
# in report.md and in report.html. One awk formats every number and looks
# for each text in the page (a line of the page holds it, as grep -F); it
# names every text it does not find.
agree() {
	local d=$1
	jqf -r "$d/report.json" '.dominant.rule // empty' .dominant.impact \
	    '.runtime.step.mean_us // empty' '.steps_by_rank[].mean_us // empty' \
	    '.bottlenecks[].impact' '.hotspots.top[0].total_us // empty'
	RULE=${J[0]} IMPACT=${J[1]} STEP=${J[2]} RANKS=${J[3]} IMPACTS=${J[4]} \
	    TOP=${J[5]} awk "$FMT_AWK"'
	function page(f,  l, t) { t = ""
		while ((getline l <f) > 0) t = t "\n" l
		close(f)
		return t "\n" }
	function need(f, s) { if (!index(text[f], s) || index(s, "\n")) {
		printf "%s: no \"%s\"\n", f, s >"/dev/stderr"; bad = 1 } }
	BEGIN { md = ARGV[1]; html = ARGV[2]
		text[md] = page(md); text[html] = page(html)
		rule = ENVIRON["RULE"]
		if (rule != "") {
			need(md, rule); need(html, rule)
			s = pct(ENVIRON["IMPACT"])
			need(md, "impact " s); need(html, "impact <b>" s "</b>")
		} else need(md, "No dominant bottleneck")
		if ((v = ENVIRON["STEP"]) != "") {
			s = us(v)
			need(md, "| mean step | " s " "); need(html, "<td>" s " (median")
		}
		n = split(ENVIRON["RANKS"], a, "\n")
		for (i = 1; i <= n; i++) {
			s = us(a[i]); need(md, "| " s " |"); need(html, ">" s "</td>")
		}
		n = split(ENVIRON["IMPACTS"], a, "\n")
		for (i = 1; i <= n; i++) {
			s = pct(a[i]); need(md, "| " s " |"); need(html, ">" s "</text>")
		}
		if ((v = ENVIRON["TOP"]) != "") {
			s = us(v)
			need(md, "| " s " |"); need(html, ">" s " &#183; ")
		}
		exit bad }' "$d/report.md" "$d/report.html"
}

@test "pd-report: -h prints usage to stdout" { contract_h pd-report; }
@test "pd-report: bad option is exit 2" { contract_badopt pd-report; }
@test "pd-report: empty input writes nothing" {
	cd "$BATS_TEST_TMPDIR"
	contract_empty pd-report
	[ ! -e perfdiag-report ]
}
@test "pd-report: input is passed through byte for byte" {
	cd "$BATS_TEST_TMPDIR"
	contract_passthrough pd-report
	# only records of other kinds: nothing to report, no files
	[ ! -e perfdiag-report ]
}
@test "pd-report: missing file is one error line, exit 5" {
	contract_missing pd-report
}
@test "pd-report: writing to /dev/full is exit 5" {
	contract_devfull pd-report -o "$BATS_TEST_TMPDIR/out" "$S"
}

@test "pd-report: writes the files and one pd.report naming them" {
	run_pd pd-report -o "$D/out" <"$S"
	# the input first, unchanged
	diff <(printf '%s\n' "$output" | head -n "$(wc -l <"$S")") "$S"
	jqv pd.report .dir .dominant .verdict '.files | length' '.files[]'
	[ "${J[0]}" = "\"$D/out\"" ]
	[ "${J[1]}" = '"matmul_hot"' ]
	[ "${J[2]}" = '"improved"' ]
	[ "${J[3]}" = 8 ]
	for f in $(printf '%s\n' "${J[4]}" | tr -d '"'); do
		[ -s "$D/out/$f" ]
	done
	# the JSON files parse, one object each; no temporary file is left behind
	jq -e -n '[inputs] | length == 6' "$D/out/report.json" \
	    "$D/out/meta/performance-profile.json" "$D/out/meta/bottlenecks.json" \
	    "$D/out/meta/performance-verdict.json" \
	    "$D/out/meta/validation-comparison.json" \
	    "$D/out/artifacts/perf.lock.json" >/dev/null
	[ -z "$(find "$D/out" -name '.*')" ]
}

@test "pd-report: report.json holds the run's diagnosis" {
	run_pd pd-report -o "$D/out" <"$S"
	j=$D/out/report.json
	jqf -r "$j" .schema .run .generated_at '[.bottlenecks[].rule]' \
	    .dominant.impact .proposed_fix.change .workload.entry_script \
	    .workload.launcher \
	    '.steps_by_rank[0] | [.rank, .mean_us, .segments.computing_us, .segments.preparing_us, .segments.other_us]' \
	    '.steps_by_rank[1].segments.free_us' \
	    '.hotspots.top[0] | [.name, .count, .total_us, .ratio]' \
	    '.memory | [.peak_allocated_bytes, .peak_reserved_bytes, .peak_ratio]' \
	    '[.memory.timeline.points[].t_us]' .comparison.verdict \
	    '.next_actions[0]' .artifacts.validation_comparison
	[ "${J[0]}" = perfdiag.report ]
	[ "${J[1]}" = job-7 ]
	[ "${J[2]}" = null ]
	# the two pd.bottleneck records, by position
	[ "${J[3]}" = '["matmul_hot","free_time"]' ]
	[ "${J[4]}" = 0.5 ]
	[ "${J[5]}" = "pad hidden size from 1000 to 1008" ]
	# pd.context: entry script and launcher
	[ "${J[6]}" = train.py ]
	[ "${J[7]}" = torchrun ]
	# rank 0 totals / 2 steps: computing 1600/2, preparing 200/2,
	# other = mean 1100 - (800+150+50+100+0)
	[ "${J[8]}" = '[0,1100,800,100,0]' ]
	# rank 1: free 400/2
	[ "${J[9]}" = 200 ]
	# MatMulV2: 1500 (rank 0) + 900 (rank 1) = 2400 of 3000 + 2000 = 0.48
	[ "${J[10]}" = '["MatMulV2",80,2400,0.48]' ]
	# memory: the larger peaks (rank 0), its 3-point timeline in us
	[ "${J[11]}" = '[3221225472,4294967296,0.0625]' ]
	[ "${J[12]}" = '[1000,2000,3000]' ]
	[ "${J[13]}" = improved ]
	[ "${J[14]}" = "try the proposed fix: pad hidden size from 1000 to 1008" ]
	[ "${J[15]}" = meta/validation-comparison.json ]
}

@test "pd-report: report.md and report.html agree with report.json" {
	run_pd pd-report -o "$D/out" <"$S"
	agree "$D/out"
	grep -qF '| step time | 1.4 ms | 1.05 ms | -25.0 % | ± 20 µs | improved |' "$D/out/report.md"
}

@test "pd-report: the pages name the job, the ranks, the rules; units for people" {
	run_pd pd-report -o "$D/out" <"$S"
	m=$D/out/report.md h=$D/out/report.html
	# the run id job-7 is the job's name; no second line repeats it
	[ "$(jq -r .name "$D/out/report.json")" = job-7 ]
	[ "$(head -n 1 "$m")" = "# perfdiag report: job-7" ]
	not grep -q '^Run `' "$m"
	grep -qF '<h1>perfdiag report: job-7</h1>' "$h"
	# pd.profile: ranks 2, world_size 2
	grep -qF '| ranks | 2 ranks |' "$m"
	grep -qF '<tr><th>ranks</th><td>2 ranks</td></tr>' "$h"
	not grep -q 'world size' "$m" "$h"
	# rank 0's mean step 1100 us, its computing 1600 / 2 steps
	grep -qF '| rank 0 | 2 | 1.1 ms | 800 µs |' "$m"
	# the candidates chart is labelled by the rules' titles, the id in
	# the tooltip
	grep -qF '<text x="8" y="25.0">MatMul dominates device time<title>MatMul dominates device time (matmul_hot)</title></text>' "$h"
	grep -qF '>Device idle between tasks<title>' "$h"
	# the fix once: the dominant card and the summary, not again in the
	# candidates or the next actions
	[ "$(grep -c 'pad hidden size from 1000 to 1008' "$m")" = 1 ]
	[ "$(grep -o 'pad MatMul shapes to multiples of 16' "$h" | wc -l)" = 1 ]
	grep -qF '1. try the proposed fix (above)' "$m"
	# the other candidate's fix is still shown
	grep -qF '<b>Fix:</b> reduce host launch overhead' "$h"
	# the comparison's metrics by name, ids as code
	grep -qF '<td>step time <code>step_us</code></td><td class="n">1.4 ms</td><td class="n">1.05 ms</td><td class="n">-25.0 %</td>' "$h"
}

@test "pd-report: a single-process job says so; no world size or rank dash" {
	# rank 0 alone, without its rank: a single-process trace
	grep -v -e '"rank":1' -e pd.comparison "$S" | jq -c \
	    'if .rank == 0 then .rank = null else . end
	    | if .type == "pd.profile" then .ranks = 1 | .world_size = null
	    else . end' >"$D/one.jsonl"
	run_pd pd-report -o "$D/out" <"$D/one.jsonl"
	grep -qF '| ranks | single process |' "$D/out/report.md"
	grep -qF '| single process | 2 | 1.1 ms |' "$D/out/report.md"
	grep -qF '<td>single process</td>' "$D/out/report.html"
	not grep -qE 'world size|rank -|>-</text>' "$D/out/report.md" "$D/out/report.html"
}

@test "pd-report: a job is named by its folder, not by its trace's path" {
	# a single-process trace: the run id is the trace file, a root
	sed 's|"job-7"|"@T@"|g; s|@T@|'"$FIX"'/pd-report/run/rank0|g' "$S" >"$D/a.jsonl"
	run_pd pd-report -o "$D/a" <"$D/a.jsonl"
	[ "$(jq -r .name "$D/a/report.json")" = run ]
	grep -qF "Run \`$FIX/pd-report/run/rank0\`" "$D/a/report.md"
	# a Kineto job with a world size; an archive's ending goes
	sed 's|"job-7"|"/data/jobs/llama-70b#world_size=8"|g' "$S" >"$D/b.jsonl"
	run_pd pd-report -o "$D/b" <"$D/b.jsonl"
	[ "$(jq -r .name "$D/b/report.json")" = llama-70b ]
	sed 's|"job-7"|"/data/job x.tar.gz"|g' "$S" >"$D/c.jsonl"
	run_pd pd-report -o "$D/c" <"$D/c.jsonl"
	[ "$(jq -r .name "$D/c/report.json")" = "job x" ]
}

@test "pd-report: a stacked bar per step of the slowest rank" {
	run_pd pd-report -o "$D/out" <"$S"
	j=$D/out/report.json h=$D/out/report.html
	# rank 0 is the slower (mean 1100 us against 1000): its two pd.step
	# steps, as the record has them
	jqf "$j" '.step_series | [.rank, .chosen, .ranks, .steps_total]' \
	    '[.step_series.steps[] | [.step, .step_us, .computing_us, .comm_not_overlapped_us, .free_us, .preparing_us]]'
	[ "${J[0]}" = '[0,"slowest",2,2]' ]
	[ "${J[1]}" = '[[1,1000,700,150,50,100],[2,1200,900,150,50,100]]' ]
	svg=$(sed -n '/<svg id="chart-step-series"/,/<\/svg>/p' "$h")
	[ "$(grep -c '<g class="step">' <<<"$svg")" = 2 ]
	grep -qF '<g class="step"><title>step 1: 1 ms</title>' <<<"$svg"
	grep -qF '<g class="step"><title>step 2: 1.2 ms</title>' <<<"$svg"
	# heights over the tallest step (1200 us) of a 200-pixel plot:
	# computing 700 -> 116.7, 900 -> 150.0, comm 150 -> 25.0
	grep -qF 'height="116.7" fill="#3b6fd8"><title>step 1, computing: 700 µs</title>' <<<"$svg"
	grep -qF 'height="150.0" fill="#3b6fd8"><title>step 2, computing: 900 µs</title>' <<<"$svg"
	[ "$(grep -c 'height="25.0" fill="#e67e22"><title>step ., communication not overlapped: 150 µs' <<<"$svg")" = 2 ]
	# axes: the time scale (0, half, the tallest step) and the step axis
	grep -qF '>0 µs</text>' <<<"$svg"
	grep -qF '>600 µs</text>' <<<"$svg"
	grep -qF '>1.2 ms</text>' <<<"$svg"
	grep -qF '>time per step</text>' <<<"$svg"
	grep -qF 'text-anchor="middle">step</text>' <<<"$svg"
	# a step without a breakdown is one bar of its time (rank 1's steps)
	grep -v '"rank":0' "$S" >"$D/r1.jsonl"
	run_pd pd-report -o "$D/r1" <"$D/r1.jsonl"
	[ "$(jq -c '.step_series | [.rank, .chosen]' "$D/r1/report.json")" = '[1,"only"]' ]
	grep -qF '<title>step 2, step (no breakdown): 1 ms</title>' "$D/r1/report.html"
}

# The runs hold the per-step arrays packed (pd_runs_pack): a column of
# integers and reals, one of a number and null, one of nulls come back as
# the record has them. Rank 0's steps of the stream, changed with sed (jq
# would write 900.0 as 900): step 1's computing 700 an integer, its
# preparing null, bubble null in both.
@test "pd-report: the step series keeps the record's integers, reals and nulls" {
	sed '/"pd.step".*"rank":0,/{s/"computing_us":700\.0,/"computing_us":700,/
	    s/"preparing_us":100\.0,"bubble_us":0\.0},/"preparing_us":null,"bubble_us":null},/
	    s/"bubble_us":0\.0}]/"bubble_us":null}]/}' "$S" >"$D/m.jsonl"
	[ "$(grep -c '"computing_us":700,.*"preparing_us":null,"bubble_us":null},.*"computing_us":900\.0,.*"bubble_us":null}]' "$D/m.jsonl")" = 1 ]
	run_pd pd-report -o "$D/out" <"$D/m.jsonl"
	j=$D/out/report.json
	[ "$(jq -c '[.step_series.steps[] | [.step, .step_us, .computing_us, .preparing_us, .bubble_us]]' "$j")" = \
	    "$(jq -c 'select(.type == "pd.step" and .rank == 0) | [.steps[] | [.step, .step_us, .computing_us, .preparing_us, .bubble_us]]' "$D/m.jsonl")" ]
	[ "$(jq -c '[.step_series.steps[] | [.computing_us, .preparing_us]]' "$j")" = '[[700,null],[900,100]]' ]
	# the integer stays one, the real keeps its ".0"
	grep -qE '"computing_us": 700,$' "$j"
	grep -qE '"computing_us": 900\.0,$' "$j"
}

# ranks N: a run of N ranks (pd.root and pd.step per rank, through
# pd-profile); rank r's one step takes 1000 + r us: computing 600, free
# 100, communication not overlapped the rest.
ranks() {
	python3 -c '
import json, sys
n = int(sys.argv[1])
for r in range(n):
    print(json.dumps({"type": "pd.root", "v": 1, "root": "/jobs/big/rank%d" % r,
        "rank": r, "format": "torch_npu", "run": "big-job", "score": 5, "exports": []}))
for r in range(n):
    t = 1000.0 + r
    parts = {"computing_us": 600.0, "comm_not_overlapped_us": t - 700.0, "free_us": 100.0}
    print(json.dumps({"type": "pd.step", "v": 1, "root": "/jobs/big/rank%d" % r,
        "rank": r, "source": "step_trace_time",
        "steps": [dict(step=1, step_us=t, **parts)], "totals": dict(step_us=t, **parts),
        "step_stats": {"n": 1, "mean": t, "median": t, "p90": t, "min": t,
        "max": t, "cv": 0}}))
' "$1" | pd-profile
}

@test "pd-report: 1024 ranks are a heatmap and a histogram, not 1024 bars" {
	ranks 1024 >"$D/big.jsonl"
	run_pd pd-report -o "$D/out" <"$D/big.jsonl"
	j=$D/out/report.json h=$D/out/report.html m=$D/out/report.md
	# rank 0 is the fastest (1000 us), rank 1023 the slowest (2023 us);
	# the median of 1000..2023 is (1511 + 1512) / 2
	jqf "$j" '.rank_stats | [.ranks, .min_us, .min_rank, .median_us, .max_us, .max_rank]' \
	    '[.rank_stats.slowest[].rank]' '.rank_stats.histogram | length' \
	    '[.rank_stats.histogram[].count] | add' '.rank_stats.histogram[0].count'
	[ "${J[0]}" = '[1024,1000,0,1511.5,2023,1023]' ]
	[ "${J[1]}" = '[1023,1022,1021,1020,1019]' ]
	# 20 bins of (2023 - 1000) / 20 = 51.15 us: ranks 0..51 in the first
	[ "${J[2]}" = 20 ]
	[ "${J[3]}" = 1024 ]
	[ "${J[4]}" = 52 ]
	# one cell per rank, from pale (fastest) to red (slowest)
	[ "$(grep -c '<rect class="cell"' "$h")" = 1024 ]
	grep -qF 'fill="#dbe7f8"><title>rank 0: 1 ms</title>' "$h"
	grep -qF 'fill="#c0392b"><title>rank 1023: 2.02 ms</title>' "$h"
	[ "$(grep -c '<rect class="bin"' "$h")" = 20 ]
	grep -qF '<title>1 ms to 1.05 ms: 52 ranks</title>' "$h"
	grep -qF '1024 ranks: mean step from <b>1 ms</b> (rank 0) to <b>2.02 ms</b> (rank 1023), median 1.51 ms.' "$h"
	# no per-rank bars or rows: the 5 slowest, the first 16 roots
	not grep -q '<svg id="chart-steps"' "$h"
	[ "$(sed -n '/<table id="slowest-ranks">/,/<\/table>/p' "$h" | grep -c '<tr><td>rank')" = 5 ]
	grep -qF 'and 1008 more (every root is in report.json)' "$h" "$m" >/dev/null
	[ "$(grep -c '^| rank 10' "$m")" = 5 ]
	grep -qF '1024 ranks: mean step from 1 ms (rank 0) to 2.02 ms (rank 1023), median 1.51 ms.' "$m"
	# bounded: 4096 ranks still draw 1024 cells (4 ranks each, by the
	# slowest; 5095 us is 5.09 ms, as printf rounds the double 5.095),
	# and the pages stay small
	[ "$(wc -c <"$h")" -lt 200000 ] && [ "$(wc -c <"$m")" -lt 10000 ]
	ranks 4096 | pd-report -o "$D/out4" >/dev/null
	[ "$(grep -c '<rect class="cell"' "$D/out4/report.html")" = 1024 ]
	grep -qF '<title>rank 4092 to rank 4095, slowest rank 4095: 5.09 ms</title>' "$D/out4/report.html"
	[ "$(wc -c <"$D/out4/report.html")" -lt 200000 ]
}

@test "pd-report: before/after with the noise of each metric and the verdict" {
	# the fixture's comparison, with an inconclusive metric, its steps
	# needed, and the dominant rule of each side
	jq -c 'if .type == "pd.comparison" then
	    .metrics += [{"metric": "computing_ratio", "before": 0.5,
	    "after": 0.52, "delta": 0.02, "delta_ratio": 0.04, "noise": 0.05,
	    "better": "higher", "verdict": "inconclusive", "steps_needed": 12}]
	    | .dominant = {"rule": "matmul_hot", "domain": "operator_hotspot",
	    "metric": "impact", "before": 0.5, "after": 0.2,
	    "after_rule": "free_time", "fired_after": true,
	    "verdict": "improved"} else . end' "$S" >"$D/c.jsonl"
	run_pd pd-report -o "$D/out" <"$D/c.jsonl"
	m=$D/out/report.md h=$D/out/report.html
	grep -qF '| step time | 1.4 ms | 1.05 ms | -25.0 % | ± 20 µs | improved |' "$m"
	grep -qF '| computing share | 50.0 % | 52.0 % | 4.0 % | ± 5.0 % | inconclusive (12 steps per run would settle it) |' "$m"
	grep -qF 'Before: `matmul_hot` (impact 50.0 % -> 20.0 %, still fires after). After the change the dominant bottleneck is `free_time`.' "$m"
	grep -qF 'After the change the dominant bottleneck is <b>free_time</b>.' "$h"
	# a noise band per metric drawn on both sides, before +- noise:
	# step time's scale is (760 - 150 - 140) / 1400 px per us, the band
	# 1380..1420 us from x = 150
	[ "$(grep -c '<rect class="noise"' "$h")" = 4 ]
	grep -qF '<rect class="noise" x="613.3" y="12.0" width="13.4" height="42"' "$h"
	grep -qF '<title>noise: before &#177; 20 µs</title>' "$h"
	grep -qF '<td class="inconclusive">inconclusive (12 steps per run would settle it)</td>' "$h"
	grep -qF '<td class="n improved">&#177; 20 µs</td>' "$h"
}

@test "pd-report: meta documents" {
	run_pd pd-report -o "$D/out" <"$S"
	m=$D/out/meta
	jqf -r "$m/performance-verdict.json" .verdict .dominant.rule .comparison_verdict
	[ "${J[0]}" = bottleneck ]
	[ "${J[1]}" = matmul_hot ]
	[ "${J[2]}" = improved ]
	[ "$(jq -r .type "$m/performance-profile.json")" = pd.profile ]
	[ "$(jq -c '[.bottlenecks[].position]' "$m/bottlenecks.json")" = '[1,2]' ]
	[ "$(jq -r .type "$m/validation-comparison.json")" = pd.comparison ]
}

@test "pd-report: the lock file pins every input with sha256sum's hash" {
	printf 'rules: []\n' >"$D/rules.yaml"
	run_pd pd-report -o "$D/out" -r "$D/rules.yaml" <"$S"
	l=$D/out/artifacts/perf.lock.json
	jqf -r "$l" '.inputs | length' '.inputs[0] | .path, .sha256, .bytes' \
	    '.inputs[1] | .path, .sha256, .bytes' .rules.sha256 .tools .tool.name
	[ "${J[0]}" = 2 ]
	for i in 1 2; do
		{ read -r p; read -r h; read -r n; } <<<"${J[i]}"
		[ "$h" = "$(sha256sum "$p" | cut -d' ' -f1)" ]
		[ "$n" = "$(wc -c <"$p")" ]
	done
	[ "${J[3]}" = "$(sha256sum "$D/rules.yaml" | cut -d' ' -f1)" ]
	[ "${J[4]}" = '["pd-classify","pd-compare","pd-find-context","pd-hotspots","pd-locate","pd-profile","pd-sum-mem","pd-sum-step"]' ]
	[ "${J[5]}" = pd-report ]
}

@test "pd-report: lib sha256 matches known vectors and sha256sum" {
	# FIPS 180-4 examples
	[ "$("$PD_TESTBIN/sha256-check" -s abc)" = ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad ]
	[ "$("$PD_TESTBIN/sha256-check" -s '')" = e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 ]
	[ "$("$PD_TESTBIN/sha256-check" -s abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq)" = 248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1 ]
	# lengths around the 55/56/64-byte padding edges, and a large file
	for n in 55 56 63 64 65 119 120 1000003; do
		head -c "$n" /dev/urandom >"$D/r$n"
		[ "$("$PD_TESTBIN/sha256-check" "$D/r$n")" = "$(sha256sum "$D/r$n")" ]
	done
}

@test "pd-report: the same input gives the same bytes, rerun in place too" {
	run_pd pd-report -o "$D/a" <"$S"
	run_pd pd-report -o "$D/b" <"$S"
	diff -r "$D/a" "$D/b"
	cp -R "$D/a" "$D/a0"
	run_pd pd-report -o "$D/a" <"$S"
	diff -r "$D/a0" "$D/a"
}

@test "pd-report: a rerun without a comparison removes the old one" {
	run_pd pd-report -o "$D/out" <"$S"
	[ -e "$D/out/meta/validation-comparison.json" ]
	grep -v pd.comparison "$S" >"$D/nocmp.jsonl"
	run_pd pd-report -o "$D/out" <"$D/nocmp.jsonl"
	[ ! -e "$D/out/meta/validation-comparison.json" ]
	[ "$(jq -r .artifacts.validation_comparison "$D/out/report.json")" = null ]
	[ "$(jqr pd.report '.files | length')" = 7 ]
	[ "$(jq -r .comparison "$D/out/report.json")" = null ]
}

@test "pd-report: -t writes the generation time" {
	run_pd pd-report -t -o "$D/out" <"$S"
	[[ "$(jq -r .generated_at "$D/out/report.json")" =~ ^20[0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9:]{8}Z$ ]]
	grep -q "generated 20" "$D/out/report.html"
}

@test "pd-report: text from the input is escaped in the HTML" {
	run_pd pd-report -o "$D/out" <"$S"
	h=$D/out/report.html
	not grep -q '<script' "$h"
	grep -qF '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;q&#39;' "$h"
	# and in Markdown it cannot open a tag or break a table
	grep -qF '| \<script\>alert("x")\</script\> & '"'q'"' | Cast |' "$D/out/report.md"
}

@test "pd-report: the page makes no network request and needs no script" {
	run_pd pd-report -o "$D/out" <"$S"
	h=$D/out/report.html
	not grep -Eq '<(script|link|img|iframe)|src=|href=|url\(|@import' "$h"
	# the only URL is the SVG namespace
	[ "$(grep -o 'https\?://[^"]*' "$h" | sort -u)" = http://www.w3.org/2000/svg ]
	grep -qF "default-src 'none'" "$h"
	for id in chart-steps chart-step-series chart-candidates chart-hotspots chart-memory chart-comparison; do
		grep -qF "<svg id=\"$id\"" "$h"
	done
}

@test "pd-report: -R chooses the run; an unknown run is an error" {
	run_pd pd-report -R job-7 -o "$D/out" <"$S"
	[ "$(jq -r .run "$D/out/report.json")" = job-7 ]
	run_pd 3 pd-report -R nope -o "$D/out2" <"$S"
	[[ "$stderr" == *"pd-report: error: no run 'nope' in the stream"* ]]
	[ ! -e "$D/out2" ]
}

@test "pd-report: an output directory that cannot be made is exit 5" {
	run_pd 5 pd-report -o /dev/null/out <"$S"
	[ "$stderr" = "pd-report: error: /dev/null/out: Not a directory" ]
	[ -z "$(jqr pd.report .dir)" ]
}

@test "pd-report: records from a file operand" {
	run_pd pd-report -o "$D/out" "$S"
	[ "$(jq -r .dominant.rule "$D/out/report.json")" = matmul_hot ]
}

# Records written by other code: python's json.dumps puts a space after
# each colon and comma; jq -S sorts the keys ("type" is no longer first).
# Both are records, not a dump to run the pipeline on.
@test "pd-report: a records file with spaces or other key orders is records" {
	python3 -c 'import json, sys
for l in open(sys.argv[1]): print(json.dumps(json.loads(l)))' "$S" >"$D/spaced.jsonl"
	jq -cS . "$S" >"$D/sorted.jsonl"
	for f in spaced sorted; do
		run_pd pd-report -o "$D/out-$f" "$D/$f.jsonl"
		[ "$(jq -r .dominant.rule "$D/out-$f/report.json")" = matmul_hot ]
	done
	# a trace whose first line is JSON without a pd type is still a dump
	printf '{"schemaVersion": 1, "traceEvents": []}\n' >"$D/trace.json"
	run_pd pd-report -q -o "$D/out-trace" "$D/trace.json"
	[ "$(jqr pd.root .format)" = '"kineto"' ]
}

@test "pd-report: without a diagnosis, the report says what to run" {
	grep -v -e pd.bottleneck -e pd.profile -e pd.comparison "$S" >"$D/raw.jsonl"
	run_pd pd-report -o "$D/out" <"$D/raw.jsonl"
	j=$D/out/report.json
	jqf -r "$j" .dominant .symptom.summary .next_actions[0]
	[ "${J[0]}" = null ]
	[ "${J[1]}" = "no diagnosis in the stream (run pd-profile and pd-classify)" ]
	[ "$(jq -r .verdict "$D/out/meta/performance-verdict.json")" = not_diagnosed ]
	[ "${J[2]}" = "run pd-profile and pd-classify on the stream" ]
	agree "$D/out"
}

@test "make demo: the demo job's report, from the bundled profiles" {
	run_pd sh "$TOP/share/examples/demo.sh" "$D/demo"
	[[ "$output" == *"report     $D/demo/report/report.html"* ]]
	r=$D/demo/report
	agree "$r"
	# the demo is data-loading bound: 81.59 % of step time in
	# enumerate(DataLoader) (share/examples/demo/README), fixed after
	[ "$(jq -r .dominant.domain "$r/report.json")" = input_pipeline ]
	[ "$(jq -c .dominant.impact "$r/report.json")" = 0.8159 ]
	[ "$(jq -r .comparison.verdict "$r/report.json")" = improved ]
	# mean ProfilerStep#N: 32.402 ms before, 11.469 ms after (README),
	# to three significant digits
	[[ "$output" == *"step time 32.4 ms -> 11.5 ms"* ]]
	# a rerun gives the same files
	cp -R "$r" "$D/r0"
	run_pd sh "$TOP/share/examples/demo.sh" "$D/demo"
	diff -r "$D/r0" "$r"
}

# The whole pipeline on one corpus case dir; the report lands in $D/$2.
pipeline() {
	pd-locate "$1" | pd-sum-step | pd-sum-comm | pd-sum-mem | pd-sum-input \
	    | pd-sum-gaps | pd-hotspots | pd-profile | pd-classify \
	    | pd-report -o "$D/$2" >"$D/$2.jsonl"
}

@test "pd-report: every corpus case ends in a report whose three forms agree" {
	require_corpus
	local c n
	for c in "$CORPUS"/ascend/*/ "$CORPUS"/pytorch/*/; do
		n=$(basename "$c")
		pipeline "$c" "$n" 2>"$D/$n.err" || true
		echo "case $n" >&2
		[ -s "$D/$n/report.json" ]
		[ "$(jq -r 'select(.type == "pd.report") | .dir' "$D/$n.jsonl")" = "$D/$n" ]
		agree "$D/$n"
	done
	# an impact that is the rule's floor, not a measurement, says so
	# (mindspore: no input time recorded, impact_else 0.3; pd-classify.bats)
	grep -qx '\*\*Dominant bottleneck:\*\* Device data queue often empty: impact 30.0 % estimated, not measured (mindspore on npu)' \
	    "$D/mindspore_legacy_run2_dataset/report.md"
	grep -qF 'impact <b>30.0 %</b> estimated, not measured' "$D/mindspore_legacy_run2_dataset/report.html"
	[ "$(jq .dominant.impact_estimated "$D/mindspore_legacy_run2_dataset/report.json")" = true ]
	not grep -q 'estimated, not measured' "$D/pta_2rank_level1_text/report.md"
}

@test "pd-report: a corpus report is the same bytes when made again" {
	require_corpus
	pipeline "$CORPUS/ascend/pta_2rank_level1_text" a 2>/dev/null
	pipeline "$CORPUS/ascend/pta_2rank_level1_text" b 2>/dev/null
	diff -r "$D/a" "$D/b"
}

@test "pd-report: files are replaced by rename, never rewritten in place" {
	run_pd pd-report -o "$D/out" <"$S"
	# a second name for the old inodes: a write in place would change them
	for f in report.json report.md report.html artifacts/perf.lock.json; do
		ln "$D/out/$f" "$D/old.${f##*/}"
		cp "$D/out/$f" "$D/copy.${f##*/}"
	done
	grep -v pd.comparison "$S" >"$D/nocmp.jsonl"
	run_pd pd-report -o "$D/out" <"$D/nocmp.jsonl"
	for f in report.json report.md report.html perf.lock.json; do
		cmp "$D/old.$f" "$D/copy.$f"
	done
	# and the new report.json is the new content
	[ "$(jq -r .comparison "$D/out/report.json")" = null ]
}

@test "pd-report: a pd.verdict of pd-audit-limits is shown and kept" {
	printf '%s\n' '{"type":"pd.verdict","v":1,"root":null,"rank":null,"alarm":true,"verdict":"speedup_possible","reason":"no resource busy","samples":3}' >>"$S"
	run_pd pd-report -o "$D/out" <"$S"
	[ "$(jq -r .limits.verdict "$D/out/report.json")" = speedup_possible ]
	[ "$(jq -r .limits_verdict "$D/out/meta/performance-verdict.json")" = speedup_possible ]
	grep -qF 'Verdict: speedup_possible (no resource busy)' "$D/out/report.md"
	grep -qF 'Verdict: <b>speedup_possible</b>' "$D/out/report.html"
}

# The output set: written beside the output directory and renamed into its
# place as a whole; nothing below it is followed.

@test "pd-report: a symbolic link below the output directory is not followed" {
	run_pd pd-report -o "$D/out" <"$S"
	cp -R "$D/out" "$D/out0"
	grep -v pd.comparison "$S" >"$D/nocmp.jsonl"
	mkdir "$D/elsewhere"
	echo keep >"$D/elsewhere/validation-comparison.json"
	echo keep >"$D/victim"
	# a planted directory link (a rerun would write and delete through it)
	rm -rf "$D/out/meta"
	ln -s ../elsewhere "$D/out/meta"
	run_pd 5 pd-report -o "$D/out" <"$D/nocmp.jsonl"
	[ "$stderr" = "pd-report: error: $D/out: 'meta' is a symbolic link; pd-report does not follow links below its output directory" ]
	[ -z "$(jqr pd.report .dir)" ]
	[ "$(ls "$D/elsewhere")" = validation-comparison.json ]
	[ "$(cat "$D/elsewhere/validation-comparison.json")" = keep ]
	[ -L "$D/out/meta" ]
	cmp "$D/out0/report.json" "$D/out/report.json"
	# a file link inside meta/
	rm "$D/out/meta"
	cp -R "$D/out0/meta" "$D/out/meta"
	ln -sf ../../victim "$D/out/meta/bottlenecks.json"
	run_pd 5 pd-report -o "$D/out" <"$D/nocmp.jsonl"
	[ "$stderr" = "pd-report: error: $D/out/meta: 'bottlenecks.json' is a symbolic link; pd-report does not follow links below its output directory" ]
	[ "$(cat "$D/victim")" = keep ]
	# no temporary directory is left beside it
	[ -z "$(find "$D" -maxdepth 1 -name '.*' ! -name .)" ]
}

@test "pd-report: a directory holding other files is not replaced" {
	mkdir "$D/out"
	echo notes >"$D/out/notes.txt"
	run_pd 5 pd-report -o "$D/out" <"$S"
	[ "$stderr" = "pd-report: error: $D/out: 'notes.txt' is not a file pd-report writes; not replacing '$D/out' (choose a new or empty directory with -o)" ]
	[ "$(ls "$D/out")" = notes.txt ]
	# an empty directory is taken, its mode kept
	rm "$D/out/notes.txt"
	chmod 750 "$D/out"
	run_pd pd-report -o "$D/out" <"$S"
	[ -s "$D/out/report.json" ]
	[ "$(stat -c %a "$D/out")" = 750 ]
}

@test "pd-report: -o naming a link to a directory writes there and keeps the link" {
	mkdir "$D/real"
	ln -s real "$D/out"
	run_pd pd-report -o "$D/out" <"$S"
	[ -L "$D/out" ]
	[ -s "$D/real/report.json" ]
	[ "$(jqr pd.report .dir)" = "\"$D/real\"" ]
}

@test "pd-report: an export that is a FIFO or a device is not read (no hang)" {
	mkfifo "$D/fifo"
	grep pd.root "$S" | head -1 | jq -c --arg f "$D/fifo" \
	    '.exports += [{"kind":"trace","path":$f},{"kind":"trace","path":"/dev/zero"}]' >"$D/odd.jsonl"
	run_pd 3 timeout 20 pd-report -o "$D/out" <"$D/odd.jsonl"
	[[ "$stderr" == *"pd-report: warning: $D/fifo: cannot hash: not a regular file"* ]]
	[[ "$stderr" == *"pd-report: warning: /dev/zero: cannot hash: not a regular file"* ]]
	l=$D/out/artifacts/perf.lock.json
	[ "$(jq -c '[.inputs[] | select(.sha256 == null) | .path]' "$l")" = "[\"/dev/zero\",\"$D/fifo\"]" ]
	# the regular export is still hashed (sha256sum's answer)
	p=$(jq -r '.inputs[] | select(.kind == "step_trace_time") | .path' "$l")
	[ "$(jq -r '.inputs[] | select(.kind == "step_trace_time") | .sha256' "$l")" = "$(sha256sum "$p" | cut -d' ' -f1)" ]
}

@test "pd-report: on a full disk the previous set stays whole" {
	run_pd pd-report -o "$D/out" <"$S"
	cp -R "$D/out" "$D/out0"
	grep -v pd.comparison "$S" >"$D/nocmp.jsonl"
	# a 4 KiB file size limit: the small meta files fit, report.html
	# (12 KiB) does not, as on a disk that fills up half way
	run_pd 5 bash -c 'ulimit -f 4; exec pd-report -o "$1" <"$2"' _ "$D/out" "$D/nocmp.jsonl"
	[[ "$stderr" == "pd-report: error: $D/out/report.html: File too large" ]]
	[ -z "$(jqr pd.report .dir)" ]
	diff -r "$D/out0" "$D/out"
	[ -z "$(find "$D" -maxdepth 1 -name '.*' ! -name .)" ]
}

@test "pd-report: concurrent runs into one directory take turns" {
	grep -v pd.comparison "$S" >"$D/nocmp.jsonl"
	# the lock is on the parent directory: hold it, and pd-report waits
	exec 9<"$D"
	flock -x 9
	pd-report -o "$D/out" <"$S" >"$D/o1" 2>"$D/e1" 9<&- &
	pid=$!
	sleep 1
	kill -0 "$pid"
	[ ! -e "$D/out" ]
	flock -u 9
	exec 9<&-
	wait "$pid"
	[ -s "$D/out/report.json" ]
	[ "$(cat "$D/e1")" = "pd-report: waiting for another run writing next to '$D/out'" ]
	# runs with and without a comparison at once: every set is whole
	for i in 1 2 3 4 5 6; do
		if [ $((i % 2)) = 0 ]; then f=$S; else f=$D/nocmp.jsonl; fi
		pd-report -q -o "$D/out" <"$f" >/dev/null &
	done
	wait
	c=$(jq -r '.comparison == null' "$D/out/report.json")
	if [ "$c" = true ]; then
		[ ! -e "$D/out/meta/validation-comparison.json" ]
		[ "$(jq -r .comparison_verdict "$D/out/meta/performance-verdict.json")" = null ]
	else
		[ -s "$D/out/meta/validation-comparison.json" ]
		[ "$(jq -r .comparison_verdict "$D/out/meta/performance-verdict.json")" = improved ]
	fi
	[ -z "$(find "$D" -maxdepth 1 -name '.*' ! -name .)" ]
}

# An -o directory whose name is not UTF-8 (byte 0xFF) is named in
# pd.report as U+10FFFF (1114111, pd-record(5)) and written there.
@test "pd-report: an -o name with byte 0xFF is written there and named escaped" {
	local o=$D/$(printf 'o\377')
	run_pd 0 pd-report -o "$o" <"$S"
	[ -f "$o/report.json" ]
	[ "$(jqr pd.report '.dir|explode|.[-2:]')" = '[111,1114111]' ]
}

# Numbers near the top of the double range (every real of the stream times
# 1e306, capped at 1.7e308; large integers at INT64_MAX): sums and scales
# overflow to infinity. Before, report.html had width="inf" in an SVG
# attribute; no "inf" or "nan" may reach the pages.
@test "pd-report: huge numbers give no inf or nan in the pages" {
	python3 -c '
import sys, json
def big(x):
    if isinstance(x, dict): return {k: big(v) for k, v in x.items()}
    if isinstance(x, list): return [big(v) for v in x]
    if isinstance(x, float): return min(x * 1e306, 1.7e308) if x else x
    if isinstance(x, int) and not isinstance(x, bool) and x > 1000: return 9223372036854775807
    return x
for l in sys.stdin:
    r = big(json.loads(l))
    if r.get("type") != "pd.comparison": print(json.dumps(r))
' <"$S" >"$D/huge.jsonl"
	run_pd pd-report -o "$D/out" <"$D/huge.jsonl"
	[ -s "$D/out/report.html" ]
	run grep -ciwE 'inf|nan|infinity' "$D/out/report.html" "$D/out/report.md"
	[ "$output" = "$D/out/report.html:0
$D/out/report.md:0" ]
}

# samples FILE: pd-collect's records of one run, written here with known
# values. cpu: t_s 0..2400 every second (2401 samples), job_util_ratio 0.9
# when t_s ends in 3, else 0.1; mem: every 100 s (25 samples), used_ratio
# t_s/4800 (median 0.25 at 1200 s, max 0.5); gpu "0": every 10 s (241
# samples) at 0.6; gpu "1": every 10 s at 0.2 but 1.0 at 2400 s. Left out
# of the chart: an io sample, a process sample of the GPU, a cpu sample
# without t_s (pd-audit-limits -S).
samples() {
	python3 - "$1" <<'PY'
import json, sys
run = "collect-20260101T000000Z-42"
out = open(sys.argv[1], "w")
def rec(**k):
    r = {"type": k.pop("type", "pd.sample"), "v": 1, "root": None, "rank": None, "run": run}
    r.update(k)
    out.write(json.dumps(r, separators=(",", ":")) + "\n")
rec(type="pd.run", command=["python3", "train.py"], exit_status=0, wall_s=2400.5, interval_s=1.0, samples=2908)
for t in range(0, 2401):
    rec(t_s=float(t), interval_s=1.0, resource="cpu", device=None, source="/proc/stat",
        util_ratio=1.0, job_util_ratio=0.9 if t % 10 == 3 else 0.1)
    if t % 100 == 0:
        rec(t_s=float(t), interval_s=1.0, resource="mem", device=None, source="/proc/meminfo", used_ratio=t / 4800)
    if t % 10 == 0:
        rec(t_s=float(t), interval_s=1.0, resource="gpu", device="0", source="nvidia-smi", util_ratio=0.6)
        rec(t_s=float(t), interval_s=1.0, resource="gpu", device="1", source="nvidia-smi", util_ratio=1.0 if t == 2400 else 0.2)
rec(t_s=5.0, resource="io", device="job", source="/proc/PID/io", read_bytes_per_s=0.0)
rec(t_s=5.0, resource="gpu", device="0", source="nvidia-smi-apps", util_ratio=0.99)
rec(t_s=None, resource="cpu", device=None, source="capture", util_ratio=0.99)
PY
}

# Every bucket of 10 s (2400 s over 240 buckets; the last one holds 2400)
# keeps its highest sample: cpu 0.9 at 3, 13, ..., 2393; gpu "0" the first
# of its equal samples (0, 10, ..., 2390); gpu "1" 1.0 at 2400. Series of
# 240 points or fewer (mem) are kept whole.
@test "pd-report: pd-collect samples give a utilization series per resource, peaks kept" {
	samples "$D/u.jsonl"
	run_pd pd-report -o "$D/out" "$D/u.jsonl"
	j=$D/out/report.json
	jqf -r "$j" '[.utilization.series[]|.label]' \
	    '[.utilization.series[]|[.samples,.points,(.t_s|length),(.ratio|length)]]' \
	    '.utilization|[.run,.samples,.t0_s,.t1_s,.bucket_s,.points_max]' \
	    '.utilization.series[0]|[.metric,(.ratio|unique),.t_s[0],.t_s[1],.t_s[-1],.median_ratio,.max_ratio]' \
	    '.utilization.series[1]|[.metric,.t_s[12],.ratio[12],.median_ratio,.max_ratio]' \
	    '.utilization.series[2]|[.t_s[-1],(.ratio|unique)]' \
	    '.utilization.series[3]|[.t_s[-2],.t_s[-1],.ratio[-1],.max_ratio]' \
	    '.symptom.summary'
	[ "${J[0]}" = '["CPU (job)","memory (host)","GPU 0","GPU 1"]' ]
	[ "${J[1]}" = '[[2401,240,240,240],[25,25,25,25],[241,240,240,240],[241,240,240,240]]' ]
	[ "${J[2]}" = '["collect-20260101T000000Z-42",2908,0,2400,10,240]' ]
	# cpu: the job's share, the 0.9 of each bucket
	[ "${J[3]}" = '["job_util_ratio",[0.9],3,13,2393,0.1,0.9]' ]
	[ "${J[4]}" = '["used_ratio",1200,0.25,0.25,0.5]' ]
	[ "${J[5]}" = '[2390,[0.6]]' ]
	[ "${J[6]}" = '[2380,2400,1,1]' ]
	[ "${J[7]}" = "no profile in the stream, only the samples of pd-collect (run pd-locate, pd-profile and pd-classify on the job's profiler output)" ]
	[ "$stderr" = "pd-report: no profiler output in the stream; reporting the samples of pd-collect only" ]
	# report.html: one polyline per series, as many points as the series
	h=$D/out/report.html
	grep -q '<svg id="chart-utilization"' "$h"
	[ "$(grep '<polyline class="util"' "$h" | sed 's/.*points="\([^"]*\)".*/\1/' | awk '{ print NF }' | tr '\n' ' ')" = "240 25 240 240 " ]
	# the 100 % axis is y 20, 0 % is y 200: gpu "1" ends at the top right
	grep '<polyline class="util"' "$h" | sed -n 4p | grep -q ' 740.0,20.0"'
	grep -qF '>100 %</text>' "$h"
	grep -qF 'time since the command started' "$h"
	grep -qF '<span><i style="background:#1e8449"></i>GPU 0 (median 60.0 %)</span>' "$h"
	grep -qF 'the highest sample of each 10 s shown' "$h"
	# report.md: one line, each series' median and max
	grep -qxF '2908 samples over 2400 s (pd-collect): CPU (job) median 10.0 %, max 90.0 %; memory (host) median 25.0 %, max 50.0 %; GPU 0 median 60.0 %, max 60.0 %; GPU 1 median 20.0 %, max 100.0 %.' "$D/out/report.md"
	# the same stream twice: the same report
	run_pd pd-report -o "$D/out2" "$D/u.jsonl"
	cmp "$D/out/report.json" "$D/out2/report.json"
	cmp "$D/out/report.html" "$D/out2/report.html"
}

# The host's util_ratio stands in for the job's CPU share when the samples
# lack it; pd-audit-limits' summary line is shown by the chart; the
# samples of the one run go with the profiled run of the fixture stream.
@test "pd-report: utilization with the host's CPU, the limits summary, beside a profile" {
	samples "$D/u.jsonl"
	jq -c 'del(.job_util_ratio)' "$D/u.jsonl" >"$D/host.jsonl"
	printf '%s\n' '{"type":"pd.verdict","v":1,"root":null,"rank":null,"alarm":false,"verdict":"saturated","reason":"x","summary":"saturated: cpu (the job) <b>&"}' >>"$D/host.jsonl"
	run_pd pd-report -o "$D/out" "$D/host.jsonl"
	j=$D/out/report.json
	[ "$(jq -c '.utilization.series[0]|[.label,.metric,(.ratio|unique),.median_ratio]' "$j")" = '["CPU (host)","util_ratio",[1],1]' ]
	[ "$(jq -r '.utilization.limits_summary' "$j")" = 'saturated: cpu (the job) <b>&' ]
	grep -qF '<p id="utilization-limits">pd-audit-limits: <b>saturated: cpu (the job) &lt;b&gt;&amp;</b></p>' "$D/out/report.html"
	grep -qxF 'pd-audit-limits: saturated: cpu (the job) \<b\>&' "$D/out/report.md"
	# with the fixture's profiled run (one run): its report has the chart
	cat "$S" "$D/u.jsonl" >"$D/both.jsonl"
	run_pd pd-report -o "$D/both" "$D/both.jsonl"
	[ "$(jq -r '.run' "$D/both/report.json")" != collect-20260101T000000Z-42 ]
	[ "$(jq -c '[.utilization.series[]|.points]' "$D/both/report.json")" = '[240,25,240,240]' ]
	grep -q '<svg id="chart-utilization"' "$D/both/report.html"
	# without samples: utilization is null, no chart
	run_pd pd-report -o "$D/none" "$S"
	[ "$(jq -c '.utilization' "$D/none/report.json")" = null ]
	not grep -q 'chart-utilization' "$D/none/report.html"
	not grep -q 'Utilization over time' "$D/none/report.md"
}

# A real pd-collect run on stdin, no profiler output: a report all the
# same, with the chart of its samples.
@test "pd-report: a pd-collect run on stdin is reported with its chart" {
	pd-collect -n -i 0.1 -- sh -c 'i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done' >"$D/c.jsonl"
	run_pd pd-report -o "$D/out" <"$D/c.jsonl"
	j=$D/out/report.json
	jqf -r "$D/c.jsonl" 'select(.type=="pd.run")|.run' \
	    'select(.type=="pd.sample" and .resource=="cpu") | .job_util_ratio'
	# the cpu samples: how many, and the largest share (sort -g, as jq's max)
	id=${J[0]} n=$(grep -c . <<<"${J[1]}") || true
	max=$(sort -g <<<"${J[1]}" | tail -n 1)
	jqf -r "$j" .run '[.utilization.series[]|.label]' \
	    '.utilization.series[0].points' '.utilization.series[0].max_ratio' \
	    .next_actions
	[ "${J[0]}" = "$id" ]
	[ "$n" -ge 1 ] && [ -n "$max" ]
	[ "${J[1]}" = '["CPU (job)","memory (host)"]' ]
	[ "${J[2]}" = "$n" ]
	[ "${J[3]}" = "$max" ]
	grep -q '<svg id="chart-utilization"' "$D/out/report.html"
	grep -qF 'no profile in the stream' "$D/out/report.md"
	grep -q '^## Utilization over time' "$D/out/report.md"
	[ "${J[4]}" = '["profile the job and run pd-locate, pd-profile and pd-classify on its profiler output"]' ]
	# with -A: the one run in the index, its set with the chart; -R
	# names it, or another run, which is an error
	run_pd pd-report -A -o "$D/all" <"$D/c.jsonl"
	[ "$(jq -c '[.runs[]|[.run,.status]]' "$D/all/index.json")" = "[[\"$id\",\"reported\"]]" ]
	[ "$(jq '.utilization.series|length' "$D/all/$id/report.json")" = 2 ]
	run_pd pd-report -R "$id" -o "$D/r" <"$D/c.jsonl"
	[ "$(jq '.utilization.series|length' "$D/r/report.json")" = 2 ]
	run_pd 3 pd-report -R nope -o "$D/r2" <"$D/c.jsonl"
	[ "$stderr" = "pd-report: error: no run 'nope' in the stream" ]
	[ ! -e "$D/r2" ]
}

# gapstrip ROOT RANK DUR...: a pd.gaps record with a hand-written strip
# for each ROOT RANK DUR (one jq for all): a window of DUR us, launch
# calls at 10 and 500 us, stream 7 busy [0, 300).
gapstrip() {
	jq -nc '$ARGS.positional as $a | range(0; $a | length; 3) |
	    {type: "pd.gaps", v: 1, root: $a[.], rank: ($a[. + 1] | tonumber), strip: {window: "median step",
	    step: 2, steps: 3, step_num: 7, start_ns: 1000, dur_us: ($a[. + 2] | tonumber), lanes: [
	    {name: "host launch calls", kind: "launch", count: 2, busy_us: 0, spans: [[10, 0], [500, 0]]},
	    {name: "device 0 stream 7", kind: "device", count: 3, busy_us: 300, spans: [[0, 300]]}],
	    lanes_left_out: 0}}' --args "$@"
}

# Rank 0 holds the dominant bottleneck (matmul_hot): its strip is shown
# though rank 1's window is longer. 56 cells of 600/56 us: [0, 300) covers
# cells 0-27 exactly; the instants 10 and 500 fall in cells 0 and 46
# (500 / (600/56) = 46.7).
@test "pd-report: one step lane by lane, of the dominant bottleneck's rank" {
	{ cat "$S"; gapstrip "$FIX/pd-report/run/rank0" 0 600 \
	    "$FIX/pd-report/run/rank1" 1 700; } >"$D/in.jsonl"
	run_pd pd-report -o "$D/out" <"$D/in.jsonl"
	[ "$(jq -c '.strip | [.rank, (.root | endswith("/rank0")), .step_num, .dur_us, (.lanes | length)]' "$D/out/report.json")" = '[0,true,7,600,2]' ]
	grep -qxF 'Rank 0, step 7 (the median of 3 steps by duration), 600 µs; each cell is 10.7 µs: `#` busy most of it, `+` partly, `|` a launch call, `.` idle.' "$D/out/report.md"
	bar=$(printf '#%.0s' $(seq 28))$(printf '.%.0s' $(seq 28))
	grep -qxF "device 0 stream 7          $bar  50.0 %  3" "$D/out/report.md"
	bar="|$(printf '.%.0s' $(seq 45))|$(printf '.%.0s' $(seq 9))"
	grep -qF "host launch calls          $bar " "$D/out/report.md"
	grep -qF '<svg id="chart-strip"' "$D/out/report.html"
	[ "$(grep -c '<g class="lane">' "$D/out/report.html")" = 2 ]
	grep -qF '<title>device 0 stream 7: 300 µs busy, 3 spans</title>' "$D/out/report.html"
	grep -qF '>50.0 %</text></g>' "$D/out/report.html"
}

# stripped RANK: a run of 10 ranks whose rank RANK holds the dominant
# bottleneck; windows 600 + r us, but 900 for rank 8 and 800 for rank 9.
stripped() {
	local r
	for r in $(seq 0 9); do
		printf '{"type":"pd.root","v":1,"root":"/j/rank%d","rank":%d,"device":%d,"format":"kineto","run":"j","exports":[]}\n' "$r" "$r" "$r"
	done
	local a=()
	for r in $(seq 0 9); do
		a+=("/j/rank$r" "$r" "$(case $r in 8) echo 900 ;; 9) echo 800 ;; *) echo $((600 + r)) ;; esac)")
	done
	gapstrip "${a[@]}"
	printf '{"type":"pd.profile","v":1,"run":"j","roots":[%s],"ranks":10,"world_size":10}\n' \
	    "$(seq -f '"/j/rank%g"' 0 9 | paste -sd,)"
	printf '{"type":"pd.bottleneck","v":1,"root":"/j/rank%d","rank":%d,"run":"j","rule":"x","title":"X","domain":"host_overhead","position":1,"dominant":true,"severity":"high","impact":0.5,"confidence":0.8,"confidence_level":"high","evidence":"e","values":{},"source":"perfdiag"}\n' "$1" "$1"
}

# The reduce keeps the strips of ranks 0-7 and of the longest window of
# the others (rank 8, 900 us); rank 9's is dropped, so a dominant
# bottleneck there shows the lowest rank's strip instead.
@test "pd-report: strips are kept for ranks 0-7 and the longest other window" {
	local dr want
	for dr in 3 8 9; do
		stripped "$dr" >"$D/in.jsonl"
		run_pd pd-report -o "$D/out$dr" <"$D/in.jsonl"
		case $dr in 3) want='[3,603]' ;; 8) want='[8,900]' ;; 9) want='[0,600]' ;; esac
		[ "$(jq -c '.strip | [.rank, .dur_us]' "$D/out$dr/report.json")" = "$want" ]
	done
}

# The critical path of the dominant bottleneck's rank (rank 0), written
# into the fixture's pd.hotspot of rank 0: 800 us, 75 % host work, 25 %
# device compute; its two events as listed.
@test "pd-report: the critical path, by bound type and the events on it" {
	jq -c 'if .type == "pd.hotspot" and .rank == 0 then .critical_path = {window: "step", step: 3,
	    total_us: 800, shares: {cpu_bound: 0.75, data_loading: 0, gpu_compute_bound: 0.25,
	    gpu_communication_bound: 0, gpu_kernel_kernel_overhead: 0, gpu_kernel_launch_overhead: 0},
	    top: [{name: "aten::index", type: "cpu_op", bound: "cpu_bound", us: 600, ratio: 0.75},
	    {name: "MatMulV2", type: "kernel", bound: "gpu_compute_bound", us: 200, ratio: 0.25}]}
	    else . end' "$S" >"$D/in.jsonl"
	run_pd pd-report -o "$D/out" <"$D/in.jsonl"
	[ "$(jq -c '.critical_path | [.rank, (.root | endswith("/rank0")), .window, .step, .total_us, (.top | length)]' "$D/out/report.json")" = '[0,true,"step",3,800,2]' ]
	grep -qxF 'Rank 0, step 3: the chain of host work, launches, kernels and waits that bounds it is 800 µs long; it is 75.0 % host (CPU) work, 25.0 % device compute.' "$D/out/report.md"
	grep -qxF '| aten::index | cpu_op | host (CPU) work | 600 µs | 75.0 % |' "$D/out/report.md"
	grep -qxF '| MatMulV2 | kernel | device compute | 200 µs | 25.0 % |' "$D/out/report.md"
	grep -qF '<svg id="chart-path"' "$D/out/report.html"
	grep -qF '<title>host (CPU) work: 75.0 %</title>' "$D/out/report.html"
	grep -qF '<td><code>aten::index</code></td><td>cpu_op</td><td>host (CPU) work</td><td class="n">600 µs</td>' "$D/out/report.html"
	# without one, no section
	run_pd pd-report -o "$D/out2" <"$S"
	[ "$(jq -c .critical_path "$D/out2/report.json")" = null ]
	not grep -q 'Critical path' "$D/out2/report.md"
}

# The operators that bound the step, from pd-hotspots on the Kineto
# fixture kineto/cp-ops.json (its path of 125 us is worked out in
# test/pd-hotspots-critpath.bats: aten::inner 73 = 58.4 %, mostly its
# kernel k1; aten::after 10 = 8.0 %; aten::outer 2 = 1.6 %; 40 us, the
# kernel k2 launched outside any op, 32.0 %, in no operator). The hotspots
# are the kernels: k1 60 us of 100 (60.0 %), 60 on the path (48.0 %); k2
# 40 us (40.0 %), all of it on the path (32.0 %). Without a path (the
# hand-written stream) the table has no "on path" column.
@test "pd-report: the operators that bound the step and each hotspot's share of the path" {
	run_pd bash -c "pd-hotspots '$FIX/kineto/cp-ops.json' | pd-report -o '$D/out'"
	[ "$(jq -c '.hotspots.top | map([.name, .critical_us, .critical_ratio])' "$D/out/report.json")" = '[["k1",60,0.48],["k2",40,0.32]]' ]
	[ "$(jq -c '.critical_path.operators | map([.name, .ratio])' "$D/out/report.json")" = '[["aten::inner",0.584],["aten::after",0.08],["aten::outer",0.016]]' ]
	grep -qxF 'The whole trace: the operators that bound it, by their share of its 125 µs critical path: aten::inner 58.4 % (chiefly device compute), aten::after 8.0 % (chiefly host (CPU) work), aten::outer 1.6 % (chiefly host (CPU) work); 32.0 % in no operator.' "$D/out/report.md"
	grep -qxF '| operator | type | count | time | share | on path |' "$D/out/report.md"
	grep -qxF '| k1 | compute | 1 | 60 µs | 60.0 % | 48.0 % |' "$D/out/report.md"
	grep -qxF '| k2 | compute | 1 | 40 µs | 40.0 % | 32.0 % |' "$D/out/report.md"
	grep -qF '<p id="path-ops">The whole trace: the operators that bound it, by their share of its 125 µs critical path: <code>aten::inner</code> 58.4 % (chiefly device compute),' "$D/out/report.html"
	grep -qF '60 µs &#183; 60.0 % &#183; 48.0 % on path</text>' "$D/out/report.html"
	# no path: no sentence, no column
	run_pd pd-report -o "$D/out2" <"$S"
	grep -qxF '| operator | type | count | time | share |' "$D/out2/report.md"
	not grep -q 'operators that bound it' "$D/out2/report.md"
	not grep -q 'path-ops\|on path' "$D/out2/report.html"
	[ "$(jq -c '[.hotspots.top[] | .critical_ratio] | unique' "$D/out2/report.json")" = '[null]' ]
}

# A Kineto pd.mem (written for this test) keeps its timeline per device as
# [ts_ns, allocated, reserved]: device 1 peaks at 3 GiB (the record's
# peak), device 0 at 1 GiB. The report takes device 1's timeline and
# phases: 3 points over 3,000,000 - 1,000,000 ns = 2 ms; allocated 1 GiB
# at the start, 3 GiB at its highest 1 ms in, 2 GiB at the end; reserved
# up to 4 GiB (three significant digits, trailing zeros dropped). Peak
# ratio 4 GiB / 64 GiB = 6.25 % ("%.1f": 6.2).
@test "pd-report: the memory timeline of a Kineto trace, with its phases" {
	G=1073741824
	printf '{"type":"pd.mem","v":1,"root":"/x/rank0","rank":0,"source":"kineto_trace","devices":[{"device":0,"peak_allocated_bytes":%s,"peak_reserved_bytes":%s,"timeline":[[1000000,%s,%s]],"phases":[{"phase":"forward","peak_allocated_bytes":%s,"peak_reserved_bytes":%s,"allocs":1}]},{"device":1,"peak_allocated_bytes":%s,"peak_reserved_bytes":%s,"timeline":[[1000000,%s,%s],[2000000,%s,%s],[3000000,%s,%s]],"phases":[{"phase":"forward","peak_allocated_bytes":%s,"peak_reserved_bytes":%s,"allocs":10},{"phase":"backward","peak_allocated_bytes":%s,"peak_reserved_bytes":%s,"allocs":20}]}],"peak_allocated_bytes":%s,"peak_reserved_bytes":%s,"capacity_bytes":%s,"peak_ratio":0.0625,"timeline":null}\n' \
	    $G $G $G $G $G $G \
	    $((3 * G)) $((4 * G)) $G $((2 * G)) $((3 * G)) $((4 * G)) $((2 * G)) $((4 * G)) \
	    $((2 * G)) $((4 * G)) $((3 * G)) $((4 * G)) \
	    $((3 * G)) $((4 * G)) $((64 * G)) >"$D/mem.jsonl"
	run_pd pd-report -o "$D/out" "$D/mem.jsonl"
	[ "$(jq -c '.memory.timeline | [.rank, .device, [.points[].t_us], (.phases | map(.phase))]' "$D/out/report.json")" = \
	    '[0,1,[1000,2000,3000],["forward","backward"]]' ]
	[ "$(sed -n '/^## Memory/,/^## /p' "$D/out/report.md" | sed '$d')" = "## Memory

Peak allocated 3 GiB, peak reserved 4 GiB, capacity 64 GiB, peak ratio 6.2 %.

Over time (rank 0, device 1, 3 points over 2 ms): allocated 1 GiB at the start, 3 GiB at its highest (+1 ms), 2 GiB at the end; reserved up to 4 GiB.

| phase | peak allocated | peak reserved | allocations |
|---|---:|---:|---:|
| forward | 2 GiB | 4 GiB | 10 |
| backward | 3 GiB | 4 GiB | 20 |" ]
	grep -q 'id="chart-memory"' "$D/out/report.html"
	grep -qF 'Memory over time, rank 0, peak 4 GiB.' "$D/out/report.html"
}

# FLOPs and roofline (pd.hotspot flops) in report.md, where they explain the
# verdict: kineto/flops-basic.json (numbers worked out in
# test/pd-hotspots-flops.bats) has the fp32 matmul finding, so the section
# is there: 10593271808 FLOPs = 10.6 GFLOP in 7 operators, 30.009 TFLOP/s
# over busy time (MFU 0.4277), 10.593 over the step (MFU 0.151); the first
# row is the fp32 aten::mm (200 us, 10.737 TFLOP/s, MFU 0.5506, 170.67
# FLOP/byte). Renamed to a V100 (no TF32), the finding is gone, the
# dominant verdict is not a compute one: report.json keeps flops, the
# page has no section.
@test "pd-report: FLOPs and roofline where they explain the verdict" {
	mkdir -p "$D/fp"
	cp "$FIX/kineto/flops-basic.json" "$D/fp/"
	run_pd bash -c "pd-locate '$D/fp' | pd-sum-step -q | pd-sum-gaps -q | pd-hotspots -q \
	    | pd-profile | pd-classify | pd-report -o '$D/out'"
	[ "$(jq -c '.flops | [.ops, .flops, .peak_key, (.top | length)]' "$D/out/report.json")" = '[7,10593271808,"a100-sxm4-80gb",7]' ]
	grep -qxF '10.6 GFLOP in 7 matmul, convolution and attention operators with recorded shapes on NVIDIA A100-SXM4-80GB: 30 TFLOP/s over the device'"'"'s busy time (MFU 42.8 %), 10.6 TFLOP/s over the step time (MFU 15.1 %).' "$D/out/report.md"
	grep -qxF '| aten::mm | fp32 | 1024x1024, 1024x1024 | 1 | 200 µs | 10.7 | 55.1 % | 171 | compute |' "$D/out/report.md"
	sed 's/NVIDIA A100-SXM4-80GB/Tesla V100-SXM2-16GB/' "$FIX/kineto/flops-basic.json" >"$D/fp/flops-basic.json"
	run_pd bash -c "pd-locate '$D/fp' | pd-sum-step -q | pd-sum-gaps -q | pd-hotspots -q \
	    | pd-profile | pd-classify | pd-report -o '$D/out2'"
	[ "$(jq -c '[.flops.peak_key, .dominant.domain]' "$D/out2/report.json")" = '["v100-sxm2","host_overhead"]' ]
	not grep -q 'FLOPs and roofline' "$D/out2/report.md"
}
