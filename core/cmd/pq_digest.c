/* SignDigest, VerifyDigestSignature (TPM 2.0 Library v1.85, Part 3 §20.7, §20.4).
 *
 * What "digest" is depends on the key:
 *   ML-DSA with allowExternalMu  the external mu of FIPS 204 (64 bytes), which already holds the
 *                                context: context must be empty
 *   ML-DSA without it            TPM_RC_EXT_MU
 *   HashML-DSA                   PH(M) with the key's pre-hash; context is the FIPS 204 context
 *   RSA, ECC                     a digest of the key scheme's hash, as for Sign; no context
 * A restricted key needs a hashcheck ticket for the digest, as for Sign; a restricted ML-DSA
 * key is refused (nothing proves who computed a mu). The ticket of VerifyDigestSignature is
 * TPM_ST_DIGEST_VERIFIED with the digest's hash as metadata (SHAKE256 for an external mu). */
#include "compute.h"
#include "scheme.h"
#include "ticket.h"

/* The checks SignDigest shares with Sign: a signing key, not for certificates only. */
static TPM_RC signing_key(const struct object *key)
{
	if (!(key->pub.attributes & TPMA_OBJECT_SIGN_ENCRYPT))
		return rc_handle(TPM_RC_KEY, 1);
	if (key->pub.attributes & TPMA_OBJECT_X509SIGN)
		return rc_handle(TPM_RC_ATTRIBUTES, 1);
	return TPM_RC_SUCCESS;
}

/* External mu: allowed by the key, 64 bytes, no separate context. */
static TPM_RC external_mu(const struct object *key, const struct tpm2b_signature_ctx *ctx,
			  const struct tpm2b_digest *digest)
{
	if (!key->pub.allow_external_mu)
		return rc_handle(TPM_RC_EXT_MU, 1);
	if (ctx->size)
		return rc_param(TPM_RC_VALUE, 1);
	if (digest->size != SCHEME_MU_BYTES)
		return rc_param(TPM_RC_SIZE, 2);
	return TPM_RC_SUCCESS;
}

/* The message representative an ML-DSA kind of key signs or checks for this digest. */
static TPM_RC mu_of(const struct object *key, const struct tpm2b_signature_ctx *ctx,
		    const struct tpm2b_digest *digest, uint8_t mu[SCHEME_MU_BYTES])
{
	TPM_ALG_ID hash = key->pub.pre_hash;

	if (key->pub.type == TPM_ALG_MLDSA) {
		TRY(external_mu(key, ctx, digest));
		for (size_t i = 0; i < SCHEME_MU_BYTES; i++)
			mu[i] = digest->b[i];
		return TPM_RC_SUCCESS;
	}
	if (digest->size != crypto_hash_size(hash))
		return rc_param(TPM_RC_SIZE, 2);
	return rc_handle(scheme_mldsa_mu_hash(object_mldsa_tr(key), hash, digest->b, digest->size,
					      ctx->b, ctx->size, mu),
			 1);
}

static bool is_mldsa_kind(const struct object *key)
{
	return key->pub.type == TPM_ALG_MLDSA || key->pub.type == TPM_ALG_HASH_MLDSA;
}

/* RSA, ECC: the key's own scheme, as Sign would choose with inScheme NULL. */
static TPM_RC classical_scheme(const struct object *key, const struct tpm2b_signature_ctx *ctx,
			       const struct tpm2b_digest *digest, struct tpmt_scheme *scheme)
{
	struct tpmt_scheme none = { .scheme = TPM_ALG_NULL, .hash_alg = TPM_ALG_NULL,
				    .kdf = TPM_ALG_NULL };

	if (ctx->size)
		return rc_param(TPM_RC_VALUE, 1);
	/* an HMAC is no signature of a digest; a key without a scheme has none to use */
	if (key->pub.type == TPM_ALG_KEYEDHASH || key->pub.scheme.scheme == TPM_ALG_NULL)
		return rc_handle(TPM_RC_SCHEME, 1);
	TRY(rc_handle(scheme_sign(&key->pub, &none, scheme), 1));
	if (digest->size != crypto_hash_size(scheme->hash_alg))
		return rc_param(TPM_RC_SIZE, 2);
	return TPM_RC_SUCCESS;
}

/* The signature without the engine lock (compute.h): over the digest with scheme (RSA, ECC),
 * or over mu (ML-DSA kinds: scheme NULL). */
static TPM_RC sign_unlocked(struct cmd *c, const struct tpmt_scheme *scheme,
			    const struct tpm2b_digest *digest, const uint8_t mu[SCHEME_MU_BYTES],
			    struct tpmt_signature *sig)
{
	struct key_material k;
	TPM_RC rc;

	TRY(cmd_unlock_key(c, 0, &k));
	if (scheme)
		rc = scheme_sign_digest(&k, scheme, digest, sig);
	else
		rc = scheme_mldsa_sign_mu(&k, mu, sig);
	return cmd_relock_key(c, &k, rc);
}

