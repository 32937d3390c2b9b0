/* Sign and verify sequences (core/cmd/pq_sequence.c, pq_seq.c): ML-DSA-44/65/87 messages of
 * any length signed in the TPM and checked outside with FIPS 204 verification, checked in the
 * TPM with the v1.85 message ticket recomputed here, HashML-DSA and ECDSA through the same
 * commands, sequences saved and loaded midway, and every refusal with its exact code. */
#include <string.h>

#include <CUnit/Basic.h>

#include "crypto/mldsa.h"
#include "pq_util.h"
#include "unit_main.h"

static struct harness h;
static const uint8_t ctx[] = "pqtpm context";
#define CTXLEN ((uint16_t)(sizeof(ctx) - 1))

static void setup(void)
{
	harness_open(&h);
}

static void teardown(void)
{
	harness_close(&h);
}

static void mldsa_key(uint16_t set, uint32_t attrs, struct pq_key *k)
{
	struct tpmt_public t;

	pq_tmpl(&t, TPM_ALG_MLDSA, set, TPMA_OBJECT_SIGN_ENCRYPT | attrs);
	CU_ASSERT_EQUAL_FATAL(pq_primary(&h, TPM_RH_OWNER, &t, "key", k), TPM_RC_SUCCESS);
}

/* msg in chunks of at most chunk bytes: all but the last by SequenceUpdate */
static TPM_RC sign_msg(const struct pq_key *k, const uint8_t *c, uint16_t clen,
		       const uint8_t *msg, size_t len, size_t chunk, struct tpmt_signature *sig)
{
	TPM_HANDLE seq = 0;
	size_t off = 0;

	TRY(pq_sign_start(&h, k->handle, "seq", c, clen, &seq));
	while (len - off > chunk) {
		TRY(pq_update(&h, seq, "seq", msg + off, (uint16_t)chunk));
		off += chunk;
	}
	return pq_sign_complete(&h, seq, "seq", k->handle, "key", msg + off,
				(uint16_t)(len - off), sig);
}

static TPM_RC verify_msg(const struct pq_key *k, const uint8_t *c, uint16_t clen,
			 const uint8_t *msg, size_t len, const struct tpmt_signature *sig,
			 struct tpmt_ticket *t)
{
	TPM_HANDLE seq = 0;
	size_t off = 0;
	TPM_RC rc;

	TRY(pq_verify_start(&h, k->handle, "v", c, clen, &seq));
	while (off < len) {
		size_t n = len - off > 1000 ? 1000 : len - off;

		TRY(pq_update(&h, seq, "v", msg + off, (uint16_t)n));
		off += n;
	}
	rc = pq_verify_complete(&h, seq, "v", k->handle, sig, t);
	if (rc != TPM_RC_SUCCESS)
		pq_flush(&h, seq);
	return rc;
}

/* HMAC(proof(hier), TPM_ST_MESSAGE_VERIFIED || message || keyName), as Part 2 Equation 5 */
static void expect_message_ticket(const struct tpmt_ticket *t, TPM_HANDLE hier,
				  const uint8_t *msg, size_t len, const struct tpm2b_name *name)
{
	struct crypto_hmac_ctx m;
	uint8_t tag[2] = { TPM_ST_MESSAGE_VERIFIED >> 8, TPM_ST_MESSAGE_VERIFIED & 0xFF };
	uint8_t mac[32];

	CU_ASSERT_EQUAL(crypto_hmac_start(&m, TPM_ALG_SHA256, hier_proof(h.e, hier),
					  PRIMARY_SEED_SIZE),
			0);
	crypto_hmac_update(&m, tag, 2);
	crypto_hmac_update(&m, msg, len);
	crypto_hmac_update(&m, name->b, name->size);
	crypto_hmac_finish(&m, mac);
	CU_ASSERT_EQUAL(t->tag, TPM_ST_MESSAGE_VERIFIED);
	CU_ASSERT_EQUAL(t->hierarchy, hier);
	CU_ASSERT_EQUAL_FATAL(t->digest.size, 32);
	CU_ASSERT_EQUAL(memcmp(t->digest.b, mac, 32), 0);
}

static uint8_t msg[5000];

static void fill_msg(void)
{
	for (size_t i = 0; i < sizeof(msg); i++)
		msg[i] = (uint8_t)(i * 7 + 3);
}

