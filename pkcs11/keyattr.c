/* Key pairs' attributes (key.h): what a template may say, the defaults, the public values from
 * the TPM's public area, and which attributes may change later. A private key lives in the
 * TPM: it is sensitive and never extractable whoever made it, and it signs, decrypts, derives
 * or decapsulates only as far as its TPM key does. */
#include <stdlib.h>
#include <string.h>

#include "key.h"

static const uint8_t OID_P256[] = { 0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07 };
static const uint8_t OID_P384[] = { 0x06, 0x05, 0x2B, 0x81, 0x04, 0x00, 0x22 };

uint16_t p11_ec_curve(const void *params, size_t len)
{
	if (params && len == sizeof(OID_P256) && !memcmp(params, OID_P256, len))
		return TPM_ECC_NIST_P256;
	if (params && len == sizeof(OID_P384) && !memcmp(params, OID_P384, len))
		return TPM_ECC_NIST_P384;
	return 0;
}

/* Attributes an application gives a key, copied as given; the byte strings, then the
 * booleans. */
static bool bytes_attr(CK_ATTRIBUTE_TYPE t)
{
	return t == CKA_LABEL || t == CKA_ID || t == CKA_SUBJECT || t == CKA_START_DATE ||
	       t == CKA_END_DATE;
}

static bool settable(CK_ATTRIBUTE_TYPE t, CK_OBJECT_CLASS cls)
{
	switch (t) {
	case CKA_TOKEN:
	case CKA_PRIVATE:
	case CKA_MODIFIABLE:
	case CKA_COPYABLE:
	case CKA_DESTROYABLE:
	case CKA_SIGN:
	case CKA_VERIFY:
	case CKA_ENCRYPT:
	case CKA_DECRYPT:
	case CKA_DERIVE:
		return true;
	case CKA_ALWAYS_AUTHENTICATE:
	case CKA_DECAPSULATE:
		return cls == CKO_PRIVATE_KEY;
	case CKA_ENCAPSULATE:
		return cls == CKO_PUBLIC_KEY;
	default:
		return bytes_attr(t);
	}
}

/* A use set true that a key of type kt cannot have: only an ML-KEM key encapsulates and
 * decapsulates (the other uses: p11_key_uses). */
static bool use_impossible(const CK_ATTRIBUTE *a, CK_KEY_TYPE kt)
{
	return (a->type == CKA_ENCAPSULATE || a->type == CKA_DECAPSULATE) && kt != CKK_ML_KEM &&
	       *(const CK_BBOOL *)a->pValue;
}

/* What the module alone gives a key: a template naming it is refused. */
static bool module_given(CK_ATTRIBUTE_TYPE t)
{
	return t == CKA_UNIQUE_ID || t == CKA_LOCAL || t == CKA_KEY_GEN_MECHANISM ||
	       t == CKA_ALWAYS_SENSITIVE || t == CKA_NEVER_EXTRACTABLE;
}

/* The attributes this module decides itself, which a template may only confirm. */
static CK_RV fixed(const CK_ATTRIBUTE *a, CK_OBJECT_CLASS cls, CK_KEY_TYPE kt)
{
	CK_BBOOL b;
	CK_ULONG u;

	switch (a->type) {
	case CKA_CLASS:
	case CKA_KEY_TYPE:
		if (a->ulValueLen != sizeof(u) || !a->pValue)
			return CKR_ATTRIBUTE_VALUE_INVALID;
		memcpy(&u, a->pValue, sizeof(u));
		return u == (a->type == CKA_CLASS ? cls : kt) ? CKR_OK : CKR_TEMPLATE_INCONSISTENT;
	case CKA_SENSITIVE:
	case CKA_EXTRACTABLE:
	case CKA_WRAP:
	case CKA_UNWRAP:
	case CKA_SIGN_RECOVER:
	case CKA_VERIFY_RECOVER:
	case CKA_WRAP_WITH_TRUSTED:
	case CKA_TRUSTED:
		if (a->ulValueLen != sizeof(b) || !a->pValue)
			return CKR_ATTRIBUTE_VALUE_INVALID;
		b = *(CK_BBOOL *)a->pValue;
		/* a private key is sensitive and unextractable: that is what a TPM key is */
		if (a->type == CKA_SENSITIVE)
			return b || cls != CKO_PRIVATE_KEY ? CKR_OK : CKR_ATTRIBUTE_VALUE_INVALID;
		/* a trusted public key is the SO's to make, which this module does not offer */
		if (a->type == CKA_TRUSTED)
			return b ? CKR_ATTRIBUTE_READ_ONLY : CKR_OK;
		return b ? CKR_ATTRIBUTE_VALUE_INVALID : CKR_OK;
	default:
		return module_given(a->type) ? CKR_ATTRIBUTE_READ_ONLY : CKR_ATTRIBUTE_TYPE_INVALID;
	}
}

