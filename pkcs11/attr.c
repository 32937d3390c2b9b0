/* An object's attributes (a list of type and value), templates, and C_GetAttributeValue with
 * the specification's rules: private values are sensitive, absent attributes invalid, and the
 * two-call length protocol, each attribute on its own. */
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "p11.h"

const struct p11_attr *p11_attr_find(const struct p11_object *o, CK_ATTRIBUTE_TYPE type)
{
	size_t i;

	for (i = 0; i < o->nattrs; i++)
		if (o->attrs[i].type == type)
			return &o->attrs[i];
	return NULL;
}

CK_RV p11_attr_set(struct p11_object *o, CK_ATTRIBUTE_TYPE type, const void *value,
		   CK_ULONG len)
{
	struct p11_attr *a = (struct p11_attr *)p11_attr_find(o, type);
	uint8_t *v = malloc(len ? len : 1);

	if (!v)
		return CKR_HOST_MEMORY;
	if (len)
		memcpy(v, value, len);
	if (!a) {
		struct p11_attr *grown = realloc(o->attrs, (o->nattrs + 1) * sizeof(*grown));

		if (!grown) {
			free(v);
			return CKR_HOST_MEMORY;
		}
		o->attrs = grown;
		a = &o->attrs[o->nattrs++];
		a->type = type;
	} else {
		free(a->value);
	}
	a->value = v;
	a->len = len;
	return CKR_OK;
}

void p11_attr_drop(struct p11_object *o, CK_ATTRIBUTE_TYPE type)
{
	struct p11_attr *a = (struct p11_attr *)p11_attr_find(o, type);

	if (!a)
		return;
	explicit_bzero(a->value, a->len);
	free(a->value);
	*a = o->attrs[--o->nattrs];
}

CK_RV p11_attr_set_bool(struct p11_object *o, CK_ATTRIBUTE_TYPE type, bool v)
{
	CK_BBOOL b = v ? CK_TRUE : CK_FALSE;

	return p11_attr_set(o, type, &b, sizeof(b));
}

CK_RV p11_attr_set_ulong(struct p11_object *o, CK_ATTRIBUTE_TYPE type, CK_ULONG v)
{
	return p11_attr_set(o, type, &v, sizeof(v));
}

CK_RV p11_attr_set_unique_id(struct p11_object *o)
{
	static const char hex[] = "0123456789abcdef";
	uint8_t rnd[8];
	char uid[2 * sizeof(rnd)];
	size_t i;

	/* an identifier, not a secret: the kernel's generator, no TPM command under the lock */
	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		return CKR_FUNCTION_FAILED;
	for (i = 0; i < sizeof(rnd); i++) {
		uid[2 * i] = hex[rnd[i] >> 4];
		uid[2 * i + 1] = hex[rnd[i] & 15];
	}
	return p11_attr_set(o, CKA_UNIQUE_ID, uid, sizeof(uid));
}

bool p11_attr_bool(const struct p11_object *o, CK_ATTRIBUTE_TYPE type, bool dflt)
{
	const struct p11_attr *a = p11_attr_find(o, type);

	return a && a->len == sizeof(CK_BBOOL) ? *a->value != CK_FALSE : dflt;
}

CK_ULONG p11_attr_ulong(const struct p11_object *o, CK_ATTRIBUTE_TYPE type, CK_ULONG dflt)
{
	const struct p11_attr *a = p11_attr_find(o, type);
	CK_ULONG v;

	if (!a || a->len != sizeof(v))
		return dflt;
	memcpy(&v, a->value, sizeof(v));
	return v;
}

bool p11_secret_readable(const struct p11_object *o)
{
	return !p11_attr_bool(o, CKA_SENSITIVE, true) && p11_attr_bool(o, CKA_EXTRACTABLE, false);
}

bool p11_attr_match(const struct p11_object *o, const CK_ATTRIBUTE *tmpl, CK_ULONG n)
{
	CK_ULONG i;

	for (i = 0; i < n; i++) {
		const struct p11_attr *a = p11_attr_find(o, tmpl[i].type);

		if (!a || a->len != tmpl[i].ulValueLen ||
		    (a->len && (!tmpl[i].pValue || memcmp(a->value, tmpl[i].pValue, a->len))))
			return false;
	}
	return true;
}

const CK_ATTRIBUTE *p11_tmpl_find(const CK_ATTRIBUTE *tmpl, CK_ULONG n, CK_ATTRIBUTE_TYPE type)
{
	CK_ULONG i;

	for (i = 0; i < n; i++)
		if (tmpl[i].type == type)
			return &tmpl[i];
	return NULL;
}

