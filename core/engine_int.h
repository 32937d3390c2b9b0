/* Engine internals shared by the files of core/: the engine, its clients, loaded objects,
 * and the command context a handler sees. Nothing outside core/ includes this. */
#ifndef PQTPM_ENGINE_INT_H
#define PQTPM_ENGINE_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <pqtpm/engine.h>
#include <pqtpm/tpm2.h>

#include "clock.h"
#include "crypto/crypto.h"
#include "crypto/keccak.h"
#include "log.h"
#include "marshal.h"
#include "rc.h"
#include "types.h"

#define MAX_CLIENT_OBJECTS 32	 /* transient objects and sequences per client */
#define MAX_PERSISTENT_OBJECTS 32
#define MAX_CLIENT_SESSIONS 16	 /* loaded sessions per client */
#define MAX_SAVED_SESSIONS 64	 /* context-saved sessions, engine-wide */
#define MAX_CLIENTS_TOTAL 1024
#define PRIMARY_SEED_SIZE 64	 /* bytes; the largest hash we support */
#define PCR_NUM TPM_PCR_COUNT
#define MLDSA_TR_BYTES 64	 /* tr = H(pk): what an ML-DSA key's mu starts with */
/* TPM_PT_FIRMWARE_VERSION_1/2 (cmd/capability.c), TPMS_ATTEST.firmwareVersion (attest.c) */
#define FIRMWARE_VERSION_1 0x00000001u /* 0.1 */
#define FIRMWARE_VERSION_2 0

/* ---- objects ---- */
enum object_kind {
	OBJ_KEY,	/* anything with a public area: keys, sealed data */
	OBJ_HASH_SEQ,	/* HashSequenceStart */
	OBJ_HMAC_SEQ,	/* HMAC_Start */
	OBJ_EVENT_SEQ,	/* HashSequenceStart with TPM_ALG_NULL */
	OBJ_SIGN_SEQ,	/* SignSequenceStart (cmd/pq_seq.c) */
	OBJ_VERIFY_SEQ,	/* VerifySequenceStart (cmd/pq_seq.c) */
	OBJ_CMAC_SEQ,	/* MAC_Start (HMAC_Start) with an AES key: CMAC */
};

/* A sign or verify sequence (v1.85). The message is never kept: it feeds, as it arrives,
 * the ML-DSA message representative mu = H(tr || M') (pure ML-DSA), or a hash of the message
 * (HashML-DSA and the classical schemes, in object.hash), and for a verify sequence the
 * message ticket's HMAC (in object.hmac). */
struct sig_seq {
	struct tpm2b_name key_name;	/* the key at Start; Complete must name the same */
	TPM_HANDLE key_hierarchy;
	TPM_ALG_ID scheme;		/* MLDSA, HASH_MLDSA, RSASSA, RSAPSS, ECDSA, HMAC */
	TPM_ALG_ID hash_alg;		/* the hash object.hash runs (not for MLDSA) */
	uint16_t parameter_set;		/* MLDSA, HASH_MLDSA */
	struct tpm2b_signature_ctx ctx;	/* the context string (HASH_MLDSA needs it at the end) */
	struct keccak_ctx mu;		/* MLDSA: SHAKE256 over tr || 0 || |ctx| || ctx || M */
	bool ticket;			/* VERIFY_SEQ: object.hmac runs the message ticket */
};

