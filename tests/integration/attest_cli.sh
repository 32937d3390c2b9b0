#!/bin/bash
# pqtpm-attest as a user drives it, one process per step, on one state directory: the CA and
# the EK certificates (openssl verify, the key is the EK's), AKs of every algorithm under RSA,
# ECC and ML-KEM EKs (P-521 under the high-range P-521 EK, which is tpm2_createek -G ecc521's
# and has no certificate), credentials made for them (no TPM) and activated, quotes and their
# verification (a wrong nonce, another AK: invalid, exit
# 1), PCRs extended through a running pqtpm-server and quoted by pqtpm-attest on the same
# directory (with the server running and after it stopped), RSA and ECC (P-256, P-384,
# P-521) quote signatures checked by openssl and tpm2_checkquote, --help everywhere, and exit
# status 2 with a message naming the flag or file for bad input.
set -eu
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

A="$BUILD_DIR/bin/pqtpm-attest"
H="$(dirname "$0")/helpers"
K=$T/k
S=$T/state
mkdir -p "$K"
NONCE=00112233445566778899aabbccddeeff
export PQTPM_STATE_DIR=$S

# attest NAME ARGS...: pqtpm-attest must succeed
attest() {
	local n=$1
	shift
	run "$n" "$A" "$@"
}

# rc_is NAME RC ARGS...: pqtpm-attest exits with RC
rc_is() {
	local n=$1 want=$2 got=0
	shift 2
	"$A" "$@" >"$T/out" 2>"$T/err" || got=$?
	if [ "$got" = "$want" ]; then ok "$n"; else bad "$n (exit $got, want $want)"; show_tail "$T/err"; fi
}

attest "ca" ca --out "$K/ca.pem"
for ek in rsa2048 ecc-p256 mlkem768; do
	attest "ek $ek" ek --alg "$ek" --public "$K/ek_$ek.pub" --format tpm2b \
		--certificate "$K/ek_$ek.der"
done
# the profile's high-range P-521 EK (H-4): a key, no certificate
attest "ek ecc-p521" ek --alg ecc-p521 --public "$K/ek_ecc-p521.pub" --format tpm2b
rc_is "ek ecc-p521 has no certificate (exit 2)" 2 ek --alg ecc-p521 --certificate "$K/x.der"
grep -q "reading the certificate" "$T/err" && ok "the message says so" || bad "the message says so"
for ek in rsa2048 ecc-p256; do
	attest "ek $ek (PEM, the default for RSA and ECC)" ek --alg "$ek" --public "$K/ek_$ek.pem"
	grep -q "BEGIN PUBLIC KEY" "$K/ek_$ek.pem" && ok "$ek: PEM" || bad "$ek: PEM"
	check_eq "the $ek certificate's key is ek --format pem's" \
		"$(openssl pkey -pubin -in "$K/ek_$ek.pem" -outform DER | sha256sum)" \
		"$(openssl x509 -inform DER -in "$K/ek_$ek.der" -pubkey -noout |
			openssl pkey -pubin -outform DER | sha256sum)"
	run "openssl verify the $ek EK certificate" openssl verify -CAfile "$K/ca.pem" \
		-partial_chain -purpose any <(openssl x509 -inform DER -in "$K/ek_$ek.der")
	check_eq "the $ek certificate's key is the EK's" \
		"$(tpm2_print -t TPM2B_PUBLIC -f pem "$K/ek_$ek.pub" | openssl pkey -pubin -outform DER |
			sha256sum)" \
		"$(openssl x509 -inform DER -in "$K/ek_$ek.der" -pubkey -noout |
			openssl pkey -pubin -outform DER | sha256sum)"
