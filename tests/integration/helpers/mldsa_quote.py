#!/usr/bin/env python3
"""mldsa_quote.py EVIDENCE.json [flip-attest|flip-signature]: from pqtpm-attest evidence of a pure
ML-DSA AK, one line `SET PK ATTEST SIG NONCE` (hex; SET 1, 2, 3 for ML-DSA-44/65/87) for
`node pq.mjs attest`, which knows nothing of pqtpm. PK is the AK public area's unique (its last
TPM2B), SIG the TPM2B of the TPMT_SIGNATURE {TPM_ALG_MLDSA, TPM2B}. With flip-attest, the last
byte of the TPMS_ATTEST (inside the PCR digest) is inverted; with flip-signature, the signature's
middle byte. Refuses anything else than a pure ML-DSA key and signature of a known size."""
import base64
import json
import struct
import sys

TPM_ALG_MLDSA = 0x00A1
SETS = {1312: 1, 1952: 2, 2592: 3}  # public key size -> FIPS 204 parameter set
NAMES = {1: "mldsa44", 2: "mldsa65", 3: "mldsa87"}


def unb64url(s):
    return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))


def main():
    ev = json.load(open(sys.argv[1]))
    pub = unb64url(ev["ak"]["public"])
    if struct.unpack(">H", pub[:2])[0] != TPM_ALG_MLDSA:
        raise ValueError("the AK is not a pure ML-DSA key")
    for size, st in SETS.items():
        if len(pub) > size + 2 and struct.unpack(">H", pub[-size - 2:-size])[0] == size:
            pk, param_set = pub[-size:], st
            break
    else:
        raise ValueError("no ML-DSA public key at the end of the AK's public area")
    if ev["ak"]["alg"] != NAMES[param_set]:
        raise ValueError("ak.alg %s for a key of set %d" % (ev["ak"]["alg"], param_set))
    q = ev["quotes"][0]
    attest = bytearray(unb64url(q["attest"]))
    sig = unb64url(q["signature"])
    alg, n = struct.unpack(">HH", sig[:4])
    if alg != TPM_ALG_MLDSA or len(sig) != 4 + n:
        raise ValueError("not a TPMT_SIGNATURE {TPM_ALG_MLDSA, TPM2B}")
    sig = bytearray(sig[4:])
    what = sys.argv[2] if len(sys.argv) > 2 else ""
    if what == "flip-attest":
        attest[-1] ^= 0xFF
    elif what == "flip-signature":
        sig[len(sig) // 2] ^= 0xFF
    elif what:
        raise ValueError("unknown change %s" % what)
    print(param_set, pk.hex(), attest.hex(), sig.hex(), ev["nonce"])


if __name__ == "__main__":
    main()
