/* C_DeriveKey with CKM_ECDH1_DERIVE: the TPM multiplies the other side's point by the private
 * key (TPM2_ECDH_ZGen) and the shared secret, the point's x-coordinate (CKD_NULL: no KDF), becomes
 * a CKK_GENERIC_SECRET session object. Its attributes follow the specification's rules for
 * derived keys: CKA_LOCAL false, CKA_ALWAYS_SENSITIVE and CKA_NEVER_EXTRACTABLE true only when
 * the base key's were and the new key is sensitive / unextractable. Derived keys are session
 * objects only: as a token object the secret would sit in the store in the clear. */
#include <string.h>

#include "mech.h"

/* Attributes a template may give a derived key (all but CKA_VALUE_LEN are booleans, dates or
 * byte strings kept as given). */
static bool settable(CK_ATTRIBUTE_TYPE t)
{
	switch (t) {
	case CKA_PRIVATE:
	case CKA_LABEL:
	case CKA_ID:
	case CKA_START_DATE:
	case CKA_END_DATE:
	case CKA_MODIFIABLE:
	case CKA_COPYABLE:
	case CKA_DESTROYABLE:
	case CKA_SENSITIVE:
	case CKA_EXTRACTABLE:
	case CKA_ENCRYPT:
	case CKA_DECRYPT:
	case CKA_SIGN:
	case CKA_VERIFY:
	case CKA_WRAP:
	case CKA_UNWRAP:
	case CKA_DERIVE:
		return true;
	default:
		return false;
	}
}

static bool is_bool(CK_ATTRIBUTE_TYPE t)
{
	return t != CKA_LABEL && t != CKA_ID && t != CKA_START_DATE && t != CKA_END_DATE;
}

/* The template on the new object; *value_len its CKA_VALUE_LEN (0: not given). */
static CK_RV copy_template(struct p11_object *o, const CK_ATTRIBUTE *t, CK_ULONG n,
			   CK_ULONG *value_len)
{
	CK_ULONG i, u;
	CK_RV rv;

	for (i = 0; i < n; i++) {
		switch (t[i].type) {
		case CKA_CLASS:
		case CKA_KEY_TYPE:
			rv = p11_tmpl_ulong(&t[i], 1, t[i].type, &u);
			if (rv != CKR_OK)
				return rv;
			if (u != (t[i].type == CKA_CLASS ? CKO_SECRET_KEY : CKK_GENERIC_SECRET))
				return CKR_TEMPLATE_INCONSISTENT;
			continue;
		case CKA_TOKEN:
			if (t[i].ulValueLen != sizeof(CK_BBOOL) || !t[i].pValue)
				return CKR_ATTRIBUTE_VALUE_INVALID;
			if (*(const CK_BBOOL *)t[i].pValue)
				return CKR_ATTRIBUTE_VALUE_INVALID;
			continue;
		case CKA_VALUE_LEN:
			rv = p11_tmpl_ulong(&t[i], 1, t[i].type, value_len);
			if (rv != CKR_OK)
				return rv;
			if (!*value_len)
				return CKR_ATTRIBUTE_VALUE_INVALID;
			continue;
		default:
			if (!settable(t[i].type))
				return CKR_ATTRIBUTE_TYPE_INVALID;
			if ((t[i].ulValueLen && !t[i].pValue) ||
			    (is_bool(t[i].type) && t[i].ulValueLen != sizeof(CK_BBOOL)))
				return CKR_ATTRIBUTE_VALUE_INVALID;
			rv = p11_attr_set(o, t[i].type, t[i].pValue, t[i].ulValueLen);
			if (rv != CKR_OK)
				return rv;
		}
	}
	return CKR_OK;
}

/* The other side's point: the uncompressed point 04 || x || y, bare or as a DER OCTET STRING
 * (applications send either), coordinates of n bytes. */
static CK_RV peer_point(const CK_ECDH1_DERIVE_PARAMS *p, size_t n,
			struct pqtpm_tss_ecc_point *pt)
{
	const uint8_t *b = p->pPublicData;
	size_t len = p->ulPublicDataLen;

	if (!b)
		return CKR_MECHANISM_PARAM_INVALID;
	if (len == 3 + 2 * n && b[0] == 0x04 && b[1] == 1 + 2 * n) {
		b += 2;
		len -= 2;
	}
	if (len != 1 + 2 * n || b[0] != 0x04)
		return CKR_MECHANISM_PARAM_INVALID;
	memset(pt, 0, sizeof(*pt));
	pt->x_size = pt->y_size = (uint16_t)n;
	memcpy(pt->x, b + 1, n);
	memcpy(pt->y, b + 1 + n, n);
	return CKR_OK;
}

