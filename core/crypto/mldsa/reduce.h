/*
 * Modular reductions mod q = 8380417 on signed 32-bit coefficients.
 * Constant time: only multiplications, additions and shifts, no branch or table lookup on the
 * value. This relies on the compiler keeping them branch-free (gcc and clang do), on >> of a
 * negative value being an arithmetic shift and on conversions to a signed type wrapping, which
 * the assertions below check at compile time.
 */
#ifndef PQTPM_MLDSA_REDUCE_H
#define PQTPM_MLDSA_REDUCE_H

#include <stdint.h>

#include "crypto/mldsa/params.h"

_Static_assert((-1 >> 1) == -1, "arithmetic right shift of negative int required");
_Static_assert(((int64_t)-1 >> 1) == -1, "arithmetic right shift of negative int64_t required");
_Static_assert((int32_t)0x80000001u == -0x7fffffff, "modular conversion to int32_t required");

#define MLDSA_QINV 58728449u	/* q^-1 mod 2^32 */

/* q where the compiler cannot see it: for a constant q = 2^23 - 2^13 + 1 gcc emits five shifts
 * and subtractions instead of one multiplication, which is slower in the NTT's butterflies (the
 * portable inverse NTT took 1170 ns with them and 960 ns with imul on an AMD EPYC) */
static inline int64_t mldsa_q_opaque(void)
{
	int64_t q = MLDSA_Q;

#ifdef __GNUC__
	__asm__("" : "+r"(q));
#endif
	return q;
}

/* a * 2^-32 mod q, for |a| < q * 2^31; the result lies in (-q, q) */
static inline int32_t mldsa_montgomery(int64_t a)
{
	/* a q^-1 mod 2^32 as a signed value in [-2^31, 2^31) */
	int32_t t = (int32_t)((uint32_t)a * MLDSA_QINV);

	return (int32_t)((a - (int64_t)t * mldsa_q_opaque()) >> 32);
}

/* a mod q in [-6283008, 6283008], for a <= 2^31 - 2^22 - 1 */
static inline int32_t mldsa_reduce32(int32_t a)
{
	int32_t t = (a + (1 << 22)) >> 23;

	return a - t * MLDSA_Q;
}

/* add q if a is negative: (-q, q) -> [0, q) */
static inline int32_t mldsa_caddq(int32_t a)
{
	return a + ((a >> 31) & MLDSA_Q);
}

#endif
