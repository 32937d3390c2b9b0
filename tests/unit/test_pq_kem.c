/* ML-KEM in the TPM: Encapsulate and Decapsulate (core/cmd/pq_kem.c) against FIPS 203 outside
 * the TPM in both directions, ML-KEM salted sessions (core/cmd/session.c with pq_secret.c),
 * ML-KEM storage parents, and MakeCredential / ActivateCredential (core/cmd/credential.c) with
 * RSA, ECC and ML-KEM keys, with the exact refusal codes. */
#include <string.h>

#include <CUnit/Basic.h>

#include "crypto/mlkem.h"
#include "pq_util.h"
#include "unit_main.h"

static struct harness h;

static void setup(void)
{
	harness_open(&h);
}

static void teardown(void)
{
	harness_close(&h);
}

static void kem_key(uint16_t set, uint32_t attrs, struct pq_key *k)
{
	struct tpmt_public t;

	pq_tmpl(&t, TPM_ALG_MLKEM, set, attrs);
	CU_ASSERT_EQUAL_FATAL(pq_primary(&h, TPM_RH_OWNER, &t, "kem", k), TPM_RC_SUCCESS);
}

/* Every set: the TPM's encapsulation decapsulates in the TPM; one made outside with FIPS 203
 * from the public key decapsulates in the TPM to the same secret. */
static void test_round_trips(void)
{
	uint8_t ss[32], ss2[32], ct[MLKEM_MAX_CT_BYTES], m[32];
	uint16_t ctlen = 0;
	struct pq_key k;

	for (uint16_t set = TPM_MLKEM_512; set <= TPM_MLKEM_1024; set++) {
		kem_key(set, TPMA_OBJECT_DECRYPT, &k);
		CU_ASSERT_EQUAL(k.pub.unique.size, mlkem_ek_bytes(set));
		CU_ASSERT_EQUAL_FATAL(pq_encapsulate(&h, k.handle, ss, ct, &ctlen), 0);
		CU_ASSERT_EQUAL(ctlen, mlkem_ct_bytes(set));
		CU_ASSERT_EQUAL_FATAL(pq_decapsulate(&h, k.handle, "kem", ct, ctlen, ss2), 0);
		CU_ASSERT_EQUAL(memcmp(ss, ss2, 32), 0);
		memset(m, (int)set, sizeof(m));
		CU_ASSERT_EQUAL_FATAL(mlkem_encaps(set, k.pub.unique.b, m, ct, ss), 0);
		CU_ASSERT_EQUAL_FATAL(pq_decapsulate(&h, k.handle, "kem", ct, ctlen, ss2), 0);
		CU_ASSERT_EQUAL(memcmp(ss, ss2, 32), 0);
		/* a changed ciphertext gives the implicit-rejection secret, not an error */
		ct[3] ^= 1;
		CU_ASSERT_EQUAL(pq_decapsulate(&h, k.handle, "kem", ct, ctlen, ss2), 0);
		CU_ASSERT(memcmp(ss, ss2, 32) != 0);
		CU_ASSERT_EQUAL(pq_flush(&h, k.handle), 0);
	}
}

