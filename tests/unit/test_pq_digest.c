/* SignDigest and VerifyDigestSignature (core/cmd/pq_digest.c), Sign and VerifySignature with
 * HashML-DSA keys (core/cmd/sign.c), the attestation signing helper (scheme_sign_message) and
 * the public-area rules for ML-DSA keys: external mu computed here and signed in the TPM,
 * HashML-DSA digests, the v1.85 digest ticket recomputed, and the exact refusal codes. */
#include <string.h>

#include <CUnit/Basic.h>

#include "crypto/keccak.h"
#include "crypto/mldsa.h"
#include "pq_util.h"
#include "scheme.h"
#include "unit_main.h"

static struct harness h;
static const uint8_t ctx[] = "attest";
#define CTXLEN ((uint16_t)(sizeof(ctx) - 1))
static const uint8_t msg[] = "the message the caller hashed itself";
#define MSGLEN (sizeof(msg) - 1)

static void setup(void)
{
	harness_open(&h);
}

static void teardown(void)
{
	harness_close(&h);
}

static void key_of(TPM_ALG_ID type, uint16_t set, uint8_t ext_mu, uint32_t attrs,
		   struct pq_key *k)
{
	struct tpmt_public t;

	pq_tmpl(&t, type, set, TPMA_OBJECT_SIGN_ENCRYPT | attrs);
	t.allow_external_mu = ext_mu;
	CU_ASSERT_EQUAL_FATAL(pq_primary(&h, TPM_RH_OWNER, &t, "k", k), TPM_RC_SUCCESS);
}

/* mu = H(H(pk) || 0 || |ctx| || ctx || M), as a caller computes it for external mu */
static void external_mu(const struct pq_key *k, const uint8_t *c, size_t clen,
			const uint8_t *m, size_t mlen, struct tpm2b_digest *mu)
{
	uint8_t mp[512];

	mp[0] = 0;
	mp[1] = (uint8_t)clen;
	if (clen)
		memcpy(mp + 2, c, clen);
	memcpy(mp + 2 + clen, m, mlen);
	CU_ASSERT_EQUAL_FATAL(mldsa_compute_mu(k->pub.parameter_set, k->pub.unique.b, mp,
					       2 + clen + mlen, mu->b),
			      0);
	mu->size = 64;
}

static TPM_RC sign_digest(const struct pq_key *k, const uint8_t *c, uint16_t clen,
			  const struct tpm2b_digest *d, const struct tpmt_ticket *val,
			  struct tpmt_signature *sig)
{
	struct tpmt_ticket null = { .tag = TPM_ST_HASHCHECK, .hierarchy = TPM_RH_NULL };
	struct cmdbuf b;
	struct rd rsp;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_SignDigest);
	cmd_handle(&b, k->handle);
	cmd_auth_pw(&b, "k");
	wr_tpm2b(&b.params, c, clen);
	wr_tpm2b_digest(&b.params, d);
	wr_ticket(&b.params, val ? val : &null);
	rc = harness_run(&h, &b, &rsp, NULL);
	if (rc == TPM_RC_SUCCESS && (rd_signature(&rsp, sig) || rd_left(&rsp)))
		return TPM_RC_FAILURE;
	return rc;
}

static TPM_RC verify_digest(const struct pq_key *k, const uint8_t *c, uint16_t clen,
			    const struct tpm2b_digest *d, const struct tpmt_signature *sig,
			    struct tpmt_ticket *t)
{
	struct cmdbuf b;
	struct rd rsp;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_VerifyDigestSignature);
	cmd_handle(&b, k->handle);
	wr_tpm2b(&b.params, c, clen);
	wr_tpm2b_digest(&b.params, d);
	wr_signature(&b.params, sig);
	rc = harness_run(&h, &b, &rsp, NULL);
	if (rc == TPM_RC_SUCCESS && (rd_ticket(&rsp, t) || rd_left(&rsp)))
		return TPM_RC_FAILURE;
	return rc;
}

