#!/bin/bash
# The PKCS#11 module through real clients: pkcs11-tool (OpenSC) initializes a token and its
# user PIN, logs in, generates RSA and EC keys in the TPM, signs (signatures verified by
# openssl against the exported public keys, and by the module), hashes without a login, lists
# and deletes objects, decrypts RSA PKCS#1 v1.5 and OAEP (openssl encrypted with the exported
# public key), derives an ECDH secret that openssl derives too, stores a certificate, two pkcs11-tool processes make keys on one token at once, pkcs11-tool
# --test, --test-fork and --test-threads pass, p11tool (GnuTLS) makes a key and test-signs (ECDSA, RSA-PSS), then the PIN
# is changed and wrong PINs counted (the TPM's dictionary-attack lockout, seen in the token
# flags); p11tool (GnuTLS) and p11-kit (through the module file) list the token; an
# application loading the module prints nothing and creates nothing until a token is
# initialized.
# PKCS11_TPM=mssim (pkcs11_tools_mssim.sh) runs the same checks with the module configured by a
# $PQTPM_PKCS11_CONF file naming a pqtpm-server this script starts (tpm = mssim:...).
set -eu
. "$(dirname "$0")/lib.sh"

MOD=$BUILD_DIR/lib/libpqtpm-pkcs11.so
sanitizer_preload "$MOD"
# STORE: where the module keeps the token store (pkcs11.db)
STORE=$T/state
case ${PKCS11_TPM:-embedded} in
embedded)
	export PQTPM_STATE_DIR=$STORE
	unset PQTPM_PKCS11_CONF
	;;
mssim)
	tpm_start "$T/tpm"
	unset PQTPM_STATE_DIR
	export PQTPM_PKCS11_CONF=$T/pqtpm-pkcs11.conf
	printf 'tpm = %s\nstore = %s\n' "$TCTI" "$STORE" >"$PQTPM_PKCS11_CONF"
	;;
*)
	echo "unknown PKCS11_TPM=$PKCS11_TPM" >&2
	exit 2
	;;
esac
P11="pkcs11-tool --module $MOD"
SO=so-secret
PIN=123456

run "pkcs11-tool -L lists one empty slot" $P11 -L
check_eq "the empty slot holds an uninitialized token" 1 "$(grep -c 'token state: *uninitialized' "$T/out")"
check_eq "loading the module printed nothing" "" "$(grep -i pqtpm "$T/err" || true)"
check_eq "nothing on disk before C_InitToken" no "$([ -e "$STORE" ] && echo yes || echo no)"

run "pkcs11-tool --init-token" $P11 --init-token --label alpha --so-pin $SO
run "pkcs11-tool -L after C_InitToken" $P11 -L
check_eq "the token is listed by its label" 1 "$(grep -c 'token label *: alpha' "$T/out")"
check_eq "a new empty slot appeared" 1 "$(grep -c 'token state: *uninitialized' "$T/out")"
check_eq "the store is 0600" 600 "$(stat -c %a "$STORE/pkcs11.db")"

run "pkcs11-tool --init-pin (SO login)" $P11 --token-label alpha --login --login-type so \
	--so-pin $SO --init-pin --pin $PIN
# pkcs11-tool --test-threads sleeps 30 s after its threads have ended: it runs beside the steps
# below (another process on the token, as applications are) and is checked at the end. Over
# mssim its threads would run the same module code in the same order: that pass leaves it out.
threads_pid=
if [ "${PKCS11_TPM:-embedded}" = embedded ]; then
	timeout -k 5 "$CMD_TIMEOUT" $P11 --test-threads IN --test-threads ILGISLT0 \
		--test-threads ILGISLT0 >"$T/threads.out" 2>&1 </dev/null &
	threads_pid=$!
fi
run "pkcs11-tool -T: user PIN initialized" $P11 -T
check_eq "flags say PIN initialized" 1 "$(grep -c 'token flags.*PIN initialized' "$T/out")"
run "user login (random bytes after it)" $P11 --token-label alpha --login --pin $PIN \
	--generate-random 16
U11="$P11 --token-label alpha --login --pin $PIN"
printf 'a message to sign' >"$T/msg"
openssl dgst -sha256 -binary "$T/msg" >"$T/msg.sha256"
run "keygen RSA-2048" $U11 --keypairgen --key-type rsa:2048 --id 01 --label rsa
run "keygen EC P-256" $U11 --keypairgen --key-type EC:prime256v1 --id 02 --label ec
run "keygen EC P-384" $U11 --keypairgen --key-type EC:secp384r1 --id 03 --label ec384
run "export the RSA public key" $U11 --read-object --type pubkey --id 01 -o "$T/rsa.der"
run "RSA public key as PEM" openssl pkey -pubin -inform DER -in "$T/rsa.der" -out "$T/rsa.pem"
run "sign SHA256-RSA-PKCS" $U11 --sign --id 01 -m SHA256-RSA-PKCS -i "$T/msg" -o "$T/s1"
run "openssl verifies SHA256-RSA-PKCS" openssl dgst -sha256 -verify "$T/rsa.pem" \
	-signature "$T/s1" "$T/msg"
