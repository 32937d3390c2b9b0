/* C_CreateObject: data objects and X.509 certificates, which need no TPM key, kept as given (in
 * the store for token objects); private and public keys go to keyimport.c, secret keys to
 * secret.c. */
#include <string.h>

#include "key.h"
#include "secret.h"

static bool common_attr(CK_ATTRIBUTE_TYPE t)
{
	switch (t) {
	case CKA_CLASS:
	case CKA_TOKEN:
	case CKA_PRIVATE:
	case CKA_MODIFIABLE:
	case CKA_LABEL:
	case CKA_COPYABLE:
	case CKA_DESTROYABLE:
	case CKA_UNIQUE_ID:
		return true;
	default:
		return false;
	}
}

static bool data_attr(CK_ATTRIBUTE_TYPE t)
{
	return t == CKA_APPLICATION || t == CKA_OBJECT_ID || t == CKA_VALUE;
}

static bool cert_attr(CK_ATTRIBUTE_TYPE t)
{
	switch (t) {
	case CKA_CERTIFICATE_TYPE:
	case CKA_TRUSTED:
	case CKA_CERTIFICATE_CATEGORY:
	case CKA_CHECK_VALUE:
	case CKA_START_DATE:
	case CKA_END_DATE:
	case CKA_PUBLIC_KEY_INFO:
	case CKA_SUBJECT:
	case CKA_ID:
	case CKA_ISSUER:
	case CKA_SERIAL_NUMBER:
	case CKA_VALUE:
	case CKA_URL:
	case CKA_HASH_OF_SUBJECT_PUBLIC_KEY:
	case CKA_HASH_OF_ISSUER_PUBLIC_KEY:
	case CKA_JAVA_MIDP_SECURITY_DOMAIN:
	case CKA_NAME_HASH_ALGORITHM:
		return true;
	default:
		return false;
	}
}

/* The attributes whose values are a CK_BBOOL. */
static bool is_bool(CK_ATTRIBUTE_TYPE t)
{
	return t == CKA_TOKEN || t == CKA_PRIVATE || t == CKA_MODIFIABLE || t == CKA_COPYABLE ||
	       t == CKA_DESTROYABLE || t == CKA_TRUSTED;
}

static CK_RV check_template(const CK_ATTRIBUTE *t, CK_ULONG n, CK_OBJECT_CLASS cls)
{
	CK_ULONG i, j;

	for (i = 0; i < n; i++) {
		if (t[i].ulValueLen && !t[i].pValue)
			return CKR_ATTRIBUTE_VALUE_INVALID;
		if (!common_attr(t[i].type) &&
		    !(cls == CKO_DATA ? data_attr(t[i].type) : cert_attr(t[i].type)))
			return CKR_ATTRIBUTE_TYPE_INVALID;
		if (t[i].type == CKA_UNIQUE_ID)
			return CKR_ATTRIBUTE_READ_ONLY; /* the module gives it */
		if (is_bool(t[i].type) && t[i].ulValueLen != sizeof(CK_BBOOL))
			return CKR_ATTRIBUTE_VALUE_INVALID;
		/* a trusted certificate is the SO's to make, which this module does not offer */
		if (t[i].type == CKA_TRUSTED && *(CK_BBOOL *)t[i].pValue)
			return CKR_ATTRIBUTE_READ_ONLY;
		for (j = 0; j < i; j++)
			if (t[j].type == t[i].type)
				return CKR_TEMPLATE_INCONSISTENT;
	}
	return CKR_OK;
}

static CK_RV defaults(struct p11_object *o, CK_OBJECT_CLASS cls)
{
	CK_RV rv = p11_attr_set_unique_id(o);

	if (rv == CKR_OK && !p11_attr_find(o, CKA_TOKEN))
		rv = p11_attr_set_bool(o, CKA_TOKEN, false);
	/* data objects are private unless said otherwise, certificates public */
	if (rv == CKR_OK && !p11_attr_find(o, CKA_PRIVATE))
		rv = p11_attr_set_bool(o, CKA_PRIVATE, cls == CKO_DATA);
	if (rv == CKR_OK && !p11_attr_find(o, CKA_MODIFIABLE))
		rv = p11_attr_set_bool(o, CKA_MODIFIABLE, true);
	if (rv == CKR_OK && !p11_attr_find(o, CKA_COPYABLE))
		rv = p11_attr_set_bool(o, CKA_COPYABLE, true);
	if (rv == CKR_OK && !p11_attr_find(o, CKA_DESTROYABLE))
		rv = p11_attr_set_bool(o, CKA_DESTROYABLE, true);
	if (rv == CKR_OK && !p11_attr_find(o, CKA_LABEL))
		rv = p11_attr_set(o, CKA_LABEL, NULL, 0);
	if (rv == CKR_OK && cls == CKO_CERTIFICATE && !p11_attr_find(o, CKA_TRUSTED))
		rv = p11_attr_set_bool(o, CKA_TRUSTED, false);
	if (rv == CKR_OK && cls == CKO_DATA && !p11_attr_find(o, CKA_VALUE))
		rv = p11_attr_set(o, CKA_VALUE, NULL, 0);
	return rv;
}

