/* The PKCS#11 module's keys through its function list (dlopen): C_GenerateKeyPair of RSA, EC
 * and ML-DSA keys in the TPM, C_GetAttributeValue's rules (sensitive, invalid, the two-call
 * length protocol), C_FindObjects with templates, private objects hidden until login, C_Sign /
 * C_Verify in one part and several for every mechanism the module lists, C_Digest without a
 * login, C_DestroyObject, C_CreateObject of data objects and certificates, and a key made in one
 * process found and used by another. Generation templates that cannot be honoured are refused
 * with the TPM gone, which shows that no TPM command was needed to refuse them. */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CUnit/Basic.h>
#include <pqtpm/tss.h>

#include "harness.h"
#include "p11_token.h"
#include "pk3.h"
#include "unit_main.h"

static char tmp_root[] = "/tmp/pqtpm-test-pkcs11-keys-XXXXXX";
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

static CK_BBOOL yes = CK_TRUE;

/* A token with a user PIN, a R/W session logged in as the user. */
static void setup(void)
{
	snprintf(dir, sizeof(dir), "%s/state%d", tmp_root, counter++);
	setenv("PQTPM_STATE_DIR", dir, 1);
	p11_token_user_session(f, "keys", SO_PIN, USER_PIN, &slot, &s);
}

static void teardown(void)
{
	f->C_Finalize(NULL);
	unsetenv("PQTPM_PKCS11_CONF"); /* tpm_gone's */
	harness_rm_tree(dir);
}

static CK_RV gen_rsa(CK_ULONG bits, const char *label, CK_BBOOL token, CK_OBJECT_HANDLE *pub,
		     CK_OBJECT_HANDLE *priv)
{
	CK_MECHANISM m = { CKM_RSA_PKCS_KEY_PAIR_GEN, NULL, 0 };
	CK_ATTRIBUTE pt[] = {
		{ CKA_MODULUS_BITS, &bits, sizeof(bits) },
		{ CKA_TOKEN, &token, sizeof(token) },
		{ CKA_LABEL, (void *)label, strlen(label) },
		{ CKA_VERIFY, &yes, sizeof(yes) },
	};
	CK_ATTRIBUTE kt[] = {
		{ CKA_TOKEN, &token, sizeof(token) },
		{ CKA_LABEL, (void *)label, strlen(label) },
		{ CKA_SIGN, &yes, sizeof(yes) },
		{ CKA_SENSITIVE, &yes, sizeof(yes) },
	};

	return f->C_GenerateKeyPair(s, &m, pt, 4, kt, 4, pub, priv);
}

static CK_RV gen_ec(const uint8_t *oid, size_t len, CK_OBJECT_HANDLE *pub,
		    CK_OBJECT_HANDLE *priv)
{
	CK_MECHANISM m = { CKM_EC_KEY_PAIR_GEN, NULL, 0 };
	CK_ATTRIBUTE pt[] = { { CKA_EC_PARAMS, (void *)oid, len } };
	CK_ATTRIBUTE kt[] = { { CKA_SIGN, &yes, sizeof(yes) } };

	return f->C_GenerateKeyPair(s, &m, pt, 1, kt, 1, pub, priv);
}

static CK_RV gen_mldsa(CK_ULONG set, CK_OBJECT_HANDLE *pub, CK_OBJECT_HANDLE *priv)
{
	CK_MECHANISM m = { CKM_ML_DSA_KEY_PAIR_GEN, NULL, 0 };
	CK_ATTRIBUTE pt[] = { { CKA_PARAMETER_SET, &set, sizeof(set) } };
	CK_ATTRIBUTE kt[] = { { CKA_SIGN, &yes, sizeof(yes) } };

	return f->C_GenerateKeyPair(s, &m, pt, 1, kt, 1, pub, priv);
}

