/* The PKCS#11 module's ML-KEM and its PKCS#11 3.2 interface, through the "PKCS 11" 3.2 function
 * list (dlopen, C_GetInterface): ML-KEM-512/768/1024 key pairs in the TPM, C_EncapsulateKey to
 * the token's public key and to one made elsewhere (C_CreateObject), C_DecapsulateKey giving the
 * same secret, the shared secret's key (generic or AES, readable only when asked), the
 * attribute rules of ML-KEM keys in C_SetAttributeValue and C_CopyObject, the errors the
 * specification names; the 3.2 list's layout and its functions not implemented. */
#include <dlfcn.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "crypto/crypto.h"
#include "harness.h"
#include "p11_token.h"
#include "pk3.h"
#include "unit_main.h"

static char tmp_root[] = "/tmp/pqtpm-test-pkcs11-kem-XXXXXX";
static char dir[PATH_MAX];
static CK_FUNCTION_LIST_3_2 *f;
static void *lib;
static int counter;
static CK_SLOT_ID slot;
static CK_SESSION_HANDLE s;

#define SO_PIN "so-secret"
#define USER_PIN "1234"

static CK_BBOOL yes = CK_TRUE, no = CK_FALSE;
static CK_OBJECT_CLASS pub_class = CKO_PUBLIC_KEY;
static CK_KEY_TYPE kem_type = CKK_ML_KEM, aes_type = CKK_AES;
static const size_t ek_len[] = { 0, 800, 1184, 1568 }, ct_len[] = { 0, 768, 1088, 1568 };

static void setup(void)
{
	snprintf(dir, sizeof(dir), "%s/state%d", tmp_root, counter++);
	setenv("PQTPM_STATE_DIR", dir, 1);
	p11_token_user_session((CK_FUNCTION_LIST *)f, "kem", SO_PIN, USER_PIN, &slot, &s);
}

static void teardown(void)
{
	f->C_Finalize(NULL);
	harness_rm_tree(dir);
}

static CK_RV gen_kem(CK_ULONG set, CK_OBJECT_HANDLE *pub, CK_OBJECT_HANDLE *priv)
{
	CK_MECHANISM m = { CKM_ML_KEM_KEY_PAIR_GEN, NULL, 0 };
	CK_ATTRIBUTE pt[] = { { CKA_PARAMETER_SET, &set, sizeof(set) } };

	return f->C_GenerateKeyPair(s, &m, pt, 1, NULL, 0, pub, priv);
}

/* The template of a readable shared-secret key (of type, len bytes; 0: the default). */
#define READABLE(type, len)                                                                    \
	{ { CKA_SENSITIVE, &no, sizeof(no) },                                                 \
	  { CKA_EXTRACTABLE, &yes, sizeof(yes) },                                             \
	  { CKA_KEY_TYPE, &(type), sizeof(type) },                                            \
	  { CKA_VALUE_LEN, &(len), sizeof(len) } }

static CK_ULONG value(CK_OBJECT_HANDLE k, uint8_t *v, CK_ULONG cap)
{
	CK_ATTRIBUTE a = { CKA_VALUE, v, cap };

	f->C_GetAttributeValue(s, k, &a, 1);
	return a.ulValueLen;
}

static CK_BBOOL attr_bool(CK_OBJECT_HANDLE k, CK_ATTRIBUTE_TYPE type)
{
	CK_BBOOL b = 0xAA;
	CK_ATTRIBUTE a = { type, &b, sizeof(b) };

	CU_ASSERT_EQUAL(f->C_GetAttributeValue(s, k, &a, 1), CKR_OK);
	return b;
}

/* Encapsulate to pub, decapsulate with priv: the same readable 32-byte secret, the ciphertext
 * of its set's size, with the two-call pattern. */
