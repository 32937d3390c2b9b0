/* Number-theoretic transform for ML-DSA (FIPS 204 Alg. 41, 42) with Montgomery multiplication. */
#include "crypto/mldsa/avx2.h"
#include "crypto/mldsa/poly.h"
#include "crypto/mldsa/reduce.h"

/*
 * zetas[m] = 1753^BitRev8(m) * 2^32 mod q, centered: the roots of Alg. 41 in Montgomery form, so
 * that mldsa_montgomery(zeta * a) is the plain product. zetas[0] is not used. Shared with the
 * AVX2 code (avx2.h).
 */
const int32_t mldsa_zetas[MLDSA_N] = {
	-4186625, 25847, -2608894, -518909, 237124, -777960, -876248, 466468,
	1826347, 2353451, -359251, -2091905, 3119733, -2884855, 3111497, 2680103,
	2725464, 1024112, -1079900, 3585928, -549488, -1119584, 2619752, -2108549,
	-2118186, -3859737, -1399561, -3277672, 1757237, -19422, 4010497, 280005,
	2706023, 95776, 3077325, 3530437, -1661693, -3592148, -2537516, 3915439,
	-3861115, -3043716, 3574422, -2867647, 3539968, -300467, 2348700, -539299,
	-1699267, -1643818, 3505694, -3821735, 3507263, -2140649, -1600420, 3699596,
	811944, 531354, 954230, 3881043, 3900724, -2556880, 2071892, -2797779,
	-3930395, -1528703, -3677745, -3041255, -1452451, 3475950, 2176455, -1585221,
	-1257611, 1939314, -4083598, -1000202, -3190144, -3157330, -3632928, 126922,
	3412210, -983419, 2147896, 2715295, -2967645, -3693493, -411027, -2477047,
	-671102, -1228525, -22981, -1308169, -381987, 1349076, 1852771, -1430430,
	-3343383, 264944, 508951, 3097992, 44288, -1100098, 904516, 3958618,
	-3724342, -8578, 1653064, -3249728, 2389356, -210977, 759969, -1316856,
	189548, -3553272, 3159746, -1851402, -2409325, -177440, 1315589, 1341330,
	1285669, -1584928, -812732, -1439742, -3019102, -3881060, -3628969, 3839961,
	2091667, 3407706, 2316500, 3817976, -3342478, 2244091, -2446433, -3562462,
	266997, 2434439, -1235728, 3513181, -3520352, -3759364, -1197226, -3193378,
	900702, 1859098, 909542, 819034, 495491, -1613174, -43260, -522500,
	-655327, -3122442, 2031748, 3207046, -3556995, -525098, -768622, -3595838,
	342297, 286988, -2437823, 4108315, 3437287, -3342277, 1735879, 203044,
	2842341, 2691481, -2590150, 1265009, 4055324, 1247620, 2486353, 1595974,
	-3767016, 1250494, 2635921, -3548272, -2994039, 1869119, 1903435, -1050970,
	-1333058, 1237275, -3318210, -1430225, -451100, 1312455, 3306115, -1962642,
	-1279661, 1917081, -2546312, -1374803, 1500165, 777191, 2235880, 3406031,
	-542412, -2831860, -1671176, -1846953, -2584293, -3724270, 594136, -3776993,
	-2013608, 2432395, 2454455, -164721, 1957272, 3369112, 185531, -1207385,
	-3183426, 162844, 1616392, 3014001, 810149, 1652634, -3694233, -1799107,
	-3038916, 3523897, 3866901, 269760, 2213111, -975884, 1717735, 472078,
	-426683, 1723600, -1803090, 1910376, -1667432, -1104333, -260646, -3833893,
	-2939036, -2235985, -420899, -2286327, 183443, -976891, 1612842, -3545687,
	-554416, 3919660, -48306, -1362209, 3937738, 1400424, -846154, 1976782,
};

/* 2^64 / 256 mod q: undoes the 2^-32 of a pointwise product and divides by 256 */
#define INVNTT_F 41978
/* INVNTT_F * -zetas[1] * 2^-32 mod q: the last inverse layer's root with the scaling folded in */
#define INVNTT_F_ZETA 3975713

/*
 * The butterflies work on coefficients held in local variables: three layers at a time over
 * eight coefficients (len = 4L, 2L, L), so that each coefficient is loaded and stored once per
 * three layers rather than once per layer. The three-layer functions are inlined into each call
 * (always_inline), where L is a constant and the strides become immediate offsets.
 */
static inline void ct(int32_t *x, int32_t *y, int32_t zeta)
{
	int32_t t = mldsa_montgomery((int64_t)zeta * *y);

	*y = *x - t;
	*x = *x + t;
}

