/*
 * The matrix A of ExpandA (FIPS 204 Alg. 32): whole, for an expanded key, or streamed through a
 * product A v, for key generation and verification, which use each entry once. Either way the
 * entries are sampled four at a time in row order (mldsa_poly_uniform_x4).
 */
#include "crypto/mldsa/matrix.h"

/* the next batch of at most four entries from flat index e (row e / l, column e % l) */
static unsigned batch(uint16_t nonce[4], unsigned e, const struct mldsa_params *p)
{
	unsigned i, n = p->k * p->l - e < 4 ? p->k * p->l - e : 4;

	for (i = 0; i < n; i++)
		nonce[i] = (uint16_t)((e + i) / p->l << 8 | (e + i) % p->l);
	return n;
}

void mldsa_expand_a(struct mldsa_poly a[MLDSA_K_MAX][MLDSA_L_MAX], const uint8_t rho[32],
	const struct mldsa_params *p)
{
	struct mldsa_poly *out[4];
	uint16_t nonce[4];
	unsigned e, i, n;

	for (e = 0; e < p->k * p->l; e += n) {
		n = batch(nonce, e, p);
		for (i = 0; i < n; i++)
			out[i] = &a[(e + i) / p->l][(e + i) % p->l];
		mldsa_poly_uniform_x4(out, rho, nonce, n);
	}
}

void mldsa_matrix_mul(struct mldsa_poly *w, const uint8_t rho[32], const struct mldsa_poly *v,
	const struct mldsa_params *p)
{
	struct mldsa_poly a[4], *out[4] = { &a[0], &a[1], &a[2], &a[3] };
	uint16_t nonce[4];
	unsigned e, i, n, row, col;

	for (e = 0; e < p->k * p->l; e += n) {
		n = batch(nonce, e, p);
		mldsa_poly_uniform_x4(out, rho, nonce, n);
		for (i = 0; i < n; i++) {
			row = (e + i) / p->l;
			col = (e + i) % p->l;
			if (col == 0)
				mldsa_poly_pointwise(&w[row], &a[i], &v[0]);
			else
				mldsa_poly_pointwise_acc(&w[row], &a[i], &v[col]);
		}
	}
}