/* Every set: a message across several updates, checked by FIPS 204 verification outside and by
 * a verify sequence inside, with its ticket. */
static void test_mldsa_sets(void)
{
	static struct tpmt_signature sig;
	struct tpmt_ticket t;
	struct pq_key k;

	fill_msg();
	for (uint16_t set = TPM_MLDSA_44; set <= TPM_MLDSA_87; set++) {
		mldsa_key(set, 0, &k);
		CU_ASSERT_EQUAL_FATAL(sign_msg(&k, ctx, CTXLEN, msg, sizeof(msg), 1024, &sig), 0);
		CU_ASSERT_EQUAL(sig.sig_alg, TPM_ALG_MLDSA);
		CU_ASSERT_EQUAL(sig.size, mldsa_sig_bytes(set));
		CU_ASSERT_EQUAL(mldsa_verify(set, k.pub.unique.b, msg, sizeof(msg), ctx, CTXLEN,
					     sig.sig, sig.size),
				0);
		/* not under another context, nor for another message */
		CU_ASSERT_EQUAL(mldsa_verify(set, k.pub.unique.b, msg, sizeof(msg), ctx, CTXLEN - 1,
					     sig.sig, sig.size),
				-1);
		CU_ASSERT_EQUAL(mldsa_verify(set, k.pub.unique.b, msg, sizeof(msg) - 1, ctx, CTXLEN,
					     sig.sig, sig.size),
				-1);
		/* verified under a context: a NULL ticket, the ticket cannot say which context */
		CU_ASSERT_EQUAL(verify_msg(&k, ctx, CTXLEN, msg, sizeof(msg), &sig, &t), 0);
		CU_ASSERT_EQUAL(t.tag, TPM_ST_MESSAGE_VERIFIED);
		CU_ASSERT_EQUAL(t.hierarchy, TPM_RH_NULL);
		CU_ASSERT_EQUAL(t.digest.size, 0);
		/* the empty context gets a ticket */
		CU_ASSERT_EQUAL_FATAL(sign_msg(&k, NULL, 0, msg, sizeof(msg), 1024, &sig), 0);
		CU_ASSERT_EQUAL(verify_msg(&k, NULL, 0, msg, sizeof(msg), &sig, &t), 0);
		expect_message_ticket(&t, TPM_RH_OWNER, msg, sizeof(msg), &k.name);
		CU_ASSERT_EQUAL(pq_flush(&h, k.handle), 0);
	}
}

/* Empty message, no context; a message given only in the Complete; one byte per update. */
static void test_message_shapes(void)
{
	static struct tpmt_signature sig;
	struct tpmt_ticket t;
	struct pq_key k;

	fill_msg();
	mldsa_key(TPM_MLDSA_44, 0, &k);
	CU_ASSERT_EQUAL_FATAL(sign_msg(&k, NULL, 0, msg, 0, 1024, &sig), 0);
	CU_ASSERT_EQUAL(mldsa_verify(1, k.pub.unique.b, msg, 0, NULL, 0, sig.sig, sig.size), 0);
	CU_ASSERT_EQUAL(verify_msg(&k, NULL, 0, msg, 0, &sig, &t), 0);
	CU_ASSERT_EQUAL_FATAL(sign_msg(&k, ctx, CTXLEN, msg, 1000, 1024, &sig), 0);
	CU_ASSERT_EQUAL(mldsa_verify(1, k.pub.unique.b, msg, 1000, ctx, CTXLEN, sig.sig, sig.size),
			0);
	CU_ASSERT_EQUAL_FATAL(sign_msg(&k, ctx, CTXLEN, msg, 9, 1, &sig), 0);
	CU_ASSERT_EQUAL(mldsa_verify(1, k.pub.unique.b, msg, 9, ctx, CTXLEN, sig.sig, sig.size), 0);
	/* the longest context FIPS 204 allows */
	{
		uint8_t c[255];

		memset(c, 0xA5, sizeof(c));
		CU_ASSERT_EQUAL_FATAL(sign_msg(&k, c, 255, msg, 100, 1024, &sig), 0);
		CU_ASSERT_EQUAL(
			mldsa_verify(1, k.pub.unique.b, msg, 100, c, 255, sig.sig, sig.size), 0);
		CU_ASSERT_EQUAL(verify_msg(&k, c, 255, msg, 100, &sig, &t), 0);
	}
}