/* The base key's coordinate size, from its curve (P-256 or P-384). */
static size_t coord_size(const struct p11_object *k)
{
	static const uint8_t OID_P384[] = { 0x06, 0x05, 0x2B, 0x81, 0x04, 0x00, 0x22 };
	const struct p11_attr *a = p11_attr_find(k, CKA_EC_PARAMS);

	return a && a->len == sizeof(OID_P384) && !memcmp(a->value, OID_P384, a->len) ? 48 : 32;
}

/* What the TPM step needs (p11_unlocked), taken while the module lock is held. */
struct zgen_step {
	struct p11_object *key;
	char secret[P11_SECRET_LEN + 1]; /* the key's authValue */
	struct pqtpm_tss_ecc_point in, z;
};

static CK_RV zgen_step(struct p11_conn *c, void *arg)
{
	struct zgen_step *st = arg;
	TPM_HANDLE h;
	TPM_RC rc;
	CK_RV rv = p11_conn_load(c, st->key, &h);

	if (rv != CKR_OK)
		return rv;
	rc = pqtpm_tss_ecdh_zgen(c->t, h, st->secret, &st->in, &st->z);
	/* a point off the curve (TPM_RC_ECC_POINT) or otherwise refused */
	if ((rc & 0xBFu) == (TPM_RC_ECC_POINT & 0xBFu) || (rc & 0xBFu) == (TPM_RC_VALUE & 0xBFu))
		return CKR_MECHANISM_PARAM_INVALID;
	rv = p11_conn_rv(c, rc, "ECDH_ZGen");
	return rv == CKR_PIN_INCORRECT ? CKR_DEVICE_ERROR : rv;
}

/* The derived key's fixed attributes and its value (the first len bytes of the secret). */
static CK_RV finish(struct p11_object *o, const struct p11_object *base, const uint8_t *z,
		    CK_ULONG len)
{
	bool sensitive, extractable;
	CK_RV rv = CKR_OK;

	if (!p11_attr_find(o, CKA_SENSITIVE))
		rv = p11_attr_set_bool(o, CKA_SENSITIVE, true);
	if (rv == CKR_OK && !p11_attr_find(o, CKA_EXTRACTABLE))
		rv = p11_attr_set_bool(o, CKA_EXTRACTABLE, false);
	if (rv != CKR_OK)
		return rv;
	sensitive = p11_attr_bool(o, CKA_SENSITIVE, true);
	extractable = p11_attr_bool(o, CKA_EXTRACTABLE, false);
	rv = p11_attr_set_unique_id(o);
	if (rv == CKR_OK)
		rv = p11_attr_set_ulong(o, CKA_CLASS, CKO_SECRET_KEY);
	if (rv == CKR_OK)
		rv = p11_attr_set_ulong(o, CKA_KEY_TYPE, CKK_GENERIC_SECRET);
	if (rv == CKR_OK)
		rv = p11_attr_set_bool(o, CKA_TOKEN, false);
	if (rv == CKR_OK)
		rv = p11_attr_set_bool(o, CKA_LOCAL, false);
	if (rv == CKR_OK)
		rv = p11_attr_set_ulong(o, CKA_KEY_GEN_MECHANISM, CK_UNAVAILABLE_INFORMATION);
	if (rv == CKR_OK)
		rv = p11_attr_set_bool(o, CKA_ALWAYS_SENSITIVE,
				       sensitive && p11_attr_bool(base, CKA_ALWAYS_SENSITIVE, false));
	if (rv == CKR_OK)
		rv = p11_attr_set_bool(o, CKA_NEVER_EXTRACTABLE,
				       !extractable &&
					       p11_attr_bool(base, CKA_NEVER_EXTRACTABLE, false));
	if (rv == CKR_OK && !p11_attr_find(o, CKA_PRIVATE))
		rv = p11_attr_set_bool(o, CKA_PRIVATE, true);
	if (rv == CKR_OK && !p11_attr_find(o, CKA_LABEL))
		rv = p11_attr_set(o, CKA_LABEL, NULL, 0);
	if (rv == CKR_OK && !p11_attr_find(o, CKA_MODIFIABLE))
		rv = p11_attr_set_bool(o, CKA_MODIFIABLE, true);
	if (rv == CKR_OK && !p11_attr_find(o, CKA_DESTROYABLE))
		rv = p11_attr_set_bool(o, CKA_DESTROYABLE, true);
	if (rv == CKR_OK)
		rv = p11_attr_set_ulong(o, CKA_VALUE_LEN, len);
	if (rv == CKR_OK)
		rv = p11_attr_set(o, CKA_VALUE, z, len);
	return rv;
}

