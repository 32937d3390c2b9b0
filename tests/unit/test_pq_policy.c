/* ML-DSA keys as policy authorities (core/cmd/policy_auth.c, docs/pq-decisions.md):
 * - PolicySigned with a pure ML-DSA-44/65/87 key checks a FIPS 204 signature (empty context) over
 *   M = nonceTPM || expiration || cpHashA || policyRef, a HashML-DSA key one over PH(M); the
 *   policy digest is a trial session's, and the session unseals an object whose authPolicy is it.
 * - PolicyAuthorize takes the tickets of VerifySequenceComplete (over approvedPolicy ||
 *   policyRef) and VerifyDigestSignature (over its hash, the ticket's metadata) for ML-DSA keys.
 * - Refusals: a signature over aHash instead of M, with a context, of another session, of the
 *   wrong kind; tickets for another policyRef, key or tag, altered, NULL, or over an external mu.
 * The authorities are made here with the engine's FIPS 204 code, outside the TPM, and only their
 * public keys are loaded (LoadExternal), as a remote authority's would be. */
#include <string.h>

#include <CUnit/Basic.h>

#include "crypto/mldsa.h"
#include "pq_util.h"
#include "sessions.h"

#define DSIZE SESS_DSIZE
#define SEALED (TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT | TPMA_OBJECT_NODA)

static struct harness h;
static TPM_HANDLE parent;

struct authority {
	TPM_ALG_ID type; /* MLDSA or HASH_MLDSA (SHA-256) */
	uint16_t set;
	uint8_t sk[MLDSA_MAX_SK_BYTES];
	struct pq_key k; /* its public key, loaded in the owner hierarchy */
};

static struct authority auth44, auth65, auth87, hash65, other65;

struct psess {
	TPM_HANDLE handle;
	struct tpm2b_digest nonce_tpm;
};

/* H(H(0...0 || cc || name) || ref): PolicySigned's and PolicyAuthorize's digest from zero */
static void expect_name_ref(TPM_CC cc, const struct tpm2b_name *name, const char *ref,
			    uint8_t out[DSIZE])
{
	memset(out, 0, DSIZE);
	sess_policy_extend(out, cc, name->b, name->size);
	sess_sha256(out, DSIZE, ref, strlen(ref), "", 0, out);
}

static void authority(struct authority *a, TPM_ALG_ID type, uint16_t set, uint8_t seed,
		      bool ext_mu)
{
	uint8_t xi[MLDSA_SEED_BYTES];
	struct tpmt_public t;

	memset(xi, seed, sizeof(xi));
	a->type = type;
	a->set = set;
	pq_tmpl(&t, type, set, TPMA_OBJECT_SIGN_ENCRYPT);
	t.allow_external_mu = ext_mu ? 1 : 0;
	t.unique.size = (uint16_t)mldsa_pk_bytes(set);
	CU_ASSERT_EQUAL_FATAL(mldsa_keygen(set, xi, t.unique.b, a->sk), 0);
	CU_ASSERT_EQUAL_FATAL(pq_load_public(&h, &t, &a->k), TPM_RC_SUCCESS);
}

/* The authority signs msg: pure ML-DSA over msg, HashML-DSA over SHA-256(msg). */
static void auth_sign(const struct authority *a, const void *msg, size_t len, const char *ctx,
		      struct tpmt_signature *sig)
{
	size_t clen = strlen(ctx);
	uint8_t d[DSIZE];

	memset(sig, 0, sizeof(*sig));
	sig->size = (uint16_t)mldsa_sig_bytes(a->set);
	if (a->type == TPM_ALG_MLDSA) {
		sig->sig_alg = TPM_ALG_MLDSA;
		CU_ASSERT_EQUAL_FATAL(mldsa_sign(a->set, a->sk, msg, len, (const uint8_t *)ctx,
						 clen, NULL, sig->sig),
				      0);
		return;
	}
	sig->sig_alg = TPM_ALG_HASH_MLDSA;
	sig->hash = TPM_ALG_SHA256;
	sess_sha256(msg, len, "", 0, "", 0, d);
	CU_ASSERT_EQUAL_FATAL(mldsa_sign_hash(a->set, a->sk, TPM_ALG_SHA256, d, DSIZE,
					      (const uint8_t *)ctx, clen, NULL, sig->sig),
			      0);
}

