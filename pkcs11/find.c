/* C_FindObjectsInit, C_FindObjects, C_FindObjectsFinal: the matching handles are taken at
 * C_FindObjectsInit, after reading the token's objects again from the store. */
#include <stdlib.h>

#include "p11.h"

CK_RV C_FindObjectsInit(CK_SESSION_HANDLE hSession, CK_ATTRIBUTE_PTR pTemplate, CK_ULONG ulCount)
{
	struct p11_session *s;
	struct p11_token *tok;
	size_t i;
	CK_RV rv = p11_enter_session(hSession, &s, &tok);

	if (rv != CKR_OK)
		return rv;
	if (!pTemplate && ulCount)
		return p11_done(CKR_ARGUMENTS_BAD);
	if (s->finding)
		return p11_done(CKR_OPERATION_ACTIVE);
	rv = p11_objects_sync(tok);
	if (rv != CKR_OK)
		return p11_done(rv);
	s->found = calloc(P11_MAX_OBJECTS, sizeof(*s->found));
	if (!s->found)
		return p11_done(CKR_HOST_MEMORY);
	s->nfound = s->found_pos = 0;
	for (i = 0; i < P11_MAX_OBJECTS; i++) {
		struct p11_object *o = p11_objects[i];

		if (o && p11_object_visible(s, tok, o) && p11_attr_match(o, pTemplate, ulCount))
			s->found[s->nfound++] = o->handle;
	}
	s->finding = true;
	return p11_done(CKR_OK);
}

CK_RV C_FindObjects(CK_SESSION_HANDLE hSession, CK_OBJECT_HANDLE_PTR phObject,
		    CK_ULONG ulMaxObjectCount, CK_ULONG_PTR pulObjectCount)
{
	struct p11_session *s;
	struct p11_token *tok;
	CK_ULONG n = 0;
	CK_RV rv = p11_enter_session(hSession, &s, &tok);

	if (rv != CKR_OK)
		return rv;
	if (!phObject || !pulObjectCount)
		return p11_done(CKR_ARGUMENTS_BAD);
	if (!s->finding)
		return p11_done(CKR_OPERATION_NOT_INITIALIZED);
	while (n < ulMaxObjectCount && s->found_pos < s->nfound)
		phObject[n++] = s->found[s->found_pos++];
	*pulObjectCount = n;
	return p11_done(CKR_OK);
}

CK_RV C_FindObjectsFinal(CK_SESSION_HANDLE hSession)
{
	struct p11_session *s;
	struct p11_token *tok;
	CK_RV rv = p11_enter_session(hSession, &s, &tok);

	if (rv != CKR_OK)
		return rv;
	if (!s->finding)
		return p11_done(CKR_OPERATION_NOT_INITIALIZED);
	free(s->found);
	s->found = NULL;
	s->finding = false;
	return p11_done(CKR_OK);
}
