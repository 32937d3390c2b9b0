/* GetCapability and TestParms (Part 3 §30.2, §30.3): what this TPM implements, and the live
 * numbers (handles, counts, flags) a client may ask about. */
#include <string.h>

#include "da.h"
#include "nv/nv.h"
#include "pcr.h"
#include "session.h"

/* ---- fixed identity (TPM_PT_FIXED) ---- */
#define FAMILY_2_0 0x322E3000u	   /* "2.0" */
#define SPEC_LEVEL 0
#define SPEC_REVISION 159	   /* Library 1.59 ... */
#define SPEC_DAY_OF_YEAR 312	   /* ... of 8 November 2019 */
#define SPEC_YEAR 2019
#define PS_REVISION 105		   /* PC Client Platform TPM Profile 1.05 ... */
#define PS_DAY_OF_YEAR 248	   /* ... of 4 September 2020 */
#define PS_YEAR 2020
#define MANUFACTURER 0x53572020u   /* "SW  ": tpm2-tools treats it as a simulator */
#define VENDOR_STRING_1 0x70717470u /* "pqtp" */
#define VENDOR_STRING_2 0x6D000000u /* "m" */
#define VENDOR_TPM_TYPE 1

/* ---- limits other parts own; the PC Client minimums until they export theirs ---- */
#define SESSIONS_LOADED_MAX MAX_CLIENT_SESSIONS	/* per client */
#define SESSIONS_ACTIVE_MAX (MAX_CLIENT_SESSIONS + MAX_SAVED_SESSIONS)
#define SESSION_CONTEXT_MAX 512 /* sessions issue: largest session contextBlob */

#define INPUT_BUFFER 1024	/* TPM2B_MAX_BUFFER */
#define CONTEXT_GAP_MAX 0xFFFFu
#define CLOCK_UPDATE_MS (1u << 22) /* the reference implementation's NV update interval */
#define CONTEXT_SYM_BITS 256
#define MAX_CAP_BUFFER 1024

/* Most items per answer: TSS2's TPM2_MAX_CAP_* (MAX_CAP_DATA / sizeof of its C structure).
 * A longer list would overflow the client's TPML. */
#define CAP_MAX_ALGS 127
#define CAP_MAX_HANDLES 254
#define CAP_MAX_CC 254
#define CAP_MAX_TPM_PROPERTIES 127
#define CAP_MAX_PCR_PROPERTIES 84
#define CAP_MAX_ECC_CURVES 508
#define CAP_MAX_POLICIES 14
#define CAP_MAX_ACT 84

#define ACT_FIRST 0x40000110u /* TPM_RH_ACT_0 */
#define ACT_LAST 0x4000011Fu  /* TPM_RH_ACT_F */

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* ---- algorithms ---- */
#define ASYM TPMA_ALGORITHM_ASYMMETRIC
#define SYM TPMA_ALGORITHM_SYMMETRIC
#define HASH TPMA_ALGORITHM_HASH
#define OBJ TPMA_ALGORITHM_OBJECT
#define SIGN TPMA_ALGORITHM_SIGNING
#define ENC TPMA_ALGORITHM_ENCRYPTING
#define METHOD TPMA_ALGORITHM_METHOD

/* Sorted by id. TestParms accepts exactly the object types listed here. The block ciphers
 * other than AES are listed when the wolfSSL built against has them (alg_present). */
static const struct {
	TPM_ALG_ID alg;
	uint32_t attrs;
} algs[] = {
	{ TPM_ALG_RSA, ASYM | OBJ },
	{ TPM_ALG_TDES, SYM },
	{ TPM_ALG_SHA1, HASH },
	{ TPM_ALG_HMAC, HASH | SIGN },
	{ TPM_ALG_AES, SYM },
	{ TPM_ALG_MGF1, HASH | METHOD },
	{ TPM_ALG_KEYEDHASH, HASH | OBJ | SIGN | ENC },
	{ TPM_ALG_XOR, SYM | HASH },
	{ TPM_ALG_SHA256, HASH },
	{ TPM_ALG_SHA384, HASH },
	{ TPM_ALG_SHA512, HASH },
	{ TPM_ALG_NULL, 0 },
	{ TPM_ALG_RSASSA, ASYM | SIGN },
	{ TPM_ALG_RSAES, ASYM | ENC },
	{ TPM_ALG_RSAPSS, ASYM | SIGN },
	{ TPM_ALG_OAEP, ASYM | ENC },
	{ TPM_ALG_ECDSA, ASYM | SIGN | METHOD },
	{ TPM_ALG_ECDH, ASYM | METHOD },
	{ TPM_ALG_ECDAA, ASYM | SIGN },
	{ TPM_ALG_ECSCHNORR, ASYM | SIGN },
	{ TPM_ALG_ECMQV, ASYM | METHOD },
	{ TPM_ALG_KDF1_SP800_56A, HASH | METHOD },
	{ TPM_ALG_KDF2, HASH | METHOD },
	{ TPM_ALG_KDF1_SP800_108, HASH | METHOD },
	{ TPM_ALG_ECC, ASYM | OBJ },
	{ TPM_ALG_SYMCIPHER, OBJ },
	{ TPM_ALG_CAMELLIA, SYM },
	{ TPM_ALG_CMAC, SYM | SIGN },
	{ TPM_ALG_CTR, SYM | ENC },
	{ TPM_ALG_OFB, SYM | ENC },
	{ TPM_ALG_CBC, SYM | ENC },
	{ TPM_ALG_CFB, SYM | ENC },
	{ TPM_ALG_ECB, SYM | ENC },
	{ TPM_ALG_MLKEM, ASYM | OBJ | ENC },
	{ TPM_ALG_MLDSA, ASYM | OBJ | SIGN },
	{ TPM_ALG_HASH_MLDSA, ASYM | OBJ | SIGN },
};

