/* ML-KEM byte encodings (FIPS 203 Alg. 5, 6) and compression (section 4.2.1). */
#include "crypto/mlkem/poly.h"
#include "crypto/mlkem/reduce.h"

/* ByteEncode_12 of coefficients in (-q, q), each taken as its representative in [0, q) */
void mlkem_poly_encode12(uint8_t out[MLKEM_POLY_BYTES], const struct mlkem_poly *a)
{
	uint16_t x, y;
	unsigned i;

	for (i = 0; i < MLKEM_N / 2; i++) {
		x = mlkem_caddq(a->c[2 * i]);
		y = mlkem_caddq(a->c[2 * i + 1]);
		out[3 * i] = (uint8_t)x;
		out[3 * i + 1] = (uint8_t)((x >> 8) | (y << 4));
		out[3 * i + 2] = (uint8_t)(y >> 4);
	}
}

/* ByteDecode_12: 12-bit values taken mod q, without a branch (dk holds secrets) */
void mlkem_poly_decode12(struct mlkem_poly *a, const uint8_t in[MLKEM_POLY_BYTES])
{
	int16_t x, y;
	unsigned i;

	for (i = 0; i < MLKEM_N / 2; i++) {
		x = (int16_t)((in[3 * i] | in[3 * i + 1] << 8) & 0xfff);
		y = (int16_t)((in[3 * i + 1] >> 4) | in[3 * i + 2] << 4);
		a->c[2 * i] = (int16_t)mlkem_caddq((int16_t)(x - MLKEM_Q));
		a->c[2 * i + 1] = (int16_t)mlkem_caddq((int16_t)(y - MLKEM_Q));
	}
}

/*
 * Compress_d(x) = round(2^d x / q) mod 2^d for x in [0, q). Since q is odd there are no ties, so
 * this is floor((2^d x + (q - 1) / 2) / q), and the division is a multiplication by
 * ceil(2^36 / q), exact for numerators below 2^36 / q: no division instruction on secret data.
 */
static inline uint32_t compress(uint16_t x, unsigned d)
{
	uint64_t n = ((uint64_t)x << d) + (MLKEM_Q - 1) / 2;

	return (uint32_t)((n * 20642679ULL) >> 36) & ((1u << d) - 1);
}

/* Decompress_d(y) = round(q y / 2^d) */
static inline int16_t decompress(uint32_t y, unsigned d)
{
	return (int16_t)(((uint32_t)MLKEM_Q * y + (1u << (d - 1))) >> d);
}

/* ByteEncode_d(Compress_d(a)) for coefficients in (-q, q); d in 1..11 */
void mlkem_poly_compress(uint8_t *out, const struct mlkem_poly *a, unsigned d)
{
	uint32_t acc = 0;
	unsigned i, have = 0;

	for (i = 0; i < MLKEM_N; i++) {
		acc |= compress(mlkem_caddq(a->c[i]), d) << have;
		for (have += d; have >= 8; have -= 8) {
			*out++ = (uint8_t)acc;
			acc >>= 8;
		}
	}
}

/* Decompress_d(ByteDecode_d(in)); d in 1..11 */
void mlkem_poly_decompress(struct mlkem_poly *a, const uint8_t *in, unsigned d)
{
	uint32_t acc = 0, mask = (1u << d) - 1;
	unsigned i, have = 0;

	for (i = 0; i < MLKEM_N; i++) {
		for (; have < d; have += 8)
			acc |= (uint32_t)*in++ << have;
		a->c[i] = decompress(acc & mask, d);
		acc >>= d;
		have -= d;
	}
}
