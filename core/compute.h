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

TPM_RC cmd_unlock(struct cmd *c);
TPM_RC cmd_relock(struct cmd *c);

#endif