CK_RV p11_key_template(struct p11_object *o, const CK_ATTRIBUTE *t, CK_ULONG n,
		       CK_OBJECT_CLASS cls, CK_KEY_TYPE kt, bool (*value)(CK_ATTRIBUTE_TYPE))
{
	CK_ULONG i, j;
	CK_RV rv;

	if (n && !t)
		return CKR_ARGUMENTS_BAD;
	for (i = 0; i < n; i++) {
		for (j = 0; j < i; j++)
			if (t[j].type == t[i].type)
				return CKR_TEMPLATE_INCONSISTENT;
		if (t[i].ulValueLen && !t[i].pValue)
			rv = CKR_ATTRIBUTE_VALUE_INVALID;
		else if (value(t[i].type))
			rv = CKR_OK;
		else if (!settable(t[i].type, cls))
			rv = fixed(&t[i], cls, kt);
		else if (!bytes_attr(t[i].type) && t[i].ulValueLen != sizeof(CK_BBOOL))
			rv = CKR_ATTRIBUTE_VALUE_INVALID;
		else if (!bytes_attr(t[i].type) && use_impossible(&t[i], kt))
			rv = CKR_TEMPLATE_INCONSISTENT;
		else
			rv = p11_attr_set(o, t[i].type, t[i].pValue, t[i].ulValueLen);
		if (rv != CKR_OK) {
			p11_log(P11_LOG_INFO, "key template: attribute 0x%lx refused",
				(unsigned long)t[i].type);
			return rv;
		}
	}
	return CKR_OK;
}

/* A default for an attribute the template did not give. */
static CK_RV dflt_bool(struct p11_object *o, CK_ATTRIBUTE_TYPE t, bool v)
{
	return p11_attr_find(o, t) ? CKR_OK : p11_attr_set_bool(o, t, v);
}

static CK_RV defaults(struct p11_object *o, bool priv, CK_KEY_TYPE kt)
{
	static const CK_ATTRIBUTE_TYPE empty[] = { CKA_LABEL, CKA_ID, CKA_SUBJECT,
						   CKA_START_DATE, CKA_END_DATE };
	CK_RV rv = CKR_OK;
	size_t i;

	for (i = 0; i < sizeof(empty) / sizeof(empty[0]) && rv == CKR_OK; i++)
		if (!p11_attr_find(o, empty[i]))
			rv = p11_attr_set(o, empty[i], NULL, 0);
	if (rv == CKR_OK)
		rv = dflt_bool(o, CKA_TOKEN, false);
	if (rv == CKR_OK)
		rv = dflt_bool(o, CKA_DERIVE, false);
	if (rv == CKR_OK)
		rv = dflt_bool(o, CKA_PRIVATE, priv);
	if (rv == CKR_OK)
		rv = dflt_bool(o, CKA_MODIFIABLE, true);
	if (rv == CKR_OK)
		rv = dflt_bool(o, CKA_COPYABLE, true);
	if (rv == CKR_OK)
		rv = dflt_bool(o, CKA_DESTROYABLE, true);
	if (rv == CKR_OK)
		rv = dflt_bool(o, priv ? CKA_SIGN : CKA_VERIFY, kt != CKK_ML_KEM);
	if (rv == CKR_OK)
		rv = dflt_bool(o, priv ? CKA_DECAPSULATE : CKA_ENCAPSULATE, kt == CKK_ML_KEM);
	if (rv == CKR_OK)
		rv = dflt_bool(o, priv ? CKA_DECRYPT : CKA_ENCRYPT, false);
	if (rv == CKR_OK)
		rv = p11_attr_set_bool(o, priv ? CKA_UNWRAP : CKA_WRAP, false);
	if (rv == CKR_OK)
		rv = p11_attr_set_bool(o, priv ? CKA_SIGN_RECOVER : CKA_VERIFY_RECOVER, false);
	if (rv != CKR_OK || !priv)
		return rv == CKR_OK ? p11_attr_set_bool(o, CKA_TRUSTED, false) : rv;
	rv = p11_attr_set_bool(o, CKA_SENSITIVE, true);
	if (rv == CKR_OK)
		rv = p11_attr_set_bool(o, CKA_EXTRACTABLE, false);
	if (rv == CKR_OK)
		rv = p11_attr_set_bool(o, CKA_WRAP_WITH_TRUSTED, false);
	if (rv == CKR_OK)
		rv = dflt_bool(o, CKA_ALWAYS_AUTHENTICATE, false);
	return rv;
}

