/* The matrix A = ExpandA(rho) (matrix.c). */
#ifndef PQTPM_MLDSA_MATRIX_H
#define PQTPM_MLDSA_MATRIX_H

#include "crypto/mldsa/params.h"
#include "crypto/mldsa/poly.h"

/* all k x l entries, in the NTT domain */
void mldsa_expand_a(struct mldsa_poly a[MLDSA_K_MAX][MLDSA_L_MAX], const uint8_t rho[32],
	const struct mldsa_params *p);

/* w[i] = sum over j of A[i][j] v[j] 2^-32 for the k rows, each entry sampled and used once;
 * for |v| < 9q each product is reduced, so |w| < l q */
void mldsa_matrix_mul(struct mldsa_poly *w, const uint8_t rho[32], const struct mldsa_poly *v,
	const struct mldsa_params *p);

#endif