struct object {
	enum object_kind kind;
	TPM_HANDLE handle;		/* as the client sees it: 0x80xxxxxx or 0x81xxxxxx */
	TPM_HANDLE hierarchy;		/* TPM_RH_OWNER/ENDORSEMENT/PLATFORM/NULL */
	bool has_sensitive;		/* false for a public-only LoadExternal */
	bool is_primary;
	bool external;			/* LoadExternal: never a parent, tickets use NULL hierarchy */
	struct tpmt_public pub;
	struct tpmt_sensitive sens;
	struct tpm2b_name name;
	struct tpm2b_name qualified_name;
	/* sequences: auth is sens.auth_value */
	struct crypto_hash_ctx hash;			/* HASH_SEQ */
	struct crypto_hmac_ctx hmac;			/* HMAC_SEQ */
	struct crypto_cmac_ctx cmac;			/* CMAC_SEQ */
	struct crypto_hash_ctx event[MAX_PCR_BANKS];	/* EVENT_SEQ, one per allocated bank */
	TPM_ALG_ID event_alg[MAX_PCR_BANKS];
	unsigned event_banks;
	bool seq_ticket_ok;	/* HASH_SEQ: no data began with TPM_GENERATED_VALUE */
	uint8_t seq_first[4];	/* first bytes seen, to decide the above */
	uint8_t seq_first_len;
	struct sig_seq sig;	/* SIGN_SEQ, VERIFY_SEQ */
	/* ML-DSA kinds: tr = H(pk) of FIPS 204, made at the key's first use (key_material.h) */
	uint8_t mldsa_tr[MLDSA_TR_BYTES];
	bool mldsa_tr_known;
	/* The forms built from a key's private part (key_material.h), shared by reference with
	 * the computations that use them; valid only while forms_owner == this object: a struct
	 * copy of the object (EvictControl, ContextLoad) neither uses nor frees the original's. */
	struct key_forms *forms;
	const struct object *forms_owner;
};

/* ---- clients: a connection; owns its transient objects and sessions ---- */
struct session; /* session.h */

struct pqtpm_client {
	struct pqtpm_engine *e;
	/* held through each of its commands (taken before the engine lock): one command of a
	 * client at a time, also while its computation runs without the engine lock (compute.h) */
	pthread_mutex_t lock;
	struct object *objects[MAX_CLIENT_OBJECTS];
	struct session *sessions[MAX_CLIENT_SESSIONS];
	uint32_t next_handle;	/* low 24 bits of the next transient handle to try */
	struct pqtpm_client *next, *prev;
};

/* ---- hierarchies ---- */
enum hier_index { HIER_PLATFORM, HIER_OWNER, HIER_ENDORSEMENT, HIER_NULL, HIER_LOCKOUT, HIER_COUNT };

struct hierarchy {
	struct tpm2b_digest auth;
	struct tpm2b_digest policy;
	TPM_ALG_ID policy_alg;
	uint8_t seed[PRIMARY_SEED_SIZE];	/* not for LOCKOUT */
	uint8_t proof[PRIMARY_SEED_SIZE];	/* ticket HMAC key (Part 1: proof values) */
};

/* Dictionary-attack state (da.c, Part 1 §19.8). Times are Clock values in ms. The three
 * parameters hold the defaults until DictionaryAttackParameters sets them (params_set). */
struct da_state {
	uint32_t failed_tries;
	bool params_set;
	uint32_t max_tries;
	uint32_t recovery_time;		/* s */
	uint32_t lockout_recovery;	/* s */
	uint64_t heal_from;		/* failedTries drops by one each recoveryTime after this */
	bool lockout_locked;		/* a lockoutAuth failure: refused until it recovers */
	uint64_t lockout_from;		/* when it failed */
	uint64_t lockout_boot;		/* resetCount:restartCount then (lockoutRecovery 0) */
};

/* PCRs 0-15 as Shutdown(STATE) saved them, for Startup(STATE) in a later process (startup.c) */
#define PCR_SAVED_NUM 16
struct pcr_saved {
	uint8_t nbanks;				/* 0: nothing saved */
	TPM_ALG_ID alg[MAX_PCR_BANKS];
	uint8_t value[MAX_PCR_BANKS][PCR_SAVED_NUM][MAX_DIGEST_SIZE];
};

/* The commit state of the anonymous and two-phase schemes (commit.c): a nonce made on first
 * use, the next count, and which of the last COMMIT_SLOTS counts are still outstanding. */
#define COMMIT_SLOTS 128
struct commit_state {
	bool nonce_set;
	uint8_t nonce[32];
	uint64_t counter;
	uint8_t pending[COMMIT_SLOTS / 8];
};

/* The state-reset and state-clear data as Shutdown(STATE) saved them, for a TPM Restart or
 * Resume in a process that never had the TPM's RAM (a host reboot in between; startup.c). */
struct ram_saved {
	bool valid;				/* 0: nothing saved */
	struct tpm2b_digest cmd_audit_digest;
	struct commit_state commit;
	struct tpm2b_digest pcr_group_auth;
};

