#!/bin/bash
# tpm2-tools, authorization sessions: tpm2_startauthsession --hmac-session / --policy-session,
# salted with an RSA and an ECC primary (--tpmkey-context: salted; -c: salted and bound),
# tpm2_sessionconfig --enable-decrypt --enable-encrypt, commands that carry secrets through
# the session (getrandom -S, create -p -i, unseal -p session:FILE+AUTH, changeauth), sessions
# saved by one tool and loaded by the next, tpm2_flushcontext of a session and the flushed
# session refused; policy sessions: PolicyCommandCode + PolicyAuthValue / PolicyPassword on an
# unseal (the trial digest checked against the one computed here), an incomplete policy
# refused.
set -eu
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

S=$T/s
mkdir -p "$S"
printf 'a secret worth sealing: 5f0e7c1a\n' >"$S/secret"
# sealed objects are noDA: a wrong authValue gives TPM_RC_BAD_AUTH and leaves the DA counter
SEAL_ATTRS="fixedtpm|fixedparent|userwithauth|noda"
BAD_AUTH_S1=0x9a2
AUTH_FAIL_S1=0x98e
POLICY_FAIL_S1=0x99d

same_file() {
	if [ -s "$2" ] && cmp -s "$2" "$3"; then ok "$1"; else bad "$1"; show_tail "$3" 3; fi
}

# Number of saved sessions the TPM reports (GetCapability TPM_CAP_HANDLES from 0x03000000,
# TPM_HT_SAVED_SESSION): after a tool exits, its session is saved, not loaded.
saved_sessions() {
	tpm2_getcap handles-saved-session 2>/dev/null | grep -c '^- 0x' || true
}

tpm_start
run "startup clear" tpm2_startup -c

run "createprimary rsa2048" tpm2_createprimary -C o -G rsa2048 -c "$S/rsa.ctx"
run "createprimary ecc256" tpm2_createprimary -C o -G ecc256 -c "$S/ecc.ctx"