/* Sign msg with mech in one part and in three, verify both, and refuse a changed message. */
static void sign_verify(CK_MECHANISM *m, CK_OBJECT_HANDLE pub, CK_OBJECT_HANDLE priv,
			const uint8_t *msg, size_t len, bool multi)
{
	uint8_t sig[5000], sig2[5000], bad[256];
	CK_ULONG n = 0, n2 = sizeof(sig2);
	size_t bn;

	CU_ASSERT_EQUAL_FATAL(f->C_SignInit(s, m, priv), CKR_OK);
	CU_ASSERT_EQUAL(f->C_Sign(s, (CK_BYTE *)msg, len, NULL, &n), CKR_OK);
	CU_ASSERT(n > 0 && n <= sizeof(sig));
	n = 1;
	CU_ASSERT_EQUAL(f->C_Sign(s, (CK_BYTE *)msg, len, sig, &n), CKR_BUFFER_TOO_SMALL);
	CU_ASSERT_EQUAL(f->C_Sign(s, (CK_BYTE *)msg, len, sig, &n), CKR_OK);
	CU_ASSERT_EQUAL(f->C_Sign(s, (CK_BYTE *)msg, len, sig, &n), CKR_OPERATION_NOT_INITIALIZED);
	CU_ASSERT_EQUAL(f->C_VerifyInit(s, m, pub), CKR_OK);
	CU_ASSERT_EQUAL(f->C_Verify(s, (CK_BYTE *)msg, len, sig, n), CKR_OK);
	/* the message's tail with its last byte changed (a DigestInfo's digest) */
	bn = len < sizeof(bad) ? len : sizeof(bad);
	memcpy(bad, msg + len - bn, bn);
	bad[bn - 1] ^= 1;
	CU_ASSERT_EQUAL(f->C_VerifyInit(s, m, pub), CKR_OK);
	CU_ASSERT_EQUAL(f->C_Verify(s, bad, bn, sig, n), CKR_SIGNATURE_INVALID);
	CU_ASSERT_EQUAL(f->C_VerifyInit(s, m, pub), CKR_OK);
	CU_ASSERT_EQUAL(f->C_Verify(s, (CK_BYTE *)msg, len, sig, n - 1), CKR_SIGNATURE_LEN_RANGE);
	if (!multi)
		return;
	CU_ASSERT_EQUAL_FATAL(f->C_SignInit(s, m, priv), CKR_OK);
	CU_ASSERT_EQUAL(f->C_SignUpdate(s, (CK_BYTE *)msg, 1), CKR_OK);
	CU_ASSERT_EQUAL(f->C_SignUpdate(s, (CK_BYTE *)msg + 1, len - 2), CKR_OK);
	CU_ASSERT_EQUAL(f->C_SignUpdate(s, (CK_BYTE *)msg + len - 1, 1), CKR_OK);
	CU_ASSERT_EQUAL(f->C_SignFinal(s, sig2, &n2), CKR_OK);
	CU_ASSERT_EQUAL(f->C_VerifyInit(s, m, pub), CKR_OK);
	CU_ASSERT_EQUAL(f->C_VerifyUpdate(s, (CK_BYTE *)msg, len / 2), CKR_OK);
	CU_ASSERT_EQUAL(f->C_VerifyUpdate(s, (CK_BYTE *)msg + len / 2, len - len / 2), CKR_OK);
	CU_ASSERT_EQUAL(f->C_VerifyFinal(s, sig2, n2), CKR_OK);
	/* and the single-part verification of the multi-part signature */
	CU_ASSERT_EQUAL(f->C_VerifyInit(s, m, pub), CKR_OK);
	CU_ASSERT_EQUAL(f->C_Verify(s, (CK_BYTE *)msg, len, sig2, n2), CKR_OK);
}

static void digest(CK_MECHANISM_TYPE mt, const uint8_t *msg, size_t len, uint8_t *out,
		   CK_ULONG *n)
{
	CK_MECHANISM m = { mt, NULL, 0 };

	CU_ASSERT_EQUAL_FATAL(f->C_DigestInit(s, &m), CKR_OK);
	CU_ASSERT_EQUAL(f->C_Digest(s, (CK_BYTE *)msg, len, out, n), CKR_OK);
}

static void test_rsa(void)
{
	static const uint8_t di256[] = { 0x30, 0x31, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01,
					 0x65, 0x03, 0x04, 0x02, 0x01, 0x05, 0x00, 0x04, 0x20 };
	CK_RSA_PKCS_PSS_PARAMS pss = { CKM_SHA256, CKG_MGF1_SHA256, 32 };
	CK_MECHANISM m_pkcs = { CKM_RSA_PKCS, NULL, 0 }, m_sha = { CKM_SHA256_RSA_PKCS, NULL, 0 };
	CK_MECHANISM m_pss = { CKM_RSA_PKCS_PSS, &pss, sizeof(pss) };
	CK_MECHANISM m_shapss = { CKM_SHA256_RSA_PKCS_PSS, &pss, sizeof(pss) };
	CK_OBJECT_HANDLE pub, priv, pub3, priv3;
	uint8_t msg[3000], info[sizeof(di256) + 32], d[64];
	CK_ULONG n = sizeof(d), i;

	for (i = 0; i < sizeof(msg); i++)
		msg[i] = (uint8_t)(i * 7);
	CU_ASSERT_EQUAL(gen_rsa(1024, "small", CK_FALSE, &pub, &priv),
			CKR_ATTRIBUTE_VALUE_INVALID);
	CU_ASSERT_EQUAL_FATAL(gen_rsa(2048, "rsa", CK_TRUE, &pub, &priv), CKR_OK);
	sign_verify(&m_sha, pub, priv, msg, sizeof(msg), true);
	sign_verify(&m_shapss, pub, priv, msg, 100, true);
	/* the raw mechanisms take a DigestInfo or a digest the caller made */
	digest(CKM_SHA256, msg, sizeof(msg), d, &n);
	CU_ASSERT_EQUAL(n, 32);
	memcpy(info, di256, sizeof(di256));
	memcpy(info + sizeof(di256), d, 32);
	sign_verify(&m_pkcs, pub, priv, info, sizeof(info), false);
	sign_verify(&m_pss, pub, priv, d, 32, false);
	CU_ASSERT_EQUAL(f->C_SignInit(s, &m_pkcs, priv), CKR_OK);
	n = sizeof(d);
	CU_ASSERT_EQUAL(f->C_Sign(s, msg, 10, d, &n), CKR_BUFFER_TOO_SMALL);
	{
		uint8_t sig[512];
		CK_ULONG sn = sizeof(sig);

		CU_ASSERT_EQUAL(f->C_Sign(s, msg, 10, sig, &sn), CKR_DATA_INVALID);
	}
	/* PSS parameters the TPM does not do */
	pss.sLen = 20;
	CU_ASSERT_EQUAL(f->C_SignInit(s, &m_pss, priv), CKR_MECHANISM_PARAM_INVALID);
	CU_ASSERT_EQUAL_FATAL(gen_rsa(3072, "rsa3", CK_FALSE, &pub3, &priv3), CKR_OK);
	sign_verify(&m_sha, pub3, priv3, msg, 64, true);
	/* a key of another type, the public key to sign, the private key to verify */
	CU_ASSERT_EQUAL(f->C_SignInit(s, &m_sha, pub), CKR_KEY_TYPE_INCONSISTENT);
	CU_ASSERT_EQUAL(f->C_VerifyInit(s, &m_sha, priv), CKR_KEY_TYPE_INCONSISTENT);
	CU_ASSERT_EQUAL(f->C_SignInit(s, &m_sha, 9999), CKR_KEY_HANDLE_INVALID);
}

