/* Key schemes: which scheme a key operation uses (the key's own, or the caller's when the key
 * leaves it open, Part 3 Sign / RSA_Encrypt / RSA_Decrypt), whether a restricted signing key
 * may sign a digest, and running the chosen scheme over the key's material with crypto.h.
 * Codes carry no parameter or handle number unless the comment says so: callers add them. */
#ifndef PQTPM_SCHEME_H
#define PQTPM_SCHEME_H

#include "engine_int.h"
#include "key_material.h"

/* The scheme a key signs with of itself: RSA, ECC, keyedHash: its public area's (maybe NULL);
 * ML-DSA: {MLDSA}; HashML-DSA: {HASH_MLDSA, its pre-hash}. */
void scheme_of_key(const struct tpmt_public *pub, struct tpmt_scheme *out);

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

/* The functions that run a scheme over a key take its material (key_material.h), so that they
 * run the same with or without the engine lock. */

/* Sign digest with key under scheme (from scheme_sign); TPM_RC_AUTH_UNAVAILABLE for a key
 * without its private part. HashML-DSA signs the digest as PH(M) with an empty context; pure
 * ML-DSA signs no digest (TPM_RC_SCHEME). */
TPM_RC scheme_sign_digest(const struct key_material *key, const struct tpmt_scheme *scheme,
			  const struct tpm2b_digest *digest, struct tpmt_signature *sig);

/* Sign, or check, arbitrary bytes as an attestation structure is signed (docs/pq-decisions.md):
 * ML-DSA: pure ML-DSA over the bytes with an empty context; HashML-DSA and the classical
 * schemes: the bytes hashed with the scheme's hash, then signed as a digest. scheme as from
 * scheme_sign. Codes as scheme_sign_digest and scheme_verify. */
TPM_RC scheme_sign_message(const struct key_material *key, const struct tpmt_scheme *scheme,
			   const uint8_t *data, size_t len, struct tpmt_signature *sig);
TPM_RC scheme_verify_message(const struct key_material *key, const uint8_t *data, size_t len,
			     const struct tpmt_signature *sig);

/* ---- ML-DSA pieces for the v1.85 commands (cmd/pq_*.c) ----
 * mu is FIPS 204's message representative H(tr || M', 64), tr = H(pk, 64): a loaded key's tr is
 * made once (object_mldsa_tr, key_material.h), not at each signature. */
#define SCHEME_MU_BYTES 64
/* tr of an ML-DSA kind of key; its public key was checked for its length when it was loaded. */
void scheme_mldsa_tr(const struct tpmt_public *pub, uint8_t tr[MLDSA_TR_BYTES]);
/* Pure ML-DSA: start mu over tr || 0 || |ctx| || ctx; the message is absorbed after it. */
void scheme_mldsa_mu_begin(const uint8_t tr[MLDSA_TR_BYTES], const uint8_t *ctx, size_t ctxlen,
			   struct keccak_ctx *h);
void scheme_mldsa_mu_end(struct keccak_ctx *h, uint8_t mu[SCHEME_MU_BYTES]);
/* HashML-DSA: mu over tr || 1 || |ctx| || ctx || OID(hash) || digest. TPM_RC_HASH for a hash
 * without an OID here, TPM_RC_SIZE for a digest of another length. */
TPM_RC scheme_mldsa_mu_hash(const uint8_t tr[MLDSA_TR_BYTES], TPM_ALG_ID hash,
			    const uint8_t *digest, size_t dlen, const uint8_t *ctx, size_t ctxlen,
			    uint8_t mu[SCHEME_MU_BYTES]);
/* Sign mu with the key (hedged, fresh randomness): sig gets sig_alg (MLDSA, or HASH_MLDSA with
 * hash for a HashML-DSA key), size and bytes. TPM_RC_AUTH_UNAVAILABLE without a private part. */
TPM_RC scheme_mldsa_sign_mu(const struct key_material *key, const uint8_t mu[SCHEME_MU_BYTES],
			    struct tpmt_signature *sig);
/* Check sig over mu: TPM_RC_SCHEME if sig is not of the key's kind (MLDSA for an ML-DSA key,
 * HASH_MLDSA with the key's hash for a HashML-DSA key), TPM_RC_SIGNATURE if its length is not
 * the parameter set's or it does not verify. */
TPM_RC scheme_mldsa_verify_mu(const struct key_material *key, const uint8_t mu[SCHEME_MU_BYTES],
			      const struct tpmt_signature *sig);

/* Check sig over digest with key: TPM_RC_SIGNATURE if it does not verify, TPM_RC_SCHEME if
 * the signature's scheme does not fit the key, TPM_RC_HANDLE (handle 1) for an HMAC key
 * without its secret part. */
TPM_RC scheme_verify(const struct key_material *key, const struct tpm2b_digest *digest,
		     const struct tpmt_signature *sig);

/* RSA decryption scheme (RSA_Encrypt, RSA_Decrypt): as scheme_sign, but both NULL is allowed
 * (raw RSA). TPM_RC_SCHEME otherwise. */
TPM_RC scheme_rsa_decrypt(const struct tpmt_public *pub, const struct tpmt_scheme *in,
			  struct tpmt_scheme *out);

/* The key and hash of an HMAC (HMAC, HMAC_Start; both have the key as handle 1 and hashAlg
 * as parameter 2, and the codes here carry those numbers): a keyedHash key (TPM_RC_TYPE),
 * unrestricted (TPM_RC_ATTRIBUTES), with sign (TPM_RC_KEY); the hash is the key scheme's,
 * which in may only repeat, or in when the key has none (TPM_RC_VALUE otherwise). An AES
 * symCipher key with sign MACs with CMAC instead: *hash = TPM_ALG_CMAC, in NULL or CMAC. */
TPM_RC scheme_hmac(const struct object *key, TPM_ALG_ID in, TPM_ALG_ID *hash);

/* An RSA key as crypto.h takes it (the private keys built from it: key_material_rsa). */
void scheme_rsa_key(const struct key_material *key, struct crypto_rsa *k);
/* An ECC scalar or coordinate of n bytes left-padded to len bytes (TPM_RC_KEY if longer). */
TPM_RC scheme_ecc_fixed(const uint8_t *b, size_t n, size_t len, uint8_t *out);

#endif