done
# the ML-KEM certificate's key: the last 1184 bytes of the public area's unique, somewhere in
# the certificate
if python3 - "$K/ek_mlkem768.pub" "$K/ek_mlkem768.der" <<'PY'; then ok "the ML-KEM certificate's key is the EK's"; else bad "the ML-KEM certificate's key is the EK's"; fi
import sys
pub, cert = open(sys.argv[1], "rb").read(), open(sys.argv[2], "rb").read()
sys.exit(0 if len(pub) > 1184 and pub[-1184:] in cert else 1)
PY

# AKs of every algorithm, each quoted and verified in processes of their own
n=0
for alg in rsa2048 ecc-p256 ecc-p384 mldsa44 mldsa65 mldsa87 ecc-p521; do
	eks=(rsa2048 ecc-p256 mlkem768)
	ek=${eks[$((n % 3))]}
	[ "$alg" = ecc-p521 ] && ek=ecc-p521
	n=$((n + 1))
	attest "ak create $alg (EK $ek)" ak create --alg "$alg" --ek-alg "$ek" --out "$K/ak_$alg.json"
	attest "ak public $alg" ak public --ak "$K/ak_$alg.json" --out "$K/ak_$alg.pub"
	attest "quote $alg" --state-dir "$S" quote --ak "$K/ak_$alg.json" --nonce "$NONCE" \
		--pcrs sha256:0,7,16+sha1:0 --out "$K/ev_$alg.json"
	attest "verify $alg (AK.json)" verify --evidence "$K/ev_$alg.json" \
		--ak-public "$K/ak_$alg.json" --nonce "$NONCE" --out "$K/res_$alg.json"
	check_eq "$alg: valid" true "$(jq -r .valid "$K/res_$alg.json")"
	attest "verify $alg (TPM2B_PUBLIC)" verify --evidence "$K/ev_$alg.json" \
		--ak-public "$K/ak_$alg.pub" --nonce "$NONCE"
	rc_is "$alg: a wrong nonce is invalid (exit 1)" 1 verify --evidence "$K/ev_$alg.json" \
		--ak-public "$K/ak_$alg.json" --nonce 00112233445566778899aabbccddeef0
	check_eq "$alg: the failing check is nonce" nonce "$(jq -r '.failures[0].check' "$T/out")"
done
attest "verify with the EK certificate chain (--ca)" verify --evidence "$K/ev_mldsa44.json" \
	--ak-public "$K/ak_mldsa44.json" --nonce "$NONCE" --ca "$K/ca.pem"
attest "another TPM's CA" --state-dir "$T/other" ca --out "$K/other_ca.pem"
rc_is "the EK certificate of another CA is invalid (exit 1)" 1 verify \
	--evidence "$K/ev_rsa2048.json" --ak-public "$K/ak_rsa2048.json" --nonce "$NONCE" \
	--ca "$K/other_ca.pem"
check_eq "the failing check is ek-certificate" ek-certificate "$(jq -r '.failures[0].check' "$T/out")"
rc_is "another AK is invalid (exit 1)" 1 verify --evidence "$K/ev_rsa2048.json" \
	--ak-public "$K/ak_ecc-p256.json" --nonce "$NONCE"
if jq -e '[.failures[].check] | index("ak-mismatch") and index("signature")' "$T/out" \
	>/dev/null; then ok "another AK: ak-mismatch and signature"; else bad "another AK: ak-mismatch and signature"; fi