run "sign SHA256-RSA-PKCS-PSS" $U11 --sign --id 01 -m SHA256-RSA-PKCS-PSS -i "$T/msg" \
	-o "$T/s2"
run "openssl verifies RSA-PSS" openssl dgst -sha256 -sigopt rsa_padding_mode:pss \
	-sigopt rsa_pss_saltlen:32 -verify "$T/rsa.pem" -signature "$T/s2" "$T/msg"
run "sign RSA-PKCS-PSS of a digest" $U11 --sign --id 01 -m RSA-PKCS-PSS --hash-algorithm SHA256 \
	--mgf MGF1-SHA256 -i "$T/msg.sha256" -o "$T/s3"
run "openssl verifies it" openssl dgst -sha256 -sigopt rsa_padding_mode:pss \
	-sigopt rsa_pss_saltlen:32 -verify "$T/rsa.pem" -signature "$T/s3" "$T/msg"
run "the module verifies SHA256-RSA-PKCS" $U11 --verify --id 01 -m SHA256-RSA-PKCS \
	-i "$T/msg" --signature-file "$T/s1"
printf 'another message' >"$T/other"
check_eq "the module said so" 1 "$(grep -c 'Signature is valid' "$T/out")"
# pkcs11-tool reports a wrong signature and exits 0 all the same
run "a signature of another message" $U11 --verify --id 01 -m SHA256-RSA-PKCS -i "$T/other" \
	--signature-file "$T/s1"
check_eq "does not verify" 1 "$(cat "$T/out" "$T/err" | grep -c 'Invalid signature')"
# the EC public key: CKA_EC_POINT (a DER OCTET STRING of the point) in a P-256 SPKI
run "read the EC point" $U11 --list-objects --type pubkey --id 02
point=$(sed -n 's/^ *EC_POINT: *0441//p' "$T/out")
check_eq "an uncompressed P-256 point" 130 "${#point}"
echo "3059301306072a8648ce3d020106082a8648ce3d030107034200$point" | xxd -r -p >"$T/ec.der"
run "EC public key as PEM" openssl pkey -pubin -inform DER -in "$T/ec.der" -out "$T/ec.pem"
run "sign ECDSA-SHA256" $U11 --sign --id 02 -m ECDSA-SHA256 --signature-format openssl \
	-i "$T/msg" -o "$T/s4"
run "openssl verifies ECDSA-SHA256" openssl dgst -sha256 -verify "$T/ec.pem" \
	-signature "$T/s4" "$T/msg"
run "sign ECDSA of a digest" $U11 --sign --id 02 -m ECDSA --signature-format openssl \
	-i "$T/msg.sha256" -o "$T/s5"
run "openssl verifies ECDSA" openssl dgst -sha256 -verify "$T/ec.pem" -signature "$T/s5" \
	"$T/msg"
run "sign ECDSA-SHA256 with P-384" $U11 --sign --id 03 -m ECDSA-SHA256 -i "$T/msg" -o "$T/s6"
run "the module verifies it" $U11 --verify --id 03 -m ECDSA-SHA256 -i "$T/msg" \
	--signature-file "$T/s6"
run "SHA-256 without a login" $P11 --token-label alpha --hash -m SHA256 -i "$T/msg" \
	-o "$T/h"
check_eq "the digest is SHA-256" "$(od -An -v -tx1 "$T/msg.sha256" | tr -d ' \n')" \
	"$(od -An -v -tx1 "$T/h" | tr -d ' \n')"
run "list objects" $U11 --list-objects
check_eq "three private keys" 3 "$(grep -c '^Private Key Object' "$T/out")"
check_eq "private keys are sensitive and never extractable" 3 \
	"$(grep -c 'Access: *sensitive, always sensitive, never extractable, local' "$T/out")"
run "without a login only public keys" $P11 --token-label alpha --list-objects
check_eq "no private key listed" 0 "$(grep -c '^Private Key Object' "$T/out")"
run "delete the P-384 private key" $U11 --delete-object --type privkey --id 03
run "list after the delete" $U11 --list-objects --type privkey
check_eq "two private keys left" 2 "$(grep -c '^Private Key Object' "$T/out")"

