/* v1.85 signing: SignSequenceStart, VerifySequenceStart, SequenceUpdate,
 * SignSequenceComplete, VerifySequenceComplete, SignDigest, VerifyDigestSignature, and whole
 * messages through a sequence. */
#include "tss_int.h"

TPM_RC pqtpm_tss_sign_sequence_start(struct pqtpm_tss *t, TPM_HANDLE key, const char *seq_auth,
				     const uint8_t *ctx, size_t ctx_len, TPM_HANDLE *seq)
{
	struct tss_cmd c;
	struct rd r;

	tss_begin(&c, t, TPM_CC_SignSequenceStart);
	tss_param_enc(&c, TSS_ENC_IN);
	tss_handle(&c, key);
	tss_tpm2b_str(&c, seq_auth);
	tss_tpm2b(&c, ctx, ctx_len);
	TRY(tss_run(&c, &r, seq));
	tss_name_put(t, *seq, &(struct pqtpm_tss_name){ 0 }); /* sequences have no Name */
	return tss_rd_end(&r);
}

TPM_RC pqtpm_tss_verify_sequence_start(struct pqtpm_tss *t, TPM_HANDLE key,
				       const char *seq_auth, const uint8_t *ctx, size_t ctx_len,
				       TPM_HANDLE *seq)
{
	struct tss_cmd c;
	struct rd r;

	tss_begin(&c, t, TPM_CC_VerifySequenceStart);
	tss_param_enc(&c, TSS_ENC_IN);
	tss_handle(&c, key);
	tss_tpm2b_str(&c, seq_auth);
	tss_u16(&c, 0); /* hint: EdDSA only */
	tss_tpm2b(&c, ctx, ctx_len);
	TRY(tss_run(&c, &r, seq));
	tss_name_put(t, *seq, &(struct pqtpm_tss_name){ 0 });
	return tss_rd_end(&r);
}

TPM_RC pqtpm_tss_sequence_update(struct pqtpm_tss *t, TPM_HANDLE seq, const char *seq_auth,
				 const uint8_t *data, size_t len)
{
	struct tss_cmd c;

	if (len > PQTPM_TSS_MAX_BUFFER)
		return PQTPM_TSS_RC_BAD_VALUE;
	tss_begin(&c, t, TPM_CC_SequenceUpdate);
	tss_param_enc(&c, TSS_ENC_IN);
	tss_handle(&c, seq);
	tss_auth(&c, seq_auth);
	tss_tpm2b(&c, data, len);
	return tss_run(&c, NULL, NULL);
}

TPM_RC pqtpm_tss_sign_sequence_complete(struct pqtpm_tss *t, TPM_HANDLE seq,
					const char *seq_auth, TPM_HANDLE key,
					const char *key_auth, const uint8_t *data, size_t len,
					struct pqtpm_tss_signature *sig)
{
	struct tss_cmd c;
	struct rd r;

	if (len > PQTPM_TSS_MAX_BUFFER)
		return PQTPM_TSS_RC_BAD_VALUE;
	tss_begin(&c, t, TPM_CC_SignSequenceComplete);
	tss_param_enc(&c, TSS_ENC_IN);
	tss_handle(&c, seq);
	tss_handle(&c, key);
	tss_auth(&c, seq_auth);
	tss_auth(&c, key_auth);
	tss_tpm2b(&c, data, len);
	TRY(tss_run(&c, &r, NULL));
	TRY(tss_rd_signature(&r, sig));
	return tss_rd_end(&r);
}

TPM_RC pqtpm_tss_verify_sequence_complete(struct pqtpm_tss *t, TPM_HANDLE seq,
					  const char *seq_auth, TPM_HANDLE key,
					  const struct pqtpm_tss_signature *sig,
					  struct pqtpm_tss_ticket *ticket)
{
	struct tss_cmd c;
	struct rd r;

	tss_begin(&c, t, TPM_CC_VerifySequenceComplete);
	tss_handle(&c, seq);
	tss_handle(&c, key);
	tss_auth(&c, seq_auth);
	tss_bytes(&c, sig->b, sig->size);
	TRY(tss_run(&c, &r, NULL));
	TRY(tss_rd_ticket(&r, ticket));
	return tss_rd_end(&r);
}

