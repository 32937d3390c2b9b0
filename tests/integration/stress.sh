#!/bin/bash
# Many clients of one TPM at once, every answer checked (tests/integration/stress.c): 8 clients
# over MSSIM against one pqtpm-server, then 4 threads as clients of an in-process engine. The
# server's log must hold no sanitizer report (ASan/LSan builds: no leak). STRESS_ROUNDS and
# STRESS_SEED pass through to the program.
set -eu
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

if [ "$TPM_IMPL" != pqtpm ]; then
	echo "SKIP: needs pqtpm (ML-DSA, the in-process engine)"
	ok "skipped for $TPM_IMPL"
	finish
fi

# stress_run NAME ARG: the program's own checks count as this script's.
stress_run() {
	local name=$1 st=0 sum
	shift
	timeout -k 5 300 "$BUILD_DIR/tests/stress" "$@" >"$T/$name.out" 2>&1 </dev/null || st=$?
	cat "$T/$name.out"
	sum=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$T/$name.out" | tail -n 1 || true)
	if [ -n "$sum" ]; then
		PASS=$((PASS + ${sum%% passed*}))
		sum=${sum#*, }
		FAIL=$((FAIL + ${sum%% failed}))
	fi
	if [ "$st" -eq 0 ] && [ -n "$sum" ]; then
		ok "$name"
	else
		bad "$name (exit status $st)"
	fi
}

tpm_start
stress_run "8 clients over MSSIM" "$TCTI"
tpm_stop || bad "server stopped with a problem"
stress_run "4 threads in process" engine
finish
