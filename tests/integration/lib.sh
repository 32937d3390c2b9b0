# shellcheck shell=bash
# Shared helpers for the integration tests (sourced, not run).
#
# Sourcing sets up: $T (a fresh temp dir, removed at exit), PASS/FAIL counters and an EXIT trap
# that stops any server still running. Then:
#   tpm_start [STATE_DIR]   start a server on free loopback ports (default state: $T/state);
#                           exports TPM2TOOLS_TCTI and TCTI, sets PORT, SERVER_PID, SERVER_LOG
#   tpm_stop                stop it (bounded), count a sanitizer report / bad exit as a failure
#   tpm_restart             stop, then start again on the same state directory (no reboot:
#                           the TPM is as the last server left it, powered and started)
#   tpm_reset               a reboot: power cycle through the platform port (Startup next)
#   run NAME CMD...         CMD must succeed (stdout in $T/out, stderr in $T/err)
#   expect_fail NAME CMD... CMD must fail
#   expect_rc NAME RC CMD.. CMD must fail with TPM response code RC (e.g. 0x9a2; "0x98e|0x9a2")
#   check_eq NAME WANT GOT  string comparison
#   policy_trial DIR NAME TOOL ARGS...  tpm2-tools: one policy assertion in a trial session,
#                           its digest -> DIR/NAME.pol
#   enospc_shim_build       build helpers/enospc_preload.c and put it in front of the server
#                           (SERVER_WRAP); writes fail with ENOSPC while the file $FLAG exists
#   finish                  stop the server, print `N passed, M failed`, exit 0 or 1
#
# Environment:
#   BUILD_DIR      where pqtpm-server lives (BUILD_DIR/bin/pqtpm-server), default build
#   TPM_IMPL       pqtpm (default) or swtpm (Debian's, for developing the tests)
#   SERVER_WRAP    prefix for the server command (e.g. "taskset -c 1")
#   KEEP_TMP=1     keep $T for inspection
#   CMD_TIMEOUT    seconds any one command may take (default 60)

LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT_DIR=$(cd "$LIB_DIR/../.." && pwd)
BUILD_DIR=${BUILD_DIR:-build}
case $BUILD_DIR in /*) ;; *) BUILD_DIR=$ROOT_DIR/$BUILD_DIR ;; esac
TPM_IMPL=${TPM_IMPL:-pqtpm}
SERVER_BIN=${SERVER_BIN:-$BUILD_DIR/bin/pqtpm-server}
SERVER_WRAP=${SERVER_WRAP:-}
CMD_TIMEOUT=${CMD_TIMEOUT:-60}
export ASAN_OPTIONS_SERVER=${ASAN_OPTIONS_SERVER:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS_SERVER=${UBSAN_OPTIONS_SERVER:-print_stacktrace=1}

PASS=0
FAIL=0
SERVER_PID=
SERVER_N=0
PORT=
STATE_DIR=
_PORT_TRIES=0
_FINISHED=

T=$(mktemp -d "${TMPDIR:-/tmp}/pqtpm-it.XXXXXX")

_lib_cleanup() {
	local rc=$?
	trap - EXIT
	if [ -n "$SERVER_PID" ]; then
		tpm_stop || true
	fi
	if [ -z "$_FINISHED" ] && [ "$rc" -eq 0 ] && [ "$FAIL" -gt 0 ]; then
		rc=1
	fi
	if [ -z "$_FINISHED" ] && [ "$rc" -ne 0 ]; then
		echo "aborted (exit status $rc)"
		echo "$PASS passed, $((FAIL + 1)) failed"
	fi
	if [ "${KEEP_TMP:-0}" = 1 ]; then
		echo "kept $T"
	else
		rm -rf "$T"
	fi
	exit "$rc"
}
trap _lib_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP
trap 'trap "" PIPE; exit 141' PIPE

ok() {
	PASS=$((PASS + 1))
	echo "ok   $*"
}

bad() {
	FAIL=$((FAIL + 1))
	echo "FAIL $*"
}

# Last lines of a file, indented, for a failure report.
show_tail() {
	[ -s "$1" ] || return 0
	tail -n "${2:-15}" "$1" | sed 's/^/     | /'
}

# Decodes every TPM response code tpm2-tss printed in the file (ErrorCode (0x000009a2)).
show_rc() {
	local rc
	for rc in $(grep -o 'ErrorCode (0x[0-9a-fA-F]*)' "$1" 2>/dev/null | grep -o '0x[0-9a-fA-F]*' | sort -u); do
		echo "     rc $rc: $(tpm2_rc_decode "$rc" 2>/dev/null | tr '\n' ' ')"
	done
}

# Whether a TCP port on 127.0.0.1 can be bound right now (not listening, not in TIME_WAIT).
port_free() {
	perl -MSocket -e 'socket(S, PF_INET, SOCK_STREAM, 0) or exit 2;
		bind(S, sockaddr_in($ARGV[0], inet_aton("127.0.0.1"))) or exit 1; exit 0' "$1"
}

# Sets PORT to an even port with PORT and PORT+1 free, below the ephemeral range. The scan
# starts at a base derived from $$ so parallel runs start far apart.
pick_ports() {
	local i p base
	base=$(((($$ * 131) + _PORT_TRIES * 38) % 9000))
	for i in $(seq 0 499); do
		p=$((20000 + ((base + i * 2) % 10000) / 2 * 2))
		if port_free "$p" && port_free $((p + 1)); then
			PORT=$p
			_PORT_TRIES=$((_PORT_TRIES + i + 1))
			return 0
		fi
	done
	echo "no free port pair found" >&2
	return 1
}

tcp_connects() {
	(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

_server_launch() {
	case $TPM_IMPL in
	pqtpm)
		[ -x "$SERVER_BIN" ] || { echo "no server binary $SERVER_BIN" >&2; return 1; }
		# shellcheck disable=SC2086
		env ASAN_OPTIONS="$ASAN_OPTIONS_SERVER" UBSAN_OPTIONS="$UBSAN_OPTIONS_SERVER" \
			$SERVER_WRAP "$SERVER_BIN" --state-dir "$STATE_DIR" --bind 127.0.0.1 \
			--port "$PORT" --platform-port $((PORT + 1)) \
			--log-level "${SERVER_LOG_LEVEL:-info}" >"$SERVER_LOG" 2>&1 &
		;;
	swtpm)
		# shellcheck disable=SC2086
		$SERVER_WRAP swtpm socket --tpm2 \
			--server "type=tcp,port=$PORT,bindaddr=127.0.0.1" \
			--ctrl "type=tcp,port=$((PORT + 1)),bindaddr=127.0.0.1" \
			--tpmstate "dir=$STATE_DIR" --flags not-need-init,startup-clear \
			>"$SERVER_LOG" 2>&1 &
		;;
	*)
		echo "unknown TPM_IMPL=$TPM_IMPL" >&2
		return 1
		;;
	esac
	SERVER_PID=$!
}

# 0 when ready, 1 when the server died, 2 on timeout (100 x 50 ms).
_server_wait_ready() {
	local i
	for i in $(seq 1 100); do
		if ! kill -0 "$SERVER_PID" 2>/dev/null; then
			return 1
		fi
		case $TPM_IMPL in
		pqtpm) grep -q listening "$SERVER_LOG" 2>/dev/null && return 0 ;;
		swtpm) tcp_connects $((PORT + 1)) && return 0 ;;
		esac
		sleep 0.05
	done
	return 2
}

tpm_start() {
	local try st
	STATE_DIR=${1:-$T/state}
	mkdir -p "$STATE_DIR"
	for try in 1 2 3; do
		pick_ports || return 1
		SERVER_N=$((SERVER_N + 1))
		SERVER_LOG=$T/server.$SERVER_N.log
		_server_launch || return 1
		st=0
		_server_wait_ready || st=$?
		if [ "$st" -eq 0 ]; then
			case $TPM_IMPL in
			pqtpm) TCTI="mssim:host=127.0.0.1,port=$PORT" ;;
			swtpm) TCTI="swtpm:host=127.0.0.1,port=$PORT" ;;
			esac
			export TCTI TPM2TOOLS_TCTI=$TCTI
			return 0
		fi
		if [ "$st" -eq 2 ]; then
			bad "server ($TPM_IMPL) not ready within 5 s on port $PORT"
			show_tail "$SERVER_LOG" 30
			tpm_stop || true
			return 1
		fi
		# Died before being ready: maybe someone took the port in between; try other ports.
		wait "$SERVER_PID" 2>/dev/null || true
		SERVER_PID=
		echo "server exited at start (try $try, port $PORT):"
		show_tail "$SERVER_LOG" 10
	done
	bad "server ($TPM_IMPL) failed to start"
	return 1
}

# Reports a sanitizer finding in a server log as a failure. Returns 1 when one was found.
check_sanitizer_log() {
	if grep -qE 'ERROR: [A-Za-z]+Sanitizer|SUMMARY: [A-Za-z]+Sanitizer|runtime error:' "$1" 2>/dev/null; then
		bad "sanitizer report in server log $(basename "$1")"
		grep -E -A 40 'ERROR: [A-Za-z]+Sanitizer|runtime error:' "$1" | head -n 60 | sed 's/^/     | /'
		return 1
	fi
	return 0
}

# Stops the server (graceful, then KILL after 5 s) and checks how it went.
tpm_stop() {
	local pid=$SERVER_PID i st=0 res=0
	[ -n "$pid" ] || return 0
	SERVER_PID=
	if kill -0 "$pid" 2>/dev/null; then
		if [ "$TPM_IMPL" = swtpm ]; then
			swtpm_ioctl --tcp "127.0.0.1:$((PORT + 1))" -s >/dev/null 2>&1 || kill -TERM "$pid" 2>/dev/null || true
		else
			kill -TERM "$pid" 2>/dev/null || true
		fi
		for i in $(seq 1 100); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.05
		done
		if kill -0 "$pid" 2>/dev/null; then
			kill -KILL "$pid" 2>/dev/null || true
			bad "server did not stop within 5 s of SIGTERM (killed)"
			res=1
		fi
	else
		echo "note: server (pid $pid) had already exited"
	fi
	wait "$pid" 2>/dev/null || st=$?
	if [ "$res" -eq 0 ] && [ "$st" -ne 0 ]; then
		bad "server exit status $st"
		show_tail "$SERVER_LOG" 30
		res=1
	fi
	check_sanitizer_log "$SERVER_LOG" || res=1
	return "$res"
}

tpm_restart() {
	local dir=$STATE_DIR
	tpm_stop || true
	tpm_start "$dir"
}

# One MSSIM platform command (u32 big-endian) on its own connection; its answer must be 0.
_platform() {
	local fd ack
	exec {fd}<>"/dev/tcp/127.0.0.1/$((PORT + 1))" || return 1
	printf "\\x00\\x00\\x00\\x$(printf %02x "$1")" >&"$fd"
	ack=$(head -c 4 <&"$fd" | od -An -tx1 | tr -d ' \n')
	exec {fd}>&-
	[ "$ack" = 00000000 ]
}

tpm_reset() {
	case $TPM_IMPL in
	pqtpm) _platform 2 && _platform 1 && _platform 11 ;; # power off, power on, NV on
	swtpm) swtpm_ioctl --tcp "127.0.0.1:$((PORT + 1))" -i >/dev/null ;;
	esac
}

# swtpm has no resource manager: every tool leaves its objects loaded and three fill the TPM.
# pqtpm flushes a connection's objects when it closes, so nothing is needed there.
_after_cmd() {
	if [ "$TPM_IMPL" = swtpm ] && [ -n "$SERVER_PID" ]; then
		tpm2_flushcontext -t >/dev/null 2>&1 || true
		tpm2_flushcontext -l >/dev/null 2>&1 || true
	fi
}

_run_cmd() {
	timeout -k 5 "$CMD_TIMEOUT" "$@" >"$T/out" 2>"$T/err"
}

_report_cmd() {
	echo "     \$ $*"
	show_tail "$T/err"
	show_rc "$T/err"
}

# sanitizer_preload LIB: a library built with ASan/UBSan (BUILD_DIR=build-asan) needs their
# runtimes first in the clients that load it (pkcs11-tool, openssl, python ...); the clients'
# own leaks are not the library's.
sanitizer_preload() {
	if ldd "$1" | grep -q libasan; then
		LD_PRELOAD="$(${CC:-cc} -print-file-name=libasan.so)"
		LD_PRELOAD="$LD_PRELOAD $(${CC:-cc} -print-file-name=libubsan.so)"
		export LD_PRELOAD
		export ASAN_OPTIONS=detect_leaks=0:abort_on_error=0
	fi
}

run() {
	local name=$1 st=0
	shift
	_run_cmd "$@" || st=$?
	_after_cmd
	if [ "$st" -eq 0 ]; then
		ok "$name"
	else
		bad "$name (exit $st)"
		_report_cmd "$@"
	fi
	return 0
}

expect_fail() {
	local name=$1 st=0
	shift
	_run_cmd "$@" || st=$?
	_after_cmd
	if [ "$st" -eq 0 ]; then
		bad "$name (succeeded, must fail)"
		echo "     \$ $*"
	elif [ "$st" -ge 124 ]; then
		bad "$name (exit $st: timeout or crash, must fail cleanly)"
		_report_cmd "$@"
	else
		ok "$name"
	fi
	return 0
}

# expect_rc NAME "0x9a2|0x98e" CMD...: must fail, and the TPM code printed must be one of these.
expect_rc() {
	local name=$1 want=$2 st=0 got w
	shift 2
	_run_cmd "$@" || st=$?
	_after_cmd
	if [ "$st" -eq 0 ]; then
		bad "$name (succeeded, must fail with $want)"
		echo "     \$ $*"
		return 0
	fi
	got=$(grep -o 'ErrorCode (0x[0-9a-fA-F]*)' "$T/err" | grep -o '0x[0-9a-fA-F]*' | tail -n 1)
	for w in $(echo "$want" | tr '|' ' '); do
		if [ -n "$got" ] && [ $((got)) -eq $((w)) ]; then
			ok "$name"
			return 0
		fi
	done
	bad "$name (wanted TPM rc $want, got ${got:-none})"
	_report_cmd "$@"
	return 0
}

check_eq() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		bad "$1"
		echo "     want: $2"
		echo "     got:  $3"
	fi
}

# Lowercase hex of a file's bytes, on one line.
hex_of() {
	od -An -v -tx1 "$1" | tr -d ' \n'
}

sha256_hex() {
	sha256sum "$1" | cut -c1-64
}

# SHA-256 over the bytes given in hex.
sha256_of_hex() {
	echo "$1" | xxd -r -p | sha256sum | cut -c1-64
}

policy_trial() {
	local dir=$1 name=$2
	shift 2
	run "trial $name: start" tpm2_startauthsession -S "$dir/trial.ctx"
	run "trial $name: $1" "$@" -S "$dir/trial.ctx" -L "$dir/$name.pol"
	run "trial $name: flush" tpm2_flushcontext "$dir/trial.ctx"
}

# Sets SHIM and FLAG; the shim reads the flag's path from PQTPM_ENOSPC_FLAG.
enospc_shim_build() {
	SHIM=$T/enospc_preload.so
	FLAG=$T/disk_full
	${CC:-cc} -shared -fPIC -O2 -o "$SHIM" "$LIB_DIR/helpers/enospc_preload.c" -ldl
	export PQTPM_ENOSPC_FLAG=$FLAG
	# ASan wants its runtime first in the library list; the shim comes first here
	export ASAN_OPTIONS_SERVER="$ASAN_OPTIONS_SERVER:verify_asan_link_order=0"
	SERVER_WRAP="env LD_PRELOAD=$SHIM"
}

finish() {
	local log
	tpm_stop || true
	_FINISHED=1
	if [ "$FAIL" -gt 0 ]; then
		for log in "$T"/server.*.log; do
			[ -s "$log" ] || continue
			# without the connection opened/closed lines
			grep -vE 'info: conn [0-9]+ .*: (opened|closed)' "$log" >"$T/log.tail" || true
			echo "     last lines of $(basename "$log") (connection lines left out):"
			show_tail "$T/log.tail" 20
		done
	fi
	echo "$PASS passed, $FAIL failed"
	if [ "$FAIL" -eq 0 ] && [ "$PASS" -gt 0 ]; then
		exit 0
	fi
	exit 1
}
