/* Sign and VerifySignature (core/cmd/sign.c, core/scheme.c): every scheme signs and verifies,
 * ECDSA and HMAC signatures checked outside the TPM, the verified ticket recomputed, the
 * scheme rules, restricted keys and hashcheck tickets, and the exact error codes. */
#include <string.h>

#include <CUnit/Basic.h>

#include "engine_int.h"
#include "harness.h"
#include "keys.h"
#include "unit_main.h"

#define SIGN TPMA_OBJECT_SIGN_ENCRYPT
#define DECRYPT TPMA_OBJECT_DECRYPT
#define RESTRICTED TPMA_OBJECT_RESTRICTED

static struct harness h;

static void setup(void)
{
	harness_open(&h);
}

static void teardown(void)
{
	harness_close(&h);
}

/* ---- commands ---- */

static void digest_of(const char *msg, TPM_ALG_ID alg, struct tpm2b_digest *d)
{
	d->size = (uint16_t)crypto_hash_size(alg);
	CU_ASSERT_EQUAL_FATAL(crypto_hash(alg, msg, strlen(msg), d->b), TPM_RC_SUCCESS);
}

static TPM_RC sign_t(const struct key *k, const char *auth, const struct tpm2b_digest *d,
		     TPM_ALG_ID scheme, TPM_ALG_ID hash, const struct tpmt_ticket *t,
		     struct tpmt_signature *sig)
{
	struct tpmt_ticket null_ticket = { .tag = TPM_ST_HASHCHECK, .hierarchy = TPM_RH_NULL };
	struct cmdbuf b;
	struct rd rsp;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_Sign);
	cmd_handle(&b, k->handle);
	cmd_auth_pw(&b, auth);
	wr_tpm2b_digest(&b.params, d);
	wr_u16(&b.params, scheme);
	if (scheme != TPM_ALG_NULL)
		wr_u16(&b.params, hash);
	wr_ticket(&b.params, t ? t : &null_ticket);
	rc = harness_run(&h, &b, &rsp, NULL);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	CU_ASSERT_EQUAL(rd_signature(&rsp, sig), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_left(&rsp), 0);
	return rc;
}

static TPM_RC sign(const struct key *k, const struct tpm2b_digest *d, TPM_ALG_ID scheme,
		   TPM_ALG_ID hash, struct tpmt_signature *sig)
{
	return sign_t(k, "", d, scheme, hash, NULL, sig);
}

static TPM_RC verify(const struct key *k, const struct tpm2b_digest *d,
		     const struct tpmt_signature *sig, struct tpmt_ticket *t)
{
	struct cmdbuf b;
	struct rd rsp;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_VerifySignature);
	cmd_handle(&b, k->handle);
	wr_tpm2b_digest(&b.params, d);
	wr_signature(&b.params, sig);
	rc = harness_run(&h, &b, &rsp, NULL);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	CU_ASSERT_EQUAL(rd_ticket(&rsp, t), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_left(&rsp), 0);
	return rc;
}

static TPM_RC hash_ticket(const void *data, uint16_t len, struct tpm2b_digest *d,
			  struct tpmt_ticket *t)
{
	struct cmdbuf b;
	struct rd rsp;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_Hash);
	wr_tpm2b(&b.params, data, len);
	wr_u16(&b.params, TPM_ALG_SHA256);
	wr_u32(&b.params, TPM_RH_OWNER);
	rc = harness_run(&h, &b, &rsp, NULL);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	CU_ASSERT_EQUAL(rd_tpm2b_digest(&rsp, d), 0);
	CU_ASSERT_EQUAL(rd_ticket(&rsp, t), 0);
	return rc;
}

