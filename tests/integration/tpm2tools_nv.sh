#!/bin/bash
# tpm2-tools, NV: nvdefine of every index type with a spread of attributes, nvwrite, nvread,
# nvincrement, nvextend, nvsetbits, nvreadlock, nvwritelock (also --global), nvundefine,
# nvreadpublic, nvchangeauth, writes under a policy and under PolicyNV, counters and locks through
# Shutdown/Startup STATE and CLEAR, a power loss (POWER_OFF on the platform port) and a server
# restart, and the NV handles in getcap.
set -eu
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

D=$T/nv
mkdir -p "$D"

# A platform signal (MSSIM platform port): 1 power on, 2 power off.
platform_signal() {
	exec 3<>"/dev/tcp/127.0.0.1/$((PORT + 1))"
	printf "\\0\\0\\0\\$(printf %o "$1")" >&3
	head -c 4 <&3 >/dev/null
	exec 3>&-
}

power_cycle() {
	platform_signal 2
	platform_signal 1
}

# The 8-byte value of a counter/bits index as a decimal number (empty on failure).
nv_u64() {
	rm -f "$D/u64"
	tpm2_nvread "$1" -C "${2:-o}" -s 8 -o "$D/u64" >/dev/null 2>"$T/err" || true
	[ -s "$D/u64" ] && printf '%d' "0x$(hex_of "$D/u64")"
}

# A field of tpm2_readclock (clock, reset_count, restart_count, safe).
clock_field() {
	tpm2_readclock 2>/dev/null | awk -v f="$1:" '$1 == f { print $2 }'
}

tpm_start
run "startup clear" tpm2_startup -c

ORD=0x1500010
CNT=0x1500011
BITS=0x1500012
EXT=0x1500013
ORDC=0x1500014
WDEF=0x1500015
RST=0x1500016
POL=0x1500017
PIN=0x1500018
GL=0x1500019
PLAT=0x1400020

# ---- define: every type, a spread of attributes ----
run "nvdefine ordinary (owner+auth rw, 2000 bytes)" \
	tpm2_nvdefine $ORD -C o -s 2000 -p nvpass -a "ownerread|ownerwrite|authread|authwrite"
run "nvdefine counter" tpm2_nvdefine $CNT -C o -s 8 -a "nt=counter|ownerread|ownerwrite|no_da"
run "nvdefine bits" tpm2_nvdefine $BITS -C o -s 8 -a "nt=bits|ownerread|ownerwrite"
run "nvdefine extend (sha256)" tpm2_nvdefine $EXT -C o -s 32 -g sha256 \
	-a "nt=extend|ownerread|ownerwrite|authread"
run "nvdefine orderly counter" tpm2_nvdefine $ORDC -C o -s 8 \
	-a "nt=counter|ownerread|ownerwrite|orderly"
run "nvdefine writedefine" tpm2_nvdefine $WDEF -C o -s 16 -a "ownerread|ownerwrite|writedefine"
run "nvdefine read_stclear + write_stclear + clear_stclear" tpm2_nvdefine $RST -C o -s 16 \
	-a "ownerread|ownerwrite|read_stclear|write_stclear|clear_stclear"
run "nvdefine globallock" tpm2_nvdefine $GL -C o -s 8 -a "ownerread|ownerwrite|globallock"
run "nvdefine platform index (platformcreate, ppread/ppwrite, writeall)" tpm2_nvdefine $PLAT \
	-C p -s 16 -a "ppread|ppwrite|platformcreate|writeall|ownerread"
expect_rc "nvdefine twice: TPM_RC_NV_DEFINED" 0x14c tpm2_nvdefine $ORD -C o -s 8 \
	-a "ownerread|ownerwrite"
expect_rc "no way to read: TPM_RC_ATTRIBUTES" 0x2c2 tpm2_nvdefine 0x1500031 -C o -s 8 \
	-a "ownerwrite"
expect_rc "platformcreate by the owner: TPM_RC_ATTRIBUTES (handle 1)" 0x182 \
	tpm2_nvdefine 0x1500032 -C o -s 8 -a "ownerread|ownerwrite|platformcreate"