/* ---- sessions ---- */

static void start(struct psess *s, uint8_t type)
{
	memset(s, 0, sizeof(*s));
	CU_ASSERT_EQUAL_FATAL(sess_start(&h, type, &s->handle, &s->nonce_tpm), TPM_RC_SUCCESS);
}

/* M = nonceTPM || expiration || cpHashA (empty) || policyRef */
static size_t signed_message(const struct psess *s, int32_t expiration, const char *ref,
			     uint8_t *m)
{
	size_t n = s->nonce_tpm.size;

	memcpy(m, s->nonce_tpm.b, n);
	sess_be32(m + n, (uint32_t)expiration);
	memcpy(m + n + 4, ref, strlen(ref));
	return n + 4 + strlen(ref);
}

static TPM_RC policy_signed(const struct psess *s, const struct authority *a, int32_t expiration,
			    const char *ref, const struct tpmt_signature *sig,
			    struct tpm2b_digest *timeout, struct tpmt_ticket *t)
{
	struct cmdbuf b;
	struct rd rsp;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_PolicySigned);
	cmd_handle(&b, a->k.handle);
	cmd_handle(&b, s->handle);
	wr_tpm2b_digest(&b.params, &s->nonce_tpm);
	wr_u16(&b.params, 0);
	wr_tpm2b(&b.params, ref, (uint16_t)strlen(ref));
	wr_u32(&b.params, (uint32_t)expiration);
	wr_signature(&b.params, sig);
	rc = harness_run(&h, &b, &rsp, NULL);
	if (rc == TPM_RC_SUCCESS && timeout) {
		CU_ASSERT_EQUAL(rd_tpm2b_digest(&rsp, timeout), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(rd_ticket(&rsp, t), TPM_RC_SUCCESS);
	}
	return rc;
}

/* Sign M for session s and run PolicySigned with it. */
static TPM_RC sign_and_assert(const struct psess *s, const struct authority *a, const char *ref)
{
	struct tpmt_signature sig;
	uint8_t m[128];

	auth_sign(a, m, signed_message(s, 0, ref, m), "", &sig);
	return policy_signed(s, a, 0, ref, &sig, NULL, NULL);
}

static TPM_RC policy_ticket(const struct psess *s, const struct tpm2b_digest *timeout,
			    const char *ref, const struct tpm2b_name *name,
			    const struct tpmt_ticket *t)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_PolicyTicket);
	cmd_handle(&b, s->handle);
	wr_tpm2b_digest(&b.params, timeout);
	wr_u16(&b.params, 0);
	wr_tpm2b(&b.params, ref, (uint16_t)strlen(ref));
	wr_tpm2b_name(&b.params, name);
	wr_ticket(&b.params, t);
	return harness_run(&h, &b, NULL, NULL);
}

static TPM_RC policy_authorize(const struct psess *s, const uint8_t approved[DSIZE],
			       const char *ref, const struct tpm2b_name *key_sign,
			       const struct tpmt_ticket *t)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_PolicyAuthorize);
	cmd_handle(&b, s->handle);
	wr_tpm2b(&b.params, approved, DSIZE);
	wr_tpm2b(&b.params, ref, (uint16_t)strlen(ref));
	wr_tpm2b_name(&b.params, key_sign);
	wr_ticket(&b.params, t);
	return harness_run(&h, &b, NULL, NULL);
}

/* ---- tickets from the v1.85 verify commands ---- */

