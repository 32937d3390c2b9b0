/* SHA-1/256/384/512 over wolfSSL. The wolfSSL contexts live inside struct crypto_hash_ctx and
 * hold no pointer that matters (heap and devCtx stay NULL), so a context survives memcpy, which
 * is how sequence objects are context-saved. */
#include <string.h>

#include "wolf.h"

#define STATE_FITS(type)                                                                   \
	_Static_assert(sizeof(type) <= sizeof(((struct crypto_hash_ctx *)0)->state) &&     \
			       _Alignof(type) <= 16,                                       \
		       #type " does not fit struct crypto_hash_ctx")
STATE_FITS(wc_Sha);
STATE_FITS(wc_Sha256);
STATE_FITS(wc_Sha384);
STATE_FITS(wc_Sha512);

size_t crypto_hash_size(TPM_ALG_ID alg)
{
	switch (alg) {
	case TPM_ALG_SHA1:
		return WC_SHA_DIGEST_SIZE;
	case TPM_ALG_SHA256:
		return WC_SHA256_DIGEST_SIZE;
	case TPM_ALG_SHA384:
		return WC_SHA384_DIGEST_SIZE;
	case TPM_ALG_SHA512:
		return WC_SHA512_DIGEST_SIZE;
	default:
		return 0;
	}
}

size_t crypto_hash_block(TPM_ALG_ID alg)
{
	switch (alg) {
	case TPM_ALG_SHA1:
		return WC_SHA_BLOCK_SIZE;
	case TPM_ALG_SHA256:
		return WC_SHA256_BLOCK_SIZE;
	case TPM_ALG_SHA384:
		return WC_SHA384_BLOCK_SIZE;
	case TPM_ALG_SHA512:
		return WC_SHA512_BLOCK_SIZE;
	default:
		return 0;
	}
}

TPM_RC crypto_hash_start(struct crypto_hash_ctx *ctx, TPM_ALG_ID alg)
{
	void *st = ctx->state;
	int rc;

	switch (alg) {
	case TPM_ALG_SHA1:
		rc = wc_InitSha_ex(st, NULL, INVALID_DEVID);
		break;
	case TPM_ALG_SHA256:
		rc = wc_InitSha256_ex(st, NULL, INVALID_DEVID);
		break;
	case TPM_ALG_SHA384:
		rc = wc_InitSha384_ex(st, NULL, INVALID_DEVID);
		break;
	case TPM_ALG_SHA512:
		rc = wc_InitSha512_ex(st, NULL, INVALID_DEVID);
		break;
	default:
		return TPM_RC_HASH;
	}
	ctx->alg = alg;
	return rc == 0 ? TPM_RC_SUCCESS : TPM_RC_FAILURE;
}

/* wolfSSL takes word32 lengths. */
#define UPDATE_CHUNK ((size_t)1 << 30)

TPM_RC crypto_hash_update(struct crypto_hash_ctx *ctx, const void *data, size_t len)
{
	const uint8_t *p = data;
	void *st = ctx->state;

	while (len) {
		word32 n = (word32)(len < UPDATE_CHUNK ? len : UPDATE_CHUNK);
		int rc;

		switch (ctx->alg) {
		case TPM_ALG_SHA1:
			rc = wc_ShaUpdate(st, p, n);
			break;
		case TPM_ALG_SHA256:
			rc = wc_Sha256Update(st, p, n);
			break;
		case TPM_ALG_SHA384:
			rc = wc_Sha384Update(st, p, n);
			break;
		case TPM_ALG_SHA512:
			rc = wc_Sha512Update(st, p, n);
			break;
		default:
			return TPM_RC_HASH;
		}
		if (rc != 0)
			return TPM_RC_FAILURE;
		p += n;
		len -= n;
	}
	return TPM_RC_SUCCESS;
}

TPM_RC crypto_hash_finish(struct crypto_hash_ctx *ctx, uint8_t *out)
{
	void *st = ctx->state;
	int wrc;

	switch (ctx->alg) {
	case TPM_ALG_SHA1:
		wrc = wc_ShaFinal(st, out);
		wc_ShaFree(st);
		break;
	case TPM_ALG_SHA256:
		wrc = wc_Sha256Final(st, out);
		wc_Sha256Free(st);
		break;
	case TPM_ALG_SHA384:
		wrc = wc_Sha384Final(st, out);
		wc_Sha384Free(st);
		break;
	case TPM_ALG_SHA512:
		wrc = wc_Sha512Final(st, out);
		wc_Sha512Free(st);
		break;
	default:
		crypto_wipe(ctx, sizeof(*ctx));
		return TPM_RC_HASH;
	}
	crypto_wipe(ctx, sizeof(*ctx));
	return wrc == 0 ? TPM_RC_SUCCESS : TPM_RC_FAILURE;
}

TPM_RC crypto_hash(TPM_ALG_ID alg, const void *data, size_t len, uint8_t *out)
{
	struct crypto_hash_ctx ctx;
	TPM_RC rc;

	rc = crypto_hash_start(&ctx, alg);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hash_update(&ctx, data, len);
	if (rc == TPM_RC_SUCCESS)
		return crypto_hash_finish(&ctx, out);
	crypto_wipe(&ctx, sizeof(ctx));
	return rc;
}
