/* Private to core/crypto: one block cipher keyed for one call of crypto_sym (sym.c, which runs
 * the TPM's modes over it). Each algorithm's file keys it in one direction: forward, or
 * inverse for the CBC and ECB decryptions, the only modes that run the cipher backwards.
 * Camellia and TDES are there when the wolfSSL built against has them (Debian's package has
 * both; scripts/build-wolfssl-sp.sh enables them): CRYPTO_HAVE_CAMELLIA, CRYPTO_HAVE_TDES. */
#ifndef PQTPM_CRYPTO_BLOCK_H
#define PQTPM_CRYPTO_BLOCK_H

#include "wolf.h"

#ifdef HAVE_CAMELLIA
#define CRYPTO_HAVE_CAMELLIA 1
#endif
#if !defined(NO_DES3) && defined(WOLFSSL_DES_ECB) /* one block at a time through ECB */
#define CRYPTO_HAVE_TDES 1
#endif

struct crypto_block {
	TPM_ALG_ID alg;
	size_t size; /* bytes per block: 16, TDES 8 */
	int (*crypt)(struct crypto_block *b, uint8_t *out, const uint8_t *in);
	bool inverse;
	union {
		Aes aes;
#ifdef CRYPTO_HAVE_CAMELLIA
		Camellia camellia;
#endif
#ifdef CRYPTO_HAVE_TDES
		Des3 des3;
#endif
	} k;
};

/* TPM_RC_KEY_SIZE for a key length the cipher does not take. */
TPM_RC crypto_block_aes(struct crypto_block *b, const uint8_t *key, size_t keylen, bool inverse);
#ifdef CRYPTO_HAVE_CAMELLIA
TPM_RC crypto_block_camellia(struct crypto_block *b, const uint8_t *key, size_t keylen,
			     bool inverse);
#endif
#ifdef CRYPTO_HAVE_TDES
/* 16 bytes: two-key TDES (K1, K2, K1); 24 bytes: three keys (SP 800-67 keying options 2, 1). */
TPM_RC crypto_block_tdes(struct crypto_block *b, const uint8_t *key, size_t keylen,
			 bool inverse);
#endif
/* Frees what the keying took and wipes the key schedule. */
void crypto_block_done(struct crypto_block *b);

#endif
