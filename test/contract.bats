#!/usr/bin/env bats
# The conventions every tool keeps, checked over all fifteen at once:
# --help and --version, strict numeric options, and a usage text that lists
# exactly the options its man page documents.
load helper
load contract

TOOLS="pd-audit-limits pd-classify pd-collect pd-compare pd-find-context
pd-hotspots pd-inject pd-locate pd-profile pd-report pd-sum-comm pd-sum-gaps
pd-sum-input pd-sum-mem pd-sum-step"

@test "contract: the tool list is every tool built" {
	[ "$(echo $TOOLS)" = "$(cd "$PD_BIN" && echo pd-*)" ]
}

@test "contract: --help equals -h, on stdout, exit 0, for every tool" {
	for t in $TOOLS; do contract_help_long "$t"; done
}

@test "contract: --version prints the name and the Makefile's VERSION" {
	for t in $TOOLS; do contract_version "$t"; done
}

@test "contract: --version to /dev/full is a write error (exit 5)" {
	contract_devfull pd-sum-step --version
}

@test "contract: an unknown long option is a usage error" {
	for t in $TOOLS; do
		run_pd 2 "$t" --no-such-option </dev/null
		[[ "$stderr" == "$t: error: bad option '--no-such-option'"* ]]
	done
}

@test "contract: -h lists exactly the options of the man page" {
	local t m o
	for t in $TOOLS; do
		m=$(grep -o '^\.It Fl [A-Za-z]\b' "$TOP/man/$t.1" | awk '{print $NF}' | sort -u)
		run_pd 0 "$t" -h
		o=$(printf '%s\n' "$output" | grep -o '^  -[A-Za-z]' | tr -d ' -' | sort -u)
		[ "$m" = "$o" ] || { echo "$t: man [$m] usage [$o]" >&2; false; }
	done
}

@test "contract: options a tool does not use are refused" {
	# -p (kernel patterns) and -S (share dir) only where a tool reads them
	for t in pd-sum-mem pd-sum-input; do
		run_pd 2 "$t" -p /dev/null </dev/null
		[[ "$stderr" == "$t: error: unknown option '-p'"* ]]
		run_pd 2 "$t" -S /tmp </dev/null
	done
	run_pd 2 pd-sum-gaps -S /tmp </dev/null
	run_pd 2 pd-sum-input -n 3 </dev/null
	run_pd 2 pd-sum-step -n 3 </dev/null
	[[ "$stderr" == "pd-sum-step: error: unknown option '-n'"* ]]
}

@test "contract: a missing option value names the option" {
	run_pd 2 pd-sum-mem -n
	[[ "$stderr" == "pd-sum-mem: error: option '-n' needs a value"* ]]
}

@test "contract: -d is a whole integer in range on every tool that takes it" {
	local t v
	for t in pd-locate pd-find-context pd-sum-step pd-sum-comm pd-sum-mem \
	    pd-sum-input pd-sum-gaps pd-hotspots; do
		for v in abc -1 99999999999999999999 '' 5x ' 5' 0x8 65 1e1; do
			contract_badnum "$t" -d "$v" .
		done
	done
}

@test "contract: -n is a whole integer in range on every tool that takes it" {
	local t v
	for t in pd-sum-comm pd-sum-mem pd-sum-gaps pd-hotspots pd-report; do
		for v in abc -1 0 99999999999999999999 2147483648 3.5 '+'; do
			contract_badnum "$t" -n "$v"
		done
	done
}

@test "contract: pd-inject's step counts are whole integers in range" {
	local o v
	for o in -a -w -W; do
		for v in abc -1 100001 99999999999999999999 2.0; do
			contract_badnum pd-inject "$o" "$v" train.py
		done
	done
}

@test "contract: real-valued options refuse words, signs, hex, inf and nan" {
	local v
	for v in abc -1 1e999 nan inf 0x10 '' 1.5s 601; do
		contract_badnum pd-audit-limits -t "$v" -n
	done
	for v in abc -1 1e999 nan 0x1 0.01 3601; do
		contract_badnum pd-collect -i "$v" -- true
	done
	for v in abc -0.5 2 nan 1e-999999; do
		contract_badnum pd-compare -t "$v" b a
	done
}

@test "contract: values in range are taken (the bounds, a sign, an exponent)" {
	run_pd 0 pd-sum-mem -n 1 -d 64 </dev/null
	run_pd 0 pd-sum-comm -n +2147483647 -d 1 </dev/null
	run_pd 0 pd-find-context -d 0 "$BATS_TEST_TMPDIR"
	run_pd 0 pd-compare -t 1e-2 </dev/null
	run_pd 0 pd-compare -t .5 </dev/null
}
