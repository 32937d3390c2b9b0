#!/bin/bash
# A broken state file is refused, not replaced: flipped bytes (magic, version, body, checksum),
# truncations, an empty file, an unknown version, trailing bytes. Each time the server stops at
# start with a message that names the file and says what to do, and the file is left exactly
# as it was. The good file still loads afterwards, with its NV data.
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
finish