# decryption with the TPM's key of what openssl encrypted with the exported public key
run "keygen RSA-2048 for decryption" $U11 --keypairgen --key-type rsa:2048 --id 31 \
	--label rsa-dec --usage-decrypt
run "export its public key" $U11 --read-object --type pubkey --id 31 -o "$T/rsad.der"
run "as PEM" openssl pkey -pubin -inform DER -in "$T/rsad.der" -out "$T/rsad.pem"
head -c 48 /dev/urandom >"$T/plain"
run "openssl encrypts OAEP SHA-256" openssl pkeyutl -encrypt -pubin -inkey "$T/rsad.pem" \
	-pkeyopt rsa_padding_mode:oaep -pkeyopt rsa_oaep_md:sha256 -pkeyopt rsa_mgf1_md:sha256 \
	-in "$T/plain" -out "$T/ct1"
run "pkcs11-tool --decrypt RSA-PKCS-OAEP SHA-256" $U11 --decrypt --id 31 -m RSA-PKCS-OAEP \
	--hash-algorithm SHA256 --mgf MGF1-SHA256 -i "$T/ct1" -o "$T/pt1"
run "the plaintext back (OAEP)" cmp "$T/plain" "$T/pt1"
run "openssl encrypts PKCS#1 v1.5" openssl pkeyutl -encrypt -pubin -inkey "$T/rsad.pem" \
	-in "$T/plain" -out "$T/ct2"
run "pkcs11-tool --decrypt RSA-PKCS" $U11 --decrypt --id 31 -m RSA-PKCS -i "$T/ct2" \
	-o "$T/pt2"
run "the plaintext back (PKCS#1 v1.5)" cmp "$T/plain" "$T/pt2"
# ECDH: the token's key with openssl's, the same secret on both sides
run "keygen EC P-256 for derivation" $U11 --keypairgen --key-type EC:prime256v1 --id 32 \
	--label ec-dh --usage-derive
run "list the public keys" $U11 --list-objects --type pubkey
# (the listing has every key: the point of the one labelled ec-dh, which comes before its label)
point=$(awk '/EC_POINT: *0441/ { p = $2 } /label: *ec-dh$/ { print substr(p, 5) }' "$T/out")
check_eq "an uncompressed P-256 point of ec-dh" 130 "${#point}"
echo "3059301306072a8648ce3d020106082a8648ce3d030107034200$point" | xxd -r -p >"$T/ecdh.der"
run "its public key as PEM" openssl pkey -pubin -inform DER -in "$T/ecdh.der" -out "$T/ecdh.pem"
run "openssl's key" openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 \
	-out "$T/peer.key"
run "openssl's public key" openssl pkey -in "$T/peer.key" -pubout -outform DER \
	-out "$T/peer.der"
run "pkcs11-tool --derive ECDH1" $U11 --derive --id 32 -m ECDH1-DERIVE -i "$T/peer.der" \
	-o "$T/z1"
run "openssl derives" openssl pkeyutl -derive -inkey "$T/peer.key" -peerkey "$T/ecdh.pem" \
	-out "$T/z2"
check_eq "a 32-byte secret" 32 "$(stat -c %s "$T/z1")"
run "the same secret on both sides" cmp "$T/z1" "$T/z2"

# two processes on the token at once: both keys are there for a third
$U11 --keypairgen --key-type EC:prime256v1 --id 11 --label first >"$T/p1.out" 2>&1 &
p1=$!
$U11 --keypairgen --key-type rsa:2048 --id 12 --label second >"$T/p2.out" 2>&1 &
p2=$!
st1=0
st2=0
wait $p1 || st1=$?
wait $p2 || st2=$?
check_eq "two processes made a key each at once" "0 0" "$st1 $st2"
check_eq "no database-locked error" "" "$(grep -il 'locked' "$T/p1.out" "$T/p2.out" || true)"
run "a third process lists both keys" $U11 --list-objects --type privkey
check_eq "the key of the first" 1 "$(grep -c 'label: *first' "$T/out")"
check_eq "the key of the second" 1 "$(grep -c 'label: *second' "$T/out")"
run "sign with the key another process made" $U11 --sign --id 11 -m ECDSA-SHA256 \
	-i "$T/msg" -o "$T/s7"

run "pkcs11-tool --login --test" $U11 --test
check_eq "pkcs11-tool --test finds no error" 1 "$(grep -c '^No errors' "$T/out")"
run "a self-signed certificate" openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 \
	-nodes -keyout "$T/cert.key" -subj /CN=pqtpm-pkcs11-test -days 1 -outform DER \
	-out "$T/cert.der"
