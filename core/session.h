/* Authorization sessions (Part 1 §19-21): the session table of a client, session keys,
 * HMACs and parameter encryption. What a session authorizes is decided in auth.c. */
#ifndef PQTPM_SESSION_H
#define PQTPM_SESSION_H

#include "engine_int.h"

struct session {
	TPM_HANDLE handle;		/* 0x02xxxxxx HMAC, 0x03xxxxxx policy/trial */
	uint8_t type;			/* TPM_SE_HMAC, TPM_SE_POLICY, TPM_SE_TRIAL */
	TPM_ALG_ID auth_hash;
	struct tpmt_sym_def sym;	/* parameter encryption: AES-CFB, XOR or NULL */
	struct tpm2b_digest session_key;
	struct tpm2b_digest nonce_tpm;
	bool bound;
	struct tpm2b_name bind_name;	/* the entity the session is bound to */
	struct tpm2b_digest bind_auth;	/* its authValue when the session started */
	bool da_bound;			/* an HMAC session bound to a DA-protected entity (da.c) */
	bool lockout_bound;		/* ... to lockoutAuth */
	/* policy state (Part 1 §19.7) */
	struct tpm2b_digest policy_digest;
	bool need_auth_value;		/* PolicyAuthValue */
	bool need_password;		/* PolicyPassword */
	TPM_CC command_code;		/* PolicyCommandCode; 0 = any */
	struct tpm2b_digest cp_hash;	/* PolicyCpHash / PolicySecret cpHashA */
	struct tpm2b_digest name_hash;	/* PolicyNameHash */
	uint8_t locality;		/* PolicyLocality mask; 0 = any */
	bool pcr_counter_set;		/* PolicyPCR: the update counter it saw */
	uint32_t pcr_counter;
	bool need_pp;			/* PolicyPhysicalPresence */
	struct tpm2b_digest template_hash; /* PolicyTemplate */
	uint64_t timeout;		/* PolicySigned/Secret/Ticket: expiry in Clock ms; 0 = none */
	bool check_nv_written;		/* PolicyNvWritten: the entity must be an NV index ... */
	bool nv_written_state;		/* ... whose TPMA_NV_WRITTEN is this */
	uint64_t saved_sequence;	/* of its context, while saved */
	/* session audit (auth.c): an HMAC session becomes an audit session at its first use with
	 * TPMA_SESSION_AUDIT; audit_digest = H(old || cpHash || rpHash) of every command it
	 * audited since then or its last auditReset */
	bool is_audit;
	struct tpm2b_digest audit_digest;
	/* state/codec.c writes every field above (the saved sessions of a Shutdown(STATE)): a
	 * field added here goes there too */
};

/* What Shutdown(STATE) keeps for a TPM Restart or Resume, in this process or, through the
 * state file, in a later one (Part 1 §30: saved session contexts stay loadable; only a TPM
 * Reset ends them): copies of the saved sessions and what their context blobs depend on, the
 * NULL hierarchy's seed and proof and the context counter (its sequence numbers must not come
 * again, or an old blob would pass the replay check), and the PCR update counter (PolicyPCR
 * of a restored session sees the PCRs as changed). Owned by e->ps.resume; written with the
 * state while ps.saved_state_valid (a Shutdown(STATE) not yet followed by a Startup). */
struct session_resume {
	uint8_t null_seed[PRIMARY_SEED_SIZE];
	uint8_t null_proof[PRIMARY_SEED_SIZE];
	uint64_t context_counter;
	uint32_t pcr_update_counter;
	unsigned count;
	struct session sessions[MAX_SAVED_SESSIONS];
};

