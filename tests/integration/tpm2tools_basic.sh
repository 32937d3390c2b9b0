#!/bin/bash
# tpm2-tools, basics: startup, getrandom, getcap (algorithms, commands, fixed properties).
set -eu
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

# The raw value tpm2_getcap printed for a property (e.g. TPM2_PT_MAX_COMMAND_SIZE).
cap_raw() {
	awk -v k="$1:" '$1 == k { getline; if ($1 == "raw:") print $2; exit }' "$2"
}

# What each implementation reports: pqtpm's buffers fit ML-DSA-87 signatures (8 KiB), its
# manufacturer is "SW  " (which tpm2-tools treats as a simulator) and its vendor string "pqtpm".
case $TPM_IMPL in
pqtpm) want_max_cmd=0x2000 want_man=0x53572020 want_vendor="0x70717470 0x6D000000" ;;
swtpm) want_max_cmd=0x1000 want_man=0x49424D00 want_vendor="0x53572020 0x2054504D" ;;
esac

tpm_start
run "startup clear" tpm2_startup -c
# A second Startup answers TPM_RC_INITIALIZE, which tpm2_startup treats as success.
run "startup clear again" tpm2_startup -c

run "getrandom 32" tpm2_getrandom -o "$T/r1" 32
check_eq "getrandom returns 32 bytes" 32 "$(stat -c %s "$T/r1" 2>/dev/null || echo 0)"
run "getrandom 32 again" tpm2_getrandom -o "$T/r2" 32
if [ -s "$T/r1" ] && cmp -s "$T/r1" "$T/r2"; then
	bad "two getrandom results differ"
else
	ok "two getrandom results differ"
fi
run "getrandom 1" tpm2_getrandom -o "$T/r3" 1
check_eq "getrandom returns 1 byte" 1 "$(stat -c %s "$T/r3" 2>/dev/null || echo 0)"

run "getcap algorithms" tpm2_getcap algorithms
cp "$T/out" "$T/algs"
for a in rsa ecc sha1 sha256 sha384 hmac aes keyedhash symcipher rsassa rsapss rsaes oaep ecdsa ecdh cfb; do
	if grep -q "^$a:" "$T/algs"; then
		ok "algorithm $a listed"
	else
		bad "algorithm $a listed"
	fi
done

run "getcap commands" tpm2_getcap commands
cp "$T/out" "$T/cmds"
for c in Startup Shutdown GetRandom GetCapability CreatePrimary Create Load ReadPublic \
	FlushContext ContextSave ContextLoad Sign VerifySignature PCR_Read PCR_Extend PCR_Reset \
	EvictControl Unseal RSA_Encrypt RSA_Decrypt Hash HMAC HierarchyChangeAuth Clear; do
	if grep -q "^TPM2_CC_$c:" "$T/cmds"; then
		ok "command $c listed"
	else
		bad "command $c listed"
	fi
done

run "getcap properties-fixed" tpm2_getcap properties-fixed
cp "$T/out" "$T/props"
got=$(cap_raw TPM2_PT_MAX_COMMAND_SIZE "$T/props")
check_eq "TPM2_PT_MAX_COMMAND_SIZE" "$want_max_cmd" "$got"
got=$(cap_raw TPM2_PT_MAX_RESPONSE_SIZE "$T/props")
check_eq "TPM2_PT_MAX_RESPONSE_SIZE" "$want_max_cmd" "$got"
check_eq "TPM2_PT_FAMILY_INDICATOR" 0x322E3000 "$(cap_raw TPM2_PT_FAMILY_INDICATOR "$T/props")"
check_eq "TPM2_PT_MANUFACTURER" "$want_man" "$(cap_raw TPM2_PT_MANUFACTURER "$T/props")"
check_eq "TPM2_PT_VENDOR_STRING_1/2" "$want_vendor" \
	"$(cap_raw TPM2_PT_VENDOR_STRING_1 "$T/props") $(cap_raw TPM2_PT_VENDOR_STRING_2 "$T/props")"
got=$(cap_raw TPM2_PT_PCR_COUNT "$T/props")
check_eq "TPM2_PT_PCR_COUNT" 0x18 "$got"

run "getcap properties-variable" tpm2_getcap properties-variable
run "getcap pcrs" tpm2_getcap pcrs
if grep -q sha256 "$T/out"; then ok "sha256 PCR bank allocated"; else bad "sha256 PCR bank allocated"; fi

finish
