/* ML-DSA sampling from SHAKE: RejNTTPoly, RejBoundedPoly, ExpandMask, SampleInBall (FIPS 204 Alg. 29-34). */
#include <string.h>

#include "crypto/cpu.h"
#include "crypto/ct.h"
#include "crypto/keccak.h"
#include "crypto/mldsa/packing.h"
#include "crypto/mldsa/poly.h"

/* 5 blocks give 280 candidates: enough for 256 coefficients almost always (acceptance 0.999) */
#define UNIFORM_BLOCKS 5

/* CoeffFromThreeBytes over a buffer (a multiple of 3 bytes): 23 bits, kept if below q; appends
 * to a[n..] and returns the new n. A is public, so the rejections may branch. */
static unsigned rej_uniform(int32_t *a, unsigned n, const uint8_t *buf, size_t len)
{
	size_t pos;
	uint32_t v;

	for (pos = 0; pos < len && n < MLDSA_N; pos += 3) {
		v = buf[pos] | (uint32_t)buf[pos + 1] << 8 | (uint32_t)(buf[pos + 2] & 0x7f) << 16;
		if (v < MLDSA_Q)
			a[n++] = (int32_t)v;
	}
	return n;
}

/* RejNTTPoly(rho || col || row): A[row][col], already in the NTT domain; public data */
void mldsa_poly_uniform(struct mldsa_poly *a, const uint8_t rho[32], uint8_t col, uint8_t row)
{
	uint8_t seed[34], buf[UNIFORM_BLOCKS * SHAKE128_RATE];
	struct keccak_ctx ctx;
	unsigned n;

	memcpy(seed, rho, 32);
	seed[32] = col;
	seed[33] = row;
	shake128_init(&ctx);
	keccak_absorb(&ctx, seed, sizeof(seed));
	keccak_finalize(&ctx);
	keccak_squeeze(&ctx, buf, sizeof(buf));
	n = rej_uniform(a->c, 0, buf, sizeof(buf));
	while (n < MLDSA_N) {
		keccak_squeeze(&ctx, buf, SHAKE128_RATE);
		n = rej_uniform(a->c, n, buf, SHAKE128_RATE);
	}
}

/*
 * CoeffFromHalfByte over a buffer, appending to a[n..]; returns the new n.
 * Which half-bytes are rejected shows in the timing, but a rejected half-byte says nothing about
 * the kept ones (they are independent SHAKE output), so that is not a leak. The kept values are
 * computed without branches: for eta = 2, b mod 5 is b - 5 * floor(205 b / 1024) for b < 15.
 */
static unsigned rej_eta2(int32_t *a, unsigned n, const uint8_t *buf, size_t len)
{
	uint32_t lo, hi;
	unsigned keep_lo, keep_hi;
	size_t pos;

	for (pos = 0; pos < len && n < MLDSA_N; pos++) {
		lo = buf[pos] & 0x0f;
		hi = buf[pos] >> 4;
		keep_lo = lo < 15;
		keep_hi = hi < 15;
		/* whether a half-byte is kept may show, as argued above */
		CT_DECLASSIFY(&keep_lo, sizeof(keep_lo));
		CT_DECLASSIFY(&keep_hi, sizeof(keep_hi));
		if (keep_lo)
			a[n++] = 2 - (int32_t)(lo - 5 * ((205 * lo) >> 10));
		if (keep_hi && n < MLDSA_N)
			a[n++] = 2 - (int32_t)(hi - 5 * ((205 * hi) >> 10));
	}
	return n;
}

static unsigned rej_eta4(int32_t *a, unsigned n, const uint8_t *buf, size_t len)
{
	uint32_t lo, hi;
	unsigned keep_lo, keep_hi;
	size_t pos;

	for (pos = 0; pos < len && n < MLDSA_N; pos++) {
		lo = buf[pos] & 0x0f;
		hi = buf[pos] >> 4;
		keep_lo = lo < 9;
		keep_hi = hi < 9;
		/* as in rej_eta2 */
		CT_DECLASSIFY(&keep_lo, sizeof(keep_lo));
		CT_DECLASSIFY(&keep_hi, sizeof(keep_hi));
		if (keep_lo)
			a[n++] = 4 - (int32_t)lo;
		if (keep_hi && n < MLDSA_N)
			a[n++] = 4 - (int32_t)hi;
	}
	return n;
}

