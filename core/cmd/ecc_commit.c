/* EC_Ephemeral, Commit and ZGen_2Phase (Part 3 §14.8, §19.2, §14.7): the commit of an
 * ephemeral scalar r (commit.h) and its use in a two-phase key exchange, ECDH (C(2e, 2s)) or
 * ECMQV (SP 800-56A §5.7.2.3). Points must lie on the key's curve. */
#include <string.h>

#include "commit.h"
#include "scheme.h"

#define ECC_MAX CRYPTO_MAX_ECC_BYTES

/* A point as sent, padded to the curve's size; TPM_RC_ECC_POINT when it is off the curve. */
static TPM_RC point_in(uint16_t curve, const struct tpm2b_ecc_parameter *x,
		       const struct tpm2b_ecc_parameter *y, uint8_t *px, uint8_t *py)
{
	size_t len = crypto_ecc_bytes(curve);

	TRY(crypto_ecc_check_point(curve, x->b, x->size, y->b, y->size));
	TRY(scheme_ecc_fixed(x->b, x->size, len, px));
	return scheme_ecc_fixed(y->b, y->size, len, py);
}

/* The Empty Point as clients parse it: a size of 4, two empty coordinates. */
static TPM_RC wr_empty_point(struct wr *w)
{
	static const uint8_t none[1];

	return wr_tpm2b_ecc_point(w, none, none, 0);
}

static TPM_RC ec_ephemeral(struct cmd *c)
{
	uint8_t r[ECC_MAX], qx[ECC_MAX], qy[ECC_MAX];
	uint16_t curve, counter;
	size_t len;
	TPM_RC rc;

	TRYP(1, rd_u16(&c->in, &curve));
	TRY(cmd_params_done(c));
	len = crypto_ecc_bytes(curve);
	if (len == 0)
		return rc_param(TPM_RC_CURVE, 1);
	TRY(commit_new(c->e, curve, NULL, r, &counter));
	rc = crypto_ecc_mul(curve, r, NULL, NULL, qx, qy);
	crypto_wipe(r, sizeof(r));
	TRY(rc);
	TRY(wr_tpm2b_ecc_point(&c->out, qx, qy, len));
	return wr_u16(&c->out, counter);
}

/* The key of Commit and ZGen_2Phase: an ECC key with its private part. */
static TPM_RC ecc_key(const struct cmd *c, size_t *len, uint8_t *d)
{
	const struct object *key = c->obj[0];

	if (key->pub.type != TPM_ALG_ECC)
		return rc_handle(TPM_RC_KEY, 1);
	*len = crypto_ecc_bytes(key->pub.curve_id);
	if (*len == 0)
		return rc_handle(TPM_RC_KEY, 1);
	if (!key->has_sensitive)
		return TPM_RC_AUTH_UNAVAILABLE;
	return rc_handle(scheme_ecc_fixed(key->sens.sensitive.b, key->sens.sensitive.size, *len,
					  d), 1);
}

/* P2 = (H_nameAlg(s2) mod p, y2), on the curve (TPM_RC_ECC_POINT, parameter 2). */
static TPM_RC commit_p2(const struct object *key, const struct tpm2b_sensitive_data *s2,
			const struct tpm2b_ecc_parameter *y2, uint8_t *px, uint8_t *py)
{
	uint16_t curve = key->pub.curve_id;
	uint8_t h[CRYPTO_MAX_DIGEST];
	struct tpm2b_ecc_parameter x2;
	size_t len = crypto_ecc_bytes(curve);

	TRY(crypto_hash(key->pub.name_alg, s2->b, s2->size, h));
	TRY(crypto_ecc_field_reduce(curve, h, crypto_hash_size(key->pub.name_alg), x2.b));
	x2.size = (uint16_t)len;
	return rc_param(point_in(curve, &x2, y2, px, py), 2);
}

static TPM_RC commit_points(struct cmd *c, const uint8_t *r, const uint8_t *d, bool has_p1,
			    const uint8_t *p1x, const uint8_t *p1y, bool has_p2,
			    const uint8_t *p2x, const uint8_t *p2y, uint16_t counter)
{
	uint16_t curve = c->obj[0]->pub.curve_id;
	size_t len = crypto_ecc_bytes(curve);
	uint8_t x[ECC_MAX], y[ECC_MAX];

	/* K = [ds]P2, L = [r]P2; Empty Points without P2 */
	if (has_p2) {
		TRY(crypto_ecc_mul(curve, d, p2x, p2y, x, y));
		TRY(wr_tpm2b_ecc_point(&c->out, x, y, len));
		TRY(crypto_ecc_mul(curve, r, p2x, p2y, x, y));
		TRY(wr_tpm2b_ecc_point(&c->out, x, y, len));
	} else {
		TRY(wr_empty_point(&c->out));
		TRY(wr_empty_point(&c->out));
	}
	/* E = [r]P1, or [r]G without P1 */
	TRY(crypto_ecc_mul(curve, r, has_p1 ? p1x : NULL, has_p1 ? p1y : NULL, x, y));
	TRY(wr_tpm2b_ecc_point(&c->out, x, y, len));
	return wr_u16(&c->out, counter);
}

