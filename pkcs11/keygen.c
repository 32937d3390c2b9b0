/* C_GenerateKeyPair: RSA 2048/3072, EC P-256/P-384, ML-DSA-44/65/87, ML-KEM-512/768/1024, made
 * by the TPM under the token's storage key with the token's wrapping secret as their
 * authValue. The private half never leaves the TPM (sensitive, never extractable); the public
 * object carries the public key in PKCS#11's form. An ML-KEM key is the TPM's unrestricted
 * decryption key, which encapsulates and decapsulates and does nothing else. */
#include <stdlib.h>
#include <string.h>

#include "key.h"

static const uint8_t F4[] = { 0x01, 0x00, 0x01 };

/* CKA_PUBLIC_EXPONENT: the TPM's default exponent, 65537, with or without leading zeros. */
static bool is_f4(const CK_ATTRIBUTE *e)
{
	const uint8_t *v = e->pValue;
	CK_ULONG len = e->ulValueLen;

	while (v && len > sizeof(F4) && *v == 0) {
		v++;
		len--;
	}
	return v && len == sizeof(F4) && !memcmp(v, F4, sizeof(F4));
}

static bool ulong_is(const CK_ATTRIBUTE *a, CK_ULONG v)
{
	CK_ULONG given;

	if (!a->pValue || a->ulValueLen != sizeof(given))
		return false;
	memcpy(&given, a->pValue, sizeof(given));
	return given == v;
}

/* What a key pair's two templates ask for. */
struct request {
	CK_KEY_TYPE type;
	CK_ULONG bits;		  /* RSA */
	const CK_ATTRIBUTE *curve; /* EC: CKA_EC_PARAMS */
	CK_ULONG parameter_set;	  /* ML-DSA, ML-KEM */
	struct pqtpm_tss_template tmpl;
};

