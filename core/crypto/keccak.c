/* Keccak-f[1600] on 64-bit lanes (lane (x, y) is s[x + 5y], bytes little-endian) and the FIPS 202 sponge. */
#include <string.h>

#include "crypto/keccak.h"

/* rotation left by a constant 0..63 (the mask keeps n = 0 defined) */
#define ROL(v, n) (((v) << (n)) | ((v) >> ((64 - (n)) & 63)))

/* RC[i] for round i, from the rc(t) LFSR of FIPS 202 Alg. 5/6 */
static const uint64_t round_constants[24] = {
	0x0000000000000001ULL, 0x0000000000008082ULL, 0x800000000000808aULL, 0x8000000080008000ULL,
	0x000000000000808bULL, 0x0000000080000001ULL, 0x8000000080008081ULL, 0x8000000000008009ULL,
	0x000000000000008aULL, 0x0000000000000088ULL, 0x0000000080008009ULL, 0x000000008000000aULL,
	0x000000008000808bULL, 0x800000000000008bULL, 0x8000000000008089ULL, 0x8000000000008003ULL,
	0x8000000000008002ULL, 0x8000000000000080ULL, 0x000000000000800aULL, 0x800000008000000aULL,
	0x8000000080008081ULL, 0x8000000000008080ULL, 0x0000000080000001ULL, 0x8000000080008008ULL,
};

/*
 * One output plane y (lanes e[y5 .. y5 + 4]) of a round: rho and pi pick lane i_x of the input,
 * with theta's d applied and rotated by r_x (lane (x, y) moves to (y, 2x + 3y)), then chi.
 * Working plane by plane keeps only five temporaries alive.
 */
#define PLANE(e, a, y5, i0, r0, i1, r1, i2, r2, i3, r3, i4, r4) do { \
	b0 = ROL(a[i0] ^ d[i0 % 5], r0); \
	b1 = ROL(a[i1] ^ d[i1 % 5], r1); \
	b2 = ROL(a[i2] ^ d[i2 % 5], r2); \
	b3 = ROL(a[i3] ^ d[i3 % 5], r3); \
	b4 = ROL(a[i4] ^ d[i4 % 5], r4); \
	e[y5 + 0] = b0 ^ (~b1 & b2); \
	e[y5 + 1] = b1 ^ (~b2 & b3); \
	e[y5 + 2] = b2 ^ (~b3 & b4); \
	e[y5 + 3] = b3 ^ (~b4 & b0); \
	e[y5 + 4] = b4 ^ (~b0 & b1); \
} while (0)

/* one round from state a into state e; iota last */
#define ROUND(e, a, rc) do { \
	c0 = a[0] ^ a[5] ^ a[10] ^ a[15] ^ a[20]; \
	c1 = a[1] ^ a[6] ^ a[11] ^ a[16] ^ a[21]; \
	c2 = a[2] ^ a[7] ^ a[12] ^ a[17] ^ a[22]; \
	c3 = a[3] ^ a[8] ^ a[13] ^ a[18] ^ a[23]; \
	c4 = a[4] ^ a[9] ^ a[14] ^ a[19] ^ a[24]; \
	d[0] = c4 ^ ROL(c1, 1); \
	d[1] = c0 ^ ROL(c2, 1); \
	d[2] = c1 ^ ROL(c3, 1); \
	d[3] = c2 ^ ROL(c4, 1); \
	d[4] = c3 ^ ROL(c0, 1); \
	PLANE(e, a, 0, 0, 0, 6, 44, 12, 43, 18, 21, 24, 14); \
	PLANE(e, a, 5, 3, 28, 9, 20, 10, 3, 16, 45, 22, 61); \
	PLANE(e, a, 10, 1, 1, 7, 6, 13, 25, 19, 8, 20, 18); \
	PLANE(e, a, 15, 4, 27, 5, 36, 11, 10, 17, 15, 23, 56); \
	PLANE(e, a, 20, 2, 62, 8, 55, 14, 39, 15, 41, 21, 2); \
	e[0] ^= (rc); \
} while (0)

void keccak_f1600(uint64_t s[25])
{
	uint64_t e[25], d[5], b0, b1, b2, b3, b4, c0, c1, c2, c3, c4;
	int round;

	/* two rounds per pass, state s -> e -> s, so no copying between rounds */
	for (round = 0; round < 24; round += 2) {
		ROUND(e, s, round_constants[round]);
		ROUND(s, e, round_constants[round + 1]);
	}
}