struct session *session_find(struct pqtpm_client *cl, TPM_HANDLE h);
TPM_RC session_alloc(struct pqtpm_client *cl, uint8_t type, struct session **out);
/* A loaded session of any client or a saved one has this handle. */
bool session_handle_in_use(struct pqtpm_engine *e, TPM_HANDLE h);
void session_release(struct pqtpm_client *cl, struct session *s);
void session_release_all(struct pqtpm_client *cl);
/* Saved sessions die at TPM Reset (Part 1 §30). */
void session_drop_saved(struct pqtpm_engine *e);
/* Shutdown(STATE): the saved sessions and their keys into e->ps.resume (session_context.c).
 * Out of memory, nothing is kept (logged): the contexts will not load after a restart. */
void session_resume_capture(struct pqtpm_engine *e);
/* Startup after Shutdown(STATE) (TPM Restart or Resume): the NULL hierarchy and context
 * counter of the Shutdown, and its saved sessions that are not there (a new process has
 * none). Without a capture (a state file of an older pqtpm) a process that has no NULL
 * hierarchy yet makes one. */
TPM_RC session_resume_restore(struct pqtpm_engine *e);
/* After the PCRs of a Restart or Resume are set: the PCR update counter moves past what any
 * saved session recorded, so that their PolicyPCR no longer holds. */
void session_resume_pcr_counter(struct pqtpm_engine *e);
void session_resume_free(struct session_resume *r); /* wipes */
/* Flush a loaded session of this client or any saved session; false if there is none. */
bool session_flush(struct pqtpm_client *cl, TPM_HANDLE h);

/* ContextSave and ContextLoad of sessions (cmd/context.c): saving moves the session out of
 * the client into the engine's saved list; loading moves it into the loading client. */
TPM_RC session_context_save(struct cmd *c, TPM_HANDLE h, struct tpms_context *ctx);
TPM_RC session_context_load(struct cmd *c, const struct tpms_context *ctx, TPM_HANDLE *h);
unsigned session_count(struct pqtpm_engine *e);
void session_policy_reset(struct session *s);

/* Name of the entity a handle slot names: an object's name, else the handle (Part 1 §16). */
TPM_RC entity_name(struct cmd *c, unsigned slot, struct tpm2b_name *out);

/* cpHash = H(commandCode || names || parameters) as sent (Part 1 §18.7). */
TPM_RC session_cp_hash(struct cmd *c, TPM_ALG_ID hash, TPM_CC cc, const uint8_t *params,
		       size_t plen, struct tpm2b_digest *out);
/* rpHash = H(responseCode || commandCode || parameters) (Part 1 §18.8). */
TPM_RC session_rp_hash(TPM_ALG_ID hash, TPM_CC cc, const uint8_t *params, size_t plen,
		       struct tpm2b_digest *out);

/* HMAC(sessionKey || authValue, pHash || nonceNewer || nonceOlder [|| nonceDecrypt]
 * [|| nonceEncrypt] || sessionAttributes) (Part 1 §19.6.5). extra may hold 0-2 nonces. */
TPM_RC session_hmac(const struct session *s, const struct tpm2b_digest *auth,
		    const struct tpm2b_digest *p_hash, const struct tpm2b_digest *newer,
		    const struct tpm2b_digest *older, const struct tpm2b_digest *const *extra,
		    unsigned nextra, uint8_t attrs, struct tpm2b_digest *out);

/* Parameter encryption of a first TPM2B parameter's content (Part 1 §21):
 * AES-CFB with key/IV from KDFa(authHash, sessionKey || authValue, "CFB", newer, older) or
 * XOR with a KDFa mask. For commands newer = nonceCaller, older = nonceTPM; for responses
 * the reverse. */
TPM_RC session_crypt(const struct session *s, const struct tpm2b_digest *auth, bool encrypt,
		     const struct tpm2b_digest *newer, const struct tpm2b_digest *older,
		     uint8_t *data, size_t len);

/* Session key (Part 1 §19.6.8): KDFa(authHash, bindAuth || salt, "ATH", nonceTPM,
 * nonceCaller, digest bits); empty when neither bind nor salt is given. */
TPM_RC session_make_key(struct session *s, const struct tpm2b_digest *bind_auth,
			const uint8_t *salt, size_t salt_len, const struct tpm2b_digest *nonce_caller);

#endif
