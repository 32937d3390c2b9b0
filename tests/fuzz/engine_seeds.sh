#!/bin/bash
# Writes hand-made fuzz_engine seeds into DIR (format in fuzz_engine.c): commands wrapped in
# a real HMAC session (flags 0xe0: AES-128-CFB session, 0xf0: XOR session), with parameter
# decryption and response encryption, which recorded traffic does not show the fuzzer how
# to reach. Seeds: u8 flags, u16 length, payload; payload = u32 cc, u8 handle count,
# handles, u8 session attributes, parameters.
#   tests/fuzz/engine_seeds.sh DIR
set -eu
dir=${1:?usage: engine_seeds.sh DIR}
mkdir -p "$dir"

# rec FLAGS HEX: one record
rec() { local f=$1 h; shift; h=$(echo "$*" | tr -d " "); printf "%02x%04x%s" "$f" $((${#h} / 2)) "$h"; }
seed() { local name=$1; shift; echo "$*" | tr -d ' ' | xxd -r -p >"$dir/hand-$name"; }

d32=$(printf '%064x' 0)
d16=0102030405060708090a0b0c0d0e0f10
# TPM2B_PUBLIC: an ECC P-256 ECDSA signing key; an AES-128-CFB encrypt/decrypt key
ecc_pub="0018 0023 000b 00040072 0000 0010 0018 000b 0003 0010 0000 0000"
aes_pub="0012 0025 000b 00060072 0000 0006 0080 0043 0000"
# CreatePrimary(owner), empty auth; the inSensitive TPM2B is the parameter decrypted
primary() { echo "00000131 01 40000001 $1 0004 0000 0000 $2 0000 00000000"; }

for f in e0 f0; do
	# GetRandom with response encryption (continueSession | encrypt), twice
	seed "getrandom-enc-$f" "$(rec 0x$f 0000017b 00 41 0010)$(rec 0x$f 0000017b 00 41 0020)"
	# StirRandom with parameter decryption (continueSession | decrypt)
	seed "stirrandom-dec-$f" "$(rec 0x$f 00000146 00 21 0008 0102030405060708)"
	# Hash with decryption and encryption: data, SHA-256, owner
	seed "hash-decenc-$f" "$(rec 0x$f 0000017d 00 61 0005 68656c6c6f 000b 40000001)"
	# PCR_Extend(16) authorized by the session
	seed "pcrextend-$f" "$(rec 0x$f 00000182 01 00000010 01 00000001 000b "$d32")"
	# CreatePrimary with decryption, then Sign with the key, authorized by the session
	seed "createprimary-sign-$f" "$(rec 0x$f "$(primary 21 "$ecc_pub")")" \
		"$(rec 0x$f 0000015d 01 80000000 01 0020 "$d32" 0010 8024 40000007 0000)"
	# EncryptDecrypt2 on an AES key: inData decrypted, outData encrypted
	seed "encryptdecrypt2-$f" "$(rec 0x$f "$(primary 01 "$aes_pub")")" \
		"$(rec 0x$f 00000193 01 80000000 61 0010 $d16 00 0043 0010 $d16)"
done
echo "fuzz: hand-made engine seeds in $dir ($(find "$dir" -name 'hand-*' | wc -l) files)"
