#!/bin/bash
# Full disk: with an LD_PRELOAD shim (helpers/enospc_preload.c, built here) the server's writes
# of the state temp file fail with ENOSPC while a flag file exists. Every command that changes
# state then fails with a TPM error (NV_Write, NV_Increment: TPM_RC_NV_UNAVAILABLE;
# NV_DefineSpace: TPM_RC_NV_SPACE), the state file is not touched, the TPM goes on answering
# with the old values, and once there is room again everything works and survives a restart.
set -eu
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

if [ "$TPM_IMPL" != pqtpm ]; then
	echo "SKIP: needs pqtpm-server"
	ok "skipped for $TPM_IMPL"
	finish
fi

enospc_shim_build

IDX=0x1500200
CNT=0x1500201
STATE=$T/state

tpm_start "$STATE"
run "startup" tpm2_startup -c
run "nvdefine" tpm2_nvdefine $IDX -C o -s 8 -a "ownerread|ownerwrite"
run "nvdefine counter" tpm2_nvdefine $CNT -C o -s 8 -a "nt=counter|ownerread|ownerwrite"
printf 'AAAAAAAA' >"$T/a"
printf 'BBBBBBBB' >"$T/b"
run "nvwrite A" tpm2_nvwrite $IDX -C o -i "$T/a"
run "nvincrement" tpm2_nvincrement $CNT -C o
before=$(sha256_hex "$STATE/pqtpm.state")

touch "$FLAG"
expect_rc "nvwrite on a full disk: TPM_RC_NV_UNAVAILABLE" 0x923 tpm2_nvwrite $IDX -C o -i "$T/b"
expect_rc "nvincrement on a full disk: TPM_RC_NV_UNAVAILABLE" 0x923 tpm2_nvincrement $CNT -C o
expect_rc "nvdefine on a full disk: TPM_RC_NV_SPACE" 0x14b tpm2_nvdefine 0x1500202 -C o -s 8 \
	-a "ownerread|ownerwrite"
expect_rc "changeauth on a full disk: TPM_RC_NV_UNAVAILABLE" 0x923 tpm2_changeauth -c owner x
check_eq "state file untouched" "$before" "$(sha256_hex "$STATE/pqtpm.state")"
if [ -e "$STATE/pqtpm.state.tmp" ]; then bad "no temp file left"; else ok "no temp file left"; fi
run "nvread still answers" tpm2_nvread $IDX -C o -s 8 -o "$T/r"
check_eq "old value in memory too" "AAAAAAAA" "$(cat "$T/r")"
run "counter still 1" tpm2_nvread $CNT -C o -s 8 -o "$T/c"
check_eq "counter unchanged" "0000000000000001" "$(hex_of "$T/c")"
run "getcap: the index that could not be saved is not there" tpm2_getcap handles-nv-index
if grep -qi 0x1500202 "$T/out"; then bad "0x1500202 absent"; else ok "0x1500202 absent"; fi
run "owner auth still empty" tpm2_nvread $IDX -C o -s 8

rm -f "$FLAG"
run "nvwrite B with room again" tpm2_nvwrite $IDX -C o -i "$T/b"
run "nvincrement with room again" tpm2_nvincrement $CNT -C o
run "shutdown" tpm2_shutdown -c
tpm_restart
tpm_reset # a reboot: a new server alone is the same running TPM
run "startup after restart" tpm2_startup -c
run "nvread after restart" tpm2_nvread $IDX -C o -s 8 -o "$T/r"
check_eq "B survived" "BBBBBBBB" "$(cat "$T/r")"
run "counter after restart" tpm2_nvread $CNT -C o -s 8 -o "$T/c"
check_eq "counter 2" "0000000000000002" "$(hex_of "$T/c")"
finish
