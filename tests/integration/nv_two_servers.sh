#!/bin/bash
# Two server processes on one state directory, used at the same time: each defines its own 20
# indices and increments a shared counter 25 times, concurrently. Writes are serialized with
# the directory's lock and each command sees the other process's newest state first, so
# nothing is lost: both servers list all 40 indices, the counter is 50, and a new server on
# the directory has it all.
set -eu
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

if [ "$TPM_IMPL" != pqtpm ]; then
	echo "SKIP: needs pqtpm-server"
	ok "skipped for $TPM_IMPL"
	finish
fi

STATE=$T/state
BASE=0x1500400
CNT=0x15004ff

tpm_start "$STATE"
TCTI_A=$TCTI
# the second server, by hand (lib.sh tracks one)
PORT_A=$PORT
pick_ports
PORT_B=$PORT
ASAN_OPTIONS="$ASAN_OPTIONS_SERVER" UBSAN_OPTIONS="$UBSAN_OPTIONS_SERVER" \
	"$SERVER_BIN" --state-dir "$STATE" --bind 127.0.0.1 --port "$PORT_B" \
	--platform-port $((PORT_B + 1)) >"$T/server_b.log" 2>&1 </dev/null &
PID_B=$!
for _ in $(seq 100); do grep -q listening "$T/server_b.log" && break; sleep 0.05; done
PORT=$PORT_A
TCTI_B="mssim:host=127.0.0.1,port=$PORT_B"

stop_b() {
	[ -n "$PID_B" ] || return 0
	kill -TERM "$PID_B" 2>/dev/null || true
	wait "$PID_B" 2>/dev/null || true
	PID_B=
	check_sanitizer_log "$T/server_b.log" || true
}
# B goes too if the script stops early (then lib.sh's cleanup runs with the exit status)
trap 'rc=$?; stop_b; (exit $rc); _lib_cleanup' EXIT

run "startup A" tpm2_startup -c -T "$TCTI_A"
run "startup B" tpm2_startup -c -T "$TCTI_B"
run "counter defined through A" tpm2_nvdefine $CNT -C o -s 8 -T "$TCTI_A" \
	-a "nt=counter|ownerread|ownerwrite"
# The first increment sets TPMA_NV_WRITTEN, which changes the index's name: done before the
# race, so that no session's cpHash is computed over a name the other server is changing.
run "counter written once through A" tpm2_nvincrement $CNT -C o -T "$TCTI_A"

# Both at once: each defines its indices and increments the shared counter.
worker() { # tcti first-offset
	local i fails=0
	for i in $(seq 0 24); do
		if [ "$i" -lt 20 ]; then
			tpm2_nvdefine $((BASE + $2 + 2 * i)) -C o -s 8 -T "$1" \
				-a "ownerread|ownerwrite" >/dev/null 2>&1 || fails=$((fails + 1))
		fi
		tpm2_nvincrement $CNT -C o -T "$1" >/dev/null 2>&1 || fails=$((fails + 1))
	done
	echo "$fails"
}
worker "$TCTI_A" 0 >"$T/fails_a" &
WA=$!
worker "$TCTI_B" 1 >"$T/fails_b" &
WB=$!
wait "$WA" "$WB"
check_eq "no command failed in A" 0 "$(cat "$T/fails_a")"
check_eq "no command failed in B" 0 "$(cat "$T/fails_b")"

count_indices() { # tcti
	tpm2_getcap handles-nv-index -T "$1" 2>/dev/null | grep -ci "0x15004[0-2]" || true
}
counter() { # tcti
	rm -f "$T/c"
	tpm2_nvread $CNT -C o -s 8 -o "$T/c" -T "$1" >/dev/null 2>&1 || true
	[ -s "$T/c" ] && printf '%d' "0x$(hex_of "$T/c")"
}
check_eq "A lists all 40 indices" 40 "$(count_indices "$TCTI_A")"
check_eq "B lists all 40 indices" 40 "$(count_indices "$TCTI_B")"
check_eq "counter through A is 51" 51 "$(counter "$TCTI_A")"
check_eq "counter through B is 51" 51 "$(counter "$TCTI_B")"
expect_rc "B sees A's index (defined again: TPM_RC_NV_DEFINED)" 0x14c \
	tpm2_nvdefine $BASE -C o -s 8 -a "ownerread|ownerwrite" -T "$TCTI_B"

stop_b
tpm_restart
run "startup after restart" tpm2_startup -c
check_eq "a new server finds all 40 indices" 40 "$(count_indices "$TCTI")"
check_eq "and the counter at 51" 51 "$(counter "$TCTI")"
finish
