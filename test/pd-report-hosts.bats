#!/usr/bin/env bats
# The map step over hosts: GNU parallel --sshlogin runs the per-root tools
# through a real OpenSSH server (sshd on 127.0.0.1, a free high port, as
# the current user, with its own host and user keys in a temporary
# directory), the records come back, and the reduce and the reports are
# made here. They must be the same bytes as the map run locally. Skips
# when sshd or parallel is missing, except under CI=true.
load helper

SSHD=${SSHD:-/usr/sbin/sshd}

need_tools() {
	local m=
	[ -x "$SSHD" ] || m="$m sshd"
	command -v ssh >/dev/null || m="$m ssh"
	command -v ssh-keygen >/dev/null || m="$m ssh-keygen"
	command -v parallel >/dev/null || m="$m parallel"
	[ -z "$m" ] && return 0
	if [ "${CI:-}" = true ]; then
		echo "missing:$m (required when CI=true)" >&2
		return 1
	fi
	skip "missing:$m"
}

# A port nobody listens on (the kernel's choice, then released).
free_port() {
	perl -MIO::Socket::INET -e 'print IO::Socket::INET->new(Listen => 1,
	    LocalAddr => "127.0.0.1", LocalPort => 0, ReuseAddr => 1)->sockport'
}

setup() {
	need_tools
	D=$BATS_TEST_TMPDIR
	S=$D/ssh
	J=$D/jobs
	mkdir -p "$S" "$J/jobA" "$J/jobB"
	chmod 700 "$S"
	cp -R "$FIX/pd-report/run/." "$J/jobA/"
	cp "$FIX/kineto/sum-kineto.json" "$J/jobB/w.pt.trace.json"
	ssh-keygen -q -t ed25519 -N '' -C pd-host -f "$S/host"
	ssh-keygen -q -t ed25519 -N '' -C pd-user -f "$S/id"
	cp "$S/id.pub" "$S/authorized_keys"
	PORT=$(free_port)
	cat >"$S/sshd_config" <<-EOF
	ListenAddress 127.0.0.1
	Port $PORT
	HostKey $S/host
	PidFile $S/sshd.pid
	AuthorizedKeysFile $S/authorized_keys
	StrictModes no
	PubkeyAuthentication yes
	PasswordAuthentication no
	KbdInteractiveAuthentication no
	UsePAM no
	PermitRootLogin prohibit-password
	LogLevel VERBOSE
	EOF
	echo "[127.0.0.1]:$PORT $(cut -d' ' -f1,2 "$S/host.pub")" >"$S/known_hosts"
	cat >"$S/ssh_config" <<-EOF
	Host pdhost
	  HostName 127.0.0.1
	  Port $PORT
	  User $(id -un)
	  IdentityFile $S/id
	  IdentitiesOnly yes
	  UserKnownHostsFile $S/known_hosts
	  StrictHostKeyChecking yes
	  BatchMode yes
	  LogLevel ERROR
	EOF
	# sshd run as root needs its privilege separation directory
	if [ "$(id -u)" = 0 ] && [ ! -d /run/sshd ]; then
		mkdir -p -m 755 /run/sshd
	fi
	"$SSHD" -f "$S/sshd_config" -E "$S/sshd.log"
	local i
	for i in $(seq 50); do
		ssh -F "$S/ssh_config" pdhost true 2>/dev/null && return 0
		sleep 0.1
	done
	echo "sshd did not answer on port $PORT:" >&2
	cat "$S/sshd.log" >&2
	return 1
}

teardown() {
	if [ -f "${S:-}/sshd.pid" ]; then
		kill "$(cat "$S/sshd.pid")" 2>/dev/null || true
	fi
}

# map [parallel options]: the per-root tools, one root a job, records in
# the order of the roots.
map() {
	parallel --will-cite -k --pipe -N1 "$@" \
	    --env PD_SHAREDIR --env LC_ALL --env TZ \
	    "$PD_BIN/pd-sum-step | $PD_BIN/pd-sum-comm | $PD_BIN/pd-sum-mem | $PD_BIN/pd-sum-input | $PD_BIN/pd-sum-gaps | $PD_BIN/pd-hotspots" \
	    <"$D/roots.jsonl"
}

@test "sweep over hosts: the map through parallel --sshlogin gives the local bytes" {
	pd-locate "$J/jobA" "$J/jobB" >"$D/roots.jsonl"
	# three roots: jobA's rank0 and rank1, jobB's trace
	[ "$(grep -c '"type":"pd.root"' "$D/roots.jsonl")" = 3 ]
	map >"$D/local.jsonl"
	map --sshlogin pdhost --ssh "ssh -F $S/ssh_config" >"$D/remote.jsonl"
	# the jobs did go through sshd (one session per root, at least)
	[ "$(grep -c 'Accepted publickey' "$S/sshd.log")" -ge 3 ]
	[ -s "$D/local.jsonl" ]
	cmp "$D/local.jsonl" "$D/remote.jsonl"
	# the reduce here, on the records gathered back
	for w in local remote; do
		pd-profile <"$D/$w.jsonl" | pd-classify | pd-report -A -o "$D/out-$w" >/dev/null
	done
	[ "$(jq -r '[.runs[] | .name + "=" + .status] | join(" ")' "$D/out-remote/index.json")" = \
	    "jobA=reported jobB=reported" ]
	diff -r "$D/out-local" "$D/out-remote"
	# and the same reports as the one command on the dumps
	run_pd pd-report -o "$D/out-one" "$J/jobA" "$J/jobB"
	diff -r "$D/out-one" "$D/out-remote"
}
