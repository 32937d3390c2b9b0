/* The client's side of sessions for the unit tests (sessions.c): unsalted, unbound SHA-256
 * sessions started through the harness, cpHash and session HMACs computed here as a TSS does,
 * policy digests, context save/load. Every helper runs its commands on the harness it is
 * given. */
#ifndef PQTPM_TEST_SESSIONS_H
#define PQTPM_TEST_SESSIONS_H

#include "harness.h"

#define SESS_DSIZE 32 /* SHA-256: the session hash of every session made here */

void sess_be32(uint8_t *b, uint32_t v);
/* out = SHA-256(a || b || c) */
void sess_sha256(const void *a, size_t alen, const void *b, size_t blen, const void *c,
		 size_t clen, uint8_t out[SESS_DSIZE]);
/* d = H(d || cc || data): a policy assertion's first step */
void sess_policy_extend(uint8_t d[SESS_DSIZE], TPM_CC cc, const void *data, size_t len);
/* The digest PolicyCommandCode(code) gives: H(0^32 || TPM_CC_PolicyCommandCode || code). */
void sess_cc_policy(TPM_CC code, uint8_t out[SESS_DSIZE]);

/* StartAuthSession(tpmKey NULL, bind NULL, type, symmetric NULL, SHA-256) with a fresh
 * 32-byte nonceCaller; on success *handle and *nonce_tpm are the session's. */
TPM_RC sess_start(struct harness *h, uint8_t type, TPM_HANDLE *handle,
		  struct tpm2b_digest *nonce_tpm);
TPM_RC sess_flush(struct harness *h, TPM_HANDLE handle);
/* PolicyCommandCode(code) on session s. */
TPM_RC sess_policy_cc(struct harness *h, TPM_HANDLE s, TPM_CC code);
/* PolicyCounterTimer(operandB, offset, operation) on session s. */
TPM_RC sess_policy_counter_timer(struct harness *h, TPM_HANDLE s, const uint8_t *operand,
				 uint16_t len, uint16_t offset, uint16_t op);
/* PolicyGetDigest of s (which must succeed with a SHA-256 digest). */
void sess_policy_digest(struct harness *h, TPM_HANDLE s, uint8_t out[SESS_DSIZE]);

/* The Name of a handle whose Name is the handle (PCR, hierarchy, session, permanent). */
void sess_handle_name(TPM_HANDLE handle, struct tpm2b_name *name);
/* cpHash = H(cc || names || params) */
void sess_cp_hash(TPM_CC cc, const struct tpm2b_name *names, unsigned n, const void *params,
		  size_t plen, uint8_t out[SESS_DSIZE]);
/* HMAC(key || auth, p_hash || newer || older || attrs); auth may be NULL. */
void sess_hmac(const uint8_t *key, size_t keylen, const char *auth,
	       const uint8_t p_hash[SESS_DSIZE], const struct tpm2b_digest *newer,
	       const struct tpm2b_digest *older, uint8_t attrs, uint8_t out[SESS_DSIZE]);
/* Authorize b (handles and parameters in; names: the Names of its handles) with policy session
 * s, whose session key is empty and which needs no authValue: one session, attributes 0 (the
 * session ends with a successful command), a fresh nonceCaller, HMAC("", cpHash || nonceCaller
 * || nonceTPM || 0). */
void sess_auth_policy(struct cmdbuf *b, TPM_HANDLE s, const struct tpm2b_digest *nonce_tpm,
		      const struct tpm2b_name *names);

TPM_RC sess_context_save(struct harness *h, TPM_HANDLE handle, struct tpms_context *ctx);
/* out may be NULL. */
TPM_RC sess_context_load(struct harness *h, const struct tpms_context *ctx, TPM_HANDLE *out);

#endif
