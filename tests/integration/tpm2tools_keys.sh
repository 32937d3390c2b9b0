#!/bin/bash
# tpm2-tools, keys: primaries (deterministic), create/load/readpublic, sign/verify (RSASSA,
# RSAPSS, ECDSA; cross-checked with openssl), RSA encrypt/decrypt, persistence across a server
# restart (evictcontrol), flushcontext, context files (ContextSave/ContextLoad).
set -eu
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

K=$T/k
mkdir -p "$K"
printf 'the quick brown fox jumps over the lazy dog\n' >"$K/msg"
cp "$K/msg" "$K/tampered"
printf 'X' >>"$K/tampered"

# primary ALG HIERARCHY NAME: creates a primary and writes NAME.ctx and NAME.pub (TPM2B_PUBLIC).
primary() {
	run "createprimary $1 ($2) $3" tpm2_createprimary -C "$2" -G "$1" -c "$K/$3.ctx"
	run "readpublic $3" tpm2_readpublic -c "$K/$3.ctx" -o "$K/$3.pub"
}

# child PARENT ALG NAME: create + load, writes NAME.ctx and NAME.pem.
child() {
	run "create $2 under $1" tpm2_create -C "$K/$1.ctx" -G "$2" -u "$K/$3.u" -r "$K/$3.r"
	run "load $3" tpm2_load -C "$K/$1.ctx" -u "$K/$3.u" -r "$K/$3.r" -c "$K/$3.ctx"
	run "readpublic $3 (pem)" tpm2_readpublic -c "$K/$3.ctx" -f pem -o "$K/$3.pem"
}

same_file() {
	if [ -s "$2" ] && cmp -s "$2" "$3"; then ok "$1"; else bad "$1"; fi
}

tpm_start
run "startup clear" tpm2_startup -c

# --- Primary keys are derived from the hierarchy seed: same template, same key.
primary rsa2048 o rsa1
primary rsa2048 o rsa2
same_file "RSA-2048 primary is deterministic" "$K/rsa1.pub" "$K/rsa2.pub"
primary ecc256 o ecc1
primary ecc256 o ecc2
same_file "ECC P-256 primary is deterministic" "$K/ecc1.pub" "$K/ecc2.pub"
primary ecc256 e ecce
if cmp -s "$K/ecc1.pub" "$K/ecce.pub"; then
	bad "endorsement and owner primaries differ"
else
	ok "endorsement and owner primaries differ"
fi
run "readpublic RSA primary (text)" tpm2_readpublic -c "$K/rsa1.ctx"
if grep -q 'rsa' "$T/out" && grep -q 'restricted' "$T/out"; then
	ok "RSA primary is a restricted RSA key"
else
	bad "RSA primary is a restricted RSA key"
fi

# --- Signing keys under the primaries: one per scheme, and one RSA key with no scheme of its
# own (the scheme then comes with each TPM2_Sign).
child rsa1 rsa2048:rsassa-sha256:null ssa
child rsa1 rsa2048:rsapss-sha256:null pss
child ecc1 ecc256:ecdsa-sha256 ecdsa
child rsa1 rsa2048 anyrsa

for ks in ssa:rsassa pss:rsapss ecdsa:ecdsa anyrsa:rsassa anyrsa:rsapss; do
	k=${ks%%:*} s=${ks#*:}
	case $s in
	rsapss) osslopt="-sigopt rsa_padding_mode:pss -sigopt rsa_pss_saltlen:-2" ;;
	*) osslopt="" ;;
	esac
	run "sign $s ($k)" tpm2_sign -c "$K/$k.ctx" -g sha256 -s "$s" -o "$K/$k.$s.sig" "$K/msg"
	run "verifysignature $s ($k)" tpm2_verifysignature -c "$K/$k.ctx" -g sha256 -m "$K/msg" \
		-s "$K/$k.$s.sig"
	expect_rc "verifysignature $s ($k), tampered message (TPM_RC_SIGNATURE)" 0x2db \
		tpm2_verifysignature -c "$K/$k.ctx" -g sha256 -m "$K/tampered" -s "$K/$k.$s.sig"
	run "sign $s ($k, plain)" tpm2_sign -c "$K/$k.ctx" -g sha256 -s "$s" -f plain \
		-o "$K/$k.$s.raw" "$K/msg"
	# shellcheck disable=SC2086
	run "openssl verifies the $s signature ($k)" openssl dgst -sha256 -verify "$K/$k.pem" \
		$osslopt -signature "$K/$k.$s.raw" "$K/msg"
	# shellcheck disable=SC2086
	expect_fail "openssl rejects the $s signature ($k) on a tampered message" openssl dgst \
		-sha256 -verify "$K/$k.pem" $osslopt -signature "$K/$k.$s.raw" "$K/tampered"
done
# A digest signed by the TPM (tpm2_sign -d) verifies the same way.
sha256sum "$K/msg" | cut -c1-64 | xxd -r -p >"$K/msg.digest"
run "sign ecdsa over a digest" tpm2_sign -c "$K/ecdsa.ctx" -g sha256 -d -f plain -o "$K/d.raw" "$K/msg.digest"
run "openssl verifies the digest signature" openssl dgst -sha256 -verify "$K/ecdsa.pem" \
	-signature "$K/d.raw" "$K/msg"