# hmac_flow KEY HOW: an HMAC session salted with KEY (HOW: "--tpmkey-context" salted and
# unbound, "-c" salted and bound to KEY), used across several tool invocations.
hmac_flow() {
	local key=$1 how=$2 tag sess
	tag="$key $how"
	sess=$S/hmac-$key$how.ctx

	run "[$tag] startauthsession --hmac-session salted" \
		tpm2_startauthsession --hmac-session -S "$sess" "$how" "$S/$key.ctx"
	run "[$tag] sessionconfig --enable-decrypt --enable-encrypt" \
		tpm2_sessionconfig "$sess" --enable-decrypt --enable-encrypt --enable-continuesession
	run "[$tag] sessionconfig shows the attributes" tpm2_sessionconfig "$sess"
	if grep -q decrypt "$T/out" && grep -q encrypt "$T/out"; then
		ok "[$tag] session has decrypt and encrypt set"
	else
		bad "[$tag] session has decrypt and encrypt set"
		show_tail "$T/out" 5
	fi

	# encrypt on the response: GetRandom
	rm -f "$S/rand1" "$S/rand2"
	run "[$tag] getrandom -S (encrypt)" tpm2_getrandom -S "$sess" 32 -o "$S/rand1"
	run "[$tag] getrandom -S again (session saved and loaded)" \
		tpm2_getrandom -S "$sess" 32 -o "$S/rand2"
	if [ "$(stat -c %s "$S/rand1" 2>/dev/null)" = 32 ] && ! cmp -s "$S/rand1" "$S/rand2"; then
		ok "[$tag] two 32-byte random strings that differ"
	else
		bad "[$tag] two 32-byte random strings that differ"
	fi
	check_eq "[$tag] the session is saved between invocations" 1 "$(saved_sessions)"

	# decrypt on the command: Create with userAuth and data, parent authorized by the session
	run "[$tag] create -p -i, parent authorized by the session (decrypt)" \
		tpm2_create -C "$S/$key.ctx" -P "session:$sess" -p sealpw -i "$S/secret" \
		-a "$SEAL_ATTRS" -u "$S/seal-$key.pub" -r "$S/seal-$key.priv"
	run "[$tag] create -p -i with -S (decrypt session, password for the parent)" \
		tpm2_create -C "$S/$key.ctx" -S "$sess" -p sealpw2 -i "$S/secret" \
		-a "$SEAL_ATTRS" -u "$S/seal2-$key.pub" -r "$S/seal2-$key.priv"
	run "[$tag] load (parent authorized by the session)" \
		tpm2_load -C "$S/$key.ctx" -P "session:$sess" -u "$S/seal-$key.pub" \
		-r "$S/seal-$key.priv" -c "$S/seal-$key.ctx"
	run "[$tag] load the second sealed object" \
		tpm2_load -C "$S/$key.ctx" -u "$S/seal2-$key.pub" -r "$S/seal2-$key.priv" \
		-c "$S/seal2-$key.ctx"

	# encrypt on the response: Unseal, the object's authValue in the HMAC
	rm -f "$S/unsealed"
	run "[$tag] unseal -p session:FILE+AUTH (encrypt)" \
		tpm2_unseal -c "$S/seal-$key.ctx" -p "session:$sess+sealpw" -o "$S/unsealed"
	same_file "[$tag] unsealed data is the sealed data" "$S/secret" "$S/unsealed"
	rm -f "$S/unsealed"
	run "[$tag] unseal the -S object (password + encrypt session)" \
		tpm2_unseal -c "$S/seal2-$key.ctx" -p sealpw2 -S "$sess" -o "$S/unsealed"
	same_file "[$tag] unsealed data of the -S object" "$S/secret" "$S/unsealed"
	# The object is noDA, but a session bound to a DA-protected entity (the primary has no
	# noDA) counts its failures against DA (as ms-tpm-20-ref and libtpms do:
	# IncrementLockout, isDaBound).
	if [ "$how" = -c ]; then
		expect_rc "[$tag] wrong authValue, session bound to a DA key: TPM_RC_AUTH_FAIL" \
			"$AUTH_FAIL_S1" \
			tpm2_unseal -c "$S/seal-$key.ctx" -p "session:$sess+wrong" -o "$S/unsealed"
	else
		expect_rc "[$tag] unseal with a wrong authValue: TPM_RC_BAD_AUTH" "$BAD_AUTH_S1" \
			tpm2_unseal -c "$S/seal-$key.ctx" -p "session:$sess+wrong" -o "$S/unsealed"
	fi
	rm -f "$S/unsealed"
	run "[$tag] the session still works after the failure" \
		tpm2_unseal -c "$S/seal-$key.ctx" -p "session:$sess+sealpw" -o "$S/unsealed"
	same_file "[$tag] unsealed data after the failure" "$S/secret" "$S/unsealed"

	# changeauth (decrypt: the new authValue), then the new authValue in use
	run "[$tag] changeauth of the sealed object through the session (decrypt)" \
		tpm2_changeauth -c "$S/seal-$key.ctx" -C "$S/$key.ctx" -p "session:$sess+sealpw" \
		-r "$S/seal-$key.newpriv" newsealpw
	run "[$tag] load the object with its new authValue" \
		tpm2_load -C "$S/$key.ctx" -u "$S/seal-$key.pub" -r "$S/seal-$key.newpriv" \
		-c "$S/seal-$key.new.ctx"
	rm -f "$S/unsealed"
	run "[$tag] unseal with the new authValue" \
		tpm2_unseal -c "$S/seal-$key.new.ctx" -p "session:$sess+newsealpw" -o "$S/unsealed"
	same_file "[$tag] unsealed data with the new authValue" "$S/secret" "$S/unsealed"

	# flushed: refused
	run "[$tag] flushcontext the session" tpm2_flushcontext "$sess"
	check_eq "[$tag] no saved session after the flush" 0 "$(saved_sessions)"
	# the tools ContextLoad the saved session first: TPM_RC_HANDLE on the context (0x1cb)
	expect_rc "[$tag] a flushed session is refused (getrandom -S): TPM_RC_HANDLE" 0x1cb \
		tpm2_getrandom -S "$sess" 8 -o "$S/rand1"
	expect_rc "[$tag] a flushed session is refused (unseal): TPM_RC_HANDLE" 0x1cb \
		tpm2_unseal -c "$S/seal-$key.ctx" -p "session:$sess+sealpw"
}

hmac_flow rsa --tpmkey-context
hmac_flow ecc --tpmkey-context
hmac_flow rsa -c
hmac_flow ecc -c

# HierarchyChangeAuth through a salted session with decrypt, then the new owner auth in use.
sess=$S/owner.ctx
run "[owner] startauthsession --hmac-session salted (ECC)" \
	tpm2_startauthsession --hmac-session -S "$sess" --tpmkey-context "$S/ecc.ctx"
run "[owner] sessionconfig --enable-decrypt" tpm2_sessionconfig "$sess" --enable-decrypt
run "[owner] changeauth -c o through the session (decrypt)" \
	tpm2_changeauth -c o -p "session:$sess" ownerpw
expect_rc "[owner] the old (empty) owner auth is refused" "$BAD_AUTH_S1" \
	tpm2_createprimary -C o -G ecc256 -c "$S/x.ctx"
run "[owner] createprimary with the new owner auth (HMAC session)" \
	tpm2_createprimary -C o -P "session:$sess+ownerpw" -G ecc256 -c "$S/x.ctx"
run "[owner] changeauth back to empty with the new owner auth (password)" \
	tpm2_changeauth -c o -p ownerpw
run "[owner] flushcontext the session" tpm2_flushcontext "$sess"