/* TPM_PT_ML_PARAMETER_SETS (v1.85): every ML-KEM and ML-DSA set, and external mu */
#define ML_PARAMETER_SETS                                                                   \
	(TPMA_ML_PARAMETER_SET_MLKEM_512 | TPMA_ML_PARAMETER_SET_MLKEM_768 |                \
	 TPMA_ML_PARAMETER_SET_MLKEM_1024 | TPMA_ML_PARAMETER_SET_MLDSA_44 |                \
	 TPMA_ML_PARAMETER_SET_MLDSA_65 | TPMA_ML_PARAMETER_SET_MLDSA_87 |                  \
	 TPMA_ML_PARAMETER_SET_EXT_MU)

/* The curves this TPM may have: listed when the wolfSSL linked has them (crypto_ecc_bytes).
 * wolfSSL 5.5.4 has no BN or SM2 curve. */
static const uint16_t curves[] = { TPM_ECC_NIST_P256, TPM_ECC_NIST_P384, TPM_ECC_NIST_P521 };

static uint32_t curve_count(void)
{
	uint32_t n = 0;

	for (size_t i = 0; i < N(curves); i++)
		n += crypto_ecc_bytes(curves[i]) != 0;
	return n;
}

/* Whether this build has an algorithm of the table */
static bool alg_present(TPM_ALG_ID alg)
{
	switch (alg) {
	case TPM_ALG_TDES:
	case TPM_ALG_CAMELLIA:
		return crypto_sym_block(alg) != 0;
	default:
		return true;
	}
}

/* TPMA_ALGORITHM of an implemented algorithm; *attrs untouched and false otherwise. */
static bool alg_attributes(TPM_ALG_ID alg, uint32_t *attrs)
{
	for (size_t i = 0; i < N(algs); i++) {
		if (algs[i].alg == alg && alg_present(alg)) {
			*attrs = algs[i].attrs;
			return true;
		}
	}
	return false;
}

bool alg_implemented(TPM_ALG_ID alg)
{
	uint32_t attrs;

	return alg_attributes(alg, &attrs);
}

static bool is_object_type(TPM_ALG_ID alg)
{
	uint32_t attrs = 0;

	return alg_attributes(alg, &attrs) && (attrs & OBJ);
}

/* ---- commands: the TPMA_CC bits the command table does not carry (Part 3 attributes) ---- */
static const TPM_CC nv_commands[] = {
	TPM_CC_NV_UndefineSpaceSpecial, TPM_CC_EvictControl, TPM_CC_HierarchyControl,
	TPM_CC_NV_UndefineSpace, TPM_CC_ChangeEPS, TPM_CC_ChangePPS, TPM_CC_Clear,
	TPM_CC_ClearControl, TPM_CC_ClockSet, TPM_CC_HierarchyChangeAuth, TPM_CC_NV_DefineSpace,
	TPM_CC_PCR_Allocate, TPM_CC_PCR_SetAuthPolicy, TPM_CC_PP_Commands,
	TPM_CC_SetPrimaryPolicy, TPM_CC_NV_GlobalWriteLock, TPM_CC_GetCommandAuditDigest,
	TPM_CC_NV_Increment, TPM_CC_NV_SetBits, TPM_CC_NV_Extend, TPM_CC_NV_Write,
	TPM_CC_NV_WriteLock, TPM_CC_DictionaryAttackLockReset, TPM_CC_DictionaryAttackParameters,
	TPM_CC_NV_ChangeAuth, TPM_CC_PCR_Event, TPM_CC_PCR_Reset, TPM_CC_SetAlgorithmSet,
	TPM_CC_SetCommandCodeAuditStatus, TPM_CC_FieldUpgradeData, TPM_CC_IncrementalSelfTest,
	TPM_CC_SelfTest, TPM_CC_Startup, TPM_CC_Shutdown, TPM_CC_StirRandom, TPM_CC_NV_ReadLock,
	TPM_CC_PCR_Extend, TPM_CC_EventSequenceComplete,
};
/* may flush any number of loaded contexts */
static const TPM_CC extensive_commands[] = {
	TPM_CC_HierarchyControl, TPM_CC_ChangeEPS, TPM_CC_ChangePPS, TPM_CC_Clear,
};
/* flush the transient object they name (sequences) */
static const TPM_CC flushed_commands[] = {
	TPM_CC_SequenceComplete, TPM_CC_EventSequenceComplete, TPM_CC_VerifySequenceComplete,
	TPM_CC_SignSequenceComplete,
};

static bool cc_in(TPM_CC cc, const TPM_CC *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (list[i] == cc)
			return true;
	return false;
}

