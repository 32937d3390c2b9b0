/* Helpers for the post-quantum command tests (test_pq_*.c): keys from templates, sequences,
 * context save/load, all as TPM commands through the unit-test harness. */
#ifndef PQTPM_TEST_PQ_UTIL_H
#define PQTPM_TEST_PQ_UTIL_H

#include "engine_int.h"
#include "harness.h"

/* fixedTPM, fixedParent, userWithAuth, sensitiveDataOrigin */
#define PQ_KEY_BASE                                                                        \
	(TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT | TPMA_OBJECT_USERWITHAUTH |        \
	 TPMA_OBJECT_SENSITIVEDATAORIGIN)
#define PQ_STORAGE (TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT)

struct pq_key {
	TPM_HANDLE handle;
	struct tpmt_public pub;
	struct tpm2b_name name;
};

/* A template: SHA-256 nameAlg, PQ_KEY_BASE | attrs, schemes NULL, RSA 2048, P-256, and for
 * restricted decryption keys AES-128-CFB. set: the ML-DSA / ML-KEM parameter set. */
void pq_tmpl(struct tpmt_public *p, TPM_ALG_ID type, uint16_t set, uint32_t attrs);

/* CreatePrimary in hierarchy with userAuth auth; returns the TPM's code. */
TPM_RC pq_primary(struct harness *h, TPM_HANDLE hierarchy, const struct tpmt_public *t,
		  const char *auth, struct pq_key *k);
/* Create under parent (password ""), then Load: an ordinary key. */
TPM_RC pq_create_load(struct harness *h, TPM_HANDLE parent, const struct tpmt_public *t,
		      const char *auth, struct pq_key *k);
/* LoadExternal of a public area alone (hierarchy OWNER). */
TPM_RC pq_load_public(struct harness *h, const struct tpmt_public *pub, struct pq_key *k);
TPM_RC pq_flush(struct harness *h, TPM_HANDLE handle);

/* SignSequenceStart / VerifySequenceStart with this sequence auth and context. */
TPM_RC pq_sign_start(struct harness *h, TPM_HANDLE key, const char *auth, const void *ctx,
		     uint16_t ctxlen, TPM_HANDLE *seq);
TPM_RC pq_verify_start(struct harness *h, TPM_HANDLE key, const char *auth, const void *ctx,
		       uint16_t ctxlen, TPM_HANDLE *seq);
TPM_RC pq_update(struct harness *h, TPM_HANDLE seq, const char *auth, const void *data,
		 uint16_t len);
TPM_RC pq_sign_complete(struct harness *h, TPM_HANDLE seq, const char *seq_auth,
			TPM_HANDLE key, const char *key_auth, const void *data, uint16_t len,
			struct tpmt_signature *sig);
TPM_RC pq_verify_complete(struct harness *h, TPM_HANDLE seq, const char *auth, TPM_HANDLE key,
			  const struct tpmt_signature *sig, struct tpmt_ticket *t);

/* Encapsulate with key: the shared secret (32 bytes) and the ciphertext (at most
 * MLKEM_MAX_CT_BYTES); TPM_RC_FAILURE if the response is malformed. */
TPM_RC pq_encapsulate(struct harness *h, TPM_HANDLE key, uint8_t ss[32], uint8_t *ct,
		      uint16_t *ctlen);
/* Decapsulate ct with key (userAuth auth): the shared secret. */
TPM_RC pq_decapsulate(struct harness *h, TPM_HANDLE key, const char *auth, const uint8_t *ct,
		      uint16_t ctlen, uint8_t ss[32]);

/* ContextSave then ContextLoad (the handle may change). */
TPM_RC pq_context_roundtrip(struct harness *h, TPM_HANDLE *handle);

#endif
