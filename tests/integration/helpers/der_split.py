#!/usr/bin/env python3
"""der_split.py CERT.der TBS.out SIG.out: the TBSCertificate (its whole DER) and the signature
(the BIT STRING's content) of an X.509 certificate, for checking a signature with openssl dgst
when openssl cannot decode the certificate's key. Refuses anything that is not
SEQUENCE { SEQUENCE, SEQUENCE, BIT STRING } to its last byte."""
import sys


def tlv(buf, off):
    """(tag, header length, content length) of the value at off"""
    if off + 2 > len(buf):
        raise ValueError("truncated")
    tag, first = buf[off], buf[off + 1]
    if first < 0x80:
        return tag, 2, first
    n = first & 0x7F
    if n == 0 or n > 3 or off + 2 + n > len(buf):
        raise ValueError("bad length")
    return tag, 2 + n, int.from_bytes(buf[off + 2:off + 2 + n], "big")


def main():
    cert = open(sys.argv[1], "rb").read()
    tag, hl, cl = tlv(cert, 0)
    if tag != 0x30 or hl + cl != len(cert):
        raise ValueError("not one SEQUENCE")
    off, parts = hl, []
    while off < len(cert):
        t, h, c = tlv(cert, off)
        if off + h + c > len(cert):
            raise ValueError("truncated element")
        parts.append((t, cert[off:off + h + c], cert[off + h:off + h + c]))
        off += h + c
    if [p[0] for p in parts] != [0x30, 0x30, 0x03] or parts[2][2][:1] != b"\0":
        raise ValueError("not a certificate")
    open(sys.argv[2], "wb").write(parts[0][1])
    open(sys.argv[3], "wb").write(parts[2][2][1:])


if __name__ == "__main__":
    main()
