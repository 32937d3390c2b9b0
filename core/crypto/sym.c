/* The TPM's block-cipher modes over any block cipher (block.h: AES, Camellia, TDES), leaving
 * in the iv exactly what the TPM reference implementation (CryptSymmetricEncrypt/Decrypt)
 * leaves in ivOut, so that calls chain as TPM2_EncryptDecrypt's ivOut says:
 *   CBC  the last ciphertext block;
 *   CFB  the last ciphertext block; after a partial final block, the ciphertext bytes of that
 *        block followed by zeros (so a chained call continues as the reference does, not as a
 *        byte-offset CFB would);
 *   OFB  the last keystream block;
 *   CTR  the next counter (big-endian increment of the whole block, also after a partial
 *        block);
 *   ECB  untouched.
 * in and out may be the same buffer. */
#include <string.h>

#include "block.h"

static void xor_into(uint8_t *out, const uint8_t *a, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		out[i] = a[i] ^ b[i];
}

static int cfb_encrypt(struct crypto_block *b, uint8_t *iv, const uint8_t *in, uint8_t *out,
		       size_t len)
{
	size_t bs = b->size;

	for (size_t off = 0; off < len; off += bs) {
		size_t n = len - off < bs ? len - off : bs;

		if (b->crypt(b, iv, iv) != 0)
			return -1;
		xor_into(iv, iv, in + off, n);
		memcpy(out + off, iv, n);
		memset(iv + n, 0, bs - n);
	}
	return 0;
}

static int cfb_decrypt(struct crypto_block *b, uint8_t *iv, const uint8_t *in, uint8_t *out,
		       size_t len)
{
	uint8_t ks[CRYPTO_MAX_SYM_BLOCK];
	size_t bs = b->size;

	for (size_t off = 0; off < len; off += bs) {
		size_t n = len - off < bs ? len - off : bs;

		if (b->crypt(b, ks, iv) != 0)
			return -1;
		memcpy(iv, in + off, n);
		memset(iv + n, 0, bs - n);
		xor_into(out + off, iv, ks, n);
	}
	crypto_wipe(ks, sizeof(ks));
	return 0;
}

static int ofb(struct crypto_block *b, uint8_t *iv, const uint8_t *in, uint8_t *out, size_t len)
{
	size_t bs = b->size;

	for (size_t off = 0; off < len; off += bs) {
		size_t n = len - off < bs ? len - off : bs;

		if (b->crypt(b, iv, iv) != 0)
			return -1;
		xor_into(out + off, in + off, iv, n);
	}
	return 0;
}

static int ctr(struct crypto_block *b, uint8_t *iv, const uint8_t *in, uint8_t *out, size_t len)
{
	uint8_t ks[CRYPTO_MAX_SYM_BLOCK];
	size_t bs = b->size;

	for (size_t off = 0; off < len; off += bs) {
		size_t n = len - off < bs ? len - off : bs;

		if (b->crypt(b, ks, iv) != 0)
			return -1;
		for (size_t i = bs; i-- > 0 && ++iv[i] == 0;)
			;
		xor_into(out + off, in + off, ks, n);
	}
	crypto_wipe(ks, sizeof(ks));
	return 0;
}

static int cbc_encrypt(struct crypto_block *b, uint8_t *iv, const uint8_t *in, uint8_t *out,
		       size_t len)
{
	for (size_t off = 0; off < len; off += b->size) {
		xor_into(iv, iv, in + off, b->size);
		if (b->crypt(b, iv, iv) != 0)
			return -1;
		memcpy(out + off, iv, b->size);
	}
	return 0;
}

static int cbc_decrypt(struct crypto_block *b, uint8_t *iv, const uint8_t *in, uint8_t *out,
		       size_t len)
{
	uint8_t c[CRYPTO_MAX_SYM_BLOCK], p[CRYPTO_MAX_SYM_BLOCK];

	for (size_t off = 0; off < len; off += b->size) {
		memcpy(c, in + off, b->size);
		if (b->crypt(b, p, c) != 0)
			return -1;
		xor_into(out + off, p, iv, b->size);
		memcpy(iv, c, b->size);
	}
	crypto_wipe(p, sizeof(p));
	return 0;
}

static int ecb(struct crypto_block *b, const uint8_t *in, uint8_t *out, size_t len)
{
	for (size_t off = 0; off < len; off += b->size)
		if (b->crypt(b, out + off, in + off) != 0)
			return -1;
	return 0;
}