CK_RV C_CreateObject(CK_SESSION_HANDLE hSession, CK_ATTRIBUTE_PTR pTemplate, CK_ULONG ulCount,
		     CK_OBJECT_HANDLE_PTR phObject)
{
	CK_OBJECT_CLASS cls = (CK_OBJECT_CLASS)-1;
	CK_ULONG ctype = (CK_ULONG)-1;
	bool token = false, priv = false;
	struct p11_session *s;
	struct p11_token *tok;
	struct p11_object *o;
	CK_ULONG i;
	CK_RV rv = p11_enter_session(hSession, &s, &tok);

	if (rv != CKR_OK)
		return rv;
	if (!phObject || (!pTemplate && ulCount))
		return p11_done(CKR_ARGUMENTS_BAD);
	rv = p11_tmpl_ulong(pTemplate, ulCount, CKA_CLASS, &cls);
	if (rv == CKR_OK && cls == CKO_CERTIFICATE)
		rv = p11_tmpl_ulong(pTemplate, ulCount, CKA_CERTIFICATE_TYPE, &ctype);
	if (rv == CKR_OK)
		rv = p11_tmpl_bool(pTemplate, ulCount, CKA_TOKEN, &token);
	if (rv == CKR_OK)
		rv = p11_tmpl_bool(pTemplate, ulCount, CKA_PRIVATE, &priv);
	if (rv != CKR_OK)
		return p11_done(rv);
	if (cls == (CK_OBJECT_CLASS)-1)
		return p11_done(CKR_TEMPLATE_INCOMPLETE);
	if (cls == CKO_PRIVATE_KEY || cls == CKO_PUBLIC_KEY) {
		rv = p11_key_create(hSession, s, tok, pTemplate, ulCount, cls, &o);
		if (rv == CKR_OK)
			*phObject = o->handle;
		return p11_done(rv);
	}
	if (cls == CKO_SECRET_KEY)
		return p11_done(p11_secret_create(hSession, s, tok, pTemplate, ulCount, phObject));
	if (cls != CKO_DATA && cls != CKO_CERTIFICATE)
		return p11_done(CKR_ATTRIBUTE_VALUE_INVALID);
	if (cls == CKO_CERTIFICATE &&
	    (ctype != CKC_X_509 || !p11_tmpl_find(pTemplate, ulCount, CKA_VALUE) ||
	     !p11_tmpl_find(pTemplate, ulCount, CKA_SUBJECT)))
		return p11_done(ctype == (CK_ULONG)-1 || ctype == CKC_X_509
					? CKR_TEMPLATE_INCOMPLETE
					: CKR_ATTRIBUTE_VALUE_INVALID);
	rv = check_template(pTemplate, ulCount, cls);
	if (rv != CKR_OK)
		return p11_done(rv);
	if (token && !(s->flags & CKF_RW_SESSION))
		return p11_done(CKR_SESSION_READ_ONLY);
	if ((priv || (cls == CKO_DATA && !p11_tmpl_find(pTemplate, ulCount, CKA_PRIVATE))) &&
	    tok->user != CKU_USER)
		return p11_done(CKR_USER_NOT_LOGGED_IN);
	o = p11_object_new(s->slot);
	if (!o)
		return p11_done(CKR_HOST_MEMORY);
	for (i = 0; i < ulCount && rv == CKR_OK; i++)
		rv = p11_attr_set(o, pTemplate[i].type, pTemplate[i].pValue,
				  pTemplate[i].ulValueLen);
	if (rv == CKR_OK)
		rv = defaults(o, cls);
	if (rv == CKR_OK && token)
		rv = p11_store_object_add(p11.store, o);
	if (rv == CKR_OK && !token)
		o->session = s->handle;
	if (rv == CKR_OK)
		rv = p11_object_add(o);
	if (rv != CKR_OK) {
		p11_object_free(o);
		return p11_done(rv);
	}
	*phObject = o->handle;
	return p11_done(CKR_OK);
}
