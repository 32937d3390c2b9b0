/* ML-KEM sampling: SampleNTT (FIPS 203 Alg. 7) and SamplePolyCBD (Alg. 8) of PRF_eta (section 4.1). */
#include <string.h>

#include "crypto/keccak.h"
#include "crypto/mlkem/poly.h"

/* 3 blocks give 336 candidates, enough for 256 coefficients almost always (acceptance 0.81) */
#define UNIFORM_BLOCKS 3

/* SampleNTT(rho || j || i): A[i][j], already in the NTT domain; public data */
void mlkem_poly_uniform(struct mlkem_poly *a, const uint8_t rho[32], uint8_t j, uint8_t i)
{
	uint8_t seed[34], buf[UNIFORM_BLOCKS * SHAKE128_RATE];
	struct keccak_ctx ctx;
	size_t len = sizeof(buf), pos;
	unsigned n = 0;
	uint16_t d1, d2;

	memcpy(seed, rho, 32);
	seed[32] = j;
	seed[33] = i;
	shake128_init(&ctx);
	keccak_absorb(&ctx, seed, sizeof(seed));
	keccak_finalize(&ctx);
	keccak_squeeze(&ctx, buf, len);
	for (;;) {
		/* two 12-bit candidates per 3 bytes, kept if below q; the rate is a multiple of 3 */
		for (pos = 0; pos < len && n < MLKEM_N; pos += 3) {
			d1 = (uint16_t)(buf[pos] | (buf[pos + 1] & 0x0f) << 8);
			d2 = (uint16_t)(buf[pos + 1] >> 4 | buf[pos + 2] << 4);
			if (d1 < MLKEM_Q)
				a->c[n++] = (int16_t)d1;
			if (d2 < MLKEM_Q && n < MLKEM_N)
				a->c[n++] = (int16_t)d2;
		}
		if (n == MLKEM_N)
			break;
		len = SHAKE128_RATE;
		keccak_squeeze(&ctx, buf, len);
	}
}

/*
 * SamplePolyCBD_eta(PRF_eta(sigma, nonce)): coefficient i is the sum of eta bits minus the sum
 * of the next eta bits. The bits are added in parallel inside words (eta = 2: pairs of bits
 * with mask 0x55..., eta = 3: triples with mask 0x249249), no branch and no table.
 */
static void cbd2(struct mlkem_poly *a, const uint8_t buf[128])
{
	uint32_t t, s;
	unsigned i, j;

	for (i = 0; i < MLKEM_N / 8; i++) {
		t = (uint32_t)buf[4 * i] | (uint32_t)buf[4 * i + 1] << 8
			| (uint32_t)buf[4 * i + 2] << 16 | (uint32_t)buf[4 * i + 3] << 24;
		s = (t & 0x55555555) + ((t >> 1) & 0x55555555);
		for (j = 0; j < 8; j++)
			a->c[8 * i + j] = (int16_t)((int)((s >> (4 * j)) & 3) - (int)((s >> (4 * j + 2)) & 3));
	}
}

static void cbd3(struct mlkem_poly *a, const uint8_t buf[192])
{
	uint32_t t, s;
	unsigned i, j;

	for (i = 0; i < MLKEM_N / 4; i++) {
		t = (uint32_t)buf[3 * i] | (uint32_t)buf[3 * i + 1] << 8 | (uint32_t)buf[3 * i + 2] << 16;
		s = (t & 0x249249) + ((t >> 1) & 0x249249) + ((t >> 2) & 0x249249);
		for (j = 0; j < 4; j++)
			a->c[4 * i + j] = (int16_t)((int)((s >> (6 * j)) & 7) - (int)((s >> (6 * j + 3)) & 7));
	}
}

/* PRF_eta(sigma, N) = SHAKE256(sigma || N, 64 eta); eta is 2 or 3 */
void mlkem_poly_cbd(struct mlkem_poly *a, const uint8_t sigma[32], uint8_t nonce, unsigned eta)
{
	uint8_t seed[33], buf[64 * 3];

	memcpy(seed, sigma, 32);
	seed[32] = nonce;
	shake256(buf, 64 * eta, seed, sizeof(seed));
	if (eta == 2)
		cbd2(a, buf);
	else
		cbd3(a, buf);
	keccak_wipe(seed, sizeof(seed));
	keccak_wipe(buf, sizeof(buf));
}
