/* C_GenerateRandom from the TPM's GetRandom, outside the module lock. */
#include "p11.h"

struct random_step {
	uint8_t *out;
	size_t len;
};

static CK_RV random_step(struct p11_conn *c, void *arg)
{
	struct random_step *st = arg;

	return p11_conn_random(c, st->out, st->len);
}

CK_RV C_GenerateRandom(CK_SESSION_HANDLE hSession, CK_BYTE_PTR RandomData, CK_ULONG ulRandomLen)
{
	struct random_step st = { RandomData, ulRandomLen };
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
	return p11_done(p11_unlocked(NULL, random_step, &st));
}
