/* Dictionary-attack protection (Part 1 §19.8, Part 3 §25).
 *
 * DA-protected are objects without TPMA_OBJECT_NODA, NV indices without TPMA_NV_NO_DA and
 * lockoutAuth; the other hierarchies, PCRs, the NULL handle and sequence objects are exempt.
 * A wrong authValue of a protected entity adds one to failedTries; at maxTries the TPM is in
 * lockout and refuses the authValue of every protected entity with TPM_RC_LOCKOUT (policies
 * without PolicyAuthValue or PolicyPassword still work). failedTries drops by one every
 * recoveryTime seconds of Clock without a failure; DictionaryAttackLockReset clears it. A
 * wrong lockoutAuth locks lockoutAuth itself for lockoutRecovery seconds (0: until the next
 * Startup). recoveryTime 0 turns the counting off. A failure on an exempt entity is
 * TPM_RC_BAD_AUTH, on a protected one TPM_RC_AUTH_FAIL. An HMAC session bound to a protected
 * entity (to lockoutAuth) stands for that entity's DA state whatever it authorizes, as in the
 * reference (isDaBound, isLockoutBound).
 *
 * The defaults are the TCG reference implementation's (maxTries 3, 1000 s, 1000 s). Every
 * change is saved before the response leaves, failures included, so cutting the power does
 * not undo them; that is why a Startup after a disorderly shutdown does not count a failure
 * here as it does there.
 */
#ifndef PQTPM_DA_H
#define PQTPM_DA_H

#include "session.h"

#define DA_DEFAULT_MAX_TRIES 3
#define DA_DEFAULT_RECOVERY_TIME 1000	 /* s */
#define DA_DEFAULT_LOCKOUT_RECOVERY 1000 /* s */

/* ---- StartAuthSession: an HMAC session bound to handle slot ---- */
void da_bind(struct cmd *c, unsigned slot, struct session *s);

/* ---- auth.c: session s (NULL for a password) checks the authValue of handle slot, or of
 * none (slot -1: a policy without PolicyAuthValue/PolicyPassword, a session that authorizes
 * nothing) ---- */
/* Before the check: TPM_RC_LOCKOUT when it may not be tried now. */
TPM_RC da_check(struct cmd *c, const struct session *s, int slot);
/* The check failed: count it where it counts (saved at once) and return the code for it
 * (TPM_RC_AUTH_FAIL, TPM_RC_BAD_AUTH, or TPM_RC_NV_UNAVAILABLE if it could not be saved);
 * the caller adds the session number. */
TPM_RC da_failure(struct cmd *c, const struct session *s, int slot);

/* ---- GetCapability: the values as of now ---- */
uint32_t da_failed_tries(struct pqtpm_engine *e);
uint32_t da_max_tries(const struct pqtpm_engine *e);
uint32_t da_recovery_time(const struct pqtpm_engine *e);
uint32_t da_lockout_recovery(const struct pqtpm_engine *e);
bool da_in_lockout(struct pqtpm_engine *e); /* TPMA_PERMANENT inLockout */

/* ---- DictionaryAttackLockReset, DictionaryAttackParameters ---- */
void da_reset(struct pqtpm_engine *e);
void da_set_parameters(struct pqtpm_engine *e, uint32_t max_tries, uint32_t recovery_time,
		       uint32_t lockout_recovery);

#endif