static void test_refusals(void)
{
	uint8_t ss[32], ct[MLKEM_MAX_CT_BYTES + 8] = { 0 };
	uint16_t ctlen = 0;
	struct tpmt_public t;
	struct pq_key k, storage, dsa, pub;
	struct cmdbuf b;

	kem_key(TPM_MLKEM_768, TPMA_OBJECT_DECRYPT, &k);
	CU_ASSERT_EQUAL_FATAL(pq_encapsulate(&h, k.handle, ss, ct, &ctlen), 0);
	/* ciphertexts of another set's length, or longer than any */
	CU_ASSERT_EQUAL(pq_decapsulate(&h, k.handle, "kem", ct, 768, ss), RC_P(TPM_RC_SIZE, 1));
	CU_ASSERT_EQUAL(pq_decapsulate(&h, k.handle, "kem", ct, 1089, ss), RC_P(TPM_RC_SIZE, 1));
	CU_ASSERT_EQUAL(pq_decapsulate(&h, k.handle, "kem", ct, MLKEM_MAX_CT_BYTES + 1, ss),
			RC_P(TPM_RC_SIZE, 1));
	CU_ASSERT_EQUAL(pq_decapsulate(&h, k.handle, "mek", ct, ctlen, ss),
			TPM_RC_AUTH_FAIL | TPM_RC_S | TPM_RC_1);
	/* a storage key (restricted) hands out no secrets; an ML-DSA key has none */
	kem_key(TPM_MLKEM_768, PQ_STORAGE, &storage);
	CU_ASSERT_EQUAL(pq_encapsulate(&h, storage.handle, ss, ct, &ctlen),
			RC_H(TPM_RC_ATTRIBUTES, 1));
	CU_ASSERT_EQUAL(pq_decapsulate(&h, storage.handle, "kem", ct, 1088, ss),
			RC_H(TPM_RC_ATTRIBUTES, 1));
	pq_tmpl(&t, TPM_ALG_MLDSA, TPM_MLDSA_44, TPMA_OBJECT_SIGN_ENCRYPT);
	CU_ASSERT_EQUAL_FATAL(pq_primary(&h, TPM_RH_OWNER, &t, "", &dsa), 0);
	CU_ASSERT_EQUAL(pq_encapsulate(&h, dsa.handle, ss, ct, &ctlen), RC_H(TPM_RC_KEY, 1));
	/* Decapsulate takes a parameter; Encapsulate none */
	cmd_begin(&b, TPM_CC_Decapsulate);
	cmd_handle(&b, k.handle);
	cmd_auth_pw(&b, "kem");
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_P(TPM_RC_INSUFFICIENT, 1));
	cmd_begin(&b, TPM_CC_Encapsulate);
	cmd_handle(&b, k.handle);
	wr_u16(&b.params, 0);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SIZE);
	/* a public key alone encapsulates; it cannot decapsulate */
	CU_ASSERT_EQUAL_FATAL(pq_load_public(&h, &k.pub, &pub), 0);
	CU_ASSERT_EQUAL(pq_encapsulate(&h, pub.handle, ss, ct, &ctlen), 0);
	CU_ASSERT_EQUAL(pq_decapsulate(&h, pub.handle, "", ct, ctlen, ss), TPM_RC_AUTH_UNAVAILABLE);
}

/* ---- salted sessions: the client side of an HMAC session (as test_session.c) ---- */

struct csess {
	TPM_HANDLE handle;
	uint8_t key[32];
	struct tpm2b_digest nonce_tpm, nonce_caller;
};

static TPM_RC start_salted(struct csess *s, TPM_HANDLE key, const uint8_t *salt, size_t slen,
			   const uint8_t *enc, size_t elen)
{
	struct cmdbuf b;
	struct rd rsp;
	TPM_RC rc;

	memset(s, 0, sizeof(*s));
	s->nonce_caller.size = 32;
	crypto_random(s->nonce_caller.b, 32);
	cmd_begin(&b, TPM_CC_StartAuthSession);
	cmd_handle(&b, key);
	cmd_handle(&b, TPM_RH_NULL);
	wr_tpm2b(&b.params, s->nonce_caller.b, 32);
	wr_tpm2b(&b.params, enc, (uint16_t)elen);
	wr_u8(&b.params, TPM_SE_HMAC);
	wr_u16(&b.params, TPM_ALG_NULL);
	wr_u16(&b.params, TPM_ALG_SHA256);
	rc = harness_run(&h, &b, &rsp, &s->handle);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	rd_tpm2b(&rsp, s->nonce_tpm.b, 64, &s->nonce_tpm.size);
	return crypto_kdfa(TPM_ALG_SHA256, salt, slen, "ATH", s->nonce_tpm.b, 32,
			   s->nonce_caller.b, 32, 256, s->key);
}