static uint32_t cc_attributes(const struct cmd_def *d)
{
	uint32_t a = d->code & TPMA_CC_COMMANDINDEX_MASK;

	a |= (uint32_t)d->handles << TPMA_CC_CHANDLES_SHIFT & TPMA_CC_CHANDLES_MASK;
	if (d->flags & CMD_RHANDLE)
		a |= TPMA_CC_RHANDLE;
	if (cc_in(d->code, nv_commands, N(nv_commands)))
		a |= TPMA_CC_NV;
	if (cc_in(d->code, extensive_commands, N(extensive_commands)))
		a |= TPMA_CC_EXTENSIVE;
	if (cc_in(d->code, flushed_commands, N(flushed_commands)))
		a |= TPMA_CC_FLUSHED;
	return a;
}

/* ---- the list being answered: count patched at the end, moreData when items remain ---- */
struct list {
	struct wr *w;
	size_t count_at;
	uint32_t count, max;
	bool more;
};

static TPM_RC list_begin(struct list *l, struct wr *w, uint32_t want, uint32_t limit)
{
	l->w = w;
	l->count_at = w->off;
	l->count = 0;
	l->max = want < limit ? want : limit;
	l->more = false;
	return wr_u32(w, 0);
}

/* May one more item go in? If not, the answer has more data. */
static bool list_room(struct list *l)
{
	if (l->count < l->max)
		return true;
	l->more = true;
	return false;
}

static TPM_RC list_u16(struct list *l, uint16_t v)
{
	TRY(wr_u16(l->w, v));
	l->count++;
	return TPM_RC_SUCCESS;
}

static TPM_RC list_u32(struct list *l, uint32_t v)
{
	TRY(wr_u32(l->w, v));
	l->count++;
	return TPM_RC_SUCCESS;
}

static TPM_RC list_pair(struct list *l, uint32_t tag, uint32_t v)
{
	TRY(wr_u32(l->w, tag));
	return list_u32(l, v);
}

static void list_end(struct list *l)
{
	wr_patch_u32(l->w, l->count_at, l->count);
}

/* ---- v1.85 IDs in PQTPM_CAPS_RELEASED (engine.h): a released TSS that meets an ID it cannot
 * name in a list fails the whole answer (tpm2-tss FAPI's GetInfo), so a list that starts
 * below the first v1.85 ID of its kind leaves them out; a client that knows them asks from
 * their ID and gets them. ---- */
#define ALG_FIRST_V185 TPM_ALG_MLKEM /* the algorithm IDs v1.85 added start here */

static bool v185_hidden(const struct cmd *c, uint32_t from, uint32_t first_v185)
{
	return c->e->capabilities == PQTPM_CAPS_RELEASED && from < first_v185;
}

/* ---- TPM_CAP_ALGS ---- */
static TPM_RC cap_algs(struct cmd *c, uint32_t from, struct list *l)
{
	for (size_t i = 0; i < N(algs); i++) {
		if (algs[i].alg < from || !alg_present(algs[i].alg))
			continue;
		if (algs[i].alg >= ALG_FIRST_V185 && v185_hidden(c, from, ALG_FIRST_V185))
			continue;
		if (!list_room(l))
			break;
		TRY(wr_u16(l->w, algs[i].alg));
		TRY(list_u32(l, algs[i].attrs));
	}
	return TPM_RC_SUCCESS;
}

/* ---- TPM_CAP_HANDLES ---- */
static const TPM_HANDLE permanent[] = {
	TPM_RH_OWNER,	    TPM_RH_NULL,     TPM_RS_PW,	      TPM_RH_LOCKOUT,
	TPM_RH_ENDORSEMENT, TPM_RH_PLATFORM, TPM_RH_PLATFORM_NV,
};

/* The loaded objects' handles from 'from' on, in ascending order (the slots are unordered). */
static TPM_RC object_handles(struct object *const *objs, size_t n, TPM_HANDLE from,
			     struct list *l)
{
	for (;;) {
		bool found = false;
		TPM_HANDLE next = 0;

		for (size_t i = 0; i < n; i++) {
			TPM_HANDLE h = objs[i] ? objs[i]->handle : 0;

			if (objs[i] && h >= from && (!found || h < next)) {
				next = h;
				found = true;
			}
		}
		if (!found || !list_room(l))
			return TPM_RC_SUCCESS;
		TRY(list_u32(l, next));
		from = next + 1;
	}
}

/* The same for sessions; the low 24 bits order them across the HMAC and policy ranges. */
static TPM_RC session_handles(struct session *const *sess, size_t n, TPM_HANDLE from,
			      struct list *l)
{
	uint32_t low = from & TPM_HR_HANDLE_MASK;

	for (;;) {
		bool found = false;
		TPM_HANDLE next = 0;

		for (size_t i = 0; i < n; i++) {
			TPM_HANDLE h = sess[i] ? sess[i]->handle : 0;

			if (sess[i] && (h & TPM_HR_HANDLE_MASK) >= low &&
			    (!found || (h & TPM_HR_HANDLE_MASK) < (next & TPM_HR_HANDLE_MASK))) {
				next = h;
				found = true;
			}
		}
		if (!found || !list_room(l))
			return TPM_RC_SUCCESS;
		TRY(list_u32(l, next));
		low = (next & TPM_HR_HANDLE_MASK) + 1;
	}
}