# the AK's binding to the EK: a credential made for its Name under the EK (no TPM), activated
head -c 32 /dev/urandom >"$K/secret"
for ek in rsa2048 ecc-p256 mlkem768; do
	attest "ak under $ek for a credential" ak create --alg ecc-p256 --ek-alg "$ek" \
		--out "$K/akc_$ek.json"
	attest "credential make ($ek EK)" --tpm "mssim:host=127.0.0.1,port=1" credential make \
		--ek-public "$K/ek_$ek.pub" --ak-name "$(jq -r .name "$K/akc_$ek.json")" \
		--secret "$K/secret" --out "$K/cred_$ek.json"
	attest "credential activate ($ek EK)" credential activate --ak "$K/akc_$ek.json" \
		--credential "$K/cred_$ek.json" --out "$K/got_$ek"
	if cmp -s "$K/secret" "$K/got_$ek"; then ok "$ek: the secret comes back"; else bad "$ek: the secret comes back"; fi
	# the verifier knows the EK from its certificate only
	attest "credential make ($ek EK, from its certificate)" credential make \
		--ek-public "$K/ek_$ek.der" --ak-name "$(jq -r .name "$K/akc_$ek.json")" \
		--secret "$K/secret" --out "$K/credc_$ek.json"
	attest "credential activate ($ek EK, certificate)" credential activate \
		--ak "$K/akc_$ek.json" --credential "$K/credc_$ek.json" --out "$K/gotc_$ek"
	if cmp -s "$K/secret" "$K/gotc_$ek"; then ok "$ek: the secret comes back (certificate)"; else bad "$ek: the secret comes back (certificate)"; fi
done
for ek in rsa2048 ecc-p256; do
	openssl x509 -inform DER -in "$K/ek_$ek.der" -out "$K/ek_$ek.crt.pem"
	attest "credential make ($ek EK, PEM certificate)" credential make \
		--ek-public "$K/ek_$ek.crt.pem" --ak-name "$(jq -r .name "$K/akc_$ek.json")" \
		--secret "$K/secret" --out "$K/credp_$ek.json"
	attest "credential make ($ek EK, PEM key)" credential make --ek-public "$K/ek_$ek.pem" \
		--ak-name "$(jq -r .name "$K/akc_$ek.json")" --secret "$K/secret" \
		--out "$K/credk_$ek.json"
	for f in credp credk; do
		attest "credential activate ($ek EK, $f)" credential activate \
			--ak "$K/akc_$ek.json" --credential "$K/${f}_$ek.json" --out "$K/got_$f"
		if cmp -s "$K/secret" "$K/got_$f"; then ok "$ek: the secret comes back ($f)"; else bad "$ek: the secret comes back ($f)"; fi
	done
done
rc_is "a credential for another AK's Name is refused (exit 2)" 2 credential activate \
	--ak "$K/akc_ecc-p256.json" --credential "$K/cred_rsa2048.json" --out "$K/got_x"
# the P-521 EK: its policy is PolicyOR(PolicySecret(endorsement), PolicyC) in SHA-512; the
# verifier rebuilds its template around the PEM key
attest "ek ecc-p521 (PEM)" ek --alg ecc-p521 --public "$K/ek_ecc-p521.pem"
attest "credential make (ecc-p521 EK, PEM key)" credential make --ek-public "$K/ek_ecc-p521.pem" \
	--ak-name "$(jq -r .name "$K/ak_ecc-p521.json")" --secret "$K/secret" --out "$K/cred521.json"
attest "credential activate (ecc-p521 EK)" credential activate --ak "$K/ak_ecc-p521.json" \
	--credential "$K/cred521.json" --out "$K/got521"
if cmp -s "$K/secret" "$K/got521"; then ok "ecc-p521: the secret comes back"; else bad "ecc-p521: the secret comes back"; fi
rc_is "verify --ca: the P-521 EK has no certificate (exit 1)" 1 verify \
	--evidence "$K/ev_ecc-p521.json" --ak-public "$K/ak_ecc-p521.json" --nonce "$NONCE" \
	--ca "$K/ca.pem"
check_eq "the failing check is ek-certificate" ek-certificate "$(jq -r '.failures[0].check' "$T/out")"

