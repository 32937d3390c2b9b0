/* EvictControl (Part 3 §28.5): copy a transient object to a persistent handle, or remove a
 * persistent object. Persistent objects live in e->ps and are saved in the state file, so
 * every client sees them and they survive restarts.
 *
 * The state file is written here, not by dispatch: the change is applied in memory, saved,
 * and undone if the save fails, so memory never holds what the disk does not. */
#include <stdlib.h>

#include "engine_int.h"
#include "txn.h"

#define OWNER_FIRST 0x81000000u
#define OWNER_LAST 0x817FFFFFu
#define PLATFORM_FIRST 0x81800000u
#define PLATFORM_LAST 0x81FFFFFFu

static bool in_range(TPM_HANDLE h, TPM_HANDLE first, TPM_HANDLE last)
{
	return h >= first && h <= last;
}

/* Sequences, objects of the NULL hierarchy (primaries there and LoadExternal objects with a
 * private part), stClear and public-only objects cannot be made persistent. */
static bool persistable(const struct object *o)
{
	return o->kind == OBJ_KEY && o->has_sensitive && !o->external &&
	       o->hierarchy != TPM_RH_NULL && !(o->pub.attributes & TPMA_OBJECT_STCLEAR);
}

static TPM_RC make_persistent(struct cmd *c, const struct object *o, TPM_HANDLE ph)
{
	struct persist *ps = &c->e->ps;
	struct object *copy;
	int slot = -1;
	TPM_RC rc;

	if (!persistable(o))
		return rc_handle(TPM_RC_ATTRIBUTES, 2);
	if (c->handle[0] == TPM_RH_PLATFORM) {
		if (o->hierarchy != TPM_RH_PLATFORM)
			return rc_handle(TPM_RC_HIERARCHY, 2);
		if (!in_range(ph, PLATFORM_FIRST, PLATFORM_LAST))
			return rc_param(TPM_RC_RANGE, 1);
	} else {
		if (o->hierarchy == TPM_RH_PLATFORM)
			return rc_handle(TPM_RC_HIERARCHY, 2);
		if (!in_range(ph, OWNER_FIRST, OWNER_LAST))
			return rc_param(TPM_RC_RANGE, 1);
	}
	if (object_find(c->client, ph))
		return TPM_RC_NV_DEFINED;
	for (int i = 0; i < MAX_PERSISTENT_OBJECTS && slot < 0; i++)
		if (!ps->persistent[i])
			slot = i;
	if (slot < 0)
		return TPM_RC_NV_SPACE;

	copy = malloc(sizeof(*copy));
	if (!copy)
		return TPM_RC_MEMORY;
	*copy = *o;
	copy->handle = ph;
	rc = txn_add_persistent(c->e, copy);
	if (rc != TPM_RC_SUCCESS) {
		object_wipe_free(copy);
		return rc;
	}
	ps->persistent[slot] = copy;
	return TPM_RC_SUCCESS;
}

static TPM_RC evict(struct cmd *c, TPM_HANDLE ph)
{
	struct object *o = c->obj[1];
	struct persist *ps = &c->e->ps;
	int slot;

	if (o->handle != ph)
		return rc_handle(TPM_RC_HANDLE, 2);
	/* platformAuth may remove any persistent object, ownerAuth only non-platform ones */
	if (c->handle[0] == TPM_RH_OWNER && o->hierarchy == TPM_RH_PLATFORM)
		return rc_handle(TPM_RC_HIERARCHY, 2);
	for (slot = 0; slot < MAX_PERSISTENT_OBJECTS; slot++)
		if (ps->persistent[slot] == o)
			break;
	if (slot == MAX_PERSISTENT_OBJECTS)
		return TPM_RC_FAILURE;
	/* freed once the transaction commits; a rollback puts it back in the table */
	TRY(txn_drop_persistent(c->e, o));
	ps->persistent[slot] = NULL;
	c->obj[1] = NULL;
	return TPM_RC_SUCCESS;
}

static TPM_RC evict_control(struct cmd *c)
{
	struct object *o = c->obj[1];
	TPM_HANDLE ph;

	TRYP(1, rd_u32(&c->in, &ph));
	TRY(cmd_params_done(c));
	if ((ph >> 24) != TPM_HT_PERSISTENT) /* TPMI_DH_PERSISTENT */
		return rc_param(TPM_RC_VALUE, 1);
	if ((o->handle >> 24) == TPM_HT_TRANSIENT)
		return make_persistent(c, o, ph);
	return evict(c, ph);
}

const struct cmd_def cmds_evict[] = {
	{ .code = TPM_CC_EvictControl, .name = "EvictControl", .handles = 2,
	  .auth = { AUTH_USER, AUTH_NONE }, .htype = { HK_OWNER | HK_PLATFORM, HK_OBJECT },
	  .flags = CMD_PP, .run = evict_control },
	{ 0 },
};
