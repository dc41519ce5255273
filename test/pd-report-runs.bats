#!/usr/bin/env bats
# pd-report on dumps: one command diagnoses every run and writes one
# report per run plus an index. The jobs are copies of fixtures: jobA the
# two Ascend ranks of fixtures/pd-report/run, jobB the Kineto trace
# fixtures/kineto/sum-kineto.json. What the index says is checked against
# each run's report.json, and each run's report against the report of the
# same dump made by the pipeline spelled out (pd-locate | ... | pd-report).
load helper

setup() {
	D=$BATS_TEST_TMPDIR
	J=$D/jobs
	mkdir -p "$J/jobA" "$J/jobB"
	cp -R "$FIX/pd-report/run/." "$J/jobA/"
	cp "$FIX/kineto/sum-kineto.json" "$J/jobB/w.pt.trace.json"
}

# pipeline DUMP OUT: the report of DUMP made stage by stage.
pipeline() {
	pd-locate "$1" | pd-sum-step | pd-sum-comm | pd-sum-mem | pd-sum-input \
	  | pd-sum-gaps | pd-hotspots | pd-profile | pd-classify \
	  | pd-report -o "$2" >/dev/null
}

@test "pd-report DIR...: one report per run and an index that agrees with them" {
	run_pd pd-report -o "$D/out" "$J/jobA" "$J/jobB"
	[ "$(jq -r -s 'map(select(.type == "pd.report")) | length' <<<"$output")" = 2 ]
	x=$D/out/index.json
	[ "$(jq -r .schema "$x")" = perfdiag.index ]
	[ "$(jq -r '[.runs[].name] | join(" ")' "$x")" = "jobA jobB" ]
	for n in jobA jobB; do
		r=$D/out/$n/report.json
		e=$(jq -c --arg n "$n" '.runs[] | select(.name == $n)' "$x")
		[ "$(jq -r .status <<<"$e")" = reported ]
		[ "$(jq -r .run <<<"$e")" = "$(jq -r .run "$r")" ]
		[ "$(jq -c .dominant <<<"$e")" = "$(jq -c '.dominant | {rule, title, impact}' "$r")" ]
		[ "$(jq -r .step_mean_us <<<"$e")" = "$(jq -r .runtime.step.mean_us "$r")" ]
		[ "$(jq -r .ranks <<<"$e")" = "$(jq -r .workload.ranks "$r")" ]
		[ "$(jq -r .report <<<"$e")" = "$n/report.html" ]
		[ -f "$D/out/$n/report.md" ] && [ -f "$D/out/$n/report.html" ]
		# the index page links the report and names the bottleneck
		grep -qF "<a href=\"$n/report.html\">$n</a>" "$D/out/index.html"
		grep -qF "<code>$(jq -r .dominant.rule "$r")</code>" "$D/out/index.html"
	done
	# jobA: 2 ranks (rank0, rank1 of the fixture); jobB: 1 (one trace)
	[ "$(jq -r '.runs[0].ranks' "$x")" = 2 ]
	[ "$(jq -r '.runs[1].ranks' "$x")" = 1 ]
}

@test "pd-report DIR: the same bytes as the pipeline spelled out" {
	run_pd pd-report -o "$D/out" "$J/jobA" "$J/jobB"
	for n in jobA jobB; do
		pipeline "$J/$n" "$D/one-$n"
		for f in report.json report.md report.html artifacts/perf.lock.json \
		    meta/bottlenecks.json meta/performance-profile.json; do
			cmp "$D/one-$n/$f" "$D/out/$n/$f"
		done
	done
}

