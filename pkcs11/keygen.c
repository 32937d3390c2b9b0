/* C_GenerateKeyPair: RSA 2048/3072, EC P-256/P-384, ML-DSA-44/65/87, ML-KEM-512/768/1024, made
 * by the TPM under the token's storage key with the token's wrapping secret as their
 * authValue. The private half never leaves the TPM (sensitive, never extractable); the public
 * object carries the public key in PKCS#11's form. An ML-KEM key is the TPM's unrestricted
 * decryption key, which encapsulates and decapsulates and does nothing else. */
#include <stdlib.h>
#include <string.h>

#include "p11.h"

static const uint8_t OID_P256[] = { 0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07 };
static const uint8_t OID_P384[] = { 0x06, 0x05, 0x2B, 0x81, 0x04, 0x00, 0x22 };
static const uint8_t F4[] = { 0x01, 0x00, 0x01 };

/* What a key pair's two templates ask for. */
struct request {
	CK_KEY_TYPE type;
	CK_ULONG bits;		  /* RSA */
	const CK_ATTRIBUTE *curve; /* EC: CKA_EC_PARAMS */
	CK_ULONG parameter_set;	  /* ML-DSA, ML-KEM */
	struct pqtpm_tss_template tmpl;
};

/* Attributes an application may set in a key template of class cls, copied to the object as
 * given. */
static bool settable(CK_ATTRIBUTE_TYPE t, CK_OBJECT_CLASS cls)
{
	switch (t) {
	case CKA_TOKEN:
	case CKA_PRIVATE:
	case CKA_LABEL:
	case CKA_ID:
	case CKA_SUBJECT:
	case CKA_MODIFIABLE:
	case CKA_COPYABLE:
	case CKA_DESTROYABLE:
	case CKA_START_DATE:
	case CKA_END_DATE:
	case CKA_SIGN:
	case CKA_VERIFY:
	case CKA_ENCRYPT:
	case CKA_DECRYPT:
	case CKA_DERIVE:
		return true;
	case CKA_ENCAPSULATE:
		return cls == CKO_PUBLIC_KEY;
	case CKA_DECAPSULATE:
		return cls == CKO_PRIVATE_KEY;
	default:
		return false;
	}
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
	case CKA_ALWAYS_AUTHENTICATE:
		if (a->ulValueLen != sizeof(b) || !a->pValue)
			return CKR_ATTRIBUTE_VALUE_INVALID;
		b = *(CK_BBOOL *)a->pValue;
		/* a private key is sensitive and unextractable: that is what a TPM key is */
		if (a->type == CKA_SENSITIVE)
			return b || cls != CKO_PRIVATE_KEY ? CKR_OK : CKR_ATTRIBUTE_VALUE_INVALID;
		return b ? CKR_ATTRIBUTE_VALUE_INVALID : CKR_OK;
	case CKA_MODULUS_BITS:
	case CKA_PUBLIC_EXPONENT:
	case CKA_EC_PARAMS:
	case CKA_PARAMETER_SET:
		return CKR_OK; /* read by the mechanism */
	default:
		return CKR_ATTRIBUTE_TYPE_INVALID;
	}
}

static CK_RV copy_template(struct p11_object *o, const CK_ATTRIBUTE *t, CK_ULONG n,
			   CK_OBJECT_CLASS cls, CK_KEY_TYPE kt)
{
	CK_ULONG i;
	CK_RV rv;

	if (n && !t)
		return CKR_ARGUMENTS_BAD;
	for (i = 0; i < n; i++) {
		if (settable(t[i].type, cls)) {
			if (t[i].ulValueLen && !t[i].pValue)
				return CKR_ATTRIBUTE_VALUE_INVALID;
			if (t[i].type != CKA_LABEL && t[i].type != CKA_ID &&
			    t[i].type != CKA_SUBJECT && t[i].type != CKA_START_DATE &&
			    t[i].type != CKA_END_DATE && t[i].ulValueLen != sizeof(CK_BBOOL))
				return CKR_ATTRIBUTE_VALUE_INVALID;
			rv = p11_attr_set(o, t[i].type, t[i].pValue, t[i].ulValueLen);
		} else {
			rv = fixed(&t[i], cls, kt);
		}
		if (rv != CKR_OK) {
			p11_log(P11_LOG_INFO, "key template: attribute 0x%lx refused",
				(unsigned long)t[i].type);
			return rv;
		}
	}
	return CKR_OK;
}

