/* NV_DefineSpace, NV_UndefineSpace, NV_UndefineSpaceSpecial (Part 3 §31.3-31.5) */
#include "nv/nv.h"

/* The attribute rules of Part 3 §31.3.1 and Part 2 TPMA_NV, in the order the reference
 * implementation checks them; parameter 2 is publicInfo. */
static TPM_RC check_type_and_size(const struct nv_public *p, uint16_t index_max)
{
	uint32_t a = p->attributes;
	size_t digest = crypto_hash_size(p->name_alg);

	switch (nv_type(a)) {
	case TPM_NT_ORDINARY:
		if (p->size > index_max)
			return rc_param(TPM_RC_SIZE, 2);
		break;
	case TPM_NT_EXTEND:
		if (p->size != digest)
			return rc_param(TPM_RC_SIZE, 2);
		break;
	case TPM_NT_COUNTER:
	case TPM_NT_BITS:
	case TPM_NT_PIN_FAIL:
	case TPM_NT_PIN_PASS:
		if (p->size != 8)
			return rc_param(TPM_RC_SIZE, 2);
		break;
	default:
		return rc_param(TPM_RC_ATTRIBUTES, 2);
	}
	switch (nv_type(a)) {
	case TPM_NT_COUNTER: /* counters are never cleared */
		if (a & TPMA_NV_CLEAR_STCLEAR)
			return rc_param(TPM_RC_ATTRIBUTES, 2);
		break;
	case TPM_NT_PIN_FAIL: /* the PIN count replaces DA protection */
		if (!(a & TPMA_NV_NO_DA))
			return rc_param(TPM_RC_ATTRIBUTES, 2);
		/* fall through */
	case TPM_NT_PIN_PASS: /* the authValue cannot write a PIN index */
		if (a & (TPMA_NV_AUTHWRITE | TPMA_NV_GLOBALLOCK | TPMA_NV_WRITEDEFINE))
			return rc_param(TPM_RC_ATTRIBUTES, 2);
		break;
	}
	return TPM_RC_SUCCESS;
}

static TPM_RC check_attributes(const struct cmd *c, const struct nv_public *p)
{
	uint32_t a = p->attributes;
	bool platform = c->handle[0] == TPM_RH_PLATFORM;

	TRY(check_type_and_size(p, nv_index_max(c->e)));
	if (a & (TPMA_NV_WRITTEN | TPMA_NV_WRITELOCKED | TPMA_NV_READLOCKED))
		return rc_param(TPM_RC_ATTRIBUTES, 2);
	if (!(a & (TPMA_NV_OWNERREAD | TPMA_NV_PPREAD | TPMA_NV_AUTHREAD | TPMA_NV_POLICYREAD)))
		return rc_param(TPM_RC_ATTRIBUTES, 2);
	if (!(a & (TPMA_NV_OWNERWRITE | TPMA_NV_PPWRITE | TPMA_NV_AUTHWRITE |
		   TPMA_NV_POLICYWRITE)))
		return rc_param(TPM_RC_ATTRIBUTES, 2);
	if ((a & TPMA_NV_CLEAR_STCLEAR) && (a & TPMA_NV_WRITEDEFINE))
		return rc_param(TPM_RC_ATTRIBUTES, 2);
	/* whoever defines an index must be able to delete it */
	if (!!(a & TPMA_NV_PLATFORMCREATE) != platform)
		return rc_handle(TPM_RC_ATTRIBUTES, 1);
	if ((a & TPMA_NV_POLICY_DELETE) && !platform)
		return rc_param(TPM_RC_ATTRIBUTES, 2);
	if (p->size > NV_BUFFER_MAX && (a & TPMA_NV_WRITEALL))
		return rc_param(TPM_RC_SIZE, 2);
	return TPM_RC_SUCCESS;
}

