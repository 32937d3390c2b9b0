#!/bin/bash
# Security behaviour of pqtpm-server (issue 6, docs/security.md):
#   1. it listens on loopback unless told otherwise, and warns when told otherwise;
#   2. platform signals (power, reset, NV, physical presence, cancel) are served only on the
#      platform port: sent on the command port they are refused and the TPM keeps working;
#   3. the state directory it creates is 0700 and its files 0600, whatever the umask.
# Not tested here (see docs/security.md): constant-time comparison of MACs and auth values,
# and the wiping of secrets, which a black-box test cannot observe.
set -eu
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

if [ "$TPM_IMPL" != pqtpm ]; then
	ok "skipped for $TPM_IMPL (tests pqtpm-server's own behaviour)"
	finish
fi

# ---- helpers ----

RAW_PID=
RAW_LOG=
RAW_PORT=

# raw_start DIR ARGS...: a server of our own (not lib.sh's, which always binds 127.0.0.1) on
# free ports, with the state in DIR. Sets RAW_PID, RAW_LOG, RAW_PORT. Returns 1 if it does
# not come up.
raw_start() {
	local dir=$1 i
	shift
	pick_ports || return 1
	RAW_PORT=$PORT
	SERVER_N=$((SERVER_N + 1))
	RAW_LOG=$T/raw.$SERVER_N.log
	env ASAN_OPTIONS="$ASAN_OPTIONS_SERVER" UBSAN_OPTIONS="$UBSAN_OPTIONS_SERVER" \
		"$SERVER_BIN" --state-dir "$dir" --port "$RAW_PORT" \
		--platform-port $((RAW_PORT + 1)) "$@" >"$RAW_LOG" 2>&1 &
	RAW_PID=$!
	for i in $(seq 1 100); do
		grep -q listening "$RAW_LOG" 2>/dev/null && return 0
		kill -0 "$RAW_PID" 2>/dev/null || break
		sleep 0.05
	done
	show_tail "$RAW_LOG"
	return 1
}

raw_stop() {
	local st=0
	[ -n "$RAW_PID" ] || return 0
	kill -TERM "$RAW_PID" 2>/dev/null || true
	wait "$RAW_PID" 2>/dev/null || st=$?
	RAW_PID=
	[ "$st" -eq 0 ] || bad "server exit status $st"
	check_sanitizer_log "$RAW_LOG" || true
}

# shellcheck disable=SC2317 # called from the EXIT trap
_sec_cleanup() {
	[ -z "$RAW_PID" ] || kill -KILL "$RAW_PID" 2>/dev/null || true
}
trap '_st=$?; _sec_cleanup; (exit $_st); _lib_cleanup' EXIT

# The local addresses (hex, as in /proc/net/tcp{,6}) listening on a port, one per line.
listen_addrs() {
	local hexport
	hexport=$(printf '%04X' "$1")
	awk -v p="$hexport" '$4 == "0A" { split($2, a, ":"); if (a[2] == p) print a[1] }' \
		/proc/net/tcp /proc/net/tcp6 2>/dev/null | sort -u
}

# mssim PORT HEX NREAD: sends the bytes, prints (hex) the first NREAD bytes of the answer, or
# what came before the peer closed or 5 s passed.
mssim() {
	perl -MIO::Socket::INET -e '
		my ($port, $hex, $n) = @ARGV;
		my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1", PeerPort => $port,
			Proto => "tcp", Timeout => 5) or exit 2;
		$s->syswrite(pack("H*", $hex));
		my ($got, $buf) = ("", "");
		local $SIG{ALRM} = sub { print unpack("H*", $got), "\n"; exit 0 };
		alarm 5;
		while (length($got) < $n) {
			my $r = $s->sysread($buf, $n - length($got));
			last unless $r;
			$got .= $buf;
		}
		print unpack("H*", $got), "\n";
	' "$@"
}

u32() { printf '%08x' "$1"; }
getrandom=80010000000c0000017b0008
send_cmd() { echo "$(u32 8)00$(u32 $((${#1} / 2)))$1"; }

# ---- 1. loopback by default, a warning otherwise ----

