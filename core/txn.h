/* The transaction of one command: the one place that snapshots, commits and rolls back.
 *
 *   txn_begin    the state directory locked and the newest state loaded (another process may
 *                share it), Clock checkpointed, and e->ps copied aside for a command that may
 *                change it (a command that only reads skips the copy, and the lock while e->ps
 *                is fresh: dispatch.c's reads_state_only; if it finds that it must write after
 *                all, it asks for the lock with TXN_RC_NEEDS_LOCK before it changes anything)
 *   during       engine_dirty marks e->ps changed; nv_begin_change copies the NV store aside
 *                before its first change; txn_keep_da / txn_keep_nv mark what must persist
 *                even if the command fails (a DA failure, a PIN counter); objects dropped from
 *                or added to e->ps.persistent are freed when the outcome is known
 *   txn_commit   the command succeeded: what it changed is saved before the answer leaves, or
 *                taken back if the save fails; it failed: everything is taken back but what
 *                was marked, which is saved
 *   txn_end      the volatile state written (docs/state-directory.md) before the answer
 * Memory never holds what the disk does not. One transaction is open at a time per engine
 * (under its lock): e->txn. */
#ifndef PQTPM_TXN_H
#define PQTPM_TXN_H

#include <stdbool.h>

#include "engine_int.h"

#define TXN_KEEP_NV_MAX 3 /* PIN indices one command may authorize: one per handle */

struct txn {
	struct pqtpm_engine *e;
	bool dirty;			/* e->ps changed: saved before answering */
	bool ps_snapped;		/* ps_snap holds e->ps as the command found it */
	uint64_t clock_base_snap;	/* clock_base_ms with ps_snap: Clock runs on through a rollback */
	uint64_t loads;			/* e->state_loads at the begin */
	bool nv_snapped;		/* e->nv_spare holds the NV store as the command found it */
	/* the one orderly counter value (nv/orderly.c) the command changed in RAM */
	bool ram_changed;
	int ram_slot;
	TPM_HANDLE ram_handle;
	uint64_t ram_value;
	/* persist even if the command fails */
	bool keep_da;			/* e->ps.da, with the Clock it was stamped with */
	unsigned nkeep_nv;
	struct {
		TPM_HANDLE handle;
		uint64_t value;
	} keep_nv[TXN_KEEP_NV_MAX];
	/* persistent objects: those the command took out of e->ps go at a commit, those it put
	 * in go at a rollback (the snapshot does not hold them) */
	unsigned ndropped, nadded;
	/* from here on, not cleared at the begin: what the counts and flags above say is set */
	struct object *dropped[MAX_PERSISTENT_OBJECTS];
	struct object *added[MAX_PERSISTENT_OBJECTS];
	struct persist ps_snap;
#ifdef PQTPM_CHECK_STATE
	struct persist ps_seen;		/* a reading command's e->ps at the begin (txn.c) */
#endif
};

/* What a command that began reading (txn_begin with reads_only) returns when it finds that it
 * must change the persistent state (a DA failure or healing, a PIN count, a commit state that
 * Shutdown saved), before it changed anything: dispatch runs it again from the start, locked.
 * All ones: rc_param, rc_handle and rc_session leave it as it is (it reads as numbered). */
#define TXN_RC_NEEDS_LOCK 0xFFFFFFFFu

/* Returns TPM_RC_NV_UNAVAILABLE if the state directory cannot be locked or read. */
TPM_RC txn_begin(struct txn *t, struct pqtpm_engine *e, bool reads_only);
/* ok: the command succeeded. Returns 0, or the negative errno of a save that failed (the
 * change was then taken back; for a failed command: what was marked could not be saved). */
int txn_commit(struct txn *t, bool ok);
void txn_end(struct txn *t);

/* TPM_RC_SUCCESS if the command may change e->ps now: its state directory is locked (or it has
 * none); else TXN_RC_NEEDS_LOCK. */
TPM_RC txn_writable(const struct pqtpm_engine *e);
/* A DA failure or healing (da.c): survives the command's failure. */
void txn_keep_da(struct pqtpm_engine *e);
/* A PIN index's new value (nv/access.c), after its change: survives the command's failure. */
TPM_RC txn_keep_nv(struct pqtpm_engine *e, TPM_HANDLE h, uint64_t value);
/* An orderly counter's RAM slot (nv/orderly.c) is about to change. */
void txn_ram_change(struct pqtpm_engine *e, int slot);
/* o left e->ps.persistent (freed if the command commits) / entered it (freed otherwise). */
TPM_RC txn_drop_persistent(struct pqtpm_engine *e, struct object *o);
TPM_RC txn_add_persistent(struct pqtpm_engine *e, struct object *o);

/* Before the first change a command makes to the NV store: copies it aside once per command
 * so that it can be put back. Then mark the state dirty. */
void nv_begin_change(struct pqtpm_engine *e);

#endif