static TPM_RC define_space(struct cmd *c)
{
	struct pqtpm_engine *e = c->e;
	struct tpm2b_digest auth;
	struct nv_public pub;
	struct nv_index *idx;
	size_t digest;
	TPM_RC rc;

	TRYP(1, rd_tpm2b_digest(&c->in, &auth));
	rc = rd_tpm2b_nv_public(&c->in, &pub);
	if (rc != TPM_RC_SUCCESS) {
		crypto_wipe(&auth, sizeof(auth));
		return rc_param(rc, 2);
	}
	digest = crypto_hash_size(pub.name_alg);
	rc = cmd_params_done(c);
	if (rc == TPM_RC_SUCCESS && pub.policy.size != 0 && pub.policy.size != digest)
		rc = rc_param(TPM_RC_SIZE, 2);
	while (auth.size > 0 && auth.b[auth.size - 1] == 0) /* Part 1 §19.6.4 */
		auth.size--;
	if (rc == TPM_RC_SUCCESS && auth.size > digest)
		rc = rc_param(TPM_RC_SIZE, 1);
	/* ownerAuth implies shEnable; a platform index also needs phEnableNV */
	if (rc == TPM_RC_SUCCESS && c->handle[0] == TPM_RH_PLATFORM && !e->ps.ph_enable_nv)
		rc = rc_handle(TPM_RC_HIERARCHY, 1);
	if (rc == TPM_RC_SUCCESS)
		rc = check_attributes(c, &pub);
	if (rc == TPM_RC_SUCCESS && nv_find(e->ps.nv, pub.handle))
		rc = TPM_RC_NV_DEFINED;
	if (rc == TPM_RC_SUCCESS) {
		nv_begin_change(e);
		rc = nv_add(e->ps.nv, &pub, &auth, &idx);
		if (rc == TPM_RC_SUCCESS)
			engine_dirty(e);
	}
	crypto_wipe(&auth, sizeof(auth));
	return rc;
}

static void delete_index(struct cmd *c, unsigned slot)
{
	nv_begin_change(c->e);
	nv_delete(c->e, c->nv[slot]);
	c->nv[slot] = NULL; /* the response HMAC keeps the authValue it checked (auth.c) */
	engine_dirty(c->e);
}

static TPM_RC undefine_space(struct cmd *c)
{
	const struct nv_index *idx = c->nv[1];

	TRY(cmd_params_done(c));
	if (idx->pub.attributes & TPMA_NV_POLICY_DELETE)
		return rc_handle(TPM_RC_ATTRIBUTES, 2);
	/* the owner deletes only what the owner made; the platform deletes anything */
	if (c->handle[0] == TPM_RH_OWNER && (idx->pub.attributes & TPMA_NV_PLATFORMCREATE))
		return TPM_RC_NV_AUTHORIZATION;
	delete_index(c, 1);
	return TPM_RC_SUCCESS;
}

static TPM_RC undefine_space_special(struct cmd *c)
{
	TRY(cmd_params_done(c));
	if (!(c->nv[0]->pub.attributes & TPMA_NV_POLICY_DELETE))
		return rc_handle(TPM_RC_ATTRIBUTES, 1);
	delete_index(c, 0);
	return TPM_RC_SUCCESS;
}

const struct cmd_def cmds_nv_define[] = {
	{ .code = TPM_CC_NV_DefineSpace, .name = "NV_DefineSpace", .handles = 1,
	  .auth = { AUTH_USER }, .htype = { HK_OWNER | HK_PLATFORM },
	  .flags = CMD_PARAM_IN | CMD_PP, .run = define_space },
	{ .code = TPM_CC_NV_UndefineSpace, .name = "NV_UndefineSpace", .handles = 2,
	  .auth = { AUTH_USER, AUTH_NONE }, .htype = { HK_OWNER | HK_PLATFORM, HK_NV },
	  .flags = CMD_PP, .run = undefine_space },
	{ .code = TPM_CC_NV_UndefineSpaceSpecial, .name = "NV_UndefineSpaceSpecial",
	  .handles = 2, .auth = { AUTH_ADMIN, AUTH_USER }, .htype = { HK_NV, HK_PLATFORM },
	  .flags = CMD_PP, .run = undefine_space_special },
	{ 0 },
};