/* The checks before the TPM: mechanism, parameters, base key, login. */
static CK_RV derive_args(struct p11_session *s, struct p11_token *tok, const CK_MECHANISM *m,
			 CK_OBJECT_HANDLE base, struct p11_object **k,
			 struct pqtpm_tss_ecc_point *in)
{
	const CK_ECDH1_DERIVE_PARAMS *p;

	if (m->mechanism != CKM_ECDH1_DERIVE)
		return CKR_MECHANISM_INVALID;
	p = m->pParameter;
	if (!p || m->ulParameterLen != sizeof(*p))
		return CKR_MECHANISM_PARAM_INVALID;
	/* the SHA KDFs are not offered: the secret is the x-coordinate itself */
	if (p->kdf != CKD_NULL || p->ulSharedDataLen)
		return CKR_MECHANISM_PARAM_INVALID;
	if (p11_object_get(s, tok, base, k) != CKR_OK)
		return CKR_KEY_HANDLE_INVALID;
	if (p11_attr_ulong(*k, CKA_CLASS, 0) != CKO_PRIVATE_KEY ||
	    p11_attr_ulong(*k, CKA_KEY_TYPE, CK_UNAVAILABLE_INFORMATION) != CKK_EC)
		return CKR_KEY_TYPE_INCONSISTENT;
	if (!p11_attr_bool(*k, CKA_DERIVE, false))
		return CKR_KEY_FUNCTION_NOT_PERMITTED;
	if (tok->user != CKU_USER)
		return CKR_USER_NOT_LOGGED_IN;
	return peer_point(p, coord_size(*k), in);
}

CK_RV C_DeriveKey(CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism,
		  CK_OBJECT_HANDLE hBaseKey, CK_ATTRIBUTE_PTR pTemplate, CK_ULONG ulAttributeCount,
		  CK_OBJECT_HANDLE_PTR phKey)
{
	struct zgen_step st = { 0 };
	struct p11_object *k, *o = NULL;
	struct p11_session *s;
	struct p11_token *tok;
	CK_ULONG value_len = 0;
	uint8_t secret[48];
	size_t n;
	CK_RV rv = p11_enter();

	if (rv != CKR_OK)
		return rv;
	rv = p11_session_get(hSession, &s, &tok);
	if (rv != CKR_OK)
		return p11_done(rv);
	if (!pMechanism || !phKey || (!pTemplate && ulAttributeCount))
		return p11_done(CKR_ARGUMENTS_BAD);
	rv = derive_args(s, tok, pMechanism, hBaseKey, &k, &st.in);
	if (rv != CKR_OK)
		return p11_done(rv);
	n = coord_size(k);
	o = p11_object_new(s->slot);
	if (!o)
		return p11_done(CKR_HOST_MEMORY);
	rv = copy_template(o, pTemplate, ulAttributeCount, &value_len);
	if (rv == CKR_OK && value_len > n)
		rv = CKR_ATTRIBUTE_VALUE_INVALID;
	p11_object_hold(k); /* its attributes are read after the step */
	if (rv == CKR_OK) {
		st.key = k;
		memcpy(st.secret, tok->secret, sizeof(st.secret));
		rv = p11_unlocked(k, zgen_step, &st);
		explicit_bzero(st.secret, sizeof(st.secret));
		if (p11_session_back(hSession, &s, &tok) == CKR_SESSION_CLOSED)
			rv = CKR_SESSION_CLOSED;
	}
	if (rv == CKR_OK && st.z.x_size > n)
		rv = CKR_DEVICE_ERROR;
	if (rv == CKR_OK) {
		/* the x-coordinate as a field element of n bytes */
		memset(secret, 0, n - st.z.x_size);
		memcpy(secret + n - st.z.x_size, st.z.x, st.z.x_size);
		rv = finish(o, k, secret, value_len ? value_len : n);
	}
	p11_object_release(k);
	if (rv == CKR_OK)
		rv = p11_object_keep(s, o);
	if (rv == CKR_OK)
		*phKey = o->handle;
	else
		p11_object_drop(o);
	explicit_bzero(&st.z, sizeof(st.z));
	explicit_bzero(secret, sizeof(secret));
	return p11_done(rv);
}
