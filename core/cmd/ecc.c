/* ECDH_KeyGen, ECDH_ZGen, ECC_Parameters (Part 3 §14.4, §14.5, §14.7) */
#include "compute.h"
#include "scheme.h"

/* Z = d * Q without the engine lock (compute.h): ECDH_KeyGen (d ephemeral, made here; Q the
 * key's point; P = d * G into px, py) or ECDH_ZGen (d the key's, Q the caller's point). */
static TPM_RC ecdh_unlocked(struct cmd *c, const struct tpm2b_ecc_parameter *qx,
			    const struct tpm2b_ecc_parameter *qy, uint8_t *px, uint8_t *py,
			    uint8_t *zx, uint8_t *zy)
{
	uint8_t d[CRYPTO_MAX_ECC_BYTES];
	struct key_material k;
	uint16_t curve;
	size_t len;
	TPM_RC rc;

	TRY(cmd_unlock_key(c, 0, &k));
	curve = k.pub.curve_id;
	len = crypto_ecc_bytes(curve);
	if (qx) {
		rc = rc_handle(scheme_ecc_fixed(k.sens.sensitive.b, k.sens.sensitive.size, len, d),
			       1);
		if (rc == TPM_RC_SUCCESS)
			rc = rc_param(crypto_ecdh(curve, d, qx->b, qx->size, qy->b, qy->size, zx,
						  zy),
				      1);
	} else {
		rc = crypto_ecc_generate(crypto_system_rng(), curve, d, px, py);
		if (rc == TPM_RC_SUCCESS)
			rc = crypto_ecdh(curve, d, k.pub.x.b, k.pub.x.size, k.pub.y.b,
					 k.pub.y.size, zx, zy);
		/* the key's own point is off the curve: the key is bad */
		if (rc == TPM_RC_ECC_POINT)
			rc = rc_handle(TPM_RC_KEY, 1);
	}
	crypto_wipe(d, sizeof(d));
	return cmd_relock_key(c, &k, rc);
}

static TPM_RC ecdh_keygen(struct cmd *c)
{
	const struct object *key = c->obj[0];
	size_t len = crypto_ecc_bytes(key->pub.curve_id);
	uint8_t px[CRYPTO_MAX_ECC_BYTES], py[CRYPTO_MAX_ECC_BYTES];
	uint8_t zx[CRYPTO_MAX_ECC_BYTES], zy[CRYPTO_MAX_ECC_BYTES];
	TPM_RC rc;

	TRY(cmd_params_done(c));
	if (key->pub.type != TPM_ALG_ECC || len == 0)
		return rc_handle(TPM_RC_KEY, 1);
	rc = ecdh_unlocked(c, NULL, NULL, px, py, zx, zy);
	if (rc == TPM_RC_SUCCESS)
		rc = wr_tpm2b_ecc_point(&c->out, zx, zy, len);
	if (rc == TPM_RC_SUCCESS)
		rc = wr_tpm2b_ecc_point(&c->out, px, py, len);
	crypto_wipe(zx, sizeof(zx));
	crypto_wipe(zy, sizeof(zy));
	return rc;
}

static TPM_RC ecdh_zgen(struct cmd *c)
{
	const struct object *key = c->obj[0];
	size_t len = crypto_ecc_bytes(key->pub.curve_id);
	struct tpm2b_ecc_parameter x, y;
	uint8_t zx[CRYPTO_MAX_ECC_BYTES], zy[CRYPTO_MAX_ECC_BYTES];
	TPM_RC rc;

	TRYP(1, rd_tpm2b_ecc_point(&c->in, &x, &y, false));
	TRY(cmd_params_done(c));
	if (key->pub.type != TPM_ALG_ECC || len == 0)
		return rc_handle(TPM_RC_KEY, 1);
	if (key->pub.attributes & TPMA_OBJECT_RESTRICTED ||
	    !(key->pub.attributes & TPMA_OBJECT_DECRYPT))
		return rc_handle(TPM_RC_ATTRIBUTES, 1);
	if (key->pub.scheme.scheme != TPM_ALG_ECDH && key->pub.scheme.scheme != TPM_ALG_NULL)
		return rc_handle(TPM_RC_SCHEME, 1);
	if (!key->has_sensitive)
		return TPM_RC_AUTH_UNAVAILABLE;
	rc = ecdh_unlocked(c, &x, &y, NULL, NULL, zx, zy);
	if (rc == TPM_RC_SUCCESS)
		rc = wr_tpm2b_ecc_point(&c->out, zx, zy, len);
	crypto_wipe(zx, sizeof(zx));
	crypto_wipe(zy, sizeof(zy));
	return rc;
}

/* TPMS_ALGORITHM_DETAIL_ECC. The NIST curves name no KDF or signing scheme of their own. */
static TPM_RC ecc_parameters(struct cmd *c)
{
	static const uint8_t cofactor = 1;
	struct crypto_ecc_params p;
	uint16_t curve;

	TRYP(1, rd_u16(&c->in, &curve));
	TRY(cmd_params_done(c));
	if (crypto_ecc_params(curve, &p) != TPM_RC_SUCCESS)
		return rc_param(TPM_RC_CURVE, 1);
	TRY(wr_u16(&c->out, curve));
	TRY(wr_u16(&c->out, p.key_bits));
	TRY(wr_u16(&c->out, TPM_ALG_NULL)); /* kdf */
	TRY(wr_u16(&c->out, TPM_ALG_NULL)); /* sign */

	const uint8_t *field[] = { p.p, p.a, p.b, p.gx, p.gy, p.n };

	for (size_t i = 0; i < sizeof(field) / sizeof(field[0]); i++)
		TRY(wr_tpm2b(&c->out, field[i], (uint16_t)p.len));
	return wr_tpm2b(&c->out, &cofactor, 1);
}

const struct cmd_def cmds_ecc[] = {
	{ .code = TPM_CC_ECDH_ZGen, .name = "ECDH_ZGen", .handles = 1, .auth = { AUTH_USER },
	  .htype = { HK_OBJECT }, .flags = CMD_PARAM_IN | CMD_PARAM_OUT | CMD_READS_STATE,
	  .run = ecdh_zgen },
	{ .code = TPM_CC_ECDH_KeyGen, .name = "ECDH_KeyGen", .handles = 1, .auth = { AUTH_NONE },
	  .htype = { HK_OBJECT }, .flags = CMD_PARAM_OUT | CMD_READS_STATE, .run = ecdh_keygen },
	{ .code = TPM_CC_ECC_Parameters, .name = "ECC_Parameters", .flags = CMD_READS_STATE,
	  .run = ecc_parameters },
	{ 0 },
};
