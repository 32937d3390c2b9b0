#!/bin/bash
# ML-KEM of the PKCS#11 module against an independent implementation, @noble/post-quantum
# (tests/crosscheck/pq.mjs). Debian's pkcs11-tool knows no ML-KEM, so a client of ours,
# tests/integration/helpers/p11_mlkem.c (the module's "PKCS 11" 3.2 interface, built by the
# test), drives it. For ML-KEM-512/768/1024, both ways: noble encapsulates to the public key of
# a key pair the token generated and the token's C_DecapsulateKey gives noble's shared secret;
# the token's C_EncapsulateKey to a key pair noble made (its encapsulation key imported with
# C_CreateObject) gives a ciphertext from which noble decapsulates the token's secret. A
# ciphertext with a flipped byte decapsulates to another secret (implicit rejection).
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
KEM=$T/p11_mlkem
# shellcheck disable=SC2046 # the include flags are separate words
run "build the ML-KEM client" "${CC:-cc}" -std=c11 -Wall -Wextra -Werror -I "$ROOT_DIR/pkcs11" \
	$(pkg-config --cflags p11-kit-1) -o "$KEM" "$LIB_DIR/helpers/p11_mlkem.c" -ldl

run "a token" pkcs11-tool --module "$MOD" --init-token --label alpha --so-pin $SO
run "its user PIN" pkcs11-tool --module "$MOD" --token-label alpha --login --login-type so \
	--so-pin $SO --init-pin --pin $PIN

# HEX with the byte at byte offset POS changed (its low bit flipped)
flip() {
	local h=$1 i=$(($2 * 2 + 1))
	printf '%s%x%s' "${h:0:i}" $((16#${h:i:1} ^ 1)) "${h:i+1}"
}

# noble MODE ARGS...: one line of pq.mjs (empty if it failed)
noble() {
	(cd "$xdir" && node pq.mjs "$@" 2>"$T/noble.err") || true
}

eks=(0 800 1184 1568)
cts=(0 768 1088 1568)
for set in 1 2 3; do
	what="ML-KEM set $set"
	run "$what: a key pair on the token" "$KEM" "$MOD" $PIN gen $set "kem$set"
	ek=$(cat "$T/out")
	check_eq "$what: an encapsulation key of its size" "${eks[set]}" $((${#ek} / 2))
	read -r ct ss <<<"$(noble encaps $set "$ek")"
	check_eq "$what: noble's ciphertext of its size" "${cts[set]}" $((${#ct} / 2))
	run "$what: the token decapsulates noble's ciphertext" "$KEM" "$MOD" $PIN decaps "kem$set" \
		"$ct"
	check_eq "$what: the token's secret is noble's" "$ss" "$(cat "$T/out")"
	bad_ct=$(flip "$ct" 10)
	run "$what: a flipped ciphertext byte decapsulates" "$KEM" "$MOD" $PIN decaps "kem$set" \
		"$bad_ct"
	check_eq "$what: to another secret" different \
		"$([ "$(cat "$T/out")" != "$ss" ] && [ -s "$T/out" ] && echo different || echo same)"

	seed=$(head -c 64 /dev/urandom | od -An -v -tx1 | tr -d ' \n')
	ek2=$(noble kem-keygen $set "$seed")
	check_eq "$what: noble's encapsulation key of its size" "${eks[set]}" $((${#ek2} / 2))
	run "$what: the token encapsulates to noble's key" "$KEM" "$MOD" $PIN encaps "$ek2"
	read -r ct2 ss2 <"$T/out" || true
	check_eq "$what: the token's ciphertext of its size" "${cts[set]}" $((${#ct2} / 2))
	check_eq "$what: noble decapsulates the token's secret" "$ss2" \
		"$(noble decaps $set "$seed" "$ct2")"
done

finish
