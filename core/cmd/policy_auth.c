/* The policy assertions that bring in another entity's authorization (Part 3 §23):
 * PolicySecret (its authValue, checked by dispatch), PolicySigned (a signature with its key),
 * PolicyTicket (a ticket one of those two gave earlier) and PolicyAuthorize (a policy a key
 * approved, shown by a ticket of VerifySignature, VerifyDigestSignature or
 * VerifySequenceComplete). ML-DSA keys act as authorities in both (docs/pq-decisions.md).
 *
 * Expiration: Part 3 counts it from the time nonceTPM was made; this TPM does not keep that
 * time, so it counts from the command. Timeouts are absolute Clock values (ms); the timeout
 * buffer returned with a ticket is that value, big-endian in 8 bytes. */
#include <string.h>

#include "policy.h"
#include "scheme.h"
#include "ticket.h"

#define TIMEOUT_SIZE 8 /* TPM2B_TIMEOUT */

static void be64(uint8_t *b, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		b[i] = (uint8_t)v;
}

static uint64_t get_be64(const uint8_t *b)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | b[i];
	return v;
}

static bool same(const struct tpm2b_digest *a, const struct tpm2b_digest *b)
{
	return a->size == b->size && memcmp(a->b, b->b, a->size) == 0;
}

/* The hierarchy of an entity's tickets (the reference's EntityGetHierarchy). */
static TPM_HANDLE entity_hierarchy(const struct cmd *c, unsigned slot)
{
	if (c->obj[slot])
		return c->obj[slot]->hierarchy;
	switch (c->handle[slot]) {
	case TPM_RH_PLATFORM:
	case TPM_RH_ENDORSEMENT:
	case TPM_RH_NULL:
		return c->handle[slot];
	default: /* owner, lockout, PCRs */
		return TPM_RH_OWNER;
	}
}

/* TPMT_TK_AUTH: HMAC(proof, tag || timeout || cpHashA || policyRef || authName); the NULL
 * Ticket in the NULL hierarchy. */
static TPM_RC auth_ticket(struct pqtpm_engine *e, uint16_t tag, TPM_HANDLE hierarchy,
			  uint64_t timeout, const struct tpm2b_digest *cp_hash,
			  const struct tpm2b_digest *ref, const struct tpm2b_name *name,
			  struct tpmt_ticket *t)
{
	const uint8_t *proof = hierarchy == TPM_RH_NULL ? NULL : hier_proof(e, hierarchy);
	uint8_t head[2 + TIMEOUT_SIZE] = { (uint8_t)(tag >> 8), (uint8_t)tag };
	struct crypto_hmac_ctx h;
	TPM_RC rc;

	ticket_null(t, tag);
	if (!proof)
		return TPM_RC_SUCCESS;
	be64(head + 2, timeout);
	rc = crypto_hmac_start(&h, TICKET_HASH, proof, PRIMARY_SEED_SIZE);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hmac_update(&h, head, sizeof(head));
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hmac_update(&h, cp_hash->b, cp_hash->size);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hmac_update(&h, ref->b, ref->size);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hmac_update(&h, name->b, name->size);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hmac_finish(&h, t->digest.b);
	crypto_wipe(&h, sizeof(h));
	if (rc != TPM_RC_SUCCESS)
		return rc;
	t->hierarchy = hierarchy;
	t->digest.size = (uint16_t)crypto_hash_size(TICKET_HASH);
	return TPM_RC_SUCCESS;
}

/* A cpHashA given has the session's digest size and agrees with what the session holds. */
static TPM_RC check_cp_hash(const struct session *s, const struct tpm2b_digest *cp, unsigned n)
{
	if (cp->size == 0)
		return TPM_RC_SUCCESS;
	if (cp->size != s->policy_digest.size)
		return rc_param(TPM_RC_SIZE, n);
	if (s->name_hash.size || s->template_hash.size || (s->cp_hash.size && !same(cp, &s->cp_hash)))
		return TPM_RC_CPHASH;
	return TPM_RC_SUCCESS;
}

/* The parameters PolicySecret and PolicySigned share, in this order. */
struct auth_args {
	struct tpm2b_digest nonce;	/* 1: the session's nonceTPM, or empty */
	struct tpm2b_digest cp_hash;	/* 2 */
	struct tpm2b_digest ref;	/* 3: policyRef */
	int32_t expiration;		/* 4: seconds; < 0 asks for a ticket */
	uint64_t timeout;		/* Clock ms when it expires; 0 = never (or trial) */
};

