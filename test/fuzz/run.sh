#!/bin/sh
# Run one libFuzzer target for make fuzz:
#   run.sh NAME SECONDS [CORPUS]
# Seeds build/fuzz/corpus-NAME/ from the fixtures of its kind (and from
# CORPUS, the shared profiler corpus, when that directory exists; files of
# 1 MiB and more are left out), runs build/fuzz/fuzz-NAME for SECONDS and
# says how many inputs it ran. On a finding it prints the crash file's path
# and the end of the log, and fails.
set -u
t=$1 secs=$2 corpus=${3:-}
dir=build/fuzz/corpus-$t log=build/fuzz/fuzz-$t.log

# Which files seed which target: find(1) name tests, and extra places.
extra=
case $t in
trace|jscan|tcache)	names="-name *.json" ;;
kineto|flops)	names="-name *.json -o -name *.json.gz" ;;
csv)		names="-name *.csv" ;;
smi)		names="-name *smi* -o -name lscpu* -o -path *pd-audit-limits/n*"
		extra=test/fixtures/pd-collect/fakebin ;;
rules)		names="-name *.yaml -o -name *.yml"; extra=share/rules ;;
pyscan|inject)	names="-name *.py"; extra=share/inject ;;
recfile)	names="-name *.jsonl -o -name *.jsonl.in" ;;
num|path)	names="-path test/fixtures/fuzz/$t/*" ;;
*)		echo "fuzz: no seeds known for '$t'" >&2; exit 1 ;;
esac

mkdir -p "$dir"
seed() {
	# shellcheck disable=SC2086
	find "$@" -type f -size -1048576c \( $names \) 2>/dev/null |
	while IFS= read -r f; do
		cp "$f" "$dir/seed-$(printf %s "$f" | cksum | cut -d' ' -f1)"
	done
}
set -f
seed test/fixtures $extra
case $t in num|path) ;; *) [ -n "$corpus" ] && [ -d "$corpus" ] && seed "$corpus" ;; esac
set +f
echo "fuzz-$t: $(ls "$dir" | wc -l) inputs in $dir, $secs s"

build/fuzz/fuzz-$t -max_total_time="$secs" -timeout=20 -print_final_stats=1 \
    -artifact_prefix="build/fuzz/$t-" "$dir" >"$log" 2>&1
rc=$?
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
if [ $rc -ne 0 ]; then
	echo "fuzz-$t: FINDING (exit $rc) after ${runs:-?} runs; log $log" >&2
	grep -E 'ERROR: |runtime error|SUMMARY|==ERROR|Test unit written' "$log" | head -n 20 >&2
	sed -n 's/.*Test unit written to \(.*\)/fuzz-'"$t"': crash file \1/p' "$log" >&2
	exit 1
fi
echo "fuzz-$t: ${runs:-?} runs in $secs s, no finding"
