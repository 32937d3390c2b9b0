#!/bin/bash
# pqtpm-attest import: evidence from tpm2_quote's files (-m -s -o) verifies with pqtpm-attest
# verify, for RSA, ECC P-256 and P-521 AKs made by tpm2_createak (P-521 under tpm2_createek's
# P-521 EK, the EK Credential Profile's high-range template H-4; its AK with ECDSA-SHA512 and
# nameAlg SHA-512, and with tpm2_createak's default ECDSA-SHA256), against pqtpm-server and
# against Debian's swtpm; openssl verifies the P-521 quote signatures too; a wrong nonce, a
# changed PCR value or AK are invalid (exit 1); PCR files that are truncated, too long or with
# stray bytes are refused (exit 2).
set -eu
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

A="$BUILD_DIR/bin/pqtpm-attest"
H="$(dirname "$0")/helpers"
K=$T/k
mkdir -p "$K"
NONCE=a1b2c3d4e5f60718293a4b5c6d7e8f90

rc_is() {
	local n=$1 want=$2 got=0
	shift 2
	"$A" "$@" >"$T/out" 2>"$T/err" || got=$?
	if [ "$got" = "$want" ]; then ok "$n"; else bad "$n (exit $got, want $want)"; show_tail "$T/err"; fi
}

