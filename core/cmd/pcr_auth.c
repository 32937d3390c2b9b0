/* PCR_SetAuthValue and PCR_SetAuthPolicy (Part 3 §22.7, §22.8): the authValue and the
 * authPolicy of the PCRs that have them, the group 20-22 (pcr.h). PCR_Extend, PCR_Event and
 * PCR_Reset of those PCRs then take that value or policy (hierarchy.c entity_auth, auth.c). */
#include "pcr.h"

static TPM_RC pcr_set_auth_value(struct cmd *c)
{
	struct tpm2b_digest auth;

	TRYP(1, rd_tpm2b_digest(&c->in, &auth));
	TRY(cmd_params_done(c));
	if (!pcr_in_auth_group(c->handle[0])) {
		crypto_wipe(&auth, sizeof(auth));
		return rc_handle(TPM_RC_VALUE, 1);
	}
	c->e->pcr_group_auth = auth;
	volatile_dirty(c->e);
	crypto_wipe(&auth, sizeof(auth));
	return TPM_RC_SUCCESS;
}

static TPM_RC pcr_set_auth_policy(struct cmd *c)
{
	struct tpm2b_digest policy;
	TPM_ALG_ID alg;
	uint32_t pcr;

	TRYP(1, rd_tpm2b_digest(&c->in, &policy));
	TRYP(2, rd_hash_alg(&c->in, &alg, true));
	TRYP(3, rd_u32(&c->in, &pcr));
	TRY(cmd_params_done(c));
	/* TPMI_DH_PCR, then a PCR that has a policy */
	if (pcr >= PCR_NUM || !pcr_in_auth_group(pcr))
		return rc_param(TPM_RC_VALUE, 3);
	/* the policy is a digest of its hash, or empty with TPM_ALG_NULL */
	if (policy.size != (alg == TPM_ALG_NULL ? 0 : crypto_hash_size(alg)))
		return rc_param(TPM_RC_SIZE, 1);
	c->e->ps.pcr_group_policy = policy;
	c->e->ps.pcr_group_policy_alg = alg;
	engine_dirty(c->e);
	return TPM_RC_SUCCESS;
}

const struct cmd_def cmds_pcr_auth[] = {
	{ .code = TPM_CC_PCR_SetAuthPolicy, .name = "PCR_SetAuthPolicy", .handles = 1,
	  .auth = { AUTH_USER }, .htype = { HK_PLATFORM }, .flags = CMD_PARAM_IN | CMD_PP,
	  .run = pcr_set_auth_policy },
	{ .code = TPM_CC_PCR_SetAuthValue, .name = "PCR_SetAuthValue", .handles = 1,
	  .auth = { AUTH_USER }, .htype = { HK_PCR }, .flags = CMD_PARAM_IN,
	  .run = pcr_set_auth_value },
	{ 0 },
};