static void test_ec(void)
{
	CK_MECHANISM m_raw = { CKM_ECDSA, NULL, 0 }, m_sha = { CKM_ECDSA_SHA256, NULL, 0 };
	CK_MECHANISM m_rsa = { CKM_SHA256_RSA_PKCS, NULL, 0 };
	static const uint8_t bad_oid[] = { 0x06, 0x03, 0x2B, 0x65, 0x70 };
	CK_OBJECT_HANDLE pub, priv, pub384, priv384;
	uint8_t msg[200], point[100], d[64];
	CK_ATTRIBUTE a = { CKA_EC_POINT, point, sizeof(point) };
	CK_ULONG n = sizeof(d);

	memset(msg, 0x5a, sizeof(msg));
	CU_ASSERT_EQUAL(gen_ec(bad_oid, sizeof(bad_oid), &pub, &priv), CKR_CURVE_NOT_SUPPORTED);
	CU_ASSERT_EQUAL_FATAL(gen_ec(OID_P256, sizeof(OID_P256), &pub, &priv), CKR_OK);
	CU_ASSERT_EQUAL(f->C_GetAttributeValue(s, pub, &a, 1), CKR_OK);
	CU_ASSERT_EQUAL(a.ulValueLen, 67);
	CU_ASSERT(point[0] == 0x04 && point[1] == 65 && point[2] == 0x04);
	sign_verify(&m_sha, pub, priv, msg, sizeof(msg), true);
	digest(CKM_SHA256, msg, sizeof(msg), d, &n);
	sign_verify(&m_raw, pub, priv, d, 32, false);
	CU_ASSERT_EQUAL(f->C_SignInit(s, &m_rsa, priv), CKR_KEY_TYPE_INCONSISTENT);
	CU_ASSERT_EQUAL_FATAL(gen_ec(OID_P384, sizeof(OID_P384), &pub384, &priv384), CKR_OK);
	sign_verify(&m_sha, pub384, priv384, msg, sizeof(msg), true);
	/* a P-256 signature is no P-384 signature */
	{
		uint8_t sig[96];
		CK_ULONG sn = sizeof(sig);

		CU_ASSERT_EQUAL(f->C_SignInit(s, &m_sha, priv), CKR_OK);
		CU_ASSERT_EQUAL(f->C_Sign(s, msg, sizeof(msg), sig, &sn), CKR_OK);
		CU_ASSERT_EQUAL(sn, 64);
		CU_ASSERT_EQUAL(f->C_VerifyInit(s, &m_sha, pub384), CKR_OK);
		CU_ASSERT_EQUAL(f->C_Verify(s, msg, sizeof(msg), sig, sn), CKR_SIGNATURE_LEN_RANGE);
	}
}

static void test_mldsa(void)
{
	static const CK_ULONG sets[] = { CKP_ML_DSA_44, CKP_ML_DSA_65, CKP_ML_DSA_87 };
	static const CK_ULONG pk_sizes[] = { 1312, 1952, 2592 };
	CK_SIGN_ADDITIONAL_CONTEXT ctx = { CKH_HEDGE_PREFERRED, (CK_BYTE *)"ctx", 3 };
	CK_MECHANISM m = { CKM_ML_DSA, NULL, 0 }, mc = { CKM_ML_DSA, &ctx, sizeof(ctx) };
	CK_OBJECT_HANDLE pub, priv;
	uint8_t msg[2500];
	size_t i;

	memset(msg, 0xa5, sizeof(msg));
	CU_ASSERT_EQUAL(gen_mldsa(7, &pub, &priv), CKR_ATTRIBUTE_VALUE_INVALID);
	for (i = 0; i < 3; i++) {
		CK_ULONG set = 0;
		CK_ATTRIBUTE a[] = { { CKA_PARAMETER_SET, &set, sizeof(set) },
				     { CKA_VALUE, NULL, 0 } };

		CU_ASSERT_EQUAL_FATAL(gen_mldsa(sets[i], &pub, &priv), CKR_OK);
		CU_ASSERT_EQUAL(f->C_GetAttributeValue(s, pub, a, 2), CKR_OK);
		CU_ASSERT_EQUAL(set, sets[i]);
		CU_ASSERT_EQUAL(a[1].ulValueLen, pk_sizes[i]);
		sign_verify(&m, pub, priv, msg, sizeof(msg), true);
	}
	sign_verify(&mc, pub, priv, msg, 10, true);
	/* a signature made with a context does not verify without it */
	{
		uint8_t sig[4700];
		CK_ULONG n = sizeof(sig);

		CU_ASSERT_EQUAL(f->C_SignInit(s, &mc, priv), CKR_OK);
		CU_ASSERT_EQUAL(f->C_Sign(s, msg, 10, sig, &n), CKR_OK);
		CU_ASSERT_EQUAL(f->C_VerifyInit(s, &m, pub), CKR_OK);
		CU_ASSERT_EQUAL(f->C_Verify(s, msg, 10, sig, n), CKR_SIGNATURE_INVALID);
	}
	ctx.hedgeVariant = CKH_DETERMINISTIC_REQUIRED;
	CU_ASSERT_EQUAL(f->C_SignInit(s, &mc, priv), CKR_MECHANISM_PARAM_INVALID);
}

