/* AES in the TPM's modes, built on wolfSSL's single-block AES so that the iv carried between
 * calls is exactly what the TPM reference implementation (CryptSymmetricEncrypt/Decrypt) leaves
 * in ivOut:
 *   CBC  the last ciphertext block;
 *   CFB  the last ciphertext block; after a partial final block, the ciphertext bytes of that
 *        block followed by zeros (so a chained call continues as the reference does, not as a
 *        byte-offset CFB128 would);
 *   OFB  the last keystream block;
 *   CTR  the next counter (128-bit big-endian increment, also after a partial block);
 *   ECB  untouched.
 * in and out may be the same buffer. */
#include <string.h>

#include "wolf.h"

#define B CRYPTO_AES_BLOCK

static void xor_into(uint8_t *out, const uint8_t *a, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		out[i] = a[i] ^ b[i];
}

static int cfb_encrypt(Aes *aes, uint8_t *iv, const uint8_t *in, uint8_t *out, size_t len)
{
	for (size_t off = 0; off < len; off += B) {
		size_t n = len - off < B ? len - off : B;

		if (wc_AesEncryptDirect(aes, iv, iv) != 0)
			return -1;
		xor_into(iv, iv, in + off, n);
		memcpy(out + off, iv, n);
		memset(iv + n, 0, B - n);
	}
	return 0;
}

static int cfb_decrypt(Aes *aes, uint8_t *iv, const uint8_t *in, uint8_t *out, size_t len)
{
	uint8_t ks[B];

	for (size_t off = 0; off < len; off += B) {
		size_t n = len - off < B ? len - off : B;

		if (wc_AesEncryptDirect(aes, ks, iv) != 0)
			return -1;
		memcpy(iv, in + off, n);
		memset(iv + n, 0, B - n);
		xor_into(out + off, iv, ks, n);
	}
	crypto_wipe(ks, sizeof(ks));
	return 0;
}

static int ofb(Aes *aes, uint8_t *iv, const uint8_t *in, uint8_t *out, size_t len)
{
	for (size_t off = 0; off < len; off += B) {
		size_t n = len - off < B ? len - off : B;

		if (wc_AesEncryptDirect(aes, iv, iv) != 0)
			return -1;
		xor_into(out + off, in + off, iv, n);
	}
	return 0;
}

static int ctr(Aes *aes, uint8_t *iv, const uint8_t *in, uint8_t *out, size_t len)
{
	uint8_t ks[B];

	for (size_t off = 0; off < len; off += B) {
		size_t n = len - off < B ? len - off : B;

		if (wc_AesEncryptDirect(aes, ks, iv) != 0)
			return -1;
		for (int i = B - 1; i >= 0 && ++iv[i] == 0; i--)
			;
		xor_into(out + off, in + off, ks, n);
	}
	crypto_wipe(ks, sizeof(ks));
	return 0;
}

static int cbc_encrypt(Aes *aes, uint8_t *iv, const uint8_t *in, uint8_t *out, size_t len)
{
	for (size_t off = 0; off < len; off += B) {
		xor_into(iv, iv, in + off, B);
		if (wc_AesEncryptDirect(aes, iv, iv) != 0)
			return -1;
		memcpy(out + off, iv, B);
	}
	return 0;
}

static int cbc_decrypt(Aes *aes, uint8_t *iv, const uint8_t *in, uint8_t *out, size_t len)
{
	uint8_t c[B], p[B];

	for (size_t off = 0; off < len; off += B) {
		memcpy(c, in + off, B);
		if (wc_AesDecryptDirect(aes, p, c) != 0)
			return -1;
		xor_into(out + off, p, iv, B);
		memcpy(iv, c, B);
	}
	crypto_wipe(p, sizeof(p));
	return 0;
}

static int ecb(Aes *aes, bool encrypt, const uint8_t *in, uint8_t *out, size_t len)
{
	for (size_t off = 0; off < len; off += B) {
		int rc = encrypt ? wc_AesEncryptDirect(aes, out + off, in + off) :
				   wc_AesDecryptDirect(aes, out + off, in + off);
		if (rc != 0)
			return -1;
	}
	return 0;
}

TPM_RC crypto_aes(TPM_ALG_ID mode, bool encrypt, const uint8_t *key, size_t keylen,
		  uint8_t *iv, const uint8_t *in, uint8_t *out, size_t len)
{
	bool block_mode = mode == TPM_ALG_CBC || mode == TPM_ALG_ECB;
	int dir = block_mode && !encrypt ? AES_DECRYPTION : AES_ENCRYPTION;
	Aes aes;
	int rc;

	if (keylen != 16 && keylen != 24 && keylen != 32)
		return TPM_RC_KEY_SIZE;
	if (mode != TPM_ALG_CFB && mode != TPM_ALG_OFB && mode != TPM_ALG_CTR && !block_mode)
		return TPM_RC_MODE;
	if (block_mode && len % B)
		return TPM_RC_SIZE;
	if (!iv && mode != TPM_ALG_ECB)
		return TPM_RC_VALUE;
	if (len == 0)
		return TPM_RC_SUCCESS;

	if (wc_AesInit(&aes, NULL, INVALID_DEVID) != 0)
		return TPM_RC_FAILURE;
	rc = wc_AesSetKey(&aes, key, (word32)keylen, NULL, dir);
	if (rc == 0) {
		switch (mode) {
		case TPM_ALG_CFB:
			rc = encrypt ? cfb_encrypt(&aes, iv, in, out, len) :
				       cfb_decrypt(&aes, iv, in, out, len);
			break;
		case TPM_ALG_OFB:
			rc = ofb(&aes, iv, in, out, len);
			break;
		case TPM_ALG_CTR:
			rc = ctr(&aes, iv, in, out, len);
			break;
		case TPM_ALG_CBC:
			rc = encrypt ? cbc_encrypt(&aes, iv, in, out, len) :
				       cbc_decrypt(&aes, iv, in, out, len);
			break;
		default:
			rc = ecb(&aes, encrypt, in, out, len);
			break;
		}
	}
	wc_AesFree(&aes);
	crypto_wipe(&aes, sizeof(aes));
	return rc == 0 ? TPM_RC_SUCCESS : TPM_RC_FAILURE;
}