expect_rc "larger than TPM_PT_NV_INDEX_MAX: TPM_RC_SIZE" 0x2d5 tpm2_nvdefine 0x1500033 -C o \
	-s 9000 -a "ownerread|ownerwrite"

# ---- readpublic, getcap ----
run "nvreadpublic all" tpm2_nvreadpublic
for i in $ORD $CNT $BITS $EXT $ORDC $WDEF $RST $GL $PLAT; do
	if grep -qi "^$i:" "$T/out"; then ok "nvreadpublic lists $i"; else bad "nvreadpublic lists $i"; fi
done
run "getcap handles-nv-index" tpm2_getcap handles-nv-index
if grep -qi "$CNT" "$T/out"; then ok "getcap lists $CNT"; else bad "getcap lists $CNT"; fi
run "getcap properties-variable" tpm2_getcap properties-variable
# nine of this test's and the three EK certificates of manufacturing (core/endorse)
if grep -q 'TPM2_PT_HR_NV_INDEX: 0xC$' "$T/out"; then
	ok "TPM_PT_HR_NV_INDEX is 12"
else
	bad "TPM_PT_HR_NV_INDEX is 12"
fi
run "getcap properties-fixed" tpm2_getcap properties-fixed
if grep -A1 'TPM2_PT_NV_BUFFER_MAX' "$T/out" | grep -q 'raw: 0x400'; then
	ok "TPM_PT_NV_BUFFER_MAX is 1024"
else
	bad "TPM_PT_NV_BUFFER_MAX is 1024"
fi

# ---- ordinary: write, read, offsets, auth ----
head -c 2000 /dev/urandom >"$D/data"
run "nvwrite 2000 bytes (chunked by the tools)" tpm2_nvwrite $ORD -C o -i "$D/data"
run "nvread 2000 bytes" tpm2_nvread $ORD -C o -s 2000 -o "$D/back"
if cmp -s "$D/data" "$D/back"; then ok "read back what was written"; else bad "read back what was written"; fi
printf 'offset!' >"$D/part"
run "nvwrite at offset 100 with the index auth" tpm2_nvwrite $ORD -C $ORD -P nvpass -i "$D/part" \
	--offset 100
run "nvread at offset 100" tpm2_nvread $ORD -C $ORD -P nvpass -s 7 --offset 100 -o "$D/back"
check_eq "offset data" "offset!" "$(cat "$D/back")"
expect_rc "wrong index password" "0x98e|0x9a2" tpm2_nvread $ORD -C $ORD -P wrong -s 8
expect_rc "counter before first increment: TPM_RC_NV_UNINITIALIZED" 0x14a \
	tpm2_nvread $CNT -C o -s 8
expect_rc "writeall: a part is TPM_RC_NV_RANGE" 0x146 tpm2_nvwrite $PLAT -C p -i "$D/part"
printf '0123456789abcdef' >"$D/sixteen"
run "nvwrite the platform index, all 16 bytes" tpm2_nvwrite $PLAT -C p -i "$D/sixteen"
expect_rc "owner may not write a ppwrite index: TPM_RC_NV_AUTHORIZATION" 0x149 \
	tpm2_nvwrite $PLAT -C o -i "$D/sixteen"

# ---- counter, bits, extend ----
for i in 1 2 3; do run "nvincrement $i" tpm2_nvincrement $CNT -C o; done
check_eq "counter is 3" 3 "$(nv_u64 $CNT)"
expect_rc "nvwrite to a counter: TPM_RC_ATTRIBUTES" 0x82 tpm2_nvwrite $CNT -C o -i "$D/part"
run "nvsetbits 0x5" tpm2_nvsetbits $BITS -C o -i 0x5
run "nvsetbits 0x100" tpm2_nvsetbits $BITS -C o -i 0x100
check_eq "bits are 0x105" 261 "$(nv_u64 $BITS)"
printf 'measured' >"$D/ext"
run "nvextend" tpm2_nvextend $EXT -C o -i "$D/ext"
run "nvread extend index" tpm2_nvread $EXT -C o -s 32 -o "$D/extval"
check_eq "extend value = SHA-256(zeros || data)" \
	"$(sha256_of_hex "0000000000000000000000000000000000000000000000000000000000000000$(xxd -p "$D/ext" | tr -d '\n')")" \
	"$(hex_of "$D/extval")"

