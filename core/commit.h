/* Commits (Part 1 "ECDAA" and "Two Phase Key Exchange", Part 3 Commit, EC_Ephemeral,
 * ZGen_2Phase): the TPM makes an ephemeral scalar r for a count, reports [r] of some point and
 * the count's low 16 bits, and later uses r once when given that count back, in an ECDAA
 * signature or a two-phase key exchange. r is never stored: it is KDFa(SHA-256, nonce,
 * "ECDAA Commit", Name, count) again, retried until it lies in [1, n - 1]. Only the last
 * COMMIT_SLOTS counts may be outstanding; a newer one takes the place of the oldest. */
#ifndef PQTPM_COMMIT_H
#define PQTPM_COMMIT_H

#include "engine_int.h"

/* A new commit on curve for the key with this Name (NULL for none): its r (the curve's size)
 * and its counter. */
TPM_RC commit_new(struct pqtpm_engine *e, uint16_t curve, const struct tpm2b_name *name,
		  uint8_t *r, uint16_t *counter);
/* r of the outstanding commit counter (made with the same Name); TPM_RC_VALUE if there is none. */
TPM_RC commit_r(struct pqtpm_engine *e, uint16_t curve, const struct tpm2b_name *name,
		uint16_t counter, uint8_t *r);
/* The commit is used: it cannot be used again. */
void commit_end(struct pqtpm_engine *e, uint16_t counter);

/* An ECDAA signature of digest with key under scheme (its count names the commit, made with
 * the key's Name): nonce k
 * random in [1, n - 1], T = H(k || digest) mod n, s = r + T * d mod n; R = k, S = s. The
 * commit is used up. */
TPM_RC commit_sign_ecdaa(struct pqtpm_engine *e, const struct object *key,
			 const struct tpmt_scheme *scheme, const struct tpm2b_digest *digest,
			 struct tpmt_signature *sig);

#endif