if raw_start "$T/s-default"; then
	addrs=$(listen_addrs "$RAW_PORT")
	# 0100007F is 127.0.0.1 in /proc/net/tcp's byte order
	check_eq "default bind: command port on 127.0.0.1 only" "0100007F" "$addrs"
	check_eq "default bind: platform port on 127.0.0.1 only" "0100007F" \
		"$(listen_addrs $((RAW_PORT + 1)))"
	if grep -q 'not a loopback address' "$RAW_LOG"; then
		bad "default bind: no warning expected"
	else
		ok "default bind: no loopback warning"
	fi
	raw_stop
else
	bad "server with the default bind did not start"
fi

if raw_start "$T/s-any" --bind 0.0.0.0; then
	check_eq "--bind 0.0.0.0: listening on all addresses" "00000000" "$(listen_addrs "$RAW_PORT")"
	if grep -q 'warn: listening on 0.0.0.0, not a loopback address' "$RAW_LOG"; then
		ok "--bind 0.0.0.0: warning logged"
	else
		bad "--bind 0.0.0.0: no warning in the log"
		show_tail "$RAW_LOG"
	fi
	raw_stop
else
	bad "server with --bind 0.0.0.0 did not start"
fi

# ---- 3. (before 2: needs a server that creates its own directory) permissions ----

old_umask=$(umask)
umask 000
st=0
raw_start "$T/perm/state" || st=$?
umask "$old_umask"
if [ "$st" -eq 0 ]; then
	# power on, start up, make a persistent object so that the state is written again
	export TPM2TOOLS_TCTI="mssim:host=127.0.0.1,port=$RAW_PORT"
	run "perm: startup" tpm2_startup -c
	run "perm: createprimary" tpm2_createprimary -C o -G ecc256 -c "$T/p.ctx"
	run "perm: evictcontrol (writes the state)" tpm2_evictcontrol -C o -c "$T/p.ctx" 0x81000001
	check_eq "state directory mode (server started with umask 000)" 700 \
		"$(stat -c %a "$T/perm/state")"
	n=0
	for f in "$T/perm/state"/*; do
		[ -e "$f" ] || continue
		n=$((n + 1))
		check_eq "state file $(basename "$f") mode (umask 000)" 600 "$(stat -c %a "$f")"
	done
	if [ "$n" -gt 0 ]; then ok "state directory holds $n file(s)"; else bad "no state file"; fi
	raw_stop
	unset TPM2TOOLS_TCTI
else
	bad "server creating its own state directory did not start"
fi

# ---- 2. platform signals only on the platform port ----

tpm_start
run "startup" tpm2_startup -c
run "getrandom before" tpm2_getrandom --hex 8
# TPM_SIGNAL_POWER_OFF (2), NV_OFF (12), RESET (17), PHYS_PRES_ON (3), CANCEL_ON (9) on the
# command port: each answered u32 1 (refused), the connection kept, then GetRandom served.
for sig in 2:POWER_OFF 12:NV_OFF 17:RESET 3:PHYS_PRES_ON 9:CANCEL_ON; do
	code=${sig%%:*}
	name=${sig#*:}
	got=$(mssim "$PORT" "$(u32 "$code")$(send_cmd $getrandom)" 4)
	check_eq "$name on the command port: refused (u32 1)" 00000001 "$got"
	# same connection: the refusal keeps the stream aligned, the next command is served
	got=$(mssim "$PORT" "$(u32 "$code")$(send_cmd $getrandom)" 26)
	# 00000001 refusal, 00000014 size, 8001 00000014 00000000 rc 0, 0008 + 8 bytes ...
	case $got in
	00000001000000148001000000140000000000*) ok "$name on the command port: TPM still answers on that connection" ;;
	*) bad "$name on the command port: then GetRandom got $got" ;;
	esac
done
run "getrandom after (new connection, TPM still started)" tpm2_getrandom --hex 8
if grep -q 'TPM_SIGNAL_POWER_OFF is not served on the command port' "$SERVER_LOG"; then
	ok "refusal logged as a warning"
else
	bad "refusal not logged"
fi
# positive control: the same signal on the platform port works (TPM needs Startup again)
check_eq "POWER_OFF on the platform port: accepted (u32 0)" 00000000 \
	"$(mssim $((PORT + 1)) "$(u32 2)" 4)"
check_eq "POWER_ON on the platform port: accepted (u32 0)" 00000000 \
	"$(mssim $((PORT + 1)) "$(u32 1)" 4)"
expect_rc "after a platform power cycle: TPM_RC_INITIALIZE" 0x100 tpm2_getrandom --hex 8
finish
