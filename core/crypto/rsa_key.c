/* wolfSSL RSA keys from what the TPM keeps: n, e and, for a private key, one prime p.
 * Debian's wolfSSL has no wc_RsaPrivateKeyDecodeRaw, so this computes q = n / p, d, dP, dQ and
 * qInv itself and sets them in the key's mp_int fields, which is what that function does.
 * That costs a division and two inversions (~60 us for RSA-2048), so a loaded key keeps the
 * result (crypto_rsa_sign_cached, crypto_rsa_decrypt_cached) for its next private operation. */
#include <stdlib.h>
#include <string.h>

#include "wolf.h"

#define DEFAULT_EXPONENT 65537
#define MIN_MODULUS_BYTES 128 /* 1024 bits */

/* For a key that loaded, whose first octet is not zero. */
size_t crypto_rsa_modulus_bits(const struct crypto_rsa *rsa)
{
	size_t bits = rsa->nlen * 8;

	for (unsigned top = rsa->n[0]; top && top < 0x80; top <<= 1)
		bits--;
	return bits;
}

/* q = n / p must divide exactly and e must be invertible: else p does not belong to n. */
static TPM_RC complete_private(RsaKey *key, const uint8_t *p, size_t plen)
{
	mp_int rem, p1, q1, phi;
	TPM_RC rc = TPM_RC_SUCCESS;

	if (mp_init_multi(&rem, &p1, &q1, &phi, NULL, NULL) != MP_OKAY)
		return TPM_RC_FAILURE;
	if (mp_read_unsigned_bin(&key->p, p, (word32)plen) != MP_OKAY)
		rc = TPM_RC_FAILURE;
	else if (mp_cmp_d(&key->p, 1) != MP_GT)
		rc = TPM_RC_BINDING;
	else if (mp_div(&key->n, &key->p, &key->q, &rem) != MP_OKAY)
		rc = TPM_RC_FAILURE;
	else if (!mp_iszero(&rem) || mp_cmp_d(&key->q, 1) != MP_GT)
		rc = TPM_RC_BINDING;
	else if (mp_sub_d(&key->p, 1, &p1) != MP_OKAY || mp_sub_d(&key->q, 1, &q1) != MP_OKAY ||
		 mp_mul(&p1, &q1, &phi) != MP_OKAY)
		rc = TPM_RC_FAILURE;
	else if (mp_invmod(&key->e, &phi, &key->d) != MP_OKAY ||
		 mp_invmod(&key->q, &key->p, &key->u) != MP_OKAY)
		rc = TPM_RC_BINDING;
	else if (mp_mod(&key->d, &p1, &key->dP) != MP_OKAY ||
		 mp_mod(&key->d, &q1, &key->dQ) != MP_OKAY)
		rc = TPM_RC_FAILURE;
	else
		key->type = RSA_PRIVATE;
	mp_forcezero(&rem);
	mp_forcezero(&p1);
	mp_forcezero(&q1);
	mp_forcezero(&phi);
	return rc;
}

TPM_RC crypto_rsa_load(RsaKey *key, const struct crypto_rsa *rsa)
{
	uint32_t e = rsa->e ? rsa->e : DEFAULT_EXPONENT;
	uint8_t ebuf[4];

	memset(key, 0, sizeof(*key));
	if (wc_InitRsaKey_ex(key, NULL, INVALID_DEVID) != 0)
		return TPM_RC_FAILURE;
	if (rsa->nlen < MIN_MODULUS_BYTES || rsa->nlen > CRYPTO_MAX_RSA_BYTES)
		return TPM_RC_KEY_SIZE;
	if (rsa->n[0] == 0 || e < 3 || !(e & 1) || (rsa->p && rsa->plen > rsa->nlen))
		return TPM_RC_VALUE;
	crypto_put_be32(ebuf, e);
	if (wc_RsaPublicKeyDecodeRaw(rsa->n, (word32)rsa->nlen, ebuf, sizeof(ebuf), key) != 0)
		return TPM_RC_FAILURE;
	return rsa->p ? complete_private(key, rsa->p, rsa->plen) : TPM_RC_SUCCESS;
}

void crypto_rsa_unload(RsaKey *key)
{
	(void)wc_FreeRsaKey(key); /* only fails for a NULL key */
	crypto_wipe(key, sizeof(*key));
}

/* ---- the private key kept between operations ---- */

struct crypto_rsa_cache {
	RsaKey key;
	/* what it was built from: a key with other values builds its own */
	uint32_t e;
	size_t nlen, plen;
	uint8_t n[CRYPTO_MAX_RSA_BYTES];
	uint8_t p[CRYPTO_MAX_RSA_BYTES];
};

static uint32_t exponent_of(const struct crypto_rsa *rsa)
{
	return rsa->e ? rsa->e : DEFAULT_EXPONENT;
}

static bool cache_matches(const struct crypto_rsa_cache *c, const struct crypto_rsa *rsa)
{
	return c->e == exponent_of(rsa) && c->nlen == rsa->nlen && c->plen == rsa->plen &&
	       memcmp(c->n, rsa->n, rsa->nlen) == 0 && crypto_ct_equal(c->p, rsa->p, rsa->plen);
}

void crypto_rsa_cache_free(struct crypto_rsa_cache *c)
{
	if (!c)
		return;
	crypto_rsa_unload(&c->key);
	crypto_wipe(c, sizeof(*c));
	free(c);
}

TPM_RC crypto_rsa_private(const struct crypto_rsa *rsa, struct crypto_rsa_cache **cache,
			  RsaKey *tmp, RsaKey **out)
{
	struct crypto_rsa_cache *c;
	TPM_RC rc;

	*out = NULL;
	if (!rsa->p)
		return TPM_RC_KEY;
	if (cache && *cache && cache_matches(*cache, rsa)) {
		*out = &(*cache)->key;
		return TPM_RC_SUCCESS;
	}
	/* sizes that do not fit the cache fail in crypto_rsa_load, with its codes */
	c = cache && rsa->nlen <= CRYPTO_MAX_RSA_BYTES && rsa->plen <= rsa->nlen
		    ? calloc(1, sizeof(*c))
		    : NULL;
	if (!c) { /* no cache (or no memory for one): a key for this operation only */
		*out = tmp;
		return crypto_rsa_load(tmp, rsa);
	}
	rc = crypto_rsa_load(&c->key, rsa);
	if (rc != TPM_RC_SUCCESS) {
		crypto_rsa_cache_free(c);
		return rc;
	}
	c->e = exponent_of(rsa);
	c->nlen = rsa->nlen;
	c->plen = rsa->plen;
	memcpy(c->n, rsa->n, rsa->nlen);
	memcpy(c->p, rsa->p, rsa->plen);
	crypto_rsa_cache_free(*cache);
	*cache = c;
	*out = &c->key;
	return TPM_RC_SUCCESS;
}

void crypto_rsa_private_done(RsaKey *tmp, RsaKey *used)
{
	if (used == tmp)
		crypto_rsa_unload(tmp);
}
