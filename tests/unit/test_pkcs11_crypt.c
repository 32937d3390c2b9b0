/* The PKCS#11 module's encryption, decryption and key agreement through its function list
 * (dlopen): RSA PKCS#1 v1.5 and OAEP (SHA-1, SHA-256, a label) encrypted with the public key and
 * decrypted with the private one, both in the TPM, with the errors the specification names
 * (lengths, parameters, key use, login, a damaged ciphertext, the two-call pattern); ECDH1
 * derivation between two keys of the token agreeing both ways, with the derived keys'
 * attributes. */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <CUnit/Basic.h>

#include "harness.h"
#include "p11_token.h"
#include "pk3.h"
#include "unit_main.h"

static char tmp_root[] = "/tmp/pqtpm-test-pkcs11-crypt-XXXXXX";
static char dir[PATH_MAX];
static CK_FUNCTION_LIST *f;
static void *lib;
static int counter;
static CK_SLOT_ID slot;
static CK_SESSION_HANDLE s;

#define SO_PIN "so-secret"
#define USER_PIN "1234"

static const uint8_t OID_P256[] = { 0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07 };
static const uint8_t OID_P384[] = { 0x06, 0x05, 0x2B, 0x81, 0x04, 0x00, 0x22 };
static CK_BBOOL yes = CK_TRUE, no = CK_FALSE;

/* A token with a user PIN, a R/W session logged in as the user. */
static void setup(void)
{
	snprintf(dir, sizeof(dir), "%s/state%d", tmp_root, counter++);
	setenv("PQTPM_STATE_DIR", dir, 1);
	p11_token_user_session(f, "crypt", SO_PIN, USER_PIN, &slot, &s);
}

static void teardown(void)
{
	f->C_Finalize(NULL);
	harness_rm_tree(dir);
}

/* An RSA key pair for encryption (use: CKA_ENCRYPT / CKA_DECRYPT as asked). */
static CK_RV gen_rsa(CK_ULONG bits, CK_BBOOL use, CK_OBJECT_HANDLE *pub, CK_OBJECT_HANDLE *priv)
{
	CK_MECHANISM m = { CKM_RSA_PKCS_KEY_PAIR_GEN, NULL, 0 };
	CK_ATTRIBUTE pt[] = { { CKA_MODULUS_BITS, &bits, sizeof(bits) },
			      { CKA_ENCRYPT, &use, sizeof(use) } };
	CK_ATTRIBUTE kt[] = { { CKA_DECRYPT, &use, sizeof(use) } };

	return f->C_GenerateKeyPair(s, &m, pt, 2, kt, 1, pub, priv);
}

