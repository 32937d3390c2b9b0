/* Saved contexts (Part 1 §30): the protection of a TPMS_CONTEXT's contextBlob, for objects
 * (cmd/context.c) and, later, sessions.
 *
 * contextBlob = integrity TPM2B_DIGEST || iv[16] || AES-256-CFB(symKey, iv, plaintext)
 *   symKey    = KDFa(SHA-256, proof, "CONTEXT", sequence, savedHandle, 256)
 *   integrity = HMAC-SHA-256(proof, contextEpoch [|| restartCount if savedHandle is
 *               CONTEXT_HANDLE_STCLEAR] || sequence || savedHandle || hierarchy || iv ||
 *               encrypted plaintext)
 *   plaintext = sequence u64 (fingerprint) || type tag u8 || the saved entity
 * proof is the hierarchy's proof (NULL's changes at every TPM Reset), contextEpoch is new at
 * every TPM Reset and restartCount grows at every TPM Restart/Resume, so a context from
 * before those is refused; the iv is random per save, so a sequence number reused after a
 * restart never reuses a keystream. The type tag lets session contexts (CONTEXT_TYPE_SESSION)
 * share this protection with their own plaintext layout. */
#ifndef PQTPM_CONTEXT_BLOB_H
#define PQTPM_CONTEXT_BLOB_H

#include "engine_int.h"

/* TPMS_CONTEXT.savedHandle for objects (Part 2, context handle values) */
#define CONTEXT_HANDLE_OBJECT 0x80000000u
#define CONTEXT_HANDLE_SEQUENCE 0x80000001u
#define CONTEXT_HANDLE_STCLEAR 0x80000002u

enum context_type { CONTEXT_TYPE_OBJECT = 1, CONTEXT_TYPE_SESSION = 2 };

/* Largest plaintext a blob can carry. */
#define CONTEXT_MAX_PLAIN (MAX_CONTEXT_BLOB - 2 - 32 - 16)

/* Protect data (the entity's own encoding) into ctx->blob; ctx->sequence, saved_handle and
 * hierarchy must be set. TPM_RC_FAILURE if the data does not fit (a bug). */
TPM_RC context_protect(struct pqtpm_engine *e, struct tpms_context *ctx, enum context_type type,
		       const uint8_t *data, size_t len);

/* Check and decrypt ctx->blob into plain (CONTEXT_MAX_PLAIN bytes) and set a reader over the
 * entity's encoding. TPM_RC_INTEGRITY if the blob was altered, belongs to another hierarchy,
 * sequence or handle, or predates a TPM Reset (or a Restart, for stClear objects);
 * TPM_RC_SIZE or TPM_RC_INSUFFICIENT if the integrity field itself is malformed. */
TPM_RC context_unprotect(struct pqtpm_engine *e, const struct tpms_context *ctx,
			 enum context_type type, uint8_t *plain, struct rd *entity);

#endif
