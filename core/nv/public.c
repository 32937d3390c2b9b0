/* TPMS_NV_PUBLIC / TPM2B_NV_PUBLIC (Part 2 §13.5, §13.6) and an index's Name (Part 1 §16). */
#include "nv/nv.h"

TPM_RC rd_nv_public(struct rd *r, struct nv_public *pub)
{
	TRY(rd_u32(r, &pub->handle));
	if (pub->handle < NV_FIRST || pub->handle > NV_LAST) /* TPMI_RH_NV_INDEX */
		return TPM_RC_VALUE;
	TRY(rd_hash_alg(r, &pub->name_alg, false));
	TRY(rd_u32(r, &pub->attributes));
	if (pub->attributes & TPMA_NV_RESERVED)
		return TPM_RC_RESERVED_BITS;
	TRY(rd_tpm2b_digest(r, &pub->policy));
	TRY(rd_u16(r, &pub->size));
	if (pub->size > NV_INDEX_MAX) /* dataSize {:MAX_NV_INDEX_SIZE} */
		return TPM_RC_SIZE;
	return TPM_RC_SUCCESS;
}

uint16_t nv_index_max(const struct pqtpm_engine *e)
{
	return e->capabilities == PQTPM_CAPS_V185 ? NV_INDEX_MAX : NV_INDEX_MAX_RELEASED;
}

TPM_RC rd_tpm2b_nv_public(struct rd *r, struct nv_public *pub)
{
	struct rd sub;
	uint16_t size;
	TPM_RC rc;

	TRY(rd_sub(r, &sub, &size));
	if (size == 0)
		return TPM_RC_SIZE;
	rc = rd_nv_public(&sub, pub);
	if (rc == TPM_RC_INSUFFICIENT || (rc == TPM_RC_SUCCESS && rd_left(&sub)))
		return TPM_RC_SIZE;
	return rc;
}

TPM_RC wr_nv_public(struct wr *w, const struct nv_public *pub)
{
	TRY(wr_u32(w, pub->handle));
	TRY(wr_u16(w, pub->name_alg));
	TRY(wr_u32(w, pub->attributes));
	TRY(wr_tpm2b_digest(w, &pub->policy));
	return wr_u16(w, pub->size);
}

TPM_RC wr_tpm2b_nv_public(struct wr *w, const struct nv_public *pub)
{
	size_t mark;

	TRY(wr_size_begin(w, &mark));
	TRY(wr_nv_public(w, pub));
	return wr_size_end(w, mark);
}

TPM_RC nv_name(const struct nv_public *pub, struct tpm2b_name *name)
{
	uint8_t buf[4 + 2 + 4 + 2 + MAX_DIGEST_SIZE + 2];
	size_t dlen = crypto_hash_size(pub->name_alg);
	struct wr w;

	name->size = 0;
	if (dlen == 0)
		return TPM_RC_HASH;
	wr_init(&w, buf, sizeof(buf));
	TRY(wr_nv_public(&w, pub));
	name->b[0] = (uint8_t)(pub->name_alg >> 8);
	name->b[1] = (uint8_t)pub->name_alg;
	TRY(crypto_hash(pub->name_alg, buf, w.off, name->b + 2));
	name->size = (uint16_t)(2 + dlen);
	return TPM_RC_SUCCESS;
}
