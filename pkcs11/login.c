/* C_Login (CKU_CONTEXT_SPECIFIC too), C_LoginUser, C_Logout, C_InitPIN, C_SetPIN. A PIN is the
 * authValue of a sealed object holding the token's wrapping secret (one per PIN): the TPM
 * checks it and counts wrong ones in its dictionary-attack protection; C_SetPIN changes that
 * object's authValue and nothing else. */
#include <stdlib.h>
#include <string.h>

#include "p11.h"

CK_RV p11_pin(const CK_UTF8CHAR *pin, CK_ULONG len, char out[P11_PIN_MAX + 1])
{
	if (len < P11_PIN_MIN || len > P11_PIN_MAX)
		return CKR_PIN_LEN_RANGE;
	/* an authValue goes to the TPM as a string here: no zero byte inside */
	if (memchr(pin, 0, len))
		return CKR_PIN_INVALID;
	memcpy(out, pin, len);
	out[len] = '\0';
	return CKR_OK;
}

void p11_logout(struct p11_token *tok)
{
	tok->user = P11_NOBODY;
	explicit_bzero(tok->secret, sizeof(tok->secret));
}

/* p11_enter_session for a function that needs a R/W session (CKR_SESSION_READ_ONLY); the lock
 * released again when it fails. */
static CK_RV enter_rw(CK_SESSION_HANDLE h, struct p11_session **s, struct p11_token **tok)
{
	CK_RV rv = p11_enter_session(h, s, tok);

	if (rv == CKR_OK && !((*s)->flags & CKF_RW_SESSION)) {
		p11_leave();
		rv = CKR_SESSION_READ_ONLY;
	}
	return rv;
}

/* The user's PIN again for an operation whose key has CKA_ALWAYS_AUTHENTICATE: checked by the
 * TPM (it unseals the token's secret, and a wrong PIN counts as any other). The unseal keeps
 * the module lock: the operation it clears must still be the one that asked for it. */
static CK_RV context_login(struct p11_session *s, struct p11_token *tok, const CK_UTF8CHAR *pPin,
			   CK_ULONG ulPinLen)
{
	char pin[P11_PIN_MAX + 1], secret[P11_SECRET_LEN + 1];
	struct p11_op *op;
	CK_RV rv;

	if (tok->user != CKU_USER)
		return CKR_USER_NOT_LOGGED_IN;
	op = s->sign.active && s->sign.reauth	    ? &s->sign
	     : s->decrypt.active && s->decrypt.reauth ? &s->decrypt
						      : NULL;
	if (!op)
		return CKR_OPERATION_NOT_INITIALIZED;
	if (!pPin)
		return CKR_ARGUMENTS_BAD;
	rv = p11_pin(pPin, ulPinLen, pin);
	if (rv == CKR_PIN_LEN_RANGE || rv == CKR_PIN_INVALID)
		rv = CKR_PIN_INCORRECT;
	if (rv == CKR_OK)
		rv = p11_tpm_unseal(pin, &tok->row.user_pub, &tok->row.user_priv, secret);
	if (rv == CKR_OK)
		op->reauth = false;
	explicit_bzero(pin, sizeof(pin));
	explicit_bzero(secret, sizeof(secret));
	return rv;
}

/* The TPM step of C_Login (p11_unlocked): the wrapping secret unsealed with the PIN, from copies
 * of the sealed object's blobs (C_SetPIN may change them meanwhile). */
struct login_step {
	char pin[P11_PIN_MAX + 1];
	struct p11_blob pub, priv;
	char secret[P11_SECRET_LEN + 1];
};

static CK_RV login_step(struct p11_conn *c, void *arg)
{
	struct login_step *st = arg;

	return p11_conn_unseal(c, st->pin, &st->pub, &st->priv, st->secret);
}

/* After the step: the login, unless another thread's C_Login or C_Logout came first (then
 * the answer is what it would have been had they run one after the other). */
static CK_RV logged_in(CK_SESSION_HANDLE h, CK_USER_TYPE user, const char *secret)
{
	struct p11_session *s;
	struct p11_token *tok;
	CK_RV rv = p11_session_back(h, &s, &tok);

	if (rv != CKR_OK)
		return rv;
	if (tok->user == user)
		return CKR_USER_ALREADY_LOGGED_IN;
	if (tok->user != P11_NOBODY)
		return CKR_USER_ANOTHER_ALREADY_LOGGED_IN;
	memcpy(tok->secret, secret, sizeof(tok->secret));
	tok->user = user;
	return CKR_OK;
}

/* C_Login's work, with the module lock held. */
static CK_RV login(CK_SESSION_HANDLE hSession, CK_USER_TYPE userType, const CK_UTF8CHAR *pPin,
		   CK_ULONG ulPinLen)
{
	struct login_step *st;
	struct p11_session *s;
	struct p11_token *tok;
	CK_RV rv = p11_session_get(hSession, &s, &tok);

	if (rv != CKR_OK)
		return rv;
	if (userType == CKU_CONTEXT_SPECIFIC)
		return context_login(s, tok, pPin, ulPinLen);
	if (userType != CKU_SO && userType != CKU_USER)
		return CKR_USER_TYPE_INVALID;
	if (tok->user == userType)
		return CKR_USER_ALREADY_LOGGED_IN;
	if (tok->user != P11_NOBODY)
		return CKR_USER_ANOTHER_ALREADY_LOGGED_IN;
	if (userType == CKU_SO &&
	    p11_session_count(tok->id, 0) != p11_session_count(tok->id, CKF_RW_SESSION))
		return CKR_SESSION_READ_ONLY_EXISTS;
	if (!pPin)
		return CKR_ARGUMENTS_BAD;
	if (userType == CKU_USER && !tok->row.user_pub.len)
		return CKR_USER_PIN_NOT_INITIALIZED;
	st = malloc(sizeof(*st));
	if (!st)
		return CKR_HOST_MEMORY;
	rv = p11_pin(pPin, ulPinLen, st->pin);
	if (rv == CKR_PIN_LEN_RANGE || rv == CKR_PIN_INVALID)
		rv = CKR_PIN_INCORRECT; /* no PIN of this token has that form */
	st->pub = userType == CKU_SO ? tok->row.so_pub : tok->row.user_pub;
	st->priv = userType == CKU_SO ? tok->row.so_priv : tok->row.user_priv;
	if (rv == CKR_OK)
		rv = p11_unlocked(NULL, login_step, st);
	if (rv == CKR_OK)
		rv = logged_in(hSession, userType, st->secret);
	explicit_bzero(st, sizeof(*st));
	free(st);
	return rv;
}

