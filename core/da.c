/* Dictionary-attack protection (see da.h). */
#include "da.h"
#include "nv/nv.h"
#include "txn.h"

#define MS_PER_S 1000u

uint32_t da_max_tries(const struct pqtpm_engine *e)
{
	return e->ps.da.params_set ? e->ps.da.max_tries : DA_DEFAULT_MAX_TRIES;
}

uint32_t da_recovery_time(const struct pqtpm_engine *e)
{
	return e->ps.da.params_set ? e->ps.da.recovery_time : DA_DEFAULT_RECOVERY_TIME;
}

uint32_t da_lockout_recovery(const struct pqtpm_engine *e)
{
	return e->ps.da.params_set ? e->ps.da.lockout_recovery : DA_DEFAULT_LOCKOUT_RECOVERY;
}

/* Which Startup we are in: lockoutRecovery 0 waits for the next one. */
static uint64_t boot_id(const struct persist *ps)
{
	return (uint64_t)ps->reset_count << 32 | ps->restart_count;
}

/* failedTries at Clock now: one less for every recoveryTime since heal_from; *from is the
 * heal_from that goes with the result. A Clock behind heal_from (Clear sets it to zero) starts
 * the wait again from now. */
static uint32_t healed_tries(const struct pqtpm_engine *e, uint64_t now, uint64_t *from)
{
	const struct da_state *da = &e->ps.da;
	uint64_t period = (uint64_t)da_recovery_time(e) * MS_PER_S, steps;
	uint32_t tries = da->failed_tries;

	*from = da->heal_from;
	if (tries == 0 || period == 0) /* recoveryTime 0: no DA protection */
		return 0;
	if (tries > da_max_tries(e)) /* maxTries was lowered */
		tries = da_max_tries(e);
	if (now < *from) {
		*from = now;
		return tries;
	}
	steps = (now - *from) / period;
	*from += steps * period;
	return steps >= tries ? 0 : tries - (uint32_t)steps;
}

static bool lockout_recovered(const struct pqtpm_engine *e, uint64_t now)
{
	const struct da_state *da = &e->ps.da;
	uint64_t wait = (uint64_t)da_lockout_recovery(e) * MS_PER_S;

	if (!da->lockout_locked)
		return true;
	if (wait == 0)
		return boot_id(&e->ps) != da->lockout_boot;
	return now >= da->lockout_from && now - da->lockout_from >= wait;
}

/* The state brought up to date with the time that passed, into *da (e->ps.da unchanged); true
 * if that differs from e->ps.da. */
static bool da_updated(struct pqtpm_engine *e, struct da_state *da)
{
	uint64_t now = engine_clock_ms(e), from;
	uint32_t tries = healed_tries(e, now, &from);
	bool changed = tries != e->ps.da.failed_tries || from != e->ps.da.heal_from;

	*da = e->ps.da;
	da->failed_tries = tries;
	da->heal_from = from;
	if (da->lockout_locked && now < da->lockout_from) { /* the Clock went back: wait anew */
		da->lockout_from = now;
		changed = true;
	}
	if (da->lockout_locked && lockout_recovered(e, now)) {
		da->lockout_locked = false;
		changed = true;
	}
	return changed;
}

static bool protected_entity(const struct cmd *c, unsigned slot)
{
	const struct object *o = c->obj[slot];

	/* sequence objects are exempt, like the reference implementation's */
	if (o)
		return o->kind == OBJ_KEY && !(o->pub.attributes & TPMA_OBJECT_NODA);
	if (c->nv[slot])
		return !(c->nv[slot]->pub.attributes & TPMA_NV_NO_DA);
	return c->handle[slot] == TPM_RH_LOCKOUT;
}

void da_bind(struct cmd *c, unsigned slot, struct session *s)
{
	s->da_bound = s->type == TPM_SE_HMAC && protected_entity(c, slot);
	s->lockout_bound = s->da_bound && c->handle[slot] == TPM_RH_LOCKOUT;
}

