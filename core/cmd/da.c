/* DictionaryAttackLockReset, DictionaryAttackParameters (Part 3 §25.2, §25.3); the logic is
 * in da.c. Both need lockoutAuth (or lockoutPolicy), which dispatch has checked. */
#include "da.h"

static TPM_RC lock_reset(struct cmd *c)
{
	TRY(cmd_params_done(c));
	da_reset(c->e);
	return TPM_RC_SUCCESS;
}

static TPM_RC parameters(struct cmd *c)
{
	uint32_t max_tries, recovery_time, lockout_recovery;

	TRYP(1, rd_u32(&c->in, &max_tries));
	TRYP(2, rd_u32(&c->in, &recovery_time));
	TRYP(3, rd_u32(&c->in, &lockout_recovery));
	TRY(cmd_params_done(c));
	da_set_parameters(c->e, max_tries, recovery_time, lockout_recovery);
	return TPM_RC_SUCCESS;
}

const struct cmd_def cmds_da[] = {
	{ .code = TPM_CC_DictionaryAttackLockReset, .name = "DictionaryAttackLockReset",
	  .handles = 1, .auth = { AUTH_USER }, .htype = { HK_LOCKOUT }, .run = lock_reset },
	{ .code = TPM_CC_DictionaryAttackParameters, .name = "DictionaryAttackParameters",
	  .handles = 1, .auth = { AUTH_USER }, .htype = { HK_LOCKOUT }, .run = parameters },
	{ 0 },
};
