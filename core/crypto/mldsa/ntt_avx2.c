/*
 * ML-DSA's NTT, inverse NTT and NTT-domain products with AVX2, eight coefficients per vector
 * (coefficient 8v + i is lane i of vector v). Only called where crypto_cpu_avx2() is true.
 *
 * A product of 32-bit values needs 64 bits: _mm256_mul_epi32 multiplies the even lanes, so the
 * odd lanes go through it again shifted down, and the two halves of each Montgomery result are
 * blended back together. The ranges are those of the portable code (ntt.c), butterfly for
 * butterfly: forward outputs |c| < 9q, inverse inputs |c| < q growing to 256q < 2^31, and
 * every Montgomery reduction's input below q * 2^31.
 *
 * Layers whose butterflies pair coefficients eight or more apart pair whole vectors and use one
 * root per vector pair. For the layers of length 4, 2 and 1 each group of eight vectors is
 * transposed first (lane i of vector j is then coefficient 8i + j of the group), which turns them
 * into pairs of vectors again, with one root per lane: the tables below hold those roots in the
 * order the lanes take them. Everything is branch-free and indexes only by loop counters.
 */
#include "crypto/mldsa/avx2.h"

#ifdef MLDSA_AVX2
#ifndef __AVX2__
#error "ntt_avx2.c is compiled with -mavx2 (Makefile)"
#endif

#include <immintrin.h>

#include "crypto/mldsa/reduce.h"

/* 2^64 / 256 mod q and that times -zetas[1] * 2^-32 (the last inverse layer, as in ntt.c) */
#define INVNTT_F 41978
#define INVNTT_F_ZETA 3975713

/*
 * Roots per lane after the transposition, group g of 64 coefficients, lane i (row r = 8g + i):
 *   fwd_lane_zetas[g][h]     = zetas[64 + 2r + h]              (length 2, h = 0, 1)
 *   fwd_lane_zetas[g][2 + u] = zetas[128 + 4r + u]             (length 1, u = 0..3)
 *   inv_lane_zetas[g][u]     = -zetas[255 - 4r - u]            (length 1)
 *   inv_lane_zetas[g][4 + h] = -zetas[127 - 2r - h]            (length 2)
 *   inv_lane_zetas[g][6]     = -zetas[63 - r]                  (length 4)
 * (the forward length-4 roots zetas[32 + r] are consecutive in zetas[] already). test_mldsa
 * checks this code against the portable NTT, which takes the roots from zetas[] as Alg. 41 does.
 */
