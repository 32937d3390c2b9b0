/* NV_Read (Part 3 §31.13): up to NV_BUFFER_MAX bytes of an index. A counter reads as its
 * current value, which for an orderly counter may be ahead of the store (nv/orderly.c). */
#include <string.h>

#include "nv/nv.h"

static TPM_RC nv_read(struct cmd *c)
{
	struct nv_index *idx = c->nv[1];
	uint16_t size, offset;
	uint8_t counter[8], *out;
	const uint8_t *data;

	TRYP(1, rd_u16(&c->in, &size));
	TRYP(2, rd_u16(&c->in, &offset));
	TRY(nv_read_access(c, idx));
	if (size > NV_BUFFER_MAX)
		return rc_param(TPM_RC_VALUE, 1);
	if (offset > idx->pub.size)
		return rc_param(TPM_RC_VALUE, 2);
	if (size > idx->pub.size - offset)
		return TPM_RC_NV_RANGE;
	data = nv_data(c->e->ps.nv, idx);
	if (nv_type(idx->pub.attributes) == TPM_NT_COUNTER) {
		uint64_t v = nv_counter_value(c->e, idx);

		for (int i = 7; i >= 0; i--, v >>= 8)
			counter[i] = (uint8_t)v;
		data = counter;
	}
	TRY(wr_u16(&c->out, size));
	TRY(wr_reserve(&c->out, size, &out));
	memcpy(out, data + offset, size);
	return TPM_RC_SUCCESS;
}

const struct cmd_def cmds_nv_read[] = {
	{ .code = TPM_CC_NV_Read, .name = "NV_Read", .handles = 2,
	  .auth = { AUTH_USER, AUTH_NONE }, .htype = { HK_OWNER | HK_PLATFORM | HK_NV, HK_NV },
	  .flags = CMD_PARAM_OUT, .run = nv_read },
	{ 0 },
};
