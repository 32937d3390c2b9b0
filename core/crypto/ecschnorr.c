/* EC Schnorr signatures (TPM_ALG_ECSCHNORR) over the curves of ecc.c: with a fresh k,
 * R = [k]G, e = H(R.x || digest) mod n, s = k + e * d mod n; the signature is (e, s). It
 * verifies when H(([s]G - [e]Q).x || digest) mod n is e again. */
#include <string.h>

#include "ecc_params.h"

static TPM_RC challenge(uint16_t curve, TPM_ALG_ID hash, const uint8_t *rx, size_t len,
			const uint8_t *digest, size_t dlen, uint8_t *e)
{
	struct crypto_hash_ctx h;
	uint8_t t[CRYPTO_MAX_DIGEST];
	TPM_RC rc = crypto_hash_start(&h, hash);

	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hash_update(&h, rx, len);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hash_update(&h, digest, dlen);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hash_finish(&h, t);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_ecc_scalar_reduce(curve, t, crypto_hash_size(hash), e);
	return rc;
}

static bool is_zero(const uint8_t *a, size_t len)
{
	uint8_t acc = 0;

	for (size_t i = 0; i < len; i++)
		acc |= a[i];
	return acc == 0;
}

TPM_RC crypto_ecschnorr_sign(uint16_t curve, TPM_ALG_ID hash, const uint8_t *d,
			     const uint8_t *digest, size_t dlen, uint8_t *e, uint8_t *s)
{
	size_t len = crypto_ecc_bytes(curve);
	uint8_t k[CRYPTO_MAX_ECC_BYTES], rx[CRYPTO_MAX_ECC_BYTES], ry[CRYPTO_MAX_ECC_BYTES];
	TPM_RC rc = TPM_RC_NO_RESULT;

	if (len == 0)
		return TPM_RC_CURVE;
	if (crypto_hash_size(hash) == 0)
		return TPM_RC_HASH;
	for (int attempt = 0; attempt < 8 && rc == TPM_RC_NO_RESULT; attempt++) {
		rc = crypto_ecc_generate(crypto_system_rng(), curve, k, rx, ry);
		if (rc == TPM_RC_SUCCESS)
			rc = challenge(curve, hash, rx, len, digest, dlen, e);
		if (rc == TPM_RC_SUCCESS && is_zero(e, len))
			rc = TPM_RC_NO_RESULT;
		if (rc == TPM_RC_SUCCESS)
			rc = crypto_ecc_scalar_muladd(curve, k, e, d, s);
		if (rc == TPM_RC_SUCCESS && is_zero(s, len))
			rc = TPM_RC_NO_RESULT;
	}
	crypto_wipe(k, sizeof(k));
	return rc;
}

/* A scalar as sent, padded to len: it must be in [1, n - 1]. */
static bool scalar_in(const struct crypto_ecc_params *c, const uint8_t *v, size_t vlen,
		      uint8_t *out)
{
	if (vlen > c->len)
		return false;
	memset(out, 0, c->len - vlen);
	memcpy(out + c->len - vlen, v, vlen);
	return !is_zero(out, c->len) && memcmp(out, c->n, c->len) < 0;
}

TPM_RC crypto_ecschnorr_verify(uint16_t curve, TPM_ALG_ID hash, const uint8_t *qx,
			       const uint8_t *qy, const uint8_t *digest, size_t dlen,
			       const uint8_t *e, size_t elen, const uint8_t *s, size_t slen)
{
	const struct crypto_ecc_params *c = crypto_ecc_curve(curve);
	uint8_t ev[CRYPTO_MAX_ECC_BYTES], sv[CRYPTO_MAX_ECC_BYTES], n1[CRYPTO_MAX_ECC_BYTES];
	uint8_t zero[CRYPTO_MAX_ECC_BYTES] = { 0 }, neg[CRYPTO_MAX_ECC_BYTES];
	uint8_t ax[CRYPTO_MAX_ECC_BYTES], ay[CRYPTO_MAX_ECC_BYTES];
	uint8_t bx[CRYPTO_MAX_ECC_BYTES], by[CRYPTO_MAX_ECC_BYTES];
	uint8_t rx[CRYPTO_MAX_ECC_BYTES], ry[CRYPTO_MAX_ECC_BYTES], e2[CRYPTO_MAX_ECC_BYTES];
	TPM_RC rc;

	if (!c)
		return TPM_RC_CURVE;
	if (crypto_hash_size(hash) == 0)
		return TPM_RC_HASH;
	if (!scalar_in(c, e, elen, ev) || !scalar_in(c, s, slen, sv))
		return TPM_RC_SIGNATURE;
	/* -e = e * (n - 1) mod n */
	memcpy(n1, c->n, c->len);
	n1[c->len - 1]--; /* n is odd: no borrow */
	rc = crypto_ecc_scalar_muladd(curve, zero, ev, n1, neg);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_ecc_mul(curve, sv, NULL, NULL, ax, ay);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_ecc_mul(curve, neg, qx, qy, bx, by);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_ecc_add(curve, ax, ay, bx, by, rx, ry);
	if (rc == TPM_RC_NO_RESULT)
		return TPM_RC_SIGNATURE;
	if (rc == TPM_RC_SUCCESS)
		rc = challenge(curve, hash, rx, c->len, digest, dlen, e2);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	return memcmp(e2, ev, c->len) == 0 ? TPM_RC_SUCCESS : TPM_RC_SIGNATURE;
}
