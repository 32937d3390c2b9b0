/* ECC_Encrypt, ECC_Decrypt (Part 3 §14.8, §14.9 of Library 1.59; Part 1 "ECC encryption"):
 * with an ephemeral k, C1 = [k]G and P2 = [k]Q = [d]C1 = (x2, y2); C2 = M XOR KDF2(x2 || y2)
 * with the scheme's hash, C3 = H(x2 || M || y2). The scheme is the key's kdf or the
 * command's, as the reference implementation picks it (CryptEccSelectScheme); KDF2 is the one
 * scheme these commands run, as there. The point multiplications run without the engine lock
 * (compute.h), as ECDH_ZGen's. */
#include <string.h>

#include "compute.h"
#include "scheme.h"

#define ECC_MAX CRYPTO_MAX_ECC_BYTES

/* The key's kdf wins; the command may repeat it (scheme and hash) or give one when the key
 * has none. TPM_RC_SCHEME: none at all, different ones, or one other than KDF2. */
static TPM_RC pick_kdf(const struct object *key, const struct tpmt_scheme *in,
		       struct tpmt_scheme *out)
{
	const struct tpmt_scheme *k = &key->pub.kdf;

	*out = k->scheme == TPM_ALG_NULL ? *in : *k;
	if (out->scheme == TPM_ALG_NULL)
		return TPM_RC_SCHEME;
	if (in->scheme != TPM_ALG_NULL &&
	    (in->scheme != out->scheme || in->hash_alg != out->hash_alg))
		return TPM_RC_SCHEME;
	return out->scheme == TPM_ALG_KDF2 ? TPM_RC_SUCCESS : TPM_RC_SCHEME;
}

/* data ^= KDF2(x2 || y2, len); and C3 = H(x2 || m || y2) of the plaintext m */
static TPM_RC mask(TPM_ALG_ID hash, const uint8_t *x2, const uint8_t *y2, size_t clen,
		   uint8_t *data, size_t len)
{
	uint8_t z[2 * ECC_MAX], m[MAX_BUFFER];
	TPM_RC rc;

	memcpy(z, x2, clen);
	memcpy(z + clen, y2, clen);
	rc = crypto_kdf2(hash, z, 2 * clen, m, len);
	for (size_t i = 0; rc == TPM_RC_SUCCESS && i < len; i++)
		data[i] ^= m[i];
	crypto_wipe(z, sizeof(z));
	crypto_wipe(m, sizeof(m));
	return rc;
}

static TPM_RC c3_of(TPM_ALG_ID hash, const uint8_t *x2, const uint8_t *y2, size_t clen,
		 const uint8_t *m, size_t len, uint8_t *out)
{
	struct crypto_hash_ctx h;
	TPM_RC rc = crypto_hash_start(&h, hash);

	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hash_update(&h, x2, clen);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hash_update(&h, m, len);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hash_update(&h, y2, clen);
	if (rc == TPM_RC_SUCCESS)
		return crypto_hash_finish(&h, out);
	crypto_wipe(&h, sizeof(h));
	return rc;
}

/* C1, C2 (m in place) and C3 without the engine lock (compute.h), with the key's point */
static TPM_RC encrypt_unlocked(struct cmd *c, const struct tpmt_scheme *scheme,
			       struct tpm2b_max_buffer *m, uint8_t *x1, uint8_t *y1, uint8_t *c3)
{
	uint8_t k[ECC_MAX], x2[ECC_MAX], y2[ECC_MAX];
	struct key_material key;
	uint16_t curve;
	size_t len;
	TPM_RC rc;

	TRY(cmd_unlock_key(c, 0, &key));
	curve = key.pub.curve_id;
	len = crypto_ecc_bytes(curve);
	rc = crypto_ecc_generate(crypto_system_rng(), curve, k, x1, y1);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_ecc_mul(curve, k, key.pub.x.b, key.pub.y.b, x2, y2);
	crypto_wipe(k, sizeof(k));
	if (rc == TPM_RC_SUCCESS)
		rc = c3_of(scheme->hash_alg, x2, y2, len, m->b, m->size, c3);
	if (rc == TPM_RC_SUCCESS)
		rc = mask(scheme->hash_alg, x2, y2, len, m->b, m->size);
	crypto_wipe(x2, sizeof(x2));
	crypto_wipe(y2, sizeof(y2));
	return cmd_relock_key(c, &key, rc);
}

static TPM_RC ecc_encrypt(struct cmd *c)
{
	const struct object *key = c->obj[0];
	size_t len = crypto_ecc_bytes(key->pub.curve_id);
	uint8_t x1[ECC_MAX], y1[ECC_MAX], digest[CRYPTO_MAX_DIGEST];
	struct tpm2b_max_buffer m;
	struct tpmt_scheme in, scheme;
	TPM_RC rc;

	TRYP(1, rd_tpm2b(&c->in, m.b, sizeof(m.b), &m.size));
	TRYP(2, rd_kdf_scheme(&c->in, &in, true));
	TRY(cmd_params_done(c));
	if (key->pub.type != TPM_ALG_ECC || len == 0)
		return rc_handle(TPM_RC_KEY, 1);
	TRYP(2, pick_kdf(key, &in, &scheme));
	rc = encrypt_unlocked(c, &scheme, &m, x1, y1, digest);
	if (rc == TPM_RC_SUCCESS)
		rc = wr_tpm2b_ecc_point(&c->out, x1, y1, len);
	if (rc == TPM_RC_SUCCESS)
		rc = wr_tpm2b(&c->out, m.b, m.size);
	if (rc == TPM_RC_SUCCESS)
		rc = wr_tpm2b(&c->out, digest, (uint16_t)crypto_hash_size(scheme.hash_alg));
	crypto_wipe(&m, sizeof(m));
	return rc;
}

