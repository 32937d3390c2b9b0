/* NV_Read (Part 3 §31.13): up to NV_BUFFER_MAX bytes of an index. A counter reads as its
 * current value, which for an orderly counter may be ahead of the store (nv/orderly.c). */
#include "nv/nv.h"

static TPM_RC nv_read(struct cmd *c)
{
	struct nv_index *idx = c->nv[1];
	uint16_t size, offset;
	uint8_t *out;

	TRYP(1, rd_u16(&c->in, &size));
	TRYP(2, rd_u16(&c->in, &offset));
	TRY(cmd_params_done(c));
	TRY(nv_read_access(c, idx));
	if (size > NV_BUFFER_MAX)
		return rc_param(TPM_RC_VALUE, 1);
	if (offset > idx->pub.size)
		return rc_param(TPM_RC_VALUE, 2);
	if (size > idx->pub.size - offset)
		return TPM_RC_NV_RANGE;
	TRY(wr_u16(&c->out, size));
	TRY(wr_reserve(&c->out, size, &out));
	nv_read_data(c->e, idx, offset, size, out);
	return TPM_RC_SUCCESS;
}

const struct cmd_def cmds_nv_read[] = {
	{ .code = TPM_CC_NV_Read, .name = "NV_Read", .handles = 2,
	  .auth = { AUTH_USER, AUTH_NONE }, .htype = { HK_OWNER | HK_PLATFORM | HK_NV, HK_NV },
	  .flags = CMD_PARAM_OUT, .run = nv_read },
	{ 0 },
};
