/* AES-CMAC (NIST SP 800-38B, RFC 4493) over crypto_aes in ECB mode: the subkeys K1 and K2 from
 * L = AES_K(0), CBC-MAC of the message with the last block XORed with K1 (complete) or padded
 * with 10* and XORed with K2. The context keeps the chaining value and the last block, which
 * is only processed at the end. */
#include <string.h>

#include "crypto.h"

#define BLOCK ((size_t)CRYPTO_CMAC_SIZE)

static TPM_RC encrypt_block(const struct crypto_cmac_ctx *ctx, const uint8_t *in, uint8_t *out)
{
	return crypto_aes(TPM_ALG_ECB, true, ctx->key, ctx->keylen, NULL, in, out, BLOCK);
}

/* k = k << 1, XOR 0x87 into the last byte when the top bit was set */
static void dbl(uint8_t *k)
{
	uint8_t carry = k[0] >> 7;

	for (size_t i = 0; i < BLOCK - 1; i++)
		k[i] = (uint8_t)(k[i] << 1 | k[i + 1] >> 7);
	k[BLOCK - 1] = (uint8_t)(k[BLOCK - 1] << 1 ^ (0x87 & -carry));
}

TPM_RC crypto_cmac_start(struct crypto_cmac_ctx *ctx, const uint8_t *key, size_t keylen)
{
	if (keylen != 16 && keylen != 24 && keylen != 32)
		return TPM_RC_KEY_SIZE;
	memset(ctx, 0, sizeof(*ctx));
	memcpy(ctx->key, key, keylen);
	ctx->keylen = (uint8_t)keylen;
	return TPM_RC_SUCCESS;
}

static TPM_RC absorb(struct crypto_cmac_ctx *ctx)
{
	for (size_t i = 0; i < BLOCK; i++)
		ctx->x[i] ^= ctx->buf[i];
	ctx->n = 0;
	return encrypt_block(ctx, ctx->x, ctx->x);
}

TPM_RC crypto_cmac_update(struct crypto_cmac_ctx *ctx, const void *data, size_t len)
{
	const uint8_t *p = data;

	while (len > 0) {
		size_t take;

		/* a full block waits until more data shows it is not the last */
		if (ctx->n == BLOCK) {
			TPM_RC rc = absorb(ctx);

			if (rc != TPM_RC_SUCCESS)
				return rc;
		}
		take = BLOCK - ctx->n < len ? BLOCK - ctx->n : len;
		memcpy(ctx->buf + ctx->n, p, take);
		ctx->n = (uint8_t)(ctx->n + take);
		p += take;
		len -= take;
	}
	return TPM_RC_SUCCESS;
}

TPM_RC crypto_cmac_finish(struct crypto_cmac_ctx *ctx, uint8_t out[CRYPTO_CMAC_SIZE])
{
	uint8_t k[BLOCK] = { 0 };
	TPM_RC rc = encrypt_block(ctx, k, k);

	if (rc == TPM_RC_SUCCESS) {
		dbl(k); /* K1 */
		if (ctx->n < BLOCK) {
			dbl(k); /* K2, and the 10* padding */
			ctx->buf[ctx->n] = 0x80;
			memset(ctx->buf + ctx->n + 1, 0, BLOCK - ctx->n - 1);
		}
		for (size_t i = 0; i < BLOCK; i++)
			ctx->buf[i] ^= k[i];
		rc = absorb(ctx);
	}
	if (rc == TPM_RC_SUCCESS)
		memcpy(out, ctx->x, BLOCK);
	crypto_wipe(k, sizeof(k));
	crypto_wipe(ctx, sizeof(*ctx));
	return rc;
}

TPM_RC crypto_cmac(const uint8_t *key, size_t keylen, const void *data, size_t len,
		   uint8_t out[CRYPTO_CMAC_SIZE])
{
	struct crypto_cmac_ctx ctx;
	TPM_RC rc = crypto_cmac_start(&ctx, key, keylen);

	if (rc == TPM_RC_SUCCESS)
		rc = crypto_cmac_update(&ctx, data, len);
	if (rc == TPM_RC_SUCCESS)
		return crypto_cmac_finish(&ctx, out);
	crypto_wipe(&ctx, sizeof(ctx));
	return rc;
}