CK_RV p11_tmpl_bool(const CK_ATTRIBUTE *tmpl, CK_ULONG n, CK_ATTRIBUTE_TYPE type, bool *v)
{
	const CK_ATTRIBUTE *a = p11_tmpl_find(tmpl, n, type);

	if (!a)
		return CKR_OK;
	if (a->ulValueLen != sizeof(CK_BBOOL) || !a->pValue)
		return CKR_ATTRIBUTE_VALUE_INVALID;
	*v = *(CK_BBOOL *)a->pValue != CK_FALSE;
	return CKR_OK;
}

CK_RV p11_tmpl_ulong(const CK_ATTRIBUTE *tmpl, CK_ULONG n, CK_ATTRIBUTE_TYPE type, CK_ULONG *v)
{
	const CK_ATTRIBUTE *a = p11_tmpl_find(tmpl, n, type);

	if (!a)
		return CKR_OK;
	if (a->ulValueLen != sizeof(CK_ULONG) || !a->pValue)
		return CKR_ATTRIBUTE_VALUE_INVALID;
	memcpy(v, a->pValue, sizeof(*v));
	return CKR_OK;
}

/* The private parts of a key: never kept here (they live in the TPM), always sensitive; a
 * secret key's value unless it is neither sensitive nor unextractable. */
bool p11_attr_sensitive(const struct p11_object *o, CK_ATTRIBUTE_TYPE type)
{
	CK_ULONG cls = p11_attr_ulong(o, CKA_CLASS, CK_UNAVAILABLE_INFORMATION);

	if (cls == CKO_SECRET_KEY)
		return type == CKA_VALUE && !p11_secret_readable(o);
	if (cls != CKO_PRIVATE_KEY)
		return false;
	switch (type) {
	case CKA_VALUE:
	case CKA_PRIVATE_EXPONENT:
	case CKA_PRIME_1:
	case CKA_PRIME_2:
	case CKA_EXPONENT_1:
	case CKA_EXPONENT_2:
	case CKA_COEFFICIENT:
	case CKA_SEED:
		return true;
	default:
		return false;
	}
}

CK_RV C_GetAttributeValue(CK_SESSION_HANDLE hSession, CK_OBJECT_HANDLE hObject,
			  CK_ATTRIBUTE_PTR pTemplate, CK_ULONG ulCount)
{
	struct p11_session *s;
	struct p11_token *tok;
	struct p11_object *o;
	CK_RV ret = CKR_OK;
	CK_ULONG i;
	CK_RV rv = p11_enter_session(hSession, &s, &tok);

	if (rv != CKR_OK)
		return rv;
	rv = p11_object_get(s, tok, hObject, &o);
	/* a token object as another process may have changed it */
	if (rv == CKR_OK)
		rv = p11_object_fresh(o);
	if (rv != CKR_OK)
		return p11_done(rv);
	if (!pTemplate && ulCount)
		return p11_done(CKR_ARGUMENTS_BAD);
	for (i = 0; i < ulCount; i++) {
		CK_ATTRIBUTE *t = &pTemplate[i];
		const struct p11_attr *a = p11_attr_find(o, t->type);

		if (p11_attr_sensitive(o, t->type)) {
			t->ulValueLen = CK_UNAVAILABLE_INFORMATION;
			ret = CKR_ATTRIBUTE_SENSITIVE;
		} else if (!a) {
			t->ulValueLen = CK_UNAVAILABLE_INFORMATION;
			ret = CKR_ATTRIBUTE_TYPE_INVALID;
		} else if (!t->pValue) {
			t->ulValueLen = a->len;
		} else if (t->ulValueLen < a->len) {
			t->ulValueLen = CK_UNAVAILABLE_INFORMATION;
			ret = CKR_BUFFER_TOO_SMALL;
		} else {
			memcpy(t->pValue, a->value, a->len);
			t->ulValueLen = a->len;
		}
	}
	return p11_done(ret);
}

CK_RV C_GetObjectSize(CK_SESSION_HANDLE hSession, CK_OBJECT_HANDLE hObject, CK_ULONG_PTR pulSize)
{
	struct p11_session *s;
	struct p11_token *tok;
	struct p11_object *o;
	CK_RV rv = p11_enter_session(hSession, &s, &tok);

	if (rv != CKR_OK)
		return rv;
	rv = p11_object_get(s, tok, hObject, &o);
	if (rv == CKR_OK && !pulSize)
		rv = CKR_ARGUMENTS_BAD;
	if (rv == CKR_OK)
		*pulSize = CK_UNAVAILABLE_INFORMATION;
	return p11_done(rv);
}