/* HMAC(proof, TPM_ST_DIGEST_VERIFIED || digest || keyName || metadata) */
static void expect_digest_ticket(const struct tpmt_ticket *t, const struct tpm2b_digest *d,
				 const struct tpm2b_name *name, TPM_ALG_ID meta)
{
	uint8_t tag[2] = { TPM_ST_DIGEST_VERIFIED >> 8, TPM_ST_DIGEST_VERIFIED & 0xFF };
	uint8_t m[2] = { (uint8_t)(meta >> 8), (uint8_t)meta }, mac[32];
	struct crypto_hmac_ctx c;

	crypto_hmac_start(&c, TPM_ALG_SHA256, hier_proof(h.e, TPM_RH_OWNER), PRIMARY_SEED_SIZE);
	crypto_hmac_update(&c, tag, 2);
	crypto_hmac_update(&c, d->b, d->size);
	crypto_hmac_update(&c, name->b, name->size);
	crypto_hmac_update(&c, m, 2);
	crypto_hmac_finish(&c, mac);
	CU_ASSERT_EQUAL(t->tag, TPM_ST_DIGEST_VERIFIED);
	CU_ASSERT_EQUAL(t->hierarchy, TPM_RH_OWNER);
	CU_ASSERT_EQUAL(t->metadata, meta);
	CU_ASSERT_EQUAL_FATAL(t->digest.size, 32);
	CU_ASSERT_EQUAL(memcmp(t->digest.b, mac, 32), 0);
}

static void test_external_mu(void)
{
	static struct tpmt_signature sig, bad;
	struct tpm2b_digest mu;
	struct tpmt_ticket t;
	struct pq_key k;

	for (uint16_t set = TPM_MLDSA_44; set <= TPM_MLDSA_87; set++) {
		key_of(TPM_ALG_MLDSA, set, 1, 0, &k);
		external_mu(&k, ctx, CTXLEN, msg, MSGLEN, &mu);
		CU_ASSERT_EQUAL_FATAL(sign_digest(&k, NULL, 0, &mu, NULL, &sig), 0);
		CU_ASSERT_EQUAL(sig.sig_alg, TPM_ALG_MLDSA);
		/* the ordinary FIPS 204 verification of M with ctx accepts it */
		CU_ASSERT_EQUAL(mldsa_verify(set, k.pub.unique.b, msg, MSGLEN, ctx, CTXLEN, sig.sig,
					     sig.size),
				0);
		CU_ASSERT_EQUAL(verify_digest(&k, NULL, 0, &mu, &sig, &t), 0);
		expect_digest_ticket(&t, &mu, &k.name, TPM_ALG_SHAKE256);
		bad = sig;
		bad.sig[7] ^= 0x40;
		CU_ASSERT_EQUAL(verify_digest(&k, NULL, 0, &mu, &bad, &t),
				RC_P(TPM_RC_SIGNATURE, 3));
		CU_ASSERT_EQUAL(pq_flush(&h, k.handle), 0);
	}
}

static void test_external_mu_refusals(void)
{
	static struct tpmt_signature sig;
	struct tpm2b_digest mu;
	struct tpmt_ticket t;
	struct pq_key k, no, r;

	key_of(TPM_ALG_MLDSA, TPM_MLDSA_44, 1, 0, &k);
	key_of(TPM_ALG_MLDSA, TPM_MLDSA_44, 0, 0, &no);
	external_mu(&k, NULL, 0, msg, MSGLEN, &mu);
	/* a key that does not allow external mu */
	CU_ASSERT_EQUAL(sign_digest(&no, NULL, 0, &mu, NULL, &sig), RC_H(TPM_RC_EXT_MU, 1));
	CU_ASSERT_EQUAL_FATAL(sign_digest(&k, NULL, 0, &mu, NULL, &sig), 0);
	CU_ASSERT_EQUAL(verify_digest(&no, NULL, 0, &mu, &sig, &t), RC_H(TPM_RC_EXT_MU, 1));
	/* mu is 64 bytes (FIPS 204), and holds the context already */
	mu.size = 32;
	CU_ASSERT_EQUAL(sign_digest(&k, NULL, 0, &mu, NULL, &sig), RC_P(TPM_RC_SIZE, 2));
	CU_ASSERT_EQUAL(verify_digest(&k, NULL, 0, &mu, &sig, &t), RC_P(TPM_RC_SIZE, 2));
	mu.size = 64;
	CU_ASSERT_EQUAL(sign_digest(&k, ctx, CTXLEN, &mu, NULL, &sig), RC_P(TPM_RC_VALUE, 1));
	/* a restricted ML-DSA key cannot know who computed mu */
	key_of(TPM_ALG_MLDSA, TPM_MLDSA_44, 1, TPMA_OBJECT_RESTRICTED, &r);
	CU_ASSERT_EQUAL(sign_digest(&r, NULL, 0, &mu, NULL, &sig), RC_H(TPM_RC_ATTRIBUTES, 1));
	/* wrong ticket tag, a context of 256 bytes */
	{
		struct tpmt_ticket v = { .tag = TPM_ST_VERIFIED, .hierarchy = TPM_RH_NULL };
		uint8_t big[256] = { 0 };

		CU_ASSERT_EQUAL(sign_digest(&k, NULL, 0, &mu, &v, &sig), RC_P(TPM_RC_TAG, 3));
		CU_ASSERT_EQUAL(sign_digest(&k, big, 256, &mu, NULL, &sig), RC_P(TPM_RC_SIZE, 1));
	}
}