/* approvedPolicy || policyRef */
static size_t approval(const uint8_t approved[DSIZE], const char *ref, uint8_t *m)
{
	memcpy(m, approved, DSIZE);
	memcpy(m + DSIZE, ref, strlen(ref));
	return DSIZE + strlen(ref);
}

/* VerifySequenceStart/SequenceUpdate/VerifySequenceComplete: a TPM_ST_MESSAGE_VERIFIED ticket */
static TPM_RC verify_message(const struct authority *a, const void *m, size_t len,
			     const struct tpmt_signature *sig, struct tpmt_ticket *t)
{
	TPM_HANDLE seq;
	TPM_RC rc;

	CU_ASSERT_EQUAL_FATAL(pq_verify_start(&h, a->k.handle, "", NULL, 0, &seq), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(pq_update(&h, seq, "", m, (uint16_t)len), TPM_RC_SUCCESS);
	rc = pq_verify_complete(&h, seq, "", a->k.handle, sig, t);
	if (rc != TPM_RC_SUCCESS)
		CU_ASSERT_EQUAL(pq_flush(&h, seq), TPM_RC_SUCCESS);
	return rc;
}

/* VerifyDigestSignature (empty context): a TPM_ST_DIGEST_VERIFIED ticket */
static TPM_RC verify_digest(const struct authority *a, const uint8_t *d, uint16_t dlen,
			    const struct tpmt_signature *sig, struct tpmt_ticket *t)
{
	struct cmdbuf b;
	struct rd rsp;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_VerifyDigestSignature);
	cmd_handle(&b, a->k.handle);
	wr_u16(&b.params, 0);
	wr_tpm2b(&b.params, d, dlen);
	wr_signature(&b.params, sig);
	rc = harness_run(&h, &b, &rsp, NULL);
	if (rc == TPM_RC_SUCCESS)
		CU_ASSERT_EQUAL(rd_ticket(&rsp, t), TPM_RC_SUCCESS);
	return rc;
}

/* ---- sealed objects ---- */

struct sealed {
	TPM_HANDLE handle;
	struct tpm2b_name name;
};

static void seal(const uint8_t policy[DSIZE], struct sealed *o)
{
	struct tpmt_public t, pub;
	struct tpm2b_private priv;
	struct cmdbuf b;
	size_t mark;
	struct rd r;

	pq_tmpl(&t, TPM_ALG_KEYEDHASH, 0, 0);
	t.attributes = SEALED;
	t.auth_policy.size = DSIZE;
	memcpy(t.auth_policy.b, policy, DSIZE);
	cmd_begin(&b, TPM_CC_Create);
	cmd_handle(&b, parent);
	cmd_auth_pw(&b, "");
	wr_size_begin(&b.params, &mark);
	wr_u16(&b.params, 0);
	wr_tpm2b(&b.params, "pq secret", 9);
	wr_size_end(&b.params, mark);
	wr_tpm2b_public(&b.params, &t);
	wr_u16(&b.params, 0);
	wr_u32(&b.params, 0);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, &r, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(rd_tpm2b(&r, priv.b, sizeof(priv.b), &priv.size), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(rd_tpm2b_public(&r, &pub), TPM_RC_SUCCESS);
	cmd_begin(&b, TPM_CC_Load);
	cmd_handle(&b, parent);
	cmd_auth_pw(&b, "");
	wr_tpm2b(&b.params, priv.b, priv.size);
	wr_tpm2b_public(&b.params, &pub);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, &r, &o->handle), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(rd_tpm2b_name(&r, &o->name), TPM_RC_SUCCESS);
}

