#!/bin/sh
# make demo: the whole perfdiag pipeline on the bundled example job
# (share/examples/demo: a small PyTorch training run whose input pipeline
# is the bottleneck, profiled before and after the fix), then the report.
#
#   sh share/examples/demo.sh [OUTDIR]     (default ./demo-out)
#
# Tools are taken from $PD_BIN (default ./bin). A tool that is not built
# yet is skipped: its stage passes the records through unchanged. Every
# stage's output is kept in OUTDIR/stream/, its messages in OUTDIR/demo.log.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
demo=$top/share/examples/demo
out=${1:-demo-out}
bin=${PD_BIN:-$top/bin}
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
export PD_SHAREDIR=${PD_SHAREDIR:-$top/share}
log=$out/demo.log
skipped=

mkdir -p "$out/stream" || exit 5
: >"$log"

# stage NAME IN OUT TOOL ARGS...: run TOOL on IN (a file of records) into
# OUT; missing tool: copy IN. Exit 3 (some input rejected) is not fatal.
stage() {
	name=$1 in=$2 o=$3
	shift 3
	tool=$1
	shift
	if [ ! -x "$bin/$tool" ]; then
		skipped="$skipped $tool"
		cp "$in" "$o"
		return 0
	fi
	echo "== $name: $tool $*" >>"$log"
	"$bin/$tool" "$@" <"$in" >"$o" 2>>"$log"
	rc=$?
	if [ "$rc" -gt 3 ]; then
		echo "demo: $tool failed (exit $rc); see $log" >&2
		exit "$rc"
	fi
}

# diagnose SIDE: the profile of prof/SIDE -> OUT/stream/SIDE.jsonl
diagnose() {
	s=$out/stream/$1
	stage locate /dev/null "$s.2" pd-locate "$demo/prof/$1"
	stage step "$s.2" "$s.3" pd-sum-step
	stage comm "$s.3" "$s.4" pd-sum-comm
	stage mem "$s.4" "$s.5" pd-sum-mem
	stage input "$s.5" "$s.6" pd-sum-input
	stage gaps "$s.6" "$s.7" pd-sum-gaps
	stage hotspots "$s.7" "$s.8" pd-hotspots
	stage profile "$s.8" "$s.9" pd-profile
	stage classify "$s.9" "$s.jsonl" pd-classify
	rm -f "$s".[0-9]
}

diagnose before
diagnose after
s=$out/stream
# The workspace (scripts, launch script, logs) is read once, for the
# report; the two sides are compared on their profiles alone.
stage context /dev/null "$s/context.jsonl" pd-find-context "$demo"
stage compare /dev/null "$s/comparison.jsonl" pd-compare \
    -b "$s/before.jsonl" -a "$s/after.jsonl"
grep '"type":"pd.comparison"' "$s/comparison.jsonl" >"$s/comparison.only" ||
    :
cat "$s/context.jsonl" "$s/before.jsonl" "$s/comparison.only" \
    >"$s/report-in.jsonl"
rm -f "$s/comparison.only"
stage report "$s/report-in.jsonl" "$s/report.jsonl" pd-report -o "$out/report"

echo "perfdiag demo: a small PyTorch training job (share/examples/demo),"
echo "profiled before and after a one-line change (DataLoader num_workers 0 -> 2)"
md=$out/report/report.md
if [ -f "$md" ]; then
	# the lines of report.md, without Markdown escapes
	line() { sed -n "s/^$1//p" "$md" | head -n 1 | tr -d '`\\'; }
	d=$(line '\*\*Dominant bottleneck:\*\* ')
	if [ -n "$d" ]; then
		echo "  diagnosis  $d"
	else
		echo "  diagnosis  $(line '\*\*No dominant bottleneck:\*\* ')"
	fi
	f=$(line '\*\*Fix:\*\* ')
	[ -n "$f" ] && echo "  fix        $f"
	c=$(line '| step time | ' | sed 's/^\(.*\) | \(.*\) | \(.*\) | \(.*\) | \(.*\) |$/\1 -> \2 (\3, \5)/')
	[ -n "$c" ] && echo "  after fix  step time $c"
	echo "  report     $out/report/report.html  (open it in a browser)"
	echo "             $out/report/report.md, report.json, meta/, artifacts/"
else
	echo "demo: no report was written; see $log" >&2
	exit 1
fi
[ -n "$skipped" ] && echo "  (not built yet, passed through:$skipped)"
exit 0
