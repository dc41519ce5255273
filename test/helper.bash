# Shared setup for every bats file: a hermetic run of the freshly built tools.
bats_require_minimum_version 1.5.0
export LC_ALL=C TZ=UTC
TOP=${BATS_TEST_DIRNAME%/*}	# an absolute path: bats resolves it
export PD_BIN=${PD_BIN:-$TOP/bin}
export PD_TESTBIN=${PD_TESTBIN:-$TOP/build/test}
# A python3 that is a pyenv shim runs pyenv (about half a second of CPU)
# at every start: ahead of it on PATH, a python3 that asks the shim once,
# at the first start of a bats run, which interpreter it selects, puts a
# link to that interpreter in its own place and runs it; later starts run
# the interpreter directly. Any other python3 is kept.
# (found through the command hash, not $(type -P): a test file loads this
# at every test, and a subshell is a fork)
_pd_py=
! hash python3 2>/dev/null || _pd_py=${BASH_CMDS[python3]}
if [ "${_pd_py%/shims/python3}" != "$_pd_py" ] && [ -n "${BATS_RUN_TMPDIR:-}" ]; then
	_pd_d=$BATS_RUN_TMPDIR/python3
	if [ ! -e "$_pd_d/python3" ] && mkdir -p "$_pd_d"; then
		cat >"$_pd_d/python3.$$" <<-EOF
		#!/bin/sh
		e=\$('$_pd_py' -c 'import sys; print(sys.executable)' </dev/null) &&
		    [ -x "\$e" ] && ln -sfn "\$e" '$_pd_d/python3.'\$\$ &&
		    mv -f '$_pd_d/python3.'\$\$ '$_pd_d/python3' && exec "\$e" "\$@"
		exec '$_pd_py' "\$@"
		EOF
		chmod +x "$_pd_d/python3.$$" && mv -f "$_pd_d/python3.$$" "$_pd_d/python3"
	fi
	[ ! -x "$_pd_d/python3" ] || PATH="$_pd_d:$PATH"
fi
unset _pd_py _pd_d
# bats 1.8 (Debian 12) stamps each test's start with $(date +%s%N) in
# get_mills_since_epoch, after it has loaded the test file: two forks and
# an exec a test, about 10 ms here. Bash 5 has the clock in
# $EPOCHREALTIME; the same milliseconds without a process.
if declare -F get_mills_since_epoch >/dev/null && [ -n "${EPOCHREALTIME:-}" ]; then
	get_mills_since_epoch() {
		local t=${EPOCHREALTIME/[.,]/}
		printf '%d\n' "$((10#$t / 1000))"
	}
fi
export PATH="$PD_BIN:$PATH"
export PD_SHAREDIR="$TOP/share"
unset PD_QUIET
# Each test has its own trace cache (pd_tcache.h), next to its temporary
# directory, and never sees the user's; `make check` names one for the
# whole run instead (PD_TEST_CACHE_DIR, emptied first), so that the
# corpus and the fixtures are parsed once a run, not once a test. No
# result depends on it: a file written under 2 s ago is never cached, and
# test/cache.bats (which keeps a cache per test) shows that a replay gives
# the bytes of a parse, on every corpus trace and whole pipelines.
export PD_CACHE_DIR="${PD_TEST_CACHE_DIR:-${BATS_TEST_TMPDIR:-${BATS_RUN_TMPDIR:-/tmp}}.cache}"
unset PD_CACHE PD_CACHE_SIZE XDG_CACHE_HOME
FIX="$TOP/test/fixtures"
CORPUS=${PD_CORPUS:-$TOP/../shared/corpus}

# Tests on the real corpus: skip when it is absent, except in CI where its
# absence is a failure.
require_corpus() {
	if [ ! -d "$CORPUS" ]; then
		if [ "${CI:-}" = true ]; then
			echo "corpus not found at $CORPUS (required when CI=true)" >&2
			return 1
		fi
		skip "corpus not found at $CORPUS"
	fi
}

# require_torch: PY is a python3 that has torch (Debian's python3-torch,
# which .ci/run installs), found without importing it (an import costs
# seconds of CPU, the run that follows pays it once). Skipped when there is
# none, a failure when CI=true.
require_torch() {
	local p
	for p in python3 /usr/bin/python3; do
		if "$p" -c 'import importlib.util as u, sys; sys.exit(u.find_spec("torch") is None)' 2>/dev/null; then
			PY=$p
			return 0
		fi
	done
	if [ "${CI:-}" = true ]; then
		echo "python3-torch missing (required when CI=true)" >&2
		return 1
	fi
	skip "python3-torch is not installed"
}

# Headless Chromium for the report pages: chromium_bin prints its path
# (nothing where it is not installed); chrome ARGS... runs it ($B, from
# chromium_bin) with nothing from outside the page and its console on
# stderr. A start costs about 1.7 s of CPU: take the DOM (--dump-dom, on
# stdout) and the screenshot (--screenshot=PNG) from one start.
chromium_bin() {
	command -v chromium || command -v chromium-browser || true
}
chrome() {
	timeout 120 "$B" --headless --no-sandbox --disable-gpu --disable-quic \
	    --no-first-run --disable-background-networking \
	    --disable-component-update --disable-sync --hide-scrollbars \
	    --user-data-dir="$(mktemp -d "$BATS_TEST_TMPDIR/profile.XXXXXX")" \
	    --enable-logging=stderr --v=0 "$@"
}

# not CMD...: fails when CMD succeeds. A bare "! CMD" in a test never
# fails it (errexit ignores a status negated with !) unless it is the
# test's last command.
not() {
	if "$@"; then
		echo "not expected to succeed: $*" >&2
		return 1
	fi
}

# run_pd [rc] cmd...: run and, if the status differs from rc (default 0),
# print the command, its status and both streams, and fail.
run_pd() {
	local want=0
	case "$1" in [0-9]|[0-9][0-9]) want=$1; shift ;; esac
	run --separate-stderr "$@"
	if [ "$status" -ne "$want" ]; then
		echo "command: $*" >&2
		echo "status: $status (wanted $want)" >&2
		echo "stdout: $output" >&2
		echo "stderr: $stderr" >&2
		return 1
	fi
}

# nrec TYPE: NREC is the number of records of TYPE in $output, counted
# in the shell (a tool writes "type" as a record's first key) where a jq
# start per file of a corpus loop would cost more than the tool's run.
nrec() {
	local l
	NREC=0
	for l in "${lines[@]}"; do
		[[ $l != "{\"type\":\"$1\","* ]] || NREC=$((NREC + 1))
	done
}

# Records are checked with jq: jqr TYPE FILTER prints FILTER applied to every
# record of TYPE in $output.
jqr() {
	jq -c --arg t "$1" "select(.type == \$t) | $2" <<<"$output"
}

# Many values checked with one jq start (jq compiles its builtins at every
# start, the larger part of a short check's time). After
#   jqv TYPE FILTER...      (the records of TYPE in $output, as jqr; all
#                           the records if TYPE is "") or
#   jqf [-r] FILE FILTER... (the JSON values of FILE, as jq -c or jq -r)
# J[i] is what "$(jqr TYPE FILTER_i)" or "$(jq -c/-r FILTER_i FILE)" would
# give: every value of FILTER_i, one a line, without the last newline.
# Each value is then compared on its own line of the test. A filter that
# fails fails the test.
jqv() {
	local t=$1 pre='select(.type == $t) | '
	shift
	[ -n "$t" ] || pre=''
	_jqm tojson "$pre" "$t" "$@" <<<"$output"
}
jqf() {
	local out=tojson f
	if [ "$1" = -r ]; then
		out='if type == "string" then . else tojson end'
		shift
	fi
	f=$1
	shift
	_jqm "$out" '' '' "$@" <"$f"
}
_jqm() {
	local out=$1 pre=$2 t=$3 p='. as $v | ""' f
	shift 3
	for f; do
		p+=", ([\$v[] | $pre($f) | $out] | join(\"\\n\") + \"\\u001e\")"
	done
	J=()
	jq -j -s --arg t "$t" "$p" >"$BATS_TEST_TMPDIR/.jqm" || return 1
	mapfile -t -d $'\x1e' J <"$BATS_TEST_TMPDIR/.jqm"
}

# nowrite CMD...: CMD with no file writes allowed (ulimit -f 0; SIGXFSZ
# ignored, so a write fails with EFBIG): a tool that spills to a temporary
# file then meets a write error.
nowrite() {
	bash -c 'trap "" XFSZ; ulimit -f 0; exec "$@"' nowrite "$@"
}
