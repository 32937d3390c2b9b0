#!/bin/bash
# tpm2-tools with the algorithms of issue 15 that the tools can name: ECC P-521 (keys, ECDSA
# checked by openssl, ECDH against openssl's derive, a salted session, a quote checked by
# tpm2_checkquote, duplication to a P-521 parent) and Camellia (storage parents, sealing,
# tpm2_encryptdecrypt in every mode, a credential through a Camellia EK), what getcap and
# testparms report, and the curves and algorithms wolfSSL 5.5.4 lacks (BN, SM2, SM3, SM4),
# which pqtpm must not claim. tpm2-tools 5.4 names no TDES key and no session cipher (its
# sessions are AES-128-CFB), and loads or imports no Camellia key of its own: those have
# unit tests (test_sym_ciphers, test_tss_session). Runs against swtpm too (TPM_IMPL=swtpm),
# where only the lists differ.
set -eu
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

K=$T/k
mkdir -p "$K"
printf 'a message for P-521\n' >"$K/msg"
head -c 96 /dev/urandom >"$K/d96"   # whole blocks (CBC, ECB)
head -c 100 /dev/urandom >"$K/d100" # not (CFB, OFB, CTR)
printf '000102030405060708090a0b0c0d0e0f' | xxd -r -p >"$K/iv"

same_file() {
	if [ -s "$2" ] && cmp -s "$2" "$3"; then ok "$1"; else bad "$1"; fi
}

# The names getcap prints, one per line, sorted
names_of() {
	grep -oE '^[A-Za-z0-9_]+:' "$T/out" | tr -d ':' | sort
}

tpm_start
run "startup clear" tpm2_startup -c

# --- what the TPM says it has
run "getcap algorithms" tpm2_getcap algorithms
names_of >"$K/algs"
for a in camellia tdes kdf2 aes cmac; do
	grep -qx "$a" "$K/algs" && ok "lists $a" || bad "lists $a"
done
run "getcap ecc-curves" tpm2_getcap ecc-curves
names_of >"$K/curves"
grep -qx TPM2_ECC_NIST_P521 "$K/curves" && ok "lists P-521" || bad "lists P-521"
if [ "$TPM_IMPL" = pqtpm ]; then
	# wolfSSL 5.5.4 has neither SM2/SM3/SM4 nor BN curves
	for a in sm2 sm3_256 sm4; do
		grep -qx "$a" "$K/algs" && bad "does not list $a" || ok "does not list $a"
	done
	# all three Camellia key sizes of Part 2 (libtpms has 128 and 256)
	run "testparms camellia192" tpm2_testparms camellia192
	check_eq "curves: exactly P-256, P-384, P-521" \
		"TPM2_ECC_NIST_P256 TPM2_ECC_NIST_P384 TPM2_ECC_NIST_P521" \
		"$(tr '\n' ' ' <"$K/curves" | sed 's/ $//')"
fi
for spec in ecc521 ecc521:ecdh ecc521:ecdsa-sha512 camellia camellia128cfb \
	camellia256cbc ecc256:null:camellia128cfb rsa2048:null:camellia256cfb \
	ecc521:null:camellia256cfb; do
	run "testparms $spec" tpm2_testparms "$spec"
done

# --- P-521: a storage primary, an ECDSA key, signatures checked by openssl
run "createprimary ecc521" tpm2_createprimary -C o -G ecc521 -c "$K/p.ctx"
for g in sha256 sha512; do
	run "create an ECDSA-$g P-521 key" tpm2_create -C "$K/p.ctx" -G "ecc521:ecdsa-$g" \
		-u "$K/s.pub" -r "$K/s.priv" -c "$K/s.ctx"
	run "its public key as PEM" tpm2_readpublic -c "$K/s.ctx" -f pem -o "$K/s.pem"
	run "sign with $g" tpm2_sign -c "$K/s.ctx" -g "$g" -f plain -o "$K/sig.$g" "$K/msg"
	run "openssl verifies the $g signature" openssl dgst -"$g" -verify "$K/s.pem" \
		-signature "$K/sig.$g" "$K/msg"
done
run "verifysignature in the TPM" tpm2_sign -c "$K/s.ctx" -g sha512 -o "$K/sig.tss" "$K/msg"
run "tpm2_verifysignature" tpm2_verifysignature -c "$K/s.ctx" -g sha512 -m "$K/msg" \
	-s "$K/sig.tss"