/* RejBoundedPoly(rho' || nonce): coefficients in [-eta, eta] */
void mldsa_poly_eta(struct mldsa_poly *a, const uint8_t rhoprime[64], uint16_t nonce, unsigned eta)
{
	uint8_t seed[66], buf[SHAKE256_RATE];
	struct keccak_ctx ctx;
	unsigned n = 0;

	memcpy(seed, rhoprime, 64);
	seed[64] = (uint8_t)nonce;
	seed[65] = (uint8_t)(nonce >> 8);
	shake256_init(&ctx);
	keccak_absorb(&ctx, seed, sizeof(seed));
	keccak_finalize(&ctx);
	while (n < MLDSA_N) {
		keccak_squeeze(&ctx, buf, sizeof(buf));
		n = eta == 2 ? rej_eta2(a->c, n, buf, sizeof(buf)) : rej_eta4(a->c, n, buf, sizeof(buf));
	}
	keccak_wipe(seed, sizeof(seed));
	keccak_wipe(buf, sizeof(buf));
	keccak_wipe(&ctx, sizeof(ctx));
}

/* ExpandMask, one polynomial: BitUnpack(H(rho'' || nonce), gamma1 - 1, gamma1) with nonce = kappa + r */
void mldsa_poly_mask(struct mldsa_poly *y, const uint8_t rhopp[64], uint16_t nonce, const struct mldsa_params *p)
{
	uint8_t seed[66], buf[32 * 20];
	struct keccak_ctx ctx;

	memcpy(seed, rhopp, 64);
	seed[64] = (uint8_t)nonce;
	seed[65] = (uint8_t)(nonce >> 8);
	shake256_init(&ctx);
	keccak_absorb(&ctx, seed, sizeof(seed));
	keccak_finalize(&ctx);
	keccak_squeeze(&ctx, buf, 32 * p->z_bits);
	mldsa_bitunpack(y, buf, p->z_bits, p->gamma1);
	keccak_wipe(seed, sizeof(seed));
	keccak_wipe(buf, sizeof(buf));
	keccak_wipe(&ctx, sizeof(ctx));
}

/*
 * Up to four polynomials of one kind at once: ExpandA, ExpandS and ExpandMask draw many, each from
 * its own SHAKE instance, so with AVX2 four instances run side by side (keccak_x4, the same output
 * bytes as one at a time); otherwise, or for a single one, they run one after another.
 */
#ifdef KECCAK_AVX2
#define MASK_BLOCKS 5	/* 680 bytes >= 32 * 20 */
#define ETA_BLOCKS 2	/* 544 half-bytes: enough for 256 coefficients almost always */

/* seed || nonce (little-endian) for each lane; lanes past n repeat lane 0 and are not used */
static void seeds_x4(uint8_t seeds[4][66], const uint8_t *seed, size_t len, const uint16_t nonce[], unsigned n)
{
	unsigned i;

	for (i = 0; i < 4; i++) {
		memcpy(seeds[i], seed, len);
		seeds[i][len] = (uint8_t)nonce[i < n ? i : 0];
		seeds[i][len + 1] = (uint8_t)(nonce[i < n ? i : 0] >> 8);
	}
}

static void uniform_x4(struct mldsa_poly *const a[], const uint8_t rho[32], const uint16_t nonce[], unsigned n)
{
	uint8_t seeds[4][66], buf[4][UNIFORM_BLOCKS * SHAKE128_RATE];
	const uint8_t *const in[4] = { seeds[0], seeds[1], seeds[2], seeds[3] };
	uint8_t *const out[4] = { buf[0], buf[1], buf[2], buf[3] };
	struct keccak_x4 ctx;
	unsigned i, done, count[4];

	seeds_x4(seeds, rho, 32, nonce, n);
	shake128_x4_absorb(&ctx, in, 34);
	keccak_x4_squeeze_blocks(&ctx, out, UNIFORM_BLOCKS);
	for (i = 0; i < n; i++)
		count[i] = rej_uniform(a[i]->c, 0, buf[i], sizeof(buf[i]));
	for (;;) {
		for (i = 0, done = 1; i < n; i++)
			done &= count[i] == MLDSA_N;
		if (done)
			break;
		keccak_x4_squeeze_blocks(&ctx, out, 1);
		for (i = 0; i < n; i++)
			count[i] = rej_uniform(a[i]->c, count[i], buf[i], SHAKE128_RATE);
	}
}

static void eta_x4(struct mldsa_poly *const a[], const uint8_t rhoprime[64], const uint16_t nonce[], unsigned n,
	unsigned eta)
{
	uint8_t seeds[4][66], buf[4][ETA_BLOCKS * SHAKE256_RATE];
	const uint8_t *const in[4] = { seeds[0], seeds[1], seeds[2], seeds[3] };
	uint8_t *const out[4] = { buf[0], buf[1], buf[2], buf[3] };
	struct keccak_x4 ctx;
	unsigned i, done, count[4] = { 0 };
	size_t len = sizeof(buf[0]);

	seeds_x4(seeds, rhoprime, 64, nonce, n);
	shake256_x4_absorb(&ctx, in, 66);
	keccak_x4_squeeze_blocks(&ctx, out, ETA_BLOCKS);
	for (;;) {
		for (i = 0, done = 1; i < n; i++) {
			count[i] = eta == 2 ? rej_eta2(a[i]->c, count[i], buf[i], len) :
				rej_eta4(a[i]->c, count[i], buf[i], len);
			done &= count[i] == MLDSA_N;
		}
		if (done)
			break;
		keccak_x4_squeeze_blocks(&ctx, out, 1);
		len = SHAKE256_RATE;
	}
	keccak_wipe(seeds, sizeof(seeds));
	keccak_wipe(buf, sizeof(buf));
	keccak_wipe(&ctx, sizeof(ctx));
}

