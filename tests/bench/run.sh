#!/bin/bash
# make bench: tests/bench/run.sh [BUILD_DIR]
#
# Starts pqtpm-server, runs BUILD_DIR/bench/tpm_bench, kernel_flow (the kernel's salted-session
# PCR extend step by step, own raw client) and nv_bench (NV latency) against it, stops it; then
# the same with Debian's swtpm (its own TCTI, raw command port); prints a Markdown table
# comparing the two, then kernel_flow once more against an in-process engine (the engine's own
# cost). Servers run on CPU 1 and the client on CPU 0 where there are two CPUs. Any other
# program in BUILD_DIR/bench/ is run afterwards without arguments (a benchmark prints its own
# figures). BENCH_QUICK=1: fewer iterations. Exits non-zero if a server or a measurement
# failed.
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
BUILD_DIR=${1:-build}
case $BUILD_DIR in /*) ;; *) BUILD_DIR=$root/$BUILD_DIR ;; esac
export BUILD_DIR
# shellcheck source=tests/integration/lib.sh
. "$root/tests/integration/lib.sh"

bench=$BUILD_DIR/bench/tpm_bench
kflow=$BUILD_DIR/bench/kernel_flow
for b in "$bench" "$kflow"; do
	if [ ! -x "$b" ]; then
		echo "bench: $b not built" >&2
		exit 1
	fi
done
client_wrap=""
if [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null; then
	SERVER_WRAP="taskset -c 1"
	client_wrap="taskset -c 0"
fi
export SERVER_LOG_LEVEL=warn
status=0

# bench_target IMPL KIND [ENV...]: results in $T/IMPL.res (RESULT lines), output shown.
bench_target() {
	local impl=$1 kind=$2 st=0
	shift 2
	TPM_IMPL=$impl
	: >"$T/$impl.res"
	if ! tpm_start; then
		echo "bench: could not start $impl"
		status=1
		return 0
	fi
	echo "== $impl ($TCTI)"
	# shellcheck disable=SC2086
	env "$@" $client_wrap timeout -k 5 900 "$bench" "$TCTI" "$kind" 127.0.0.1 "$PORT" \
		>"$T/$impl.out" 2>&1 || st=$?
	grep -v '^RESULT' "$T/$impl.out" || true
	grep '^RESULT' "$T/$impl.out" >"$T/$impl.res" || true
	[ "$st" -eq 0 ] || { echo "bench: tpm_bench against $impl exited $st"; status=1; }
	# The kernel flow on the same server, once tpm_bench's connections are closed.
	st=0
	# shellcheck disable=SC2086
	env "$@" BENCH_SERVER_PID="$SERVER_PID" $client_wrap timeout -k 5 900 "$kflow" "$kind" \
		127.0.0.1 "$PORT" \
		>"$T/$impl.kf.out" 2>&1 || st=$?
	grep -v '^RESULT' "$T/$impl.kf.out" || true
	grep '^RESULT' "$T/$impl.kf.out" >>"$T/$impl.res" || true
	[ "$st" -eq 0 ] || { echo "bench: kernel_flow against $impl exited $st"; status=1; }
	# NV latency (durable NV_Write, NV_Read, NV_Increment) on the same server.
	st=0
	# shellcheck disable=SC2086
	$client_wrap timeout -k 5 600 "$BUILD_DIR/bench/nv_bench" "$kind" 127.0.0.1 "$PORT" \
		>"$T/$impl.nv.out" 2>&1 || st=$?
	grep -v '^RESULT' "$T/$impl.nv.out" || true
	grep '^RESULT' "$T/$impl.nv.out" >>"$T/$impl.res" || true
	[ "$st" -eq 0 ] || { echo "bench: nv_bench against $impl exited $st"; status=1; }
	tpm_stop || status=1
}

bench_target pqtpm mssim
if command -v swtpm >/dev/null; then
	# swtpm serves one connection at a time: no concurrent-client figures for it.
	bench_target swtpm raw BENCH_MAX_CLIENTS=1
else
	echo "bench: swtpm not installed, no comparison"
	: >"$T/swtpm.res"
fi

echo
echo "| operation | pqtpm median µs | p99 | swtpm median | p99 | ratio |"
echo "| --- | ---: | ---: | ---: | ---: | ---: |"
awk -F'\t' '
	function num(v) { return v != "" && v != "-" && v != "n/a" && v + 0 > 0 }
	function show(v) { return (v == "" || v == "-") ? "n/a" : v }
	function rate(v) { return num(v) ? v " ops/s" : show(v) }
	FNR == 1 { file++ }
	file == 1 { order[++n] = $2; label[$2] = $3; unit[$2] = $4; pm[$2] = $5; pp[$2] = $6; next }
	file == 2 { sm[$2] = $5; sp[$2] = $6; if (!($2 in label)) { order[++n] = $2; label[$2] = $3; unit[$2] = $4 } }
	END {
		for (i = 1; i <= n; i++) {
			k = order[i]
			r = "n/a"
			if (num(pm[k]) && num(sm[k]))
				r = sprintf("%.2f", unit[k] == "ops/s" ? pm[k] / sm[k] : sm[k] / pm[k])
			name = label[k]
			if (unit[k] == "ops/s")
				printf "| %s | %s | - | %s | - | %s |\n", name, rate(pm[k]), rate(sm[k]), r
			else
				printf "| %s | %s | %s | %s | %s | %s |\n", name, show(pm[k]), show(pp[k]), show(sm[k]), show(sp[k]), r
		}
	}' "$T/pqtpm.res" "$T/swtpm.res"
echo
echo "ratio: how many times faster pqtpm is (swtpm time / pqtpm time; pqtpm ops/s / swtpm ops/s)."
echo "swtpm: Debian's $(swtpm --version 2>/dev/null | head -n 1 | sed 's/,.*//'), TCTI swtpm, raw command port; one connection at a time."
echo "kernel flow rows: kernel_flow's own raw client (not ESAPI), session crypto from libpqtpm's"
echo "core/crypto (wolfSSL), every response HMAC verified; the client's ephemeral ECDH for the"
echo "salt is computed before each iteration's clock starts. Target: kernel flow total <= 300 µs."
[ -n "$client_wrap" ] && echo "CPU: servers pinned to CPU 1, client to CPU 0."
echo "load average when done: $(cut -d' ' -f1-3 /proc/loadavg)"

# The same flow against an in-process engine: what the engine itself costs, without the
# socket round trips and the scheduling between client and server.
echo
echo "== kernel_flow engine (in-process pqtpm engine, no transport)"
st=0
# shellcheck disable=SC2086
$client_wrap timeout -k 5 600 "$kflow" engine >"$T/engine.kf.out" 2>&1 || st=$?
grep -v '^RESULT' "$T/engine.kf.out" || true
[ "$st" -eq 0 ] || { echo "bench: kernel_flow engine exited $st"; status=1; }

for b in "$BUILD_DIR"/bench/*; do
	if [ ! -f "$b" ] || [ ! -x "$b" ]; then continue; fi
	case $(basename "$b") in tpm_bench | kernel_flow | nv_bench) continue ;; esac
	echo
	echo "== $(basename "$b")"
	# shellcheck disable=SC2086
	$client_wrap timeout -k 5 600 "$b" || { echo "bench: $(basename "$b") failed"; status=1; }
done

_FINISHED=1
exit "$status"
