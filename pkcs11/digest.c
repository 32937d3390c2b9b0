/* C_DigestInit, C_Digest, C_DigestUpdate, C_DigestFinal: SHA-1/256/384/512 by the TPM, in any
 * session, logged in or not. */
#include <string.h>

#include "mech.h"

CK_RV C_DigestInit(CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism)
{
	struct p11_session *s;
	struct p11_token *tok;
	TPM_ALG_ID hash;
	CK_RV rv = p11_enter_session(hSession, &s, &tok);

	if (rv != CKR_OK)
		return rv;
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

static CK_RV digest_final(struct p11_call *c, CK_BYTE_PTR out, CK_ULONG_PTR out_len)
{
	size_t size = p11_hash_size(c->op->hash);
	struct digest_step st = { .len = 0 };
	CK_RV rv;

	if (!p11_out_fits(out, out_len, size, &rv))
		return rv;
	rv = p11_op_step(c, &st.op, NULL, digest_step, &st);
	if (rv == CKR_SESSION_CLOSED)
		return rv;
	if (rv == CKR_OK && st.len != size)
		rv = CKR_DEVICE_ERROR;
	if (rv == CKR_OK) {
		memcpy(out, st.d, size);
		*out_len = size;
	}
	p11_op_end(c->op);
	return rv;
}

CK_RV C_Digest(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pData, CK_ULONG ulDataLen,
	       CK_BYTE_PTR pDigest, CK_ULONG_PTR pulDigestLen)
{
	struct p11_call c = { .h = hSession, .kind = P11_OP_DIGEST };
	CK_RV rv = p11_enter_once(&c, pulDigestLen && (pData || !ulDataLen), pData, ulDataLen);

	return rv != CKR_OK ? rv : p11_done(digest_final(&c, pDigest, pulDigestLen));
}

CK_RV C_DigestUpdate(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pPart, CK_ULONG ulPartLen)
{
	return p11_op_update(hSession, P11_OP_DIGEST, pPart, ulPartLen);
}

CK_RV C_DigestFinal(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pDigest, CK_ULONG_PTR pulDigestLen)
{
	struct p11_call c = { .h = hSession, .kind = P11_OP_DIGEST };
	CK_RV rv = p11_enter_op_args(&c, pulDigestLen != NULL);

	return rv != CKR_OK ? rv : p11_done(digest_final(&c, pDigest, pulDigestLen));
}