/* A signature that does not verify, of another length, of another kind, for another context. */
static void test_verify_refusals(void)
{
	static struct tpmt_signature sig, bad;
	struct tpmt_ticket t;
	struct pq_key k;

	fill_msg();
	mldsa_key(TPM_MLDSA_65, 0, &k);
	CU_ASSERT_EQUAL_FATAL(sign_msg(&k, ctx, CTXLEN, msg, 300, 1024, &sig), 0);
	bad = sig;
	bad.sig[100] ^= 1;
	CU_ASSERT_EQUAL(verify_msg(&k, ctx, CTXLEN, msg, 300, &bad, &t), RC_P(TPM_RC_SIGNATURE, 1));
	bad = sig;
	bad.size--;
	CU_ASSERT_EQUAL(verify_msg(&k, ctx, CTXLEN, msg, 300, &bad, &t), RC_P(TPM_RC_SIGNATURE, 1));
	bad = sig;
	bad.sig_alg = TPM_ALG_HASH_MLDSA;
	bad.hash = TPM_ALG_SHA256;
	CU_ASSERT_EQUAL(verify_msg(&k, ctx, CTXLEN, msg, 300, &bad, &t), RC_P(TPM_RC_SCHEME, 1));
	/* a signature for another context */
	CU_ASSERT_EQUAL(verify_msg(&k, ctx, CTXLEN - 1, msg, 300, &sig, &t),
			RC_P(TPM_RC_SIGNATURE, 1));
	CU_ASSERT_EQUAL(verify_msg(&k, ctx, CTXLEN, msg, 299, &sig, &t), RC_P(TPM_RC_SIGNATURE, 1));
	/* and the good one still does */
	CU_ASSERT_EQUAL(verify_msg(&k, ctx, CTXLEN, msg, 300, &sig, &t), 0);
}

/* Start and Complete must agree on the key; each Complete takes its own kind of sequence. */
static void test_sequence_refusals(void)
{
	static struct tpmt_signature sig;
	struct tpmt_ticket t;
	struct pq_key k, other, kem;
	struct tpmt_public tk;
	TPM_HANDLE seq = 0, vseq = 0;
	uint8_t big[256] = { 0 };
	struct cmdbuf b;

	mldsa_key(TPM_MLDSA_44, 0, &k);
	mldsa_key(TPM_MLDSA_65, 0, &other);
	memset(&sig, 0, sizeof(sig));
	sig.sig_alg = TPM_ALG_MLDSA;
	CU_ASSERT_EQUAL_FATAL(pq_sign_start(&h, k.handle, "seq", NULL, 0, &seq), 0);
	CU_ASSERT_EQUAL(pq_sign_complete(&h, seq, "seq", other.handle, "key", "m", 1, &sig),
			RC_H(TPM_RC_SIGN_CONTEXT_KEY, 2));
	/* wrong authorizations: the sequence's (session 1; a sequence is exempt from lockout),
	 * the key's (session 2) */
	CU_ASSERT_EQUAL(pq_sign_complete(&h, seq, "sex", k.handle, "key", "m", 1, &sig),
			TPM_RC_BAD_AUTH | TPM_RC_S | TPM_RC_1);
	CU_ASSERT_EQUAL(pq_sign_complete(&h, seq, "seq", k.handle, "kez", "m", 1, &sig),
			TPM_RC_AUTH_FAIL | TPM_RC_S | TPM_RC_2);
	/* a sign sequence is no verify sequence, nor a hash sequence */
	CU_ASSERT_EQUAL(pq_verify_complete(&h, seq, "seq", k.handle, &sig, &t),
			RC_H(TPM_RC_MODE, 1));
	cmd_begin(&b, TPM_CC_SequenceComplete);
	cmd_handle(&b, seq);
	cmd_auth_pw(&b, "seq");
	wr_u16(&b.params, 0);
	wr_u32(&b.params, TPM_RH_NULL);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_H(TPM_RC_MODE, 1));
	/* the sequence survived every refusal */
	CU_ASSERT_EQUAL(pq_sign_complete(&h, seq, "seq", k.handle, "key", "m", 1, &sig), 0);
	CU_ASSERT_EQUAL(mldsa_verify(1, k.pub.unique.b, (const uint8_t *)"m", 1, NULL, 0, sig.sig,
				     sig.size),
			0);
	/* and is gone */
	CU_ASSERT_EQUAL(pq_sign_complete(&h, seq, "seq", k.handle, "key", "m", 1, &sig),
			TPM_RC_REFERENCE_H0);
	CU_ASSERT_EQUAL_FATAL(pq_verify_start(&h, k.handle, "v", NULL, 0, &vseq), 0);
	CU_ASSERT_EQUAL(pq_sign_complete(&h, vseq, "v", k.handle, "key", "m", 1, &sig),
			RC_H(TPM_RC_MODE, 1));
	CU_ASSERT_EQUAL(pq_verify_complete(&h, vseq, "v", other.handle, &sig, &t),
			RC_H(TPM_RC_SIGN_CONTEXT_KEY, 2));
	CU_ASSERT_EQUAL(pq_flush(&h, vseq), 0);
	/* contexts: 256 bytes is one too many; a key that does not sign */
	CU_ASSERT_EQUAL(pq_sign_start(&h, k.handle, "seq", big, 256, &seq), RC_P(TPM_RC_SIZE, 2));
	CU_ASSERT_EQUAL(pq_verify_start(&h, k.handle, "v", big, 256, &seq), RC_P(TPM_RC_SIZE, 3));
	pq_tmpl(&tk, TPM_ALG_MLKEM, TPM_MLKEM_768, TPMA_OBJECT_DECRYPT);
	CU_ASSERT_EQUAL_FATAL(pq_primary(&h, TPM_RH_OWNER, &tk, "", &kem), 0);
	CU_ASSERT_EQUAL(pq_sign_start(&h, kem.handle, "s", NULL, 0, &seq), RC_H(TPM_RC_KEY, 1));
	CU_ASSERT_EQUAL(pq_verify_start(&h, kem.handle, "s", NULL, 0, &seq), RC_H(TPM_RC_KEY, 1));
	/* a hint: only EdDSA takes one */
	cmd_begin(&b, TPM_CC_VerifySequenceStart);
	cmd_handle(&b, k.handle);
	wr_u16(&b.params, 0);
	wr_tpm2b(&b.params, "h", 1);
	wr_u16(&b.params, 0);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_P(TPM_RC_VALUE, 2));
	/* a message left over after the parameters */
	cmd_begin(&b, TPM_CC_SignSequenceStart);
	cmd_handle(&b, k.handle);
	wr_u16(&b.params, 0);
	wr_u16(&b.params, 0);
	wr_u8(&b.params, 0);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SIZE);
}