# RSA and ECC quotes without pqtpm: openssl over the TPMS_ATTEST, tpm2_checkquote
for alg in rsa2048 ecc-p256 ecc-p384 ecc-p521; do
	mkdir -p "$K/$alg"
	run "split the $alg evidence" python3 "$H/tpm_sig.py" "$K/ev_$alg.json" "$K/$alg"
	attest "ak public $alg --format pem" ak public --ak "$K/ak_$alg.json" --format pem \
		--out "$K/$alg/ak.pem"
	run "AK $alg to PEM by tpm2_print" tpm2_print -t TPM2B_PUBLIC -f pem "$K/ak_$alg.pub"
	check_eq "$alg: our PEM is tpm2_print's key" \
		"$(openssl pkey -pubin -in "$K/$alg/ak.pem" -outform DER | sha256sum)" \
		"$(openssl pkey -pubin -in "$T/out" -outform DER | sha256sum)"
	check_eq "$alg: AK.json's public_pem is that key" "$(cat "$K/$alg/ak.pem")" \
		"$(jq -r .public_pem "$K/ak_$alg.json")"
	if [ "$alg" = ecc-p521 ]; then
		check_eq "ecc-p521: the PEM names secp521r1 (1.3.132.0.35)" "secp521r1" \
			"$(openssl asn1parse -in "$K/$alg/ak.pem" | sed -n 's/.*OBJECT *:\(secp521r1\)$/\1/p')"
	fi
	case $alg in ecc-p384) h=sha384 ;; ecc-p521) h=sha512 ;; *) h=sha256 ;; esac
	run "openssl verifies the $alg quote" openssl dgst "-$h" -verify "$K/$alg/ak.pem" \
		-signature "$K/$alg/sig.openssl" "$K/$alg/attest.bin"
	run "tpm2_checkquote $alg" tpm2_checkquote -u "$K/ak_$alg.pub" -m "$K/$alg/attest.bin" \
		-s "$K/$alg/sig.tss" -q "$NONCE" -g "$h"
done

# PCRs extended through a server on the directory, quoted by another process
tpm_start "$S"
run "startup" tpm2_startup -c
run "tpm2_createek -G ecc521" tpm2_createek -c "$K/ek521.ctx" -G ecc521 -u "$K/tools_ek521.pub"
run "flush it" tpm2_flushcontext -t
if cmp -s "$K/ek_ecc-p521.pub" "$K/tools_ek521.pub"; then ok "ek ecc-p521 is tpm2_createek -G ecc521's EK"; else bad "ek ecc-p521 is tpm2_createek -G ecc521's EK"; fi
run "extend PCR 16" tpm2_pcrextend 16:sha256=$(printf 'boot' | sha256sum | cut -c1-64)
run "tpm2_pcrread 16" tpm2_pcrread sha256:16
want=$(sed -n 's/.*16 *: *0x\([0-9A-Fa-f]*\).*/\1/p' "$T/out" | tr 'A-F' 'a-f')
attest "quote with the server running" quote --ak "$K/ak_ecc-p256.json" --nonce "$NONCE" \
	--pcrs sha256:16 --out "$K/ev_served.json"
check_eq "the quote sees the server's PCR 16" "$want" "$(jq -r '.pcrs.sha256."16"' "$K/ev_served.json")"
attest "verify (server running)" verify --evidence "$K/ev_served.json" \
	--ak-public "$K/ak_ecc-p256.json" --nonce "$NONCE" --out "$K/res_served.json"
tpm_stop
attest "quote after the server stopped" quote --ak "$K/ak_mldsa65.json" --nonce "$NONCE" \
	--pcrs sha256:16 --out "$K/ev_after.json"
check_eq "PCR 16 as the server left it" "$want" "$(jq -r '.pcrs.sha256."16"' "$K/ev_after.json")"
attest "verify (no server)" verify --evidence "$K/ev_after.json" \
	--ak-public "$K/ak_mldsa65.json" --nonce "$NONCE"
attest "quote (ECC AK again)" quote --ak "$K/ak_ecc-p256.json" --nonce "$NONCE" \
	--pcrs sha256:16 --out "$K/ev_later.json"
attest "verify against the previous result" verify --evidence "$K/ev_later.json" \
	--ak-public "$K/ak_ecc-p256.json" --nonce "$NONCE" --previous "$K/res_served.json"
