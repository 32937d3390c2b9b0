#!/bin/sh
# Runs every CUnit binary in $1/tests (test_*), prints each summary and one closing line.
set -u
build=${1:-build}
pass=0
fail=0
failed=""
for t in "$build"/tests/test_*; do
	[ -x "$t" ] || continue
	echo "=== $(basename "$t")"
	if "$t"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		failed="$failed $(basename "$t")"
	fi
done
echo "unit test programs: $pass passed, $fail failed${failed:+ (failed:$failed)}"
[ "$pass" -gt 0 ] && [ "$fail" -eq 0 ]
