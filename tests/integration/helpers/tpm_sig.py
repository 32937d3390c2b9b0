#!/usr/bin/env python3
"""tpm_sig.py EVIDENCE.json OUTDIR: from pqtpm-attest evidence, the quote's TPMS_ATTEST
(OUTDIR/attest.bin), its TPMT_SIGNATURE (OUTDIR/sig.tss) and the signature as openssl dgst
-verify takes it (OUTDIR/sig.openssl: RSA's bytes, ECDSA's DER Ecdsa-Sig-Value), for checking
the quote with tools that know nothing of pqtpm. Refuses signatures it does not know."""
import base64
import json
import struct
import sys


def unb64url(s):
    return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))


def der_len(n):
    # short form below 128; P-521's Ecdsa-Sig-Value (up to 139 bytes) needs the long one
    return bytes([n]) if n < 0x80 else b"\x81" + bytes([n])


def der_int(b):
    b = b.lstrip(b"\0") or b"\0"
    if b[0] & 0x80:
        b = b"\0" + b
    return b"\x02" + der_len(len(b)) + b


def main():
    ev = json.load(open(sys.argv[1]))
    q = ev["quotes"][0]
    attest, sig = unb64url(q["attest"]), unb64url(q["signature"])
    alg, = struct.unpack(">H", sig[:2])
    if alg in (0x14, 0x16):  # RSASSA, RSAPSS: hash, TPM2B
        n, = struct.unpack(">H", sig[4:6])
        raw = sig[6:6 + n]
    elif alg == 0x18:  # ECDSA: hash, TPM2B r, TPM2B s
        rn, = struct.unpack(">H", sig[4:6])
        r = sig[6:6 + rn]
        sn, = struct.unpack(">H", sig[6 + rn:8 + rn])
        s = sig[8 + rn:8 + rn + sn]
        body = der_int(r) + der_int(s)
        raw = b"\x30" + der_len(len(body)) + body
    else:
        raise ValueError("signature algorithm 0x%04x" % alg)
    open(sys.argv[2] + "/attest.bin", "wb").write(attest)
    open(sys.argv[2] + "/sig.tss", "wb").write(sig)
    open(sys.argv[2] + "/sig.openssl", "wb").write(raw)


if __name__ == "__main__":
    main()
