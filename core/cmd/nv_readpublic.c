/* NV_ReadPublic (Part 3 §31.6): the public area and the Name of an index. */
#include "nv/nv.h"

static TPM_RC read_public(struct cmd *c)
{
	const struct nv_index *idx = c->nv[0];
	struct tpm2b_name name;

	TRY(cmd_params_done(c));
	TRY(nv_name(&idx->pub, &name));
	TRY(wr_tpm2b_nv_public(&c->out, &idx->pub));
	return wr_tpm2b_name(&c->out, &name);
}

const struct cmd_def cmds_nv_readpublic[] = {
	{ .code = TPM_CC_NV_ReadPublic, .name = "NV_ReadPublic", .handles = 1,
	  .auth = { AUTH_NONE }, .htype = { HK_NV }, .flags = CMD_READS_STATE, .run = read_public },
	{ 0 },
};