static void round_trip(CK_ULONG set, CK_OBJECT_HANDLE pub, CK_OBJECT_HANDLE priv)
{
	static uint8_t ct[1600];
	CK_KEY_TYPE gen = CKK_GENERIC_SECRET;
	CK_ULONG len = 0, n = 0;
	CK_ATTRIBUTE t[] = READABLE(gen, len);
	CK_MECHANISM m = { CKM_ML_KEM, NULL, 0 };
	uint8_t a[64], b[64];
	CK_OBJECT_HANDLE ka = 0, kb = 0;

	CU_ASSERT_EQUAL(f->C_EncapsulateKey(s, &m, pub, t, 3, NULL, &n, &ka), CKR_OK);
	CU_ASSERT_EQUAL(n, ct_len[set]);
	CU_ASSERT_EQUAL(ka, 0); /* a length query makes no key */
	n = ct_len[set] - 1;
	CU_ASSERT_EQUAL(f->C_EncapsulateKey(s, &m, pub, t, 3, ct, &n, &ka), CKR_BUFFER_TOO_SMALL);
	CU_ASSERT_EQUAL(n, ct_len[set]);
	n = sizeof(ct);
	CU_ASSERT_EQUAL_FATAL(f->C_EncapsulateKey(s, &m, pub, t, 3, ct, &n, &ka), CKR_OK);
	CU_ASSERT_EQUAL(n, ct_len[set]);
	CU_ASSERT_EQUAL_FATAL(f->C_DecapsulateKey(s, &m, priv, t, 3, ct, n, &kb), CKR_OK);
	CU_ASSERT_EQUAL_FATAL(value(ka, a, sizeof(a)), 32);
	CU_ASSERT_EQUAL_FATAL(value(kb, b, sizeof(b)), 32);
	CU_ASSERT_EQUAL(memcmp(a, b, 32), 0);
	/* the attributes PKCS#11 3.2 gives a KEM's key */
	CU_ASSERT_EQUAL(attr_bool(ka, CKA_LOCAL), CK_FALSE);
	CU_ASSERT_EQUAL(attr_bool(kb, CKA_ALWAYS_SENSITIVE), CK_FALSE);
	CU_ASSERT_EQUAL(attr_bool(kb, CKA_NEVER_EXTRACTABLE), CK_FALSE);
	/* a ciphertext changed: ML-KEM's implicit rejection, another secret and no error */
	ct[10] ^= 1;
	CU_ASSERT_EQUAL_FATAL(f->C_DecapsulateKey(s, &m, priv, t, 3, ct, n, &kb), CKR_OK);
	CU_ASSERT_EQUAL_FATAL(value(kb, b, sizeof(b)), 32);
	CU_ASSERT_NOT_EQUAL(memcmp(a, b, 32), 0);
}

/* ML-KEM-512/768/1024 key pairs: their attributes and sizes; each set's round trip. */
static void test_kem_keys(void)
{
	static uint8_t ek[1600];
	CK_OBJECT_HANDLE pub, priv;
	CK_ULONG set;
	CK_ATTRIBUTE ps = { CKA_PARAMETER_SET, &set, sizeof(set) };

	for (set = 1; set <= 3; set++) {
		CK_ULONG got = 0;

		CU_ASSERT_EQUAL_FATAL(gen_kem(set, &pub, &priv), CKR_OK);
		CU_ASSERT_EQUAL(value(pub, ek, sizeof(ek)), ek_len[set]);
		CU_ASSERT_EQUAL(value(priv, ek, sizeof(ek)), CK_UNAVAILABLE_INFORMATION);
		ps.pValue = &got;
		CU_ASSERT_EQUAL(f->C_GetAttributeValue(s, priv, &ps, 1), CKR_OK);
		CU_ASSERT_EQUAL(got, set);
		ps.pValue = &set;
		CU_ASSERT_EQUAL(attr_bool(pub, CKA_ENCAPSULATE), CK_TRUE);
		CU_ASSERT_EQUAL(attr_bool(priv, CKA_DECAPSULATE), CK_TRUE);
		CU_ASSERT_EQUAL(attr_bool(priv, CKA_SIGN), CK_FALSE);
		CU_ASSERT_EQUAL(attr_bool(pub, CKA_VERIFY), CK_FALSE);
		CU_ASSERT_EQUAL(attr_bool(priv, CKA_SENSITIVE), CK_TRUE);
		CU_ASSERT_EQUAL(attr_bool(priv, CKA_LOCAL), CK_TRUE);
		round_trip(set, pub, priv);
	}
}