/* The session's token with its TPM gone: the module on this directory again, but reaching the
 * TPM through the socket of its owner, which this process becomes for as long as the user logs
 * in, and then stops being (the unix: transport, unlike embedded:, elects no new owner). */
static void tpm_gone(void)
{
	char conf[PATH_MAX + 8], tcti[PATH_MAX + 16];
	struct pqtpm_tss *owner;
	FILE *c;

	f->C_Finalize(NULL);
	snprintf(tcti, sizeof(tcti), "embedded:%s", dir);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_open_tcti(&owner, tcti), 0);
	snprintf(conf, sizeof(conf), "%s.conf", dir);
	c = fopen(conf, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	fprintf(c, "tpm = unix:%s/" PQTPM_SOCKET_NAME "\nstore = %s\n", dir, dir);
	fclose(c);
	setenv("PQTPM_PKCS11_CONF", conf, 1);
	CU_ASSERT_EQUAL_FATAL(f->C_Initialize(NULL), CKR_OK);
	CU_ASSERT_EQUAL_FATAL(
		f->C_OpenSession(slot, CKF_SERIAL_SESSION | CKF_RW_SESSION, NULL, NULL, &s),
		CKR_OK);
	CU_ASSERT_EQUAL_FATAL(f->C_Login(s, CKU_USER, (CK_UTF8CHAR *)USER_PIN, 4), CKR_OK);
	pqtpm_tss_close(owner);
	unlink(conf);
}

