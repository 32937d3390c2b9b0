/* C_EncryptInit, C_Encrypt, C_DecryptInit, C_Decrypt: RSA PKCS#1 v1.5 (RSAES) and OAEP,
 * single-part, both in the TPM: decryption with the private key (TPM2_RSA_Decrypt), encryption
 * with the public key loaded alone (TPM2_LoadExternal, TPM2_RSA_Encrypt). The TPM's OAEP is
 * MGF1 with the OAEP hash, and its label is empty or ends in a zero octet (TPM 2.0 Part 3,
 * RSA_Encrypt), so other parameters are CKR_MECHANISM_PARAM_INVALID. AES operations go to
 * aes.c. */
#include <string.h>

#include "secret.h"

static CK_RV oaep_params(const CK_MECHANISM *m, const struct p11_mech *d, struct p11_op *op)
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

static CK_RV crypt_init(CK_SESSION_HANDLE h, enum p11_op_kind kind, CK_MECHANISM_PTR m,
			CK_OBJECT_HANDLE key)
{
	struct p11_init in;
	CK_RV rv = p11_op_init(h, kind, m, key, &in);

	if (rv != CKR_OK)
		return rv;
	if (in.d->kind == P11_AES)
		return p11_aes_init(in.tok, in.op, kind == P11_OP_ENCRYPT, m, in.k, key);
	return p11_op_start(&in, m, key, in.d->kind == P11_RSA_OAEP ? oaep_params : NULL);
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

CK_RV C_EncryptInit(CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism, CK_OBJECT_HANDLE hKey)
{
	CK_RV rv = p11_enter();

	if (rv != CKR_OK)
		return rv;
	return p11_done(crypt_init(hSession, P11_OP_ENCRYPT, pMechanism, hKey));
}

CK_RV C_DecryptInit(CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism, CK_OBJECT_HANDLE hKey)
{
	CK_RV rv = p11_enter();

	if (rv != CKR_OK)
		return rv;
	return p11_done(crypt_init(hSession, P11_OP_DECRYPT, pMechanism, hKey));
}

/* The call's operation and its key (the operation ends when the key has gone). */
static CK_RV crypt_call(struct p11_call *c, struct p11_object **k)
{
	CK_RV rv = p11_enter_op(c);

	if (rv != CKR_OK)
		return rv;
	rv = p11_op_key(c, k);
	if (rv != CKR_OK)
		p11_leave();
	return rv;
}

CK_RV C_Encrypt(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pData, CK_ULONG ulDataLen,
		CK_BYTE_PTR pEncryptedData, CK_ULONG_PTR pulEncryptedDataLen)
{
	struct p11_call c = { .h = hSession, .kind = P11_OP_ENCRYPT };
	struct crypt_step st;
	struct p11_object *k;
	size_t size;
	CK_RV rv = crypt_call(&c, &k);

	if (rv != CKR_OK)
		return rv;
	if (p11_aes_op(c.op))
		return p11_done(p11_aes_once(&c, k, pData, ulDataLen, pEncryptedData,
					     pulEncryptedDataLen));
	if (!pulEncryptedDataLen || (!pData && ulDataLen)) {
		p11_op_end(c.op);
		return p11_done(CKR_ARGUMENTS_BAD);
	}
	size = modulus_size(k);
	if (!p11_out_fits(pEncryptedData, pulEncryptedDataLen, size, &rv))
		return p11_done(rv);
	st = (struct crypt_step){ .key = k, .in = pData, .len = ulDataLen, .out = pEncryptedData,
				  .cap = size };
	rv = p11_op_step(&c, &st.op, k, encrypt_step, &st);
	if (rv == CKR_SESSION_CLOSED)
		return p11_done(rv);
	if (rv == CKR_OK)
		*pulEncryptedDataLen = size;
	p11_op_end(c.op);
	return p11_done(rv);
}

/* The length query answers the modulus size (the most a plaintext can be); a buffer too small
 * for the actual plaintext is told its length and the operation goes on, as the spec says. */
CK_RV C_Decrypt(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pEncryptedData,
		CK_ULONG ulEncryptedDataLen, CK_BYTE_PTR pData, CK_ULONG_PTR pulDataLen)
{
	struct p11_call c = { .h = hSession, .kind = P11_OP_DECRYPT };
	uint8_t plain[PQTPM_TSS_MAX_RSA];
	struct crypt_step st;
	struct p11_object *k;
	size_t size;
	CK_RV rv = crypt_call(&c, &k);

	if (rv != CKR_OK)
		return rv;
	if (p11_aes_op(c.op))
		return p11_done(p11_aes_once(&c, k, pEncryptedData, ulEncryptedDataLen, pData,
					     pulDataLen));
	if (!pulDataLen || !pEncryptedData) {
		p11_op_end(c.op);
		return p11_done(CKR_ARGUMENTS_BAD);
	}
	size = modulus_size(k);
	if (ulEncryptedDataLen != size) {
		p11_op_end(c.op);
		return p11_done(CKR_ENCRYPTED_DATA_LEN_RANGE);
	}
	if (!pData) {
		*pulDataLen = size;
		return p11_done(CKR_OK);
	}
	st = (struct crypt_step){ .key = k, .in = pEncryptedData, .len = size, .out = plain,
				  .cap = sizeof(plain) };
	memcpy(st.secret, c.tok->secret, sizeof(st.secret));
	rv = p11_op_step(&c, &st.op, k, decrypt_step, &st);
	explicit_bzero(st.secret, sizeof(st.secret));
	if (rv == CKR_OK && *pulDataLen < st.n) {
		*pulDataLen = st.n;
		rv = CKR_BUFFER_TOO_SMALL; /* the operation goes on */
	} else if (rv == CKR_OK) {
		memcpy(pData, plain, st.n);
		*pulDataLen = st.n;
	}
	explicit_bzero(plain, sizeof(plain));
	if (rv != CKR_BUFFER_TOO_SMALL && rv != CKR_SESSION_CLOSED)
		p11_op_end(c.op);
	return p11_done(rv);
}