/* written out so that compilers turn them into single loads and stores on little-endian hosts */
static uint64_t load64_le(const uint8_t *p)
{
	return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24
		| (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 | (uint64_t)p[7] << 56;
}

static void store64_le(uint8_t *p, uint64_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
	p[4] = (uint8_t)(v >> 32);
	p[5] = (uint8_t)(v >> 40);
	p[6] = (uint8_t)(v >> 48);
	p[7] = (uint8_t)(v >> 56);
}

static void init(struct keccak_ctx *ctx, unsigned rate, uint8_t pad)
{
	memset(ctx->s, 0, sizeof(ctx->s));
	ctx->rate = rate;
	ctx->pos = 0;
	ctx->pad = pad;
}

/* SHA3 appends the bits 01 before pad10*1, SHAKE appends 1111 (FIPS 202 section 6) */
void shake128_init(struct keccak_ctx *ctx)
{
	init(ctx, SHAKE128_RATE, 0x1f);
}

void shake256_init(struct keccak_ctx *ctx)
{
	init(ctx, SHAKE256_RATE, 0x1f);
}

void sha3_256_init(struct keccak_ctx *ctx)
{
	init(ctx, SHA3_256_RATE, 0x06);
}

void sha3_384_init(struct keccak_ctx *ctx)
{
	init(ctx, SHA3_384_RATE, 0x06);
}

void sha3_512_init(struct keccak_ctx *ctx)
{
	init(ctx, SHA3_512_RATE, 0x06);
}

void keccak_absorb(struct keccak_ctx *ctx, const uint8_t *in, size_t len)
{
	unsigned i;

	while (len > 0) {
		if (ctx->pos == 0 && len >= ctx->rate) {
			for (i = 0; i < ctx->rate / 8; i++)
				ctx->s[i] ^= load64_le(in + 8 * i);
			keccak_f1600(ctx->s);
			in += ctx->rate;
			len -= ctx->rate;
			continue;
		}
		ctx->s[ctx->pos / 8] ^= (uint64_t)*in++ << (8 * (ctx->pos % 8));
		len--;
		if (++ctx->pos == ctx->rate) {
			keccak_f1600(ctx->s);
			ctx->pos = 0;
		}
	}
}

void keccak_finalize(struct keccak_ctx *ctx)
{
	ctx->s[ctx->pos / 8] ^= (uint64_t)ctx->pad << (8 * (ctx->pos % 8));
	ctx->s[(ctx->rate - 1) / 8] ^= 0x80ULL << (8 * ((ctx->rate - 1) % 8));
	ctx->pos = ctx->rate;	/* the padded block still has to be permuted */
}

void keccak_squeeze(struct keccak_ctx *ctx, uint8_t *out, size_t len)
{
	unsigned i;

	while (len > 0) {
		if (ctx->pos == ctx->rate) {
			keccak_f1600(ctx->s);
			ctx->pos = 0;
			if (len >= ctx->rate) {
				for (i = 0; i < ctx->rate / 8; i++)
					store64_le(out + 8 * i, ctx->s[i]);
				ctx->pos = ctx->rate;
				out += ctx->rate;
				len -= ctx->rate;
				continue;
			}
		}
		*out++ = (uint8_t)(ctx->s[ctx->pos / 8] >> (8 * (ctx->pos % 8)));
		ctx->pos++;
		len--;
	}
}

static void oneshot(struct keccak_ctx *ctx, uint8_t *out, size_t outlen, const uint8_t *in, size_t inlen)
{
	keccak_absorb(ctx, in, inlen);
	keccak_finalize(ctx);
	keccak_squeeze(ctx, out, outlen);
	keccak_wipe(ctx, sizeof(*ctx));	/* the input may be a secret seed */
}

void sha3_256(uint8_t out[32], const uint8_t *in, size_t len)
{
	struct keccak_ctx ctx;

	sha3_256_init(&ctx);
	oneshot(&ctx, out, 32, in, len);
}

void sha3_384(uint8_t out[48], const uint8_t *in, size_t len)
{
	struct keccak_ctx ctx;

	sha3_384_init(&ctx);
	oneshot(&ctx, out, 48, in, len);
}

void sha3_512(uint8_t out[64], const uint8_t *in, size_t len)
{
	struct keccak_ctx ctx;

	sha3_512_init(&ctx);
	oneshot(&ctx, out, 64, in, len);
}

void shake128(uint8_t *out, size_t outlen, const uint8_t *in, size_t inlen)
{
	struct keccak_ctx ctx;

	shake128_init(&ctx);
	oneshot(&ctx, out, outlen, in, inlen);
}

void shake256(uint8_t *out, size_t outlen, const uint8_t *in, size_t inlen)
{
	struct keccak_ctx ctx;

	shake256_init(&ctx);
	oneshot(&ctx, out, outlen, in, inlen);
}

/* memset called through a volatile pointer: the compiler cannot know it is memset and drop it */
static void *(*const volatile wipe_memset)(void *, int, size_t) = memset;

void keccak_wipe(void *p, size_t len)
{
	wipe_memset(p, 0, len);
}
