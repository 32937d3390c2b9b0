#!/bin/bash
# The PKCS#11 module's secret keys through pkcs11-tool (OpenSC 0.23), checked by openssl: an
# AES-256 key of a known value stored with --write-object encrypts with AES-ECB, AES-CBC and
# AES-CBC-PAD exactly as `openssl enc` does and decrypts what openssl encrypted, in one part
# (under 1 KiB) and in several (pkcs11-tool's C_EncryptUpdate of 1 KiB pieces); a generic
# secret of a known value signs SHA256-HMAC and SHA512-HMAC as `openssl dgst -mac HMAC` does and
# verifies them; --keygen makes AES:32 and GENERIC:32 keys in the TPM that round-trip and whose
# value pkcs11-tool cannot read. pkcs11-tool 0.23 has no AES-CTR for --encrypt (its
# encrypt_data knows ECB and CBC only): CTR is checked against SP 800-38A in test_pkcs11_sym.
set -eu
. "$(dirname "$0")/lib.sh"

MOD=$BUILD_DIR/lib/libpqtpm-pkcs11.so
sanitizer_preload "$MOD"
export PQTPM_STATE_DIR=$T/state
unset PQTPM_PKCS11_CONF
P11="pkcs11-tool --module $MOD"
SO=so-secret
PIN=123456

run "a token" $P11 --init-token --label alpha --so-pin $SO
run "its user PIN" $P11 --token-label alpha --login --login-type so --so-pin $SO --init-pin \
	--pin $PIN
U11="$P11 --token-label alpha --login --pin $PIN"

key=603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4
iv=000102030405060708090a0b0c0d0e0f
echo "$key" | xxd -r -p >"$T/aes.key"
run "--write-object an AES-256 key of a known value" $U11 --write-object "$T/aes.key" \
	--type secrkey --key-type AES:32 --id 10 --label aes-known
run "-O lists it" $U11 -O --type secrkey
check_eq "a secret key object, AES, 32 bytes" 1 "$(grep -c 'AES length 32' "$T/out")"

head -c 300 /dev/urandom >"$T/small"
head -c 2992 /dev/urandom >"$T/big"    # whole blocks, several pkcs11-tool pieces
head -c 3001 /dev/urandom >"$T/bigpad" # CBC-PAD: not whole blocks
head -c 304 /dev/urandom >"$T/small16"

# aes MECH OPENSSL_CIPHER OPENSSL_FLAGS INPUT: both directions against openssl
aes() {
	local mech=$1 cipher=$2 flags=$3 in=$4 name ivarg=() oiv=()
	name="$mech, $(stat -c %s "$in") bytes"
	if [ "$mech" != AES-ECB ]; then
		ivarg=(--iv "$iv")
		oiv=(-iv "$iv")
	fi
	# shellcheck disable=SC2086 # the openssl flags are separate words
	openssl enc -"$cipher" -K $key "${oiv[@]}" $flags -in "$in" -out "$T/ossl.ct"
	run "$name: pkcs11-tool --encrypt" $U11 --encrypt -m "$mech" "${ivarg[@]}" --id 10 \
		-i "$in" -o "$T/p11.ct"
	check_eq "$name: the ciphertext is openssl's" "$(sha256_hex "$T/ossl.ct")" \
		"$(sha256_hex "$T/p11.ct")"
	run "$name: pkcs11-tool --decrypt of openssl's ciphertext" $U11 --decrypt -m "$mech" \
		"${ivarg[@]}" --id 10 -i "$T/ossl.ct" -o "$T/p11.pt"
	check_eq "$name: the plaintext back" "$(sha256_hex "$in")" "$(sha256_hex "$T/p11.pt")"
}
aes AES-ECB aes-256-ecb -nopad "$T/small16"
aes AES-ECB aes-256-ecb -nopad "$T/big"
aes AES-CBC aes-256-cbc -nopad "$T/small16"
aes AES-CBC aes-256-cbc -nopad "$T/big"
aes AES-CBC-PAD aes-256-cbc "" "$T/small"
aes AES-CBC-PAD aes-256-cbc "" "$T/bigpad"
# a padding that does not check out: zeros encrypted without one end in a zero byte
head -c 32 /dev/zero >"$T/zeros"
openssl enc -aes-256-cbc -K $key -iv $iv -nopad -in "$T/zeros" -out "$T/nopad.ct"
expect_fail "AES-CBC-PAD refuses a ciphertext without padding" $U11 --decrypt -m AES-CBC-PAD \
	--iv $iv --id 10 -i "$T/nopad.ct" -o "$T/bad.pt"

