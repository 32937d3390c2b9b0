/* Keccak-f[1600] and the FIPS 202 functions built on it: SHA3-256/384/512 and SHAKE128/256. */
#ifndef PQTPM_CRYPTO_KECCAK_H
#define PQTPM_CRYPTO_KECCAK_H

#include <stddef.h>
#include <stdint.h>

#define SHAKE128_RATE 168
#define SHAKE256_RATE 136
#define SHA3_256_RATE 136
#define SHA3_384_RATE 104
#define SHA3_512_RATE 72

/*
 * A sponge: init, absorb any number of times, finalize once, then squeeze any number of
 * times. For the SHA3 functions squeeze the digest length once.
 */
struct keccak_ctx {
	uint64_t s[25];
	unsigned rate;		/* bytes */
	unsigned pos;		/* absorb: bytes taken in this block; squeeze: bytes given out */
	uint8_t pad;		/* domain separation and first padding bit */
};

void keccak_f1600(uint64_t s[25]);

/*
 * Four SHAKE instances side by side (ML-DSA samples four polynomials at once), on CPUs with AVX2
 * only: callers check crypto_cpu_avx2() (crypto/cpu.h) first. Lane i of instance j is s[4 i + j].
 * The inputs have one length; absorbing pads them, and squeezing gives whole blocks.
 */
#if defined(__x86_64__) && defined(__GNUC__)
#define KECCAK_AVX2 1
struct keccak_x4 {
	uint64_t s[25 * 4];
	unsigned rate;
};

void shake128_x4_absorb(struct keccak_x4 *ctx, const uint8_t *const in[4], size_t len);
void shake256_x4_absorb(struct keccak_x4 *ctx, const uint8_t *const in[4], size_t len);
void keccak_x4_squeeze_blocks(struct keccak_x4 *ctx, uint8_t *const out[4], size_t nblocks);

/* keccak_avx2.c, compiled for AVX2 and BMI: the four-state permutation, and the one-state
 * permutation that keccak_f1600 uses on such CPUs */
void keccak_f1600_x4_avx2(uint64_t s[25 * 4]);
void keccak_f1600_bmi(uint64_t s[25]);
#endif

void shake128_init(struct keccak_ctx *ctx);
void shake256_init(struct keccak_ctx *ctx);
void sha3_256_init(struct keccak_ctx *ctx);
void sha3_384_init(struct keccak_ctx *ctx);
void sha3_512_init(struct keccak_ctx *ctx);
void keccak_absorb(struct keccak_ctx *ctx, const uint8_t *in, size_t len);
void keccak_finalize(struct keccak_ctx *ctx);
void keccak_squeeze(struct keccak_ctx *ctx, uint8_t *out, size_t len);

void sha3_256(uint8_t out[32], const uint8_t *in, size_t len);
void sha3_384(uint8_t out[48], const uint8_t *in, size_t len);
void sha3_512(uint8_t out[64], const uint8_t *in, size_t len);
void shake128(uint8_t *out, size_t outlen, const uint8_t *in, size_t inlen);
void shake256(uint8_t *out, size_t outlen, const uint8_t *in, size_t inlen);

/* Overwrite memory in a way the compiler may not drop (used for every secret in core/crypto PQ code). */
void keccak_wipe(void *p, size_t len);

#endif
