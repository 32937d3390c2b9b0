/* Power2Round, Decompose, MakeHint and UseHint (FIPS 204 Alg. 35-40) on whole polynomials. */
#include "crypto/mldsa/poly.h"

/*
 * Decompose(r) for r in [0, q): r1 = ceil((r - gamma2) / (2 gamma2)) puts r0 = r - 2 gamma2 r1 in
 * (-gamma2, gamma2]; the top value r1 = (q - 1) / (2 gamma2) wraps to 0 with r0 - 1.
 * The division is a multiplication by ceil(2^48 / (2 gamma2)), exact because
 * (r + gamma2) * 2 gamma2 < 2^48, and the wrap is a mask: constant time for the secret w, as
 * long as the compiler keeps the mask arithmetic branch-free (gcc and clang do).
 */
struct decomposer {
	int32_t gamma2, m;	/* m = (q - 1) / (2 gamma2) */
	uint64_t recip;
};

static struct decomposer decomposer(int32_t gamma2)
{
	struct decomposer d;

	d.gamma2 = gamma2;
	d.m = (MLDSA_Q - 1) / (2 * gamma2);
	d.recip = ((1ULL << 48) + 2 * (uint64_t)gamma2 - 1) / (2 * (uint64_t)gamma2);
	return d;
}

static inline void decompose(const struct decomposer *d, int32_t r, int32_t *r1, int32_t *r0)
{
	int32_t hi = (int32_t)(((uint64_t)(r + d->gamma2 - 1) * d->recip) >> 48);
	uint32_t diff = (uint32_t)(hi ^ d->m);
	uint32_t wrap = ((diff | (0u - diff)) >> 31) - 1;	/* all ones iff hi == m */

	*r0 = r - hi * 2 * d->gamma2 - (int32_t)(wrap & 1);
	*r1 = hi & (int32_t)~wrap;
}

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

/* r in [0, q); r1 or r0 may be NULL when only one half is wanted */
void mldsa_poly_decompose(struct mldsa_poly *r1, struct mldsa_poly *r0, const struct mldsa_poly *r,
	int32_t gamma2)
{
	struct decomposer d = decomposer(gamma2);
	int32_t hi, lo;
	unsigned i;

	for (i = 0; i < MLDSA_N; i++) {
		decompose(&d, r->c[i], &hi, &lo);
		if (r1)
			r1->c[i] = hi;
		if (r0)
			r0->c[i] = lo;
	}
}

/*
 * h = [HighBits(r) != HighBits(v)], both in [0, q); returns the number of ones. In signing
 * r = w - cs2 + ct0 and v = w - cs2, which is MakeHint(-ct0, w - cs2 + ct0) of Alg. 7 line 26.
 */
unsigned mldsa_poly_make_hint(struct mldsa_poly *h, const struct mldsa_poly *r, const struct mldsa_poly *v,
	int32_t gamma2)
{
	struct decomposer d = decomposer(gamma2);
	int32_t r1, v1, lo;
	uint32_t diff;
	unsigned i, count = 0;

	for (i = 0; i < MLDSA_N; i++) {
		decompose(&d, r->c[i], &r1, &lo);
		decompose(&d, v->c[i], &v1, &lo);
		diff = (uint32_t)(r1 ^ v1);
		h->c[i] = (int32_t)((diff | (0u - diff)) >> 31);
		count += (unsigned)h->c[i];
	}
	return count;
}

/* verification only, so public data: plain branches are fine */
void mldsa_poly_use_hint(struct mldsa_poly *r1, const struct mldsa_poly *r, const uint8_t h[MLDSA_N],
	int32_t gamma2)
{
	struct decomposer d = decomposer(gamma2);
	int32_t hi, lo;
	unsigned i;

	for (i = 0; i < MLDSA_N; i++) {
		decompose(&d, r->c[i], &hi, &lo);
		if (h[i])
			hi = lo > 0 ? (hi + 1 == d.m ? 0 : hi + 1) : (hi == 0 ? d.m - 1 : hi - 1);
		r1->c[i] = hi;
	}
}
