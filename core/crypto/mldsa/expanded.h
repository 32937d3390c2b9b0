/* The parsed form of an ML-DSA secret key, ready for signing (the public header keeps it opaque). */
#ifndef PQTPM_MLDSA_EXPANDED_H
#define PQTPM_MLDSA_EXPANDED_H

#include "crypto/mldsa/params.h"
#include "crypto/mldsa/poly.h"

struct mldsa_expanded {
	const struct mldsa_params *p;
	uint8_t key[32];	/* K */
	uint8_t tr[64];
	struct mldsa_poly a[MLDSA_K_MAX][MLDSA_L_MAX];	/* A[row][col], NTT domain */
	struct mldsa_poly s1[MLDSA_L_MAX];		/* all three in NTT form */
	struct mldsa_poly s2[MLDSA_K_MAX];
	struct mldsa_poly t0[MLDSA_K_MAX];
};

#endif
