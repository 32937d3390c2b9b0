/* A deterministic random stream for primary objects: block i = HMAC(seed, [i]32 || ctx) with
 * ctx = label || 0x00 || ctx_u || ctx_v, i = 1, 2 ... Read in any pieces, the stream is the
 * same. */
#include <string.h>

#include "wolf.h"

/* The next block into k->block. */
static TPM_RC next_block(struct crypto_kdf_rng *k)
{
	struct crypto_hmac_ctx h;
	uint8_t counter[4];
	TPM_RC rc;

	if (k->counter == UINT32_MAX)
		return TPM_RC_FAILURE;
	crypto_put_be32(counter, ++k->counter);
	rc = crypto_hmac_start(&h, k->hash, k->key, k->keylen);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hmac_update(&h, counter, sizeof(counter));
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hmac_update(&h, k->ctx, k->ctxlen);
	if (rc == TPM_RC_SUCCESS)
		return crypto_hmac_finish(&h, k->block);
	crypto_wipe(&h, sizeof(h));
	return rc;
}

static TPM_RC kdf_rng_read(struct crypto_rng *rng, uint8_t *out, size_t len)
{
	struct crypto_kdf_rng *k = (struct crypto_kdf_rng *)rng; /* rng is its first member */
	size_t dsize = crypto_hash_size(k->hash);

	while (len) {
		if (k->avail == 0) {
			TPM_RC rc = next_block(k);

			if (rc != TPM_RC_SUCCESS)
				return rc;
			k->avail = dsize;
		}
		size_t n = len < k->avail ? len : k->avail;

		memcpy(out, k->block + dsize - k->avail, n);
		k->avail -= n;
		out += n;
		len -= n;
	}
	return TPM_RC_SUCCESS;
}

TPM_RC crypto_kdf_rng_init(struct crypto_kdf_rng *k, TPM_ALG_ID hash, const uint8_t *seed,
			   size_t seedlen, const char *label, const uint8_t *ctx_u, size_t ulen,
			   const uint8_t *ctx_v, size_t vlen)
{
	size_t llen;

	if (!label)
		label = "";
	llen = strlen(label) + 1;
	memset(k, 0, sizeof(*k));
	if (crypto_hash_size(hash) == 0)
		return TPM_RC_HASH;
	if (seedlen > sizeof(k->key) || llen > sizeof(k->ctx) || ulen > sizeof(k->ctx) - llen ||
	    vlen > sizeof(k->ctx) - llen - ulen)
		return TPM_RC_SIZE;

	k->rng.read = kdf_rng_read;
	k->hash = hash;
	if (seedlen)
		memcpy(k->key, seed, seedlen);
	k->keylen = seedlen;
	memcpy(k->ctx, label, llen);
	if (ulen)
		memcpy(k->ctx + llen, ctx_u, ulen);
	if (vlen)
		memcpy(k->ctx + llen + ulen, ctx_v, vlen);
	k->ctxlen = llen + ulen + vlen;
	return TPM_RC_SUCCESS;
}

void crypto_kdf_rng_wipe(struct crypto_kdf_rng *k)
{
	crypto_wipe(k, sizeof(*k));
}