struct nv_store; /* nv/nv.h */
struct session_resume; /* session.h */
struct nv_ram;
struct nv_index;

/* Command audit (cmd/command_audit.c, Part 1 "Command Audit"): the audit hash, the counter of
 * audit sequences and the commands audited besides SetCommandCodeAuditStatus, which always is.
 * Persistent (the reference implementation's gp.auditHashAlg, auditCounter, auditCommands):
 * in the state file. The digest itself is state-reset data, in the engine (cmd_audit_digest). */
#define CMD_AUDIT_MAX 128
struct command_audit {
	TPM_ALG_ID alg;			/* TPM_ALG_ERROR (0) until set: SHA-512, as libtpms */
	uint64_t counter;
	uint16_t n;
	TPM_CC list[CMD_AUDIT_MAX];	/* sorted */
};

/* Physical presence (cmd/pp.c): the commands that require it when the platform authorizes
 * them, besides PP_Commands, which always does (sorted; persistent, in the state file). */
#define PP_LIST_MAX 32
struct pp_list {
	uint16_t n;
	TPM_CC list[PP_LIST_MAX];
};

/* ---- persistent state: everything in the state file ---- */
struct persist {
	/* the platform's settings (state/codec.c's "PLAT" section) */
	struct command_audit audit;		/* cmd/command_audit.c */
	struct pp_list pp;			/* PP_Commands (cmd/pp.c) */
	uint32_t algorithm_set;			/* SetAlgorithmSet, TPM_PT_ALGORITHM_SET */
	struct tpm2b_digest pcr_group_policy;	/* PCR_SetAuthPolicy of the group 20-22 */
	TPM_ALG_ID pcr_group_policy_alg;
	struct hierarchy hier[HIER_COUNT];	/* NULL's seed/auth are not saved */
	bool disable_clear;
	bool ph_enable_nv;			/* kept here though it's STCLEAR-ish; see startup.c */
	uint32_t pcr_banks;			/* PQTPM_BANK_* allocated (takes effect at reset) */
	uint32_t pcr_banks_pending;		/* PCR_Allocate result, applied at next Startup */
	uint64_t clock;				/* ms, saved on each commit */
	uint32_t reset_count;
	uint32_t restart_count;
	bool orderly;				/* last shutdown was orderly */
	bool saved_state_valid;			/* Shutdown(STATE) saved what Startup(STATE) needs */
	uint64_t context_epoch;			/* random per reset: binds saved contexts */
	struct da_state da;			/* dictionary-attack counters (da.c) */
	struct object *persistent[MAX_PERSISTENT_OBJECTS];
	uint64_t generation;			/* bumped on each write, for other processes */
	bool clock_safe;			/* TPMS_CLOCK_INFO.safe */
	struct pcr_saved pcr_saved;		/* by Shutdown(STATE) */
	struct ram_saved ram_saved;		/* by Shutdown(STATE) */
	struct nv_store *nv;			/* NV indices (nv/nv.h); never NULL in an engine */
	struct session_resume *resume;		/* Shutdown(STATE)'s saved sessions (session.h) */
};

/* Which version of the state file this process has in memory (state/file.c). */
struct state_file_id {
	bool known;
	uint64_t dev, ino, size;
	int64_t mtime_ns, ctime_ns;
};

struct pcr_bank {
	TPM_ALG_ID alg;
	uint8_t value[PCR_NUM][MAX_DIGEST_SIZE];
};

struct txn;	      /* txn.h */
struct volatile_file; /* state/volatile.c */
struct serve;	      /* state/serve.c */

struct pqtpm_engine {
	pthread_mutex_t lock;
	char *state_dir;		/* NULL: no persistence */
	enum pqtpm_log_level log_level;
	enum pqtpm_capabilities capabilities;	/* cmd/capability.c's lists, nv_index_max() */

	bool powered;
	bool started;			/* Startup done since power on */
	bool nv_available;
	bool phys_presence;
	bool cancel;
	bool ph_enable, sh_enable, eh_enable; /* TPMA_STARTUP_CLEAR */
	bool self_tested;
	bool self_test_failed;		/* a self test failed: failure mode (cmd/testing.c) */

