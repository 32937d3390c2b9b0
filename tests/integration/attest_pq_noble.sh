#!/bin/bash
# ML-DSA quote signatures of pqtpm-attest checked by an independent implementation,
# @noble/post-quantum (pinned in tests/crosscheck/package-lock.json): for ML-DSA-44/65/87 AKs,
# quotes made by pqtpm-attest on an embedded TPM; noble verifies each signature (FIPS 204 pure,
# empty context) over exactly the TPMS_ATTEST bytes of the evidence, with the public key from the
# evidence's AK, and refuses it when one byte of the structure or of the signature is flipped.
set -eu
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

A="$BUILD_DIR/bin/pqtpm-attest"
H="$(dirname "$0")/helpers"
xdir=$ROOT_DIR/tests/crosscheck
NONCE=0f1e2d3c4b5a69788796a5b4c3d2e1f0
export PQTPM_STATE_DIR=$T/state

if ! command -v node >/dev/null; then
	bad "node not found"
	finish
fi
if [ ! -d "$xdir/node_modules/@noble/post-quantum" ]; then
	if ! (cd "$xdir" && npm ci --no-audit --no-fund) >"$T/npm.log" 2>&1; then
		bad "npm ci in tests/crosscheck"
		show_tail "$T/npm.log"
		finish
	fi
fi

# noble NAME WANT EVIDENCE [CHANGE]: noble's verdict (ok or FAIL) on the evidence's quote
noble() {
	local line got
	if ! line=$(python3 "$H/mldsa_quote.py" "$3" ${4:+"$4"} 2>"$T/err"); then
		bad "$1 (mldsa_quote.py)"
		show_tail "$T/err"
		return 0
	fi
	# shellcheck disable=SC2086 # SET PK ATTEST SIG NONCE, five hex words
	got=$(cd "$xdir" && node pq.mjs attest $line 8018 2>"$T/err") || true
	check_eq "$1" "$2" "$got"
}

for alg in mldsa44 mldsa65 mldsa87; do
	run "ak create $alg" "$A" ak create --alg "$alg" --out "$T/ak_$alg.json"
	run "quote $alg" "$A" quote --ak "$T/ak_$alg.json" --nonce "$NONCE" \
		--pcrs sha256:0,7,16+sha1:0 --out "$T/ev_$alg.json"
	run "pqtpm-attest verify $alg" "$A" verify --evidence "$T/ev_$alg.json" \
		--ak-public "$T/ak_$alg.json" --nonce "$NONCE"
	noble "$alg: noble verifies the quote's signature" ok "$T/ev_$alg.json"
	noble "$alg: noble refuses a flipped TPMS_ATTEST byte" FAIL "$T/ev_$alg.json" flip-attest
	noble "$alg: noble refuses a flipped signature byte" FAIL "$T/ev_$alg.json" flip-signature
done

finish
