#!/usr/bin/python3
"""The PKCS#11 module driven by PyKCS11 (Debian's python3-pykcs11) as a Python application
drives it. Run by pkcs11_pykcs11.sh (which gives the environment naming the TPM, and runs it
twice: the embedded engine and a pqtpm-server):

    pkcs11_pykcs11.py MODULE

It starts from a store without tokens: the slot list and token info, C_InitToken, C_InitPIN,
C_Login / C_Logout / C_SetPIN and their errors; key pairs RSA-2048/3072, EC P-256 / P-384,
ML-DSA-44/65/87 and ML-KEM-512/768/1024 (PyKCS11 knows no PKCS#11 3.2 constant: raw numbers);
every mechanism that C_GetMechanismList lists, used as C_GetMechanismInfo's flags say with
keys of the sizes it gives, against values computed here where Python has them (RSA PKCS#1
v1.5 and PSS signatures checked and OAEP ciphertexts made by RSA arithmetic here, HMAC by
Python's hmac, the ECDH KDF by hashlib, AES against SP 800-38A's vectors, HashML-DSA of a
digest hashlib computed against the module's HashML-DSA of the message); secret keys
generated; digests without a login; C_FindObjects with templates; C_GetAttributeValue's rules
as PyKCS11 passes them through; C_DestroyObject; the errors the specification names for bad
input. ML-KEM's encapsulation is a 3.2 function, which PyKCS11 cannot call. Prints one line per
check and closes with `N passed, M failed`; exits 1 on any failure."""
import ctypes
import hashlib
import hmac
import os
import struct
import subprocess
import sys

import PyKCS11
from PyKCS11 import LowLevel
from PyKCS11 import *  # noqa: F401,F403 (the CK* constants)

# PKCS#11 3.2 (OASIS), unknown to PyKCS11 1.5
CKM_ML_KEM_KEY_PAIR_GEN = 0x0F
CKM_ML_KEM = 0x17
CKM_ML_DSA_KEY_PAIR_GEN = 0x1C
CKM_ML_DSA = 0x1D
CKM_HASH_ML_DSA = 0x1F
CKM_HASH_ML_DSA_SHA256, CKM_HASH_ML_DSA_SHA384, CKM_HASH_ML_DSA_SHA512 = 0x24, 0x25, 0x26
CKK_ML_KEM = 0x49
CKK_ML_DSA = 0x4A
CKA_PARAMETER_SET = 0x61D
CKA_ENCAPSULATE, CKA_DECAPSULATE = 0x633, 0x634
CKF_ENCAPSULATE, CKF_DECAPSULATE = 0x10000000, 0x20000000
CKH_HEDGE_PREFERRED, CKH_DETERMINISTIC_REQUIRED = 0, 2
MLDSA_SIZES = {1: (1312, 2420), 2: (1952, 3309), 3: (2592, 4627)}  # public key, signature
MLKEM_SIZES = {1: 800, 2: 1184, 3: 1568}  # encapsulation key

SO_PIN, PIN, PIN2 = "so-secret", "123456", "654321"
P256_OID = bytes.fromhex("06082a8648ce3d030107")
P384_OID = bytes.fromhex("06052b81040022")
# C_InitToken's label is 32 bytes, blank-padded: PyKCS11 passes the string as it is given
LABEL = "pykcs11".ljust(32)
MSG = b"a message signed through PyKCS11 by a key in the TPM"

passed = failed = 0


def ok(name):
    global passed
    passed += 1
    print("ok   " + name)


def bad(name, why=""):
    global failed
    failed += 1
    print("FAIL " + name + (": " + why if why else ""))


def check(name, cond, why=""):
    (ok if cond else lambda n: bad(n, why))(name)


def rv_name(rv):
    return PyKCS11.CKR.get(rv, hex(rv)) if isinstance(rv, int) else str(rv)


def expect_rv(name, want, fn, *args):
    """fn(*args) must raise PyKCS11Error(want), or return want (low-level calls)."""
    try:
        got = fn(*args)
        if not isinstance(got, int) or isinstance(got, bool):
            got = CKR_OK
    except PyKCS11.PyKCS11Error as e:
        got = e.value
    check(name, got == want, "wanted %s, got %s" % (rv_name(want), rv_name(got)))


def attempt(name, fn, *args):
    """fn(*args) must succeed: its result, or None after a failure."""
    try:
        r = fn(*args)
        ok(name)
        return r
    except PyKCS11.PyKCS11Error as e:
        bad(name, str(e))
        return None


def ulong(v):
    return struct.pack("L", v)  # CK_ULONG: native size and order


def hval(h):
    return h.value()


def obj(session, value):
    h = PyKCS11.CK_OBJECT_HANDLE(session)
    h.assign(value)
    return h


# ---- the RSA arithmetic, to check the module's signatures and decryption independently ----

HASHES = {CKM_SHA_1: hashlib.sha1, CKM_SHA256: hashlib.sha256, CKM_SHA384: hashlib.sha384,
          CKM_SHA512: hashlib.sha512}
MGFS = {CKM_SHA_1: CKG_MGF1_SHA1, CKM_SHA256: CKG_MGF1_SHA256, CKM_SHA384: CKG_MGF1_SHA384,
        CKM_SHA512: CKG_MGF1_SHA512}
DIGEST_INFO = {  # RFC 8017 section 9.2, note 1
    CKM_SHA_1: "3021300906052b0e03021a05000414",
    CKM_SHA256: "3031300d060960864801650304020105000420",
    CKM_SHA384: "3041300d060960864801650304020205000430",
    CKM_SHA512: "3051300d060960864801650304020305000440",
}


def mgf1(seed, n, h):
    out, c = b"", 0
    while len(out) < n:
        out += h(seed + c.to_bytes(4, "big")).digest()
        c += 1
    return out[:n]


def xor(a, b):
    return bytes(x ^ y for x, y in zip(a, b))


def rsa_open(pub, sig):
    n, e = pub
    k = (n.bit_length() + 7) // 8
    return pow(int.from_bytes(bytes(sig), "big"), e, n).to_bytes(k, "big")


def pkcs1_v15_ok(pub, hmech, msg_digest, sig):
    t = bytes.fromhex(DIGEST_INFO[hmech]) + msg_digest
    k = (pub[0].bit_length() + 7) // 8
    return rsa_open(pub, sig) == b"\x00\x01" + b"\xff" * (k - 3 - len(t)) + b"\x00" + t


def pss_ok(pub, hmech, msg_digest, sig, slen):
    h = HASHES[hmech]
    hl = h().digest_size
    em_bits = pub[0].bit_length() - 1
    em_len = (em_bits + 7) // 8
    em = rsa_open(pub, sig)[-em_len:]
    if em[-1] != 0xBC:
        return False
    masked, hh = em[:em_len - hl - 1], em[em_len - hl - 1:-1]
    db = bytearray(xor(masked, mgf1(hh, len(masked), h)))
    db[0] &= 0xFF >> (8 * em_len - em_bits)
    ps_len = em_len - hl - slen - 2
    if any(db[:ps_len]) or db[ps_len] != 1:
        return False
    salt = bytes(db[-slen:]) if slen else b""
    return h(b"\x00" * 8 + msg_digest + salt).digest() == hh


def oaep_encrypt(pub, msg, hmech, label=b""):
    n, e = pub
    h = HASHES[hmech]
    hl = h().digest_size
    k = (n.bit_length() + 7) // 8
    db = h(label).digest() + b"\x00" * (k - len(msg) - 2 * hl - 2) + b"\x01" + msg
    seed = os.urandom(hl)
    masked_db = xor(db, mgf1(seed, k - hl - 1, h))
    em = b"\x00" + xor(seed, mgf1(masked_db, hl, h)) + masked_db
    return pow(int.from_bytes(em, "big"), e, n).to_bytes(k, "big")


# ---- the test ----

class Token:
    """The library, the token's slot, and what the checks made: keys, RSA public values."""

    def __init__(self, lib, slot):
        self.lib, self.slot = lib, slot
        self.keys = {}  # name -> (public handle, private handle)
        self.rsa = {}  # bits -> (n, e)
        self.digests = []  # the digest mechanisms listed


def ml_dsa_context(ctx, hedge=CKH_HEDGE_PREFERRED):
    """A CK_SIGN_ADDITIONAL_CONTEXT as bytes, its pointer into a buffer kept with it."""
    buf = ctypes.create_string_buffer(ctx, len(ctx))
    return struct.pack("LPL", hedge, ctypes.addressof(buf) if ctx else 0, len(ctx)), buf


