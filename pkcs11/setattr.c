/* C_SetAttributeValue and C_CopyObject. What may change follows PKCS#11 §4.4 and the class's
 * tables: CKA_LABEL and the footnote-8 attributes in both; CKA_TOKEN, CKA_PRIVATE,
 * CKA_MODIFIABLE and CKA_DESTROYABLE only in a copy; CKA_COPYABLE only to false; a key's own
 * rules (key pairs' and secret keys' alike) in keyattr.c. A token object's new attributes reach
 * the store in one transaction, where another process finds them. A copied key shares the TPM's
 * blobs of the original. A secret key's value stays with it only while it is readable, and a
 * token secret key never is (secret.c's rules). */
#include <stdlib.h>
#include <string.h>

#include "key.h"

static bool storage_bool(CK_ATTRIBUTE_TYPE t)
{
	return t == CKA_TOKEN || t == CKA_PRIVATE || t == CKA_MODIFIABLE || t == CKA_DESTROYABLE ||
	       t == CKA_COPYABLE;
}

/* Data objects' and certificates' own attributes that may change. */
static bool other_changeable(CK_OBJECT_CLASS cls, CK_ATTRIBUTE_TYPE t)
{
	if (cls == CKO_DATA)
		return t == CKA_APPLICATION || t == CKA_OBJECT_ID || t == CKA_VALUE;
	return cls == CKO_CERTIFICATE && (t == CKA_ID || t == CKA_ISSUER ||
					  t == CKA_SERIAL_NUMBER || t == CKA_START_DATE ||
					  t == CKA_END_DATE);
}

/* Whether attribute a of o may take a's value (copy: in C_CopyObject). */
static CK_RV may_change(const struct p11_object *o, const CK_ATTRIBUTE *a, bool copy)
{
	CK_OBJECT_CLASS cls = p11_attr_ulong(o, CKA_CLASS, CK_UNAVAILABLE_INFORMATION);
	bool b;

	if (a->ulValueLen && !a->pValue)
		return CKR_ATTRIBUTE_VALUE_INVALID;
	if (a->type == CKA_LABEL)
		return CKR_OK;
	if (storage_bool(a->type)) {
		if (a->ulValueLen != sizeof(CK_BBOOL))
			return CKR_ATTRIBUTE_VALUE_INVALID;
		b = *(CK_BBOOL *)a->pValue != CK_FALSE;
		if (a->type == CKA_COPYABLE) /* footnote 12: false for good */
			return !b || p11_attr_bool(o, CKA_COPYABLE, true) ? CKR_OK
									 : CKR_ATTRIBUTE_READ_ONLY;
		return copy ? CKR_OK : CKR_ATTRIBUTE_READ_ONLY;
	}
	if (cls == CKO_PRIVATE_KEY || cls == CKO_PUBLIC_KEY || cls == CKO_SECRET_KEY)
		return p11_key_attr_change(o, a);
	if (other_changeable(cls, a->type))
		return CKR_OK;
	return p11_attr_find(o, a->type) ? CKR_ATTRIBUTE_READ_ONLY : CKR_ATTRIBUTE_TYPE_INVALID;
}

/* The template's attributes checked (each type once) and set on o. */
static CK_RV apply(struct p11_object *o, const struct p11_object *orig, const CK_ATTRIBUTE *t,
		   CK_ULONG n, bool copy)
{
	CK_ULONG i, j;
	CK_RV rv = CKR_OK;

	for (i = 0; i < n && rv == CKR_OK; i++) {
		for (j = 0; j < i; j++)
			if (t[j].type == t[i].type)
				return CKR_TEMPLATE_INCONSISTENT;
		rv = may_change(orig, &t[i], copy);
		if (rv == CKR_OK)
			rv = p11_attr_set(o, t[i].type, t[i].pValue, t[i].ulValueLen);
	}
	return rv;
}

/* A secret key that may no longer be read (made sensitive or unextractable) loses the value
 * the module kept for it. */
static void forget_value(struct p11_object *o)
{
	if (p11_attr_ulong(o, CKA_CLASS, 0) == CKO_SECRET_KEY && !p11_secret_readable(o))
		p11_attr_drop(o, CKA_VALUE);
}

/* The session, its token and the object (as the store has it now). */
static CK_RV object_of(CK_SESSION_HANDLE h, CK_OBJECT_HANDLE obj, struct p11_session **s,
		       struct p11_token **tok, struct p11_object **o)
{
	CK_RV rv = p11_session_get(h, s, tok);

