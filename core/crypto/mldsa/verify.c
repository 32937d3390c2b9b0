/* ML-DSA.Verify_internal (FIPS 204 Alg. 8) from the message representative mu on; all inputs public. */
#include <string.h>

#include "crypto/keccak.h"
#include "crypto/mldsa.h"
#include "crypto/mldsa/matrix.h"
#include "crypto/mldsa/packing.h"

struct verify_work {
	struct mldsa_poly z[MLDSA_L_MAX];
	struct mldsa_poly w[MLDSA_K_MAX];
	struct mldsa_poly c, t;
	uint8_t h[MLDSA_K_MAX][MLDSA_N];
	uint8_t w1_enc[MLDSA_K_MAX * MLDSA_W1_POLY_BYTES_MAX];
	uint8_t ctilde[MLDSA_CTILDE_MAX];
};

int mldsa_verify_mu(int set, const uint8_t *pk, const uint8_t mu[64], const uint8_t *sig, size_t siglen)
{
	const struct mldsa_params *p = mldsa_params_get(set);
	struct verify_work wk;
	struct keccak_ctx h;
	size_t w1_poly_bytes;
	unsigned i, j;
	int reject = 0;

	if (!p || !pk || !mu || !sig || siglen != p->sig_bytes)
		return -1;
	if (mldsa_sig_decode(wk.z, wk.h, p, sig))
		return -1;
	for (j = 0; j < p->l; j++)
		reject |= mldsa_poly_exceeds(&wk.z[j], p->gamma1 - p->beta);
	if (reject)
		return -1;
	mldsa_poly_challenge(&wk.c, sig, p->ctilde_bytes, p->tau);
	mldsa_poly_ntt(&wk.c);
	for (j = 0; j < p->l; j++)
		mldsa_poly_ntt(&wk.z[j]);
	/* w'_approx = NTT^-1(A z - c t1 2^d), A generated on the fly, then UseHint */
	mldsa_matrix_mul(wk.w, pk, wk.z, p);
	w1_poly_bytes = 32 * p->w1_bits;
	for (i = 0; i < p->k; i++) {
		mldsa_simple_bitunpack(&wk.t, pk + 32 + i * MLDSA_T1_POLY_BYTES, 10);
		mldsa_poly_shiftl(&wk.t);
		mldsa_poly_ntt(&wk.t);
		mldsa_poly_pointwise(&wk.t, &wk.c, &wk.t);
		mldsa_poly_sub(&wk.w[i], &wk.w[i], &wk.t);
		mldsa_poly_reduce(&wk.w[i]);
		mldsa_poly_invntt(&wk.w[i]);
		mldsa_poly_use_hint(&wk.w[i], &wk.w[i], wk.h[i], p->gamma2);
		mldsa_simple_bitpack(wk.w1_enc + i * w1_poly_bytes, &wk.w[i], p->w1_bits);
	}
	/* ctilde' = H(mu || w1Encode(w1'), lambda / 4) */
	shake256_init(&h);
	keccak_absorb(&h, mu, MLDSA_MU_BYTES);
	keccak_absorb(&h, wk.w1_enc, p->k * w1_poly_bytes);
	keccak_finalize(&h);
	keccak_squeeze(&h, wk.ctilde, p->ctilde_bytes);
	return memcmp(wk.ctilde, sig, p->ctilde_bytes) ? -1 : 0;
}
