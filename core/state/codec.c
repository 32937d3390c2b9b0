/* The state file body: struct persist <-> bytes. Version 1 layout (version 2 appends), in order:
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
 * Version 2 appends:
 *   clockSafe u8,
 *   DA: failedTries u32, paramsSet u8, maxTries u32, recoveryTime u32, lockoutRecovery u32,
 *       healFrom u64, lockoutLocked u8, lockoutFrom u64, lockoutBoot u64,
 *   saved PCRs (Shutdown(STATE)): bank count u8, then per bank: alg u16, PCR 0-15 values of
 *       the alg's digest size,
 *   NV: maxCounter u64, index count u16, then per index: TPMS_NV_PUBLIC, authValue
 *       TPM2B_DIGEST, dataSize bytes of data.
 * Then, in a version 2 file, only between a Shutdown(STATE) and the next Startup (while
 * savedStateValid) and only if that Shutdown made one (struct session_resume, session.h):
 *   saved sessions: tag u32 "SESS", NULL seed[64], NULL proof[64], contextCounter u64,
 *       pcrUpdateCounter u32, session count u16, then per session (struct session): handle
 *       u32, type u8, authHash u16, symmetric alg u16 keyBits u16 mode u16, sessionKey,
 *       nonceTPM TPM2B_DIGEST, bound u8, bindName TPM2B_NAME, bindAuth TPM2B_DIGEST, daBound
 *       u8, lockoutBound u8, policyDigest TPM2B_DIGEST, needAuthValue u8, needPassword u8,
 *       commandCode u32, cpHash, nameHash TPM2B_DIGEST, locality u8, pcrCounterSet u8,
 *       pcrCounter u32, needPP u8, templateHash TPM2B_DIGEST, timeout u64, checkNvWritten u8,
 *       nvWrittenState u8, savedSequence u64.
 *   The section is optional and tagged, so the version stays 2: a file without it is the
 *   same as before, and bytes after the NV section that are not this section are refused.
 *   Tag "SESA" (written since session audit) is the same section with, after each session's
 *   savedSequence: isAudit u8, auditDigest TPM2B_DIGEST (empty unless isAudit). A "SESS"
 *   section still loads: its sessions have never audited.
 * Before it, in a version 2 file written since the platform's settings were persistent, the
 * tagged section "PLAT" (a file without it loads with their defaults: nothing audited but
 * SetCommandCodeAuditStatus under SHA-512 with counter 0, no PP_Commands list, algorithm
 * set 0, no PCR policy):
 *   auditAlg u16 (0: not set), auditCounter u64, audited command count u16, then each u32
 *   (ascending), PP command count u16, then each u32 (ascending), algorithmSet u32,
 *   PCR group 20-22 policyAlg u16, policy TPM2B_DIGEST (empty with TPM_ALG_NULL).
 * Then, only between a Shutdown(STATE) and the next Startup, the tagged section "RSET" (struct
 * ram_saved): the engine's state-reset and state-clear data as state/volatile_codec.c writes
 * them (audit digest, commit state, PCR group authValue).
 * A version 1 file loads as a TPM without NV indices, DA failures or saved PCRs.
 * Booleans are 0 or 1; anything else is refused. */
#include <stdlib.h>
#include <string.h>

#include "nv/nv.h"
#include "object/object.h"
#include "session.h"
#include "state/store.h"
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

