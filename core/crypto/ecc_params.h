/* Private to core/crypto: the curves' constants, shared by ecc_params.c and ecc.c. */
#ifndef PQTPM_CRYPTO_ECC_PARAMS_H
#define PQTPM_CRYPTO_ECC_PARAMS_H

#include "crypto.h"

/* NULL if the curve is not supported. */
const struct crypto_ecc_params *crypto_ecc_curve(uint16_t curve);

#endif
