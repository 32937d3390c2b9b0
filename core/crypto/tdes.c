/* TDES (SP 800-67) blocks for crypto_sym (block.h), over wolfSSL's des3.c: the key schedule
 * is made for one direction, and ECB over one block runs it. A 16-byte key is two-key TDES,
 * K1 || K2 || K1 given to wolfSSL as three keys. Parity bits are ignored, as DES does.
 * Also the TPM's rules for its TDES keys (parity, weak keys), which need no wolfSSL. */
#include <string.h>

#include "block.h"

/* The weak and semi-weak DES keys (SP 800-67 Rev. 2, §3.3.2), with odd parity */
static const uint8_t weak[16][8] = {
	{ 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01 },
	{ 0xfe, 0xfe, 0xfe, 0xfe, 0xfe, 0xfe, 0xfe, 0xfe },
	{ 0xe0, 0xe0, 0xe0, 0xe0, 0xf1, 0xf1, 0xf1, 0xf1 },
	{ 0x1f, 0x1f, 0x1f, 0x1f, 0x0e, 0x0e, 0x0e, 0x0e },
	{ 0x01, 0x1f, 0x01, 0x1f, 0x01, 0x0e, 0x01, 0x0e },
	{ 0x1f, 0x01, 0x1f, 0x01, 0x0e, 0x01, 0x0e, 0x01 },
	{ 0x01, 0xe0, 0x01, 0xe0, 0x01, 0xf1, 0x01, 0xf1 },
	{ 0xe0, 0x01, 0xe0, 0x01, 0xf1, 0x01, 0xf1, 0x01 },
	{ 0x01, 0xfe, 0x01, 0xfe, 0x01, 0xfe, 0x01, 0xfe },
	{ 0xfe, 0x01, 0xfe, 0x01, 0xfe, 0x01, 0xfe, 0x01 },
	{ 0x1f, 0xe0, 0x1f, 0xe0, 0x0e, 0xf1, 0x0e, 0xf1 },
	{ 0xe0, 0x1f, 0xe0, 0x1f, 0xf1, 0x0e, 0xf1, 0x0e },
	{ 0x1f, 0xfe, 0x1f, 0xfe, 0x0e, 0xfe, 0x0e, 0xfe },
	{ 0xfe, 0x1f, 0xfe, 0x1f, 0xfe, 0x0e, 0xfe, 0x0e },
	{ 0xe0, 0xfe, 0xe0, 0xfe, 0xf1, 0xfe, 0xf1, 0xfe },
	{ 0xfe, 0xe0, 0xfe, 0xe0, 0xfe, 0xf1, 0xfe, 0xf1 },
};

/* b with its low bit set so that the byte has an odd number of ones */
static uint8_t odd_parity(uint8_t b)
{
	uint8_t p = b >> 1;

	p ^= p >> 4;
	p ^= p >> 2;
	p ^= p >> 1;
	return (uint8_t)((b & 0xfe) | (~p & 1));
}

void crypto_tdes_set_parity(uint8_t *key, size_t len)
{
	for (size_t i = 0; i < len; i++)
		key[i] = odd_parity(key[i]);
}

bool crypto_tdes_key_ok(const uint8_t *key, size_t len)
{
	uint8_t k[24];
	bool ok = len == 16 || len == 24;

	if (!ok)
		return false;
	memcpy(k, key, len);
	crypto_tdes_set_parity(k, len);
	for (size_t i = 0; i < len; i += 8)
		for (size_t w = 0; w < 16; w++)
			ok &= memcmp(k + i, weak[w], 8) != 0;
	ok &= memcmp(k, k + 8, 8) != 0;
	if (len == 24)
		ok &= memcmp(k + 8, k + 16, 8) != 0;
	crypto_wipe(k, sizeof(k));
	return ok;
}

#ifdef CRYPTO_HAVE_TDES

static int tdes_block(struct crypto_block *b, uint8_t *out, const uint8_t *in)
{
	return wc_Des3_EcbEncrypt(&b->k.des3, out, in, DES_BLOCK_SIZE);
}

TPM_RC crypto_block_tdes(struct crypto_block *b, const uint8_t *key, size_t keylen,
			 bool inverse)
{
	uint8_t k3[DES3_KEY_SIZE];
	int rc;

	memset(b, 0, sizeof(*b));
	if (keylen != 16 && keylen != 24)
		return TPM_RC_KEY_SIZE;
	if (wc_Des3Init(&b->k.des3, NULL, INVALID_DEVID) != 0)
		return TPM_RC_FAILURE;
	b->alg = TPM_ALG_TDES;
	b->size = DES_BLOCK_SIZE;
	b->inverse = inverse;
	b->crypt = tdes_block;
	memcpy(k3, key, keylen);
	if (keylen == 16)
		memcpy(k3 + 16, key, 8);
	rc = wc_Des3_SetKey(&b->k.des3, k3, NULL, inverse ? DES_DECRYPTION : DES_ENCRYPTION);
	crypto_wipe(k3, sizeof(k3));
	return rc == 0 ? TPM_RC_SUCCESS : TPM_RC_FAILURE;
}

#endif
