/* EvictControl, Clear, HierarchyChangeAuth, DictionaryAttackLockReset, DictionaryAttackParameters,
 * ObjectChangeAuth. */
#include "tss_int.h"

TPM_RC pqtpm_tss_evict_control(struct pqtpm_tss *t, TPM_HANDLE auth_handle, const char *auth,
			       TPM_HANDLE object, TPM_HANDLE persistent)
{
	struct tss_cmd c;
	struct rd r;

	tss_begin(&c, t, TPM_CC_EvictControl);
	tss_handle(&c, auth_handle);
	tss_handle(&c, object);
	tss_auth(&c, auth);
	tss_u32(&c, persistent);
	TRY(tss_run(&c, &r, NULL));
	return tss_rd_end(&r);
}

TPM_RC pqtpm_tss_clear(struct pqtpm_tss *t, TPM_HANDLE auth_handle, const char *auth)
{
	struct tss_cmd c;
	struct rd r;

	tss_begin(&c, t, TPM_CC_Clear);
	tss_handle(&c, auth_handle);
	tss_auth(&c, auth);
	TRY(tss_run(&c, &r, NULL));
	TRY(tss_rd_end(&r));
	tss_names_clear(t); /* the owner's transient objects went with it */
	return TPM_RC_SUCCESS;
}

TPM_RC pqtpm_tss_hierarchy_change_auth(struct pqtpm_tss *t, TPM_HANDLE hierarchy,
				       const char *auth, const char *new_auth)
{
	struct tss_cmd c;
	struct rd r;

	tss_begin(&c, t, TPM_CC_HierarchyChangeAuth);
	tss_param_enc(&c, TSS_ENC_IN);
	tss_handle(&c, hierarchy);
	tss_auth(&c, auth);
	tss_auth_changes(&c, new_auth);
	tss_tpm2b_str(&c, new_auth);
	TRY(tss_run(&c, &r, NULL));
	return tss_rd_end(&r);
}

TPM_RC pqtpm_tss_da_lock_reset(struct pqtpm_tss *t, const char *lockout_auth)
{
	struct tss_cmd c;
	struct rd r;

	tss_begin(&c, t, TPM_CC_DictionaryAttackLockReset);
	tss_handle(&c, TPM_RH_LOCKOUT);
	tss_auth(&c, lockout_auth);
	TRY(tss_run(&c, &r, NULL));
	return tss_rd_end(&r);
}

TPM_RC pqtpm_tss_da_parameters(struct pqtpm_tss *t, const char *lockout_auth,
			       uint32_t max_tries, uint32_t recovery_time,
			       uint32_t lockout_recovery)
{
	struct tss_cmd c;
	struct rd r;

	tss_begin(&c, t, TPM_CC_DictionaryAttackParameters);
	tss_handle(&c, TPM_RH_LOCKOUT);
	tss_auth(&c, lockout_auth);
	tss_u32(&c, max_tries);
	tss_u32(&c, recovery_time);
	tss_u32(&c, lockout_recovery);
	TRY(tss_run(&c, &r, NULL));
	return tss_rd_end(&r);
}

TPM_RC pqtpm_tss_object_change_auth(struct pqtpm_tss *t, TPM_HANDLE object,
				    const char *object_auth, TPM_HANDLE parent,
				    const char *new_auth, struct pqtpm_tss_private *priv)
{
	struct tss_cmd c;
	struct rd r;

	tss_begin(&c, t, TPM_CC_ObjectChangeAuth);
	tss_param_enc(&c, TSS_ENC_IN | TSS_ENC_OUT);
	tss_handle(&c, object);
	tss_handle(&c, parent);
	tss_auth(&c, object_auth);
	tss_tpm2b_str(&c, new_auth);
	TRY(tss_run(&c, &r, NULL));
	TRY(tss_rd_tpm2b(&r, priv->b, sizeof(priv->b), &priv->size));
	return tss_rd_end(&r);
}
