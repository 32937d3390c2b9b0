/* See tss_util.h. */
#include <string.h>

#include <CUnit/Basic.h>

#include "tss_util.h"

void tss_env_open(struct tss_env *env)
{
	struct pqtpm_engine_config cfg = { .auto_startup = 1, .log_level = PQTPM_LOG_ERROR };
	char err[128];

	pqtpm_log_set_level(PQTPM_LOG_ERROR);
	if (pqtpm_engine_open(&env->e, &cfg, err, sizeof(err)) ||
	    pqtpm_tss_open_engine(&env->t, env->e))
		CU_FAIL_FATAL("engine");
}

void tss_env_close(struct tss_env *env)
{
	pqtpm_tss_close(env->t);
	pqtpm_engine_close(env->e);
}

void tss_template(TPM_ALG_ID type, uint32_t attrs, const struct pqtpm_tss_digest *policy,
		  struct pqtpm_tss_public *out)
{
	struct pqtpm_tss_template tm = {
		.type = type,
		.attributes = TSS_KEY_BASE | attrs,
		.parameter_set = type == TPM_ALG_MLKEM ? TPM_MLKEM_768 : 0,
		.policy = policy ? policy->b : NULL,
		.policy_len = policy ? policy->size : 0,
	};

	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_template_public(&tm, out), 0);
}

TPM_RC tss_primary(struct pqtpm_tss *t, TPM_ALG_ID type, uint32_t attrs, const char *auth,
		   struct pqtpm_tss_key *key)
{
	static struct pqtpm_tss_public tmpl;

	tss_template(type, attrs, NULL, &tmpl);
	return pqtpm_tss_create_primary(t, TPM_RH_OWNER, "", &tmpl, auth, key);
}

TPM_RC tss_child(struct pqtpm_tss *t, TPM_HANDLE parent, const char *parent_auth,
		 TPM_ALG_ID type, uint32_t attrs, const struct pqtpm_tss_digest *policy,
		 const char *auth, struct pqtpm_tss_key *key)
{
	static struct pqtpm_tss_public tmpl;
	TPM_RC rc;

	tss_template(type, attrs, policy, &tmpl);
	rc = pqtpm_tss_create(t, parent, parent_auth, &tmpl, auth, key);
	return rc ? rc : pqtpm_tss_load(t, parent, parent_auth, key);
}

struct pqtpm_tss_session *tss_session(struct pqtpm_tss *t,
				      const struct pqtpm_tss_session_params *p)
{
	struct pqtpm_tss_session *s = NULL;

	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_session_start(t, p, &s), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	return s;
}
