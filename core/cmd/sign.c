/* Sign, VerifySignature (Part 3 §20.2, §20.1). A HashML-DSA key signs and checks digests here
 * (PH(M) with an empty context); a pure ML-DSA key signs messages, through the sequence
 * commands and SignDigest (cmd/pq_*.c), and is refused here with TPM_RC_SCHEME. */
#include "commit.h"
#include "compute.h"
#include "scheme.h"
#include "ticket.h"

/* The signature without the engine lock (compute.h): the key is found again afterwards. */
static TPM_RC sign_unlocked(struct cmd *c, const struct tpmt_scheme *scheme,
			    const struct tpm2b_digest *digest, struct tpmt_signature *sig)
{
	struct key_material k;

	TRY(cmd_unlock_key(c, 0, &k));
	return cmd_relock_key(c, &k, scheme_sign_digest(&k, scheme, digest, sig));
}

static TPM_RC sign(struct cmd *c)
{
	struct object *key = c->obj[0];
	struct tpm2b_digest digest;
	struct tpmt_scheme in, scheme;
	struct tpmt_ticket validation;
	struct tpmt_signature sig;

	TRYP(1, rd_tpm2b_digest(&c->in, &digest));
	TRYP(2, rd_sig_scheme(&c->in, &in, true));
	TRYP(3, rd_ticket(&c->in, &validation));
	TRY(cmd_params_done(c));
	if (validation.tag != TPM_ST_HASHCHECK)
		return rc_param(TPM_RC_TAG, 3);
	if (!(key->pub.attributes & TPMA_OBJECT_SIGN_ENCRYPT))
		return rc_handle(TPM_RC_KEY, 1);
	/* an x509sign key signs only certificates (CertifyX509) */
	if (key->pub.attributes & TPMA_OBJECT_X509SIGN)
		return rc_handle(TPM_RC_ATTRIBUTES, 1);
	TRYP(2, scheme_sign(&key->pub, &in, &scheme));
	if (scheme.scheme == TPM_ALG_MLDSA)
		return rc_param(TPM_RC_SCHEME, 2);
	TRYP(3, scheme_sign_allowed(c->e, key, &digest, &validation));
	if (digest.size != crypto_hash_size(scheme.hash_alg))
		return rc_param(TPM_RC_SIZE, 1);
	/* ECDAA uses a commit (commit.h), named by the scheme's count: under the lock */
	if (scheme.scheme == TPM_ALG_ECDAA)
		TRYP(2, commit_sign_ecdaa(c->e, key, &scheme, &digest, &sig));
	else
		TRY(sign_unlocked(c, &scheme, &digest, &sig));
	return wr_signature(&c->out, &sig);
}

/* The check without the engine lock; its code numbered as parameter 2 (the signature). */
static TPM_RC verify_unlocked(struct cmd *c, const struct tpm2b_digest *digest,
			      const struct tpmt_signature *sig)
{
	struct key_material k;
	TPM_RC rc;

	TRY(cmd_unlock_key(c, 0, &k));
	rc = rc_param(scheme_verify(&k, digest, sig), 2);
	return cmd_relock_key(c, &k, rc);
}

static TPM_RC verify_signature(struct cmd *c)
{
	const struct object *key = c->obj[0];
	struct tpm2b_digest digest;
	struct tpmt_signature sig;
	struct tpmt_ticket t;

	TRYP(1, rd_tpm2b_digest(&c->in, &digest));
	TRYP(2, rd_signature(&c->in, &sig));
	TRY(cmd_params_done(c));
	if (!(key->pub.attributes & TPMA_OBJECT_SIGN_ENCRYPT))
		return rc_handle(TPM_RC_ATTRIBUTES, 1);
	TRY(verify_unlocked(c, &digest, &sig));
	key = c->obj[0]; /* found again */
	/* a key without a Name (nameAlg NULL) cannot be named in a ticket */
	if (key->pub.name_alg == TPM_ALG_NULL)
		ticket_null(&t, TPM_ST_VERIFIED);
	else
		TRY(ticket_verified(c->e, key->hierarchy, &digest, &key->name, &t));
	return wr_ticket(&c->out, &t);
}

const struct cmd_def cmds_sign[] = {
	{ .code = TPM_CC_Sign, .name = "Sign", .handles = 1, .auth = { AUTH_USER },
	  .htype = { HK_OBJECT }, .flags = CMD_PARAM_IN | CMD_READS_STATE, .run = sign },
	{ .code = TPM_CC_VerifySignature, .name = "VerifySignature", .handles = 1,
	  .auth = { AUTH_NONE }, .htype = { HK_OBJECT }, .flags = CMD_PARAM_IN | CMD_READS_STATE,
	  .run = verify_signature },
	{ 0 },
};