	if (rv == CKR_OK)
		rv = p11_object_get(*s, *tok, obj, o);
	if (rv == CKR_OK)
		rv = p11_object_fresh(*o);
	return rv;
}

/* o's attributes become c's (c gets o's old ones, to be freed with it). */
static void swap_attrs(struct p11_object *o, struct p11_object *c)
{
	struct p11_attr *a = o->attrs;
	size_t n = o->nattrs;

	o->attrs = c->attrs;
	o->nattrs = c->nattrs;
	c->attrs = a;
	c->nattrs = n;
}

CK_RV C_SetAttributeValue(CK_SESSION_HANDLE hSession, CK_OBJECT_HANDLE hObject,
			  CK_ATTRIBUTE_PTR pTemplate, CK_ULONG ulCount)
{
	struct p11_session *s;
	struct p11_token *tok;
	struct p11_object *o, *c;
	CK_RV rv = p11_enter();

	if (rv != CKR_OK)
		return rv;
	rv = object_of(hSession, hObject, &s, &tok, &o);
	if (rv != CKR_OK)
		return p11_done(rv);
	if (!pTemplate && ulCount)
		return p11_done(CKR_ARGUMENTS_BAD);
	if (o->row && !(s->flags & CKF_RW_SESSION))
		return p11_done(CKR_SESSION_READ_ONLY);
	if (!p11_attr_bool(o, CKA_MODIFIABLE, true))
		return p11_done(CKR_ACTION_PROHIBITED);
	/* all or nothing: the change is made on a copy, stored, then taken */
	c = p11_object_copy(o);
	if (!c)
		return p11_done(CKR_HOST_MEMORY);
	rv = apply(c, o, pTemplate, ulCount, false);
	if (rv == CKR_OK)
		forget_value(c);
	if (rv == CKR_OK && o->row) {
		c->row = o->row;
		rv = p11_store_object_update(p11.store, c);
		if (rv == CKR_OK)
			o->gen = c->gen;
	}
	if (rv == CKR_OK)
		swap_attrs(o, c);
	p11_object_free(c);
	return p11_done(rv);
}

CK_RV C_CopyObject(CK_SESSION_HANDLE hSession, CK_OBJECT_HANDLE hObject,
		   CK_ATTRIBUTE_PTR pTemplate, CK_ULONG ulCount, CK_OBJECT_HANDLE_PTR phNewObject)
{
	struct p11_session *s;
	struct p11_token *tok;
	struct p11_object *o, *c;
	CK_RV rv = p11_enter();

	if (rv != CKR_OK)
		return rv;
	rv = object_of(hSession, hObject, &s, &tok, &o);
	if (rv != CKR_OK)
		return p11_done(rv);
	if (!phNewObject || (!pTemplate && ulCount))
		return p11_done(CKR_ARGUMENTS_BAD);
	if (!p11_attr_bool(o, CKA_COPYABLE, true))
		return p11_done(CKR_ACTION_PROHIBITED);
	c = p11_object_copy(o);
	if (!c)
		return p11_done(CKR_HOST_MEMORY);
	rv = apply(c, o, pTemplate, ulCount, true);
	if (rv == CKR_OK && p11_attr_bool(c, CKA_TOKEN, false)) {
		if (!(s->flags & CKF_RW_SESSION))
			rv = CKR_SESSION_READ_ONLY;
		/* a token secret key that could be read would need its value in the store */
		else if (p11_attr_ulong(c, CKA_CLASS, 0) == CKO_SECRET_KEY &&
			 p11_secret_readable(c))
			rv = CKR_TEMPLATE_INCONSISTENT;
	}
	if (rv == CKR_OK)
		forget_value(c);
	if (rv == CKR_OK && p11_attr_bool(c, CKA_PRIVATE, true) && tok->user != CKU_USER)
		rv = CKR_USER_NOT_LOGGED_IN;
	if (rv == CKR_OK)
		rv = p11_attr_set_unique_id(c);
	if (rv == CKR_OK)
		rv = p11_object_keep(s, c);
	if (rv != CKR_OK) {
		p11_object_drop(c);
		return p11_done(rv);
	}
	*phNewObject = c->handle;
	return p11_done(CKR_OK);
}