/* ContextSave / ContextLoad in the middle of a sign and of a verify sequence. */
static void test_sequence_context(void)
{
	static struct tpmt_signature sig;
	struct tpmt_ticket t;
	struct pq_key k;
	TPM_HANDLE seq = 0;

	fill_msg();
	mldsa_key(TPM_MLDSA_87, 0, &k);
	CU_ASSERT_EQUAL_FATAL(pq_sign_start(&h, k.handle, "s", NULL, 0, &seq), 0);
	CU_ASSERT_EQUAL(pq_update(&h, seq, "s", msg, 1000), 0);
	CU_ASSERT_EQUAL_FATAL(pq_context_roundtrip(&h, &seq), 0);
	CU_ASSERT_EQUAL(pq_update(&h, seq, "s", msg + 1000, 1000), 0);
	/* and the key too: a resource manager swaps both */
	CU_ASSERT_EQUAL_FATAL(pq_context_roundtrip(&h, &k.handle), 0);
	CU_ASSERT_EQUAL_FATAL(pq_sign_complete(&h, seq, "s", k.handle, "key", msg + 2000, 10, &sig),
			      0);
	CU_ASSERT_EQUAL(mldsa_verify(3, k.pub.unique.b, msg, 2010, NULL, 0, sig.sig, sig.size),
			0);
	CU_ASSERT_EQUAL_FATAL(pq_verify_start(&h, k.handle, "v", NULL, 0, &seq), 0);
	CU_ASSERT_EQUAL(pq_update(&h, seq, "v", msg, 1000), 0);
	CU_ASSERT_EQUAL_FATAL(pq_context_roundtrip(&h, &seq), 0);
	CU_ASSERT_EQUAL(pq_update(&h, seq, "v", msg + 1000, 1010), 0);
	CU_ASSERT_EQUAL(pq_verify_complete(&h, seq, "v", k.handle, &sig, &t), 0);
	expect_message_ticket(&t, TPM_RH_OWNER, msg, 2010, &k.name);
}