	struct persist ps;
	struct txn *txn;		/* the command's transaction (txn.h), NULL between commands */
	struct nv_store *nv_spare;	/* memory the transaction copies the NV store into */
	struct nv_ram *nv_ram;		/* orderly counters ahead of the store (nv/orderly.c) */
	bool state_lock_open;		/* state_lock_fd is <state_dir>/pqtpm.lock, open */
	bool state_locked;		/* a command holds the lock through it (state/file.c) */
	int state_lock_fd;
	int state_lock_pid;		/* the process that opened it (a forked child reopens) */
	struct state_file_id state_id;	/* the state file ps was loaded from or saved to */
	uint64_t *state_seq;		/* <state_dir>/pqtpm.seq mapped shared: bumped by writers */
	uint64_t state_seq_seen;	/* its value when ps was last loaded or saved */
	bool state_seq_known;		/* state_seq_seen is that value */
	uint64_t state_loads;		/* times ps was read from the file (a new seed maybe) */
	/* The one process that runs the engine on state_dir (state/owner.c): an OFD lock on
	 * pqtpm.lock, its socket pqtpm.sock served from a thread (state/serve.c), and the
	 * volatile state written to pqtpm.volatile before each answer (state/volatile.c). */
	bool owner_locked;
	int owner_fd;
	struct volatile_file *vol;
#ifdef PQTPM_CHECK_STATE
	struct volatile_file *vol_check; /* check builds without a state directory (volatile.c) */
#endif
	struct serve *serve;
	uint8_t null_seed[PRIMARY_SEED_SIZE];
	uint8_t null_proof[PRIMARY_SEED_SIZE];
	struct primary_cache *primary_cache;	/* RSA, ECC primaries made lately (object/primary.c) */

	struct pcr_bank banks[MAX_PCR_BANKS];
	unsigned nbanks;
	uint32_t pcr_update_counter;
	uint8_t startup_locality;	/* of the last Startup: PCR 0's reset value (pcr.c) */
	/* The authValue of the PCR group 20-22 (cmd/pcr_auth.c): state-clear data, EmptyAuth
	 * again at Startup(CLEAR), kept in pqtpm.volatile (its policy is in ps). */
	struct tpm2b_digest pcr_group_auth;

	uint64_t clock_base_ms;		/* monotonic ms of the last clock sync */
	uint64_t power_on_ms;		/* monotonic ms at the last power on (TPMS_TIME_INFO.time) */
	int32_t clock_ppm;		/* ClockRateAdjust: Clock runs (1e6 + ppm) / 1e6 as fast */
	uint64_t context_counter;	/* TPMS_CONTEXT.sequence for objects */

	/* H-CRTM sequence (platform port hash signals) */
	bool hcrtm_active;
	bool hcrtm_pre_startup;		/* ended before Startup: measured into PCR 0 then */
	struct crypto_hash_ctx hcrtm[MAX_PCR_BANKS];

	struct pqtpm_client *clients;
	unsigned nclients;
	uint64_t power_epoch;		/* power losses so far: compute.h's commands notice one */
	unsigned computing;		/* commands between cmd_unlock and cmd_relock (atomic) */

	/* Sessions live on when context-saved: a saved session belongs to no client until a
	 * ContextLoad, so tools may save it in one connection and load it in the next. */
	struct session *saved_sessions[MAX_SAVED_SESSIONS];
	uint32_t next_session;	/* low 24 bits of the next session handle to try */
	/* The exclusive audit session (auth.c), 0 if none: engine-wide, since any client's
	 * command that it does not audit ends its exclusivity. */
	TPM_HANDLE exclusive_audit;
	/* State-reset data (cleared or made anew at a TPM Reset only, kept in pqtpm.volatile):
	 * the command audit digest (size 0: clear, the next audited command starts a new
	 * sequence) and the commit state. */
	struct tpm2b_digest cmd_audit_digest;
	struct commit_state commit;
	bool volatile_changed;	/* volatile_dirty since pqtpm.volatile was last written */
};

/* ---- command context ---- */
enum auth_role { AUTH_NONE = 0, AUTH_USER, AUTH_ADMIN, AUTH_DUP };