# --- P-521 ECDH: ZGen with openssl's key, against openssl's derive
run "create an ECDH P-521 key" tpm2_create -C "$K/p.ctx" -G ecc521:ecdh -u "$K/e.pub" \
	-r "$K/e.priv" -c "$K/e.ctx"
run "its public key as PEM" tpm2_readpublic -c "$K/e.ctx" -f pem -o "$K/e.pem"
run "openssl: a P-521 key" openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-521 \
	-out "$K/peer.key"
run "openssl: its public key" openssl pkey -in "$K/peer.key" -pubout -outform DER \
	-out "$K/peer.der"
# SubjectPublicKeyInfo ends with the uncompressed point 04 || x || y (66 bytes each):
# TPM2B_ECC_POINT is size || (66 || x) || (66 || y)
tail -c 132 "$K/peer.der" >"$K/peer.xy"
{
	printf '\x00\x88\x00\x42'
	head -c 66 "$K/peer.xy"
	printf '\x00\x42'
	tail -c 66 "$K/peer.xy"
} >"$K/peer.pt"
run "ecdhzgen with openssl's point" tpm2_ecdhzgen -c "$K/e.ctx" -u "$K/peer.pt" -o "$K/z.pt"
run "openssl derive" openssl pkeyutl -derive -inkey "$K/peer.key" -peerkey "$K/e.pem" \
	-out "$K/z.ossl"
tail -c +5 "$K/z.pt" | head -c 66 >"$K/z.x"
check_eq "the same Z.x" "$(hex_of "$K/z.ossl")" "$(hex_of "$K/z.x")"
run "ecdhkeygen" tpm2_ecdhkeygen -c "$K/e.ctx" -u "$K/q.pt" -o "$K/z2.pt"
check_eq "KeyGen's point and Z are P-521's (2 + 2 x (2 + 66) bytes)" "138 138" \
	"$(stat -c %s "$K/q.pt") $(stat -c %s "$K/z2.pt")"

# --- a session salted with the P-521 key
run "startauthsession salted with P-521" tpm2_startauthsession -S "$K/sess.ctx" --hmac-session \
	-c "$K/p.ctx"
run "getrandom in it" tpm2_getrandom -S "$K/sess.ctx" -o "$K/rand" 16
run "flush it" tpm2_flushcontext "$K/sess.ctx"

# --- a P-521 AK: quote, checked by tpm2_checkquote
AK_ATTRS="fixedtpm|fixedparent|sensitivedataorigin|userwithauth|restricted|sign"
run "create a restricted P-521 signing key" tpm2_create -C "$K/p.ctx" \
	-G ecc521:ecdsa-sha512:null -a "$AK_ATTRS" -u "$K/ak.pub" -r "$K/ak.priv" -c "$K/ak.ctx"
run "its public key as PEM" tpm2_readpublic -c "$K/ak.ctx" -f pem -o "$K/ak.pem" -n "$K/ak.name"
run "quote" tpm2_quote -c "$K/ak.ctx" -l sha256:0,1,16 -q 0badc0de -m "$K/q.msg" \
	-s "$K/q.sig" -o "$K/q.pcr" -g sha512
run "checkquote" tpm2_checkquote -u "$K/ak.pem" -m "$K/q.msg" -s "$K/q.sig" -f "$K/q.pcr" \
	-g sha512 -q 0badc0de

# --- duplicate a P-521 key to a P-521 parent (its seed by ECDH), import, sign
run "createprimary ecc521 (new parent)" tpm2_createprimary -C o -G ecc521 -g sha384 \
	-c "$K/np.ctx"
run "its public area" tpm2_readpublic -c "$K/np.ctx" -o "$K/np.pub"
policy_trial "$K" dup tpm2_policycommandcode TPM2_CC_Duplicate
run "create a duplicable P-521 key" tpm2_create -C "$K/p.ctx" -G ecc521:ecdsa-sha512 \
	-L "$K/dup.pol" -a "sensitivedataorigin|userwithauth|sign" -u "$K/d.pub" -r "$K/d.priv" \
	-c "$K/d.ctx"