static TPM_RC read_auth_args(struct cmd *c, const struct session *s, struct auth_args *a)
{
	uint32_t expiration;

	TRYP(1, rd_tpm2b_digest(&c->in, &a->nonce));
	TRYP(2, rd_tpm2b_digest(&c->in, &a->cp_hash));
	TRYP(3, rd_tpm2b_digest(&c->in, &a->ref));
	TRYP(4, rd_u32(&c->in, &expiration));
	a->expiration = (int32_t)expiration;
	a->timeout = 0;
	if (s->type == TPM_SE_TRIAL)
		return TPM_RC_SUCCESS;
	if (a->nonce.size && !same(&a->nonce, &s->nonce_tpm))
		return rc_param(TPM_RC_NONCE, 1);
	TRY(check_cp_hash(s, &a->cp_hash, 2));
	if (a->expiration) {
		uint64_t secs = a->expiration < 0 ? (uint64_t)(-(int64_t)a->expiration)
						   : (uint64_t)a->expiration;

		a->timeout = engine_clock_ms(c->e) + secs * 1000u;
	}
	return TPM_RC_SUCCESS;
}

/* timeout and policyTicket: a real ticket only for a negative expiration, never in a trial. */
static TPM_RC write_ticket(struct cmd *c, uint16_t tag, TPM_HANDLE hierarchy,
			   const struct auth_args *a, const struct tpm2b_name *name)
{
	struct tpmt_ticket t;
	uint8_t timeout[TIMEOUT_SIZE];

	if (a->expiration >= 0 || a->timeout == 0) {
		ticket_null(&t, tag);
		TRY(wr_u16(&c->out, 0));
		return wr_ticket(&c->out, &t);
	}
	TRY(auth_ticket(c->e, tag, hierarchy, a->timeout, &a->cp_hash, &a->ref, name, &t));
	be64(timeout, a->timeout);
	TRY(wr_tpm2b(&c->out, timeout, sizeof(timeout)));
	return wr_ticket(&c->out, &t);
}

/* authHandle (handle 1) is authorized by dispatch with its authValue or policy. */
static TPM_RC policy_secret(struct cmd *c)
{
	struct session *s;
	struct auth_args a;
	struct tpm2b_name name;

	TRY(policy_session(c, 1, &s));
	TRY(read_auth_args(c, s, &a));
	TRY(cmd_params_done(c));
	TRY(entity_name(c, 0, &name));
	TRY(policy_update(s, TPM_CC_PolicySecret, &name, &a.ref, &a.cp_hash, a.timeout));
	return write_ticket(c, TPM_ST_AUTH_SECRET, entity_hierarchy(c, 0), &a, &name);
}

/* The key signed M = nonceTPM || expiration || cpHashA || policyRef: pure ML-DSA signs M itself
 * (empty context), every other scheme aHash = H(M) with the signature's hash (HashML-DSA: its
 * pre-hash, as PH(M)). */
static TPM_RC check_signed(const struct object *key, const struct auth_args *a,
			   const struct tpmt_signature *sig)
{
	uint8_t m[3 * MAX_DIGEST_SIZE + 4];
	struct key_material k;
	struct wr w;
	TPM_RC rc;

	if (!(key->pub.attributes & TPMA_OBJECT_SIGN_ENCRYPT))
		return rc_handle(TPM_RC_ATTRIBUTES, 1);
	wr_init(&w, m, sizeof(m));
	TRY(wr_bytes(&w, a->nonce.b, a->nonce.size));
	TRY(wr_u32(&w, (uint32_t)a->expiration));
	TRY(wr_bytes(&w, a->cp_hash.b, a->cp_hash.size));
	TRY(wr_bytes(&w, a->ref.b, a->ref.size));
	TRY(key_material_of(&k, key));
	rc = rc_param(scheme_verify_message(&k, m, w.off, sig), 5);
	key_material_drop(&k);
	return rc;
}