def hash_ml_dsa_context(hash_mech, ctx, hedge=CKH_HEDGE_PREFERRED):
    """A CK_HASH_SIGN_ADDITIONAL_CONTEXT as bytes, its pointer into a buffer kept with it."""
    buf = ctypes.create_string_buffer(ctx, len(ctx))
    return struct.pack("LPLL", hedge, ctypes.addressof(buf) if ctx else 0, len(ctx),
                       hash_mech), buf


def slots_and_tokens(lib):
    info = lib.getInfo()
    # PyKCS11 calls through C_GetFunctionList's list, whose C_GetInfo tells that list's version
    check("C_GetInfo: Cryptoki 2.40, the version of PyKCS11's function list",
          info.cryptokiVersion == (2, 40), str(info.cryptokiVersion))
    check("C_GetInfo: the manufacturer", info.manufacturerID.strip() == "pqtpm",
          info.manufacturerID)
    slots = lib.getSlotList()
    check("one slot before any token", len(slots) == 1, str(slots))
    check("its token is present", lib.getSlotList(tokenPresent=True) == slots)
    ti = lib.getTokenInfo(slots[0])
    check("the empty slot's token is not initialized", not ti.flags & CKF_TOKEN_INITIALIZED,
          ti.flags2text())
    si = lib.getSlotInfo(slots[0])
    check("C_GetSlotInfo: a token present", si.flags & CKF_TOKEN_PRESENT, si.flags2text())
    expect_rv("C_GetTokenInfo of a slot that does not exist", CKR_SLOT_ID_INVALID,
              lib.getTokenInfo, 0x7777)
    expect_rv("C_InitToken with a PIN too short", CKR_PIN_LEN_RANGE, lib.initToken, slots[0],
              "so", LABEL)
    attempt("C_InitToken", lib.initToken, slots[0], SO_PIN, LABEL)
    after = lib.getSlotList()
    check("a new empty slot appeared", len(after) == 2 and slots[0] in after, str(after))
    ti = lib.getTokenInfo(slots[0])
    check("the token has its label", ti.label.strip() == "pykcs11", repr(ti.label))
    check("CKF_TOKEN_INITIALIZED and CKF_LOGIN_REQUIRED",
          ti.flags & CKF_TOKEN_INITIALIZED and ti.flags & CKF_LOGIN_REQUIRED, ti.flags2text())
    check("no user PIN yet", not ti.flags & CKF_USER_PIN_INITIALIZED, ti.flags2text())
    return slots[0]


def pins(lib, slot):
    s = lib.openSession(slot, CKF_SERIAL_SESSION | CKF_RW_SESSION)
    check("a R/W public session",
          s.getSessionInfo().state == CKS_RW_PUBLIC_SESSION, str(s.getSessionInfo()))
    expect_rv("C_Login as the user before C_InitPIN", CKR_USER_PIN_NOT_INITIALIZED, s.login, PIN)
    expect_rv("C_InitPIN without the SO logged in", CKR_USER_NOT_LOGGED_IN, s.initPin, PIN)
    attempt("C_Login as the SO", s.login, SO_PIN, CKU_SO)
    check("a R/W SO session", s.getSessionInfo().state == CKS_RW_SO_FUNCTIONS)
    attempt("C_InitPIN", s.initPin, PIN)
    expect_rv("C_Login as the user while the SO is", CKR_USER_ANOTHER_ALREADY_LOGGED_IN,
              s.login, PIN)
    attempt("C_Logout of the SO", s.logout)
    check("the token says the user PIN is set",
          lib.getTokenInfo(slot).flags & CKF_USER_PIN_INITIALIZED)
    expect_rv("C_Logout when nobody is logged in", CKR_USER_NOT_LOGGED_IN, s.logout)
    expect_rv("a wrong user PIN", CKR_PIN_INCORRECT, s.login, "000000")
    check("CKF_USER_PIN_COUNT_LOW after it",
          lib.getTokenInfo(slot).flags & CKF_USER_PIN_COUNT_LOW,
          lib.getTokenInfo(slot).flags2text())
    attempt("C_Login as the user", s.login, PIN)
    check("a R/W user session", s.getSessionInfo().state == CKS_RW_USER_FUNCTIONS)
    expect_rv("C_Login twice", CKR_USER_ALREADY_LOGGED_IN, s.login, PIN)
    attempt("C_SetPIN", s.setPin, PIN, PIN2)
    attempt("C_Logout", s.logout)
    # the second wrong PIN of the TPM's three (pkcs11_tools.sh goes on to the lockout)
    expect_rv("the old PIN no longer logs in", CKR_PIN_INCORRECT, s.login, PIN)
    check("CKF_USER_PIN_FINAL_TRY after it",
          lib.getTokenInfo(slot).flags & CKF_USER_PIN_FINAL_TRY,
          lib.getTokenInfo(slot).flags2text())
    attempt("the new one does", s.login, PIN2)
    attempt("C_SetPIN back", s.setPin, PIN2, PIN)
    ro = lib.openSession(slot, CKF_SERIAL_SESSION)
    check("a second (read-only) session shares the login",
          ro.getSessionInfo().state == CKS_RO_USER_FUNCTIONS, str(ro.getSessionInfo()))
    expect_rv("C_InitToken while sessions are open", CKR_SESSION_EXISTS, lib.initToken, slot,
              SO_PIN, LABEL)
    ro.closeSession()
    return s


def keygen(t, s):
    tok = (CKA_TOKEN, CK_TRUE)
    yes, no = CK_TRUE, CK_FALSE
    # name, mechanism, public template, private template (beyond token, label, id, private)
    specs = [
        ("RSA-2048", CKM_RSA_PKCS_KEY_PAIR_GEN,
         [(CKA_MODULUS_BITS, 2048), (CKA_ENCRYPT, yes), (CKA_VERIFY, yes)],
         [(CKA_DECRYPT, yes), (CKA_SIGN, yes)]),
        ("RSA-3072", CKM_RSA_PKCS_KEY_PAIR_GEN,
         [(CKA_MODULUS_BITS, 3072), (CKA_ENCRYPT, yes), (CKA_VERIFY, yes)],
         [(CKA_DECRYPT, yes), (CKA_SIGN, yes)]),
        ("P-256", CKM_EC_KEY_PAIR_GEN, [(CKA_EC_PARAMS, P256_OID), (CKA_VERIFY, yes)],
         [(CKA_DERIVE, yes), (CKA_SIGN, yes)]),
        ("P-256 peer", CKM_EC_KEY_PAIR_GEN, [(CKA_EC_PARAMS, P256_OID), (CKA_VERIFY, yes)],
         [(CKA_DERIVE, yes), (CKA_SIGN, no)]),
        ("P-384", CKM_EC_KEY_PAIR_GEN, [(CKA_EC_PARAMS, P384_OID), (CKA_VERIFY, yes)],
         [(CKA_SIGN, yes)]),
    ]
    for p in (1, 2, 3):
        specs.append(("ML-DSA set %d" % p, CKM_ML_DSA_KEY_PAIR_GEN,
                      [(CKA_PARAMETER_SET, ulong(p)), (CKA_VERIFY, yes)], [(CKA_SIGN, yes)]))
    for p in (1, 2, 3):
        specs.append(("ML-KEM set %d" % p, CKM_ML_KEM_KEY_PAIR_GEN,
                      [(CKA_PARAMETER_SET, ulong(p))], []))
    for i, (name, mech, pub_t, priv_t) in enumerate(specs):
        label, kid = "py " + name, bytes([0x40 + i])
        common = [tok, (CKA_LABEL, label), (CKA_ID, kid)]
        r = attempt("C_GenerateKeyPair " + name, s.generateKeyPair, common + pub_t,
                    common + [(CKA_PRIVATE, yes)] + priv_t, Mechanism(mech))
        if r:
            t.keys[name] = r
    for bits in (2048, 3072):
        pub, priv = t.keys["RSA-%d" % bits]
        mod, exp = s.getAttributeValue(pub, [CKA_MODULUS, CKA_PUBLIC_EXPONENT])
        t.rsa[bits] = (int.from_bytes(bytes(mod), "big"), int.from_bytes(bytes(exp), "big"))
        check("RSA-%d: a %d-bit modulus, exponent 65537" % (bits, bits),
              t.rsa[bits][0].bit_length() == bits and t.rsa[bits][1] == 65537)
    for p in (1, 2, 3):
        pub, priv = t.keys["ML-DSA set %d" % p]
        kt, ps, value = s.getAttributeValue(pub, [CKA_KEY_TYPE, CKA_PARAMETER_SET, CKA_VALUE],
                                            allAsBinary=True)
        check("ML-DSA set %d: CKK_ML_DSA, its parameter set, a public key of %d bytes"
              % (p, MLDSA_SIZES[p][0]),
              bytes(kt) == ulong(CKK_ML_DSA) and bytes(ps) == ulong(p)
              and len(value) == MLDSA_SIZES[p][0])
    for p in (1, 2, 3):
        pub, priv = t.keys["ML-KEM set %d" % p]
        kt, ps, value, enc = s.getAttributeValue(
            pub, [CKA_KEY_TYPE, CKA_PARAMETER_SET, CKA_VALUE, CKA_ENCAPSULATE], allAsBinary=True)
        dec, = s.getAttributeValue(priv, [CKA_DECAPSULATE], allAsBinary=True)
        check("ML-KEM set %d: CKK_ML_KEM, its set, an encapsulation key of %d bytes, "
              "CKA_ENCAPSULATE / CKA_DECAPSULATE" % (p, MLKEM_SIZES[p]),
              bytes(kt) == ulong(CKK_ML_KEM) and bytes(ps) == ulong(p) and
              len(value) == MLKEM_SIZES[p] and bytes(enc) == b"\x01" and bytes(dec) == b"\x01")
    for name in ("P-256", "P-384"):
        pub, _ = t.keys[name]
        point, = s.getAttributeValue(pub, [CKA_EC_POINT])
        n = 65 if name == "P-256" else 97
        check(name + ": CKA_EC_POINT the DER OCTET STRING of an uncompressed point",
              len(point) == n + 2 and point[0] == 4 and point[1] == n and point[2] == 4)
    expect_rv("C_GenerateKeyPair RSA-1024", CKR_ATTRIBUTE_VALUE_INVALID, s.generateKeyPair,
              [(CKA_MODULUS_BITS, 1024)], [], Mechanism(CKM_RSA_PKCS_KEY_PAIR_GEN))
    expect_rv("C_GenerateKeyPair EC on an unsupported curve", CKR_CURVE_NOT_SUPPORTED,
              s.generateKeyPair, [(CKA_EC_PARAMS, bytes.fromhex("06052b81040023"))], [],
              Mechanism(CKM_EC_KEY_PAIR_GEN))
    expect_rv("C_GenerateKeyPair ML-DSA parameter set 4", CKR_ATTRIBUTE_VALUE_INVALID,
              s.generateKeyPair, [(CKA_PARAMETER_SET, ulong(4))], [],
              Mechanism(CKM_ML_DSA_KEY_PAIR_GEN))
    expect_rv("C_GenerateKeyPair with an extractable private key", CKR_ATTRIBUTE_VALUE_INVALID,
              s.generateKeyPair, [(CKA_EC_PARAMS, P256_OID)], [(CKA_EXTRACTABLE, CK_TRUE)],
              Mechanism(CKM_EC_KEY_PAIR_GEN))