# ---- locks ----
run "nvwrite writedefine index" tpm2_nvwrite $WDEF -C o -i "$D/sixteen"
run "nvwritelock writedefine index" tpm2_nvwritelock $WDEF -C o
expect_rc "write after writelock: TPM_RC_NV_LOCKED" 0x148 tpm2_nvwrite $WDEF -C o -i "$D/sixteen"
run "nvwrite stclear index" tpm2_nvwrite $RST -C o -i "$D/sixteen"
run "nvwritelock stclear index" tpm2_nvwritelock $RST -C o
run "nvreadlock stclear index" tpm2_nvreadlock $RST -C o
expect_rc "read after readlock: TPM_RC_NV_LOCKED" 0x148 tpm2_nvread $RST -C o -s 16
expect_rc "writelock without writedefine/write_stclear: TPM_RC_ATTRIBUTES" 0x282 \
	tpm2_nvwritelock $ORD -C o
run "nvwritelock --global" tpm2_nvwritelock --global -C o
expect_rc "globallock index locked" 0x148 tpm2_nvwrite $GL -C o -i "$D/part"
run "nvreadpublic shows the locks" tpm2_nvreadpublic $RST
if grep -q readlocked "$T/out" && grep -q writelocked "$T/out"; then
	ok "readlocked and writelocked attributes"
else
	bad "readlocked and writelocked attributes"
fi

# ---- policies on NV: policywrite, nvchangeauth (ADMIN: policy only) ----
run "trial session" tpm2_startauthsession -S "$D/trial.ctx"
run "policycommandcode NV_Write" tpm2_policycommandcode -S "$D/trial.ctx" -L "$D/pol_write" \
	TPM2_CC_NV_Write
run "flush trial" tpm2_flushcontext "$D/trial.ctx"
run "nvdefine with a policy (policywrite|authread)" tpm2_nvdefine $POL -C o -s 8 -p polpass \
	-L "$D/pol_write" -a "policywrite|authread"
expect_rc "password write refused: TPM_RC_AUTH_UNAVAILABLE" 0x12f \
	tpm2_nvwrite $POL -C $POL -P polpass -i "$D/part"
run "policy session" tpm2_startauthsession --policy-session -S "$D/s.ctx"
run "policycommandcode NV_Write (real)" tpm2_policycommandcode -S "$D/s.ctx" TPM2_CC_NV_Write
run "nvwrite under the policy" tpm2_nvwrite $POL -C $POL -P "session:$D/s.ctx" -i "$D/part"
run "flush policy session" tpm2_flushcontext "$D/s.ctx"
run "nvread with the password" tpm2_nvread $POL -C $POL -P polpass -s 7 -o "$D/back"
check_eq "policy-written data" "offset!" "$(cat "$D/back")"

run "trial for NV_ChangeAuth" tpm2_startauthsession -S "$D/trial.ctx"
run "policycommandcode NV_ChangeAuth" tpm2_policycommandcode -S "$D/trial.ctx" \
	-L "$D/pol_change" TPM2_CC_NV_ChangeAuth
run "flush trial 2" tpm2_flushcontext "$D/trial.ctx"
run "nvdefine an index to change the auth of" tpm2_nvdefine 0x1500040 -C o -s 8 -p before \
	-L "$D/pol_change" -a "authread|authwrite"
run "policy session 2" tpm2_startauthsession --policy-session -S "$D/s.ctx"
run "policycommandcode NV_ChangeAuth (real)" tpm2_policycommandcode -S "$D/s.ctx" \
	TPM2_CC_NV_ChangeAuth
