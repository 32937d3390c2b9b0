/* Who may read and write an index (Part 1 §37.2.3, Part 3 §31.1): the hierarchy checks of the
 * handle area, the AUTHREAD/AUTHWRITE and POLICYREAD/POLICYWRITE rules of an authorization by
 * the index itself, the OWNER/PP rules of one by a hierarchy, locks, and PIN counting. */
#include "nv/nv.h"

bool nv_accessible(const struct pqtpm_engine *e, const struct nv_index *idx)
{
	if (idx->pub.attributes & TPMA_NV_PLATFORMCREATE)
		return e->ps.ph_enable_nv;
	return e->sh_enable;
}

bool nv_is_write_command(TPM_CC cc)
{
	switch (cc) {
	case TPM_CC_NV_Write:
	case TPM_CC_NV_Increment:
	case TPM_CC_NV_SetBits:
	case TPM_CC_NV_Extend:
	case TPM_CC_NV_WriteLock:
		return true;
	default:
		return false;
	}
}

static bool is_pin(uint32_t attributes)
{
	unsigned t = nv_type(attributes);

	return t == TPM_NT_PIN_FAIL || t == TPM_NT_PIN_PASS;
}

/* TPMS_NV_PIN_COUNTER_PARAMETERS: pinCount (high half), pinLimit (low half) */
static uint32_t pin_count(uint64_t v)
{
	return (uint32_t)(v >> 32);
}

static uint32_t pin_limit(uint64_t v)
{
	return (uint32_t)v;
}

TPM_RC nv_auth_value_allowed(const struct cmd *c, unsigned slot)
{
	const struct nv_index *idx = c->nv[slot];
	uint32_t a = idx->pub.attributes;

	/* the ADMIN role of an index (NV_ChangeAuth, NV_UndefineSpaceSpecial) takes a policy */
	if (c->def->auth[slot] == AUTH_ADMIN)
		return TPM_RC_AUTH_UNAVAILABLE;
	if (nv_is_write_command(c->def->code))
		return a & TPMA_NV_AUTHWRITE ? TPM_RC_SUCCESS : TPM_RC_AUTH_UNAVAILABLE;
	if (is_pin(a)) {
		uint64_t v;

		if (!(a & TPMA_NV_WRITTEN))
			return TPM_RC_AUTH_UNAVAILABLE;
		v = nv_get_u64(c->e->ps.nv, idx);
		return pin_count(v) < pin_limit(v) ? TPM_RC_SUCCESS : TPM_RC_AUTH_UNAVAILABLE;
	}
	return a & TPMA_NV_AUTHREAD ? TPM_RC_SUCCESS : TPM_RC_AUTH_UNAVAILABLE;
}

TPM_RC nv_policy_allowed(const struct cmd *c, unsigned slot)
{
	uint32_t a = c->nv[slot]->pub.attributes;

	if (c->def->auth[slot] == AUTH_ADMIN)
		return TPM_RC_SUCCESS;
	if (nv_is_write_command(c->def->code))
		return a & TPMA_NV_POLICYWRITE ? TPM_RC_SUCCESS : TPM_RC_AUTH_UNAVAILABLE;
	return a & TPMA_NV_POLICYREAD ? TPM_RC_SUCCESS : TPM_RC_AUTH_UNAVAILABLE;
}

/* PIN Fail counts failures and starts over on a success; PIN Pass counts successes. The
 * count is saved before the command goes on, so a failing command cannot undo it. */
TPM_RC nv_auth_checked(struct cmd *c, unsigned slot, bool ok)
{
	struct nv_index *idx = c->nv[slot];
	uint32_t a = idx->pub.attributes;
	uint64_t v, nv;
	uint32_t count;

	if (!is_pin(a) || !(a & TPMA_NV_WRITTEN))
		return TPM_RC_SUCCESS;
	v = nv_get_u64(c->e->ps.nv, idx);
	count = pin_count(v);
	if (nv_type(a) == TPM_NT_PIN_FAIL)
		count = ok ? 0 : (count == UINT32_MAX ? count : count + 1);
	else if (ok && count < UINT32_MAX)
		count++;
	nv = (uint64_t)count << 32 | pin_limit(v);
	if (nv == v)
		return TPM_RC_SUCCESS;
	TRY(txn_writable(c->e)); /* counted under the lock (dispatch.c) */
	nv_begin_change(c->e);
	nv_put_u64(c->e->ps.nv, idx, nv);
	/* counted even if the command fails */
	return txn_keep_nv(c->e, idx->pub.handle, nv);
}

TPM_RC nv_read_access(const struct cmd *c, const struct nv_index *idx)
{
	uint32_t a = idx->pub.attributes;
	TPM_HANDLE auth = c->handle[0];

	if (a & TPMA_NV_READLOCKED)
		return TPM_RC_NV_LOCKED;
	if (auth == TPM_RH_OWNER) {
		if (!(a & TPMA_NV_OWNERREAD))
			return TPM_RC_NV_AUTHORIZATION;
	} else if (auth == TPM_RH_PLATFORM) {
		if (!(a & TPMA_NV_PPREAD))
			return TPM_RC_NV_AUTHORIZATION;
	} else if (auth != idx->pub.handle) {
		return TPM_RC_NV_AUTHORIZATION;
	}
	/* after the authorization checks, so that NV_ReadLock gets those right */
	if (!(a & TPMA_NV_WRITTEN))
		return TPM_RC_NV_UNINITIALIZED;
	return TPM_RC_SUCCESS;
}

TPM_RC nv_write_access(const struct cmd *c, const struct nv_index *idx)
{
	uint32_t a = idx->pub.attributes;
	TPM_HANDLE auth = c->handle[0];

	if (a & TPMA_NV_WRITELOCKED)
		return TPM_RC_NV_LOCKED;
	if (auth == TPM_RH_OWNER) {
		if (!(a & TPMA_NV_OWNERWRITE))
			return TPM_RC_NV_AUTHORIZATION;
	} else if (auth == TPM_RH_PLATFORM) {
		if (!(a & TPMA_NV_PPWRITE))
			return TPM_RC_NV_AUTHORIZATION;
	} else if (auth != idx->pub.handle) {
		return TPM_RC_NV_AUTHORIZATION;
	}
	return TPM_RC_SUCCESS;
}

void nv_mark_written(struct nv_index *idx)
{
	idx->pub.attributes |= TPMA_NV_WRITTEN;
}