/* Unseal o with policy session s (no authValue in the HMAC); the session ends either way. */
static TPM_RC unseal(const struct psess *s, const struct sealed *o)
{
	struct tpm2b_sensitive_data out;
	struct cmdbuf b;
	struct rd r;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_Unseal);
	cmd_handle(&b, o->handle);
	sess_auth_policy(&b, s->handle, &s->nonce_tpm, &o->name);
	rc = harness_run(&h, &b, &r, NULL);
	if (rc == TPM_RC_SUCCESS) {
		CU_ASSERT_EQUAL(rd_tpm2b(&r, out.b, sizeof(out.b), &out.size), TPM_RC_SUCCESS);
		CU_ASSERT(out.size == 9 && memcmp(out.b, "pq secret", 9) == 0);
	} else {
		CU_ASSERT_EQUAL(pq_flush(&h, s->handle), TPM_RC_SUCCESS);
	}
	return rc;
}

/* ---- tests ---- */

static void setup(void)
{
	struct tpmt_public t;
	struct pq_key k;

	pq_tmpl(&t, TPM_ALG_ECC, 0, PQ_STORAGE);
	CU_ASSERT_EQUAL_FATAL(pq_primary(&h, TPM_RH_OWNER, &t, "", &k), TPM_RC_SUCCESS);
	parent = k.handle;
	authority(&auth44, TPM_ALG_MLDSA, TPM_MLDSA_44, 0x44, false);
	authority(&auth65, TPM_ALG_MLDSA, TPM_MLDSA_65, 0x65, true);
	authority(&auth87, TPM_ALG_MLDSA, TPM_MLDSA_87, 0x87, false);
	authority(&hash65, TPM_ALG_HASH_MLDSA, TPM_MLDSA_65, 0xa5, false);
	authority(&other65, TPM_ALG_MLDSA, TPM_MLDSA_65, 0x0e, false);
}

/* A trial session computes what a real one reaches with a valid signature, and the object
 * whose authPolicy that is unseals; all three parameter sets and HashML-DSA. */
static void test_signed_unseals(void)
{
	const struct authority *all[] = { &auth44, &auth65, &auth87, &hash65 };
	uint8_t expect[DSIZE], trial[DSIZE], real[DSIZE];
	struct tpmt_signature sig;
	struct sealed o;
	struct psess s;

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		const struct authority *a = all[i];

		expect_name_ref(TPM_CC_PolicySigned, &a->k.name, "door", expect);
		start(&s, TPM_SE_TRIAL);
		memset(&sig, 0, sizeof(sig));
		sig.sig_alg = a->type; /* a trial does not look at the signature */
		sig.hash = a->type == TPM_ALG_HASH_MLDSA ? TPM_ALG_SHA256 : TPM_ALG_NULL;
		sig.size = 1;
		CU_ASSERT_EQUAL(policy_signed(&s, a, 0, "door", &sig, NULL, NULL), TPM_RC_SUCCESS);
		sess_policy_digest(&h, s.handle, trial);
		CU_ASSERT_EQUAL(pq_flush(&h, s.handle), TPM_RC_SUCCESS);
		CU_ASSERT(memcmp(trial, expect, DSIZE) == 0);

		seal(trial, &o);
		start(&s, TPM_SE_POLICY);
		CU_ASSERT_EQUAL(sign_and_assert(&s, a, "door"), TPM_RC_SUCCESS);
		sess_policy_digest(&h, s.handle, real);
		CU_ASSERT(memcmp(real, trial, DSIZE) == 0);
		CU_ASSERT_EQUAL(unseal(&s, &o), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(pq_flush(&h, o.handle), TPM_RC_SUCCESS);
	}
}

