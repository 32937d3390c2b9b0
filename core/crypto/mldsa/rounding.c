/* Power2Round, Decompose, MakeHint and UseHint (FIPS 204 Alg. 35-40) on whole polynomials. */
#include "crypto/mldsa/poly.h"
#include "crypto/mldsa/reduce.h"

/*
 * Decompose(r) for r in [0, q): r1 = floor((r + gamma2 - 1) / (2 gamma2)) puts r0 = r - 2 gamma2 r1
 * in (-gamma2, gamma2]; the top value r1 = m = (q - 1) / (2 gamma2) wraps to 0 with r0 - 1.
 * 2 gamma2 is 2^9 * 1023 or 2^11 * 93, so the division is a shift and then a multiplication by
 * ceil(2^s / d) and a shift by s, in 32-bit arithmetic. That quotient is exact when the error
 * e = ceil(2^s / d) d - 2^s satisfies v e < 2^s for every v = u >> shift that occurs:
 *   d = 1023, s = 25: v < 16880, e = 991;  d = 93, s = 18: v < 4139, e = 23
 * (test_mldsa checks every r). The wrap is a mask: nothing branches on the secret r, and the
 * loops stay plain enough for the compiler to vectorize.
 */
struct decomposer {
	int32_t gamma2, m;
	unsigned shift, s;
	int32_t mul;
};

static inline struct decomposer decomposer(int32_t gamma2)
{
	struct decomposer d;

	d.gamma2 = gamma2;
	if (gamma2 == (MLDSA_Q - 1) / 32) {
		d.m = 16;
		d.shift = 9;
		d.s = 25;
		d.mul = 32801;
	} else {
		d.m = 44;
		d.shift = 11;
		d.s = 18;
		d.mul = 2819;
	}
	return d;
}

static inline void decompose(const struct decomposer *d, int32_t r, int32_t *r1, int32_t *r0)
{
	int32_t k = (((r + d->gamma2 - 1) >> d->shift) * d->mul) >> d->s;
	int32_t wrap = (d->m - 1 - k) >> 31;	/* all ones iff k == m */

	*r1 = k & ~wrap;
	*r0 = r - k * 2 * d->gamma2 + wrap;
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

static inline void decompose_poly(const struct decomposer *d, struct mldsa_poly *r1,
	struct mldsa_poly *r0, const struct mldsa_poly *r)
{
	unsigned i;

	for (i = 0; i < MLDSA_N; i++)
		decompose(d, mldsa_caddq(r->c[i]), &r1->c[i], &r0->c[i]);
}

/* two copies, so that gamma2 is a constant in each loop */
void mldsa_poly_decompose(struct mldsa_poly *r1, struct mldsa_poly *r0, const struct mldsa_poly *r,
	int32_t gamma2)
{
	if (gamma2 == (MLDSA_Q - 1) / 32) {
		struct decomposer d = decomposer((MLDSA_Q - 1) / 32);

		decompose_poly(&d, r1, r0, r);
	} else {
		struct decomposer d = decomposer((MLDSA_Q - 1) / 88);

		decompose_poly(&d, r1, r0, r);
	}
}

/* 1 if x != 0, without a branch */
static inline int32_t nonzero(int32_t x)
{
	uint32_t u = (uint32_t)x;

	return (int32_t)((u | (0u - u)) >> 31);
}

/*
 * Alg. 7 line 26, h = MakeHint(-c t0, w - c s2 + c t0), from a0 = LowBits(w - c s2) + c t0 (both
 * centered) and a1 = HighBits(w) (equal to HighBits(w - c s2) once the r0 check passed, as
 * |c s2| <= beta). Adding c t0 moves the high bits exactly when a0 leaves (-gamma2, gamma2],
 * except a0 = -gamma2 with a1 = 0: w - c s2 + c t0 is then q - gamma2, whose r1 wraps to 0 too.
 * Returns the number of ones.
 */
static inline unsigned make_hint_poly(int32_t gamma2, struct mldsa_poly *h, const struct mldsa_poly *a0,
	const struct mldsa_poly *a1)
{
	unsigned i, count = 0;
	int32_t out;

	for (i = 0; i < MLDSA_N; i++) {
		out = ((gamma2 - a0->c[i]) >> 31) | ((a0->c[i] + gamma2) >> 31);
		h->c[i] = (out & 1) | ((1 - nonzero(a0->c[i] + gamma2)) & nonzero(a1->c[i]));
		count += (unsigned)h->c[i];
	}
	return count;
}

unsigned mldsa_poly_make_hint(struct mldsa_poly *h, const struct mldsa_poly *a0, const struct mldsa_poly *a1,
	int32_t gamma2)
{
	if (gamma2 == (MLDSA_Q - 1) / 32)
		return make_hint_poly((MLDSA_Q - 1) / 32, h, a0, a1);
	return make_hint_poly((MLDSA_Q - 1) / 88, h, a0, a1);
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