static inline void gs(int32_t *x, int32_t *y, int32_t zeta)
{
	int32_t t = *x;

	*x = t + *y;
	*y = mldsa_montgomery((int64_t)zeta * (t - *y));
}

/*
 * Forward layers len = 4L, 2L, L on the super-blocks of 8L coefficients: in super-block s the
 * layer with blocks of 2 len uses zetas[128 / len + block], numbered as Alg. 41 counts m.
 */
static inline __attribute__((always_inline)) void ntt_3layers(int32_t *c, const unsigned L)
{
	unsigned s, j, m = 128 / (4 * L);
	int32_t x0, x1, x2, x3, x4, x5, x6, x7, *p;

	for (s = 0; s < MLDSA_N / (8 * L); s++) {
		for (j = 0; j < L; j++) {
			p = c + 8 * L * s + j;
			x0 = p[0]; x1 = p[L]; x2 = p[2 * L]; x3 = p[3 * L];
			x4 = p[4 * L]; x5 = p[5 * L]; x6 = p[6 * L]; x7 = p[7 * L];
			ct(&x0, &x4, mldsa_zetas[m + s]);
			ct(&x1, &x5, mldsa_zetas[m + s]);
			ct(&x2, &x6, mldsa_zetas[m + s]);
			ct(&x3, &x7, mldsa_zetas[m + s]);
			ct(&x0, &x2, mldsa_zetas[2 * m + 2 * s]);
			ct(&x1, &x3, mldsa_zetas[2 * m + 2 * s]);
			ct(&x4, &x6, mldsa_zetas[2 * m + 2 * s + 1]);
			ct(&x5, &x7, mldsa_zetas[2 * m + 2 * s + 1]);
			ct(&x0, &x1, mldsa_zetas[4 * m + 4 * s]);
			ct(&x2, &x3, mldsa_zetas[4 * m + 4 * s + 1]);
			ct(&x4, &x5, mldsa_zetas[4 * m + 4 * s + 2]);
			ct(&x6, &x7, mldsa_zetas[4 * m + 4 * s + 3]);
			p[0] = x0; p[L] = x1; p[2 * L] = x2; p[3 * L] = x3;
			p[4 * L] = x4; p[5 * L] = x5; p[6 * L] = x6; p[7 * L] = x7;
		}
	}
}

/*
 * Cooley-Tukey butterflies, layers len = 128..32, 16..4, then 2 and 1. Each layer adds less
 * than q to the coefficient bound, so inputs with |c| < q leave with |c| < 9q.
 */
static void ntt(struct mldsa_poly *a)
{
	int32_t x0, x1, x2, x3, *p;
	unsigned s;

	ntt_3layers(a->c, 32);
	ntt_3layers(a->c, 4);
	for (s = 0; s < MLDSA_N / 4; s++) {
		p = a->c + 4 * s;
		x0 = p[0]; x1 = p[1]; x2 = p[2]; x3 = p[3];
		ct(&x0, &x2, mldsa_zetas[64 + s]);
		ct(&x1, &x3, mldsa_zetas[64 + s]);
		ct(&x0, &x1, mldsa_zetas[128 + 2 * s]);
		ct(&x2, &x3, mldsa_zetas[128 + 2 * s + 1]);
		p[0] = x0; p[1] = x1; p[2] = x2; p[3] = x3;
	}
}

/*
 * Inverse layers len = L, 2L, 4L on super-blocks of 8L coefficients; the layer with blocks of
 * 2 len uses -zetas[256 / len - 1 - block], the roots of Alg. 42 in the order it takes them.
 */
static inline __attribute__((always_inline)) void invntt_3layers(int32_t *c, const unsigned L)
{
	unsigned s, j, m = 256 / L;
	int32_t x0, x1, x2, x3, x4, x5, x6, x7, *p;

	for (s = 0; s < MLDSA_N / (8 * L); s++) {
		for (j = 0; j < L; j++) {
			p = c + 8 * L * s + j;
			x0 = p[0]; x1 = p[L]; x2 = p[2 * L]; x3 = p[3 * L];
			x4 = p[4 * L]; x5 = p[5 * L]; x6 = p[6 * L]; x7 = p[7 * L];
			gs(&x0, &x1, -mldsa_zetas[m - 1 - 4 * s]);
			gs(&x2, &x3, -mldsa_zetas[m - 2 - 4 * s]);
			gs(&x4, &x5, -mldsa_zetas[m - 3 - 4 * s]);
			gs(&x6, &x7, -mldsa_zetas[m - 4 - 4 * s]);
			gs(&x0, &x2, -mldsa_zetas[m / 2 - 1 - 2 * s]);
			gs(&x1, &x3, -mldsa_zetas[m / 2 - 1 - 2 * s]);
			gs(&x4, &x6, -mldsa_zetas[m / 2 - 2 - 2 * s]);
			gs(&x5, &x7, -mldsa_zetas[m / 2 - 2 - 2 * s]);
			gs(&x0, &x4, -mldsa_zetas[m / 4 - 1 - s]);
			gs(&x1, &x5, -mldsa_zetas[m / 4 - 1 - s]);
			gs(&x2, &x6, -mldsa_zetas[m / 4 - 1 - s]);
			gs(&x3, &x7, -mldsa_zetas[m / 4 - 1 - s]);
			p[0] = x0; p[L] = x1; p[2 * L] = x2; p[3 * L] = x3;
			p[4 * L] = x4; p[5 * L] = x5; p[6 * L] = x6; p[7 * L] = x7;
		}
	}
}

