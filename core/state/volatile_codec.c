/* The body of a pqtpm.volatile slot (state/volatile.c): the volatile state of a running TPM,
 * what a TPM keeps in RAM between its power on and its power off. In order, integers
 * big-endian:
 *   bootId[16] (the host boot this belongs to), clean u8 (written by an orderly close),
 *   powered u8, started u8, nvAvailable u8, physicalPresence u8, phEnable u8, shEnable u8,
 *   ehEnable u8, selfTested u8, selfTestFailed u8, hcrtmBeforeStartup u8,
 *   startupLocality u8, powerOnTime u64 (CLOCK_MONOTONIC ms of the last _TPM_Init),
 *   clockRateAdjust u32 (ppm, two's complement), contextCounter u64, pcrUpdateCounter u32,
 *   NULL seed[64], NULL proof[64], nextSession u32, exclusiveAuditSession u32,
 *   PCR banks: count u8, then per bank: alg u16, PCR 0-23 values of the alg's digest size,
 *   orderly counters in RAM: count u16, then per counter: handle u32, value u64,
 *   saved sessions: count u16, then each as the state file's saved sessions section writes
 *   one (state/codec.c, with its audit state),
 * and, written since they live here (a body without them restores them cleared):
 *   command audit digest TPM2B_DIGEST (empty: clear), commit state: nonceSet u8, nonce[32],
 *   counter u64, outstanding counts bitmap[16], PCR group 20-22 authValue TPM2B_DIGEST.
 * Booleans are 0 or 1; anything else, and any byte after the last field, is refused. */
#include <string.h>

#include "state_int.h"

static TPM_RC encode_flags(struct wr *w, const struct pqtpm_engine *e)
{
	const bool flags[] = { e->powered,	 e->started,	 e->nv_available,
			       e->phys_presence, e->ph_enable,	 e->sh_enable,
			       e->eh_enable,	 e->self_tested, e->self_test_failed,
			       e->hcrtm_pre_startup };

	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		TRY(wr_u8(w, flags[i]));
	return TPM_RC_SUCCESS;
}

static TPM_RC encode_banks(struct wr *w, const struct pqtpm_engine *e)
{
	TRY(wr_u8(w, (uint8_t)e->nbanks));
	for (unsigned b = 0; b < e->nbanks; b++) {
		size_t n = crypto_hash_size(e->banks[b].alg);

		TRY(wr_u16(w, e->banks[b].alg));
		for (unsigned i = 0; i < PCR_NUM; i++)
			TRY(wr_bytes(w, e->banks[b].value[i], n));
	}
	return TPM_RC_SUCCESS;
}

static TPM_RC encode_ram(struct wr *w, const struct nv_ram *ram)
{
	uint16_t n = 0;

	for (unsigned i = 0; ram && i < NV_MAX_INDICES; i++)
		n += ram->handle[i] != 0;
	TRY(wr_u16(w, n));
	for (unsigned i = 0; ram && i < NV_MAX_INDICES; i++) {
		if (!ram->handle[i])
			continue;
		TRY(wr_u32(w, ram->handle[i]));
		TRY(wr_u64(w, ram->value[i]));
	}
	return TPM_RC_SUCCESS;
}

static TPM_RC encode_sessions(struct wr *w, const struct pqtpm_engine *e)
{
	uint16_t n = 0;

	for (unsigned i = 0; i < MAX_SAVED_SESSIONS; i++)
		n += e->saved_sessions[i] != NULL;
	TRY(wr_u16(w, n));
	for (unsigned i = 0; i < MAX_SAVED_SESSIONS; i++)
		if (e->saved_sessions[i])
			TRY(state_encode_session(w, e->saved_sessions[i]));
	return TPM_RC_SUCCESS;
}

TPM_RC volatile_encode(const struct pqtpm_engine *e, const uint8_t *boot_id, bool clean,
		       struct wr *w)
{
	TRY(wr_bytes(w, boot_id, VOLATILE_BOOT_ID_SIZE));
	TRY(wr_u8(w, clean));
	TRY(encode_flags(w, e));
	TRY(wr_u8(w, e->startup_locality));
	TRY(wr_u64(w, e->power_on_ms));
	TRY(wr_u32(w, (uint32_t)e->clock_ppm));
	TRY(wr_u64(w, e->context_counter));
	TRY(wr_u32(w, e->pcr_update_counter));
	TRY(wr_bytes(w, e->null_seed, sizeof(e->null_seed)));
	TRY(wr_bytes(w, e->null_proof, sizeof(e->null_proof)));
	TRY(wr_u32(w, e->next_session));
	TRY(wr_u32(w, e->exclusive_audit));
	TRY(encode_banks(w, e));
	TRY(encode_ram(w, e->nv_ram));
	TRY(encode_sessions(w, e));
	return state_encode_ram(w, &e->cmd_audit_digest, &e->commit, &e->pcr_group_auth);
}

