/* The transaction of one command (txn.h). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "nv/nv.h"
#include "state/owner.h"
#include "state/store.h"
#include "txn.h"

/* Clock is saved with every change of the state; in between, at least each time it passes a
 * multiple of TPM_PT_CLOCK_UPDATE, so that after a crash no value more than that behind one
 * reported is restored, and Clock is safe again once saved past the next one (Part 1 §36.4;
 * the reference implementation's scheme). Each locked transaction begins with it. */
#define CLOCK_UPDATE_SHIFT 22 /* TPM_PT_CLOCK_UPDATE: 2^22 ms */

static void clock_checkpoint(struct pqtpm_engine *e)
{
	if ((engine_clock_ms(e) >> CLOCK_UPDATE_SHIFT) == (e->ps.clock >> CLOCK_UPDATE_SHIFT))
		return;
	engine_clock_sync(e);
	e->ps.clock_safe = true;
	if (state_save(e) != 0)
		engine_log(e, PQTPM_LOG_WARN, "cannot save Clock to the state file");
}

#ifdef PQTPM_CHECK_STATE
/* Check builds (SAN=1): a command that began reading left e->ps as it found it, but for Clock
 * and a DA count it was let keep (it held the lock anyway, or there is no state directory).
 * A row with CMD_READS_STATE whose handler changes the state, or a change made without asking
 * for the lock, fails here in every test that runs it, rather than in a race with another
 * process. */
static void check_reading(struct txn *t)
{
	struct pqtpm_engine *e = t->e;
	struct persist now = e->ps;

	if (t->ps_snapped)
		return;
	now.clock = t->ps_seen.clock;
	now.generation = t->ps_seen.generation;
	/* txn_writable's rule, written out: the check must not trust what it checks */
	if (t->keep_da && (!e->state_dir || e->state_locked))
		now.da = t->ps_seen.da;
	if (memcmp(&now, &t->ps_seen, sizeof(now)) != 0) {
		engine_log(e, PQTPM_LOG_ERROR, "a command that began reading changed e->ps");
		abort();
	}
	crypto_wipe(&now, sizeof(now));
	crypto_wipe(&t->ps_seen, sizeof(t->ps_seen));
}
#endif

TPM_RC txn_begin(struct txn *t, struct pqtpm_engine *e, bool reads_only)
{
	char err[512];

	memset(t, 0, offsetof(struct txn, dropped));
	t->e = e;
	t->loads = e->state_loads;
	e->txn = t;
	if (!reads_only || !state_fresh(e)) {
		if (state_begin(e, err, sizeof(err)) < 0) {
			engine_log(e, PQTPM_LOG_ERROR, "%s", err);
			return TPM_RC_NV_UNAVAILABLE;
		}
		if (e->started)
			clock_checkpoint(e);
	}
	if (!reads_only) {
		t->ps_snap = e->ps;
		t->clock_base_snap = e->clock_base_ms;
		t->ps_snapped = true;
	}
#ifdef PQTPM_CHECK_STATE
	else {
		t->ps_seen = e->ps;
	}
#endif
	return TPM_RC_SUCCESS;
}

TPM_RC txn_writable(const struct pqtpm_engine *e)
{
	return !e->state_dir || e->state_locked ? TPM_RC_SUCCESS : TXN_RC_NEEDS_LOCK;
}

void engine_dirty(struct pqtpm_engine *e)
{
	e->txn->dirty = true;
}

void txn_keep_da(struct pqtpm_engine *e)
{
	e->txn->keep_da = true;
	e->txn->dirty = true;
}

TPM_RC txn_keep_nv(struct pqtpm_engine *e, TPM_HANDLE h, uint64_t value)
{
	struct txn *t = e->txn;
	unsigned i;

	for (i = 0; i < t->nkeep_nv && t->keep_nv[i].handle != h; i++)
		;
	if (i == TXN_KEEP_NV_MAX)
		return TPM_RC_FAILURE;
	if (i == t->nkeep_nv)
		t->nkeep_nv++;
	t->keep_nv[i].handle = h;
	t->keep_nv[i].value = value;
	t->dirty = true;
	return TPM_RC_SUCCESS;
}

void txn_ram_change(struct pqtpm_engine *e, int slot)
{
	struct txn *t = e->txn;

	if (t->ram_changed)
		return;
	t->ram_changed = true;
	t->ram_slot = slot;
	t->ram_handle = e->nv_ram->handle[slot];
	t->ram_value = e->nv_ram->value[slot];
}

TPM_RC txn_drop_persistent(struct pqtpm_engine *e, struct object *o)
{
	struct txn *t = e->txn;

	if (t->ndropped == MAX_PERSISTENT_OBJECTS)
		return TPM_RC_FAILURE;
	t->dropped[t->ndropped++] = o;
	t->dirty = true;
	return TPM_RC_SUCCESS;
}