/* TPMT_TK_VERIFIED as the TPM must make it: HMAC(proof, TPM_ST_VERIFIED || digest || name). */
static void expect_verified(const struct tpmt_ticket *t, TPM_HANDLE hier,
			    const struct tpm2b_digest *d, const struct tpm2b_name *name)
{
	uint8_t msg[2 + MAX_DIGEST_SIZE + MAX_NAME_SIZE], mac[32];
	size_t n = 0;

	msg[n++] = TPM_ST_VERIFIED >> 8;
	msg[n++] = TPM_ST_VERIFIED & 0xFF;
	memcpy(msg + n, d->b, d->size);
	n += d->size;
	memcpy(msg + n, name->b, name->size);
	n += name->size;
	CU_ASSERT_EQUAL_FATAL(crypto_hmac(TPM_ALG_SHA256, hier_proof(h.e, hier), PRIMARY_SEED_SIZE,
					  msg, n, mac),
			      0);
	CU_ASSERT_EQUAL(t->tag, TPM_ST_VERIFIED);
	CU_ASSERT_EQUAL(t->hierarchy, hier);
	CU_ASSERT_EQUAL_FATAL(t->digest.size, 32);
	CU_ASSERT_EQUAL(memcmp(t->digest.b, mac, 32), 0);
}

/* ---- ECDSA ---- */

static void ecc_sign_key(struct key *k, TPM_ALG_ID scheme, TPM_ALG_ID hash, uint32_t extra)
{
	struct tpmt_public t;

	key_template(&t, TPM_ALG_ECC, SIGN | extra);
	t.scheme.scheme = scheme;
	t.scheme.hash_alg = hash;
	key_primary(&h, &t, NULL, 0, k);
}

static void test_ecdsa(void)
{
	struct tpmt_signature sig, bad;
	struct tpm2b_digest d, other;
	struct tpmt_ticket t;
	struct key k;

	ecc_sign_key(&k, TPM_ALG_ECDSA, TPM_ALG_SHA256, 0);
	digest_of("message", TPM_ALG_SHA256, &d);
	CU_ASSERT_EQUAL_FATAL(sign(&k, &d, TPM_ALG_NULL, 0, &sig), 0);
	CU_ASSERT_EQUAL(sig.sig_alg, TPM_ALG_ECDSA);
	CU_ASSERT_EQUAL(sig.hash, TPM_ALG_SHA256);
	CU_ASSERT_EQUAL_FATAL(sig.r.size, 32);
	CU_ASSERT_EQUAL_FATAL(sig.s.size, 32);
	/* checked outside the TPM with the public key it reported */
	CU_ASSERT_EQUAL(crypto_ecdsa_verify(TPM_ECC_NIST_P256, k.pub.x.b, k.pub.y.b, d.b, d.size,
					    sig.r.b, 32, sig.s.b, 32),
			TPM_RC_SUCCESS);

	CU_ASSERT_EQUAL_FATAL(verify(&k, &d, &sig, &t), 0);
	expect_verified(&t, TPM_RH_OWNER, &d, &k.name);

	/* the same scheme spelled out is fine */
	CU_ASSERT_EQUAL(sign(&k, &d, TPM_ALG_ECDSA, TPM_ALG_SHA256, &sig), 0);

	/* tampered signature, other digest */
	bad = sig;
	bad.s.b[5] ^= 1;
	CU_ASSERT_EQUAL(verify(&k, &d, &bad, &t), RC_P(TPM_RC_SIGNATURE, 2));
	digest_of("other", TPM_ALG_SHA256, &other);
	CU_ASSERT_EQUAL(verify(&k, &other, &sig, &t), RC_P(TPM_RC_SIGNATURE, 2));
	/* an RSA signature for an ECC key */
	bad.sig_alg = TPM_ALG_RSASSA;
	bad.size = 256;
	memset(bad.sig, 1, 256);
	CU_ASSERT_EQUAL(verify(&k, &d, &bad, &t), RC_P(TPM_RC_SCHEME, 2));
}