static void test_hash_mldsa(void)
{
	static struct tpmt_signature sig;
	struct tpm2b_digest d;
	struct tpmt_ticket t;
	struct pq_key k;

	key_of(TPM_ALG_HASH_MLDSA, TPM_MLDSA_65, 0, 0, &k);
	d.size = 32;
	CU_ASSERT_EQUAL(crypto_hash(TPM_ALG_SHA256, msg, MSGLEN, d.b), 0);
	CU_ASSERT_EQUAL_FATAL(sign_digest(&k, ctx, CTXLEN, &d, NULL, &sig), 0);
	CU_ASSERT_EQUAL(sig.sig_alg, TPM_ALG_HASH_MLDSA);
	CU_ASSERT_EQUAL(sig.hash, TPM_ALG_SHA256);
	CU_ASSERT_EQUAL(mldsa_verify_hash(2, k.pub.unique.b, TPM_ALG_SHA256, d.b, 32, ctx, CTXLEN,
					  sig.sig, sig.size),
			0);
	/* verified under a context: a NULL ticket (the ticket cannot say which context) */
	CU_ASSERT_EQUAL(verify_digest(&k, ctx, CTXLEN, &d, &sig, &t), 0);
	CU_ASSERT_EQUAL(t.tag, TPM_ST_DIGEST_VERIFIED);
	CU_ASSERT_EQUAL(t.hierarchy, TPM_RH_NULL);
	CU_ASSERT_EQUAL(t.digest.size, 0);
	CU_ASSERT_EQUAL_FATAL(sign_digest(&k, NULL, 0, &d, NULL, &sig), 0);
	CU_ASSERT_EQUAL(verify_digest(&k, NULL, 0, &d, &sig, &t), 0);
	expect_digest_ticket(&t, &d, &k.name, TPM_ALG_SHA256);
	CU_ASSERT_EQUAL_FATAL(sign_digest(&k, ctx, CTXLEN, &d, NULL, &sig), 0);
	/* another context is another signature */
	CU_ASSERT_EQUAL(verify_digest(&k, ctx, CTXLEN - 1, &d, &sig, &t),
			RC_P(TPM_RC_SIGNATURE, 3));
	d.size = 48;
	CU_ASSERT_EQUAL(sign_digest(&k, ctx, CTXLEN, &d, NULL, &sig), RC_P(TPM_RC_SIZE, 2));
}

/* TPM2_Sign and VerifySignature: HashML-DSA signs a digest with an empty context; pure ML-DSA
 * signs messages only. */
