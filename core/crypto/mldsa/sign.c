/* ML-DSA.Sign_internal (FIPS 204 Alg. 7) from the message representative mu on. */
#include <string.h>

#include "crypto/ct.h"
#include "crypto/keccak.h"
#include "crypto/mldsa.h"
#include "crypto/mldsa/expanded.h"
#include "crypto/mldsa/packing.h"

/*
 * FIPS 204 allows bounding the rejection loop (Appendix C: no fewer than 814 iterations). An
 * iteration is accepted with probability 1/5 or better, so a valid key needs more than 1000
 * with probability below 2^-280.
 */
#define MAX_ATTEMPTS 1000

/* all per-signature secrets, wiped together */
struct sign_work {
	uint8_t rhopp[64];
	uint8_t w1_enc[MLDSA_K_MAX * MLDSA_W1_POLY_BYTES_MAX];
	struct mldsa_poly y[MLDSA_L_MAX];	/* mask */
	struct mldsa_poly z[MLDSA_L_MAX];	/* NTT(y), then y + c s1 */
	struct mldsa_poly w0[MLDSA_K_MAX];	/* LowBits(w), then LowBits(w - c s2) */
	struct mldsa_poly w1[MLDSA_K_MAX];	/* HighBits(w) */
	struct mldsa_poly h[MLDSA_K_MAX];	/* the hints */
	struct mldsa_poly c, t;
	struct keccak_ctx h_ctx;
	/* ExpandMask's polynomials in nonce order, made a batch at a time: attempt kappa / l takes
	 * the next l of them (nonces kappa .. kappa + l - 1), so no batch is left part empty */
	struct mldsa_poly masks[4];
	unsigned mask_pos, mask_have;
	uint16_t mask_nonce;	/* of the next polynomial to make */
};

static void next_mask(struct sign_work *wk, struct mldsa_poly *y, const struct mldsa_params *p)
{
	struct mldsa_poly *out[4] = { &wk->masks[0], &wk->masks[1], &wk->masks[2], &wk->masks[3] };
	uint16_t nonce[4];
	unsigned i;

	if (wk->mask_pos == wk->mask_have) {
		wk->mask_have = mldsa_sample_batch();
		for (i = 0; i < wk->mask_have; i++)
			nonce[i] = (uint16_t)(wk->mask_nonce + i);
		mldsa_poly_mask_x4(out, wk->rhopp, nonce, wk->mask_have, p);
		wk->mask_nonce = (uint16_t)(wk->mask_nonce + wk->mask_have);
		wk->mask_pos = 0;
	}
	*y = wk->masks[wk->mask_pos++];
}

/* y = ExpandMask(rho'', kappa) and w = NTT^-1(A NTT(y)) split into its high and low bits;
 * returns the length of w1Encode(w1) */
static size_t commit(struct sign_work *wk, const struct mldsa_expanded *k)
{
	const struct mldsa_params *p = k->p;
	unsigned i, j;

	for (j = 0; j < p->l; j++) {
		next_mask(wk, &wk->y[j], p);
		wk->z[j] = wk->y[j];
		mldsa_poly_ntt(&wk->z[j]);
	}
	for (i = 0; i < p->k; i++) {
		/* |A| < q, |NTT(y)| < 9q: the dot product's bounds; the result is in (-q, q) */
		mldsa_poly_dot(&wk->t, k->a[i], wk->z, p->l);
		mldsa_poly_invntt(&wk->t);
		mldsa_poly_decompose(&wk->w1[i], &wk->w0[i], &wk->t, p->gamma2);
	}
	return mldsa_w1_encode(wk->w1_enc, wk->w1, p);
}

/*
 * The checks of Alg. 7 lines 23-30 with z and the hints built on the way. Returns 0 if the
 * candidate is accepted. Rejecting early only tells which check failed for a candidate that is
 * thrown away. The products with c come out of the inverse NTT in (-q, q) while their values
 * are small (|c s1|, |c s2| <= beta, |c t0| <= tau 2^12), so one reduction centers the sums.
 */