static TPM_RC cap_handles(struct cmd *c, uint32_t from, struct list *l)
{
	switch (from >> TPM_HR_SHIFT) {
	case TPM_HT_PCR:
		for (TPM_HANDLE h = from; h < PCR_NUM; h++) {
			if (!list_room(l))
				break;
			TRY(list_u32(l, h));
		}
		return TPM_RC_SUCCESS;
	case TPM_HT_NV_INDEX:
		for (TPM_HANDLE h = nv_next_handle(c->e->ps.nv, from); h;
		     h = h < NV_LAST ? nv_next_handle(c->e->ps.nv, h + 1) : 0) {
			if (!list_room(l))
				break;
			TRY(list_u32(l, h));
		}
		return TPM_RC_SUCCESS;
	case TPM_HT_LOADED_SESSION:
		/* this client's loaded sessions, HMAC and policy alike (Part 2 §7.4.4) */
		return session_handles(c->client->sessions, MAX_CLIENT_SESSIONS, from, l);
	case TPM_HT_SAVED_SESSION:
		/* context-saved sessions belong to no client until loaded */
		return session_handles(c->e->saved_sessions, MAX_SAVED_SESSIONS, from, l);
	case TPM_HT_PERMANENT:
		for (size_t i = 0; i < N(permanent); i++) {
			if (permanent[i] < from)
				continue;
			if (!list_room(l))
				break;
			TRY(list_u32(l, permanent[i]));
		}
		return TPM_RC_SUCCESS;
	case TPM_HT_TRANSIENT:
		/* this client's objects only: handles are per client */
		return object_handles(c->client->objects, MAX_CLIENT_OBJECTS, from, l);
	case TPM_HT_PERSISTENT:
		return object_handles(c->e->ps.persistent, MAX_PERSISTENT_OBJECTS, from, l);
	default:
		return rc_param(TPM_RC_HANDLE, 2);
	}
}

/* ---- TPM_CAP_COMMANDS, PP_COMMANDS, AUDIT_COMMANDS ---- */
static TPM_RC cap_commands(struct cmd *c, uint32_t from, struct list *l)
{
	for (size_t i = 0; i < cmd_count(); i++) {
		const struct cmd_def *d = cmd_at(i);

		if (d->code < from)
			continue;
		if (!list_room(l))
			break;
		TRY(list_u32(l, cc_attributes(d)));
	}
	return TPM_RC_SUCCESS;
}

static TPM_RC cap_pp_commands(struct cmd *c, uint32_t from, struct list *l)
{
	TPM_CC cc[PP_LIST_MAX + 1];
	size_t n = cmd_pp_commands(c->e, from, cc, PP_LIST_MAX + 1);

	for (size_t i = 0; i < n && list_room(l); i++)
		TRY(list_u32(l, cc[i]));
	return TPM_RC_SUCCESS;
}

static TPM_RC cap_audit_commands(struct cmd *c, uint32_t from, struct list *l)
{
	TPM_CC cc[CMD_AUDIT_MAX + 1];
	size_t n = cmd_audit_commands(c->e, from, cc, CMD_AUDIT_MAX + 1);

	for (size_t i = 0; i < n && list_room(l); i++)
		TRY(list_u32(l, cc[i]));
	return TPM_RC_SUCCESS;
}

/* ---- TPM_CAP_TPM_PROPERTIES ---- */
static uint32_t count_objects(struct object *const *objs, size_t n)
{
	uint32_t count = 0;

	for (size_t i = 0; i < n; i++)
		count += objs[i] != NULL;
	return count;
}

static uint32_t permanent_flags(const struct pqtpm_engine *e)
{
	uint32_t v = TPMA_PERMANENT_TPMGENERATEDEPS; /* the seeds are made by the TPM */

	if (e->ps.hier[HIER_OWNER].auth.size)
		v |= TPMA_PERMANENT_OWNERAUTHSET;
	if (e->ps.hier[HIER_ENDORSEMENT].auth.size)
		v |= TPMA_PERMANENT_ENDORSEMENTAUTHSET;
	if (e->ps.hier[HIER_LOCKOUT].auth.size)
		v |= TPMA_PERMANENT_LOCKOUTAUTHSET;
	if (e->ps.disable_clear)
		v |= TPMA_PERMANENT_DISABLECLEAR;
	return v;
}

static uint32_t startup_clear_flags(const struct pqtpm_engine *e)
{
	uint32_t v = 0;

	if (e->ph_enable)
		v |= TPMA_STARTUP_CLEAR_PHENABLE;
	if (e->sh_enable)
		v |= TPMA_STARTUP_CLEAR_SHENABLE;
	if (e->eh_enable)
		v |= TPMA_STARTUP_CLEAR_EHENABLE;
	if (e->ps.ph_enable_nv)
		v |= TPMA_STARTUP_CLEAR_PHENABLENV;
	if (e->ps.orderly)
		v |= TPMA_STARTUP_CLEAR_ORDERLY;
	return v;
}