static TPM_RC policy_signed(struct cmd *c)
{
	const struct object *key = c->obj[0];
	struct session *s;
	struct auth_args a;
	struct tpmt_signature sig;

	TRY(policy_session(c, 1, &s));
	TRY(read_auth_args(c, s, &a));
	TRYP(5, rd_signature(&c->in, &sig));
	TRY(cmd_params_done(c));
	if (s->type != TPM_SE_TRIAL)
		TRY(check_signed(key, &a, &sig));
	TRY(policy_update(s, TPM_CC_PolicySigned, &key->name, &a.ref, &a.cp_hash, a.timeout));
	return write_ticket(c, TPM_ST_AUTH_SIGNED, key->hierarchy, &a, &key->name);
}

/* A ticket of PolicySigned or PolicySecret stands in for them until its timeout. */
static TPM_RC policy_ticket(struct cmd *c)
{
	struct session *s;
	uint8_t timeout_buf[TIMEOUT_SIZE];
	uint16_t timeout_len;
	uint64_t timeout;
	struct tpm2b_digest cp_hash, ref;
	struct tpm2b_name name;
	struct tpmt_ticket t, expect;

	TRY(policy_session(c, 0, &s));
	TRYP(1, rd_tpm2b(&c->in, timeout_buf, sizeof(timeout_buf), &timeout_len));
	TRYP(2, rd_tpm2b_digest(&c->in, &cp_hash));
	TRYP(3, rd_tpm2b_digest(&c->in, &ref));
	TRYP(4, rd_tpm2b_name(&c->in, &name));
	TRYP(5, rd_ticket(&c->in, &t));
	TRY(cmd_params_done(c));
	if (t.tag != TPM_ST_AUTH_SIGNED && t.tag != TPM_ST_AUTH_SECRET)
		return rc_param(TPM_RC_TAG, 5);
	if (timeout_len != TIMEOUT_SIZE)
		return rc_param(TPM_RC_SIZE, 1);
	timeout = get_be64(timeout_buf);
	if (engine_clock_ms(c->e) > timeout)
		return rc_param(TPM_RC_EXPIRED, 1);
	TRY(check_cp_hash(s, &cp_hash, 2));
	TRY(auth_ticket(c->e, t.tag, t.hierarchy, timeout, &cp_hash, &ref, &name, &expect));
	if (!ticket_matches(&t, &expect))
		return rc_param(TPM_RC_TICKET, 5);
	return policy_update(s, t.tag == TPM_ST_AUTH_SIGNED ? TPM_CC_PolicySigned : TPM_CC_PolicySecret,
			     &name, &ref, &cp_hash, timeout);
}

/* The ticket keySign would have for approvedPolicy || policyRef, as its tag says:
 *   TPM_ST_VERIFIED          VerifySignature: over H_nameAlg(keySign)(approvedPolicy || policyRef)
 *   TPM_ST_DIGEST_VERIFIED   VerifyDigestSignature: over H_metadata(approvedPolicy || policyRef);
 *                            an external mu (SHAKE256) binds the key's public key, which this
 *                            command does not have, so such a ticket never approves a policy
 *   TPM_ST_MESSAGE_VERIFIED  VerifySequenceComplete: over approvedPolicy || policyRef itself */
static TPM_RC approval_ticket(struct pqtpm_engine *e, const struct tpmt_ticket *t,
			      TPM_ALG_ID name_alg, const struct tpm2b_digest *approved,
			      const struct tpm2b_digest *ref, const struct tpm2b_name *key_sign,
			      struct tpmt_ticket *expect)
{
	struct crypto_hmac_ctx mac;
	struct crypto_hash_ctx h;
	struct tpm2b_digest a_hash;
	TPM_ALG_ID alg = t->tag == TPM_ST_DIGEST_VERIFIED ? t->metadata : name_alg;
	bool active;
	TPM_RC rc;

	if (t->tag == TPM_ST_MESSAGE_VERIFIED) {
		rc = ticket_message_start(e, t->hierarchy, &mac, &active);
		if (rc == TPM_RC_SUCCESS && active)
			rc = ticket_message_update(&mac, approved->b, approved->size);
		if (rc == TPM_RC_SUCCESS && active)
			rc = ticket_message_update(&mac, ref->b, ref->size);
		if (rc == TPM_RC_SUCCESS)
			rc = ticket_message_finish(&mac, active, t->hierarchy, key_sign, expect);
		crypto_wipe(&mac, sizeof(mac));
		return rc;
	}
	a_hash.size = (uint16_t)crypto_hash_size(alg);
	if (a_hash.size == 0) {
		ticket_null(expect, t->tag);
		return TPM_RC_SUCCESS;
	}
	TRY(crypto_hash_start(&h, alg));
	TRY(crypto_hash_update(&h, approved->b, approved->size));
	TRY(crypto_hash_update(&h, ref->b, ref->size));
	TRY(crypto_hash_finish(&h, a_hash.b));
	if (t->tag == TPM_ST_DIGEST_VERIFIED)
		return ticket_digest_verified(e, t->hierarchy, a_hash.b, a_hash.size, key_sign,
					      alg, expect);
	return ticket_verified(e, t->hierarchy, &a_hash, key_sign, expect);
}

