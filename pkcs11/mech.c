/* The mechanism table, C_GetMechanismList and C_GetMechanismInfo: what the TPM does for each. */
#include "mech.h"

#define SIGNV (CKF_SIGN | CKF_VERIFY)
#define ENCDEC (CKF_ENCRYPT | CKF_DECRYPT)

static const struct p11_mech mechs[] = {
	{ CKM_RSA_PKCS_KEY_PAIR_GEN, P11_KEYGEN, CKK_RSA, 0, 0, 2048, 3072, CKF_GENERATE_KEY_PAIR },
	{ CKM_EC_KEY_PAIR_GEN, P11_KEYGEN, CKK_EC, 0, 0, 256, 384,
	  CKF_GENERATE_KEY_PAIR | CKF_EC_F_P | CKF_EC_NAMEDCURVE | CKF_EC_UNCOMPRESS },
	{ CKM_ML_DSA_KEY_PAIR_GEN, P11_KEYGEN, CKK_ML_DSA, 0, 0, CKP_ML_DSA_44, CKP_ML_DSA_87,
	  CKF_GENERATE_KEY_PAIR },
	{ CKM_RSA_PKCS, P11_RSA_PKCS, CKK_RSA, TPM_ALG_RSASSA, 0, 2048, 3072, SIGNV | ENCDEC },
	{ CKM_RSA_PKCS_OAEP, P11_RSA_OAEP, CKK_RSA, TPM_ALG_OAEP, 0, 2048, 3072, ENCDEC },
	{ CKM_SHA1_RSA_PKCS, P11_HASH_SIGN, CKK_RSA, TPM_ALG_RSASSA, TPM_ALG_SHA1, 2048, 3072,
	  SIGNV },
	{ CKM_SHA256_RSA_PKCS, P11_HASH_SIGN, CKK_RSA, TPM_ALG_RSASSA, TPM_ALG_SHA256, 2048, 3072,
	  SIGNV },
	{ CKM_SHA384_RSA_PKCS, P11_HASH_SIGN, CKK_RSA, TPM_ALG_RSASSA, TPM_ALG_SHA384, 2048, 3072,
	  SIGNV },
	{ CKM_SHA512_RSA_PKCS, P11_HASH_SIGN, CKK_RSA, TPM_ALG_RSASSA, TPM_ALG_SHA512, 2048, 3072,
	  SIGNV },
	{ CKM_RSA_PKCS_PSS, P11_RSA_PSS, CKK_RSA, TPM_ALG_RSAPSS, 0, 2048, 3072, SIGNV },
	{ CKM_SHA1_RSA_PKCS_PSS, P11_HASH_SIGN, CKK_RSA, TPM_ALG_RSAPSS, TPM_ALG_SHA1, 2048, 3072,
	  SIGNV },
	{ CKM_SHA256_RSA_PKCS_PSS, P11_HASH_SIGN, CKK_RSA, TPM_ALG_RSAPSS, TPM_ALG_SHA256, 2048,
	  3072, SIGNV },
	{ CKM_SHA384_RSA_PKCS_PSS, P11_HASH_SIGN, CKK_RSA, TPM_ALG_RSAPSS, TPM_ALG_SHA384, 2048,
	  3072, SIGNV },
	{ CKM_SHA512_RSA_PKCS_PSS, P11_HASH_SIGN, CKK_RSA, TPM_ALG_RSAPSS, TPM_ALG_SHA512, 2048,
	  3072, SIGNV },
	{ CKM_ECDSA, P11_ECDSA, CKK_EC, TPM_ALG_ECDSA, 0, 256, 384, SIGNV },
	{ CKM_ECDSA_SHA1, P11_HASH_SIGN, CKK_EC, TPM_ALG_ECDSA, TPM_ALG_SHA1, 256, 384, SIGNV },
	{ CKM_ECDSA_SHA256, P11_HASH_SIGN, CKK_EC, TPM_ALG_ECDSA, TPM_ALG_SHA256, 256, 384, SIGNV },
	{ CKM_ECDSA_SHA384, P11_HASH_SIGN, CKK_EC, TPM_ALG_ECDSA, TPM_ALG_SHA384, 256, 384, SIGNV },
	{ CKM_ECDSA_SHA512, P11_HASH_SIGN, CKK_EC, TPM_ALG_ECDSA, TPM_ALG_SHA512, 256, 384, SIGNV },
	{ CKM_ECDH1_DERIVE, P11_ECDH, CKK_EC, TPM_ALG_ECDH, 0, 256, 384,
	  CKF_DERIVE | CKF_EC_F_P | CKF_EC_NAMEDCURVE | CKF_EC_UNCOMPRESS },
	{ CKM_ML_DSA, P11_MLDSA, CKK_ML_DSA, TPM_ALG_MLDSA, 0, CKP_ML_DSA_44, CKP_ML_DSA_87,
	  SIGNV },
	{ CKM_SHA_1, P11_DIGEST, 0, 0, TPM_ALG_SHA1, 0, 0, CKF_DIGEST },
	{ CKM_SHA256, P11_DIGEST, 0, 0, TPM_ALG_SHA256, 0, 0, CKF_DIGEST },
	{ CKM_SHA384, P11_DIGEST, 0, 0, TPM_ALG_SHA384, 0, 0, CKF_DIGEST },
	{ CKM_SHA512, P11_DIGEST, 0, 0, TPM_ALG_SHA512, 0, 0, CKF_DIGEST },
};
#define NMECHS (sizeof(mechs) / sizeof(mechs[0]))

