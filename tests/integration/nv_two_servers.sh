#!/bin/bash
# One state directory is one TPM: a second server on a directory whose server is alive refuses
# to start (exit status 1, naming the owner's PID), and the first one keeps working. A new
# server after the first stopped is the same TPM, not a rebooted one: PCRs, NV, saved contexts
# (of the owner and of the NULL hierarchy) and resetCount are as they were, and no Startup is
# needed. A reboot (a power cycle on the platform port) is what makes a TPM Reset.
set -eu
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

if [ "$TPM_IMPL" != pqtpm ]; then
	echo "SKIP: needs pqtpm-server"
	ok "skipped for $TPM_IMPL"
	finish
fi

STATE=$T/state
CNT=0x15004ff
ZERO=0000000000000000000000000000000000000000000000000000000000000000

pcr16() {
	tpm2_pcrread sha256:16 2>/dev/null | awk '$1 == "16:" {print tolower($2)}' | sed 's/^0x//'
}
counter() {
	rm -f "$T/c"
	tpm2_nvread $CNT -C o -s 8 -o "$T/c" >/dev/null 2>&1 || true
	[ -s "$T/c" ] && printf '%d' "0x$(hex_of "$T/c")"
}
reset_count() {
	tpm2_readclock 2>/dev/null | awk '/reset_count/ {print $2}'
}

tpm_start "$STATE"
PID_A=$SERVER_PID
run "startup" tpm2_startup -c
run "counter defined" tpm2_nvdefine $CNT -C o -s 8 -a "nt=counter|ownerread|ownerwrite"
run "counter incremented" tpm2_nvincrement $CNT -C o
run "counter incremented again" tpm2_nvincrement $CNT -C o
run "PCR 16 extended" tpm2_pcrextend 16:sha256=$(printf 'a%.0s' $(seq 64))
run "owner primary saved" tpm2_createprimary -C o -c "$T/owner.ctx"
run "NULL primary saved" tpm2_createprimary -C n -c "$T/null.ctx"
PCR_A=$(pcr16)
RESETS_A=$(reset_count)
[ -n "$PCR_A" ] && [ "$PCR_A" != "$ZERO" ] && ok "PCR 16 is $PCR_A" || bad "PCR 16 not read"

# A second server on the directory, on ports of its own: it must refuse.
PORT_A=$PORT
pick_ports
st=0
timeout 20 env ASAN_OPTIONS="$ASAN_OPTIONS_SERVER" UBSAN_OPTIONS="$UBSAN_OPTIONS_SERVER" \
	"$SERVER_BIN" --state-dir "$STATE" --bind 127.0.0.1 --port "$PORT" \
	--platform-port $((PORT + 1)) >"$T/server_b.log" 2>&1 </dev/null || st=$?
PORT=$PORT_A
check_eq "a second server exits with status 1" 1 "$st"
if grep -q "in use by process $PID_A" "$T/server_b.log"; then
	ok "it names the owner's PID ($PID_A)"
else
	bad "the refusal does not name PID $PID_A"
	show_tail "$T/server_b.log" 5
fi
check_sanitizer_log "$T/server_b.log" || true
check_eq "the first server still serves: PCR 16" "$PCR_A" "$(pcr16)"

# The first server goes; a new one is the same TPM.
tpm_restart
check_eq "a new server: PCR 16 as it was" "$PCR_A" "$(pcr16)"
check_eq "and the counter at 2" 2 "$(counter)"
check_eq "and resetCount as it was" "$RESETS_A" "$(reset_count)"
run "the owner primary's saved context loads" tpm2_readpublic -c "$T/owner.ctx"
run "the NULL primary's saved context loads" tpm2_readpublic -c "$T/null.ctx"
# (tpm2_pcrread above would have failed with TPM_RC_INITIALIZE on a TPM not started)
run "an increment works without a Startup" tpm2_nvincrement $CNT -C o
check_eq "the counter at 3" 3 "$(counter)"

# A reboot: a TPM Reset at the next Startup(CLEAR).
tpm_reset
run "startup after the power cycle" tpm2_startup -c
check_eq "PCR 16 reset" "$ZERO" "$(pcr16)"
check_eq "resetCount one more" $((RESETS_A + 1)) "$(reset_count)"
check_eq "NV kept: the counter at 3" 3 "$(counter)"
expect_fail "the owner primary's saved context does not load (new context epoch)" \
	tpm2_readpublic -c "$T/owner.ctx"
expect_fail "nor the NULL primary's (new NULL seed)" tpm2_readpublic -c "$T/null.ctx"
finish