/* What C_GenerateKeyPair refuses for ML-KEM. */
static void test_kem_keygen_errors(void)
{
	CK_MECHANISM m = { CKM_ML_KEM_KEY_PAIR_GEN, NULL, 0 };
	CK_ULONG set = 2, bad = 4;
	CK_ATTRIBUTE ok[] = { { CKA_PARAMETER_SET, &set, sizeof(set) } };
	CK_ATTRIBUTE bad_set[] = { { CKA_PARAMETER_SET, &bad, sizeof(bad) } };
	CK_ATTRIBUTE sign[] = { { CKA_SIGN, &yes, sizeof(yes) } };
	CK_ATTRIBUTE decrypt[] = { { CKA_DECRYPT, &yes, sizeof(yes) } };
	CK_ATTRIBUTE encaps[] = { { CKA_ENCAPSULATE, &yes, sizeof(yes) } };
	CK_MECHANISM ec = { CKM_EC_KEY_PAIR_GEN, NULL, 0 };
	static const uint8_t p256[] = { 0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07 };
	CK_ATTRIBUTE ec_pub[] = { { CKA_EC_PARAMS, (void *)p256, sizeof(p256) },
				  { CKA_ENCAPSULATE, &yes, sizeof(yes) } };
	CK_OBJECT_HANDLE pub, priv;

	CU_ASSERT_EQUAL(f->C_GenerateKeyPair(s, &m, NULL, 0, NULL, 0, &pub, &priv),
			CKR_TEMPLATE_INCOMPLETE);
	CU_ASSERT_EQUAL(f->C_GenerateKeyPair(s, &m, bad_set, 1, NULL, 0, &pub, &priv),
			CKR_ATTRIBUTE_VALUE_INVALID);
	CU_ASSERT_EQUAL(f->C_GenerateKeyPair(s, &m, ok, 1, sign, 1, &pub, &priv),
			CKR_TEMPLATE_INCONSISTENT);
	CU_ASSERT_EQUAL(f->C_GenerateKeyPair(s, &m, ok, 1, decrypt, 1, &pub, &priv),
			CKR_TEMPLATE_INCONSISTENT);
	CU_ASSERT_EQUAL(f->C_GenerateKeyPair(s, &m, ok, 1, NULL, 0, &pub, &priv), CKR_OK);
	/* the set in the private key's template is taken too */
	CU_ASSERT_EQUAL(f->C_GenerateKeyPair(s, &m, NULL, 0, ok, 1, &pub, &priv), CKR_OK);
	CU_ASSERT_EQUAL(f->C_GenerateKeyPair(s, &ec, ec_pub, 2, NULL, 0, &pub, &priv),
			CKR_TEMPLATE_INCONSISTENT);
	CU_ASSERT_EQUAL(f->C_GenerateKeyPair(s, &m, ok, 1, encaps, 1, &pub, &priv),
			CKR_ATTRIBUTE_TYPE_INVALID); /* CKA_ENCAPSULATE is a public key's */
}

/* The shared secret as an AES key: both sides' keys encrypt alike; as a token key it is not
 * readable; CKA_VALUE_LEN cuts it. */
static void test_kem_secret_keys(void)
{
	static uint8_t ct[1600];
	CK_ULONG len = 16, n = sizeof(ct), c1 = 0, c2 = 0, big = 33;
	CK_ATTRIBUTE aes[] = { { CKA_KEY_TYPE, &aes_type, sizeof(aes_type) },
			       { CKA_VALUE_LEN, &len, sizeof(len) } };
	CK_ATTRIBUTE token[] = { { CKA_TOKEN, &yes, sizeof(yes) } };
	CK_ATTRIBUTE too_long[] = { { CKA_VALUE_LEN, &big, sizeof(big) } };
	CK_ATTRIBUTE readable_token[] = { { CKA_TOKEN, &yes, sizeof(yes) },
					  { CKA_SENSITIVE, &no, sizeof(no) } };
	CK_MECHANISM m = { CKM_ML_KEM, NULL, 0 }, ecb = { CKM_AES_ECB, NULL, 0 };
	uint8_t block[16] = { 0 }, o1[16], o2[16], v[64];
	CK_OBJECT_HANDLE pub, priv, ka, kb;

	CU_ASSERT_EQUAL_FATAL(gen_kem(CKP_ML_KEM_768, &pub, &priv), CKR_OK);
	CU_ASSERT_EQUAL_FATAL(f->C_EncapsulateKey(s, &m, pub, aes, 2, ct, &n, &ka), CKR_OK);
	CU_ASSERT_EQUAL_FATAL(f->C_DecapsulateKey(s, &m, priv, aes, 2, ct, n, &kb), CKR_OK);
	CU_ASSERT_EQUAL_FATAL(f->C_EncryptInit(s, &ecb, ka), CKR_OK);
	c1 = sizeof(o1);
	CU_ASSERT_EQUAL(f->C_Encrypt(s, block, 16, o1, &c1), CKR_OK);
	CU_ASSERT_EQUAL_FATAL(f->C_EncryptInit(s, &ecb, kb), CKR_OK);
	c2 = sizeof(o2);
	CU_ASSERT_EQUAL(f->C_Encrypt(s, block, 16, o2, &c2), CKR_OK);
	CU_ASSERT_EQUAL(memcmp(o1, o2, 16), 0);
	/* by default sensitive (extractable, as 3.2 has it): its value not shown */
	n = sizeof(ct);
	CU_ASSERT_EQUAL_FATAL(f->C_EncapsulateKey(s, &m, pub, token, 1, ct, &n, &ka), CKR_OK);
	CU_ASSERT_EQUAL(attr_bool(ka, CKA_TOKEN), CK_TRUE);
	CU_ASSERT_EQUAL(attr_bool(ka, CKA_EXTRACTABLE), CK_TRUE);
	CU_ASSERT_EQUAL(value(ka, v, sizeof(v)), CK_UNAVAILABLE_INFORMATION);
	CU_ASSERT_EQUAL(f->C_EncapsulateKey(s, &m, pub, too_long, 1, ct, &n, &ka),
			CKR_ATTRIBUTE_VALUE_INVALID);
	CU_ASSERT_EQUAL(f->C_EncapsulateKey(s, &m, pub, readable_token, 2, ct, &n, &ka),
			CKR_TEMPLATE_INCONSISTENT);
}

