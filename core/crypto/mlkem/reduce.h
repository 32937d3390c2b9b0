/*
 * Modular reductions mod q = 3329 on signed 16-bit coefficients.
 * Constant time: only multiplications, additions and shifts, no branch or table lookup on the
 * value. This relies on the compiler keeping them branch-free (gcc and clang do) and on >> of a
 * negative value being an arithmetic shift, which the assertion below checks at compile time.
 */
#ifndef PQTPM_MLKEM_REDUCE_H
#define PQTPM_MLKEM_REDUCE_H

#include <stdint.h>

#include "crypto/mlkem/params.h"

_Static_assert((-1 >> 1) == -1, "arithmetic right shift of negative int required");

#define MLKEM_QINV 62209u	/* q^-1 mod 2^16 */
#define MLKEM_BARRETT 20159	/* round(2^26 / q) */

/* a * 2^-16 mod q, for |a| < q * 2^15; the result lies in (-q, q) */
static inline int16_t mlkem_montgomery(int32_t a)
{
	uint32_t u = ((uint32_t)a * MLKEM_QINV) & 0xffff;
	/* u as a signed 16-bit value, without an implementation-defined conversion */
	int32_t t = (int32_t)(u & 0x7fff) - (int32_t)(u & 0x8000);

	return (int16_t)((a - t * MLKEM_Q) >> 16);
}

/* a * b * 2^-16 mod q */
static inline int16_t mlkem_fqmul(int16_t a, int16_t b)
{
	return mlkem_montgomery((int32_t)a * b);
}

/* a mod q centered in [-(q - 1) / 2, (q - 1) / 2] */
static inline int16_t mlkem_barrett(int16_t a)
{
	int32_t t = (MLKEM_BARRETT * (int32_t)a + (1 << 25)) >> 26;

	return (int16_t)(a - t * MLKEM_Q);
}

/* add q if a is negative: (-q, q) -> [0, q) */
static inline uint16_t mlkem_caddq(int16_t a)
{
	return (uint16_t)(a + ((a >> 15) & MLKEM_Q));
}

#endif
