/* Hierarchies (platform, owner, endorsement, null, lockout): their seeds, proofs, auths and
 * whether they are enabled; and the authValue of any entity a handle names. */
#include "engine_int.h"
#include "nv/nv.h"
#include "pcr.h"

int hier_index(TPM_HANDLE h)
{
	switch (h) {
	case TPM_RH_PLATFORM:
		return HIER_PLATFORM;
	case TPM_RH_OWNER:
		return HIER_OWNER;
	case TPM_RH_ENDORSEMENT:
		return HIER_ENDORSEMENT;
	case TPM_RH_NULL:
		return HIER_NULL;
	case TPM_RH_LOCKOUT:
		return HIER_LOCKOUT;
	default:
		return -1;
	}
}

bool hier_enabled(struct pqtpm_engine *e, TPM_HANDLE h)
{
	switch (h) {
	case TPM_RH_PLATFORM:
		return e->ph_enable;
	case TPM_RH_OWNER:
		return e->sh_enable;
	case TPM_RH_ENDORSEMENT:
		return e->eh_enable;
	case TPM_RH_NULL:
	case TPM_RH_LOCKOUT:
		return true;
	default:
		return false;
	}
}

struct hierarchy *hier_get(struct pqtpm_engine *e, TPM_HANDLE h)
{
	int i = hier_index(h);

	return i < 0 ? NULL : &e->ps.hier[i];
}

const uint8_t *hier_seed(struct pqtpm_engine *e, TPM_HANDLE h)
{
	int i = hier_index(h);

	if (i < 0 || i == HIER_LOCKOUT)
		return NULL;
	return i == HIER_NULL ? e->null_seed : e->ps.hier[i].seed;
}

const uint8_t *hier_proof(struct pqtpm_engine *e, TPM_HANDLE h)
{
	int i = hier_index(h);

	if (i < 0 || i == HIER_LOCKOUT)
		return NULL;
	return i == HIER_NULL ? e->null_proof : e->ps.hier[i].proof;
}

TPM_RC entity_auth(struct cmd *c, unsigned slot, struct tpm2b_digest *auth)
{
	TPM_HANDLE h = c->handle[slot];
	struct hierarchy *hi;

	auth->size = 0;
	if (c->obj[slot]) {
		*auth = c->obj[slot]->sens.auth_value;
		return TPM_RC_SUCCESS;
	}
	if (c->nv[slot]) {
		*auth = c->nv[slot]->auth;
		return TPM_RC_SUCCESS;
	}
	if ((h >> 24) == TPM_HT_PCR) {
		if (pcr_in_auth_group(h))
			*auth = c->e->pcr_group_auth;
		return TPM_RC_SUCCESS;
	}
	hi = hier_get(c->e, h);
	if (hi && h != TPM_RH_NULL)
		*auth = hi->auth;
	return TPM_RC_SUCCESS;
}
