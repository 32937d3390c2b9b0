#!/bin/bash
# tpm2-tools, duplication: tpm2_import of keys we know (HMAC, AES, RSA, ECC) under RSA and ECC
# parents, each then used and checked with openssl; tpm2_duplicate (authorized by a
# PolicyCommandCode(Duplicate) session) + tpm2_import round trips, with and without the inner
# wrapper, to a parent loaded whole and to a parent's public part only; the refusals: password
# authorization of Duplicate, a tampered duplicate, a duplicate imported under another parent.
set -eu
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

K=$T/k
mkdir -p "$K"
printf 'the quick brown fox jumps over the lazy dog\n' >"$K/msg"
head -c 100 /dev/urandom >"$K/data100"
printf '000102030405060708090a0b0c0d0e0f' | xxd -r -p >"$K/iv"
printf '2b7e151628aed2a6abf7158809cf4f3c' | xxd -r -p >"$K/aes.key"
printf 'an hmac key of thirty-two bytes!' >"$K/hmac.key"
openssl genrsa -out "$K/rsa.pem" 2048 2>/dev/null
openssl rsa -in "$K/rsa.pem" -pubout -out "$K/rsa.pub.pem" 2>/dev/null
openssl ecparam -name prime256v1 -genkey -noout -out "$K/ecc.pem"
openssl ec -in "$K/ecc.pem" -pubout -out "$K/ecc.pub.pem" 2>/dev/null

same_file() {
	if [ -s "$2" ] && cmp -s "$2" "$3"; then ok "$1"; else bad "$1"; fi
}

hmac_want=$(openssl dgst -sha256 -mac HMAC -macopt "hexkey:$(hex_of "$K/hmac.key")" "$K/msg" | sed 's/.*= //')
openssl enc -aes-128-cfb -K "$(hex_of "$K/aes.key")" -iv "$(hex_of "$K/iv")" \
	-in "$K/data100" -out "$K/cfb.ossl"
openssl dgst -sha256 -sign "$K/rsa.pem" -out "$K/rsa.sig.ossl" "$K/msg"

# use_hmac NAME CTX: HMAC-SHA256 of msg equals openssl's with the known key
use_hmac() {
	run "$1: hmac" tpm2_hmac -c "$2" -g sha256 -o "$K/mac.bin" "$K/msg"
	check_eq "$1: hmac matches openssl" "$hmac_want" "$(hex_of "$K/mac.bin")"
}

# use_aes NAME CTX: AES-128-CFB equals openssl's with the known key
use_aes() {
	rm -f "$K/cfb.tpm"
	run "$1: encrypt cfb" tpm2_encryptdecrypt -c "$2" -G cfb -t "$K/iv" -o "$K/cfb.tpm" "$K/data100"
	same_file "$1: aes-128-cfb matches openssl" "$K/cfb.ossl" "$K/cfb.tpm"
}

# use_rsa NAME CTX: RSASSA-SHA256 is deterministic: the same bytes as openssl's
use_rsa() {
	rm -f "$K/rsa.sig"
	run "$1: sign rsassa" tpm2_sign -c "$2" -g sha256 -s rsassa -f plain -o "$K/rsa.sig" "$K/msg"
	same_file "$1: rsassa signature equals openssl's" "$K/rsa.sig.ossl" "$K/rsa.sig"
}

# use_ecc NAME CTX: an ECDSA signature openssl verifies with the known public key
use_ecc() {
	rm -f "$K/ecc.sig"
	run "$1: sign ecdsa" tpm2_sign -c "$2" -g sha256 -s ecdsa -f plain -o "$K/ecc.sig" "$K/msg"
	run "$1: openssl verifies the ecdsa signature" \
		openssl dgst -sha256 -verify "$K/ecc.pub.pem" -signature "$K/ecc.sig" "$K/msg"
}

tpm_start
run "startup clear" tpm2_startup -c
run "createprimary rsa (parent)" tpm2_createprimary -C o -G rsa2048:aes128cfb -c "$K/rsa.ctx"
run "createprimary ecc (parent)" tpm2_createprimary -C o -G ecc256:aes128cfb -c "$K/ecc.ctx"

