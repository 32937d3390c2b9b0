#!/bin/bash
# Writes the seed corpus of fuzz_mssim_frame into DIR: MSSIM byte streams as clients send them,
# each file = one byte for the port (0 command, 1 platform), then the stream.
#   tests/fuzz/mssim_seeds.sh DIR
set -eu
dir=${1:?usage: mssim_seeds.sh DIR}
mkdir -p "$dir"

u32() { printf '%08x' "$1"; }
# seed NAME PORT HEX...: the stream given in hex
seed() {
	local name=$1 port=$2
	shift 2
	printf '%02x%s' "$port" "$*" | tr -d ' ' | xxd -r -p >"$dir/$name"
}

getrandom=80010000000c0000017b0008
startup=80010000000c000001440000
cmd() { echo "$(u32 8)$(printf '%02x' "$1")$(u32 $((${#2} / 2)))$2"; }

seed handshake-getrandom 0 "$(u32 15) $(u32 1) $(cmd 0 $startup) $(cmd 0 $getrandom) $(u32 20)"
seed two-commands-locality3 0 "$(cmd 3 $getrandom) $(cmd 0 $getrandom) $(u32 21)"
seed alt-result-hash 0 "$(u32 16) $(u32 0) $(u32 5) $(u32 6) $(u32 3) 616263 $(u32 7)"
seed wrong-port-signals 0 "$(u32 1) $(u32 2) $(u32 11) $(u32 17) $(u32 26) $(u32 9) $(u32 35) $(u32 7)"
seed empty-command 0 "$(cmd 0 '')"
seed oversized 0 "$(u32 8) 00 $(u32 8193)"
seed unknown-code 0 "$(u32 99) $(u32 8)"
seed platform-power 1 "$(u32 1) $(u32 11) $(u32 3) $(u32 4) $(u32 9) $(u32 10) $(u32 17) $(u32 12) $(u32 2)"
seed platform-unsupported 1 "$(u32 13) $(u32 14) $(u32 18) $(u32 25) $(u32 26) $(u32 1) $(u32 30) $(u32 35) $(u32 1) $(u32 36) $(u32 2) $(u32 21)"
seed platform-hash 1 "$(u32 5) $(u32 6) $(u32 4) 01020304 $(u32 6) $(u32 0) $(u32 7) $(u32 20)"
seed platform-command 1 "$(cmd 0 $getrandom) $(u32 15) $(u32 1) $(u32 16) $(u32 0)"
echo "fuzz: seeds for mssim_frame in $dir ($(find "$dir" -type f | wc -l) files)"
