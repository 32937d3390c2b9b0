#!/bin/bash
# tpm2-tools, the command list: every command Debian's swtpm (libtpms) lists in
# tpm2_getcap commands, pqtpm lists too, with the same attributes (handles, response handle,
# nv, extensive, flushed); and each of the commands it gained for that answers as a client
# calls it (EC_Ephemeral, Commit, ZGen_2Phase, command audit) rather than with
# TPM_RC_COMMAND_CODE.
set -eu
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

# tpm2_getcap commands as "name TPMA_CC", one line per command, sorted
commands_of() {
	awk '/^TPM2_CC_/ { name = $1 } /value:/ && name { print name, $2; name = "" }' "$1" |
		sort >"$2"
}

if ! command -v swtpm >/dev/null; then
	bad "swtpm not installed (scripts/install-deps.sh)"
	finish
fi
TPM_IMPL=swtpm tpm_start "$T/swtpm"
run "swtpm: getcap commands" tpm2_getcap commands
commands_of "$T/out" "$T/swtpm.cmds"
TPM_IMPL=swtpm tpm_stop
tpm_start
run "startup clear" tpm2_startup -c
run "pqtpm: getcap commands" tpm2_getcap commands
commands_of "$T/out" "$T/pqtpm.cmds"

n=$(wc -l <"$T/swtpm.cmds")
[ "$n" -gt 100 ] && ok "swtpm lists $n commands" || bad "swtpm lists only $n commands"
missing=$(join -v1 "$T/swtpm.cmds" "$T/pqtpm.cmds" | awk '{ print $1 }' | tr '\n' ' ')
check_eq "no command of libtpms missing" "" "$missing"
differ=$(join "$T/swtpm.cmds" "$T/pqtpm.cmds" | awk '$2 != $3 { print $1 }' | tr '\n' ' ')
check_eq "the same attributes for each" "" "$differ"

run "createprimary (owner)" tpm2_createprimary -C o -G ecc256 -c "$T/prim.ctx"
run "ecephemeral" tpm2_ecephemeral -u "$T/q.bin" -t "$T/q.ctr" ecc256
run "create an ECDH key" tpm2_create -C "$T/prim.ctx" -G ecc256:ecdh -c "$T/ecdh.ctx"
run "ecdhkeygen (the other side's static point)" tpm2_ecdhkeygen -c "$T/ecdh.ctx" \
	-u "$T/qs.bin" -o "$T/z.bin"
run "zgen2phase with the ephemeral's counter" tpm2_zgen2phase -c "$T/ecdh.ctx" \
	--static-public "$T/qs.bin" --ephemeral-public "$T/q.bin" -t 0 \
	--output-Z1 "$T/z1.bin" --output-Z2 "$T/z2.bin"
expect_rc "zgen2phase with the same counter again: TPM_RC_VALUE (counter)" 0x4c4 \
	tpm2_zgen2phase -c "$T/ecdh.ctx" --static-public "$T/qs.bin" \
	--ephemeral-public "$T/q.bin" -t 0 --output-Z1 "$T/z1.bin" --output-Z2 "$T/z2.bin"
run "create an ECDAA key" tpm2_create -C "$T/prim.ctx" -G ecc256:ecdaa -c "$T/daa.ctx"
run "commit" tpm2_commit -c "$T/daa.ctx" -t "$T/c.ctr" --eccpoint-K "$T/K.bin" \
	--eccpoint-L "$T/L.bin" -u "$T/E.bin"
check_eq "the commit's counter follows the ephemeral's" 0001 "$(hex_of "$T/c.ctr")"
echo "data" >"$T/data"
run "sign with ecdaa and the commit" tpm2_sign -c "$T/daa.ctx" -g sha256 -s ecdaa \
	--commit-index 1 -o "$T/sig" "$T/data"
expect_rc "the same commit twice: TPM_RC_VALUE (inScheme)" 0x2c4 \
	tpm2_sign -c "$T/daa.ctx" -g sha256 -s ecdaa --commit-index 1 -o "$T/sig" "$T/data"
finish
