/*
 * The rounds of Keccak-f[1600] (FIPS 202 section 3) written once over a lane type: uint64_t for the
 * permutation of one state (keccak.c, and keccak_avx2.c's copy compiled for BMI), or a GNU vector
 * of four uint64_t for four states at once (keccak_avx2.c), whose ^, &, ~, << and >> act lane by
 * lane. Only the Keccak files include it.
 */
#ifndef PQTPM_CRYPTO_KECCAK_ROUNDS_H
#define PQTPM_CRYPTO_KECCAK_ROUNDS_H

#include <stdint.h>

/* rotation left by a constant 0..63 (the mask keeps n = 0 defined) */
#define KECCAK_ROL(v, n) (((v) << (n)) | ((v) >> ((64 - (n)) & 63)))

/* RC[i] for round i, from the rc(t) LFSR of FIPS 202 Alg. 5/6 */
static const uint64_t keccak_round_constants[24] = {
	0x0000000000000001ULL, 0x0000000000008082ULL, 0x800000000000808aULL, 0x8000000080008000ULL,
	0x000000000000808bULL, 0x0000000080000001ULL, 0x8000000080008081ULL, 0x8000000000008009ULL,
	0x000000000000008aULL, 0x0000000000000088ULL, 0x0000000080008009ULL, 0x000000008000000aULL,
	0x000000008000808bULL, 0x800000000000008bULL, 0x8000000000008089ULL, 0x8000000000008003ULL,
	0x8000000000008002ULL, 0x8000000000000080ULL, 0x000000000000800aULL, 0x800000008000000aULL,
	0x8000000080008081ULL, 0x8000000000008080ULL, 0x0000000080000001ULL, 0x8000000080008008ULL,
};

/*
 * The 25 lanes live in local variables (aXY is lane (x, y) = s[x + 5y]) so that the compiler
 * keeps as many as it can in registers; a round reads the a lanes and writes the e lanes, the
 * next one the other way round, so nothing is copied between rounds.
 *
 * One output plane y of a round: rho and pi take lane (x, y) to (y, 2x + 3y), so plane y gathers
 * the input lanes (i, i + y) (indices mod 5) of the five columns i, with theta's d of the column
 * applied and rotated by r; then chi along the plane.
 */
#define KECCAK_PLANE(o0, o1, o2, o3, o4, i, x0, y0, r0, x1, y1, r1, x2, y2, r2, x3, y3, r3, x4, y4, r4) do { \
	b0 = KECCAK_ROL(i##x0##y0 ^ d##x0, r0); \
	b1 = KECCAK_ROL(i##x1##y1 ^ d##x1, r1); \
	b2 = KECCAK_ROL(i##x2##y2 ^ d##x2, r2); \
	b3 = KECCAK_ROL(i##x3##y3 ^ d##x3, r3); \
	b4 = KECCAK_ROL(i##x4##y4 ^ d##x4, r4); \
	o0 = b0 ^ (~b1 & b2); \
	o1 = b1 ^ (~b2 & b3); \
	o2 = b2 ^ (~b3 & b4); \
	o3 = b3 ^ (~b4 & b0); \
	o4 = b4 ^ (~b0 & b1); \
} while (0)

/* one round from the lanes named i.. into the lanes named o..; iota last */
#define KECCAK_ROUND(o, i, rc) do { \
	c0 = i##00 ^ i##01 ^ i##02 ^ i##03 ^ i##04; \
	c1 = i##10 ^ i##11 ^ i##12 ^ i##13 ^ i##14; \
	c2 = i##20 ^ i##21 ^ i##22 ^ i##23 ^ i##24; \
	c3 = i##30 ^ i##31 ^ i##32 ^ i##33 ^ i##34; \
	c4 = i##40 ^ i##41 ^ i##42 ^ i##43 ^ i##44; \
	d0 = c4 ^ KECCAK_ROL(c1, 1); \
	d1 = c0 ^ KECCAK_ROL(c2, 1); \
	d2 = c1 ^ KECCAK_ROL(c3, 1); \
	d3 = c2 ^ KECCAK_ROL(c4, 1); \
	d4 = c3 ^ KECCAK_ROL(c0, 1); \
	KECCAK_PLANE(o##00, o##10, o##20, o##30, o##40, i, 0, 0, 0, 1, 1, 44, 2, 2, 43, 3, 3, 21, 4, 4, 14); \
	KECCAK_PLANE(o##01, o##11, o##21, o##31, o##41, i, 3, 0, 28, 4, 1, 20, 0, 2, 3, 1, 3, 45, 2, 4, 61); \
	KECCAK_PLANE(o##02, o##12, o##22, o##32, o##42, i, 1, 0, 1, 2, 1, 6, 3, 2, 25, 4, 3, 8, 0, 4, 18); \
	KECCAK_PLANE(o##03, o##13, o##23, o##33, o##43, i, 4, 0, 27, 0, 1, 36, 1, 2, 10, 2, 3, 15, 3, 4, 56); \
	KECCAK_PLANE(o##04, o##14, o##24, o##34, o##44, i, 2, 0, 62, 3, 1, 55, 4, 2, 39, 0, 3, 41, 1, 4, 2); \
	o##00 ^= (rc); \
} while (0)

/* the lanes in the order of s[] (x + 5y), for loading and storing */
#define KECCAK_LANES(f, p) \
	f(p##00, 0) f(p##10, 1) f(p##20, 2) f(p##30, 3) f(p##40, 4) \
	f(p##01, 5) f(p##11, 6) f(p##21, 7) f(p##31, 8) f(p##41, 9) \
	f(p##02, 10) f(p##12, 11) f(p##22, 12) f(p##32, 13) f(p##42, 14) \
	f(p##03, 15) f(p##13, 16) f(p##23, 17) f(p##33, 18) f(p##43, 19) \
	f(p##04, 20) f(p##14, 21) f(p##24, 22) f(p##34, 23) f(p##44, 24)
#define KECCAK_DECLARE(v, n) keccak_lane_ v;

/*
 * The permutation as a statement over lanes of type T: LOAD(v, n) and STORE(v, n) move lane n of
 * the state in and out. Two rounds per pass, a -> e -> a.
 */
#define KECCAK_PERMUTE(T, LOAD, STORE) do { \
	typedef T keccak_lane_; \
	KECCAK_LANES(KECCAK_DECLARE, a) \
	KECCAK_LANES(KECCAK_DECLARE, e) \
	T b0, b1, b2, b3, b4, c0, c1, c2, c3, c4, d0, d1, d2, d3, d4; \
	KECCAK_LANES(LOAD, a) \
	for (int round_ = 0; round_ < 24; round_ += 2) { \
		KECCAK_ROUND(e, a, keccak_round_constants[round_]); \
		KECCAK_ROUND(a, e, keccak_round_constants[round_ + 1]); \
	} \
	KECCAK_LANES(STORE, a) \
} while (0)

#endif
