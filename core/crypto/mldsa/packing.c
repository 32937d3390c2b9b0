/* ML-DSA bit packing, secret key layout, w1 and signature encodings. */
#include <string.h>

#include "crypto/mldsa/packing.h"

/* stores base + sign * c of every coefficient as a little-endian bit string; loops depend on 'bits' only */
static void pack(uint8_t *out, const struct mldsa_poly *a, unsigned bits, int32_t base, int32_t sign)
{
	uint64_t acc = 0;
	unsigned i, have = 0;

	for (i = 0; i < MLDSA_N; i++) {
		acc |= (uint64_t)(uint32_t)(base + sign * a->c[i]) << have;
		for (have += bits; have >= 8; have -= 8) {
			*out++ = (uint8_t)acc;
			acc >>= 8;
		}
	}
}

static void unpack(struct mldsa_poly *a, const uint8_t *in, unsigned bits, int32_t base, int32_t sign)
{
	uint64_t acc = 0, mask = (1ULL << bits) - 1;
	unsigned i, have = 0;

	for (i = 0; i < MLDSA_N; i++) {
		for (; have < bits; have += 8)
			acc |= (uint64_t)*in++ << have;
		a->c[i] = base + sign * (int32_t)(acc & mask);
		acc >>= bits;
		have -= bits;
	}
}

/* w1Encode's widths, two coefficients per byte or four per three bytes */
static void pack4(uint8_t *out, const struct mldsa_poly *a)
{
	unsigned i;

	for (i = 0; i < MLDSA_N / 2; i++)
		out[i] = (uint8_t)(a->c[2 * i] | a->c[2 * i + 1] << 4);
}

static void pack6(uint8_t *out, const struct mldsa_poly *a)
{
	const int32_t *c;
	unsigned i;

	for (i = 0; i < MLDSA_N / 4; i++, out += 3) {
		c = a->c + 4 * i;
		out[0] = (uint8_t)(c[0] | c[1] << 6);
		out[1] = (uint8_t)(c[1] >> 2 | c[2] << 4);
		out[2] = (uint8_t)(c[2] >> 4 | c[3] << 2);
	}
}

