/* Keccak-f[1600] on 64-bit lanes (lane (x, y) is s[x + 5y], bytes little-endian; the rounds are in
 * keccak_rounds.h) and the FIPS 202 sponge. */
#include <string.h>

#include "crypto/cpu.h"
#include "crypto/keccak.h"
#include "crypto/keccak_rounds.h"

#define LOAD(v, n) v = s[n];
#define STORE(v, n) s[n] = v;

static void permute(uint64_t s[25])
{
	KECCAK_PERMUTE(uint64_t, LOAD, STORE);
}

/* the same rounds compiled for BMI (and-not and three-operand rotations) where the CPU has it */
void keccak_f1600(uint64_t s[25])
{
#ifdef KECCAK_AVX2
	if (crypto_cpu_avx2()) {
		keccak_f1600_bmi(s);
		return;
	}
#endif
	permute(s);
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

#ifdef KECCAK_AVX2
static void x4_absorb(struct keccak_x4 *ctx, unsigned rate, const uint8_t *const in[4], size_t len)
{
	uint64_t last[25];
	size_t off, i;
	unsigned j;

	memset(ctx->s, 0, sizeof(ctx->s));
	ctx->rate = rate;
	for (off = 0; len - off >= rate; off += rate) {
		for (j = 0; j < 4; j++)
			for (i = 0; i < rate / 8; i++)
				ctx->s[4 * i + j] ^= load64_le(in[j] + off + 8 * i);
		keccak_f1600_x4_avx2(ctx->s);
	}
	/* the rest of each input and the SHAKE padding (0x1f ... 0x80), lane by lane */
	for (j = 0; j < 4; j++) {
		memset(last, 0, sizeof(last));
		xor_bytes(last, 0, in[j] + off, len - off);
		last[(len - off) / 8] ^= 0x1fULL << (8 * ((len - off) % 8));
		last[(rate - 1) / 8] ^= 0x80ULL << (8 * ((rate - 1) % 8));
		for (i = 0; i < rate / 8; i++)
			ctx->s[4 * i + j] ^= last[i];
	}
	keccak_wipe(last, sizeof(last));
}

void shake128_x4_absorb(struct keccak_x4 *ctx, const uint8_t *const in[4], size_t len)
{
	x4_absorb(ctx, SHAKE128_RATE, in, len);
}

void shake256_x4_absorb(struct keccak_x4 *ctx, const uint8_t *const in[4], size_t len)
{
	x4_absorb(ctx, SHAKE256_RATE, in, len);
}

void keccak_x4_squeeze_blocks(struct keccak_x4 *ctx, uint8_t *const out[4], size_t nblocks)
{
	const size_t words = ctx->rate / 8;
	size_t b, i;
	unsigned j;
	uint8_t *o;

	for (b = 0; b < nblocks; b++) {
		keccak_f1600_x4_avx2(ctx->s);
		for (j = 0; j < 4; j++) {
			o = out[j] + b * 8 * words;
			for (i = 0; i < words; i++)
				store64_le(o + 8 * i, ctx->s[4 * i + j]);
		}
	}
}
#endif

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