static void test_attributes(void)
{
	CK_OBJECT_HANDLE pub, priv;
	CK_BBOOL sens = CK_FALSE, extr = CK_TRUE, never = CK_FALSE, local = CK_FALSE;
	uint8_t modulus[300], small[4];
	CK_ULONG cls = 0;
	CK_ATTRIBUTE a[] = {
		{ CKA_SENSITIVE, &sens, sizeof(sens) },
		{ CKA_EXTRACTABLE, &extr, sizeof(extr) },
		{ CKA_NEVER_EXTRACTABLE, &never, sizeof(never) },
		{ CKA_LOCAL, &local, sizeof(local) },
		{ CKA_PRIVATE_EXPONENT, NULL, 0 },
		{ CKA_CLASS, &cls, sizeof(cls) },
		{ CKA_PRIME_1, modulus, sizeof(modulus) },
		{ CKA_VALUE_LEN, small, sizeof(small) },
		{ CKA_MODULUS, small, sizeof(small) },
		{ CKA_MODULUS, NULL, 0 },
	};
	CK_ULONG rsa = CKK_RSA, bits = 2048, two = 2, three = 3, len20 = 20, len16 = 16;
	CK_ATTRIBUTE bad_tmpl[] = { { CKA_EXTRACTABLE, &yes, sizeof(yes) } };
	CK_ATTRIBUTE unknown_tmpl[] = { { CKA_VALUE_LEN, &cls, sizeof(cls) } };
	CK_ATTRIBUTE dup_tmpl[] = { { CKA_SIGN, &yes, sizeof(yes) }, { CKA_SIGN, &yes, sizeof(yes) } };
	CK_ATTRIBUTE local_tmpl[] = { { CKA_LOCAL, &yes, sizeof(yes) } };
	CK_MECHANISM m = { CKM_EC_KEY_PAIR_GEN, NULL, 0 };
	CK_MECHANISM mm = { CKM_ML_DSA_KEY_PAIR_GEN, NULL, 0 };
	CK_MECHANISM aes = { CKM_AES_KEY_GEN, NULL, 0 };
	CK_ATTRIBUTE pt[] = { { CKA_EC_PARAMS, (void *)OID_P256, sizeof(OID_P256) } };
	CK_ATTRIBUTE pt_rsa_type[] = { pt[0], { CKA_KEY_TYPE, &rsa, sizeof(rsa) } };
	CK_ATTRIBUTE pt_bits[] = { pt[0], { CKA_MODULUS_BITS, &bits, sizeof(bits) } };
	CK_ATTRIBUTE kt_p384[] = { { CKA_EC_PARAMS, (void *)OID_P384, sizeof(OID_P384) } };
	CK_ATTRIBUTE set2[] = { { CKA_PARAMETER_SET, &two, sizeof(two) } };
	CK_ATTRIBUTE set3[] = { { CKA_PARAMETER_SET, &three, sizeof(three) } };
	CK_ATTRIBUTE aes_bad[] = { { CKA_VALUE_LEN, &len20, sizeof(len20) },
				   { CKA_VALUE_LEN, &len16, sizeof(len16) } };
	CK_ATTRIBUTE aes_dup[] = { aes_bad[1], aes_bad[1] };

	CU_ASSERT_EQUAL_FATAL(gen_rsa(2048, "attrs", CK_FALSE, &pub, &priv), CKR_OK);
	CU_ASSERT_EQUAL(f->C_GetAttributeValue(s, priv, a, 10), CKR_BUFFER_TOO_SMALL);
	CU_ASSERT_EQUAL(sens, CK_TRUE);
	CU_ASSERT_EQUAL(extr, CK_FALSE);
	CU_ASSERT_EQUAL(never, CK_TRUE);
	CU_ASSERT_EQUAL(local, CK_TRUE);
	CU_ASSERT_EQUAL(a[4].ulValueLen, CK_UNAVAILABLE_INFORMATION);
	CU_ASSERT_EQUAL(cls, CKO_PRIVATE_KEY);
	CU_ASSERT_EQUAL(a[6].ulValueLen, CK_UNAVAILABLE_INFORMATION);
	CU_ASSERT_EQUAL(a[7].ulValueLen, CK_UNAVAILABLE_INFORMATION);
	CU_ASSERT_EQUAL(a[8].ulValueLen, CK_UNAVAILABLE_INFORMATION);
	CU_ASSERT_EQUAL(a[9].ulValueLen, 256);
	/* one attribute at a time: each error on its own */
	CU_ASSERT_EQUAL(f->C_GetAttributeValue(s, priv, &a[4], 1), CKR_ATTRIBUTE_SENSITIVE);
	CU_ASSERT_EQUAL(f->C_GetAttributeValue(s, priv, &a[7], 1), CKR_ATTRIBUTE_TYPE_INVALID);
	a[8].ulValueLen = 4;
	CU_ASSERT_EQUAL(f->C_GetAttributeValue(s, priv, &a[8], 1), CKR_BUFFER_TOO_SMALL);
	a[8].pValue = modulus;
	a[8].ulValueLen = sizeof(modulus);
	CU_ASSERT_EQUAL(f->C_GetAttributeValue(s, pub, &a[8], 1), CKR_OK);
	CU_ASSERT_EQUAL(a[8].ulValueLen, 256);
	CU_ASSERT_EQUAL(f->C_GetAttributeValue(s, 12345, &a[8], 1), CKR_OBJECT_HANDLE_INVALID);
	/* templates that a TPM key cannot honour, refused before the TPM is asked */
	tpm_gone();
	CU_ASSERT_EQUAL(f->C_GenerateKeyPair(s, &m, pt, 1, bad_tmpl, 1, &pub, &priv),
			CKR_ATTRIBUTE_VALUE_INVALID);
	CU_ASSERT_EQUAL(f->C_GenerateKeyPair(s, &m, pt, 1, unknown_tmpl, 1, &pub, &priv),
			CKR_ATTRIBUTE_TYPE_INVALID);
	CU_ASSERT_EQUAL(f->C_GenerateKeyPair(s, &m, NULL, 0, NULL, 0, &pub, &priv),
			CKR_TEMPLATE_INCOMPLETE);
	CU_ASSERT_EQUAL(f->C_GenerateKeyPair(s, &m, pt, 1, dup_tmpl, 2, &pub, &priv),
			CKR_TEMPLATE_INCONSISTENT);
	CU_ASSERT_EQUAL(f->C_GenerateKeyPair(s, &m, pt_rsa_type, 2, NULL, 0, &pub, &priv),
			CKR_TEMPLATE_INCONSISTENT);
	CU_ASSERT_EQUAL(f->C_GenerateKeyPair(s, &m, pt, 1, local_tmpl, 1, &pub, &priv),
			CKR_ATTRIBUTE_READ_ONLY);
	/* a mechanism's value of another key type, or the halves disagreeing */
	CU_ASSERT_EQUAL(f->C_GenerateKeyPair(s, &m, pt_bits, 2, NULL, 0, &pub, &priv),
			CKR_ATTRIBUTE_TYPE_INVALID);
	CU_ASSERT_EQUAL(f->C_GenerateKeyPair(s, &m, pt, 1, kt_p384, 1, &pub, &priv),
			CKR_TEMPLATE_INCONSISTENT);
	CU_ASSERT_EQUAL(f->C_GenerateKeyPair(s, &mm, set2, 1, set3, 1, &pub, &priv),
			CKR_TEMPLATE_INCONSISTENT);
	CU_ASSERT_EQUAL(f->C_GenerateKey(s, &aes, aes_bad, 1, &pub), CKR_ATTRIBUTE_VALUE_INVALID);
	CU_ASSERT_EQUAL(f->C_GenerateKey(s, &aes, aes_dup, 2, &pub), CKR_TEMPLATE_INCONSISTENT);
	/* and the TPM is really gone: a good template fails */
	CU_ASSERT_EQUAL(f->C_GenerateKeyPair(s, &m, pt, 1, NULL, 0, &pub, &priv),
			CKR_DEVICE_ERROR);
	CU_ASSERT_EQUAL(f->C_GenerateKey(s, &aes, &aes_bad[1], 1, &pub), CKR_DEVICE_ERROR);
}

