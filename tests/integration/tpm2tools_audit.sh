#!/bin/bash
# tpm2-tools, session audit: an audit session from tpm2_startauthsession --audit-session
# audits two tpm2_getrandom calls (the session saved and loaded between the tools); the digest
# H(H(0 || cp1 || rp1) || cp2 || rp2) is recomputed here from the random bytes and compared
# with the one tpm2_getsessionauditdigest reports in its TPMS_ATTEST (magic, type, extraData),
# whose ECDSA signature openssl verifies; auditExclusive after the tools' unaudited commands is
# refused (TPM_RC_EXCLUSIVE), auditReset starts the digest over; a wrong endorsement auth is
# refused. Runs against swtpm too (TPM_IMPL=swtpm).
set -eu
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

K=$T/k
mkdir -p "$K"
NONCE=a1b2c3d4e5f60718
ZEROS=$(printf '0%.0s' {1..64})

# cpHash and rpHash of GetRandom(8) that returned the bytes in file $1, and the digest $2
# extended with them.
extend_getrandom() {
	local cp rp
	cp=$(sha256_of_hex "0000017b0008")
	rp=$(sha256_of_hex "000000000000017b0008$(hex_of "$1")")
	sha256_of_hex "$2$cp$rp"
}

tpm_start
run "startup clear" tpm2_startup -c
run "createprimary (owner)" tpm2_createprimary -C o -G ecc256 -c "$K/prim.ctx"
run "create an ECDSA signing key" tpm2_create -C "$K/prim.ctx" -G ecc256:ecdsa-sha256 \
	-u "$K/sig.u" -r "$K/sig.r" -c "$K/sig.ctx"
run "signing key as PEM" tpm2_readpublic -c "$K/sig.ctx" -f pem -o "$K/sig.pem"
run "startauthsession --audit-session" tpm2_startauthsession -S "$K/s.ctx" --audit-session

run "getrandom audited (1)" tpm2_getrandom 8 -S "$K/s.ctx" -o "$K/r1.bin"
run "getrandom audited (2)" tpm2_getrandom 8 -S "$K/s.ctx" -o "$K/r2.bin"
want=$(extend_getrandom "$K/r1.bin" "$ZEROS")
want=$(extend_getrandom "$K/r2.bin" "$want")

# report: tpm2_getsessionauditdigest, openssl checks the signature, the digest is $1
report() {
	local what=$1 want=$2 att
	rm -f "$K/a.att" "$K/a.sig"
	run "getsessionauditdigest ($what)" tpm2_getsessionauditdigest -c "$K/sig.ctx" \
		-S "$K/s.ctx" -q "$NONCE" -m "$K/a.att" -s "$K/a.sig" -f plain -g sha256
	[ -s "$K/a.att" ] || return 0
	if openssl dgst -sha256 -verify "$K/sig.pem" -signature "$K/a.sig" "$K/a.att" \
		>"$T/out" 2>"$T/err"; then
		ok "openssl verifies the signature ($what)"
	else
		bad "openssl verifies the signature ($what)"
		show_tail "$T/err"
	fi
	att=$(hex_of "$K/a.att")
	check_eq "magic, TPM_ST_ATTEST_SESSION_AUDIT ($what)" ff5443478016 "${att:0:12}"
	case $att in
	*0008$NONCE*) ok "extraData is the qualification ($what)" ;;
	*) bad "extraData is the qualification ($what)" ;;
	esac
	check_eq "sessionDigest is the digest computed here ($what)" "0020$want" "${att: -68}"
	# every tool runs unaudited commands around its own: never exclusive here
	check_eq "exclusiveSession NO ($what)" 00 "${att: -70:2}"
}

report "two getrandom" "$want"

run "sessionconfig --enable-auditexclusive" tpm2_sessionconfig "$K/s.ctx" \
	--enable-auditexclusive
expect_rc "getrandom with auditExclusive, not exclusive: TPM_RC_EXCLUSIVE" 0x121 \
	tpm2_getrandom 8 -S "$K/s.ctx" -o "$K/r3.bin"
run "sessionconfig --enable-auditreset" tpm2_sessionconfig "$K/s.ctx" --enable-auditreset
run "getrandom with auditReset (and auditExclusive)" tpm2_getrandom 8 -S "$K/s.ctx" \
	-o "$K/r4.bin"
report "after auditReset" "$(extend_getrandom "$K/r4.bin" "$ZEROS")"

expect_rc "getsessionauditdigest with a wrong endorsement auth: TPM_RC_BAD_AUTH" 0x9a2 \
	tpm2_getsessionauditdigest -c "$K/sig.ctx" -S "$K/s.ctx" -P wrong -m "$K/b.att" \
	-s "$K/b.sig"
run "flushcontext the session" tpm2_flushcontext "$K/s.ctx"

finish