# ---- every listed mechanism, used as its info says ----

def key_for(t, mech_key_type, size):
    """The key pair of this type and size (RSA, EC: bits; ML-DSA, ML-KEM: public key bytes)."""
    names = {(CKK_RSA, 2048): "RSA-2048", (CKK_RSA, 3072): "RSA-3072", (CKK_EC, 256): "P-256",
             (CKK_EC, 384): "P-384", (CKK_ML_DSA, 1312): "ML-DSA set 1",
             (CKK_ML_DSA, 1952): "ML-DSA set 2", (CKK_ML_DSA, 2592): "ML-DSA set 3",
             (CKK_ML_KEM, 800): "ML-KEM set 1", (CKK_ML_KEM, 1184): "ML-KEM set 2",
             (CKK_ML_KEM, 1568): "ML-KEM set 3"}
    return t.keys.get(names.get((mech_key_type, size)))


SIGN_MECHS = {
    # mechanism: (key type, hash of the message or None for the mechanism's own input, PSS)
    CKM_RSA_PKCS: (CKK_RSA, None, False),
    CKM_SHA1_RSA_PKCS: (CKK_RSA, CKM_SHA_1, False),
    CKM_SHA256_RSA_PKCS: (CKK_RSA, CKM_SHA256, False),
    CKM_SHA384_RSA_PKCS: (CKK_RSA, CKM_SHA384, False),
    CKM_SHA512_RSA_PKCS: (CKK_RSA, CKM_SHA512, False),
    CKM_RSA_PKCS_PSS: (CKK_RSA, None, True),
    CKM_SHA1_RSA_PKCS_PSS: (CKK_RSA, CKM_SHA_1, True),
    CKM_SHA256_RSA_PKCS_PSS: (CKK_RSA, CKM_SHA256, True),
    CKM_SHA384_RSA_PKCS_PSS: (CKK_RSA, CKM_SHA384, True),
    CKM_SHA512_RSA_PKCS_PSS: (CKK_RSA, CKM_SHA512, True),
    CKM_ECDSA: (CKK_EC, None, False),
    CKM_ECDSA_SHA1: (CKK_EC, CKM_SHA_1, False),
    CKM_ECDSA_SHA256: (CKK_EC, CKM_SHA256, False),
    CKM_ECDSA_SHA384: (CKK_EC, CKM_SHA384, False),
    CKM_ECDSA_SHA512: (CKK_EC, CKM_SHA512, False),
    CKM_ML_DSA: (CKK_ML_DSA, None, False),
    CKM_HASH_ML_DSA_SHA256: (CKK_ML_DSA, CKM_SHA256, False),
    CKM_HASH_ML_DSA_SHA384: (CKK_ML_DSA, CKM_SHA384, False),
    CKM_HASH_ML_DSA_SHA512: (CKK_ML_DSA, CKM_SHA512, False),
}
# CKM_HASH_ML_DSA signs a digest of the hash its parameter names; the mechanism that hashes the
# message itself with that hash
HASH_ML_DSA = {CKM_SHA256: CKM_HASH_ML_DSA_SHA256, CKM_SHA384: CKM_HASH_ML_DSA_SHA384,
               CKM_SHA512: CKM_HASH_ML_DSA_SHA512}
KEYGEN_MECHS = {CKM_RSA_PKCS_KEY_PAIR_GEN: CKK_RSA, CKM_EC_KEY_PAIR_GEN: CKK_EC,
                CKM_ML_DSA_KEY_PAIR_GEN: CKK_ML_DSA, CKM_ML_KEM_KEY_PAIR_GEN: CKK_ML_KEM}
KEY_SIZES = {CKK_RSA: (2048, 3072), CKK_EC: (256, 384), CKK_ML_DSA: (1312, 2592),
             CKK_ML_KEM: (800, 1568)}
# secret keys: the generating mechanism, its key type, the info's sizes (bytes, except the
# generic secret's, in bits as the specification has it) and the CKA_VALUE_LEN of each
SECRET_KEYGEN = {CKM_AES_KEY_GEN: (CKK_AES, (16, 32), (16, 32)),
                 CKM_GENERIC_SECRET_KEY_GEN: (CKK_GENERIC_SECRET, (8, 1024), (1, 128))}
AES_MECHS = (CKM_AES_ECB, CKM_AES_CBC, CKM_AES_CBC_PAD, CKM_AES_CTR)
HMAC_MECHS = {CKM_SHA_1_HMAC: CKM_SHA_1, CKM_SHA256_HMAC: CKM_SHA256,
              CKM_SHA384_HMAC: CKM_SHA384, CKM_SHA512_HMAC: CKM_SHA512,
              CKM_SHA_1_HMAC_GENERAL: CKM_SHA_1, CKM_SHA256_HMAC_GENERAL: CKM_SHA256,
              CKM_SHA384_HMAC_GENERAL: CKM_SHA384, CKM_SHA512_HMAC_GENERAL: CKM_SHA512}


# PyKCS11's getMechanismList and getMechanismInfo look every number up in their table of names
# (a KeyError for the 3.2 ones): the low-level calls instead.
def mech_list(lib, slot):
    ml = LowLevel.ckintlist()
    rv = lib.lib.C_GetMechanismList(slot, ml)
    if rv != CKR_OK:
        raise PyKCS11.PyKCS11Error(rv)
    return list(ml)


def mech_info(lib, slot, m):
    info = LowLevel.CK_MECHANISM_INFO()
    rv = lib.lib.C_GetMechanismInfo(slot, m, info)
    if rv != CKR_OK:
        raise PyKCS11.PyKCS11Error(rv)
    return info


def mech_name(m):
    names = {CKM_ML_DSA: "CKM_ML_DSA", CKM_ML_DSA_KEY_PAIR_GEN: "CKM_ML_DSA_KEY_PAIR_GEN",
             CKM_ML_KEM: "CKM_ML_KEM", CKM_ML_KEM_KEY_PAIR_GEN: "CKM_ML_KEM_KEY_PAIR_GEN",
             CKM_HASH_ML_DSA: "CKM_HASH_ML_DSA", CKM_HASH_ML_DSA_SHA256: "CKM_HASH_ML_DSA_SHA256",
             CKM_HASH_ML_DSA_SHA384: "CKM_HASH_ML_DSA_SHA384",
             CKM_HASH_ML_DSA_SHA512: "CKM_HASH_ML_DSA_SHA512"}
    return names.get(m) or PyKCS11.CKM.get(m, hex(m))


