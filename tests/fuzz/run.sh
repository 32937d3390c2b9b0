#!/bin/bash
# pqtpm's libFuzzer targets: build, run, smoke-test, regenerate seeds.
#
#   tests/fuzz/run.sh build                 build every target into $FUZZ_BUILD/fuzz/
#   tests/fuzz/run.sh run [SECONDS [T...]]  build, then fuzz each target (or the T named) for
#                                           SECONDS (default 60); prints exec counts
#   tests/fuzz/run.sh smoke [T...]          build, replay every regression input, then fuzz
#                                           each target for FUZZ_SMOKE_SECONDS (default 10);
#                                           exits non-zero on any crash (for make check)
#   tests/fuzz/run.sh seeds                 regenerate the generated seeds (context, state,
#                                           verifier, pkcs11, mssim_frame, engine's hand-made
#                                           ones) under tests/fuzz/corpus/; the recorded
#                                           engine seeds come from tests/fuzz/record.sh
#
# Targets (tests/fuzz/fuzz_<T>.c): engine, mssim_frame, context, state, verifier (the
# attestation verifier, with libpqtpm-attest, libpqtpm-tss and jansson), pkcs11 (the PKCS#11
# module's objects, libp11.a, with libsqlite3). Built with clang 14 and
# -fsanitize=fuzzer,address,undefined (UBSan does not recover: any report is a crash)
# against libpqtpm.a (and the server's objects, libmssim.a) built by the Makefile in $FUZZ_BUILD
# (default build-fuzz) with -fsanitize=fuzzer-no-link, linked with the SP wolfCrypt it was
# compiled against
# (build/wolfssl-sp; Debian's libwolfssl has other struct sizes: Aes is 1104 bytes there, 304
# in the SP build).
#
# Everything is built with -DPQTPM_FUZZ_DETERMINISTIC_RNG (and FUZZING_BUILD_MODE_UNSAFE_FOR_
# PRODUCTION, without which core/crypto/rng.c refuses it): crypto_random is a fixed stream that
# every input starts over, so that a crash input replays exactly. The smoke test checks that
# no other build in the tree has it.
#
# Corpora: seeds are read from tests/fuzz/corpus/<T>/ (committed, never written); what the
# fuzzer finds goes to $FUZZ_BUILD/corpus/<T>/ (kept between runs), crashes to
# $FUZZ_BUILD/artifacts/<T>/. A crash found: fix it, then commit the input as
# tests/fuzz/regressions/<T>/<name> so that the smoke test replays it from then on.
#
# Environment: FUZZ_BUILD, FUZZ_SMOKE_SECONDS, FUZZ_JOBS (targets run at once; default 1,
# 2 for smoke),
# FUZZ_ARGS (extra libFuzzer flags), CC_FUZZ (default clang).
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
FUZZ_BUILD=${FUZZ_BUILD:-build-fuzz}
CC_FUZZ=${CC_FUZZ:-clang}
MAKE=${MAKE:-make}
ALL_TARGETS="engine mssim_frame context state verifier pkcs11"
out=$FUZZ_BUILD/fuzz
FUZZ_DEFS="-DPQTPM_FUZZ_DETERMINISTIC_RNG -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION"
LIB_CFLAGS="-fsanitize=fuzzer-no-link -Wno-unused-command-line-argument $FUZZ_DEFS"

# libFuzzer flags per target: largest input, and time allowed for one.
target_flags() {
	case $1 in
	engine) echo "-max_len=16384 -timeout=30" ;;
	mssim_frame) echo "-max_len=20000 -timeout=10" ;;
	context) echo "-max_len=8192 -timeout=10" ;;
	state) echo "-max_len=32768 -timeout=20" ;;
	verifier) echo "-max_len=32768 -timeout=10" ;;
	pkcs11) echo "-max_len=8192 -timeout=30" ;;
	esac
}

