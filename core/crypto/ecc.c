/* ECC over wolfSSL for NIST P-256, P-384 and P-521: key generation from a random source,
 * public key derivation, point checks, ECDSA and the ECDH point multiplication. Private keys
 * are imported into wolfSSL per call and the key structs wiped afterwards. */
#include <string.h>

#include "ecc_params.h"
#include "wolf.h"

static int wolf_curve_id(uint16_t curve)
{
	switch (curve) {
	case TPM_ECC_NIST_P256:
		return ECC_SECP256R1;
	case TPM_ECC_NIST_P384:
		return ECC_SECP384R1;
	case TPM_ECC_NIST_P521:
		return ECC_SECP521R1;
	default:
		return ECC_CURVE_INVALID;
	}
}

/* a < b for big-endian numbers of len bytes, in constant time (a may be a private key). */
static bool ct_less(const uint8_t *a, const uint8_t *b, size_t len)
{
	unsigned borrow = 0;

	for (size_t i = len; i-- > 0;)
		borrow = ((unsigned)a[i] - b[i] - borrow) >> 8 & 1;
	return borrow;
}

static bool ct_is_zero(const uint8_t *a, size_t len)
{
	uint8_t acc = 0;

	for (size_t i = 0; i < len; i++)
		acc |= a[i];
	return acc == 0;
}

/* A private key must be in [1, n - 1]. */
static bool scalar_ok(const struct crypto_ecc_params *c, const uint8_t *d)
{
	return !ct_is_zero(d, c->len) && ct_less(d, c->n, c->len);
}

/* Left-pads a coordinate to the curve's size; a longer one is accepted only if the excess is
 * leading zeros. */
static bool pad_coordinate(uint8_t *out, size_t size, const uint8_t *in, size_t len)
{
	for (; len > size; in++, len--)
		if (*in)
			return false;
	memset(out, 0, size - len);
	if (len)
		memcpy(out + size - len, in, len);
	return true;
}

static TPM_RC load_private(ecc_key *key, uint16_t curve, const uint8_t *d)
{
	const struct crypto_ecc_params *c = crypto_ecc_curve(curve);

	if (wc_ecc_init_ex(key, NULL, INVALID_DEVID) != 0)
		return TPM_RC_FAILURE;
	if (!c)
		return TPM_RC_CURVE;
	if (!scalar_ok(c, d))
		return TPM_RC_VALUE;
	if (wc_ecc_import_private_key_ex(d, (word32)c->len, NULL, 0, key, wolf_curve_id(curve)))
		return TPM_RC_FAILURE;
	return TPM_RC_SUCCESS;
}

/* Imports Q after checking that it is a point of the curve: coordinates below p and
 * y^2 = x^3 + ax + b (the cofactor is 1, so that is enough). wolfSSL refuses to import the
 * point at infinity, (0, 0). */
static TPM_RC load_public(ecc_key *key, uint16_t curve, const uint8_t *x, size_t xlen,
			  const uint8_t *y, size_t ylen)
{
	const struct crypto_ecc_params *c = crypto_ecc_curve(curve);
	uint8_t qx[CRYPTO_MAX_ECC_BYTES], qy[CRYPTO_MAX_ECC_BYTES];
	int id = wolf_curve_id(curve);

	if (wc_ecc_init_ex(key, NULL, INVALID_DEVID) != 0)
		return TPM_RC_FAILURE;
	if (!c)
		return TPM_RC_CURVE;
	if (!pad_coordinate(qx, c->len, x, xlen) || !pad_coordinate(qy, c->len, y, ylen) ||
	    memcmp(qx, c->p, c->len) >= 0 || memcmp(qy, c->p, c->len) >= 0)
		return TPM_RC_ECC_POINT;
	if (wc_ecc_import_unsigned(key, qx, qy, NULL, id) != 0 ||
	    wc_ecc_point_is_on_curve(&key->pubkey, wc_ecc_get_curve_idx(id)) != 0)
		return TPM_RC_ECC_POINT;
	return TPM_RC_SUCCESS;
}

static void unload(ecc_key *key)
{
	(void)wc_ecc_free(key); /* only fails for a NULL key */
	crypto_wipe(key, sizeof(*key));
}

