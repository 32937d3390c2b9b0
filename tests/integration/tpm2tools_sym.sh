#!/bin/bash
# tpm2-tools, symmetric and data: hash, HMAC (known key, checked with openssl), AES CFB/CBC
# encrypt/decrypt (round trip and known key), sealing (create -i, unseal).
set -eu
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

K=$T/k
mkdir -p "$K"
printf 'the quick brown fox jumps over the lazy dog\n' >"$K/msg"
head -c 3000 /dev/urandom >"$K/big"         # > 1024 bytes: the tools use a sequence
head -c 100 /dev/urandom >"$K/data100"       # not a multiple of the AES block
head -c 96 /dev/urandom >"$K/data96"         # a multiple of the AES block (for CBC)
printf '000102030405060708090a0b0c0d0e0f' | xxd -r -p >"$K/iv"
printf '2b7e151628aed2a6abf7158809cf4f3c' | xxd -r -p >"$K/aes.key"
printf 'an hmac key of thirty-two bytes!' >"$K/hmac.key"

same_file() {
	if [ -s "$2" ] && cmp -s "$2" "$3"; then ok "$1"; else bad "$1"; fi
}

tpm_start
run "startup clear" tpm2_startup -c
run "createprimary ecc (storage parent)" tpm2_createprimary -C o -G ecc256 -c "$K/p.ctx"

# --- Hash
for f in msg big; do
	for alg in sha1 sha256 sha384; do
		run "hash $alg of $f" tpm2_hash -C o -g "$alg" -o "$K/h.bin" -t "$K/h.tk" "$K/$f"
		check_eq "hash $alg of $f matches ${alg}sum" "$("${alg}sum" "$K/$f" | cut -d' ' -f1)" \
			"$(hex_of "$K/h.bin")"
	done
done
run "hash of empty data" tpm2_hash -g sha256 -o "$K/h.bin" /dev/null
check_eq "hash of empty data matches" \
	e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 "$(hex_of "$K/h.bin")"

# --- HMAC with a key we know (imported), against openssl.
hexkey=$(hex_of "$K/hmac.key")
run "import hmac key" tpm2_import -C "$K/p.ctx" -G hmac -i "$K/hmac.key" -u "$K/hk.u" -r "$K/hk.r"
run "load hmac key" tpm2_load -C "$K/p.ctx" -u "$K/hk.u" -r "$K/hk.r" -c "$K/hk.ctx"
for f in msg big; do
	run "hmac sha256 of $f" tpm2_hmac -c "$K/hk.ctx" -g sha256 -o "$K/mac.bin" "$K/$f"
	want=$(openssl dgst -sha256 -mac HMAC -macopt "hexkey:$hexkey" "$K/$f" | sed 's/.*= //')
	check_eq "hmac of $f matches openssl" "$want" "$(hex_of "$K/mac.bin")"
done

# --- HMAC with a TPM-generated key: same key and data give the same MAC, other data another.
run "create hmac key" tpm2_create -C "$K/p.ctx" -G hmac -u "$K/hg.u" -r "$K/hg.r"
run "load generated hmac key" tpm2_load -C "$K/p.ctx" -u "$K/hg.u" -r "$K/hg.r" -c "$K/hg.ctx"
run "hmac (generated key)" tpm2_hmac -c "$K/hg.ctx" -o "$K/m1" "$K/msg"
run "hmac (generated key) again" tpm2_hmac -c "$K/hg.ctx" -o "$K/m2" "$K/msg"
same_file "hmac is repeatable" "$K/m1" "$K/m2"
run "hmac (generated key) of other data" tpm2_hmac -c "$K/hg.ctx" -o "$K/m3" "$K/data100"
if cmp -s "$K/m1" "$K/m3"; then bad "hmac of other data differs"; else ok "hmac of other data differs"; fi

