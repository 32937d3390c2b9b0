/* ML-KEM polynomials in Z_q[X]/(X^256 + 1) and the operations on them (FIPS 203 sections 4.2-4.3). */
#ifndef PQTPM_MLKEM_POLY_H
#define PQTPM_MLKEM_POLY_H

#include <stdint.h>

#include "crypto/mlkem/params.h"

struct mlkem_poly {
	int16_t c[MLKEM_N];
};

/*
 * ntt.c: Alg. 9/10 with Montgomery factors. The forward transform takes |c| < q and returns
 * reduced coefficients; the inverse takes |c| < 2^14 and returns |c| < q.
 */
void mlkem_poly_ntt(struct mlkem_poly *a);
void mlkem_poly_invntt(struct mlkem_poly *a);
/* MultiplyNTTs (Alg. 11) times 2^-16, for reduced inputs; _acc adds (up to 4 times) */
void mlkem_poly_basemul(struct mlkem_poly *r, const struct mlkem_poly *a, const struct mlkem_poly *b);
void mlkem_poly_basemul_acc(struct mlkem_poly *r, const struct mlkem_poly *a, const struct mlkem_poly *b);

/* poly.c */
void mlkem_poly_add(struct mlkem_poly *r, const struct mlkem_poly *a, const struct mlkem_poly *b);
void mlkem_poly_sub(struct mlkem_poly *r, const struct mlkem_poly *a, const struct mlkem_poly *b);
void mlkem_poly_reduce(struct mlkem_poly *a);
void mlkem_poly_tomont(struct mlkem_poly *a);

/* encode.c: ByteEncode_d / ByteDecode_d (Alg. 5, 6) with Compress_d / Decompress_d (section 4.2.1) */
void mlkem_poly_encode12(uint8_t out[MLKEM_POLY_BYTES], const struct mlkem_poly *a);
void mlkem_poly_decode12(struct mlkem_poly *a, const uint8_t in[MLKEM_POLY_BYTES]);
void mlkem_poly_compress(uint8_t *out, const struct mlkem_poly *a, unsigned d);
void mlkem_poly_decompress(struct mlkem_poly *a, const uint8_t *in, unsigned d);

/* sample.c: SampleNTT (Alg. 7) and SamplePolyCBD (Alg. 8) of PRF (section 4.1) */
void mlkem_poly_uniform(struct mlkem_poly *a, const uint8_t rho[32], uint8_t j, uint8_t i);
void mlkem_poly_cbd(struct mlkem_poly *a, const uint8_t sigma[32], uint8_t nonce, unsigned eta);

#endif