static CK_RV read_request(CK_MECHANISM_TYPE mech, const CK_ATTRIBUTE *pub, CK_ULONG npub,
			  const CK_ATTRIBUTE *priv, CK_ULONG npriv, struct request *r)
{
	const CK_ATTRIBUTE *e;
	CK_RV rv = CKR_OK;

	memset(r, 0, sizeof(*r));
	switch (mech) {
	case CKM_RSA_PKCS_KEY_PAIR_GEN:
		r->type = CKK_RSA;
		r->tmpl.type = TPM_ALG_RSA;
		if (!p11_tmpl_find(pub, npub, CKA_MODULUS_BITS))
			return CKR_TEMPLATE_INCOMPLETE;
		rv = p11_tmpl_ulong(pub, npub, CKA_MODULUS_BITS, &r->bits);
		if (rv == CKR_OK && r->bits != 2048 && r->bits != 3072)
			rv = CKR_ATTRIBUTE_VALUE_INVALID;
		e = p11_tmpl_find(pub, npub, CKA_PUBLIC_EXPONENT);
		/* the TPM's default exponent, 65537, with or without leading zeros */
		if (e) {
			const uint8_t *v = e->pValue;
			CK_ULONG len = e->ulValueLen;

			while (v && len > sizeof(F4) && *v == 0) {
				v++;
				len--;
			}
			if (!v || len != sizeof(F4) || memcmp(v, F4, sizeof(F4)))
				rv = CKR_ATTRIBUTE_VALUE_INVALID;
		}
		r->tmpl.rsa_bits = (uint16_t)r->bits;
		return rv;
	case CKM_EC_KEY_PAIR_GEN:
		r->type = CKK_EC;
		r->tmpl.type = TPM_ALG_ECC;
		r->curve = p11_tmpl_find(pub, npub, CKA_EC_PARAMS);
		if (!r->curve)
			return CKR_TEMPLATE_INCOMPLETE;
		if (r->curve->pValue && r->curve->ulValueLen == sizeof(OID_P256) &&
		    !memcmp(r->curve->pValue, OID_P256, sizeof(OID_P256)))
			r->tmpl.curve = TPM_ECC_NIST_P256;
		else if (r->curve->pValue && r->curve->ulValueLen == sizeof(OID_P384) &&
			 !memcmp(r->curve->pValue, OID_P384, sizeof(OID_P384)))
			r->tmpl.curve = TPM_ECC_NIST_P384;
		else
			return CKR_CURVE_NOT_SUPPORTED;
		return CKR_OK;
	case CKM_ML_DSA_KEY_PAIR_GEN:
	case CKM_ML_KEM_KEY_PAIR_GEN:
		r->type = mech == CKM_ML_DSA_KEY_PAIR_GEN ? CKK_ML_DSA : CKK_ML_KEM;
		r->tmpl.type = mech == CKM_ML_DSA_KEY_PAIR_GEN ? TPM_ALG_MLDSA : TPM_ALG_MLKEM;
		rv = p11_tmpl_ulong(pub, npub, CKA_PARAMETER_SET, &r->parameter_set);
		if (rv == CKR_OK && !r->parameter_set)
			rv = p11_tmpl_ulong(priv, npriv, CKA_PARAMETER_SET, &r->parameter_set);
		if (rv != CKR_OK)
			return rv;
		if (!r->parameter_set)
			return CKR_TEMPLATE_INCOMPLETE;
		/* CKP_ML_DSA_44/65/87 and CKP_ML_KEM_512/768/1024 are 1, 2, 3, as the TPM's sets */
		if (r->parameter_set < 1 || r->parameter_set > 3)
			return CKR_ATTRIBUTE_VALUE_INVALID;
		r->tmpl.parameter_set = (uint16_t)r->parameter_set;
		return CKR_OK;
	default:
		return CKR_MECHANISM_INVALID;
	}
}

