/* ML-KEM parameter sets (FIPS 203 Table 2) and the sizes derived from them. */
#ifndef PQTPM_MLKEM_PARAMS_H
#define PQTPM_MLKEM_PARAMS_H

#include <stddef.h>

#define MLKEM_N 256
#define MLKEM_Q 3329
#define MLKEM_K_MAX 4
#define MLKEM_POLY_BYTES 384	/* ByteEncode_12 of one polynomial */

struct mlkem_params {
	unsigned k;
	unsigned eta1, eta2;
	unsigned du, dv;
	size_t ek_bytes, dk_bytes, ct_bytes;
};

/* NULL for an unknown set */
const struct mlkem_params *mlkem_params_get(int set);

#endif
