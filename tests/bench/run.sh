#!/bin/bash
# make bench: tests/bench/run.sh [SP_BUILD_DIR [SYSTEM_BUILD_DIR]]   (default: build build-system)
#
# Three implementations in one run: pqtpm built with the SP wolfCrypt (SP_BUILD_DIR), pqtpm built
# with Debian's libwolfssl (SYSTEM_BUILD_DIR) and Debian's swtpm. Against each one's server:
# tpm_bench (ESAPI and raw-socket latencies), kernel_flow (the kernel's salted-session PCR
# extend, own raw client) and nv_bench (NV latency), with the server on CPU 1 and the client on
# CPU 0 when there are two CPUs. Then the concurrent-client throughput (tpm_bench's GetRandom
# ops/s with 1, 2 and 4 clients) against a fresh server of each, unpinned: scaling needs both
# CPUs, so server and clients may use either (bench_scaling below). Then kernel_flow against an
# in-process engine of each pqtpm build (the engine's own cost) and pq_bench (ML-DSA / ML-KEM in
# C and in @noble/post-quantum, and the post-quantum commands over MSSIM; it pins its own
# server). Then, unpinned, issue 14's figures from the SP build: head_of_line (B's GetRandom
# while A makes RSA-3072 keys, in process and over MSSIM) and sign_scaling (ECDSA P-256 and
# ML-DSA-65 signatures/s with 1, 2 and 4 clients, in process and over MSSIM, and 2 clients on
# one server against 2 spread over two servers); each starts its own engine and servers. Then
# p11_bench: the PKCS#11 module (an embedded TPM) and Debian's SoftHSMv2 driven by the same
# code in one run, unpinned (its two-thread figures need both CPUs). Any other program in
# SP_BUILD_DIR/bench/ runs afterwards without arguments.
#
# Every figure the programs print as a RESULT line goes to SP_BUILD_DIR/bench/results.tsv
# (impl, mode, key, label, unit, median, p99, samples); tests/bench/report.sh makes report.md and
# report.png from it next to it and prints the Markdown. BENCH_QUICK=1: fewer iterations (about
# a minute in all). Exits non-zero if gnuplot is missing (before measuring anything), if a server
# or a measurement failed, or if the report could not be made.
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
abs() { case $1 in /*) echo "$1" ;; *) echo "$root/$1" ;; esac; }
SP_DIR=$(abs "${1:-build}")
SYS_DIR=$(abs "${2:-build-system}")
OUT_DIR=$SP_DIR/bench

if ! command -v gnuplot >/dev/null; then
	echo "bench: gnuplot not found; the report needs it (Debian: gnuplot-nox," \
		"installed by scripts/install-deps.sh bench)" >&2
	exit 1
fi
for d in "$SP_DIR" "$SYS_DIR"; do
	for b in bin/pqtpm-server bench/tpm_bench bench/kernel_flow bench/nv_bench bench/pq_bench \
		bench/head_of_line bench/sign_scaling bench/p11_bench lib/libpqtpm-pkcs11.so; do
		if [ ! -x "$d/$b" ]; then
			echo "bench: $d/$b not built" >&2
			exit 1
		fi
	done
done

BUILD_DIR=$SP_DIR
export BUILD_DIR
# shellcheck source=tests/integration/lib.sh
. "$root/tests/integration/lib.sh"

pin_server=""
pin_client=""
if [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null; then
	pin_server="taskset -c 1"
	pin_client="taskset -c 0"
fi
export SERVER_LOG_LEVEL=warn
results=$T/results.tsv
: >"$results"
status=0
started=$(date +%s)

# measure IMPL MODE NAME CMD...: runs CMD (bounded), shows its output without the RESULT lines,
# appends those to the results as IMPL<TAB>MODE<TAB>key... A failure is reported and remembered.
measure() {
	local impl=$1 mode=$2 name=$3 st=0 out
	shift 3
	out=$T/$impl.$mode.$name.out
	timeout -k 5 900 "$@" >"$out" 2>&1 || st=$?
	grep -v '^RESULT' "$out" || true
	grep '^RESULT' "$out" | sed "s/^RESULT/$impl\t$mode/" >>"$results" || true
	if [ "$st" -ne 0 ]; then
		echo "bench: $name against $impl ($mode) exited $st"
		status=1
	fi
}

# start IMPL BUILD_DIR WRAP: a server (pqtpm from BUILD_DIR, or swtpm) on fresh state.
start() {
	case $1 in swtpm) TPM_IMPL=swtpm ;; *) TPM_IMPL=pqtpm ;; esac
	SERVER_BIN=$2/bin/pqtpm-server
	SERVER_WRAP=$3
	rm -rf "$T/state"
	if ! tpm_start; then
		echo "bench: could not start $1"
		status=1
		return 1
	fi
}

# bench_latency IMPL BUILD_DIR KIND [ENV...]: the pinned latency figures of one implementation;
# the client programs come from BUILD_DIR (for swtpm: the SP build).
bench_latency() {
	local impl=$1 dir=$2 kind=$3
	shift 3
	start "$impl" "$dir" "$pin_server" || return 0
	echo "== $impl: latency ($TCTI${pin_server:+, server on CPU 1, client on CPU 0})"
	# shellcheck disable=SC2086
	measure "$impl" pinned tpm_bench env BENCH_PHASES=latency "$@" $pin_client \
		"$dir/bench/tpm_bench" "$TCTI" "$kind" 127.0.0.1 "$PORT"
	# shellcheck disable=SC2086
	measure "$impl" pinned kernel_flow env BENCH_SERVER_PID="$SERVER_PID" $pin_client \
		"$dir/bench/kernel_flow" "$kind" 127.0.0.1 "$PORT"
	# shellcheck disable=SC2086
	measure "$impl" pinned nv_bench $pin_client "$dir/bench/nv_bench" "$kind" 127.0.0.1 "$PORT"
	tpm_stop || status=1
}

# bench_scaling IMPL BUILD_DIR KIND [ENV...]: GetRandom ops/s with 1, 2 and 4 clients, server
# and clients on both CPUs.
bench_scaling() {
	local impl=$1 dir=$2 kind=$3
	shift 3
	start "$impl" "$dir" "" || return 0
	echo "== $impl: concurrent clients, unpinned ($TCTI)"
	measure "$impl" unpinned tpm_bench env BENCH_PHASES=throughput "$@" "$dir/bench/tpm_bench" \
		"$TCTI" "$kind" 127.0.0.1 "$PORT"
	tpm_stop || status=1
}

have_swtpm=0
command -v swtpm >/dev/null && have_swtpm=1

bench_latency pqtpm-sp "$SP_DIR" mssim
bench_latency pqtpm-system "$SYS_DIR" mssim
# swtpm serves one connection at a time: no concurrent-client figures for it.
if [ "$have_swtpm" = 1 ]; then
	bench_latency swtpm "$SP_DIR" raw BENCH_MAX_CLIENTS=1
else
	echo "bench: swtpm not installed (scripts/install-deps.sh installs it)"
	status=1
fi

bench_scaling pqtpm-sp "$SP_DIR" mssim
bench_scaling pqtpm-system "$SYS_DIR" mssim
[ "$have_swtpm" = 1 ] && bench_scaling swtpm "$SP_DIR" raw BENCH_MAX_CLIENTS=1

# The kernel flow against an in-process engine: what the engine itself costs, without the
# socket round trips and the scheduling between client and server.
echo "== kernel_flow against an in-process engine (no transport)"
# shellcheck disable=SC2086
measure pqtpm-sp engine kernel_flow $pin_client "$SP_DIR/bench/kernel_flow" engine
# shellcheck disable=SC2086
measure pqtpm-system engine kernel_flow $pin_client "$SYS_DIR/bench/kernel_flow" engine

# pq_bench starts and pins its own server. noble once: its figures do not depend on the build.
echo "== pq_bench (SP build)"
# shellcheck disable=SC2086
measure pqtpm-sp pinned pq_bench $pin_client "$SP_DIR/bench/pq_bench"
echo "== pq_bench (system build, without noble)"
# shellcheck disable=SC2086
measure pqtpm-system pinned pq_bench env PQ_BENCH_NODE=0 $pin_client "$SYS_DIR/bench/pq_bench"

# One client must not wait behind another's cryptography (issue 14): both CPUs in use.
echo "== head_of_line (in process, then over MSSIM; unpinned)"
measure pqtpm-sp unpinned head_of_line "$SP_DIR/bench/head_of_line"
echo "== sign_scaling (in process, then over MSSIM; unpinned)"
measure pqtpm-sp unpinned sign_scaling "$SP_DIR/bench/sign_scaling"

# p11_bench: our module and SoftHSMv2 (scripts/install-deps.sh bench installs softhsm2) in one
# run; the system build's module once more, without the peer.
echo "== p11_bench (SP build, SoftHSMv2 in the same run; unpinned)"
measure pqtpm-sp p11 p11_bench "$SP_DIR/bench/p11_bench"
echo "== p11_bench (system build, without SoftHSMv2; unpinned)"
measure pqtpm-system p11 p11_bench env P11_BENCH_PEER=0 "$SYS_DIR/bench/p11_bench"

for b in "$SP_DIR"/bench/*; do
	if [ ! -f "$b" ] || [ ! -x "$b" ]; then continue; fi
	case $(basename "$b") in
	tpm_bench | kernel_flow | nv_bench | pq_bench | head_of_line | sign_scaling | p11_bench)
		continue
		;;
	esac
	echo "== $(basename "$b")"
	# shellcheck disable=SC2086
	measure pqtpm-sp pinned "$(basename "$b")" $pin_client "$b"
done

elapsed=$(($(date +%s) - started))
cp "$results" "$OUT_DIR/results.tsv"
echo
export BENCH_ELAPSED=$elapsed BENCH_PINNED=${pin_server:+1}
export BENCH_SWTPM_VERSION
BENCH_SWTPM_VERSION=$(swtpm --version 2>/dev/null | head -n 1 | sed 's/,.*//')
"$root/tests/bench/report.sh" "$OUT_DIR/results.tsv" "$OUT_DIR" || {
	echo "bench: the report could not be made"
	status=1
}
[ "$status" -eq 0 ] || echo "bench: some measurements failed (see above; n/a in the report)"

_FINISHED=1
exit "$status"
