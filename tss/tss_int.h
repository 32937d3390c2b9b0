/* Inside the client library: a connection (transport + buffers) and the builder every command
 * file uses. The bounded reader/writer of core/marshal.h does all the byte work. */
#ifndef PQTPM_TSS_INT_H
#define PQTPM_TSS_INT_H

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
};

struct pqtpm_tss {
	const struct tss_transport *ops;
	void *ctx;
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

/* transport_engine.c, transport_mssim.c */
int tss_engine_transport(struct pqtpm_engine *e, const struct tss_transport **ops, void **ctx);
int tss_mssim_transport(const char *host, unsigned port, const struct tss_transport **ops,
			void **ctx);

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

/* Response readers: any failure is PQTPM_TSS_RC_MALFORMED. */
TPM_RC tss_rd_tpm2b(struct rd *r, uint8_t *buf, size_t max, uint16_t *size);
/* A TPMT_SIGNATURE / ticket / TPM2B_PUBLIC copied as marshalled. */
TPM_RC tss_rd_signature(struct rd *r, struct pqtpm_tss_signature *s);
TPM_RC tss_rd_ticket(struct rd *r, struct pqtpm_tss_ticket *t);
TPM_RC tss_rd_public(struct rd *r, struct pqtpm_tss_public *p);
/* A TPML_PCR_SELECTION of n banks (cmd_attest.c) */
void tss_pcr_selection(struct tss_cmd *c, const struct pqtpm_tss_pcr_select *sel, size_t n);
/* The response must have been read to its end. */
TPM_RC tss_rd_end(const struct rd *r);

/* ---- sessions (session.c, session_hmac.c, session_encrypt.c, salt.c, policy.c, names.c) ---- */
#define TSS_MAX_AUTH 64 /* an authValue: at most the largest digest */

struct pqtpm_tss_session {
	struct pqtpm_tss *t;
	TPM_HANDLE handle; /* 0 once the TPM has forgotten the session */
	uint8_t type;	   /* TPM_SE_* */
	uint8_t attrs;	   /* TPMA_SESSION_* for the next use */
	TPM_ALG_ID hash;
	uint16_t dsize;
	TPM_ALG_ID sym; /* TPM_ALG_NULL, TPM_ALG_AES (CFB), TPM_ALG_XOR */
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
/* salt.c: a salt for a StartAuthSession on key pub (RSA, ECC, ML-KEM): salt (64 bytes) and the
 * encryptedSalt (enc, PQTPM_TSS_MAX_SECRET bytes). */
TPM_RC tss_salt_make(const struct pqtpm_tss_public *pub, uint8_t *salt, size_t *salt_len,
		     uint8_t *enc, size_t *enc_len);
/* names.c: the Name of a handle: permanent, PCR and session handles are their own Name,
 * transient objects come from the cache or ReadPublic, persistent objects from ReadPublic, NV
 * indices from NV_ReadPublic (their Name changes when written). */
TPM_RC tss_name_get(struct pqtpm_tss *t, TPM_HANDLE h, struct pqtpm_tss_name *name);
void tss_name_put(struct pqtpm_tss *t, TPM_HANDLE h, const struct pqtpm_tss_name *name);
void tss_name_drop(struct pqtpm_tss *t, TPM_HANDLE h);
void tss_names_clear(struct pqtpm_tss *t);

#endif
