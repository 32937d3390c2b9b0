/* ML-DSA sampling from SHAKE: RejNTTPoly, RejBoundedPoly, ExpandMask, SampleInBall (FIPS 204 Alg. 29-34). */
#include <string.h>

#include "crypto/ct.h"
#include "crypto/keccak.h"
#include "crypto/mldsa/packing.h"
#include "crypto/mldsa/poly.h"

/* 5 blocks give 280 candidates: enough for 256 coefficients almost always (acceptance 0.999) */
#define UNIFORM_BLOCKS 5

/* RejNTTPoly(rho || col || row): A[row][col], already in the NTT domain; public data */
void mldsa_poly_uniform(struct mldsa_poly *a, const uint8_t rho[32], uint8_t col, uint8_t row)
{
	uint8_t seed[34], buf[UNIFORM_BLOCKS * SHAKE128_RATE];
	struct keccak_ctx ctx;
	size_t len = sizeof(buf), pos;
	unsigned n = 0;
	uint32_t v;

	memcpy(seed, rho, 32);
	seed[32] = col;
	seed[33] = row;
	shake128_init(&ctx);
	keccak_absorb(&ctx, seed, sizeof(seed));
	keccak_finalize(&ctx);
	keccak_squeeze(&ctx, buf, len);
	for (;;) {
		/* CoeffFromThreeBytes: 23 bits, kept if below q; the rate is a multiple of 3 */
		for (pos = 0; pos < len && n < MLDSA_N; pos += 3) {
			v = buf[pos] | (uint32_t)buf[pos + 1] << 8 | (uint32_t)(buf[pos + 2] & 0x7f) << 16;
			if (v < MLDSA_Q)
				a->c[n++] = (int32_t)v;
		}
		if (n == MLDSA_N)
			break;
		len = SHAKE128_RATE;
		keccak_squeeze(&ctx, buf, len);
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