@test "pd-report ARCHIVE: runs named by the job's folder, told apart by where they are" {
	# the archive holds jobA and jobB again. Runs are taken in the order
	# of their ids ("$D/job x.tar.gz//jobA" sorts before "$J/jobA"). Two
	# runs named jobA: each is named with what holds it, the archive
	# (without .tar.gz) or the directory "jobs"
	tar -C "$J" -czf "$D/job x.tar.gz" jobA jobB
	run_pd pd-report -o "$D/out" "$J/jobA" "$J/jobB" "$D/job x.tar.gz"
	[ "$(jq -r '[.runs[].name] | join(" ")' "$D/out/index.json")" = \
	    "job_x_jobA job_x_jobB jobs_jobA jobs_jobB" ]
	[ "$(jq -r '.runs[0].run' "$D/out/index.json")" = "$D/job x.tar.gz//jobA" ]
	[ "$(jq -r '.runs[2].run' "$D/out/index.json")" = "$J/jobA" ]
	[ "$(jq -r .name "$D/out/job_x_jobA/report.json")" = "job x/jobA" ]
	[ "$(head -1 "$D/out/jobs_jobA/report.md")" = "# perfdiag report: jobs/jobA" ]
	# read in place: the same diagnosis as the directory, but for the
	# roots' paths and the name
	cmp <(jq 'del(.run, .evidence_sources, .name)' "$D/out/job_x_jobA/report.json" \
	    | sed "s|$D/job x.tar.gz//|$J/|") \
	    <(jq 'del(.run, .evidence_sources, .name)' "$D/out/jobs_jobA/report.json")
}

@test "pd-report ARCHIVE: two archives that differ only in their ending keep it" {
	# "job x.tar.gz" and "job x.zip" side by side hold the same jobs: the
	# archive's name without its ending tells no run apart, so it keeps
	# it (before, the second of each pair was only "-2")
	tar -C "$J" -czf "$D/job x.tar.gz" jobA
	(cd "$J" && zip -qr "$D/job x.zip" jobA)
	run_pd pd-report -o "$D/out" "$D/job x.tar.gz" "$D/job x.zip"
	[ "$(jq -r '[.runs[].name] | join(" ")' "$D/out/index.json")" = \
	    "job_x.tar.gz_jobA job_x.zip_jobA" ]
	[ "$(head -1 "$D/out/job_x.zip_jobA/report.md")" = "# perfdiag report: job x.zip/jobA" ]
}

@test "pd-report DIR: single-process traces of one directory are named by their files" {
	# two Kineto traces without distributedInfo side by side are two
	# single-process runs, both of job "jobC": each is named
	# jobC/<file without .pt.trace.json[.gz]>
	mkdir -p "$J/jobC"
	cp "$FIX/kineto/copy-bound.json" "$J/jobC/model_a.pt.trace.json"
	gzip -c "$FIX/kineto/copy-bound.json" >"$J/jobC/model_b.pt.trace.json.gz"
	run_pd pd-report -o "$D/out" "$J/jobC" "$J/jobB"
	[ "$(jq -r '[.runs[].name] | join(" ")' "$D/out/index.json")" = \
	    "jobB jobC_model_a jobC_model_b" ]
	[ "$(head -1 "$D/out/jobC_model_b/report.md")" = "# perfdiag report: jobC/model_b" ]
	# a name no other run has stays the job's
	[ "$(head -1 "$D/out/jobB/report.md")" = "# perfdiag report: jobB" ]
}

@test "pd-report: a run's name is safe as a directory name" {
	# a record stream with -A: the run ids are the stream's
	sed "s|@DIR@|$FIX/pd-report/run|g" "$FIX/pd-report/stream.jsonl.in" >"$D/s.jsonl"
	# a run named as the index's file, and one of nothing readable
	sed 's|"job-7"|"index.json"|g' "$D/s.jsonl" >"$D/s2.jsonl"
	sed 's|"job-7"|"/é/"|g' "$D/s.jsonl" >"$D/s3.jsonl"
	sed -i 's|"job-7"|"../<b>x</b> \& y#3"|g' "$D/s.jsonl"
	run_pd pd-report -A -o "$D/out" "$D/s.jsonl" "$D/s2.jsonl" "$D/s3.jsonl"
	# the last component ("b> & y", without "#3"), each byte that is not
	# a letter, digit, ".", "_", "+", "-" made "_" (runs of them one)
	[ "$(jq -r '[.runs[].name] | join(" ")' "$D/out/index.json")" = \
	    "b_y run index.json-2" ]
	[ -f "$D/out/b_y/report.json" ] && [ -f "$D/out/run/report.json" ]
	[ -f "$D/out/index.json-2/report.json" ]
	# the id is shown, escaped
	grep -qF '<code class="muted">../&lt;b&gt;x&lt;/b&gt; &amp; y#3</code>' \
	    "$D/out/index.html"
	not grep -qF '<b>x' "$D/out/index.html"
}