/* An ML-KEM public key made elsewhere (here: the token's own ek, as C_CreateObject gets it):
 * encapsulated to, the token's private key decapsulates the same secret; keys that are not
 * ML-KEM encapsulation keys refused. */
static void test_kem_import(void)
{
	static uint8_t ek[1600], ct[1600];
	CK_ULONG set = CKP_ML_KEM_512, other = CKP_ML_KEM_768, n = sizeof(ct), len = 0;
	CK_KEY_TYPE gen = CKK_GENERIC_SECRET;
	CK_ATTRIBUTE t[] = {
		{ CKA_CLASS, &pub_class, sizeof(pub_class) },
		{ CKA_KEY_TYPE, &kem_type, sizeof(kem_type) },
		{ CKA_VALUE, ek, 800 },
		{ CKA_PARAMETER_SET, &set, sizeof(set) },
	};
	CK_ATTRIBUTE rt[] = READABLE(gen, len);
	CK_MECHANISM m = { CKM_ML_KEM, NULL, 0 };
	CK_OBJECT_HANDLE pub, priv, imported, ka, kb;
	uint8_t a[64], b[64];

	CU_ASSERT_EQUAL_FATAL(gen_kem(set, &pub, &priv), CKR_OK);
	CU_ASSERT_EQUAL_FATAL(value(pub, ek, sizeof(ek)), 800);
	CU_ASSERT_EQUAL_FATAL(f->C_CreateObject(s, t, 4, &imported), CKR_OK);
	CU_ASSERT_EQUAL(attr_bool(imported, CKA_LOCAL), CK_FALSE);
	CU_ASSERT_EQUAL(attr_bool(imported, CKA_ENCAPSULATE), CK_TRUE);
	CU_ASSERT_EQUAL_FATAL(f->C_EncapsulateKey(s, &m, imported, rt, 3, ct, &n, &ka), CKR_OK);
	CU_ASSERT_EQUAL_FATAL(f->C_DecapsulateKey(s, &m, priv, rt, 3, ct, n, &kb), CKR_OK);
	CU_ASSERT_EQUAL(value(ka, a, sizeof(a)), 32);
	CU_ASSERT_EQUAL(value(kb, b, sizeof(b)), 32);
	CU_ASSERT_EQUAL(memcmp(a, b, 32), 0);
	/* without CKA_PARAMETER_SET: from the key's size */
	CU_ASSERT_EQUAL(f->C_CreateObject(s, t, 3, &imported), CKR_OK);
	t[3].pValue = &other;
	CU_ASSERT_EQUAL(f->C_CreateObject(s, t, 4, &imported), CKR_ATTRIBUTE_VALUE_INVALID);
	t[3].pValue = &set;
	t[2].ulValueLen = 801;
	CU_ASSERT_EQUAL(f->C_CreateObject(s, t, 4, &imported), CKR_ATTRIBUTE_VALUE_INVALID);
	t[2].ulValueLen = 800;
	CU_ASSERT_EQUAL(f->C_CreateObject(s, t, 2, &imported), CKR_TEMPLATE_INCOMPLETE);
	/* coefficients of q and above: not an encapsulation key (FIPS 203 §7.2) */
	memset(ek, 0xff, 768);
	CU_ASSERT_EQUAL(f->C_CreateObject(s, t, 4, &imported), CKR_ATTRIBUTE_VALUE_INVALID);
}

/* C_SetAttributeValue and C_CopyObject of ML-KEM keys, by the rules of every key pair: the
 * encapsulate / decapsulate uses may be taken away, not given back; the parameter set and the
 * encapsulation key are read-only, a use of the other class not there; a copy (of a key made
 * copyable by default, as every object) decapsulates what its original's public key
 * encapsulated; one made not copyable is not copied; an ML-KEM public key made elsewhere is
 * copyable as every key. */
