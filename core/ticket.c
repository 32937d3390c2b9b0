/* Ticket HMACs (see ticket.h). */
#include "ticket.h"

void ticket_null(struct tpmt_ticket *t, uint16_t tag)
{
	t->tag = tag;
	t->hierarchy = TPM_RH_NULL;
	t->digest.size = 0;
}

/* HMAC(proof of hierarchy, tag || a || b); the NULL hierarchy gets the NULL Ticket. */
static TPM_RC ticket_make(struct pqtpm_engine *e, uint16_t tag, TPM_HANDLE hierarchy,
			  const uint8_t *a, size_t alen, const uint8_t *b, size_t blen,
			  struct tpmt_ticket *t)
{
	const uint8_t *proof = hierarchy == TPM_RH_NULL ? NULL : hier_proof(e, hierarchy);
	struct crypto_hmac_ctx h;
	uint8_t tag_be[2] = { (uint8_t)(tag >> 8), (uint8_t)tag };
	TPM_RC rc;

	ticket_null(t, tag);
	if (!proof)
		return TPM_RC_SUCCESS;
	rc = crypto_hmac_start(&h, TICKET_HASH, proof, PRIMARY_SEED_SIZE);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hmac_update(&h, tag_be, sizeof(tag_be));
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hmac_update(&h, a, alen);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hmac_update(&h, b, blen);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hmac_finish(&h, t->digest.b);
	crypto_wipe(&h, sizeof(h));
	if (rc != TPM_RC_SUCCESS)
		return rc;
	t->hierarchy = hierarchy;
	t->digest.size = (uint16_t)crypto_hash_size(TICKET_HASH);
	return TPM_RC_SUCCESS;
}

TPM_RC ticket_hashcheck(struct pqtpm_engine *e, TPM_HANDLE hierarchy,
			const struct tpm2b_digest *digest, struct tpmt_ticket *t)
{
	return ticket_make(e, TPM_ST_HASHCHECK, hierarchy, digest->b, digest->size, NULL, 0, t);
}

TPM_RC ticket_verified(struct pqtpm_engine *e, TPM_HANDLE hierarchy,
		       const struct tpm2b_digest *digest, const struct tpm2b_name *key_name,
		       struct tpmt_ticket *t)
{
	return ticket_make(e, TPM_ST_VERIFIED, hierarchy, digest->b, digest->size, key_name->b,
			   key_name->size, t);
}

bool ticket_matches(const struct tpmt_ticket *given, const struct tpmt_ticket *expected)
{
	if (expected->hierarchy == TPM_RH_NULL || expected->digest.size == 0)
		return false;
	if (given->tag != expected->tag || given->hierarchy != expected->hierarchy ||
	    given->digest.size != expected->digest.size)
		return false;
	return crypto_ct_equal(given->digest.b, expected->digest.b, expected->digest.size);
}