/* Encrypt msg with the public key, decrypt it with the private one: the same bytes back. */
static void round_trip(CK_MECHANISM *m, CK_OBJECT_HANDLE pub, CK_OBJECT_HANDLE priv,
		       CK_ULONG mod)
{
	static const uint8_t msg[] = "a secret of a few bytes";
	uint8_t ct[512], pt[512];
	CK_ULONG clen = 0, plen = 0;

	CU_ASSERT_EQUAL_FATAL(f->C_EncryptInit(s, m, pub), CKR_OK);
	CU_ASSERT_EQUAL(f->C_Encrypt(s, (CK_BYTE *)msg, sizeof(msg), NULL, &clen), CKR_OK);
	CU_ASSERT_EQUAL(clen, mod);
	clen = 8;
	CU_ASSERT_EQUAL(f->C_Encrypt(s, (CK_BYTE *)msg, sizeof(msg), ct, &clen),
			CKR_BUFFER_TOO_SMALL);
	clen = sizeof(ct);
	CU_ASSERT_EQUAL_FATAL(f->C_Encrypt(s, (CK_BYTE *)msg, sizeof(msg), ct, &clen), CKR_OK);
	CU_ASSERT_EQUAL(clen, mod);
	CU_ASSERT_EQUAL(f->C_Encrypt(s, (CK_BYTE *)msg, sizeof(msg), ct, &clen),
			CKR_OPERATION_NOT_INITIALIZED);

	CU_ASSERT_EQUAL_FATAL(f->C_DecryptInit(s, m, priv), CKR_OK);
	CU_ASSERT_EQUAL(f->C_DecryptInit(s, m, priv), CKR_OPERATION_ACTIVE);
	CU_ASSERT_EQUAL(f->C_Decrypt(s, ct, clen, NULL, &plen), CKR_OK);
	CU_ASSERT(plen >= sizeof(msg));
	plen = 4;
	CU_ASSERT_EQUAL(f->C_Decrypt(s, ct, clen, pt, &plen), CKR_BUFFER_TOO_SMALL);
	CU_ASSERT_EQUAL(plen, sizeof(msg));
	plen = sizeof(pt);
	CU_ASSERT_EQUAL_FATAL(f->C_Decrypt(s, ct, clen, pt, &plen), CKR_OK);
	CU_ASSERT_EQUAL(plen, sizeof(msg));
	CU_ASSERT(!memcmp(pt, msg, sizeof(msg)));

	/* a damaged ciphertext does not decrypt; a short one is refused before the TPM */
	ct[clen / 2] ^= 0x01;
	CU_ASSERT_EQUAL_FATAL(f->C_DecryptInit(s, m, priv), CKR_OK);
	plen = sizeof(pt);
	CU_ASSERT_EQUAL(f->C_Decrypt(s, ct, clen, pt, &plen), CKR_ENCRYPTED_DATA_INVALID);
	CU_ASSERT_EQUAL_FATAL(f->C_DecryptInit(s, m, priv), CKR_OK);
	plen = sizeof(pt);
	CU_ASSERT_EQUAL(f->C_Decrypt(s, ct, clen - 1, pt, &plen), CKR_ENCRYPTED_DATA_LEN_RANGE);
}

static void test_rsa(void)
{
	static uint8_t label[] = "label\0";
	CK_RSA_PKCS_OAEP_PARAMS sha1 = { CKM_SHA_1, CKG_MGF1_SHA1, CKZ_DATA_SPECIFIED, NULL, 0 };
	CK_RSA_PKCS_OAEP_PARAMS sha256 = { CKM_SHA256, CKG_MGF1_SHA256, CKZ_DATA_SPECIFIED, NULL,
					   0 };
	CK_RSA_PKCS_OAEP_PARAMS labelled = { CKM_SHA256, CKG_MGF1_SHA256, CKZ_DATA_SPECIFIED,
					     label, 6 };
	CK_MECHANISM pkcs = { CKM_RSA_PKCS, NULL, 0 };
	CK_MECHANISM oaep1 = { CKM_RSA_PKCS_OAEP, &sha1, sizeof(sha1) };
	CK_MECHANISM oaep256 = { CKM_RSA_PKCS_OAEP, &sha256, sizeof(sha256) };
	CK_MECHANISM oaepl = { CKM_RSA_PKCS_OAEP, &labelled, sizeof(labelled) };
	CK_OBJECT_HANDLE pub, priv, pub3, priv3;

	CU_ASSERT_EQUAL_FATAL(gen_rsa(2048, CK_TRUE, &pub, &priv), CKR_OK);
	round_trip(&pkcs, pub, priv, 256);
	round_trip(&oaep1, pub, priv, 256);
	round_trip(&oaep256, pub, priv, 256);
	round_trip(&oaepl, pub, priv, 256);
	CU_ASSERT_EQUAL_FATAL(gen_rsa(3072, CK_TRUE, &pub3, &priv3), CKR_OK);
	round_trip(&oaep256, pub3, priv3, 384);
}