run "load the new parent's public area" tpm2_loadexternal -C o -u "$K/np.pub" -c "$K/npx.ctx"
run "policy session" tpm2_startauthsession -S "$K/ps.ctx" --policy-session
run "policycommandcode Duplicate" tpm2_policycommandcode -S "$K/ps.ctx" TPM2_CC_Duplicate
run "duplicate" tpm2_duplicate -C "$K/npx.ctx" -c "$K/d.ctx" -G null -p "session:$K/ps.ctx" \
	-r "$K/dup.priv" -s "$K/dup.seed"
run "flush the policy session" tpm2_flushcontext "$K/ps.ctx"
run "import under the new parent" tpm2_import -C "$K/np.ctx" -u "$K/d.pub" -i "$K/dup.priv" \
	-r "$K/imp.priv" -s "$K/dup.seed"
run "load it" tpm2_load -C "$K/np.ctx" -u "$K/d.pub" -r "$K/imp.priv" -c "$K/imp.ctx"
run "sign with it" tpm2_sign -c "$K/imp.ctx" -g sha512 -f plain -o "$K/sig.imp" "$K/msg"
run "its public key as PEM" tpm2_readpublic -c "$K/imp.ctx" -f pem -o "$K/imp.pem"
run "openssl verifies" openssl dgst -sha512 -verify "$K/imp.pem" -signature "$K/sig.imp" \
	"$K/msg"

# --- Camellia: storage parents, sealing, keys in every mode
for spec in ecc256:null:camellia128cfb rsa2048:null:camellia256cfb ecc521:null:camellia256cfb; do
	n=${spec%%:*}
	run "createprimary $spec" tpm2_createprimary -C o -G "$spec" -c "$K/c$n.ctx"
	printf 'sealed under %s\n' "$spec" >"$K/seal.$n"
	run "seal under it" tpm2_create -C "$K/c$n.ctx" -i "$K/seal.$n" -u "$K/sl.pub" \
		-r "$K/sl.priv" -c "$K/sl.ctx"
	run "unseal" tpm2_unseal -c "$K/sl.ctx" -o "$K/unsealed"
	same_file "unsealed what was sealed under $spec" "$K/seal.$n" "$K/unsealed"
done
# every mode with Camellia-128, the stream and the block mode with Camellia-256
for bits in 128 256; do
	run "create a camellia$bits key" tpm2_create -C "$K/cecc256.ctx" -G "camellia$bits" \
		-u "$K/c.pub" -r "$K/c.priv" -c "$K/c$bits.ctx"
	modes="cfb ofb ctr cbc ecb"
	[ "$bits" = 128 ] || modes="cfb cbc"
	for m in $modes; do
		case $m in cbc | ecb) f=d96 ;; *) f=d100 ;; esac
		run "camellia$bits $m: encrypt" tpm2_encryptdecrypt -c "$K/c$bits.ctx" -G "$m" \
			-t "$K/iv" -o "$K/ct" "$K/$f"
		if cmp -s "$K/ct" "$K/$f"; then bad "camellia$bits $m: ciphertext differs"; else
			ok "camellia$bits $m: ciphertext differs"; fi
		run "camellia$bits $m: decrypt" tpm2_encryptdecrypt -d -c "$K/c$bits.ctx" -G "$m" \
			-t "$K/iv" -o "$K/pt" "$K/ct"
		same_file "camellia$bits $m: round trip" "$K/$f" "$K/pt"
	done
done
expect_fail "camellia cbc of 100 bytes (not whole blocks)" tpm2_encryptdecrypt \
	-c "$K/c128.ctx" -G cbc -t "$K/iv" -o "$K/ct" "$K/d100"

# --- a credential through a Camellia EK-style key (the TPM's MakeCredential)
run "createprimary (endorsement) ecc256 with Camellia" tpm2_createprimary -C e \
	-G ecc256:null:camellia128cfb -c "$K/ek.ctx"
run "its public area" tpm2_readpublic -c "$K/ek.ctx" -o "$K/ek.pub"
printf 'a Camellia credential' >"$K/cred"
run "makecredential (TPM)" tpm2_makecredential -e "$K/ek.pub" -s "$K/cred" \
	-n "$(hex_of "$K/ak.name")" -o "$K/mc"
run "activatecredential" tpm2_activatecredential -c "$K/ak.ctx" -C "$K/ek.ctx" -i "$K/mc" \
	-o "$K/cred.out"
same_file "the credential came back" "$K/cred" "$K/cred.out"
finish
