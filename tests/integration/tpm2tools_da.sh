#!/bin/bash
# tpm2-tools, dictionary-attack protection: tpm2_dictionarylockout sets the parameters, wrong
# passwords on a DA-protected sealed object count up to maxTries, the TPM then refuses it with
# TPM_RC_LOCKOUT (a noDA object and the owner hierarchy still work), tpm2_dictionarylockout -c
# clears it; the counter survives a server restart; a wrong lockout auth locks lockoutAuth.
# The recovery times are long (LONG s) so that nothing heals while the test runs.
set -eu
. "$(dirname "$0")/lib.sh"

K=$T/k
mkdir -p "$K"
printf 'da secret' >"$K/secret"

AUTH_FAIL=0x98e # TPM_RC_AUTH_FAIL, session 1: counted
BAD_AUTH=0x9a2	# TPM_RC_BAD_AUTH, session 1: not DA-protected
LOCKOUT=0x921	# TPM_RC_LOCKOUT
LONG=4000000000 # s
LONG_HEX=0xEE6B2800

# prop NAME: a TPM2_PT_ value (or TPMA_PERMANENT field) from tpm2_getcap properties-variable
prop() {
	tpm2_getcap properties-variable 2>/dev/null | sed -n "s/^ *$1: *//p" | head -n 1
}

check_prop() {
	check_eq "$1 is $2" "$2" "$(prop "$1")"
}

tpm_start
run "startup clear" tpm2_startup -c
check_prop TPM2_PT_MAX_AUTH_FAIL 0x3
check_prop TPM2_PT_LOCKOUT_INTERVAL 0x3E8
check_prop TPM2_PT_LOCKOUT_RECOVERY 0x3E8
run "dictionarylockout -s: maxTries 4, recoveryTime and lockoutRecovery LONG" \
	tpm2_dictionarylockout -s -n 4 -t "$LONG" -l "$LONG"
check_prop TPM2_PT_MAX_AUTH_FAIL 0x4
check_prop TPM2_PT_LOCKOUT_INTERVAL "$LONG_HEX"
check_prop TPM2_PT_LOCKOUT_RECOVERY "$LONG_HEX"
check_prop TPM2_PT_LOCKOUT_COUNTER 0x0

run "storage primary" tpm2_createprimary -C o -g sha256 -G ecc256 -c "$K/prim.ctx"
run "DA-protected sealed object" tpm2_create -C "$K/prim.ctx" -i "$K/secret" -p pw \
	-u "$K/da.pub" -r "$K/da.priv"
run "load it" tpm2_load -C "$K/prim.ctx" -u "$K/da.pub" -r "$K/da.priv" -c "$K/da.ctx"
run "noDA sealed object" tpm2_create -C "$K/prim.ctx" -i "$K/secret" -p pw \
	-a "fixedtpm|fixedparent|userwithauth|noda" -u "$K/noda.pub" -r "$K/noda.priv"
run "load it" tpm2_load -C "$K/prim.ctx" -u "$K/noda.pub" -r "$K/noda.priv" -c "$K/noda.ctx"

# exempt entities fail without counting
expect_rc "noDA object, wrong password" "$BAD_AUTH" tpm2_unseal -c "$K/noda.ctx" -p wrong
expect_rc "owner, wrong password" "$BAD_AUTH" tpm2_createprimary -C o -P wrong -c "$K/x.ctx"
check_prop TPM2_PT_LOCKOUT_COUNTER 0x0

# two failures, then a restart: the counter is kept
expect_rc "DA object, wrong password 1" "$AUTH_FAIL" tpm2_unseal -c "$K/da.ctx" -p wrong
expect_rc "DA object, wrong password 2" "$AUTH_FAIL" tpm2_unseal -c "$K/da.ctx" -p wrong
check_prop TPM2_PT_LOCKOUT_COUNTER 0x2
run "orderly shutdown" tpm2_shutdown -c
tpm_restart
tpm_reset # a reboot: a new server alone is the same running TPM
run "startup clear after the restart" tpm2_startup -c
check_prop TPM2_PT_LOCKOUT_COUNTER 0x2
check_prop TPM2_PT_MAX_AUTH_FAIL 0x4
run "storage primary again" tpm2_createprimary -C o -g sha256 -G ecc256 -c "$K/prim.ctx"
run "load the DA object again" tpm2_load -C "$K/prim.ctx" -u "$K/da.pub" -r "$K/da.priv" \
	-c "$K/da.ctx"
run "load the noDA object again" tpm2_load -C "$K/prim.ctx" -u "$K/noda.pub" \
	-r "$K/noda.priv" -c "$K/noda.ctx"
run "the right password still works" tpm2_unseal -c "$K/da.ctx" -p pw

# up to maxTries: lockout
expect_rc "DA object, wrong password 3" "$AUTH_FAIL" tpm2_unseal -c "$K/da.ctx" -p wrong
expect_rc "DA object, wrong password 4" "$AUTH_FAIL" tpm2_unseal -c "$K/da.ctx" -p wrong
check_prop TPM2_PT_LOCKOUT_COUNTER 0x4
check_prop inLockout 1
expect_rc "in lockout: the right password is refused" "$LOCKOUT" \
	tpm2_unseal -c "$K/da.ctx" -p pw
run "in lockout: the noDA object works" tpm2_unseal -c "$K/noda.ctx" -p pw
run "in lockout: the owner hierarchy works" tpm2_createprimary -C o -c "$K/x.ctx"

# lockoutAuth clears it
run "dictionarylockout -c" tpm2_dictionarylockout -c
check_prop TPM2_PT_LOCKOUT_COUNTER 0x0
check_prop inLockout 0
run "after the reset the right password works" tpm2_unseal -c "$K/da.ctx" -p pw

# a wrong lockout auth locks lockoutAuth itself (for lockoutRecovery), even the right one
run "lockout auth" tpm2_changeauth -c l lpass
expect_rc "dictionarylockout -c with a wrong lockout auth" "$AUTH_FAIL" \
	tpm2_dictionarylockout -c -p wrong
expect_rc "lockoutAuth refused after the failure" "$LOCKOUT" tpm2_dictionarylockout -c -p lpass
run "other entities are unaffected" tpm2_unseal -c "$K/da.ctx" -p pw
run "orderly shutdown" tpm2_shutdown -c
tpm_restart
tpm_reset # a reboot: a new server alone is the same running TPM
run "startup clear after the restart" tpm2_startup -c
expect_rc "lockoutAuth still refused after a restart" "$LOCKOUT" \
	tpm2_dictionarylockout -c -p lpass

finish