/* A public key alone verifies (and gets its ticket) but cannot sign. */
static void test_public_only(void)
{
	static struct tpmt_signature sig;
	struct tpmt_ticket t;
	struct pq_key k, pub;
	TPM_HANDLE seq;

	mldsa_key(TPM_MLDSA_65, 0, &k);
	CU_ASSERT_EQUAL_FATAL(sign_msg(&k, NULL, 0, (const uint8_t *)"hello", 5, 1024, &sig), 0);
	CU_ASSERT_EQUAL_FATAL(pq_load_public(&h, &k.pub, &pub), 0);
	CU_ASSERT_EQUAL(pq_sign_start(&h, pub.handle, "s", NULL, 0, &seq), TPM_RC_AUTH_UNAVAILABLE);
	CU_ASSERT_EQUAL(verify_msg(&pub, NULL, 0, (const uint8_t *)"hello", 5, &sig, &t), 0);
	expect_message_ticket(&t, TPM_RH_OWNER, (const uint8_t *)"hello", 5, &pub.name);
}

/* HashML-DSA and ECDSA keys sign messages through the same commands. */
static void test_other_schemes(void)
{
	static struct tpmt_signature sig;
	struct tpmt_ticket t;
	struct tpmt_public tp;
	struct pq_key k;
	uint8_t d[32];
	TPM_HANDLE seq;

	fill_msg();
	pq_tmpl(&tp, TPM_ALG_HASH_MLDSA, TPM_MLDSA_65, TPMA_OBJECT_SIGN_ENCRYPT);
	CU_ASSERT_EQUAL_FATAL(pq_primary(&h, TPM_RH_OWNER, &tp, "key", &k), 0);
	CU_ASSERT_EQUAL_FATAL(sign_msg(&k, ctx, CTXLEN, msg, 3000, 1024, &sig), 0);
	CU_ASSERT_EQUAL(sig.sig_alg, TPM_ALG_HASH_MLDSA);
	CU_ASSERT_EQUAL(sig.hash, TPM_ALG_SHA256);
	CU_ASSERT_EQUAL(crypto_hash(TPM_ALG_SHA256, msg, 3000, d), 0);
	CU_ASSERT_EQUAL(mldsa_verify_hash(2, k.pub.unique.b, TPM_ALG_SHA256, d, 32, ctx, CTXLEN,
					  sig.sig, sig.size),
			0);
	CU_ASSERT_EQUAL(verify_msg(&k, ctx, CTXLEN, msg, 3000, &sig, &t), 0);
	CU_ASSERT_EQUAL(t.hierarchy, TPM_RH_NULL);
	CU_ASSERT_EQUAL_FATAL(sign_msg(&k, NULL, 0, msg, 3000, 1024, &sig), 0);
	CU_ASSERT_EQUAL(verify_msg(&k, NULL, 0, msg, 3000, &sig, &t), 0);
	expect_message_ticket(&t, TPM_RH_OWNER, msg, 3000, &k.name);

	pq_tmpl(&tp, TPM_ALG_ECC, 0, TPMA_OBJECT_SIGN_ENCRYPT);
	tp.scheme.scheme = TPM_ALG_ECDSA;
	tp.scheme.hash_alg = TPM_ALG_SHA384;
	CU_ASSERT_EQUAL_FATAL(pq_primary(&h, TPM_RH_OWNER, &tp, "key", &k), 0);
	CU_ASSERT_EQUAL_FATAL(sign_msg(&k, NULL, 0, msg, 3000, 1024, &sig), 0);
	CU_ASSERT_EQUAL(sig.sig_alg, TPM_ALG_ECDSA);
	CU_ASSERT_EQUAL(verify_msg(&k, NULL, 0, msg, 3000, &sig, &t), 0);
	msg[0] ^= 1;
	CU_ASSERT_EQUAL(verify_msg(&k, NULL, 0, msg, 3000, &sig, &t), RC_P(TPM_RC_SIGNATURE, 1));
	/* no context string for ECDSA */
	CU_ASSERT_EQUAL(pq_sign_start(&h, k.handle, "s", ctx, CTXLEN, &seq), RC_P(TPM_RC_VALUE, 2));
	/* a key without a scheme has none to sign a sequence with */
	tp.scheme.scheme = tp.scheme.hash_alg = TPM_ALG_NULL;
	CU_ASSERT_EQUAL_FATAL(pq_primary(&h, TPM_RH_OWNER, &tp, "key", &k), 0);
	CU_ASSERT_EQUAL(pq_sign_start(&h, k.handle, "s", NULL, 0, &seq), RC_H(TPM_RC_SCHEME, 1));
}

