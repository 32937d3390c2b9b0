/* SignSequenceStart, SignSequenceComplete, VerifySequenceStart, VerifySequenceComplete
 * (TPM 2.0 Library v1.85, Part 3 §17.5, §20.6, §17.6, §20.3). SequenceUpdate feeds these
 * sequences through cmd/hash.c; their state lives in pq_seq.c. Any signing key may start a
 * sequence: ML-DSA signs the message itself (mu built as it streams), HashML-DSA and the
 * classical schemes sign its hash. */
#include "cmd/pq_seq.h"
#include "compute.h"

static TPM_RC rd_buffer(struct rd *r, struct tpm2b_max_buffer *b)
{
	return rd_tpm2b(r, b->b, sizeof(b->b), &b->size);
}

/* A sequence object as the hash sequences have it: no type, no Name, NULL hierarchy, exempt
 * from dictionary-attack lockout, its authValue the one given at the start. */
static TPM_RC seq_alloc(struct cmd *c, enum object_kind kind, const struct tpm2b_digest *auth,
			struct object **out)
{
	struct object *o;

	TRY(object_alloc(c->client, kind, &o));
	o->hierarchy = TPM_RH_NULL;
	o->has_sensitive = true;
	o->pub.type = TPM_ALG_NULL;
	o->pub.name_alg = TPM_ALG_NULL;
	o->pub.attributes = TPMA_OBJECT_NODA;
	o->sens.type = TPM_ALG_NULL;
	o->sens.auth_value = *auth;
	*out = o;
	return TPM_RC_SUCCESS;
}

/* keyHandle of a Start: a key that signs (TPM_RC_KEY); to sign, it needs its private part. */
static TPM_RC start_key(const struct object *key, bool sign)
{
	if (key->kind != OBJ_KEY || !(key->pub.attributes & TPMA_OBJECT_SIGN_ENCRYPT))
		return rc_handle(TPM_RC_KEY, 1);
	if (sign && !key->has_sensitive)
		return TPM_RC_AUTH_UNAVAILABLE;
	return TPM_RC_SUCCESS;
}

/* Codes of sig_seq_begin: a context where none belongs is parameter ctx_param's, the rest is
 * about the key. */
static TPM_RC begin_rc(TPM_RC rc, unsigned ctx_param)
{
	return rc == TPM_RC_VALUE ? rc_param(rc, ctx_param) : rc_handle(rc, 1);
}

static TPM_RC start(struct cmd *c, enum object_kind kind, const struct tpm2b_digest *auth,
		    const struct tpm2b_signature_ctx *ctx, unsigned ctx_param)
{
	struct object *o;
	TPM_RC rc;

	TRY(seq_alloc(c, kind, auth, &o));
	rc = sig_seq_begin(c->e, o, c->obj[0], ctx, kind == OBJ_VERIFY_SEQ);
	if (rc != TPM_RC_SUCCESS) {
		object_release(c->client, o);
		return begin_rc(rc, ctx_param);
	}
	c->rsp_handle = o->handle;
	return TPM_RC_SUCCESS;
}

static TPM_RC sign_sequence_start(struct cmd *c)
{
	struct tpm2b_signature_ctx ctx;
	struct tpm2b_digest auth;
	TPM_RC rc;

	TRYP(1, rd_tpm2b_digest(&c->in, &auth));
	rc = rc_param(rd_signature_ctx(&c->in, &ctx), 2);
	if (rc == TPM_RC_SUCCESS)
		rc = cmd_params_done(c);
	if (rc == TPM_RC_SUCCESS)
		rc = start_key(c->obj[0], true);
	if (rc == TPM_RC_SUCCESS)
		rc = start(c, OBJ_SIGN_SEQ, &auth, &ctx, 2);
	crypto_wipe(&auth, sizeof(auth));
	return rc;
}

static TPM_RC verify_sequence_start(struct cmd *c)
{
	struct tpm2b_signature_ctx ctx;
	struct tpm2b_digest auth;
	TPM_RC rc;

	TRYP(1, rd_tpm2b_digest(&c->in, &auth));
	rc = rc_param(rd_signature_hint(&c->in), 2);
	if (rc == TPM_RC_SUCCESS)
		rc = rc_param(rd_signature_ctx(&c->in, &ctx), 3);
	if (rc == TPM_RC_SUCCESS)
		rc = cmd_params_done(c);
	if (rc == TPM_RC_SUCCESS)
		rc = start_key(c->obj[0], false);
	if (rc == TPM_RC_SUCCESS)
		rc = start(c, OBJ_VERIFY_SEQ, &auth, &ctx, 3);
	crypto_wipe(&auth, sizeof(auth));
	return rc;
}

