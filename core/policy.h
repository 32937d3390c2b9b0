/* Policy sessions (Part 1 §19.7, Part 3 §23): the session a policy command names, the
 * policyDigest update of every assertion, and, when the session authorizes a command, the
 * checks of what the assertions recorded that auth.c leaves to this file. */
#ifndef PQTPM_POLICY_H
#define PQTPM_POLICY_H

#include "session.h"

/* The policy or trial session in handle slot: TPM_RC_REFERENCE_H0 + slot if this client has
 * none loaded there, TPM_RC_AUTH_TYPE for an HMAC session. */
TPM_RC policy_session(struct cmd *c, unsigned slot, struct session **out);

/* policyDigest = H_authHash(policyDigest || cc || data); data may be empty. */
TPM_RC policy_extend(struct session *s, TPM_CC cc, const void *data, size_t len);

/* Part 3 PolicySigned/Secret/Ticket/Authorize (the reference's PolicyContextUpdate):
 * policyDigest = H(H(policyDigest || cc || name) || policyRef); a cpHashA given is kept, the
 * earliest timeout (Clock ms, 0 = none) wins. */
TPM_RC policy_update(struct session *s, TPM_CC cc, const struct tpm2b_name *name,
		     const struct tpm2b_digest *ref, const struct tpm2b_digest *cp_hash,
		     uint64_t timeout);

/* TPM_EO comparisons of PolicyCounterTimer and PolicyNV: a op b over n big-endian bytes (a the
 * TPM's value, b operandB); false for an operation past POLICY_EO_MAX (TPM_EO_BITCLEAR). */
#define POLICY_EO_MAX 0x000Bu
bool policy_eo_holds(uint16_t op, const uint8_t *a, const uint8_t *b, size_t n);

/* At use, for session number n authorizing handle slot of the command (auth.c, after the
 * policyDigest, command code, locality, PCR and cpHash checks): physical presence, expiry,
 * the command code an ADMIN or DUP role needs, nameHash, templateHash, PolicySecret's need
 * of an authValue, and PolicyNvWritten's state of the index. params: the command parameters
 * as sent. */
TPM_RC policy_check_use(struct cmd *c, const struct session *s, unsigned slot, unsigned n,
			const uint8_t *params, size_t plen);

#endif
