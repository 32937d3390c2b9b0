/* Public areas of ML-DSA, HashML-DSA and ML-KEM keys (core/object/check.c, core/types_marshal.c)
 * through every command that takes one: CreatePrimary, Create, CreateLoaded, LoadExternal and
 * TestParms. Each refusal is checked with its exact code and parameter number, and each
 * accepted combination is created for real. Keys loaded with their private seed from outside
 * work as FIPS 203/204 say they should. */
#include <string.h>

#include <CUnit/Basic.h>

#include "crypto/mldsa.h"
#include "crypto/mlkem.h"
#include "pq_util.h"
#include "unit_main.h"

static struct harness h;
static struct pq_key parent; /* an ECC P-256 storage primary */

static void setup(void)
{
	struct tpmt_public t;

	harness_open(&h);
	pq_tmpl(&t, TPM_ALG_ECC, 0, PQ_STORAGE);
	if (pq_primary(&h, TPM_RH_OWNER, &t, "", &parent) != TPM_RC_SUCCESS)
		CU_FAIL_FATAL("storage parent");
}

static void teardown(void)
{
	harness_close(&h);
}

static void sensitive_create(struct wr *w)
{
	size_t mark;

	wr_size_begin(w, &mark);
	wr_u16(w, 0);
	wr_u16(w, 0);
	wr_size_end(w, mark);
}

/* Create under the storage parent; the blobs are not needed here. */
static TPM_RC create(const struct tpmt_public *t)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_Create);
	cmd_handle(&b, parent.handle);
	cmd_auth_pw(&b, "");
	sensitive_create(&b.params);
	wr_tpm2b_public(&b.params, t);
	wr_u16(&b.params, 0);
	wr_u32(&b.params, 0);
	return harness_run(&h, &b, NULL, NULL);
}

/* CreateLoaded under the storage parent; the new object is flushed again. */
static TPM_RC create_loaded(const struct tpmt_public *t)
{
	TPM_HANDLE obj = 0;
	struct cmdbuf b;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_CreateLoaded);
	cmd_handle(&b, parent.handle);
	cmd_auth_pw(&b, "");
	sensitive_create(&b.params);
	wr_tpm2b_public(&b.params, t);
	rc = harness_run(&h, &b, NULL, &obj);
	if (rc == TPM_RC_SUCCESS)
		CU_ASSERT_EQUAL(pq_flush(&h, obj), TPM_RC_SUCCESS);
	return rc;
}

static TPM_RC primary(const struct tpmt_public *t)
{
	struct pq_key k;
	TPM_RC rc = pq_primary(&h, TPM_RH_OWNER, t, "", &k);

	if (rc == TPM_RC_SUCCESS)
		CU_ASSERT_EQUAL(pq_flush(&h, k.handle), TPM_RC_SUCCESS);
	return rc;
}

/* TestParms with the parameters of t (TPMT_PUBLIC_PARMS: type, then the type's parms). */
static TPM_RC test_parms(const struct tpmt_public *t)
{
	uint8_t buf[4096];
	struct cmdbuf b;
	struct wr w;
	size_t skip;

	/* the parms follow type, nameAlg, attributes and authPolicy, and precede unique */
	wr_init(&w, buf, sizeof(buf));
	CU_ASSERT_FATAL(wr_public(&w, t) == TPM_RC_SUCCESS);
	skip = 2 + 2 + 4 + 2 + t->auth_policy.size;
	cmd_begin(&b, TPM_CC_TestParms);
	wr_u16(&b.params, t->type);
	wr_bytes(&b.params, buf + skip, w.off - skip - 2 - t->unique.size);
	return harness_run(&h, &b, NULL, NULL);
}

/* The template is refused with rc (unnumbered) by all three creating commands. */
static void refused(const struct tpmt_public *t, TPM_RC rc)
{
	CU_ASSERT_EQUAL(primary(t), RC_P(rc, 2));
	CU_ASSERT_EQUAL(create(t), RC_P(rc, 2));
	CU_ASSERT_EQUAL(create_loaded(t), RC_P(rc, 2));
}

