/* Tickets (Part 2 §10.7): an HMAC with a hierarchy's proof value by which the TPM recognizes
 * later something it checked earlier (that it hashed data which did not start with
 * TPM_GENERATED_VALUE, that a signature verified). A ticket of the NULL hierarchy is the
 * NULL Ticket: no HMAC, and never accepted. */
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

/* Does a ticket from a command equal the one the TPM computes now? A NULL Ticket never does. */
bool ticket_matches(const struct tpmt_ticket *given, const struct tpmt_ticket *expected);

#endif
