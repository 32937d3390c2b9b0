/* The TPM steps of secret keys and ML-KEM (secret.h), each on one connection (p11_unlocked, which
 * runs it once more on a new connection when the transport failed): Create of an AES or HMAC
 * key (of a known value or of the TPM's making), EncryptDecrypt2, HMAC and HMAC sequences,
 * Encapsulate with a public key loaded alone, Decapsulate. */
#include <string.h>

#include "secret.h"

/* A PIN error of a key would mean a wrong wrapping secret: the key, not the user's PIN. */
static CK_RV key_rv(struct p11_conn *c, TPM_RC rc, const char *what)
{
	CK_RV rv = p11_conn_rv(c, rc, what);

	return rv == CKR_PIN_INCORRECT ? CKR_DEVICE_ERROR : rv;
}

static void to_blob(struct p11_blob *dst, const uint8_t *b, size_t n)
{
	memcpy(dst->b, b, n);
	dst->len = n;
}

/* AES: a symCipher key of mode NULL (the mode is each command's); generic secrets: a keyedHash
 * key of the NULL scheme (the hash is each HMAC's). Both for every use of their type: the
 * module holds the PKCS#11 attributes that allow or refuse one. */
static CK_RV secret_template(CK_KEY_TYPE type, size_t len, bool tpm_made,
			     struct pqtpm_tss_public *out)
{
	struct pqtpm_tss_template t = {
		.type = type == CKK_AES ? TPM_ALG_SYMCIPHER : TPM_ALG_KEYEDHASH,
		.attributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT |
			      TPMA_OBJECT_USERWITHAUTH | TPMA_OBJECT_NODA |
			      TPMA_OBJECT_SIGN_ENCRYPT |
			      (type == CKK_AES ? TPMA_OBJECT_DECRYPT : 0) |
			      (tpm_made ? TPMA_OBJECT_SENSITIVEDATAORIGIN : 0),
		.sym_bits = (uint16_t)(8 * len),
		.sym_mode = TPM_ALG_NULL,
	};

	return pqtpm_tss_template_public(&t, out) == TPM_RC_SUCCESS ? CKR_OK : CKR_GENERAL_ERROR;
}

CK_RV p11_conn_secret_create(struct p11_conn *c, CK_KEY_TYPE type, size_t len, const char *auth,
			     const uint8_t *value, struct p11_blob *pub, struct p11_blob *priv)
{
	struct pqtpm_tss_public tmpl;
	struct pqtpm_tss_key key;
	TPM_RC rc;
	CK_RV rv = secret_template(type, len, value == NULL, &tmpl);

	if (rv != CKR_OK)
		return rv;
	rc = value ? pqtpm_tss_create_data(c->t, c->storage, "", &tmpl, auth, value, len, &key)
		   : pqtpm_tss_create(c->t, c->storage, "", &tmpl, auth, &key);
	/* a key size this TPM does not have (AES-192 on some) */
	if ((rc & 0xBFu) == (TPM_RC_KEY_SIZE & 0xBFu))
		return CKR_KEY_SIZE_RANGE;
	rv = p11_conn_rv(c, rc, "Create of a secret key");
	if (rv == CKR_OK) {
		to_blob(pub, key.pub.b, key.pub.size);
		to_blob(priv, key.priv.b, key.priv.size);
	}
	explicit_bzero(&key.priv, sizeof(key.priv));
	return rv;
}

CK_RV p11_conn_aes(struct p11_conn *c, struct p11_object *k, const char *secret, bool decrypt,
		   TPM_ALG_ID mode, uint8_t *iv, const uint8_t *in, size_t len, uint8_t *out)
{
	size_t iv_len = mode == TPM_ALG_ECB ? 0 : 16;
	TPM_HANDLE h;
	CK_RV rv = p11_conn_load(c, k, &h);

	if (rv != CKR_OK)
		return rv;
	return key_rv(c,
		      pqtpm_tss_encrypt_decrypt(c->t, h, secret, decrypt, mode,
						iv_len ? iv : NULL, iv_len, in, len, out),
		      "EncryptDecrypt2");
}