/* Parameters the TPM cannot honour, keys that may not, data too long, no login. */
static void test_rsa_errors(void)
{
	static uint8_t label[] = "no zero";
	CK_RSA_PKCS_OAEP_PARAMS mixed = { CKM_SHA256, CKG_MGF1_SHA1, CKZ_DATA_SPECIFIED, NULL, 0 };
	CK_RSA_PKCS_OAEP_PARAMS unterminated = { CKM_SHA256, CKG_MGF1_SHA256, CKZ_DATA_SPECIFIED,
						 label, 7 };
	CK_RSA_PKCS_OAEP_PARAMS sha256 = { CKM_SHA256, CKG_MGF1_SHA256, CKZ_DATA_SPECIFIED, NULL,
					   0 };
	CK_MECHANISM m_mixed = { CKM_RSA_PKCS_OAEP, &mixed, sizeof(mixed) };
	CK_MECHANISM m_unterminated = { CKM_RSA_PKCS_OAEP, &unterminated, sizeof(unterminated) };
	CK_MECHANISM m_none = { CKM_RSA_PKCS_OAEP, NULL, 0 };
	CK_MECHANISM oaep = { CKM_RSA_PKCS_OAEP, &sha256, sizeof(sha256) };
	CK_MECHANISM pss = { CKM_RSA_PKCS_PSS, NULL, 0 };
	CK_MECHANISM pkcs = { CKM_RSA_PKCS, NULL, 0 };
	CK_OBJECT_HANDLE pub, priv, spub, spriv;
	uint8_t big[256], ct[256];
	CK_ULONG len = sizeof(ct);
	CK_MECHANISM_INFO info;

	CU_ASSERT_EQUAL_FATAL(gen_rsa(2048, CK_TRUE, &pub, &priv), CKR_OK);
	CU_ASSERT_EQUAL(f->C_EncryptInit(s, &m_mixed, pub), CKR_MECHANISM_PARAM_INVALID);
	CU_ASSERT_EQUAL(f->C_EncryptInit(s, &m_unterminated, pub), CKR_MECHANISM_PARAM_INVALID);
	CU_ASSERT_EQUAL(f->C_DecryptInit(s, &m_none, priv), CKR_MECHANISM_PARAM_INVALID);
	CU_ASSERT_EQUAL(f->C_EncryptInit(s, &pss, pub), CKR_MECHANISM_INVALID);
	CU_ASSERT_EQUAL(f->C_EncryptInit(s, &oaep, priv), CKR_KEY_TYPE_INCONSISTENT);
	CU_ASSERT_EQUAL(f->C_DecryptInit(s, &oaep, pub), CKR_KEY_TYPE_INCONSISTENT);
	CU_ASSERT_EQUAL(f->C_Encrypt(s, big, 1, ct, &len), CKR_OPERATION_NOT_INITIALIZED);
	CU_ASSERT_EQUAL(f->C_GetMechanismInfo(slot, CKM_RSA_PKCS_OAEP, &info), CKR_OK);
	CU_ASSERT_EQUAL(info.flags & (CKF_ENCRYPT | CKF_DECRYPT | CKF_SIGN),
			CKF_ENCRYPT | CKF_DECRYPT);
	CU_ASSERT_EQUAL(f->C_SignInit(s, &oaep, priv), CKR_MECHANISM_INVALID);

	/* OAEP SHA-256 holds at most 256 - 2 * 32 - 2 bytes */
	memset(big, 0x5A, sizeof(big));
	CU_ASSERT_EQUAL_FATAL(f->C_EncryptInit(s, &oaep, pub), CKR_OK);
	CU_ASSERT_EQUAL(f->C_Encrypt(s, big, 191, ct, &len), CKR_DATA_LEN_RANGE);
	CU_ASSERT_EQUAL_FATAL(f->C_EncryptInit(s, &pkcs, pub), CKR_OK);
	len = sizeof(ct);
	CU_ASSERT_EQUAL(f->C_Encrypt(s, big, 245, ct, &len), CKR_OK);

	/* a key made for signing only */
	CU_ASSERT_EQUAL_FATAL(gen_rsa(2048, CK_FALSE, &spub, &spriv), CKR_OK);
	CU_ASSERT_EQUAL(f->C_EncryptInit(s, &oaep, spub), CKR_KEY_FUNCTION_NOT_PERMITTED);
	CU_ASSERT_EQUAL(f->C_DecryptInit(s, &oaep, spriv), CKR_KEY_FUNCTION_NOT_PERMITTED);

	/* decryption needs the user; encryption with the public key does not */
	CU_ASSERT_EQUAL_FATAL(f->C_Logout(s), CKR_OK);
	CU_ASSERT_EQUAL(f->C_EncryptInit(s, &oaep, pub), CKR_OK);
	CU_ASSERT_EQUAL(f->C_DecryptInit(s, &oaep, priv), CKR_KEY_HANDLE_INVALID);
}

