/* ML-DSA.KeyGen_internal (FIPS 204 Alg. 6) with pkEncode and skEncode. */
#include <string.h>

#include "crypto/ct.h"
#include "crypto/keccak.h"
#include "crypto/mldsa.h"
#include "crypto/mldsa/packing.h"

/* everything secret lives here, so one wipe clears it */
struct keygen_work {
	uint8_t seeds[128];	/* rho || rho' || K */
	struct mldsa_poly s1[MLDSA_L_MAX], s1_hat[MLDSA_L_MAX], s2[MLDSA_K_MAX], t0[MLDSA_K_MAX];
	struct mldsa_poly t, a;
};

int mldsa_keygen(int set, const uint8_t xi[32], uint8_t *pk, uint8_t *sk)
{
	const struct mldsa_params *p = mldsa_params_get(set);
	struct keygen_work wk;
	uint8_t in[34], tr[64];
	const uint8_t *rho = wk.seeds, *rhoprime = wk.seeds + 32, *key = wk.seeds + 96;
	unsigned i, j;

	if (!p || !xi || !pk || !sk)
		return -1;
	/* (rho, rho', K) = H(xi || k || l, 128) */
	memcpy(in, xi, 32);
	in[32] = (uint8_t)p->k;
	in[33] = (uint8_t)p->l;
	shake256(wk.seeds, sizeof(wk.seeds), in, sizeof(in));
	/* rho is public (it starts pk); A is sampled from it by rejection */
	CT_DECLASSIFY(wk.seeds, 32);
	/* ExpandS (Alg. 33) */
	for (j = 0; j < p->l; j++) {
		mldsa_poly_eta(&wk.s1[j], rhoprime, (uint16_t)j, p->eta);
		wk.s1_hat[j] = wk.s1[j];
		mldsa_poly_ntt(&wk.s1_hat[j]);
	}
	for (i = 0; i < p->k; i++)
		mldsa_poly_eta(&wk.s2[i], rhoprime, (uint16_t)(p->l + i), p->eta);
	/* t = A s1 + s2 row by row, generating A on the fly; t1 goes straight into pk */
	memcpy(pk, rho, 32);
	for (i = 0; i < p->k; i++) {
		for (j = 0; j < p->l; j++) {
			mldsa_poly_uniform(&wk.a, rho, (uint8_t)j, (uint8_t)i);
			if (j == 0)
				mldsa_poly_pointwise(&wk.t, &wk.a, &wk.s1_hat[0]);
			else
				mldsa_poly_pointwise_acc(&wk.t, &wk.a, &wk.s1_hat[j]);
		}
		mldsa_poly_reduce(&wk.t);
		mldsa_poly_invntt(&wk.t);
		mldsa_poly_add(&wk.t, &wk.t, &wk.s2[i]);
		mldsa_poly_reduce(&wk.t);
		mldsa_poly_caddq(&wk.t);
		mldsa_poly_power2round(&wk.t, &wk.t0[i], &wk.t);
		mldsa_simple_bitpack(pk + 32 + i * MLDSA_T1_POLY_BYTES, &wk.t, 10);
	}
	shake256(tr, sizeof(tr), pk, p->pk_bytes);
	mldsa_sk_encode(sk, p, rho, key, tr, wk.s1, wk.s2, wk.t0);
	keccak_wipe(&wk, sizeof(wk));
	keccak_wipe(in, sizeof(in));
	return 0;
}
