/* C_EncryptInit, C_Encrypt, C_DecryptInit, C_Decrypt: RSA PKCS#1 v1.5 (RSAES) and OAEP,
 * single-part, both in the TPM: decryption with the private key (TPM2_RSA_Decrypt), encryption
 * with the public key loaded alone (TPM2_LoadExternal, TPM2_RSA_Encrypt). The TPM's OAEP is
 * MGF1 with the OAEP hash, and its label is empty or ends in a zero octet (TPM 2.0 Part 3,
 * RSA_Encrypt), so other parameters are CKR_MECHANISM_PARAM_INVALID. AES operations go to
 * aes.c. */
#include <string.h>

#include "secret.h"

static CK_RV oaep_params(const CK_MECHANISM *m, struct p11_op *op)
{
	static const struct {
		CK_MECHANISM_TYPE hash;
		CK_RSA_PKCS_MGF_TYPE mgf;
	} ok[] = { { CKM_SHA_1, CKG_MGF1_SHA1 },
		   { CKM_SHA256, CKG_MGF1_SHA256 },
		   { CKM_SHA384, CKG_MGF1_SHA384 },
		   { CKM_SHA512, CKG_MGF1_SHA512 } };
	const CK_RSA_PKCS_OAEP_PARAMS *p = m->pParameter;
	size_t i;

	if (!p || m->ulParameterLen != sizeof(*p))
		return CKR_MECHANISM_PARAM_INVALID;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (ok[i].hash == p->hashAlg && ok[i].mgf == p->mgf)
			break;
	if (i == sizeof(ok) / sizeof(ok[0]))
		return CKR_MECHANISM_PARAM_INVALID;
	op->hash = p11_hash_of_mech(p->hashAlg);
	if (p->source != CKZ_DATA_SPECIFIED && (p->source || p->ulSourceDataLen))
		return CKR_MECHANISM_PARAM_INVALID;
	if (p->ulSourceDataLen) {
		const uint8_t *l = p->pSourceData;

		if (!l || p->ulSourceDataLen > sizeof(op->ctx) || l[p->ulSourceDataLen - 1])
			return CKR_MECHANISM_PARAM_INVALID;
		memcpy(op->ctx, l, p->ulSourceDataLen);
	}
	op->ctx_len = p->ulSourceDataLen;
	return CKR_OK;
}

static CK_RV crypt_init(CK_SESSION_HANDLE h, bool enc, CK_MECHANISM_PTR m, CK_OBJECT_HANDLE key)
{
	const struct p11_mech *d;
	struct p11_session *s;
	struct p11_token *tok;
	struct p11_object *k;
	struct p11_op *op;
	CK_RV rv = p11_session_get(h, &s, &tok);

	if (rv != CKR_OK)
		return rv;
	op = enc ? &s->encrypt : &s->decrypt;
	if (op->active)
		return CKR_OPERATION_ACTIVE;
	if (!m)
		return CKR_ARGUMENTS_BAD;
	d = p11_mech_find(m->mechanism);
	if (!d || !(d->flags & (enc ? CKF_ENCRYPT : CKF_DECRYPT)))
		return CKR_MECHANISM_INVALID;
	if (p11_object_get(s, tok, key, &k) != CKR_OK)
		return CKR_KEY_HANDLE_INVALID;
	if (d->kind == P11_AES)
		return p11_aes_init(tok, op, enc, m, k, key);
	if (p11_attr_ulong(k, CKA_CLASS, 0) != (enc ? CKO_PUBLIC_KEY : CKO_PRIVATE_KEY) ||
	    p11_attr_ulong(k, CKA_KEY_TYPE, CK_UNAVAILABLE_INFORMATION) != d->key_type ||
	    !k->tpm_pub)
		return CKR_KEY_TYPE_INCONSISTENT;
	if (!p11_attr_bool(k, enc ? CKA_ENCRYPT : CKA_DECRYPT, false))
		return CKR_KEY_FUNCTION_NOT_PERMITTED;
	if (!enc && tok->user != CKU_USER)
		return CKR_USER_NOT_LOGGED_IN;
	memset(op, 0, sizeof(*op));
	op->reauth = !enc && p11_attr_bool(k, CKA_ALWAYS_AUTHENTICATE, false);
	if (d->kind == P11_RSA_OAEP)
		rv = oaep_params(m, op);
	else if (m->pParameter || m->ulParameterLen)
		rv = CKR_MECHANISM_PARAM_INVALID;
	if (rv != CKR_OK)
		return rv;
	op->active = true;
	op->mech = d->type;
	op->key = key;
	return CKR_OK;
}

static size_t modulus_size(const struct p11_object *k)
{
	const struct p11_attr *a = p11_attr_find(k, CKA_MODULUS);

	return a ? a->len : 0;
}