static TPM_RC commit(struct cmd *c)
{
	const struct object *key = c->obj[0];
	struct tpm2b_ecc_parameter p1x, p1y, y2;
	struct tpm2b_sensitive_data s2;
	uint8_t d[ECC_MAX], r[ECC_MAX], ax[ECC_MAX], ay[ECC_MAX], bx[ECC_MAX], by[ECC_MAX];
	bool has_p1, has_p2;
	uint16_t counter;
	size_t len;
	TPM_RC rc;

	TRYP(1, rd_tpm2b_ecc_point(&c->in, &p1x, &p1y, true));
	TRYP(2, rd_tpm2b(&c->in, s2.b, sizeof(s2.b), &s2.size));
	TRYP(3, rd_tpm2b(&c->in, y2.b, sizeof(y2.b), &y2.size));
	TRY(cmd_params_done(c));
	if (key->pub.type == TPM_ALG_ECC && key->pub.scheme.scheme != TPM_ALG_ECDAA)
		return rc_handle(TPM_RC_SCHEME, 1); /* Commit is for the anonymous scheme */
	TRY(ecc_key(c, &len, d));
	/* s2 and y2 come together */
	if ((s2.size == 0) != (y2.size == 0))
		rc = rc_param(TPM_RC_SIZE, 3);
	else
		rc = TPM_RC_SUCCESS;
	has_p1 = p1x.size || p1y.size;
	has_p2 = s2.size != 0;
	if (rc == TPM_RC_SUCCESS && has_p1)
		rc = rc_param(point_in(key->pub.curve_id, &p1x, &p1y, ax, ay), 1);
	if (rc == TPM_RC_SUCCESS && has_p2)
		rc = commit_p2(key, &s2, &y2, bx, by);
	if (rc == TPM_RC_SUCCESS)
		rc = commit_new(c->e, key->pub.curve_id, &key->name, r, &counter);
	if (rc == TPM_RC_SUCCESS)
		rc = commit_points(c, r, d, has_p1, ax, ay, has_p2, bx, by, counter);
	crypto_wipe(d, sizeof(d));
	crypto_wipe(r, sizeof(r));
	crypto_wipe(&s2, sizeof(s2));
	return rc;
}

/* SP 800-56A avf(Q) = (Q.x mod 2^h) + 2^h, h = ceil(f / 2) for an order of f bits (261 for
 * P-521, whose h is no whole number of bytes). */
static void avf(const uint8_t *qx, size_t len, unsigned f, uint8_t *out)
{
	unsigned h = (f + 1) / 2, rem = h % 8;
	size_t whole = h / 8, at = len - whole - 1;

	memset(out, 0, len);
	memcpy(out + len - whole, qx + len - whole, whole);
	out[at] = (uint8_t)((qx[at] & ((1u << rem) - 1)) | (1u << rem));
}

/* ECMQV: Z = [sA](QeB + [avf(QeB)]QsB) with sA = (r + avf(QeA) dsA) mod n, QeA = [r]G. */
static TPM_RC ecmqv(uint16_t curve, const uint8_t *d, const uint8_t *r, const uint8_t *sx,
		    const uint8_t *sy, const uint8_t *ex, const uint8_t *ey, uint8_t *zx,
		    uint8_t *zy)
{
	uint8_t qx[ECC_MAX], qy[ECC_MAX], va[ECC_MAX], vb[ECC_MAX], sa[ECC_MAX], tx[ECC_MAX], ty[ECC_MAX];
	struct crypto_ecc_params p;
	TPM_RC rc;

	TRY(crypto_ecc_params(curve, &p));
	TRY(crypto_ecc_mul(curve, r, NULL, NULL, qx, qy));
	avf(qx, p.len, p.key_bits, va);
	avf(ex, p.len, p.key_bits, vb);
	rc = crypto_ecc_scalar_muladd(curve, r, va, d, sa);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_ecc_mul(curve, vb, sx, sy, tx, ty);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_ecc_add(curve, ex, ey, tx, ty, tx, ty);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_ecc_mul(curve, sa, tx, ty, zx, zy);
	crypto_wipe(sa, sizeof(sa));
	return rc;
}

