#!/bin/bash
# ML-DSA and ML-KEM against an independent implementation, @noble/post-quantum 0.7.1 (pinned in
# tests/crosscheck/package-lock.json): for random seeds and every parameter set, the same public
# keys, deterministic and hedged signatures, ciphertexts and shared secrets; each side verifies
# the other's signatures and decapsulates the other's ciphertexts.
#
#   tests/integration/pq_crosscheck.sh [BUILD_DIR]     (PQ_CROSSCHECK_SEEDS=N, default 20)
#
# Needs BUILD_DIR/tests/pq_tool (built by make from pq_tool.c) and node; installs the pinned
# package with `npm ci` on first use.
set -eu
[ $# -gt 0 ] && export BUILD_DIR=$1
. "$(dirname "$0")/lib.sh"

tool=$BUILD_DIR/tests/pq_tool
xdir=$ROOT_DIR/tests/crosscheck
seeds=${PQ_CROSSCHECK_SEEDS:-20}

if [ ! -x "$tool" ]; then
	bad "$tool missing (run make first)"
	finish
fi
if ! command -v node >/dev/null; then
	bad "node not found"
	finish
fi
if [ ! -d "$xdir/node_modules/@noble/post-quantum" ]; then
	if ! (cd "$xdir" && npm ci --no-audit --no-fund) >"$T/npm.log" 2>&1; then
		bad "npm ci in tests/crosscheck"
		show_tail "$T/npm.log"
		finish
	fi
fi

for _ in $(seq 1 "$seeds"); do
	od -An -v -tx1 -N64 /dev/urandom | tr -d ' \n'
	echo
done >"$T/seeds"

# same LABEL PQTPM NOBLE
same() {
	if [ "$2" = "$3" ]; then
		ok "$1 same"
	else
		bad "$1 differs"
	fi
}

# count_checks WHO FILE: the ok/FAIL lines one side printed about the other's output
count_checks() {
	local st rest
	while read -r st rest; do
		if [ "$st" = ok ]; then
			ok "$1: $rest"
		else
			bad "$1: $rest"
		fi
	done <"$2"
}

# Both sides compute everything from the same seeds: every field must match.
"$tool" gen <"$T/seeds" >"$T/pqtpm.out" || bad "pq_tool gen exit status $?"
(cd "$xdir" && node pq.mjs gen) <"$T/seeds" >"$T/noble.out" || bad "pq.mjs gen exit status $?"
check_eq "line count" "$(wc -l <"$T/noble.out")" "$(wc -l <"$T/pqtpm.out")"
while IFS=' ' read -r kind set seed a b c <&3 && IFS=' ' read -r kind2 set2 seed2 a2 b2 c2 <&4; do
	what="$kind set $set seed ${seed:0:16}:"
	if [ "$kind $set $seed" != "$kind2 $set2 $seed2" ]; then
		bad "$what lines out of step ($kind2 $set2 ${seed2:0:16})"
		continue
	fi
	if [ "$kind" = dsa ]; then
		names=(public-key deterministic-signature hedged-signature)
	else
		names=(encapsulation-key ciphertext shared-secret)
	fi
	same "$what ${names[0]}" "$a" "$a2"
	same "$what ${names[1]}" "$b" "$b2"
	same "$what ${names[2]}" "$c" "$c2"
done 3<"$T/pqtpm.out" 4<"$T/noble.out"

# Each side verifies the other's signatures and decapsulates the other's ciphertexts.
"$tool" check <"$T/noble.out" >"$T/pqtpm.check" || bad "pq_tool check exit status $?"
(cd "$xdir" && node pq.mjs check) <"$T/pqtpm.out" >"$T/noble.check" || bad "pq.mjs check exit status $?"
check_eq "pqtpm checked every noble line" "$(wc -l <"$T/noble.out")" "$(wc -l <"$T/pqtpm.check")"
check_eq "noble checked every pqtpm line" "$(wc -l <"$T/pqtpm.out")" "$(wc -l <"$T/noble.check")"
count_checks "pqtpm on noble's output" "$T/pqtpm.check"
count_checks "noble on pqtpm's output" "$T/noble.check"

finish
