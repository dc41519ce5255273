#!/usr/bin/env bats
load helper
load contract

@test "pd-locate: -h prints usage to stdout" { contract_h pd-locate; }
@test "pd-locate: bad option is exit 2" { contract_badopt pd-locate; }
@test "pd-locate: missing path is one error line, exit 5" { contract_missing pd-locate; }
@test "pd-locate: no operand is a usage error" {
	run_pd 2 pd-locate
}
@test "pd-locate: writing to /dev/full is exit 5" {
	contract_devfull pd-locate "$FIX/pd-locate/tiny.pt.trace.json"
}
