#!/bin/bash
# tpm2-tools, attestation: an EK and an AK (RSA and ECC) made by tpm2_createek/tpm2_createak,
# tpm2_quote checked by tpm2_checkquote (with the nonce; a wrong nonce and a changed PCR must
# fail), tpm2_certify and tpm2_certifycreation (signatures checked with openssl; a forged
# creation ticket refused with TPM_RC_TICKET), tpm2_nvcertify (the bytes asked for; openssl
# verifies), tpm2_gettime (YAML parsed; counts and firmware obfuscated only for keys outside the
# endorsement hierarchy), and a decryption key as signer (TPM_RC_KEY). Runs against swtpm too
# (TPM_IMPL=swtpm).
set -eu
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

K=$T/k
mkdir -p "$K"
NONCE=a1b2c3d4e5f60718293a4b5c6d7e8f90
WRONG=00b2c3d4e5f60718293a4b5c6d7e8f90

tpm_start
run "startup clear" tpm2_startup -c
run "extend PCR 16" tpm2_pcrextend 16:sha256=$(printf 'm%.0s' {1..32} | sha256sum | cut -c1-64)

# quote_checks ALG: an EK and an AK of ALG, a quote of PCRs 0,16 (sha256) with the nonce,
# checked by tpm2_checkquote with the right nonce and refused with a wrong one or with
# different PCR values.
quote_checks() {
	local a=$1
	run "createek $a" tpm2_createek -c "$K/ek_$a.ctx" -G "$a" -u "$K/ek_$a.pub"
	run "createak $a" tpm2_createak -C "$K/ek_$a.ctx" -c "$K/ak_$a.ctx" -G "$a" -g sha256 \
		-s "$( [ "$a" = rsa ] && echo rsassa || echo ecdsa)" -u "$K/ak_$a.pub" \
		-f pem -n "$K/ak_$a.name"
	run "quote $a (nonce)" tpm2_quote -c "$K/ak_$a.ctx" -l sha256:0,16 -q "$NONCE" \
		-m "$K/q_$a.msg" -s "$K/q_$a.sig" -o "$K/q_$a.pcrs" -g sha256
	run "checkquote $a" tpm2_checkquote -u "$K/ak_$a.pub" -m "$K/q_$a.msg" \
		-s "$K/q_$a.sig" -f "$K/q_$a.pcrs" -g sha256 -q "$NONCE"
	expect_fail "checkquote $a with a wrong nonce fails" tpm2_checkquote -u "$K/ak_$a.pub" \
		-m "$K/q_$a.msg" -s "$K/q_$a.sig" -f "$K/q_$a.pcrs" -g sha256 -q "$WRONG"
	run "flush sessions" tpm2_flushcontext -s
}

quote_checks rsa
quote_checks ecc

# A quote after a PCR change no longer matches the PCR values saved before it.
run "extend PCR 16 again" tpm2_pcrextend 16:sha256=$(printf 'n%.0s' {1..32} | sha256sum | cut -c1-64)
run "quote rsa after the change" tpm2_quote -c "$K/ak_rsa.ctx" -l sha256:0,16 -q "$NONCE" \
	-m "$K/q2.msg" -s "$K/q2.sig" -g sha256
expect_fail "checkquote of the new quote against the old PCR values fails" tpm2_checkquote \
	-u "$K/ak_rsa.pub" -m "$K/q2.msg" -s "$K/q2.sig" -f "$K/q_rsa.pcrs" -g sha256 -q "$NONCE"

# --- Certify and CertifyCreation with a signing key of the owner hierarchy
run "createprimary (owner, with creation data)" tpm2_createprimary -C o -G rsa2048 \
	-c "$K/prim.ctx" --creation-data "$K/prim.cd" -d "$K/prim.cdig" -t "$K/prim.tk"
run "create a signing key" tpm2_create -C "$K/prim.ctx" -G ecc256:ecdsa-sha256 \
	-u "$K/sig.u" -r "$K/sig.r" -c "$K/sig.ctx"
run "signing key as PEM" tpm2_readpublic -c "$K/sig.ctx" -f pem -o "$K/sig.pem"
run "certify the primary" tpm2_certify -c "$K/prim.ctx" -C "$K/sig.ctx" -g sha256 \
	-o "$K/cert.att" -s "$K/cert.sig" -f plain
if openssl dgst -sha256 -verify "$K/sig.pem" -signature "$K/cert.sig" "$K/cert.att" \
	>"$T/out" 2>"$T/err"; then
	ok "openssl verifies the certify signature"
else
	bad "openssl verifies the certify signature"
fi
att=$(hex_of "$K/cert.att")
check_eq "certify attestation: magic, TPM_ST_ATTEST_CERTIFY" ff5443478017 "${att:0:12}"
run "certifycreation of the primary" tpm2_certifycreation -C "$K/sig.ctx" -c "$K/prim.ctx" \
	-d "$K/prim.cdig" -t "$K/prim.tk" -g sha256 -o "$K/cc.sig" --attestation "$K/cc.att" \
	-f plain