/* Counters that could still be defined: each takes 8 bytes of data and a slot. */
static uint32_t counters_avail(const struct pqtpm_engine *e)
{
	uint32_t room = nv_space_left(e->ps.nv), slots = NV_MAX_INDICES - nv_count(e->ps.nv, -1);
	uint32_t n = room >= 8 ? 1 + (room - 8) / (8 + NV_INDEX_OVERHEAD) : 0;

	return n < slots ? n : slots;
}

/* The value of a property; false for one this TPM does not report. */
static bool tpm_property(struct cmd *c, uint32_t pt, uint32_t *v)
{
	const struct pqtpm_engine *e = c->e;
	uint32_t transient = count_objects(c->client->objects, MAX_CLIENT_OBJECTS);
	uint32_t persistent = count_objects(e->ps.persistent, MAX_PERSISTENT_OBJECTS);
	uint32_t loaded_sessions = 0, saved_sessions = 0;

	for (int i = 0; i < MAX_CLIENT_SESSIONS; i++)
		loaded_sessions += c->client->sessions[i] != NULL;
	for (int i = 0; i < MAX_SAVED_SESSIONS; i++)
		saved_sessions += e->saved_sessions[i] != NULL;

	switch (pt) {
	case TPM_PT_FAMILY_INDICATOR: *v = FAMILY_2_0; break;
	case TPM_PT_LEVEL: *v = SPEC_LEVEL; break;
	case TPM_PT_REVISION: *v = SPEC_REVISION; break;
	case TPM_PT_DAY_OF_YEAR: *v = SPEC_DAY_OF_YEAR; break;
	case TPM_PT_YEAR: *v = SPEC_YEAR; break;
	case TPM_PT_MANUFACTURER: *v = MANUFACTURER; break;
	case TPM_PT_VENDOR_STRING_1: *v = VENDOR_STRING_1; break;
	case TPM_PT_VENDOR_STRING_2: *v = VENDOR_STRING_2; break;
	case TPM_PT_VENDOR_STRING_3: *v = 0; break;
	case TPM_PT_VENDOR_STRING_4: *v = 0; break;
	case TPM_PT_VENDOR_TPM_TYPE: *v = VENDOR_TPM_TYPE; break;
	case TPM_PT_FIRMWARE_VERSION_1: *v = FIRMWARE_VERSION_1; break;
	case TPM_PT_FIRMWARE_VERSION_2: *v = FIRMWARE_VERSION_2; break;
	case TPM_PT_INPUT_BUFFER: *v = INPUT_BUFFER; break;
	case TPM_PT_HR_TRANSIENT_MIN: *v = MAX_CLIENT_OBJECTS; break;
	case TPM_PT_HR_PERSISTENT_MIN: *v = MAX_PERSISTENT_OBJECTS; break;
	case TPM_PT_HR_LOADED_MIN: *v = SESSIONS_LOADED_MAX; break;
	case TPM_PT_ACTIVE_SESSIONS_MAX: *v = SESSIONS_ACTIVE_MAX; break;
	case TPM_PT_PCR_COUNT: *v = PCR_NUM; break;
	case TPM_PT_PCR_SELECT_MIN: *v = PCR_SELECT_MAX; break;
	case TPM_PT_CONTEXT_GAP_MAX: *v = CONTEXT_GAP_MAX; break;
	case TPM_PT_NV_COUNTERS_MAX: *v = 0; break; /* no specific limit */
	case TPM_PT_NV_INDEX_MAX: *v = nv_index_max(e); break;
	case TPM_PT_MEMORY: *v = TPMA_MEMORY_OBJECTCOPIEDTORAM; break;
	case TPM_PT_CLOCK_UPDATE: *v = CLOCK_UPDATE_MS; break;
	case TPM_PT_CONTEXT_HASH: *v = TPM_ALG_SHA256; break;
	case TPM_PT_CONTEXT_SYM: *v = TPM_ALG_AES; break;
	case TPM_PT_CONTEXT_SYM_SIZE: *v = CONTEXT_SYM_BITS; break;
	case TPM_PT_ORDERLY_COUNT: *v = NV_ORDERLY_COUNT; break;
	case TPM_PT_MAX_COMMAND_SIZE: *v = PQTPM_MAX_COMMAND_SIZE; break;
	case TPM_PT_MAX_RESPONSE_SIZE: *v = PQTPM_MAX_RESPONSE_SIZE; break;
	case TPM_PT_MAX_DIGEST: *v = MAX_DIGEST_SIZE; break;
	/* TPMS_CONTEXT: sequence, savedHandle, hierarchy, contextBlob */
	case TPM_PT_MAX_OBJECT_CONTEXT: *v = 8 + 4 + 4 + 2 + MAX_CONTEXT_BLOB; break;
	case TPM_PT_MAX_SESSION_CONTEXT: *v = 8 + 4 + 4 + 2 + SESSION_CONTEXT_MAX; break;
	case TPM_PT_PS_FAMILY_INDICATOR: *v = TPM_PS_PC; break;
	case TPM_PT_PS_LEVEL: *v = 0; break;
	case TPM_PT_PS_REVISION: *v = PS_REVISION; break;
	case TPM_PT_PS_DAY_OF_YEAR: *v = PS_DAY_OF_YEAR; break;
	case TPM_PT_PS_YEAR: *v = PS_YEAR; break;
	case TPM_PT_SPLIT_MAX: *v = COMMIT_SLOTS; break; /* outstanding commits */
	case TPM_PT_TOTAL_COMMANDS: *v = (uint32_t)cmd_count(); break;
	case TPM_PT_LIBRARY_COMMANDS: *v = (uint32_t)cmd_count(); break;
	case TPM_PT_VENDOR_COMMANDS: *v = 0; break;
	case TPM_PT_NV_BUFFER_MAX: *v = NV_BUFFER_MAX; break;
	case TPM_PT_MODES: *v = 0; break;
	case TPM_PT_MAX_CAP_BUFFER: *v = MAX_CAP_BUFFER; break;
	case TPM_PT_ML_PARAMETER_SETS: *v = ML_PARAMETER_SETS; break;

	case TPM_PT_PERMANENT:
		*v = permanent_flags(e) | (da_in_lockout(c->e) ? TPMA_PERMANENT_INLOCKOUT : 0);
		break;
	case TPM_PT_STARTUP_CLEAR: *v = startup_clear_flags(e); break;
	case TPM_PT_HR_NV_INDEX: *v = nv_count(e->ps.nv, -1); break;
	case TPM_PT_HR_LOADED: *v = loaded_sessions; break;
	case TPM_PT_HR_LOADED_AVAIL: *v = SESSIONS_LOADED_MAX - loaded_sessions; break;
	case TPM_PT_HR_ACTIVE: *v = loaded_sessions + saved_sessions; break;
	case TPM_PT_HR_ACTIVE_AVAIL:
		*v = SESSIONS_ACTIVE_MAX - loaded_sessions - saved_sessions;
		break;
	case TPM_PT_HR_TRANSIENT_AVAIL: *v = MAX_CLIENT_OBJECTS - transient; break;
	case TPM_PT_HR_PERSISTENT: *v = persistent; break;
	case TPM_PT_HR_PERSISTENT_AVAIL: *v = MAX_PERSISTENT_OBJECTS - persistent; break;
	case TPM_PT_NV_COUNTERS: *v = nv_count(e->ps.nv, TPM_NT_COUNTER); break;
	case TPM_PT_NV_COUNTERS_AVAIL: *v = counters_avail(e); break;
	case TPM_PT_ALGORITHM_SET: *v = e->ps.algorithm_set; break;
	case TPM_PT_LOADED_CURVES: *v = curve_count(); break;
	case TPM_PT_LOCKOUT_COUNTER: *v = da_failed_tries(c->e); break;
	case TPM_PT_MAX_AUTH_FAIL: *v = da_max_tries(e); break;
	case TPM_PT_LOCKOUT_INTERVAL: *v = da_recovery_time(e); break;
	case TPM_PT_LOCKOUT_RECOVERY: *v = da_lockout_recovery(e); break;
	case TPM_PT_NV_WRITE_RECOVERY: *v = 0; break;
	case TPM_PT_AUDIT_COUNTER_0: *v = (uint32_t)(cmd_audit_counter(e) >> 32); break;
	case TPM_PT_AUDIT_COUNTER_1: *v = (uint32_t)cmd_audit_counter(e); break;
	default: return false;
	}
	return true;
}

