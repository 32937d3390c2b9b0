/* Creation data (Part 2 TPMS_CREATION_DATA, Part 3 Create/CreatePrimary): what the TPM saw when
 * it made an object (PCRs, locality, parent), its hash, and the ticket by which
 * TPM2_CertifyCreation later recognizes that hash as the TPM's own. */
#include "object.h"
#include "pcr.h"
#include "ticket.h"

#define MAX_CREATION_DATA 512

static uint8_t locality_attr(uint8_t locality)
{
	return locality < 5 ? (uint8_t)(1u << locality) : locality;
}

TPM_RC object_creation_ticket(struct pqtpm_engine *e, TPM_HANDLE hierarchy,
			      const struct tpm2b_name *name, const struct tpm2b_digest *creation_hash,
			      struct tpmt_ticket *t)
{
	const uint8_t *proof = hierarchy == TPM_RH_NULL ? NULL : hier_proof(e, hierarchy);
	static const uint8_t tag[2] = { TPM_ST_CREATION >> 8, TPM_ST_CREATION & 0xFF };
	struct crypto_hmac_ctx h;
	TPM_RC rc;

	ticket_null(t, TPM_ST_CREATION);
	if (!proof)
		return TPM_RC_SUCCESS;
	rc = crypto_hmac_start(&h, TICKET_HASH, proof, PRIMARY_SEED_SIZE);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hmac_update(&h, tag, sizeof(tag));
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hmac_update(&h, name->b, name->size);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hmac_update(&h, creation_hash->b, creation_hash->size);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hmac_finish(&h, t->digest.b);
	crypto_wipe(&h, sizeof(h));
	if (rc != TPM_RC_SUCCESS)
		return rc;
	t->hierarchy = hierarchy;
	t->digest.size = (uint16_t)crypto_hash_size(TICKET_HASH);
	return TPM_RC_SUCCESS;
}

/* TPMS_CREATION_DATA */
static TPM_RC write_creation_data(struct cmd *c, const struct object *parent,
				  TPM_HANDLE hierarchy, TPM_ALG_ID name_alg,
				  const struct tpml_pcr_selection *pcrs,
				  const struct tpm2b_data *outside, struct wr *w)
{
	struct tpm2b_digest digest;
	struct tpm2b_name hier;
	size_t dlen;

	TRY(pcr_digest(c->e, pcrs, name_alg, digest.b, &dlen));
	digest.size = (uint16_t)dlen;
	TRY(wr_pcr_selection(w, pcrs));
	TRY(wr_tpm2b_digest(w, &digest));
	TRY(wr_u8(w, locality_attr(c->locality)));
	if (!parent) {
		object_hierarchy_qn(hierarchy, &hier);
		TRY(wr_u16(w, TPM_ALG_NULL));
		TRY(wr_tpm2b_name(w, &hier));
		TRY(wr_tpm2b_name(w, &hier));
	} else {
		TRY(wr_u16(w, parent->pub.name_alg));
		TRY(wr_tpm2b_name(w, &parent->name));
		TRY(wr_tpm2b_name(w, &parent->qualified_name));
	}
	return wr_tpm2b(w, outside->b, outside->size);
}

TPM_RC object_write_creation(struct cmd *c, const struct object *parent, TPM_HANDLE hierarchy,
			     const struct tpmt_public *pub, const struct tpm2b_name *name,
			     struct tpml_pcr_selection *pcrs, const struct tpm2b_data *outside)
{
	uint8_t data[MAX_CREATION_DATA];
	struct tpm2b_digest hash;
	struct tpmt_ticket ticket;
	struct wr w;

	pcr_filter_selection(c->e, pcrs);
	wr_init(&w, data, sizeof(data));
	TRY(write_creation_data(c, parent, hierarchy, pub->name_alg, pcrs, outside, &w));
	TRY(crypto_hash(pub->name_alg, data, w.off, hash.b));
	hash.size = (uint16_t)crypto_hash_size(pub->name_alg);
	TRY(object_creation_ticket(c->e, hierarchy, name, &hash, &ticket));
	TRY(wr_tpm2b(&c->out, data, (uint16_t)w.off));
	TRY(wr_tpm2b_digest(&c->out, &hash));
	return wr_ticket(&c->out, &ticket);
}
