#!/bin/bash
# A host clock that jumps, made with libfaketime (Debian package faketime) preloaded into the
# server, its offset read from a file at every call (FAKETIME_NO_CACHE) so the test can move it
# while the server runs.
#
# 1. The wall clock (CLOCK_REALTIME) jumps 400 days forward, then ten years back, as
#    settimeofday or a bad NTP step would: TPM Clock and Time go on as if nothing happened
#    (they count from the monotonic clock), the server keeps serving, and after an orderly
#    restart Clock continues from where it was.
# 2. The monotonic clock jumps a day forward (a VM resumed after a pause): Clock and Time jump
#    with it (the TPM was "on" that long), stay monotonic, and the saved Clock survives a
#    restart.
set -eu
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

if [ "$TPM_IMPL" != pqtpm ]; then
	echo "SKIP: needs pqtpm-server"
	ok "skipped for $TPM_IMPL"
	finish
fi

# the multi-threaded variant: the server runs a thread per connection
FAKETIME_LIB=${FAKETIME_LIB:-$(dpkg -L libfaketime 2>/dev/null | grep '/libfaketimeMT\.so\.1$' | head -n 1)}
if [ ! -f "$FAKETIME_LIB" ]; then
	bad "libfaketimeMT not found (Debian: faketime; make deps)"
	finish
fi
OFFSET=$T/faketime
DAY=86400000
# ASan wants its runtime first in the library list; libfaketime comes first here
export ASAN_OPTIONS_SERVER="$ASAN_OPTIONS_SERVER:verify_asan_link_order=0"

# read_clock: sets TIME_MS and CLOCK_MS from ReadClock
read_clock() {
	run "readclock $1" tpm2_readclock
	TIME_MS=$(awk '$1 == "time:" { print $2 }' "$T/out")
	CLOCK_MS=$(awk '$1 == "clock:" { print $2 }' "$T/out")
}

# in_range NAME VALUE LOW HIGH
in_range() {
	if [ -n "$2" ] && [ "$2" -ge "$3" ] && [ "$2" -le "$4" ]; then
		ok "$1: $2 in [$3, $4]"
	else
		bad "$1: ${2:-none} not in [$3, $4]"
	fi
}

# wall_date_is NAME DAYS: the faked wall clock, as a process with the server's settings sees
# it, is DAYS days off the real one (phase 2 shows that the server itself is under libfaketime)
wall_date_is() {
	check_eq "$1" "$(date -u -d "@$(($(date +%s) + $2 * 86400))" +%F)" \
		"$($SERVER_WRAP date -u +%F)"
}

# --- 1: the wall clock jumps; the monotonic clock does not ---
echo "+0" >"$OFFSET"
SERVER_WRAP="env LD_PRELOAD=$FAKETIME_LIB FAKETIME_TIMESTAMP_FILE=$OFFSET FAKETIME_NO_CACHE=1 \
FAKETIME_DONT_FAKE_MONOTONIC=1"
tpm_start
run "startup" tpm2_startup -c
read_clock "before the jumps"
c0=$CLOCK_MS t0=$TIME_MS
echo "+400d" >"$OFFSET"
wall_date_is "faked wall clock 400 days ahead" 400
read_clock "wall clock 400 days ahead"
in_range "Clock after the forward jump" "$CLOCK_MS" "$c0" $((c0 + 60000))
in_range "Time after the forward jump" "$TIME_MS" "$t0" $((t0 + 60000))
c1=$CLOCK_MS t1=$TIME_MS
echo "-3650d" >"$OFFSET"
wall_date_is "faked wall clock ten years back" -3650
read_clock "wall clock ten years back"
in_range "Clock after the backward jump" "$CLOCK_MS" "$c1" $((c1 + 60000))
in_range "Time after the backward jump" "$TIME_MS" "$t1" $((t1 + 60000))
run "the server still serves: getrandom" tpm2_getrandom -o "$T/r" 16
run "the server still serves: createprimary" tpm2_createprimary -Q -C o -G ecc -c "$T/p.ctx"
read_clock "before shutdown"
c2=$CLOCK_MS
run "shutdown" tpm2_shutdown -c
tpm_restart
tpm_reset # a reboot: a new server alone is the same running TPM
run "startup after restart (wall clock still ten years back)" tpm2_startup -c
read_clock "after restart"
in_range "Clock after the restart" "$CLOCK_MS" "$c2" $((c2 + 60000))
run "shutdown" tpm2_shutdown -c
tpm_stop

# --- 2: the monotonic clock jumps a day forward ---
echo "+0" >"$OFFSET"
SERVER_WRAP="env LD_PRELOAD=$FAKETIME_LIB FAKETIME_TIMESTAMP_FILE=$OFFSET FAKETIME_NO_CACHE=1"
tpm_restart
tpm_reset # a reboot: a new server alone is the same running TPM
run "startup" tpm2_startup -c
read_clock "before the monotonic jump"
c3=$CLOCK_MS t3=$TIME_MS
echo "+1d" >"$OFFSET"
read_clock "a day later"
in_range "Clock a day later" "$CLOCK_MS" $((c3 + DAY)) $((c3 + DAY + 60000))
in_range "Time a day later" "$TIME_MS" $((t3 + DAY)) $((t3 + DAY + 60000))
c4=$CLOCK_MS
run "the server still serves: getrandom" tpm2_getrandom -o "$T/r" 16
read_clock "again"
in_range "Clock still monotonic" "$CLOCK_MS" "$c4" $((c4 + 60000))
c5=$CLOCK_MS
run "shutdown" tpm2_shutdown -c
tpm_restart
tpm_reset # a reboot: a new server alone is the same running TPM
run "startup after restart" tpm2_startup -c
read_clock "after restart"
in_range "Clock after the restart (saved at shutdown)" "$CLOCK_MS" "$c5" $((c5 + 60000))
finish
