/* Inside the client library: a connection (transport + buffers) and the builder every command
 * file uses. The bounded reader/writer of core/marshal.h does all the byte work. */
#ifndef PQTPM_TSS_INT_H
#define PQTPM_TSS_INT_H

#include <pthread.h>
#include <stdbool.h>

#include <pqtpm/tss.h>

#include "marshal.h"

#define TSS_BUF 8192 /* PQTPM_MAX_COMMAND_SIZE / PQTPM_MAX_RESPONSE_SIZE */

struct tss_transport {
	/* 0, or a negative errno; rsp_len set on success */
	int (*transmit)(void *ctx, const uint8_t *cmd, size_t len, uint8_t *rsp, size_t cap,
			size_t *rsp_len);
	int (*power_on)(void *ctx);
	void (*close)(void *ctx);
	/* In a forked child: release what this process holds (its descriptors, its memory)
	 * without a word to the TPM, which the parent still talks to. NULL: nothing. */
	void (*forget)(void *ctx);
};

struct pqtpm_tss {
	const struct tss_transport *ops;
	void *ctx;
	pthread_mutex_t lock;	/* one command at a time: it guards cmd, rsp, the transport */
	unsigned fork_gen;	/* the fork count (tss.c) when opened: higher in a forked child */
	uint8_t cmd[TSS_BUF];
	uint8_t rsp[TSS_BUF];
	size_t rsp_len;
	/* sessions: Names of transient objects seen in responses (names.c) */
	struct tss_name_slot {
		TPM_HANDLE handle; /* 0: free */
		struct pqtpm_tss_name name;
	} names[16];
	unsigned names_next;
};

/* transport_engine.c, transport_mssim.c, transport_device.c, transport_swtpm.c: 0 or a
 * negative errno */
int tss_engine_transport(struct pqtpm_engine *e, const struct tss_transport **ops, void **ctx);
int tss_mssim_transport(const char *host, unsigned port, const struct tss_transport **ops,
			void **ctx);
int tss_device_transport(const char *path, const struct tss_transport **ops, void **ctx);
/* swtpm's server port `port` (raw TPM commands) and its control port `port + 1`. */
int tss_swtpm_transport(const char *host, unsigned port, const struct tss_transport **ops,
			void **ctx);
/* tcti.c: a transport string ("mssim:host=H,port=P", "device:PATH" ...) opened */
int tss_tcti_open(const char *conf, const struct tss_transport **ops, void **ctx);

/* log.c: a message to the callback of pqtpm_tss_set_log, if any */
void tss_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* tss.c: count forks from now on (idempotent; done before the first handle or engine of the
 * process exists). transport_embedded.c: in a forked child, forget the parent's engines. */
void tss_fork_watch(void);
void tss_embedded_forked(void);

/* tss.c: take the handle for one command (PQTPM_TSS_RC_FORKED in a forked child, which must
 * not touch its parent's connection), release it; the transmit of a taken handle. */
TPM_RC tss_lock(struct pqtpm_tss *t);
void tss_unlock(struct pqtpm_tss *t);
TPM_RC tss_transmit_locked(struct pqtpm_tss *t, const uint8_t *cmd, size_t len, uint8_t *rsp,
			   size_t cap, size_t *rsp_len);

/* A command being built: handles, password authorizations, parameters. */
struct tss_cmd {
	struct pqtpm_tss *t;
	TPM_CC cc;
	TPM_HANDLE handle[3];
	unsigned nhandles;
	const char *auth[3];
	unsigned nauth;
	uint8_t params[TSS_BUF];
	struct wr p;
	int overflow;
	unsigned enc;		 /* TSS_ENC_IN / TSS_ENC_OUT (tss_param_enc) */
	const char *auth_after; /* tss_auth_changes */
};

void tss_begin(struct tss_cmd *c, struct pqtpm_tss *t, TPM_CC cc);
void tss_handle(struct tss_cmd *c, TPM_HANDLE h);
/* A password session (TPM_RS_PW) for the next authorized handle, or the authValue that a
 * session given with pqtpm_tss_use_sessions uses for it. Authorized handles come first, in
 * order (as in every command of Part 3). */
void tss_auth(struct tss_cmd *c, const char *password);
/* The command's first parameter (TSS_ENC_IN) and first response parameter (TSS_ENC_OUT) are
 * TPM2Bs that Part 3 allows a session to encrypt; set by each builder right after tss_begin. */
#define TSS_ENC_IN 1u
#define TSS_ENC_OUT 2u
void tss_param_enc(struct tss_cmd *c, unsigned flags);
/* The command changes the authValue of its first authorized handle to new_auth
 * (HierarchyChangeAuth, NV_ChangeAuth): the TPM keys the response HMAC with the new value. */
