/* K-PKE, the public-key encryption scheme inside ML-KEM (FIPS 203 section 5). */
#ifndef PQTPM_MLKEM_KPKE_H
#define PQTPM_MLKEM_KPKE_H

#include <stdint.h>

#include "crypto/mlkem/params.h"

/* Alg. 13: ek = ByteEncode_12(t_hat) || rho, dk_pke = ByteEncode_12(s_hat) */
void mlkem_pke_keygen(const struct mlkem_params *p, const uint8_t d[32], uint8_t *ek, uint8_t *dk_pke);
/* Alg. 14, for an ek that passed the modulus check */
void mlkem_pke_encrypt(const struct mlkem_params *p, const uint8_t *ek, const uint8_t m[32], const uint8_t r[32],
	uint8_t *c);
/* Alg. 15 */
void mlkem_pke_decrypt(const struct mlkem_params *p, const uint8_t *dk_pke, const uint8_t *c, uint8_t m[32]);

#endif