CK_RV p11_key_finish(struct p11_object *o, CK_OBJECT_CLASS cls, CK_KEY_TYPE kt,
		     enum p11_key_origin origin, CK_MECHANISM_TYPE mech)
{
	bool priv = cls == CKO_PRIVATE_KEY, local = origin == P11_KEY_GENERATED;
	CK_RV rv = defaults(o, priv, kt);

	if (rv == CKR_OK)
		rv = p11_attr_set_unique_id(o);
	if (rv == CKR_OK)
		rv = p11_attr_set_ulong(o, CKA_CLASS, cls);
	if (rv == CKR_OK)
		rv = p11_attr_set_ulong(o, CKA_KEY_TYPE, kt);
	if (rv == CKR_OK)
		rv = p11_attr_set_bool(o, CKA_LOCAL, local);
	if (rv == CKR_OK)
		rv = p11_attr_set_ulong(o, CKA_KEY_GEN_MECHANISM,
					local ? mech : CK_UNAVAILABLE_INFORMATION);
	/* an imported key was known outside the TPM: neither always sensitive nor never
	 * extractable */
	if (rv == CKR_OK && priv)
		rv = p11_attr_set_bool(o, CKA_ALWAYS_SENSITIVE, local);
	if (rv == CKR_OK && priv)
		rv = p11_attr_set_bool(o, CKA_NEVER_EXTRACTABLE, local);
	return rv;
}

CK_RV p11_key_uses(const CK_ATTRIBUTE *t, CK_ULONG n, CK_KEY_TYPE kt, uint32_t *attrs)
{
	bool kem = kt == CKK_ML_KEM, sign = !kem, decrypt = false, derive = false;
	CK_RV rv = p11_tmpl_bool(t, n, CKA_SIGN, &sign);

	if (rv == CKR_OK)
		rv = p11_tmpl_bool(t, n, CKA_DECRYPT, &decrypt);
	if (rv == CKR_OK)
		rv = p11_tmpl_bool(t, n, CKA_DERIVE, &derive);
	if (rv != CKR_OK)
		return rv;
	/* ML-DSA signs only, ML-KEM decapsulates only, only EC derives */
	if ((decrypt && (kt == CKK_ML_DSA || kem)) || (sign && kem) || (derive && kt != CKK_EC))
		return CKR_TEMPLATE_INCONSISTENT;
	/* an ECC key derives (ECDH), an ML-KEM key decapsulates, through the TPM's decrypt
	 * attribute */
	decrypt = decrypt || derive || kem;
	*attrs = TPMA_OBJECT_USERWITHAUTH | TPMA_OBJECT_NODA | (decrypt ? TPMA_OBJECT_DECRYPT : 0) |
		 (sign || !decrypt ? TPMA_OBJECT_SIGN_ENCRYPT : 0);
	return CKR_OK;
}

/* CKA_EC_POINT: the DER OCTET STRING of the uncompressed point, coordinates padded. */
static CK_RV ec_point(struct p11_object *o, const struct pqtpm_tss_public *tpub)
{
	struct pqtpm_tss_ecc_point pt;
	uint8_t point[3 + 2 * 66];
	uint16_t curve;
	size_t n;

	if (pqtpm_tss_public_ecc(tpub, &curve, &pt) != TPM_RC_SUCCESS)
		return CKR_DEVICE_ERROR;
	n = curve == TPM_ECC_NIST_P256 ? 32 : 48;
	if (pt.x_size > n || pt.y_size > n)
		return CKR_DEVICE_ERROR;
	memset(point, 0, sizeof(point));
	point[0] = 0x04;
	point[1] = (uint8_t)(1 + 2 * n);
	point[2] = 0x04;
	memcpy(point + 3 + n - pt.x_size, pt.x, pt.x_size);
	memcpy(point + 3 + 2 * n - pt.y_size, pt.y, pt.y_size);
	return p11_attr_set(o, CKA_EC_POINT, point, 3 + 2 * n);
}