static const int32_t fwd_lane_zetas[4][6][8] = {
	{
		{ -3930395, -3677745, -1452451, 2176455, -1257611, -4083598, -3190144, -3632928 },
		{ -1528703, -3041255, 3475950, -1585221, 1939314, -1000202, -3157330, 126922 },
		{ 2091667, -3342478, 266997, -3520352, 900702, 495491, -655327, -3556995 },
		{ 3407706, 2244091, 2434439, -3759364, 1859098, -1613174, -3122442, -525098 },
		{ 2316500, -2446433, -1235728, -1197226, 909542, -43260, 2031748, -768622 },
		{ 3817976, -3562462, 3513181, -3193378, 819034, -522500, 3207046, -3595838 },
	},
	{
		{ 3412210, 2147896, -2967645, -411027, -671102, -22981, -381987, 1852771 },
		{ -983419, 2715295, -3693493, -2477047, -1228525, -1308169, 1349076, -1430430 },
		{ 342297, 3437287, 2842341, 4055324, -3767016, -2994039, -1333058, -451100 },
		{ 286988, -3342277, 2691481, 1247620, 1250494, 1869119, 1237275, 1312455 },
		{ -2437823, 1735879, -2590150, 2486353, 2635921, 1903435, -3318210, 3306115 },
		{ 4108315, 203044, 1265009, 1595974, -3548272, -1050970, -1430225, -1962642 },
	},
	{
		{ -3343383, 508951, 44288, 904516, -3724342, 1653064, 2389356, 759969 },
		{ 264944, 3097992, -1100098, 3958618, -8578, -3249728, -210977, -1316856 },
		{ -1279661, 1500165, -542412, -2584293, -2013608, 1957272, -3183426, 810149 },
		{ 1917081, 777191, -2831860, -3724270, 2432395, 3369112, 162844, 1652634 },
		{ -2546312, 2235880, -1671176, 594136, 2454455, 185531, 1616392, -3694233 },
		{ -1374803, 3406031, -1846953, -3776993, -164721, -1207385, 3014001, -1799107 },
	},
	{
		{ 189548, 3159746, -2409325, 1315589, 1285669, -812732, -3019102, -3628969 },
		{ -3553272, -1851402, -177440, 1341330, -1584928, -1439742, -3881060, 3839961 },
		{ -3038916, 2213111, -426683, -1667432, -2939036, 183443, -554416, 3937738 },
		{ 3523897, -975884, 1723600, -1104333, -2235985, -976891, 3919660, 1400424 },
		{ 3866901, 1717735, -1803090, -260646, -420899, 1612842, -48306, -846154 },
		{ 269760, 472078, 1910376, -3833893, -2286327, -3545687, -1362209, 1976782 },
	},
};
static const int32_t inv_lane_zetas[4][7][8] = {
	{
		{ -1976782, 1362209, 3545687, 2286327, 3833893, -1910376, -472078, -269760 },
		{ 846154, 48306, -1612842, 420899, 260646, 1803090, -1717735, -3866901 },
		{ -1400424, -3919660, 976891, 2235985, 1104333, -1723600, 975884, -3523897 },
		{ -3937738, 554416, -183443, 2939036, 1667432, 426683, -2213111, 3038916 },
		{ -3839961, 3881060, 1439742, 1584928, -1341330, 177440, 1851402, 3553272 },
		{ 3628969, 3019102, 812732, -1285669, -1315589, 2409325, -3159746, -189548 },
		{ 2797779, -2071892, 2556880, -3900724, -3881043, -954230, -531354, -811944 },
	},
	{
		{ 1799107, -3014001, 1207385, 164721, 3776993, 1846953, -3406031, 1374803 },
		{ 3694233, -1616392, -185531, -2454455, -594136, 1671176, -2235880, 2546312 },
		{ -1652634, -162844, -3369112, -2432395, 3724270, 2831860, -777191, -1917081 },
		{ -810149, 3183426, -1957272, 2013608, 2584293, 542412, -1500165, 1279661 },
		{ 1316856, 210977, 3249728, 8578, -3958618, 1100098, -3097992, -264944 },
		{ -759969, -2389356, -1653064, 3724342, -904516, -44288, -508951, 3343383 },
		{ -3699596, 1600420, 2140649, -3507263, 3821735, -3505694, 1643818, 1699267 },
	},
	{
		{ 1962642, 1430225, 1050970, 3548272, -1595974, -1265009, -203044, -4108315 },
		{ -3306115, 3318210, -1903435, -2635921, -2486353, 2590150, -1735879, 2437823 },
		{ -1312455, -1237275, -1869119, -1250494, -1247620, -2691481, 3342277, -286988 },
		{ 451100, 1333058, 2994039, 3767016, -4055324, -2842341, -3437287, -342297 },
		{ 1430430, -1349076, 1308169, 1228525, 2477047, 3693493, -2715295, 983419 },
		{ -1852771, 381987, 22981, 671102, 411027, 2967645, -2147896, -3412210 },
		{ 539299, -2348700, 300467, -3539968, 2867647, -3574422, 3043716, 3861115 },
	},
	{
		{ 3595838, -3207046, 522500, -819034, 3193378, -3513181, 3562462, -3817976 },
		{ 768622, -2031748, 43260, -909542, 1197226, 1235728, 2446433, -2316500 },
		{ 525098, 3122442, 1613174, -1859098, 3759364, -2434439, -2244091, -3407706 },
		{ 3556995, 655327, -495491, -900702, 3520352, -266997, 3342478, -2091667 },
		{ -126922, 3157330, 1000202, -1939314, 1585221, -3475950, 3041255, 1528703 },
		{ 3632928, 3190144, 4083598, 1257611, -2176455, 1452451, 3677745, 3930395 },
		{ -3915439, 2537516, 3592148, 1661693, -3530437, -3077325, -95776, -2706023 },
	},
};

/* a root in the four forms a Montgomery product takes: z and z q^-1 mod 2^32 for the even lanes,
 * and the same for the odd lanes, each in the low half of a 64-bit lane */
struct root {
	__m256i z, zq, zo, zqo;
};

static inline struct root root_of(int32_t zeta)
{
	struct root r;

	r.z = r.zo = _mm256_set1_epi32(zeta);
	r.zq = r.zqo = _mm256_set1_epi32((int32_t)((uint32_t)zeta * MLDSA_QINV));
	return r;
}