/*
 * Gentleman-Sande butterflies, layers len = 1..4, 8..32, then 64 and 128 with the division by
 * 256 (and the Montgomery factor of the pointwise product) folded into the last one. The sums
 * double per layer: inputs with |c| < q stay below 256q < 2^31, and every product is reduced.
 * Outputs satisfy |c| < q.
 */
static void invntt(struct mldsa_poly *a)
{
	int32_t x0, x1, x2, x3, *p;
	unsigned j;

	invntt_3layers(a->c, 1);
	invntt_3layers(a->c, 8);
	for (j = 0; j < 64; j++) {
		p = a->c + j;
		x0 = p[0]; x1 = p[64]; x2 = p[128]; x3 = p[192];
		gs(&x0, &x1, -mldsa_zetas[3]);
		gs(&x2, &x3, -mldsa_zetas[2]);
		gs(&x0, &x2, INVNTT_F_ZETA);
		gs(&x1, &x3, INVNTT_F_ZETA);
		p[0] = mldsa_montgomery((int64_t)INVNTT_F * x0);
		p[64] = mldsa_montgomery((int64_t)INVNTT_F * x1);
		p[128] = x2;
		p[192] = x3;
	}
}

/* products of NTT outputs (|c| < 9q) stay below q * 2^31 */
static void pointwise(struct mldsa_poly *r, const struct mldsa_poly *a, const struct mldsa_poly *b)
{
	unsigned i;

	for (i = 0; i < MLDSA_N; i++)
		r->c[i] = mldsa_montgomery((int64_t)a->c[i] * b->c[i]);
}

/* up to 8 accumulated products stay below 8q < 2^31 */
static void pointwise_acc(struct mldsa_poly *r, const struct mldsa_poly *a, const struct mldsa_poly *b)
{
	unsigned i;

	for (i = 0; i < MLDSA_N; i++)
		r->c[i] += mldsa_montgomery((int64_t)a->c[i] * b->c[i]);
}

/*
 * r = sum of a[j] * b[j] * 2^-32 for j < n, one reduction per coefficient: with |a| < q (A, sampled
 * in [0, q)), |b| < 9q (an NTT output) and n <= 7 the sum of products stays below 63 q^2 < q * 2^31.
 */
static void dot(struct mldsa_poly *r, const struct mldsa_poly *a, const struct mldsa_poly *b, unsigned n)
{
	unsigned i, j;
	int64_t acc;

	for (i = 0; i < MLDSA_N; i++) {
		acc = 0;
		for (j = 0; j < n; j++)
			acc += (int64_t)a[j].c[i] * b[j].c[i];
		r->c[i] = mldsa_montgomery(acc);
	}
}

/* the entry points: AVX2 where the CPU has it (avx2.h), the code above otherwise */
void mldsa_poly_ntt(struct mldsa_poly *a)
{
	MLDSA_AVX2_OR(mldsa_ntt_avx2(a->c), ntt(a));
}

void mldsa_poly_invntt(struct mldsa_poly *a)
{
	MLDSA_AVX2_OR(mldsa_invntt_avx2(a->c), invntt(a));
}

void mldsa_poly_pointwise(struct mldsa_poly *r, const struct mldsa_poly *a, const struct mldsa_poly *b)
{
	MLDSA_AVX2_OR(mldsa_pointwise_avx2(r->c, a->c, b->c), pointwise(r, a, b));
}

void mldsa_poly_pointwise_acc(struct mldsa_poly *r, const struct mldsa_poly *a, const struct mldsa_poly *b)
{
	MLDSA_AVX2_OR(mldsa_pointwise_acc_avx2(r->c, a->c, b->c), pointwise_acc(r, a, b));
}

void mldsa_poly_dot(struct mldsa_poly *r, const struct mldsa_poly *a, const struct mldsa_poly *b, unsigned n)
{
	MLDSA_AVX2_OR(mldsa_dot_avx2(r->c, a, b, n), dot(r, a, b, n));
}