CK_RV C_Login(CK_SESSION_HANDLE hSession, CK_USER_TYPE userType, CK_UTF8CHAR_PTR pPin,
	      CK_ULONG ulPinLen)
{
	CK_RV rv = p11_enter();

	if (rv != CKR_OK)
		return rv;
	return p11_done(login(hSession, userType, pPin, ulPinLen));
}

/* PKCS#11 3.0: a token without user names (one SO, one user) takes an empty name only (NULL
 * or of length 0) and then behaves as C_Login; a name it cannot check is CKR_ARGUMENTS_BAD. */
CK_RV C_LoginUser(CK_SESSION_HANDLE hSession, CK_USER_TYPE userType, CK_UTF8CHAR_PTR pPin,
		  CK_ULONG ulPinLen, CK_UTF8CHAR_PTR pUsername, CK_ULONG ulUsernameLen)
{
	struct p11_session *s;
	struct p11_token *tok;
	CK_RV rv = p11_enter_session(hSession, &s, &tok);

	if (rv != CKR_OK)
		return rv;
	return p11_done(ulUsernameLen ? CKR_ARGUMENTS_BAD
				      : login(hSession, userType, pPin, ulPinLen));
}

CK_RV C_Logout(CK_SESSION_HANDLE hSession)
{
	struct p11_session *s;
	struct p11_token *tok;
	CK_RV rv = p11_enter_session(hSession, &s, &tok);

	if (rv != CKR_OK)
		return rv;
	if (tok->user == P11_NOBODY)
		return p11_done(CKR_USER_NOT_LOGGED_IN);
	p11_logout(tok);
	return p11_done(CKR_OK);
}

CK_RV C_InitPIN(CK_SESSION_HANDLE hSession, CK_UTF8CHAR_PTR pPin, CK_ULONG ulPinLen)
{
	char pin[P11_PIN_MAX + 1];
	struct p11_blob pub, priv;
	struct p11_session *s;
	struct p11_token *tok;
	CK_RV rv = enter_rw(hSession, &s, &tok);

	if (rv != CKR_OK)
		return rv;
	if (tok->user != CKU_SO)
		return p11_done(CKR_USER_NOT_LOGGED_IN);
	if (!pPin)
		return p11_done(CKR_ARGUMENTS_BAD);
	rv = p11_pin(pPin, ulPinLen, pin);
	if (rv == CKR_OK)
		rv = p11_tpm_seal(pin, tok->secret, &pub, &priv);
	explicit_bzero(pin, sizeof(pin));
	if (rv == CKR_OK)
		rv = p11_store_token_set_user(p11.store, tok->id, &pub, &priv);
	if (rv == CKR_OK) {
		tok->row.user_pub = pub;
		tok->row.user_priv = priv;
	}
	return p11_done(rv);
}

CK_RV C_SetPIN(CK_SESSION_HANDLE hSession, CK_UTF8CHAR_PTR pOldPin, CK_ULONG ulOldLen,
	       CK_UTF8CHAR_PTR pNewPin, CK_ULONG ulNewLen)
{
	char old_pin[P11_PIN_MAX + 1], new_pin[P11_PIN_MAX + 1];
	struct p11_blob *pub, *priv, npriv;
	struct p11_session *s;
	struct p11_token *tok;
	bool so;
	CK_RV rv = enter_rw(hSession, &s, &tok);

	if (rv != CKR_OK)
		return rv;
	if (!pOldPin || !pNewPin)
		return p11_done(CKR_ARGUMENTS_BAD);
	/* the SO's PIN when the SO is logged in, else the user's */
	so = tok->user == CKU_SO;
	pub = so ? &tok->row.so_pub : &tok->row.user_pub;
	priv = so ? &tok->row.so_priv : &tok->row.user_priv;
	if (!pub->len)
		return p11_done(CKR_USER_PIN_NOT_INITIALIZED);
	rv = p11_pin(pNewPin, ulNewLen, new_pin);
	if (rv == CKR_OK) {
		rv = p11_pin(pOldPin, ulOldLen, old_pin);
		if (rv == CKR_PIN_LEN_RANGE || rv == CKR_PIN_INVALID)
			rv = CKR_PIN_INCORRECT;
	}
	npriv = *priv;
	if (rv == CKR_OK)
		rv = p11_tpm_rewrap_pin(old_pin, new_pin, pub, &npriv);
	explicit_bzero(old_pin, sizeof(old_pin));
	explicit_bzero(new_pin, sizeof(new_pin));
	if (rv == CKR_OK)
		rv = so ? p11_store_token_set_so(p11.store, tok->id, &npriv)
			: p11_store_token_set_user(p11.store, tok->id, pub, &npriv);
	if (rv == CKR_OK)
		*priv = npriv;
	return p11_done(rv);
}
