/* Protection of saved contexts (layout and keys in context_blob.h). */
#include <string.h>

#include "context_blob.h"

#define CONTEXT_HASH TPM_ALG_SHA256
#define CONTEXT_DIGEST 32
#define CONTEXT_KEY_BYTES 32
#define CONTEXT_IV CRYPTO_AES_BLOCK
#define PLAIN_HEADER (8 + 1) /* sequence fingerprint, type tag */

static TPM_RC sym_key(const uint8_t *proof, const struct tpms_context *ctx, uint8_t *key)
{
	uint8_t seq[8], handle[4];
	struct wr w;

	wr_init(&w, seq, sizeof(seq));
	TRY(wr_u64(&w, ctx->sequence));
	wr_init(&w, handle, sizeof(handle));
	TRY(wr_u32(&w, ctx->saved_handle));
	return crypto_kdfa(CONTEXT_HASH, proof, PRIMARY_SEED_SIZE, "CONTEXT", seq, sizeof(seq),
			   handle, sizeof(handle), CONTEXT_KEY_BYTES * 8, key);
}

/* HMAC over what binds the blob to this TPM's life (epoch, restarts for stClear), to its
 * TPMS_CONTEXT fields, and over the iv and the encrypted plaintext. */
static TPM_RC integrity(struct pqtpm_engine *e, const uint8_t *proof,
			const struct tpms_context *ctx, const uint8_t *iv, const uint8_t *enc,
			size_t len, uint8_t *out)
{
	uint8_t bind[8 + 4 + 8 + 4 + 4];
	struct crypto_hmac_ctx h;
	struct wr w;
	TPM_RC rc;

	wr_init(&w, bind, sizeof(bind));
	TRY(wr_u64(&w, e->ps.context_epoch));
	if (ctx->saved_handle == CONTEXT_HANDLE_STCLEAR)
		TRY(wr_u32(&w, e->ps.restart_count));
	TRY(wr_u64(&w, ctx->sequence));
	TRY(wr_u32(&w, ctx->saved_handle));
	TRY(wr_u32(&w, ctx->hierarchy));
	rc = crypto_hmac_start(&h, CONTEXT_HASH, proof, PRIMARY_SEED_SIZE);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hmac_update(&h, bind, w.off);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hmac_update(&h, iv, CONTEXT_IV);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hmac_update(&h, enc, len);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hmac_finish(&h, out);
	crypto_wipe(&h, sizeof(h));
	return rc;
}

TPM_RC context_protect(struct pqtpm_engine *e, struct tpms_context *ctx, enum context_type type,
		       const uint8_t *data, size_t len)
{
	const uint8_t *proof = hier_proof(e, ctx->hierarchy);
	uint8_t key[CONTEXT_KEY_BYTES], iv[CONTEXT_IV];
	uint8_t *mac, *iv_out, *enc;
	size_t enc_len = PLAIN_HEADER + len;
	struct wr w, pw;
	TPM_RC rc;

	if (!proof || len > CONTEXT_MAX_PLAIN - PLAIN_HEADER)
		return TPM_RC_FAILURE;
	wr_init(&w, ctx->blob, sizeof(ctx->blob));
	TRY(wr_u16(&w, CONTEXT_DIGEST));
	TRY(wr_reserve(&w, CONTEXT_DIGEST, &mac));
	TRY(wr_reserve(&w, CONTEXT_IV, &iv_out));
	TRY(crypto_random(iv_out, CONTEXT_IV));
	TRY(wr_reserve(&w, enc_len, &enc));
	wr_init(&pw, enc, enc_len);
	TRY(wr_u64(&pw, ctx->sequence));
	TRY(wr_u8(&pw, (uint8_t)type));
	TRY(wr_bytes(&pw, data, len));

	rc = sym_key(proof, ctx, key);
	memcpy(iv, iv_out, CONTEXT_IV); /* crypto_aes advances the iv it is given */
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_aes(TPM_ALG_CFB, true, key, sizeof(key), iv, enc, enc, enc_len);
	crypto_wipe(key, sizeof(key));
	if (rc == TPM_RC_SUCCESS)
		rc = integrity(e, proof, ctx, iv_out, enc, enc_len, mac);
	if (rc != TPM_RC_SUCCESS) {
		crypto_wipe(ctx->blob, w.off);
		return rc;
	}
	ctx->blob_size = (uint16_t)w.off;
	return TPM_RC_SUCCESS;
}

TPM_RC context_unprotect(struct pqtpm_engine *e, const struct tpms_context *ctx,
			 enum context_type type, uint8_t *plain, struct rd *entity)
{
	const uint8_t *proof = hier_proof(e, ctx->hierarchy);
	uint8_t key[CONTEXT_KEY_BYTES], iv[CONTEXT_IV], mac[CONTEXT_DIGEST];
	const uint8_t *iv_in, *enc;
	struct tpm2b_digest stored;
	struct rd r, p;
	size_t len;
	uint64_t fingerprint;
	uint8_t tag;
	TPM_RC rc;

	if (!proof)
		return TPM_RC_VALUE;
	rd_init(&r, ctx->blob, ctx->blob_size);
	TRY(rd_tpm2b_digest(&r, &stored));
	if (stored.size != CONTEXT_DIGEST || rd_left(&r) < CONTEXT_IV + PLAIN_HEADER)
		return TPM_RC_INTEGRITY;
	TRY(rd_view(&r, CONTEXT_IV, &iv_in));
	len = rd_left(&r);
	TRY(rd_view(&r, len, &enc));
	TRY(integrity(e, proof, ctx, iv_in, enc, len, mac));
	if (!crypto_ct_equal(mac, stored.b, CONTEXT_DIGEST))
		return TPM_RC_INTEGRITY;

	rc = sym_key(proof, ctx, key);
	memcpy(iv, iv_in, CONTEXT_IV);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_aes(TPM_ALG_CFB, false, key, sizeof(key), iv, enc, plain, len);
	crypto_wipe(key, sizeof(key));
	if (rc != TPM_RC_SUCCESS)
		return rc;
	/* The HMAC passed, so these hold unless our own save wrote something else. */
	rd_init(&p, plain, len);
	TRY(rd_u64(&p, &fingerprint));
	TRY(rd_u8(&p, &tag));
	if (fingerprint != ctx->sequence || tag != type)
		return TPM_RC_INTEGRITY;
	*entity = p;
	return TPM_RC_SUCCESS;
}
