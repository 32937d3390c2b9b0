#!/bin/bash
# Keys made by openssl imported into the PKCS#11 module by real clients: pkcs11-tool
# --write-object of RSA-2048 and EC P-256 private keys (C_CreateObject, TPM2_Import under the
# token's storage key) and of their public keys; the imported private keys sign, openssl
# verifies with the original public keys and the module with the imported ones; the private
# values are nowhere in the store. p11tool --write --load-privkey imports an RSA-3072 key
# that then signs (openssl verifies). pkcs11-tool sets a label (C_SetAttributeValue), and
# --test passes with the imported keys on the token.
set -eu
. "$(dirname "$0")/lib.sh"

MOD=$BUILD_DIR/lib/libpqtpm-pkcs11.so
sanitizer_preload "$MOD"
export PQTPM_STATE_DIR=$T/state
unset PQTPM_PKCS11_CONF
P11="pkcs11-tool --module $MOD"
SO=so-secret
PIN=123456

run "pkcs11-tool --init-token" $P11 --init-token --label imp --so-pin $SO
run "pkcs11-tool --init-pin" $P11 --token-label imp --login --login-type so --so-pin $SO \
	--init-pin --pin $PIN
U11="$P11 --token-label imp --login --pin $PIN"
printf 'a message from an imported key' >"$T/msg"

# ---- RSA-2048 and EC P-256 from openssl, through pkcs11-tool ----
run "openssl makes an RSA-2048 key" openssl genpkey -algorithm RSA \
	-pkeyopt rsa_keygen_bits:2048 -out "$T/rsa.pem"
run "openssl makes an EC P-256 key" openssl genpkey -algorithm EC \
	-pkeyopt ec_paramgen_curve:P-256 -out "$T/ec.pem"
for k in rsa ec; do
	openssl pkey -in "$T/$k.pem" -outform DER -out "$T/$k.der"
	openssl pkey -in "$T/$k.pem" -pubout -out "$T/$k.pub.pem"
	openssl pkey -in "$T/$k.pem" -pubout -outform DER -out "$T/$k.pub.der"
done
run "pkcs11-tool --write-object RSA private key" $U11 --write-object "$T/rsa.der" \
	--type privkey --id 21 --label rsa-imported
run "pkcs11-tool --write-object RSA public key" $U11 --write-object "$T/rsa.pub.der" \
	--type pubkey --id 21 --label rsa-imported
run "pkcs11-tool --write-object EC private key" $U11 --write-object "$T/ec.der" \
	--type privkey --id 22 --label ec-imported
run "pkcs11-tool --write-object EC public key" $U11 --write-object "$T/ec.pub.der" \
	--type pubkey --id 22 --label ec-imported
run "pkcs11-tool lists the imported keys" $U11 --list-objects
check_eq "two private keys listed" 2 "$(grep -c '^Private Key Object' "$T/out")"
check_eq "two public keys listed" 2 "$(grep -c '^Public Key Object' "$T/out")"

run "sign SHA256-RSA-PKCS with the imported key" $U11 --sign --id 21 -m SHA256-RSA-PKCS \
	-i "$T/msg" -o "$T/rsa.sig"
run "openssl verifies it with the original public key" openssl dgst -sha256 \
	-verify "$T/rsa.pub.pem" -signature "$T/rsa.sig" "$T/msg"
run "the module verifies it with the imported public key" $U11 --verify --id 21 \
	-m SHA256-RSA-PKCS -i "$T/msg" --signature-file "$T/rsa.sig"
check_eq "pkcs11-tool: valid" 1 "$(grep -c '^Signature is valid' "$T/out")"
run "sign SHA256-RSA-PKCS-PSS with the imported key" $U11 --sign --id 21 \
	-m SHA256-RSA-PKCS-PSS -i "$T/msg" -o "$T/pss.sig"
run "openssl verifies the PSS signature" openssl dgst -sha256 -sigopt rsa_padding_mode:pss \
	-sigopt rsa_pss_saltlen:32 -verify "$T/rsa.pub.pem" -signature "$T/pss.sig" "$T/msg"