TPM_RC crypto_ecc_public(uint16_t curve, const uint8_t *d, uint8_t *x, uint8_t *y)
{
	word32 size = (word32)crypto_ecc_bytes(curve), xlen = size, ylen = size;
	ecc_key key;
	TPM_RC rc = load_private(&key, curve, d);

	if (rc == TPM_RC_SUCCESS &&
	    (wc_ecc_make_pub(&key, NULL) != 0 ||
	     wc_ecc_export_public_raw(&key, x, &xlen, y, &ylen) != 0 || xlen != size ||
	     ylen != size))
		rc = TPM_RC_FAILURE;
	unload(&key);
	return rc;
}

/* FIPS 186-4 B.4.1: d = (c mod (n - 1)) + 1, c read from the source 64 bits longer than n
 * (rounded up to whole bytes: 74 for P-521). */
TPM_RC crypto_ecc_generate(struct crypto_rng *rng, uint16_t curve, uint8_t *d, uint8_t *x,
			   uint8_t *y)
{
	const struct crypto_ecc_params *c = crypto_ecc_curve(curve);
	uint8_t extra[CRYPTO_MAX_ECC_BYTES + 8];
	mp_int cm, nm;
	size_t clen;
	TPM_RC rc;

	if (!c)
		return TPM_RC_CURVE;
	clen = (c->key_bits + 64 + 7) / 8;
	rc = rng->read(rng, extra, clen);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	if (mp_init_multi(&cm, &nm, NULL, NULL, NULL, NULL) != MP_OKAY)
		return TPM_RC_FAILURE;
	if (mp_read_unsigned_bin(&cm, extra, (word32)clen) != MP_OKAY ||
	    mp_read_unsigned_bin(&nm, c->n, (word32)c->len) != MP_OKAY ||
	    mp_sub_d(&nm, 1, &nm) != MP_OKAY || mp_mod(&cm, &nm, &cm) != MP_OKAY ||
	    mp_add_d(&cm, 1, &cm) != MP_OKAY ||
	    mp_to_unsigned_bin_len(&cm, d, (int)c->len) != MP_OKAY)
		rc = TPM_RC_FAILURE;
	mp_forcezero(&cm);
	mp_clear(&nm);
	crypto_wipe(extra, sizeof(extra));
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_ecc_public(curve, d, x, y);
	if (rc != TPM_RC_SUCCESS)
		crypto_wipe(d, c->len);
	return rc;
}

TPM_RC crypto_ecc_check_point(uint16_t curve, const uint8_t *x, size_t xlen, const uint8_t *y,
			      size_t ylen)
{
	ecc_key key;
	TPM_RC rc = load_public(&key, curve, x, xlen, y, ylen);

	unload(&key);
	return rc;
}

/* FIPS 186-4 6.4: the leftmost bits of the digest, as many as the order has (whole bytes for
 * these curves). */
static size_t truncated(uint16_t curve, size_t dlen)
{
	size_t size = crypto_ecc_bytes(curve);

	return dlen > size ? size : dlen;
}

TPM_RC crypto_ecdsa_sign(uint16_t curve, const uint8_t *d, const uint8_t *digest, size_t dlen,
			 uint8_t *r, uint8_t *s)
{
	size_t size = crypto_ecc_bytes(curve);
	ecc_key key;
	mp_int rm, sm;
	WC_RNG *rng;
	TPM_RC rc = load_private(&key, curve, d);

	if (rc != TPM_RC_SUCCESS) {
		unload(&key);
		return rc;
	}
	if (mp_init_multi(&rm, &sm, NULL, NULL, NULL, NULL) != MP_OKAY) {
		unload(&key);
		return TPM_RC_FAILURE;
	}
	rng = crypto_wolf_rng();
	if (!rng || wc_ecc_sign_hash_ex(digest, (word32)truncated(curve, dlen), rng, &key, &rm,
					&sm) != 0)
		rc = TPM_RC_FAILURE;
	if (rc == TPM_RC_SUCCESS && (mp_to_unsigned_bin_len(&rm, r, (int)size) != MP_OKAY ||
				     mp_to_unsigned_bin_len(&sm, s, (int)size) != MP_OKAY))
		rc = TPM_RC_FAILURE;
	mp_clear(&rm);
	mp_clear(&sm);
	unload(&key);
	return rc;
}