size_t crypto_sym_block(TPM_ALG_ID alg)
{
	switch (alg) {
	case TPM_ALG_AES:
		return CRYPTO_AES_BLOCK;
#ifdef CRYPTO_HAVE_CAMELLIA
	case TPM_ALG_CAMELLIA:
		return CAMELLIA_BLOCK_SIZE;
#endif
#ifdef CRYPTO_HAVE_TDES
	case TPM_ALG_TDES:
		return DES_BLOCK_SIZE;
#endif
	default:
		return 0;
	}
}

bool crypto_sym_supported(TPM_ALG_ID alg, uint16_t key_bits)
{
	switch (alg) {
	case TPM_ALG_AES:
	case TPM_ALG_CAMELLIA:
		return crypto_sym_block(alg) != 0 &&
		       (key_bits == 128 || key_bits == 192 || key_bits == 256);
	case TPM_ALG_TDES:
		return crypto_sym_block(alg) != 0 && (key_bits == 128 || key_bits == 192);
	default:
		return false;
	}
}

static TPM_RC key_block(struct crypto_block *b, TPM_ALG_ID alg, const uint8_t *key,
			size_t keylen, bool inverse)
{
	switch (alg) {
	case TPM_ALG_AES:
		return crypto_block_aes(b, key, keylen, inverse);
#ifdef CRYPTO_HAVE_CAMELLIA
	case TPM_ALG_CAMELLIA:
		return crypto_block_camellia(b, key, keylen, inverse);
#endif
#ifdef CRYPTO_HAVE_TDES
	case TPM_ALG_TDES:
		return crypto_block_tdes(b, key, keylen, inverse);
#endif
	default:
		memset(b, 0, sizeof(*b));
		return TPM_RC_SYMMETRIC;
	}
}

void crypto_block_done(struct crypto_block *b)
{
	if (b->alg == TPM_ALG_AES)
		wc_AesFree(&b->k.aes);
#ifdef CRYPTO_HAVE_TDES
	if (b->alg == TPM_ALG_TDES)
		wc_Des3Free(&b->k.des3);
#endif
	crypto_wipe(b, sizeof(*b));
}

TPM_RC crypto_sym(TPM_ALG_ID alg, TPM_ALG_ID mode, bool encrypt, const uint8_t *key,
		  size_t keylen, uint8_t *iv, const uint8_t *in, uint8_t *out, size_t len)
{
	bool block_mode = mode == TPM_ALG_CBC || mode == TPM_ALG_ECB;
	size_t bs = crypto_sym_block(alg);
	struct crypto_block b;
	TPM_RC rc;
	int r;

	if (bs == 0)
		return TPM_RC_SYMMETRIC;
	rc = key_block(&b, alg, key, keylen, block_mode && !encrypt);
	if (rc != TPM_RC_SUCCESS) {
		crypto_block_done(&b);
		return rc;
	}
	if (mode != TPM_ALG_CFB && mode != TPM_ALG_OFB && mode != TPM_ALG_CTR && !block_mode) {
		rc = TPM_RC_MODE;
	} else if (block_mode && len % bs) {
		rc = TPM_RC_SIZE;
	} else if (!iv && mode != TPM_ALG_ECB) {
		rc = TPM_RC_VALUE;
	} else if (len > 0) {
		switch (mode) {
		case TPM_ALG_CFB:
			r = encrypt ? cfb_encrypt(&b, iv, in, out, len) :
				      cfb_decrypt(&b, iv, in, out, len);
			break;
		case TPM_ALG_OFB:
			r = ofb(&b, iv, in, out, len);
			break;
		case TPM_ALG_CTR:
			r = ctr(&b, iv, in, out, len);
			break;
		case TPM_ALG_CBC:
			r = encrypt ? cbc_encrypt(&b, iv, in, out, len) :
				      cbc_decrypt(&b, iv, in, out, len);
			break;
		default:
			r = ecb(&b, in, out, len);
			break;
		}
		rc = r == 0 ? TPM_RC_SUCCESS : TPM_RC_FAILURE;
	}
	crypto_block_done(&b);
	return rc;
}

TPM_RC crypto_aes(TPM_ALG_ID mode, bool encrypt, const uint8_t *key, size_t keylen,
		  uint8_t *iv, const uint8_t *in, uint8_t *out, size_t len)
{
	return crypto_sym(TPM_ALG_AES, mode, encrypt, key, keylen, iv, in, out, len);
}
