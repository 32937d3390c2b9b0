/* Hierarchy commands (Part 3 §24): HierarchyControl, HierarchyChangeAuth, Clear, ClearControl */
#include "engine_int.h"

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
static void flush_hierarchy(struct pqtpm_engine *e, TPM_HANDLE hier, bool persistent_too)
{
	for (struct pqtpm_client *cl = e->clients; cl; cl = cl->next)
		for (int i = 0; i < MAX_CLIENT_OBJECTS; i++)
			if (cl->objects[i] && cl->objects[i]->kind == OBJ_KEY &&
			    cl->objects[i]->hierarchy == hier)
				object_release(cl, cl->objects[i]);
	if (!persistent_too)
		return;
	for (int i = 0; i < MAX_PERSISTENT_OBJECTS; i++) {
		if (e->ps.persistent[i] && e->ps.persistent[i]->hierarchy == hier) {
			object_wipe_free(e->ps.persistent[i]);
			e->ps.persistent[i] = NULL;
		}
	}
}

static TPM_RC hierarchy_control(struct cmd *c)
{
	struct pqtpm_engine *e = c->e;
	TPM_HANDLE auth = c->handle[0], enable;
	bool state, *flag;

	TRYP(1, rd_u32(&c->in, &enable));
	TRYP(2, rd_yes_no(&c->in, &state));
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
		flush_hierarchy(e, enable, false);
	if (enable == TPM_RH_PLATFORM_NV)
		engine_dirty(e);
	return TPM_RC_SUCCESS;
}

static TPM_RC hierarchy_change_auth(struct cmd *c)
{
	struct hierarchy *h = hier_get(c->e, c->handle[0]);
	struct tpm2b_digest auth;

	TRYP(1, rd_tpm2b_digest(&c->in, &auth));
	/* stored without trailing zeros, as every authValue (Part 1 §19.6.4) */
	while (auth.size > 0 && auth.b[auth.size - 1] == 0)
		auth.size--;
	h->auth = auth;
	crypto_wipe(&auth, sizeof(auth));
	engine_dirty(c->e);
	return TPM_RC_SUCCESS;
}

static TPM_RC clear(struct cmd *c)
{
	struct pqtpm_engine *e = c->e;
	struct persist *ps = &e->ps;

	if (ps->disable_clear)
		return TPM_RC_DISABLED;
	TRY(crypto_random(ps->hier[HIER_OWNER].seed, PRIMARY_SEED_SIZE));
	TRY(crypto_random(ps->hier[HIER_OWNER].proof, PRIMARY_SEED_SIZE));
	TRY(crypto_random(ps->hier[HIER_ENDORSEMENT].proof, PRIMARY_SEED_SIZE));
	e->sh_enable = e->eh_enable = true;
	for (int i = HIER_OWNER; i <= HIER_LOCKOUT; i++) {
		if (i == HIER_NULL)
			continue;
		crypto_wipe(&ps->hier[i].auth, sizeof(ps->hier[i].auth));
		ps->hier[i].policy.size = 0;
		ps->hier[i].policy_alg = TPM_ALG_NULL;
	}
	flush_hierarchy(e, TPM_RH_OWNER, true);
	flush_hierarchy(e, TPM_RH_ENDORSEMENT, true);
	engine_clock_sync(e);
	ps->clock = 0;
	ps->reset_count = 0;
	ps->restart_count = 0;
	engine_dirty(e);
	return TPM_RC_SUCCESS;
}

static TPM_RC clear_control(struct cmd *c)
{
	bool disable;

	TRYP(1, rd_yes_no(&c->in, &disable));
	/* lockoutAuth may only disable Clear; enabling it again takes the platform */
	if (c->handle[0] == TPM_RH_LOCKOUT && !disable)
		return TPM_RC_AUTH_FAIL;
	c->e->ps.disable_clear = disable;
	engine_dirty(c->e);
	return TPM_RC_SUCCESS;
}

const struct cmd_def cmds_hierarchy[] = {
	{ .code = TPM_CC_HierarchyControl, .name = "HierarchyControl", .handles = 1,
	  .auth = { AUTH_USER }, .htype = { HK_HIERARCHY }, .run = hierarchy_control },
	{ .code = TPM_CC_HierarchyChangeAuth, .name = "HierarchyChangeAuth", .handles = 1,
	  .auth = { AUTH_USER }, .htype = { HK_HIERARCHY | HK_LOCKOUT }, .flags = CMD_PARAM_IN,
	  .run = hierarchy_change_auth },
	{ .code = TPM_CC_Clear, .name = "Clear", .handles = 1, .auth = { AUTH_USER },
	  .htype = { HK_LOCKOUT | HK_PLATFORM }, .run = clear },
	{ .code = TPM_CC_ClearControl, .name = "ClearControl", .handles = 1, .auth = { AUTH_USER },
	  .htype = { HK_LOCKOUT | HK_PLATFORM }, .run = clear_control },
	{ 0 },
};
