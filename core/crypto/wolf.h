/* Private to core/crypto: the only header that pulls in wolfSSL (options.h must come first so
 * that struct layouts match Debian's build of the library), plus helpers the crypto files share. */
#ifndef PQTPM_CRYPTO_WOLF_H
#define PQTPM_CRYPTO_WOLF_H

#include <wolfssl/options.h>
#include <wolfssl/wolfcrypt/settings.h>
#include <wolfssl/wolfcrypt/aes.h>
#include <wolfssl/wolfcrypt/asn_public.h>
#include <wolfssl/wolfcrypt/camellia.h>
#include <wolfssl/wolfcrypt/des3.h>
#include <wolfssl/wolfcrypt/ecc.h>
#include <wolfssl/wolfcrypt/error-crypt.h>
#include <wolfssl/wolfcrypt/hash.h>
#include <wolfssl/wolfcrypt/random.h>
#include <wolfssl/wolfcrypt/rsa.h>
#include <wolfssl/wolfcrypt/sha.h>
#include <wolfssl/wolfcrypt/sha256.h>
#include <wolfssl/wolfcrypt/sha512.h>
#ifdef WOLFSSL_HAVE_SP_ECC /* the SP build; Debian's package has no sp.h */
#include <wolfssl/wolfcrypt/sp.h>
#endif
#include <wolfssl/wolfcrypt/wolfmath.h>

#include "crypto.h"

/* The calling thread's DRBG for wolfSSL calls that need one (blinding, ECDSA k, OAEP seeds,
 * PSS salts): its own, so no lock (rng.c); NULL if it could not be seeded. */
WC_RNG *crypto_wolf_rng(void);

/* RSA keys as wolfSSL wants them, built from n, e and (for private keys) p; rsa_key.c.
 * crypto_rsa_unload frees and wipes, also after a failed load. */
TPM_RC crypto_rsa_load(RsaKey *key, const struct crypto_rsa *rsa);
void crypto_rsa_unload(RsaKey *key);
size_t crypto_rsa_modulus_bits(const struct crypto_rsa *rsa);
/* The private key of rsa for one operation: an idle one of cache built from the same n, e and
 * p (taken out: no other thread uses it meanwhile); else built, into a new cache entry when
 * cache is not NULL, or into *tmp. TPM_RC_KEY without p; load errors as crypto_rsa_load.
 * Afterwards, also after an error, crypto_rsa_private_done(cache, tmp, *out) gives an entry
 * back to the cache or unloads *tmp. */
TPM_RC crypto_rsa_private(const struct crypto_rsa *rsa, struct crypto_rsa_cache *cache,
			  RsaKey *tmp, RsaKey **out);
void crypto_rsa_private_done(struct crypto_rsa_cache *cache, RsaKey *tmp, RsaKey *used);

/* EMSA-PSS verification accepting any salt length (rsa_pss.c): em is the result of the public
 * operation on the signature, nlen bytes. */
TPM_RC crypto_rsa_pss_check(TPM_ALG_ID hash, const uint8_t *digest, size_t dlen,
			    const uint8_t *em, size_t nlen, size_t modbits);

static inline void crypto_put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

#endif