static void test_kem_set_copy(void)
{
	static uint8_t ct[1600], ek[1600];
	CK_MECHANISM m = { CKM_ML_KEM, NULL, 0 }, km = { CKM_ML_KEM_KEY_PAIR_GEN, NULL, 0 };
	CK_KEY_TYPE gen = CKK_GENERIC_SECRET;
	CK_ULONG set = CKP_ML_KEM_768, other = CKP_ML_KEM_512, len = 0, n = sizeof(ct);
	CK_ATTRIBUTE pt[] = { { CKA_PARAMETER_SET, &set, sizeof(set) },
			      { CKA_COPYABLE, &no, sizeof(no) } };
	CK_ATTRIBUTE rt[] = READABLE(gen, len);
	CK_ATTRIBUTE no_encaps[] = { { CKA_ENCAPSULATE, &no, sizeof(no) } };
	CK_ATTRIBUTE encaps[] = { { CKA_ENCAPSULATE, &yes, sizeof(yes) } };
	CK_ATTRIBUTE no_decaps[] = { { CKA_DECAPSULATE, &no, sizeof(no) } };
	CK_ATTRIBUTE decaps[] = { { CKA_DECAPSULATE, &yes, sizeof(yes) } };
	CK_ATTRIBUTE ps[] = { { CKA_PARAMETER_SET, &other, sizeof(other) } };
	CK_ATTRIBUTE val[] = { { CKA_VALUE, ek, 1184 } };
	CK_ATTRIBUTE imp[] = {
		{ CKA_CLASS, &pub_class, sizeof(pub_class) },
		{ CKA_KEY_TYPE, &kem_type, sizeof(kem_type) },
		{ CKA_VALUE, ek, 1184 },
	};
	CK_OBJECT_HANDLE pub, priv, copy, imported, ka, kb;
	uint8_t a[64], b[64];

	CU_ASSERT_EQUAL_FATAL(f->C_GenerateKeyPair(s, &km, pt, 2, NULL, 0, &pub, &priv), CKR_OK);
	CU_ASSERT_EQUAL(attr_bool(pub, CKA_COPYABLE), CK_FALSE);
	CU_ASSERT_EQUAL(attr_bool(priv, CKA_COPYABLE), CK_TRUE);
	CU_ASSERT_EQUAL(f->C_CopyObject(s, pub, NULL, 0, &copy), CKR_ACTION_PROHIBITED);
	CU_ASSERT_EQUAL_FATAL(f->C_CopyObject(s, priv, NULL, 0, &copy), CKR_OK);
	CU_ASSERT_EQUAL_FATAL(f->C_EncapsulateKey(s, &m, pub, rt, 3, ct, &n, &ka), CKR_OK);
	CU_ASSERT_EQUAL_FATAL(f->C_DecapsulateKey(s, &m, copy, rt, 3, ct, n, &kb), CKR_OK);
	CU_ASSERT_EQUAL(value(ka, a, sizeof(a)), 32);
	CU_ASSERT_EQUAL(value(kb, b, sizeof(b)), 32);
	CU_ASSERT_EQUAL(memcmp(a, b, 32), 0);
	/* the uses: taken away, not given back */
	CU_ASSERT_EQUAL(f->C_SetAttributeValue(s, pub, no_encaps, 1), CKR_OK);
	CU_ASSERT_EQUAL(f->C_EncapsulateKey(s, &m, pub, rt, 3, ct, &n, &ka),
			CKR_KEY_FUNCTION_NOT_PERMITTED);
	CU_ASSERT_EQUAL(f->C_SetAttributeValue(s, pub, encaps, 1), CKR_ATTRIBUTE_VALUE_INVALID);
	CU_ASSERT_EQUAL(f->C_SetAttributeValue(s, copy, no_decaps, 1), CKR_OK);
	CU_ASSERT_EQUAL(f->C_DecapsulateKey(s, &m, copy, rt, 3, ct, n, &kb),
			CKR_KEY_FUNCTION_NOT_PERMITTED);
	CU_ASSERT_EQUAL(f->C_SetAttributeValue(s, copy, decaps, 1), CKR_ATTRIBUTE_VALUE_INVALID);
	/* the original keeps its use */
	CU_ASSERT_EQUAL(f->C_DecapsulateKey(s, &m, priv, rt, 3, ct, n, &kb), CKR_OK);
	CU_ASSERT_EQUAL(f->C_SetAttributeValue(s, pub, decaps, 1), CKR_ATTRIBUTE_TYPE_INVALID);
	CU_ASSERT_EQUAL(f->C_SetAttributeValue(s, priv, encaps, 1), CKR_ATTRIBUTE_TYPE_INVALID);
	CU_ASSERT_EQUAL(f->C_SetAttributeValue(s, pub, ps, 1), CKR_ATTRIBUTE_READ_ONLY);
	CU_ASSERT_EQUAL(f->C_SetAttributeValue(s, pub, val, 1), CKR_ATTRIBUTE_READ_ONLY);
	/* a public key from elsewhere: the rules of every public key */
	CU_ASSERT_EQUAL_FATAL(value(pub, ek, sizeof(ek)), 1184);
	CU_ASSERT_EQUAL_FATAL(f->C_CreateObject(s, imp, 3, &imported), CKR_OK);
	CU_ASSERT_EQUAL(attr_bool(imported, CKA_COPYABLE), CK_TRUE);
	CU_ASSERT_EQUAL(attr_bool(imported, CKA_VERIFY), CK_FALSE);
	CU_ASSERT_EQUAL(f->C_CopyObject(s, imported, NULL, 0, &copy), CKR_OK);
	CU_ASSERT_EQUAL(f->C_SetAttributeValue(s, imported, no_encaps, 1), CKR_OK);
	CU_ASSERT_EQUAL(f->C_EncapsulateKey(s, &m, imported, rt, 3, ct, &n, &ka),
			CKR_KEY_FUNCTION_NOT_PERMITTED);
}

