#!/bin/bash
# tpm2-tools, what a restart of the server keeps and what a TPM Reset clears
# (docs/state-directory.md): the audit hash, audited commands and audit counter, the
# PP_Commands list, the algorithm set and the PCR group's policy persist; the audit digest
# survives a restart of pqtpm-server on its directory and is cleared by a power cycle on the
# platform port (the next audited command starts a new sequence); the PCR group's authValue
# survives the restart and is EmptyAuth after Startup(CLEAR).
set -eu
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

K=$T/k
mkdir -p "$K"
GETRANDOM=0000017b
PP_COMMANDS=0000012d
# an authorization area of one password session: size 9, TPM_RS_PW, empty nonce, no
# attributes, empty password
PW=00000009400000090000000000

# check_counter WHAT N: TPM_PT_AUDIT_COUNTER_1 (raw) is N
check_counter() {
	run "getcap properties-variable ($1)" tpm2_getcap properties-variable
	check_eq "TPM_PT_AUDIT_COUNTER_1 is $2 ($1)" "$2" \
		"$(awk '/TPM2_PT_AUDIT_COUNTER_1/ { print $2 }' "$T/out")"
}

# send WHAT HEX: a command that tpm2-tools has no tool for, answered TPM_RC_SUCCESS
send() {
	echo "$2" | xxd -r -p >"$K/cmd.bin"
	run "$1" tpm2_send -o "$K/rsp.bin" "$K/cmd.bin"
	check_eq "$1 answers TPM_RC_SUCCESS" 00000000 "$(hex_of "$K/rsp.bin" | cut -c13-20)"
}

# PCRs 20-22 take events from localities 2-4 only, and tpm2-tools speaks from locality 0: a
# command authorized gets as far as TPM_RC_LOCALITY (0x907), one that is not stops at its
# session (TPM_RC_BAD_AUTH 0x9a2, TPM_RC_POLICY_FAIL 0x99d).
# pcr_event WHAT PASSWORD RC: PCR_Event of PCR 21 with this password answers RC
pcr_event() {
	expect_rc "$1" "$3" tpm2_pcrevent -P "$2" 21 "$K/event.bin"
}

# The settings that persist, as GetCapability reports them
check_settings() {
	# GetCapability(TPM_CAP_AUDIT_COMMANDS / TPM_CAP_PP_COMMANDS, from 0, 64): the command
	# codes after moreData, the capability and the count
	send "GetCapability(TPM_CAP_AUDIT_COMMANDS) ($1)" \
		8001000000160000017a000000040000000000000040
	check_eq "SetCommandCodeAuditStatus and GetRandom are audited ($1)" \
		0000000200000140${GETRANDOM} "$(hex_of "$K/rsp.bin" | cut -c31-)"
	send "GetCapability(TPM_CAP_PP_COMMANDS) ($1)" \
		8001000000160000017a000000030000000000000040
	check_eq "PP_Commands and Clear need physical presence ($1)" \
		0000000200000126${PP_COMMANDS} "$(hex_of "$K/rsp.bin" | cut -c31-)"
	run "getcap properties-variable ($1)" tpm2_getcap properties-variable
	check_eq "TPM_PT_ALGORITHM_SET is 0x7 ($1)" 0x7 \
		"$(awk '/TPM2_PT_ALGORITHM_SET/ { print $2 }' "$T/out")"
	# the policy PolicyCommandCode(PCR_Event) authorizes PCR_Event of PCR 20
	run "policy session ($1)" tpm2_startauthsession --policy-session -S "$K/s.ctx"
	run "policycommandcode ($1)" tpm2_policycommandcode -S "$K/s.ctx" TPM2_CC_PCR_Event
	expect_rc "pcrevent 20 authorized by the PCR policy ($1)" 0x907 \
		tpm2_pcrevent -P session:"$K/s.ctx" 20 "$K/event.bin"
	run "flush the session ($1)" tpm2_flushcontext "$K/s.ctx"
}

echo "an event" >"$K/event.bin"
tpm_start
run "startup clear" tpm2_startup -c
policy_trial "$K" pcrevent tpm2_policycommandcode TPM2_CC_PCR_Event
POLICY=$(hex_of "$K/pcrevent.pol")

run "setcommandauditstatus -g sha256" tpm2_setcommandauditstatus -g sha256
run "setcommandauditstatus TPM2_CC_GetRandom" tpm2_setcommandauditstatus TPM2_CC_GetRandom
run "getrandom 8 (audited)" tpm2_getrandom 8 -o "$K/r.bin"
check_counter "one sequence" 0x1
if _platform 3; then ok "physical presence asserted"; else bad "physical presence asserted"; fi
# PP_Commands(platform, setList {Clear}, clearList {}), SetAlgorithmSet(platform, 7),
# PCR_SetAuthPolicy(platform, policy, SHA-256, PCR 20), PCR_SetAuthValue(21, "group")
send "PP_Commands" "8002000000270000012d4000000c${PW}000000010000012600000000"
send "SetAlgorithmSet" "80020000001f0000013f4000000c${PW}00000007"
send "PCR_SetAuthPolicy" "8002000000430000012c4000000c${PW}0020${POLICY}000b00000014"
send "PCR_SetAuthValue" "8002000000220000018300000015${PW}0005$(printf group | xxd -p)"
pcr_event "PCR 21 takes its authValue" group 0x907
pcr_event "PCR 21 refuses EmptyAuth" "" 0x9a2
check_settings "before"

tpm_restart
check_settings "after a restart of the server"
pcr_event "the authValue survives the restart" group 0x907
run "getrandom 8 (audited, after the restart)" tpm2_getrandom 8 -o "$K/r.bin"
check_counter "the same sequence after the restart" 0x1

if tpm_reset; then ok "power cycle"; else bad "power cycle"; fi
run "startup clear (a TPM Reset)" tpm2_startup -c
check_settings "after a TPM Reset"
pcr_event "the authValue is EmptyAuth after the reset" "" 0x907
pcr_event "the old authValue is refused after the reset" group 0x9a2
check_counter "no audited command since the reset" 0x1
run "getrandom 8 (audited, after the reset)" tpm2_getrandom 8 -o "$K/r.bin"
check_counter "the digest was cleared: a new sequence" 0x2
finish
