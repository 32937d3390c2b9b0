#!/bin/bash
# A broken state file is refused, not replaced: flipped bytes (magic, version, body, checksum),
# truncations, an empty file, an unknown version, trailing bytes. Each time the server stops at
# start with a message that names the file and says what to do, and the file is left exactly
# as it was. The good file still loads afterwards, with its NV data. A pqtpm.volatile (the
# running TPM's RAM) whose two slots are both damaged is refused the same way, naming it;
# one torn slot is not damage (the other is used); removed, the TPM powers on afresh.
set -eu
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

if [ "$TPM_IMPL" != pqtpm ]; then
	echo "SKIP: needs pqtpm-server"
	ok "skipped for $TPM_IMPL"
	finish
fi

IDX=0x1500300
STATE=$T/state
F=$STATE/pqtpm.state

tpm_start "$STATE"
run "startup" tpm2_startup -c
run "nvdefine" tpm2_nvdefine $IDX -C o -s 16 -a "ownerread|ownerwrite"
printf 'survives-corrupt' >"$T/d"
run "nvwrite" tpm2_nvwrite $IDX -C o -i "$T/d"
run "shutdown" tpm2_shutdown -c
tpm_stop
cp "$F" "$T/good"
size=$(stat -c %s "$T/good")

# Start the server on the broken file: it must exit (not serve) and say why.
expect_refusal() {
	local name=$1 want=$2 st=0 sum
	sum=$(sha256_hex "$F")
	pick_ports
	ASAN_OPTIONS="$ASAN_OPTIONS_SERVER" UBSAN_OPTIONS="$UBSAN_OPTIONS_SERVER" \
		timeout -k 2 10 "$SERVER_BIN" --state-dir "$STATE" --bind 127.0.0.1 --port "$PORT" \
		--platform-port $((PORT + 1)) >"$T/log" 2>&1 </dev/null || st=$?
	if [ "$st" -eq 0 ] || [ "$st" -ge 124 ]; then
		bad "$name: server exit status $st, must refuse the file"
		show_tail "$T/log"
	elif ! grep -q "$F" "$T/log" || ! grep -q "$want" "$T/log" ||
		! grep -q "restore the file from a backup" "$T/log"; then
		bad "$name: message must name the file, say '$want' and what to do"
		show_tail "$T/log"
	else
		ok "$name refused"
	fi
	check_eq "$name: file untouched" "$sum" "$(sha256_hex "$F")"
	if [ -e "$STATE/pqtpm.state.tmp" ]; then bad "$name: temp file left"; fi
	check_sanitizer_log "$T/log" || true
}

flip() { # flip the byte at offset $1 of a fresh copy
	cp "$T/good" "$F"
	printf "$(printf '\\%03o' $(($(od -An -tu1 -j "$1" -N1 "$T/good") ^ 0xFF)))" |
		dd of="$F" bs=1 seek="$1" conv=notrunc status=none
}

flip 0
expect_refusal "magic flipped" "not a pqtpm state file"
flip 11
expect_refusal "version flipped" "unsupported version"
flip 40
expect_refusal "a byte of the body flipped" "bad checksum"
flip $((size / 2))
expect_refusal "a byte in the middle flipped" "bad checksum"
flip $((size - 1))
expect_refusal "the checksum's last byte flipped" "bad checksum"
cp "$T/good" "$F"
truncate -s $((size / 2)) "$F"
expect_refusal "truncated to half" "truncated"
cp "$T/good" "$F"
truncate -s $((size - 1)) "$F"
expect_refusal "one byte short" "truncated"
: >"$F"
expect_refusal "empty file" "truncated\|not a pqtpm state file"
cp "$T/good" "$F"
printf '\x07' | dd of="$F" bs=1 seek=11 conv=notrunc status=none
expect_refusal "version 7" "unsupported version 7"
cp "$T/good" "$F"
printf 'junk' >>"$F"
expect_refusal "trailing bytes" "trailing data"

cp "$T/good" "$F"
tpm_start "$STATE"
run "startup on the good file" tpm2_startup -c
run "nvread" tpm2_nvread $IDX -C o -s 16 -o "$T/r"
check_eq "data intact" "survives-corrupt" "$(cat "$T/r")"

# --- pqtpm.volatile: two slots of 64 KiB, bytes 100 on are in the body ---
V=$STATE/pqtpm.volatile
run "PCR 16 extended" tpm2_pcrextend "16:sha256=$(printf 'c%.0s' $(seq 64))"
tpm2_pcrread sha256:16 >"$T/pcr_before" 2>&1 || bad "pcrread"
tpm_stop
cp "$V" "$T/vgood"
vflip() { # flip the byte at offset $1 of $V
	printf "$(printf '\\%03o' $(($(od -An -tu1 -j "$1" -N1 "$V") ^ 0xFF)))" |
		dd of="$V" bs=1 seek="$1" conv=notrunc status=none
}
vflip 100
tpm_start "$STATE"
tpm2_pcrread sha256:16 >"$T/pcr_after" 2>&1 || bad "pcrread after a slot was damaged"
check_eq "one damaged slot: the other holds PCR 16" "$(cat "$T/pcr_before")" \
	"$(cat "$T/pcr_after")"
tpm_stop
cp "$T/vgood" "$V"
vflip 100
vflip $((65536 + 100))
sum=$(sha256_hex "$V")
pick_ports
st=0
timeout -k 2 10 env ASAN_OPTIONS="$ASAN_OPTIONS_SERVER" UBSAN_OPTIONS="$UBSAN_OPTIONS_SERVER" \
	"$SERVER_BIN" --state-dir "$STATE" --bind 127.0.0.1 --port "$PORT" \
	--platform-port $((PORT + 1)) >"$T/log" 2>&1 </dev/null || st=$?
check_eq "both slots damaged: the server refuses (status 1)" 1 "$st"
if grep -q "$V: damaged" "$T/log" && grep -q "remove the file" "$T/log"; then
	ok "the message names $V and says what to do"
else
	bad "the message must name $V and say what to do"
	show_tail "$T/log"
fi
check_eq "the volatile file untouched" "$sum" "$(sha256_hex "$V")"
check_sanitizer_log "$T/log" || true
rm -f "$V"
tpm_start "$STATE"
run "without it, the TPM powers on afresh" tpm2_startup -c
run "nvread after" tpm2_nvread $IDX -C o -s 16 -o "$T/r"
check_eq "data intact after" "survives-corrupt" "$(cat "$T/r")"
finish
