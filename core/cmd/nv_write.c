/* NV_Write (Part 3 §31.7): data into an ordinary or PIN index at an offset. */
#include <string.h>

#include "nv/nv.h"

static TPM_RC nv_write(struct cmd *c)
{
	struct pqtpm_engine *e = c->e;
	struct nv_index *idx = c->nv[1];
	uint8_t data[NV_BUFFER_MAX];
	uint16_t size, offset;
	unsigned type = nv_type(idx->pub.attributes);
	TPM_RC rc;

	TRYP(1, rd_tpm2b(&c->in, data, sizeof(data), &size));
	rc = rd_u16(&c->in, &offset);
	if (rc != TPM_RC_SUCCESS)
		rc = rc_param(rc, 2);
	if (rc == TPM_RC_SUCCESS)
		rc = cmd_params_done(c);
	if (rc == TPM_RC_SUCCESS)
		rc = nv_write_access(c, idx);
	/* counters, bit fields and extend indices change only through their own commands */
	if (rc == TPM_RC_SUCCESS &&
	    (type == TPM_NT_COUNTER || type == TPM_NT_BITS || type == TPM_NT_EXTEND))
		rc = TPM_RC_ATTRIBUTES;
	if (rc == TPM_RC_SUCCESS && offset > idx->pub.size)
		rc = rc_param(TPM_RC_VALUE, 2);
	if (rc == TPM_RC_SUCCESS && size > idx->pub.size - offset)
		rc = TPM_RC_NV_RANGE;
	/* WRITEALL: one write of the whole index (offset 0 follows from the check above) */
	if (rc == TPM_RC_SUCCESS && (idx->pub.attributes & TPMA_NV_WRITEALL) &&
	    size < idx->pub.size)
		rc = TPM_RC_NV_RANGE;
	if (rc == TPM_RC_SUCCESS) {
		nv_begin_change(e);
		memcpy(nv_data(e->ps.nv, idx) + offset, data, size);
		nv_mark_written(idx);
		engine_dirty(e);
	}
	crypto_wipe(data, size);
	return rc;
}

const struct cmd_def cmds_nv_write[] = {
	{ .code = TPM_CC_NV_Write, .name = "NV_Write", .handles = 2,
	  .auth = { AUTH_USER, AUTH_NONE }, .htype = { HK_OWNER | HK_PLATFORM | HK_NV, HK_NV },
	  .flags = CMD_PARAM_IN, .run = nv_write },
	{ 0 },
};
