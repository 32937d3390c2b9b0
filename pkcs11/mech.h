/* The mechanisms: what each one does with its key and data (mech.c). */
#ifndef PQTPM_PKCS11_MECH_H
#define PQTPM_PKCS11_MECH_H

#include "p11.h"

/* A secret key's value at most: what a TPM takes as a keyedHash object's sensitive data (Part
 * 2's MAX_SYM_DATA). */
#define P11_SECRET_MAX 128

enum p11_kind {
	P11_RSA_PKCS,	/* the caller's DigestInfo, RSASSA */
	P11_RSA_PSS,	/* the caller's digest, RSAPSS */
	P11_ECDSA,	/* the caller's digest */
	P11_HASH_SIGN,	/* the TPM hashes, then RSASSA / RSAPSS / ECDSA */
	P11_MLDSA,	/* the message itself */
	P11_HASH_MLDSA, /* HashML-DSA: the caller's digest (hash 0) or the TPM's (hash set) */
	P11_RSA_OAEP,	/* RSAES-OAEP encryption and decryption */
	P11_ECDH,	/* ECDH1 key derivation */
	P11_DIGEST,
	P11_KEYGEN,	/* key pairs and secret keys */
	P11_AES,	/* AES encryption (scheme: the TPM's mode) */
	P11_HMAC,	/* HMAC of a generic secret key (hash) */
	P11_KEM,	/* ML-KEM encapsulation and decapsulation */
};
struct p11_mech {
	CK_MECHANISM_TYPE type;
	enum p11_kind kind;
	CK_KEY_TYPE key_type;
	TPM_ALG_ID scheme; /* TPM_ALG_RSASSA, _RSAPSS, _ECDSA (P11_HASH_SIGN); the mode (P11_AES) */
	TPM_ALG_ID hash;   /* P11_HASH_SIGN, P11_DIGEST, P11_HMAC */
	CK_ULONG min, max; /* key sizes (bits; AES, HMAC, ML-DSA, ML-KEM: bytes, the last two of
			    * the public key) */
	CK_FLAGS flags;
};
/* The mechanism of type, or NULL. */
const struct p11_mech *p11_mech_find(CK_MECHANISM_TYPE type);
/* A TPM hash algorithm's digest size, the PKCS#11 digest mechanism of one (0: none). */
size_t p11_hash_size(TPM_ALG_ID hash);
TPM_ALG_ID p11_hash_of_mech(CK_MECHANISM_TYPE m);

/* What a C_*Init with a key found (op.c). */
struct p11_init {
	enum p11_op_kind kind;
	struct p11_session *s;
	struct p11_token *tok;
	struct p11_op *op; /* the session's operation of that kind */
	const struct p11_mech *d;
	struct p11_object *k;
};
/* The start of C_SignInit, C_VerifyInit, C_EncryptInit and C_DecryptInit: session h without an
 * operation of that kind active (CKR_OPERATION_ACTIVE), a mechanism that does it
 * (CKR_ARGUMENTS_BAD, CKR_MECHANISM_INVALID) and a key the session sees
 * (CKR_KEY_HANDLE_INVALID). For a key pair's mechanism also its key: of the mechanism's type,
 * private to sign and decrypt and public to verify and encrypt (CKR_KEY_TYPE_INCONSISTENT),
 * made for that use (CKR_KEY_FUNCTION_NOT_PERMITTED), and a private key with the user logged
 * in (CKR_USER_NOT_LOGGED_IN). A secret key's mechanism (AES, HMAC) checks its key itself. */
CK_RV p11_op_init(CK_SESSION_HANDLE h, enum p11_op_kind kind, const CK_MECHANISM *m,
		  CK_OBJECT_HANDLE key, struct p11_init *in);
/* A mechanism's parameters m read into op: CKR_OK or CKR_MECHANISM_PARAM_INVALID. */
typedef CK_RV (*p11_params_fn)(const CK_MECHANISM *m, const struct p11_mech *d,
			       struct p11_op *op);
/* The end of a C_*Init that p11_op_init began for a key pair's mechanism: the operation starts
 * with key, its parameters read by params (NULL: the mechanism takes none, and any is
 * CKR_MECHANISM_PARAM_INVALID), and wants the user's PIN again before each use if it signs or
 * decrypts with a CKA_ALWAYS_AUTHENTICATE key. */
CK_RV p11_op_start(const struct p11_init *in, const CK_MECHANISM *m, CK_OBJECT_HANDLE key,
		   p11_params_fn params);

#endif