# --- AES: TPM-generated keys, round trips.
for mode in cfb cbc; do
	run "create aes128$mode key" tpm2_create -C "$K/p.ctx" -G "aes128$mode" -u "$K/a$mode.u" -r "$K/a$mode.r"
	run "load aes128$mode key" tpm2_load -C "$K/p.ctx" -u "$K/a$mode.u" -r "$K/a$mode.r" -c "$K/a$mode.ctx"
	case $mode in cfb) in=data100 ;; cbc) in=data96 ;; esac
	run "encrypt $mode" tpm2_encryptdecrypt -c "$K/a$mode.ctx" -G "$mode" -t "$K/iv" -o "$K/$mode.ct" "$K/$in"
	if cmp -s "$K/$in" "$K/$mode.ct"; then bad "$mode ciphertext differs from plaintext"; else ok "$mode ciphertext differs from plaintext"; fi
	run "decrypt $mode" tpm2_encryptdecrypt -c "$K/a$mode.ctx" -G "$mode" -d -t "$K/iv" -o "$K/$mode.pt" "$K/$mode.ct"
	same_file "aes128 $mode round trip" "$K/$in" "$K/$mode.pt"
done
expect_fail "cbc with a partial block fails" \
	tpm2_encryptdecrypt -c "$K/acbc.ctx" -G cbc -t "$K/iv" -o "$K/x.ct" "$K/data100"

# --- AES with a known key (imported), against openssl.
hexkey=$(hex_of "$K/aes.key")
hexiv=$(hex_of "$K/iv")
run "import aes128 key" tpm2_import -C "$K/p.ctx" -G aes -i "$K/aes.key" -u "$K/ak.u" -r "$K/ak.r"
run "load aes128 key" tpm2_load -C "$K/p.ctx" -u "$K/ak.u" -r "$K/ak.r" -c "$K/ak.ctx"
run "encrypt cfb (known key)" tpm2_encryptdecrypt -c "$K/ak.ctx" -G cfb -t "$K/iv" -o "$K/kc.ct" "$K/data100"
openssl enc -aes-128-cfb -K "$hexkey" -iv "$hexiv" -in "$K/data100" -out "$K/kc.ossl"
same_file "aes128 cfb matches openssl" "$K/kc.ossl" "$K/kc.ct"
run "encrypt cbc (known key)" tpm2_encryptdecrypt -c "$K/ak.ctx" -G cbc -t "$K/iv" -o "$K/kb.ct" "$K/data96"
openssl enc -aes-128-cbc -nopad -K "$hexkey" -iv "$hexiv" -in "$K/data96" -out "$K/kb.ossl"
same_file "aes128 cbc matches openssl" "$K/kb.ossl" "$K/kb.ct"
run "decrypt openssl cfb ciphertext" tpm2_encryptdecrypt -c "$K/ak.ctx" -G cfb -d -t "$K/iv" -o "$K/kc.pt" "$K/kc.ossl"
same_file "openssl -> TPM cfb round trip" "$K/data100" "$K/kc.pt"

# --- Sealing: data in, the same data out; with an auth value, only with it.
printf 'my little secret\n' >"$K/secret"
run "create sealed object" tpm2_create -C "$K/p.ctx" -i "$K/secret" -u "$K/s.u" -r "$K/s.r" -c "$K/s.ctx"
run "unseal" tpm2_unseal -c "$K/s.ctx" -o "$K/s.out"
same_file "unsealed data matches" "$K/secret" "$K/s.out"
run "load sealed object again" tpm2_load -C "$K/p.ctx" -u "$K/s.u" -r "$K/s.r" -c "$K/s2.ctx"
run "unseal after load" tpm2_unseal -c "$K/s2.ctx" -o "$K/s2.out"
same_file "unsealed data matches after load" "$K/secret" "$K/s2.out"
head -c 128 /dev/urandom >"$K/secret128"
run "create sealed object with auth" tpm2_create -C "$K/p.ctx" -p sealpass -i "$K/secret128" \
	-u "$K/sa.u" -r "$K/sa.r" -c "$K/sa.ctx"
run "unseal with auth" tpm2_unseal -c "$K/sa.ctx" -p sealpass -o "$K/sa.out"
same_file "unsealed 128 binary bytes match" "$K/secret128" "$K/sa.out"
expect_rc "unseal with a wrong auth (TPM_RC_AUTH_FAIL or BAD_AUTH)" "0x98e|0x9a2" \
	tpm2_unseal -c "$K/sa.ctx" -p wrongpass -o "$K/sa.bad"
expect_fail "unseal of a signing key is refused" tpm2_unseal -c "$K/hk.ctx"

finish