static void test_ecdsa_scheme_rules(void)
{
	struct tpmt_signature sig;
	struct tpm2b_digest d, d384;
	struct key fixed, open;

	ecc_sign_key(&fixed, TPM_ALG_ECDSA, TPM_ALG_SHA256, 0);
	ecc_sign_key(&open, TPM_ALG_NULL, TPM_ALG_NULL, 0);
	digest_of("message", TPM_ALG_SHA256, &d);
	digest_of("message", TPM_ALG_SHA384, &d384);

	/* the key's scheme may only be repeated */
	CU_ASSERT_EQUAL(sign(&fixed, &d384, TPM_ALG_ECDSA, TPM_ALG_SHA384, &sig),
			RC_P(TPM_RC_SCHEME, 2));
	/* a key without a scheme takes the caller's, which must fit the key */
	CU_ASSERT_EQUAL(sign(&open, &d, TPM_ALG_NULL, 0, &sig), RC_P(TPM_RC_SCHEME, 2));
	CU_ASSERT_EQUAL(sign(&open, &d, TPM_ALG_RSASSA, TPM_ALG_SHA256, &sig),
			RC_P(TPM_RC_SCHEME, 2));
	CU_ASSERT_EQUAL(sign(&open, &d, TPM_ALG_HMAC, TPM_ALG_SHA256, &sig),
			RC_P(TPM_RC_SCHEME, 2));
	CU_ASSERT_EQUAL_FATAL(sign(&open, &d384, TPM_ALG_ECDSA, TPM_ALG_SHA384, &sig), 0);
	CU_ASSERT_EQUAL(sig.hash, TPM_ALG_SHA384);
	CU_ASSERT_EQUAL(crypto_ecdsa_verify(TPM_ECC_NIST_P256, open.pub.x.b, open.pub.y.b,
					    d384.b, d384.size, sig.r.b, sig.r.size, sig.s.b,
					    sig.s.size),
			TPM_RC_SUCCESS);
	/* the digest must have the scheme hash's size */
	CU_ASSERT_EQUAL(sign(&fixed, &d384, TPM_ALG_NULL, 0, &sig), RC_P(TPM_RC_SIZE, 1));
	CU_ASSERT_EQUAL(sign(&open, &d, TPM_ALG_ECDSA, TPM_ALG_SHA384, &sig),
			RC_P(TPM_RC_SIZE, 1));
	/* unmarshalling: a scheme that is no signing scheme, a hash we lack */
	CU_ASSERT_EQUAL(sign(&open, &d, TPM_ALG_OAEP, TPM_ALG_SHA256, &sig),
			RC_P(TPM_RC_SCHEME, 2));
	CU_ASSERT_EQUAL(sign(&open, &d, TPM_ALG_ECDSA, TPM_ALG_SM3_256, &sig),
			RC_P(TPM_RC_HASH, 2));
}

/* ---- RSA ---- */

static void test_rsa_schemes(void)
{
	static const TPM_ALG_ID schemes[] = { TPM_ALG_RSASSA, TPM_ALG_RSAPSS };
	struct tpmt_signature sig, again, bad;
	struct tpm2b_digest d;
	struct tpmt_ticket t;
	struct tpmt_public tp;
	struct key k;

	key_template(&tp, TPM_ALG_RSA, SIGN);
	key_primary(&h, &tp, NULL, 0, &k);
	digest_of("message", TPM_ALG_SHA256, &d);
	for (size_t i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL_FATAL(sign(&k, &d, schemes[i], TPM_ALG_SHA256, &sig), 0);
		CU_ASSERT_EQUAL(sig.sig_alg, schemes[i]);
		CU_ASSERT_EQUAL(sig.hash, TPM_ALG_SHA256);
		CU_ASSERT_EQUAL(sig.size, 256);
		CU_ASSERT_EQUAL_FATAL(verify(&k, &d, &sig, &t), 0);
		expect_verified(&t, TPM_RH_OWNER, &d, &k.name);
		bad = sig;
		bad.sig[100] ^= 0x80;
		CU_ASSERT_EQUAL(verify(&k, &d, &bad, &t), RC_P(TPM_RC_SIGNATURE, 2));
		/* a signature of the wrong length */
		bad = sig;
		bad.size = 255;
		CU_ASSERT_EQUAL(verify(&k, &d, &bad, &t), RC_P(TPM_RC_SIGNATURE, 2));
		/* a signature under the other RSA scheme */
		bad = sig;
		bad.sig_alg = schemes[1 - i];
		CU_ASSERT_EQUAL(verify(&k, &d, &bad, &t), RC_P(TPM_RC_SIGNATURE, 2));
	}
	/* PKCS#1 v1.5 is deterministic, PSS is salted */
	CU_ASSERT_EQUAL(sign(&k, &d, TPM_ALG_RSASSA, TPM_ALG_SHA256, &sig), 0);
	CU_ASSERT_EQUAL(sign(&k, &d, TPM_ALG_RSASSA, TPM_ALG_SHA256, &again), 0);
	CU_ASSERT_EQUAL(memcmp(sig.sig, again.sig, 256), 0);
	CU_ASSERT_EQUAL(sign(&k, &d, TPM_ALG_RSAPSS, TPM_ALG_SHA256, &sig), 0);
	CU_ASSERT_EQUAL(sign(&k, &d, TPM_ALG_RSAPSS, TPM_ALG_SHA256, &again), 0);
	CU_ASSERT_NOT_EQUAL(memcmp(sig.sig, again.sig, 256), 0);
	CU_ASSERT_EQUAL(sign(&k, &d, TPM_ALG_ECDSA, TPM_ALG_SHA256, &sig), RC_P(TPM_RC_SCHEME, 2));
}