/* The TPM's own ML-DSA key, signing M with a sign sequence, is an authority like any other. */
static void test_signed_by_tpm_key(void)
{
	struct authority tpm_key = { .type = TPM_ALG_MLDSA, .set = TPM_MLDSA_44 };
	struct tpmt_public t;
	struct tpmt_signature sig;
	uint8_t policy[DSIZE], m[128];
	struct sealed o;
	struct psess s;
	TPM_HANDLE seq;

	pq_tmpl(&t, TPM_ALG_MLDSA, TPM_MLDSA_44, TPMA_OBJECT_SIGN_ENCRYPT);
	CU_ASSERT_EQUAL_FATAL(pq_primary(&h, TPM_RH_OWNER, &t, "", &tpm_key.k), TPM_RC_SUCCESS);
	expect_name_ref(TPM_CC_PolicySigned, &tpm_key.k.name, "", policy);
	seal(policy, &o);
	start(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL_FATAL(pq_sign_start(&h, tpm_key.k.handle, "", NULL, 0, &seq),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(pq_sign_complete(&h, seq, "", tpm_key.k.handle, "", m,
					       (uint16_t)signed_message(&s, 0, "", m), &sig),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(policy_signed(&s, &tpm_key, 0, "", &sig, NULL, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(unseal(&s, &o), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(pq_flush(&h, o.handle), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(pq_flush(&h, tpm_key.k.handle), TPM_RC_SUCCESS);
}

/* A negative expiration gives a PolicySigned ticket for an ML-DSA authority, which PolicyTicket
 * takes in a later session. */
static void test_signed_ticket(void)
{
	uint8_t policy[DSIZE], m[128];
	struct tpm2b_digest timeout;
	struct tpmt_signature sig;
	struct tpmt_ticket t;
	struct sealed o;
	struct psess s;

	expect_name_ref(TPM_CC_PolicySigned, &auth87.k.name, "later", policy);
	seal(policy, &o);
	start(&s, TPM_SE_POLICY);
	auth_sign(&auth87, m, signed_message(&s, -300, "later", m), "", &sig);
	CU_ASSERT_EQUAL(policy_signed(&s, &auth87, -300, "later", &sig, &timeout, &t),
			TPM_RC_SUCCESS);
	CU_ASSERT(t.tag == TPM_ST_AUTH_SIGNED && t.hierarchy == TPM_RH_OWNER && timeout.size == 8);
	CU_ASSERT_EQUAL(unseal(&s, &o), TPM_RC_SUCCESS);
	start(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(policy_ticket(&s, &timeout, "later", &auth87.k.name, &t), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(unseal(&s, &o), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(pq_flush(&h, o.handle), TPM_RC_SUCCESS);
}

static void test_signed_refused(void)
{
	uint8_t policy[DSIZE], m[128], a_hash[DSIZE];
	struct tpmt_signature sig;
	struct sealed o;
	struct psess s;
	size_t n;

	expect_name_ref(TPM_CC_PolicySigned, &auth65.k.name, "door", policy);
	seal(policy, &o);
	start(&s, TPM_SE_POLICY);
	n = signed_message(&s, 0, "door", m);
	/* pure ML-DSA over aHash = H(M), the classical form */
	sess_sha256(m, n, "", 0, "", 0, a_hash);
	auth_sign(&auth65, a_hash, DSIZE, "", &sig);
	CU_ASSERT_EQUAL(policy_signed(&s, &auth65, 0, "door", &sig, NULL, NULL),
			RC_P(TPM_RC_SIGNATURE, 5));
	/* over M, but with a context */
	auth_sign(&auth65, m, n, "policy", &sig);
	CU_ASSERT_EQUAL(policy_signed(&s, &auth65, 0, "door", &sig, NULL, NULL),
			RC_P(TPM_RC_SIGNATURE, 5));
	/* over M, by another key */
	auth_sign(&other65, m, n, "", &sig);
	CU_ASSERT_EQUAL(policy_signed(&s, &auth65, 0, "door", &sig, NULL, NULL),
			RC_P(TPM_RC_SIGNATURE, 5));
	/* for another policyRef */
	auth_sign(&auth65, m, n, "", &sig);
	CU_ASSERT_EQUAL(policy_signed(&s, &auth65, 0, "window", &sig, NULL, NULL),
			RC_P(TPM_RC_SIGNATURE, 5));
	/* cut short, or of another kind */
	sig.size--;
	CU_ASSERT_EQUAL(policy_signed(&s, &auth65, 0, "door", &sig, NULL, NULL),
			RC_P(TPM_RC_SIGNATURE, 5));
	sig.size++;
	sig.sig_alg = TPM_ALG_HASH_MLDSA;
	sig.hash = TPM_ALG_SHA256;
	CU_ASSERT_EQUAL(policy_signed(&s, &auth65, 0, "door", &sig, NULL, NULL),
			RC_P(TPM_RC_SCHEME, 5));
	/* a HashML-DSA key: the signature names its pre-hash, and over PH(M), not PH(aHash) */
	auth_sign(&hash65, m, n, "", &sig);
	sig.hash = TPM_ALG_SHA384;
	CU_ASSERT_EQUAL(policy_signed(&s, &hash65, 0, "door", &sig, NULL, NULL),
			RC_P(TPM_RC_SCHEME, 5));
	auth_sign(&hash65, a_hash, DSIZE, "", &sig);
	CU_ASSERT_EQUAL(policy_signed(&s, &hash65, 0, "door", &sig, NULL, NULL),
			RC_P(TPM_RC_SIGNATURE, 5));
	/* nothing above changed the session: a good signature still unseals */
	auth_sign(&auth65, m, n, "", &sig);
	CU_ASSERT_EQUAL(policy_signed(&s, &auth65, 0, "door", &sig, NULL, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(unseal(&s, &o), TPM_RC_SUCCESS);
	/* a signature for an earlier session's nonce */
	start(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(policy_signed(&s, &auth65, 0, "door", &sig, NULL, NULL),
			RC_P(TPM_RC_SIGNATURE, 5));
	CU_ASSERT_EQUAL(unseal(&s, &o), RC_S(TPM_RC_POLICY_FAIL, 1));
	CU_ASSERT_EQUAL(pq_flush(&h, o.handle), TPM_RC_SUCCESS);
}

/* Unseal o through PolicyCommandCode(Unseal) + PolicyAuthorize(keySign, ref, ticket). */
static TPM_RC authorize_unseal(const struct sealed *o, const char *ref,
			       const struct tpm2b_name *key_sign, const struct tpmt_ticket *t)
{
	uint8_t approved[DSIZE];
	struct psess s;
	TPM_RC rc;

	sess_cc_policy(TPM_CC_Unseal, approved);
	start(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(sess_policy_cc(&h, s.handle, TPM_CC_Unseal), TPM_RC_SUCCESS);
	rc = policy_authorize(&s, approved, ref, key_sign, t);
	if (rc != TPM_RC_SUCCESS) {
		CU_ASSERT_EQUAL(pq_flush(&h, s.handle), TPM_RC_SUCCESS);
		return rc;
	}
	return unseal(&s, o);
}

/* The authority approves "Unseal only" with ref; the ticket comes from a verify sequence. */
static void test_authorize_message(void)
{
	const struct authority *all[] = { &auth44, &auth65, &auth87, &hash65 };
	uint8_t approved[DSIZE], policy[DSIZE], trial[DSIZE], m[128];
	struct tpmt_signature sig;
	struct tpmt_ticket t;
	struct sealed o;
	struct psess s;
	size_t n;

	sess_cc_policy(TPM_CC_Unseal, approved);
	n = approval(approved, "v1", m);
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		const struct authority *a = all[i];

		auth_sign(a, m, n, "", &sig);
		CU_ASSERT_EQUAL_FATAL(verify_message(a, m, n, &sig, &t), TPM_RC_SUCCESS);
		CU_ASSERT(t.tag == TPM_ST_MESSAGE_VERIFIED && t.hierarchy == TPM_RH_OWNER);

		expect_name_ref(TPM_CC_PolicyAuthorize, &a->k.name, "v1", policy);
		start(&s, TPM_SE_TRIAL);
		CU_ASSERT_EQUAL(sess_policy_cc(&h, s.handle, TPM_CC_Unseal), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(policy_authorize(&s, approved, "v1", &a->k.name, &t),
				TPM_RC_SUCCESS);
		sess_policy_digest(&h, s.handle, trial);
		CU_ASSERT_EQUAL(pq_flush(&h, s.handle), TPM_RC_SUCCESS);
		CU_ASSERT(memcmp(trial, policy, DSIZE) == 0);

		seal(policy, &o);
		CU_ASSERT_EQUAL(authorize_unseal(&o, "v1", &a->k.name, &t), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(pq_flush(&h, o.handle), TPM_RC_SUCCESS);
	}
}

/* A HashML-DSA authority's approval checked by VerifyDigestSignature over
 * SHA-256(approvedPolicy || policyRef): a TPM_ST_DIGEST_VERIFIED ticket with SHA-256. */
static void test_authorize_digest(void)
{
	uint8_t approved[DSIZE], policy[DSIZE], m[128], d[DSIZE];
	struct tpmt_signature sig;
	struct tpmt_ticket t;
	struct sealed o;
	size_t n;

	sess_cc_policy(TPM_CC_Unseal, approved);
	n = approval(approved, "v2", m);
	sess_sha256(m, n, "", 0, "", 0, d);
	auth_sign(&hash65, m, n, "", &sig);
	CU_ASSERT_EQUAL_FATAL(verify_digest(&hash65, d, DSIZE, &sig, &t), TPM_RC_SUCCESS);
	CU_ASSERT(t.tag == TPM_ST_DIGEST_VERIFIED && t.metadata == TPM_ALG_SHA256);
	expect_name_ref(TPM_CC_PolicyAuthorize, &hash65.k.name, "v2", policy);
	seal(policy, &o);
	CU_ASSERT_EQUAL(authorize_unseal(&o, "v2", &hash65.k.name, &t), TPM_RC_SUCCESS);
	/* the same ticket with other metadata, or for another policyRef */
	t.metadata = TPM_ALG_SHA384;
	CU_ASSERT_EQUAL(authorize_unseal(&o, "v2", &hash65.k.name, &t), RC_P(TPM_RC_VALUE, 4));
	t.metadata = TPM_ALG_SHA256;
	CU_ASSERT_EQUAL(authorize_unseal(&o, "v3", &hash65.k.name, &t), RC_P(TPM_RC_VALUE, 4));
	CU_ASSERT_EQUAL(pq_flush(&h, o.handle), TPM_RC_SUCCESS);
}

static void test_authorize_refused(void)
{
	uint8_t approved[DSIZE], policy[DSIZE], m[128], mp[130];
	struct tpm2b_digest mu;
	struct tpmt_signature sig;
	struct tpmt_ticket t, bad;
	struct sealed o;
	struct psess s;
	size_t n;

	sess_cc_policy(TPM_CC_Unseal, approved);
	n = approval(approved, "v1", m);
	auth_sign(&auth65, m, n, "", &sig);
	CU_ASSERT_EQUAL_FATAL(verify_message(&auth65, m, n, &sig, &t), TPM_RC_SUCCESS);
	expect_name_ref(TPM_CC_PolicyAuthorize, &auth65.k.name, "v1", policy);
	seal(policy, &o);

	/* a wrong signature gets no ticket */
	sig.sig[7] ^= 1;
	CU_ASSERT_EQUAL(verify_message(&auth65, m, n, &sig, &bad), RC_P(TPM_RC_SIGNATURE, 1));
	/* the ticket for another policyRef, another key's name, altered, retagged, NULL */
	CU_ASSERT_EQUAL(authorize_unseal(&o, "v2", &auth65.k.name, &t), RC_P(TPM_RC_VALUE, 4));
	CU_ASSERT_EQUAL(authorize_unseal(&o, "v1", &other65.k.name, &t), RC_P(TPM_RC_VALUE, 4));
	bad = t;
	bad.digest.b[0] ^= 1;
	CU_ASSERT_EQUAL(authorize_unseal(&o, "v1", &auth65.k.name, &bad), RC_P(TPM_RC_VALUE, 4));
	bad = t;
	bad.tag = TPM_ST_VERIFIED;
	CU_ASSERT_EQUAL(authorize_unseal(&o, "v1", &auth65.k.name, &bad), RC_P(TPM_RC_VALUE, 4));
	bad.tag = TPM_ST_DIGEST_VERIFIED;
	bad.metadata = TPM_ALG_SHA256;
	CU_ASSERT_EQUAL(authorize_unseal(&o, "v1", &auth65.k.name, &bad), RC_P(TPM_RC_VALUE, 4));
	bad.tag = TPM_ST_HASHCHECK;
	CU_ASSERT_EQUAL(authorize_unseal(&o, "v1", &auth65.k.name, &bad), RC_P(TPM_RC_TAG, 4));
	memset(&bad, 0, sizeof(bad));
	bad.tag = TPM_ST_MESSAGE_VERIFIED;
	bad.hierarchy = TPM_RH_NULL;
	CU_ASSERT_EQUAL(authorize_unseal(&o, "v1", &auth65.k.name, &bad), RC_P(TPM_RC_VALUE, 4));
	/* the session's digest is not the approved policy */
	start(&s, TPM_SE_POLICY);
	CU_ASSERT_EQUAL(policy_authorize(&s, approved, "v1", &auth65.k.name, &t),
			RC_P(TPM_RC_VALUE, 1));
	CU_ASSERT_EQUAL(pq_flush(&h, s.handle), TPM_RC_SUCCESS);
	/* a ticket over an external mu binds the key's public key, which PolicyAuthorize has not:
	 * never an approval, even though the signature is good */
	mp[0] = 0;
	mp[1] = 0;
	memcpy(mp + 2, m, n);
	CU_ASSERT_EQUAL_FATAL(mldsa_compute_mu(auth65.set, auth65.k.pub.unique.b, mp, n + 2, mu.b),
			      0);
	mu.size = MLDSA_MU_BYTES;
	auth_sign(&auth65, m, n, "", &sig);
	CU_ASSERT_EQUAL_FATAL(verify_digest(&auth65, mu.b, mu.size, &sig, &bad), TPM_RC_SUCCESS);
	CU_ASSERT(bad.tag == TPM_ST_DIGEST_VERIFIED && bad.metadata == TPM_ALG_SHAKE256);
	CU_ASSERT_EQUAL(authorize_unseal(&o, "v1", &auth65.k.name, &bad), RC_P(TPM_RC_VALUE, 4));
	/* and the good ticket still works */
	CU_ASSERT_EQUAL(authorize_unseal(&o, "v1", &auth65.k.name, &t), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(pq_flush(&h, o.handle), TPM_RC_SUCCESS);
}

int main(void)
{
	CU_pSuite s;
	unsigned failures;

	harness_open(&h);
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("pq_policy", NULL, NULL);
	CU_add_test(s, "a storage parent and ML-DSA authorities", setup);
	CU_add_test(s, "PolicySigned: trial digest, unseal (44/65/87, HashML-DSA)",
		    test_signed_unseals);
	CU_add_test(s, "PolicySigned with the TPM's own ML-DSA key", test_signed_by_tpm_key);
	CU_add_test(s, "PolicySigned ticket and PolicyTicket", test_signed_ticket);
	CU_add_test(s, "PolicySigned refusals", test_signed_refused);
	CU_add_test(s, "PolicyAuthorize with a VerifySequenceComplete ticket",
		    test_authorize_message);
	CU_add_test(s, "PolicyAuthorize with a VerifyDigestSignature ticket",
		    test_authorize_digest);
	CU_add_test(s, "PolicyAuthorize refusals", test_authorize_refused);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	failures = CU_get_number_of_failures();
	CU_cleanup_registry();
	harness_close(&h);
	return failures ? 1 : 0;
}