/* eight bytes little-endian (compilers make it one load on little-endian hosts) */
static inline uint64_t le64(const uint8_t *p)
{
	return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24
		| (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 | (uint64_t)p[7] << 56;
}

/* ExpandMask's widths (gamma1 = 2^17, 2^19): four coefficients from nine or ten bytes */
static void unpack18(struct mldsa_poly *a, const uint8_t *in, int32_t b)
{
	const uint64_t m = (1u << 18) - 1;
	int32_t *c;
	uint64_t v;
	unsigned i;

	for (i = 0; i < MLDSA_N / 4; i++, in += 9) {
		c = a->c + 4 * i;
		v = le64(in);
		c[0] = b - (int32_t)(v & m);
		c[1] = b - (int32_t)(v >> 18 & m);
		c[2] = b - (int32_t)(v >> 36 & m);
		c[3] = b - (int32_t)((v >> 54 | (uint64_t)in[8] << 10) & m);
	}
}

static void unpack20(struct mldsa_poly *a, const uint8_t *in, int32_t b)
{
	const uint64_t m = (1u << 20) - 1;
	int32_t *c;
	uint64_t v;
	unsigned i;

	for (i = 0; i < MLDSA_N / 4; i++, in += 10) {
		c = a->c + 4 * i;
		v = le64(in);
		c[0] = b - (int32_t)(v & m);
		c[1] = b - (int32_t)(v >> 20 & m);
		c[2] = b - (int32_t)(v >> 40 & m);
		c[3] = b - (int32_t)((v >> 60 | (uint64_t)in[8] << 4 | (uint64_t)in[9] << 12) & m);
	}
}

/* z's widths, the inverse of unpack18 and unpack20 */
static void pack18(uint8_t *out, const struct mldsa_poly *a, int32_t b)
{
	const int32_t *c;
	uint64_t v;
	unsigned i, j;

	for (i = 0; i < MLDSA_N / 4; i++, out += 9) {
		c = a->c + 4 * i;
		v = (uint64_t)(uint32_t)(b - c[0]) | (uint64_t)(uint32_t)(b - c[1]) << 18
			| (uint64_t)(uint32_t)(b - c[2]) << 36 | (uint64_t)(uint32_t)(b - c[3]) << 54;
		for (j = 0; j < 8; j++)
			out[j] = (uint8_t)(v >> (8 * j));
		out[8] = (uint8_t)((uint32_t)(b - c[3]) >> 10);
	}
}

static void pack20(uint8_t *out, const struct mldsa_poly *a, int32_t b)
{
	const int32_t *c;
	uint64_t v;
	unsigned i, j;

	for (i = 0; i < MLDSA_N / 4; i++, out += 10) {
		c = a->c + 4 * i;
		v = (uint64_t)(uint32_t)(b - c[0]) | (uint64_t)(uint32_t)(b - c[1]) << 20
			| (uint64_t)(uint32_t)(b - c[2]) << 40 | (uint64_t)(uint32_t)(b - c[3]) << 60;
		for (j = 0; j < 8; j++)
			out[j] = (uint8_t)(v >> (8 * j));
		out[8] = (uint8_t)((uint32_t)(b - c[3]) >> 4);
		out[9] = (uint8_t)((uint32_t)(b - c[3]) >> 12);
	}
}

void mldsa_simple_bitpack(uint8_t *out, const struct mldsa_poly *a, unsigned bits)
{
	if (bits == 4)
		pack4(out, a);
	else if (bits == 6)
		pack6(out, a);
	else
		pack(out, a, bits, 0, 1);
}

void mldsa_bitpack(uint8_t *out, const struct mldsa_poly *a, unsigned bits, int32_t b)
{
	if (bits == 18)
		pack18(out, a, b);
	else if (bits == 20)
		pack20(out, a, b);
	else
		pack(out, a, bits, b, -1);
}

void mldsa_simple_bitunpack(struct mldsa_poly *a, const uint8_t *in, unsigned bits)
{
	unpack(a, in, bits, 0, 1);
}

void mldsa_bitunpack(struct mldsa_poly *a, const uint8_t *in, unsigned bits, int32_t b)
{
	if (bits == 18)
		unpack18(a, in, b);
	else if (bits == 20)
		unpack20(a, in, b);
	else
		unpack(a, in, bits, b, -1);
}

void mldsa_sk_layout(struct mldsa_sk_layout *lay, const struct mldsa_params *p, const uint8_t *sk)
{
	lay->eta_poly_bytes = 32 * p->eta_bits;
	lay->rho = sk;
	lay->key = sk + 32;
	lay->tr = sk + 64;
	lay->s1 = sk + 128;
	lay->s2 = lay->s1 + p->l * lay->eta_poly_bytes;
	lay->t0 = lay->s2 + p->k * lay->eta_poly_bytes;
}

void mldsa_sk_encode(uint8_t *sk, const struct mldsa_params *p, const uint8_t rho[32], const uint8_t key[32],
	const uint8_t tr[64], const struct mldsa_poly *s1, const struct mldsa_poly *s2, const struct mldsa_poly *t0)
{
	size_t eta_bytes = 32 * p->eta_bits;
	unsigned i;

	memcpy(sk, rho, 32);
	memcpy(sk + 32, key, 32);
	memcpy(sk + 64, tr, 64);
	sk += 128;
	for (i = 0; i < p->l; i++, sk += eta_bytes)
		mldsa_bitpack(sk, &s1[i], p->eta_bits, (int32_t)p->eta);
	for (i = 0; i < p->k; i++, sk += eta_bytes)
		mldsa_bitpack(sk, &s2[i], p->eta_bits, (int32_t)p->eta);
	for (i = 0; i < p->k; i++, sk += MLDSA_T0_POLY_BYTES)
		mldsa_bitpack(sk, &t0[i], MLDSA_D, 1 << (MLDSA_D - 1));
}

size_t mldsa_w1_encode(uint8_t *out, const struct mldsa_poly *w1, const struct mldsa_params *p)
{
	size_t poly_bytes = 32 * p->w1_bits;
	unsigned i;

	for (i = 0; i < p->k; i++)
		mldsa_simple_bitpack(out + i * poly_bytes, &w1[i], p->w1_bits);
	return p->k * poly_bytes;
}

void mldsa_sig_encode(uint8_t *sig, const struct mldsa_params *p, const struct mldsa_poly *z,
	const struct mldsa_poly *h)
{
	size_t z_bytes = 32 * p->z_bits;
	uint8_t *y;
	unsigned i, j, index = 0;

	sig += p->ctilde_bytes;
	for (i = 0; i < p->l; i++, sig += z_bytes)
		mldsa_bitpack(sig, &z[i], p->z_bits, p->gamma1);
	/* HintBitPack (Alg. 20): positions of the ones, then the running count per polynomial */
	y = sig;
	memset(y, 0, p->omega + p->k);
	for (i = 0; i < p->k; i++) {
		for (j = 0; j < MLDSA_N; j++)
			if (h[i].c[j])
				y[index++] = (uint8_t)j;
		y[p->omega + i] = (uint8_t)index;
	}
}

/* HintBitUnpack (Alg. 21): counts must not decrease or pass omega, positions must increase, padding is zero */
static int hint_unpack(uint8_t h[][MLDSA_N], const struct mldsa_params *p, const uint8_t *y)
{
	unsigned i, index = 0, first;

	for (i = 0; i < p->k; i++) {
		memset(h[i], 0, MLDSA_N);
		if (y[p->omega + i] < index || y[p->omega + i] > p->omega)
			return -1;
		for (first = index; index < y[p->omega + i]; index++) {
			if (index > first && y[index - 1] >= y[index])
				return -1;
			h[i][y[index]] = 1;
		}
	}
	for (; index < p->omega; index++)
		if (y[index] != 0)
			return -1;
	return 0;
}

int mldsa_sig_decode(struct mldsa_poly *z, uint8_t h[][MLDSA_N], const struct mldsa_params *p, const uint8_t *sig)
{
	size_t z_bytes = 32 * p->z_bits;
	unsigned i;

	sig += p->ctilde_bytes;
	for (i = 0; i < p->l; i++, sig += z_bytes)
		mldsa_bitunpack(&z[i], sig, p->z_bits, p->gamma1);
	return hint_unpack(h, p, sig);
}
