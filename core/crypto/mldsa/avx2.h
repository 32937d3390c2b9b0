/*
 * The AVX2 versions of ML-DSA's NTT, inverse NTT and products in the NTT domain (ntt_avx2.c) and
 * of the coefficient-wise loops of the signing loop (coeffs_avx2.c), compiled with -mavx2. The
 * functions of poly.h call them only when crypto_cpu_avx2() says the CPU has AVX2, and otherwise
 * run the portable code; both give the same results (test_mldsa runs the vectors through each).
 * Same contracts as the functions in poly.h.
 */
#ifndef PQTPM_MLDSA_AVX2_H
#define PQTPM_MLDSA_AVX2_H

#include <stdint.h>

#include "crypto/cpu.h"
#include "crypto/mldsa/poly.h"

/* zetas[m] = 1753^BitRev8(m) * 2^32 mod q, centered (ntt.c) */
extern const int32_t mldsa_zetas[MLDSA_N];

#if defined(__x86_64__) && defined(__GNUC__)
#define MLDSA_AVX2 1
/* the expression avx2 where the CPU has AVX2, else portable */
#define MLDSA_AVX2_OR(avx2, portable) (crypto_cpu_avx2() ? (avx2) : (portable))
void mldsa_ntt_avx2(int32_t c[MLDSA_N]);
void mldsa_invntt_avx2(int32_t c[MLDSA_N]);
void mldsa_pointwise_avx2(int32_t r[MLDSA_N], const int32_t a[MLDSA_N], const int32_t b[MLDSA_N]);
void mldsa_pointwise_acc_avx2(int32_t r[MLDSA_N], const int32_t a[MLDSA_N], const int32_t b[MLDSA_N]);
void mldsa_dot_avx2(int32_t r[MLDSA_N], const struct mldsa_poly *a, const struct mldsa_poly *b, unsigned n);
void mldsa_add_avx2(struct mldsa_poly *r, const struct mldsa_poly *a, const struct mldsa_poly *b);
void mldsa_sub_avx2(struct mldsa_poly *r, const struct mldsa_poly *a, const struct mldsa_poly *b);
void mldsa_reduce_avx2(struct mldsa_poly *a);
int mldsa_exceeds_avx2(const struct mldsa_poly *a, int32_t bound);
void mldsa_decompose_avx2(struct mldsa_poly *r1, struct mldsa_poly *r0, const struct mldsa_poly *r, int32_t gamma2);
unsigned mldsa_make_hint_avx2(struct mldsa_poly *h, const struct mldsa_poly *a0, const struct mldsa_poly *a1,
	int32_t gamma2);
#else
#define MLDSA_AVX2_OR(avx2, portable) (portable)
#endif

#endif