void tss_auth_changes(struct tss_cmd *c, const char *new_auth);
/* Parameter writers that remember an overflow (reported by tss_run as BAD_VALUE). */
void tss_u8(struct tss_cmd *c, uint8_t v);
void tss_u16(struct tss_cmd *c, uint16_t v);
void tss_u32(struct tss_cmd *c, uint32_t v);
void tss_bytes(struct tss_cmd *c, const void *b, size_t n);
void tss_tpm2b(struct tss_cmd *c, const void *b, size_t n);
void tss_tpm2b_str(struct tss_cmd *c, const char *s); /* NULL: empty */
/* Send; on success *rsp reads the response parameters and *rhandle (if not NULL) gets the
 * response handle (for commands that return one). */
TPM_RC tss_run(struct tss_cmd *c, struct rd *rsp, TPM_HANDLE *rhandle);

/* A bounded reader's failure (a response shorter than its fields) as the TSS layer's code. */
#define TRY_RD(expr)                                         \
	do {                                                 \
		if ((expr) != TPM_RC_SUCCESS)                \
			return PQTPM_TSS_RC_MALFORMED;       \
	} while (0)

/* Response readers: any failure is PQTPM_TSS_RC_MALFORMED. */
TPM_RC tss_rd_tpm2b(struct rd *r, uint8_t *buf, size_t max, uint16_t *size);
/* A TPMT_SIGNATURE / ticket / TPM2B_PUBLIC copied as marshalled (a NULL ticket: read past it,
 * for callers that do not want it). */
TPM_RC tss_rd_signature(struct rd *r, struct pqtpm_tss_signature *s);
TPM_RC tss_rd_ticket(struct rd *r, struct pqtpm_tss_ticket *t);
TPM_RC tss_rd_public(struct rd *r, struct pqtpm_tss_public *p);
/* A TPML_PCR_SELECTION of n banks (cmd_attest.c) */
void tss_pcr_selection(struct tss_cmd *c, const struct pqtpm_tss_pcr_select *sel, size_t n);
/* The response must have been read to its end. */
TPM_RC tss_rd_end(const struct rd *r);

/* ---- structures taken apart (structures.c, public_area.c) ---- */
struct tss_bytes { /* borrowed in place: valid while the bytes walked live */
	const uint8_t *b;
	uint16_t size;
};
/* A TPM2B's content, borrowed (PQTPM_TSS_RC_MALFORMED if it does not fit). */
TPM_RC tss_rd_view2b(struct rd *r, struct tss_bytes *out);
/* The digest size of a TPMT_HA (Part 2 TPMU_HA, the algorithm registry): known for every hash
 * a TPM may have, whether or not this library computes it; 0 for anything else. */
size_t tss_hash_size(TPM_ALG_ID alg);

struct tss_sym { /* TPMT_SYM_DEF_OBJECT; XOR: bits is its hash */
	TPM_ALG_ID alg, mode;
	uint16_t bits;
};
struct tss_scheme { /* any TPMT_*_SCHEME: hash, count (ECDAA), kdf (XOR) as it selects */
	TPM_ALG_ID scheme, hash, kdf;
	uint16_t count;
};
/* A TPMT_PUBLIC: the fields of its type are set, the others TPM_ALG_NULL or 0. */
struct tss_public {
	TPM_ALG_ID type, name_alg;
	uint32_t attributes;
	struct tss_bytes policy;
	struct tss_sym sym;	  /* RSA, ECC, SYMCIPHER, ML-KEM */
	struct tss_scheme scheme; /* RSA, ECC, KEYEDHASH */
	struct tss_scheme kdf;	  /* ECC */
	uint16_t rsa_bits, curve;
	uint32_t exponent;
	uint16_t parameter_set;	   /* ML-DSA, HashML-DSA, ML-KEM */
	uint8_t allow_external_mu; /* ML-DSA */
	TPM_ALG_ID pre_hash;	   /* HashML-DSA */
	struct tss_bytes unique;   /* ECC: x */
	struct tss_bytes unique_y; /* ECC: y */
};
/* Walk a marshalled TPMT_PUBLIC of len bytes, all of which it must be (tolerant of values,
 * strict about shape): TPM_RC_SUCCESS or PQTPM_TSS_RC_MALFORMED. */
TPM_RC tss_public_walk(const uint8_t *b, size_t len, struct tss_public *p);

/* ---- sessions (session.c, session_hmac.c, session_encrypt.c, salt.c, policy.c, names.c) ---- */
#define TSS_MAX_AUTH 64 /* an authValue: at most the largest digest */

