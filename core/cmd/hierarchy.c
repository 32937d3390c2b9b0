/* Hierarchy commands (Part 3 §24): HierarchyControl, HierarchyChangeAuth, Clear, ClearControl,
 * SetPrimaryPolicy, ChangePPS, ChangeEPS */
#include "engine_int.h"
#include "nv/nv.h"
#include "txn.h"

static TPM_RC rd_yes_no(struct rd *r, bool *v)
{
	uint8_t b;

	TRY(rd_u8(r, &b));
	if (b > 1)
		return TPM_RC_VALUE;
	*v = b;
	return TPM_RC_SUCCESS;
}

/* Loaded objects of a hierarchy go when it is disabled or cleared (Part 3 §24.2, §24.6). */
static void flush_hierarchy(struct pqtpm_engine *e, TPM_HANDLE hier)
{
	for (struct pqtpm_client *cl = e->clients; cl; cl = cl->next)
		for (int i = 0; i < MAX_CLIENT_OBJECTS; i++)
			if (cl->objects[i] && cl->objects[i]->kind == OBJ_KEY &&
			    cl->objects[i]->hierarchy == hier)
				object_release(cl, cl->objects[i]);
}

/* Persistent objects of the hierarchies in mask (bit HIER_*) leave the table; the transaction
 * frees them once the state without them is saved (a failed save puts the table back). */
static TPM_RC drop_persistent(struct pqtpm_engine *e, unsigned mask)
{
	for (int i = 0; i < MAX_PERSISTENT_OBJECTS; i++) {
		struct object *o = e->ps.persistent[i];

		if (o && (mask & (1u << hier_index(o->hierarchy)))) {
			TRY(txn_drop_persistent(e, o));
			e->ps.persistent[i] = NULL;
		}
	}
	return TPM_RC_SUCCESS;
}

static TPM_RC hierarchy_control(struct cmd *c)
{
	struct pqtpm_engine *e = c->e;
	TPM_HANDLE auth = c->handle[0], enable;
	bool state, *flag;

	TRYP(1, rd_u32(&c->in, &enable));
	TRYP(2, rd_yes_no(&c->in, &state));
	TRY(cmd_params_done(c));
	switch (enable) {
	case TPM_RH_PLATFORM:
		flag = &e->ph_enable;
		break;
	case TPM_RH_OWNER:
		flag = &e->sh_enable;
		break;
	case TPM_RH_ENDORSEMENT:
		flag = &e->eh_enable;
		break;
	case TPM_RH_PLATFORM_NV:
		flag = &e->ps.ph_enable_nv;
		break;
	default:
		return rc_param(TPM_RC_VALUE, 1);
	}
	/* Only the platform may enable, or touch another hierarchy than its own. */
	if (auth != TPM_RH_PLATFORM && (state || enable != auth))
		return TPM_RC_AUTH_TYPE;
	*flag = state;
	if (!state && enable != TPM_RH_PLATFORM_NV)
		flush_hierarchy(e, enable);
	if (enable == TPM_RH_PLATFORM_NV)
		engine_dirty(e);
	else
		volatile_dirty(e);
	return TPM_RC_SUCCESS;
}

static TPM_RC hierarchy_change_auth(struct cmd *c)
{
	struct hierarchy *h = hier_get(c->e, c->handle[0]);
	struct tpm2b_digest auth;

	TRYP(1, rd_tpm2b_digest(&c->in, &auth));
	if (cmd_params_done(c) != TPM_RC_SUCCESS) {
		crypto_wipe(&auth, sizeof(auth));
		return TPM_RC_SIZE;
	}
	/* stored without trailing zeros, as every authValue (Part 1 §19.6.4) */
	while (auth.size > 0 && auth.b[auth.size - 1] == 0)
		auth.size--;
	h->auth = auth;
	crypto_wipe(&auth, sizeof(auth));
	engine_dirty(c->e);
	return TPM_RC_SUCCESS;
}

/* Part 3 §24.6: new owner seed and proofs, owner/endorsement/lockout auths and policies
 * empty, owner and endorsement objects gone, owner-made NV indices deleted, Clock and the
 * counts back to zero (and Clock safe). */
static TPM_RC clear(struct cmd *c)
{
	struct pqtpm_engine *e = c->e;
	struct persist *ps = &e->ps;

	TRY(cmd_params_done(c));
	if (ps->disable_clear)
		return TPM_RC_DISABLED;
	TRY(crypto_random(ps->hier[HIER_OWNER].seed, PRIMARY_SEED_SIZE));
	TRY(crypto_random(ps->hier[HIER_OWNER].proof, PRIMARY_SEED_SIZE));
	TRY(crypto_random(ps->hier[HIER_ENDORSEMENT].proof, PRIMARY_SEED_SIZE));
	e->sh_enable = e->eh_enable = true;
	volatile_dirty(e);
	for (int i = HIER_OWNER; i <= HIER_LOCKOUT; i++) {
		if (i == HIER_NULL)
			continue;
		crypto_wipe(&ps->hier[i].auth, sizeof(ps->hier[i].auth));
		ps->hier[i].policy.size = 0;
		ps->hier[i].policy_alg = TPM_ALG_NULL;
	}
	flush_hierarchy(e, TPM_RH_OWNER);
	flush_hierarchy(e, TPM_RH_ENDORSEMENT);
	TRY(drop_persistent(e, 1u << HIER_OWNER | 1u << HIER_ENDORSEMENT));
	nv_clear_owner(e);
	engine_clock_sync(e);
	ps->clock = 0;
	ps->clock_safe = true;
	ps->reset_count = 0;
	ps->restart_count = 0;
	engine_dirty(e);
	return TPM_RC_SUCCESS;
}