/* An unrestricted ECC decryption key with its private part */
static TPM_RC decrypt_key(const struct object *key)
{
	if (key->pub.type != TPM_ALG_ECC || crypto_ecc_bytes(key->pub.curve_id) == 0)
		return rc_handle(TPM_RC_KEY, 1);
	if (key->pub.attributes & TPMA_OBJECT_RESTRICTED ||
	    !(key->pub.attributes & TPMA_OBJECT_DECRYPT))
		return rc_handle(TPM_RC_ATTRIBUTES, 1);
	return key->has_sensitive ? TPM_RC_SUCCESS : TPM_RC_AUTH_UNAVAILABLE;
}

/* m (C2 in place) from C1 and the key's d without the engine lock; TPM_RC_VALUE (C3) unless
 * C3 vouches for it */
static TPM_RC decrypt_unlocked(struct cmd *c, const struct tpmt_scheme *scheme,
			       const struct tpm2b_ecc_parameter *cx,
			       const struct tpm2b_ecc_parameter *cy,
			       const struct tpm2b_digest *given, struct tpm2b_max_buffer *m)
{
	uint8_t d[ECC_MAX], x2[ECC_MAX], y2[ECC_MAX], digest[CRYPTO_MAX_DIGEST];
	struct key_material key;
	uint16_t curve;
	size_t len;
	TPM_RC rc;

	TRY(cmd_unlock_key(c, 0, &key));
	curve = key.pub.curve_id;
	len = crypto_ecc_bytes(curve);
	rc = rc_handle(scheme_ecc_fixed(key.sens.sensitive.b, key.sens.sensitive.size, len, d), 1);
	if (rc == TPM_RC_SUCCESS)
		rc = rc_param(crypto_ecdh(curve, d, cx->b, cx->size, cy->b, cy->size, x2, y2), 1);
	crypto_wipe(d, sizeof(d));
	if (rc == TPM_RC_SUCCESS)
		rc = mask(scheme->hash_alg, x2, y2, len, m->b, m->size);
	if (rc == TPM_RC_SUCCESS)
		rc = c3_of(scheme->hash_alg, x2, y2, len, m->b, m->size, digest);
	if (rc == TPM_RC_SUCCESS &&
	    (given->size != crypto_hash_size(scheme->hash_alg) ||
	     !crypto_ct_equal(digest, given->b, given->size)))
		rc = rc_param(TPM_RC_VALUE, 3);
	crypto_wipe(x2, sizeof(x2));
	crypto_wipe(y2, sizeof(y2));
	return cmd_relock_key(c, &key, rc);
}

static TPM_RC ecc_decrypt(struct cmd *c)
{
	const struct object *key = c->obj[0];
	struct tpm2b_ecc_parameter cx, cy;
	struct tpm2b_max_buffer m;
	struct tpm2b_digest given;
	struct tpmt_scheme in, scheme;
	TPM_RC rc;

	TRYP(1, rd_tpm2b_ecc_point(&c->in, &cx, &cy, false));
	TRYP(2, rd_tpm2b(&c->in, m.b, sizeof(m.b), &m.size));
	TRYP(3, rd_tpm2b_digest(&c->in, &given));
	TRYP(4, rd_kdf_scheme(&c->in, &in, true));
	TRY(cmd_params_done(c));
	TRY(decrypt_key(key));
	TRYP(4, pick_kdf(key, &in, &scheme));
	/* the plaintext leaves only when C3 vouches for it */
	rc = decrypt_unlocked(c, &scheme, &cx, &cy, &given, &m);
	if (rc == TPM_RC_SUCCESS)
		rc = wr_tpm2b(&c->out, m.b, m.size);
	crypto_wipe(&m, sizeof(m));
	return rc;
}

const struct cmd_def cmds_ecc_encrypt[] = {
	{ .code = TPM_CC_ECC_Encrypt, .name = "ECC_Encrypt", .handles = 1, .auth = { AUTH_NONE },
	  .htype = { HK_OBJECT }, .flags = CMD_PARAM_IN | CMD_PARAM_OUT | CMD_READS_STATE,
	  .run = ecc_encrypt },
	{ .code = TPM_CC_ECC_Decrypt, .name = "ECC_Decrypt", .handles = 1, .auth = { AUTH_USER },
	  .htype = { HK_OBJECT }, .flags = CMD_PARAM_IN | CMD_PARAM_OUT, .run = ecc_decrypt },
	{ 0 },
};