/* TPM_RC_VALUE or _SIZE (any parameter): the data does not fit the key and the scheme. */
static bool rc_value(TPM_RC rc)
{
	return (rc & 0xBFu) == (TPM_RC_VALUE & 0xBFu) || (rc & 0xBFu) == (TPM_RC_SIZE & 0xBFu);
}

/* What an encryption's or a decryption's TPM step needs (p11_unlocked), taken while the module
 * lock is held. */
struct crypt_step {
	struct p11_op op; /* the session's operation, lent */
	struct p11_object *key;
	char secret[P11_SECRET_LEN + 1]; /* the key's authValue (decryption) */
	const uint8_t *in;
	size_t len;
	uint8_t *out;
	size_t cap, n;
};

static CK_RV encrypt_step(struct p11_conn *c, void *arg)
{
	struct crypt_step *st = arg;
	TPM_ALG_ID scheme = st->op.mech == CKM_RSA_PKCS_OAEP ? TPM_ALG_OAEP : TPM_ALG_RSAES;
	TPM_HANDLE h;
	TPM_RC rc;
	CK_RV rv = p11_conn_load_public(c, st->key->tpm_pub, &h);

	if (rv != CKR_OK)
		return rv;
	rc = pqtpm_tss_rsa_encrypt(c->t, h, st->in, st->len, scheme, st->op.hash, st->op.ctx,
				   st->op.ctx_len, st->out, st->cap, &st->n);
	pqtpm_tss_flush(c->t, h);
	if (rc_value(rc) || rc == PQTPM_TSS_RC_BAD_VALUE)
		return CKR_DATA_LEN_RANGE;
	rv = p11_conn_rv(c, rc, "RSA_Encrypt");
	if (rv == CKR_OK && st->n != st->cap) /* the TPM's ciphertext is as long as the modulus */
		rv = CKR_DEVICE_ERROR;
	return rv;
}

static CK_RV decrypt_step(struct p11_conn *c, void *arg)
{
	struct crypt_step *st = arg;
	TPM_ALG_ID scheme = st->op.mech == CKM_RSA_PKCS_OAEP ? TPM_ALG_OAEP : TPM_ALG_RSAES;
	TPM_HANDLE h;
	TPM_RC rc;
	CK_RV rv = p11_conn_load(c, st->key, &h);

	if (rv != CKR_OK)
		return rv;
	rc = pqtpm_tss_rsa_decrypt(c->t, h, st->secret, st->in, st->len, scheme, st->op.hash,
				   st->op.ctx, st->op.ctx_len, st->out, st->cap, &st->n);
	/* a padding that does not check out */
	if (rc_value(rc))
		return CKR_ENCRYPTED_DATA_INVALID;
	rv = p11_conn_rv(c, rc, "RSA_Decrypt");
	/* a PIN error here would mean a wrong wrapping secret: the key, not the user's PIN */
	return rv == CKR_PIN_INCORRECT ? CKR_DEVICE_ERROR : rv;
}

/* The TPM step of session *s's operation outside the module lock, *s found again after it and
 * the operation given back to it (CKR_SESSION_CLOSED if it was closed meanwhile: then the
 * operation is gone too, and *s with it). */
static CK_RV run_step(CK_SESSION_HANDLE h, struct p11_session **s, bool enc,
		      struct crypt_step *st)
{
	struct p11_token *tok;
	CK_RV rv, back;

	p11_op_lend(enc ? &(*s)->encrypt : &(*s)->decrypt, &st->op);
	rv = p11_unlocked(st->key, enc ? encrypt_step : decrypt_step, st);
	explicit_bzero(st->secret, sizeof(st->secret));
	back = p11_session_back(h, s, &tok);
	if (back != CKR_SESSION_CLOSED)
		p11_op_back(enc ? &(*s)->encrypt : &(*s)->decrypt, &st->op);
	p11_op_end(&st->op);
	return back != CKR_OK ? back : rv;
}

CK_RV C_EncryptInit(CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism, CK_OBJECT_HANDLE hKey)
{
	CK_RV rv = p11_enter();

	if (rv != CKR_OK)
		return rv;
	return p11_done(crypt_init(hSession, true, pMechanism, hKey));
}

CK_RV C_DecryptInit(CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism, CK_OBJECT_HANDLE hKey)
{
	CK_RV rv = p11_enter();

	if (rv != CKR_OK)
		return rv;
	return p11_done(crypt_init(hSession, false, pMechanism, hKey));
}

/* The session's operation and its key; the operation ends when the key has gone. */
static CK_RV crypt_op(CK_SESSION_HANDLE h, bool enc, struct p11_session **s,
		      struct p11_token **tok, struct p11_object **k)
{
	struct p11_op *op;
	CK_RV rv = p11_session_get(h, s, tok);