static CK_ULONG find(CK_ATTRIBUTE *t, CK_ULONG n, CK_OBJECT_HANDLE *out, CK_ULONG cap)
{
	CK_ULONG got = 0;

	CU_ASSERT_EQUAL_FATAL(f->C_FindObjectsInit(s, t, n), CKR_OK);
	CU_ASSERT_EQUAL(f->C_FindObjectsInit(s, t, n), CKR_OPERATION_ACTIVE);
	CU_ASSERT_EQUAL(f->C_FindObjects(s, out, cap, &got), CKR_OK);
	CU_ASSERT_EQUAL(f->C_FindObjectsFinal(s), CKR_OK);
	CU_ASSERT_EQUAL(f->C_FindObjectsFinal(s), CKR_OPERATION_NOT_INITIALIZED);
	return got;
}

static void test_find_destroy(void)
{
	CK_OBJECT_HANDLE pub, priv, pub2, priv2, h[16];
	CK_ULONG cls = CKO_PRIVATE_KEY;
	CK_ATTRIBUTE by_label[] = { { CKA_LABEL, "one", 3 } };
	CK_ATTRIBUTE by_class[] = { { CKA_CLASS, &cls, sizeof(cls) } };
	CK_ATTRIBUTE none[] = { { CKA_LABEL, "nothing", 7 } };
	CK_SESSION_HANDLE ro;

	CU_ASSERT_EQUAL_FATAL(gen_rsa(2048, "one", CK_TRUE, &pub, &priv), CKR_OK);
	CU_ASSERT_EQUAL_FATAL(gen_rsa(2048, "two", CK_TRUE, &pub2, &priv2), CKR_OK);
	CU_ASSERT_EQUAL(find(NULL, 0, h, 16), 4);
	CU_ASSERT_EQUAL(find(by_label, 1, h, 16), 2);
	CU_ASSERT_EQUAL(find(by_class, 1, h, 16), 2);
	CU_ASSERT_EQUAL(find(none, 1, h, 16), 0);
	/* private keys hidden without a login */
	CU_ASSERT_EQUAL(f->C_Logout(s), CKR_OK);
	CU_ASSERT_EQUAL(find(by_class, 1, h, 16), 0);
	CU_ASSERT_EQUAL(find(NULL, 0, h, 16), 2);
	CU_ASSERT_EQUAL(f->C_Login(s, CKU_USER, (CK_UTF8CHAR *)USER_PIN, 4), CKR_OK);
	/* token objects survive C_Finalize, session objects do not */
	CU_ASSERT_EQUAL(gen_rsa(2048, "session", CK_FALSE, &pub, &priv), CKR_OK);
	CU_ASSERT_EQUAL(find(NULL, 0, h, 16), 6);
	CU_ASSERT_EQUAL(f->C_Finalize(NULL), CKR_OK);
	CU_ASSERT_EQUAL_FATAL(f->C_Initialize(NULL), CKR_OK);
	CU_ASSERT_EQUAL_FATAL(f->C_OpenSession(slot, CKF_SERIAL_SESSION, NULL, NULL, &ro), CKR_OK);
	CU_ASSERT_EQUAL_FATAL(f->C_OpenSession(slot, CKF_SERIAL_SESSION | CKF_RW_SESSION, NULL,
					       NULL, &s),
			      CKR_OK);
	CU_ASSERT_EQUAL(f->C_Login(s, CKU_USER, (CK_UTF8CHAR *)USER_PIN, 4), CKR_OK);
	CU_ASSERT_EQUAL(find(by_label, 1, h, 16), 2);
	CU_ASSERT_EQUAL(find(NULL, 0, h, 16), 4);
	/* destroying a token object needs a R/W session; then it is gone for good */
	CU_ASSERT_EQUAL(f->C_DestroyObject(ro, h[0]), CKR_SESSION_READ_ONLY);
	CU_ASSERT_EQUAL(f->C_DestroyObject(s, h[0]), CKR_OK);
	CU_ASSERT_EQUAL(f->C_DestroyObject(s, h[0]), CKR_OBJECT_HANDLE_INVALID);
	CU_ASSERT_EQUAL(find(NULL, 0, h, 16), 3);
	CU_ASSERT_EQUAL(f->C_Finalize(NULL), CKR_OK);
	CU_ASSERT_EQUAL_FATAL(f->C_Initialize(NULL), CKR_OK);
	CU_ASSERT_EQUAL_FATAL(f->C_OpenSession(slot, CKF_SERIAL_SESSION | CKF_RW_SESSION, NULL,
					       NULL, &s),
			      CKR_OK);
	CU_ASSERT_EQUAL(f->C_Login(s, CKU_USER, (CK_UTF8CHAR *)USER_PIN, 4), CKR_OK);
	CU_ASSERT_EQUAL(find(NULL, 0, h, 16), 3);
}