run "nvchangeauth under the policy" tpm2_changeauth -c 0x1500040 -p "session:$D/s.ctx" after
run "flush policy session 2" tpm2_flushcontext "$D/s.ctx"
printf 'eightchr' >"$D/eight"
run "new auth writes" tpm2_nvwrite 0x1500040 -C 0x1500040 -P after -i "$D/eight"
expect_rc "old auth refused" "0x98e|0x9a2" tpm2_nvwrite 0x1500040 -C 0x1500040 -P before \
	-i "$D/eight"

# PolicyNV: a write allowed while the counter is at least 3
printf '\0\0\0\0\0\0\0\3' >"$D/three"
printf '\0\0\0\0\0\0\0\4' >"$D/four"
run "trial for PolicyNV" tpm2_startauthsession -S "$D/trial.ctx"
run "policynv trial: counter >= 3" tpm2_policynv -S "$D/trial.ctx" -C o -i "$D/three" \
	-L "$D/pol_nv" $CNT uge
run "flush trial 3" tpm2_flushcontext "$D/trial.ctx"
run "nvdefine guarded by PolicyNV" tpm2_nvdefine 0x1500041 -C o -s 8 -L "$D/pol_nv" \
	-a "policywrite|ownerread"
run "policy session 3" tpm2_startauthsession --policy-session -S "$D/s.ctx"
run "policynv: counter >= 3 holds" tpm2_policynv -S "$D/s.ctx" -C o -i "$D/three" $CNT uge
run "nvwrite under PolicyNV" tpm2_nvwrite 0x1500041 -C 0x1500041 -P "session:$D/s.ctx" \
	-i "$D/eight"
run "flush policy session 3" tpm2_flushcontext "$D/s.ctx"
run "policy session 4" tpm2_startauthsession --policy-session -S "$D/s.ctx"
expect_rc "policynv: counter >= 4 does not hold: TPM_RC_POLICY" 0x126 \
	tpm2_policynv -S "$D/s.ctx" -C o -i "$D/four" $CNT uge
run "flush policy session 4" tpm2_flushcontext "$D/s.ctx"

# ---- PIN pass: each use counts ----
run "nvdefine pinpass" tpm2_nvdefine $PIN -C o -s 8 -p pin -a "nt=pinpass|ownerread|ownerwrite|authread"
printf '\0\0\0\0\0\0\0\2' >"$D/pinparams"
run "nvwrite pin (count 0, limit 2)" tpm2_nvwrite $PIN -C o -i "$D/pinparams"
run "read with the pin (1)" tpm2_nvread $PIN -C $PIN -P pin -s 8
run "read with the pin (2)" tpm2_nvread $PIN -C $PIN -P pin -s 8
expect_rc "third use: TPM_RC_AUTH_UNAVAILABLE" 0x12f tpm2_nvread $PIN -C $PIN -P pin -s 8

# ---- lifecycle: Shutdown(STATE)/Startup(STATE), CLEAR, power loss, server restart ----
for i in 1 2 3 4 5; do run "nvincrement orderly $i" tpm2_nvincrement $ORDC -C o; done
check_eq "orderly counter is 5" 5 "$(nv_u64 $ORDC)"
restarts=$(clock_field restart_count)
resets=$(clock_field reset_count)

run "shutdown state" tpm2_shutdown
power_cycle
run "startup state (TPM Resume)" tpm2_startup
check_eq "restart_count + 1 after Resume" $((restarts + 1)) "$(clock_field restart_count)"
check_eq "reset_count same after Resume" "$resets" "$(clock_field reset_count)"
check_eq "counter kept" 3 "$(nv_u64 $CNT)"
check_eq "orderly counter exact after an orderly shutdown" 5 "$(nv_u64 $ORDC)"
expect_rc "readlock kept across Resume" 0x148 tpm2_nvread $RST -C o -s 16
expect_rc "writelock kept across Resume" 0x148 tpm2_nvwrite $RST -C o -i "$D/sixteen"

