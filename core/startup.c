/* Startup and the three ways a TPM comes up (Part 1 §12.2):
 *   TPM Reset   Startup(CLEAR) after Shutdown(CLEAR) or no orderly shutdown: new null seed
 *               and proof, new context epoch, PCRs reset, resetCount + 1, restartCount = 0.
 *   TPM Restart Startup(CLEAR) after Shutdown(STATE): PCRs reset, restartCount + 1.
 *   TPM Resume  Startup(STATE) after Shutdown(STATE): restartCount + 1, PCRs kept.
 * In every case the hierarchies are enabled again and platformAuth/platformPolicy cleared.
 * State-reset data goes at a TPM Reset only: the command audit digest is cleared (the next
 * audited command starts a new sequence; the counter, hash and list are persistent) and the
 * commit state made anew (a new nonce, counts from 0, none outstanding), as the reference
 * implementation's STATE_RESET_DATA. The PCR group's authValue (state-clear data) goes at
 * every Startup(CLEAR) (pcr.c); its policy is persistent. Shutdown(STATE) saves both kinds
 * in the state file too, for a Restart or Resume after a host reboot.
 * Saved session contexts end at a TPM Reset and survive a Restart or Resume (Part 1 §30).
 *
 * Shutdown(STATE) saves PCRs 0-15 in the state file, so that a TPM Resume in a new process
 * (the server restarted between the two) finds them, and with them the saved sessions, the
 * NULL hierarchy and the context counter (session_context.c), so that saved session contexts
 * and NULL-hierarchy object contexts load after the restart. NV indices lose their STCLEAR locks and flags at Reset and Restart, and
 * a Startup after a disorderly shutdown marks Clock unsafe and moves orderly counters ahead
 * (nv/lifecycle.c). */
#include <string.h>

#include "nv/nv.h"
#include "pcr.h"
#include "session.h"
#include "startup.h"

static TPM_RC new_null_hierarchy(struct pqtpm_engine *e)
{
	TRY(crypto_random(e->null_seed, sizeof(e->null_seed)));
	TRY(crypto_random(e->null_proof, sizeof(e->null_proof)));
	return crypto_random((uint8_t *)&e->ps.context_epoch, sizeof(e->ps.context_epoch));
}

void startup_save_pcrs(struct pqtpm_engine *e)
{
	struct pcr_saved *p = &e->ps.pcr_saved;
	struct ram_saved *ram = &e->ps.ram_saved;

	session_resume_capture(e);
	ram->valid = true;
	ram->cmd_audit_digest = e->cmd_audit_digest;
	ram->commit = e->commit;
	ram->pcr_group_auth = e->pcr_group_auth;

	memset(p, 0, sizeof(*p));
	for (unsigned b = 0; b < e->nbanks && b < MAX_PCR_BANKS; b++) {
		p->alg[b] = e->banks[b].alg;
		for (unsigned i = 0; i < PCR_SAVED_NUM; i++)
			memcpy(p->value[b][i], e->banks[b].value[i], MAX_DIGEST_SIZE);
	}
	p->nbanks = (uint8_t)e->nbanks;
}

/* TPM Resume in a process that has no PCR banks yet: those Shutdown(STATE) saved. */
static void restore_pcrs(struct pqtpm_engine *e)
{
	const struct pcr_saved *p = &e->ps.pcr_saved;

	if (e->nbanks != 0 || p->nbanks == 0)
		return;
	memset(e->banks, 0, sizeof(e->banks));
	for (unsigned b = 0; b < p->nbanks; b++) {
		e->banks[b].alg = p->alg[b];
		for (unsigned i = 0; i < PCR_SAVED_NUM; i++)
			memcpy(e->banks[b].value[i], p->value[b][i], MAX_DIGEST_SIZE);
	}
	e->nbanks = p->nbanks;
}

static bool all_zero(const uint8_t *b, size_t n)
{
	uint8_t acc = 0;

	for (size_t i = 0; i < n; i++)
		acc |= b[i];
	return acc == 0;
}

/* TPM Restart or Resume: a process that never had the TPM's RAM (no NULL hierarchy yet: a
 * host reboot since Shutdown(STATE)) takes the reset and clear data Shutdown saved; one that
 * has it keeps its own, which commands after the Shutdown may have moved on. */
static void restore_ram(struct pqtpm_engine *e)
{
	const struct ram_saved *ram = &e->ps.ram_saved;

	if (!ram->valid || !all_zero(e->null_proof, sizeof(e->null_proof)))
		return;
	e->cmd_audit_digest = ram->cmd_audit_digest;
	e->commit = ram->commit;
	e->pcr_group_auth = ram->pcr_group_auth;
}

TPM_RC startup_run(struct pqtpm_engine *e, uint16_t type, uint8_t locality)
{
	bool after_state = e->ps.orderly && e->ps.saved_state_valid;
	bool was_orderly = e->ps.orderly;
	struct hierarchy *ph = &e->ps.hier[HIER_PLATFORM];

	if (e->started)
		return TPM_RC_INITIALIZE;
	if (type != TPM_SU_CLEAR && type != TPM_SU_STATE)
		return rc_param(TPM_RC_VALUE, 1);
	if (type == TPM_SU_STATE && !after_state)
		return rc_param(TPM_RC_VALUE, 1);
	volatile_dirty(e);
	e->startup_locality = locality;

	if (type == TPM_SU_CLEAR && !after_state) {
		e->ps.reset_count++;
		e->ps.restart_count = 0;
		e->ps.pcr_banks = e->ps.pcr_banks_pending;
		TRY(new_null_hierarchy(e));
		e->context_counter = 0;
		session_drop_saved(e);
		e->cmd_audit_digest.size = 0;
		crypto_wipe(&e->commit, sizeof(e->commit));
	} else {
		e->ps.restart_count++;
		restore_ram(e);
		/* saved sessions, the NULL hierarchy, the context counter: as Shutdown left them */
		TRY(session_resume_restore(e));
	}
	if (type == TPM_SU_STATE)
		restore_pcrs(e);
	pcr_reset_all(e, type == TPM_SU_CLEAR);
	if (after_state)
		session_resume_pcr_counter(e);
	memset(&e->ps.pcr_saved, 0, sizeof(e->ps.pcr_saved));
	crypto_wipe(&e->ps.ram_saved, sizeof(e->ps.ram_saved));
	nv_startup(e, type == TPM_SU_CLEAR, was_orderly);
	/* Clock values reported after the last save may have been lost (Part 1 §36.4) */
	if (!was_orderly)
		e->ps.clock_safe = false;

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