# What a target needs beyond the others: include flags, then libraries.
target_cflags() {
	case $1 in
	pkcs11) echo "-Ipkcs11 $(pkg-config --cflags p11-kit-1)" ;;
	esac
}
target_libs() {
	case $1 in
	pkcs11) echo "$FUZZ_BUILD/obj/libp11.a -lsqlite3" ;;
	esac
}

build() {
	local t jflag
	if ! command -v "$CC_FUZZ" >/dev/null; then
		echo "fuzz: $CC_FUZZ not found (Debian: clang libclang-rt-14-dev; make deps)" >&2
		return 1
	fi
	echo "fuzz: building libpqtpm.a in $FUZZ_BUILD (clang, ASan+UBSan, fuzzer-no-link)"
	# the Makefile does not track flags: objects built with other ones are built again
	if [ "$(cat "$FUZZ_BUILD/cflags" 2>/dev/null)" != "$LIB_CFLAGS" ]; then
		rm -rf "$FUZZ_BUILD/obj" "$FUZZ_BUILD/lib" "$out"
		mkdir -p "$FUZZ_BUILD"
		echo "$LIB_CFLAGS" >"$FUZZ_BUILD/cflags"
	fi
	# in parallel, unless a parent make already shares its job slots with us
	case " ${MAKEFLAGS:-} " in
	*jobserver* | *" -j"*) jflag= ;;
	*) jflag=-j$(nproc 2>/dev/null || echo 2) ;;
	esac
	# shellcheck disable=SC2086
	$MAKE --no-print-directory -s $jflag BUILD="$FUZZ_BUILD" CC="$CC_FUZZ" SAN=1 \
		CFLAGS="$LIB_CFLAGS" "$FUZZ_BUILD/lib/libpqtpm.a" "$FUZZ_BUILD/obj/libmssim.a" \
		"$FUZZ_BUILD/lib/libpqtpm-attest.a" "$FUZZ_BUILD/lib/libpqtpm-tss.a" \
		"$FUZZ_BUILD/obj/libp11.a"
	mkdir -p "$out"
	for t in $ALL_TARGETS; do
		if [ "$out/fuzz_$t" -nt "tests/fuzz/fuzz_$t.c" ] &&
			[ "$out/fuzz_$t" -nt "$FUZZ_BUILD/lib/libpqtpm.a" ] &&
			[ "$out/fuzz_$t" -nt "$FUZZ_BUILD/obj/libmssim.a" ] &&
			[ "$out/fuzz_$t" -nt "$FUZZ_BUILD/lib/libpqtpm-attest.a" ] &&
			[ "$out/fuzz_$t" -nt "$FUZZ_BUILD/obj/libp11.a" ] &&
			[ "$out/fuzz_$t" -nt tests/fuzz/fuzz_util.h ]; then
			continue
		fi
		# PQTPM_CHECK_STATE as SAN=1 built the library: harnesses that reach into the engine
		# must see its structures laid out the same way.
		# shellcheck disable=SC2046,SC2086
		"$CC_FUZZ" -std=c11 -D_GNU_SOURCE -O1 -g -fno-omit-frame-pointer $FUZZ_DEFS \
			-DPQTPM_CHECK_STATE \
			-Wall -Wextra -Wno-unused-parameter -Werror \
			-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
			-Iinclude -Icore -Imssim -Itests/fuzz -Ibuild/wolfssl-sp/include \
			$(target_cflags "$t") "tests/fuzz/fuzz_$t.c" $(target_libs "$t") \
			"$FUZZ_BUILD/lib/libpqtpm-attest.a" \
			"$FUZZ_BUILD/lib/libpqtpm-tss.a" "$FUZZ_BUILD/obj/libmssim.a" \
			"$FUZZ_BUILD/lib/libpqtpm.a" build/wolfssl-sp/lib/libwolfssl.a -ljansson -lpthread \
			-lm -o "$out/fuzz_$t"
	done
}

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# The directory a target's temporary files go to: pkcs11's token store is fsync'ed at every
# object, so it goes to memory (/dev/shm) when there is one.
target_tmp() {
	if [ "$1" = pkcs11 ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
		echo "/dev/shm/pqtpm-fuzz-$1-$$"
	else
		echo "$FUZZ_BUILD/tmp/$1"
	fi
}

# run_one T SECONDS LOG: fuzz T for SECONDS; the exit status is the fuzzer's.
run_one() {
	local t=$1 secs=$2 log=$3 seeds=tests/fuzz/corpus/$1 work=$FUZZ_BUILD/corpus/$1
	local tmp st=0
	tmp=$(target_tmp "$t")
	mkdir -p "$work" "$FUZZ_BUILD/artifacts/$t" "$tmp"
	[ -d "$seeds" ] || seeds=
	# TMPDIR: fuzz_state's state directory, which libFuzzer's exit leaves behind
	# shellcheck disable=SC2046,SC2086
	TMPDIR=$tmp "$out/fuzz_$t" $(target_flags "$t") -max_total_time="$secs" \
		-print_final_stats=1 -rss_limit_mb=2560 -artifact_prefix="$FUZZ_BUILD/artifacts/$t/" \
		${FUZZ_ARGS:-} "$work" $seeds >"$log" 2>&1 || st=$?
	rm -rf "$tmp"
	return $st
}

# One line per target from its log: runs, time, rate, coverage, corpus size.
summarize() {
	local t=$1 log=$2 st=$3 execs secs cov ft corp
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	secs=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -n 1)
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)
	ft=$(grep -o 'ft: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)
	corp=$(grep -o 'corp: [0-9]*/[0-9a-zA-Z]*' "$log" | tail -n 1 | cut -d' ' -f2)
	if [ "$st" -eq 0 ]; then
		printf 'fuzz %-12s %10s execs in %4ss (%s/s), cov %s, ft %s, corpus %s\n' "$t" \
			"${execs:-?}" "${secs:-?}" \
			"$([ -n "${execs:-}" ] && [ -n "${secs:-}" ] && [ "$secs" -gt 0 ] &&
				echo $((execs / secs)) || echo '?')" \
			"${cov:-?}" "${ft:-?}" "${corp:-?}"
	else
		echo "fuzz $t: CRASH or error (exit $st), after ${execs:-?} execs; log:"
		grep -E -A 30 'ERROR: |runtime error|deadly signal|fuzz_[a-z_]*: |Test unit written' \
			"$log" | head -n 60 | sed 's/^/  | /'
	fi
}