static TPM_RC encode_object(struct wr *w, const struct object *o)
{
	TRY(wr_u32(w, o->handle));
	TRY(wr_u32(w, o->hierarchy));
	TRY(wr_u8(w, o->is_primary));
	TRY(wr_tpm2b_public(w, &o->pub));
	TRY(wr_sensitive(w, &o->sens));
	return wr_tpm2b_name(w, &o->qualified_name);
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

static TPM_RC encode_pcr_saved(struct wr *w, const struct pcr_saved *p)
{
	TRY(wr_u8(w, p->nbanks));
	for (unsigned b = 0; b < p->nbanks; b++) {
		size_t n = crypto_hash_size(p->alg[b]);

		TRY(wr_u16(w, p->alg[b]));
		for (unsigned i = 0; i < PCR_SAVED_NUM; i++)
			TRY(wr_bytes(w, p->value[b][i], n));
	}
	return TPM_RC_SUCCESS;
}

/* An engine without a store (tests of the codec alone) saves no indices. */
static TPM_RC encode_nv(struct wr *w, struct nv_store *s)
{
	TRY(wr_u64(w, s ? s->max_counter : 0));
	TRY(wr_u16(w, (uint16_t)nv_count(s, -1)));
	for (unsigned i = 0; s && i < NV_MAX_INDICES; i++) {
		const struct nv_index *idx = &s->idx[i];

		if (!idx->pub.handle)
			continue;
		TRY(wr_nv_public(w, &idx->pub));
		TRY(wr_tpm2b_digest(w, &idx->auth));
		TRY(wr_bytes(w, nv_data(s, idx), idx->pub.size));
	}
	return TPM_RC_SUCCESS;
}

#define PLATFORM_TAG 0x504C4154u  /* "PLAT" */
#define RAM_TAG 0x52534554u	  /* "RSET" */
#define RESUME_TAG_V1 0x53455353u /* "SESS": sessions without their audit state */
#define RESUME_TAG 0x53455341u	  /* "SESA" */

TPM_RC state_encode_session(struct wr *w, const struct session *s)
{
	TRY(wr_u32(w, s->handle));
	TRY(wr_u8(w, s->type));
	TRY(wr_u16(w, s->auth_hash));
	TRY(wr_u16(w, s->sym.alg));
	TRY(wr_u16(w, s->sym.key_bits));
	TRY(wr_u16(w, s->sym.mode));
	TRY(wr_tpm2b_digest(w, &s->session_key));
	TRY(wr_tpm2b_digest(w, &s->nonce_tpm));
	TRY(wr_u8(w, s->bound));
	TRY(wr_tpm2b_name(w, &s->bind_name));
	TRY(wr_tpm2b_digest(w, &s->bind_auth));
	TRY(wr_u8(w, s->da_bound));
	TRY(wr_u8(w, s->lockout_bound));
	TRY(wr_tpm2b_digest(w, &s->policy_digest));
	TRY(wr_u8(w, s->need_auth_value));
	TRY(wr_u8(w, s->need_password));
	TRY(wr_u32(w, s->command_code));
	TRY(wr_tpm2b_digest(w, &s->cp_hash));
	TRY(wr_tpm2b_digest(w, &s->name_hash));
	TRY(wr_u8(w, s->locality));
	TRY(wr_u8(w, s->pcr_counter_set));
	TRY(wr_u32(w, s->pcr_counter));
	TRY(wr_u8(w, s->need_pp));
	TRY(wr_tpm2b_digest(w, &s->template_hash));
	TRY(wr_u64(w, s->timeout));
	TRY(wr_u8(w, s->check_nv_written));
	TRY(wr_u8(w, s->nv_written_state));
	TRY(wr_u64(w, s->saved_sequence));
	TRY(wr_u8(w, s->is_audit));
	return wr_tpm2b_digest(w, &s->audit_digest);
}

static TPM_RC encode_codes(struct wr *w, const TPM_CC *list, uint16_t n)
{
	TRY(wr_u16(w, n));
	for (uint16_t i = 0; i < n; i++)
		TRY(wr_u32(w, list[i]));
	return TPM_RC_SUCCESS;
}

static TPM_RC encode_platform(struct wr *w, const struct persist *ps)
{
	TRY(wr_u32(w, PLATFORM_TAG));
	TRY(wr_u16(w, ps->audit.alg));
	TRY(wr_u64(w, ps->audit.counter));
	TRY(encode_codes(w, ps->audit.list, ps->audit.n));
	TRY(encode_codes(w, ps->pp.list, ps->pp.n));
	TRY(wr_u32(w, ps->algorithm_set));
	/* no policy is TPM_ALG_NULL with an empty digest, however the engine left alg */
	TRY(wr_u16(w, ps->pcr_group_policy.size ? ps->pcr_group_policy_alg : TPM_ALG_NULL));
	return wr_tpm2b_digest(w, &ps->pcr_group_policy);
}

TPM_RC state_encode_ram(struct wr *w, const struct tpm2b_digest *audit,
			const struct commit_state *commit, const struct tpm2b_digest *pcr_auth)
{
	TRY(wr_tpm2b_digest(w, audit));
	TRY(wr_u8(w, commit->nonce_set));
	TRY(wr_bytes(w, commit->nonce, sizeof(commit->nonce)));
	TRY(wr_u64(w, commit->counter));
	TRY(wr_bytes(w, commit->pending, sizeof(commit->pending)));
	return wr_tpm2b_digest(w, pcr_auth);
}

static TPM_RC encode_ram_saved(struct wr *w, const struct ram_saved *ram)
{
	if (!ram->valid)
		return TPM_RC_SUCCESS;
	TRY(wr_u32(w, RAM_TAG));
	return state_encode_ram(w, &ram->cmd_audit_digest, &ram->commit, &ram->pcr_group_auth);
}

static TPM_RC encode_resume(struct wr *w, const struct persist *ps)
{
	const struct session_resume *r = ps->resume;

	if (!r || !ps->saved_state_valid)
		return TPM_RC_SUCCESS;
	TRY(wr_u32(w, RESUME_TAG));
	TRY(wr_bytes(w, r->null_seed, sizeof(r->null_seed)));
	TRY(wr_bytes(w, r->null_proof, sizeof(r->null_proof)));
	TRY(wr_u64(w, r->context_counter));
	TRY(wr_u32(w, r->pcr_update_counter));
	TRY(wr_u16(w, (uint16_t)r->count));
	for (unsigned i = 0; i < r->count; i++)
		TRY(state_encode_session(w, &r->sessions[i]));
	return TPM_RC_SUCCESS;
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
	TRY(wr_u64(w, generation));
	for (int i = 0; i < MAX_PERSISTENT_OBJECTS; i++)
		count += ps->persistent[i] != NULL;
	TRY(wr_u16(w, count));
	for (int i = 0; i < MAX_PERSISTENT_OBJECTS; i++)
		if (ps->persistent[i])
			TRY(encode_object(w, ps->persistent[i]));
	TRY(wr_u8(w, ps->clock_safe));
	TRY(encode_da(w, &ps->da));
	TRY(encode_pcr_saved(w, &ps->pcr_saved));
	TRY(encode_nv(w, ps->nv));
	TRY(encode_platform(w, ps));
	TRY(encode_ram_saved(w, &ps->ram_saved));
	return encode_resume(w, ps);
}

TPM_RC state_decode_bool(struct rd *r, bool *v, const char **what)
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
	TRY(state_decode_bool(r, &o->is_primary, what));
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

static TPM_RC decode_da(struct rd *r, struct da_state *da, const char **what)
{
	TRY(rd_u32(r, &da->failed_tries));
	TRY(state_decode_bool(r, &da->params_set, what));
	TRY(rd_u32(r, &da->max_tries));
	TRY(rd_u32(r, &da->recovery_time));
	TRY(rd_u32(r, &da->lockout_recovery));
	TRY(rd_u64(r, &da->heal_from));
	TRY(state_decode_bool(r, &da->lockout_locked, what));
	TRY(rd_u64(r, &da->lockout_from));
	return rd_u64(r, &da->lockout_boot);
}

static TPM_RC decode_pcr_saved(struct rd *r, struct pcr_saved *p, const char **what)
{
	TRY(rd_u8(r, &p->nbanks));
	if (p->nbanks > MAX_PCR_BANKS) {
		*what = "too many saved PCR banks";
		return TPM_RC_VALUE;
	}
	for (unsigned b = 0; b < p->nbanks; b++) {
		size_t n;

		TRY(rd_u16(r, &p->alg[b]));
		n = crypto_hash_size(p->alg[b]);
		if (n == 0) {
			*what = "bad saved PCR bank";
			return TPM_RC_HASH;
		}
		for (unsigned i = 0; i < PCR_SAVED_NUM; i++)
			TRY(rd_bytes(r, p->value[b][i], n));
	}
	return TPM_RC_SUCCESS;
}

/* The data size an index of its type must have (0: any up to NV_INDEX_MAX). */
static bool nv_size_ok(const struct nv_public *pub)
{
	unsigned t = nv_type(pub->attributes);

	if (t == TPM_NT_EXTEND)
		return pub->size == crypto_hash_size(pub->name_alg);
	if (nv_is_counter_like(pub->attributes))
		return pub->size == 8;
	return t == TPM_NT_ORDINARY;
}

static TPM_RC decode_nv_index(struct rd *r, struct nv_store *s, const char **what)
{
	struct nv_public pub;
	struct tpm2b_digest auth;
	struct nv_index *idx;
	TPM_RC rc;

	*what = "bad NV index";
	TRY(rd_nv_public(r, &pub));
	TRY(rd_tpm2b_digest(r, &auth));
	if (!nv_size_ok(&pub) || auth.size > crypto_hash_size(pub.name_alg) ||
	    (pub.policy.size && pub.policy.size != crypto_hash_size(pub.name_alg))) {
		*what = "NV index with a bad size, authValue or policy";
		return TPM_RC_SIZE;
	}
	if (nv_find(s, pub.handle)) {
		*what = "NV index defined twice";
		return TPM_RC_VALUE;
	}
	rc = nv_add(s, &pub, &auth, &idx);
	crypto_wipe(&auth, sizeof(auth));
	if (rc != TPM_RC_SUCCESS) {
		*what = "NV indices beyond the NV space";
		return rc;
	}
	*what = "malformed field";
	return rd_bytes(r, nv_data(s, idx), pub.size);
}

static TPM_RC decode_nv(struct rd *r, struct persist *ps, const char **what)
{
	uint16_t count;

	TRY(rd_u64(r, &ps->nv->max_counter));
	TRY(rd_u16(r, &count));
	if (count > NV_MAX_INDICES) {
		*what = "too many NV indices";
		return TPM_RC_VALUE;
	}
	for (uint16_t i = 0; i < count; i++)
		TRY(decode_nv_index(r, ps->nv, what));
	return TPM_RC_SUCCESS;
}

/* A session as session.c and auth.c may use it: sizes within what they handle. */
static bool session_ok(const struct session *s)
{
	unsigned ht = s->handle >> 24;
	size_t dsize = crypto_hash_size(s->auth_hash);

	if (ht == TPM_HT_HMAC_SESSION ? s->type != TPM_SE_HMAC
				      : ht != TPM_HT_POLICY_SESSION ||
						(s->type != TPM_SE_POLICY && s->type != TPM_SE_TRIAL))
		return false;
	if (dsize == 0 || (s->policy_digest.size != 0 && s->policy_digest.size != dsize))
		return false;
	if (s->audit_digest.size != (s->is_audit ? dsize : 0) ||
	    (s->is_audit && s->type != TPM_SE_HMAC))
		return false;
	switch (s->sym.alg) {
	case TPM_ALG_NULL:
		return true;
	case TPM_ALG_XOR:
		return crypto_hash_size(s->sym.key_bits) != 0;
	default:
		return s->sym.mode == TPM_ALG_CFB &&
		       crypto_sym_supported(s->sym.alg, s->sym.key_bits);
	}
}

TPM_RC state_decode_session(struct rd *r, struct session *s, bool with_audit,
			    const char **what)
{
	TRY(rd_u32(r, &s->handle));
	TRY(rd_u8(r, &s->type));
	TRY(rd_u16(r, &s->auth_hash));
	TRY(rd_u16(r, &s->sym.alg));
	TRY(rd_u16(r, &s->sym.key_bits));
	TRY(rd_u16(r, &s->sym.mode));
	TRY(rd_tpm2b_digest(r, &s->session_key));
	TRY(rd_tpm2b_digest(r, &s->nonce_tpm));
	TRY(state_decode_bool(r, &s->bound, what));
	TRY(rd_tpm2b_name(r, &s->bind_name));
	TRY(rd_tpm2b_digest(r, &s->bind_auth));
	TRY(state_decode_bool(r, &s->da_bound, what));
	TRY(state_decode_bool(r, &s->lockout_bound, what));
	TRY(rd_tpm2b_digest(r, &s->policy_digest));
	TRY(state_decode_bool(r, &s->need_auth_value, what));
	TRY(state_decode_bool(r, &s->need_password, what));
	TRY(rd_u32(r, &s->command_code));
	TRY(rd_tpm2b_digest(r, &s->cp_hash));
	TRY(rd_tpm2b_digest(r, &s->name_hash));
	TRY(rd_u8(r, &s->locality));
	TRY(state_decode_bool(r, &s->pcr_counter_set, what));
	TRY(rd_u32(r, &s->pcr_counter));
	TRY(state_decode_bool(r, &s->need_pp, what));
	TRY(rd_tpm2b_digest(r, &s->template_hash));
	TRY(rd_u64(r, &s->timeout));
	TRY(state_decode_bool(r, &s->check_nv_written, what));
	TRY(state_decode_bool(r, &s->nv_written_state, what));
	TRY(rd_u64(r, &s->saved_sequence));
	if (with_audit) {
		TRY(state_decode_bool(r, &s->is_audit, what));
		TRY(rd_tpm2b_digest(r, &s->audit_digest));
	}
	if (!session_ok(s)) {
		*what = "bad saved session";
		return TPM_RC_VALUE;
	}
	return TPM_RC_SUCCESS;
}

/* Command codes, ascending and each once (at most max); what names the list for a message. */
static TPM_RC decode_codes(struct rd *r, TPM_CC *list, uint16_t *n, uint16_t max,
			   const char *what_list, const char **what)
{
	TRY(rd_u16(r, n));
	if (*n > max) {
		*what = what_list;
		return TPM_RC_VALUE;
	}
	for (uint16_t i = 0; i < *n; i++) {
		TRY(rd_u32(r, &list[i]));
		if (i && list[i] <= list[i - 1]) {
			*what = what_list;
			return TPM_RC_VALUE;
		}
	}
	return TPM_RC_SUCCESS;
}

/* The platform's settings, if the body goes on with them. */
static TPM_RC decode_platform(struct rd *r, struct persist *ps, const char **what)
{
	struct rd peek = *r;
	uint32_t tag;
	TPM_ALG_ID alg;

	if (rd_u32(&peek, &tag) != TPM_RC_SUCCESS || tag != PLATFORM_TAG)
		return TPM_RC_SUCCESS;
	*r = peek;
	TRY(rd_u16(r, &ps->audit.alg));
	if (ps->audit.alg && crypto_hash_size(ps->audit.alg) == 0) {
		*what = "bad command audit hash";
		return TPM_RC_HASH;
	}
	TRY(rd_u64(r, &ps->audit.counter));
	TRY(decode_codes(r, ps->audit.list, &ps->audit.n, CMD_AUDIT_MAX, "bad audited command list",
			 what));
	TRY(decode_codes(r, ps->pp.list, &ps->pp.n, PP_LIST_MAX, "bad PP_Commands list", what));
	TRY(rd_u32(r, &ps->algorithm_set));
	TRY(rd_u16(r, &alg));
	TRY(rd_tpm2b_digest(r, &ps->pcr_group_policy));
	ps->pcr_group_policy_alg = alg;
	if (ps->pcr_group_policy.size != (alg == TPM_ALG_NULL ? 0 : crypto_hash_size(alg)) ||
	    (alg != TPM_ALG_NULL && crypto_hash_size(alg) == 0)) {
		*what = "bad PCR policy";
		return TPM_RC_VALUE;
	}
	*what = "malformed field";
	return TPM_RC_SUCCESS;
}

/* A digest of one of the hashes the audit may use, or empty. */
static bool audit_digest_ok(const struct tpm2b_digest *d)
{
	static const TPM_ALG_ID algs[] = { TPM_ALG_SHA1, TPM_ALG_SHA256, TPM_ALG_SHA384,
					   TPM_ALG_SHA512 };

	for (size_t i = 0; i < sizeof(algs) / sizeof(algs[0]); i++)
		if (d->size == crypto_hash_size(algs[i]))
			return true;
	return d->size == 0;
}

TPM_RC state_decode_ram(struct rd *r, struct tpm2b_digest *audit, struct commit_state *commit,
			struct tpm2b_digest *pcr_auth, const char **what)
{
	TRY(rd_tpm2b_digest(r, audit));
	if (!audit_digest_ok(audit)) {
		*what = "bad command audit digest";
		return TPM_RC_SIZE;
	}
	TRY(state_decode_bool(r, &commit->nonce_set, what));
	TRY(rd_bytes(r, commit->nonce, sizeof(commit->nonce)));
	TRY(rd_u64(r, &commit->counter));
	TRY(rd_bytes(r, commit->pending, sizeof(commit->pending)));
	return rd_tpm2b_digest(r, pcr_auth);
}

/* Shutdown(STATE)'s reset and clear data, if the body goes on with them. */
static TPM_RC decode_ram_saved(struct rd *r, struct persist *ps, const char **what)
{
	struct ram_saved *ram = &ps->ram_saved;
	struct rd peek = *r;
	uint32_t tag;

	if (rd_u32(&peek, &tag) != TPM_RC_SUCCESS || tag != RAM_TAG)
		return TPM_RC_SUCCESS;
	*r = peek;
	if (!ps->saved_state_valid) {
		*what = "saved reset data without a Shutdown(STATE)";
		return TPM_RC_VALUE;
	}
	TRY(state_decode_ram(r, &ram->cmd_audit_digest, &ram->commit, &ram->pcr_group_auth, what));
	ram->valid = true;
	return TPM_RC_SUCCESS;
}

/* The saved sessions section, if the body goes on with it. */
static TPM_RC decode_resume(struct rd *r, struct persist *ps, const char **what)
{
	struct session_resume *res;
	struct rd peek = *r;
	uint32_t tag;
	uint16_t count;

	if (rd_u32(&peek, &tag) != TPM_RC_SUCCESS || (tag != RESUME_TAG && tag != RESUME_TAG_V1)) {
		*what = "unexpected bytes after the last field";
		return TPM_RC_SIZE;
	}
	*r = peek;
	if (!ps->saved_state_valid) {
		*what = "saved sessions without a Shutdown(STATE)";
		return TPM_RC_VALUE;
	}
	res = calloc(1, sizeof(*res));
	if (!res) {
		*what = "out of memory";
		return TPM_RC_MEMORY;
	}
	ps->resume = res; /* freed with ps on a failure */
	TRY(rd_bytes(r, res->null_seed, sizeof(res->null_seed)));
	TRY(rd_bytes(r, res->null_proof, sizeof(res->null_proof)));
	TRY(rd_u64(r, &res->context_counter));
	TRY(rd_u32(r, &res->pcr_update_counter));
	TRY(rd_u16(r, &count));
	if (count > MAX_SAVED_SESSIONS) {
		*what = "too many saved sessions";
		return TPM_RC_VALUE;
	}
	for (unsigned i = 0; i < count; i++) {
		TRY(state_decode_session(r, &res->sessions[i], tag == RESUME_TAG, what));
		for (unsigned j = 0; j < i; j++) {
			if (res->sessions[j].handle == res->sessions[i].handle) {
				*what = "saved session twice";
				return TPM_RC_VALUE;
			}
		}
		res->count = i + 1;
	}
	return TPM_RC_SUCCESS;
}

/* What a version 1 file did not have: a TPM with a safe clock and nothing else. */
static void v1_defaults(struct persist *ps)
{
	ps->clock_safe = true;
}

/* What a file without the platform's settings had: none set. */
static void platform_defaults(struct persist *ps)
{
	ps->pcr_group_policy_alg = TPM_ALG_NULL;
}

static TPM_RC decode_fields(struct rd *r, struct persist *ps, uint32_t version,
			    const char **what)
{
	for (size_t i = 0; i < NSAVED_HIER; i++)
		TRY(decode_hierarchy(r, &ps->hier[saved_hier[i]]));
	TRY(state_decode_bool(r, &ps->disable_clear, what));
	TRY(state_decode_bool(r, &ps->ph_enable_nv, what));
	TRY(rd_u32(r, &ps->pcr_banks));
	TRY(rd_u32(r, &ps->pcr_banks_pending));
	TRY(rd_u64(r, &ps->clock));
	TRY(rd_u32(r, &ps->reset_count));
	TRY(rd_u32(r, &ps->restart_count));
	TRY(state_decode_bool(r, &ps->orderly, what));
	TRY(state_decode_bool(r, &ps->saved_state_valid, what));
	TRY(rd_u64(r, &ps->context_epoch));
	TRY(rd_u64(r, &ps->generation));
	TRY(decode_objects(r, ps, what));
	if (version >= 2) {
		TRY(state_decode_bool(r, &ps->clock_safe, what));
		TRY(decode_da(r, &ps->da, what));
		TRY(decode_pcr_saved(r, &ps->pcr_saved, what));
		TRY(decode_nv(r, ps, what));
		TRY(decode_platform(r, ps, what));
		TRY(decode_ram_saved(r, ps, what));
		if (rd_left(r))
			TRY(decode_resume(r, ps, what));
	} else {
		v1_defaults(ps);
	}
	if (rd_left(r)) {
		*what = "unexpected bytes after the last field";
		return TPM_RC_SIZE;
	}
	return TPM_RC_SUCCESS;
}

TPM_RC state_decode(struct rd *r, struct persist *ps, uint32_t version, const char **what)
{
	TPM_RC rc;

	memset(ps, 0, sizeof(*ps));
	*what = "malformed field";
	ps->nv = nv_store_new();
	if (!ps->nv) {
		*what = "out of memory";
		return TPM_RC_MEMORY;
	}
	platform_defaults(ps);
	rc = decode_fields(r, ps, version, what);
	if (rc != TPM_RC_SUCCESS) {
		state_free_persist(ps);
		crypto_wipe(ps, sizeof(*ps));
	}
	return rc;
}

void state_free_persist(struct persist *ps)
{
	state_free_objects(ps);
	nv_store_free(ps->nv);
	ps->nv = NULL;
	session_resume_free(ps->resume);
	ps->resume = NULL;
}

void state_free_objects(struct persist *ps)
{
	for (int i = 0; i < MAX_PERSISTENT_OBJECTS; i++) {
		object_wipe_free(ps->persistent[i]);
		ps->persistent[i] = NULL;
	}
}
