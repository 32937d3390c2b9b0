/* The expensive step of a command without the engine lock (compute.h). */
#include <string.h>

#include "compute.h"
#include "nv/nv.h"
#include "txn.h"

TPM_RC cmd_unlock(struct cmd *c)
{
	struct pqtpm_engine *e = c->e;

	if (txn_commit(c->txn, true) != 0) {
		/* what authorization counted cannot be saved: the command goes no further */
		(void)txn_begin(c->txn, e, false);
		return TPM_RC_NV_UNAVAILABLE;
	}
	e->txn = NULL;
	c->epoch = e->power_epoch;
	for (unsigned i = 0; i < c->def->handles; i++) {
		c->held[i].size = 0;
		if (c->obj[i])
			c->held[i] = c->obj[i]->name;
		c->obj[i] = NULL;
		c->nv[i] = NULL;
	}
	__atomic_add_fetch(&e->computing, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&e->lock);
	return TPM_RC_SUCCESS;
}

static bool same_name(const struct tpm2b_name *a, const struct tpm2b_name *b)
{
	return a->size == b->size && memcmp(a->b, b->b, a->size) == 0;
}

/* Handle slot i as resolve_handles (dispatch.c) found it, found again. */
static TPM_RC find_again(struct cmd *c, unsigned i)
{
	TPM_HANDLE h = c->handle[i];
	struct object *o;

	switch (h >> 24) {
	case TPM_HT_TRANSIENT:
	case TPM_HT_PERSISTENT:
		o = object_find(c->client, h);
		if (!o || !same_name(&o->name, &c->held[i]))
			return h >> 24 == TPM_HT_TRANSIENT ? TPM_RC_REFERENCE_H0 + i
							   : rc_handle(TPM_RC_HANDLE, i + 1);
		if (o->kind == OBJ_KEY && !hier_enabled(c->e, o->hierarchy))
			return rc_handle(TPM_RC_HIERARCHY, i + 1);
		c->obj[i] = o;
		return TPM_RC_SUCCESS;
	case TPM_HT_NV_INDEX:
		c->nv[i] = nv_find(c->e->ps.nv, h);
		if (!c->nv[i] || !nv_accessible(c->e, c->nv[i]))
			return rc_handle(TPM_RC_HANDLE, i + 1);
		return TPM_RC_SUCCESS;
	}
	if (hier_index(h) >= 0 && h != TPM_RH_LOCKOUT && !hier_enabled(c->e, h))
		return rc_handle(TPM_RC_HIERARCHY, i + 1);
	return TPM_RC_SUCCESS;
}

TPM_RC cmd_relock(struct cmd *c)
{
	struct pqtpm_engine *e = c->e;

	pthread_mutex_lock(&e->lock);
	__atomic_sub_fetch(&e->computing, 1, __ATOMIC_RELEASE);
	/* the rest of the command changes no persistent state, unless it is audited (dispatch
	 * may count a new audit sequence after the handler): a reading transaction then, as for
	 * the rows with CMD_READS_STATE */
	TRY(txn_begin(c->txn, e, !c->audited));
	/* a power cycle meanwhile took the client's sessions and objects with it */
	if (!e->powered || c->epoch != e->power_epoch)
		return TPM_RC_INITIALIZE;
	for (unsigned i = 0; i < c->def->handles; i++)
		TRY(find_again(c, i));
	return TPM_RC_SUCCESS;
}

/* Whether a computation with k is worth letting the lock go for. The pin, the unlock and the
 * relock cost about 1,700 instructions (docs/engine-concurrency.md has the figures): an HMAC
 * or a symmetric key computes in a few thousand, an asymmetric key in 300,000 (ECDSA P-256)
 * to millions. A command may keep its signature under the lock (CMD_LOCKED). */
static bool worth_unlocking(const struct cmd *c, const struct key_material *k)
{
	if (c->def->flags & CMD_LOCKED)
		return false;
	return k->pub.type != TPM_ALG_KEYEDHASH && k->pub.type != TPM_ALG_SYMCIPHER;
}

TPM_RC cmd_unlock_key(struct cmd *c, unsigned slot, struct key_material *k)
{
	TPM_RC rc;

	TRY(key_material_of(k, c->obj[slot]));
	c->unlocked = worth_unlocking(c, k);
	if (!c->unlocked)
		return TPM_RC_SUCCESS;
	rc = cmd_unlock(c);
	if (rc != TPM_RC_SUCCESS) {
		key_material_drop(k);
		c->unlocked = false;
	}
	return rc;
}

TPM_RC cmd_relock_key(struct cmd *c, struct key_material *k, TPM_RC rc)
{
	TPM_RC relock = TPM_RC_SUCCESS;

	key_material_drop(k);
	if (c->unlocked)
		relock = cmd_relock(c);
	c->unlocked = false;
	return rc != TPM_RC_SUCCESS ? rc : relock;
}
