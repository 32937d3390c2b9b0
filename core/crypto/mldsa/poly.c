/* Coefficient-wise arithmetic on ML-DSA polynomials. */
#include "crypto/mldsa/avx2.h"
#include "crypto/mldsa/coeffs.h"
#include "crypto/mldsa/poly.h"
#include "crypto/mldsa/reduce.h"

/* AVX2 where the CPU has it (avx2.h), the loops of coeffs.h otherwise */

void mldsa_poly_add(struct mldsa_poly *r, const struct mldsa_poly *a, const struct mldsa_poly *b)
{
	MLDSA_AVX2_OR(mldsa_add_avx2(r, a, b), coeffs_add(r, a, b));
}

void mldsa_poly_sub(struct mldsa_poly *r, const struct mldsa_poly *a, const struct mldsa_poly *b)
{
	MLDSA_AVX2_OR(mldsa_sub_avx2(r, a, b), coeffs_sub(r, a, b));
}

/* to [-6283008, 6283008], which is the centered value for anything with |value| < q - 6283008 */
void mldsa_poly_reduce(struct mldsa_poly *a)
{
	MLDSA_AVX2_OR(mldsa_reduce_avx2(a), coeffs_reduce(a));
}

void mldsa_poly_caddq(struct mldsa_poly *a)
{
	unsigned i;

	for (i = 0; i < MLDSA_N; i++)
		a->c[i] = mldsa_caddq(a->c[i]);
}

/* multiply by 2^d (t1 * 2^d in verification) */
void mldsa_poly_shiftl(struct mldsa_poly *a)
{
	unsigned i;

	for (i = 0; i < MLDSA_N; i++)
		a->c[i] *= 1 << MLDSA_D;
}

/*
 * 1 if some |c| >= bound, for reduced coefficients (|c| <= 6283008) and 0 < bound < q / 2.
 * A reduced coefficient whose centered value is small is that value, and one whose centered
 * value is large is large too, so this is the infinity-norm check of FIPS 204.
 * Every coefficient is looked at without a branch: where a rejected y failed must not leak.
 */
int mldsa_poly_exceeds(const struct mldsa_poly *a, int32_t bound)
{
	return MLDSA_AVX2_OR(mldsa_exceeds_avx2(a, bound), coeffs_exceeds(a, bound));
}
