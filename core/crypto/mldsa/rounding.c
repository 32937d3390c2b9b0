/* Power2Round, Decompose, MakeHint and UseHint (FIPS 204 Alg. 35-40) on whole polynomials. */
#include "crypto/mldsa/avx2.h"
#include "crypto/mldsa/coeffs.h"
#include "crypto/mldsa/poly.h"
#include "crypto/mldsa/reduce.h"

/* t in [0, q) -> t1 = (t - t0) / 2^d with t0 in (-2^(d-1), 2^(d-1)] */
void mldsa_poly_power2round(struct mldsa_poly *t1, struct mldsa_poly *t0, const struct mldsa_poly *t)
{
	unsigned i;
	int32_t hi;

	for (i = 0; i < MLDSA_N; i++) {
		hi = (t->c[i] + (1 << (MLDSA_D - 1)) - 1) >> MLDSA_D;
		t0->c[i] = t->c[i] - (hi << MLDSA_D);
		t1->c[i] = hi;
	}
}

/* r in (-q, q); AVX2 where the CPU has it (avx2.h), the loops of coeffs.h otherwise */
void mldsa_poly_decompose(struct mldsa_poly *r1, struct mldsa_poly *r0, const struct mldsa_poly *r,
	int32_t gamma2)
{
	MLDSA_AVX2_OR(mldsa_decompose_avx2(r1, r0, r, gamma2), coeffs_decompose(r1, r0, r, gamma2));
}

unsigned mldsa_poly_make_hint(struct mldsa_poly *h, const struct mldsa_poly *a0, const struct mldsa_poly *a1,
	int32_t gamma2)
{
	return MLDSA_AVX2_OR(mldsa_make_hint_avx2(h, a0, a1, gamma2), coeffs_make_hint(h, a0, a1, gamma2));
}

/* verification only, so public data: plain branches are fine; r in (-q, q) */
void mldsa_poly_use_hint(struct mldsa_poly *r1, const struct mldsa_poly *r, const uint8_t h[MLDSA_N],
	int32_t gamma2)
{
	struct decomposer d = decomposer(gamma2);
	int32_t hi, lo;
	unsigned i;

	for (i = 0; i < MLDSA_N; i++) {
		decompose(&d, mldsa_caddq(r->c[i]), &hi, &lo);
		if (h[i])
			hi = lo > 0 ? (hi + 1 == d.m ? 0 : hi + 1) : (hi == 0 ? d.m - 1 : hi - 1);
		r1->c[i] = hi;
	}
}
