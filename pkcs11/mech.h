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
	CK_ULONG min, max; /* key sizes (bits; AES, HMAC: bytes; ML-DSA: parameter sets; ML-KEM:
			    * public key bytes) */
	CK_FLAGS flags;
};
/* The mechanism of type, or NULL. */
const struct p11_mech *p11_mech_find(CK_MECHANISM_TYPE type);
/* A TPM hash algorithm's digest size, the PKCS#11 digest mechanism of one (0: none). */
size_t p11_hash_size(TPM_ALG_ID hash);
TPM_ALG_ID p11_hash_of_mech(CK_MECHANISM_TYPE m);

#endif