static inline struct root roots_of(const int32_t zetas[8])
{
	struct root r;

	r.z = _mm256_loadu_si256((const __m256i *)zetas);
	r.zq = _mm256_mullo_epi32(r.z, _mm256_set1_epi32((int32_t)MLDSA_QINV));
	r.zo = _mm256_srli_epi64(r.z, 32);
	r.zqo = _mm256_srli_epi64(r.zq, 32);
	return r;
}

/* the high halves of the 64-bit (p - t q), t = p q^-1 mod 2^32, for even and odd products */
static inline __m256i reduce64(__m256i pe, __m256i po, __m256i te, __m256i to)
{
	const __m256i q = _mm256_set1_epi32(MLDSA_Q);

	pe = _mm256_sub_epi64(pe, _mm256_mul_epi32(te, q));
	po = _mm256_sub_epi64(po, _mm256_mul_epi32(to, q));
	return _mm256_blend_epi32(_mm256_srli_epi64(pe, 32), po, 0xaa);
}

/* a * zeta * 2^-32 mod q per lane, in (-q, q) */
static inline __m256i mont_mul(__m256i a, const struct root *r)
{
	__m256i ao = _mm256_srli_epi64(a, 32);

	return reduce64(_mm256_mul_epi32(a, r->z), _mm256_mul_epi32(ao, r->zo),
		_mm256_mul_epi32(a, r->zq), _mm256_mul_epi32(ao, r->zqo));
}

/* the Montgomery reduction of 64-bit sums of products, even and odd lanes */
static inline __m256i mont_reduce(__m256i pe, __m256i po)
{
	const __m256i qinv = _mm256_set1_epi32((int32_t)MLDSA_QINV);

	return reduce64(pe, po, _mm256_mul_epi32(pe, qinv), _mm256_mul_epi32(po, qinv));
}

static inline void ct(__m256i *x, __m256i *y, const struct root *r)
{
	__m256i t = mont_mul(*y, r);

	*y = _mm256_sub_epi32(*x, t);
	*x = _mm256_add_epi32(*x, t);
}

static inline void gs(__m256i *x, __m256i *y, const struct root *r)
{
	__m256i t = *x;

	*x = _mm256_add_epi32(t, *y);
	*y = mont_mul(_mm256_sub_epi32(t, *y), r);
}

/* 8 x 8 transposition of 32-bit lanes: lane i of v[j] becomes lane j of v[i] */
static inline void transpose(__m256i v[8])
{
	__m256i t0, t1, t2, t3, t4, t5, t6, t7, u0, u1, u2, u3, u4, u5, u6, u7;

	t0 = _mm256_unpacklo_epi32(v[0], v[1]);
	t1 = _mm256_unpackhi_epi32(v[0], v[1]);
	t2 = _mm256_unpacklo_epi32(v[2], v[3]);
	t3 = _mm256_unpackhi_epi32(v[2], v[3]);
	t4 = _mm256_unpacklo_epi32(v[4], v[5]);
	t5 = _mm256_unpackhi_epi32(v[4], v[5]);
	t6 = _mm256_unpacklo_epi32(v[6], v[7]);
	t7 = _mm256_unpackhi_epi32(v[6], v[7]);
	u0 = _mm256_unpacklo_epi64(t0, t2);
	u1 = _mm256_unpackhi_epi64(t0, t2);
	u2 = _mm256_unpacklo_epi64(t1, t3);
	u3 = _mm256_unpackhi_epi64(t1, t3);
	u4 = _mm256_unpacklo_epi64(t4, t6);
	u5 = _mm256_unpackhi_epi64(t4, t6);
	u6 = _mm256_unpacklo_epi64(t5, t7);
	u7 = _mm256_unpackhi_epi64(t5, t7);
	v[0] = _mm256_permute2x128_si256(u0, u4, 0x20);
	v[1] = _mm256_permute2x128_si256(u1, u5, 0x20);
	v[2] = _mm256_permute2x128_si256(u2, u6, 0x20);
	v[3] = _mm256_permute2x128_si256(u3, u7, 0x20);
	v[4] = _mm256_permute2x128_si256(u0, u4, 0x31);
	v[5] = _mm256_permute2x128_si256(u1, u5, 0x31);
	v[6] = _mm256_permute2x128_si256(u2, u6, 0x31);
	v[7] = _mm256_permute2x128_si256(u3, u7, 0x31);
}

/* x[t] = vectors first, first + stride, ... (written out, so that x stays in registers) */
static inline void load8(__m256i x[8], const int32_t *c, unsigned first, unsigned stride)
{
#define LD(t) x[t] = _mm256_loadu_si256((const __m256i *)(c + 8 * (first + (t) * stride)))
	LD(0); LD(1); LD(2); LD(3); LD(4); LD(5); LD(6); LD(7);
#undef LD
}