static TPM_RC zgen_2phase(struct cmd *c)
{
	const struct object *key = c->obj[0];
	uint16_t curve = key->pub.curve_id;
	struct tpm2b_ecc_parameter sbx, sby, ebx, eby;
	uint8_t d[ECC_MAX], r[ECC_MAX], sx[ECC_MAX], sy[ECC_MAX], ex[ECC_MAX], ey[ECC_MAX];
	uint8_t z1x[ECC_MAX], z1y[ECC_MAX], z2x[ECC_MAX], z2y[ECC_MAX];
	uint16_t scheme, counter;
	size_t len;
	TPM_RC rc;

	TRYP(1, rd_tpm2b_ecc_point(&c->in, &sbx, &sby, false));
	TRYP(2, rd_tpm2b_ecc_point(&c->in, &ebx, &eby, false));
	TRYP(3, rd_u16(&c->in, &scheme));
	TRYP(4, rd_u16(&c->in, &counter));
	TRY(cmd_params_done(c));
	if (key->pub.type == TPM_ALG_ECC && (key->pub.attributes & TPMA_OBJECT_RESTRICTED ||
					     !(key->pub.attributes & TPMA_OBJECT_DECRYPT)))
		return rc_handle(TPM_RC_ATTRIBUTES, 1);
	if (scheme != TPM_ALG_ECDH && scheme != TPM_ALG_ECMQV)
		return rc_param(TPM_RC_SCHEME, 3);
	if (key->pub.scheme.scheme != TPM_ALG_NULL && key->pub.scheme.scheme != scheme)
		return rc_param(TPM_RC_SCHEME, 3);
	TRY(ecc_key(c, &len, d));
	rc = rc_param(point_in(curve, &sbx, &sby, sx, sy), 1);
	if (rc == TPM_RC_SUCCESS)
		rc = rc_param(point_in(curve, &ebx, &eby, ex, ey), 2);
	if (rc == TPM_RC_SUCCESS)
		rc = rc_param(commit_r(c->e, curve, NULL, counter, r), 4);
	if (rc == TPM_RC_SUCCESS && scheme == TPM_ALG_ECDH) {
		/* Z1 = [dsA]QsB (static), Z2 = [r]QeB (ephemeral) */
		rc = crypto_ecc_mul(curve, d, sx, sy, z1x, z1y);
		if (rc == TPM_RC_SUCCESS)
			rc = crypto_ecc_mul(curve, r, ex, ey, z2x, z2y);
		if (rc == TPM_RC_SUCCESS)
			rc = wr_tpm2b_ecc_point(&c->out, z1x, z1y, len);
		if (rc == TPM_RC_SUCCESS)
			rc = wr_tpm2b_ecc_point(&c->out, z2x, z2y, len);
	} else if (rc == TPM_RC_SUCCESS) {
		rc = ecmqv(curve, d, r, sx, sy, ex, ey, z1x, z1y);
		if (rc == TPM_RC_SUCCESS)
			rc = wr_tpm2b_ecc_point(&c->out, z1x, z1y, len);
		if (rc == TPM_RC_SUCCESS) /* one value only: outZ2 is empty */
			rc = wr_empty_point(&c->out);
	}
	if (rc == TPM_RC_SUCCESS)
		commit_end(c->e, counter);
	crypto_wipe(d, sizeof(d));
	crypto_wipe(r, sizeof(r));
	crypto_wipe(z1x, sizeof(z1x));
	crypto_wipe(z1y, sizeof(z1y));
	crypto_wipe(z2x, sizeof(z2x));
	crypto_wipe(z2y, sizeof(z2y));
	return rc;
}

const struct cmd_def cmds_ecc_commit[] = {
	{ .code = TPM_CC_Commit, .name = "Commit", .handles = 1, .auth = { AUTH_USER },
	  .htype = { HK_OBJECT }, .flags = CMD_PARAM_IN | CMD_PARAM_OUT, .run = commit },
	{ .code = TPM_CC_ZGen_2Phase, .name = "ZGen_2Phase", .handles = 1, .auth = { AUTH_USER },
	  .htype = { HK_OBJECT }, .flags = CMD_PARAM_IN | CMD_PARAM_OUT, .run = zgen_2phase },
	{ .code = TPM_CC_EC_Ephemeral, .name = "EC_Ephemeral", .flags = CMD_PARAM_OUT,
	  .run = ec_ephemeral },
	{ 0 },
};