static void test_sign_command(void)
{
	static struct tpmt_signature sig;
	struct tpmt_ticket null = { .tag = TPM_ST_HASHCHECK, .hierarchy = TPM_RH_NULL };
	struct tpm2b_digest d;
	struct pq_key k, pure;
	struct cmdbuf b;
	struct rd rsp;

	key_of(TPM_ALG_HASH_MLDSA, TPM_MLDSA_44, 0, 0, &k);
	key_of(TPM_ALG_MLDSA, TPM_MLDSA_44, 0, 0, &pure);
	d.size = 32;
	CU_ASSERT_EQUAL(crypto_hash(TPM_ALG_SHA256, msg, MSGLEN, d.b), 0);
	cmd_begin(&b, TPM_CC_Sign);
	cmd_handle(&b, k.handle);
	cmd_auth_pw(&b, "k");
	wr_tpm2b_digest(&b.params, &d);
	wr_u16(&b.params, TPM_ALG_NULL);
	wr_ticket(&b.params, &null);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, &rsp, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(rd_signature(&rsp, &sig), 0);
	CU_ASSERT_EQUAL(mldsa_verify_hash(1, k.pub.unique.b, TPM_ALG_SHA256, d.b, 32, NULL, 0,
					  sig.sig, sig.size),
			0);
	cmd_begin(&b, TPM_CC_VerifySignature);
	cmd_handle(&b, k.handle);
	wr_tpm2b_digest(&b.params, &d);
	wr_signature(&b.params, &sig);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), 0);
	sig.sig[0] ^= 1;
	cmd_begin(&b, TPM_CC_VerifySignature);
	cmd_handle(&b, k.handle);
	wr_tpm2b_digest(&b.params, &d);
	wr_signature(&b.params, &sig);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_P(TPM_RC_SIGNATURE, 2));
	/* pure ML-DSA: Sign and VerifySignature refuse the scheme */
	cmd_begin(&b, TPM_CC_Sign);
	cmd_handle(&b, pure.handle);
	cmd_auth_pw(&b, "k");
	wr_tpm2b_digest(&b.params, &d);
	wr_u16(&b.params, TPM_ALG_NULL);
	wr_ticket(&b.params, &null);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_P(TPM_RC_SCHEME, 2));
	sig.sig_alg = TPM_ALG_MLDSA;
	cmd_begin(&b, TPM_CC_VerifySignature);
	cmd_handle(&b, pure.handle);
	wr_tpm2b_digest(&b.params, &d);
	wr_signature(&b.params, &sig);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_P(TPM_RC_SCHEME, 2));
}

/* RSA and ECC keys through SignDigest / VerifyDigestSignature: the key's scheme, no context. */
static void test_classical(void)
{
	static struct tpmt_signature sig;
	struct tpmt_public t;
	struct tpm2b_digest d;
	struct tpmt_ticket tk;
	struct pq_key k;

	pq_tmpl(&t, TPM_ALG_ECC, 0, TPMA_OBJECT_SIGN_ENCRYPT);
	t.scheme.scheme = TPM_ALG_ECDSA;
	t.scheme.hash_alg = TPM_ALG_SHA256;
	CU_ASSERT_EQUAL_FATAL(pq_primary(&h, TPM_RH_OWNER, &t, "k", &k), 0);
	d.size = 32;
	CU_ASSERT_EQUAL(crypto_hash(TPM_ALG_SHA256, msg, MSGLEN, d.b), 0);
	CU_ASSERT_EQUAL_FATAL(sign_digest(&k, NULL, 0, &d, NULL, &sig), 0);
	CU_ASSERT_EQUAL(sig.sig_alg, TPM_ALG_ECDSA);
	CU_ASSERT_EQUAL(verify_digest(&k, NULL, 0, &d, &sig, &tk), 0);
	expect_digest_ticket(&tk, &d, &k.name, TPM_ALG_SHA256);
	CU_ASSERT_EQUAL(sign_digest(&k, ctx, CTXLEN, &d, NULL, &sig), RC_P(TPM_RC_VALUE, 1));
	CU_ASSERT_EQUAL(verify_digest(&k, ctx, CTXLEN, &d, &sig, &tk), RC_P(TPM_RC_VALUE, 1));
	d.size = 20;
	CU_ASSERT_EQUAL(sign_digest(&k, NULL, 0, &d, NULL, &sig), RC_P(TPM_RC_SIZE, 2));
	/* no scheme of its own: SignDigest has no inScheme to take one from */
	t.scheme.scheme = t.scheme.hash_alg = TPM_ALG_NULL;
	CU_ASSERT_EQUAL_FATAL(pq_primary(&h, TPM_RH_OWNER, &t, "k", &k), 0);
	CU_ASSERT_EQUAL(sign_digest(&k, NULL, 0, &d, NULL, &sig), RC_H(TPM_RC_SCHEME, 1));
}

