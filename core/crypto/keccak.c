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
 * The 25 lanes live in local variables (aXY is lane (x, y) = s[x + 5y]) so that the compiler
 * keeps as many as it can in registers; a round reads the a lanes and writes the e lanes, the
 * next one the other way round, so nothing is copied between rounds.
 *
 * One output plane y of a round: rho and pi take lane (x, y) to (y, 2x + 3y), so plane y gathers
 * the input lanes (i, i + y) (indices mod 5) of the five columns i, with theta's d of the column
 * applied and rotated by r; then chi along the plane.
 */
#define PLANE(o0, o1, o2, o3, o4, i, x0, y0, r0, x1, y1, r1, x2, y2, r2, x3, y3, r3, x4, y4, r4) do { \
	b0 = ROL(i##x0##y0 ^ d##x0, r0); \
	b1 = ROL(i##x1##y1 ^ d##x1, r1); \
	b2 = ROL(i##x2##y2 ^ d##x2, r2); \
	b3 = ROL(i##x3##y3 ^ d##x3, r3); \
	b4 = ROL(i##x4##y4 ^ d##x4, r4); \
	o0 = b0 ^ (~b1 & b2); \
	o1 = b1 ^ (~b2 & b3); \
	o2 = b2 ^ (~b3 & b4); \
	o3 = b3 ^ (~b4 & b0); \
	o4 = b4 ^ (~b0 & b1); \
} while (0)

/* one round from the lanes named i.. into the lanes named o..; iota last */
#define ROUND(o, i, rc) do { \
	c0 = i##00 ^ i##01 ^ i##02 ^ i##03 ^ i##04; \
	c1 = i##10 ^ i##11 ^ i##12 ^ i##13 ^ i##14; \
	c2 = i##20 ^ i##21 ^ i##22 ^ i##23 ^ i##24; \
	c3 = i##30 ^ i##31 ^ i##32 ^ i##33 ^ i##34; \
	c4 = i##40 ^ i##41 ^ i##42 ^ i##43 ^ i##44; \
	d0 = c4 ^ ROL(c1, 1); \
	d1 = c0 ^ ROL(c2, 1); \
	d2 = c1 ^ ROL(c3, 1); \
	d3 = c2 ^ ROL(c4, 1); \
	d4 = c3 ^ ROL(c0, 1); \
	PLANE(o##00, o##10, o##20, o##30, o##40, i, 0, 0, 0, 1, 1, 44, 2, 2, 43, 3, 3, 21, 4, 4, 14); \
	PLANE(o##01, o##11, o##21, o##31, o##41, i, 3, 0, 28, 4, 1, 20, 0, 2, 3, 1, 3, 45, 2, 4, 61); \
	PLANE(o##02, o##12, o##22, o##32, o##42, i, 1, 0, 1, 2, 1, 6, 3, 2, 25, 4, 3, 8, 0, 4, 18); \
	PLANE(o##03, o##13, o##23, o##33, o##43, i, 4, 0, 27, 0, 1, 36, 1, 2, 10, 2, 3, 15, 3, 4, 56); \
	PLANE(o##04, o##14, o##24, o##34, o##44, i, 2, 0, 62, 3, 1, 55, 4, 2, 39, 0, 3, 41, 1, 4, 2); \
	o##00 ^= (rc); \
} while (0)

/* the lanes in the order of s[] (x + 5y), for loading and storing */
#define LANES(f, p) \
	f(p##00, 0) f(p##10, 1) f(p##20, 2) f(p##30, 3) f(p##40, 4) \
	f(p##01, 5) f(p##11, 6) f(p##21, 7) f(p##31, 8) f(p##41, 9) \
	f(p##02, 10) f(p##12, 11) f(p##22, 12) f(p##32, 13) f(p##42, 14) \
	f(p##03, 15) f(p##13, 16) f(p##23, 17) f(p##33, 18) f(p##43, 19) \
	f(p##04, 20) f(p##14, 21) f(p##24, 22) f(p##34, 23) f(p##44, 24)
#define DECLARE(v, n) uint64_t v;
#define LOAD(v, n) v = s[n];
#define STORE(v, n) s[n] = v;

void keccak_f1600(uint64_t s[25])
{
	LANES(DECLARE, a)
	LANES(DECLARE, e)
	uint64_t b0, b1, b2, b3, b4, c0, c1, c2, c3, c4, d0, d1, d2, d3, d4;
	int round;

	LANES(LOAD, a)
	for (round = 0; round < 24; round += 2) {
		ROUND(e, a, round_constants[round]);
		ROUND(a, e, round_constants[round + 1]);
	}
	LANES(STORE, a)
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

/* s ^= in at byte offset pos, len bytes within one block: whole lanes where they line up */
static void xor_bytes(uint64_t *s, unsigned pos, const uint8_t *in, size_t len)
{
	for (; len > 0 && pos % 8; len--, pos++)
		s[pos / 8] ^= (uint64_t)*in++ << (8 * (pos % 8));
	for (; len >= 8; len -= 8, pos += 8, in += 8)
		s[pos / 8] ^= load64_le(in);
	for (; len > 0; len--, pos++)
		s[pos / 8] ^= (uint64_t)*in++ << (8 * (pos % 8));
}

static void copy_bytes(uint8_t *out, const uint64_t *s, unsigned pos, size_t len)
{
	for (; len > 0 && pos % 8; len--, pos++)
		*out++ = (uint8_t)(s[pos / 8] >> (8 * (pos % 8)));
	for (; len >= 8; len -= 8, pos += 8, out += 8)
		store64_le(out, s[pos / 8]);
	for (; len > 0; len--, pos++)
		*out++ = (uint8_t)(s[pos / 8] >> (8 * (pos % 8)));
}

void keccak_absorb(struct keccak_ctx *ctx, const uint8_t *in, size_t len)
{
	size_t n;

	while (len > 0) {
		n = ctx->rate - ctx->pos;
		if (n > len)
			n = len;
		xor_bytes(ctx->s, ctx->pos, in, n);
		in += n;
		len -= n;
		ctx->pos += (unsigned)n;
		if (ctx->pos == ctx->rate) {
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
	size_t n;

	while (len > 0) {
		if (ctx->pos == ctx->rate) {
			keccak_f1600(ctx->s);
			ctx->pos = 0;
		}
		n = ctx->rate - ctx->pos;
		if (n > len)
			n = len;
		copy_bytes(out, ctx->s, ctx->pos, n);
		out += n;
		len -= n;
		ctx->pos += (unsigned)n;
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