# Replays every committed regression input of each target. Returns 1 on any failure.
regressions() {
	local t f n bad=0 log
	mkdir -p "$FUZZ_BUILD/tmp"
	for t in "$@"; do
		[ -d "tests/fuzz/regressions/$t" ] || continue
		n=0
		for f in "tests/fuzz/regressions/$t"/*; do
			[ -f "$f" ] || continue
			case $f in *.md | *.txt) continue ;; esac
			n=$((n + 1))
			log=$FUZZ_BUILD/logs/regression-$t-$(basename "$f").log
			# shellcheck disable=SC2046
			if ! PQTPM_FUZZ_RESET=1 TMPDIR=$FUZZ_BUILD/tmp "$out/fuzz_$t" \
				$(target_flags "$t") "$f" >"$log" 2>&1; then
				echo "fuzz regression $t/$(basename "$f"): FAILS"
				grep -E -A 20 'ERROR: |runtime error|deadly signal' "$log" | head -n 30 |
					sed 's/^/  | /'
				bad=1
			fi
		done
		echo "fuzz regression $t: $n input(s) replayed"
	done
	return $bad
}

# fuzz_all SECONDS T...: fuzz the targets, FUZZ_JOBS at a time. Returns 1 on any crash.
fuzz_all() {
	local secs=$1 fail=0 jobs=${FUZZ_JOBS:-1} i=0 j k st
	shift
	local list=("$@") batch pids
	mkdir -p "$FUZZ_BUILD/logs"
	while [ "$i" -lt "${#list[@]}" ]; do
		batch=()
		pids=()
		for ((j = 0; j < jobs && i < ${#list[@]}; j++, i++)); do
			run_one "${list[$i]}" "$secs" "$FUZZ_BUILD/logs/${list[$i]}.log" &
			pids+=($!)
			batch+=("${list[$i]}")
		done
		for k in "${!batch[@]}"; do
			st=0
			wait "${pids[$k]}" || st=$?
			summarize "${batch[$k]}" "$FUZZ_BUILD/logs/${batch[$k]}.log" "$st"
			[ "$st" -eq 0 ] || fail=1
		done
	done
	return $fail
}

# The deterministic RNG is in the fuzz build and in no other build of the tree (make check's
# build, build-system, build-asan, any build-*): its symbol shows where it was compiled in.
deterministic_rng_only_here() {
	local lib bad=0
	if ! nm "$FUZZ_BUILD/lib/libpqtpm.a" 2>/dev/null | grep -q ' T crypto_fuzz_rng_reset$'; then
		echo "fuzz: $FUZZ_BUILD/lib/libpqtpm.a lacks the deterministic RNG"
		bad=1
	fi
	for lib in build*/lib/libpqtpm.a; do
		[ -f "$lib" ] && [ "$lib" != "$FUZZ_BUILD/lib/libpqtpm.a" ] || continue
		if nm "$lib" 2>/dev/null | grep -q crypto_fuzz_rng_reset; then
			echo "fuzz: $lib has the deterministic RNG (PQTPM_FUZZ_DETERMINISTIC_RNG)"
			bad=1
		fi
	done
	[ $bad -eq 0 ] && echo "fuzz: deterministic RNG in $FUZZ_BUILD only"
	return $bad
}