/* The helper Quote/Certify call: pure ML-DSA, empty context, over the bytes. */
static void test_sign_message_helper(void)
{
	static struct tpmt_signature sig;
	struct tpmt_scheme scheme, none = { .scheme = TPM_ALG_NULL, .hash_alg = TPM_ALG_NULL,
					    .kdf = TPM_ALG_NULL };
	static struct key_material m;
	uint8_t attest[600];
	struct object *o;
	struct pq_key k;

	memset(attest, 0x5A, sizeof(attest));
	attest[0] = 0xFF, attest[1] = 'T', attest[2] = 'C', attest[3] = 'G';
	key_of(TPM_ALG_MLDSA, TPM_MLDSA_65, 0, TPMA_OBJECT_RESTRICTED, &k);
	o = object_find(h.c, k.handle);
	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	CU_ASSERT_EQUAL_FATAL(scheme_sign(&o->pub, &none, &scheme), 0);
	CU_ASSERT_EQUAL(scheme.scheme, TPM_ALG_MLDSA);
	CU_ASSERT_EQUAL_FATAL(key_material_of(&m, o), 0);
	CU_ASSERT_EQUAL_FATAL(scheme_sign_message(&m, &scheme, attest, sizeof(attest), &sig), 0);
	CU_ASSERT_EQUAL(mldsa_verify(2, k.pub.unique.b, attest, sizeof(attest), NULL, 0, sig.sig,
				     sig.size),
			0);
	CU_ASSERT_EQUAL(scheme_verify_message(&m, attest, sizeof(attest), &sig), 0);
	attest[5] ^= 1;
	CU_ASSERT_EQUAL(scheme_verify_message(&m, attest, sizeof(attest), &sig), TPM_RC_SIGNATURE);
	key_material_drop(&m);
	/* HashML-DSA: SHA-256 of the bytes, empty context */
	key_of(TPM_ALG_HASH_MLDSA, TPM_MLDSA_44, 0, TPMA_OBJECT_RESTRICTED, &k);
	o = object_find(h.c, k.handle);
	CU_ASSERT_EQUAL_FATAL(scheme_sign(&o->pub, &none, &scheme), 0);
	CU_ASSERT_EQUAL_FATAL(key_material_of(&m, o), 0);
	CU_ASSERT_EQUAL_FATAL(scheme_sign_message(&m, &scheme, attest, sizeof(attest), &sig), 0);
	CU_ASSERT_EQUAL(scheme_verify_message(&m, attest, sizeof(attest), &sig), 0);
	key_material_drop(&m);
}

/* Public areas: unknown parameter sets, keys of the wrong size, ML-DSA that decrypts. */
static void test_public_areas(void)
{
	struct tpmt_public t;
	struct pq_key k, pub;

	pq_tmpl(&t, TPM_ALG_MLDSA, 4, TPMA_OBJECT_SIGN_ENCRYPT);
	CU_ASSERT_EQUAL(pq_primary(&h, TPM_RH_OWNER, &t, "", &k), RC_P(TPM_RC_PARMS, 2));
	pq_tmpl(&t, TPM_ALG_MLDSA, TPM_MLDSA_NONE, TPMA_OBJECT_SIGN_ENCRYPT);
	CU_ASSERT_EQUAL(pq_primary(&h, TPM_RH_OWNER, &t, "", &k), RC_P(TPM_RC_PARMS, 2));
	pq_tmpl(&t, TPM_ALG_MLKEM, 7, TPMA_OBJECT_DECRYPT);
	CU_ASSERT_EQUAL(pq_primary(&h, TPM_RH_OWNER, &t, "", &k), RC_P(TPM_RC_PARMS, 2));
	pq_tmpl(&t, TPM_ALG_MLDSA, TPM_MLDSA_44, TPMA_OBJECT_DECRYPT);
	CU_ASSERT_EQUAL(pq_primary(&h, TPM_RH_OWNER, &t, "", &k), RC_P(TPM_RC_ATTRIBUTES, 2));
	/* a public key one byte short */
	key_of(TPM_ALG_MLDSA, TPM_MLDSA_44, 0, 0, &k);
	t = k.pub;
	t.unique.size--;
	CU_ASSERT_EQUAL(pq_load_public(&h, &t, &pub), RC_P(TPM_RC_KEY, 2));
	CU_ASSERT_EQUAL(pq_load_public(&h, &k.pub, &pub), 0);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "external mu, all sets", test_external_mu },
		{ "external mu refusals", test_external_mu_refusals },
		{ "HashML-DSA digests", test_hash_mldsa },
		{ "Sign and VerifySignature", test_sign_command },
		{ "RSA/ECC through the digest commands", test_classical },
		{ "attestation signing helper", test_sign_message_helper },
		{ "public areas", test_public_areas },
	};

	return UNIT_RUN("pq_digest", tests, setup, teardown);
}