/* HierarchyChangeAuth(owner, "") authorized by the session: only a right session key passes. */
static TPM_RC use_session(struct csess *s)
{
	uint8_t cp[32], mac[32], head[4 + 4], attrs = TPMA_SESSION_CONTINUESESSION;
	struct crypto_hash_ctx c;
	struct crypto_hmac_ctx m;
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_HierarchyChangeAuth);
	cmd_handle(&b, TPM_RH_OWNER);
	wr_u16(&b.params, 0);
	head[0] = 0, head[1] = 0, head[2] = 0x01, head[3] = 0x29;
	head[4] = 0x40, head[5] = 0, head[6] = 0, head[7] = 0x01;
	crypto_hash_start(&c, TPM_ALG_SHA256);
	crypto_hash_update(&c, head, 8);
	crypto_hash_update(&c, b.param_buf, b.params.off);
	crypto_hash_finish(&c, cp);
	crypto_random(s->nonce_caller.b, 32);
	crypto_hmac_start(&m, TPM_ALG_SHA256, s->key, 32);
	crypto_hmac_update(&m, cp, 32);
	crypto_hmac_update(&m, s->nonce_caller.b, 32);
	crypto_hmac_update(&m, s->nonce_tpm.b, 32);
	crypto_hmac_update(&m, &attrs, 1);
	crypto_hmac_finish(&m, mac);
	wr_u32(&b.auth, s->handle);
	wr_tpm2b(&b.auth, s->nonce_caller.b, 32);
	wr_u8(&b.auth, attrs);
	wr_tpm2b(&b.auth, mac, 32);
	b.nauth++;
	return harness_run(&h, &b, NULL, NULL);
}

static void test_salted_session(void)
{
	uint8_t ct[MLKEM_MAX_CT_BYTES], k[32], m[32], salt[32];
	struct pq_key key;
	struct csess s;
	size_t ctlen = mlkem_ct_bytes(TPM_MLKEM_768);

	kem_key(TPM_MLKEM_768, PQ_STORAGE, &key);
	memset(m, 0x42, sizeof(m));
	CU_ASSERT_EQUAL_FATAL(mlkem_encaps(TPM_MLKEM_768, key.pub.unique.b, m, ct, k), 0);
	/* salt = KDFa(nameAlg, K, "SECRET", ciphertext, ek, digest bits) */
	CU_ASSERT_EQUAL_FATAL(crypto_kdfa(TPM_ALG_SHA256, k, 32, "SECRET", ct, ctlen,
					  key.pub.unique.b, key.pub.unique.size, 256, salt),
			      0);
	CU_ASSERT_EQUAL_FATAL(start_salted(&s, key.handle, salt, 32, ct, ctlen), 0);
	CU_ASSERT_EQUAL(use_session(&s), 0);
	/* the shared secret itself is not the salt */
	CU_ASSERT_EQUAL_FATAL(start_salted(&s, key.handle, k, 32, ct, ctlen), 0);
	CU_ASSERT_EQUAL(use_session(&s), TPM_RC_BAD_AUTH | TPM_RC_S | TPM_RC_1);
	/* a ciphertext of the wrong length */
	CU_ASSERT_EQUAL(start_salted(&s, key.handle, salt, 32, ct, ctlen - 1),
			RC_P(TPM_RC_VALUE, 2));
	CU_ASSERT_EQUAL(start_salted(&s, key.handle, salt, 32, ct, 1568),
			RC_P(TPM_RC_VALUE, 2));
}

/* An ML-KEM storage key is a parent: a child created under it loads and signs. */
static void test_storage_parent(void)
{
	struct tpmt_public t;
	struct pq_key parent, child;

	for (uint16_t set = TPM_MLKEM_512; set <= TPM_MLKEM_1024; set++) {
		pq_tmpl(&t, TPM_ALG_MLKEM, set, PQ_STORAGE);
		CU_ASSERT_EQUAL_FATAL(pq_primary(&h, TPM_RH_OWNER, &t, "", &parent), 0);
		pq_tmpl(&t, TPM_ALG_MLDSA, TPM_MLDSA_44, TPMA_OBJECT_SIGN_ENCRYPT);
		CU_ASSERT_EQUAL(pq_create_load(&h, parent.handle, &t, "c", &child), 0);
		CU_ASSERT_EQUAL(pq_flush(&h, child.handle), 0);
		CU_ASSERT_EQUAL(pq_flush(&h, parent.handle), 0);
	}
}

/* ---- credentials ---- */

static TPM_RC make_credential(TPM_HANDLE key, const void *cred, uint16_t clen,
			      const struct tpm2b_name *name, uint8_t *blob, uint16_t *blen,
			      uint8_t *secret, uint16_t *slen)
{
	struct cmdbuf b;
	struct rd rsp;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_MakeCredential);
	cmd_handle(&b, key);
	wr_tpm2b(&b.params, cred, clen);
	wr_tpm2b_name(&b.params, name);
	rc = harness_run(&h, &b, &rsp, NULL);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	if (rd_tpm2b(&rsp, blob, 256, blen) || rd_tpm2b(&rsp, secret, 2048, slen) ||
	    rd_left(&rsp))
		return TPM_RC_FAILURE;
	return rc;
}