/* All of msg but its last piece through SequenceUpdate. */
static TPM_RC feed(struct pqtpm_tss *t, TPM_HANDLE seq, const char *auth, const uint8_t **msg,
		   size_t *len, size_t keep)
{
	while (*len > keep) {
		size_t n = *len - keep > PQTPM_TSS_MAX_BUFFER ? PQTPM_TSS_MAX_BUFFER : *len - keep;

		TRY(pqtpm_tss_sequence_update(t, seq, auth, *msg, n));
		*msg += n;
		*len -= n;
	}
	return TPM_RC_SUCCESS;
}

TPM_RC pqtpm_tss_sign_message(struct pqtpm_tss *t, TPM_HANDLE key, const char *key_auth,
			      const uint8_t *ctx, size_t ctx_len, const uint8_t *msg, size_t len,
			      struct pqtpm_tss_signature *sig)
{
	TPM_HANDLE seq = 0;
	TPM_RC rc;

	TRY(pqtpm_tss_sign_sequence_start(t, key, "", ctx, ctx_len, &seq));
	rc = feed(t, seq, "", &msg, &len, PQTPM_TSS_MAX_BUFFER);
	if (rc == TPM_RC_SUCCESS)
		rc = pqtpm_tss_sign_sequence_complete(t, seq, "", key, key_auth, msg, len, sig);
	if (rc != TPM_RC_SUCCESS)
		pqtpm_tss_flush(t, seq);
	return rc;
}

TPM_RC pqtpm_tss_verify_message(struct pqtpm_tss *t, TPM_HANDLE key, const uint8_t *ctx,
				size_t ctx_len, const uint8_t *msg, size_t len,
				const struct pqtpm_tss_signature *sig,
				struct pqtpm_tss_ticket *ticket)
{
	TPM_HANDLE seq = 0;
	TPM_RC rc;

	TRY(pqtpm_tss_verify_sequence_start(t, key, "", ctx, ctx_len, &seq));
	rc = feed(t, seq, "", &msg, &len, 0);
	if (rc == TPM_RC_SUCCESS)
		rc = pqtpm_tss_verify_sequence_complete(t, seq, "", key, sig, ticket);
	if (rc != TPM_RC_SUCCESS)
		pqtpm_tss_flush(t, seq);
	return rc;
}

TPM_RC pqtpm_tss_sign_digest(struct pqtpm_tss *t, TPM_HANDLE key, const char *key_auth,
			     const uint8_t *ctx, size_t ctx_len, const uint8_t *digest,
			     size_t dlen, struct pqtpm_tss_signature *sig)
{
	struct tss_cmd c;
	struct rd r;

	tss_begin(&c, t, TPM_CC_SignDigest);
	tss_param_enc(&c, TSS_ENC_IN);
	tss_handle(&c, key);
	tss_auth(&c, key_auth);
	tss_tpm2b(&c, ctx, ctx_len);
	tss_tpm2b(&c, digest, dlen);
	tss_u16(&c, TPM_ST_HASHCHECK); /* the NULL Ticket */
	tss_u32(&c, TPM_RH_NULL);
	tss_u16(&c, 0);
	TRY(tss_run(&c, &r, NULL));
	TRY(tss_rd_signature(&r, sig));
	return tss_rd_end(&r);
}

TPM_RC pqtpm_tss_verify_digest_signature(struct pqtpm_tss *t, TPM_HANDLE key,
					 const uint8_t *ctx, size_t ctx_len,
					 const uint8_t *digest, size_t dlen,
					 const struct pqtpm_tss_signature *sig,
					 struct pqtpm_tss_ticket *ticket)
{
	struct tss_cmd c;
	struct rd r;

	tss_begin(&c, t, TPM_CC_VerifyDigestSignature);
	tss_param_enc(&c, TSS_ENC_IN);
	tss_handle(&c, key);
	tss_tpm2b(&c, ctx, ctx_len);
	tss_tpm2b(&c, digest, dlen);
	tss_bytes(&c, sig->b, sig->size);
	TRY(tss_run(&c, &r, NULL));
	TRY(tss_rd_ticket(&r, ticket));
	return tss_rd_end(&r);
}