static TPM_RC sign_digest(struct cmd *c)
{
	struct object *key = c->obj[0];
	struct tpm2b_signature_ctx ctx;
	struct tpm2b_digest digest;
	struct tpmt_ticket validation;
	struct tpmt_signature sig;
	struct tpmt_scheme scheme;
	uint8_t mu[SCHEME_MU_BYTES];
	TPM_RC rc;

	TRYP(1, rd_signature_ctx(&c->in, &ctx));
	TRYP(2, rd_tpm2b_digest(&c->in, &digest));
	TRYP(3, rd_ticket(&c->in, &validation));
	TRY(cmd_params_done(c));
	if (validation.tag != TPM_ST_HASHCHECK)
		return rc_param(TPM_RC_TAG, 3);
	TRY(signing_key(key));
	if (!is_mldsa_kind(key)) {
		TRY(classical_scheme(key, &ctx, &digest, &scheme));
		TRYP(3, scheme_sign_allowed(c->e, key, &digest, &validation));
		TRY(sign_unlocked(c, &scheme, &digest, NULL, &sig));
		return wr_signature(&c->out, &sig);
	}
	if (key->pub.type == TPM_ALG_MLDSA && (key->pub.attributes & TPMA_OBJECT_RESTRICTED))
		return rc_handle(TPM_RC_ATTRIBUTES, 1);
	TRYP(3, scheme_sign_allowed(c->e, key, &digest, &validation));
	rc = mu_of(key, &ctx, &digest, mu);
	if (rc == TPM_RC_SUCCESS)
		rc = sign_unlocked(c, NULL, NULL, mu, &sig);
	crypto_wipe(mu, sizeof(mu));
	TRY(rc);
	return wr_signature(&c->out, &sig);
}

/* The check without the engine lock, as sign_unlocked; its code numbered as parameter 3. */
static TPM_RC verify_unlocked(struct cmd *c, const struct tpm2b_digest *digest,
			      const uint8_t mu[SCHEME_MU_BYTES], const struct tpmt_signature *sig)
{
	struct key_material k;
	TPM_RC rc;

	TRY(cmd_unlock_key(c, 0, &k));
	if (digest)
		rc = scheme_verify(&k, digest, sig);
	else
		rc = scheme_mldsa_verify_mu(&k, mu, sig);
	return cmd_relock_key(c, &k, rc_param(rc, 3));
}

static TPM_RC verify_digest_signature(struct cmd *c)
{
	const struct object *key = c->obj[0];
	struct tpm2b_signature_ctx ctx;
	struct tpm2b_digest digest;
	struct tpmt_signature sig;
	struct tpmt_ticket t;
	uint8_t mu[SCHEME_MU_BYTES];
	TPM_ALG_ID meta;

	TRYP(1, rd_signature_ctx(&c->in, &ctx));
	TRYP(2, rd_tpm2b_digest(&c->in, &digest));
	TRYP(3, rd_signature(&c->in, &sig));
	TRY(cmd_params_done(c));
	if (!(key->pub.attributes & TPMA_OBJECT_SIGN_ENCRYPT))
		return rc_handle(TPM_RC_ATTRIBUTES, 1);
	if (is_mldsa_kind(key)) {
		TRY(mu_of(key, &ctx, &digest, mu));
		meta = key->pub.type == TPM_ALG_MLDSA ? TPM_ALG_SHAKE256 : key->pub.pre_hash;
		TRY(verify_unlocked(c, NULL, mu, &sig));
	} else {
		if (ctx.size)
			return rc_param(TPM_RC_VALUE, 1);
		meta = sig.hash;
		TRY(verify_unlocked(c, &digest, NULL, &sig));
	}
	key = c->obj[0]; /* found again */
	/* no ticket for a key without a Name, nor for a context (see sig_seq_begin) */
	if (key->pub.name_alg == TPM_ALG_NULL || ctx.size != 0) {
		ticket_null(&t, TPM_ST_DIGEST_VERIFIED);
		t.metadata = meta;
	} else {
		TRY(ticket_digest_verified(c->e, key->hierarchy, digest.b, digest.size, &key->name,
					   meta, &t));
	}
	return wr_ticket(&c->out, &t);
}

const struct cmd_def cmds_pq_digest[] = {
	{ .code = TPM_CC_VerifyDigestSignature, .name = "VerifyDigestSignature", .handles = 1,
	  .auth = { AUTH_NONE }, .htype = { HK_OBJECT }, .flags = CMD_PARAM_IN | CMD_READS_STATE,
	  .run = verify_digest_signature },
	{ .code = TPM_CC_SignDigest, .name = "SignDigest", .handles = 1, .auth = { AUTH_USER },
	  .htype = { HK_OBJECT }, .flags = CMD_PARAM_IN | CMD_READS_STATE, .run = sign_digest },
	{ 0 },
};