rc_is "an old quote against a later result: clock (exit 1)" 1 verify \
	--evidence "$K/ev_served.json" --ak-public "$K/ak_ecc-p256.json" --nonce "$NONCE" \
	--previous "$K/res_served.json"
check_eq "the failing check is clock" clock "$(jq -r '.failures[0].check' "$T/out")"

# measure in one process, quote in the next, verify in a third: the log replays to the PCRs
printf 'vmlinuz-6.1' >"$K/kernel"
printf 'initrd.img' >"$K/initrd"
attest "measure the kernel" measure --pcr 9 --data "$K/kernel" --event-log "$K/boot.log"
attest "measure the initrd (EV_IPL_PARTITION_DATA)" measure --pcr 9 --data "$K/initrd" \
	--type EV_IPL_PARTITION_DATA --event-log "$K/boot.log"
attest "measure a digest (sha256 only, PCR 10)" measure --pcr 10 --bank sha256 \
	--digest "$(sha256sum <"$K/kernel" | cut -c1-64)" --event-log "$K/boot.log"
attest "quote with the event log" quote --ak "$K/ak_mldsa87.json" --nonce "$NONCE" \
	--pcrs sha256:9,10+sha1:9 --event-log "$K/boot.log" --out "$K/ev_log.json"
attest "verify with the event log" verify --evidence "$K/ev_log.json" \
	--ak-public "$K/ak_mldsa87.json" --nonce "$NONCE" --out "$K/res_log.json"
check_eq "the log replays" true "$(jq -r .claims.event_log_ok "$K/res_log.json")"
check_eq "PCR 9 as the kernel and initrd give it" \
	"$(python3 -c 'import hashlib,sys
v=bytes(32)
for f in sys.argv[1:]:
    v=hashlib.sha256(v+hashlib.sha256(open(f,"rb").read()).digest()).digest()
print(v.hex())' "$K/kernel" "$K/initrd")" "$(jq -r '.pcrs.sha256."9"' "$K/ev_log.json")"
attest "quote sha1:10, which the log's PCR 10 event has no digest of" quote \
	--ak "$K/ak_mldsa87.json" --nonce "$NONCE" --pcrs sha1:10 --event-log "$K/boot.log" \
	--out "$K/ev_log10.json"
rc_is "its verification fails (exit 1)" 1 verify --evidence "$K/ev_log10.json" \
	--ak-public "$K/ak_mldsa87.json" --nonce "$NONCE"
check_eq "the failing check is event-log" event-log "$(jq -r '.failures[0].check' "$T/out")"
jq -n --arg v "$(jq -r '.pcrs.sha256."9"' "$K/ev_log.json")" \
	'{pcrs: {sha256: {"9": [$v, "00"], "10": $v}}}' >"$K/policy.json"
rc_is "reference values: PCR 10 is not as the policy says (exit 1)" 1 verify \
	--evidence "$K/ev_log.json" --ak-public "$K/ak_mldsa87.json" --nonce "$NONCE" \
	--policy "$K/policy.json"
check_eq "the failing check is reference-values" "reference-values sha256:10" \
	"$(jq -r '.failures[0] | .check + " " + (.detail | split(" ")[1])' "$T/out")"
jq 'del(.pcrs.sha256."10")' "$K/policy.json" >"$K/policy9.json"
attest "reference values: PCR 9 is one of the policy's" verify --evidence "$K/ev_log.json" \
	--ak-public "$K/ak_mldsa87.json" --nonce "$NONCE" --policy "$K/policy9.json"
attest "a measurement the log does not have" measure --pcr 9 --data "$K/kernel" \
	--event-log "$K/other.log"
attest "quote after it" quote --ak "$K/ak_rsa2048.json" --nonce "$NONCE" --pcrs sha256:9 \
	--event-log "$K/boot.log" --out "$K/ev_log2.json"
