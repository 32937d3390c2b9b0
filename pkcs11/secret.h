/* Secret keys whose value lives in the TPM, and ML-KEM: AES keys (symCipher objects of mode
 * NULL) and generic secrets (keyedHash objects of the NULL scheme, for HMAC), made under the
 * token's storage key with the token's wrapping secret as their authValue. secret.c gives a
 * new key its attributes and its TPM object whichever way it comes to be (C_GenerateKey in
 * genkey.c, C_CreateObject, C_DeriveKey in derive.c, C_EncapsulateKey / C_DecapsulateKey in
 * kem.c); aes.c and hmac.c use them; tpmsecret.c has the TPM steps. */
#ifndef PQTPM_PKCS11_SECRET_H
#define PQTPM_PKCS11_SECRET_H

#include "mech.h"

/* How a secret key comes to be: the specification's attribute rules differ. */
enum p11_secret_origin {
	P11_SECRET_GENERATED, /* C_GenerateKey */
	P11_SECRET_CREATED,   /* C_CreateObject with CKA_VALUE */
	P11_SECRET_DERIVED,   /* C_DeriveKey */
	P11_SECRET_KEM,	      /* C_EncapsulateKey, C_DecapsulateKey */
};

/* What a template asks of a new secret key. The caller sets origin, type (the mechanism's
 * for C_GenerateKey; CKK_GENERIC_SECRET as the default of derived and KEM keys;
 * CK_UNAVAILABLE_INFORMATION for C_CreateObject, whose template must say), mech and base. */
struct p11_secret_req {
	enum p11_secret_origin origin;
	CK_KEY_TYPE type;
	CK_ULONG len;		       /* CKA_VALUE_LEN (0: not given) */
	const CK_ATTRIBUTE *value;     /* C_CreateObject: CKA_VALUE */
	const CK_ATTRIBUTE *check;     /* C_CreateObject: CKA_CHECK_VALUE, when given */
	CK_MECHANISM_TYPE mech;	       /* C_GenerateKey: its mechanism */
	const struct p11_object *base; /* C_DeriveKey: the base key */
};

/* The template onto new object o (what a template may give, copied; the rest checked), the
 * defaults, and the checks before the TPM: a token object needs a R/W session and may not be
 * readable (its value would have to sit in the store), any key needs the user's login (the
 * wrapping secret). */
CK_RV p11_secret_template(const struct p11_session *s, const struct p11_token *tok,
			  const CK_ATTRIBUTE *t, CK_ULONG n, struct p11_object *o,
			  struct p11_secret_req *r);
/* Whether a value of len bytes makes a key of type (AES: 16, 24, 32; generic secret: 1 to
 * P11_SECRET_MAX). */
bool p11_secret_len_ok(CK_KEY_TYPE type, size_t len);
/* The key of o in the TPM, made by a step outside the module lock (Create under the storage
 * key, with the token's secret as its authValue, and its check value): of value (len bytes),
 * or, value NULL, of the TPM's making (an AES key the application may never read) or drawn
 * from the TPM's random generator (any other key: a value the module must know once); then
 * its attributes, and it joins session hs or the store (*h). o is the function's: kept, or
 * freed on failure; CKR_SESSION_CLOSED if the session went meanwhile. */
CK_RV p11_secret_finish(CK_SESSION_HANDLE hs, struct p11_object *o,
			const struct p11_secret_req *r, const uint8_t *value, size_t len,
			CK_OBJECT_HANDLE *h);
/* A secret key of type that session s may use for use (CKA_ENCRYPT, CKA_SIGN ...):
 * CKR_KEY_TYPE_INCONSISTENT, CKR_KEY_FUNCTION_NOT_PERMITTED, CKR_USER_NOT_LOGGED_IN. */
CK_RV p11_secret_usable(const struct p11_token *tok, const struct p11_object *k,
			CK_KEY_TYPE type, CK_ATTRIBUTE_TYPE use);