/* ---- HMAC ---- */

static void test_hmac_signature(void)
{
	static const char secret[] = "an HMAC key of the caller's";
	struct tpmt_signature sig, bad;
	struct tpm2b_digest d;
	struct tpmt_ticket t;
	struct tpmt_public tp;
	uint8_t mac[32];
	struct key k;

	key_template(&tp, TPM_ALG_KEYEDHASH, SIGN);
	tp.scheme.scheme = TPM_ALG_HMAC;
	tp.scheme.hash_alg = TPM_ALG_SHA256;
	key_primary(&h, &tp, secret, sizeof(secret) - 1, &k);
	digest_of("message", TPM_ALG_SHA256, &d);
	CU_ASSERT_EQUAL_FATAL(sign(&k, &d, TPM_ALG_NULL, 0, &sig), 0);
	CU_ASSERT_EQUAL(sig.sig_alg, TPM_ALG_HMAC);
	CU_ASSERT_EQUAL(sig.hash, TPM_ALG_SHA256);
	CU_ASSERT_EQUAL_FATAL(sig.size, 32);
	CU_ASSERT_EQUAL(crypto_hmac(TPM_ALG_SHA256, (const uint8_t *)secret, sizeof(secret) - 1,
				    d.b, d.size, mac),
			0);
	CU_ASSERT_EQUAL(memcmp(sig.sig, mac, 32), 0);

	CU_ASSERT_EQUAL_FATAL(verify(&k, &d, &sig, &t), 0);
	expect_verified(&t, TPM_RH_OWNER, &d, &k.name);
	bad = sig;
	bad.sig[31] ^= 1;
	CU_ASSERT_EQUAL(verify(&k, &d, &bad, &t), RC_P(TPM_RC_SIGNATURE, 2));
	/* a key with a scheme refuses a signature made with another hash */
	bad.hash = TPM_ALG_SHA1;
	bad.size = 20;
	CU_ASSERT_EQUAL(crypto_hmac(TPM_ALG_SHA1, (const uint8_t *)secret, sizeof(secret) - 1,
				    d.b, d.size, bad.sig),
			0);
	CU_ASSERT_EQUAL(verify(&k, &d, &bad, &t), RC_P(TPM_RC_SIGNATURE, 2));
	bad.sig_alg = TPM_ALG_ECDSA;
	bad.r.size = bad.s.size = 32;
	CU_ASSERT_EQUAL(verify(&k, &d, &bad, &t), RC_P(TPM_RC_SCHEME, 2));
}

/* ---- keys that may not sign ---- */

