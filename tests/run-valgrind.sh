#!/bin/bash
# valgrind memcheck over a subset of the suite, and the constant-time check (make valgrind,
# part of make check).
#
#   tests/run-valgrind.sh [BUILD_DIR]
#
# 1. Unit programs (VALGRIND_UNIT, names without test_) under memcheck: any error or definite
#    leak fails. test_mldsa is left out (its ACVP files take 40 s under valgrind); ML-DSA runs
#    under memcheck in step 2 instead, for every parameter set.
# 2. tests/ct/ct_check (BUILD_DIR/ct/ct_check): ML-KEM, ML-DSA and the MAC / authValue
#    comparisons with their secret inputs marked undefined, so that memcheck reports any branch
#    or memory index on a secret; any report fails. Then `ct_check self-test`, which branches on
#    a secret on purpose, must be reported, or the check itself is broken.
# 3. The server under memcheck for one integration script (VALGRIND_SCRIPT, default
#    tpm2tools_sessions: HMAC, policy, salted and encrypted sessions), run alongside 1 and 2;
#    each server's memcheck log must exist and be empty.
#
# The default build links the static SP wolfCrypt with x86-64 assembly; memcheck reports
# nothing inside it, so there is no suppression file. Exits non-zero on any finding.
set -u

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build=${1:-build}
VALGRIND_UNIT=${VALGRIND_UNIT:-marshal session object context state mlkem wipe}
VALGRIND_SCRIPT=${VALGRIND_SCRIPT:-tpm2tools_sessions}
VG="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite"
logs=$(mktemp -d "${TMPDIR:-/tmp}/pqtpm-valgrind.XXXXXX")
trap 'rm -rf "$logs"' EXIT
start=$(date +%s)
fail=0

command -v valgrind >/dev/null || { echo "valgrind: not installed (make deps)" >&2; exit 1; }

# report NAME STATUS LOG: one line, and the log when it failed
report() {
	if [ "$2" -eq 0 ]; then
		echo "PASS valgrind $1"
	else
		echo "FAIL valgrind $1 (exit $2)"
		head -n 60 "$3" | sed 's/^/     | /'
		fail=1
	fi
}

# the server run (mostly waiting on its clients) alongside the unit programs
SERVER_WRAP="$VG --log-file=$logs/server.%p.vg" \
	tests/run-integration.sh "$build" "$VALGRIND_SCRIPT" >"$logs/server.out" 2>&1 &
server_job=$!

for t in $VALGRIND_UNIT; do
	st=0
	# shellcheck disable=SC2086
	$VG --log-file="$logs/unit-$t.vg" "$build/tests/test_$t" >"$logs/unit-$t.out" 2>&1 || st=$?
	# memcheck's report first, then the test's own failures
	grep -E -A 8 'FAIL|Suite|asserts' "$logs/unit-$t.out" >>"$logs/unit-$t.vg"
	report "test_$t" "$st" "$logs/unit-$t.vg"
done

st=0
# shellcheck disable=SC2086
$VG "$build/ct/ct_check" >"$logs/ct.out" 2>&1 || st=$?
report "ct_check (constant time)" "$st" "$logs/ct.out"
st=0
# shellcheck disable=SC2086
$VG "$build/ct/ct_check" self-test >"$logs/ct-self.out" 2>&1 || st=$?
if [ "$st" -eq 99 ] && grep -q 'depends on uninitialised' "$logs/ct-self.out"; then
	echo "PASS valgrind ct_check self-test (a branch on a secret is reported)"
else
	echo "FAIL valgrind ct_check self-test: a branch on a secret went unreported (exit $st)"
	fail=1
fi

st=0
wait "$server_job" || st=$?
nlogs=$(find "$logs" -name 'server.*.vg' | wc -l)
if [ "$st" -eq 0 ] && [ "$nlogs" -gt 0 ] && [ -z "$(find "$logs" -name 'server.*.vg' -size +0)" ]; then
	echo "PASS valgrind pqtpm-server running $VALGRIND_SCRIPT ($nlogs server run(s))"
else
	echo "FAIL valgrind pqtpm-server running $VALGRIND_SCRIPT (exit $st, $nlogs memcheck log(s))"
	tail -n 20 "$logs/server.out" | sed 's/^/     | /'
	for f in "$logs"/server.*.vg; do
		[ -s "$f" ] && head -n 40 "$f" | sed 's/^/     | /'
	done
	fail=1
fi

echo "valgrind: $([ $fail -eq 0 ] && echo passed || echo FAILED) in $(($(date +%s) - start)) s"
exit $fail