seeds() {
	local t d
	for t in context state verifier pkcs11; do
		d=tests/fuzz/corpus/$t
		mkdir -p "$d"
		PQTPM_FUZZ_WRITE_SEEDS=$d "$out/fuzz_$t" >/dev/null 2>&1 ||
			{ echo "fuzz: $t seed writer failed" >&2; return 1; }
		echo "fuzz: seeds for $t in $d"
	done
	tests/fuzz/mssim_seeds.sh tests/fuzz/corpus/mssim_frame
	tests/fuzz/engine_seeds.sh tests/fuzz/corpus/engine
	echo "fuzz: recorded tpm2-tools seeds for engine: tests/fuzz/record.sh (needs a server)"
}

cmd=${1:-run}
[ $# -gt 0 ] && shift
case $cmd in
build)
	build
	;;
run)
	secs=${1:-60}
	[ $# -gt 0 ] && shift
	targets=${*:-$ALL_TARGETS}
	build
	# shellcheck disable=SC2086
	fuzz_all "$secs" $targets
	;;
smoke)
	targets=${*:-$ALL_TARGETS}
	start=$(date +%s)
	build
	mkdir -p "$FUZZ_BUILD/logs"
	# two at a time by default: nothing else runs during make check's smoke test
	FUZZ_JOBS=${FUZZ_JOBS:-2}
	st=0
	deterministic_rng_only_here || st=1
	# shellcheck disable=SC2086
	regressions $targets || st=1
	# shellcheck disable=SC2086
	fuzz_all "${FUZZ_SMOKE_SECONDS:-10}" $targets || st=1
	echo "fuzz smoke: $([ $st -eq 0 ] && echo passed || echo FAILED) in $(($(date +%s) - start)) s"
	exit $st
	;;
seeds)
	build
	seeds
	;;
*)
	echo "usage: $0 build | run [SECONDS [TARGET...]] | smoke [TARGET...] | seeds" >&2
	exit 2
	;;
esac
