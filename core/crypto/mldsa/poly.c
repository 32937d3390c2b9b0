/* Coefficient-wise arithmetic on ML-DSA polynomials. */
#include "crypto/mldsa/poly.h"
#include "crypto/mldsa/reduce.h"

void mldsa_poly_add(struct mldsa_poly *r, const struct mldsa_poly *a, const struct mldsa_poly *b)
{
	unsigned i;

	for (i = 0; i < MLDSA_N; i++)
		r->c[i] = a->c[i] + b->c[i];
}

void mldsa_poly_sub(struct mldsa_poly *r, const struct mldsa_poly *a, const struct mldsa_poly *b)
{
	unsigned i;

	for (i = 0; i < MLDSA_N; i++)
		r->c[i] = a->c[i] - b->c[i];
}

/* to [-6283008, 6283008], which is the centered value for anything with |value| < q - 6283008 */
void mldsa_poly_reduce(struct mldsa_poly *a)
{
	unsigned i;

	for (i = 0; i < MLDSA_N; i++)
		a->c[i] = mldsa_reduce32(a->c[i]);
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
 * Every coefficient is looked at without a branch (the sign mask and the borrow bit rely on the
 * compiler not introducing one): where a rejected y failed must not leak.
 */
int mldsa_poly_exceeds(const struct mldsa_poly *a, int32_t bound)
{
	uint32_t over = 0;
	int32_t abs;
	unsigned i;

	for (i = 0; i < MLDSA_N; i++) {
		abs = a->c[i] - ((a->c[i] >> 31) & (2 * a->c[i]));
		over |= (uint32_t)(bound - 1 - abs);	/* top bit set iff abs >= bound */
	}
	return (int)(over >> 31);
}
