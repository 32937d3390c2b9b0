/* Key pairs' objects (keyattr.c): the one place that says which attributes the public and
 * private keys of each type have, which a template may give, their defaults, and the public
 * values read from the TPM's public area. C_GenerateKeyPair (keygen.c), C_CreateObject of
 * keys (keyimport.c) and C_SetAttributeValue / C_CopyObject (setattr.c) use it. */
#ifndef PQTPM_PKCS11_KEY_H
#define PQTPM_PKCS11_KEY_H

#include "p11.h"

/* How a key object came to be: its CKA_LOCAL, CKA_ALWAYS_SENSITIVE, CKA_NEVER_EXTRACTABLE and
 * CKA_KEY_GEN_MECHANISM follow. */
enum p11_key_origin {
	P11_KEY_GENERATED, /* made in the TPM (C_GenerateKeyPair) */
	P11_KEY_IMPORTED,  /* made elsewhere (C_CreateObject) */
};

/* The curve of CKA_EC_PARAMS (a named curve's OID): TPM_ECC_NIST_P256 / _P384, or 0. */
uint16_t p11_ec_curve(const void *params, size_t len);

/* The attributes of template t (n of them) for a key object o of class cls and type kt:
 * those an application sets copied to o; those the module decides (class, key type,
 * sensitivity, the mechanisms the TPM cannot do) may only confirm what the module does
 * (CKR_TEMPLATE_INCONSISTENT, CKR_ATTRIBUTE_VALUE_INVALID otherwise); key material that the
 * caller reads itself (value(type) true) is skipped; anything else is
 * CKR_ATTRIBUTE_TYPE_INVALID, and what the module alone gives (CKA_LOCAL, CKA_UNIQUE_ID ...)
 * CKR_ATTRIBUTE_READ_ONLY; CKA_ENCAPSULATE / CKA_DECAPSULATE true for a key that is not ML-KEM
 * CKR_TEMPLATE_INCONSISTENT. */
CK_RV p11_key_template(struct p11_object *o, const CK_ATTRIBUTE *t, CK_ULONG n,
		       CK_OBJECT_CLASS cls, CK_KEY_TYPE kt, bool (*value)(CK_ATTRIBUTE_TYPE));

/* The TPM object attributes that the private key template t (n) asks for: its uses (sign unless
 * it only decrypts; decrypt for CKA_DECRYPT, for EC's CKA_DERIVE and for ML-KEM, which only
 * decapsulates), userWithAuth and noDA (the authValue is the token's high-entropy secret; the
 * PINs are what the DA logic guards). CKR_TEMPLATE_INCONSISTENT for a use its type cannot
 * have. */
CK_RV p11_key_uses(const CK_ATTRIBUTE *t, CK_ULONG n, CK_KEY_TYPE kt, uint32_t *attrs);

/* CKA_UNIQUE_ID, class, key type, origin, defaults for what the template did not give, and
 * the private key's fixed attributes. mech: CKA_KEY_GEN_MECHANISM for a generated key. */
CK_RV p11_key_finish(struct p11_object *o, CK_OBJECT_CLASS cls, CK_KEY_TYPE kt,
		     enum p11_key_origin origin, CK_MECHANISM_TYPE mech);

/* The TPM key's blobs given to o (priv NULL: a public key), and o's public values read from
 * the public area (RSA: CKA_MODULUS, CKA_PUBLIC_EXPONENT and, public keys, CKA_MODULUS_BITS;
 * EC public keys: CKA_EC_POINT; ML-DSA and ML-KEM public keys: CKA_VALUE). CKA_EC_PARAMS and
 * CKA_PARAMETER_SET are the caller's to set. */
CK_RV p11_key_blobs(struct p11_object *o, CK_KEY_TYPE kt, const struct p11_blob *pub,
		    const struct p11_blob *priv);

/* C_CreateObject of a private or public key (cls) of template t (n) in session hs: the new
 * object, kept in the token (keyimport.c; its TPM step outside the module lock). */
CK_RV p11_key_create(CK_SESSION_HANDLE hs, struct p11_session *s, struct p11_token *tok,
		     const CK_ATTRIBUTE *t, CK_ULONG n, CK_OBJECT_CLASS cls,
		     struct p11_object **out);

/* A key's own attribute a (not one every storage object has: setattr.c) may change to the
 * value a gives, in C_SetAttributeValue or C_CopyObject: CKR_OK, or the CK_RV that says why
 * not. */
CK_RV p11_key_attr_change(const struct p11_object *o, const CK_ATTRIBUTE *a);

#endif