static TPM_RC decode_flags(struct rd *r, struct vstate *v, const char **what)
{
	bool *const flags[] = { &v->powered,	   &v->started,	    &v->nv_available,
				&v->phys_presence, &v->ph_enable,   &v->sh_enable,
				&v->eh_enable,	   &v->self_tested, &v->self_test_failed,
				&v->hcrtm_pre_startup };

	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		TRY(state_decode_bool(r, flags[i], what));
	return TPM_RC_SUCCESS;
}

static TPM_RC decode_banks(struct rd *r, struct vstate *v, const char **what)
{
	uint8_t n;

	TRY(rd_u8(r, &n));
	if (n > MAX_PCR_BANKS) {
		*what = "too many PCR banks";
		return TPM_RC_VALUE;
	}
	for (unsigned b = 0; b < n; b++) {
		size_t size;

		TRY(rd_u16(r, &v->banks[b].alg));
		size = crypto_hash_size(v->banks[b].alg);
		if (size == 0) {
			*what = "bad PCR bank";
			return TPM_RC_HASH;
		}
		for (unsigned i = 0; i < PCR_NUM; i++)
			TRY(rd_bytes(r, v->banks[b].value[i], size));
	}
	v->nbanks = n;
	return TPM_RC_SUCCESS;
}

static TPM_RC decode_ram(struct rd *r, struct vstate *v, const char **what)
{
	uint16_t n;

	TRY(rd_u16(r, &n));
	if (n > NV_MAX_INDICES) {
		*what = "too many orderly counters";
		return TPM_RC_VALUE;
	}
	for (unsigned i = 0; i < n; i++) {
		TRY(rd_u32(r, &v->ram_handle[i]));
		TRY(rd_u64(r, &v->ram_value[i]));
		if ((v->ram_handle[i] >> 24) != TPM_HT_NV_INDEX) {
			*what = "bad orderly counter handle";
			return TPM_RC_VALUE;
		}
	}
	v->nram = n;
	return TPM_RC_SUCCESS;
}

static TPM_RC decode_sessions(struct rd *r, struct vstate *v, const char **what)
{
	uint16_t n;

	TRY(rd_u16(r, &n));
	if (n > MAX_SAVED_SESSIONS) {
		*what = "too many saved sessions";
		return TPM_RC_VALUE;
	}
	for (unsigned i = 0; i < n; i++) {
		TRY(state_decode_session(r, &v->sessions[i], true, what));
		for (unsigned j = 0; j < i; j++) {
			if (v->sessions[j].handle == v->sessions[i].handle) {
				*what = "saved session twice";
				return TPM_RC_VALUE;
			}
		}
	}
	v->nsessions = n;
	return TPM_RC_SUCCESS;
}

static TPM_RC decode_fields(struct rd *r, struct vstate *v, const char **what)
{
	uint32_t ppm;

	TRY(rd_bytes(r, v->boot_id, sizeof(v->boot_id)));
	TRY(state_decode_bool(r, &v->clean, what));
	TRY(decode_flags(r, v, what));
	TRY(rd_u8(r, &v->startup_locality));
	TRY(rd_u64(r, &v->power_on_ms));
	TRY(rd_u32(r, &ppm));
	v->clock_ppm = (int32_t)ppm;
	/* ClockRateAdjust stops at +-166,666 ppm (cmd/clock.c); half the nominal rate is a
	 * bound no run reaches */
	if (v->clock_ppm > CLOCK_PPM_NOMINAL / 2 || v->clock_ppm < -CLOCK_PPM_NOMINAL / 2) {
		*what = "bad clock rate";
		return TPM_RC_VALUE;
	}
	TRY(rd_u64(r, &v->context_counter));
	TRY(rd_u32(r, &v->pcr_update_counter));
	TRY(rd_bytes(r, v->null_seed, sizeof(v->null_seed)));
	TRY(rd_bytes(r, v->null_proof, sizeof(v->null_proof)));
	TRY(rd_u32(r, &v->next_session));
	TRY(rd_u32(r, &v->exclusive_audit));
	TRY(decode_banks(r, v, what));
	TRY(decode_ram(r, v, what));
	TRY(decode_sessions(r, v, what));
	if (!rd_left(r))
		return TPM_RC_SUCCESS;
	return state_decode_ram(r, &v->cmd_audit_digest, &v->commit, &v->pcr_group_auth, what);
}

TPM_RC volatile_decode(struct rd *r, struct vstate *v, const char **what)
{
	TPM_RC rc;

	memset(v, 0, sizeof(*v));
	*what = "malformed field";
	rc = decode_fields(r, v, what);
	if (rc == TPM_RC_SUCCESS && rd_left(r)) {
		*what = "unexpected bytes after the last field";
		rc = TPM_RC_SIZE;
	}
	if (rc != TPM_RC_SUCCESS)
		crypto_wipe(v, sizeof(*v));
	return rc;
}