static TPM_RC cap_tpm_properties(struct cmd *c, uint32_t from, struct list *l)
{
	static const uint32_t ranges[][2] = {
		{ TPM_PT_FAMILY_INDICATOR, TPM_PT_ML_PARAMETER_SETS },
		{ TPM_PT_PERMANENT, TPM_PT_AUDIT_COUNTER_1 },
	};

	for (size_t r = 0; r < N(ranges); r++) {
		for (uint32_t pt = ranges[r][0]; pt <= ranges[r][1]; pt++) {
			uint32_t v;

			if (pt < from || !tpm_property(c, pt, &v))
				continue;
			if (pt == TPM_PT_ML_PARAMETER_SETS &&
			    v185_hidden(c, from, TPM_PT_ML_PARAMETER_SETS))
				continue;
			if (!list_room(l))
				return TPM_RC_SUCCESS;
			TRY(list_pair(l, pt, v));
		}
	}
	return TPM_RC_SUCCESS;
}

/* ---- TPM_CAP_PCRS, TPM_CAP_PCR_PROPERTIES ---- */
static TPM_RC wr_select(struct wr *w, uint32_t map)
{
	TRY(wr_u8(w, PCR_SELECT_MAX));
	for (unsigned i = 0; i < PCR_SELECT_MAX; i++)
		TRY(wr_u8(w, (uint8_t)(map >> (8 * i))));
	return TPM_RC_SUCCESS;
}

/* Every bank this TPM can have, whatever the count: allocated ones with all PCRs, the others
 * empty. */
static TPM_RC cap_pcrs(struct cmd *c, uint32_t from, struct list *l)
{
	if (from != 0)
		return rc_param(TPM_RC_VALUE, 2);
	for (size_t i = 0; i < pcr_bank_alg_count(); i++) {
		TPM_ALG_ID alg = pcr_bank_alg(i);

		TRY(list_u16(l, alg));
		TRY(wr_select(l->w, pcr_value(c->e, alg, 0) ? (1u << PCR_NUM) - 1 : 0));
	}
	return TPM_RC_SUCCESS;
}

