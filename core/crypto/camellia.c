/* Camellia blocks for crypto_sym (block.h), over wolfSSL's camellia.c (RFC 3713): 128-, 192-
 * and 256-bit keys, one key schedule for both directions. */
#include <string.h>

#include "block.h"

#ifdef CRYPTO_HAVE_CAMELLIA

static int camellia_forward(struct crypto_block *b, uint8_t *out, const uint8_t *in)
{
	return wc_CamelliaEncryptDirect(&b->k.camellia, out, in);
}

static int camellia_inverse(struct crypto_block *b, uint8_t *out, const uint8_t *in)
{
	return wc_CamelliaDecryptDirect(&b->k.camellia, out, in);
}

TPM_RC crypto_block_camellia(struct crypto_block *b, const uint8_t *key, size_t keylen,
			     bool inverse)
{
	memset(b, 0, sizeof(*b));
	if (keylen != 16 && keylen != 24 && keylen != 32)
		return TPM_RC_KEY_SIZE;
	b->alg = TPM_ALG_CAMELLIA;
	b->size = CAMELLIA_BLOCK_SIZE;
	b->inverse = inverse;
	b->crypt = inverse ? camellia_inverse : camellia_forward;
	if (wc_CamelliaSetKey(&b->k.camellia, key, (word32)keylen, NULL) != 0)
		return TPM_RC_FAILURE;
	return TPM_RC_SUCCESS;
}

#endif
