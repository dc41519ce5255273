# The contract every pd tool keeps (STYLE.md): -h, a bad option, empty
# input, a malformed line in the middle of a stream forwarded byte for byte,
# a missing file, and writing to /dev/full. A tool's bats file calls
# contract_tests TOOL after loading helper.
contract_h() {
	run_pd 0 "$1" -h
	[[ "$output" == usage:* ]]
	[ -z "$stderr" ]
}

contract_badopt() {
	run_pd 2 "$1" -Z
	[ -z "$output" ]
	[[ "$stderr" == *usage:* ]]
}

# stdin with an unknown record, a broken line, and a line without newline:
# all forwarded unchanged, a warning with the line number, exit 3.
contract_passthrough() {
	local tool=$1 in out
	in=$(mktemp)
	printf '%s\n' '{"type":"x.other","v":9,"k":[1,2.50,"é"]}' 'not json {' \
	    '  {"type":"x.more" ,"v":1}' >"$in"
	printf '%s' '{"type":"x.last","v":1}' >>"$in"
	run_pd 3 "$tool" <"$in"
	[[ "$stderr" == *"$tool: warning: <stdin>:2: not a JSON object"* ]]
	out=$(mktemp)
	"$tool" <"$in" 2>/dev/null | head -n 4 >"$out" || true
	diff <(cat "$in"; echo) "$out"
	rm -f "$in" "$out"
}

contract_empty() {
	run_pd 0 "$1" </dev/null
	[ -z "$output" ]
}

contract_missing() {
	run_pd 5 "$1" /nonexistent/dir
	[[ "$stderr" == "$1: error: /nonexistent/dir: No such file or directory" ]]
}

contract_devfull() {
	local tool=$1; shift
	run --separate-stderr sh -c '"$@" >/dev/full' sh "$tool" "$@"
	[ "$status" -eq 5 ]
	[[ "$stderr" == *"$tool: error: write error on standard output"* ]]
}

# --help is -h; --version prints "TOOL VERSION" (the Makefile's VERSION).
contract_help_long() {
	local short
	run_pd 0 "$1" -h
	short=$output
	run_pd 0 "$1" --help
	[ "$output" = "$short" ]
	[ -z "$stderr" ]
}

contract_version() {
	local v
	v=$(sed -n 's/^VERSION = //p' "$TOP/Makefile")
	[ -n "$v" ]
	run_pd 0 "$1" --version
	[ "$output" = "$1 $v" ]
	[ -z "$stderr" ]
}

# contract_badnum TOOL OPT VALUE [ARG...]: a value that is not a number in
# the option's range is a usage error naming the option and the value.
contract_badnum() {
	local tool=$1 opt=$2 val=$3; shift 3
	run_pd 2 "$tool" "$opt" "$val" "$@" </dev/null
	[ -z "$output" ]
	[[ "${stderr%%$'\n'*}" == "$tool: error: $opt: "*" must be "*", not '$val'" ]]
	[[ "$stderr" == *usage:* ]]
}