if openssl dgst -sha256 -verify "$K/sig.pem" -signature "$K/cc.sig" "$K/cc.att" \
	>"$T/out" 2>"$T/err"; then
	ok "openssl verifies the certifycreation signature"
else
	bad "openssl verifies the certifycreation signature"
fi
# a ticket with one bit of its HMAC changed
cp "$K/prim.tk" "$K/bad.tk"
last=$(($(stat -c %s "$K/bad.tk") - 1))
byte=$(od -An -tu1 -j "$last" -N1 "$K/bad.tk" | tr -d ' ')
printf "$(printf '\\%03o' $((byte ^ 1)))" | dd of="$K/bad.tk" bs=1 seek="$last" conv=notrunc \
	2>/dev/null
expect_rc "certifycreation with a forged ticket: TPM_RC_TICKET" 0x4e0 tpm2_certifycreation \
	-C "$K/sig.ctx" -c "$K/prim.ctx" -d "$K/prim.cdig" -t "$K/bad.tk" -g sha256 \
	-o "$K/cc2.sig" --attestation "$K/cc2.att"
expect_rc "certify with a storage key as signer: TPM_RC_KEY" 0x29c tpm2_certify \
	-c "$K/sig.ctx" -C "$K/prim.ctx" -g sha256 -o "$K/x.att" -s "$K/x.sig"

# --- NV_Certify: 64 bytes of an index, attested by the ECC signing key of the owner hierarchy
head -c 64 /dev/urandom >"$K/nv.data"
run "nvdefine" tpm2_nvdefine 0x01500020 -C o -s 64 -a "ownerread|ownerwrite|authread|authwrite"
run "nvwrite" tpm2_nvwrite 0x01500020 -C o -i "$K/nv.data"
run "nvcertify bytes 16-47" tpm2_nvcertify -C "$K/sig.ctx" -c o -g sha256 -f plain \
	-o "$K/nv.sig" --attestation "$K/nv.att" --size 32 --offset 16 -q "$NONCE" 0x01500020
if openssl dgst -sha256 -verify "$K/sig.pem" -signature "$K/nv.sig" "$K/nv.att" \
	>"$T/out" 2>"$T/err"; then
	ok "openssl verifies the nvcertify signature"
else
	bad "openssl verifies the nvcertify signature"
fi
att=$(hex_of "$K/nv.att")
check_eq "nvcertify attestation: magic, TPM_ST_ATTEST_NV" ff5443478014 "${att:0:12}"
# the last 32 bytes are the index's bytes 16-47, after offset 16 and size 32
check_eq "nvcertify attests the bytes asked for" \
	"00100020$(od -An -v -tx1 -j16 -N32 "$K/nv.data" | tr -d ' \n')" "${att: -72}"

# clock_fields HEX: resetCount restartCount firmwareVersion of a TPMS_ATTEST given in hex
# (magic, type, qualifiedSigner, extraData, clock, then the three).
clock_fields() {
	local h=$1 o=12 n
	n=$((16#${h:o:4}))
	o=$((o + 4 + 2 * n))
	n=$((16#${h:o:4}))
	o=$((o + 4 + 2 * n + 16))
	echo "$((16#${h:o:8})) $((16#${h:o+8:8})) ${h:o+18:16}"
}

# --- GetTime, signed by the ECC AK (endorsement hierarchy: nothing obfuscated)
run "gettime" tpm2_gettime -c "$K/ak_ecc.ctx" -g sha256 -o "$K/t.sig" --attestation "$K/t.att"
if grep -q 'clock: [0-9]' "$T/out" && grep -q 'reset_count: [0-9]' "$T/out"; then
	ok "gettime output is YAML with clock and reset_count"
else
	bad "gettime output is YAML with clock and reset_count"
	show_tail "$T/out" 20
fi
reset=$(sed -n 's/^ *reset_count: *//p' "$T/out" | head -n1)
restart=$(sed -n 's/^ *restart_count: *//p' "$T/out" | head -n1)
run "getcap properties-fixed" tpm2_getcap properties-fixed
fw=""
for v in 1 2; do
	raw=$(grep -A1 "TPM2_PT_FIRMWARE_VERSION_$v:" "$T/out" | sed -n 's/.*raw: *0x//p')
	fw=$fw$(printf '%08x' "$((16#${raw:-0}))")
done
att=$(hex_of "$K/t.att")
check_eq "gettime attestation: magic, TPM_ST_ATTEST_TIME" ff5443478019 "${att:0:12}"
check_eq "gettime by an endorsement key: counts and firmware as they are" \
	"$reset $restart $fw" "$(clock_fields "$att")"
# the owner-hierarchy key's certification has them obfuscated (Part 1, Privacy)
att=$(hex_of "$K/cert.att")
if [ "$(clock_fields "$att")" != "$reset $restart $fw" ]; then
	ok "certify by an owner key: counts and firmware obfuscated"
else
	bad "certify by an owner key: counts and firmware obfuscated"
fi

finish