static void test_digest_no_login(void)
{
	static const uint8_t abc_sha256[] = {
		0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea, 0x41, 0x41, 0x40, 0xde, 0x5d, 0xae,
		0x22, 0x23, 0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17, 0x7a, 0x9c, 0xb4, 0x10, 0xff, 0x61,
		0xf2, 0x00, 0x15, 0xad,
	};
	CK_MECHANISM m = { CKM_SHA256, NULL, 0 }, bad = { CKM_RSA_PKCS, NULL, 0 };
	uint8_t d[64], big[5000];
	CK_ULONG n = sizeof(d), n2 = sizeof(d);
	uint8_t d2[64];

	CU_ASSERT_EQUAL(f->C_Logout(s), CKR_OK);
	CU_ASSERT_EQUAL(f->C_DigestInit(s, &bad), CKR_MECHANISM_INVALID);
	CU_ASSERT_EQUAL(f->C_Digest(s, (CK_BYTE *)"abc", 3, d, &n), CKR_OPERATION_NOT_INITIALIZED);
	digest(CKM_SHA256, (const uint8_t *)"abc", 3, d, &n);
	CU_ASSERT_EQUAL(n, 32);
	CU_ASSERT_EQUAL(memcmp(d, abc_sha256, 32), 0);
	/* longer than one TPM buffer, in parts: the same as in one */
	memset(big, 'x', sizeof(big));
	n = sizeof(d);
	digest(CKM_SHA512, big, sizeof(big), d, &n);
	CU_ASSERT_EQUAL(n, 64);
	CU_ASSERT_EQUAL(f->C_DigestInit(s, &m), CKR_OK);
	m.mechanism = CKM_SHA512;
	CU_ASSERT_EQUAL(f->C_DigestInit(s, &m), CKR_OPERATION_ACTIVE);
	CU_ASSERT_EQUAL(f->C_DigestFinal(s, d2, &n2), CKR_OK);
	CU_ASSERT_EQUAL(f->C_DigestInit(s, &m), CKR_OK);
	CU_ASSERT_EQUAL(f->C_DigestUpdate(s, big, 3000), CKR_OK);
	CU_ASSERT_EQUAL(f->C_DigestUpdate(s, big + 3000, sizeof(big) - 3000), CKR_OK);
	n2 = sizeof(d2);
	CU_ASSERT_EQUAL(f->C_DigestFinal(s, d2, &n2), CKR_OK);
	CU_ASSERT_EQUAL(n2, 64);
	CU_ASSERT_EQUAL(memcmp(d, d2, 64), 0);
	/* signing needs the user */
	{
		CK_OBJECT_HANDLE pub, priv;

		CU_ASSERT_EQUAL(gen_rsa(2048, "x", CK_FALSE, &pub, &priv), CKR_USER_NOT_LOGGED_IN);
	}
}

/* Data objects and certificates made with C_CreateObject: kept as given, with the defaults
 * filled in; what a template may not say refused. */
static void test_create(void)
{
	static const uint8_t der[] = { 0x30, 0x03, 0x02, 0x01, 0x01 };
	static const uint8_t subject[] = { 0x30, 0x00 };
	CK_OBJECT_CLASS data = CKO_DATA, cert = CKO_CERTIFICATE, key = CKO_SECRET_KEY;
	CK_CERTIFICATE_TYPE x509 = CKC_X_509;
	CK_ATTRIBUTE dt[] = { { CKA_CLASS, &data, sizeof(data) },
			      { CKA_TOKEN, &yes, sizeof(yes) },
			      { CKA_LABEL, "d", 1 },
			      { CKA_VALUE, "payload", 7 } };
	CK_ATTRIBUTE ct[] = { { CKA_CLASS, &cert, sizeof(cert) },
			      { CKA_CERTIFICATE_TYPE, &x509, sizeof(x509) },
			      { CKA_SUBJECT, (void *)subject, sizeof(subject) },
			      { CKA_VALUE, (void *)der, sizeof(der) },
			      { CKA_TOKEN, &yes, sizeof(yes) } };
	CK_ATTRIBUTE kt[] = { { CKA_CLASS, &key, sizeof(key) } };
	CK_ATTRIBUTE bad[] = { { CKA_CLASS, &data, sizeof(data) }, { CKA_MODULUS, "x", 1 } };
	CK_ATTRIBUTE trusted[] = { { CKA_CLASS, &cert, sizeof(cert) },
				   { CKA_CERTIFICATE_TYPE, &x509, sizeof(x509) },
				   { CKA_SUBJECT, (void *)subject, sizeof(subject) },
				   { CKA_VALUE, (void *)der, sizeof(der) },
				   { CKA_TRUSTED, &yes, sizeof(yes) } };
	CK_BBOOL priv = CK_FALSE;
	uint8_t value[16];
	CK_ATTRIBUTE get[] = { { CKA_PRIVATE, &priv, sizeof(priv) },
			       { CKA_VALUE, value, sizeof(value) } };
	CK_OBJECT_HANDLE d, c, h[4];

	CU_ASSERT_EQUAL_FATAL(f->C_CreateObject(s, dt, 4, &d), CKR_OK);
	CU_ASSERT_EQUAL(f->C_GetAttributeValue(s, d, get, 2), CKR_OK);
	CU_ASSERT_EQUAL(priv, CK_TRUE); /* a data object is private by default */
	CU_ASSERT_EQUAL(get[1].ulValueLen, 7);
	CU_ASSERT_EQUAL(memcmp(value, "payload", 7), 0);
	CU_ASSERT_EQUAL_FATAL(f->C_CreateObject(s, ct, 5, &c), CKR_OK);
	get[1].ulValueLen = sizeof(value);
	CU_ASSERT_EQUAL(f->C_GetAttributeValue(s, c, get, 2), CKR_OK);
	CU_ASSERT_EQUAL(priv, CK_FALSE);
	CU_ASSERT_EQUAL(get[1].ulValueLen, sizeof(der));
	CU_ASSERT_EQUAL(f->C_CreateObject(s, ct, 3, &c), CKR_TEMPLATE_INCOMPLETE);
	CU_ASSERT_EQUAL(f->C_CreateObject(s, kt, 1, &c), CKR_TEMPLATE_INCOMPLETE); /* no value */
	CU_ASSERT_EQUAL(f->C_CreateObject(s, bad, 2, &c), CKR_ATTRIBUTE_TYPE_INVALID);
	CU_ASSERT_EQUAL(f->C_CreateObject(s, trusted, 5, &c), CKR_ATTRIBUTE_READ_ONLY);
	CU_ASSERT_EQUAL(f->C_CreateObject(s, NULL, 0, &c), CKR_TEMPLATE_INCOMPLETE);
	/* both are token objects: there after C_Finalize; the certificate without a login */
	CU_ASSERT_EQUAL(f->C_Finalize(NULL), CKR_OK);
	CU_ASSERT_EQUAL_FATAL(f->C_Initialize(NULL), CKR_OK);
	CU_ASSERT_EQUAL_FATAL(f->C_OpenSession(slot, CKF_SERIAL_SESSION, NULL, NULL, &s), CKR_OK);
	CU_ASSERT_EQUAL(find(NULL, 0, h, 4), 1);
	CU_ASSERT_EQUAL(f->C_CreateObject(s, ct, 5, &c), CKR_SESSION_READ_ONLY);
	CU_ASSERT_EQUAL(f->C_Login(s, CKU_USER, (CK_UTF8CHAR *)USER_PIN, 4), CKR_OK);
	CU_ASSERT_EQUAL(find(NULL, 0, h, 4), 2);
}