static TPM_RC activate_credential(TPM_HANDLE activate, TPM_HANDLE key, const uint8_t *blob,
				  uint16_t blen, const uint8_t *secret, uint16_t slen,
				  struct tpm2b_digest *cred)
{
	struct cmdbuf b;
	struct rd rsp;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_ActivateCredential);
	cmd_handle(&b, activate);
	cmd_handle(&b, key);
	cmd_auth_pw(&b, "ak");
	cmd_auth_pw(&b, "ek");
	wr_tpm2b(&b.params, blob, blen);
	wr_tpm2b(&b.params, secret, slen);
	rc = harness_run(&h, &b, &rsp, NULL);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	if (rd_tpm2b_digest(&rsp, cred) || rd_left(&rsp))
		return TPM_RC_FAILURE;
	return rc;
}

static void credential_with(TPM_ALG_ID type, uint16_t set)
{
	static const char secret_text[] = "a credential of 32 bytes exactly";
	uint8_t blob[256], secret[2048];
	uint16_t blen = 0, slen = 0;
	struct tpm2b_digest cred;
	struct tpmt_public t;
	struct pq_key ek, ak, other, ekpub;

	pq_tmpl(&t, type, set, PQ_STORAGE);
	CU_ASSERT_EQUAL_FATAL(pq_primary(&h, TPM_RH_ENDORSEMENT, &t, "ek", &ek), 0);
	pq_tmpl(&t, TPM_ALG_MLDSA, TPM_MLDSA_65, TPMA_OBJECT_SIGN_ENCRYPT | TPMA_OBJECT_RESTRICTED);
	CU_ASSERT_EQUAL_FATAL(pq_primary(&h, TPM_RH_OWNER, &t, "ak", &ak), 0);
	t.parameter_set = TPM_MLDSA_44;
	CU_ASSERT_EQUAL_FATAL(pq_primary(&h, TPM_RH_OWNER, &t, "ak", &other), 0);
	/* made with the EK's public part alone, as a remote party does */
	CU_ASSERT_EQUAL_FATAL(pq_load_public(&h, &ek.pub, &ekpub), 0);
	CU_ASSERT_EQUAL_FATAL(make_credential(ekpub.handle, secret_text, 32, &ak.name, blob, &blen,
					      secret, &slen),
			      0);
	if (type == TPM_ALG_MLKEM)
		CU_ASSERT_EQUAL(slen, mlkem_ct_bytes(set));
	CU_ASSERT_EQUAL_FATAL(activate_credential(ak.handle, ek.handle, blob, blen, secret, slen,
						  &cred),
			      0);
	CU_ASSERT_EQUAL(cred.size, 32);
	CU_ASSERT_EQUAL(memcmp(cred.b, secret_text, 32), 0);
	/* for another object, with a changed blob */
	CU_ASSERT_EQUAL(activate_credential(other.handle, ek.handle, blob, blen, secret, slen,
					    &cred),
			RC_P(TPM_RC_INTEGRITY, 1));
	blob[blen - 1] ^= 1;
	CU_ASSERT_EQUAL(activate_credential(ak.handle, ek.handle, blob, blen, secret, slen, &cred),
			RC_P(TPM_RC_INTEGRITY, 1));
	blob[blen - 1] ^= 1;
	/* a secret of the wrong shape */
	CU_ASSERT_EQUAL(activate_credential(ak.handle, ek.handle, blob, blen, secret,
					    (uint16_t)(slen - 1), &cred),
			RC_P(type == TPM_ALG_RSA ? TPM_RC_VALUE : TPM_RC_SIZE, 2));
	/* a credential longer than the EK's nameAlg digest */
	CU_ASSERT_EQUAL(make_credential(ekpub.handle, blob, 33, &ak.name, blob, &blen, secret,
					&slen),
			RC_P(TPM_RC_SIZE, 1));
	/* the key must be a restricted decryption key */
	CU_ASSERT_EQUAL(make_credential(ak.handle, secret_text, 32, &ak.name, blob, &blen, secret,
					&slen),
			RC_H(TPM_RC_TYPE, 1));
	CU_ASSERT_EQUAL(activate_credential(ak.handle, ak.handle, blob, blen, secret, slen, &cred),
			TPM_RC_AUTH_FAIL | TPM_RC_S | TPM_RC_2);
	pq_flush(&h, ek.handle);
	pq_flush(&h, ekpub.handle);
	pq_flush(&h, ak.handle);
	pq_flush(&h, other.handle);
}

