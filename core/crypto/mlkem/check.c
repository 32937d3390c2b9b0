/* ML-KEM input checks on keys (FIPS 203 sections 7.2 and 7.3); keys are public or hashed, no secret timing. */
#include <string.h>

#include "crypto/keccak.h"
#include "crypto/mlkem.h"
#include "crypto/mlkem/params.h"

/* length, and the modulus check: ByteEncode_12(ByteDecode_12(ek)) == ek iff every 12-bit value is below q */
int mlkem_check_ek(int set, const uint8_t *ek, size_t len)
{
	const struct mlkem_params *p = mlkem_params_get(set);
	size_t i;

	if (!p || !ek || len != p->ek_bytes)
		return -1;
	for (i = 0; i < p->k * MLKEM_POLY_BYTES; i += 3) {
		if (((ek[i] | ek[i + 1] << 8) & 0xfff) >= MLKEM_Q)
			return -1;
		if ((ek[i + 1] >> 4 | ek[i + 2] << 4) >= MLKEM_Q)
			return -1;
	}
	return 0;
}

/* length, and the hash check: H(ek) stored in dk matches the ek stored in dk */
int mlkem_check_dk(int set, const uint8_t *dk, size_t len)
{
	const struct mlkem_params *p = mlkem_params_get(set);
	const uint8_t *ek;
	uint8_t h[32];

	if (!p || !dk || len != p->dk_bytes)
		return -1;
	ek = dk + p->k * MLKEM_POLY_BYTES;
	sha3_256(h, ek, p->ek_bytes);
	return memcmp(h, ek + p->ek_bytes, sizeof(h)) ? -1 : 0;
}