run "sign ECDSA-SHA256 with the imported key" $U11 --sign --id 22 -m ECDSA-SHA256 \
	--signature-format openssl -i "$T/msg" -o "$T/ec.sig"
run "openssl verifies it with the original public key" openssl dgst -sha256 \
	-verify "$T/ec.pub.pem" -signature "$T/ec.sig" "$T/msg"
run "sign ECDSA-SHA256 (r || s)" $U11 --sign --id 22 -m ECDSA-SHA256 -i "$T/msg" \
	-o "$T/ec.raw"
run "the module verifies it with the imported public key" $U11 --verify --id 22 \
	-m ECDSA-SHA256 -i "$T/msg" --signature-file "$T/ec.raw"
check_eq "pkcs11-tool: valid" 1 "$(grep -c '^Signature is valid' "$T/out")"
printf 'another message' >"$T/other"
run "verify a signature of another message" $U11 --verify --id 21 -m SHA256-RSA-PKCS \
	-i "$T/other" --signature-file "$T/rsa.sig"
check_eq "pkcs11-tool: invalid" 1 "$(cat "$T/out" "$T/err" | grep -c 'Invalid signature')"

# The private values: in the store neither as the keys' DER nor as their primes or scalar.
openssl pkey -in "$T/rsa.pem" -text -noout | sed -n '/^prime1:/,/^prime2:/p' | sed '1d;$d' |
	tr -d ' :\n' | sed 's/^00//' >"$T/p.hex"
openssl pkey -in "$T/ec.pem" -text -noout | sed -n '/^priv:/,/^pub:/p' | sed '1d;$d' |
	tr -d ' :\n' | sed 's/^00//' >"$T/d.hex"
STORE_HEX=$(cat "$T/state"/pkcs11.db* | od -An -v -tx1 | tr -d ' \n')
check_eq "the RSA prime p was read from openssl" yes \
	"$([ "$(wc -c <"$T/p.hex")" -ge 250 ] && echo yes || echo no)"
check_eq "the store does not hold p" no \
	"$(case $STORE_HEX in *"$(cat "$T/p.hex")"*) echo yes ;; *) echo no ;; esac)"
check_eq "the store does not hold the EC scalar" no \
	"$(case $STORE_HEX in *"$(cat "$T/d.hex")"*) echo yes ;; *) echo no ;; esac)"

run "pkcs11-tool sets a new CKA_ID (C_SetAttributeValue)" $U11 --set-id 24 --id 21 \
	--type privkey
run "pkcs11-tool lists the new ID" $U11 --list-objects --type privkey
check_eq "the imported key has its new ID" 1 "$(grep -c 'ID: *24$' "$T/out")"
check_eq "and no key the old one" 0 "$(grep -c 'ID: *21$' "$T/out")"

# ---- RSA-3072 through p11tool (GnuTLS) ----
run "openssl makes an RSA-3072 key" openssl genpkey -algorithm RSA \
	-pkeyopt rsa_keygen_bits:3072 -out "$T/rsa3072.pem"
openssl pkey -in "$T/rsa3072.pem" -pubout -out "$T/rsa3072.pub.pem"
export GNUTLS_PIN=$PIN
run "p11tool --write --load-privkey" p11tool --provider "$MOD" --login --write \
	--load-privkey "$T/rsa3072.pem" --label gnutls-imported --id 23 "pkcs11:token=imp"
run "sign with the key p11tool imported" $U11 --sign --id 23 -m SHA384-RSA-PKCS \
	-i "$T/msg" -o "$T/rsa3072.sig"
run "openssl verifies it" openssl dgst -sha384 -verify "$T/rsa3072.pub.pem" \
	-signature "$T/rsa3072.sig" "$T/msg"

run "pkcs11-tool --login --test with the imported keys" $U11 --test
check_eq "pkcs11-tool --test reports no errors" 1 "$(grep -c 'No errors' "$T/out")"

finish
