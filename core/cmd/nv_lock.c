/* NV_WriteLock, NV_ReadLock, NV_GlobalWriteLock (Part 3 §31.11, §31.12, §31.14). Locks are
 * attributes (WRITELOCKED, READLOCKED): they change the Name and are saved like the data;
 * Startup clears the ones that do not last (nv/lifecycle.c). */
#include "nv/nv.h"

static void set_attribute(struct pqtpm_engine *e, struct nv_index *idx, uint32_t bit)
{
	nv_begin_change(e);
	idx->pub.attributes |= bit;
	engine_dirty(e);
}

static TPM_RC write_lock(struct cmd *c)
{
	struct nv_index *idx = c->nv[1];
	TPM_RC rc;

	TRY(cmd_params_done(c));
	rc = nv_write_access(c, idx);

	if (rc == TPM_RC_NV_LOCKED) /* locked already: nothing to do */
		return TPM_RC_SUCCESS;
	TRY(rc);
	if (!(idx->pub.attributes & (TPMA_NV_WRITEDEFINE | TPMA_NV_WRITE_STCLEAR)))
		return rc_handle(TPM_RC_ATTRIBUTES, 2);
	set_attribute(c->e, idx, TPMA_NV_WRITELOCKED);
	return TPM_RC_SUCCESS;
}

static TPM_RC read_lock(struct cmd *c)
{
	struct nv_index *idx = c->nv[1];
	TPM_RC rc;

	TRY(cmd_params_done(c));
	rc = nv_read_access(c, idx);

	if (rc == TPM_RC_NV_LOCKED)
		return TPM_RC_SUCCESS;
	/* an index not yet written may be read-locked */
	if (rc != TPM_RC_SUCCESS && rc != TPM_RC_NV_UNINITIALIZED)
		return rc;
	if (!(idx->pub.attributes & TPMA_NV_READ_STCLEAR))
		return rc_handle(TPM_RC_ATTRIBUTES, 2);
	set_attribute(c->e, idx, TPMA_NV_READLOCKED);
	return TPM_RC_SUCCESS;
}

static TPM_RC global_write_lock(struct cmd *c)
{
	struct nv_store *s = c->e->ps.nv;

	TRY(cmd_params_done(c));
	for (unsigned i = 0; i < NV_MAX_INDICES; i++) {
		struct nv_index *idx = &s->idx[i];
		uint32_t a = idx->pub.attributes;

		if (idx->pub.handle && (a & TPMA_NV_GLOBALLOCK) && !(a & TPMA_NV_WRITELOCKED))
			set_attribute(c->e, idx, TPMA_NV_WRITELOCKED);
	}
	return TPM_RC_SUCCESS;
}

#define NV_AUTH_HANDLES { HK_OWNER | HK_PLATFORM | HK_NV, HK_NV }
const struct cmd_def cmds_nv_lock[] = {
	{ .code = TPM_CC_NV_WriteLock, .name = "NV_WriteLock", .handles = 2,
	  .auth = { AUTH_USER, AUTH_NONE }, .htype = NV_AUTH_HANDLES, .run = write_lock },
	{ .code = TPM_CC_NV_ReadLock, .name = "NV_ReadLock", .handles = 2,
	  .auth = { AUTH_USER, AUTH_NONE }, .htype = NV_AUTH_HANDLES, .run = read_lock },
	{ .code = TPM_CC_NV_GlobalWriteLock, .name = "NV_GlobalWriteLock", .handles = 1,
	  .auth = { AUTH_USER }, .htype = { HK_OWNER | HK_PLATFORM }, .flags = CMD_PP,
	  .run = global_write_lock },
	{ 0 },
};
