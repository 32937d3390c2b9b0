#!/bin/bash
# tpm2-tools, the SHA-512 PCR bank: tpm2_getcap pcrs lists it, tpm2_pcrallocate allocates it
# (from the next TPM Reset), tpm2_pcrextend extends it (value = SHA-512(old || digest),
# computed here) and tpm2_pcrread reads it.
set -eu
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

ZEROS=$(printf '0%.0s' {1..128})
D=$(printf 'a5%.0s' {1..64})

sha512_of_hex() {
	echo "$1" | xxd -r -p | sha512sum | cut -c1-128
}

# the SHA-512 value of PCR $1 as tpm2_pcrread prints it, lower case without 0x
pcr512() {
	tpm2_pcrread "sha512:$1" | awk -F': ' '/0x/ { print tolower(substr($2, 3)) }'
}

tpm_start
run "startup clear" tpm2_startup -c
run "getcap pcrs" tpm2_getcap pcrs
grep -q sha512 "$T/out" && ok "the SHA-512 bank is listed" || bad "the SHA-512 bank is listed"
run "pcrallocate sha256:all+sha512:all" tpm2_pcrallocate sha256:all+sha512:all
tpm_reset
run "startup clear after the reset" tpm2_startup -c
check_eq "PCR 16 of the SHA-512 bank after the reset" "$ZEROS" "$(pcr512 16)"
run "pcrextend 16:sha512" tpm2_pcrextend "16:sha512=$D"
check_eq "PCR 16 = SHA-512(0 || digest)" "$(sha512_of_hex "$ZEROS$D")" "$(pcr512 16)"
finish