TPM_RC txn_add_persistent(struct pqtpm_engine *e, struct object *o)
{
	struct txn *t = e->txn;

	if (t->nadded == MAX_PERSISTENT_OBJECTS)
		return TPM_RC_FAILURE;
	t->added[t->nadded++] = o;
	t->dirty = true;
	return TPM_RC_SUCCESS;
}

void nv_begin_change(struct pqtpm_engine *e)
{
	struct txn *t = e->txn;

	t->dirty = true;
	if (t->nv_snapped)
		return;
	if (!e->nv_spare)
		e->nv_spare = nv_store_new();
	/* Without memory for the copy a failed save cannot be undone in RAM; the command still
	 * fails and the file keeps the old state, which the next start loads. */
	if (e->nv_spare) {
		*e->nv_spare = *e->ps.nv;
		t->nv_snapped = true;
	}
}

/* The marked values into the state as it was put back. */
static void reapply_kept(struct txn *t, const struct da_state *da, uint64_t clock,
			 uint64_t clock_base)
{
	struct pqtpm_engine *e = t->e;

	if (t->keep_da) {
		e->ps.da = *da;
		/* the saved Clock must reach the failure, or a crash would move it back */
		e->ps.clock = clock;
		e->clock_base_ms = clock_base;
	}
	for (unsigned i = 0; i < t->nkeep_nv; i++) {
		struct nv_index *idx = nv_find(e->ps.nv, t->keep_nv[i].handle);

		if (idx)
			nv_put_u64(e->ps.nv, idx, t->keep_nv[i].value);
	}
}

static void rollback(struct txn *t)
{
	struct pqtpm_engine *e = t->e;
	struct da_state da = e->ps.da;
	uint64_t clock = e->ps.clock, clock_base = e->clock_base_ms;

	if (t->ps_snapped) {
		/* Shutdown(STATE)'s saved sessions are made in place (session_context.c): the
		 * snapshot may not hold the block that the state owns now */
		struct session_resume *resume = e->ps.resume;

		/* ps.clock with the base it counts from: the time since the snapshot stays counted */
		e->ps = t->ps_snap;
		e->clock_base_ms = t->clock_base_snap;
		e->ps.resume = resume;
	} else if (t->dirty && !t->keep_da && !t->nkeep_nv) {
		/* a reading command changed ps after all: the file has it as it was */
		engine_log(e, PQTPM_LOG_ERROR, "a reading command changed the persistent state");
		state_invalidate(e);
	}
	if (t->nv_snapped && e->nv_spare && e->ps.nv)
		*e->ps.nv = *e->nv_spare;
	t->nv_snapped = false;
	if (t->ram_changed && e->nv_ram) {
		/* a new slot had value 0: the stored value rules again */
		e->nv_ram->value[t->ram_slot] = t->ram_value;
		e->nv_ram->handle[t->ram_slot] = t->ram_value ? t->ram_handle : 0;
		volatile_dirty(e);
	}
	t->ram_changed = false;
	for (unsigned i = 0; i < t->nadded; i++)
		object_wipe_free(t->added[i]);
	t->nadded = 0;
	t->ndropped = 0; /* back in e->ps.persistent */
	reapply_kept(t, &da, clock, clock_base);
}

int txn_commit(struct txn *t, bool ok)
{
	struct pqtpm_engine *e = t->e;
	bool kept = t->keep_da || t->nkeep_nv;
	int err = 0;

#ifdef PQTPM_CHECK_STATE
	check_reading(t);
#endif
	if (ok && t->dirty) {
		err = state_save(e);
		if (err != 0) {
			engine_log(e, PQTPM_LOG_ERROR, "%s/%s: cannot save the state: %s",
				   e->state_dir, STATE_FILE, strerror(-err));
			t->keep_da = false;
			t->nkeep_nv = 0;
			rollback(t);
			kept = false;
		}
	} else if (!ok && (t->dirty || t->nv_snapped || t->ram_changed)) {
		rollback(t);
		/* saved before anyone hears of the failure */
		if (kept)
			err = state_save(e);
		if (err != 0)
			engine_log(e, PQTPM_LOG_ERROR, "%s/%s: cannot save a DA or PIN count: %s",
				   e->state_dir, STATE_FILE, strerror(-err));
	}
	/* A DA or PIN count that could not be saved still counts in memory: no guessing on a
	 * full disk. */
	if (err == 0)
		for (unsigned i = 0; i < t->ndropped; i++)
			object_wipe_free(t->dropped[i]);
	t->ndropped = t->nadded = 0;
	/* a hierarchy seed changes only with e->ps: in a command that changed it (or took its
	 * change back), or in a state loaded from the file; the primaries made from the old one
	 * go */
	if (t->dirty || t->loads != e->state_loads)
		primary_cache_sweep(e);
	if (t->ps_snapped)
		crypto_wipe(&t->ps_snap, sizeof(t->ps_snap));
	t->ps_snapped = false;
	t->dirty = false;
	state_end(e);
	return err;
}

void txn_end(struct txn *t)
{
	/* before the answer leaves: a crash loses only commands nobody heard back from */
	volatile_update(t->e, false);
	t->e->txn = NULL;
}
