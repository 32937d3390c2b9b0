/* Parse an ML-DSA secret key once (skDecode, Alg. 25) into the form signing works on. */
#include <string.h>

#include "crypto/keccak.h"
#include "crypto/mldsa.h"
#include "crypto/mldsa/expanded.h"
#include "crypto/mldsa/matrix.h"
#include "crypto/mldsa/packing.h"

size_t mldsa_expanded_size(void)
{
	return sizeof(struct mldsa_expanded);
}

int mldsa_expand(int set, const uint8_t *sk, struct mldsa_expanded *out)
{
	const struct mldsa_params *p = mldsa_params_get(set);
	struct mldsa_sk_layout lay;
	unsigned i, j;

	if (!p || !sk || !out)
		return -1;
	mldsa_sk_layout(&lay, p, sk);
	out->p = p;
	memcpy(out->key, lay.key, sizeof(out->key));
	memcpy(out->tr, lay.tr, sizeof(out->tr));
	mldsa_expand_a(out->a, lay.rho, p);
	for (j = 0; j < p->l; j++) {
		mldsa_bitunpack(&out->s1[j], lay.s1 + j * lay.eta_poly_bytes, p->eta_bits, (int32_t)p->eta);
		mldsa_poly_ntt(&out->s1[j]);
	}
	for (i = 0; i < p->k; i++) {
		mldsa_bitunpack(&out->s2[i], lay.s2 + i * lay.eta_poly_bytes, p->eta_bits, (int32_t)p->eta);
		mldsa_poly_ntt(&out->s2[i]);
		mldsa_bitunpack(&out->t0[i], lay.t0 + i * MLDSA_T0_POLY_BYTES, MLDSA_D, 1 << (MLDSA_D - 1));
		mldsa_poly_ntt(&out->t0[i]);
	}
	return 0;
}

void mldsa_expanded_wipe(struct mldsa_expanded *k)
{
	if (k)
		keccak_wipe(k, sizeof(*k));
}
