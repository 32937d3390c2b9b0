/* The expensive step of a command without the engine lock (docs/engine-concurrency.md).
 *
 * A handler reads its parameters, checks what it needs (authorization is done: dispatch ran it
 * before the handler), copies into its own variables whatever the computation needs, and then
 *
 *	TRY(cmd_unlock(c));
 *	rc = ...the computation, on the handler's own copies only...;
 *	rc2 = cmd_relock(c);
 *
 * cmd_unlock ends the command's first transaction (what authorization counted, DA and PIN
 * counts, is saved) and lets other clients' commands run. Until cmd_relock the handler
 * touches nothing shared: no engine state, no object, no session (c->obj[] and c->nv[] are
 * NULL meanwhile). cmd_relock takes the lock again, begins the transaction of the rest and
 * finds the command's handles again: an object flushed or evicted meanwhile, or a hierarchy
 * disabled, fails as a real TPM would (TPM_RC_REFERENCE_H0 + n for a transient object,
 * TPM_RC_HANDLE for a persistent one, TPM_RC_HIERARCHY), a power cycle with TPM_RC_INITIALIZE;
 * nothing of the command is written then. A handler calls cmd_relock after every cmd_unlock
 * that succeeded, whatever its computation gave. A handler changes no persistent state before
 * cmd_unlock. */
#ifndef PQTPM_COMPUTE_H
#define PQTPM_COMPUTE_H

#include "engine_int.h"
#include "key_material.h"

TPM_RC cmd_unlock(struct cmd *c);
TPM_RC cmd_relock(struct cmd *c);

/* The same for a computation with the loaded key in handle slot `slot`: cmd_unlock_key pins
 * its material into *k (key_material.h: copies of its areas and a reference to its built
 * forms, which a flush or Clear meanwhile does not free) and unlocks, unless the computation
 * is cheaper than that (an HMAC or symmetric key) or the command's row says CMD_LOCKED;
 * nothing is pinned if it fails. cmd_relock_key drops *k and relocks if it unlocked; it
 * returns rc, the computation's code, if that is not TPM_RC_SUCCESS, else cmd_relock's. After
 * it the handler reads its objects from c->obj[] again (found again, maybe elsewhere). */
TPM_RC cmd_unlock_key(struct cmd *c, unsigned slot, struct key_material *k);
TPM_RC cmd_relock_key(struct cmd *c, struct key_material *k, TPM_RC rc);

#endif
