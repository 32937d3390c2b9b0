#!/bin/bash
# tpm2-tools, policies: for policypcr, policycommandcode, policyauthvalue, policypassword,
# policysecret, policyor and policyauthorize, the digest of a trial session (checked against
# H(old || commandCode || arguments) computed here), data sealed under it with userWithAuth
# clear, an unseal through a policy session, and a refusal when the policy does not hold.
set -eu
. "$(dirname "$0")/lib.sh"

K=$T/k
mkdir -p "$K"
ZERO=$(printf '%064d' 0)
SECRET="policy sealed secret"
printf '%s' "$SECRET" >"$K/secret"

tpm_start
run "startup clear" tpm2_startup -c
run "storage primary" tpm2_createprimary -C o -g sha256 -G ecc256 -c "$K/prim.ctx"

# check_digest NAME HEX: the trial's digest is what we computed
check_digest() {
	check_eq "$1 digest" "$2" "$(hex_of "$K/$1.pol")"
}

# seal NAME [AUTH]: data sealed under $K/NAME.pol (noDA: this file tries wrong values), loaded
seal() {
	run "$1: create sealed object" tpm2_create -C "$K/prim.ctx" -g sha256 \
		-a "fixedtpm|fixedparent|noda" -L "$K/$1.pol" -i "$K/secret" \
		-u "$K/$1.pub" -r "$K/$1.priv" ${2:+-p "$2"}
	run "$1: load" tpm2_load -C "$K/prim.ctx" -u "$K/$1.pub" -r "$K/$1.priv" -c "$K/$1.ctx"
}

# policy_session: a fresh policy session in $K/s.ctx
policy_session() {
	run "policy session" tpm2_startauthsession --policy-session -S "$K/s.ctx"
}

# unseal_ok LABEL NAME [AUTH]: unseal $K/NAME.ctx with the policy session, get the secret back
unseal_ok() {
	rm -f "$K/out"
	run "$1: unseal" tpm2_unseal -c "$K/$2.ctx" -p "session:$K/s.ctx${3:++$3}" -o "$K/out"
	check_eq "$1: unsealed data" "$SECRET" "$(cat "$K/out" 2>/dev/null)"
	tpm2_flushcontext "$K/s.ctx" >/dev/null 2>&1 || true
}

# unseal_rc LABEL NAME RC [AUTH]: the unseal fails with RC
unseal_rc() {
	expect_rc "$1: unseal refused" "$3" tpm2_unseal -c "$K/$2.ctx" -p "session:$K/s.ctx${4:++$4}"
	tpm2_flushcontext "$K/s.ctx" >/dev/null 2>&1 || true
}

POLICY_FAIL=0x99d # TPM_RC_POLICY_FAIL, session 1
POLICY_CC=0x9a4	  # TPM_RC_POLICY_CC, session 1
BAD_AUTH=0x9a2	  # TPM_RC_BAD_AUTH, session 1 (noDA objects and hierarchies)

# ---- policycommandcode ----
policy_trial "$K" cc tpm2_policycommandcode TPM2_CC_Unseal
check_digest cc "$(sha256_of_hex "${ZERO}0000016c0000015e")"
seal cc
policy_session
run "cc: policycommandcode" tpm2_policycommandcode -S "$K/s.ctx" TPM2_CC_Unseal
unseal_ok cc cc
# an object whose policy names ObjectChangeAuth, used for Unseal: the digest matches, the
# command does not
policy_trial "$K" cca tpm2_policycommandcode TPM2_CC_ObjectChangeAuth
seal cca
policy_session
run "cca: policycommandcode" tpm2_policycommandcode -S "$K/s.ctx" TPM2_CC_ObjectChangeAuth
unseal_rc cca cca "$POLICY_CC"

# ---- policyauthvalue / policypassword (same digest) ----
AUTHVALUE=8fcd2169ab92694e0c633f1ab772842b8241bbc20288981fc7ac1eddc1fddb0e
policy_trial "$K" authvalue tpm2_policyauthvalue
check_digest authvalue "$AUTHVALUE"
policy_trial "$K" password tpm2_policypassword
check_digest password "$AUTHVALUE"
seal authvalue objpass
policy_session
run "authvalue: policyauthvalue" tpm2_policyauthvalue -S "$K/s.ctx"
unseal_ok authvalue authvalue objpass
policy_session
run "authvalue: policyauthvalue (wrong auth next)" tpm2_policyauthvalue -S "$K/s.ctx"
unseal_rc "authvalue, wrong auth" authvalue "$BAD_AUTH" wrongpass
policy_session
run "password: policypassword" tpm2_policypassword -S "$K/s.ctx"
unseal_ok password authvalue objpass
expect_fail "authvalue: no password alone (userWithAuth clear)" \
	tpm2_unseal -c "$K/authvalue.ctx" -p objpass

# ---- policypcr ----
run "pcr: read PCR 16" tpm2_pcrread sha256:16 -o "$K/pcr16.bin"
policy_trial "$K" pcr tpm2_policypcr -l sha256:16
check_digest pcr "$(sha256_of_hex "${ZERO}0000017f00000001000b03000001$(sha256_hex "$K/pcr16.bin")")"
seal pcr
policy_session
run "pcr: policypcr" tpm2_policypcr -S "$K/s.ctx" -l sha256:16
unseal_ok pcr pcr
run "pcr: extend PCR 16" tpm2_pcrextend "16:sha256=$(printf '%064d' 1)"
policy_session
run "pcr: policypcr after the extend" tpm2_policypcr -S "$K/s.ctx" -l sha256:16
unseal_rc "pcr, after the extend" pcr "$POLICY_FAIL"