/* C_CreateObject of a CKO_SECRET_KEY in session hs (create.c dispatches). */
CK_RV p11_secret_create(CK_SESSION_HANDLE hs, struct p11_session *s, struct p11_token *tok,
			const CK_ATTRIBUTE *t, CK_ULONG n, CK_OBJECT_HANDLE *h);

/* AES (aes.c) and HMAC (hmac.c) operations, called by crypt.c and sign.c for their
 * mechanisms. */
CK_RV p11_aes_init(const struct p11_token *tok, struct p11_op *op, bool enc,
		   const CK_MECHANISM *m, const struct p11_object *k, CK_OBJECT_HANDLE key);
bool p11_aes_op(const struct p11_op *op);
/* C_Encrypt / C_Decrypt of the call's AES operation (key k): the two-call pattern, the TPM step
 * outside the module lock, the operation's end. */
CK_RV p11_aes_once(struct p11_call *c, struct p11_object *k, const uint8_t *in, CK_ULONG len,
		   uint8_t *out, CK_ULONG *out_len);
CK_RV p11_hmac_init(const struct p11_token *tok, struct p11_op *op, bool sign,
		    const CK_MECHANISM *m, const struct p11_object *k, CK_OBJECT_HANDLE key);
bool p11_hmac_op(const struct p11_op *op);
/* In sign.c's TPM step (on c, the operation lent): the MAC of the operation's data with key k
 * (authValue secret) into out (the operation's MAC length); or checked against given (len
 * bytes), in constant time: CKR_SIGNATURE_INVALID. */
CK_RV p11_hmac_sign_step(struct p11_conn *c, const struct p11_op *op, struct p11_object *k,
			 const char *secret, uint8_t *out);
CK_RV p11_hmac_verify_step(struct p11_conn *c, const struct p11_op *op, struct p11_object *k,
			   const char *secret, const uint8_t *given, size_t len);

/* ---- the TPM steps on connection c (tpmsecret.c; p11_unlocked runs a step once more on a new
 * connection when the transport failed) ---- */
/* A key of type created under the storage key with authValue auth: of value (len bytes), or of
 * the TPM's making (value NULL). Its blobs. */
CK_RV p11_conn_secret_create(struct p11_conn *c, CK_KEY_TYPE type, size_t len, const char *auth,
			     const uint8_t *value, struct p11_blob *pub, struct p11_blob *priv);
/* EncryptDecrypt2 of len bytes with AES key k (authValue secret) in mode (ECB, CBC, CTR); iv
 * (16 bytes, not for ECB) in, the TPM's ivOut out. */
CK_RV p11_conn_aes(struct p11_conn *c, struct p11_object *k, const char *secret, bool decrypt,
		   TPM_ALG_ID mode, uint8_t *iv, const uint8_t *in, size_t len, uint8_t *out);
/* HMAC with hash of data of any length (HMAC, or an HMAC sequence) with generic secret k
 * (authValue secret): mac (64 bytes), *mac_len. */
CK_RV p11_conn_hmac(struct p11_conn *c, struct p11_object *k, const char *secret,
		    TPM_ALG_ID hash, const uint8_t *data, size_t len, uint8_t *mac,
		    size_t *mac_len);
/* Encapsulate to the ML-KEM public key pub (loaded alone): the shared secret ss (32 bytes) and
 * the ciphertext ct (*ct_len, at most PQTPM_TSS_MAX_CIPHERTEXT); decapsulate ct with the
 * ML-KEM private key k (its authValue secret): ss (32 bytes). */
CK_RV p11_conn_encapsulate(struct p11_conn *c, const struct p11_blob *pub, uint8_t *ss,
			   size_t *ss_len, uint8_t *ct, size_t *ct_len);
CK_RV p11_conn_decapsulate(struct p11_conn *c, const char *secret, struct p11_object *k,
			   const uint8_t *ct, size_t ct_len, uint8_t *ss, size_t *ss_len);

#endif
