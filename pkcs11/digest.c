/* C_DigestInit, C_Digest, C_DigestUpdate, C_DigestFinal: SHA-1/256/384/512 by the TPM, in any
 * session, logged in or not. */
#include <string.h>

#include "mech.h"

CK_RV C_DigestInit(CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism)
{
	struct p11_session *s;
	struct p11_token *tok;
	TPM_ALG_ID hash;
	CK_RV rv = p11_enter();

	if (rv != CKR_OK)
		return rv;
	rv = p11_session_get(hSession, &s, &tok);
	if (rv != CKR_OK)
		return p11_done(rv);
	if (!pMechanism)
		return p11_done(CKR_ARGUMENTS_BAD);
	if (s->digest.active)
		return p11_done(CKR_OPERATION_ACTIVE);
	hash = p11_hash_of_mech(pMechanism->mechanism);
	if (!hash)
		return p11_done(CKR_MECHANISM_INVALID);
	if (pMechanism->pParameter || pMechanism->ulParameterLen)
		return p11_done(CKR_MECHANISM_PARAM_INVALID);
	memset(&s->digest, 0, sizeof(s->digest));
	s->digest.active = true;
	s->digest.mech = pMechanism->mechanism;
	s->digest.hash = hash;
	return p11_done(CKR_OK);
}

static CK_RV digest_op(CK_SESSION_HANDLE h, struct p11_session **s)
{
	struct p11_token *tok;
	CK_RV rv = p11_session_get(h, s, &tok);

	if (rv == CKR_OK && (*s)->digest.busy)
		rv = CKR_OPERATION_ACTIVE; /* another thread's call runs it */
	else if (rv == CKR_OK && !(*s)->digest.active)
		rv = CKR_OPERATION_NOT_INITIALIZED;
	return rv;
}

/* The TPM step (p11_unlocked): the lent operation's data hashed. */
struct digest_step {
	struct p11_op op;
	uint8_t d[64];
	size_t len;
};

static CK_RV digest_step(struct p11_conn *c, void *arg)
{
	struct digest_step *st = arg;

	return p11_conn_hash(c, st->op.hash, st->op.data, st->op.len, st->d, &st->len);
}

static CK_RV digest_final(CK_SESSION_HANDLE h, struct p11_session *s, CK_BYTE_PTR out,
			  CK_ULONG_PTR out_len)
{
	size_t size = p11_hash_size(s->digest.hash);
	struct digest_step st = { .len = 0 };
	struct p11_token *tok;
	CK_RV rv;

	if (!out) {
		*out_len = size;
		return CKR_OK;
	}
	if (*out_len < size) {
		*out_len = size;
		return CKR_BUFFER_TOO_SMALL;
	}
	p11_op_lend(&s->digest, &st.op);
	rv = p11_unlocked(NULL, digest_step, &st);
	p11_op_end(&st.op);
	if (p11_session_back(h, &s, &tok) == CKR_SESSION_CLOSED)
		return CKR_SESSION_CLOSED;
	if (rv == CKR_OK && st.len != size)
		rv = CKR_DEVICE_ERROR;
	if (rv == CKR_OK) {
		memcpy(out, st.d, size);
		*out_len = size;
	}
	p11_op_end(&s->digest);
	return rv;
}

CK_RV C_Digest(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pData, CK_ULONG ulDataLen,
	       CK_BYTE_PTR pDigest, CK_ULONG_PTR pulDigestLen)
{
	struct p11_session *s;
	CK_RV rv = p11_enter();

	if (rv != CKR_OK)
		return rv;
	rv = digest_op(hSession, &s);
	if (rv != CKR_OK)
		return p11_done(rv);
	if (!pulDigestLen || (!pData && ulDataLen)) {
		p11_op_end(&s->digest);
		return p11_done(CKR_ARGUMENTS_BAD);
	}
	if (s->digest.multi)
		return p11_done(CKR_OPERATION_ACTIVE);
	s->digest.len = 0;
	rv = p11_op_append(&s->digest, pData, ulDataLen);
	if (rv != CKR_OK) {
		p11_op_end(&s->digest);
		return p11_done(rv);
	}
	return p11_done(digest_final(hSession, s, pDigest, pulDigestLen));
}

CK_RV C_DigestUpdate(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pPart, CK_ULONG ulPartLen)
{
	struct p11_session *s;
	CK_RV rv = p11_enter();

	if (rv != CKR_OK)
		return rv;
	rv = digest_op(hSession, &s);
	if (rv != CKR_OK)
		return p11_done(rv);
	rv = p11_op_append(&s->digest, pPart, ulPartLen);
	if (rv != CKR_OK)
		p11_op_end(&s->digest);
	else
		s->digest.multi = true;
	return p11_done(rv);
}

CK_RV C_DigestFinal(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pDigest, CK_ULONG_PTR pulDigestLen)
{
	struct p11_session *s;
	CK_RV rv = p11_enter();

	if (rv != CKR_OK)
		return rv;
	rv = digest_op(hSession, &s);
	if (rv != CKR_OK)
		return p11_done(rv);
	if (!pulDigestLen) {
		p11_op_end(&s->digest);
		return p11_done(CKR_ARGUMENTS_BAD);
	}
	return p11_done(digest_final(hSession, s, pDigest, pulDigestLen));
}
