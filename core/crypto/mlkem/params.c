/* The three ML-KEM parameter sets and their encoded sizes (FIPS 203 Tables 2 and 3). */
#include "crypto/mlkem.h"
#include "crypto/mlkem/params.h"

#define EK_BYTES(k) ((k) * MLKEM_POLY_BYTES + 32)
#define DK_BYTES(k) (2 * (k) * MLKEM_POLY_BYTES + 96)
#define CT_BYTES(k, du, dv) (32 * ((k) * (du) + (dv)))

static const struct mlkem_params sets[3] = {
	{ .k = 2, .eta1 = 3, .eta2 = 2, .du = 10, .dv = 4,
	  .ek_bytes = EK_BYTES(2), .dk_bytes = DK_BYTES(2), .ct_bytes = CT_BYTES(2, 10, 4) },
	{ .k = 3, .eta1 = 2, .eta2 = 2, .du = 10, .dv = 4,
	  .ek_bytes = EK_BYTES(3), .dk_bytes = DK_BYTES(3), .ct_bytes = CT_BYTES(3, 10, 4) },
	{ .k = 4, .eta1 = 2, .eta2 = 2, .du = 11, .dv = 5,
	  .ek_bytes = EK_BYTES(4), .dk_bytes = DK_BYTES(4), .ct_bytes = CT_BYTES(4, 11, 5) },
};

const struct mlkem_params *mlkem_params_get(int set)
{
	if (set < MLKEM_512 || set > MLKEM_1024)
		return NULL;
	return &sets[set - MLKEM_512];
}

size_t mlkem_ek_bytes(int set)
{
	const struct mlkem_params *p = mlkem_params_get(set);

	return p ? p->ek_bytes : 0;
}

size_t mlkem_dk_bytes(int set)
{
	const struct mlkem_params *p = mlkem_params_get(set);

	return p ? p->dk_bytes : 0;
}

size_t mlkem_ct_bytes(int set)
{
	const struct mlkem_params *p = mlkem_params_get(set);

	return p ? p->ct_bytes : 0;
}
