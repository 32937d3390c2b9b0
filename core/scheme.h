/* Key schemes: which scheme a key operation uses (the key's own, or the caller's when the key
 * leaves it open, Part 3 Sign / RSA_Encrypt / RSA_Decrypt), whether a restricted signing key
 * may sign a digest, and running the chosen scheme over the key's material with crypto.h.
 * Codes carry no parameter or handle number unless the comment says so: callers add them. */
#ifndef PQTPM_SCHEME_H
#define PQTPM_SCHEME_H

#include "engine_int.h"

/* The signing scheme for key pub and the command's inScheme: key scheme NULL → inScheme (not
 * NULL); inScheme NULL → the key's; both set → they must be equal (scheme and hash). The
 * scheme must also fit the key type. TPM_RC_SCHEME otherwise. */
TPM_RC scheme_sign(const struct tpmt_public *pub, const struct tpmt_scheme *in,
		   struct tpmt_scheme *out);

/* A restricted signing key signs only digests the TPM hashed itself from data that did not
 * start with TPM_GENERATED_VALUE, so validation must be a valid hashcheck ticket for digest.
 * An unrestricted key takes the NULL Ticket, but a ticket given must be valid. TPM_RC_TICKET
 * otherwise. */
TPM_RC scheme_sign_allowed(struct pqtpm_engine *e, const struct object *key,
			   const struct tpm2b_digest *digest, const struct tpmt_ticket *validation);

/* Sign digest with key under scheme (from scheme_sign); TPM_RC_AUTH_UNAVAILABLE for a key
 * without its private part. */
TPM_RC scheme_sign_digest(const struct object *key, const struct tpmt_scheme *scheme,
			  const struct tpm2b_digest *digest, struct tpmt_signature *sig);

/* Check sig over digest with key: TPM_RC_SIGNATURE if it does not verify, TPM_RC_SCHEME if
 * the signature's scheme does not fit the key, TPM_RC_HANDLE (handle 1) for an HMAC key
 * without its secret part. */
TPM_RC scheme_verify(const struct object *key, const struct tpm2b_digest *digest,
		     const struct tpmt_signature *sig);

/* RSA decryption scheme (RSA_Encrypt, RSA_Decrypt): as scheme_sign, but both NULL is allowed
 * (raw RSA). TPM_RC_SCHEME otherwise. */
TPM_RC scheme_rsa_decrypt(const struct tpmt_public *pub, const struct tpmt_scheme *in,
			  struct tpmt_scheme *out);

/* The key and hash of an HMAC (HMAC, HMAC_Start; both have the key as handle 1 and hashAlg
 * as parameter 2, and the codes here carry those numbers): a keyedHash key (TPM_RC_TYPE),
 * unrestricted (TPM_RC_ATTRIBUTES), with sign (TPM_RC_KEY); the hash is the key scheme's,
 * which in may only repeat, or in when the key has none (TPM_RC_VALUE otherwise). */
TPM_RC scheme_hmac(const struct object *key, TPM_ALG_ID in, TPM_ALG_ID *hash);

/* Key material as crypto.h takes it. */
void scheme_rsa_key(const struct object *key, struct crypto_rsa *k);
/* An ECC scalar or coordinate of n bytes left-padded to len bytes (TPM_RC_KEY if longer). */
TPM_RC scheme_ecc_fixed(const uint8_t *b, size_t n, size_t len, uint8_t *out);

#endif
