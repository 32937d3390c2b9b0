/* Private to core/state: the state body codec, shared by the file code and the tests. */
#ifndef PQTPM_STATE_INT_H
#define PQTPM_STATE_INT_H

#include "engine_int.h"
#include "nv/nv.h"
#include "session.h"

/* Largest body we write or accept: the fixed part, MAX_PERSISTENT_OBJECTS objects with the
 * largest public area (ML-DSA-87), sensitive area and qualified name, the saved PCRs and the
 * NV store (every index's public area and authValue, all of NV_SPACE). */
#define STATE_MAX_OBJECT_BYTES 4096u
#define STATE_MAX_PCR_BYTES (1u + MAX_PCR_BANKS * (2u + PCR_SAVED_NUM * MAX_DIGEST_SIZE))
#define STATE_MAX_NV_INDEX_BYTES (4u + 2u + 4u + 2u + MAX_DIGEST_SIZE + 2u + 2u + MAX_DIGEST_SIZE)
#define STATE_MAX_NV_BYTES (8u + 2u + NV_MAX_INDICES * STATE_MAX_NV_INDEX_BYTES + NV_SPACE)
/* the saved sessions of a Shutdown(STATE): a session is 577 bytes at most */
#define STATE_MAX_SESSION_BYTES 640u
#define STATE_MAX_RESUME_BYTES (4u + 2u * PRIMARY_SEED_SIZE + 8u + 4u + 2u + \
				MAX_SAVED_SESSIONS * STATE_MAX_SESSION_BYTES)
/* the platform's settings: tag, audit hash and counter, the two command lists, the algorithm
 * set, the PCR policy */
#define STATE_MAX_PLATFORM_BYTES (4u + 2u + 8u + 2u + CMD_AUDIT_MAX * 4u + 2u + \
				  PP_LIST_MAX * 4u + 4u + 2u + 2u + MAX_DIGEST_SIZE)
/* Shutdown(STATE)'s reset and clear data: tag, two digests, the commit state */
#define STATE_MAX_RAM_BYTES (4u + 2u * (2u + MAX_DIGEST_SIZE) + 1u + 32u + 8u + COMMIT_SLOTS / 8u)
#define STATE_MAX_BODY (4096u + MAX_PERSISTENT_OBJECTS * STATE_MAX_OBJECT_BYTES + \
			STATE_MAX_PCR_BYTES + STATE_MAX_NV_BYTES + STATE_MAX_PLATFORM_BYTES + \
			STATE_MAX_RAM_BYTES + STATE_MAX_RESUME_BYTES)

/* Marshal ps into w, with generation in place of ps->generation. */
TPM_RC state_encode(const struct persist *ps, uint64_t generation, struct wr *w);

/* Parse a body of a file of this version into ps (zeroed first; persistent objects and the
 * NV store allocated). On failure ps holds nothing to free, and what describes the problem
 * ("bad value", "too many objects" ...) for the message; r->off says where. */
TPM_RC state_decode(struct rd *r, struct persist *ps, uint32_t version, const char **what);

/* Pieces of the body shared with the volatile file (volatile_codec.c): a session as the saved
 * sessions section writes it (with its audit state), a boolean 0 or 1. */
TPM_RC state_encode_session(struct wr *w, const struct session *s);
TPM_RC state_decode_session(struct rd *r, struct session *s, bool with_audit, const char **what);
TPM_RC state_decode_bool(struct rd *r, bool *v, const char **what);
/* The engine's state-reset and state-clear data (the audit digest, the commit state, the PCR
 * group's authValue): in the volatile file, and saved by Shutdown(STATE). */
TPM_RC state_encode_ram(struct wr *w, const struct tpm2b_digest *audit,
			const struct commit_state *commit, const struct tpm2b_digest *pcr_auth);
TPM_RC state_decode_ram(struct rd *r, struct tpm2b_digest *audit, struct commit_state *commit,
			struct tpm2b_digest *pcr_auth, const char **what);

/* The volatile state of a running TPM (state/volatile.c), as volatile_decode reads it. */
#define VOLATILE_BOOT_ID_SIZE 16
struct vstate {
	uint8_t boot_id[VOLATILE_BOOT_ID_SIZE];
	bool clean;
	bool powered, started, nv_available, phys_presence;
	bool ph_enable, sh_enable, eh_enable;
	bool self_tested, self_test_failed, hcrtm_pre_startup;
	uint8_t startup_locality;
	uint64_t power_on_ms;
	int32_t clock_ppm;
	uint64_t context_counter;
	uint32_t pcr_update_counter;
	uint8_t null_seed[PRIMARY_SEED_SIZE];
	uint8_t null_proof[PRIMARY_SEED_SIZE];
	uint32_t next_session;
	TPM_HANDLE exclusive_audit;
	unsigned nbanks;
	struct pcr_bank banks[MAX_PCR_BANKS];
	unsigned nram;
	TPM_HANDLE ram_handle[NV_MAX_INDICES];
	uint64_t ram_value[NV_MAX_INDICES];
	unsigned nsessions;
	struct session sessions[MAX_SAVED_SESSIONS];
	struct tpm2b_digest cmd_audit_digest;
	struct commit_state commit;
	struct tpm2b_digest pcr_group_auth;
};
/* the fixed fields (with the audit digest, the commit state and the PCR group's authValue),
 * the PCR banks, the orderly counters, the saved sessions */
#define VOLATILE_MAX_BODY (512u + 2u * (2u + MAX_DIGEST_SIZE) + \
			   MAX_PCR_BANKS * (2u + PCR_NUM * MAX_DIGEST_SIZE) + \
			   NV_MAX_INDICES * 12u + MAX_SAVED_SESSIONS * STATE_MAX_SESSION_BYTES)
/* The engine's volatile state, with the host's boot id and whether the engine is closing. */
TPM_RC volatile_encode(const struct pqtpm_engine *e, const uint8_t *boot_id, bool clean,
		       struct wr *w);
/* Parse a body into v (zeroed first); what describes a failure. */
TPM_RC volatile_decode(struct rd *r, struct vstate *v, const char **what);

/* Free (wiping) the persistent objects of ps and clear their slots. */
void state_free_objects(struct persist *ps);

/* "<dir>/<name>" into buf; -ENAMETOOLONG if it does not fit. */
int state_path(char *buf, size_t cap, const char *dir, const char *name);

/* flock(<dir>/pqtpm.lock), shared or exclusive: returns the descriptor to pass to
 * state_unlock, or a negative errno. */
int state_lock(const char *dir, bool exclusive);
void state_unlock(int fd);

#endif