# --- Policy sessions on unseal
# policy digest: H(H(0^32 || TPM_CC_PolicyCommandCode || TPM_CC_Unseal) || TPM_CC_PolicyAuthValue)
ZERO=0000000000000000000000000000000000000000000000000000000000000000
want=$(sha256_of_hex "$(sha256_of_hex "${ZERO}0000016c0000015e")0000016b")

run "[policy] trial session" tpm2_startauthsession -S "$S/trial.ctx"
run "[policy] policycommandcode (trial)" \
	tpm2_policycommandcode -S "$S/trial.ctx" -L "$S/pol.cc" TPM2_CC_Unseal
run "[policy] policyauthvalue (trial)" tpm2_policyauthvalue -S "$S/trial.ctx" -L "$S/pol.dig"
check_eq "[policy] trial digest is the one computed here" "$want" "$(hex_of "$S/pol.dig" 2>/dev/null)"
run "[policy] flushcontext the trial session" tpm2_flushcontext "$S/trial.ctx"
run "[policy] trial session for PolicyPassword" tpm2_startauthsession -S "$S/trial2.ctx"
run "[policy] policycommandcode (trial 2)" tpm2_policycommandcode -S "$S/trial2.ctx" TPM2_CC_Unseal
run "[policy] policypassword (trial)" tpm2_policypassword -S "$S/trial2.ctx" -L "$S/pol2.dig"
check_eq "[policy] PolicyPassword has the PolicyAuthValue digest" "$want" \
	"$(hex_of "$S/pol2.dig" 2>/dev/null)"
run "[policy] flushcontext trial 2" tpm2_flushcontext "$S/trial2.ctx"

run "[policy] create a sealed object with the policy (no userwithauth)" \
	tpm2_create -C "$S/ecc.ctx" -L "$S/pol.dig" -p polpw -i "$S/secret" \
	-a "fixedtpm|fixedparent|noda" -u "$S/pol.pub" -r "$S/pol.priv"
run "[policy] load it" tpm2_load -C "$S/ecc.ctx" -u "$S/pol.pub" -r "$S/pol.priv" \
	-c "$S/pol.ctx"
expect_rc "[policy] unseal with the password alone: TPM_RC_AUTH_UNAVAILABLE" 0x12f \
	tpm2_unseal -c "$S/pol.ctx" -p polpw

# policy_unseal NAME KEY ASSERTION [sessionconfig options]: a salted policy session, then unseal.
policy_unseal() {
	local name=$1 key=$2 assertion=$3 sess=$S/policy-$1.ctx
	shift 3
	run "[$name] startauthsession --policy-session salted ($key)" \
		tpm2_startauthsession --policy-session -S "$sess" --tpmkey-context "$S/$key.ctx"
	if [ $# -gt 0 ]; then
		run "[$name] sessionconfig $*" tpm2_sessionconfig "$sess" "$@"
	fi
	run "[$name] policycommandcode Unseal" tpm2_policycommandcode -S "$sess" TPM2_CC_Unseal
	run "[$name] $assertion" "tpm2_$assertion" -S "$sess"
	rm -f "$S/unsealed"
	run "[$name] unseal -p session:FILE+AUTH" \
		tpm2_unseal -c "$S/pol.ctx" -p "session:$sess+polpw" -o "$S/unsealed"
	same_file "[$name] unsealed data is the sealed data" "$S/secret" "$S/unsealed"
	# The policy session starts over after it authorized the unseal.
	expect_rc "[$name] the used session without new assertions: refused" \
		"$POLICY_FAIL_S1" tpm2_unseal -c "$S/pol.ctx" -p "session:$sess+polpw"
	run "[$name] policycommandcode again" tpm2_policycommandcode -S "$sess" TPM2_CC_Unseal
	run "[$name] $assertion again" "tpm2_$assertion" -S "$sess"
	expect_rc "[$name] a wrong authValue: TPM_RC_BAD_AUTH" "$BAD_AUTH_S1" \
		tpm2_unseal -c "$S/pol.ctx" -p "session:$sess+wrongpw"
	run "[$name] flushcontext the policy session" tpm2_flushcontext "$sess"
}

policy_unseal policyauthvalue rsa policyauthvalue --enable-encrypt
# ESAPI sends an empty nonceCaller for PolicyPassword and derives the response key from
# another nonce (garbage on swtpm too), so no encrypt there
policy_unseal policypassword ecc policypassword

run "[policy] policy session with PolicyCommandCode only" \
	tpm2_startauthsession --policy-session -S "$S/short.ctx"
run "[policy] policycommandcode Unseal (no PolicyAuthValue)" \
	tpm2_policycommandcode -S "$S/short.ctx" TPM2_CC_Unseal
expect_rc "[policy] unseal with an incomplete policy: TPM_RC_POLICY_FAIL" "$POLICY_FAIL_S1" \
	tpm2_unseal -c "$S/pol.ctx" -p "session:$S/short.ctx+polpw"
run "[policy] flushcontext" tpm2_flushcontext "$S/short.ctx"
check_eq "no saved session left" 0 "$(saved_sessions)"

finish