/* Data of any length: HMAC in one command up to a buffer's size, else a sequence. */
static TPM_RC hmac_run(struct pqtpm_tss *t, TPM_HANDLE h, const char *auth, TPM_ALG_ID hash,
		       const uint8_t *data, size_t len, struct pqtpm_tss_digest *d)
{
	TPM_HANDLE seq = 0;
	TPM_RC rc;

	if (len <= PQTPM_TSS_MAX_BUFFER)
		return pqtpm_tss_hmac(t, h, auth, hash, data, len, d);
	rc = pqtpm_tss_hmac_start(t, h, auth, "", hash, &seq);
	while (rc == TPM_RC_SUCCESS && len > PQTPM_TSS_MAX_BUFFER) {
		rc = pqtpm_tss_sequence_update(t, seq, "", data, PQTPM_TSS_MAX_BUFFER);
		data += PQTPM_TSS_MAX_BUFFER;
		len -= PQTPM_TSS_MAX_BUFFER;
	}
	if (rc == TPM_RC_SUCCESS)
		rc = pqtpm_tss_sequence_complete(t, seq, "", data, len, TPM_RH_NULL, d, NULL);
	/* a sequence not completed stays loaded (a failed command changes nothing) */
	if (rc != TPM_RC_SUCCESS && seq)
		pqtpm_tss_flush(t, seq);
	return rc;
}

CK_RV p11_conn_hmac(struct p11_conn *c, struct p11_object *k, const char *secret,
		    TPM_ALG_ID hash, const uint8_t *data, size_t len, uint8_t *mac,
		    size_t *mac_len)
{
	struct pqtpm_tss_digest d;
	TPM_HANDLE h;
	CK_RV rv = p11_conn_load(c, k, &h);

	if (rv != CKR_OK)
		return rv;
	rv = key_rv(c, hmac_run(c->t, h, secret, hash, data, len, &d), "HMAC");
	if (rv == CKR_OK) {
		memcpy(mac, d.b, d.size);
		*mac_len = d.size;
	}
	explicit_bzero(&d, sizeof(d));
	return rv;
}

CK_RV p11_conn_encapsulate(struct p11_conn *c, const struct p11_blob *pub, uint8_t *ss,
			   size_t *ss_len, uint8_t *ct, size_t *ct_len)
{
	struct pqtpm_tss_ciphertext cipher;
	struct pqtpm_tss_digest d;
	TPM_HANDLE h;
	CK_RV rv = p11_conn_load_public(c, pub, &h);

	if (rv != CKR_OK)
		return rv;
	rv = p11_conn_rv(c, pqtpm_tss_encapsulate(c->t, h, &d, &cipher), "Encapsulate");
	pqtpm_tss_flush(c->t, h);
	if (rv == CKR_OK) {
		memcpy(ss, d.b, d.size);
		*ss_len = d.size;
		memcpy(ct, cipher.b, cipher.size);
		*ct_len = cipher.size;
	}
	explicit_bzero(&d, sizeof(d));
	return rv;
}

CK_RV p11_conn_decapsulate(struct p11_conn *c, const char *secret, struct p11_object *k,
			   const uint8_t *ct, size_t ct_len, uint8_t *ss, size_t *ss_len)
{
	struct pqtpm_tss_ciphertext cipher;
	struct pqtpm_tss_digest d;
	TPM_HANDLE h;
	CK_RV rv;

	if (ct_len > sizeof(cipher.b))
		return CKR_WRAPPED_KEY_LEN_RANGE;
	rv = p11_conn_load(c, k, &h);
	if (rv != CKR_OK)
		return rv;
	memcpy(cipher.b, ct, ct_len);
	cipher.size = (uint16_t)ct_len;
	rv = key_rv(c, pqtpm_tss_decapsulate(c->t, h, secret, &cipher, &d), "Decapsulate");
	if (rv == CKR_OK) {
		memcpy(ss, d.b, d.size);
		*ss_len = d.size;
	}
	explicit_bzero(&d, sizeof(d));
	return rv;
}
