#!/bin/bash
# Credentials with tpm2-tools 5.4 (classical keys, Part 1 §24): an EK (tpm2_createek, RSA and
# ECC, whose policy needs PolicySecret(endorsement)) and an AK (tpm2_createak); a credential
# made with the TPM (tpm2_makecredential over LoadExternal + MakeCredential) and made offline
# with tpm2-tools' own OpenSSL code (-T none), then recovered with tpm2_activatecredential.
# A credential for another name fails. (ML-KEM credentials: tests/unit/test_pq_kem.c,
# tests/integration/pq_mssim.c: tpm2-tools 5.4 has no ML-KEM.)
set -eu
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

K=$T/k
mkdir -p "$K"
printf '0123456789abcdef0123456789abcdef' >"$K/secret"

tpm_start
run "startup clear" tpm2_startup -c

# credential ALG: EK and AK of ALG; make with the TPM and offline, activate both.
credential() {
	local alg=$1 name
	run "createek $alg" tpm2_createek -c "$K/ek-$alg.ctx" -G "$alg" -u "$K/ek-$alg.pub"
	run "createak $alg" tpm2_createak -C "$K/ek-$alg.ctx" -c "$K/ak-$alg.ctx" -G "$alg" \
		-g sha256 -s "$([ "$alg" = rsa ] && echo rsassa || echo ecdsa)" \
		-u "$K/ak-$alg.pub" -n "$K/ak-$alg.name"
	name=$(xxd -p -c 256 "$K/ak-$alg.name")
	run "makecredential $alg (TPM)" tpm2_makecredential -e "$K/ek-$alg.pub" -s "$K/secret" \
		-n "$name" -o "$K/cred-$alg.tpm"
	run "makecredential $alg (offline)" tpm2_makecredential -T none -e "$K/ek-$alg.pub" \
		-s "$K/secret" -n "$name" -o "$K/cred-$alg.off"
	for how in tpm off; do
		run "startauthsession $alg $how" tpm2_startauthsession --policy-session -S "$K/s.ctx"
		run "policysecret $alg $how" tpm2_policysecret -S "$K/s.ctx" -c e
		run "activatecredential $alg ($how)" tpm2_activatecredential -c "$K/ak-$alg.ctx" \
			-C "$K/ek-$alg.ctx" -i "$K/cred-$alg.$how" -o "$K/got-$alg.$how" \
			-P "session:$K/s.ctx"
		tpm2_flushcontext "$K/s.ctx" >/dev/null 2>&1 || true
		check_eq "credential $alg ($how) recovered" "$(cat "$K/secret")" \
			"$(cat "$K/got-$alg.$how" 2>/dev/null)"
	done
	# a credential for another object's name does not activate for this AK
	run "makecredential $alg (other name)" tpm2_makecredential -e "$K/ek-$alg.pub" \
		-s "$K/secret" -n "000b$(printf '%064d' 0)" -o "$K/cred-$alg.bad"
	run "startauthsession $alg bad" tpm2_startauthsession --policy-session -S "$K/s.ctx"
	run "policysecret $alg bad" tpm2_policysecret -S "$K/s.ctx" -c e
	expect_rc "activatecredential $alg refuses another name" 0x1df \
		tpm2_activatecredential -c "$K/ak-$alg.ctx" -C "$K/ek-$alg.ctx" \
		-i "$K/cred-$alg.bad" -o "$K/got-$alg.bad" -P "session:$K/s.ctx"
	tpm2_flushcontext "$K/s.ctx" >/dev/null 2>&1 || true
	tpm2_flushcontext -t >/dev/null 2>&1 || true
}

credential rsa
credential ecc

finish