def sizes_of(info):
    """The key sizes to use: the info's smallest and largest."""
    return sorted({info.ulMinKeySize, info.ulMaxKeySize})


def sign_one(t, s, mech, key_type, hmech, pss, size):
    name = "%s with %s" % (mech_name(mech), {CKK_RSA: "RSA-%d", CKK_EC: "P-%d",
                                           CKK_ML_DSA: "ML-DSA of a %d-byte public key"}[key_type]
                                          % size)
    pair = key_for(t, key_type, size)
    if pair is None:
        bad(name, "no key of that size")
        return
    pub, priv = pair
    inner = hmech or CKM_SHA256
    digest = HASHES[inner](MSG).digest()
    if hmech:
        data = MSG
    elif key_type == CKK_RSA and not pss:
        data = bytes.fromhex(DIGEST_INFO[CKM_SHA256]) + digest
    elif key_type == CKK_ML_DSA:
        data = MSG
    else:
        data = digest
    slen = HASHES[inner]().digest_size
    m = RSA_PSS_Mechanism(mech, inner, MGFS[inner], slen) if pss else Mechanism(mech)
    sig = attempt(name + ": C_Sign", s.sign, priv, data, m)
    if sig is None:
        return
    want = {CKK_RSA: size // 8, CKK_EC: 2 * ((size + 7) // 8),
            CKK_ML_DSA: dict(MLDSA_SIZES.values()).get(size, 0)}[key_type]
    check(name + ": a signature of %d bytes" % want, len(sig) == want, str(len(sig)))
    check(name + ": C_Verify accepts it", s.verify(pub, data, sig, m))
    other = bytearray(data)
    other[-1] ^= 1
    check(name + ": C_Verify refuses it for other data", not s.verify(pub, bytes(other), sig, m))
    if key_type == CKK_RSA:
        good = pss_ok(t.rsa[size], inner, digest, sig, slen) if pss else \
            pkcs1_v15_ok(t.rsa[size], inner, digest, sig)
        check(name + ": the RSA arithmetic here verifies it", good)
    if hmech:  # multi-part: C_SignUpdate in two pieces, C_SignFinal
        ll, h = s.lib, s.session
        out = ckbytelist()
        rv = ll.C_SignInit(h, m.to_native(), priv)
        if rv == CKR_OK:
            rv = ll.C_SignUpdate(h, ckbytelist(MSG[:10]))
        if rv == CKR_OK:
            rv = ll.C_SignUpdate(h, ckbytelist(MSG[10:]))
        if rv == CKR_OK:
            rv = ll.C_SignFinal(h, out)  # the length
        if rv == CKR_OK:
            rv = ll.C_SignFinal(h, out)
        check(name + ": multi-part signature, verified in one part",
              rv == CKR_OK and s.verify(pub, MSG, out, m), rv_name(rv))


def signatures(t, s, mechs):
    for mech in mechs:
        key_type, hmech, pss = SIGN_MECHS[mech]
        info = mech_info(t.lib, t.slot, mech)
        check("%s: CKF_SIGN | CKF_VERIFY" % mech_name(mech),
              info.flags & CKF_SIGN and info.flags & CKF_VERIFY, hex(info.flags))
        check("%s: key sizes %s" % (mech_name(mech), KEY_SIZES[key_type]),
              (info.ulMinKeySize, info.ulMaxKeySize) == KEY_SIZES[key_type],
              "%d..%d" % (info.ulMinKeySize, info.ulMaxKeySize))
        for size in sizes_of(info):
            sign_one(t, s, mech, key_type, hmech, pss, size)
    # ML-DSA with a context string: bound to it
    if CKM_ML_DSA in mechs:
        pub, priv = t.keys["ML-DSA set 2"]
        param, keep = ml_dsa_context(b"pqtpm-pykcs11")
        m = Mechanism(CKM_ML_DSA, param)
        sig = attempt("ML-DSA-65 with a context string: C_Sign", s.sign, priv, MSG, m)
        if sig is not None:
            check("verified under that context", s.verify(pub, MSG, sig, m))
            other, keep2 = ml_dsa_context(b"another context")
            check("refused under another", not s.verify(pub, MSG, sig, Mechanism(CKM_ML_DSA,
                                                                                 other)))
            check("refused without one", not s.verify(pub, MSG, sig, Mechanism(CKM_ML_DSA)))
        det, keep3 = ml_dsa_context(b"", CKH_DETERMINISTIC_REQUIRED)
        expect_rv("ML-DSA deterministic signing refused (the TPM hedges)",
                  CKR_MECHANISM_PARAM_INVALID, s.sign, priv, MSG, Mechanism(CKM_ML_DSA, det))


def hash_ml_dsa(t, s, mechs):
    """CKM_HASH_ML_DSA of digests hashlib computed, with a context: verified by the module, the
    same signature input as the mechanism that has the TPM hash the message (a signature of one
    verifies under the other), bound to its context, refused as pure ML-DSA."""
    if not mechs:
        return
    info = mech_info(t.lib, t.slot, CKM_HASH_ML_DSA)
    check("CKM_HASH_ML_DSA: CKF_SIGN | CKF_VERIFY, key sizes (1, 3)",
          info.flags & CKF_SIGN and info.flags & CKF_VERIFY and
          (info.ulMinKeySize, info.ulMaxKeySize) == KEY_SIZES[CKK_ML_DSA])
    pub, priv = t.keys["ML-DSA set 2"]
    ctx = b"pqtpm-pykcs11"
    pure, keep = ml_dsa_context(ctx)
    for hmech, whole in sorted(HASH_ML_DSA.items()):
        name = "CKM_HASH_ML_DSA of a %s digest with ML-DSA set 2" % PyKCS11.CKM[hmech]
        digest = HASHES[hmech](MSG).digest()
        param, keep2 = hash_ml_dsa_context(hmech, ctx)
        m = Mechanism(CKM_HASH_ML_DSA, param)
        sig = attempt(name + ": C_Sign", s.sign, priv, digest, m)
        if sig is None:
            continue
        check(name + ": a signature of %d bytes" % MLDSA_SIZES[2][1],
              len(sig) == MLDSA_SIZES[2][1], str(len(sig)))
        check(name + ": C_Verify accepts it", s.verify(pub, digest, sig, m))
        check(name + ": %s of the message accepts it" % mech_name(whole),
              s.verify(pub, MSG, sig, Mechanism(whole, pure)))
        other, keep3 = hash_ml_dsa_context(hmech, b"another context")
        check(name + ": refused under another context",
              not s.verify(pub, digest, sig, Mechanism(CKM_HASH_ML_DSA, other)))
        check(name + ": refused as pure ML-DSA",
              not s.verify(pub, digest, sig, Mechanism(CKM_ML_DSA, pure)))
    expect_rv("CKM_HASH_ML_DSA without its parameter", CKR_MECHANISM_PARAM_INVALID,
              s.sign, priv, MSG, Mechanism(CKM_HASH_ML_DSA))