/* An EC key pair that derives (derive: CKA_DERIVE), its public point (the DER OCTET STRING). */
static void gen_ec(const uint8_t *oid, size_t oid_len, CK_BBOOL derive, CK_OBJECT_HANDLE *priv,
		   uint8_t *point, CK_ULONG *point_len)
{
	CK_MECHANISM m = { CKM_EC_KEY_PAIR_GEN, NULL, 0 };
	CK_ATTRIBUTE pt[] = { { CKA_EC_PARAMS, (void *)oid, oid_len } };
	CK_ATTRIBUTE kt[] = { { CKA_DERIVE, &derive, sizeof(derive) } };
	CK_ATTRIBUTE get = { CKA_EC_POINT, point, *point_len };
	CK_OBJECT_HANDLE pub;

	CU_ASSERT_EQUAL_FATAL(f->C_GenerateKeyPair(s, &m, pt, 1, kt, 1, &pub, priv), CKR_OK);
	CU_ASSERT_EQUAL_FATAL(f->C_GetAttributeValue(s, pub, &get, 1), CKR_OK);
	*point_len = get.ulValueLen;
}

/* ECDH1 with base and the other side's point (DER or bare), the secret readable. */
static CK_RV derive(CK_OBJECT_HANDLE base, uint8_t *point, CK_ULONG len, CK_ULONG value_len,
		    CK_OBJECT_HANDLE *out)
{
	CK_ECDH1_DERIVE_PARAMS p = { CKD_NULL, 0, NULL, len, point };
	CK_MECHANISM m = { CKM_ECDH1_DERIVE, &p, sizeof(p) };
	CK_OBJECT_CLASS cls = CKO_SECRET_KEY;
	CK_KEY_TYPE kt = CKK_GENERIC_SECRET;
	CK_ATTRIBUTE t[] = {
		{ CKA_CLASS, &cls, sizeof(cls) },	  { CKA_KEY_TYPE, &kt, sizeof(kt) },
		{ CKA_SENSITIVE, &no, sizeof(no) },	  { CKA_EXTRACTABLE, &yes, sizeof(yes) },
		{ CKA_VALUE_LEN, &value_len, sizeof(value_len) },
	};

	return f->C_DeriveKey(s, &m, base, t, value_len ? 5 : 4, out);
}

static CK_ULONG value(CK_OBJECT_HANDLE k, uint8_t *out)
{
	CK_ATTRIBUTE a = { CKA_VALUE, out, 64 };

	CU_ASSERT_EQUAL(f->C_GetAttributeValue(s, k, &a, 1), CKR_OK);
	return a.ulValueLen;
}