# ---- policysecret (owner) ----
run "secret: owner auth" tpm2_changeauth -c o ownerpass
policy_trial "$K" secret tpm2_policysecret -c o ownerpass
check_digest secret "$(sha256_of_hex "$(sha256_of_hex "${ZERO}0000015140000001")")"
seal secret
policy_session
run "secret: policysecret" tpm2_policysecret -S "$K/s.ctx" -c o ownerpass
unseal_ok secret secret
policy_session
expect_rc "secret: policysecret with a wrong owner auth" "$BAD_AUTH" \
	tpm2_policysecret -S "$K/s.ctx" -c o wrongpass
tpm2_flushcontext "$K/s.ctx" >/dev/null 2>&1 || true

# ---- policyor: commandcode or authvalue ----
policy_trial "$K" or tpm2_policyor -l "sha256:$K/cc.pol,$K/authvalue.pol"
check_digest or "$(sha256_of_hex "${ZERO}00000171$(hex_of "$K/cc.pol")$AUTHVALUE")"
seal or orpass
policy_session
run "or: policycommandcode" tpm2_policycommandcode -S "$K/s.ctx" TPM2_CC_Unseal
run "or: policyor" tpm2_policyor -S "$K/s.ctx" -l "sha256:$K/cc.pol,$K/authvalue.pol"
unseal_ok "or, commandcode branch" or
policy_session
run "or: policyauthvalue" tpm2_policyauthvalue -S "$K/s.ctx"
run "or: policyor (other branch)" tpm2_policyor -S "$K/s.ctx" -l "sha256:$K/cc.pol,$K/authvalue.pol"
unseal_ok "or, authvalue branch" or orpass
policy_session
run "or: policypassword then policyor" tpm2_policypassword -S "$K/s.ctx"
run "or: policyor" tpm2_policyor -S "$K/s.ctx" -l "sha256:$K/cc.pol,$K/authvalue.pol"
unseal_ok "or, password branch" or orpass
policy_session
run "or: policypcr (in no branch)" tpm2_policypcr -S "$K/s.ctx" -l sha256:16
expect_rc "or: policyor refuses a digest in no branch" 0x1c4 \
	tpm2_policyor -S "$K/s.ctx" -l "sha256:$K/cc.pol,$K/authvalue.pol"
tpm2_flushcontext "$K/s.ctx" >/dev/null 2>&1 || true

# ---- policyauthorize: a key approves a PCR policy ----
run "authorize: RSA key" openssl genrsa -out "$K/signer.pem" 2048
run "authorize: its public key" openssl rsa -in "$K/signer.pem" -pubout -out "$K/signer.pub.pem"
run "authorize: loadexternal" tpm2_loadexternal -G rsa -C o -u "$K/signer.pub.pem" \
	-c "$K/signer.ctx" -n "$K/signer.name"
policy_trial "$K" authorize tpm2_policyauthorize -i "$K/pcr.pol" -n "$K/signer.name"
check_digest authorize "$(sha256_of_hex "$(sha256_of_hex "${ZERO}0000016a$(hex_of "$K/signer.name")")")"
seal authorize
# approve the policy of PCR 16 as it is now
policy_trial "$K" approved tpm2_policypcr -l sha256:16
run "authorize: sign the approved policy" openssl dgst -sha256 -sign "$K/signer.pem" \
	-out "$K/approved.sig" "$K/approved.pol"
run "authorize: verifysignature" tpm2_verifysignature -c "$K/signer.ctx" -g sha256 \
	-m "$K/approved.pol" -s "$K/approved.sig" -f rsassa -t "$K/approved.tkt"
policy_session
run "authorize: policypcr" tpm2_policypcr -S "$K/s.ctx" -l sha256:16
run "authorize: policyauthorize" tpm2_policyauthorize -S "$K/s.ctx" -i "$K/approved.pol" \
	-n "$K/signer.name" -t "$K/approved.tkt"
unseal_ok authorize authorize
# after another extend the approved PCR policy no longer holds
run "authorize: extend PCR 16" tpm2_pcrextend "16:sha256=$(printf '%064d' 2)"
policy_session
run "authorize: policypcr after the extend" tpm2_policypcr -S "$K/s.ctx" -l sha256:16
expect_rc "authorize: policyauthorize refuses it" 0x1c4 \
	tpm2_policyauthorize -S "$K/s.ctx" -i "$K/approved.pol" -n "$K/signer.name" \
	-t "$K/approved.tkt"
tpm2_flushcontext "$K/s.ctx" >/dev/null 2>&1 || true

# ---- a trial session never authorizes ----
run "trial session for unseal" tpm2_startauthsession -S "$K/s.ctx"
run "trial: policycommandcode" tpm2_policycommandcode -S "$K/s.ctx" TPM2_CC_Unseal
expect_fail "trial: unseal refused" tpm2_unseal -c "$K/cc.ctx" -p "session:$K/s.ctx"
tpm2_flushcontext "$K/s.ctx" >/dev/null 2>&1 || true

finish
