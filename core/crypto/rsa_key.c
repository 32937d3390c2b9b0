/* wolfSSL RSA keys from what the TPM keeps: n, e and, for a private key, one prime p.
 * Debian's wolfSSL has no wc_RsaPrivateKeyDecodeRaw, so this computes q = n / p, d, dP, dQ and
 * qInv itself and sets them in the key's mp_int fields, which is what that function does.
 * That costs a division and two inversions (~60 us for RSA-2048), so a loaded key keeps the
 * result (crypto_rsa_sign_cached, crypto_rsa_decrypt_cached) for its next private operations. */
#include <pthread.h>
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

/* ---- the private keys kept between operations ----
 * A pool, not one key: wolfSSL keeps per-operation state in an RsaKey (the RNG, blinding
 * values, its state machine), so two threads never use one at once. An operation takes an
 * idle key that was built from the same values, or builds one; it gives it back afterwards,
 * kept while the pool has room (RSA_POOL: two clients signing with one key at once on two
 * cores), freed otherwise. */
#define RSA_POOL 2

struct rsa_built {
	RsaKey key; /* first: the RsaKey an operation used leads back to its entry */
	/* what it was built from: a key with other values builds its own */
	uint32_t e;
	size_t nlen, plen;
	uint8_t n[CRYPTO_MAX_RSA_BYTES];
	uint8_t p[CRYPTO_MAX_RSA_BYTES];
};

struct crypto_rsa_cache {
	pthread_mutex_t lock;
	unsigned idle;
	struct rsa_built *slot[RSA_POOL];
};

static uint32_t exponent_of(const struct crypto_rsa *rsa)
{
	return rsa->e ? rsa->e : DEFAULT_EXPONENT;
}

static bool built_from(const struct rsa_built *b, const struct crypto_rsa *rsa)
{
	return b->e == exponent_of(rsa) && b->nlen == rsa->nlen && b->plen == rsa->plen &&
	       memcmp(b->n, rsa->n, rsa->nlen) == 0 && crypto_ct_equal(b->p, rsa->p, rsa->plen);
}

static void built_free(struct rsa_built *b)
{
	if (!b)
		return;
	crypto_rsa_unload(&b->key);
	crypto_wipe(b, sizeof(*b));
	free(b);
}

struct crypto_rsa_cache *crypto_rsa_cache_new(void)
{
	struct crypto_rsa_cache *c = calloc(1, sizeof(*c));

	if (c && pthread_mutex_init(&c->lock, NULL) != 0) {
		free(c);
		c = NULL;
	}
	return c;
}

void crypto_rsa_cache_free(struct crypto_rsa_cache *c)
{
	if (!c)
		return;
	for (unsigned i = 0; i < c->idle; i++)
		built_free(c->slot[i]);
	pthread_mutex_destroy(&c->lock);
	crypto_wipe(c, sizeof(*c));
	free(c);
}

/* An idle key built from rsa, taken out of the pool; one built from other values is dropped. */
static struct rsa_built *take_idle(struct crypto_rsa_cache *c, const struct crypto_rsa *rsa)
{
	struct rsa_built *b = NULL, *stale = NULL;

	pthread_mutex_lock(&c->lock);
	if (c->idle) {
		b = c->slot[--c->idle];
		if (!built_from(b, rsa)) {
			stale = b;
			b = NULL;
		}
	}
	pthread_mutex_unlock(&c->lock);
	built_free(stale);
	return b;
}

TPM_RC crypto_rsa_private(const struct crypto_rsa *rsa, struct crypto_rsa_cache *cache,
			  RsaKey *tmp, RsaKey **out)
{
	struct rsa_built *b;
	TPM_RC rc;

	*out = NULL;
	if (!rsa->p)
		return TPM_RC_KEY;
	b = cache ? take_idle(cache, rsa) : NULL;
	if (b) {
		*out = &b->key;
		return TPM_RC_SUCCESS;
	}
	/* sizes that do not fit an entry fail in crypto_rsa_load, with its codes */
	b = cache && rsa->nlen <= CRYPTO_MAX_RSA_BYTES && rsa->plen <= rsa->nlen
		    ? calloc(1, sizeof(*b))
		    : NULL;
	if (!b) { /* no cache (or no memory for an entry): a key for this operation only */
		*out = tmp;
		return crypto_rsa_load(tmp, rsa);
	}
	rc = crypto_rsa_load(&b->key, rsa);
	if (rc != TPM_RC_SUCCESS) {
		built_free(b);
		return rc;
	}
	b->e = exponent_of(rsa);
	b->nlen = rsa->nlen;
	b->plen = rsa->plen;
	memcpy(b->n, rsa->n, rsa->nlen);
	memcpy(b->p, rsa->p, rsa->plen);
	*out = &b->key;
	return TPM_RC_SUCCESS;
}

void crypto_rsa_private_done(struct crypto_rsa_cache *cache, RsaKey *tmp, RsaKey *used)
{
	struct rsa_built *b = (struct rsa_built *)used;

	if (!used)
		return;
	if (used == tmp) {
		crypto_rsa_unload(tmp);
		return;
	}
	pthread_mutex_lock(&cache->lock);
	if (cache->idle < RSA_POOL) {
		cache->slot[cache->idle++] = b;
		b = NULL;
	}
	pthread_mutex_unlock(&cache->lock);
	built_free(b);
}
