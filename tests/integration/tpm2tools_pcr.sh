#!/bin/bash
# tpm2-tools, PCRs: pcrread, pcrextend (expected value computed here), pcrevent, pcrreset.
set -eu
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

ZERO=0000000000000000000000000000000000000000000000000000000000000000

# Reads one SHA-256 PCR as lowercase hex into $T/pcr.hex (empty on failure).
pcr_hex() {
	: >"$T/pcr.hex"
	rm -f "$T/pcr.bin"
	run "pcrread sha256:$1" tpm2_pcrread "sha256:$1" -o "$T/pcr.bin"
	[ -s "$T/pcr.bin" ] && hex_of "$T/pcr.bin" >"$T/pcr.hex"
	return 0
}

tpm_start
run "startup clear" tpm2_startup -c

run "pcrread sha1+sha256 0-23" tpm2_pcrread sha1:all+sha256:all
if grep -q '23: 0x' "$T/out"; then ok "pcrread lists PCR 23"; else bad "pcrread lists PCR 23"; fi

# After Startup(CLEAR) PCR 16 (debug, resettable) is zero.
pcr_hex 16
check_eq "PCR 16 is zero after startup" "$ZERO" "$(cat "$T/pcr.hex")"

# Extend with a known digest: new = SHA-256(old || digest).
d1=$(printf 'pqtpm extend 1' | sha256sum | cut -c1-64)
run "pcrextend 16 sha256" tpm2_pcrextend "16:sha256=$d1"
want=$(sha256_of_hex "$ZERO$d1")
pcr_hex 16
check_eq "PCR 16 after one extend" "$want" "$(cat "$T/pcr.hex")"

d2=$(printf 'pqtpm extend 2' | sha256sum | cut -c1-64)
run "pcrextend 16 again" tpm2_pcrextend "16:sha256=$d2"
want=$(sha256_of_hex "$want$d2")
pcr_hex 16
check_eq "PCR 16 after two extends" "$want" "$(cat "$T/pcr.hex")"

# Extending several banks at once leaves other PCRs alone.
run "pcrextend 16 sha1+sha256" tpm2_pcrextend \
	"16:sha1=$(printf x | sha1sum | cut -c1-40),sha256=$d1"
want=$(sha256_of_hex "$want$d1")
pcr_hex 16
check_eq "PCR 16 after multi-bank extend" "$want" "$(cat "$T/pcr.hex")"
pcr_hex 15
check_eq "PCR 15 untouched" "$ZERO" "$(cat "$T/pcr.hex")"

# pcrevent: the TPM hashes the data and extends each bank with it.
printf 'an event worth measuring\n' >"$T/event"
run "pcrevent 16" tpm2_pcrevent 16 "$T/event"
ev=$(sha256_hex "$T/event")
if grep -qi "sha256: $ev" "$T/out"; then ok "pcrevent prints SHA-256 of the data"; else bad "pcrevent prints SHA-256 of the data"; show_tail "$T/out"; fi
want=$(sha256_of_hex "$want$ev")
pcr_hex 16
check_eq "PCR 16 after pcrevent" "$want" "$(cat "$T/pcr.hex")"

# pcrevent with more than 1024 bytes goes through a hash sequence (EventSequenceComplete).
head -c 3000 /dev/zero | tr '\0' 'e' >"$T/bigevent"
run "pcrevent 16 (3000 bytes, sequence)" tpm2_pcrevent 16 "$T/bigevent"
ev=$(sha256_hex "$T/bigevent")
want=$(sha256_of_hex "$want$ev")
pcr_hex 16
check_eq "PCR 16 after sequence pcrevent" "$want" "$(cat "$T/pcr.hex")"

run "pcrreset 16" tpm2_pcrreset 16
pcr_hex 16
check_eq "PCR 16 zero after reset" "$ZERO" "$(cat "$T/pcr.hex")"

run "pcrextend 23" tpm2_pcrextend "23:sha256=$d1"
pcr_hex 23
check_eq "PCR 23 extended" "$(sha256_of_hex "$ZERO$d1")" "$(cat "$T/pcr.hex")"
run "pcrreset 23" tpm2_pcrreset 23
pcr_hex 23
check_eq "PCR 23 zero after reset" "$ZERO" "$(cat "$T/pcr.hex")"

# PCR 0 is not resettable from locality 0: TPM_RC_LOCALITY.
run "pcrextend 0" tpm2_pcrextend "0:sha256=$d1"
expect_rc "pcrreset 0 refused (TPM_RC_LOCALITY)" 0x907 tpm2_pcrreset 0
pcr_hex 0
check_eq "PCR 0 kept its value" "$(sha256_of_hex "$ZERO$d1")" "$(cat "$T/pcr.hex")"

# Bad input: extend a PCR that does not exist.
expect_rc "pcrextend 24 refused (TPM_RC_VALUE on the handle)" "0x184|0x18b" tpm2_pcrextend "24:sha256=$d1"

finish