@test "pd-report: a stream of several runs without -A is one report, as before" {
	sed "s|@DIR@|$FIX/pd-report/run|g" "$FIX/pd-report/stream.jsonl.in" >"$D/s.jsonl"
	sed 's|"job-7"|"job-8"|g' "$D/s.jsonl" >>"$D/s2.jsonl"
	cat "$D/s.jsonl" >>"$D/s2.jsonl"
	run_pd pd-report -o "$D/out" "$D/s2.jsonl"
	[[ "$stderr" == *"2 runs in the stream; reporting 'job-7'"*"-A"* ]]
	[ -f "$D/out/report.json" ] && [ ! -e "$D/out/index.json" ]
	run_pd pd-report -A -o "$D/all" "$D/s2.jsonl"
	[ "$(jq -r '[.runs[].name] | join(" ")' "$D/all/index.json")" = "job-7 job-8" ]
	run_pd 2 pd-report -A -R job-7 -o "$D/x" "$D/s2.jsonl"
}

@test "pd-report DIR...: a run that fails does not stop the others; the index says so" {
	# the tools next to pd-report, pd-sum-comm failing on jobB's root
	mkdir "$D/bin"
	cp "$PD_BIN"/pd-* "$D/bin/"
	cat >"$D/bin/pd-sum-comm" <<-EOF
	#!/bin/sh
	in=\$(cat)
	printf '%s\n' "\$in" | "$PD_BIN/pd-sum-comm" "\$@"
	case "\$in" in *jobB*) exit 9 ;; esac
	EOF
	mkdir "$J/empty"
	head -c 300 /dev/zero >"$J/junk.tar.gz"
	run_pd 5 "$D/bin/pd-report" -o "$D/out" "$J/jobA" "$J/jobB" "$J/empty" \
	    "$J/junk.tar.gz"
	[[ "$stderr" == *"$J/jobB: the diagnosis pipeline failed: pd-sum-comm exited with status 9"* ]]
	x=$D/out/index.json
	[ "$(jq -r '[.runs[] | .name + "=" + .status] | join(" ")' "$x")" = \
	    "jobA=reported jobB=failed empty=failed junk=failed" ]
	[ "$(jq -r '.runs[1].reason' "$x")" = "the diagnosis pipeline failed (its messages are on stderr)" ]
	[ "$(jq -r '.runs[2].reason' "$x")" = "no profiler output found" ]
	[[ "$(jq -r '.runs[3].reason' "$x")" == "no profiler output found; some input was rejected"* ]]
	[ "$(jq -r '.runs[1].report' "$x")" = null ]
	[ -f "$D/out/jobA/report.json" ] && [ ! -e "$D/out/jobB" ]
	grep -qF '<td class="sev-high">failed: the diagnosis pipeline failed' "$D/out/index.html"
	grep -qF '4 runs, <span class="sev-high">3 failed</span>' "$D/out/index.html"
}