hkey=4a656665000102030405060708090a0b0c0d0e0f
echo "$hkey" | xxd -r -p >"$T/hmac.key"
run "--write-object a generic secret of a known value" $U11 --write-object "$T/hmac.key" \
	--type secrkey --usage-sign --id 20 --label hmac-known
for h in 256 512; do
	for in in small big; do
		run "SHA$h-HMAC of $in: pkcs11-tool --sign" $U11 --sign -m "SHA$h-HMAC" --id 20 \
			-i "$T/$in" -o "$T/mac"
		check_eq "SHA$h-HMAC of $in: openssl's MAC" \
			"$(openssl dgst -sha$h -mac HMAC -macopt hexkey:$hkey -binary "$T/$in" |
				od -An -v -tx1 | tr -d ' \n')" "$(hex_of "$T/mac")"
		run "SHA$h-HMAC of $in: pkcs11-tool --verify" $U11 --verify -m "SHA$h-HMAC" \
			--id 20 -i "$T/$in" --signature-file "$T/mac"
	done
done
check_eq "pkcs11-tool says it is valid" 1 "$(grep -c '^Signature is valid' "$T/out")"
mac=$(hex_of "$T/mac")
# the low bit of its fourth byte flipped
printf '%s%x%s' "${mac:0:7}" $((16#${mac:7:1} ^ 1)) "${mac:8}" | xxd -r -p >"$T/mac"
# pkcs11-tool 0.23 exits 0 on CKR_SIGNATURE_INVALID: its words tell
run "a MAC changed: pkcs11-tool --verify" $U11 --verify -m SHA512-HMAC --id 20 -i "$T/big" \
	--signature-file "$T/mac"
check_eq "a MAC changed does not verify" 1 "$(grep -c '^Invalid signature' "$T/out")"

run "--keygen AES:32" $U11 --keygen --key-type AES:32 --id 30 --label aes-made
run "-O lists it" $U11 -O --type secrkey
check_eq "two AES keys of 32 bytes now" 2 "$(grep -c 'AES length 32' "$T/out")"
check_eq "one of them the new one" 1 "$(grep -c 'label: *aes-made' "$T/out")"
run "the made key encrypts (CBC-PAD)" $U11 --encrypt -m AES-CBC-PAD --iv $iv --id 30 \
	-i "$T/bigpad" -o "$T/made.ct"
run "and decrypts" $U11 --decrypt -m AES-CBC-PAD --iv $iv --id 30 -i "$T/made.ct" \
	-o "$T/made.pt"
check_eq "the made key's round trip" "$(sha256_hex "$T/bigpad")" "$(sha256_hex "$T/made.pt")"
expect_fail "its value cannot be read" $U11 --read-object --type secrkey --id 30 \
	-o "$T/made.key"
run "--keygen GENERIC:32" $U11 --keygen --key-type GENERIC:32 --usage-sign --id 31 \
	--label hmac-made
run "it signs SHA256-HMAC" $U11 --sign -m SHA256-HMAC --id 31 -i "$T/big" -o "$T/mac2"
run "and verifies it" $U11 --verify -m SHA256-HMAC --id 31 -i "$T/big" \
	--signature-file "$T/mac2"
run "the module lists the AES and HMAC mechanisms" $P11 -M
for m in AES-KEY-GEN AES-ECB AES-CBC AES-CBC-PAD AES-CTR GENERIC-SECRET-KEY-GEN SHA256-HMAC \
	SHA512-HMAC; do
	check_eq "-M lists $m" 1 "$(grep -c "^ *$m," "$T/out")"
done

finish
