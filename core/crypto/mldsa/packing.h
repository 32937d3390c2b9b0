/* ML-DSA encodings: bit packing (FIPS 204 Alg. 16-21) and the key and signature formats (Alg. 22-28). */
#ifndef PQTPM_MLDSA_PACKING_H
#define PQTPM_MLDSA_PACKING_H

#include "crypto/mldsa/params.h"
#include "crypto/mldsa/poly.h"

/* SimpleBitPack / BitPack(w, a, b): each coefficient as c, or as b - c, in 'bits' bits */
void mldsa_simple_bitpack(uint8_t *out, const struct mldsa_poly *a, unsigned bits);
void mldsa_bitpack(uint8_t *out, const struct mldsa_poly *a, unsigned bits, int32_t b);
void mldsa_simple_bitunpack(struct mldsa_poly *a, const uint8_t *in, unsigned bits);
void mldsa_bitunpack(struct mldsa_poly *a, const uint8_t *in, unsigned bits, int32_t b);

/* where each part of an encoded secret key starts */
struct mldsa_sk_layout {
	const uint8_t *rho, *key, *tr, *s1, *s2, *t0;
	size_t eta_poly_bytes;
};
void mldsa_sk_layout(struct mldsa_sk_layout *lay, const struct mldsa_params *p, const uint8_t *sk);

/* skEncode: rho || K || tr || s1 || s2 || t0 */
void mldsa_sk_encode(uint8_t *sk, const struct mldsa_params *p, const uint8_t rho[32], const uint8_t key[32],
	const uint8_t tr[64], const struct mldsa_poly *s1, const struct mldsa_poly *s2, const struct mldsa_poly *t0);

/* w1Encode of k polynomials; returns the number of bytes written */
size_t mldsa_w1_encode(uint8_t *out, const struct mldsa_poly *w1, const struct mldsa_params *p);

/* sigEncode: ctilde is already in place at sig[0 .. ctilde_bytes); h holds 0/1 coefficients */
void mldsa_sig_encode(uint8_t *sig, const struct mldsa_params *p, const struct mldsa_poly *z,
	const struct mldsa_poly *h);
/* sigDecode: z and the hints (one byte per coefficient); -1 if the hint encoding is malformed */
int mldsa_sig_decode(struct mldsa_poly *z, uint8_t h[][MLDSA_N], const struct mldsa_params *p, const uint8_t *sig);

#endif