	if (rv != CKR_OK)
		return rv;
	op = enc ? &(*s)->encrypt : &(*s)->decrypt;
	if (op->busy)
		return CKR_OPERATION_ACTIVE; /* another thread's call runs it */
	if (!op->active)
		return CKR_OPERATION_NOT_INITIALIZED;
	/* a key that wants its PIN for each operation did not get it (PKCS#11 §5.1) */
	if (op->reauth) {
		p11_op_end(op);
		return CKR_USER_NOT_LOGGED_IN;
	}
	if (p11_object_get(*s, *tok, op->key, k) != CKR_OK) {
		p11_op_end(op);
		return CKR_KEY_HANDLE_INVALID;
	}
	return CKR_OK;
}

CK_RV C_Encrypt(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pData, CK_ULONG ulDataLen,
		CK_BYTE_PTR pEncryptedData, CK_ULONG_PTR pulEncryptedDataLen)
{
	struct crypt_step st;
	struct p11_session *s;
	struct p11_token *tok;
	struct p11_object *k;
	size_t size;
	CK_RV rv = p11_enter();

	if (rv != CKR_OK)
		return rv;
	rv = crypt_op(hSession, true, &s, &tok, &k);
	if (rv != CKR_OK)
		return p11_done(rv);
	if (p11_aes_op(&s->encrypt))
		return p11_done(p11_aes_once(tok, &s->encrypt, k, false, pData, ulDataLen,
					     pEncryptedData, pulEncryptedDataLen));
	if (!pulEncryptedDataLen || (!pData && ulDataLen)) {
		p11_op_end(&s->encrypt);
		return p11_done(CKR_ARGUMENTS_BAD);
	}
	size = modulus_size(k);
	if (!pEncryptedData || *pulEncryptedDataLen < size) {
		*pulEncryptedDataLen = size;
		return p11_done(pEncryptedData ? CKR_BUFFER_TOO_SMALL : CKR_OK);
	}
	st = (struct crypt_step){ .key = k, .in = pData, .len = ulDataLen, .out = pEncryptedData,
				  .cap = size };
	rv = run_step(hSession, &s, true, &st);
	if (rv == CKR_SESSION_CLOSED)
		return p11_done(rv);
	if (rv == CKR_OK)
		*pulEncryptedDataLen = size;
	p11_op_end(&s->encrypt);
	return p11_done(rv);
}

/* The length query answers the modulus size (the most a plaintext can be); a buffer too small
 * for the actual plaintext is told its length and the operation goes on, as the spec says. */
CK_RV C_Decrypt(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pEncryptedData,
		CK_ULONG ulEncryptedDataLen, CK_BYTE_PTR pData, CK_ULONG_PTR pulDataLen)
{
	uint8_t plain[PQTPM_TSS_MAX_RSA];
	struct crypt_step st;
	struct p11_session *s;
	struct p11_token *tok;
	struct p11_object *k;
	size_t size, n = 0;
	CK_RV rv = p11_enter();

	if (rv != CKR_OK)
		return rv;
	rv = crypt_op(hSession, false, &s, &tok, &k);
	if (rv != CKR_OK)
		return p11_done(rv);
	if (p11_aes_op(&s->decrypt))
		return p11_done(p11_aes_once(tok, &s->decrypt, k, true, pEncryptedData,
					     ulEncryptedDataLen, pData, pulDataLen));
	if (!pulDataLen || !pEncryptedData) {
		p11_op_end(&s->decrypt);
		return p11_done(CKR_ARGUMENTS_BAD);
	}
	size = modulus_size(k);
	if (ulEncryptedDataLen != size) {
		p11_op_end(&s->decrypt);
		return p11_done(CKR_ENCRYPTED_DATA_LEN_RANGE);
	}
	if (!pData) {
		*pulDataLen = size;
		return p11_done(CKR_OK);
	}
	st = (struct crypt_step){ .key = k, .in = pEncryptedData, .len = size, .out = plain,
				  .cap = sizeof(plain) };
	memcpy(st.secret, tok->secret, sizeof(st.secret));
	rv = run_step(hSession, &s, false, &st);
	n = st.n;
	if (rv == CKR_SESSION_CLOSED) {
		explicit_bzero(plain, sizeof(plain));
		return p11_done(rv);
	}
	if (rv == CKR_OK && *pulDataLen < n) {
		*pulDataLen = n;
		explicit_bzero(plain, sizeof(plain));
		return p11_done(CKR_BUFFER_TOO_SMALL);
	}
	if (rv == CKR_OK) {
		memcpy(pData, plain, n);
		*pulDataLen = n;
	}
	explicit_bzero(plain, sizeof(plain));
	p11_op_end(&s->decrypt);
	return p11_done(rv);
}