run "write the certificate to the token" $U11 --write-object "$T/cert.der" --type cert --id 21 \
	--label cert
run "read it back" $P11 --token-label alpha --read-object --type cert --id 21 -o "$T/cert2.der"
run "the same certificate" cmp "$T/cert.der" "$T/cert2.der"
run "p11tool lists the certificate" p11tool --provider "$MOD" --list-all-certs \
	"pkcs11:token=alpha"
check_eq "by its label" 1 "$(grep -c 'Label: cert$' "$T/out")"
run "pkcs11-tool --test-fork (C_Initialize again in the child)" $U11 --test-fork
export GNUTLS_PIN=$PIN
run "p11tool generates an ECDSA key" p11tool --provider "$MOD" --login \
	--generate-privkey=ecdsa --curve=secp256r1 --label gnutls-ec "pkcs11:token=alpha"
run "p11tool test-sign ECDSA" p11tool --provider "$MOD" --login --test-sign \
	"pkcs11:token=alpha;object=gnutls-ec;type=private"
check_eq "ECDSA signature verified by GnuTLS" 2 \
	"$(cat "$T/out" "$T/err" | grep -c '^Verifying.*\.\.\. ok')"
run "p11tool test-sign RSA-PSS" p11tool --provider "$MOD" --login --test-sign \
	--sign-params rsa-pss "pkcs11:token=alpha;object=rsa;type=private"
check_eq "RSA-PSS signature verified by GnuTLS" 2 \
	"$(cat "$T/out" "$T/err" | grep -c '^Verifying.*\.\.\. ok')"

run "pkcs11-tool --change-pin" $P11 --token-label alpha --login --pin $PIN --change-pin \
	--new-pin 654321
expect_fail "the old PIN is refused" $P11 --token-label alpha --login --pin $PIN \
	--generate-random 16
check_eq "CKR_PIN_INCORRECT" 1 "$(grep -c CKR_PIN_INCORRECT "$T/err")"
run "pkcs11-tool -T after one wrong PIN" $P11 -T
check_eq "user PIN count low" 1 "$(grep -c 'token flags.*user PIN count low' "$T/out")"
expect_fail "a second wrong PIN" $P11 --token-label alpha --login --pin 111111 --generate-random 8
run "pkcs11-tool -T: final try" $P11 -T
check_eq "user PIN final try" 1 "$(grep -c 'token flags.*final user PIN try' "$T/out")"
expect_fail "a third wrong PIN" $P11 --token-label alpha --login --pin 222222 --generate-random 8
expect_fail "locked: even the right PIN is refused" $P11 --token-label alpha --login \
	--pin 654321 --generate-random 8
check_eq "CKR_PIN_LOCKED" 1 "$(grep -c CKR_PIN_LOCKED "$T/err")"
run "pkcs11-tool -T: locked" $P11 -T
check_eq "user PIN locked" 1 "$(grep -c 'token flags.*user PIN locked' "$T/out")"

run "p11tool --list-tokens" p11tool --provider "$MOD" --list-tokens
check_eq "p11tool sees the token" 1 "$(grep -c 'Label: alpha' "$T/out")"

# p11-kit finds the module through a module file in the user's configuration (p11-kit reads
# no user configuration as root: then the check runs as nobody, in a home of its own)
U=$T/p11kit
mkdir -p "$U/home/.config/pkcs11/modules"
# a copy of the module where nobody reads it (the checkout may lie under a directory that only
# root enters, as `mktemp -d` makes them)
cp "$MOD" "$U/libpqtpm-pkcs11.so"
sed "s|@MODULE@|$U/libpqtpm-pkcs11.so|" "$ROOT_DIR/conf/pqtpm.module" \
	>"$U/home/.config/pkcs11/modules/pqtpm.module"
AS=()
if [ "$(id -u)" -eq 0 ]; then
	chmod 0711 "$T"
	chown -R nobody "$U"
	AS=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
fi
run "p11-kit list-modules" "${AS[@]}" env -u PQTPM_PKCS11_CONF HOME="$U/home" \
	PQTPM_STATE_DIR="$U/state" p11-kit list-modules
check_eq "p11-kit loads the module from its module file" 1 \
	"$(grep -c 'library-description: pqtpm PKCS#11 module' "$T/out")"

if [ -n "$threads_pid" ]; then
	st=0
	wait "$threads_pid" || st=$?
	check_eq "pkcs11-tool --test-threads (three threads) exit status" 0 "$st"
	check_eq "every thread returned CKR_OK" 3 "$(grep -c 'returning rv = 0$' "$T/threads.out")"
fi
finish