rc_is "the log no longer replays to PCR 9 (exit 1)" 1 verify --evidence "$K/ev_log2.json" \
	--ak-public "$K/ak_rsa2048.json" --nonce "$NONCE"
check_eq "the failing check is event-log" event-log "$(jq -r '.failures[0].check' "$T/out")"
rc_is "measure: a PCR out of range (exit 2)" 2 measure --pcr 24 --data "$K/kernel" \
	--event-log "$K/x.log"

# usage
for c in "" "ek" "ca" "ak" "ak create" "ak public" "credential" "credential make" \
	"credential activate" "measure" "quote" "verify"; do
	# shellcheck disable=SC2086
	rc_is "${c:-pqtpm-attest} --help" 0 $c --help
	if grep -q "^Usage: pqtpm-attest" "$T/out"; then ok "${c:-pqtpm-attest} --help prints usage"; else bad "${c:-pqtpm-attest} --help prints usage"; fi
done
rc_is "a bad nonce: exit 2" 2 quote --ak "$K/ak_rsa2048.json" --nonce xyz --pcrs sha256:0 \
	--out "$K/x.json"
grep -q -- "--nonce" "$T/err" && ok "the message names --nonce" || bad "the message names --nonce"
rc_is "a bad selection: exit 2" 2 quote --ak "$K/ak_rsa2048.json" --nonce 01 --pcrs sha256:24 \
	--out "$K/x.json"
grep -q -- "--pcrs" "$T/err" && ok "the message names --pcrs" || bad "the message names --pcrs"
rc_is "a bank the TPM has not allocated: exit 2" 2 quote --ak "$K/ak_rsa2048.json" --nonce 01 \
	--pcrs sha384:0 --out "$K/x.json"
grep -q "not allocated" "$T/err" && ok "the message says so" || bad "the message says so"
rc_is "a missing AK file: exit 2" 2 quote --ak "$K/none.json" --nonce 01 --pcrs sha256:0 \
	--out "$K/x.json"
grep -qF "$K/none.json" "$T/err" && ok "the message names the file" || bad "the message names the file"
printf '{"alg": 1}' >"$K/bad.json"
rc_is "not an AK file: exit 2" 2 verify --evidence "$K/ev_rsa2048.json" --ak-public "$K/bad.json" \
	--nonce "$NONCE"
rc_is "no PEM of an ML-DSA key: exit 2" 2 ak public --ak "$K/ak_mldsa44.json" --format pem \
	--out "$K/x.pem"
rc_is "an unknown AK algorithm: exit 2" 2 ak create --alg rsa1024 --out "$K/x.json"
rc_is "an unknown command: exit 2" 2 frobnicate
rc_is "no TPM there: exit 2" 2 --tpm "mssim:host=127.0.0.1,port=1" ek --public "$K/x.pub"
grep -q "port=1" "$T/err" && ok "the message names the transport" || bad "the message names the transport"
rc_is "an unwritable output: exit 2" 2 --tpm "embedded:$S" ek --alg rsa2048 \
	--certificate /nonexistent/dir/x.der
grep -q "/nonexistent/dir/x.der" "$T/err" && ok "the message names the output" || bad "the message names the output"
# another AK's private blob: the TPM refuses to load it, and the code is decoded
jq --arg p "$(jq -r .private "$K/ak_ecc-p384.json")" '.private = $p' "$K/ak_ecc-p256.json" \
	>"$K/swapped.json"
rc_is "a TPM error: exit 2" 2 quote --ak "$K/swapped.json" --nonce 01 --pcrs sha256:0 \
	--out "$K/x.json"
if grep -q "loading the AK: 0x[0-9a-f]*: .*integrity" "$T/err"; then
	ok "the message decodes the TPM_RC"
else
	bad "the message decodes the TPM_RC"
	show_tail "$T/err"
fi
finish
