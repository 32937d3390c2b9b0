#!/bin/bash
# A full disk beyond NV (nv_enospc.sh covers the NV commands): with the same LD_PRELOAD shim
# (helpers/enospc_preload.c) the state file cannot be written while a flag file exists. Every
# command that changes persistent state then fails with TPM_RC_NV_UNAVAILABLE: EvictControl,
# HierarchyChangeAuth (endorsement, lockout), Clear, DictionaryAttackParameters, ClockSet. The
# state file is not touched, memory keeps the old values (no persistent handle, the old
# authValues, Clock not moved back by the rollback), a wrong lockoutAuth still locks it out,
# the server goes on serving, and once there is room again everything works and survives a
# restart.
set -eu
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

if [ "$TPM_IMPL" != pqtpm ]; then
	echo "SKIP: needs pqtpm-server"
	ok "skipped for $TPM_IMPL"
	finish
fi

enospc_shim_build
STATE=$T/state
PERSIST=0x81000010
NV_UNAVAILABLE=0x923

clock_ms() {
	tpm2_readclock 2>/dev/null | awk '$1 == "clock:" { print $2 }'
}

tpm_start "$STATE"
run "startup" tpm2_startup -c
run "createprimary" tpm2_createprimary -Q -C o -G ecc -c "$T/primary.ctx"
before=$(sha256_hex "$STATE/pqtpm.state")
c0=$(clock_ms)

touch "$FLAG"
expect_rc "evictcontrol on a full disk" $NV_UNAVAILABLE \
	tpm2_evictcontrol -C o -c "$T/primary.ctx" $PERSIST
expect_rc "changeauth endorsement on a full disk" $NV_UNAVAILABLE tpm2_changeauth -c e newe
expect_rc "changeauth lockout on a full disk" $NV_UNAVAILABLE tpm2_changeauth -c l newl
expect_rc "clear on a full disk" $NV_UNAVAILABLE tpm2_clear
expect_rc "dictionarylockout parameters on a full disk" $NV_UNAVAILABLE \
	tpm2_dictionarylockout -s -n 5 -t 10 -l 20
expect_rc "setclock on a full disk" $NV_UNAVAILABLE tpm2_setclock 99999999999
c1=$(clock_ms)
if [ -n "$c0" ] && [ -n "$c1" ] && [ "$c1" -ge "$c0" ] && [ "$c1" -lt 99999999999 ]; then
	ok "Clock after the failed ClockSet: $c0 -> $c1 ms (not set, not moved back)"
else
	bad "Clock after the failed ClockSet: $c0 -> $c1 ms"
fi
check_eq "state file untouched" "$before" "$(sha256_hex "$STATE/pqtpm.state")"
if [ -e "$STATE/pqtpm.state.tmp" ]; then bad "no temp file left"; else ok "no temp file left"; fi

run "the server still serves: getrandom" tpm2_getrandom -o "$T/r" 16
run "the server still serves: a new primary" tpm2_createprimary -Q -C o -G ecc -c "$T/p2.ctx"
run "getcap persistent handles" tpm2_getcap handles-persistent
if grep -qi "$PERSIST" "$T/out"; then bad "$PERSIST absent"; else ok "$PERSIST absent"; fi
run "endorsement auth still empty" tpm2_createprimary -Q -C e -G ecc -c "$T/e.ctx"
# lockoutAuth is still empty: accepted, and then the reset itself cannot be saved
expect_rc "lockout auth still empty (the reset needs NV)" $NV_UNAVAILABLE tpm2_dictionarylockout -c
# a wrong lockoutAuth still counts although it cannot be saved: no guessing on a full disk
expect_rc "wrong lockout auth on a full disk" $NV_UNAVAILABLE tpm2_dictionarylockout -c -p wrong
expect_rc "then lockoutAuth is locked out" 0x921 tpm2_dictionarylockout -c

rm -f "$FLAG"
run "evictcontrol with room again" tpm2_evictcontrol -C o -c "$T/primary.ctx" $PERSIST
run "changeauth endorsement with room again" tpm2_changeauth -c e newe
run "shutdown" tpm2_shutdown -c
tpm_restart
tpm_reset # a reboot: a new server alone is the same running TPM
run "startup after restart" tpm2_startup -c
run "getcap persistent handles after restart" tpm2_getcap handles-persistent
if grep -qi "$PERSIST" "$T/out"; then ok "$PERSIST persisted"; else bad "$PERSIST persisted"; fi
expect_fail "endorsement needs its new auth" tpm2_createprimary -Q -C e -G ecc -c "$T/e.ctx"
run "endorsement with its new auth" tpm2_createprimary -Q -C e -P newe -G ecc -c "$T/e.ctx"
c2=$(clock_ms)
if [ -n "$c2" ] && [ "$c2" -ge "$c1" ]; then
	ok "Clock after the restart: $c2 ms >= $c1"
else
	bad "Clock after the restart: $c2 ms (before: $c1)"
fi
finish