/* RSA: the modulus, and the exponent from the public area (0 there: 65537). */
static CK_RV rsa_values(struct p11_object *o, const struct pqtpm_tss_public *tpub, bool priv)
{
	static const uint8_t F4[] = { 0x01, 0x00, 0x01 };
	const uint8_t *key;
	size_t len;
	CK_RV rv;

	if (pqtpm_tss_public_key(tpub, &key, &len) != TPM_RC_SUCCESS)
		return CKR_DEVICE_ERROR;
	rv = p11_attr_set(o, CKA_MODULUS, key, len);
	if (rv == CKR_OK && !p11_attr_find(o, CKA_PUBLIC_EXPONENT))
		rv = p11_attr_set(o, CKA_PUBLIC_EXPONENT, F4, sizeof(F4));
	if (rv == CKR_OK && !priv)
		rv = p11_attr_set_ulong(o, CKA_MODULUS_BITS, len * 8);
	return rv;
}

CK_RV p11_key_blobs(struct p11_object *o, CK_KEY_TYPE kt, const struct p11_blob *pub,
		    const struct p11_blob *priv)
{
	struct pqtpm_tss_public tpub;
	const uint8_t *key;
	size_t len;

	if (pub->len > sizeof(tpub.b))
		return CKR_DEVICE_ERROR;
	o->tpm_pub = malloc(sizeof(*o->tpm_pub));
	if (priv)
		o->tpm_priv = malloc(sizeof(*o->tpm_priv));
	if (!o->tpm_pub || (priv && !o->tpm_priv))
		return CKR_HOST_MEMORY;
	*o->tpm_pub = *pub;
	if (priv)
		*o->tpm_priv = *priv;
	memcpy(tpub.b, pub->b, pub->len);
	tpub.size = (uint16_t)pub->len;
	switch (kt) {
	case CKK_RSA:
		return rsa_values(o, &tpub, priv != NULL);
	case CKK_EC:
		return priv ? CKR_OK : ec_point(o, &tpub);
	default: /* ML-DSA, ML-KEM: the encoded public key (pk, ek) */
		if (priv)
			return CKR_OK;
		if (pqtpm_tss_public_key(&tpub, &key, &len) != TPM_RC_SUCCESS)
			return CKR_DEVICE_ERROR;
		return p11_attr_set(o, CKA_VALUE, key, len);
	}
}

/* What a key's attribute may become later (PKCS#11 §4.7-4.9: those of footnote 8 may change,
 * CKA_SENSITIVE only to true and CKA_EXTRACTABLE only to false). The uses (sign, decrypt,
 * derive ...) may only be taken away: the TPM key was made with the ones it has and keeps
 * them. */
CK_RV p11_key_attr_change(const struct p11_object *o, const CK_ATTRIBUTE *a)
{
	CK_OBJECT_CLASS cls = p11_attr_ulong(o, CKA_CLASS, CK_UNAVAILABLE_INFORMATION);
	bool b;

	if (bytes_attr(a->type))
		return p11_attr_find(o, a->type) ? CKR_OK : CKR_ATTRIBUTE_TYPE_INVALID;
	switch (a->type) {
	case CKA_SIGN:
	case CKA_VERIFY:
	case CKA_ENCRYPT:
	case CKA_DECRYPT:
	case CKA_DERIVE:
	case CKA_ENCAPSULATE:
	case CKA_DECAPSULATE:
	case CKA_SENSITIVE:
	case CKA_EXTRACTABLE:
		if (!p11_attr_find(o, a->type))
			return CKR_ATTRIBUTE_TYPE_INVALID;
		break;
	default: /* a private value the key has, although the module does not show or hold it */
		return p11_attr_find(o, a->type) || p11_attr_sensitive(o, a->type)
			       ? CKR_ATTRIBUTE_READ_ONLY
			       : CKR_ATTRIBUTE_TYPE_INVALID;
	}
	if (a->ulValueLen != sizeof(CK_BBOOL) || !a->pValue)
		return CKR_ATTRIBUTE_VALUE_INVALID;
	b = *(CK_BBOOL *)a->pValue != CK_FALSE;
	if (a->type == CKA_SENSITIVE && cls != CKO_PUBLIC_KEY)
		return b || !p11_attr_bool(o, a->type, false) ? CKR_OK : CKR_ATTRIBUTE_READ_ONLY;
	if (a->type == CKA_EXTRACTABLE)
		return !b || p11_attr_bool(o, a->type, false) ? CKR_OK : CKR_ATTRIBUTE_READ_ONLY;
	return !b || p11_attr_bool(o, a->type, false) ? CKR_OK : CKR_ATTRIBUTE_VALUE_INVALID;
}
