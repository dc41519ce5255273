#!/bin/sh
# times.sh FILE...: the summary of make check's cost from test/tap-log's
# NAME.time files (one line each: bats file, wall s, CPU s): the CPU of
# the whole run and the files that cost the most.
cat "$@" 2>/dev/null | sort -k3,3nr -k1,1 | awk '
	{ cpu += $3; n++; if (n <= 5) top = top sprintf("%s%s %.0f s", n > 1 ? ", " : "", $1, $3) }
	END {
		if (!n) exit
		printf "make check: %.0f s of CPU in %d files; the costliest: %s\n", cpu, n, top
	}'
