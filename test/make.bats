#!/usr/bin/env bats
# The Makefile on a bare machine: missing packages are installed (or named)
# and the same `make` goes on with the new pkg-config flags; `make check`
# says how many tests were skipped and why.
load helper

# A pkg-config that knows nothing until $FAKE/installed exists; then it
# answers with flags no real package has, so the compile lines show
# whether make read them after the install.
setup() {
	FAKE=$BATS_TEST_TMPDIR/fake
	mkdir -p "$FAKE"
	cat >"$FAKE/pkg-config" <<-'EOS'
	#!/bin/sh
	[ -e "$(dirname "$0")/installed" ] || exit 1
	case $1 in --cflags) echo -DPD_FAKE_CFLAGS ;; --libs) echo -lpdfake ;; esac
	EOS
	chmod +x "$FAKE/pkg-config"
	B=$BATS_TEST_TMPDIR/b
}

# make -n still remakes the included config.mk (make's rule for makefiles),
# so this runs the dependency step for real and only prints the build.
mk() {
	local rc=$1; shift
	run_pd "$rc" env -u MAKEFLAGS -u MAKELEVEL make -C "$TOP" -n PKG_CONFIG="$FAKE/pkg-config" \
	    OBJ="$B" BIN="$B/bin" "$@" "$B/bin/pd-locate"
}