static void test_credential_rsa(void)
{
	credential_with(TPM_ALG_RSA, 0);
}

static void test_credential_ecc(void)
{
	credential_with(TPM_ALG_ECC, 0);
}

static void test_credential_mlkem(void)
{
	credential_with(TPM_ALG_MLKEM, TPM_MLKEM_512);
	credential_with(TPM_ALG_MLKEM, TPM_MLKEM_768);
	credential_with(TPM_ALG_MLKEM, TPM_MLKEM_1024);
}

/* An ML-KEM credential made outside the TPM (as a remote verifier does): seed from FIPS 203
 * encapsulation and KDFa, then the Part 1 §24 protection. */
static void test_credential_outside(void)
{
	static const uint8_t credential[16] = "outside, 16 byte";
	uint8_t ct[MLKEM_MAX_CT_BYTES], kk[32], m[32], seed[32], sym[16], hk[32];
	uint8_t blob[2 + 32 + 2 + 16], iv[16] = { 0 };
	struct crypto_hmac_ctx mac;
	struct tpm2b_digest cred;
	struct tpmt_public t;
	struct pq_key ek, ak;
	size_t ctlen = mlkem_ct_bytes(TPM_MLKEM_768);

	pq_tmpl(&t, TPM_ALG_MLKEM, TPM_MLKEM_768, PQ_STORAGE);
	CU_ASSERT_EQUAL_FATAL(pq_primary(&h, TPM_RH_ENDORSEMENT, &t, "ek", &ek), 0);
	pq_tmpl(&t, TPM_ALG_ECC, 0, TPMA_OBJECT_SIGN_ENCRYPT);
	CU_ASSERT_EQUAL_FATAL(pq_primary(&h, TPM_RH_OWNER, &t, "ak", &ak), 0);
	memset(m, 7, sizeof(m));
	CU_ASSERT_EQUAL_FATAL(mlkem_encaps(TPM_MLKEM_768, ek.pub.unique.b, m, ct, kk), 0);
	crypto_kdfa(TPM_ALG_SHA256, kk, 32, "IDENTITY", ct, ctlen, ek.pub.unique.b,
		    ek.pub.unique.size, 256, seed);
	crypto_kdfa(TPM_ALG_SHA256, seed, 32, "STORAGE", ak.name.b, ak.name.size, NULL, 0, 128,
		    sym);
	crypto_kdfa(TPM_ALG_SHA256, seed, 32, "INTEGRITY", NULL, 0, NULL, 0, 256, hk);
	blob[0] = 0, blob[1] = 32;
	blob[34] = 0, blob[35] = 16;
	memcpy(blob + 36, credential, 16);
	crypto_aes(TPM_ALG_CFB, true, sym, 16, iv, blob + 34, blob + 34, 18);
	crypto_hmac_start(&mac, TPM_ALG_SHA256, hk, 32);
	crypto_hmac_update(&mac, blob + 34, 18);
	crypto_hmac_update(&mac, ak.name.b, ak.name.size);
	crypto_hmac_finish(&mac, blob + 2);
	CU_ASSERT_EQUAL_FATAL(activate_credential(ak.handle, ek.handle, blob, sizeof(blob), ct,
						  (uint16_t)ctlen, &cred),
			      0);
	CU_ASSERT_EQUAL(cred.size, 16);
	CU_ASSERT_EQUAL(memcmp(cred.b, credential, 16), 0);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "Encapsulate/Decapsulate, all sets, both directions", test_round_trips },
		{ "KEM refusals", test_refusals },
		{ "ML-KEM salted session", test_salted_session },
		{ "ML-KEM storage parents", test_storage_parent },
		{ "credential with RSA", test_credential_rsa },
		{ "credential with ECC", test_credential_ecc },
		{ "credential with ML-KEM", test_credential_mlkem },
		{ "ML-KEM credential made outside", test_credential_outside },
	};

	return UNIT_RUN("pq_kem", tests, setup, teardown);
}