TPM_RC crypto_ecdsa_verify(uint16_t curve, const uint8_t *x, const uint8_t *y,
			   const uint8_t *digest, size_t dlen, const uint8_t *r, size_t rlen,
			   const uint8_t *s, size_t slen)
{
	size_t size = crypto_ecc_bytes(curve);
	ecc_key key;
	mp_int rm, sm;
	int valid = 0;
	TPM_RC rc = load_public(&key, curve, x, size, y, size);

	if (rc != TPM_RC_SUCCESS) {
		unload(&key);
		return rc;
	}
	if (mp_init_multi(&rm, &sm, NULL, NULL, NULL, NULL) != MP_OKAY) {
		unload(&key);
		return TPM_RC_FAILURE;
	}
	/* wolfSSL rejects r or s outside [1, n - 1] */
	if (rlen > size || slen > size ||
	    mp_read_unsigned_bin(&rm, r, (word32)rlen) != MP_OKAY ||
	    mp_read_unsigned_bin(&sm, s, (word32)slen) != MP_OKAY ||
	    wc_ecc_verify_hash_ex(&rm, &sm, digest, (word32)truncated(curve, dlen), &valid,
				  &key) != 0 ||
	    valid != 1)
		rc = TPM_RC_SIGNATURE;
	mp_clear(&rm);
	mp_clear(&sm);
	unload(&key);
	return rc;
}

/* With SP math compiled in, call its constant-time P-256/384/521 code directly: wc_ecc_mulmod
 * takes the generic FP_ECC path for a point it has not cached (~6x slower), and every salt
 * point is new. */
static int mulmod(const struct crypto_ecc_params *c, mp_int *d, ecc_point *q, ecc_point *z,
		  mp_int *a, mp_int *p)
{
#ifdef WOLFSSL_HAVE_SP_ECC
	if (c->len == 32)
		return sp_ecc_mulmod_256(d, q, z, 1, NULL);
	if (c->len == 48)
		return sp_ecc_mulmod_384(d, q, z, 1, NULL);
#ifdef WOLFSSL_SP_521
	if (c->len == 66)
		return sp_ecc_mulmod_521(d, q, z, 1, NULL);
#endif
#endif
	(void)c;
	return wc_ecc_mulmod(d, q, z, a, p, 1);
}

/* Z = d * Q, both coordinates. */
static TPM_RC multiply(ecc_key *peer, const struct crypto_ecc_params *c, const uint8_t *d,
		       uint8_t *zx, uint8_t *zy)
{
	ecc_point z;
	mp_int dm, am, pm;
	TPM_RC rc = TPM_RC_SUCCESS;

	memset(&z, 0, sizeof(z));
	if (mp_init_multi(z.x, z.y, z.z, &dm, &am, &pm) != MP_OKAY)
		return TPM_RC_FAILURE;
	if (mp_read_unsigned_bin(&dm, d, (word32)c->len) != MP_OKAY ||
	    mp_read_unsigned_bin(&am, c->a, (word32)c->len) != MP_OKAY ||
	    mp_read_unsigned_bin(&pm, c->p, (word32)c->len) != MP_OKAY ||
	    mulmod(c, &dm, &peer->pubkey, &z, &am, &pm) != 0)
		rc = TPM_RC_FAILURE;
	else if (wc_ecc_point_is_at_infinity(&z))
		rc = TPM_RC_NO_RESULT;
	else if (mp_to_unsigned_bin_len(z.x, zx, (int)c->len) != MP_OKAY ||
		 mp_to_unsigned_bin_len(z.y, zy, (int)c->len) != MP_OKAY)
		rc = TPM_RC_FAILURE;
	mp_forcezero(&dm);
	mp_forcezero(z.x);
	mp_forcezero(z.y);
	mp_forcezero(z.z);
	mp_clear(&am);
	mp_clear(&pm);
	return rc;
}

TPM_RC crypto_ecdh(uint16_t curve, const uint8_t *d, const uint8_t *qx, size_t qxlen,
		   const uint8_t *qy, size_t qylen, uint8_t *zx, uint8_t *zy)
{
	const struct crypto_ecc_params *c = crypto_ecc_curve(curve);
	ecc_key peer;
	TPM_RC rc = load_public(&peer, curve, qx, qxlen, qy, qylen);

	if (rc == TPM_RC_SUCCESS && !scalar_ok(c, d))
		rc = TPM_RC_VALUE;
	if (rc == TPM_RC_SUCCESS)
		rc = multiply(&peer, c, d, zx, zy);
	unload(&peer);
	return rc;
}