/* The common attributes of both halves. */
static CK_RV common(struct p11_object *o, CK_OBJECT_CLASS cls, const struct request *r,
		    CK_MECHANISM_TYPE mech)
{
	CK_RV rv = p11_attr_set_unique_id(o);

	if (rv == CKR_OK)
		rv = p11_attr_set_ulong(o, CKA_CLASS, cls);
	if (rv == CKR_OK)
		rv = p11_attr_set_ulong(o, CKA_KEY_TYPE, r->type);
	if (rv == CKR_OK)
		rv = p11_attr_set_bool(o, CKA_LOCAL, true);
	if (rv == CKR_OK)
		rv = p11_attr_set_ulong(o, CKA_KEY_GEN_MECHANISM, mech);
	if (rv == CKR_OK && (r->type == CKK_ML_DSA || r->type == CKK_ML_KEM))
		rv = p11_attr_set_ulong(o, CKA_PARAMETER_SET, r->parameter_set);
	if (rv == CKR_OK && r->type == CKK_EC)
		rv = p11_attr_set(o, CKA_EC_PARAMS, r->curve->pValue, r->curve->ulValueLen);
	return rv;
}

/* A default for an attribute the template did not give. */
static CK_RV dflt_bool(struct p11_object *o, CK_ATTRIBUTE_TYPE t, bool v)
{
	return p11_attr_find(o, t) ? CKR_OK : p11_attr_set_bool(o, t, v);
}

static CK_RV defaults(struct p11_object *o, bool priv, CK_KEY_TYPE type)
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
		rv = dflt_bool(o, CKA_COPYABLE, false);
	if (rv == CKR_OK)
		rv = dflt_bool(o, CKA_DESTROYABLE, true);
	if (rv == CKR_OK)
		rv = dflt_bool(o, priv ? CKA_SIGN : CKA_VERIFY, type != CKK_ML_KEM);
	if (rv == CKR_OK)
		rv = dflt_bool(o, priv ? CKA_DECAPSULATE : CKA_ENCAPSULATE, type == CKK_ML_KEM);
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
		rv = p11_attr_set_bool(o, CKA_ALWAYS_SENSITIVE, true);
	if (rv == CKR_OK)
		rv = p11_attr_set_bool(o, CKA_EXTRACTABLE, false);
	if (rv == CKR_OK)
		rv = p11_attr_set_bool(o, CKA_NEVER_EXTRACTABLE, true);
	if (rv == CKR_OK)
		rv = p11_attr_set_bool(o, CKA_WRAP_WITH_TRUSTED, false);
	if (rv == CKR_OK)
		rv = p11_attr_set_bool(o, CKA_ALWAYS_AUTHENTICATE, false);
	return rv;
}

/* The public key, from the TPM's public area, in PKCS#11's attributes. */
static CK_RV public_values(struct p11_object *o, const struct request *r,
			   const struct pqtpm_tss_public *tpub, bool priv)
{
	struct pqtpm_tss_ecc_point pt;
	uint8_t point[3 + 2 * 66];
	const uint8_t *key;
	uint16_t curve;
	size_t len, n;
	CK_RV rv;

	switch (r->type) {
	case CKK_RSA:
		if (pqtpm_tss_public_key(tpub, &key, &len) != TPM_RC_SUCCESS)
			return CKR_DEVICE_ERROR;
		rv = p11_attr_set(o, CKA_MODULUS, key, len);
		if (rv == CKR_OK)
			rv = p11_attr_set(o, CKA_PUBLIC_EXPONENT, F4, sizeof(F4));
		if (rv == CKR_OK && !priv)
			rv = p11_attr_set_ulong(o, CKA_MODULUS_BITS, r->bits);
		return rv;
	case CKK_EC:
		if (pqtpm_tss_public_ecc(tpub, &curve, &pt) != TPM_RC_SUCCESS)
			return CKR_DEVICE_ERROR;
		n = curve == TPM_ECC_NIST_P256 ? 32 : 48;
		if (pt.x_size > n || pt.y_size > n)
			return CKR_DEVICE_ERROR;
		if (priv)
			return CKR_OK;
		/* CKA_EC_POINT: the DER OCTET STRING of the uncompressed point, coordinates padded */
		memset(point, 0, sizeof(point));
		point[0] = 0x04;
		point[1] = (uint8_t)(1 + 2 * n);
		point[2] = 0x04;
		memcpy(point + 3 + n - pt.x_size, pt.x, pt.x_size);
		memcpy(point + 3 + 2 * n - pt.y_size, pt.y, pt.y_size);
		return p11_attr_set(o, CKA_EC_POINT, point, 3 + 2 * n);
	default: /* ML-DSA: the encoded public key */
		if (priv)
			return CKR_OK;
		if (pqtpm_tss_public_key(tpub, &key, &len) != TPM_RC_SUCCESS)
			return CKR_DEVICE_ERROR;
		return p11_attr_set(o, CKA_VALUE, key, len);
	}
}