/* Another process (a child that initializes the module anew) finds the token key made here,
 * signs with it, and its key is found here in turn. */
static void test_two_processes(void)
{
	CK_MECHANISM m = { CKM_ECDSA_SHA256, NULL, 0 };
	CK_OBJECT_HANDLE pub, priv, h[8];
	CK_ULONG cls = CKO_PRIVATE_KEY;
	CK_ATTRIBUTE by_class[] = { { CKA_CLASS, &cls, sizeof(cls) } };
	CK_ATTRIBUTE pt[] = { { CKA_EC_PARAMS, (void *)OID_P256, sizeof(OID_P256) },
			      { CKA_TOKEN, &yes, sizeof(yes) } };
	CK_ATTRIBUTE kt[] = { { CKA_TOKEN, &yes, sizeof(yes) } };
	CK_MECHANISM gen = { CKM_EC_KEY_PAIR_GEN, NULL, 0 };
	int status = -1;
	pid_t pid;

	CU_ASSERT_EQUAL_FATAL(f->C_GenerateKeyPair(s, &gen, pt, 2, kt, 1, &pub, &priv), CKR_OK);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		CK_SESSION_HANDLE cs;
		CK_OBJECT_HANDLE ch[8], cpub, cpriv;
		uint8_t sig[64];
		CK_ULONG n = 0, sn = sizeof(sig);
		int ok;

		/* the parent's module state is not the child's */
		ok = f->C_OpenSession(slot, CKF_SERIAL_SESSION, NULL, NULL, &cs) ==
		     CKR_CRYPTOKI_NOT_INITIALIZED;
		ok = ok && f->C_Initialize(NULL) == CKR_OK &&
		     f->C_OpenSession(slot, CKF_SERIAL_SESSION | CKF_RW_SESSION, NULL, NULL, &cs) ==
			     CKR_OK &&
		     f->C_Login(cs, CKU_USER, (CK_UTF8CHAR *)USER_PIN, 4) == CKR_OK &&
		     f->C_FindObjectsInit(cs, by_class, 1) == CKR_OK &&
		     f->C_FindObjects(cs, ch, 8, &n) == CKR_OK && n == 1 &&
		     f->C_FindObjectsFinal(cs) == CKR_OK && f->C_SignInit(cs, &m, ch[0]) == CKR_OK &&
		     f->C_Sign(cs, (CK_BYTE *)"two", 3, sig, &sn) == CKR_OK &&
		     f->C_GenerateKeyPair(cs, &gen, pt, 2, kt, 1, &cpub, &cpriv) == CKR_OK &&
		     f->C_Finalize(NULL) == CKR_OK;
		_exit(ok ? 0 : 1);
	}
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CU_ASSERT_EQUAL(find(by_class, 1, h, 8), 2);
	sign_verify(&m, pub, priv, (const uint8_t *)"after", 5, false);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "RSA 2048/3072: PKCS#1 v1.5 and PSS, raw and hash-and-sign", test_rsa },
		{ "EC P-256/P-384: ECDSA raw and with SHA-256", test_ec },
		{ "ML-DSA-44/65/87, with a context", test_mldsa },
		{ "attribute rules and templates", test_attributes },
		{ "C_FindObjects, login, C_DestroyObject, C_Finalize", test_find_destroy },
		{ "C_Digest without a login", test_digest_no_login },
		{ "C_CreateObject: data objects and certificates", test_create },
		{ "two processes on one token", test_two_processes },
	};
	int failed;

	if (!mkdtemp(tmp_root) || p11_module_load(&lib, &f) != 0)
		return 1;
	failed = UNIT_RUN("pkcs11 keys", tests, setup, teardown);
	dlclose(lib);
	harness_rm_tree(tmp_root);
	return failed;
}