static void agree(const uint8_t *oid, size_t oid_len, CK_ULONG n)
{
	uint8_t pa[128], pb[128], za[64], zb[64], zt[64];
	CK_ULONG la = sizeof(pa), lb = sizeof(pb);
	CK_OBJECT_HANDLE a, b, ka, kb, kt;

	gen_ec(oid, oid_len, CK_TRUE, &a, pa, &la);
	gen_ec(oid, oid_len, CK_TRUE, &b, pb, &lb);
	CU_ASSERT_EQUAL_FATAL(la, 3 + 2 * n);
	CU_ASSERT_EQUAL_FATAL(derive(a, pb, lb, 0, &ka), CKR_OK);
	/* the bare point is taken too */
	CU_ASSERT_EQUAL_FATAL(derive(b, pa + 2, la - 2, 0, &kb), CKR_OK);
	CU_ASSERT_EQUAL(value(ka, za), n);
	CU_ASSERT_EQUAL(value(kb, zb), n);
	CU_ASSERT(!memcmp(za, zb, n));
	CU_ASSERT_EQUAL_FATAL(derive(a, pb, lb, 16, &kt), CKR_OK);
	CU_ASSERT_EQUAL(value(kt, zt), 16);
	CU_ASSERT(!memcmp(zt, za, 16));
}

static void test_ecdh(void)
{
	agree(OID_P256, sizeof(OID_P256), 32);
	agree(OID_P384, sizeof(OID_P384), 48);
}