static CK_RV build_half(struct p11_object *o, CK_OBJECT_CLASS cls, const struct request *r,
			CK_MECHANISM_TYPE mech, const CK_ATTRIBUTE *t, CK_ULONG n,
			const struct p11_blob *pub, const struct p11_blob *priv)
{
	struct pqtpm_tss_public tpub;
	bool is_priv = cls == CKO_PRIVATE_KEY;
	CK_RV rv = copy_template(o, t, n, cls, r->type);

	if (rv == CKR_OK)
		rv = defaults(o, is_priv, r->type);
	if (rv == CKR_OK)
		rv = common(o, cls, r, mech);
	if (rv != CKR_OK)
		return rv;
	o->tpm_pub = malloc(sizeof(*o->tpm_pub));
	if (is_priv)
		o->tpm_priv = malloc(sizeof(*o->tpm_priv));
	if (!o->tpm_pub || (is_priv && !o->tpm_priv))
		return CKR_HOST_MEMORY;
	*o->tpm_pub = *pub;
	if (is_priv)
		*o->tpm_priv = *priv;
	memcpy(tpub.b, pub->b, pub->len);
	tpub.size = (uint16_t)pub->len;
	return public_values(o, r, &tpub, is_priv);
}

/* The TPM step (p11_unlocked): the key made under the storage key. */
struct create_step {
	struct pqtpm_tss_public tmpl;
	char secret[P11_SECRET_LEN + 1]; /* its authValue */
	struct p11_blob *pub, *priv;
};

static CK_RV create_step(struct p11_conn *c, void *arg)
{
	struct create_step *st = arg;

	return p11_conn_create_key(c, &st->tmpl, st->secret, st->pub, st->priv);
}