/* The sequence of a Complete (handle 1) and the key that finishes it (handle 2). */
static TPM_RC complete_handles(struct cmd *c, enum object_kind kind)
{
	if (c->obj[0]->kind != kind)
		return rc_handle(TPM_RC_MODE, 1);
	return rc_handle(sig_seq_same_key(c->obj[0], c->obj[1]), 2);
}

/* The sequence object is gone once the command succeeds. */
static void seq_done(struct cmd *c)
{
	object_release(c->client, c->obj[0]);
	c->obj[0] = NULL;
}

/* The key (handle 2) signs or checks m without the engine lock (compute.h); the sequence and
 * the key are found again afterwards. Codes about the key are handle 2's. */
static TPM_RC complete_unlocked(struct cmd *c, const struct sig_seq_msg *m,
				struct tpmt_signature *sig, bool sign)
{
	struct key_material k;
	TPM_RC rc;

	TRY(cmd_unlock_key(c, 1, &k));
	if (sign)
		rc = rc_handle(sig_seq_sign(m, &k, sig), 2);
	else
		rc = rc_param(sig_seq_verify(m, &k, sig), 1);
	return cmd_relock_key(c, &k, rc);
}

static TPM_RC sign_sequence_complete(struct cmd *c)
{
	struct object *key = c->obj[1];
	struct tpm2b_max_buffer buf;
	struct tpmt_signature sig;
	struct sig_seq_msg m;
	TPM_RC rc;

	TRYP(1, rd_buffer(&c->in, &buf));
	TRY(cmd_params_done(c));
	TRY(complete_handles(c, OBJ_SIGN_SEQ));
	/* an x509sign key signs only certificates (CertifyX509) */
	if (key->pub.attributes & TPMA_OBJECT_X509SIGN)
		return rc_handle(TPM_RC_ATTRIBUTES, 2);
	/* a restricted key does not sign what could pass for a TPM-made structure */
	if ((key->pub.attributes & TPMA_OBJECT_RESTRICTED) &&
	    sig_seq_starts_generated(c->obj[0], buf.b, buf.size))
		return rc_param(TPM_RC_VALUE, 1);
	rc = rc_handle(sig_seq_finish(c->obj[0], key, buf.b, buf.size, &m), 2);
	if (rc == TPM_RC_SUCCESS)
		rc = complete_unlocked(c, &m, &sig, true);
	sig_seq_msg_wipe(&m);
	TRY(rc);
	seq_done(c);
	return wr_signature(&c->out, &sig);
}

static TPM_RC verify_sequence_complete(struct cmd *c)
{
	struct tpmt_signature sig;
	struct tpmt_ticket t;
	struct sig_seq_msg m;
	TPM_RC rc;

	TRYP(1, rd_signature(&c->in, &sig));
	TRY(cmd_params_done(c));
	TRY(complete_handles(c, OBJ_VERIFY_SEQ));
	TRYP(1, sig_seq_check_scheme(c->obj[0], &sig));
	rc = rc_param(sig_seq_finish(c->obj[0], c->obj[1], NULL, 0, &m), 1);
	if (rc == TPM_RC_SUCCESS)
		rc = complete_unlocked(c, &m, &sig, false);
	sig_seq_msg_wipe(&m);
	TRY(rc);
	TRYP(1, sig_seq_ticket(c->obj[0], &t));
	seq_done(c);
	return wr_ticket(&c->out, &t);
}

const struct cmd_def cmds_pq_sequence[] = {
	{ .code = TPM_CC_VerifySequenceComplete, .name = "VerifySequenceComplete",
	  .handles = 2, .auth = { AUTH_USER, AUTH_NONE }, .htype = { HK_OBJECT, HK_OBJECT },
	  .flags = CMD_READS_STATE, .run = verify_sequence_complete },
	{ .code = TPM_CC_SignSequenceComplete, .name = "SignSequenceComplete", .handles = 2,
	  .auth = { AUTH_USER, AUTH_USER }, .htype = { HK_OBJECT, HK_OBJECT },
	  .flags = CMD_PARAM_IN | CMD_READS_STATE, .run = sign_sequence_complete },
	{ .code = TPM_CC_VerifySequenceStart, .name = "VerifySequenceStart", .handles = 1,
	  .auth = { AUTH_NONE }, .htype = { HK_OBJECT },
	  .flags = CMD_PARAM_IN | CMD_RHANDLE | CMD_READS_STATE, .run = verify_sequence_start },
	{ .code = TPM_CC_SignSequenceStart, .name = "SignSequenceStart", .handles = 1,
	  .auth = { AUTH_NONE }, .htype = { HK_OBJECT },
	  .flags = CMD_PARAM_IN | CMD_RHANDLE | CMD_READS_STATE, .run = sign_sequence_start },
	{ 0 },
};
