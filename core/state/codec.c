/* The state file body: struct persist <-> bytes. Version 1 layout, in order:
 *   4 hierarchies (platform, owner, endorsement, lockout; NULL's values live only in RAM):
 *     auth TPM2B_DIGEST, policy TPM2B_DIGEST, policyAlg u16, seed[64], proof[64]
 *   disableClear u8, phEnableNV u8, pcrBanks u32, pcrBanksPending u32, clock u64,
 *   resetCount u32, restartCount u32, orderly u8, savedStateValid u8, contextEpoch u64,
 *   DA (struct da_state): failedTries u32, paramsSet u8, maxTries u32, recoveryTime u32,
 *     lockoutRecovery u32, healFrom u64, lockoutLocked u8, lockoutFrom u64, lockoutBoot u64,
 *   generation u64,
 *   object count u16, then per persistent object:
 *     handle u32, hierarchy u32, isPrimary u8, TPM2B_PUBLIC, TPMT_SENSITIVE, qualifiedName
 *     TPM2B_NAME (the name is recomputed from the public area).
 * Booleans are 0 or 1; anything else is refused. */
#include <stdlib.h>
#include <string.h>

#include "object/object.h"
#include "state_int.h"

static const enum hier_index saved_hier[] = { HIER_PLATFORM, HIER_OWNER, HIER_ENDORSEMENT,
					      HIER_LOCKOUT };
#define NSAVED_HIER (sizeof(saved_hier) / sizeof(saved_hier[0]))

static TPM_RC encode_hierarchy(struct wr *w, const struct hierarchy *h)
{
	TRY(wr_tpm2b_digest(w, &h->auth));
	TRY(wr_tpm2b_digest(w, &h->policy));
	TRY(wr_u16(w, h->policy_alg));
	TRY(wr_bytes(w, h->seed, sizeof(h->seed)));
	return wr_bytes(w, h->proof, sizeof(h->proof));
}

static TPM_RC encode_da(struct wr *w, const struct da_state *da)
{
	TRY(wr_u32(w, da->failed_tries));
	TRY(wr_u8(w, da->params_set));
	TRY(wr_u32(w, da->max_tries));
	TRY(wr_u32(w, da->recovery_time));
	TRY(wr_u32(w, da->lockout_recovery));
	TRY(wr_u64(w, da->heal_from));
	TRY(wr_u8(w, da->lockout_locked));
	TRY(wr_u64(w, da->lockout_from));
	return wr_u64(w, da->lockout_boot);
}

static TPM_RC encode_object(struct wr *w, const struct object *o)
{
	TRY(wr_u32(w, o->handle));
	TRY(wr_u32(w, o->hierarchy));
	TRY(wr_u8(w, o->is_primary));
	TRY(wr_tpm2b_public(w, &o->pub));
	TRY(wr_sensitive(w, &o->sens));
	return wr_tpm2b_name(w, &o->qualified_name);
}

TPM_RC state_encode(const struct persist *ps, uint64_t generation, struct wr *w)
{
	uint16_t count = 0;

	for (size_t i = 0; i < NSAVED_HIER; i++)
		TRY(encode_hierarchy(w, &ps->hier[saved_hier[i]]));
	TRY(wr_u8(w, ps->disable_clear));
	TRY(wr_u8(w, ps->ph_enable_nv));
	TRY(wr_u32(w, ps->pcr_banks));
	TRY(wr_u32(w, ps->pcr_banks_pending));
	TRY(wr_u64(w, ps->clock));
	TRY(wr_u32(w, ps->reset_count));
	TRY(wr_u32(w, ps->restart_count));
	TRY(wr_u8(w, ps->orderly));
	TRY(wr_u8(w, ps->saved_state_valid));
	TRY(wr_u64(w, ps->context_epoch));
	TRY(encode_da(w, &ps->da));
	TRY(wr_u64(w, generation));
	for (int i = 0; i < MAX_PERSISTENT_OBJECTS; i++)
		count += ps->persistent[i] != NULL;
	TRY(wr_u16(w, count));
	for (int i = 0; i < MAX_PERSISTENT_OBJECTS; i++)
		if (ps->persistent[i])
			TRY(encode_object(w, ps->persistent[i]));
	return TPM_RC_SUCCESS;
}

static TPM_RC decode_bool(struct rd *r, bool *v, const char **what)
{
	uint8_t b;

	TRY(rd_u8(r, &b));
	if (b > 1) {
		*what = "bad boolean";
		return TPM_RC_VALUE;
	}
	*v = b;
	return TPM_RC_SUCCESS;
}

static TPM_RC decode_hierarchy(struct rd *r, struct hierarchy *h)
{
	TRY(rd_tpm2b_digest(r, &h->auth));
	TRY(rd_tpm2b_digest(r, &h->policy));
	TRY(rd_u16(r, &h->policy_alg));
	TRY(rd_bytes(r, h->seed, sizeof(h->seed)));
	return rd_bytes(r, h->proof, sizeof(h->proof));
}

