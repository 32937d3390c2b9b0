/* Ticket HMACs (see ticket.h). */
#include "ticket.h"

void ticket_null(struct tpmt_ticket *t, uint16_t tag)
{
	t->tag = tag;
	t->hierarchy = TPM_RH_NULL;
	t->digest.size = 0;
	t->metadata = TPM_ALG_NULL;
}

/* HMAC(proof of hierarchy, tag || ...): started only for a hierarchy with a proof. */
static TPM_RC mac_start(struct pqtpm_engine *e, uint16_t tag, TPM_HANDLE hierarchy,
			struct crypto_hmac_ctx *h, bool *active)
{
	const uint8_t *proof = hierarchy == TPM_RH_NULL ? NULL : hier_proof(e, hierarchy);
	uint8_t tag_be[2] = { (uint8_t)(tag >> 8), (uint8_t)tag };

	*active = proof != NULL;
	if (!proof)
		return TPM_RC_SUCCESS;
	TRY(crypto_hmac_start(h, TICKET_HASH, proof, PRIMARY_SEED_SIZE));
	return crypto_hmac_update(h, tag_be, sizeof(tag_be));
}

static TPM_RC mac_finish(struct crypto_hmac_ctx *h, bool active, uint16_t tag,
			 TPM_HANDLE hierarchy, struct tpmt_ticket *t)
{
	TPM_ALG_ID meta = t->metadata;
	TPM_RC rc;

	ticket_null(t, tag);
	t->metadata = meta;
	if (!active)
		return TPM_RC_SUCCESS;
	rc = crypto_hmac_finish(h, t->digest.b);
	crypto_wipe(h, sizeof(*h));
	if (rc != TPM_RC_SUCCESS)
		return rc;
	t->hierarchy = hierarchy;
	t->digest.size = (uint16_t)crypto_hash_size(TICKET_HASH);
	return TPM_RC_SUCCESS;
}

/* HMAC(proof, tag || a || b || c); the NULL hierarchy gets the NULL Ticket. */
static TPM_RC ticket_make(struct pqtpm_engine *e, uint16_t tag, TPM_HANDLE hierarchy,
			  const uint8_t *a, size_t alen, const uint8_t *b, size_t blen,
			  const uint8_t *c, size_t clen, struct tpmt_ticket *t)
{
	struct crypto_hmac_ctx h;
	bool active;
	TPM_RC rc;

	rc = mac_start(e, tag, hierarchy, &h, &active);
	if (rc == TPM_RC_SUCCESS && active)
		rc = crypto_hmac_update(&h, a, alen);
	if (rc == TPM_RC_SUCCESS && active)
		rc = crypto_hmac_update(&h, b, blen);
	if (rc == TPM_RC_SUCCESS && active && clen)
		rc = crypto_hmac_update(&h, c, clen);
	if (rc == TPM_RC_SUCCESS)
		rc = mac_finish(&h, active, tag, hierarchy, t);
	crypto_wipe(&h, sizeof(h));
	return rc;
}

TPM_RC ticket_hashcheck(struct pqtpm_engine *e, TPM_HANDLE hierarchy,
			const struct tpm2b_digest *digest, struct tpmt_ticket *t)
{
	t->metadata = TPM_ALG_NULL;
	return ticket_make(e, TPM_ST_HASHCHECK, hierarchy, digest->b, digest->size, NULL, 0, NULL,
			   0, t);
}

TPM_RC ticket_verified(struct pqtpm_engine *e, TPM_HANDLE hierarchy,
		       const struct tpm2b_digest *digest, const struct tpm2b_name *key_name,
		       struct tpmt_ticket *t)
{
	t->metadata = TPM_ALG_NULL;
	return ticket_make(e, TPM_ST_VERIFIED, hierarchy, digest->b, digest->size, key_name->b,
			   key_name->size, NULL, 0, t);
}

TPM_RC ticket_digest_verified(struct pqtpm_engine *e, TPM_HANDLE hierarchy, const uint8_t *digest,
			      size_t dlen, const struct tpm2b_name *key_name, TPM_ALG_ID hash_alg,
			      struct tpmt_ticket *t)
{
	uint8_t meta[2] = { (uint8_t)(hash_alg >> 8), (uint8_t)hash_alg };

	t->metadata = hash_alg;
	return ticket_make(e, TPM_ST_DIGEST_VERIFIED, hierarchy, digest, dlen, key_name->b,
			   key_name->size, meta, sizeof(meta), t);
}

TPM_RC ticket_message_start(struct pqtpm_engine *e, TPM_HANDLE hierarchy,
			    struct crypto_hmac_ctx *h, bool *active)
{
	return mac_start(e, TPM_ST_MESSAGE_VERIFIED, hierarchy, h, active);
}

TPM_RC ticket_message_update(struct crypto_hmac_ctx *h, const uint8_t *data, size_t len)
{
	return crypto_hmac_update(h, data, len);
}

TPM_RC ticket_message_finish(struct crypto_hmac_ctx *h, bool active, TPM_HANDLE hierarchy,
			     const struct tpm2b_name *key_name, struct tpmt_ticket *t)
{
	t->metadata = TPM_ALG_NULL;
	if (active)
		TRY(crypto_hmac_update(h, key_name->b, key_name->size));
	return mac_finish(h, active, TPM_ST_MESSAGE_VERIFIED, hierarchy, t);
}

bool ticket_matches(const struct tpmt_ticket *given, const struct tpmt_ticket *expected)
{
	if (expected->hierarchy == TPM_RH_NULL || expected->digest.size == 0)
		return false;
	if (given->tag != expected->tag || given->hierarchy != expected->hierarchy ||
	    given->digest.size != expected->digest.size)
		return false;
	if (given->tag == TPM_ST_DIGEST_VERIFIED && given->metadata != expected->metadata)
		return false;
	return crypto_ct_equal(given->digest.b, expected->digest.b, expected->digest.size);
}
