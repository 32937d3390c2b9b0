/* NV_SetBits (Part 3 §31.10): OR bits into a bit-field index (zero until first written). */
#include "nv/nv.h"

static TPM_RC nv_setbits(struct cmd *c)
{
	struct pqtpm_engine *e = c->e;
	struct nv_index *idx = c->nv[1];
	uint64_t bits, old = 0;

	TRYP(1, rd_u64(&c->in, &bits));
	TRY(cmd_params_done(c));
	TRY(nv_write_access(c, idx));
	if (nv_type(idx->pub.attributes) != TPM_NT_BITS)
		return rc_handle(TPM_RC_ATTRIBUTES, 2);
	if (idx->pub.attributes & TPMA_NV_WRITTEN)
		old = nv_get_u64(e->ps.nv, idx);
	if ((old | bits) == old && (idx->pub.attributes & TPMA_NV_WRITTEN))
		return TPM_RC_SUCCESS;
	nv_begin_change(e);
	nv_put_u64(e->ps.nv, idx, old | bits);
	nv_mark_written(idx);
	engine_dirty(e);
	return TPM_RC_SUCCESS;
}

const struct cmd_def cmds_nv_setbits[] = {
	{ .code = TPM_CC_NV_SetBits, .name = "NV_SetBits", .handles = 2,
	  .auth = { AUTH_USER, AUTH_NONE }, .htype = { HK_OWNER | HK_PLATFORM | HK_NV, HK_NV },
	  .run = nv_setbits },
	{ 0 },
};
