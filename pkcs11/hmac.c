/* HMAC-SHA-1/256/384/512 with a generic secret key in the TPM (TPM2_HMAC, an HMAC sequence
 * for data longer than one buffer), and their _GENERAL forms with a shorter MAC. sign.c
 * collects the data of C_Sign / C_SignUpdate and C_Verify / C_VerifyUpdate as for every
 * mechanism and runs its TPM step outside the module lock, where the MAC is computed here; a
 * MAC is verified by computing it and comparing in constant time. */
#include <string.h>

#include "secret.h"

static const struct p11_mech *hmac_mech(const struct p11_op *op)
{
	const struct p11_mech *d = op->active ? p11_mech_find(op->mech) : NULL;

	return d && d->kind == P11_HMAC ? d : NULL;
}

bool p11_hmac_op(const struct p11_op *op)
{
	return hmac_mech(op) != NULL;
}

/* The _GENERAL mechanisms follow theirs in PKCS#11's numbering. */
static bool general(CK_MECHANISM_TYPE m)
{
	return m == CKM_SHA_1_HMAC_GENERAL || m == CKM_SHA256_HMAC_GENERAL ||
	       m == CKM_SHA384_HMAC_GENERAL || m == CKM_SHA512_HMAC_GENERAL;
}

CK_RV p11_hmac_init(const struct p11_token *tok, struct p11_op *op, bool sign,
		    const CK_MECHANISM *m, const struct p11_object *k, CK_OBJECT_HANDLE key)
{
	const struct p11_mech *d = p11_mech_find(m->mechanism);
	size_t full = p11_hash_size(d->hash);
	CK_ULONG want = full;
	CK_RV rv = p11_secret_usable(tok, k, CKK_GENERIC_SECRET, sign ? CKA_SIGN : CKA_VERIFY);

	if (rv != CKR_OK)
		return rv;
	if (general(m->mechanism)) {
		/* CK_MAC_GENERAL_PARAMS: the MAC's length, at most the hash's */
		if (!m->pParameter || m->ulParameterLen != sizeof(CK_ULONG))
			return CKR_MECHANISM_PARAM_INVALID;
		memcpy(&want, m->pParameter, sizeof(want));
		if (want == 0 || want > full)
			return CKR_MECHANISM_PARAM_INVALID;
	} else if (m->pParameter || m->ulParameterLen) {
		return CKR_MECHANISM_PARAM_INVALID;
	}
	memset(op, 0, sizeof(*op));
	op->active = true;
	op->mech = m->mechanism;
	op->key = key;
	op->hash = d->hash;
	op->mac_len = want;
	return CKR_OK;
}

/* The MAC of the operation's data (mac: 64 bytes; at least the operation's length of it). */
static CK_RV mac(struct p11_conn *c, const struct p11_op *op, struct p11_object *k,
		 const char *secret, uint8_t mac[64])
{
	size_t n = 0;
	CK_RV rv = p11_conn_hmac(c, k, secret, op->hash, op->data, op->len, mac, &n);

	return rv == CKR_OK && n < op->mac_len ? CKR_DEVICE_ERROR : rv;
}

CK_RV p11_hmac_sign_step(struct p11_conn *c, const struct p11_op *op, struct p11_object *k,
			 const char *secret, uint8_t *out)
{
	uint8_t m[64];
	CK_RV rv = mac(c, op, k, secret, m);

	if (rv == CKR_OK)
		memcpy(out, m, op->mac_len);
	explicit_bzero(m, sizeof(m));
	return rv;
}

/* Whether a and b (n bytes) are the same, in a time that does not depend on where they
 * differ. */
static bool same(const uint8_t *a, const uint8_t *b, size_t n)
{
	uint8_t d = 0;
	size_t i;

	for (i = 0; i < n; i++)
		d |= a[i] ^ b[i];
	return d == 0;
}

CK_RV p11_hmac_verify_step(struct p11_conn *c, const struct p11_op *op, struct p11_object *k,
			   const char *secret, const uint8_t *given, size_t len)
{
	uint8_t m[64];
	CK_RV rv = mac(c, op, k, secret, m);

	if (rv == CKR_OK && (len != op->mac_len || !same(m, given, len)))
		rv = CKR_SIGNATURE_INVALID;
	explicit_bzero(m, sizeof(m));
	return rv;
}
