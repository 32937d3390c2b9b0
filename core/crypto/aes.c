/* AES blocks for crypto_sym (block.h), over wolfSSL's single-block AES (AES-NI when the CPU
 * has it). */
#include <string.h>

#include "block.h"

static int aes_forward(struct crypto_block *b, uint8_t *out, const uint8_t *in)
{
	return wc_AesEncryptDirect(&b->k.aes, out, in);
}

static int aes_inverse(struct crypto_block *b, uint8_t *out, const uint8_t *in)
{
	return wc_AesDecryptDirect(&b->k.aes, out, in);
}

TPM_RC crypto_block_aes(struct crypto_block *b, const uint8_t *key, size_t keylen, bool inverse)
{
	memset(b, 0, sizeof(*b));
	if (keylen != 16 && keylen != 24 && keylen != 32)
		return TPM_RC_KEY_SIZE;
	if (wc_AesInit(&b->k.aes, NULL, INVALID_DEVID) != 0)
		return TPM_RC_FAILURE;
	b->alg = TPM_ALG_AES;
	b->size = CRYPTO_AES_BLOCK;
	b->inverse = inverse;
	b->crypt = inverse ? aes_inverse : aes_forward;
	if (wc_AesSetKey(&b->k.aes, key, (word32)keylen, NULL,
			 inverse ? AES_DECRYPTION : AES_ENCRYPTION) != 0)
		return TPM_RC_FAILURE;
	return TPM_RC_SUCCESS;
}
