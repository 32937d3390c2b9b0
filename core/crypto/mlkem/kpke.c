/* K-PKE key generation, encryption and decryption (FIPS 203 Alg. 13-15). A is generated on the fly. */
#include <string.h>

#include "crypto/ct.h"
#include "crypto/keccak.h"
#include "crypto/mlkem/kpke.h"
#include "crypto/mlkem/poly.h"

struct keygen_work {
	uint8_t in[33];		/* d || k */
	uint8_t seeds[64];	/* rho || sigma */
	struct mlkem_poly s[MLKEM_K_MAX], e, t, a;
};

void mlkem_pke_keygen(const struct mlkem_params *p, const uint8_t d[32], uint8_t *ek, uint8_t *dk_pke)
{
	struct keygen_work wk;
	const uint8_t *rho = wk.seeds, *sigma = wk.seeds + 32;
	unsigned i, j;

	/* (rho, sigma) = G(d || k) */
	memcpy(wk.in, d, 32);
	wk.in[32] = (uint8_t)p->k;
	sha3_512(wk.seeds, wk.in, sizeof(wk.in));
	/* rho is public (it ends ek); A is sampled from it by rejection */
	CT_DECLASSIFY(wk.seeds, 32);
	for (i = 0; i < p->k; i++) {
		mlkem_poly_cbd(&wk.s[i], sigma, (uint8_t)i, p->eta1);
		mlkem_poly_ntt(&wk.s[i]);
	}
	/* t_hat = A s_hat + e_hat, one row at a time */
	for (i = 0; i < p->k; i++) {
		for (j = 0; j < p->k; j++) {
			mlkem_poly_uniform(&wk.a, rho, (uint8_t)j, (uint8_t)i);
			if (j == 0)
				mlkem_poly_basemul(&wk.t, &wk.a, &wk.s[0]);
			else
				mlkem_poly_basemul_acc(&wk.t, &wk.a, &wk.s[j]);
		}
		mlkem_poly_tomont(&wk.t);
		mlkem_poly_cbd(&wk.e, sigma, (uint8_t)(p->k + i), p->eta1);
		mlkem_poly_ntt(&wk.e);
		mlkem_poly_add(&wk.t, &wk.t, &wk.e);
		mlkem_poly_reduce(&wk.t);
		mlkem_poly_encode12(ek + i * MLKEM_POLY_BYTES, &wk.t);
	}
	memcpy(ek + p->k * MLKEM_POLY_BYTES, rho, 32);
	for (i = 0; i < p->k; i++)
		mlkem_poly_encode12(dk_pke + i * MLKEM_POLY_BYTES, &wk.s[i]);
	keccak_wipe(&wk, sizeof(wk));
}

struct encrypt_work {
	struct mlkem_poly y[MLKEM_K_MAX], u, e, a;
};

void mlkem_pke_encrypt(const struct mlkem_params *p, const uint8_t *ek, const uint8_t m[32], const uint8_t r[32],
	uint8_t *c)
{
	struct encrypt_work wk;
	const uint8_t *rho = ek + p->k * MLKEM_POLY_BYTES;
	size_t u_bytes = 32 * p->du;
	unsigned i, j;

	for (i = 0; i < p->k; i++) {
		mlkem_poly_cbd(&wk.y[i], r, (uint8_t)i, p->eta1);
		mlkem_poly_ntt(&wk.y[i]);
	}
	/* u = NTT^-1(A^T y_hat) + e1; A^T[i][j] = A[j][i] = SampleNTT(rho || i || j) */
	for (i = 0; i < p->k; i++) {
		for (j = 0; j < p->k; j++) {
			mlkem_poly_uniform(&wk.a, rho, (uint8_t)i, (uint8_t)j);
			if (j == 0)
				mlkem_poly_basemul(&wk.u, &wk.a, &wk.y[0]);
			else
				mlkem_poly_basemul_acc(&wk.u, &wk.a, &wk.y[j]);
		}
		mlkem_poly_reduce(&wk.u);
		mlkem_poly_invntt(&wk.u);
		mlkem_poly_cbd(&wk.e, r, (uint8_t)(p->k + i), p->eta2);
		mlkem_poly_add(&wk.u, &wk.u, &wk.e);
		mlkem_poly_reduce(&wk.u);
		mlkem_poly_compress(c + i * u_bytes, &wk.u, p->du);
	}
	/* v = NTT^-1(t_hat^T y_hat) + e2 + Decompress_1(m) */
	for (j = 0; j < p->k; j++) {
		mlkem_poly_decode12(&wk.a, ek + j * MLKEM_POLY_BYTES);
		if (j == 0)
			mlkem_poly_basemul(&wk.u, &wk.a, &wk.y[0]);
		else
			mlkem_poly_basemul_acc(&wk.u, &wk.a, &wk.y[j]);
	}
	mlkem_poly_reduce(&wk.u);
	mlkem_poly_invntt(&wk.u);
	mlkem_poly_cbd(&wk.e, r, (uint8_t)(2 * p->k), p->eta2);
	mlkem_poly_add(&wk.u, &wk.u, &wk.e);
	mlkem_poly_decompress(&wk.e, m, 1);
	mlkem_poly_add(&wk.u, &wk.u, &wk.e);
	mlkem_poly_reduce(&wk.u);
	mlkem_poly_compress(c + p->k * u_bytes, &wk.u, p->dv);
	keccak_wipe(&wk, sizeof(wk));
}

struct decrypt_work {
	struct mlkem_poly u, s, w, v;
};

void mlkem_pke_decrypt(const struct mlkem_params *p, const uint8_t *dk_pke, const uint8_t *c, uint8_t m[32])
{
	struct decrypt_work wk;
	size_t u_bytes = 32 * p->du;
	unsigned i;

	/* w = v' - NTT^-1(s_hat^T NTT(u')) */
	for (i = 0; i < p->k; i++) {
		mlkem_poly_decompress(&wk.u, c + i * u_bytes, p->du);
		mlkem_poly_ntt(&wk.u);
		mlkem_poly_decode12(&wk.s, dk_pke + i * MLKEM_POLY_BYTES);
		if (i == 0)
			mlkem_poly_basemul(&wk.w, &wk.s, &wk.u);
		else
			mlkem_poly_basemul_acc(&wk.w, &wk.s, &wk.u);
	}
	mlkem_poly_reduce(&wk.w);
	mlkem_poly_invntt(&wk.w);
	mlkem_poly_decompress(&wk.v, c + p->k * u_bytes, p->dv);
	mlkem_poly_sub(&wk.w, &wk.v, &wk.w);
	mlkem_poly_reduce(&wk.w);
	mlkem_poly_compress(m, &wk.w, 1);
	keccak_wipe(&wk, sizeof(wk));
}