/* What C_EncapsulateKey and C_DecapsulateKey refuse: NULL pointers, handles, mechanisms, keys,
 * lengths, the login the new key needs. */
static void test_kem_errors(void)
{
	static uint8_t ct[1600];
	CK_ULONG n = sizeof(ct), p = 1;
	CK_MECHANISM m = { CKM_ML_KEM, NULL, 0 }, param = { CKM_ML_KEM, &p, sizeof(p) },
		     other = { CKM_ECDH1_DERIVE, NULL, 0 };
	CK_MECHANISM eg = { CKM_EC_KEY_PAIR_GEN, NULL, 0 };
	static const uint8_t p256[] = { 0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07 };
	CK_ATTRIBUTE ec_pub[] = { { CKA_EC_PARAMS, (void *)p256, sizeof(p256) } };
	CK_ULONG set = CKP_ML_KEM_512;
	CK_ATTRIBUTE no_encaps[] = { { CKA_PARAMETER_SET, &set, sizeof(set) },
				     { CKA_ENCAPSULATE, &no, sizeof(no) } };
	CK_ATTRIBUTE no_decaps[] = { { CKA_DECAPSULATE, &no, sizeof(no) } };
	CK_MECHANISM km = { CKM_ML_KEM_KEY_PAIR_GEN, NULL, 0 };
	CK_OBJECT_HANDLE pub, priv, ecpub, ecpriv, npub, npriv, k;

	CU_ASSERT_EQUAL_FATAL(gen_kem(CKP_ML_KEM_512, &pub, &priv), CKR_OK);
	CU_ASSERT_EQUAL_FATAL(f->C_GenerateKeyPair(s, &eg, ec_pub, 1, NULL, 0, &ecpub, &ecpriv),
			      CKR_OK);
	CU_ASSERT_EQUAL_FATAL(
		f->C_GenerateKeyPair(s, &km, no_encaps, 2, no_decaps, 1, &npub, &npriv), CKR_OK);
	CU_ASSERT_EQUAL(f->C_EncapsulateKey(s, NULL, pub, NULL, 0, ct, &n, &k), CKR_ARGUMENTS_BAD);
	CU_ASSERT_EQUAL(f->C_EncapsulateKey(s, &m, pub, NULL, 0, ct, NULL, &k), CKR_ARGUMENTS_BAD);
	CU_ASSERT_EQUAL(f->C_EncapsulateKey(s, &m, pub, NULL, 0, ct, &n, NULL), CKR_ARGUMENTS_BAD);
	CU_ASSERT_EQUAL(f->C_EncapsulateKey(s, &m, pub, NULL, 1, ct, &n, &k), CKR_ARGUMENTS_BAD);
	CU_ASSERT_EQUAL(f->C_EncapsulateKey(0x7777, &m, pub, NULL, 0, ct, &n, &k),
			CKR_SESSION_HANDLE_INVALID);
	CU_ASSERT_EQUAL(f->C_EncapsulateKey(s, &m, 0x7777, NULL, 0, ct, &n, &k),
			CKR_KEY_HANDLE_INVALID);
	CU_ASSERT_EQUAL(f->C_EncapsulateKey(s, &other, pub, NULL, 0, ct, &n, &k),
			CKR_MECHANISM_INVALID);
	CU_ASSERT_EQUAL(f->C_EncapsulateKey(s, &param, pub, NULL, 0, ct, &n, &k),
			CKR_MECHANISM_PARAM_INVALID);
	CU_ASSERT_EQUAL(f->C_EncapsulateKey(s, &m, priv, NULL, 0, ct, &n, &k),
			CKR_KEY_TYPE_INCONSISTENT);
	CU_ASSERT_EQUAL(f->C_EncapsulateKey(s, &m, ecpub, NULL, 0, ct, &n, &k),
			CKR_KEY_TYPE_INCONSISTENT);
	CU_ASSERT_EQUAL(f->C_EncapsulateKey(s, &m, npub, NULL, 0, ct, &n, &k),
			CKR_KEY_FUNCTION_NOT_PERMITTED);
	CU_ASSERT_EQUAL_FATAL(f->C_EncapsulateKey(s, &m, pub, NULL, 0, ct, &n, &k), CKR_OK);
	CU_ASSERT_EQUAL(f->C_DecapsulateKey(s, NULL, priv, NULL, 0, ct, n, &k), CKR_ARGUMENTS_BAD);
	CU_ASSERT_EQUAL(f->C_DecapsulateKey(s, &m, priv, NULL, 0, NULL, n, &k), CKR_ARGUMENTS_BAD);
	CU_ASSERT_EQUAL(f->C_DecapsulateKey(s, &m, priv, NULL, 0, ct, n, NULL), CKR_ARGUMENTS_BAD);
	CU_ASSERT_EQUAL(f->C_DecapsulateKey(0x7777, &m, priv, NULL, 0, ct, n, &k),
			CKR_SESSION_HANDLE_INVALID);
	CU_ASSERT_EQUAL(f->C_DecapsulateKey(s, &m, 0x7777, NULL, 0, ct, n, &k),
			CKR_KEY_HANDLE_INVALID);
	CU_ASSERT_EQUAL(f->C_DecapsulateKey(s, &m, pub, NULL, 0, ct, n, &k),
			CKR_KEY_TYPE_INCONSISTENT);
	CU_ASSERT_EQUAL(f->C_DecapsulateKey(s, &m, ecpriv, NULL, 0, ct, n, &k),
			CKR_KEY_TYPE_INCONSISTENT);
	CU_ASSERT_EQUAL(f->C_DecapsulateKey(s, &m, npriv, NULL, 0, ct, n, &k),
			CKR_KEY_FUNCTION_NOT_PERMITTED);
	CU_ASSERT_EQUAL(f->C_DecapsulateKey(s, &m, priv, NULL, 0, ct, n - 1, &k),
			CKR_WRAPPED_KEY_LEN_RANGE);
	CU_ASSERT_EQUAL(f->C_DecapsulateKey(s, &param, priv, NULL, 0, ct, n, &k),
			CKR_MECHANISM_PARAM_INVALID);
	/* the public key is visible without a login, but the new key needs the wrapping secret */
	CU_ASSERT_EQUAL(f->C_Logout(s), CKR_OK);
	CU_ASSERT_EQUAL(f->C_EncapsulateKey(s, &m, pub, NULL, 0, NULL, &n, &k), CKR_OK);
	CU_ASSERT_EQUAL(f->C_EncapsulateKey(s, &m, pub, NULL, 0, ct, &n, &k),
			CKR_USER_NOT_LOGGED_IN);
	CU_ASSERT_EQUAL(f->C_DecapsulateKey(s, &m, priv, NULL, 0, ct, n, &k),
			CKR_KEY_HANDLE_INVALID);
	CU_ASSERT_EQUAL(f->C_Finalize(NULL), CKR_OK);
	CU_ASSERT_EQUAL(f->C_EncapsulateKey(s, &m, pub, NULL, 0, ct, &n, &k),
			CKR_CRYPTOKI_NOT_INITIALIZED);
	CU_ASSERT_EQUAL(f->C_DecapsulateKey(s, &m, priv, NULL, 0, ct, n, &k),
			CKR_CRYPTOKI_NOT_INITIALIZED);
	CU_ASSERT_EQUAL_FATAL(f->C_Initialize(NULL), CKR_OK);
}