static CK_RV read_request(CK_MECHANISM_TYPE mech, const CK_ATTRIBUTE *pub, CK_ULONG npub,
			  const CK_ATTRIBUTE *priv, CK_ULONG npriv, struct request *r)
{
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
		r->tmpl.rsa_bits = (uint16_t)r->bits;
		return rv;
	case CKM_EC_KEY_PAIR_GEN:
		r->type = CKK_EC;
		r->tmpl.type = TPM_ALG_ECC;
		r->curve = p11_tmpl_find(pub, npub, CKA_EC_PARAMS);
		if (!r->curve)
			return CKR_TEMPLATE_INCOMPLETE;
		r->tmpl.curve = p11_ec_curve(r->curve->pValue, r->curve->ulValueLen);
		return r->tmpl.curve ? CKR_OK : CKR_CURVE_NOT_SUPPORTED;
	case CKM_ML_DSA_KEY_PAIR_GEN:
	case CKM_ML_KEM_KEY_PAIR_GEN:
		r->type = mech == CKM_ML_DSA_KEY_PAIR_GEN ? CKK_ML_DSA : CKK_ML_KEM;
		r->tmpl.type = mech == CKM_ML_DSA_KEY_PAIR_GEN ? TPM_ALG_MLDSA : TPM_ALG_MLKEM;
		/* the module computes a HashML-DSA signature's mu, which the key then signs */
		r->tmpl.allow_external_mu = r->type == CKK_ML_DSA;
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

/* The values the mechanism reads, wherever template t (either half) gives them, must be those
 * of the request: another key type's (CKA_EC_PARAMS of an RSA key ...) is
 * CKR_ATTRIBUTE_TYPE_INVALID, another value (the halves' parameter sets differ ...)
 * CKR_TEMPLATE_INCONSISTENT, an exponent other than 65537 CKR_ATTRIBUTE_VALUE_INVALID. */
static CK_RV mechanism_values_agree(const CK_ATTRIBUTE *t, CK_ULONG n, const struct request *r)
{
	bool pq = r->type == CKK_ML_DSA || r->type == CKK_ML_KEM;
	CK_ULONG i;

	for (i = 0; i < n; i++) {
		const CK_ATTRIBUTE *a = &t[i];

		switch (a->type) {
		case CKA_MODULUS_BITS:
		case CKA_PUBLIC_EXPONENT:
			if (r->type != CKK_RSA)
				return CKR_ATTRIBUTE_TYPE_INVALID;
			if (a->type == CKA_PUBLIC_EXPONENT && !is_f4(a))
				return CKR_ATTRIBUTE_VALUE_INVALID;
			if (a->type == CKA_MODULUS_BITS && !ulong_is(a, r->bits))
				return CKR_TEMPLATE_INCONSISTENT;
			break;
		case CKA_EC_PARAMS:
			if (r->type != CKK_EC)
				return CKR_ATTRIBUTE_TYPE_INVALID;
			if (a->ulValueLen != r->curve->ulValueLen || !a->pValue ||
			    memcmp(a->pValue, r->curve->pValue, a->ulValueLen))
				return CKR_TEMPLATE_INCONSISTENT;
			break;
		case CKA_PARAMETER_SET:
			if (!pq)
				return CKR_ATTRIBUTE_TYPE_INVALID;
			if (!ulong_is(a, r->parameter_set))
				return CKR_TEMPLATE_INCONSISTENT;
			break;
		default:
			break;
		}
	}
	return CKR_OK;
}

/* What the mechanism reads from a template: never copied to the object. */
static bool mechanism_value(CK_ATTRIBUTE_TYPE t)
{
	return t == CKA_MODULUS_BITS || t == CKA_PUBLIC_EXPONENT || t == CKA_EC_PARAMS ||
	       t == CKA_PARAMETER_SET;
}

/* A half's attributes from its template and the defaults: all a template can get wrong is found
 * here, before the TPM is asked. */
static CK_RV half_attrs(struct p11_object *o, CK_OBJECT_CLASS cls, const struct request *r,
			CK_MECHANISM_TYPE mech, const CK_ATTRIBUTE *t, CK_ULONG n)
{
	CK_RV rv = p11_key_template(o, t, n, cls, r->type, mechanism_value);

	if (rv == CKR_OK)
		rv = p11_key_finish(o, cls, r->type, P11_KEY_GENERATED, mech);
	if (rv == CKR_OK && (r->type == CKK_ML_DSA || r->type == CKK_ML_KEM))
		rv = p11_attr_set_ulong(o, CKA_PARAMETER_SET, r->parameter_set);
	if (rv == CKR_OK && r->type == CKK_EC)
		rv = p11_attr_set(o, CKA_EC_PARAMS, r->curve->pValue, r->curve->ulValueLen);
	return rv;
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
	bool token_pub = false, token_priv = false;
	CK_RV rv2, rv = p11_enter_session(hSession, &s, &tok);

	if (rv != CKR_OK)
		return rv;
	if (!pMechanism || !phPublicKey || !phPrivateKey ||
	    (!pPublicKeyTemplate && ulPublicKeyAttributeCount) ||
	    (!pPrivateKeyTemplate && ulPrivateKeyAttributeCount))
		return p11_done(CKR_ARGUMENTS_BAD);
	if (tok->user != CKU_USER)
		return p11_done(CKR_USER_NOT_LOGGED_IN);
	rv = read_request(pMechanism->mechanism, pPublicKeyTemplate, ulPublicKeyAttributeCount,
			  pPrivateKeyTemplate, ulPrivateKeyAttributeCount, &r);
	if (rv == CKR_OK)
		rv = mechanism_values_agree(pPublicKeyTemplate, ulPublicKeyAttributeCount, &r);
	if (rv == CKR_OK)
		rv = mechanism_values_agree(pPrivateKeyTemplate, ulPrivateKeyAttributeCount, &r);
	if (rv == CKR_OK)
		rv = p11_key_uses(pPrivateKeyTemplate, ulPrivateKeyAttributeCount, r.type,
				  &r.tmpl.attributes);
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
	r.tmpl.attributes |= TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT |
			     TPMA_OBJECT_SENSITIVEDATAORIGIN;
	pub = malloc(sizeof(*pub));
	priv = malloc(sizeof(*priv));
	st = malloc(sizeof(*st));
	pubo = p11_object_new(s->slot);
	privo = p11_object_new(s->slot);
	if (!pub || !priv || !st || !pubo || !privo)
		rv = CKR_HOST_MEMORY;
	/* both templates whole before the TPM makes a key (an RSA key takes it seconds) */
	if (rv == CKR_OK)
		rv = half_attrs(pubo, CKO_PUBLIC_KEY, &r, pMechanism->mechanism,
				pPublicKeyTemplate, ulPublicKeyAttributeCount);
	if (rv == CKR_OK)
		rv = half_attrs(privo, CKO_PRIVATE_KEY, &r, pMechanism->mechanism,
				pPrivateKeyTemplate, ulPrivateKeyAttributeCount);
	if (rv == CKR_OK && pqtpm_tss_template_public(&r.tmpl, &st->tmpl) != TPM_RC_SUCCESS)
		rv = CKR_GENERAL_ERROR;
	if (rv == CKR_OK) {
		memcpy(st->secret, tok->secret, sizeof(st->secret));
		st->pub = pub;
		st->priv = priv;
		rv = p11_unlocked(NULL, create_step, st);
		explicit_bzero(st->secret, sizeof(st->secret));
		rv2 = p11_session_back(hSession, &s, &tok);
		if (rv == CKR_OK)
			rv = rv2;
	}
	if (rv == CKR_OK)
		rv = p11_key_blobs(pubo, r.type, pub, NULL);
	if (rv == CKR_OK)
		rv = p11_key_blobs(privo, r.type, pub, priv);
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
