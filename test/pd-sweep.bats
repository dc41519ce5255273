#!/usr/bin/env bats
# The sweep recipe of pd(7), run as it is written there (the lines between
# its "sweep begin" and "sweep end" marks), over a tree of two dumps made
# from fixtures: jobA a directory (the two Ascend ranks of
# fixtures/pd-report/run), jobB.tar.gz an archive of the Kineto trace
# fixtures/kineto/sum-kineto.json.
load helper

setup() {
	D=$BATS_TEST_TMPDIR
	T=$D/top
	mkdir -p "$T/jobA" "$D/b/jobB"
	cp -R "$FIX/pd-report/run/." "$T/jobA/"
	cp "$FIX/kineto/sum-kineto.json" "$D/b/jobB/w.pt.trace.json"
	tar -C "$D/b" -czf "$T/jobB.tar.gz" jobB
	# the recipe, \e as the page prints it: \
	sed -n '/^\.\\" sweep begin/,/^\.\\" sweep end/p' "$TOP/man/pd.7" \
	    | sed '/^\./d; s/\\e/\\/g' >"$D/sweep.sh"
	grep -q '^cat "\$recs"' "$D/sweep.sh"
}

# stamp FILE: its inode and modification time.
stamp() { stat -c '%i %Y.%y' "$1"; }

@test "sweep: the recipe of pd(7) reports every dump of the tree and skips what did not change" {
	run_pd sh "$D/sweep.sh" "$T" "$D/out"
	x=$D/out/index.json
	[ "$(jq -r '[.runs[] | .name + "=" + .status] | join(" ")' "$x")" = \
	    "jobA=reported jobB=reported" ]
	[ "$(jq -r '.runs[1].run' "$x")" = "$T/jobB.tar.gz//jobB#world_size=4" ]
	# the reports are those of the one command on the dumps
	run_pd pd-report -o "$D/one" "$T/jobA" "$T/jobB.tar.gz"
	diff -r "$D/one" "$D/out"
	ra=$(stamp "$D/out.records/jobA.jsonl") rb=$(stamp "$D/out.records/jobB.tar.gz.jsonl")
	oa=$(stamp "$D/out/jobA") ob=$(stamp "$D/out/jobB")
	# again: no map, no report rewritten
	run_pd sh "$D/sweep.sh" "$T" "$D/out"
	[[ "$stderr" == *"'jobA': skipped, unchanged"* ]]
	[[ "$stderr" == *"'jobB': skipped, unchanged"* ]]
	[ "$(stamp "$D/out.records/jobA.jsonl")" = "$ra" ]
	[ "$(stamp "$D/out.records/jobB.tar.gz.jsonl")" = "$rb" ]
	[ "$(stamp "$D/out/jobA")" = "$oa" ] && [ "$(stamp "$D/out/jobB")" = "$ob" ]
	[ "$(jq -r '[.runs[].status] | join(" ")' "$x")" = "unchanged unchanged" ]
	# jobA's rank 1 changes (a later modification time than its records):
	# only jobA is mapped and reported again
	sed -i '2s/,/,1/' "$T/jobA/rank1/step_trace_time.csv"
	touch -d "@$(( $(date +%s) + 5 ))" "$T/jobA/rank1/step_trace_time.csv"
	run_pd sh "$D/sweep.sh" "$T" "$D/out"
	[[ "$stderr" != *"'jobA': skipped"* ]]
	[[ "$stderr" == *"'jobB': skipped, unchanged"* ]]
	[ "$(stamp "$D/out.records/jobA.jsonl")" != "$ra" ]
	[ "$(stamp "$D/out.records/jobB.tar.gz.jsonl")" = "$rb" ]
	[ "$(jq -r '[.runs[].status] | join(" ")' "$x")" = "reported unchanged" ]
	[ "$(jq -r '.inputs[] | select(.path | endswith("rank1/step_trace_time.csv")) | .sha256' \
	    "$D/out/jobA/artifacts/perf.lock.json")" = \
	    "$(sha256sum "$T/jobA/rank1/step_trace_time.csv" | cut -d' ' -f1)" ]
}

@test "sweep: with GNU parallel for the map, the same reports" {
	command -v parallel >/dev/null || {
		[ "${CI:-}" != true ] || { echo "parallel missing (required when CI=true)" >&2; return 1; }
		skip "parallel missing"
	}
	sed 's/xargs -0 -r -P "$(nproc)" -n 1 sh -c/parallel --will-cite -0 -q -j "$(nproc)" sh -c/' \
	    "$D/sweep.sh" >"$D/sweep-parallel.sh"
	grep -q '^  parallel' "$D/sweep-parallel.sh"
	run_pd sh "$D/sweep-parallel.sh" "$T" "$D/out-p"
	run_pd sh "$D/sweep.sh" "$T" "$D/out-x"
	diff -r "$D/out-x" "$D/out-p"
	diff -r "$D/out-x.records" "$D/out-p.records"
}

@test "sweep: the corpus archive of two jobs, read in place" {
	require_corpus
	a=$CORPUS/archives/two-jobs-ascend-pta-and-kineto/two_jobs.tar.gz
	[ -f "$a" ] || skip "no $a"
	mkdir "$D/c"
	ln -s "$a" "$D/c/two_jobs.tar.gz"
	run_pd sh "$D/sweep.sh" "$D/c" "$D/out"
	# the manifest: an Ascend job of 2 ranks, a Kineto job of 1 (rank 0 of 2)
	[ "$(jq -r '[.runs[] | .name + "=" + .status + ":" + (.ranks | tostring)] | join(" ")' \
	    "$D/out/index.json")" = \
	    "ascend-pta-resnet-2rank=reported:2 pytorch-hta-nccl-rank0-of-2=reported:1" ]
	run_pd sh "$D/sweep.sh" "$D/c" "$D/out"
	[ "$(jq -r '[.runs[].status] | join(" ")' "$D/out/index.json")" = "unchanged unchanged" ]
}
