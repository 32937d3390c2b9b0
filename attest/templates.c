/* Templates: the default EKs (TCG EK Credential Profile, low range; ML-KEM-768 as
 * core/endorse makes it) and the AKs (as tpm2_createak makes them). */
#include <string.h>

#include "attest_int.h"

#define EK_ATTRIBUTES                                                                         \
	(TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT | TPMA_OBJECT_SENSITIVEDATAORIGIN |  \
	 TPMA_OBJECT_ADMINWITHPOLICY | TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT)
#define AK_ATTRIBUTES                                                                         \
	(TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT | TPMA_OBJECT_SENSITIVEDATAORIGIN |  \
	 TPMA_OBJECT_USERWITHAUTH | TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_SIGN_ENCRYPT)

/* PolicySecret(TPM_RH_ENDORSEMENT), SHA-256 */
static const uint8_t ek_policy[32] = {
	0x83, 0x71, 0x97, 0x67, 0x44, 0x84, 0xB3, 0xF8, 0x1A, 0x90, 0xCC,
	0x8D, 0x46, 0xA5, 0xD7, 0x24, 0xFD, 0x52, 0xD7, 0x6E, 0x06, 0x52,
	0x0B, 0x64, 0xF2, 0xA1, 0xDA, 0x1B, 0x33, 0x14, 0x69, 0xAA,
};

static const struct {
	const char *name;
	TPM_ALG_ID type;
	uint16_t curve_or_set;
	TPM_HANDLE cert_index;
	uint16_t unique_zeros[2]; /* the profile's unique: zeros of these sizes (RSA n; ECC x, y) */
} eks[] = {
	{ "rsa2048", TPM_ALG_RSA, 0, 0x01C00002, { 256, 0 } },
	{ "ecc-p256", TPM_ALG_ECC, TPM_ECC_NIST_P256, 0x01C0000A, { 32, 32 } },
	{ "mlkem768", TPM_ALG_MLKEM, TPM_MLKEM_768, 0x01C000A0, { 0, 0 } },
};

TPM_RC pqtpm_attest_ek_template(const char *ek_alg, struct pqtpm_tss_public *tmpl,
				TPM_HANDLE *cert_index)
{
	static const uint8_t zeros[256];

	for (size_t i = 0; i < sizeof(eks) / sizeof(eks[0]); i++) {
		struct pqtpm_tss_template t = { .type = eks[i].type, .attributes = EK_ATTRIBUTES,
						.sym_bits = 128, .policy = ek_policy,
						.policy_len = sizeof(ek_policy) };
		struct wr w;

		if (strcmp(ek_alg, eks[i].name) != 0)
			continue;
		if (eks[i].type == TPM_ALG_ECC)
			t.curve = eks[i].curve_or_set;
		else if (eks[i].type == TPM_ALG_MLKEM)
			t.parameter_set = eks[i].curve_or_set;
		TRY(pqtpm_tss_template_public(&t, tmpl));
		/* the builder ends in an empty unique (two for ECC): the profile's instead */
		wr_init(&w, tmpl->b, sizeof(tmpl->b));
		w.off = tmpl->size - (eks[i].type == TPM_ALG_ECC ? 4u : 2u);
		for (int k = 0; k < (eks[i].type == TPM_ALG_ECC ? 2 : 1); k++)
			if (wr_tpm2b(&w, zeros, eks[i].unique_zeros[k]))
				return PQTPM_TSS_RC_BAD_VALUE;
		tmpl->size = (uint16_t)w.off;
		if (cert_index)
			*cert_index = eks[i].cert_index;
		return TPM_RC_SUCCESS;
	}
	return PQTPM_TSS_RC_BAD_VALUE;
}

/* ECDSA with the hash of the curve's strength (tpm2_createak -G ecc521 -g sha512 -s ecdsa) */
static const struct {
	const char *name;
	TPM_ALG_ID type, scheme, hash;
	uint16_t curve_or_set;
} aks[] = {
	{ "rsa2048", TPM_ALG_RSA, TPM_ALG_RSASSA, TPM_ALG_SHA256, 0 },
	{ "ecc-p256", TPM_ALG_ECC, TPM_ALG_ECDSA, TPM_ALG_SHA256, TPM_ECC_NIST_P256 },
	{ "ecc-p384", TPM_ALG_ECC, TPM_ALG_ECDSA, TPM_ALG_SHA384, TPM_ECC_NIST_P384 },
	{ "ecc-p521", TPM_ALG_ECC, TPM_ALG_ECDSA, TPM_ALG_SHA512, TPM_ECC_NIST_P521 },
	{ "mldsa44", TPM_ALG_MLDSA, 0, 0, TPM_MLDSA_44 },
	{ "mldsa65", TPM_ALG_MLDSA, 0, 0, TPM_MLDSA_65 },
	{ "mldsa87", TPM_ALG_MLDSA, 0, 0, TPM_MLDSA_87 },
};

TPM_RC ak_template(const char *alg, struct pqtpm_tss_public *tmpl)
{
	for (size_t i = 0; i < sizeof(aks) / sizeof(aks[0]); i++) {
		struct pqtpm_tss_template t = { .type = aks[i].type, .attributes = AK_ATTRIBUTES,
						.scheme = aks[i].scheme,
						.scheme_hash = aks[i].hash };

		if (strcmp(alg, aks[i].name) != 0)
			continue;
		if (aks[i].type == TPM_ALG_ECC)
			t.curve = aks[i].curve_or_set;
		else if (aks[i].type == TPM_ALG_MLDSA)
			t.parameter_set = aks[i].curve_or_set;
		return pqtpm_tss_template_public(&t, tmpl);
	}
	return PQTPM_TSS_RC_BAD_VALUE;
}

const char *ak_alg_name(const struct ak_public *p)
{
	for (size_t i = 0; i < sizeof(aks) / sizeof(aks[0]); i++) {
		if (aks[i].type != p->type)
			continue;
		if ((p->type == TPM_ALG_RSA && p->rsa_bits == 2048) ||
		    (p->type == TPM_ALG_ECC && p->curve == aks[i].curve_or_set) ||
		    (p->type == TPM_ALG_MLDSA && p->parameter_set == aks[i].curve_or_set))
			return aks[i].name;
	}
	return NULL;
}