/* The derived key's attributes, and what C_DeriveKey refuses. */
static void test_ecdh_rules(void)
{
	uint8_t pa[128], pb[128], pc[128], v[64];
	CK_ULONG la = sizeof(pa), lb = sizeof(pb), lc = sizeof(pc), value_len = 64;
	CK_BBOOL local = CK_TRUE, always = CK_FALSE, never = CK_FALSE, sensitive = CK_FALSE;
	CK_ULONG cls = 0, kt = 0;
	CK_ATTRIBUTE get[] = {
		{ CKA_CLASS, &cls, sizeof(cls) },
		{ CKA_KEY_TYPE, &kt, sizeof(kt) },
		{ CKA_LOCAL, &local, sizeof(local) },
		{ CKA_ALWAYS_SENSITIVE, &always, sizeof(always) },
		{ CKA_NEVER_EXTRACTABLE, &never, sizeof(never) },
		{ CKA_SENSITIVE, &sensitive, sizeof(sensitive) },
	};
	CK_ATTRIBUTE secret = { CKA_VALUE, v, sizeof(v) };
	CK_ECDH1_DERIVE_PARAMS p = { CKD_NULL, 0, NULL, 0, pb };
	CK_MECHANISM m = { CKM_ECDH1_DERIVE, &p, sizeof(p) };
	CK_ATTRIBUTE token = { CKA_TOKEN, &yes, sizeof(yes) };
	CK_ATTRIBUTE too_long = { CKA_VALUE_LEN, &value_len, sizeof(value_len) };
	CK_KEY_TYPE aes = CKK_AES;
	CK_ATTRIBUTE other_type = { CKA_KEY_TYPE, &aes, sizeof(aes) };
	CK_KEY_TYPE rsa = CKK_RSA;
	CK_ATTRIBUTE rsa_type = { CKA_KEY_TYPE, &rsa, sizeof(rsa) };
	CK_OBJECT_HANDLE a, b, c, k;

	gen_ec(OID_P256, sizeof(OID_P256), CK_TRUE, &a, pa, &la);
	gen_ec(OID_P256, sizeof(OID_P256), CK_TRUE, &b, pb, &lb);
	gen_ec(OID_P256, sizeof(OID_P256), CK_FALSE, &c, pc, &lc);
	p.ulPublicDataLen = lb;

	/* by default: sensitive, unextractable, so its value is not readable */
	CU_ASSERT_EQUAL_FATAL(f->C_DeriveKey(s, &m, a, NULL, 0, &k), CKR_OK);
	CU_ASSERT_EQUAL(f->C_GetAttributeValue(s, k, get, 6), CKR_OK);
	CU_ASSERT_EQUAL(cls, CKO_SECRET_KEY);
	CU_ASSERT_EQUAL(kt, CKK_GENERIC_SECRET);
	CU_ASSERT_EQUAL(local, CK_FALSE);
	CU_ASSERT_EQUAL(always, CK_TRUE);
	CU_ASSERT_EQUAL(never, CK_TRUE);
	CU_ASSERT_EQUAL(sensitive, CK_TRUE);
	CU_ASSERT_EQUAL(f->C_GetAttributeValue(s, k, &secret, 1), CKR_ATTRIBUTE_SENSITIVE);
	CU_ASSERT_EQUAL(secret.ulValueLen, CK_UNAVAILABLE_INFORMATION);
	/* an extractable one was never unextractable */
	CU_ASSERT_EQUAL_FATAL(derive(a, pb, lb, 0, &k), CKR_OK);
	CU_ASSERT_EQUAL(f->C_GetAttributeValue(s, k, get, 6), CKR_OK);
	CU_ASSERT_EQUAL(never, CK_FALSE);
	CU_ASSERT_EQUAL(always, CK_FALSE);

	/* a token key (its value in the TPM), an AES key */
	CU_ASSERT_EQUAL(f->C_DeriveKey(s, &m, a, &token, 1, &k), CKR_OK);
	CU_ASSERT_EQUAL(f->C_DeriveKey(s, &m, a, &too_long, 1, &k), CKR_ATTRIBUTE_VALUE_INVALID);
	CU_ASSERT_EQUAL(f->C_DeriveKey(s, &m, a, &other_type, 1, &k), CKR_OK);
	CU_ASSERT_EQUAL(f->C_DeriveKey(s, &m, a, &rsa_type, 1, &k), CKR_TEMPLATE_INCONSISTENT);
	CU_ASSERT_EQUAL(f->C_DeriveKey(s, &m, c, NULL, 0, &k), CKR_KEY_FUNCTION_NOT_PERMITTED);
	CU_ASSERT_EQUAL(f->C_DeriveKey(s, &m, a, NULL, 0, NULL), CKR_ARGUMENTS_BAD);
	p.kdf = CKD_SHA224_KDF; /* the TPM has no SHA-224 */
	CU_ASSERT_EQUAL(f->C_DeriveKey(s, &m, a, NULL, 0, &k), CKR_MECHANISM_PARAM_INVALID);
	p.kdf = CKD_NULL;
	/* a point off the curve, a point of the wrong size */
	pb[lb - 1] ^= 0x01;
	CU_ASSERT_EQUAL(f->C_DeriveKey(s, &m, a, NULL, 0, &k), CKR_MECHANISM_PARAM_INVALID);
	p.ulPublicDataLen = lb - 1;
	CU_ASSERT_EQUAL(f->C_DeriveKey(s, &m, a, NULL, 0, &k), CKR_MECHANISM_PARAM_INVALID);
	p.ulPublicDataLen = lb;
	pb[lb - 1] ^= 0x01;
	CU_ASSERT_EQUAL(f->C_Logout(s), CKR_OK);
	CU_ASSERT_EQUAL(f->C_DeriveKey(s, &m, a, NULL, 0, &k), CKR_KEY_HANDLE_INVALID);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "RSA 2048/3072: PKCS#1 v1.5 and OAEP SHA-1/SHA-256, a label", test_rsa },
		{ "RSA encryption: parameters, key use, lengths, login", test_rsa_errors },
		{ "ECDH1 P-256/P-384: both sides agree, CKA_VALUE_LEN", test_ecdh },
		{ "ECDH1: the derived key's attributes, what is refused", test_ecdh_rules },
	};
	int failed;

	if (!mkdtemp(tmp_root) || p11_module_load(&lib, &f) != 0)
		return 1;
	failed = UNIT_RUN("pkcs11 crypt", tests, setup, teardown);
	dlclose(lib);
	harness_rm_tree(tmp_root);
	return failed;
}
