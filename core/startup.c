/* Startup and the three ways a TPM comes up (Part 1 §12.2):
 *   TPM Reset   Startup(CLEAR) after Shutdown(CLEAR) or no orderly shutdown: new null seed
 *               and proof, new context epoch, PCRs reset, resetCount + 1, restartCount = 0.
 *   TPM Restart Startup(CLEAR) after Shutdown(STATE): PCRs reset, restartCount + 1.
 *   TPM Resume  Startup(STATE) after Shutdown(STATE): restartCount + 1, PCRs kept.
 * In every case the hierarchies are enabled again and platformAuth/platformPolicy cleared. */
#include "startup.h"
#include "pcr.h"
#include "session.h"

static TPM_RC new_null_hierarchy(struct pqtpm_engine *e)
{
	TRY(crypto_random(e->null_seed, sizeof(e->null_seed)));
	TRY(crypto_random(e->null_proof, sizeof(e->null_proof)));
	return crypto_random((uint8_t *)&e->ps.context_epoch, sizeof(e->ps.context_epoch));
}

TPM_RC startup_run(struct pqtpm_engine *e, uint16_t type, uint8_t locality)
{
	bool after_state = e->ps.orderly && e->ps.saved_state_valid;
	struct hierarchy *ph = &e->ps.hier[HIER_PLATFORM];

	if (e->started)
		return TPM_RC_INITIALIZE;
	if (type != TPM_SU_CLEAR && type != TPM_SU_STATE)
		return rc_param(TPM_RC_VALUE, 1);
	if (type == TPM_SU_STATE && !after_state)
		return rc_param(TPM_RC_VALUE, 1);
	e->startup_locality = locality;

	if (type == TPM_SU_CLEAR && !after_state) {
		e->ps.reset_count++;
		e->ps.restart_count = 0;
		e->ps.pcr_banks = e->ps.pcr_banks_pending;
		TRY(new_null_hierarchy(e));
		e->context_counter = 0;
	} else {
		e->ps.restart_count++;
	}
	if (type == TPM_SU_CLEAR)
		session_drop_saved(e);
	pcr_reset_all(e, type == TPM_SU_CLEAR);

	e->ph_enable = e->sh_enable = e->eh_enable = true;
	e->ps.ph_enable_nv = true;
	ph->auth.size = 0;
	ph->policy.size = 0;
	ph->policy_alg = TPM_ALG_NULL;
	/* Until the next orderly Shutdown, a power loss counts as disorderly. */
	e->ps.orderly = false;
	e->ps.saved_state_valid = false;
	e->started = true;
	engine_dirty(e);
	return TPM_RC_SUCCESS;
}
