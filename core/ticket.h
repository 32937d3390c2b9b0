/* Tickets (Part 2 §10.6): an HMAC with a hierarchy's proof value by which the TPM recognizes
 * later something it checked earlier (that it hashed data which did not start with
 * TPM_GENERATED_VALUE, that a signature verified). A ticket of the NULL hierarchy is the
 * NULL Ticket: no HMAC, and never accepted.
 *
 * v1.85 verified tickets (Part 2 Equation 5): HMAC(proof, tag || digestOrMessage || keyName
 * || metadata), where metadata is empty except for TPM_ST_DIGEST_VERIFIED (the hash alg, 2
 * bytes). A message ticket is made as the message streams through a verify sequence, so the
 * message is never kept (ticket_message_*). */
#ifndef PQTPM_TICKET_H
#define PQTPM_TICKET_H

#include "engine_int.h"

#define TICKET_HASH TPM_ALG_SHA256

/* The NULL Ticket: {tag, TPM_RH_NULL, empty digest}. */
void ticket_null(struct tpmt_ticket *t, uint16_t tag);

/* TPMT_TK_HASHCHECK: HMAC(proof, TPM_ST_HASHCHECK || digest). */
TPM_RC ticket_hashcheck(struct pqtpm_engine *e, TPM_HANDLE hierarchy,
			const struct tpm2b_digest *digest, struct tpmt_ticket *t);

/* TPMT_TK_VERIFIED: HMAC(proof, TPM_ST_VERIFIED || digest || keyName). */
TPM_RC ticket_verified(struct pqtpm_engine *e, TPM_HANDLE hierarchy,
		       const struct tpm2b_digest *digest, const struct tpm2b_name *key_name,
		       struct tpmt_ticket *t);

/* TPMT_TK_VERIFIED of VerifyDigestSignature:
 * HMAC(proof, TPM_ST_DIGEST_VERIFIED || digest || keyName || hashAlg). digest may be up to 64
 * bytes (an external mu is one). */
TPM_RC ticket_digest_verified(struct pqtpm_engine *e, TPM_HANDLE hierarchy, const uint8_t *digest,
			      size_t dlen, const struct tpm2b_name *key_name, TPM_ALG_ID hash_alg,
			      struct tpmt_ticket *t);

/* TPMT_TK_VERIFIED of VerifySequenceComplete: HMAC(proof, TPM_ST_MESSAGE_VERIFIED || message ||
 * keyName), in three steps. start sets *active to false for the NULL hierarchy (and for a
 * hierarchy without a proof); finish then gives the NULL Ticket. */
TPM_RC ticket_message_start(struct pqtpm_engine *e, TPM_HANDLE hierarchy,
			    struct crypto_hmac_ctx *h, bool *active);
TPM_RC ticket_message_update(struct crypto_hmac_ctx *h, const uint8_t *data, size_t len);
TPM_RC ticket_message_finish(struct crypto_hmac_ctx *h, bool active, TPM_HANDLE hierarchy,
			     const struct tpm2b_name *key_name, struct tpmt_ticket *t);

/* Does a ticket from a command equal the one the TPM computes now? A NULL Ticket never does. */
bool ticket_matches(const struct tpmt_ticket *given, const struct tpmt_ticket *expected);

#endif