static inline void store8(int32_t *c, const __m256i x[8], unsigned first, unsigned stride)
{
#define ST(t) _mm256_storeu_si256((__m256i *)(c + 8 * (first + (t) * stride)), x[t])
	ST(0); ST(1); ST(2); ST(3); ST(4); ST(5); ST(6); ST(7);
#undef ST
}

/* one layer's butterflies on the pairs (x[i], x[j]) with roots r0..r3 */
#define LAYER(op, i0, j0, r0, i1, j1, r1, i2, j2, r2, i3, j3, r3) do { \
	op(&x[i0], &x[j0], r0); \
	op(&x[i1], &x[j1], r1); \
	op(&x[i2], &x[j2], r2); \
	op(&x[i3], &x[j3], r3); \
} while (0)

void mldsa_ntt_avx2(int32_t c[MLDSA_N])
{
	const int32_t *zetas = mldsa_zetas;
	struct root r1, r2, r3, r4, r5, r6, r7, a, b, d, e;
	__m256i x[8];
	unsigned j, g;

	/* lengths 128, 64, 32: vectors j, j + 4, ..., j + 28 */
	r1 = root_of(zetas[1]);
	r2 = root_of(zetas[2]);
	r3 = root_of(zetas[3]);
	r4 = root_of(zetas[4]);
	r5 = root_of(zetas[5]);
	r6 = root_of(zetas[6]);
	r7 = root_of(zetas[7]);
	for (j = 0; j < 4; j++) {
		load8(x, c, j, 4);
		LAYER(ct, 0, 4, &r1, 1, 5, &r1, 2, 6, &r1, 3, 7, &r1);
		LAYER(ct, 0, 2, &r2, 1, 3, &r2, 4, 6, &r3, 5, 7, &r3);
		LAYER(ct, 0, 1, &r4, 2, 3, &r5, 4, 5, &r6, 6, 7, &r7);
		store8(c, x, j, 4);
	}
	/* lengths 16 and 8 on the eight vectors of group g, then 4, 2, 1 transposed */
	for (g = 0; g < 4; g++) {
		load8(x, c, 8 * g, 1);
		a = root_of(zetas[8 + 2 * g]);
		b = root_of(zetas[9 + 2 * g]);
		LAYER(ct, 0, 2, &a, 1, 3, &a, 4, 6, &b, 5, 7, &b);
		a = root_of(zetas[16 + 4 * g]);
		b = root_of(zetas[17 + 4 * g]);
		d = root_of(zetas[18 + 4 * g]);
		e = root_of(zetas[19 + 4 * g]);
		LAYER(ct, 0, 1, &a, 2, 3, &b, 4, 5, &d, 6, 7, &e);
		transpose(x);
		a = roots_of(zetas + 32 + 8 * g);
		LAYER(ct, 0, 4, &a, 1, 5, &a, 2, 6, &a, 3, 7, &a);
		a = roots_of(fwd_lane_zetas[g][0]);
		b = roots_of(fwd_lane_zetas[g][1]);
		LAYER(ct, 0, 2, &a, 1, 3, &a, 4, 6, &b, 5, 7, &b);
		a = roots_of(fwd_lane_zetas[g][2]);
		b = roots_of(fwd_lane_zetas[g][3]);
		d = roots_of(fwd_lane_zetas[g][4]);
		e = roots_of(fwd_lane_zetas[g][5]);
		LAYER(ct, 0, 1, &a, 2, 3, &b, 4, 5, &d, 6, 7, &e);
		transpose(x);
		store8(c, x, 8 * g, 1);
	}
}