# --- RSA encryption keys.
run "create rsa2048 decrypt key" tpm2_create -C "$K/rsa1.ctx" -G rsa2048:null \
	-a 'decrypt|fixedtpm|fixedparent|sensitivedataorigin|userwithauth' -u "$K/enc.u" -r "$K/enc.r"
run "load decrypt key" tpm2_load -C "$K/rsa1.ctx" -u "$K/enc.u" -r "$K/enc.r" -c "$K/enc.ctx"
run "readpublic decrypt key (pem)" tpm2_readpublic -c "$K/enc.ctx" -f pem -o "$K/enc.pem"
for s in rsaes oaep; do
	run "rsaencrypt $s" tpm2_rsaencrypt -c "$K/enc.ctx" -s "$s" -o "$K/ct.$s" "$K/msg"
	run "rsadecrypt $s" tpm2_rsadecrypt -c "$K/enc.ctx" -s "$s" -o "$K/pt.$s" "$K/ct.$s"
	same_file "rsa $s round trip" "$K/msg" "$K/pt.$s"
done
if cmp -s "$K/ct.oaep" "$K/ct.rsaes"; then bad "OAEP and RSAES ciphertexts differ"; else ok "OAEP and RSAES ciphertexts differ"; fi
run "openssl encrypts OAEP-SHA256" openssl pkeyutl -encrypt -pubin -inkey "$K/enc.pem" \
	-pkeyopt rsa_padding_mode:oaep -pkeyopt rsa_oaep_md:sha256 -in "$K/msg" -out "$K/ct.ossl"
run "rsadecrypt the openssl ciphertext" tpm2_rsadecrypt -c "$K/enc.ctx" -s oaep -o "$K/pt.ossl" "$K/ct.ossl"
same_file "openssl -> TPM OAEP round trip" "$K/msg" "$K/pt.ossl"
head -c 256 /dev/urandom >"$K/junk.ct"
expect_fail "rsadecrypt of random bytes (OAEP) fails" \
	tpm2_rsadecrypt -c "$K/enc.ctx" -s oaep -o "$K/pt.junk" "$K/junk.ct"
# The TPM must still work after refusing that.
run "getrandom after a failed decrypt" tpm2_getrandom -o "$K/rnd" 16

# --- Context files: every tool above loaded *.ctx (ContextLoad) that another saved
# (ContextSave). Load the same context twice and check it is the same object.
run "readpublic from a saved context" tpm2_readpublic -c "$K/ecdsa.ctx" -n "$K/name1"
run "readpublic from the same context again" tpm2_readpublic -c "$K/ecdsa.ctx" -n "$K/name2"
same_file "context load gives the same object" "$K/name1" "$K/name2"

# --- flushcontext
run "createprimary (left loaded)" tpm2_createprimary -C o -G ecc256 -c "$K/tmp.ctx"
run "flushcontext -t" tpm2_flushcontext -t
run "getcap handles-transient" tpm2_getcap handles-transient
check_eq "no transient handles after flushcontext -t" "" "$(cat "$T/out")"
run "flushcontext -l" tpm2_flushcontext -l
run "flushcontext -s" tpm2_flushcontext -s

# --- Persistent keys survive a server restart (evictcontrol).
P=0x81000101
run "evictcontrol: persist the ECC primary at $P" tpm2_evictcontrol -C o -c "$K/ecc1.ctx" "$P"
run "getcap handles-persistent" tpm2_getcap handles-persistent
if grep -qi "$P" "$T/out"; then ok "$P listed"; else bad "$P listed"; fi
run "readpublic $P (pem)" tpm2_readpublic -c "$P" -f pem -o "$K/persist.pem"

tpm_restart
tpm_reset # a reboot: a new server alone is the same running TPM
run "startup clear after restart" tpm2_startup -c
run "getcap handles-persistent after restart" tpm2_getcap handles-persistent
if grep -qi "$P" "$T/out"; then ok "$P still listed after restart"; else bad "$P still listed after restart"; fi
run "readpublic $P after restart" tpm2_readpublic -c "$P" -o "$K/persist.pub"
same_file "persistent key is the same key" "$K/ecc1.pub" "$K/persist.pub"
# The primary stays the same after a restart too (the seed was saved).
primary ecc256 o ecc3
same_file "ECC primary unchanged after restart" "$K/ecc1.pub" "$K/ecc3.pub"
# Child keys created before the restart load under the persistent parent.
run "load ECDSA child under $P" tpm2_load -C "$P" -u "$K/ecdsa.u" -r "$K/ecdsa.r" -c "$K/ecdsa2.ctx"
run "sign with the reloaded key" tpm2_sign -c "$K/ecdsa2.ctx" -g sha256 -f plain -o "$K/r.raw" "$K/msg"
run "openssl verifies it with the old public key" openssl dgst -sha256 -verify "$K/ecdsa.pem" \
	-signature "$K/r.raw" "$K/msg"
run "evictcontrol: remove $P" tpm2_evictcontrol -C o -c "$P"
run "getcap handles-persistent after evict" tpm2_getcap handles-persistent
if grep -qi "$P" "$T/out"; then bad "$P gone after evict"; else ok "$P gone after evict"; fi
expect_fail "readpublic of the evicted handle fails" tpm2_readpublic -c "$P"

finish
