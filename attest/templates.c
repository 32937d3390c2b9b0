/* Templates: the default EKs (TCG EK Credential Profile: the low range, its high-range ECC
 * P-521 template H-4 as tpm2_createek -G ecc521 makes it; ML-KEM-768 as core/endorse makes
 * it) and the AKs (as tpm2_createak makes them). */
#include <string.h>

#include "attest_int.h"

#define EK_ATTRIBUTES                                                                         \
	(TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT | TPMA_OBJECT_SENSITIVEDATAORIGIN |  \
	 TPMA_OBJECT_ADMINWITHPOLICY | TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT)
#define AK_ATTRIBUTES                                                                         \
	(TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT | TPMA_OBJECT_SENSITIVEDATAORIGIN |  \
	 TPMA_OBJECT_USERWITHAUTH | TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_SIGN_ENCRYPT)

/* PolicySecret(TPM_RH_ENDORSEMENT), SHA-256: the low range's policy (the profile's PolicyA) */
static const uint8_t ek_policy[32] = {
	0x83, 0x71, 0x97, 0x67, 0x44, 0x84, 0xB3, 0xF8, 0x1A, 0x90, 0xCC,
	0x8D, 0x46, 0xA5, 0xD7, 0x24, 0xFD, 0x52, 0xD7, 0x6E, 0x06, 0x52,
	0x0B, 0x64, 0xF2, 0xA1, 0xDA, 0x1B, 0x33, 0x14, 0x69, 0xAA,
};

/* The high range's policy is PolicyB = PolicyOR(PolicyA, PolicyC) in the template's nameAlg:
 * PolicyA is PolicySecret(TPM_RH_ENDORSEMENT), computed; PolicyC the profile's second branch,
 * SHA-512 here. */
static const uint8_t policy_c_sha512[64] = {
	0x58, 0x9E, 0xE1, 0xE1, 0x46, 0x54, 0x47, 0x16, 0xE8, 0xDE, 0xAF, 0xE6, 0xDB,
	0x24, 0x7B, 0x01, 0xB8, 0x1E, 0x9F, 0x9C, 0x7D, 0xD1, 0x6B, 0x81, 0x4A, 0xA1,
	0x59, 0x13, 0x87, 0x49, 0x10, 0x5F, 0xBA, 0x53, 0x88, 0xDD, 0x1D, 0xEA, 0x70,
	0x2F, 0x35, 0x24, 0x0C, 0x18, 0x49, 0x33, 0x12, 0x1E, 0x2C, 0x61, 0xB8, 0xF5,
	0x0D, 0x3E, 0xF9, 0x13, 0x93, 0xA4, 0x9A, 0x38, 0xC3, 0xF7, 0x3F, 0xC8,
};

static const struct ek_def {
	const char *name;
	TPM_ALG_ID type;
	uint16_t curve_or_set;
	TPM_HANDLE cert_index;
	uint16_t unique_zeros[2]; /* the profile's unique: zeros of these sizes (RSA n; ECC x, y) */
	bool high;		  /* the high range: nameAlg SHA-512, AES-256, PolicyB */
} eks[] = {
	{ "rsa2048", TPM_ALG_RSA, 0, 0x01C00002, { 256, 0 }, false },
	{ "ecc-p256", TPM_ALG_ECC, TPM_ECC_NIST_P256, 0x01C0000A, { 32, 32 }, false },
	{ "mlkem768", TPM_ALG_MLKEM, TPM_MLKEM_768, 0x01C000A0, { 0, 0 }, false },
	/* H-4; nothing makes its certificate (0x01C00018) here */
	{ "ecc-p521", TPM_ALG_ECC, TPM_ECC_NIST_P521, 0x01C00018, { 0, 0 }, true },
};

static const struct ek_def *ek_def(const char *ek_alg)
{
	for (size_t i = 0; i < sizeof(eks) / sizeof(eks[0]); i++)
		if (strcmp(ek_alg, eks[i].name) == 0)
			return &eks[i];
	return NULL;
}

TPM_RC ek_policy_branches(const char *ek_alg, TPM_ALG_ID *hash,
			  struct pqtpm_tss_digest branches[2], size_t *n)
{
	const struct ek_def *e = ek_def(ek_alg);
	struct pqtpm_tss_name endorsement = { .size = 4 };
	struct wr w;

	if (!e)
		return PQTPM_TSS_RC_BAD_VALUE;
	*hash = e->high ? TPM_ALG_SHA512 : TPM_ALG_SHA256;
	*n = 0;
	if (!e->high)
		return TPM_RC_SUCCESS;
	wr_init(&w, endorsement.b, sizeof(endorsement.b)); /* a hierarchy's Name is its handle */
	TRY(wr_u32(&w, TPM_RH_ENDORSEMENT));
	TRY(pqtpm_tss_policy_calc_start(*hash, &branches[0]));
	TRY(pqtpm_tss_policy_calc_secret(&branches[0], *hash, &endorsement, NULL));
	branches[1].size = sizeof(policy_c_sha512);
	memcpy(branches[1].b, policy_c_sha512, sizeof(policy_c_sha512));
	*n = 2;
	return TPM_RC_SUCCESS;
}

TPM_RC pqtpm_attest_ek_template(const char *ek_alg, struct pqtpm_tss_public *tmpl,
				TPM_HANDLE *cert_index)
{
	static const uint8_t zeros[256];
	const struct ek_def *e = ek_def(ek_alg);
	struct pqtpm_tss_template t = { .attributes = EK_ATTRIBUTES, .sym_bits = 128,
					.policy = ek_policy, .policy_len = sizeof(ek_policy) };
	struct pqtpm_tss_digest branches[2], policy_b;
	size_t n;
	struct wr w;

	if (!e)
		return PQTPM_TSS_RC_BAD_VALUE;
	t.type = e->type;
	if (e->type == TPM_ALG_ECC)
		t.curve = e->curve_or_set;
	else if (e->type == TPM_ALG_MLKEM)
		t.parameter_set = e->curve_or_set;
	if (e->high) {
		TRY(ek_policy_branches(ek_alg, &t.name_alg, branches, &n));
		TRY(pqtpm_tss_policy_calc_start(t.name_alg, &policy_b));
		TRY(pqtpm_tss_policy_calc_or(&policy_b, t.name_alg, branches, n));
		t.attributes |= TPMA_OBJECT_USERWITHAUTH;
		t.sym_bits = 256;
		t.policy = policy_b.b;
		t.policy_len = policy_b.size;
	}
	TRY(pqtpm_tss_template_public(&t, tmpl));
	/* the builder ends in an empty unique (two for ECC): the profile's instead */
	wr_init(&w, tmpl->b, sizeof(tmpl->b));
	w.off = tmpl->size - (e->type == TPM_ALG_ECC ? 4u : 2u);
	for (int k = 0; k < (e->type == TPM_ALG_ECC ? 2 : 1); k++)
		if (wr_tpm2b(&w, zeros, e->unique_zeros[k]))
			return PQTPM_TSS_RC_BAD_VALUE;
	tmpl->size = (uint16_t)w.off;
	if (cert_index)
		*cert_index = e->cert_index;
	return TPM_RC_SUCCESS;
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