/* handle kinds a command accepts in a handle slot (bit set) */
#define HK_TRANSIENT 0x01u
#define HK_PERSISTENT 0x02u
#define HK_OBJECT (HK_TRANSIENT | HK_PERSISTENT)
#define HK_PCR 0x04u
#define HK_NV 0x08u
#define HK_SESSION 0x10u
#define HK_OWNER 0x20u	     /* TPM_RH_OWNER */
#define HK_ENDORSEMENT 0x40u /* TPM_RH_ENDORSEMENT */
#define HK_PLATFORM 0x80u    /* TPM_RH_PLATFORM */
#define HK_NULL 0x100u	     /* TPM_RH_NULL */
#define HK_LOCKOUT 0x200u    /* TPM_RH_LOCKOUT */
#define HK_HIERARCHY (HK_OWNER | HK_ENDORSEMENT | HK_PLATFORM)
#define HK_ANY 0x3FFu

/* cmd_def.flags */
#define CMD_PARAM_IN 0x01u   /* first command parameter is a TPM2B that may be encrypted */
#define CMD_PARAM_OUT 0x02u  /* first response parameter is a TPM2B that may be encrypted */
#define CMD_RHANDLE 0x04u    /* the response carries a handle */
#define CMD_NO_STARTUP 0x08u /* valid before Startup (Startup itself) */
#define CMD_PP 0x10u	     /* physical presence may be required (PP_Commands list) */
#define CMD_NO_SESSIONS 0x20u /* takes no sessions: leaves the exclusive audit session as is */
#define CMD_READS_STATE 0x40u /* only reads the persistent state (the rule: dispatch.c) */
#define CMD_LOCKED 0x80u     /* signs under the engine lock where others would not (compute.h) */

struct cmd;
struct cmd_def {
	TPM_CC code;
	const char *name;
	uint8_t handles;		/* handles in the command's handle area */
	uint8_t auth[3];		/* auth role per handle */
	uint16_t htype[3];		/* HK_* accepted per handle */
	uint16_t flags;
	TPM_RC (*run)(struct cmd *c);
};

struct cmd {
	struct pqtpm_engine *e;
	struct pqtpm_client *client;
	const struct cmd_def *def;
	uint8_t locality;
	uint16_t tag;			/* TPM_ST_SESSIONS / NO_SESSIONS */
	TPM_HANDLE handle[3];		/* as sent */
	struct object *obj[3];		/* resolved objects, NULL for other handle kinds */
	struct nv_index *nv[3];		/* resolved NV indices (nv/nv.h), NULL for others */
	struct rd in;			/* parameters */
	struct wr out;			/* response parameters */
	TPM_HANDLE rsp_handle;		/* for CMD_RHANDLE */
	const uint8_t *cp_start;	/* parameter area, for cpHash (sessions issue) */
	size_t cp_len;
	struct txn *txn;		/* the command's transaction (txn.h) */
	/* between cmd_unlock and cmd_relock (compute.h): the power cycle count then and the
	 * Names of the objects the handles named, to find them again */
	uint64_t epoch;
	struct tpm2b_name held[3];
	bool unlocked;			/* cmd_unlock_key let the lock go */
	/* command audit: whether this command is audited, and its handles' names as they were
	 * before it ran, for its cpHash afterwards (cmd/command_audit.c) */
	bool audited;
	struct tpm2b_name audit_names[3];
	bool audit_new_sequence;	/* cmd_audit_count started one: the digest from zeros */
};

/* Every handler calls this once it has read its last parameter and before it does anything:
 * bytes left over are TPM_RC_SIZE (Part 3 §5.2), plain as no one parameter is at fault, and a
 * refused command must leave nothing changed (dispatch checks again, after the handler). */
static inline TPM_RC cmd_params_done(const struct cmd *c)
{
	return rd_left(&c->in) != 0 ? TPM_RC_SIZE : TPM_RC_SUCCESS;
}

/* ---- the command table (cmd/table.c); each family file exports a 0-terminated array ---- */
const struct cmd_def *cmd_lookup(TPM_CC code);
size_t cmd_count(void);
const struct cmd_def *cmd_at(size_t i); /* sorted by code, for GetCapability(COMMANDS) */
/* Command audit, the two hooks dispatch calls: before the handler runs (whether the command
 * is audited; its names), and once its response parameters are final, as sent (the audit
 * digest extended with its cpHash and rpHash, a new sequence counted if it was clear). */