# --- tpm2_import of known keys under both parents (the tools wrap with both wrappers)
for p in rsa ecc; do
	for alg in hmac aes rsa ecc; do
		case $alg in
		hmac) in=$K/hmac.key ;;
		aes) in=$K/aes.key ;;
		rsa) in=$K/rsa.pem ;;
		ecc) in=$K/ecc.pem ;;
		esac
		n="$alg under $p"
		run "$n: import" tpm2_import -C "$K/$p.ctx" -G "$alg" -i "$in" \
			-u "$K/i.$alg.$p.pub" -r "$K/i.$alg.$p.priv"
		run "$n: load" tpm2_load -C "$K/$p.ctx" -u "$K/i.$alg.$p.pub" \
			-r "$K/i.$alg.$p.priv" -c "$K/i.$alg.$p.ctx"
		case $alg in
		hmac) use_hmac "$n" "$K/i.$alg.$p.ctx" ;;
		aes) use_aes "$n" "$K/i.$alg.$p.ctx" ;;
		rsa) use_rsa "$n" "$K/i.$alg.$p.ctx" ;;
		ecc) use_ecc "$n" "$K/i.$alg.$p.ctx" ;;
		esac
	done
done
expect_rc "an import blob loads only under its parent (TPM_RC_INTEGRITY)" "0x1df" \
	tpm2_load -C "$K/ecc.ctx" -u "$K/i.hmac.rsa.pub" -r "$K/i.hmac.rsa.priv" -c "$K/x.ctx"

# --- Duplicate: a key with the policy PolicyCommandCode(Duplicate)
run "trial session" tpm2_startauthsession -S "$K/trial.ctx"
run "policycommandcode Duplicate (trial)" tpm2_policycommandcode -S "$K/trial.ctx" \
	-L "$K/dup.policy" TPM2_CC_Duplicate
run "flush trial session" tpm2_flushcontext "$K/trial.ctx"

# the known HMAC key, imported with that policy, duplicable
run "import hmac key with the Duplicate policy" tpm2_import -C "$K/rsa.ctx" -G hmac \
	-i "$K/hmac.key" -a "userwithauth|sign" -L "$K/dup.policy" -u "$K/d.pub" -r "$K/d.priv"
run "load it" tpm2_load -C "$K/rsa.ctx" -u "$K/d.pub" -r "$K/d.priv" -c "$K/d.ctx"
use_hmac "duplicable hmac key" "$K/d.ctx"

expect_rc "duplicate with a password (TPM_RC_AUTH_UNAVAILABLE)" "0x12f" \
	tpm2_duplicate -C "$K/ecc.ctx" -c "$K/d.ctx" -G null -r "$K/x.dpriv" -s "$K/x.seed"

# dup_session: a policy session satisfying the key's policy, for one Duplicate
dup_session() {
	run "$1: policy session" tpm2_startauthsession --policy-session -S "$K/s.ctx"
	run "$1: policycommandcode" tpm2_policycommandcode -S "$K/s.ctx" TPM2_CC_Duplicate
}

# outer wrapper only, to the ECC parent
dup_session "dup to ecc, no inner"
run "dup to ecc, no inner: duplicate" tpm2_duplicate -C "$K/ecc.ctx" -c "$K/d.ctx" -G null \
	-p "session:$K/s.ctx" -r "$K/d1.dpriv" -s "$K/d1.seed"
tpm2_flushcontext "$K/s.ctx" >/dev/null 2>&1 || true
run "dup to ecc, no inner: import" tpm2_import -C "$K/ecc.ctx" -u "$K/d.pub" -i "$K/d1.dpriv" \
	-s "$K/d1.seed" -r "$K/d1.priv"
run "dup to ecc, no inner: load" tpm2_load -C "$K/ecc.ctx" -u "$K/d.pub" -r "$K/d1.priv" -c "$K/d1.ctx"
use_hmac "duplicated to ecc" "$K/d1.ctx"
expect_rc "the duplicate under another parent (TPM_RC_VALUE of inSymSeed)" "0x4c4" \
	tpm2_import -C "$K/rsa.ctx" -u "$K/d.pub" -i "$K/d1.dpriv" -s "$K/d1.seed" -r "$K/x.priv"