static void test_key_attributes(void)
{
	struct tpmt_signature sig;
	struct tpm2b_digest d;
	struct tpmt_ticket t;
	struct tpmt_public tp;
	struct key dec, k;

	key_template(&tp, TPM_ALG_ECC, DECRYPT);
	key_primary(&h, &tp, NULL, 0, &dec);
	ecc_sign_key(&k, TPM_ALG_ECDSA, TPM_ALG_SHA256, 0);
	digest_of("message", TPM_ALG_SHA256, &d);
	CU_ASSERT_EQUAL(sign(&dec, &d, TPM_ALG_ECDSA, TPM_ALG_SHA256, &sig), RC_H(TPM_RC_KEY, 1));
	CU_ASSERT_EQUAL_FATAL(sign(&k, &d, TPM_ALG_NULL, 0, &sig), 0);
	CU_ASSERT_EQUAL(verify(&dec, &d, &sig, &t), RC_H(TPM_RC_ATTRIBUTES, 1));
	/* authorization */
	CU_ASSERT_EQUAL(sign_t(&k, "nope", &d, TPM_ALG_NULL, 0, NULL, &sig),
			RC_S(TPM_RC_AUTH_FAIL, 1));
}

/* ---- restricted keys and hashcheck tickets ---- */

static void test_restricted(void)
{
	static const uint8_t forged[] = { 0xFF, 0x54, 0x43, 0x47, 0x80, 0x18, 0, 0 };
	struct tpmt_signature sig;
	struct tpm2b_digest d, other;
	struct tpmt_ticket t, vt;
	struct key k;

	ecc_sign_key(&k, TPM_ALG_ECDSA, TPM_ALG_SHA256, RESTRICTED);
	CU_ASSERT_EQUAL_FATAL(hash_ticket("to be signed", 12, &d, &t), 0);
	/* no ticket: refused, even for a digest that would be fine */
	CU_ASSERT_EQUAL(sign(&k, &d, TPM_ALG_NULL, 0, &sig), RC_P(TPM_RC_TICKET, 3));
	/* the TPM's ticket for this digest */
	CU_ASSERT_EQUAL_FATAL(sign_t(&k, "", &d, TPM_ALG_NULL, 0, &t, &sig), 0);
	CU_ASSERT_EQUAL(verify(&k, &d, &sig, &vt), 0);
	/* the ticket belongs to its digest only */
	digest_of("something else", TPM_ALG_SHA256, &other);
	CU_ASSERT_EQUAL(sign_t(&k, "", &other, TPM_ALG_NULL, 0, &t, &sig),
			RC_P(TPM_RC_TICKET, 3));
	/* another hierarchy's name on the ticket */
	vt = t;
	vt.hierarchy = TPM_RH_ENDORSEMENT;
	CU_ASSERT_EQUAL(sign_t(&k, "", &d, TPM_ALG_NULL, 0, &vt, &sig), RC_P(TPM_RC_TICKET, 3));
	/* data that starts like TPM-made attestation gets a NULL Ticket, so no signature */
	CU_ASSERT_EQUAL_FATAL(hash_ticket(forged, sizeof(forged), &d, &t), 0);
	CU_ASSERT_EQUAL(t.hierarchy, TPM_RH_NULL);
	CU_ASSERT_EQUAL(sign_t(&k, "", &d, TPM_ALG_NULL, 0, &t, &sig), RC_P(TPM_RC_TICKET, 3));
	/* a ticket of the wrong type */
	CU_ASSERT_EQUAL_FATAL(hash_ticket("to be signed", 12, &d, &t), 0);
	t.tag = TPM_ST_VERIFIED;
	CU_ASSERT_EQUAL(sign_t(&k, "", &d, TPM_ALG_NULL, 0, &t, &sig), RC_P(TPM_RC_TAG, 3));
}

/* An unrestricted key needs no ticket, but one that is given must be right. */
static void test_unrestricted_with_ticket(void)
{
	struct tpmt_signature sig;
	struct tpm2b_digest d;
	struct tpmt_ticket t;
	struct key k;

	ecc_sign_key(&k, TPM_ALG_ECDSA, TPM_ALG_SHA256, 0);
	CU_ASSERT_EQUAL_FATAL(hash_ticket("data", 4, &d, &t), 0);
	CU_ASSERT_EQUAL(sign_t(&k, "", &d, TPM_ALG_NULL, 0, &t, &sig), 0);
	t.digest.b[0] ^= 1;
	CU_ASSERT_EQUAL(sign_t(&k, "", &d, TPM_ALG_NULL, 0, &t, &sig), RC_P(TPM_RC_TICKET, 3));
}

