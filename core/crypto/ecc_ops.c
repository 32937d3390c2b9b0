/* ECC arithmetic for the anonymous and two-phase schemes (ECDAA, EC Schnorr, ECMQV): scalar
 * multiplication of any point, point addition, and scalars modulo the group order n. The
 * additions work on public points (affine formulas, mp_* of wolfSSL); the scalar operations
 * clear their temporaries. */
#include <string.h>

#include "ecc_params.h"
#include "wolf.h"

TPM_RC crypto_ecc_mul(uint16_t curve, const uint8_t *k, const uint8_t *px, const uint8_t *py,
		      uint8_t *rx, uint8_t *ry)
{
	size_t len = crypto_ecc_bytes(curve);

	if (len == 0)
		return TPM_RC_CURVE;
	if (!px)
		return crypto_ecc_public(curve, k, rx, ry);
	return crypto_ecdh(curve, k, px, len, py, len, rx, ry);
}

static int read_all(const struct crypto_ecc_params *c, mp_int *m, const uint8_t *v)
{
	return mp_read_unsigned_bin(m, v, (word32)c->len);
}

/* R = P + Q with affine coordinates: lambda = (qy - py) / (qx - px), or for P = Q the
 * tangent (3 px^2 + a) / (2 py); TPM_RC_NO_RESULT for the point at infinity. */
TPM_RC crypto_ecc_add(uint16_t curve, const uint8_t *px, const uint8_t *py, const uint8_t *qx,
		      const uint8_t *qy, uint8_t *rx, uint8_t *ry)
{
	const struct crypto_ecc_params *c = crypto_ecc_curve(curve);
	mp_int p, a, x1, y1, x2, y2, l, t, u;
	TPM_RC rc = TPM_RC_FAILURE;

	if (!c)
		return TPM_RC_CURVE;
	rc = crypto_ecc_check_point(curve, px, c->len, py, c->len);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_ecc_check_point(curve, qx, c->len, qy, c->len);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	rc = TPM_RC_FAILURE;
	if (mp_init_multi(&p, &a, &x1, &y1, &x2, &y2) != MP_OKAY)
		return TPM_RC_FAILURE;
	if (mp_init_multi(&l, &t, &u, NULL, NULL, NULL) != MP_OKAY) {
		mp_clear(&p);
		return TPM_RC_FAILURE;
	}
	if (read_all(c, &p, c->p) || read_all(c, &a, c->a) || read_all(c, &x1, px) ||
	    read_all(c, &y1, py) || read_all(c, &x2, qx) || read_all(c, &y2, qy))
		goto out;
	if (mp_cmp(&x1, &x2) == MP_EQ) {
		if (mp_cmp(&y1, &y2) != MP_EQ || mp_iszero(&y1)) {
			rc = TPM_RC_NO_RESULT; /* P = -Q */
			goto out;
		}
		/* t = 3 x1^2 + a, u = 2 y1 */
		if (mp_sqrmod(&x1, &p, &t) || mp_set_int(&u, 3) || mp_mulmod(&t, &u, &p, &t) ||
		    mp_addmod(&t, &a, &p, &t) || mp_addmod(&y1, &y1, &p, &u))
			goto out;
	} else if (mp_submod(&y2, &y1, &p, &t) || mp_submod(&x2, &x1, &p, &u)) {
		goto out;
	}
	/* lambda = t / u; x3 = lambda^2 - x1 - x2; y3 = lambda (x1 - x3) - y1 */
	if (mp_invmod(&u, &p, &u) || mp_mulmod(&t, &u, &p, &l) || mp_sqrmod(&l, &p, &t) ||
	    mp_submod(&t, &x1, &p, &t) || mp_submod(&t, &x2, &p, &t) ||
	    mp_submod(&x1, &t, &p, &u) || mp_mulmod(&l, &u, &p, &u) ||
	    mp_submod(&u, &y1, &p, &u) ||
	    mp_to_unsigned_bin_len(&t, rx, (int)c->len) != MP_OKAY ||
	    mp_to_unsigned_bin_len(&u, ry, (int)c->len) != MP_OKAY)
		goto out;
	rc = TPM_RC_SUCCESS;
out:
	mp_clear(&p);
	mp_clear(&a);
	mp_clear(&x1);
	mp_clear(&y1);
	mp_clear(&x2);
	mp_clear(&y2);
	mp_clear(&l);
	mp_clear(&t);
	mp_clear(&u);
	return rc;
}

/* in mod m (the order or the prime), into the curve's size */
static TPM_RC reduce(const struct crypto_ecc_params *c, const uint8_t *m, const uint8_t *in,
		     size_t len, uint8_t *out)
{
	mp_int n, v;
	TPM_RC rc = TPM_RC_FAILURE;

	if (mp_init_multi(&n, &v, NULL, NULL, NULL, NULL) != MP_OKAY)
		return TPM_RC_FAILURE;
	if (read_all(c, &n, m) == MP_OKAY &&
	    mp_read_unsigned_bin(&v, in, (word32)len) == MP_OKAY && mp_mod(&v, &n, &v) == MP_OKAY &&
	    mp_to_unsigned_bin_len(&v, out, (int)c->len) == MP_OKAY)
		rc = TPM_RC_SUCCESS;
	mp_forcezero(&v);
	mp_clear(&n);
	return rc;
}

TPM_RC crypto_ecc_scalar_reduce(uint16_t curve, const uint8_t *in, size_t len, uint8_t *out)
{
	const struct crypto_ecc_params *c = crypto_ecc_curve(curve);

	return c ? reduce(c, c->n, in, len, out) : TPM_RC_CURVE;
}

TPM_RC crypto_ecc_field_reduce(uint16_t curve, const uint8_t *in, size_t len, uint8_t *out)
{
	const struct crypto_ecc_params *c = crypto_ecc_curve(curve);

	return c ? reduce(c, c->p, in, len, out) : TPM_RC_CURVE;
}

TPM_RC crypto_ecc_scalar_muladd(uint16_t curve, const uint8_t *a, const uint8_t *b,
				const uint8_t *m, uint8_t *out)
{
	const struct crypto_ecc_params *c = crypto_ecc_curve(curve);
	mp_int n, x, y, z;
	TPM_RC rc = TPM_RC_FAILURE;

	if (!c)
		return TPM_RC_CURVE;
	if (mp_init_multi(&n, &x, &y, &z, NULL, NULL) != MP_OKAY)
		return TPM_RC_FAILURE;
	if (read_all(c, &n, c->n) == MP_OKAY && read_all(c, &x, a) == MP_OKAY &&
	    read_all(c, &y, b) == MP_OKAY && read_all(c, &z, m) == MP_OKAY &&
	    mp_mulmod(&y, &z, &n, &y) == MP_OKAY && mp_addmod(&x, &y, &n, &x) == MP_OKAY &&
	    mp_to_unsigned_bin_len(&x, out, (int)c->len) == MP_OKAY)
		rc = TPM_RC_SUCCESS;
	mp_forcezero(&x);
	mp_forcezero(&y);
	mp_forcezero(&z);
	mp_clear(&n);
	return rc;
}