struct pqtpm_tss_session {
	struct pqtpm_tss *t;
	TPM_HANDLE handle; /* 0 once the TPM has forgotten the session */
	uint8_t type;	   /* TPM_SE_* */
	uint8_t attrs;	   /* TPMA_SESSION_* for the next use */
	TPM_ALG_ID hash;
	uint16_t dsize;
	TPM_ALG_ID sym; /* TPM_ALG_NULL, _AES, _CAMELLIA, _TDES (CFB), _XOR */
	uint16_t sym_bits;
	struct pqtpm_tss_digest key, nonce_tpm, nonce_caller;
	bool bound;
	struct pqtpm_tss_name bind_name;
	struct pqtpm_tss_digest bind_auth;
	/* policy sessions: PolicyPassword / PolicyAuthValue were asserted (policy.c) */
	bool need_password, need_auth_value;
};

/* The sessions of one command, taken from the calling thread's pqtpm_tss_use_sessions. */
struct tss_use {
	struct pqtpm_tss_session *s[3];
	unsigned n;
	struct pqtpm_tss_digest auth[3]; /* the authorized entity's authValue, authorizing ones */
	bool authorizes[3], auth_in_hmac[3];
	int decrypt, encrypt; /* session index or -1 */
};

/* session.c: the thread's sessions for its next command on t (none: u->n == 0). */
void tss_use_take(struct pqtpm_tss *t, struct tss_use *u);
void tss_use_wipe(struct tss_use *u);
/* session_hmac.c: new nonceCaller, authValues and keys for command c (Names of its handles in
 * names); the authorization area for the parameters as sent. */
TPM_RC tss_use_prepare(struct tss_use *u, const struct tss_cmd *c,
		       const struct pqtpm_tss_name *names);
TPM_RC tss_use_write_area(struct tss_use *u, const struct tss_cmd *c,
			  const struct pqtpm_tss_name *names, const uint8_t *params, size_t plen,
			  struct wr *w);
/* The response's authorization area (one entry per command entry) against params as
 * received: response HMACs checked (PQTPM_TSS_RC_RESPONSE_HMAC), nonces rolled, ended
 * sessions marked. */
TPM_RC tss_use_check_area(struct tss_use *u, const struct tss_cmd *c, const uint8_t *params,
			  size_t plen, struct rd *area);
/* session_hmac.c too: a password as an authValue (at most TSS_MAX_AUTH bytes; NULL: empty);
 * sessionKey || authValue (auth NULL: none), the HMAC and encryption key, into key (at least
 * 2 * 64 + TSS_MAX_AUTH bytes). */
TPM_RC tss_auth_value(struct pqtpm_tss_digest *d, const char *auth);
size_t tss_session_hmac_key(const struct pqtpm_tss_session *s,
			    const struct pqtpm_tss_digest *auth, uint8_t *key);
/* session_encrypt.c: the first parameter (a TPM2B at the start of params) encrypted in place
 * by session k of u (nonceCaller, nonceTPM), or, for a response, decrypted (nonceTPM,
 * nonceCaller). */
TPM_RC tss_use_crypt(struct tss_use *u, int k, bool response, uint8_t *params, size_t plen);
/* builder.c: a test program may replace this (weak, does nothing) to see and alter each
 * response before the library reads it. */
void tss_response_observed(uint8_t *rsp, size_t len);
/* salt.c: a secret shared with the TPM through key pub (RSA, ECC, ML-KEM) under label
 * ("SECRET": a StartAuthSession salt; "DUPLICATE": an Import seed): the secret (64 bytes, the
 * size of pub's nameAlg) and what carries it (enc, PQTPM_TSS_MAX_SECRET bytes). */
TPM_RC tss_secret_make(const struct pqtpm_tss_public *pub, const char *label, uint8_t *salt,
		       size_t *salt_len, uint8_t *enc, size_t *enc_len);
/* names.c: the Name of a handle: permanent, PCR and session handles are their own Name,
 * transient objects come from the cache or ReadPublic, persistent objects from ReadPublic, NV
 * indices from NV_ReadPublic (their Name changes when written). */
TPM_RC tss_name_get(struct pqtpm_tss *t, TPM_HANDLE h, struct pqtpm_tss_name *name);
void tss_name_put(struct pqtpm_tss *t, TPM_HANDLE h, const struct pqtpm_tss_name *name);
void tss_name_drop(struct pqtpm_tss *t, TPM_HANDLE h);
void tss_names_clear(struct pqtpm_tss *t);

#endif