const struct p11_mech *p11_mech_find(CK_MECHANISM_TYPE type)
{
	size_t i;

	for (i = 0; i < NMECHS; i++)
		if (mechs[i].type == type)
			return &mechs[i];
	return NULL;
}

size_t p11_hash_size(TPM_ALG_ID hash)
{
	switch (hash) {
	case TPM_ALG_SHA1:
		return 20;
	case TPM_ALG_SHA256:
		return 32;
	case TPM_ALG_SHA384:
		return 48;
	case TPM_ALG_SHA512:
		return 64;
	default:
		return 0;
	}
}

TPM_ALG_ID p11_hash_of_mech(CK_MECHANISM_TYPE m)
{
	const struct p11_mech *d = p11_mech_find(m);

	return d && d->kind == P11_DIGEST ? d->hash : 0;
}

CK_RV C_GetMechanismList(CK_SLOT_ID slotID, CK_MECHANISM_TYPE_PTR pMechanismList,
			 CK_ULONG_PTR pulCount)
{
	size_t i;
	CK_RV rv = p11_enter();

	if (rv != CKR_OK)
		return rv;
	if (!pulCount)
		return p11_done(CKR_ARGUMENTS_BAD);
	if (!p11_slot_valid(slotID))
		return p11_done(CKR_SLOT_ID_INVALID);
	if (!pMechanismList) {
		*pulCount = NMECHS;
		return p11_done(CKR_OK);
	}
	if (*pulCount < NMECHS) {
		*pulCount = NMECHS;
		return p11_done(CKR_BUFFER_TOO_SMALL);
	}
	for (i = 0; i < NMECHS; i++)
		pMechanismList[i] = mechs[i].type;
	*pulCount = NMECHS;
	return p11_done(CKR_OK);
}

CK_RV C_GetMechanismInfo(CK_SLOT_ID slotID, CK_MECHANISM_TYPE type, CK_MECHANISM_INFO_PTR pInfo)
{
	const struct p11_mech *m;
	CK_RV rv = p11_enter();

	if (rv != CKR_OK)
		return rv;
	if (!pInfo)
		return p11_done(CKR_ARGUMENTS_BAD);
	if (!p11_slot_valid(slotID))
		return p11_done(CKR_SLOT_ID_INVALID);
	m = p11_mech_find(type);
	if (!m)
		return p11_done(CKR_MECHANISM_INVALID);
	pInfo->ulMinKeySize = m->min;
	pInfo->ulMaxKeySize = m->max;
	pInfo->flags = m->flags | CKF_HW;
	return p11_done(CKR_OK);
}