def encryption(t, s, mechs):
    plain = os.urandom(48)
    for mech in mechs:
        info = mech_info(t.lib, t.slot, mech)
        check("%s: CKF_ENCRYPT | CKF_DECRYPT" % mech_name(mech),
              info.flags & CKF_ENCRYPT and info.flags & CKF_DECRYPT, hex(info.flags))
        check("%s: key sizes 2048..3072" % mech_name(mech),
              (info.ulMinKeySize, info.ulMaxKeySize) == (2048, 3072))
        if mech == CKM_RSA_PKCS:
            ms = [("PKCS#1 v1.5", MechanismRSAPKCS1)]
        else:
            ms = [("OAEP SHA-1", RSAOAEPMechanism(CKM_SHA_1, CKG_MGF1_SHA1)),
                  ("OAEP SHA-256", RSAOAEPMechanism(CKM_SHA256, CKG_MGF1_SHA256)),
                  ("OAEP SHA-256 with a label",
                   RSAOAEPMechanism(CKM_SHA256, CKG_MGF1_SHA256, b"pqtpm\x00"))]
        for bits in sizes_of(info):
            pub, priv = t.keys["RSA-%d" % bits]
            for what, m in ms:
                what = "RSA-%d %s" % (bits, what)
                ct = attempt(what + ": C_Encrypt with the public key", s.encrypt, pub, plain, m)
                if ct is None:
                    continue
                check(what + ": %d bytes of ciphertext" % (bits // 8), len(ct) == bits // 8)
                pt = attempt(what + ": C_Decrypt", s.decrypt, priv, ct, m)
                check(what + ": the plaintext back", pt is not None and bytes(pt) == plain)
        pub, priv = t.keys["RSA-2048"]
        if mech == CKM_RSA_PKCS_OAEP:
            ct = oaep_encrypt(t.rsa[2048], plain, CKM_SHA256)
            pt = attempt("OAEP SHA-256 encrypted here: C_Decrypt", s.decrypt, priv, ct,
                         RSAOAEPMechanism(CKM_SHA256, CKG_MGF1_SHA256))
            check("the plaintext back", pt is not None and bytes(pt) == plain)
            ct = oaep_encrypt(t.rsa[2048], plain, CKM_SHA_1, b"label\x00")
            pt = attempt("OAEP SHA-1 with a label, encrypted here: C_Decrypt", s.decrypt, priv,
                         ct, RSAOAEPMechanism(CKM_SHA_1, CKG_MGF1_SHA1, b"label\x00"))
            check("the plaintext back", pt is not None and bytes(pt) == plain)
            expect_rv("a ciphertext under another label", CKR_ENCRYPTED_DATA_INVALID,
                      s.decrypt, priv, ct, RSAOAEPMechanism(CKM_SHA_1, CKG_MGF1_SHA1,
                                                            b"other\x00"))
            expect_rv("a label without its closing zero octet", CKR_MECHANISM_PARAM_INVALID,
                      s.encrypt, pub, plain, RSAOAEPMechanism(CKM_SHA256, CKG_MGF1_SHA256,
                                                              b"pqtpm"))
            expect_rv("MGF1 of another hash", CKR_MECHANISM_PARAM_INVALID, s.encrypt, pub,
                      plain, RSAOAEPMechanism(CKM_SHA256, CKG_MGF1_SHA1))
    ll, h = s.lib, s.session
    pub, priv = t.keys["RSA-2048"]
    ct = ckbytelist(s.encrypt(pub, plain))
    rv = ll.C_DecryptInit(h, MechanismRSAPKCS1.to_native(), priv)
    small = ckbytelist([0] * 8)
    if rv == CKR_OK:
        rv = ll.C_Decrypt(h, ct, small)
    check("C_Decrypt into 8 bytes: CKR_BUFFER_TOO_SMALL", rv == CKR_BUFFER_TOO_SMALL,
          rv_name(rv))
    room = ckbytelist([0] * len(plain))
    rv = ll.C_Decrypt(h, ct, room)
    check("the operation goes on: into 48 bytes, the plaintext",
          rv == CKR_OK and bytes(room) == plain, rv_name(rv))
    expect_rv("C_Decrypt of a ciphertext of the wrong length", CKR_ENCRYPTED_DATA_LEN_RANGE,
              s.decrypt, priv, b"\x01" * 100)
    expect_rv("C_Encrypt of a plaintext too long", CKR_DATA_LEN_RANGE, s.encrypt, pub,
              b"\x02" * 250)


def derivation(t, s, mechs):
    for mech in mechs:
        info = mech_info(t.lib, t.slot, mech)
        check("%s: CKF_DERIVE, curves of 256..384 bits" % mech_name(mech),
              info.flags & CKF_DERIVE and (info.ulMinKeySize, info.ulMaxKeySize) == (256, 384),
              hex(info.flags))
        a_pub, a_priv = t.keys["P-256"]
        b_pub, b_priv = t.keys["P-256 peer"]
        tmpl = [(CKA_CLASS, CKO_SECRET_KEY), (CKA_KEY_TYPE, CKK_GENERIC_SECRET),
                (CKA_SENSITIVE, CK_FALSE), (CKA_EXTRACTABLE, CK_TRUE), (CKA_VALUE_LEN, 32)]
        secrets = []
        b_point = bytes(s.getAttributeValue(b_pub, [CKA_EC_POINT])[0])
        for mine, theirs in ((a_priv, b_pub), (b_priv, a_pub)):
            point = bytes(s.getAttributeValue(theirs, [CKA_EC_POINT])[0])
            k = attempt("ECDH1-DERIVE (CKD_NULL) of the peer's point", s.deriveKey, mine, tmpl,
                        ECDH1_DERIVE_Mechanism(point))
            if k is not None:
                secrets.append(bytes(s.getAttributeValue(k, [CKA_VALUE])[0]))
        check("both sides derive the same 32-byte secret",
              len(secrets) == 2 and secrets[0] == secrets[1] and len(secrets[0]) == 32)
        # X9.63's KDF as PKCS#11 has it: SHA-256(Z || 00000001 || shared data)
        shared, kdf = b"pqtpm shared data", []
        for mine, theirs in ((a_priv, b_pub), (b_priv, a_pub)):
            point = bytes(s.getAttributeValue(theirs, [CKA_EC_POINT])[0])
            k = attempt("ECDH1-DERIVE with CKD_SHA256_KDF and shared data", s.deriveKey, mine,
                        tmpl, ECDH1_DERIVE_Mechanism(point, CKD_SHA256_KDF, shared))
            if k is not None:
                kdf.append(bytes(s.getAttributeValue(k, [CKA_VALUE])[0]))
        check("both sides agree on SHA-256(Z || 00000001 || shared data)", len(kdf) == 2 and
              len(secrets) == 2 and kdf[0] == kdf[1] ==
              hashlib.sha256(secrets[0] + b"\x00\x00\x00\x01" + shared).digest())
        expect_rv("ECDH1-DERIVE of a point off the curve", CKR_MECHANISM_PARAM_INVALID,
                  s.deriveKey, a_priv, tmpl, ECDH1_DERIVE_Mechanism(b"\x04" + b"\x01" * 64))
        sens = attempt("a derived key is sensitive by default", s.deriveKey, a_priv,
                       [(CKA_CLASS, CKO_SECRET_KEY), (CKA_KEY_TYPE, CKK_GENERIC_SECRET)],
                       ECDH1_DERIVE_Mechanism(b_point))
        if sens is not None:
            check("its CKA_VALUE is not given out",
                  s.getAttributeValue(sens, [CKA_VALUE])[0] is None)


def secret_keys(t, s, mechs):
    for m in mechs:
        kt, sizes, lens = SECRET_KEYGEN[m]
        info = mech_info(t.lib, t.slot, m)
        check("%s: CKF_GENERATE, sizes %s" % (mech_name(m), sizes), info.flags & CKF_GENERATE
              and (info.ulMinKeySize, info.ulMaxKeySize) == sizes, hex(info.flags))
        for n in lens:
            what = "C_GenerateKey %s of %d bytes" % (mech_name(m), n)
            k = attempt(what, s.generateKey, [(CKA_CLASS, CKO_SECRET_KEY), (CKA_KEY_TYPE, kt),
                                              (CKA_VALUE_LEN, n)], Mechanism(m))
            if k is None:
                continue
            v = s.getAttributeValue(k, [CKA_VALUE, CKA_VALUE_LEN, CKA_LOCAL, CKA_SENSITIVE,
                                        CKA_KEY_GEN_MECHANISM, CKA_KEY_TYPE])
            check(what + ": sensitive, local, its length, mechanism and type",
                  v == [None, n, True, True, m, kt], str(v))
        expect_rv("%s without CKA_VALUE_LEN" % mech_name(m), CKR_TEMPLATE_INCOMPLETE,
                  s.generateKey, [(CKA_CLASS, CKO_SECRET_KEY)], Mechanism(m))


# SP 800-38A F.1, F.2, F.5: the key, then the two blocks P encrypted by ECB, CBC and CTR
SP800_38A_P = bytes.fromhex("6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51")
SP800_38A_IV = bytes.fromhex("000102030405060708090a0b0c0d0e0f")
SP800_38A_CTR = bytes.fromhex("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff")
SP800_38A = {
    16: ("2b7e151628aed2a6abf7158809cf4f3c",
         "3ad77bb40d7a3660a89ecaf32466ef97f5d3d58503b9699de785895a96fdbaaf",
         "7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2",
         "874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff"),
    32: ("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4",
         "f3eed1bdb5d2a03c064b5a7e3db181f8591ccb10d410ed26dc5ba74a31362870",
         "f58c4c04d6e5f1ba779eabfb5f7bfbd69cfc4e967edb808d679f777bc6702c7d",
         "601ec313775789a5b7a7f504bbf3d228f443e3ca4d62b59aca84e990cacaf5c5"),
}


def aes(t, s, mechs):
    for m in mechs:
        info = mech_info(t.lib, t.slot, m)
        check("%s: CKF_ENCRYPT | CKF_DECRYPT, keys of 16..32 bytes" % mech_name(m),
              info.flags & CKF_ENCRYPT and info.flags & CKF_DECRYPT and
              (info.ulMinKeySize, info.ulMaxKeySize) == (16, 32), hex(info.flags))
    p, iv = SP800_38A_P, SP800_38A_IV
    for n, (key, ecb, cbc, ctr) in SP800_38A.items():
        what = "AES-%d" % (8 * n)
        k = attempt(what + ": a key of SP 800-38A's value (C_CreateObject)", s.createObject,
                    [(CKA_CLASS, CKO_SECRET_KEY), (CKA_KEY_TYPE, CKK_AES),
                     (CKA_VALUE, bytes.fromhex(key)), (CKA_ENCRYPT, CK_TRUE),
                     (CKA_DECRYPT, CK_TRUE)])
        if k is None:
            continue
        known = {CKM_AES_ECB: (Mechanism(CKM_AES_ECB), ecb),
                 CKM_AES_CBC: (Mechanism(CKM_AES_CBC, iv), cbc),
                 CKM_AES_CTR: (Mechanism(CKM_AES_CTR, struct.pack("L16s", 128, SP800_38A_CTR)),
                               ctr)}
        for m in mechs:
            if m not in known:
                continue
            mm, want = known[m]
            c = attempt("%s %s: C_Encrypt" % (what, mech_name(m)), s.encrypt, k, p, mm)
            check("%s %s: SP 800-38A's ciphertext" % (what, mech_name(m)),
                  c is not None and bytes(c).hex() == want)
            d = attempt("%s %s: C_Decrypt" % (what, mech_name(m)), s.decrypt, k,
                        bytes.fromhex(want), mm)
            check("%s %s: the plaintext back" % (what, mech_name(m)),
                  d is not None and bytes(d) == p)
        if CKM_AES_CBC_PAD in mechs:
            c = attempt(what + " CBC-PAD of 17 bytes", s.encrypt, k, p[:17],
                        Mechanism(CKM_AES_CBC_PAD, iv))
            check(what + " CBC-PAD: two blocks, the first CBC's", c is not None and
                  len(c) == 32 and bytes(c)[:16].hex() == cbc[:32])
            d = attempt(what + " CBC-PAD: C_Decrypt", s.decrypt, k, bytes(c or b"\0" * 32),
                        Mechanism(CKM_AES_CBC_PAD, iv))
            check(what + " CBC-PAD: the 17 bytes back", d is not None and bytes(d) == p[:17])
        if CKM_AES_CBC in mechs:  # several parts: 10 bytes, then 22, then the final call
            ll, h, out = s.lib, s.session, b""
            # (the Mechanism owns its parameter's bytes: it must live as long as the call)
            mm = Mechanism(CKM_AES_CBC, iv)
            rv = ll.C_EncryptInit(h, mm.to_native(), k)
            for part in (p[:10], p[10:]):
                buf = ckbytelist([0] * 64)
                if rv == CKR_OK:
                    rv = ll.C_EncryptUpdate(h, ckbytelist(part), buf)
                    out += bytes(buf)
            buf = ckbytelist([0] * 64)
            if rv == CKR_OK:
                rv = ll.C_EncryptFinal(h, buf)
                out += bytes(buf)
            check(what + " CBC in parts of 10 and 22 bytes: the same ciphertext",
                  rv == CKR_OK and out.hex() == cbc, rv_name(rv))
    k = s.findObjects([(CKA_CLASS, CKO_SECRET_KEY), (CKA_KEY_TYPE, CKK_AES),
                       (CKA_VALUE_LEN, 16)])
    if k:
        expect_rv("AES-CBC without its IV", CKR_MECHANISM_PARAM_INVALID, s.encrypt, k[0], p,
                  Mechanism(CKM_AES_CBC))
        expect_rv("AES-ECB of 17 bytes", CKR_DATA_LEN_RANGE, s.encrypt, k[0], p[:17],
                  Mechanism(CKM_AES_ECB))
    else:
        bad("an AES-128 key found by class, type and length")


def hmacs(t, s, mechs):
    keys = []
    for n in (1, 128):
        value = os.urandom(n)
        k = attempt("a generic secret of %d bytes (C_CreateObject)" % n, s.createObject,
                    [(CKA_CLASS, CKO_SECRET_KEY), (CKA_KEY_TYPE, CKK_GENERIC_SECRET),
                     (CKA_VALUE, value), (CKA_SIGN, CK_TRUE), (CKA_VERIFY, CK_TRUE)])
        if k is not None:
            keys.append((value, k))
    for m in mechs:
        info = mech_info(t.lib, t.slot, m)
        check("%s: CKF_SIGN | CKF_VERIFY, keys of 1..128 bytes" % mech_name(m),
              info.flags & CKF_SIGN and info.flags & CKF_VERIFY and
              (info.ulMinKeySize, info.ulMaxKeySize) == (1, 128), hex(info.flags))
        general = mech_name(m).endswith("_GENERAL")
        mm = Mechanism(m, struct.pack("L", 10)) if general else Mechanism(m)
        for value, k in keys:
            what = "%s with a key of %d bytes" % (mech_name(m), len(value))
            want = hmac.new(value, MSG, HASHES[HMAC_MECHS[m]]).digest()[:10 if general else None]
            mac = attempt(what + ": C_Sign", s.sign, k, MSG, mm)
            check(what + ": Python's hmac%s" % (", cut to 10 bytes" if general else ""),
                  mac is not None and bytes(mac) == want)
            check(what + ": C_Verify accepts it", s.verify(k, MSG, want, mm))
            check(what + ": and refuses it for other data", not s.verify(k, MSG + b".", want,
                                                                         mm))
    if CKM_SHA256_HMAC in mechs and keys:
        value, k = keys[0]
        ll, h, out = s.lib, s.session, ckbytelist()
        rv = ll.C_SignInit(h, Mechanism(CKM_SHA256_HMAC).to_native(), k)
        for part in (MSG[:7], MSG[7:]):
            if rv == CKR_OK:
                rv = ll.C_SignUpdate(h, ckbytelist(part))
        if rv == CKR_OK:
            rv = ll.C_SignFinal(h, out)
        if rv == CKR_OK:
            rv = ll.C_SignFinal(h, out)
        check("SHA256-HMAC in two parts", rv == CKR_OK and
              bytes(out) == hmac.new(value, MSG, hashlib.sha256).digest(), rv_name(rv))


def kem(t, mechs):
    for m in mechs:
        info = mech_info(t.lib, t.slot, m)
        check("%s: CKF_ENCAPSULATE | CKF_DECAPSULATE, keys of 800..1568 bytes" % mech_name(m),
              info.flags & CKF_ENCAPSULATE and info.flags & CKF_DECAPSULATE and
              (info.ulMinKeySize, info.ulMaxKeySize) == (800, 1568), hex(info.flags))
        check("ML-KEM key pairs of those sizes were made",
              key_for(t, CKK_ML_KEM, info.ulMinKeySize) is not None and
              key_for(t, CKK_ML_KEM, info.ulMaxKeySize) is not None)
        # not counted: PyKCS11 calls through the 2.40 function list alone
        print("note %s: C_EncapsulateKey and C_DecapsulateKey are PKCS#11 3.2 functions, "
              "which PyKCS11 cannot call (test_pkcs11_kem.c, pkcs11_mlkem_noble.sh call them)"
              % mech_name(m))


def digests(t, lib, mechs):
    """After the logout: digests need no user."""
    s = lib.openSession(t.slot, CKF_SERIAL_SESSION)
    check("a public session", s.getSessionInfo().state == CKS_RO_PUBLIC_SESSION)
    big = os.urandom(3000)
    for mech in mechs:
        info = mech_info(lib, t.slot, mech)
        check("%s: CKF_DIGEST" % mech_name(mech), info.flags & CKF_DIGEST, hex(info.flags))
        d = attempt("%s without a login" % mech_name(mech), s.digest, MSG, Mechanism(mech))
        check("%s: equal to hashlib's" % mech_name(mech),
              d is not None and bytes(d) == HASHES[mech](MSG).digest())
        ds = s.digestSession(Mechanism(mech))
        ds.update(big[:1000])
        ds.update(big[1000:])
        check("%s: multi-part over 3000 bytes" % mech_name(mech),
              bytes(ds.final()) == HASHES[mech](big).digest())
    s.closeSession()


def mechanisms(t, s):
    nums = mech_list(t.lib, t.slot)
    check("C_GetMechanismList lists something", len(nums) > 0)
    check("every listed mechanism has its info", all(
        mech_info(t.lib, t.slot, m) is not None for m in nums))
    expect_rv("C_GetMechanismInfo of a mechanism not listed", CKR_MECHANISM_INVALID,
              mech_info, t.lib, t.slot, CKM_DSA)
    known = set(SIGN_MECHS) | set(KEYGEN_MECHS) | {CKM_RSA_PKCS_OAEP, CKM_ECDH1_DERIVE} | \
        set(HASHES) | set(SECRET_KEYGEN) | set(AES_MECHS) | set(HMAC_MECHS) | {CKM_ML_KEM} | \
        {CKM_HASH_ML_DSA}
    for m in nums:
        if m not in known:
            bad("%s is listed but this test does not use it" % mech_name(m),
                "add it to tests/integration/pkcs11_pykcs11.py")
    for m in nums:
        if m in KEYGEN_MECHS:
            info = mech_info(t.lib, t.slot, m)
            check("%s: CKF_GENERATE_KEY_PAIR, sizes %s" % (mech_name(m),
                                                          KEY_SIZES[KEYGEN_MECHS[m]]),
                  info.flags & CKF_GENERATE_KEY_PAIR and
                  (info.ulMinKeySize, info.ulMaxKeySize) == KEY_SIZES[KEYGEN_MECHS[m]])
    for m in KEYGEN_MECHS:
        check("%s is listed (the test made keys with it)" % mech_name(m), m in nums)
    signatures(t, s, [m for m in nums if m in SIGN_MECHS])
    hash_ml_dsa(t, s, [m for m in nums if m == CKM_HASH_ML_DSA])
    encryption(t, s, [m for m in nums if m in (CKM_RSA_PKCS_OAEP, CKM_RSA_PKCS)])
    derivation(t, s, [m for m in nums if m == CKM_ECDH1_DERIVE])
    secret_keys(t, s, [m for m in nums if m in SECRET_KEYGEN])
    aes(t, s, [m for m in nums if m in AES_MECHS])
    hmacs(t, s, [m for m in nums if m in HMAC_MECHS])
    kem(t, [m for m in nums if m == CKM_ML_KEM])
    t.digests = [m for m in nums if m in HASHES]


def objects(t, s):
    everything = s.findObjects()
    check("C_FindObjects with an empty template: every key (%d halves)" % (2 * len(t.keys)),
          len(everything) >= 2 * len(t.keys), str(len(everything)))
    privs = s.findObjects([(CKA_CLASS, CKO_PRIVATE_KEY)])
    check("private keys alone", len(privs) == len(t.keys), str(len(privs)))
    ecs = s.findObjects([(CKA_CLASS, CKO_PUBLIC_KEY), (CKA_KEY_TYPE, CKK_EC)])
    check("EC public keys: three", len(ecs) == 3, str(len(ecs)))
    ml = s.findObjects([(CKA_KEY_TYPE, CKK_ML_DSA), (CKA_PARAMETER_SET, ulong(2))])
    check("ML-DSA-65 by CKA_PARAMETER_SET: its two halves", sorted(map(hval, ml)) ==
          sorted(map(hval, t.keys["ML-DSA set 2"])))
    by_label = s.findObjects([(CKA_LABEL, "py P-384"), (CKA_CLASS, CKO_PRIVATE_KEY)])
    check("by label and class: the P-384 private key",
          list(map(hval, by_label)) == [hval(t.keys["P-384"][1])])
    by_id = s.findObjects([(CKA_ID, bytes([0x40]))])
    check("by CKA_ID: the RSA key's two halves", len(by_id) == 2)
    check("a template no object matches: none",
          s.findObjects([(CKA_LABEL, "no such key")]) == [])
    data = attempt("C_CreateObject of a public data object", s.createObject,
                   [(CKA_CLASS, CKO_DATA), (CKA_TOKEN, CK_TRUE), (CKA_PRIVATE, CK_FALSE),
                    (CKA_LABEL, "py data"), (CKA_APPLICATION, "pykcs11"),
                    (CKA_VALUE, b"some data")])
    found = s.findObjects([(CKA_CLASS, CKO_DATA), (CKA_APPLICATION, "pykcs11")])
    check("found by class and application", data is not None and
          list(map(hval, found)) == [hval(data)])
    expect_rv("C_CreateObject with an attribute of another class", CKR_ATTRIBUTE_TYPE_INVALID,
              s.createObject, [(CKA_CLASS, CKO_DATA), (CKA_MODULUS_BITS, 2048)])

    # C_GetAttributeValue
    pub, priv = t.keys["RSA-2048"]
    v = s.getAttributeValue(priv, [CKA_CLASS, CKA_KEY_TYPE, CKA_SENSITIVE, CKA_EXTRACTABLE,
                                   CKA_NEVER_EXTRACTABLE, CKA_ALWAYS_SENSITIVE, CKA_LOCAL,
                                   CKA_LABEL])
    check("the private key: class, type, sensitive, unextractable, local, label",
          v == [CKO_PRIVATE_KEY, CKK_RSA, True, False, True, True, True, "py RSA-2048"], str(v))
    v = s.getAttributeValue(priv, [CKA_LABEL, CKA_PRIVATE_EXPONENT, CKA_PRIME_1, CKA_MODULUS])
    check("PyKCS11 gets None for the sensitive values, the others as they are",
          v[0] == "py RSA-2048" and v[1] is None and v[2] is None and len(v[3]) == 256)
    ll, h = s.lib, s.session
    tmpl = LowLevel.ckattrlist(3)
    tmpl[0].SetType(CKA_MODULUS)
    tmpl[1].SetType(CKA_PRIVATE_EXPONENT)
    tmpl[2].SetType(CKA_LABEL)
    rv = ll.C_GetAttributeValue(h, priv, tmpl)
    check("a template with a sensitive attribute: CKR_ATTRIBUTE_SENSITIVE",
          rv == CKR_ATTRIBUTE_SENSITIVE, rv_name(rv))
    check("its length CK_UNAVAILABLE_INFORMATION, the others' lengths given",
          tmpl[0].GetLen() == 256 and tmpl[1].GetLen() == 0 and tmpl[2].GetLen() == 11,
          "%d %d %d" % (tmpl[0].GetLen(), tmpl[1].GetLen(), tmpl[2].GetLen()))
    rv = ll.C_GetAttributeValue(h, priv, tmpl)
    check("asked again with the buffers: the others' values",
          rv == CKR_ATTRIBUTE_SENSITIVE and bytes(tmpl[2].GetBin()) == b"py RSA-2048"
          and t.rsa[2048][0] == int.from_bytes(bytes(tmpl[0].GetBin()), "big"), rv_name(rv))
    ec_pub = t.keys["P-256"][0]
    tmpl = LowLevel.ckattrlist(2)
    tmpl[0].SetType(CKA_MODULUS)
    tmpl[1].SetType(CKA_EC_PARAMS)
    rv = ll.C_GetAttributeValue(h, ec_pub, tmpl)
    check("an attribute the object lacks: CKR_ATTRIBUTE_TYPE_INVALID, the other answered",
          rv == CKR_ATTRIBUTE_TYPE_INVALID and tmpl[0].GetLen() == 0 and
          tmpl[1].GetLen() == len(P256_OID), rv_name(rv))
    tmpl = LowLevel.ckattrlist(1)
    tmpl[0].SetBin(CKA_MODULUS, ckbytelist([0] * 100))
    rv = ll.C_GetAttributeValue(h, pub, tmpl)
    check("a buffer too small: CKR_BUFFER_TOO_SMALL, CK_UNAVAILABLE_INFORMATION",
          rv == CKR_BUFFER_TOO_SMALL and tmpl[0].GetLen() == 0, rv_name(rv))
    tmpl[0].SetBin(CKA_MODULUS, ckbytelist([0] * 300))
    rv = ll.C_GetAttributeValue(h, pub, tmpl)
    check("a buffer larger than needed: the value and its length",
          rv == CKR_OK and tmpl[0].GetLen() == 256, rv_name(rv))
    v = s.getAttributeValue(data, [CKA_VALUE, CKA_APPLICATION, CKA_PRIVATE])
    check("the data object's attributes", bytes(v[0]) == b"some data" and
          v[1] == "pykcs11" and v[2] is False, str(v))

    # C_DestroyObject
    attempt("C_DestroyObject of the data object", s.destroyObject, data)
    check("it is no longer found",
          s.findObjects([(CKA_CLASS, CKO_DATA), (CKA_APPLICATION, "pykcs11")]) == [])
    expect_rv("its handle is invalid", CKR_OBJECT_HANDLE_INVALID, s.getAttributeValue, data,
              [CKA_LABEL])
    expect_rv("destroyed twice", CKR_OBJECT_HANDLE_INVALID, s.destroyObject, data)
    pub, priv = t.keys["P-384"]
    attempt("C_DestroyObject of a key pair's private half", s.destroyObject, priv)
    expect_rv("signing with it: CKR_KEY_HANDLE_INVALID", CKR_KEY_HANDLE_INVALID, s.sign, priv,
              b"\x00" * 48, Mechanism(CKM_ECDSA))
    check("its public half stays", len(s.findObjects([(CKA_LABEL, "py P-384")])) == 1)


def errors(t, s):
    ll, h = s.lib, s.session
    pub, priv = t.keys["RSA-2048"]
    ec_pub, ec_priv = t.keys["P-256"]
    bogus = LowLevel.CK_SESSION_HANDLE()
    bogus.assign(0x7FFF1234)
    expect_rv("an invalid session handle", CKR_SESSION_HANDLE_INVALID, ll.C_SignInit, bogus,
              Mechanism(CKM_SHA256_RSA_PKCS).to_native(), priv)
    expect_rv("an invalid key handle", CKR_KEY_HANDLE_INVALID, s.sign, obj(s, 0x7FFF0001), MSG,
              Mechanism(CKM_SHA256_RSA_PKCS))
    expect_rv("an invalid object handle", CKR_OBJECT_HANDLE_INVALID, s.getAttributeValue,
              obj(s, 0x7FFF0001), [CKA_CLASS])
    out = ckbytelist()
    expect_rv("C_Sign not initialized", CKR_OPERATION_NOT_INITIALIZED, ll.C_Sign, h,
              ckbytelist(MSG), out)
    expect_rv("C_Verify not initialized", CKR_OPERATION_NOT_INITIALIZED, ll.C_Verify, h,
              ckbytelist(MSG), ckbytelist(b"\x00" * 64))
    expect_rv("C_Digest not initialized", CKR_OPERATION_NOT_INITIALIZED, ll.C_Digest, h,
              ckbytelist(MSG), out)
    expect_rv("C_Decrypt not initialized", CKR_OPERATION_NOT_INITIALIZED, ll.C_Decrypt, h,
              ckbytelist(b"\x00" * 256), out)
    expect_rv("C_FindObjects not initialized", CKR_OPERATION_NOT_INITIALIZED, ll.C_FindObjects,
              h, LowLevel.ckobjlist(4))
    expect_rv("C_SignInit", CKR_OK, ll.C_SignInit, h, Mechanism(CKM_SHA256_RSA_PKCS).to_native(),
              priv)
    expect_rv("C_SignInit while one is active", CKR_OPERATION_ACTIVE, ll.C_SignInit, h,
              Mechanism(CKM_SHA256_RSA_PKCS).to_native(), priv)
    small = ckbytelist([0] * 10)
    expect_rv("C_Sign into 10 bytes: CKR_BUFFER_TOO_SMALL", CKR_BUFFER_TOO_SMALL, ll.C_Sign, h,
              ckbytelist(MSG), small)
    big = ckbytelist([0] * 256)
    rv = ll.C_Sign(h, ckbytelist(MSG), big)
    check("the operation goes on: C_Sign with room for it", rv == CKR_OK and len(big) == 256 and
          pkcs1_v15_ok(t.rsa[2048], CKM_SHA256, hashlib.sha256(MSG).digest(), big), rv_name(rv))
    expect_rv("and is over after it", CKR_OPERATION_NOT_INITIALIZED, ll.C_Sign, h,
              ckbytelist(MSG), big)
    expect_rv("ECDSA with an RSA key", CKR_KEY_TYPE_INCONSISTENT, s.sign, priv, b"\x00" * 32,
              Mechanism(CKM_ECDSA))
    expect_rv("RSA PKCS#1 with an EC key", CKR_KEY_TYPE_INCONSISTENT, s.sign, ec_priv, MSG,
              Mechanism(CKM_SHA256_RSA_PKCS))
    expect_rv("ML-DSA with an EC key", CKR_KEY_TYPE_INCONSISTENT, s.sign, ec_priv, MSG,
              Mechanism(CKM_ML_DSA))
    expect_rv("signing with a public key", CKR_KEY_TYPE_INCONSISTENT, s.sign, pub, MSG,
              Mechanism(CKM_SHA256_RSA_PKCS))
    expect_rv("OAEP is no signature mechanism", CKR_MECHANISM_INVALID, s.sign, priv, MSG,
              RSAOAEPMechanism(CKM_SHA256, CKG_MGF1_SHA256))
    expect_rv("a mechanism the module does not know", CKR_MECHANISM_INVALID, s.sign, priv, MSG,
              Mechanism(0x80001234))
    expect_rv("RSA decryption with an ML-DSA key", CKR_KEY_TYPE_INCONSISTENT, s.decrypt,
              t.keys["ML-DSA set 1"][1], b"\x00" * 256, MechanismRSAPKCS1)
    expect_rv("signing with a key made with CKA_SIGN false", CKR_KEY_FUNCTION_NOT_PERMITTED,
              s.sign, t.keys["P-256 peer"][1], b"\x00" * 32, Mechanism(CKM_ECDSA))
    expect_rv("PSS with a salt of another length", CKR_MECHANISM_PARAM_INVALID, s.sign, priv,
              MSG, RSA_PSS_Mechanism(CKM_SHA256_RSA_PKCS_PSS, CKM_SHA256, CKG_MGF1_SHA256, 20))
    expect_rv("CKM_RSA_PKCS of something that is no DigestInfo", CKR_DATA_INVALID, s.sign, priv,
              b"\x00" * 40, MechanismRSAPKCS1)
    expect_rv("CKM_ECDSA of 17 bytes", CKR_DATA_LEN_RANGE, s.sign, ec_priv, b"\x00" * 17,
              Mechanism(CKM_ECDSA))
    expect_rv("C_VerifyInit", CKR_OK, ll.C_VerifyInit, h,
              Mechanism(CKM_SHA256_RSA_PKCS).to_native(), pub)
    expect_rv("C_Verify of a signature of the wrong length", CKR_SIGNATURE_LEN_RANGE,
              ll.C_Verify, h, ckbytelist(MSG), ckbytelist(b"\x00" * 10))


def logged_out(t, lib, s):
    attempt("C_Logout", s.logout)
    check("no private key is found without a login",
          s.findObjects([(CKA_CLASS, CKO_PRIVATE_KEY)]) == [])
    check("the public keys still are", len(s.findObjects([(CKA_CLASS, CKO_PUBLIC_KEY)])) > 0)
    expect_rv("signing without a login: the private key is not there",
              CKR_KEY_HANDLE_INVALID, s.sign, t.keys["P-256"][1], b"\x00" * 32,
              Mechanism(CKM_ECDSA))
    pub, _ = t.keys["RSA-2048"]
    ct = attempt("RSA encryption with the public key needs no login", s.encrypt, pub, b"hi",
                 MechanismRSAPKCS1)
    check("a ciphertext of 256 bytes", ct is not None and len(ct) == 256)
    ro = lib.openSession(t.slot, CKF_SERIAL_SESSION)
    expect_rv("C_CreateObject of a token object in a read-only session", CKR_SESSION_READ_ONLY,
              ro.createObject, [(CKA_CLASS, CKO_DATA), (CKA_TOKEN, CK_TRUE),
                                (CKA_PRIVATE, CK_FALSE)])
    ro.closeSession()
    digests(t, lib, t.digests)
    s.closeSession()
    expect_rv("a closed session's handle is invalid", CKR_SESSION_HANDLE_INVALID, s.getSessionInfo)


def labels(module):
    """Another process: the labels of the public keys on the token, one a line."""
    lib = PyKCS11Lib()
    lib.load(module)
    for slot in lib.getSlotList(tokenPresent=True):
        if lib.getTokenInfo(slot).flags & CKF_TOKEN_INITIALIZED:
            s = lib.openSession(slot, CKF_SERIAL_SESSION)
            keys = s.findObjects([(CKA_CLASS, CKO_PUBLIC_KEY)])
            print("\n".join(sorted(s.getAttributeValue(k, [CKA_LABEL])[0] for k in keys)))
    return 0


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--labels":
        return labels(sys.argv[2])
    if len(sys.argv) != 2:
        print("usage: pkcs11_pykcs11.py MODULE", file=sys.stderr)
        return 2
    lib = PyKCS11Lib()
    lib.load(sys.argv[1])
    slot = slots_and_tokens(lib)
    t = Token(lib, slot)
    s = pins(lib, slot)
    keygen(t, s)
    mechanisms(t, s)
    objects(t, s)
    errors(t, s)
    logged_out(t, lib, s)
    # another process (a new application) finds the token objects this one made
    r = subprocess.run([sys.executable, __file__, "--labels", sys.argv[1]], capture_output=True,
                       text=True, timeout=60, check=False)
    want = sorted("py " + k for k in t.keys)
    check("a new process finds the public keys by label", r.stdout.split("\n")[:-1] == want,
          r.stdout + r.stderr)
    print("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