/* A restricted key signs no message that starts like a TPM-made structure. */
static void test_restricted(void)
{
	static const uint8_t generated[] = { 0xFF, 0x54, 0x43, 0x47, 0x80, 0x18 };
	static struct tpmt_signature sig;
	struct pq_key k;
	TPM_HANDLE seq;

	mldsa_key(TPM_MLDSA_44, TPMA_OBJECT_RESTRICTED, &k);
	CU_ASSERT_EQUAL(sign_msg(&k, NULL, 0, generated, sizeof(generated), 1024, &sig),
			RC_P(TPM_RC_VALUE, 1));
	/* also when the value arrives byte by byte */
	CU_ASSERT_EQUAL_FATAL(pq_sign_start(&h, k.handle, "seq", NULL, 0, &seq), 0);
	CU_ASSERT_EQUAL(pq_update(&h, seq, "seq", generated, 2), 0);
	CU_ASSERT_EQUAL(pq_update(&h, seq, "seq", generated + 2, 1), 0);
	CU_ASSERT_EQUAL(pq_sign_complete(&h, seq, "seq", k.handle, "key", generated + 3, 3, &sig),
			RC_P(TPM_RC_VALUE, 1));
	CU_ASSERT_EQUAL(pq_flush(&h, seq), 0);
	CU_ASSERT_EQUAL(sign_msg(&k, NULL, 0, generated + 1, 5, 1024, &sig), 0);
}

/* The expanded key is kept per object; a persistent copy makes its own (ASan checks that
 * neither frees the other's). */
static void test_key_cache(void)
{
	static struct tpmt_signature sig;
	struct cmdbuf b;
	struct pq_key k, p;

	mldsa_key(TPM_MLDSA_65, 0, &k);
	CU_ASSERT_EQUAL(sign_msg(&k, NULL, 0, (const uint8_t *)"one", 3, 1024, &sig), 0);
	CU_ASSERT_EQUAL(sign_msg(&k, NULL, 0, (const uint8_t *)"two", 3, 1024, &sig), 0);
	CU_ASSERT_EQUAL(mldsa_verify(2, k.pub.unique.b, (const uint8_t *)"two", 3, NULL, 0, sig.sig,
				     sig.size),
			0);
	cmd_begin(&b, TPM_CC_EvictControl);
	cmd_handle(&b, TPM_RH_OWNER);
	cmd_handle(&b, k.handle);
	cmd_auth_pw(&b, "");
	wr_u32(&b.params, 0x81000100);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, NULL, NULL), 0);
	p = k;
	p.handle = 0x81000100;
	CU_ASSERT_EQUAL(sign_msg(&p, NULL, 0, (const uint8_t *)"three", 5, 1024, &sig), 0);
	CU_ASSERT_EQUAL(pq_flush(&h, k.handle), 0);
	CU_ASSERT_EQUAL(sign_msg(&p, NULL, 0, (const uint8_t *)"four", 4, 1024, &sig), 0);
	CU_ASSERT_EQUAL(mldsa_verify(2, k.pub.unique.b, (const uint8_t *)"four", 4, NULL, 0,
				     sig.sig, sig.size),
			0);
	cmd_begin(&b, TPM_CC_EvictControl);
	cmd_handle(&b, TPM_RH_OWNER);
	cmd_handle(&b, 0x81000100);
	cmd_auth_pw(&b, "");
	wr_u32(&b.params, 0x81000100);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), 0);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "ML-DSA-44/65/87 sign and verify sequences", test_mldsa_sets },
		{ "message and context shapes", test_message_shapes },
		{ "bad signatures, other context", test_verify_refusals },
		{ "sequence refusals", test_sequence_refusals },
		{ "context save and load midway", test_sequence_context },
		{ "public key alone", test_public_only },
		{ "HashML-DSA and ECDSA sequences", test_other_schemes },
		{ "restricted key", test_restricted },
		{ "expanded key cache", test_key_cache },
	};

	return UNIT_RUN("pq_sequence", tests, setup, teardown);
}