static TPM_RC decode_da(struct rd *r, struct da_state *da, const char **what)
{
	TRY(rd_u32(r, &da->failed_tries));
	TRY(decode_bool(r, &da->params_set, what));
	TRY(rd_u32(r, &da->max_tries));
	TRY(rd_u32(r, &da->recovery_time));
	TRY(rd_u32(r, &da->lockout_recovery));
	TRY(rd_u64(r, &da->heal_from));
	TRY(decode_bool(r, &da->lockout_locked, what));
	TRY(rd_u64(r, &da->lockout_from));
	return rd_u64(r, &da->lockout_boot);
}

static bool handle_taken(const struct persist *ps, TPM_HANDLE h)
{
	for (int i = 0; i < MAX_PERSISTENT_OBJECTS; i++)
		if (ps->persistent[i] && ps->persistent[i]->handle == h)
			return true;
	return false;
}

/* o is already in its slot of ps (so that a failure frees it with the rest). */
static TPM_RC decode_object(struct rd *r, const struct persist *ps, struct object *o,
			    const char **what)
{
	TPM_HANDLE handle;

	o->kind = OBJ_KEY;
	o->has_sensitive = true;
	TRY(rd_u32(r, &handle));
	if ((handle >> 24) != TPM_HT_PERSISTENT || handle_taken(ps, handle)) {
		*what = "bad persistent handle";
		return TPM_RC_VALUE;
	}
	o->handle = handle;
	TRY(rd_u32(r, &o->hierarchy));
	if (o->hierarchy != TPM_RH_PLATFORM && o->hierarchy != TPM_RH_OWNER &&
	    o->hierarchy != TPM_RH_ENDORSEMENT) {
		*what = "bad object hierarchy";
		return TPM_RC_VALUE;
	}
	TRY(decode_bool(r, &o->is_primary, what));
	TRY(rd_tpm2b_public(r, &o->pub));
	TRY(rd_sensitive(r, &o->sens));
	TRY(rd_tpm2b_name(r, &o->qualified_name));
	if (object_name(&o->pub, &o->name) != TPM_RC_SUCCESS) {
		*what = "object name not computable";
		return TPM_RC_VALUE;
	}
	return TPM_RC_SUCCESS;
}

static TPM_RC decode_objects(struct rd *r, struct persist *ps, const char **what)
{
	uint16_t count;

	TRY(rd_u16(r, &count));
	if (count > MAX_PERSISTENT_OBJECTS) {
		*what = "too many persistent objects";
		return TPM_RC_VALUE;
	}
	for (uint16_t i = 0; i < count; i++) {
		ps->persistent[i] = calloc(1, sizeof(struct object));
		if (!ps->persistent[i]) {
			*what = "out of memory";
			return TPM_RC_MEMORY;
		}
		TRY(decode_object(r, ps, ps->persistent[i], what));
	}
	return TPM_RC_SUCCESS;
}

static TPM_RC decode_fields(struct rd *r, struct persist *ps, const char **what)
{
	for (size_t i = 0; i < NSAVED_HIER; i++)
		TRY(decode_hierarchy(r, &ps->hier[saved_hier[i]]));
	TRY(decode_bool(r, &ps->disable_clear, what));
	TRY(decode_bool(r, &ps->ph_enable_nv, what));
	TRY(rd_u32(r, &ps->pcr_banks));
	TRY(rd_u32(r, &ps->pcr_banks_pending));
	TRY(rd_u64(r, &ps->clock));
	TRY(rd_u32(r, &ps->reset_count));
	TRY(rd_u32(r, &ps->restart_count));
	TRY(decode_bool(r, &ps->orderly, what));
	TRY(decode_bool(r, &ps->saved_state_valid, what));
	TRY(rd_u64(r, &ps->context_epoch));
	TRY(decode_da(r, &ps->da, what));
	TRY(rd_u64(r, &ps->generation));
	TRY(decode_objects(r, ps, what));
	if (rd_left(r)) {
		*what = "unexpected bytes after the last field";
		return TPM_RC_SIZE;
	}
	return TPM_RC_SUCCESS;
}

TPM_RC state_decode(struct rd *r, struct persist *ps, const char **what)
{
	TPM_RC rc;

	memset(ps, 0, sizeof(*ps));
	*what = "malformed field";
	rc = decode_fields(r, ps, what);
	if (rc != TPM_RC_SUCCESS) {
		state_free_objects(ps);
		crypto_wipe(ps, sizeof(*ps));
	}
	return rc;
}

void state_free_objects(struct persist *ps)
{
	for (int i = 0; i < MAX_PERSISTENT_OBJECTS; i++) {
		object_wipe_free(ps->persistent[i]);
		ps->persistent[i] = NULL;
	}
}
