/* ML-DSA.KeyGen_internal (FIPS 204 Alg. 6) with pkEncode and skEncode. */
#include <string.h>

#include "crypto/ct.h"
#include "crypto/keccak.h"
#include "crypto/mldsa.h"
#include "crypto/mldsa/matrix.h"
#include "crypto/mldsa/packing.h"

/* everything secret lives here, so one wipe clears it */
struct keygen_work {
	uint8_t seeds[128];	/* rho || rho' || K */
	/* s1 and s2 in one array, as ExpandS numbers them */
	struct mldsa_poly s[MLDSA_L_MAX + MLDSA_K_MAX], s1_hat[MLDSA_L_MAX], t[MLDSA_K_MAX], t0[MLDSA_K_MAX];
};

int mldsa_keygen(int set, const uint8_t xi[32], uint8_t *pk, uint8_t *sk)
{
	const struct mldsa_params *p = mldsa_params_get(set);
	struct keygen_work wk;
	uint8_t in[34], tr[64];
	const uint8_t *rho = wk.seeds, *rhoprime = wk.seeds + 32, *key = wk.seeds + 96;
	struct mldsa_poly *out[4];
	uint16_t nonce[4];
	unsigned i, j, n;

	if (!p || !xi || !pk || !sk)
		return -1;
	/* (rho, rho', K) = H(xi || k || l, 128) */
	memcpy(in, xi, 32);
	in[32] = (uint8_t)p->k;
	in[33] = (uint8_t)p->l;
	shake256(wk.seeds, sizeof(wk.seeds), in, sizeof(in));
	/* rho is public (it starts pk); A is sampled from it by rejection */
	CT_DECLASSIFY(wk.seeds, 32);
	/* ExpandS (Alg. 33), four polynomials at a time: s1 = s[0..l), s2 = s[l..l+k) */
	for (j = 0; j < p->l + p->k; j += n) {
		n = p->l + p->k - j < 4 ? p->l + p->k - j : 4;
		for (i = 0; i < n; i++) {
			out[i] = &wk.s[j + i];
			nonce[i] = (uint16_t)(j + i);
		}
		mldsa_poly_eta_x4(out, rhoprime, nonce, n, p->eta);
	}
	for (j = 0; j < p->l; j++) {
		wk.s1_hat[j] = wk.s[j];
		mldsa_poly_ntt(&wk.s1_hat[j]);
	}
	/* t = A s1 + s2, A generated on the fly; t1 goes straight into pk */
	mldsa_matrix_mul(wk.t, rho, wk.s1_hat, p);
	memcpy(pk, rho, 32);
	for (i = 0; i < p->k; i++) {
		mldsa_poly_reduce(&wk.t[i]);
		mldsa_poly_invntt(&wk.t[i]);
		mldsa_poly_add(&wk.t[i], &wk.t[i], &wk.s[p->l + i]);
		mldsa_poly_reduce(&wk.t[i]);
		mldsa_poly_caddq(&wk.t[i]);
		mldsa_poly_power2round(&wk.t[i], &wk.t0[i], &wk.t[i]);
		mldsa_simple_bitpack(pk + 32 + i * MLDSA_T1_POLY_BYTES, &wk.t[i], 10);
	}
	shake256(tr, sizeof(tr), pk, p->pk_bytes);
	mldsa_sk_encode(sk, p, rho, key, tr, wk.s, wk.s + p->l, wk.t0);
	keccak_wipe(&wk, sizeof(wk));
	keccak_wipe(in, sizeof(in));
	return 0;
}