@test "pd-report DIR: a run reported and unchanged is skipped; a changed one is not" {
	run_pd pd-report -o "$D/out" "$J/jobA" "$J/jobB"
	a=$(stat -c %i "$D/out/jobA") b=$(stat -c %i "$D/out/jobB")
	run_pd pd-report -o "$D/out" "$J/jobA" "$J/jobB"
	[[ "$stderr" == *"'jobA': skipped, unchanged"* ]]
	[[ "$stderr" == *"'jobB': skipped, unchanged"* ]]
	[ "$(stat -c %i "$D/out/jobA")" = "$a" ] && [ "$(stat -c %i "$D/out/jobB")" = "$b" ]
	[ "$(jq -r '[.runs[].status] | join(" ")' "$D/out/index.json")" = "unchanged unchanged" ]
	# one byte of jobA's input changes (a step of rank 0 one us longer):
	# its inputs' hash in the lock changes, it is made again
	sed -i '2s/,/,1/' "$J/jobA/rank0/step_trace_time.csv"
	run_pd pd-report -o "$D/out" "$J/jobA" "$J/jobB"
	[[ "$stderr" != *"'jobA': skipped"* ]]
	[[ "$stderr" == *"'jobB': skipped, unchanged"* ]]
	[ "$(stat -c %i "$D/out/jobA")" != "$a" ]
	[ "$(jq -r '.inputs[] | select(.path | endswith("rank0/step_trace_time.csv")) | .sha256' \
	    "$D/out/jobA/artifacts/perf.lock.json")" = \
	    "$(sha256sum "$J/jobA/rank0/step_trace_time.csv" | cut -d' ' -f1)" ]
	[ "$(jq -r '[.runs[].status] | join(" ")' "$D/out/index.json")" = "reported unchanged" ]
}

@test "pd-report DIR: the index is replaced by rename; other files there are refused" {
	run_pd pd-report -o "$D/out" "$J/jobA"
	i=$(stat -c %i "$D/out/index.json")
	run_pd pd-report -t -o "$D/out" "$J/jobA"
	[ "$(stat -c %i "$D/out/index.json")" != "$i" ]
	[ "$(jq -r .generated_at "$D/out/index.json")" != null ]
	# no temporary file left
	[ -z "$(find "$D/out" -maxdepth 1 -name '.*' ! -name . )" ]
	# a directory that holds something else is not written into
	mkdir "$D/home" && echo keep >"$D/home/notes.txt"
	run_pd 5 pd-report -o "$D/home" "$J/jobA"
	[[ "$stderr" == *"'notes.txt' is not a file pd-report writes"* ]]
	[ "$(ls "$D/home")" = notes.txt ]
	# a run's directory holding something else fails that run only
	mkdir -p "$D/o2/jobA" && echo keep >"$D/o2/jobA/notes.txt"
	run_pd 5 pd-report -o "$D/o2" "$J/jobA" "$J/jobB"
	[ "$(jq -r '[.runs[].status] | join(" ")' "$D/o2/index.json")" = "failed reported" ]
	[ "$(cat "$D/o2/jobA/notes.txt")" = keep ]
}

# A sweep with a comparison: pd-compare's record names the demo's before
# and after runs, so their reports show it and a third run's does not
# (before, every run of the index got the first comparison of the
# stream).
@test "pd-report -A: a comparison goes to the runs it names, not to every run" {
	E=$TOP/share/examples/demo/prof
	{ pd-classify "$E/before"; pd-classify "$E/after"; pd-compare -b "$E/before" -a "$E/after"
	  pd-classify "$FIX/pd-classify/cpu-bound.json"; } >"$D/s.jsonl" 2>/dev/null
	run_pd pd-report -A -o "$D/out" <"$D/s.jsonl"
	[ "$(jq -r '[.runs[].name] | join(" ")' "$D/out/index.json")" = "after before pd-classify" ]
	[ "$(jq -r '.comparison.verdict' "$D/out/after/report.json")" = improved ]
	[ "$(jq -r '.comparison.verdict' "$D/out/before/report.json")" = improved ]
	[ -f "$D/out/after/meta/validation-comparison.json" ]
	[ "$(jq -r '.comparison' "$D/out/pd-classify/report.json")" = null ]
	[ ! -e "$D/out/pd-classify/meta/validation-comparison.json" ]
	not grep -q 'Before / after' "$D/out/pd-classify/report.md"
}
