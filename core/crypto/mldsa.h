/*
 * ML-DSA (FIPS 204): key generation, signing and verification for ML-DSA-44/65/87.
 * Every function returns 0 on success and -1 on failure (unknown parameter set, bad length,
 * context longer than 255 bytes, unknown hash, invalid signature).
 */
#ifndef PQTPM_CRYPTO_MLDSA_H
#define PQTPM_CRYPTO_MLDSA_H

#include <stddef.h>
#include <stdint.h>

/* parameter sets use the TPM 2.0 v1.85 numbering */
enum { MLDSA_44 = 1, MLDSA_65 = 2, MLDSA_87 = 3 };

#define MLDSA_SEED_BYTES 32
#define MLDSA_RND_BYTES 32
#define MLDSA_MU_BYTES 64
#define MLDSA_MAX_PK_BYTES 2592
#define MLDSA_MAX_SK_BYTES 4896
#define MLDSA_MAX_SIG_BYTES 4627

/* 0 for an unknown set */
size_t mldsa_pk_bytes(int set);
size_t mldsa_sk_bytes(int set);
size_t mldsa_sig_bytes(int set);

/* Alg. 6 KeyGen_internal(xi); sk is the expanded FIPS 204 encoding */
int mldsa_keygen(int set, const uint8_t xi[32], uint8_t *pk, uint8_t *sk);

/* rnd == NULL means deterministic signing (32 zero bytes) */
/* Alg. 2 ML-DSA.Sign, pure, ctxlen <= 255 */
int mldsa_sign(int set, const uint8_t *sk, const uint8_t *msg, size_t msglen,
	const uint8_t *ctx, size_t ctxlen, const uint8_t *rnd, uint8_t *sig);
/* Alg. 4 HashML-DSA.Sign with digest = PH(M) already computed; hash_alg is a TPM_ALG_ID */
int mldsa_sign_hash(int set, const uint8_t *sk, uint16_t hash_alg, const uint8_t *digest, size_t dlen,
	const uint8_t *ctx, size_t ctxlen, const uint8_t *rnd, uint8_t *sig);
/* Alg. 7 Sign_internal with M' given */
int mldsa_sign_internal(int set, const uint8_t *sk, const uint8_t *mprime, size_t len,
	const uint8_t *rnd, uint8_t *sig);
/* Alg. 7 from line 7 on, with the message representative mu given (external mu) */
int mldsa_sign_mu(int set, const uint8_t *sk, const uint8_t mu[64], const uint8_t *rnd, uint8_t *sig);

int mldsa_verify(int set, const uint8_t *pk, const uint8_t *msg, size_t msglen,
	const uint8_t *ctx, size_t ctxlen, const uint8_t *sig, size_t siglen);
int mldsa_verify_hash(int set, const uint8_t *pk, uint16_t hash_alg, const uint8_t *digest, size_t dlen,
	const uint8_t *ctx, size_t ctxlen, const uint8_t *sig, size_t siglen);
int mldsa_verify_internal(int set, const uint8_t *pk, const uint8_t *mprime, size_t len,
	const uint8_t *sig, size_t siglen);
int mldsa_verify_mu(int set, const uint8_t *pk, const uint8_t mu[64], const uint8_t *sig, size_t siglen);

/* mu = H(H(pk, 64) || M', 64) */
int mldsa_compute_mu(int set, const uint8_t *pk, const uint8_t *mprime, size_t len, uint8_t mu[64]);

/*
 * An expanded key for repeated signing by a loaded object: sk parsed once, with the matrix A
 * and s1, s2, t0 in NTT form. The caller provides mldsa_expanded_size() bytes (about 80 KB,
 * aligned as malloc aligns) and must call mldsa_expanded_wipe() when done.
 */
struct mldsa_expanded;
size_t mldsa_expanded_size(void);
int mldsa_expand(int set, const uint8_t *sk, struct mldsa_expanded *out);
int mldsa_sign_mu_expanded(const struct mldsa_expanded *k, const uint8_t mu[64], const uint8_t *rnd,
	uint8_t *sig);
void mldsa_expanded_wipe(struct mldsa_expanded *k);

#endif
