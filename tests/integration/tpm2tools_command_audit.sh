#!/bin/bash
# tpm2-tools, command audit: TPM_PT_AUDIT_COUNTER starts at 0 and counts each audit sequence;
# tpm2_setcommandauditstatus is audited itself, adds TPM2_CC_GetRandom to the list and takes it
# off again; tpm2_getcommandauditdigest signs a TPMS_COMMAND_AUDIT_INFO whose counter, audit
# digest H(H(0 || cp1 || rp1) || cp2 || rp2) and command digest are recomputed here from the
# commands sent, and whose ECDSA signature openssl verifies; reporting starts a new sequence, and
# so does a new audit hash (not audited itself). Runs against swtpm too (TPM_IMPL=swtpm).
set -eu
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

K=$T/k
mkdir -p "$K"
NONCE=0badc0de
ZEROS=$(printf '0%.0s' {1..64})
SET=00000140	# TPM_CC_SetCommandCodeAuditStatus
GETRANDOM=0000017b

# The digest $1 extended with the cpHash of command code $2 with handle names and parameters
# $3 and the rpHash of its response parameters $4.
extend() {
	local cp rp
	cp=$(sha256_of_hex "$2$3")
	rp=$(sha256_of_hex "00000000$2$4")
	sha256_of_hex "$1$cp$rp"
}

# check_counter WHAT N: TPM_PT_AUDIT_COUNTER_1 (raw) is N
check_counter() {
	run "getcap properties-variable ($1)" tpm2_getcap properties-variable
	check_eq "TPM_PT_AUDIT_COUNTER_1 is $2 ($1)" "$2" \
		"$(awk '/TPM2_PT_AUDIT_COUNTER_1/ { print $2 }' "$T/out")"
}

# report WHAT COUNTER DIGEST COMMANDS: the signed TPMS_COMMAND_AUDIT_INFO is as given
report() {
	local what=$1 att
	rm -f "$K/a.att" "$K/a.sig"
	run "getcommandauditdigest ($what)" tpm2_getcommandauditdigest -c "$K/sig.ctx" \
		-q "$NONCE" -g sha256 -f plain -m "$K/a.att" -s "$K/a.sig"
	[ -s "$K/a.att" ] || return 0
	if openssl dgst -sha256 -verify "$K/sig.pem" -signature "$K/a.sig" "$K/a.att" \
		>"$T/out" 2>"$T/err"; then
		ok "openssl verifies the signature ($what)"
	else
		bad "openssl verifies the signature ($what)"
		show_tail "$T/err"
	fi
	att=$(hex_of "$K/a.att")
	check_eq "magic, TPM_ST_ATTEST_COMMAND_AUDIT ($what)" ff5443478015 "${att:0:12}"
	case $att in
	*0004$NONCE*) ok "extraData is the qualification ($what)" ;;
	*) bad "extraData is the qualification ($what)" ;;
	esac
	# auditCounter, digestAlg, auditDigest, commandDigest: the last 78 bytes
	check_eq "auditCounter ($what)" "$(printf '%016x' "$2")" "${att: -156:16}"
	check_eq "digestAlg SHA-256 ($what)" 000b "${att: -140:4}"
	check_eq "auditDigest computed here ($what)" "0020$3" "${att: -136:68}"
	check_eq "commandDigest over the list ($what)" "0020$(sha256_of_hex "$4")" "${att: -68}"
}

tpm_start
run "startup clear" tpm2_startup -c
check_counter "before any audit" 0x0

# The tool sends two commands (Part 3: a new hash and a list do not go together): the hash
# (SHA-256 unless -g says otherwise) with empty lists, then the hash with the list. The first
# changes the hash from the TPM's default (SHA-512 here and in libtpms): not audited; the second
# starts sequence 1: owner's name, SHA-256, empty setList and clearList, no response parameters.
EMPTY=40000001000b0000000000000000
run "setcommandauditstatus -g sha256" tpm2_setcommandauditstatus -g sha256
check_counter "the audited SetCommandCodeAuditStatus started sequence 1" 0x1
want=$(extend "$ZEROS" $SET $EMPTY "")

run "createprimary (owner)" tpm2_createprimary -C o -G ecc256 -c "$K/prim.ctx"
run "create an ECDSA signing key" tpm2_create -C "$K/prim.ctx" -G ecc256:ecdsa-sha256 \
	-u "$K/sig.u" -r "$K/sig.r" -c "$K/sig.ctx"
run "signing key as PEM" tpm2_readpublic -c "$K/sig.ctx" -f pem -o "$K/sig.pem"
report "the default list" 1 "$want" $SET

# reported: the next audited command starts sequence 2
run "setcommandauditstatus TPM2_CC_GetRandom" tpm2_setcommandauditstatus TPM2_CC_GetRandom
run "getrandom 8 (audited)" tpm2_getrandom 8 -o "$K/r.bin"
want=$(extend "$ZEROS" $SET $EMPTY "")
want=$(extend "$want" $SET "40000001000b00000001${GETRANDOM}00000000" "")
want=$(extend "$want" $GETRANDOM 0008 "0008$(hex_of "$K/r.bin")")
report "setcommandauditstatus and getrandom" 2 "$want" "$SET$GETRANDOM"

run "setcommandauditstatus --clear-list TPM2_CC_GetRandom" \
	tpm2_setcommandauditstatus --clear-list TPM2_CC_GetRandom
run "getrandom 8 (no longer audited)" tpm2_getrandom 8 -o "$K/r2.bin"
want=$(extend "$ZEROS" $SET $EMPTY "")
want=$(extend "$want" $SET "40000001000b0000000000000001${GETRANDOM}" "")
report "GetRandom taken off" 3 "$want" $SET

# a new hash: the sequence starts again under it, the counter counts it
run "setcommandauditstatus -g sha384" tpm2_setcommandauditstatus -g sha384
check_counter "the second command under the new hash started sequence 4" 0x4
finish
