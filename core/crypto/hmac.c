/* HMAC (RFC 2104) over crypto_hash_*, so that an HMAC context is plain data like a hash
 * context. */
#include <string.h>

#include "crypto.h"

#define IPAD 0x36
#define OPAD 0x5c

TPM_RC crypto_hmac_start(struct crypto_hmac_ctx *ctx, TPM_ALG_ID alg, const uint8_t *key,
			 size_t keylen)
{
	uint8_t pad[CRYPTO_MAX_HASH_BLOCK] = { 0 };
	size_t block = crypto_hash_block(alg);
	TPM_RC rc;

	if (block == 0)
		return TPM_RC_HASH;
	if (keylen > block) {
		rc = crypto_hash(alg, key, keylen, pad);
		if (rc != TPM_RC_SUCCESS)
			return rc;
	} else if (keylen) {
		memcpy(pad, key, keylen);
	}

	for (size_t i = 0; i < block; i++)
		pad[i] ^= IPAD;
	rc = crypto_hash_start(&ctx->inner, alg);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hash_update(&ctx->inner, pad, block);

	for (size_t i = 0; i < block; i++)
		pad[i] ^= IPAD ^ OPAD;
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hash_start(&ctx->outer, alg);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hash_update(&ctx->outer, pad, block);

	crypto_wipe(pad, sizeof(pad));
	if (rc != TPM_RC_SUCCESS)
		crypto_wipe(ctx, sizeof(*ctx));
	return rc;
}

TPM_RC crypto_hmac_update(struct crypto_hmac_ctx *ctx, const void *data, size_t len)
{
	return crypto_hash_update(&ctx->inner, data, len);
}

TPM_RC crypto_hmac_finish(struct crypto_hmac_ctx *ctx, uint8_t *out)
{
	uint8_t inner[CRYPTO_MAX_DIGEST];
	size_t dsize = crypto_hash_size(ctx->outer.alg);
	TPM_RC rc;

	rc = crypto_hash_finish(&ctx->inner, inner);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hash_update(&ctx->outer, inner, dsize);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hash_finish(&ctx->outer, out);
	crypto_wipe(inner, sizeof(inner));
	crypto_wipe(ctx, sizeof(*ctx));
	return rc;
}

TPM_RC crypto_hmac(TPM_ALG_ID alg, const uint8_t *key, size_t keylen, const void *data,
		   size_t len, uint8_t *out)
{
	struct crypto_hmac_ctx ctx;
	TPM_RC rc;

	rc = crypto_hmac_start(&ctx, alg, key, keylen);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	rc = crypto_hmac_update(&ctx, data, len);
	if (rc == TPM_RC_SUCCESS)
		return crypto_hmac_finish(&ctx, out);
	crypto_wipe(&ctx, sizeof(ctx));
	return rc;
}