static TPM_RC clear_control(struct cmd *c)
{
	bool disable;

	TRYP(1, rd_yes_no(&c->in, &disable));
	TRY(cmd_params_done(c));
	/* lockoutAuth may only disable Clear; enabling it again takes the platform */
	if (c->handle[0] == TPM_RH_LOCKOUT && !disable)
		return TPM_RC_AUTH_FAIL;
	c->e->ps.disable_clear = disable;
	engine_dirty(c->e);
	return TPM_RC_SUCCESS;
}

/* Part 3 §24.3: hashAlg says how long authPolicy is (TPM_ALG_NULL: empty). */
static TPM_RC set_primary_policy(struct cmd *c)
{
	struct hierarchy *h = hier_get(c->e, c->handle[0]);
	struct tpm2b_digest policy;
	TPM_ALG_ID alg;

	TRYP(1, rd_tpm2b_digest(&c->in, &policy));
	TRYP(2, rd_hash_alg(&c->in, &alg, true));
	TRY(cmd_params_done(c));
	if (policy.size != (alg == TPM_ALG_NULL ? 0 : crypto_hash_size(alg)))
		return rc_param(TPM_RC_SIZE, 1);
	h->policy = policy;
	h->policy_alg = alg;
	engine_dirty(c->e);
	return TPM_RC_SUCCESS;
}

/* Part 3 §24.4: a new platform seed (and proof, so old platform contexts no longer load),
 * platformPolicy empty, the PCR policies back to none (as the reference implementation),
 * platform objects gone. NV indices stay. */
static TPM_RC change_pps(struct cmd *c)
{
	struct pqtpm_engine *e = c->e;
	struct hierarchy *h = &e->ps.hier[HIER_PLATFORM];

	TRY(cmd_params_done(c));
	TRY(crypto_random(h->seed, PRIMARY_SEED_SIZE));
	TRY(crypto_random(h->proof, PRIMARY_SEED_SIZE));
	h->policy.size = 0;
	h->policy_alg = TPM_ALG_NULL;
	e->ps.pcr_group_policy.size = 0;
	e->ps.pcr_group_policy_alg = TPM_ALG_NULL;
	flush_hierarchy(e, TPM_RH_PLATFORM);
	TRY(drop_persistent(e, 1u << HIER_PLATFORM));
	engine_dirty(e);
	return TPM_RC_SUCCESS;
}

/* Part 3 §24.5: a new endorsement seed and proof, endorsementAuth and -Policy empty, ehEnable
 * set, endorsement objects gone. */
static TPM_RC change_eps(struct cmd *c)
{
	struct pqtpm_engine *e = c->e;
	struct hierarchy *h = &e->ps.hier[HIER_ENDORSEMENT];

	TRY(cmd_params_done(c));
	TRY(crypto_random(h->seed, PRIMARY_SEED_SIZE));
	TRY(crypto_random(h->proof, PRIMARY_SEED_SIZE));
	crypto_wipe(&h->auth, sizeof(h->auth));
	h->policy.size = 0;
	h->policy_alg = TPM_ALG_NULL;
	e->eh_enable = true;
	volatile_dirty(e);
	flush_hierarchy(e, TPM_RH_ENDORSEMENT);
	TRY(drop_persistent(e, 1u << HIER_ENDORSEMENT));
	engine_dirty(e);
	return TPM_RC_SUCCESS;
}

const struct cmd_def cmds_hierarchy[] = {
	{ .code = TPM_CC_HierarchyControl, .name = "HierarchyControl", .handles = 1,
	  .auth = { AUTH_USER }, .htype = { HK_HIERARCHY }, .flags = CMD_PP,
	  .run = hierarchy_control },
	{ .code = TPM_CC_HierarchyChangeAuth, .name = "HierarchyChangeAuth", .handles = 1,
	  .auth = { AUTH_USER }, .htype = { HK_HIERARCHY | HK_LOCKOUT }, .flags = CMD_PARAM_IN | CMD_PP,
	  .run = hierarchy_change_auth },
	{ .code = TPM_CC_Clear, .name = "Clear", .handles = 1, .auth = { AUTH_USER },
	  .htype = { HK_LOCKOUT | HK_PLATFORM }, .flags = CMD_PP, .run = clear },
	{ .code = TPM_CC_ClearControl, .name = "ClearControl", .handles = 1, .auth = { AUTH_USER },
	  .htype = { HK_LOCKOUT | HK_PLATFORM }, .flags = CMD_PP, .run = clear_control },
	{ .code = TPM_CC_SetPrimaryPolicy, .name = "SetPrimaryPolicy", .handles = 1,
	  .auth = { AUTH_USER }, .htype = { HK_HIERARCHY | HK_LOCKOUT }, .flags = CMD_PARAM_IN | CMD_PP,
	  .run = set_primary_policy },
	{ .code = TPM_CC_ChangePPS, .name = "ChangePPS", .handles = 1, .auth = { AUTH_USER },
	  .htype = { HK_PLATFORM }, .flags = CMD_PP, .run = change_pps },
	{ .code = TPM_CC_ChangeEPS, .name = "ChangeEPS", .handles = 1, .auth = { AUTH_USER },
	  .htype = { HK_PLATFORM }, .flags = CMD_PP, .run = change_eps },
	{ 0 },
};