@test "make: missing packages are installed and the same make goes on" {
	mk 0 APT_INSTALL="touch $FAKE/installed; :"
	[[ "$output" == *"perfdiag: installing missing build dependencies: jansson yaml-0.1 zlib"* ]]
	[[ "$output" == *"-DPD_FAKE_CFLAGS"*"-o $B/bin/pd-locate"*"-lpdfake"* ]]
	[[ "$output" != *"run make again"* ]]
	[ "$(cat "$B/config.mk")" = "PKG_CFLAGS = -DPD_FAKE_CFLAGS
PKG_LIBS = -lpdfake
SQLITE_LIBS = -lpdfake" ]
}

@test "make: without a way to install, the packages and the command are named" {
	mk 2 APT_INSTALL=
	[[ "$stderr" == *"perfdiag: missing build dependencies: jansson yaml-0.1 zlib"* ]]
	[[ "$stderr" == *"perfdiag: install them with: sudo apt-get install build-essential pkg-config libjansson-dev"* ]]
	[ ! -e "$B/config.mk" ]
}

@test "make: an install that leaves a package missing stops the build" {
	mk 2 APT_INSTALL=:
	[[ "$stderr" == *"perfdiag: still missing after the install: jansson yaml-0.1 zlib"* ]]
	[ ! -e "$B/config.mk" ]
}

@test "make: flags found once are kept; clean does not look for packages" {
	touch "$FAKE/installed"
	mk 0 APT_INSTALL=false
	[[ "$output" == *"-DPD_FAKE_CFLAGS"* ]]
	rm "$FAKE/installed"
	mk 0 APT_INSTALL=false
	[[ "$output" == *"-DPD_FAKE_CFLAGS"* ]]
	run_pd 0 env -u MAKEFLAGS -u MAKELEVEL make -C "$TOP" -n PKG_CONFIG=false OBJ="$B/none" clean
	[ ! -e "$B/none" ]
}

@test "make check: the skip summary counts the skipped tests by reason" {
	# a file of three tests that need the corpus (require_corpus, as the
	# suites' own) and one that does not: with no corpus, three skipped
	local n=3 f=$BATS_TEST_TMPDIR/need.bats i
	echo "load '$TOP/test/helper'" >"$f"
	for i in 1 2 3; do
		printf '@test "corpus %s" {\n\trequire_corpus\n\ttrue\n}\n' "$i" >>"$f"
	done
	printf '@test "no corpus needed" {\n\ttrue\n}\n' >>"$f"
	PD_CORPUS=$BATS_TEST_TMPDIR/none CI= bats --tap "$f" >"$BATS_TEST_TMPDIR/tap" || true
	grep -qx 'ok 4 no corpus needed' "$BATS_TEST_TMPDIR/tap"
	run_pd 0 sh "$TOP/test/skips.sh" "$BATS_TEST_TMPDIR/tap"
	[ "${lines[0]}" = "make check: $n tests skipped:" ]
	[ "${lines[1]}" = "  $n  corpus not found at $BATS_TEST_TMPDIR/none" ]
	[[ "${lines[2]}" == *"PD_CORPUS"* ]]
}

@test "make check: no skip, no list" {
	printf '1..2\nok 1 a\nok 2 b\n' >"$BATS_TEST_TMPDIR/tap"
	run_pd 0 sh "$TOP/test/skips.sh" "$BATS_TEST_TMPDIR/tap"
	[ "$output" = "make check: no test skipped" ]
}

# test/tap-log keeps each file's wall and CPU seconds beside its TAP, and
# test/times.sh sums them: a bats file that burns CPU in a busy loop
# (awk counting to 6e7: ~0.85 s of CPU on this machine, whatever the load)
# must show at least a third of it, and come first.
@test "make check: the cost summary sums each file's CPU and names the costliest" {
	local d=$BATS_TEST_TMPDIR
	mkdir "$d/tap"
	printf '%s\n' '@test "burn" {' 'awk "BEGIN { for (i = 0; i < 6e7; i++) n++ }"' '}' >"$d/burn.bats"
	printf '%s\n' '@test "idle" {' 'true' '}' >"$d/idle.bats"
	PD_TAPLOG=$d/tap bash "$TOP/test/tap-log" "$d/burn.bats" >/dev/null
	PD_TAPLOG=$d/tap bash "$TOP/test/tap-log" "$d/idle.bats" >/dev/null
	grep -qx 'ok 1 burn' "$d/tap/burn.bats.tap"
	# NAME WALL CPU: the busy loop's CPU counted
	awk '$1 == "burn.bats" && $3 >= 0.3 && $2 >= $3 / 2 { ok = 1 } END { exit !ok }' "$d/tap/burn.bats.time"
	run_pd 0 sh "$TOP/test/times.sh" "$d/tap/idle.bats.time" "$d/tap/burn.bats.time"
	[[ "$output" == "make check: "*" s of CPU in 2 files; the costliest: burn.bats "*" s, idle.bats "*" s" ]]
}

# make demo's summary is read off report.md's first lines: the dominant
# bottleneck, the fix, the before/after step time (the bundled example's
# traces: 32.402 ms with num_workers=0, 11.469 ms with 2, as in
# pd-report.bats, printed to three significant digits), and where the
# report is.
@test "make demo: the summary names the diagnosis, the fix and the measured change" {
	local o=$BATS_TEST_TMPDIR/demo
	run_pd 0 env PD_BIN="$PD_BIN" sh "$TOP/share/examples/demo.sh" "$o"
	[[ "$output" == *"  diagnosis  Highly input-bound (data loading stalls the steps): impact 81.6 % (torch on cpu)"* ]]
	[[ "$output" == *"  fix        Load data in worker processes: the DataLoader runs in the training process (num_workers=0)"* ]]
	[[ "$output" == *"  after fix  step time 32.4 ms -> 11.5 ms (-64.6 %, improved)"* ]]
	[[ "$output" == *"  report     $o/report/report.html"* ]]
	[[ "$output" != *domain* ]]
	[ -f "$o/report/report.html" ]
}

# libarchive and libsqlite3 are loaded when the first archive or database
# is read (lib/pd_archive.c, lib/pd_sqlite.c), not mapped at every start of
# every tool: no tool needs them at load time (ldd lists what the loader
# maps), and the tools still read both (pd-locate.bats, nsys.bats). jansson,
# libyaml and zlib are linked from their archives when the build found them
# (make check says so in PD_LINK_STATIC, from the link flags it used): then
# the loader maps none of the three either, only the C library and libm.
@test "make: no tool maps libarchive or libsqlite3 at start-up" {
	command -v ldd >/dev/null || skip "ldd is not installed"
	local t n=0
	for t in "$PD_BIN"/pd-*; do
		n=$((n + 1))
		run ldd "$t"
		[ "$status" -eq 0 ]
		[[ "$output" == *libc.so* ]]
		[[ "$output" != *libarchive* && "$output" != *libsqlite3* ]] || { echo "$t: $output" >&2; return 1; }
		if [ "${PD_LINK_STATIC:-}" = 1 ]; then
			[[ "$output" != *libjansson* && "$output" != *libyaml* && "$output" != *libz.so* ]] || { echo "$t: $output" >&2; return 1; }
		else
			[[ "$output" == *libjansson* ]]
		fi
	done
	[ "$n" -eq 15 ]
}