static void mask_x4(struct mldsa_poly *const y[], const uint8_t rhopp[64], const uint16_t nonce[], unsigned n,
	const struct mldsa_params *p)
{
	uint8_t seeds[4][66], buf[4][MASK_BLOCKS * SHAKE256_RATE];
	const uint8_t *const in[4] = { seeds[0], seeds[1], seeds[2], seeds[3] };
	uint8_t *const out[4] = { buf[0], buf[1], buf[2], buf[3] };
	struct keccak_x4 ctx;
	unsigned i;

	seeds_x4(seeds, rhopp, 64, nonce, n);
	shake256_x4_absorb(&ctx, in, 66);
	keccak_x4_squeeze_blocks(&ctx, out, MASK_BLOCKS);
	for (i = 0; i < n; i++)
		mldsa_bitunpack(y[i], buf[i], p->z_bits, p->gamma1);
	keccak_wipe(seeds, sizeof(seeds));
	keccak_wipe(buf, sizeof(buf));
	keccak_wipe(&ctx, sizeof(ctx));
}
#endif

unsigned mldsa_sample_batch(void)
{
#ifdef KECCAK_AVX2
	if (crypto_cpu_avx2())
		return 4;
#endif
	return 1;
}

void mldsa_poly_uniform_x4(struct mldsa_poly *const a[], const uint8_t rho[32], const uint16_t nonce[], unsigned n)
{
	unsigned i;

#ifdef KECCAK_AVX2
	if (n > 1 && crypto_cpu_avx2()) {
		uniform_x4(a, rho, nonce, n);
		return;
	}
#endif
	for (i = 0; i < n; i++)
		mldsa_poly_uniform(a[i], rho, (uint8_t)nonce[i], (uint8_t)(nonce[i] >> 8));
}

void mldsa_poly_eta_x4(struct mldsa_poly *const a[], const uint8_t rhoprime[64], const uint16_t nonce[], unsigned n,
	unsigned eta)
{
	unsigned i;

#ifdef KECCAK_AVX2
	if (n > 1 && crypto_cpu_avx2()) {
		eta_x4(a, rhoprime, nonce, n, eta);
		return;
	}
#endif
	for (i = 0; i < n; i++)
		mldsa_poly_eta(a[i], rhoprime, nonce[i], eta);
}

void mldsa_poly_mask_x4(struct mldsa_poly *const y[], const uint8_t rhopp[64], const uint16_t nonce[], unsigned n,
	const struct mldsa_params *p)
{
	unsigned i;

#ifdef KECCAK_AVX2
	if (n > 1 && crypto_cpu_avx2()) {
		mask_x4(y, rhopp, nonce, n, p);
		return;
	}
#endif
	for (i = 0; i < n; i++)
		mldsa_poly_mask(y[i], rhopp, nonce[i], p);
}

/*
 * SampleInBall(ctilde): tau coefficients +-1 by a Fisher-Yates shuffle. Variable time in c, as in
 * the reference implementation: c is part of an accepted signature, and for a rejected attempt
 * it is a hash of the discarded commitment, which ML-DSA's analysis does not treat as secret.
 */
void mldsa_poly_challenge(struct mldsa_poly *c, const uint8_t *ctilde, unsigned len, unsigned tau)
{
	uint8_t buf[SHAKE256_RATE];
	struct keccak_ctx ctx;
	uint64_t signs = 0;
	unsigned i, j, pos;

	shake256_init(&ctx);
	keccak_absorb(&ctx, ctilde, len);
	keccak_finalize(&ctx);
	keccak_squeeze(&ctx, buf, sizeof(buf));
	for (pos = 0; pos < 8; pos++)
		signs |= (uint64_t)buf[pos] << (8 * pos);
	memset(c->c, 0, sizeof(c->c));
	for (i = MLDSA_N - tau; i < MLDSA_N; i++) {
		do {
			if (pos == sizeof(buf)) {
				keccak_squeeze(&ctx, buf, sizeof(buf));
				pos = 0;
			}
			j = buf[pos++];
		} while (j > i);
		c->c[i] = c->c[j];
		c->c[j] = 1 - 2 * (int32_t)(signs & 1);
		signs >>= 1;
	}
}
