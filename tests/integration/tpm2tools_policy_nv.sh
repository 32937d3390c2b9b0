#!/bin/bash
# tpm2-tools, the policies on NV contents and on duplication, and policy sessions across a
# server restart:
# - tpm2_policynvwritten: the trial digests, and a write-once index (PolicyCommandCode(NV_Write)
#   + PolicyNvWritten(c)) written once and refused the second time;
# - tpm2_policyauthorizenv: the trial digest H(0 || TPM_CC_PolicyAuthorizeNV || index Name),
#   data sealed under it unsealed with the policy the index approves, then the index approves
#   another policy: the old one is refused, the new one unseals the same object;
# - tpm2_policyduplicationselect: the trial digests (with and without the object), tpm2_duplicate
#   to the selected new parent, and a refusal for another parent;
# - a policy session saved by the tools (tpm2_startauthsession -S) and half satisfied survives
#   Shutdown(STATE), a new server process and Startup(STATE) (TPM Resume) or Startup(CLEAR)
#   (TPM Restart), and completes an unseal; after Shutdown(CLEAR) (TPM Reset) it is gone.
set -eu
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

K=$T/k
mkdir -p "$K"
ZERO=$(printf '%064d' 0)
SECRET="policy nv sealed secret"
printf '%s' "$SECRET" >"$K/secret"

POLICY_FAIL=0x99d # TPM_RC_POLICY_FAIL, session 1
VALUE=0x84        # TPM_RC_VALUE (PolicyAuthorizeNV: the session's digest is not the policy)
HANDLE_P1=0x1cb   # TPM_RC_HANDLE, parameter 1 (ContextLoad of a session that is gone)

tpm_start
run "startup clear" tpm2_startup -c
run "storage primary" tpm2_createprimary -C o -g sha256 -G ecc256 -c "$K/prim.ctx"

policy_session() {
	run "policy session${1:+ $1}" tpm2_startauthsession --policy-session -S "$K/${1:-s}.ctx"
}

flush_session() {
	tpm2_flushcontext "$K/${1:-s}.ctx" >/dev/null 2>&1 || true
}

# seal NAME: data sealed under $K/NAME.pol (noDA), loaded as $K/NAME.ctx
seal() {
	run "$1: create sealed object" tpm2_create -C "$K/prim.ctx" -g sha256 \
		-a "fixedtpm|fixedparent|noda" -L "$K/$1.pol" -i "$K/secret" \
		-u "$K/$1.pub" -r "$K/$1.priv"
	run "$1: load" tpm2_load -C "$K/prim.ctx" -u "$K/$1.pub" -r "$K/$1.priv" -c "$K/$1.ctx"
}

# unseal_ok LABEL NAME [SESSION]: unseal $K/NAME.ctx with the policy session, get the secret
unseal_ok() {
	rm -f "$K/out"
	run "$1: unseal" tpm2_unseal -c "$K/$2.ctx" -p "session:$K/${3:-s}.ctx" -o "$K/out"
	check_eq "$1: unsealed data" "$SECRET" "$(cat "$K/out" 2>/dev/null)"
	flush_session "${3:-s}"
}

# The Name of an NV index, hex, as tpm2_nvreadpublic prints it
nv_name() {
	tpm2_nvreadpublic "$1" 2>/dev/null | awk '/name:/ { print $2; exit }' | tr 'A-F' 'a-f'
}

# ---- tpm2_policynvwritten ----
policy_trial "$K" nvw_s tpm2_policynvwritten s
check_eq "policynvwritten s digest" "$(sha256_of_hex "${ZERO}0000018f01")" "$(hex_of "$K/nvw_s.pol")"
policy_trial "$K" nvw_c tpm2_policynvwritten c
check_eq "policynvwritten c digest" "$(sha256_of_hex "${ZERO}0000018f00")" "$(hex_of "$K/nvw_c.pol")"

ONCE=0x01500020
run "write-once policy: start" tpm2_startauthsession -S "$K/trial.ctx"
run "write-once policy: policycommandcode" tpm2_policycommandcode -S "$K/trial.ctx" TPM2_CC_NV_Write
run "write-once policy: policynvwritten c" tpm2_policynvwritten -S "$K/trial.ctx" -L "$K/once.pol" c
run "write-once policy: flush" tpm2_flushcontext "$K/trial.ctx"
cc_nvwrite=$(sha256_of_hex "${ZERO}0000016c00000137")
check_eq "write-once policy digest" "$(sha256_of_hex "${cc_nvwrite}0000018f00")" "$(hex_of "$K/once.pol")"
run "nvdefine write-once index" tpm2_nvdefine $ONCE -C o -s 8 -a "ownerread|policywrite" -L "$K/once.pol"
printf 'first!!!' >"$K/first"
printf 'second!!' >"$K/second"

