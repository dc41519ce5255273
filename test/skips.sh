#!/bin/sh
# skips.sh [TAP...]: how many tests were skipped, and why, grouped by
# reason (the "ok N name # skip reason" lines of bats --tap; stdin without
# operands).
cat "$@" | sed -n 's/^ok [0-9][0-9]* .* # skip *//p' | sort | uniq -c |
sort -k1,1nr -k2 | awk '
	{ n += $1; c = $1; sub(/^ *[0-9]+ /, "")
	  r[++k] = c "  " ($0 == "" ? "(no reason given)" : $0) }
	/corpus not found/ { hint = 1 }
	END {
		if (!n) { print "make check: no test skipped"; exit }
		printf "make check: %d test%s skipped:\n", n, n == 1 ? "" : "s"
		for (i = 1; i <= k; i++) printf "  %s\n", r[i]
		if (hint) print "  (point PD_CORPUS at a corpus checkout to run the corpus tests)"
	}'