/* keySign approved approvedPolicy: checkTicket shows it signed approvedPolicy || policyRef. */
static TPM_RC check_approved(struct cmd *c, const struct session *s,
			     const struct tpm2b_digest *approved, const struct tpm2b_digest *ref,
			     const struct tpm2b_name *key_sign, const struct tpmt_ticket *t)
{
	struct tpmt_ticket expect;
	TPM_ALG_ID alg;
	size_t size;

	if (!same(approved, &s->policy_digest))
		return rc_param(TPM_RC_VALUE, 1);
	if (key_sign->size < 2)
		return rc_param(TPM_RC_HASH, 3);
	alg = (TPM_ALG_ID)(key_sign->b[0] << 8 | key_sign->b[1]);
	size = crypto_hash_size(alg);
	if (size == 0)
		return rc_param(TPM_RC_HASH, 3);
	if (key_sign->size != size + 2u)
		return rc_param(TPM_RC_SIZE, 3);
	TRY(approval_ticket(c->e, t, alg, approved, ref, key_sign, &expect));
	return ticket_matches(t, &expect) ? TPM_RC_SUCCESS : rc_param(TPM_RC_VALUE, 4);
}

/* checkTicket is a TPMT_TK_VERIFIED: only the three tags that type has (Part 2, v1.85). */
static bool verified_tag(uint16_t tag)
{
	return tag == TPM_ST_VERIFIED || tag == TPM_ST_DIGEST_VERIFIED ||
	       tag == TPM_ST_MESSAGE_VERIFIED;
}

/* The digest starts over from zero: H(H(0...0 || TPM_CC_PolicyAuthorize || keySign) ||
 * policyRef). */
static TPM_RC policy_authorize(struct cmd *c)
{
	struct session *s;
	struct tpm2b_digest approved, ref;
	struct tpm2b_name key_sign;
	struct tpmt_ticket t;

	TRY(policy_session(c, 0, &s));
	TRYP(1, rd_tpm2b_digest(&c->in, &approved));
	TRYP(2, rd_tpm2b_digest(&c->in, &ref));
	TRYP(3, rd_tpm2b_name(&c->in, &key_sign));
	TRYP(4, rd_ticket(&c->in, &t));
	TRY(cmd_params_done(c));
	if (!verified_tag(t.tag))
		return rc_param(TPM_RC_TAG, 4);
	if (s->type != TPM_SE_TRIAL)
		TRY(check_approved(c, s, &approved, &ref, &key_sign, &t));
	memset(s->policy_digest.b, 0, s->policy_digest.size);
	return policy_update(s, TPM_CC_PolicyAuthorize, &key_sign, &ref, NULL, 0);
}

const struct cmd_def cmds_policy_auth[] = {
	{ .code = TPM_CC_PolicySecret, .name = "PolicySecret", .handles = 2,
	  .auth = { AUTH_USER }, .htype = { HK_ANY & ~(HK_SESSION | HK_NULL), HK_SESSION },
	  .flags = CMD_PARAM_IN | CMD_PARAM_OUT, .run = policy_secret },
	{ .code = TPM_CC_PolicySigned, .name = "PolicySigned", .handles = 2,
	  .htype = { HK_OBJECT, HK_SESSION }, .flags = CMD_PARAM_IN | CMD_PARAM_OUT,
	  .run = policy_signed },
	{ .code = TPM_CC_PolicyTicket, .name = "PolicyTicket", .handles = 1,
	  .htype = { HK_SESSION }, .flags = CMD_PARAM_IN | CMD_READS_STATE, .run = policy_ticket },
	{ .code = TPM_CC_PolicyAuthorize, .name = "PolicyAuthorize", .handles = 1,
	  .htype = { HK_SESSION }, .flags = CMD_PARAM_IN | CMD_READS_STATE,
	  .run = policy_authorize },
	{ 0 },
};