static TPM_RC cap_pcr_properties(struct cmd *c, uint32_t from, struct list *l)
{
	for (uint32_t pt = from; pt <= TPM_PT_TPM2_PCR_LAST; pt++) {
		uint32_t map;

		if (!pcr_property_map(pt, &map))
			continue;
		if (!list_room(l))
			break;
		TRY(list_u32(l, pt));
		TRY(wr_select(l->w, map));
	}
	return TPM_RC_SUCCESS;
}

/* ---- TPM_CAP_ECC_CURVES ---- */
static TPM_RC cap_ecc_curves(struct cmd *c, uint32_t from, struct list *l)
{
	for (size_t i = 0; i < N(curves); i++) {
		if (curves[i] < from || crypto_ecc_bytes(curves[i]) == 0)
			continue;
		if (!list_room(l))
			break;
		TRY(list_u16(l, curves[i]));
	}
	return TPM_RC_SUCCESS;
}

/* ---- TPM_CAP_AUTH_POLICIES: the permanent handles that have a policy ---- */
static TPM_RC cap_auth_policies(struct cmd *c, uint32_t from, struct list *l)
{
	if (from >> TPM_HR_SHIFT != TPM_HT_PERMANENT)
		return rc_param(TPM_RC_VALUE, 2);
	for (size_t i = 0; i < N(permanent); i++) {
		const struct hierarchy *h = hier_get(c->e, permanent[i]);
		size_t n;

		if (permanent[i] < from || !h || permanent[i] == TPM_RH_NULL)
			continue;
		n = crypto_hash_size(h->policy_alg);
		if (n == 0)
			continue;
		if (!list_room(l))
			break;
		TRY(list_u32(l, permanent[i]));
		TRY(wr_u16(l->w, h->policy_alg));
		TRY(wr_bytes(l->w, h->policy.b, n));
	}
	return TPM_RC_SUCCESS;
}

/* ---- TPM_CAP_ACT: no authenticated countdown timers ---- */
static TPM_RC cap_act(struct cmd *c, uint32_t from, struct list *l)
{
	if (from < ACT_FIRST || from > ACT_LAST)
		return rc_param(TPM_RC_VALUE, 2);
	return TPM_RC_SUCCESS;
}

static const struct {
	uint32_t cap;
	uint32_t limit;
	TPM_RC (*list)(struct cmd *c, uint32_t from, struct list *l);
} caps[] = {
	{ TPM_CAP_ALGS, CAP_MAX_ALGS, cap_algs },
	{ TPM_CAP_HANDLES, CAP_MAX_HANDLES, cap_handles },
	{ TPM_CAP_COMMANDS, CAP_MAX_CC, cap_commands },
	{ TPM_CAP_PP_COMMANDS, CAP_MAX_CC, cap_pp_commands },
	{ TPM_CAP_AUDIT_COMMANDS, CAP_MAX_CC, cap_audit_commands },
	{ TPM_CAP_PCRS, MAX_PCR_BANKS, cap_pcrs },
	{ TPM_CAP_TPM_PROPERTIES, CAP_MAX_TPM_PROPERTIES, cap_tpm_properties },
	{ TPM_CAP_PCR_PROPERTIES, CAP_MAX_PCR_PROPERTIES, cap_pcr_properties },
	{ TPM_CAP_ECC_CURVES, CAP_MAX_ECC_CURVES, cap_ecc_curves },
	{ TPM_CAP_AUTH_POLICIES, CAP_MAX_POLICIES, cap_auth_policies },
	{ TPM_CAP_ACT, CAP_MAX_ACT, cap_act },
};

static TPM_RC get_capability(struct cmd *c)
{
	uint32_t cap, property, count;
	uint8_t *more;
	struct list l;
	size_t i = 0;

	TRYP(1, rd_u32(&c->in, &cap));
	TRYP(2, rd_u32(&c->in, &property));
	TRYP(3, rd_u32(&c->in, &count));
	TRY(cmd_params_done(c));
	while (i < N(caps) && caps[i].cap != cap)
		i++;
	if (i == N(caps))
		return rc_param(TPM_RC_VALUE, 1);
	TRY(wr_reserve(&c->out, 1, &more));
	TRY(wr_u32(&c->out, cap));
	TRY(list_begin(&l, &c->out, count, caps[i].limit));
	TRY(caps[i].list(c, property, &l));
	list_end(&l);
	*more = l.more;
	return TPM_RC_SUCCESS;
}

/* ---- TestParms ---- */

static bool alg_in(TPM_ALG_ID alg, const TPM_ALG_ID *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (list[i] == alg)
			return true;
	return false;
}

