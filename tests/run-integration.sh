#!/bin/bash
# Integration tests with real clients against real servers.
#
#   tests/run-integration.sh [BUILD_DIR [TEST...]]
#
# Runs every tests/integration/*.sh (each starts and stops its own server, see lib.sh), then
# every C program built from tests/integration/*.c into BUILD_DIR/tests/<name>, each against a
# server started for it. Arguments: mssim_* programs (raw MSSIM clients) get `HOST PORT`, all
# others the TCTI string (e.g. mssim:host=127.0.0.1,port=N); every program also finds
# PQTPM_TCTI, PQTPM_HOST, PQTPM_PORT (command port) and PQTPM_PLATFORM_PORT in its
# environment. A program with a script of the same name (tss_conformance.c and .sh) is run by
# that script only, as is a Python test (pkcs11_pykcs11.py and .sh). TEST names (script or
# program names without extension) select a subset.
#
# Prints one line per test and closes with `N passed, M failed`; exits non-zero on any failure.
# Any sanitizer report in a server's log (ASan/UBSan builds: BUILD_DIR=build-asan) fails the
# test that ran it.
#
# Environment: TPM_IMPL=swtpm runs the same tests against Debian's swtpm (programs speaking
# MSSIM or using post-quantum algorithms, mssim_* and pq_*, and those whose client library
# connects over MSSIM, tss_*, are skipped there); VERBOSE=1
# prints every test's full output; SCRIPT_TIMEOUT / PROG_TIMEOUT bound each test (seconds).
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
BUILD_DIR=${1:-build}
case $BUILD_DIR in /*) ;; *) BUILD_DIR=$root/$BUILD_DIR ;; esac
[ $# -gt 0 ] && shift
export BUILD_DIR
export TPM_IMPL=${TPM_IMPL:-pqtpm}
SCRIPT_TIMEOUT=${SCRIPT_TIMEOUT:-600}
PROG_TIMEOUT=${PROG_TIMEOUT:-300}
idir=$root/tests/integration

logs=$(mktemp -d "${TMPDIR:-/tmp}/pqtpm-integration.XXXXXX")
trap 'rm -rf "$logs"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'trap "" PIPE; exit 141' PIPE

pass=0
fail=0
failed=""

selected() {
	local t
	[ $# -gt 1 ] || return 0
	for t in "${@:2}"; do
		[ "$t" = "$1" ] && return 0
	done
	return 1
}

# The summary a test printed last (its own `N passed, M failed`).
summary_of() {
	grep -E '^[0-9]+ passed, [0-9]+ failed$' "$1" | tail -n 1 || true
}

# Called right after the test; t0 is the SECONDS it began at (the time says what to trim when
# make check grows).
report() {
	local name=$1 st=$2 log=$3 sum
	sum=$(summary_of "$log")
	if [ "$st" -eq 0 ]; then
		pass=$((pass + 1))
		echo "PASS $name${sum:+ ($sum)} $((SECONDS - t0)) s"
		if [ "${VERBOSE:-0}" = 1 ]; then
			sed 's/^/  /' "$log"
		fi
	else
		fail=$((fail + 1))
		failed="$failed $name"
		echo "FAIL $name (exit $st)${sum:+ ($sum)} $((SECONDS - t0)) s"
		if [ "${VERBOSE:-0}" = 1 ]; then
			sed 's/^/  /' "$log"
		else
			grep -v '^ok   ' "$log" | head -n 300 | sed 's/^/  /'
		fi
	fi
}

if [ "$TPM_IMPL" = pqtpm ] && [ ! -x "$BUILD_DIR/bin/pqtpm-server" ]; then
	echo "run-integration: no server at $BUILD_DIR/bin/pqtpm-server (run make first)" >&2
	echo "0 passed, 1 failed"
	exit 1
fi
echo "integration tests against $TPM_IMPL (build: $BUILD_DIR)"

for t in "$idir"/*.sh; do
	name=$(basename "$t" .sh)
	[ "$name" = lib ] && continue
	selected "$name" "$@" || continue
	st=0
	t0=$SECONDS
	timeout -k 10 "$SCRIPT_TIMEOUT" bash "$t" >"$logs/$name.log" 2>&1 </dev/null || st=$?
	report "$name" "$st" "$logs/$name.log"
done

# One C program against a server of its own (a subshell with lib.sh's start/stop and checks).
run_prog() {
	local name=$1 bin=$BUILD_DIR/tests/$1
	(
		set -eu
		# shellcheck source=tests/integration/lib.sh
		. "$idir/lib.sh"
		if [ ! -x "$bin" ]; then
			bad "$name not built ($bin missing)"
			_FINISHED=1
			exit 1
		fi
		tpm_start
		export PQTPM_TCTI=$TCTI PQTPM_HOST=127.0.0.1 PQTPM_PORT=$PORT \
			PQTPM_PLATFORM_PORT=$((PORT + 1))
		case $name in
		mssim_*) set -- 127.0.0.1 "$PORT" ;;
		*) set -- "$TCTI" ;;
		esac
		st=0
		timeout -k 5 "$PROG_TIMEOUT" "$bin" "$@" </dev/null || st=$?
		[ "$st" -eq 0 ] || bad "$name exit status $st"
		tpm_stop || true
		_FINISHED=1
		[ "$FAIL" -eq 0 ]
	)
}

for c in "$idir"/*.c; do
	[ -e "$c" ] || continue
	name=$(basename "$c" .c)
	[ -e "$idir/$name.sh" ] && continue
	selected "$name" "$@" || continue
	if [ "$TPM_IMPL" != pqtpm ]; then
		case $name in
		mssim_* | pq_* | tss_*)
			echo "SKIP $name (needs pqtpm)"
			continue
			;;
		esac
	fi
	st=0
	t0=$SECONDS
	run_prog "$name" >"$logs/$name.log" 2>&1 || st=$?
	report "$name" "$st" "$logs/$name.log"
done

if [ -n "$failed" ]; then
	echo "failed:$failed"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
