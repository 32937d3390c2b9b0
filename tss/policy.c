/* Policy commands (Part 3 §23) on a policy or trial session: PolicyPassword, PolicyAuthValue,
 * PolicyCommandCode, PolicyPCR, PolicyOR, PolicySecret, PolicyGetDigest. */
#include "tss_int.h"

static TPM_RC session_ok(const struct pqtpm_tss_session *s)
{
	return s && s->handle && s->type != TPM_SE_HMAC ? TPM_RC_SUCCESS : PQTPM_TSS_RC_BAD_VALUE;
}

/* A policy command whose only argument is the session. */
static TPM_RC bare(struct pqtpm_tss_session *s, TPM_CC cc)
{
	struct tss_cmd c;
	struct rd r;

	TRY(session_ok(s));
	tss_begin(&c, s->t, cc);
	tss_handle(&c, s->handle);
	TRY(tss_run(&c, &r, NULL));
	return tss_rd_end(&r);
}

/* The authValue will go in clear in the HMAC field (Part 1 §19.7.8); the two exclude each
 * other, as in the TPM. */
TPM_RC pqtpm_tss_policy_password(struct pqtpm_tss_session *s)
{
	TRY(bare(s, TPM_CC_PolicyPassword));
	s->need_password = true;
	s->need_auth_value = false;
	return TPM_RC_SUCCESS;
}

/* The authValue will key the HMAC. */
TPM_RC pqtpm_tss_policy_auth_value(struct pqtpm_tss_session *s)
{
	TRY(bare(s, TPM_CC_PolicyAuthValue));
	s->need_auth_value = true;
	s->need_password = false;
	return TPM_RC_SUCCESS;
}

TPM_RC pqtpm_tss_policy_command_code(struct pqtpm_tss_session *s, TPM_CC cc)
{
	struct tss_cmd c;
	struct rd r;

	TRY(session_ok(s));
	tss_begin(&c, s->t, TPM_CC_PolicyCommandCode);
	tss_handle(&c, s->handle);
	tss_u32(&c, cc);
	TRY(tss_run(&c, &r, NULL));
	return tss_rd_end(&r);
}

TPM_RC pqtpm_tss_policy_pcr(struct pqtpm_tss_session *s, const struct pqtpm_tss_digest *pcr_digest,
			    const struct pqtpm_tss_pcr_select *sel, size_t nsel)
{
	struct tss_cmd c;
	struct rd r;

	TRY(session_ok(s));
	if (!sel || nsel == 0 || nsel > 16)
		return PQTPM_TSS_RC_BAD_VALUE;
	tss_begin(&c, s->t, TPM_CC_PolicyPCR);
	tss_param_enc(&c, TSS_ENC_IN);
	tss_handle(&c, s->handle);
	if (pcr_digest)
		tss_tpm2b(&c, pcr_digest->b, pcr_digest->size);
	else
		tss_u16(&c, 0);
	tss_pcr_selection(&c, sel, nsel);
	TRY(tss_run(&c, &r, NULL));
	return tss_rd_end(&r);
}

TPM_RC pqtpm_tss_policy_or(struct pqtpm_tss_session *s, const struct pqtpm_tss_digest *branches,
			   size_t n)
{
	struct tss_cmd c;
	struct rd r;

	TRY(session_ok(s));
	if (!branches || n < 2 || n > 8)
		return PQTPM_TSS_RC_BAD_VALUE;
	tss_begin(&c, s->t, TPM_CC_PolicyOR);
	tss_handle(&c, s->handle);
	tss_u32(&c, (uint32_t)n);
	for (size_t i = 0; i < n; i++)
		tss_tpm2b(&c, branches[i].b, branches[i].size);
	TRY(tss_run(&c, &r, NULL));
	return tss_rd_end(&r);
}

TPM_RC pqtpm_tss_policy_secret(struct pqtpm_tss_session *s, TPM_HANDLE auth_handle,
			       const char *auth_auth)
{
	struct pqtpm_tss_ticket ticket;
	struct pqtpm_tss_digest timeout;
	struct tss_cmd c;
	struct rd r;

	TRY(session_ok(s));
	tss_begin(&c, s->t, TPM_CC_PolicySecret);
	tss_param_enc(&c, TSS_ENC_IN | TSS_ENC_OUT);
	tss_handle(&c, auth_handle);
	tss_handle(&c, s->handle);
	tss_auth(&c, auth_auth);
	tss_u16(&c, 0); /* nonceTPM */
	tss_u16(&c, 0); /* cpHashA */
	tss_u16(&c, 0); /* policyRef */
	tss_u32(&c, 0); /* expiration */
	TRY(tss_run(&c, &r, NULL));
	TRY(tss_rd_tpm2b(&r, timeout.b, sizeof(timeout.b), &timeout.size));
	TRY(tss_rd_ticket(&r, &ticket));
	return tss_rd_end(&r);
}

TPM_RC pqtpm_tss_policy_get_digest(struct pqtpm_tss_session *s,
				   struct pqtpm_tss_digest *digest)
{
	struct tss_cmd c;
	struct rd r;

	TRY(session_ok(s));
	tss_begin(&c, s->t, TPM_CC_PolicyGetDigest);
	tss_param_enc(&c, TSS_ENC_OUT);
	tss_handle(&c, s->handle);
	TRY(tss_run(&c, &r, NULL));
	TRY(tss_rd_tpm2b(&r, digest->b, sizeof(digest->b), &digest->size));
	return tss_rd_end(&r);
}
