/* Coefficient-wise arithmetic on ML-KEM polynomials. */
#include "crypto/mlkem/poly.h"
#include "crypto/mlkem/reduce.h"

#define MONT_R2 1353	/* 2^32 mod q */

void mlkem_poly_add(struct mlkem_poly *r, const struct mlkem_poly *a, const struct mlkem_poly *b)
{
	unsigned i;

	for (i = 0; i < MLKEM_N; i++)
		r->c[i] = (int16_t)(a->c[i] + b->c[i]);
}

void mlkem_poly_sub(struct mlkem_poly *r, const struct mlkem_poly *a, const struct mlkem_poly *b)
{
	unsigned i;

	for (i = 0; i < MLKEM_N; i++)
		r->c[i] = (int16_t)(a->c[i] - b->c[i]);
}

void mlkem_poly_reduce(struct mlkem_poly *a)
{
	unsigned i;

	for (i = 0; i < MLKEM_N; i++)
		a->c[i] = mlkem_barrett(a->c[i]);
}

/* multiply by 2^16: brings a product (which carries 2^-16) back to the plain NTT domain */
void mlkem_poly_tomont(struct mlkem_poly *a)
{
	unsigned i;

	for (i = 0; i < MLKEM_N; i++)
		a->c[i] = mlkem_fqmul(a->c[i], MONT_R2);
}
