/* ML-KEM (FIPS 203) through PKCS#11 3.2: C_EncapsulateKey with a public key (TPM2_Encapsulate
 * on the public key loaded alone), C_DecapsulateKey with a private key of the token
 * (TPM2_Decapsulate). Key pairs are keygen.c's, public keys made elsewhere (the encapsulation
 * key as CKA_VALUE) keyimport.c's. The shared secret, ML-KEM's 32-byte K, becomes a secret key
 * in the TPM (secret.c: CKK_GENERIC_SECRET by default, or CKK_AES; its first CKA_VALUE_LEN
 * bytes when the template asks fewer), which the application reads only when its template
 * makes it readable. That key needs the token's wrapping secret, so C_EncapsulateKey needs a
 * login although its public-key step does not. */
#include <string.h>

#include "secret.h"

#define SS_LEN 32 /* ML-KEM's shared secret */

/* FIPS 203's ciphertext size of a parameter set (0: not one). */
static size_t ct_size(CK_ULONG set)
{
	return set == CKP_ML_KEM_512 ? 768 : set == CKP_ML_KEM_768 ? 1088
					 : set == CKP_ML_KEM_1024 ? 1568
								  : 0;
}

/* The ML-KEM key of handle h for C_EncapsulateKey (a public key, CKA_ENCAPSULATE) or
 * C_DecapsulateKey (a private key, CKA_DECAPSULATE), and its ciphertext's size. */
static CK_RV kem_key(struct p11_session *s, struct p11_token *tok, const CK_MECHANISM *m,
		     CK_OBJECT_HANDLE h, bool encaps, struct p11_object **k, size_t *ct_len)
{
	if (m->mechanism != CKM_ML_KEM)
		return CKR_MECHANISM_INVALID;
	if (m->pParameter || m->ulParameterLen)
		return CKR_MECHANISM_PARAM_INVALID;
	if (p11_object_get(s, tok, h, k) != CKR_OK)
		return CKR_KEY_HANDLE_INVALID;
	if (p11_attr_ulong(*k, CKA_CLASS, 0) != (encaps ? CKO_PUBLIC_KEY : CKO_PRIVATE_KEY) ||
	    p11_attr_ulong(*k, CKA_KEY_TYPE, CK_UNAVAILABLE_INFORMATION) != CKK_ML_KEM ||
	    !(*k)->tpm_pub || (!encaps && !(*k)->tpm_priv))
		return CKR_KEY_TYPE_INCONSISTENT;
	*ct_len = ct_size(p11_attr_ulong(*k, CKA_PARAMETER_SET, 0));
	if (!*ct_len)
		return CKR_KEY_TYPE_INCONSISTENT;
	if (!p11_attr_bool(*k, encaps ? CKA_ENCAPSULATE : CKA_DECAPSULATE, false))
		return CKR_KEY_FUNCTION_NOT_PERMITTED;
	return CKR_OK;
}

/* The shared secret's key: the template onto a new object, its length. */
static CK_RV secret_begin(struct p11_session *s, struct p11_token *tok, const CK_ATTRIBUTE *t,
			  CK_ULONG n, struct p11_object **o, struct p11_secret_req *r)
{
	CK_RV rv;

	r->origin = P11_SECRET_KEM;
	r->type = CKK_GENERIC_SECRET;
	*o = p11_object_new(s->slot);
	if (!*o)
		return CKR_HOST_MEMORY;
	rv = p11_secret_template(s, tok, t, n, *o, r);
	if (rv == CKR_OK && !r->len)
		r->len = SS_LEN;
	if (rv == CKR_OK && (r->len > SS_LEN || !p11_secret_len_ok(r->type, r->len)))
		rv = CKR_ATTRIBUTE_VALUE_INVALID;
	if (rv != CKR_OK) {
		p11_object_free(*o);
		*o = NULL;
	}
	return rv;
}

/* What the TPM step needs (p11_unlocked), taken while the module lock is held, and what it
 * gives. */
struct kem_step {
	struct p11_object *key;
	char secret[P11_SECRET_LEN + 1]; /* the private key's authValue */
	const uint8_t *ct;		 /* decapsulation: the caller's ciphertext */
	size_t ct_len;
	uint8_t ss[64], c[PQTPM_TSS_MAX_CIPHERTEXT];
	size_t ss_len, c_len;
};

static CK_RV encaps_step(struct p11_conn *c, void *arg)
{
	struct kem_step *st = arg;

	return p11_conn_encapsulate(c, st->key->tpm_pub, st->ss, &st->ss_len, st->c, &st->c_len);
}

static CK_RV decaps_step(struct p11_conn *c, void *arg)
{
	struct kem_step *st = arg;

	return p11_conn_decapsulate(c, st->secret, st->key, st->ct, st->ct_len, st->ss,
				    &st->ss_len);
}

