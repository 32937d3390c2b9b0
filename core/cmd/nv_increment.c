/* NV_Increment (Part 3 §31.8): add one to a counter index. The first increment starts above
 * every counter value this TPM has had (Part 1 §37.4.3). */
#include "nv/nv.h"

static TPM_RC nv_increment(struct cmd *c)
{
	struct pqtpm_engine *e = c->e;
	struct nv_index *idx = c->nv[1];
	uint64_t v;
	bool durable;

	TRY(cmd_params_done(c));
	TRY(nv_write_access(c, idx));
	if (nv_type(idx->pub.attributes) != TPM_NT_COUNTER)
		return rc_handle(TPM_RC_ATTRIBUTES, 2);
	if (idx->pub.attributes & TPMA_NV_WRITTEN)
		v = nv_counter_value(e, idx);
	else
		v = e->ps.nv->max_counter;
	if (v == UINT64_MAX) /* a counter does not wrap */
		return TPM_RC_NV_RANGE;
	nv_counter_set(e, idx, v + 1, &durable);
	return TPM_RC_SUCCESS;
}

const struct cmd_def cmds_nv_increment[] = {
	{ .code = TPM_CC_NV_Increment, .name = "NV_Increment", .handles = 2,
	  .auth = { AUTH_USER, AUTH_NONE }, .htype = { HK_OWNER | HK_PLATFORM | HK_NV, HK_NV },
	  .run = nv_increment },
	{ 0 },
};
