/* NV_ChangeAuth (Part 3 §31.15): a new authValue for an index, authorized by its policy
 * (ADMIN role). */
#include "nv/nv.h"

static TPM_RC change_auth(struct cmd *c)
{
	struct nv_index *idx = c->nv[0];
	struct tpm2b_digest auth;

	TRYP(1, rd_tpm2b_digest(&c->in, &auth));
	if (cmd_params_done(c) != TPM_RC_SUCCESS) {
		crypto_wipe(&auth, sizeof(auth));
		return TPM_RC_SIZE;
	}
	while (auth.size > 0 && auth.b[auth.size - 1] == 0) /* Part 1 §19.6.4 */
		auth.size--;
	if (auth.size > crypto_hash_size(idx->pub.name_alg)) {
		crypto_wipe(&auth, sizeof(auth));
		return rc_param(TPM_RC_SIZE, 1);
	}
	nv_begin_change(c->e);
	idx->auth = auth;
	crypto_wipe(&auth, sizeof(auth));
	engine_dirty(c->e);
	return TPM_RC_SUCCESS;
}

const struct cmd_def cmds_nv_changeauth[] = {
	{ .code = TPM_CC_NV_ChangeAuth, .name = "NV_ChangeAuth", .handles = 1,
	  .auth = { AUTH_ADMIN }, .htype = { HK_NV }, .flags = CMD_PARAM_IN,
	  .run = change_auth },
	{ 0 },
};
