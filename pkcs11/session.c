/* Sessions: C_OpenSession, C_CloseSession, C_CloseAllSessions, C_GetSessionInfo, and the two
 * legacy parallel-function calls. */
#include <stdlib.h>
#include <string.h>

#include "p11.h"

static struct p11_session **slot_of(CK_SESSION_HANDLE h)
{
	size_t i;

	if (h == CK_INVALID_HANDLE)
		return NULL;
	for (i = 0; i < P11_MAX_SESSIONS; i++)
		if (p11.sessions[i] && p11.sessions[i]->handle == h)
			return &p11.sessions[i];
	return NULL;
}

CK_RV p11_session_get(CK_SESSION_HANDLE h, struct p11_session **s, struct p11_token **tok)
{
	struct p11_session **p = slot_of(h);

	if (!p)
		return CKR_SESSION_HANDLE_INVALID;
	*s = *p;
	*tok = p11_token_find((*p)->slot);
	/* the token was re-initialized by another process */
	return *tok ? CKR_OK : CKR_DEVICE_REMOVED;
}

CK_RV p11_session_back(CK_SESSION_HANDLE h, struct p11_session **s, struct p11_token **tok)
{
	CK_RV rv = p11_session_get(h, s, tok);

	return rv == CKR_SESSION_HANDLE_INVALID ? CKR_SESSION_CLOSED : rv;
}

size_t p11_session_count(CK_SLOT_ID slot, CK_FLAGS with)
{
	size_t i, n = 0;

	for (i = 0; i < P11_MAX_SESSIONS; i++)
		if (p11.sessions[i] && p11.sessions[i]->slot == slot &&
		    (p11.sessions[i]->flags & with) == with)
			n++;
	return n;
}

static void close_one(struct p11_session **p)
{
	CK_SLOT_ID slot = (*p)->slot;
	struct p11_token *tok;

	p11_objects_drop_session((*p)->handle);
	p11_op_end(&(*p)->sign);
	p11_op_end(&(*p)->verify);
	p11_op_end(&(*p)->digest);
	p11_op_end(&(*p)->encrypt);
	p11_op_end(&(*p)->decrypt);
	free((*p)->found);
	free(*p);
	*p = NULL;
	/* the last session of a token logs it out */
	tok = p11_token_find(slot);
	if (tok && p11_session_count(slot, 0) == 0)
		p11_logout(tok);
}

void p11_session_close_all(CK_SLOT_ID slot)
{
	size_t i;

	for (i = 0; i < P11_MAX_SESSIONS; i++)
		if (p11.sessions[i] && p11.sessions[i]->slot == slot)
			close_one(&p11.sessions[i]);
}

CK_RV C_OpenSession(CK_SLOT_ID slotID, CK_FLAGS flags, CK_VOID_PTR pApplication, CK_NOTIFY Notify,
		    CK_SESSION_HANDLE_PTR phSession)
{
	struct p11_token *tok;
	size_t i;
	CK_RV rv = p11_enter();

	if (rv != CKR_OK)
		return rv;
	if (!phSession)
		return p11_done(CKR_ARGUMENTS_BAD);
	if (!(flags & CKF_SERIAL_SESSION))
		return p11_done(CKR_SESSION_PARALLEL_NOT_SUPPORTED);
	tok = p11_token_find(slotID);
	if (!tok)
		return p11_done(p11.empty_slot && slotID == p11.empty_slot
					? CKR_TOKEN_NOT_RECOGNIZED
					: CKR_SLOT_ID_INVALID);
	if (!(flags & CKF_RW_SESSION) && tok->user == CKU_SO)
		return p11_done(CKR_SESSION_READ_WRITE_SO_EXISTS);
	for (i = 0; i < P11_MAX_SESSIONS && p11.sessions[i]; i++)
		;
	if (i == P11_MAX_SESSIONS)
		return p11_done(CKR_SESSION_COUNT);
	p11.sessions[i] = calloc(1, sizeof(*p11.sessions[i]));
	if (!p11.sessions[i])
		return p11_done(CKR_HOST_MEMORY);
	p11.sessions[i]->handle = p11.next_handle++;
	p11.sessions[i]->slot = slotID;
	p11.sessions[i]->flags = flags & (CKF_SERIAL_SESSION | CKF_RW_SESSION);
	*phSession = p11.sessions[i]->handle;
	return p11_done(CKR_OK);
}

CK_RV C_CloseSession(CK_SESSION_HANDLE hSession)
{
	struct p11_session **p;
	CK_RV rv = p11_enter();

	if (rv != CKR_OK)
		return rv;
	p = slot_of(hSession);
	if (!p)
		return p11_done(CKR_SESSION_HANDLE_INVALID);
	close_one(p);
	return p11_done(CKR_OK);
}

CK_RV C_CloseAllSessions(CK_SLOT_ID slotID)
{
	struct p11_token *tok;
	CK_RV rv = p11_enter();

	if (rv != CKR_OK)
		return rv;
	tok = p11_token_find(slotID);
	if (!tok)
		return p11_done(p11.empty_slot && slotID == p11.empty_slot ? CKR_OK
									   : CKR_SLOT_ID_INVALID);
	p11_session_close_all(slotID);
	return p11_done(CKR_OK);
}

CK_RV C_GetSessionInfo(CK_SESSION_HANDLE hSession, CK_SESSION_INFO_PTR pInfo)
{
	struct p11_session *s;
	struct p11_token *tok;
	bool rw;
	CK_RV rv = p11_enter();

	if (rv != CKR_OK)
		return rv;
	if (!pInfo)
		return p11_done(CKR_ARGUMENTS_BAD);
	rv = p11_session_get(hSession, &s, &tok);
	if (rv != CKR_OK)
		return p11_done(rv);
	rw = s->flags & CKF_RW_SESSION;
	memset(pInfo, 0, sizeof(*pInfo));
	pInfo->slotID = s->slot;
	pInfo->flags = s->flags;
	if (tok->user == CKU_SO)
		pInfo->state = CKS_RW_SO_FUNCTIONS;
	else if (tok->user == CKU_USER)
		pInfo->state = rw ? CKS_RW_USER_FUNCTIONS : CKS_RO_USER_FUNCTIONS;
	else
		pInfo->state = rw ? CKS_RW_PUBLIC_SESSION : CKS_RO_PUBLIC_SESSION;
	return p11_done(CKR_OK);
}

CK_RV C_GetFunctionStatus(CK_SESSION_HANDLE hSession)
{
	CK_RV rv = p11_enter();

	if (rv != CKR_OK)
		return rv;
	return p11_done(slot_of(hSession) ? CKR_FUNCTION_NOT_PARALLEL : CKR_SESSION_HANDLE_INVALID);
}

CK_RV C_CancelFunction(CK_SESSION_HANDLE hSession)
{
	return C_GetFunctionStatus(hSession);
}

CK_RV p11_enter_session(CK_SESSION_HANDLE h, struct p11_session **s, struct p11_token **tok)
{
	CK_RV rv = p11_enter();

	if (rv != CKR_OK)
		return rv;
	rv = p11_session_get(h, s, tok);
	if (rv != CKR_OK)
		p11_leave();
	return rv;
}
