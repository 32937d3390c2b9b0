/* The default EK templates (TCG EK Credential Profile 2.x, B.3.3 and B.3.4: L-1 RSA 2048,
 * L-2 ECC NIST P-256) and the ML-KEM-768 EK made after them. */
#include <string.h>

#include "endorse/endorse.h"

#define EK_ATTRIBUTES                                                                         \
	(TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT | TPMA_OBJECT_SENSITIVEDATAORIGIN |  \
	 TPMA_OBJECT_ADMINWITHPOLICY | TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT)

/* PolicySecret(TPM_RH_ENDORSEMENT) with SHA-256 (the profile's default EK policy) */
static const uint8_t ek_policy[32] = {
	0x83, 0x71, 0x97, 0x67, 0x44, 0x84, 0xB3, 0xF8, 0x1A, 0x90, 0xCC,
	0x8D, 0x46, 0xA5, 0xD7, 0x24, 0xFD, 0x52, 0xD7, 0x6E, 0x06, 0x52,
	0x0B, 0x64, 0xF2, 0xA1, 0xDA, 0x1B, 0x33, 0x14, 0x69, 0xAA,
};

void ek_template(enum ek_kind kind, struct tpmt_public *pub)
{
	memset(pub, 0, sizeof(*pub));
	pub->name_alg = TPM_ALG_SHA256;
	pub->attributes = EK_ATTRIBUTES;
	pub->auth_policy.size = sizeof(ek_policy);
	memcpy(pub->auth_policy.b, ek_policy, sizeof(ek_policy));
	pub->symmetric.alg = TPM_ALG_AES;
	pub->symmetric.key_bits = 128;
	pub->symmetric.mode = TPM_ALG_CFB;
	pub->scheme.scheme = TPM_ALG_NULL;
	pub->scheme.hash_alg = TPM_ALG_NULL;
	pub->kdf = pub->scheme;
	pub->pre_hash = TPM_ALG_NULL;
	switch (kind) {
	case EK_RSA2048:
		pub->type = TPM_ALG_RSA;
		pub->key_bits = 2048;
		pub->unique.size = 256;
		break;
	case EK_ECC_P256:
		pub->type = TPM_ALG_ECC;
		pub->curve_id = TPM_ECC_NIST_P256;
		pub->x.size = pub->y.size = 32;
		break;
	default:
		pub->type = TPM_ALG_MLKEM;
		pub->parameter_set = TPM_MLKEM_768;
		break;
	}
}

TPM_HANDLE ek_cert_index(enum ek_kind kind)
{
	return kind == EK_RSA2048 ? EK_CERT_RSA2048
	       : kind == EK_ECC_P256 ? EK_CERT_ECC_P256
				     : EK_CERT_MLKEM768;
}
