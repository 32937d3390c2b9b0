#!/bin/bash
# tpm2-tools where pqtpm once answered otherwise than the reference implementation and
# libtpms: a symmetric primary without a mode (tpm2_createprimary -G aes) as a parent, a policy
# session that only encrypts GetRandom's response, PolicyNV with every comparison (signed in
# the reference's order), an NV index as large as TPM_PT_NV_INDEX_MAX written from stdin and
# read back in pieces, GetTestResult right after Startup.
set -eu
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

K=$T/k
mkdir -p "$K"
head -c 64 /dev/urandom >"$K/data"
head -c 16 /dev/zero >"$K/iv"

tpm_start
run "startup clear" tpm2_startup -c
run "gettestresult right after startup" tpm2_gettestresult
check_eq "gettestresult: success" success "$(sed -n 's/^status: *//p' "$T/out")"

# --- a symmetric key whose mode is chosen later
run "createprimary -G aes (storage, mode NULL)" tpm2_createprimary -C o -G aes -c "$K/aes.ctx"
run "create a child under it" tpm2_create -C "$K/aes.ctx" -G ecc -u "$K/c.pub" -r "$K/c.priv"
run "load the child" tpm2_load -C "$K/aes.ctx" -u "$K/c.pub" -r "$K/c.priv" -c "$K/c.ctx"
run "createprimary -G aes (unrestricted, mode NULL)" tpm2_createprimary -C o -G aes \
	-a "fixedtpm|fixedparent|sensitivedataorigin|userwithauth|decrypt|sign" -c "$K/u.ctx"
run "encryptdecrypt, mode CFB chosen by the command" tpm2_encryptdecrypt -c "$K/u.ctx" \
	-G cfb -t "$K/iv" -o "$K/ct" "$K/data"
run "decrypt back" tpm2_encryptdecrypt -d -c "$K/u.ctx" -G cfb -t "$K/iv" -o "$K/pt" "$K/ct"
if cmp -s "$K/data" "$K/pt"; then ok "round trip"; else bad "round trip"; fi

# --- a policy session there only to encrypt the response
run "createprimary ecc (salt key)" tpm2_createprimary -C o -G ecc -c "$K/p.ctx"
run "policy session, salted" tpm2_startauthsession --policy-session -S "$K/ps.ctx" -c "$K/p.ctx"
run "session: encrypt responses" tpm2_sessionconfig "$K/ps.ctx" --enable-encrypt
run "getrandom through the policy session" tpm2_getrandom -S "$K/ps.ctx" -o "$K/rand" 16
check_eq "16 random bytes" 16 "$(stat -c %s "$K/rand")"
run "flush the session" tpm2_flushcontext "$K/ps.ctx"

# --- PolicyNV: the index holds 0x81 (-127 as two's complement)
NVP=0x1500001
run "nvdefine 2 bytes with a password" tpm2_nvdefine -C o -p nvpass "$NVP" \
	-a "authread|authwrite" -s 2
printf '81' | xxd -r -p >"$K/a"
run "nvwrite 0x81" tpm2_nvwrite -P nvpass -i "$K/a" "$NVP"
# PolicyNV OP HEX: operandB HEX (one byte) at offset 0, in a fresh policy session.
policy_nv() {
	local st=0
	printf '%s' "$2" | xxd -r -p >"$K/b"
	tpm2_startauthsession -S "$K/s.ctx" --policy-session >/dev/null 2>"$T/err" || st=$?
	tpm2_policynv -S "$K/s.ctx" -i "$K/b" -P nvpass "$NVP" "$1" >"$T/out" 2>"$T/err" || st=$?
	tpm2_flushcontext "$K/s.ctx" >/dev/null 2>&1 || true
	return "$st"
}
holds=(eq:81 neq:80 ugt:80 ult:82 uge:81 ule:82 bs:81 bc:7e
	sgt:82 slt:80 sge:82 sge:81 sle:80 sle:81 slt:01 slt:7f)
fails=(sgt:81 slt:82 ugt:82 eq:80 sgt:00 sgt:01 bs:03)
for t in "${holds[@]}"; do
	if policy_nv "${t%%:*}" "${t#*:}"; then
		ok "policynv 0x81 ${t%%:*} 0x${t#*:}"
	else
		bad "policynv 0x81 ${t%%:*} 0x${t#*:}"
		show_tail "$T/err"
	fi
done
for t in "${fails[@]}"; do
	if policy_nv "${t%%:*}" "${t#*:}"; then
		bad "policynv 0x81 ${t%%:*} 0x${t#*:} does not hold"
	else
		ok "policynv 0x81 ${t%%:*} 0x${t#*:} does not hold"
	fi
done

# --- the largest index the TPM says it makes, from stdin and in pieces
run "getcap properties-fixed" tpm2_getcap properties-fixed
max=$(grep -A1 'TPM2_PT_NV_INDEX_MAX' "$T/out" | grep -o 'raw: 0x[0-9A-Fa-f]*' | cut -d' ' -f2)
check_eq "TPM_PT_NV_INDEX_MAX" 2048 "$((max))"
NVL=0x1000000
run "nvdefine $((max)) bytes" tpm2_nvdefine "$NVL" -C o -s "$((max))" -a 0x2000A
base64 /dev/urandom | head -c "$((max))" >"$K/large"
run "nvwrite from stdin" tpm2_nvwrite "$NVL" -C o -i - <"$K/large"
run "nvread the whole index" tpm2_nvread "$NVL" -C o -o "$K/large.r"
if cmp -s "$K/large" "$K/large.r"; then ok "read equals written"; else bad "read equals written"; fi
run "nvread 1500 bytes at offset 300" tpm2_nvread "$NVL" -C o -s 1500 --offset 300 -o "$K/part"
tail -c +301 "$K/large" | head -c 1500 >"$K/part.want"
if cmp -s "$K/part" "$K/part.want"; then ok "piece equals"; else bad "piece equals"; fi
expect_rc "an index of $((max + 1)) bytes: TPM_RC_SIZE" 0x2d5 tpm2_nvdefine 0x1000001 -C o \
	-s "$((max + 1))" -a 0x2000A

finish
