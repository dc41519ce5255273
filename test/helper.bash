# Shared setup for every bats file: a hermetic run of the freshly built tools.
bats_require_minimum_version 1.5.0
export LC_ALL=C TZ=UTC
TOP=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
export PD_BIN=${PD_BIN:-$TOP/bin}
export PD_TESTBIN=${PD_TESTBIN:-$TOP/build/test}
export PATH="$PD_BIN:$PATH"
export PD_SHAREDIR="$TOP/share"
unset PD_QUIET
# Each test has its own trace cache (pd_tcache.h), next to its temporary
# directory: no test sees another's entries or the user's.
export PD_CACHE_DIR="${BATS_TEST_TMPDIR:-${BATS_RUN_TMPDIR:-/tmp}}.cache"
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

# Records are checked with jq: jqr TYPE FILTER prints FILTER applied to every
# record of TYPE in $output.
jqr() {
	printf '%s\n' "$output" | jq -c --arg t "$1" "select(.type == \$t) | $2"
}
