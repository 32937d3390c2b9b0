/* NV_Extend (Part 3 §31.9): value = H_nameAlg(value || data) in an extend index; an index
 * not yet written starts from zeros. */
#include <string.h>

#include "nv/nv.h"

static TPM_RC nv_extend(struct cmd *c)
{
	struct pqtpm_engine *e = c->e;
	struct nv_index *idx = c->nv[1];
	uint8_t data[NV_BUFFER_MAX], old[MAX_DIGEST_SIZE], digest[MAX_DIGEST_SIZE];
	struct crypto_hash_ctx h;
	uint16_t size;
	size_t n = idx->pub.size;
	TPM_RC rc;

	TRYP(1, rd_tpm2b(&c->in, data, sizeof(data), &size));
	TRY(cmd_params_done(c));
	TRY(nv_write_access(c, idx));
	if (nv_type(idx->pub.attributes) != TPM_NT_EXTEND)
		return rc_handle(TPM_RC_ATTRIBUTES, 2);
	memset(old, 0, sizeof(old));
	if (idx->pub.attributes & TPMA_NV_WRITTEN)
		memcpy(old, nv_data(e->ps.nv, idx), n);
	rc = crypto_hash_start(&h, idx->pub.name_alg);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hash_update(&h, old, n);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hash_update(&h, data, size);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hash_finish(&h, digest);
	if (rc == TPM_RC_SUCCESS) {
		nv_begin_change(e);
		memcpy(nv_data(e->ps.nv, idx), digest, n);
		nv_mark_written(idx);
		engine_dirty(e);
	}
	crypto_wipe(data, size);
	return rc;
}

const struct cmd_def cmds_nv_extend[] = {
	{ .code = TPM_CC_NV_Extend, .name = "NV_Extend", .handles = 2,
	  .auth = { AUTH_USER, AUTH_NONE }, .htype = { HK_OWNER | HK_PLATFORM | HK_NV, HK_NV },
	  .flags = CMD_PARAM_IN, .run = nv_extend },
	{ 0 },
};
