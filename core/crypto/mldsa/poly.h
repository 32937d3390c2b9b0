/* ML-DSA polynomials in Z_q[X]/(X^256 + 1) and the operations on them (FIPS 204 sections 7.1-7.5). */
#ifndef PQTPM_MLDSA_POLY_H
#define PQTPM_MLDSA_POLY_H

#include <stdint.h>

#include "crypto/mldsa/params.h"

struct mldsa_poly {
	int32_t c[MLDSA_N];
};

/* ntt.c: Alg. 41/42 with Montgomery factors; inputs |c| < q, NTT outputs |c| < 9q, inverse outputs |c| < q */
void mldsa_poly_ntt(struct mldsa_poly *a);
void mldsa_poly_invntt(struct mldsa_poly *a);
/* r = a * b * 2^-32 coefficient-wise (NTT domain); _acc adds to r */
void mldsa_poly_pointwise(struct mldsa_poly *r, const struct mldsa_poly *a, const struct mldsa_poly *b);
void mldsa_poly_pointwise_acc(struct mldsa_poly *r, const struct mldsa_poly *a, const struct mldsa_poly *b);
/* r = sum of a[j] * b[j] * 2^-32 over j < n <= 7, for |a| < q and |b| < 9q; |r| < q */
void mldsa_poly_dot(struct mldsa_poly *r, const struct mldsa_poly *a, const struct mldsa_poly *b, unsigned n);

/* poly.c */
void mldsa_poly_add(struct mldsa_poly *r, const struct mldsa_poly *a, const struct mldsa_poly *b);
void mldsa_poly_sub(struct mldsa_poly *r, const struct mldsa_poly *a, const struct mldsa_poly *b);
void mldsa_poly_reduce(struct mldsa_poly *a);
void mldsa_poly_caddq(struct mldsa_poly *a);
void mldsa_poly_shiftl(struct mldsa_poly *a);
int mldsa_poly_exceeds(const struct mldsa_poly *a, int32_t bound);

/* rounding.c (Alg. 35-40) */
void mldsa_poly_power2round(struct mldsa_poly *t1, struct mldsa_poly *t0, const struct mldsa_poly *t);
/* r in (-q, q): r1 = HighBits(r), r0 = LowBits(r) */
void mldsa_poly_decompose(struct mldsa_poly *r1, struct mldsa_poly *r0, const struct mldsa_poly *r,
	int32_t gamma2);
/* the hints of a signature from a0 = LowBits(w - c s2) + c t0 and a1 = HighBits(w); returns the count */
unsigned mldsa_poly_make_hint(struct mldsa_poly *h, const struct mldsa_poly *a0, const struct mldsa_poly *a1,
	int32_t gamma2);
/* r in (-q, q) */
void mldsa_poly_use_hint(struct mldsa_poly *r1, const struct mldsa_poly *r, const uint8_t h[MLDSA_N],
	int32_t gamma2);

/* sample.c (Alg. 29-34) */
void mldsa_poly_uniform(struct mldsa_poly *a, const uint8_t rho[32], uint8_t col, uint8_t row);
void mldsa_poly_eta(struct mldsa_poly *a, const uint8_t rhoprime[64], uint16_t nonce, unsigned eta);
void mldsa_poly_mask(struct mldsa_poly *y, const uint8_t rhopp[64], uint16_t nonce, const struct mldsa_params *p);
/* the same for n <= 4 polynomials at once: a[i] from nonce[i] (256 row + col for A); four at
 * once cost about what one does where mldsa_sample_batch() is 4 (AVX2), and four times that
 * where it is 1 */
unsigned mldsa_sample_batch(void);
void mldsa_poly_uniform_x4(struct mldsa_poly *const a[], const uint8_t rho[32], const uint16_t nonce[], unsigned n);
void mldsa_poly_eta_x4(struct mldsa_poly *const a[], const uint8_t rhoprime[64], const uint16_t nonce[], unsigned n,
	unsigned eta);
void mldsa_poly_mask_x4(struct mldsa_poly *const y[], const uint8_t rhopp[64], const uint16_t nonce[], unsigned n,
	const struct mldsa_params *p);
void mldsa_poly_challenge(struct mldsa_poly *c, const uint8_t *ctilde, unsigned len, unsigned tau);

#endif
