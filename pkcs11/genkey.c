/* C_GenerateKey: AES-128/192/256 (CKM_AES_KEY_GEN) and generic secrets for HMAC
 * (CKM_GENERIC_SECRET_KEY_GEN), keys in the TPM (secret.c). An AES key the application may
 * never read is made by the TPM itself (sensitiveDataOrigin): its value never leaves it. Any
 * other key is drawn from the TPM's random generator and given back to the TPM as the key's
 * value: a readable key's value must be known to be read, and a TPM makes a keyedHash key only
 * as long as its hash, where a generic secret is of any length up to P11_SECRET_MAX (its check
 * value, the SHA-1 of the value, is taken on the way). The template is checked whole before
 * the TPM is asked. */
#include "secret.h"

static CK_RV generate(CK_SESSION_HANDLE hs, struct p11_session *s, struct p11_token *tok,
		      const CK_MECHANISM *m, const CK_ATTRIBUTE *t, CK_ULONG n,
		      CK_OBJECT_HANDLE *h)
{
	struct p11_secret_req r = { .origin = P11_SECRET_GENERATED, .mech = m->mechanism };
	struct p11_object *o;
	CK_RV rv;

	if (m->mechanism == CKM_AES_KEY_GEN)
		r.type = CKK_AES;
	else if (m->mechanism == CKM_GENERIC_SECRET_KEY_GEN)
		r.type = CKK_GENERIC_SECRET;
	else
		return CKR_MECHANISM_INVALID;
	if (m->pParameter || m->ulParameterLen)
		return CKR_MECHANISM_PARAM_INVALID;
	o = p11_object_new(s->slot);
	if (!o)
		return CKR_HOST_MEMORY;
	rv = p11_secret_template(s, tok, t, n, o, &r);
	if (rv == CKR_OK && !r.len)
		rv = CKR_TEMPLATE_INCOMPLETE;
	if (rv == CKR_OK && !p11_secret_len_ok(r.type, r.len))
		rv = CKR_ATTRIBUTE_VALUE_INVALID;
	if (rv != CKR_OK) {
		p11_object_free(o);
		return rv;
	}
	return p11_secret_finish(hs, o, &r, NULL, r.len, h);
}

CK_RV C_GenerateKey(CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism,
		    CK_ATTRIBUTE_PTR pTemplate, CK_ULONG ulCount, CK_OBJECT_HANDLE_PTR phKey)
{
	struct p11_session *s;
	struct p11_token *tok;
	CK_RV rv = p11_enter_session(hSession, &s, &tok);

	if (rv != CKR_OK)
		return rv;
	if (!pMechanism || !phKey || (!pTemplate && ulCount))
		return p11_done(CKR_ARGUMENTS_BAD);
	return p11_done(generate(hSession, s, tok, pMechanism, pTemplate, ulCount, phKey));
}
