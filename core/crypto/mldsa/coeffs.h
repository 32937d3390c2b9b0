/*
 * The coefficient-wise loops of the signing loop, written once and compiled twice: into poly.c
 * and rounding.c for any CPU, and into coeffs_avx2.c (-mavx2), where the compiler turns each loop
 * into eight lanes per instruction; poly.c and rounding.c call those where crypto_cpu_avx2().
 * Every loop is branch-free on the coefficients (masks and borrow bits), which stays true lane
 * by lane, and has a fixed trip count. Only poly.c, rounding.c and coeffs_avx2.c include it.
 */
#ifndef PQTPM_MLDSA_COEFFS_H
#define PQTPM_MLDSA_COEFFS_H

#include "crypto/mldsa/poly.h"
#include "crypto/mldsa/reduce.h"

static inline void coeffs_add(struct mldsa_poly *r, const struct mldsa_poly *a, const struct mldsa_poly *b)
{
	for (unsigned i = 0; i < MLDSA_N; i++)
		r->c[i] = a->c[i] + b->c[i];
}

static inline void coeffs_sub(struct mldsa_poly *r, const struct mldsa_poly *a, const struct mldsa_poly *b)
{
	for (unsigned i = 0; i < MLDSA_N; i++)
		r->c[i] = a->c[i] - b->c[i];
}

static inline void coeffs_reduce(struct mldsa_poly *a)
{
	for (unsigned i = 0; i < MLDSA_N; i++)
		a->c[i] = mldsa_reduce32(a->c[i]);
}

/* the sign mask and the borrow bit: top bit of over set iff some |c| >= bound */
static inline int coeffs_exceeds(const struct mldsa_poly *a, int32_t bound)
{
	uint32_t over = 0;
	int32_t abs;

	for (unsigned i = 0; i < MLDSA_N; i++) {
		abs = a->c[i] - ((a->c[i] >> 31) & (2 * a->c[i]));
		over |= (uint32_t)(bound - 1 - abs);
	}
	return (int)(over >> 31);
}

/*
 * Decompose(r) for r in [0, q): r1 = floor((r + gamma2 - 1) / (2 gamma2)) puts r0 = r - 2 gamma2 r1
 * in (-gamma2, gamma2]; the top value r1 = m = (q - 1) / (2 gamma2) wraps to 0 with r0 - 1.
 * 2 gamma2 is 2^9 * 1023 or 2^11 * 93, so the division is a shift and then a multiplication by
 * ceil(2^s / d) and a shift by s, in 32-bit arithmetic. That quotient is exact when the error
 * e = ceil(2^s / d) d - 2^s satisfies v e < 2^s for every v = u >> shift that occurs:
 *   d = 1023, s = 25: v < 16880, e = 991;  d = 93, s = 18: v < 4139, e = 23
 * (test_mldsa checks every r). The wrap is a mask.
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

/* r in (-q, q); one copy per gamma2, so that it is a constant in each loop */
static inline void decompose_poly(int32_t gamma2, struct mldsa_poly *r1, struct mldsa_poly *r0,
	const struct mldsa_poly *r)
{
	const struct decomposer d = decomposer(gamma2);

	for (unsigned i = 0; i < MLDSA_N; i++)
		decompose(&d, mldsa_caddq(r->c[i]), &r1->c[i], &r0->c[i]);
}

static inline void coeffs_decompose(struct mldsa_poly *r1, struct mldsa_poly *r0, const struct mldsa_poly *r,
	int32_t gamma2)
{
	if (gamma2 == (MLDSA_Q - 1) / 32)
		decompose_poly((MLDSA_Q - 1) / 32, r1, r0, r);
	else
		decompose_poly((MLDSA_Q - 1) / 88, r1, r0, r);
}

/* 1 if x != 0 */
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
 */
static inline unsigned make_hint_poly(int32_t gamma2, struct mldsa_poly *h, const struct mldsa_poly *a0,
	const struct mldsa_poly *a1)
{
	unsigned count = 0;
	int32_t out;

	for (unsigned i = 0; i < MLDSA_N; i++) {
		out = ((gamma2 - a0->c[i]) >> 31) | ((a0->c[i] + gamma2) >> 31);
		h->c[i] = (out & 1) | ((1 - nonzero(a0->c[i] + gamma2)) & nonzero(a1->c[i]));
		count += (unsigned)h->c[i];
	}
	return count;
}

static inline unsigned coeffs_make_hint(struct mldsa_poly *h, const struct mldsa_poly *a0,
	const struct mldsa_poly *a1, int32_t gamma2)
{
	if (gamma2 == (MLDSA_Q - 1) / 32)
		return make_hint_poly((MLDSA_Q - 1) / 32, h, a0, a1);
	return make_hint_poly((MLDSA_Q - 1) / 88, h, a0, a1);
}

#endif