/* The step outside the module lock; session hs found again after it (*s, *tok). */
static CK_RV run_step(CK_SESSION_HANDLE hs, struct p11_session **s, struct p11_token **tok,
		      bool encaps, struct kem_step *st)
{
	CK_RV rv = p11_unlocked(st->key, encaps ? encaps_step : decaps_step, st);

	explicit_bzero(st->secret, sizeof(st->secret));
	return rv == CKR_OK ? p11_session_back(hs, s, tok) : rv;
}

static CK_RV encapsulate(CK_SESSION_HANDLE hs, struct p11_session *s, struct p11_token *tok,
			 const CK_MECHANISM *m, CK_OBJECT_HANDLE pub, const CK_ATTRIBUTE *t,
			 CK_ULONG n, uint8_t *ct, CK_ULONG *ct_len, CK_OBJECT_HANDLE *h)
{
	struct kem_step st = { 0 };
	struct p11_secret_req r = { 0 };
	struct p11_object *k, *o;
	size_t size;
	CK_RV rv = kem_key(s, tok, m, pub, true, &k, &size);

	if (rv != CKR_OK)
		return rv;
	if (!p11_out_fits(ct, ct_len, size, &rv))
		return rv;
	rv = secret_begin(s, tok, t, n, &o, &r);
	if (rv != CKR_OK)
		return rv;
	st.key = k;
	rv = run_step(hs, &s, &tok, true, &st);
	if (rv == CKR_OK && (st.ss_len != SS_LEN || st.c_len != size))
		rv = CKR_DEVICE_ERROR;
	if (rv == CKR_OK)
		rv = p11_secret_finish(hs, o, &r, st.ss, r.len, h);
	else
		p11_object_free(o);
	if (rv == CKR_OK) {
		memcpy(ct, st.c, size);
		*ct_len = size;
	}
	explicit_bzero(st.ss, sizeof(st.ss));
	return rv;
}

static CK_RV decapsulate(CK_SESSION_HANDLE hs, struct p11_session *s, struct p11_token *tok,
			 const CK_MECHANISM *m, CK_OBJECT_HANDLE priv, const CK_ATTRIBUTE *t,
			 CK_ULONG n, const uint8_t *ct, CK_ULONG ct_len, CK_OBJECT_HANDLE *h)
{
	struct kem_step st = { .ct = ct, .ct_len = ct_len };
	struct p11_secret_req r = { 0 };
	struct p11_object *k, *o;
	size_t size;
	CK_RV rv = kem_key(s, tok, m, priv, false, &k, &size);

	if (rv != CKR_OK)
		return rv;
	if (ct_len != size)
		return CKR_WRAPPED_KEY_LEN_RANGE;
	rv = secret_begin(s, tok, t, n, &o, &r);
	if (rv != CKR_OK)
		return rv;
	st.key = k;
	memcpy(st.secret, tok->secret, sizeof(st.secret));
	rv = run_step(hs, &s, &tok, false, &st);
	if (rv == CKR_OK && st.ss_len != SS_LEN)
		rv = CKR_DEVICE_ERROR;
	if (rv == CKR_OK)
		rv = p11_secret_finish(hs, o, &r, st.ss, r.len, h);
	else
		p11_object_free(o);
	explicit_bzero(st.ss, sizeof(st.ss));
	return rv;
}

CK_RV C_EncapsulateKey(CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism,
		       CK_OBJECT_HANDLE hPublicKey, CK_ATTRIBUTE_PTR pTemplate,
		       CK_ULONG ulAttributeCount, CK_BYTE_PTR pCiphertext,
		       CK_ULONG_PTR pulCiphertextLen, CK_OBJECT_HANDLE_PTR phKey)
{
	struct p11_session *s;
	struct p11_token *tok;
	CK_RV rv = p11_enter_session(hSession, &s, &tok);

	if (rv != CKR_OK)
		return rv;
	if (!pMechanism || !pulCiphertextLen || !phKey || (!pTemplate && ulAttributeCount))
		return p11_done(CKR_ARGUMENTS_BAD);
	return p11_done(encapsulate(hSession, s, tok, pMechanism, hPublicKey, pTemplate,
				    ulAttributeCount, pCiphertext, pulCiphertextLen, phKey));
}

CK_RV C_DecapsulateKey(CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism,
		       CK_OBJECT_HANDLE hPrivateKey, CK_ATTRIBUTE_PTR pTemplate,
		       CK_ULONG ulAttributeCount, CK_BYTE_PTR pCiphertext, CK_ULONG ulCiphertextLen,
		       CK_OBJECT_HANDLE_PTR phKey)
{
	struct p11_session *s;
	struct p11_token *tok;
	CK_RV rv = p11_enter_session(hSession, &s, &tok);

	if (rv != CKR_OK)
		return rv;
	if (!pMechanism || !pCiphertext || !phKey || (!pTemplate && ulAttributeCount))
		return p11_done(CKR_ARGUMENTS_BAD);
	return p11_done(decapsulate(hSession, s, tok, pMechanism, hPrivateKey, pTemplate,
				    ulAttributeCount, pCiphertext, ulCiphertextLen, phKey));
}
