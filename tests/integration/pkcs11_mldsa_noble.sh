#!/bin/bash
# ML-DSA signatures of the PKCS#11 module checked by an independent implementation,
# @noble/post-quantum (tests/crosscheck): a small client of ours (helpers/p11_mldsa_sign.c,
# through the function list: Debian's pkcs11-tool knows no ML-DSA) generates ML-DSA-44/65/87
# keys on a token and signs a message in one part and in two, without and with a context
# string; noble verifies each signature (FIPS 204 pure ML-DSA) with the key's CKA_VALUE, and
# refuses it with a flipped signature byte, a flipped message byte or another context. The same
# for HashML-DSA (CKM_HASH_ML_DSA_SHA256/384/512 with ML-DSA-44/65/87 and a context): noble's
# HashML-DSA verifies them, its pure ML-DSA does not.
set -eu
. "$(dirname "$0")/lib.sh"

MOD=$BUILD_DIR/lib/libpqtpm-pkcs11.so
xdir=$ROOT_DIR/tests/crosscheck
sanitizer_preload "$MOD"
export PQTPM_STATE_DIR=$T/state
unset PQTPM_PKCS11_CONF
SO=so-secret
PIN=123456

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
SIGNER=$T/p11_mldsa_sign
# shellcheck disable=SC2046 # the include flags are separate words
run "build the ML-DSA client" "${CC:-cc}" -std=c11 -Wall -Wextra -Werror -I "$ROOT_DIR/pkcs11" \
	$(pkg-config --cflags p11-kit-1) -o "$SIGNER" "$LIB_DIR/helpers/p11_mldsa_sign.c" -ldl

run "a token" pkcs11-tool --module "$MOD" --init-token --label alpha --so-pin $SO
run "its user PIN" pkcs11-tool --module "$MOD" --token-label alpha --login --login-type so \
	--so-pin $SO --init-pin --pin $PIN

# HEX with the byte at byte offset POS changed (its low bit flipped)
flip() {
	local h=$1 i=$(($2 * 2 + 1))
	printf '%s%x%s' "${h:0:i}" $((16#${h:i:1} ^ 1)) "${h:i+1}"
}

# ask NAME WANT QUESTION...: a question for noble (pq.mjs's one-shot arguments), answered with
# all the others by one node process at the end (answer_all), where its answer must be WANT
: >"$T/questions"
: >"$T/wants"
ask() {
	local name=$1 want=$2
	shift 2
	echo "$*" >>"$T/questions"
	printf '%s\t%s\n' "$want" "$name" >>"$T/wants"
}
answer_all() {
	local want name got
	run "noble answers $(wc -l <"$T/questions") questions" \
		sh -c 'cd "$1" && node pq.mjs batch <"$2" >"$3"' - "$xdir" "$T/questions" "$T/answers"
	while IFS=$'\t' read -r want name got; do
		check_eq "$name" "$want" "$got"
	done < <(paste "$T/wants" "$T/answers")
}

# noble NAME WANT SET PK MSG CTX SIG: noble's verdict (ok or FAIL) on the signature
noble() {
	ask "$1" "$2" verify "$3" "$4" "$5" "$6" "$7"
}

short=$(printf 'a message for ML-DSA' | od -An -v -tx1 | tr -d ' \n')
long=$(head -c 3000 /dev/urandom | od -An -v -tx1 | tr -d ' \n')
ctx=$(printf 'pqtpm-pkcs11' | od -An -v -tx1 | tr -d ' \n')
sizes=(0 1312 1952 2592)
for set in 1 2 3; do
	for c in - "$ctx"; do
		msg=$short
		[ "$set" != 2 ] || msg=$long
		what="ML-DSA set $set, $([ "$c" = - ] && echo no context || echo context pqtpm-pkcs11)"
		run "$what: key and signatures from the module" "$SIGNER" "$MOD" $set $PIN "$msg" "$c"
		read -r pk m sig sig2 <"$T/out" || true
		check_eq "$what: a public key of its size" "${sizes[set]}" $((${#pk} / 2))
		check_eq "$what: the message printed back" "$msg" "$m"
		noble "$what: noble verifies the signature" ok $set "$pk" "$msg" "$c" "$sig"
		noble "$what: and the multi-part one" ok $set "$pk" "$msg" "$c" "$sig2"
		noble "$what: noble refuses a flipped signature byte" FAIL $set "$pk" "$msg" "$c" \
			"$(flip "$sig" 100)"
		noble "$what: noble refuses a flipped message byte" FAIL $set "$pk" "$(flip "$msg" 3)" \
			"$c" "$sig"
		if [ "$c" = - ]; then
			other=$ctx
		else
			other=-
		fi
		noble "$what: noble refuses it under another context" FAIL $set "$pk" "$msg" "$other" \
			"$sig"
	done
done

hashes=(- sha256 sha384 sha512)
for set in 1 2 3; do
	h=${hashes[set]}
	what="HashML-DSA set $set with $h"
	run "$what: key and signatures from the module" "$SIGNER" "$MOD" $set $PIN "$long" "$ctx" $h
	read -r pk m sig sig2 <"$T/out" || true
	for s in "$sig" "$sig2"; do
		ask "$what: noble's HashML-DSA verifies it" ok verify-hash $set $h "$pk" "$long" "$ctx" "$s"
	done
	ask "$what: not for a flipped message byte" FAIL verify-hash $set $h "$pk" \
		"$(flip "$long" 7)" "$ctx" "$sig"
	ask "$what: not without its context" FAIL verify-hash $set $h "$pk" "$long" - "$sig"
	noble "$what: not a pure ML-DSA signature" FAIL $set "$pk" "$long" "$ctx" "$sig"
done

answer_all
finish