CK_RV C_GenerateKeyPair(CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism,
			CK_ATTRIBUTE_PTR pPublicKeyTemplate, CK_ULONG ulPublicKeyAttributeCount,
			CK_ATTRIBUTE_PTR pPrivateKeyTemplate,
			CK_ULONG ulPrivateKeyAttributeCount, CK_OBJECT_HANDLE_PTR phPublicKey,
			CK_OBJECT_HANDLE_PTR phPrivateKey)
{
	struct p11_object *pubo = NULL, *privo = NULL;
	struct p11_blob *pub = NULL, *priv = NULL;
	struct create_step *st = NULL;
	struct p11_session *s;
	struct p11_token *tok;
	struct request r;
	bool sign, decrypt = false, derive = false, token_pub = false, token_priv = false;
	bool encaps, decaps;
	CK_RV rv = p11_enter();

	if (rv != CKR_OK)
		return rv;
	rv = p11_session_get(hSession, &s, &tok);
	if (rv != CKR_OK)
		return p11_done(rv);
	if (!pMechanism || !phPublicKey || !phPrivateKey ||
	    (!pPublicKeyTemplate && ulPublicKeyAttributeCount) ||
	    (!pPrivateKeyTemplate && ulPrivateKeyAttributeCount))
		return p11_done(CKR_ARGUMENTS_BAD);
	if (tok->user != CKU_USER)
		return p11_done(CKR_USER_NOT_LOGGED_IN);
	rv = read_request(pMechanism->mechanism, pPublicKeyTemplate, ulPublicKeyAttributeCount,
			  pPrivateKeyTemplate, ulPrivateKeyAttributeCount, &r);
	sign = r.type != CKK_ML_KEM;
	encaps = decaps = !sign;
	if (rv == CKR_OK)
		rv = p11_tmpl_bool(pPrivateKeyTemplate, ulPrivateKeyAttributeCount, CKA_SIGN, &sign);
	if (rv == CKR_OK)
		rv = p11_tmpl_bool(pPublicKeyTemplate, ulPublicKeyAttributeCount, CKA_ENCAPSULATE,
				   &encaps);
	if (rv == CKR_OK)
		rv = p11_tmpl_bool(pPrivateKeyTemplate, ulPrivateKeyAttributeCount, CKA_DECAPSULATE,
				   &decaps);
	if (rv == CKR_OK)
		rv = p11_tmpl_bool(pPrivateKeyTemplate, ulPrivateKeyAttributeCount, CKA_DECRYPT,
				   &decrypt);
	if (rv == CKR_OK)
		rv = p11_tmpl_bool(pPrivateKeyTemplate, ulPrivateKeyAttributeCount, CKA_DERIVE,
				   &derive);
	if (rv == CKR_OK)
		rv = p11_tmpl_bool(pPublicKeyTemplate, ulPublicKeyAttributeCount, CKA_TOKEN,
				   &token_pub);
	if (rv == CKR_OK)
		rv = p11_tmpl_bool(pPrivateKeyTemplate, ulPrivateKeyAttributeCount, CKA_TOKEN,
				   &token_priv);
	if (rv != CKR_OK)
		return p11_done(rv);
	if ((token_pub || token_priv) && !(s->flags & CKF_RW_SESSION))
		return p11_done(CKR_SESSION_READ_ONLY);
	/* ML-DSA signs only, ML-KEM encapsulates only, only EC derives */
	if ((decrypt && (r.type == CKK_ML_DSA || r.type == CKK_ML_KEM)) ||
	    (derive && r.type != CKK_EC) || (sign && r.type == CKK_ML_KEM) ||
	    ((encaps || decaps) && r.type != CKK_ML_KEM))
		return p11_done(CKR_TEMPLATE_INCONSISTENT);
	/* an ECC key derives (ECDH), an ML-KEM key decapsulates, through the TPM's decrypt */
	decrypt = decrypt || derive || r.type == CKK_ML_KEM;
	r.tmpl.attributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT |
			    TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_USERWITHAUTH |
			    TPMA_OBJECT_NODA | (decrypt ? TPMA_OBJECT_DECRYPT : 0) |
			    (sign || !decrypt ? TPMA_OBJECT_SIGN_ENCRYPT : 0);
	pub = malloc(sizeof(*pub));
	priv = malloc(sizeof(*priv));
	st = malloc(sizeof(*st));
	pubo = p11_object_new(s->slot);
	privo = p11_object_new(s->slot);
	if (!pub || !priv || !st || !pubo || !privo)
		rv = CKR_HOST_MEMORY;
	if (rv == CKR_OK && pqtpm_tss_template_public(&r.tmpl, &st->tmpl) != TPM_RC_SUCCESS)
		rv = CKR_GENERAL_ERROR;
	if (rv == CKR_OK) {
		memcpy(st->secret, tok->secret, sizeof(st->secret));
		st->pub = pub;
		st->priv = priv;
		rv = p11_unlocked(NULL, create_step, st);
		explicit_bzero(st->secret, sizeof(st->secret));
		if (p11_session_back(hSession, &s, &tok) == CKR_SESSION_CLOSED)
			rv = CKR_SESSION_CLOSED;
	}
	if (rv == CKR_OK)
		rv = build_half(pubo, CKO_PUBLIC_KEY, &r, pMechanism->mechanism, pPublicKeyTemplate,
				ulPublicKeyAttributeCount, pub, priv);
	if (rv == CKR_OK)
		rv = build_half(privo, CKO_PRIVATE_KEY, &r, pMechanism->mechanism,
				pPrivateKeyTemplate, ulPrivateKeyAttributeCount, pub, priv);
	if (rv == CKR_OK)
		rv = p11_object_keep(s, pubo);
	if (rv == CKR_OK) {
		rv = p11_object_keep(s, privo);
		/* both halves or neither: the public one goes again */
		if (rv != CKR_OK && pubo->row) {
			p11_store_object_delete(p11.store, pubo->row);
			pubo->row = 0;
		}
	}
	if (rv == CKR_OK) {
		*phPublicKey = pubo->handle;
		*phPrivateKey = privo->handle;
	} else {
		if (pubo)
			p11_object_drop(pubo);
		if (privo)
			p11_object_drop(privo);
	}
	if (priv)
		explicit_bzero(priv, sizeof(*priv));
	free(pub);
	free(priv);
	free(st);
	return p11_done(rv);
}
