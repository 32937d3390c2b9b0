#!/bin/bash
# EK certificates of a manufactured TPM (core/endorse): tpm2_getekcertificate and tpm2_nvread
# find them at 0x01C00002 (RSA), 0x01C0000A (ECC) and 0x01C000A0 (ML-KEM-768); openssl parses
# them and verifies them against the CA that pqtpm-server --export-ca writes; the key in each
# is what tpm2_createek makes (modulus, point); the SAN names the TPM; the key usage is the
# profile's; the indices are platform-written and locked. A state directory without
# certificates (made before them) gets them at its next start with its seeds, and so its EKs,
# unchanged; a second start changes nothing.
set -eu
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

SERVER=${BUILD_DIR:-build}/bin/pqtpm-server
K=$T/k
mkdir -p "$K"

run "export the CA of a new TPM" "$SERVER" --state-dir "$T/state" --export-ca "$K/ca.pem"
run "the CA certificate parses" openssl x509 -in "$K/ca.pem" -noout -subject
check_eq "CA subject" "subject=O = pqtpm, CN = pqtpm manufacturer CA" "$(cat "$T/out")"
check_eq "CA key 0600" "600" "$(stat -c %a "$T/state/pqtpm.ca.key")"
check_eq "CA certificate 0600" "600" "$(stat -c %a "$T/state/pqtpm.ca.pem")"

tpm_start
run "startup clear" tpm2_startup -c

# verify_cert NAME DER: signed by the CA. openssl older than 3.5 cannot decode an ML-KEM key,
# so that one's signature is checked over its TBSCertificate by hand (der_split.py).
verify_cert() {
	if [ "$1" != mlkem ] || openssl list -kem-algorithms 2>/dev/null | grep -qi ml-kem; then
		run "openssl verify $1" openssl verify -CAfile "$K/ca.pem" -partial_chain \
			-purpose any <(openssl x509 -inform DER -in "$2")
		return
	fi
	run "split $1" python3 "$(dirname "$0")/helpers/der_split.py" "$2" "$K/$1.tbs" "$K/$1.sig"
	run "CA public key" openssl x509 -in "$K/ca.pem" -pubkey -noout -out "$K/ca.pub"
	run "openssl dgst -verify $1 (signature over the TBSCertificate)" openssl dgst -sha256 \
		-verify "$K/ca.pub" -signature "$K/$1.sig" "$K/$1.tbs"
}

# cert_checks NAME INDEX USAGE: the DER at INDEX is a certificate the CA issued, with the
# TPM's identity and key usage USAGE
cert_checks() {
	local n=$1 idx=$2 usage=$3
	run "nvread $n" tpm2_nvread "$idx" -C o -o "$K/$n.der"
	run "openssl parses $n" openssl x509 -inform DER -in "$K/$n.der" -noout -text
	cp "$T/out" "$K/$n.txt"
	verify_cert "$n" "$K/$n.der"
	local san
	san=$(grep -A1 "Subject Alternative Name: critical" "$K/$n.txt" | grep DirName || true)
	if [[ $san == *2.23.133.2.1=id:53572020* && $san == *2.23.133.2.2=pqtpm* &&
		$san == *2.23.133.2.3=id:00000001* ]]; then
		ok "$n: critical SAN with manufacturer, model, version"
	else
		bad "$n: critical SAN with manufacturer, model, version"
		show_tail "$K/$n.txt"
	fi
	if grep -A1 "Key Usage: critical" "$K/$n.txt" | grep -qx "  *$usage"; then
		ok "$n: key usage $usage"
	else
		bad "$n: key usage $usage"
	fi
	if grep -q "2.23.133.8.1" "$K/$n.txt" && grep -q "CA:FALSE" "$K/$n.txt"; then
		ok "$n: EK certificate purpose, not a CA"
	else
		bad "$n: EK certificate purpose, not a CA"
	fi
	run "nvreadpublic $n" tpm2_nvreadpublic "$idx"
	if grep -q "ppwrite" "$T/out" && grep -q "platformcreate" "$T/out" &&
		grep -q "ownerread" "$T/out" && grep -q "authread" "$T/out" &&
		grep -q "writelocked" "$T/out"; then
		ok "$n: platform-written, owner- and authread-readable, locked"
	else
		bad "$n: platform-written, owner- and authread-readable, locked"
		show_tail "$T/out"
	fi
	expect_fail "$n: the owner cannot write it" tpm2_nvwrite "$idx" -C o -i "$K/$n.der"
}

cert_checks rsa 0x01C00002 "Key Encipherment"
cert_checks ecc 0x01C0000A "Key Agreement"
cert_checks mlkem 0x01C000A0 "Key Encipherment"
if grep -q "2.16.840.1.101.3.4.4.2" "$K/mlkem.txt" || grep -qi "ML-KEM-768" "$K/mlkem.txt"; then
	ok "mlkem: SPKI is id-alg-ml-kem-768"
else
	bad "mlkem: SPKI is id-alg-ml-kem-768"
fi

run "getekcertificate" tpm2_getekcertificate -o "$K/get_rsa.der" -o "$K/get_ecc.der"
check_eq "getekcertificate RSA = NV" "$(sha256sum <"$K/rsa.der")" \
	"$(sha256sum <"$K/get_rsa.der")"
check_eq "getekcertificate ECC = NV" "$(sha256sum <"$K/ecc.der")" \
	"$(sha256sum <"$K/get_ecc.der")"

# the key in the certificate is the EK tpm2_createek makes
run "createek rsa" tpm2_createek -c "$K/ek_rsa.ctx" -G rsa -u "$K/ek_rsa.pem" -f pem
run "createek ecc" tpm2_createek -c "$K/ek_ecc.ctx" -G ecc -u "$K/ek_ecc.pem" -f pem
run "flush" tpm2_flushcontext -t
for a in rsa ecc; do
	check_eq "$a: the certificate's key is tpm2_createek's" \
		"$(openssl pkey -pubin -in "$K/ek_$a.pem" -outform DER | sha256sum)" \
		"$(openssl x509 -inform DER -in "$K/$a.der" -pubkey -noout |
			openssl pkey -pubin -outform DER | sha256sum)"
done
tpm_stop

# A directory made before the certificates: take them out (as an older pqtpm would have left
# it), then start again: they come back for the same EKs
run "a second export changes nothing" "$SERVER" --state-dir "$T/state" --export-ca "$K/ca2.pem"
check_eq "the CA stays" "$(sha256sum <"$K/ca.pem")" "$(sha256sum <"$K/ca2.pem")"
tpm_start "$T/state"
run "startup (after restart)" tpm2_startup -c
run "nvread rsa again" tpm2_nvread 0x01C00002 -C o -o "$K/rsa2.der"
check_eq "the RSA certificate stays" "$(sha256sum <"$K/rsa.der")" "$(sha256sum <"$K/rsa2.der")"
run "platform undefines the ECC certificate index" tpm2_nvundefine 0x01C0000A -C p
tpm_stop
tpm_start "$T/state"
run "startup (older directory)" tpm2_startup -c
run "nvread ecc (made again)" tpm2_nvread 0x01C0000A -C o -o "$K/ecc3.der"
verify_cert ecc3 "$K/ecc3.der"
check_eq "the new ECC certificate is for the same EK" \
	"$(openssl x509 -inform DER -in "$K/ecc.der" -pubkey -noout | sha256sum)" \
	"$(openssl x509 -inform DER -in "$K/ecc3.der" -pubkey -noout | sha256sum)"
finish