/* A key of the NULL hierarchy verifies, but its ticket is the NULL Ticket. */
static void test_null_hierarchy_ticket(void)
{
	struct tpmt_signature sig;
	struct tpm2b_digest d;
	struct tpmt_ticket t;
	struct tpmt_public tp;
	struct key k;

	key_template(&tp, TPM_ALG_ECC, SIGN | TPMA_OBJECT_SENSITIVEDATAORIGIN);
	tp.scheme.scheme = TPM_ALG_ECDSA;
	tp.scheme.hash_alg = TPM_ALG_SHA256;
	CU_ASSERT_EQUAL_FATAL(key_primary_in(&h, TPM_RH_NULL, &tp, "", NULL, 0, &k), 0);
	digest_of("message", TPM_ALG_SHA256, &d);
	CU_ASSERT_EQUAL_FATAL(sign(&k, &d, TPM_ALG_NULL, 0, &sig), 0);
	CU_ASSERT_EQUAL_FATAL(verify(&k, &d, &sig, &t), 0);
	CU_ASSERT_EQUAL(t.tag, TPM_ST_VERIFIED);
	CU_ASSERT_EQUAL(t.hierarchy, TPM_RH_NULL);
	CU_ASSERT_EQUAL(t.digest.size, 0);
}

static void test_malformed(void)
{
	struct tpmt_signature sig;
	struct tpm2b_digest d;
	struct cmdbuf b;
	struct key k;

	ecc_sign_key(&k, TPM_ALG_ECDSA, TPM_ALG_SHA256, 0);
	digest_of("message", TPM_ALG_SHA256, &d);
	/* digest larger than any hash */
	cmd_begin(&b, TPM_CC_Sign);
	cmd_handle(&b, k.handle);
	cmd_auth_pw(&b, "");
	wr_u16(&b.params, MAX_DIGEST_SIZE + 1);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_P(TPM_RC_SIZE, 1));
	/* ticket missing */
	cmd_begin(&b, TPM_CC_Sign);
	cmd_handle(&b, k.handle);
	cmd_auth_pw(&b, "");
	wr_tpm2b_digest(&b.params, &d);
	wr_u16(&b.params, TPM_ALG_NULL);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_P(TPM_RC_INSUFFICIENT, 3));
	/* VerifySignature with a NULL signature */
	cmd_begin(&b, TPM_CC_VerifySignature);
	cmd_handle(&b, k.handle);
	wr_tpm2b_digest(&b.params, &d);
	wr_u16(&b.params, TPM_ALG_NULL);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_P(TPM_RC_SCHEME, 2));
	/* the handle must be an object */
	CU_ASSERT_EQUAL_FATAL(sign(&k, &d, TPM_ALG_NULL, 0, &sig), 0);
	cmd_begin(&b, TPM_CC_VerifySignature);
	cmd_handle(&b, TPM_RH_OWNER);
	wr_tpm2b_digest(&b.params, &d);
	wr_signature(&b.params, &sig);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_H(TPM_RC_VALUE, 1));
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "ECDSA sign, verify, ticket", test_ecdsa },
		{ "scheme rules", test_ecdsa_scheme_rules },
		{ "RSASSA and RSAPSS", test_rsa_schemes },
		{ "HMAC signatures", test_hmac_signature },
		{ "keys that may not sign", test_key_attributes },
		{ "restricted keys need a ticket", test_restricted },
		{ "unrestricted keys and tickets", test_unrestricted_with_ticket },
		{ "NULL hierarchy ticket", test_null_hierarchy_ticket },
		{ "malformed input", test_malformed },
	};

	return UNIT_RUN("sign", tests, setup, teardown);
}