cp "$K/d1.dpriv" "$K/bad.dpriv"
printf '\x55' | dd of="$K/bad.dpriv" bs=1 seek=$(($(stat -c %s "$K/bad.dpriv") - 3)) conv=notrunc 2>/dev/null
expect_rc "a tampered duplicate (TPM_RC_INTEGRITY)" "0x3df" \
	tpm2_import -C "$K/ecc.ctx" -u "$K/d.pub" -i "$K/bad.dpriv" -s "$K/d1.seed" -r "$K/x.priv"

# inner wrapper with a TPM-made key, to the public part of the RSA parent (another TPM's view)
run "readpublic of the rsa parent" tpm2_readpublic -c "$K/rsa.ctx" -o "$K/rsa.parent.pub"
run "loadexternal its public part" tpm2_loadexternal -C o -u "$K/rsa.parent.pub" -c "$K/np.ctx"
dup_session "dup to rsa public, inner aes"
run "dup to rsa public, inner aes: duplicate" tpm2_duplicate -C "$K/np.ctx" -c "$K/d.ctx" -G aes \
	-o "$K/d2.key" -p "session:$K/s.ctx" -r "$K/d2.dpriv" -s "$K/d2.seed"
tpm2_flushcontext "$K/s.ctx" >/dev/null 2>&1 || true
check_eq "dup to rsa public, inner aes: the TPM made a 16-byte inner key" 16 \
	"$(stat -c %s "$K/d2.key" 2>/dev/null || echo 0)"
run "dup to rsa public, inner aes: import" tpm2_import -C "$K/rsa.ctx" -u "$K/d.pub" \
	-i "$K/d2.dpriv" -s "$K/d2.seed" -k "$K/d2.key" -r "$K/d2.priv"
run "dup to rsa public, inner aes: load" tpm2_load -C "$K/rsa.ctx" -u "$K/d.pub" -r "$K/d2.priv" -c "$K/d2.ctx"
use_hmac "duplicated with inner wrapper" "$K/d2.ctx"
expect_rc "inner-wrapped duplicate imported without its key (TPM_RC_SIZE of duplicate)" "0x3d5" \
	tpm2_import -C "$K/rsa.ctx" -u "$K/d.pub" -i "$K/d2.dpriv" -s "$K/d2.seed" -r "$K/x.priv"

# a TPM-made key (unknown value): the duplicate computes the same HMAC as the original
run "create hmac key with the Duplicate policy" tpm2_create -C "$K/ecc.ctx" -G hmac \
	-a "sensitivedataorigin|userwithauth|sign" -L "$K/dup.policy" -u "$K/g.pub" -r "$K/g.priv"
run "load it" tpm2_load -C "$K/ecc.ctx" -u "$K/g.pub" -r "$K/g.priv" -c "$K/g.ctx"
run "hmac with the original" tpm2_hmac -c "$K/g.ctx" -g sha256 -o "$K/g.mac" "$K/msg"
dup_session "dup generated key to rsa"
run "dup generated key to rsa: duplicate" tpm2_duplicate -C "$K/rsa.ctx" -c "$K/g.ctx" -G aes \
	-o "$K/g.key" -p "session:$K/s.ctx" -r "$K/g.dpriv" -s "$K/g.seed"
tpm2_flushcontext "$K/s.ctx" >/dev/null 2>&1 || true
run "dup generated key to rsa: import" tpm2_import -C "$K/rsa.ctx" -u "$K/g.pub" -i "$K/g.dpriv" \
	-s "$K/g.seed" -k "$K/g.key" -r "$K/g2.priv"
run "dup generated key to rsa: load" tpm2_load -C "$K/rsa.ctx" -u "$K/g.pub" -r "$K/g2.priv" -c "$K/g2.ctx"
run "hmac with the duplicate" tpm2_hmac -c "$K/g2.ctx" -g sha256 -o "$K/g2.mac" "$K/msg"
same_file "the duplicate's hmac equals the original's" "$K/g.mac" "$K/g2.mac"

finish