# nvwrite_policy LABEL FILE: the policy session for the write-once index, then the write
nvwrite_session() {
	policy_session
	run "$1: policycommandcode" tpm2_policycommandcode -S "$K/s.ctx" TPM2_CC_NV_Write
	run "$1: policynvwritten c" tpm2_policynvwritten -S "$K/s.ctx" c
}
nvwrite_session "first write"
run "first write: nvwrite with the policy" tpm2_nvwrite $ONCE -C $ONCE -P "session:$K/s.ctx" -i "$K/first"
flush_session
nvwrite_session "second write"
expect_rc "second write: refused (the index is written)" $POLICY_FAIL \
	tpm2_nvwrite $ONCE -C $ONCE -P "session:$K/s.ctx" -i "$K/second"
flush_session
run "nvread write-once index" tpm2_nvread $ONCE -C o -s 8 -o "$K/once.out"
check_eq "write-once index holds the first write" "first!!!" "$(cat "$K/once.out" 2>/dev/null)"

# ---- tpm2_policyauthorizenv ----
ANV=0x01500021
run "nvdefine policy index" tpm2_nvdefine $ANV -C o -p nvpass -s 34 -a "ownerread|ownerwrite|authread|authwrite|no_da"
policy_trial "$K" approved tpm2_policycommandcode TPM2_CC_Unseal
policy_trial "$K" approved2 tpm2_policypassword
# write_policy FILE: TPMT_HA { sha256, the digest } into the index
write_policy() {
	{ printf '\0\013'; cat "$1"; } >"$K/tpmt_ha"
	run "nvwrite policy $(basename "$1")" tpm2_nvwrite $ANV -C $ANV -P nvpass -i "$K/tpmt_ha"
}
write_policy "$K/approved.pol"
run "trial policyauthorizenv: start" tpm2_startauthsession -S "$K/trial.ctx"
run "trial policyauthorizenv" tpm2_policyauthorizenv -S "$K/trial.ctx" -C $ANV -P nvpass -L "$K/anv.pol" $ANV
run "trial policyauthorizenv: flush" tpm2_flushcontext "$K/trial.ctx"
name=$(nv_name $ANV)
check_eq "policyauthorizenv digest" "$(sha256_of_hex "${ZERO}00000192${name}")" "$(hex_of "$K/anv.pol")"
seal anv
policy_session
run "anv: policycommandcode unseal" tpm2_policycommandcode -S "$K/s.ctx" TPM2_CC_Unseal
run "anv: policyauthorizenv" tpm2_policyauthorizenv -S "$K/s.ctx" -C $ANV -P nvpass $ANV
unseal_ok anv anv
policy_session
run "anv owner: policycommandcode unseal" tpm2_policycommandcode -S "$K/s.ctx" TPM2_CC_Unseal
run "anv owner: policyauthorizenv, owner reads the index" tpm2_policyauthorizenv -S "$K/s.ctx" -C o $ANV
unseal_ok "anv owner" anv
# another policy approved: the first no longer does, the second unseals the same object
write_policy "$K/approved2.pol"
policy_session
run "anv old: policycommandcode unseal" tpm2_policycommandcode -S "$K/s.ctx" TPM2_CC_Unseal
expect_rc "anv old: policyauthorizenv refused" $VALUE \
	tpm2_policyauthorizenv -S "$K/s.ctx" -C $ANV -P nvpass $ANV
flush_session
policy_session
run "anv new: policypassword" tpm2_policypassword -S "$K/s.ctx"
run "anv new: policyauthorizenv" tpm2_policyauthorizenv -S "$K/s.ctx" -C $ANV -P nvpass $ANV
unseal_ok "anv new" anv

