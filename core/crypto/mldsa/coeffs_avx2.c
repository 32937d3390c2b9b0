/* The loops of coeffs.h compiled with -mavx2 (Makefile), for CPUs with AVX2 (avx2.h). */
#include "crypto/mldsa/avx2.h"

#ifdef MLDSA_AVX2
#ifndef __AVX2__
#error "coeffs_avx2.c is compiled with -mavx2 (Makefile)"
#endif

#include "crypto/mldsa/coeffs.h"

void mldsa_add_avx2(struct mldsa_poly *r, const struct mldsa_poly *a, const struct mldsa_poly *b)
{
	coeffs_add(r, a, b);
}

void mldsa_sub_avx2(struct mldsa_poly *r, const struct mldsa_poly *a, const struct mldsa_poly *b)
{
	coeffs_sub(r, a, b);
}

void mldsa_reduce_avx2(struct mldsa_poly *a)
{
	coeffs_reduce(a);
}

int mldsa_exceeds_avx2(const struct mldsa_poly *a, int32_t bound)
{
	return coeffs_exceeds(a, bound);
}

void mldsa_decompose_avx2(struct mldsa_poly *r1, struct mldsa_poly *r0, const struct mldsa_poly *r, int32_t gamma2)
{
	coeffs_decompose(r1, r0, r, gamma2);
}

unsigned mldsa_make_hint_avx2(struct mldsa_poly *h, const struct mldsa_poly *a0, const struct mldsa_poly *a1,
	int32_t gamma2)
{
	return coeffs_make_hint(h, a0, a1, gamma2);
}

#endif