/* The "PKCS 11" 3.2 interface: found by version, first in the list; CK_FUNCTION_LIST_3_2's
 * layout (the 3.0 list, then the 12 functions of 3.2, in its order), every entry a function,
 * the 3.2 functions not implemented CKR_FUNCTION_NOT_SUPPORTED. */
static void test_interface_32(void)
{
	CK_RV (*get_iface)(CK_UTF8CHAR_PTR, CK_VERSION_PTR, CK_INTERFACE_PTR_PTR, CK_FLAGS) =
		(CK_RV(*)(CK_UTF8CHAR_PTR, CK_VERSION_PTR, CK_INTERFACE_PTR_PTR, CK_FLAGS))dlsym(
			lib, "C_GetInterface");
	CK_RV (*get_ifaces)(CK_INTERFACE_PTR, CK_ULONG_PTR) =
		(CK_RV(*)(CK_INTERFACE_PTR, CK_ULONG_PTR))dlsym(lib, "C_GetInterfaceList");
	CK_VERSION v32 = { 3, 2 };
	CK_INTERFACE *iface = NULL, list[3];
	CK_FUNCTION_LIST_3_2 *l;
	CK_ULONG n = 3, flags = 0;
	CK_MECHANISM m = { CKM_ML_DSA, NULL, 0 };
	CK_ASYNC_DATA data;
	void **p;
	size_t i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(get_iface);
	CU_ASSERT_EQUAL_FATAL(get_iface((CK_UTF8CHAR *)"PKCS 11", &v32, &iface, 0), CKR_OK);
	l = iface->pFunctionList;
	CU_ASSERT_EQUAL(l->version.major, 3);
	CU_ASSERT_EQUAL(l->version.minor, 2);
	CU_ASSERT_EQUAL(iface->flags, CKF_INTERFACE_FORK_SAFE);
	CU_ASSERT_EQUAL(get_ifaces(list, &n), CKR_OK);
	CU_ASSERT_EQUAL(n, 3);
	CU_ASSERT_PTR_EQUAL(list[0].pFunctionList, l); /* the newest first */
	CU_ASSERT_EQUAL(((CK_VERSION *)list[1].pFunctionList)->minor, 0);
	CU_ASSERT_EQUAL(((CK_VERSION *)list[2].pFunctionList)->major, 2);
	CU_ASSERT_EQUAL(get_iface(NULL, NULL, &iface, 0), CKR_OK);
	CU_ASSERT_PTR_EQUAL(iface->pFunctionList, l);
	/* 68 functions of 2.40, 24 of 3.0, 12 of 3.2, each a function */
	CU_ASSERT_EQUAL((sizeof(*l) - offsetof(CK_FUNCTION_LIST_3_2, C_Initialize)) /
				sizeof(void *),
			68 + 24 + 12);
	CU_ASSERT_EQUAL(offsetof(CK_FUNCTION_LIST_3_2, C_EncapsulateKey),
			offsetof(CK_FUNCTION_LIST_3_2, C_MessageVerifyFinal) + sizeof(void *));
	CU_ASSERT_EQUAL(offsetof(CK_FUNCTION_LIST_3_2, C_UnwrapKeyAuthenticated),
			sizeof(*l) - sizeof(void *));
	p = (void **)&l->C_Initialize;
	for (i = 0; i < 68 + 24 + 12; i++)
		CU_ASSERT_PTR_NOT_NULL(p[i]);
	CU_ASSERT_PTR_EQUAL(l->C_EncapsulateKey, f->C_EncapsulateKey);
	CU_ASSERT_PTR_EQUAL(l->C_Login, f->C_Login);
	CU_ASSERT_EQUAL(l->C_VerifySignatureInit(s, &m, 1, NULL, 0), CKR_FUNCTION_NOT_SUPPORTED);
	CU_ASSERT_EQUAL(l->C_VerifySignature(s, NULL, 0), CKR_FUNCTION_NOT_SUPPORTED);
	CU_ASSERT_EQUAL(l->C_VerifySignatureUpdate(s, NULL, 0), CKR_FUNCTION_NOT_SUPPORTED);
	CU_ASSERT_EQUAL(l->C_VerifySignatureFinal(s), CKR_FUNCTION_NOT_SUPPORTED);
	CU_ASSERT_EQUAL(l->C_GetSessionValidationFlags(s, 0, &flags), CKR_FUNCTION_NOT_SUPPORTED);
	CU_ASSERT_EQUAL(l->C_AsyncComplete(s, (CK_UTF8CHAR *)"C_Sign", &data),
			CKR_FUNCTION_NOT_SUPPORTED);
	CU_ASSERT_EQUAL(l->C_AsyncGetID(s, (CK_UTF8CHAR *)"C_Sign", &n), CKR_FUNCTION_NOT_SUPPORTED);
	CU_ASSERT_EQUAL(l->C_AsyncJoin(s, (CK_UTF8CHAR *)"C_Sign", 1, NULL, 0),
			CKR_FUNCTION_NOT_SUPPORTED);
	CU_ASSERT_EQUAL(l->C_WrapKeyAuthenticated(s, &m, 1, 2, NULL, 0, NULL, &n),
			CKR_FUNCTION_NOT_SUPPORTED);
	CU_ASSERT_EQUAL(l->C_UnwrapKeyAuthenticated(s, &m, 1, NULL, 0, NULL, 0, NULL, 0, NULL),
			CKR_FUNCTION_NOT_SUPPORTED);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "ML-KEM-512/768/1024 key pairs, encapsulate and decapsulate", test_kem_keys },
		{ "ML-KEM key generation: what is refused", test_kem_keygen_errors },
		{ "the shared secret's key: AES, token, length", test_kem_secret_keys },
		{ "an ML-KEM public key from C_CreateObject", test_kem_import },
		{ "ML-KEM keys: C_SetAttributeValue, C_CopyObject", test_kem_set_copy },
		{ "C_EncapsulateKey, C_DecapsulateKey: what is refused", test_kem_errors },
		{ "the PKCS#11 3.2 interface", test_interface_32 },
	};
	int failed;

	if (!mkdtemp(tmp_root) || p11_module_load(&lib, NULL) != 0 ||
	    !(f = p11_module_interface(lib, 3, 2)))
		return 1;
	failed = UNIT_RUN("pkcs11 ML-KEM and 3.2", tests, setup, teardown);
	dlclose(lib);
	harness_rm_tree(tmp_root);
	return failed;
}