/* A TPMT_*_SCHEME+: NULL or one of ok[] (else bad), then what the scheme carries. */
static TPM_RC rd_scheme_in(struct rd *r, struct tpmt_scheme *s, const TPM_ALG_ID *ok, size_t n,
			   TPM_RC bad)
{
	memset(s, 0, sizeof(*s));
	s->hash_alg = s->kdf = TPM_ALG_NULL;
	TRY(rd_u16(r, &s->scheme));
	if (s->scheme == TPM_ALG_NULL)
		return TPM_RC_SUCCESS;
	if (!alg_in(s->scheme, ok, n))
		return bad;
	if (s->scheme == TPM_ALG_RSAES)
		return TPM_RC_SUCCESS;
	TRY(rd_hash_alg(r, &s->hash_alg, false));
	if (s->scheme != TPM_ALG_XOR)
		return TPM_RC_SUCCESS;
	TRY(rd_u16(r, &s->kdf));
	return s->kdf == TPM_ALG_NULL || alg_is_kdf(s->kdf) ? TPM_RC_SUCCESS : TPM_RC_KDF;
}

/* TPMI_MLDSA_PARAMETER_SET, TPMI_MLKEM_PARAMETER_SET: 1..3 (TPM_RC_PARMS otherwise) */
static TPM_RC rd_pq_set(struct rd *r, uint16_t *set)
{
	TRY(rd_u16(r, set));
	return *set >= 1 && *set <= 3 ? TPM_RC_SUCCESS : TPM_RC_PARMS;
}

/* TPMT_PUBLIC_PARMS, with the selector checks and codes rd_public uses for the same fields
 * (types_marshal.c keeps its pieces private). */
static TPM_RC rd_public_parms(struct rd *r, struct tpmt_public *p)
{
	static const TPM_ALG_ID rsa[] = { TPM_ALG_RSASSA, TPM_ALG_RSAPSS, TPM_ALG_RSAES,
					  TPM_ALG_OAEP };
	static const TPM_ALG_ID keyedhash[] = { TPM_ALG_HMAC, TPM_ALG_XOR };

	memset(p, 0, sizeof(*p));
	TRY(rd_u16(r, &p->type));
	if (!is_object_type(p->type))
		return TPM_RC_TYPE;
	switch (p->type) {
	case TPM_ALG_RSA:
		TRY(rd_sym_def_object(r, &p->symmetric, true));
		TRY(rd_scheme_in(r, &p->scheme, rsa, N(rsa), TPM_RC_VALUE));
		TRY(rd_u16(r, &p->key_bits));
		return rd_u32(r, &p->exponent);
	case TPM_ALG_ECC:
		TRY(rd_sym_def_object(r, &p->symmetric, true));
		TRY(rd_ecc_scheme(r, &p->scheme, true));
		TRY(rd_u16(r, &p->curve_id));
		return rd_kdf_scheme(r, &p->kdf, true);
	case TPM_ALG_KEYEDHASH:
		return rd_scheme_in(r, &p->scheme, keyedhash, N(keyedhash), TPM_RC_VALUE);
	case TPM_ALG_SYMCIPHER:
		return rd_sym_def_object(r, &p->symmetric, false);
	case TPM_ALG_MLDSA: /* TPMS_MLDSA_PARMS */
		TRY(rd_pq_set(r, &p->parameter_set));
		TRY(rd_u8(r, &p->allow_external_mu));
		return p->allow_external_mu <= 1 ? TPM_RC_SUCCESS : TPM_RC_VALUE;
	case TPM_ALG_HASH_MLDSA: /* TPMS_HASH_MLDSA_PARMS */
		TRY(rd_pq_set(r, &p->parameter_set));
		return rd_hash_alg(r, &p->pre_hash, false);
	case TPM_ALG_MLKEM: /* TPMS_MLKEM_PARMS */
		TRY(rd_sym_def_object(r, &p->symmetric, true));
		return rd_pq_set(r, &p->parameter_set);
	default:
		return TPM_RC_TYPE;
	}
}

/* Beyond the wire form: could this TPM create such a key? */
static TPM_RC parms_supported(const struct tpmt_public *p)
{
	switch (p->type) {
	case TPM_ALG_RSA:
		switch (p->key_bits) {
		case 2048:
		case 3072:
			return TPM_RC_SUCCESS;
		case 1024:
		case 4096: /* accepted in public areas (LoadExternal), never created */
			return TPM_RC_KEY_SIZE;
		default:
			return TPM_RC_VALUE; /* not a TPMI_RSA_KEY_BITS */
		}
	case TPM_ALG_ECC:
		return crypto_ecc_bytes(p->curve_id) ? TPM_RC_SUCCESS : TPM_RC_CURVE;
	case TPM_ALG_HASH_MLDSA: /* FIPS 204 names no OID for SHA-1 */
		return p->pre_hash == TPM_ALG_SHA1 ? TPM_RC_HASH : TPM_RC_SUCCESS;
	default:
		return TPM_RC_SUCCESS;
	}
}

static TPM_RC test_parms(struct cmd *c)
{
	struct tpmt_public p;

	TRYP(1, rd_public_parms(&c->in, &p));
	TRY(cmd_params_done(c));
	return rc_param(parms_supported(&p), 1);
}

const struct cmd_def cmds_capability[] = {
	{ .code = TPM_CC_GetCapability, .name = "GetCapability", .flags = CMD_READS_STATE,
	  .run = get_capability },
	{ .code = TPM_CC_TestParms, .name = "TestParms", .flags = CMD_READS_STATE,
	  .run = test_parms },
	{ 0 },
};