run "shutdown state again" tpm2_shutdown
power_cycle
run "startup clear (TPM Restart)" tpm2_startup -c
check_eq "restart_count + 2 after Restart" $((restarts + 2)) "$(clock_field restart_count)"
run "stclear locks gone after Restart: read" tpm2_nvread $WDEF -C o -s 16
expect_rc "clear_stclear index uninitialized after Restart" 0x14a tpm2_nvread $RST -C o -s 16
run "write_stclear lock gone after Restart" tpm2_nvwrite $RST -C o -i "$D/sixteen"
expect_rc "writedefine lock stays" 0x148 tpm2_nvwrite $WDEF -C o -i "$D/sixteen"
run "global lock gone after Restart" tpm2_nvwrite $GL -C o -i "$D/eight"

run "shutdown clear" tpm2_shutdown -c
power_cycle
expect_fail "startup state after shutdown clear refused" tpm2_startup
run "startup clear (TPM Reset)" tpm2_startup -c
check_eq "reset_count + 1 after Reset" $((resets + 1)) "$(clock_field reset_count)"
check_eq "restart_count 0 after Reset" 0 "$(clock_field restart_count)"
check_eq "clock safe after orderly shutdown" yes "$(clock_field safe)"

run "nvincrement orderly 6" tpm2_nvincrement $ORDC -C o
power_cycle # a power loss: no Shutdown
run "startup clear after a power loss" tpm2_startup -c
check_eq "reset_count + 2 after a disorderly Reset" $((resets + 2)) "$(clock_field reset_count)"
check_eq "clock not safe after a power loss" no "$(clock_field safe)"
check_eq "orderly counter moved to the top of its window" 255 "$(nv_u64 $ORDC)"
run "nvincrement orderly after the loss" tpm2_nvincrement $ORDC -C o
check_eq "orderly counter 256" 256 "$(nv_u64 $ORDC)"

# A new server process on the same state: Shutdown(STATE) then Startup(STATE) keeps PCRs.
run "pcrextend 7" tpm2_pcrextend "7:sha256=$(printf x | sha256sum | cut -c1-64)"
run "pcrread 7" tpm2_pcrread sha256:7 -o "$D/pcr7"
run "shutdown state before the restart" tpm2_shutdown
tpm_restart
tpm_reset # a reboot: a new server alone is the same running TPM
run "startup state in the new process" tpm2_startup
run "pcrread 7 after" tpm2_pcrread sha256:7 -o "$D/pcr7b"
if cmp -s "$D/pcr7" "$D/pcr7b"; then ok "PCR 7 survived Resume across a restart"; else bad "PCR 7 survived Resume across a restart"; fi
check_eq "counter after restart" 3 "$(nv_u64 $CNT)"
run "data after restart" tpm2_nvread $ORD -C o -s 2000 -o "$D/back2"
cmp -s "$D/back2" <(head -c 100 "$D/data"; printf 'offset!'; tail -c +108 "$D/data") &&
	ok "ordinary data after restart" || bad "ordinary data after restart"

# ---- undefine, and Clear deletes the owner's indices only ----
run "nvundefine counter" tpm2_nvundefine $CNT -C o
run "getcap handles-nv-index after undefine" tpm2_getcap handles-nv-index
if grep -qi "$CNT" "$T/out"; then bad "undefined index is gone"; else ok "undefined index is gone"; fi
run "nvdefine a new counter" tpm2_nvdefine $CNT -C o -s 8 -a "nt=counter|ownerread|ownerwrite"
run "increment new counter" tpm2_nvincrement $CNT -C o
check_eq "new counter starts above the old one" 4 "$(nv_u64 $CNT)"
run "clear" tpm2_clear -c p
run "getcap handles-nv-index after clear" tpm2_getcap handles-nv-index
if grep -qi "$ORD" "$T/out"; then bad "owner index gone after clear"; else ok "owner index gone after clear"; fi
run "platform index stays after clear" tpm2_nvreadpublic $PLAT
run "nvundefine platform index" tpm2_nvundefine $PLAT -C p

finish
