/* ML-DSA parameter sets (FIPS 204 Table 1) and the sizes derived from them. */
#ifndef PQTPM_MLDSA_PARAMS_H
#define PQTPM_MLDSA_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#define MLDSA_N 256
#define MLDSA_Q 8380417
#define MLDSA_D 13
#define MLDSA_K_MAX 8
#define MLDSA_L_MAX 7
#define MLDSA_CTILDE_MAX 64
#define MLDSA_T1_POLY_BYTES 320		/* 10 bits per coefficient */
#define MLDSA_T0_POLY_BYTES 416		/* 13 bits per coefficient */
#define MLDSA_W1_POLY_BYTES_MAX 192	/* 6 bits per coefficient */

struct mldsa_params {
	unsigned k, l;		/* A is k x l */
	unsigned eta;		/* bound on s1, s2 */
	unsigned tau;		/* nonzero coefficients of c */
	int32_t beta;		/* tau * eta */
	int32_t gamma1;		/* range of y */
	int32_t gamma2;		/* low-order rounding range */
	unsigned omega;		/* maximum number of hints */
	unsigned ctilde_bytes;	/* lambda / 4 */
	unsigned eta_bits;	/* bitlen(2 eta) */
	unsigned z_bits;	/* 1 + bitlen(gamma1 - 1) */
	unsigned w1_bits;	/* bitlen((q - 1) / (2 gamma2) - 1) */
	size_t pk_bytes, sk_bytes, sig_bytes;
};

/* NULL for an unknown set */
const struct mldsa_params *mldsa_params_get(int set);

#endif
