/* Secret sharing with an asymmetric key (Part 1 §24 "Protected storage" secret sharing, and
 * v1.85's labeled KEM for ML-KEM): a seed of the key's nameAlg digest size, known to the
 * sender and recovered by the holder of the private key.
 *   RSA     seed random; secret = OAEP(nameAlg, label incl. its zero octet, seed)
 *   ECC     ephemeral key e; Z = e * Q; seed = KDFe(nameAlg, Z.x, label, Qe.x, Q.x, bits);
 *           secret = TPMS_ECC_POINT Qe
 *   ML-KEM  (K, ct) = ML-KEM.Encaps(ek); seed = KDFa(nameAlg, K, label, ct, ek, bits);
 *           secret = ct
 * Used by StartAuthSession ("SECRET", ML-KEM), MakeCredential / ActivateCredential
 * ("IDENTITY"). Codes are unnumbered: the caller adds the parameter number. */
#ifndef PQTPM_CMD_PQ_SECRET_H
#define PQTPM_CMD_PQ_SECRET_H

#include "engine_int.h"
#include "key_material.h"

/* The largest secret: an ML-KEM-1024 ciphertext (RSA: 512, ECC: 100). */
#define SECRET_MAX (MAX_PQ_CIPHERTEXT > CRYPTO_MAX_RSA_BYTES ? MAX_PQ_CIPHERTEXT \
							       : CRYPTO_MAX_RSA_BYTES)

/* The key is given by its material (key_material.h): these run with or without the engine
 * lock (compute.h). */

/* Make a seed for key (public part only) and the secret that carries it. seed gets
 * crypto_hash_size(nameAlg) bytes. TPM_RC_KEY for a key type without secret sharing. */
TPM_RC secret_encrypt(const struct key_material *key, const char *label, uint8_t *seed,
		      size_t *seed_len, uint8_t *secret, size_t cap, size_t *secret_len);

/* Recover the seed from a secret with the private key. TPM_RC_KEY for a key type without
 * secret sharing; TPM_RC_VALUE for an RSA secret that does not decrypt, TPM_RC_SIZE for a
 * secret of the wrong shape (ECC point, ML-KEM ciphertext length), TPM_RC_ECC_POINT. An ML-KEM
 * ciphertext of the right length always gives a seed (implicit rejection): a wrong one shows
 * later, as an integrity failure of what the seed protects. */
TPM_RC secret_decrypt(const struct key_material *key, const char *label, const uint8_t *secret,
		      size_t len, uint8_t *seed, size_t *seed_len);

#endif
