/*
 * Keccak-f[1600] for CPUs with AVX2 (only called where crypto_cpu_avx2() is true): four states at
 * once with a lane of each in one 256-bit vector, and the one-state permutation compiled for BMI.
 * Both are the rounds of keccak_rounds.h: on GNU vectors the compiler emits vpxor, vpandn and
 * shift pairs for the rotations. No table lookup and no branch depend on the state.
 */
#include <string.h>

#include "crypto/keccak.h"
#include "crypto/keccak_rounds.h"

#ifdef KECCAK_AVX2
#ifndef __AVX2__
#error "keccak_avx2.c is compiled with -mavx2 (Makefile)"
#endif

typedef uint64_t lanes4 __attribute__((vector_size(32)));

void keccak_f1600_x4_avx2(uint64_t s[25 * 4])
{
#define LOAD4(v, n) memcpy(&v, s + 4 * (n), sizeof(v));
#define STORE4(v, n) memcpy(s + 4 * (n), &v, sizeof(v));
	KECCAK_PERMUTE(lanes4, LOAD4, STORE4);
}

void keccak_f1600_bmi(uint64_t s[25])
{
#define LOAD(v, n) v = s[n];
#define STORE(v, n) s[n] = v;
	KECCAK_PERMUTE(uint64_t, LOAD, STORE);
}

#endif