# ---- tpm2_policyduplicationselect ----
run "new parent (null hierarchy)" tpm2_createprimary -C n -g sha256 -G ecc256 -c "$K/dst.ctx"
run "new parent name" tpm2_readpublic -c "$K/dst.ctx" -n "$K/dst.name"
run "other parent" tpm2_createprimary -C e -g sha256 -G ecc256 -c "$K/dst2.ctx"
run "trial policyduplicationselect: start" tpm2_startauthsession -S "$K/trial.ctx"
run "trial policyduplicationselect" tpm2_policyduplicationselect -S "$K/trial.ctx" \
	-N "$K/dst.name" -L "$K/dupsel.pol"
run "trial policyduplicationselect: flush" tpm2_flushcontext "$K/trial.ctx"
check_eq "policyduplicationselect digest" \
	"$(sha256_of_hex "${ZERO}00000188$(hex_of "$K/dst.name")00")" "$(hex_of "$K/dupsel.pol")"
run "duplicable key" tpm2_create -C "$K/prim.ctx" -g sha256 -G ecc256 -L "$K/dupsel.pol" \
	-a "sensitivedataorigin|sign|userwithauth" -u "$K/dup.pub" -r "$K/dup.priv"
run "duplicable key: load" tpm2_load -C "$K/prim.ctx" -u "$K/dup.pub" -r "$K/dup.priv" -c "$K/dup.ctx"
run "duplicable key: name" tpm2_readpublic -c "$K/dup.ctx" -n "$K/dup.name"
run "trial with the object: start" tpm2_startauthsession -S "$K/trial.ctx"
# tpm2-tools 5.4 clears includeObject at each option it parses after --include-object: last
run "trial policyduplicationselect --include-object" tpm2_policyduplicationselect -S "$K/trial.ctx" \
	-n "$K/dup.name" -N "$K/dst.name" -L "$K/dupsel_obj.pol" --include-object
run "trial with the object: flush" tpm2_flushcontext "$K/trial.ctx"
check_eq "policyduplicationselect --include-object digest" \
	"$(sha256_of_hex "${ZERO}00000188$(hex_of "$K/dup.name")$(hex_of "$K/dst.name")01")" \
	"$(hex_of "$K/dupsel_obj.pol")"
policy_session
run "dup: policyduplicationselect" tpm2_policyduplicationselect -S "$K/s.ctx" \
	-n "$K/dup.name" -N "$K/dst.name"
run "dup: duplicate to the selected parent" tpm2_duplicate -C "$K/dst.ctx" -c "$K/dup.ctx" -G null \
	-p "session:$K/s.ctx" -r "$K/dup.out.priv" -s "$K/dup.seed"
flush_session
if [ -s "$K/dup.out.priv" ]; then ok "dup: a duplicate came out"; else bad "dup: a duplicate came out"; fi
policy_session
run "dup other: policyduplicationselect" tpm2_policyduplicationselect -S "$K/s.ctx" \
	-n "$K/dup.name" -N "$K/dst.name"
expect_rc "dup other: duplicate to another parent refused" $POLICY_FAIL \
	tpm2_duplicate -C "$K/dst2.ctx" -c "$K/dup.ctx" -G null -p "session:$K/s.ctx" \
	-r "$K/dup2.priv" -s "$K/dup2.seed"
flush_session

# ---- a saved policy session across a server restart ----
policy_trial "$K" cc tpm2_policycommandcode TPM2_CC_Unseal
seal cc

# half_satisfied NAME: a policy session NAME with PolicyCommandCode(Unseal), saved by the tools
half_satisfied() {
	policy_session "$1"
	run "$1: policycommandcode unseal" tpm2_policycommandcode -S "$K/$1.ctx" TPM2_CC_Unseal
}

half_satisfied resume
run "shutdown state" tpm2_shutdown
# a new server is the same running TPM: a reboot (power cycle) makes the Startup mean something
tpm_restart
tpm_reset
run "startup state in the new server (TPM Resume)" tpm2_startup
unseal_ok "after Resume in a new server" cc resume

half_satisfied restart
run "shutdown state before a Restart" tpm2_shutdown
tpm_restart
tpm_reset
run "startup clear in the new server (TPM Restart)" tpm2_startup -c
# a Restart flushed the loaded objects; their contexts (owner hierarchy) load again
unseal_ok "after Restart in a new server" cc restart

half_satisfied reset
run "shutdown clear" tpm2_shutdown -c
tpm_restart
tpm_reset
run "startup clear in the new server (TPM Reset)" tpm2_startup -c
expect_rc "after Reset: the saved session does not load" $HANDLE_P1 \
	tpm2_policycommandcode -S "$K/reset.ctx" TPM2_CC_Unseal

finish