static int respond(struct sign_work *wk, const struct mldsa_expanded *k)
{
	const struct mldsa_params *p = k->p;
	unsigned i, j, hints = 0;
	int reject = 0;

	/*
	 * r0 = LowBits(w - c s2) = LowBits(w) - c s2 when that stays in (-gamma2 + beta, gamma2 - beta),
	 * and when it does not, the true r0 fails the check as well (it is the same value shifted by
	 * 2 gamma2, with |c s2| <= beta). This check comes first: it fails more often than the one on
	 * z (about 2/3 of the attempts against 1/3 to 1/2), so fewer products are computed in vain.
	 */
	for (i = 0; i < p->k; i++) {
		mldsa_poly_pointwise(&wk->t, &wk->c, &k->s2[i]);
		mldsa_poly_invntt(&wk->t);
		mldsa_poly_sub(&wk->w0[i], &wk->w0[i], &wk->t);
		mldsa_poly_reduce(&wk->w0[i]);
		reject |= mldsa_poly_exceeds(&wk->w0[i], p->gamma2 - p->beta);
	}
	/* whether a candidate is rejected, and at which check, may show: ML-DSA's rejection
	 * sampling (Fiat-Shamir with aborts) treats the attempts as public, only the values of a
	 * rejected candidate must not leak */
	CT_DECLASSIFY(&reject, sizeof(reject));
	if (reject)
		return -1;
	/* z = y + c s1 */
	for (j = 0; j < p->l; j++) {
		mldsa_poly_pointwise(&wk->z[j], &wk->c, &k->s1[j]);
		mldsa_poly_invntt(&wk->z[j]);
		mldsa_poly_add(&wk->z[j], &wk->z[j], &wk->y[j]);
		mldsa_poly_reduce(&wk->z[j]);
		reject |= mldsa_poly_exceeds(&wk->z[j], p->gamma1 - p->beta);
	}
	CT_DECLASSIFY(&reject, sizeof(reject));
	if (reject)
		return -1;
	/* ||c t0|| < gamma2, then h = MakeHint(-c t0, w - c s2 + c t0) from r0 + c t0 and w1 */
	for (i = 0; i < p->k; i++) {
		mldsa_poly_pointwise(&wk->t, &wk->c, &k->t0[i]);
		mldsa_poly_invntt(&wk->t);
		mldsa_poly_reduce(&wk->t);
		reject |= mldsa_poly_exceeds(&wk->t, p->gamma2);
		mldsa_poly_add(&wk->t, &wk->w0[i], &wk->t);
		hints += mldsa_poly_make_hint(&wk->h[i], &wk->t, &wk->w1[i], p->gamma2);
	}
	CT_DECLASSIFY(&reject, sizeof(reject));
	CT_DECLASSIFY(&hints, sizeof(hints));
	return reject || hints > p->omega ? -1 : 0;
}

int mldsa_sign_mu_expanded(const struct mldsa_expanded *k, const uint8_t mu[64], const uint8_t *rnd,
	uint8_t *sig)
{
	static const uint8_t zero_rnd[MLDSA_RND_BYTES];
	const struct mldsa_params *p;
	struct sign_work wk;
	unsigned attempt;
	size_t w1_len;
	int ret = -1;

	if (!k || !k->p || !mu || !sig)
		return -1;
	p = k->p;
	/* rho'' = H(K || rnd || mu, 64) */
	shake256_init(&wk.h_ctx);
	keccak_absorb(&wk.h_ctx, k->key, sizeof(k->key));
	keccak_absorb(&wk.h_ctx, rnd ? rnd : zero_rnd, MLDSA_RND_BYTES);
	keccak_absorb(&wk.h_ctx, mu, MLDSA_MU_BYTES);
	keccak_finalize(&wk.h_ctx);
	keccak_squeeze(&wk.h_ctx, wk.rhopp, sizeof(wk.rhopp));
	wk.mask_pos = wk.mask_have = 0;
	wk.mask_nonce = 0;	/* kappa of the first attempt */
	for (attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
		w1_len = commit(&wk, k);
		/* ctilde = H(mu || w1Encode(w1), lambda / 4), written in place */
		shake256_init(&wk.h_ctx);
		keccak_absorb(&wk.h_ctx, mu, MLDSA_MU_BYTES);
		keccak_absorb(&wk.h_ctx, wk.w1_enc, w1_len);
		keccak_finalize(&wk.h_ctx);
		keccak_squeeze(&wk.h_ctx, sig, p->ctilde_bytes);
		/* ctilde may show: see mldsa_poly_challenge */
		CT_DECLASSIFY(sig, p->ctilde_bytes);
		mldsa_poly_challenge(&wk.c, sig, p->ctilde_bytes, p->tau);
		mldsa_poly_ntt(&wk.c);
		if (respond(&wk, k) == 0) {
			/* z and the hints of an accepted candidate are the signature */
			CT_DECLASSIFY(wk.z, sizeof(wk.z));
			CT_DECLASSIFY(wk.h, sizeof(wk.h));
			mldsa_sig_encode(sig, p, wk.z, wk.h);
			ret = 0;
			break;
		}
	}
	if (ret)
		memset(sig, 0, p->sig_bytes);
	keccak_wipe(&wk, sizeof(wk));
	return ret;
}

int mldsa_sign_mu(int set, const uint8_t *sk, const uint8_t mu[64], const uint8_t *rnd, uint8_t *sig)
{
	struct mldsa_expanded k;
	int ret;

	if (mldsa_expand(set, sk, &k))
		return -1;
	ret = mldsa_sign_mu_expanded(&k, mu, rnd, sig);
	mldsa_expanded_wipe(&k);
	return ret;
}
