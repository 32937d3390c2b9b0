/* C_GenerateRandom from the TPM's GetRandom. */
#include "p11.h"

CK_RV C_GenerateRandom(CK_SESSION_HANDLE hSession, CK_BYTE_PTR RandomData, CK_ULONG ulRandomLen)
{
	struct p11_session *s;
	struct p11_token *tok;
	CK_RV rv = p11_enter();

	if (rv != CKR_OK)
		return rv;
	rv = p11_session_get(hSession, &s, &tok);
	if (rv != CKR_OK)
		return p11_done(rv);
	if (!RandomData && ulRandomLen)
		return p11_done(CKR_ARGUMENTS_BAD);
	return p11_done(p11_tpm_random(RandomData, ulRandomLen));
}
