#!/bin/bash
# Instructions per ML-DSA / ML-KEM operation: BUILD/bench/pq_ops under callgrind, one dump per
# operation's loop (pq_ops.c), each dump's total divided by N. Exact and repeatable, so it is the
# figure to compare builds by on a shared machine (times there are indicative only).
#
#   tests/bench/pq_instr.sh [BUILD_DIR [N]]     (default: build 50)
#
# PQTPM_NO_AVX2=1 in the environment measures the portable C path. Prints one line per
# operation: key, instructions per operation. Exits non-zero if pq_ops failed.
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-build}
n=${2:-50}
case $build in /*) ;; *) build=$root/$build ;; esac
prog=$build/bench/pq_ops
[ -x "$prog" ] || { echo "pq_instr: $prog not built" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "pq_instr: valgrind not installed" >&2; exit 1; }
out=$(mktemp -d "${TMPDIR:-/tmp}/pq_instr.XXXXXX")
trap 'rm -rf "$out"' EXIT

if ! valgrind --tool=callgrind --callgrind-out-file="$out/cg" "$prog" "$n" >"$out/log" 2>&1; then
	tail -n 20 "$out/log" >&2
	exit 1
fi
printf '%-24s %12s\n' operation instructions
# dumps are numbered from 1 in the order the loops ran
i=1
while [ -f "$out/cg.$i" ]; do
	f=$out/cg.$i
	i=$((i + 1))
	key=$(sed -n 's/^desc: Trigger: Client Request: //p' "$f")
	total=$(sed -n 's/^totals: //p' "$f")
	[ -n "$key" ] && printf '%-24s %12d\n' "$key" $((total / n))
done