TPM_RC cmd_audit_before(struct cmd *c);
TPM_RC cmd_audit_after(struct cmd *c, const uint8_t *rsp_params, size_t rsp_len);
/* Whether the command, audited and the digest clear, would count a new sequence: the
 * persistent counter changes, so it must run locked (dispatch, before the handler). */
bool cmd_audit_counts(const struct cmd *c);
/* After the handler succeeded, inside its transaction: a new sequence counted (in ps). */
void cmd_audit_count(struct cmd *c);
/* The commands that require physical presence from `from` on, ascending; the count written. */
size_t cmd_pp_commands(const struct pqtpm_engine *e, TPM_CC from, TPM_CC *out, size_t max);
/* TPM_PT_AUDIT_COUNTER_0/1, and the audited commands from `from` on, ascending, at most max
 * (GetCapability); the count written. */
uint64_t cmd_audit_counter(const struct pqtpm_engine *e);
size_t cmd_audit_commands(struct pqtpm_engine *e, TPM_CC from, TPM_CC *out, size_t max);
/* An algorithm GetCapability(TPM_CAP_ALGS) lists (cmd/capability.c). */
bool alg_implemented(TPM_ALG_ID alg);

/* ---- engine services for handlers (engine.c, object_table.c, hierarchy.c) ---- */
/* Transient object slots of the client; the object gets the next free transient handle. */
TPM_RC object_alloc(struct pqtpm_client *cl, enum object_kind kind, struct object **out);
void object_release(struct pqtpm_client *cl, struct object *o); /* wipes and frees */
struct object *object_find(struct pqtpm_client *cl, TPM_HANDLE h); /* transient or persistent */
void object_wipe_free(struct object *o);
/* Let go of what an object owns outside itself (key_material.c: the built forms of its key). */
void object_free_caches(struct object *o);
unsigned object_count_loaded(struct pqtpm_engine *e);
/* The RSA primaries kept for CreatePrimary (object/primary.c): sweep drops (wiping) those
 * whose hierarchy seed changed; free drops them all (the engine goes). */
void primary_cache_sweep(struct pqtpm_engine *e);
void primary_cache_free(struct pqtpm_engine *e);
unsigned primary_cache_count(const struct pqtpm_engine *e); /* entries kept (tests) */

int hier_index(TPM_HANDLE h); /* HIER_* or -1 */
bool hier_enabled(struct pqtpm_engine *e, TPM_HANDLE h);
struct hierarchy *hier_get(struct pqtpm_engine *e, TPM_HANDLE h);
const uint8_t *hier_seed(struct pqtpm_engine *e, TPM_HANDLE h);	 /* NULL if none */
const uint8_t *hier_proof(struct pqtpm_engine *e, TPM_HANDLE h); /* NULL if none */

/* The authValue of an entity (object, hierarchy, PCR); NULL entity → empty. */
TPM_RC entity_auth(struct cmd *c, unsigned slot, struct tpm2b_digest *auth);

/* Mark persistent state changed: the command's transaction saves it before the response
 * leaves (txn.c). */
void engine_dirty(struct pqtpm_engine *e);

/* Mark the volatile state changed: a field that pqtpm.volatile holds (state/volatile_codec.c:
 * the power and startup flags, the PCRs, the NULL hierarchy, saved sessions, orderly counters,
 * the command audit digest, the commit state, the context and session counters ...). The
 * command's end writes the file before the answer (txn_end), and skips the encoding when
 * nothing was marked: a change without the mark would reach the file only with the next one.
 * Check builds (SAN=1) stop at the first command that changed it unmarked (state/volatile.c). */
static inline void volatile_dirty(struct pqtpm_engine *e)
{
	e->volatile_changed = true;
}

/* Run one command (dispatch.c). Always writes a response. */
size_t dispatch(struct pqtpm_client *cl, uint8_t locality, const uint8_t *cmd, size_t len,
		uint8_t *rsp, size_t cap);

#endif