static void accepted(const struct tpmt_public *t)
{
	CU_ASSERT_EQUAL(primary(t), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(create(t), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(test_parms(t), TPM_RC_SUCCESS);
}

static void test_parameter_sets(void)
{
	static const uint16_t bad[] = { 0, 4, 0xFFFF };
	static const TPM_ALG_ID types[] = { TPM_ALG_MLDSA, TPM_ALG_HASH_MLDSA, TPM_ALG_MLKEM };
	struct tpmt_public t;

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		uint32_t use = types[i] == TPM_ALG_MLKEM ? TPMA_OBJECT_DECRYPT
							 : TPMA_OBJECT_SIGN_ENCRYPT;

		for (size_t j = 0; j < sizeof(bad) / sizeof(bad[0]); j++) {
			pq_tmpl(&t, types[i], bad[j], use);
			refused(&t, TPM_RC_PARMS);
			CU_ASSERT_EQUAL(test_parms(&t), RC_P(TPM_RC_PARMS, 1));
		}
	}
}

static void test_hash_mldsa_pre_hash(void)
{
	static const TPM_ALG_ID good[] = { TPM_ALG_SHA256, TPM_ALG_SHA384, TPM_ALG_SHA512 };
	struct tpmt_public t;
	struct pq_key k, ext;

	pq_tmpl(&t, TPM_ALG_HASH_MLDSA, TPM_MLDSA_44, TPMA_OBJECT_SIGN_ENCRYPT);
	t.pre_hash = TPM_ALG_SHA1;
	refused(&t, TPM_RC_HASH);
	CU_ASSERT_EQUAL(test_parms(&t), RC_P(TPM_RC_HASH, 1));
	/* no pre-hash at all, or an unknown one, fails in the wire form */
	t.pre_hash = TPM_ALG_NULL;
	refused(&t, TPM_RC_HASH);
	CU_ASSERT_EQUAL(test_parms(&t), RC_P(TPM_RC_HASH, 1));
	t.pre_hash = TPM_ALG_SHA3_256;
	refused(&t, TPM_RC_HASH);
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		t.pre_hash = good[i];
		accepted(&t);
	}
	/* a public key made elsewhere with SHA-1 cannot be loaded either */
	t.pre_hash = TPM_ALG_SHA256;
	CU_ASSERT_EQUAL_FATAL(pq_primary(&h, TPM_RH_OWNER, &t, "", &k), TPM_RC_SUCCESS);
	t = k.pub;
	t.pre_hash = TPM_ALG_SHA1;
	CU_ASSERT_EQUAL(pq_load_public(&h, &t, &ext), RC_P(TPM_RC_HASH, 2));
	t.pre_hash = TPM_ALG_SHA512;
	CU_ASSERT_EQUAL_FATAL(pq_load_public(&h, &t, &ext), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(pq_flush(&h, ext.handle), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(pq_flush(&h, k.handle), TPM_RC_SUCCESS);
}

/* ML-DSA keys sign and nothing else; ML-KEM keys decrypt and nothing else. */
static void test_uses(void)
{
	static const uint32_t not_sign[] = {
		TPMA_OBJECT_DECRYPT,
		TPMA_OBJECT_SIGN_ENCRYPT | TPMA_OBJECT_DECRYPT,
		0,
		TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT,
	};
	static const uint32_t not_decrypt[] = {
		TPMA_OBJECT_SIGN_ENCRYPT,
		TPMA_OBJECT_SIGN_ENCRYPT | TPMA_OBJECT_DECRYPT,
		0,
		TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_SIGN_ENCRYPT,
		TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_SIGN_ENCRYPT | TPMA_OBJECT_DECRYPT,
	};
	struct tpmt_public t;

	for (size_t i = 0; i < sizeof(not_sign) / sizeof(not_sign[0]); i++) {
		pq_tmpl(&t, TPM_ALG_MLDSA, TPM_MLDSA_65, not_sign[i]);
		t.symmetric.alg = TPM_ALG_NULL; /* ML-DSA parms have no symmetric field */
		refused(&t, TPM_RC_ATTRIBUTES);
		pq_tmpl(&t, TPM_ALG_HASH_MLDSA, TPM_MLDSA_65, not_sign[i]);
		t.symmetric.alg = TPM_ALG_NULL;
		refused(&t, TPM_RC_ATTRIBUTES);
	}
	for (size_t i = 0; i < sizeof(not_decrypt) / sizeof(not_decrypt[0]); i++) {
		pq_tmpl(&t, TPM_ALG_MLKEM, TPM_MLKEM_768, not_decrypt[i]);
		refused(&t, TPM_RC_ATTRIBUTES);
	}
	/* what is allowed: signing keys restricted or not, with or without external mu;
	 * decryption keys and storage keys */
	pq_tmpl(&t, TPM_ALG_MLDSA, TPM_MLDSA_44, TPMA_OBJECT_SIGN_ENCRYPT);
	accepted(&t);
	t.allow_external_mu = 1;
	accepted(&t);
	t.attributes |= TPMA_OBJECT_RESTRICTED;
	accepted(&t);
	pq_tmpl(&t, TPM_ALG_HASH_MLDSA, TPM_MLDSA_87,
		TPMA_OBJECT_SIGN_ENCRYPT | TPMA_OBJECT_RESTRICTED);
	accepted(&t);
	pq_tmpl(&t, TPM_ALG_MLKEM, TPM_MLKEM_512, TPMA_OBJECT_DECRYPT);
	accepted(&t);
	pq_tmpl(&t, TPM_ALG_MLKEM, TPM_MLKEM_1024, PQ_STORAGE);
	accepted(&t);
}

/* allowExternalMu is a TPMI_YES_NO. */
static void test_external_mu_flag(void)
{
	struct tpmt_public t;

	pq_tmpl(&t, TPM_ALG_MLDSA, TPM_MLDSA_65, TPMA_OBJECT_SIGN_ENCRYPT);
	t.allow_external_mu = 2;
	refused(&t, TPM_RC_VALUE);
	CU_ASSERT_EQUAL(test_parms(&t), RC_P(TPM_RC_VALUE, 1));
}

/* An ML-KEM storage key protects its children with AES-CFB; other ML-KEM keys have no
 * symmetric definition. */
static void test_mlkem_symmetric(void)
{
	struct tpmt_public t;

	pq_tmpl(&t, TPM_ALG_MLKEM, TPM_MLKEM_768, PQ_STORAGE);
	t.symmetric.alg = TPM_ALG_NULL;
	refused(&t, TPM_RC_SYMMETRIC);
	pq_tmpl(&t, TPM_ALG_MLKEM, TPM_MLKEM_768, PQ_STORAGE);
	t.symmetric.mode = TPM_ALG_CTR;
	refused(&t, TPM_RC_MODE);
	pq_tmpl(&t, TPM_ALG_MLKEM, TPM_MLKEM_768, TPMA_OBJECT_DECRYPT);
	t.symmetric.alg = TPM_ALG_AES;
	t.symmetric.key_bits = 128;
	t.symmetric.mode = TPM_ALG_CFB;
	refused(&t, TPM_RC_SYMMETRIC);
	/* an AES key size that is not a TPMI_AES_KEY_BITS fails in the wire form */
	pq_tmpl(&t, TPM_ALG_MLKEM, TPM_MLKEM_768, PQ_STORAGE);
	t.symmetric.key_bits = 100;
	refused(&t, TPM_RC_VALUE);
	CU_ASSERT_EQUAL(test_parms(&t), RC_P(TPM_RC_VALUE, 1));
}

/* The TPM makes asymmetric keys itself, and the fixedTPM/fixedParent rules hold as for RSA. */
static void test_origin_and_fixed(void)
{
	struct tpmt_public t;

	pq_tmpl(&t, TPM_ALG_MLDSA, TPM_MLDSA_44, TPMA_OBJECT_SIGN_ENCRYPT);
	t.attributes &= ~TPMA_OBJECT_SENSITIVEDATAORIGIN;
	refused(&t, TPM_RC_ATTRIBUTES);
	pq_tmpl(&t, TPM_ALG_MLKEM, TPM_MLKEM_512, TPMA_OBJECT_DECRYPT);
	t.attributes &= ~TPMA_OBJECT_FIXEDPARENT;
	refused(&t, TPM_RC_ATTRIBUTES);
	pq_tmpl(&t, TPM_ALG_MLKEM, TPM_MLKEM_512, TPMA_OBJECT_DECRYPT);
	t.attributes |= TPMA_OBJECT_ENCRYPTEDDUPLICATION;
	refused(&t, TPM_RC_ATTRIBUTES);
}

/* LoadExternal: the key in unique must have exactly the parameter set's length, and an ML-KEM
 * key must pass the encapsulation-key check. */
static void test_public_key_sizes(void)
{
	static const struct {
		TPM_ALG_ID type;
		uint16_t set;
		uint32_t use;
	} keys[] = {
		{ TPM_ALG_MLDSA, TPM_MLDSA_87, TPMA_OBJECT_SIGN_ENCRYPT },
		{ TPM_ALG_HASH_MLDSA, TPM_MLDSA_44, TPMA_OBJECT_SIGN_ENCRYPT },
		{ TPM_ALG_MLKEM, TPM_MLKEM_1024, TPMA_OBJECT_DECRYPT },
		{ TPM_ALG_MLKEM, TPM_MLKEM_512, TPMA_OBJECT_DECRYPT },
	};
	struct tpmt_public t;
	struct pq_key k, ext;

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		pq_tmpl(&t, keys[i].type, keys[i].set, keys[i].use);
		CU_ASSERT_EQUAL_FATAL(pq_primary(&h, TPM_RH_OWNER, &t, "", &k), TPM_RC_SUCCESS);
		t = k.pub;
		t.unique.size--;
		CU_ASSERT_EQUAL(pq_load_public(&h, &t, &ext), RC_P(TPM_RC_KEY, 2));
		t.unique.size = 0;
		CU_ASSERT_EQUAL(pq_load_public(&h, &t, &ext), RC_P(TPM_RC_KEY, 2));
		/* the key of another parameter set */
		t = k.pub;
		t.parameter_set = keys[i].set == 3 ? 2 : keys[i].set + 1;
		CU_ASSERT_EQUAL(pq_load_public(&h, &t, &ext), RC_P(TPM_RC_KEY, 2));
		if (keys[i].type == TPM_ALG_MLKEM) {
			/* a coefficient of 4095, not below q = 3329 (FIPS 203 §7.2) */
			t = k.pub;
			t.unique.b[0] = 0xFF;
			t.unique.b[1] |= 0x0F;
			CU_ASSERT_EQUAL(pq_load_public(&h, &t, &ext), RC_P(TPM_RC_KEY, 2));
		}
		CU_ASSERT_EQUAL_FATAL(pq_load_public(&h, &k.pub, &ext), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(pq_flush(&h, ext.handle), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(pq_flush(&h, k.handle), TPM_RC_SUCCESS);
	}
}

/* ---- LoadExternal with the private part: the seed the TPM keeps for these keys ---- */

static TPM_RC load_external(const struct tpmt_sensitive *sens, const struct tpmt_public *pub,
			    TPM_HANDLE *out)
{
	struct cmdbuf b;
	size_t mark;

	cmd_begin(&b, TPM_CC_LoadExternal);
	wr_size_begin(&b.params, &mark);
	wr_sensitive(&b.params, sens);
	wr_size_end(&b.params, mark);
	wr_tpm2b_public(&b.params, pub);
	wr_u32(&b.params, TPM_RH_NULL);
	return harness_run(&h, &b, NULL, out);
}

/* A key of type with seed (xi, or d || z) and its public key computed here. */
static void external_key(TPM_ALG_ID type, uint16_t set, uint8_t fill, struct tpmt_public *p,
			 struct tpmt_sensitive *s)
{
	static uint8_t sk[MLDSA_MAX_SK_BYTES], dk[MLKEM_MAX_DK_BYTES];
	bool kem = type == TPM_ALG_MLKEM;

	pq_tmpl(p, type, set, kem ? TPMA_OBJECT_DECRYPT : TPMA_OBJECT_SIGN_ENCRYPT);
	p->attributes &= ~(uint32_t)(TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT);
	memset(s, 0, sizeof(*s));
	s->type = type;
	s->auth_value.size = 1;
	s->auth_value.b[0] = 'k';
	s->sensitive.size = kem ? 64 : 32;
	memset(s->sensitive.b, fill, s->sensitive.size);
	if (kem) {
		CU_ASSERT_EQUAL_FATAL(mlkem_keygen(set, s->sensitive.b, s->sensitive.b + 32,
						   p->unique.b, dk),
				      0);
		p->unique.size = (uint16_t)mlkem_ek_bytes(set);
	} else {
		CU_ASSERT_EQUAL_FATAL(mldsa_keygen(set, s->sensitive.b, p->unique.b, sk), 0);
		p->unique.size = (uint16_t)mldsa_pk_bytes(set);
	}
}

static void test_external_private(void)
{
	static struct tpmt_public p, q;
	static struct tpmt_sensitive s, t;
	static uint8_t ct[MLKEM_MAX_CT_BYTES];
	uint8_t m[32] = { 9 }, ss[32], got[32];
	struct tpmt_signature sig;
	struct cmdbuf b;
	struct rd rsp;
	TPM_HANDLE k, seq;
	uint16_t n = 0;

	/* ML-DSA-65 from its seed: signs, and FIPS 204 outside accepts the signature */
	external_key(TPM_ALG_MLDSA, TPM_MLDSA_65, 0x11, &p, &s);
	CU_ASSERT_EQUAL_FATAL(load_external(&s, &p, &k), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(pq_sign_start(&h, k, "", NULL, 0, &seq), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(pq_sign_complete(&h, seq, "", k, "k", m, sizeof(m), &sig),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(mldsa_verify(TPM_MLDSA_65, p.unique.b, m, sizeof(m), NULL, 0, sig.sig,
				     sig.size),
			0);
	CU_ASSERT_EQUAL(pq_flush(&h, k), TPM_RC_SUCCESS);
	/* another key's seed, a seed of the wrong length */
	external_key(TPM_ALG_MLDSA, TPM_MLDSA_65, 0x22, &q, &t);
	CU_ASSERT_EQUAL(load_external(&t, &p, &k), RC_P(TPM_RC_BINDING, 1));
	t = s;
	t.sensitive.size = 31;
	CU_ASSERT_EQUAL(load_external(&t, &p, &k), RC_P(TPM_RC_KEY_SIZE, 1));
	/* ML-KEM-768 from d || z: decapsulates what was encapsulated outside */
	external_key(TPM_ALG_MLKEM, TPM_MLKEM_768, 0x33, &p, &s);
	CU_ASSERT_EQUAL_FATAL(load_external(&s, &p, &k), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(mlkem_encaps(TPM_MLKEM_768, p.unique.b, m, ct, ss), 0);
	cmd_begin(&b, TPM_CC_Decapsulate);
	cmd_handle(&b, k);
	cmd_auth_pw(&b, "k");
	wr_tpm2b(&b.params, ct, (uint16_t)mlkem_ct_bytes(TPM_MLKEM_768));
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, &rsp, NULL), TPM_RC_SUCCESS);
	CU_ASSERT(rd_tpm2b(&rsp, got, sizeof(got), &n) == 0 && n == 32 &&
		  memcmp(got, ss, 32) == 0);
	CU_ASSERT_EQUAL(pq_flush(&h, k), TPM_RC_SUCCESS);
	external_key(TPM_ALG_MLKEM, TPM_MLKEM_768, 0x44, &q, &t);
	CU_ASSERT_EQUAL(load_external(&t, &p, &k), RC_P(TPM_RC_BINDING, 1));
	t = s;
	t.sensitive.size = 32;
	CU_ASSERT_EQUAL(load_external(&t, &p, &k), RC_P(TPM_RC_KEY_SIZE, 1));
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "unknown parameter sets", test_parameter_sets },
		{ "HashML-DSA pre-hash", test_hash_mldsa_pre_hash },
		{ "sign-only and decrypt-only", test_uses },
		{ "allowExternalMu", test_external_mu_flag },
		{ "ML-KEM symmetric definitions", test_mlkem_symmetric },
		{ "origin and fixed attributes", test_origin_and_fixed },
		{ "public key sizes", test_public_key_sizes },
		{ "LoadExternal with the private seed", test_external_private },
	};

	return UNIT_RUN("pq_object", tests, setup, teardown);
}