void mldsa_invntt_avx2(int32_t c[MLDSA_N])
{
	const int32_t *zetas = mldsa_zetas;
	struct root a, b, d, e, f, fz;
	__m256i x[8];
	unsigned j, g;

	/* lengths 1, 2, 4 transposed, then 8 and 16, on the eight vectors of group g */
	for (g = 0; g < 4; g++) {
		load8(x, c, 8 * g, 1);
		transpose(x);
		a = roots_of(inv_lane_zetas[g][0]);
		b = roots_of(inv_lane_zetas[g][1]);
		d = roots_of(inv_lane_zetas[g][2]);
		e = roots_of(inv_lane_zetas[g][3]);
		LAYER(gs, 0, 1, &a, 2, 3, &b, 4, 5, &d, 6, 7, &e);
		a = roots_of(inv_lane_zetas[g][4]);
		b = roots_of(inv_lane_zetas[g][5]);
		LAYER(gs, 0, 2, &a, 1, 3, &a, 4, 6, &b, 5, 7, &b);
		a = roots_of(inv_lane_zetas[g][6]);
		LAYER(gs, 0, 4, &a, 1, 5, &a, 2, 6, &a, 3, 7, &a);
		transpose(x);
		a = root_of(-zetas[31 - 4 * g]);
		b = root_of(-zetas[30 - 4 * g]);
		d = root_of(-zetas[29 - 4 * g]);
		e = root_of(-zetas[28 - 4 * g]);
		LAYER(gs, 0, 1, &a, 2, 3, &b, 4, 5, &d, 6, 7, &e);
		a = root_of(-zetas[15 - 2 * g]);
		b = root_of(-zetas[14 - 2 * g]);
		LAYER(gs, 0, 2, &a, 1, 3, &a, 4, 6, &b, 5, 7, &b);
		store8(c, x, 8 * g, 1);
	}
	/* lengths 32, 64, 128 on vectors j, j + 4, ..., j + 28, with the scaling by f folded in */
	for (j = 0; j < 4; j++) {
		load8(x, c, j, 4);
		a = root_of(-zetas[7]);
		b = root_of(-zetas[6]);
		d = root_of(-zetas[5]);
		e = root_of(-zetas[4]);
		LAYER(gs, 0, 1, &a, 2, 3, &b, 4, 5, &d, 6, 7, &e);
		a = root_of(-zetas[3]);
		b = root_of(-zetas[2]);
		LAYER(gs, 0, 2, &a, 1, 3, &a, 4, 6, &b, 5, 7, &b);
		fz = root_of(INVNTT_F_ZETA);
		LAYER(gs, 0, 4, &fz, 1, 5, &fz, 2, 6, &fz, 3, 7, &fz);
		f = root_of(INVNTT_F);
		x[0] = mont_mul(x[0], &f);
		x[1] = mont_mul(x[1], &f);
		x[2] = mont_mul(x[2], &f);
		x[3] = mont_mul(x[3], &f);
		store8(c, x, j, 4);
	}
}

void mldsa_pointwise_avx2(int32_t r[MLDSA_N], const int32_t a[MLDSA_N], const int32_t b[MLDSA_N])
{
	__m256i x, y;
	unsigned v;

	for (v = 0; v < MLDSA_N / 8; v++) {
		x = _mm256_loadu_si256((const __m256i *)(a + 8 * v));
		y = _mm256_loadu_si256((const __m256i *)(b + 8 * v));
		x = mont_reduce(_mm256_mul_epi32(x, y),
			_mm256_mul_epi32(_mm256_srli_epi64(x, 32), _mm256_srli_epi64(y, 32)));
		_mm256_storeu_si256((__m256i *)(r + 8 * v), x);
	}
}

void mldsa_pointwise_acc_avx2(int32_t r[MLDSA_N], const int32_t a[MLDSA_N], const int32_t b[MLDSA_N])
{
	__m256i x, y;
	unsigned v;

	for (v = 0; v < MLDSA_N / 8; v++) {
		x = _mm256_loadu_si256((const __m256i *)(a + 8 * v));
		y = _mm256_loadu_si256((const __m256i *)(b + 8 * v));
		x = mont_reduce(_mm256_mul_epi32(x, y),
			_mm256_mul_epi32(_mm256_srli_epi64(x, 32), _mm256_srli_epi64(y, 32)));
		y = _mm256_loadu_si256((const __m256i *)(r + 8 * v));
		_mm256_storeu_si256((__m256i *)(r + 8 * v), _mm256_add_epi32(x, y));
	}
}

void mldsa_dot_avx2(int32_t r[MLDSA_N], const struct mldsa_poly *a, const struct mldsa_poly *b, unsigned n)
{
	__m256i x, y, pe, po;
	unsigned v, j;

	for (v = 0; v < MLDSA_N / 8; v++) {
		pe = po = _mm256_setzero_si256();
		for (j = 0; j < n; j++) {
			x = _mm256_loadu_si256((const __m256i *)(a[j].c + 8 * v));
			y = _mm256_loadu_si256((const __m256i *)(b[j].c + 8 * v));
			pe = _mm256_add_epi64(pe, _mm256_mul_epi32(x, y));
			po = _mm256_add_epi64(po, _mm256_mul_epi32(_mm256_srli_epi64(x, 32), _mm256_srli_epi64(y, 32)));
		}
		_mm256_storeu_si256((__m256i *)(r + 8 * v), mont_reduce(pe, po));
	}
}

#endif
