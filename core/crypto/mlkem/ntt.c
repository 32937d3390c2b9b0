/* Number-theoretic transform for ML-KEM (FIPS 203 Alg. 9-12) with Montgomery multiplication. */
#include "crypto/mlkem/poly.h"
#include "crypto/mlkem/reduce.h"

/* zetas[i] = 17^BitRev7(i) * 2^16 mod q, centered (Montgomery form); zetas[0] is not used */
static const int16_t zetas[128] = {
	-1044, -758, -359, -1517, 1493, 1422, 287, 202, -171, 622, 1577, 182, 962, -1202, -1474, 1468,
	573, -1325, 264, 383, -829, 1458, -1602, -130, -681, 1017, 732, 608, -1542, 411, -205, -1571,
	1223, 652, -552, 1015, -1293, 1491, -282, -1544, 516, -8, -320, -666, -1618, -1162, 126, 1469,
	-853, -90, -271, 830, 107, -1421, -247, -951, -398, 961, -1508, -725, 448, -1065, 677, -1275,
	-1103, 430, 555, 843, -1251, 871, 1550, 105, 422, 587, 177, -235, -291, -460, 1574, 1653,
	-246, 778, 1159, -147, -777, 1483, -602, 1119, -1590, 644, -872, 349, 418, 329, -156, -75,
	817, 1097, 603, 610, 1322, -1285, -1465, 384, -1215, -136, 1218, -1335, -874, 220, -1187, -1659,
	-1185, -1530, -1278, 794, -1510, -854, -870, 478, -108, -308, 996, 991, 958, -1460, 1522, 1628,
};

/* gammas[i] = 17^(2 BitRev7(i) + 1) * 2^16 mod q, centered: X^2 - gammas[i] is the i-th factor */
static const int16_t gammas[128] = {
	-1103, 1103, 430, -430, 555, -555, 843, -843, -1251, 1251, 871, -871, 1550, -1550, 105, -105,
	422, -422, 587, -587, 177, -177, -235, 235, -291, 291, -460, 460, 1574, -1574, 1653, -1653,
	-246, 246, 778, -778, 1159, -1159, -147, 147, -777, 777, 1483, -1483, -602, 602, 1119, -1119,
	-1590, 1590, 644, -644, -872, 872, 349, -349, 418, -418, 329, -329, -156, 156, -75, 75,
	817, -817, 1097, -1097, 603, -603, 610, -610, 1322, -1322, -1285, 1285, -1465, 1465, 384, -384,
	-1215, 1215, -136, 136, 1218, -1218, -1335, 1335, -874, 874, 220, -220, -1187, 1187, -1659, 1659,
	-1185, 1185, -1530, 1530, -1278, 1278, 794, -794, -1510, 1510, -854, 854, -870, 870, 478, -478,
	-108, 108, -308, 308, 996, -996, 991, -991, 958, -958, -1460, 1460, 1522, -1522, 1628, -1628,
};

/* 2^32 / 128 mod q: undoes the 2^-16 of a product and divides by 128 */
#define INVNTT_F 1441

/* Cooley-Tukey butterflies: each layer adds less than q to the bound, |c| < 8q before the reduction */
void mlkem_poly_ntt(struct mlkem_poly *a)
{
	unsigned len, start, j, i = 1;
	int16_t zeta, t;

	for (len = 128; len >= 2; len >>= 1) {
		for (start = 0; start < MLKEM_N; start += 2 * len) {
			zeta = zetas[i++];
			for (j = start; j < start + len; j++) {
				t = mlkem_fqmul(zeta, a->c[j + len]);
				a->c[j + len] = (int16_t)(a->c[j] - t);
				a->c[j] = (int16_t)(a->c[j] + t);
			}
		}
	}
	for (j = 0; j < MLKEM_N; j++)
		a->c[j] = mlkem_barrett(a->c[j]);
}

/* Gentleman-Sande butterflies; the sums are reduced at once, so every value stays below 2^15 */
void mlkem_poly_invntt(struct mlkem_poly *a)
{
	unsigned len, start, j, i = 127;
	int16_t zeta, t;

	for (len = 2; len <= 128; len <<= 1) {
		for (start = 0; start < MLKEM_N; start += 2 * len) {
			zeta = zetas[i--];
			for (j = start; j < start + len; j++) {
				t = a->c[j];
				a->c[j] = mlkem_barrett((int16_t)(t + a->c[j + len]));
				a->c[j + len] = mlkem_fqmul(zeta, (int16_t)(a->c[j + len] - t));
			}
		}
	}
	for (j = 0; j < MLKEM_N; j++)
		a->c[j] = mlkem_fqmul(a->c[j], INVNTT_F);
}

/* BaseCaseMultiply (Alg. 12) on each pair: each output is a sum of two products, |c| < 2q */
static inline void basemul(int16_t r[2], const int16_t a[2], const int16_t b[2], int16_t gamma)
{
	r[0] = (int16_t)(mlkem_fqmul(a[0], b[0]) + mlkem_fqmul(mlkem_fqmul(a[1], b[1]), gamma));
	r[1] = (int16_t)(mlkem_fqmul(a[0], b[1]) + mlkem_fqmul(a[1], b[0]));
}

void mlkem_poly_basemul(struct mlkem_poly *r, const struct mlkem_poly *a, const struct mlkem_poly *b)
{
	unsigned i;

	for (i = 0; i < MLKEM_N / 2; i++)
		basemul(&r->c[2 * i], &a->c[2 * i], &b->c[2 * i], gammas[i]);
}

/* four accumulated products stay below 8q < 2^15 */
void mlkem_poly_basemul_acc(struct mlkem_poly *r, const struct mlkem_poly *a, const struct mlkem_poly *b)
{
	int16_t t[2];
	unsigned i;

	for (i = 0; i < MLKEM_N / 2; i++) {
		basemul(t, &a->c[2 * i], &b->c[2 * i], gammas[i]);
		r->c[2 * i] = (int16_t)(r->c[2 * i] + t[0]);
		r->c[2 * i + 1] = (int16_t)(r->c[2 * i + 1] + t[1]);
	}
}