# quotes IMPL: AKs under tpm2_createek's EKs, quotes of sha256:0,16+sha1:16. Each case is
# NAME:ALG:SCHEME:HASH, ALG the EK's and the AK's -G, HASH the AK's -g and the quote's.
quotes() {
	local impl=$1 c a alg scheme h
	TPM_IMPL=$impl tpm_start "$T/state-$impl"
	[ "$impl" = pqtpm ] && run "startup ($impl)" tpm2_startup -c
	run "extend PCR 16 ($impl)" tpm2_pcrextend \
		16:sha256=$(printf 'boot' | sha256sum | cut -c1-64),sha1=$(printf 'boot' | sha1sum | cut -c1-40)
	for c in rsa:rsa:rsassa:sha256 ecc:ecc:ecdsa:sha256 ecc521:ecc521:ecdsa:sha512 \
		ecc521-sha256:ecc521:ecdsa:sha256; do
		IFS=: read -r a alg scheme h <<<"$c"
		local d=$K/$impl-$a
		mkdir -p "$d"
		# swtpm has no resource manager: every transient object and session is flushed
		run "createek $alg ($impl)" tpm2_createek -c "$d/ek.ctx" -G "$alg" -u "$d/ek.pub"
		run "flush the EK ($impl)" tpm2_flushcontext -t
		run "createak $a ($impl)" tpm2_createak -C "$d/ek.ctx" -c "$d/ak.ctx" -G "$alg" -g "$h" \
			-s "$scheme" -u "$d/ak.pub"
		run "flush the AK and sessions ($impl)" sh -c 'tpm2_flushcontext -t && tpm2_flushcontext -s'

		run "quote $a ($impl)" tpm2_quote -c "$d/ak.ctx" -l sha256:0,16+sha1:16 -q "$NONCE" \
			-m "$d/q.msg" -s "$d/q.sig" -o "$d/q.pcrs" -g "$h"
		run "flush ($impl)" tpm2_flushcontext -t
		run "import $a ($impl)" "$A" import --message "$d/q.msg" --signature "$d/q.sig" \
			--pcrs "$d/q.pcrs" --nonce "$NONCE" --ak-public "$d/ak.pub" --out "$d/ev.json"
		run "verify $a ($impl)" "$A" verify --evidence "$d/ev.json" --ak-public "$d/ak.pub" \
			--nonce "$NONCE" --out "$d/res.json"
		check_eq "$a ($impl): valid" true "$(jq -r .valid "$d/res.json")"
		if [ "$alg" = ecc521 ]; then
			check_eq "$a ($impl): the evidence names the AK ecc-p521" ecc-p521 \
				"$(jq -r .ak.alg "$d/ev.json")"
			run "split the $a evidence ($impl)" python3 "$H/tpm_sig.py" "$d/ev.json" "$d"
			if cmp -s "$d/attest.bin" "$d/q.msg"; then ok "$a ($impl): the evidence quotes tpm2_quote's message"; else bad "$a ($impl): the evidence quotes tpm2_quote's message"; fi
			run "AK $a to PEM by tpm2_print ($impl)" tpm2_print -t TPM2B_PUBLIC -f pem "$d/ak.pub"
			cp "$T/out" "$d/ak.pem"
			run "openssl verifies the $a quote ($impl)" openssl dgst "-$h" -verify "$d/ak.pem" \
				-signature "$d/sig.openssl" "$d/attest.bin"
		fi
		check_eq "$a ($impl): PCR 16 as extended" \
			"$(python3 -c 'import hashlib; print(hashlib.sha256(bytes(32) + hashlib.sha256(b"boot").digest()).hexdigest())')" \
			"$(jq -r '.claims.pcrs.sha256."16"' "$d/res.json")"
		rc_is "$a ($impl): a wrong nonce is invalid" 1 verify --evidence "$d/ev.json" \
			--ak-public "$d/ak.pub" --nonce 00b2c3d4e5f60718293a4b5c6d7e8f90
		jq '.pcrs.sha256."0" = "'"$(printf '1%.0s' {1..64})"'"' "$d/ev.json" >"$d/ev_pcr.json"
		rc_is "$a ($impl): a changed PCR value is invalid" 1 verify --evidence "$d/ev_pcr.json" \
			--ak-public "$d/ak.pub" --nonce "$NONCE"
		check_eq "$a ($impl): pcr-digest" pcr-digest "$(jq -r '.failures[0].check' "$T/out")"
	done
	rc_is "another AK ($impl) is invalid" 1 verify --evidence "$K/$impl-rsa/ev.json" \
		--ak-public "$K/$impl-ecc/ak.pub" --nonce "$NONCE"
	rc_is "another P-521 AK ($impl) is invalid" 1 verify --evidence "$K/$impl-ecc521/ev.json" \
		--ak-public "$K/$impl-ecc521-sha256/ak.pub" --nonce "$NONCE"
	if jq -e '[.failures[].check] | index("ak-mismatch") and index("signature")' "$T/out" \
		>/dev/null; then ok "another P-521 AK ($impl): ak-mismatch and signature"; else bad "another P-521 AK ($impl): ak-mismatch and signature"; fi
	TPM_IMPL=$impl tpm_stop
}

quotes pqtpm
if command -v swtpm >/dev/null; then
	quotes swtpm
else
	bad "swtpm is not installed (make deps)"
fi

# the PCR file parsed strictly
d=$K/pqtpm-ecc
head -c 600 "$d/q.pcrs" >"$K/short.pcrs"
cp "$d/q.pcrs" "$K/long.pcrs" && printf '\0' >>"$K/long.pcrs"
python3 - "$d/q.pcrs" "$K/stray.pcrs" "$K/size.pcrs" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
s = bytearray(b)
s[4 + 15 * 8] = 1          # a byte in the last, unused selection
open(sys.argv[2], "wb").write(s)
z = bytearray(b)
z[136 + 4] = 31            # the first value's size is not SHA-256's
open(sys.argv[3], "wb").write(z)
PY
for f in short long stray size; do
	rc_is "a $f PCR file is refused (exit 2)" 2 import --message "$d/q.msg" \
		--signature "$d/q.sig" --pcrs "$K/$f.pcrs" --nonce "$NONCE" --ak-public "$d/ak.pub" \
		--out "$K/x.json"
	grep -q "PCR file" "$T/err" && ok "the message names the PCR file ($f)" || bad "the message names the PCR file ($f)"
done
finish