/* The DA state an authorization failure counts against (the reference's IncrementLockout). */
enum da_target { DA_NONE, DA_TRIES, DA_LOCKOUT };

static enum da_target target(const struct cmd *c, const struct session *s, int slot)
{
	if (s && s->lockout_bound)
		return DA_LOCKOUT;
	if (slot >= 0 && protected_entity(c, (unsigned)slot))
		return c->handle[slot] == TPM_RH_LOCKOUT ? DA_LOCKOUT : DA_TRIES;
	return s && s->da_bound ? DA_TRIES : DA_NONE;
}

static TPM_RC locked(struct pqtpm_engine *e, enum da_target t)
{
	if (t == DA_LOCKOUT && e->ps.da.lockout_locked)
		return TPM_RC_LOCKOUT;
	if (t == DA_TRIES && e->ps.da.failed_tries >= da_max_tries(e))
		return TPM_RC_LOCKOUT;
	return TPM_RC_SUCCESS;
}

TPM_RC da_check(struct cmd *c, const struct session *s, int slot)
{
	struct pqtpm_engine *e = c->e;
	struct da_state da;

	if (target(c, s, slot) == DA_NONE)
		return TPM_RC_SUCCESS;
	/* saved even if the command is refused; a command that began reading asks for the lock
	 * first (dispatch.c) */
	if (da_updated(e, &da)) {
		TRY(txn_writable(e));
		txn_keep_da(e);
		e->ps.da = da;
	}
	/* a bound session is checked for its entity, the authValue for its own */
	if (s && s->da_bound)
		TRY(locked(e, s->lockout_bound ? DA_LOCKOUT : DA_TRIES));
	if (slot >= 0 && protected_entity(c, (unsigned)slot))
		TRY(locked(e, c->handle[slot] == TPM_RH_LOCKOUT ? DA_LOCKOUT : DA_TRIES));
	return TPM_RC_SUCCESS;
}

TPM_RC da_failure(struct cmd *c, const struct session *s, int slot)
{
	struct pqtpm_engine *e = c->e;
	struct da_state *da = &e->ps.da;
	enum da_target t = target(c, s, slot);
	uint64_t now;

	if (t == DA_NONE)
		return TPM_RC_BAD_AUTH;
	TRY(txn_writable(e)); /* counted under the lock (dispatch.c) */
	/* the saved Clock must reach the failure, or a crash would move it back before it */
	engine_clock_sync(e);
	now = engine_clock_ms(e);
	if (t == DA_LOCKOUT) {
		da->lockout_locked = true;
		da->lockout_from = now;
		da->lockout_boot = boot_id(&e->ps);
	} else {
		if (da_recovery_time(e) != 0)
			da->failed_tries++;
		da->heal_from = now;
	}
	/* the transaction takes back what a failed command changed, but this: it is saved
	 * before anyone hears of the failure */
	txn_keep_da(e);
	return TPM_RC_AUTH_FAIL;
}

uint32_t da_failed_tries(struct pqtpm_engine *e)
{
	uint64_t from;

	return healed_tries(e, engine_clock_ms(e), &from);
}

bool da_in_lockout(struct pqtpm_engine *e)
{
	return da_failed_tries(e) >= da_max_tries(e);
}

void da_reset(struct pqtpm_engine *e)
{
	e->ps.da.failed_tries = 0;
	engine_dirty(e);
}

void da_set_parameters(struct pqtpm_engine *e, uint32_t max_tries, uint32_t recovery_time,
		       uint32_t lockout_recovery)
{
	struct da_state da;

	(void)da_updated(e, &da); /* what healed under the old recoveryTime stays healed */
	da.params_set = true;
	da.max_tries = max_tries;
	da.recovery_time = recovery_time;
	da.lockout_recovery = lockout_recovery;
	engine_dirty(e);
	e->ps.da = da;
}
