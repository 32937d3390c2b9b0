/* C_DeriveKey with CKM_ECDH1_DERIVE: the TPM multiplies the other side's point by the private
 * key (TPM2_ECDH_ZGen). The shared secret Z, the point's x-coordinate, makes the new key's value
 * as it is (CKD_NULL: its first CKA_VALUE_LEN bytes) or through ANSI X9.63's KDF as PKCS#11 has
 * it for CKD_SHA1_KDF, CKD_SHA256_KDF, CKD_SHA384_KDF and CKD_SHA512_KDF (the TPM has no SHA-224
 * for CKD_SHA224_KDF): Hash(Z || counter || sharedData), the TPM hashing. The new key, a
 * CKK_GENERIC_SECRET or CKK_AES, is a key in the TPM like any other secret key (secret.c), a
 * token object if the template says so, with the specification's rules for derived keys:
 * CKA_LOCAL false, CKA_ALWAYS_SENSITIVE and CKA_NEVER_EXTRACTABLE true only when the base key's
 * were and the new key is sensitive / unextractable. */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "secret.h"

/* The other side's point: the uncompressed point 04 || x || y, bare or as a DER OCTET STRING
 * (applications send either), coordinates of n bytes. */
static CK_RV peer_point(const CK_ECDH1_DERIVE_PARAMS *p, size_t n,
			struct pqtpm_tss_ecc_point *pt)
{
	const uint8_t *b = p->pPublicData;
	size_t len = p->ulPublicDataLen;

	if (!b)
		return CKR_MECHANISM_PARAM_INVALID;
	if (len == 3 + 2 * n && b[0] == 0x04 && b[1] == 1 + 2 * n) {
		b += 2;
		len -= 2;
	}
	if (len != 1 + 2 * n || b[0] != 0x04)
		return CKR_MECHANISM_PARAM_INVALID;
	memset(pt, 0, sizeof(*pt));
	pt->x_size = pt->y_size = (uint16_t)n;
	memcpy(pt->x, b + 1, n);
	memcpy(pt->y, b + 1 + n, n);
	return CKR_OK;
}

/* The base key's coordinate size, from its curve (P-256 or P-384). */
static size_t coord_size(const struct p11_object *k)
{
	static const uint8_t OID_P384[] = { 0x06, 0x05, 0x2B, 0x81, 0x04, 0x00, 0x22 };
	const struct p11_attr *a = p11_attr_find(k, CKA_EC_PARAMS);

	return a && a->len == sizeof(OID_P384) && !memcmp(a->value, OID_P384, a->len) ? 48 : 32;
}

/* The KDF's hash: 0 for CKD_NULL. */
static CK_RV kdf_hash(CK_ULONG kdf, TPM_ALG_ID *hash)
{
	switch (kdf) {
	case CKD_NULL:
		*hash = 0;
		return CKR_OK;
	case CKD_SHA1_KDF:
		*hash = TPM_ALG_SHA1;
		return CKR_OK;
	case CKD_SHA256_KDF:
		*hash = TPM_ALG_SHA256;
		return CKR_OK;
	case CKD_SHA384_KDF:
		*hash = TPM_ALG_SHA384;
		return CKR_OK;
	case CKD_SHA512_KDF:
		*hash = TPM_ALG_SHA512;
		return CKR_OK;
	default:
		return CKR_MECHANISM_PARAM_INVALID;
	}
}

/* ANSI X9.63's KDF: Hash(Z || counter || info) for counter 1, 2 ... (32 bits, big-endian),
 * concatenated and cut to len bytes, the TPM hashing on c. */
static CK_RV x963(struct p11_conn *c, TPM_ALG_ID hash, const uint8_t *z, size_t zlen,
		  const uint8_t *info, size_t info_len, uint8_t *out, size_t len)
{
	size_t in_len = zlen + 4 + info_len, done = 0, n = 0;
	uint8_t *in = malloc(in_len), d[64];
	uint32_t counter;
	CK_RV rv = in ? CKR_OK : CKR_HOST_MEMORY;

	if (rv == CKR_OK) {
		memcpy(in, z, zlen);
		if (info_len)
			memcpy(in + zlen + 4, info, info_len);
	}
	for (counter = 1; rv == CKR_OK && done < len; counter++) {
		uint32_t be = htonl(counter);

		memcpy(in + zlen, &be, sizeof(be));
		rv = p11_conn_hash(c, hash, in, in_len, d, &n);
		if (rv == CKR_OK) {
			memcpy(out + done, d, n < len - done ? n : len - done);
			done += n < len - done ? n : len - done;
		}
	}
	explicit_bzero(d, sizeof(d));
	if (in)
		explicit_bzero(in, in_len);
	free(in);
	return rv;
}

/* What the TPM step needs (p11_unlocked), taken while the module lock is held, and the new
 * key's value it gives. */
struct zgen_step {
	struct p11_object *key;
	char secret[P11_SECRET_LEN + 1]; /* the key's authValue */
	struct pqtpm_tss_ecc_point in;
	size_t n;			 /* the curve's coordinate size */
	TPM_ALG_ID hash;		 /* the KDF's, or 0 */
	const uint8_t *info;		 /* its shared data */
	size_t info_len, len;
	uint8_t value[P11_SECRET_MAX];	 /* len bytes */
};

/* ZGen of the other side's point, then the new key's value from Z: its first len bytes, or
 * the KDF of it. */
static CK_RV zgen_step(struct p11_conn *c, void *arg)
{
	struct zgen_step *st = arg;
	struct pqtpm_tss_ecc_point z;
	uint8_t secret[48];
	TPM_HANDLE h;
	TPM_RC rc;
	CK_RV rv = p11_conn_load(c, st->key, &h);

	if (rv != CKR_OK)
		return rv;
	rc = pqtpm_tss_ecdh_zgen(c->t, h, st->secret, &st->in, &z);
	/* a point off the curve (TPM_RC_ECC_POINT) or otherwise refused */
	if ((rc & 0xBFu) == (TPM_RC_ECC_POINT & 0xBFu) || (rc & 0xBFu) == (TPM_RC_VALUE & 0xBFu))
		return CKR_MECHANISM_PARAM_INVALID;
	rv = p11_conn_rv(c, rc, "ECDH_ZGen");
	if (rv == CKR_PIN_INCORRECT)
		rv = CKR_DEVICE_ERROR;
	if (rv == CKR_OK && z.x_size > st->n)
		rv = CKR_DEVICE_ERROR;
	if (rv == CKR_OK) {
		/* the x-coordinate as a field element of n bytes */
		memset(secret, 0, st->n - z.x_size);
		memcpy(secret + st->n - z.x_size, z.x, z.x_size);
		if (st->hash)
			rv = x963(c, st->hash, secret, st->n, st->info, st->info_len, st->value,
				  st->len);
		else
			memcpy(st->value, secret, st->len);
	}
	explicit_bzero(&z, sizeof(z));
	explicit_bzero(secret, sizeof(secret));
	return rv;
}

/* The checks before the TPM: mechanism, parameters, base key, login; the point and the KDF. */
static CK_RV derive_args(struct p11_session *s, struct p11_token *tok, const CK_MECHANISM *m,
			 CK_OBJECT_HANDLE base, struct p11_object **k,
			 struct pqtpm_tss_ecc_point *in, TPM_ALG_ID *hash)
{
	const CK_ECDH1_DERIVE_PARAMS *p;
	CK_RV rv;

	if (m->mechanism != CKM_ECDH1_DERIVE)
		return CKR_MECHANISM_INVALID;
	p = m->pParameter;
	if (!p || m->ulParameterLen != sizeof(*p))
		return CKR_MECHANISM_PARAM_INVALID;
	rv = kdf_hash(p->kdf, hash);
	if (rv != CKR_OK)
		return rv;
	/* shared data goes into a KDF only */
	if (p->ulSharedDataLen && (!*hash || !p->pSharedData))
		return CKR_MECHANISM_PARAM_INVALID;
	if (p11_object_get(s, tok, base, k) != CKR_OK)
		return CKR_KEY_HANDLE_INVALID;
	if (p11_attr_ulong(*k, CKA_CLASS, 0) != CKO_PRIVATE_KEY ||
	    p11_attr_ulong(*k, CKA_KEY_TYPE, CK_UNAVAILABLE_INFORMATION) != CKK_EC)
		return CKR_KEY_TYPE_INCONSISTENT;
	if (!p11_attr_bool(*k, CKA_DERIVE, false))
		return CKR_KEY_FUNCTION_NOT_PERMITTED;
	if (tok->user != CKU_USER)
		return CKR_USER_NOT_LOGGED_IN;
	return peer_point(p, coord_size(*k), in);
}

/* The new key's length: the template's, else Z's (CKD_NULL) or the hash's (a KDF). */
static CK_RV key_len(const struct p11_secret_req *r, TPM_ALG_ID hash, size_t zlen, size_t *len)
{
	size_t dflt = hash ? p11_hash_size(hash) : zlen;

	if (!r->len) {
		*len = dflt;
		return p11_secret_len_ok(r->type, dflt) ? CKR_OK : CKR_TEMPLATE_INCOMPLETE;
	}
	*len = r->len;
	if ((!hash && r->len > zlen) || !p11_secret_len_ok(r->type, r->len))
		return CKR_ATTRIBUTE_VALUE_INVALID;
	return CKR_OK;
}

CK_RV C_DeriveKey(CK_SESSION_HANDLE hSession, CK_MECHANISM_PTR pMechanism,
		  CK_OBJECT_HANDLE hBaseKey, CK_ATTRIBUTE_PTR pTemplate, CK_ULONG ulAttributeCount,
		  CK_OBJECT_HANDLE_PTR phKey)
{
	struct p11_secret_req r = { .origin = P11_SECRET_DERIVED, .type = CKK_GENERIC_SECRET };
	struct zgen_step *st = NULL;
	const CK_ECDH1_DERIVE_PARAMS *p;
	struct p11_object *k, *o = NULL;
	struct p11_session *s;
	struct p11_token *tok;
	TPM_ALG_ID hash = 0;
	CK_RV rv = p11_enter_session(hSession, &s, &tok);

	if (rv != CKR_OK)
		return rv;
	if (!pMechanism || !phKey || (!pTemplate && ulAttributeCount))
		return p11_done(CKR_ARGUMENTS_BAD);
	st = calloc(1, sizeof(*st));
	if (!st)
		return p11_done(CKR_HOST_MEMORY);
	rv = derive_args(s, tok, pMechanism, hBaseKey, &k, &st->in, &hash);
	if (rv == CKR_OK) {
		o = p11_object_new(s->slot);
		rv = o ? CKR_OK : CKR_HOST_MEMORY;
	}
	if (rv != CKR_OK) {
		free(st);
		return p11_done(rv);
	}
	p = pMechanism->pParameter;
	st->key = k;
	st->n = coord_size(k);
	st->hash = hash;
	st->info = p->pSharedData;
	st->info_len = p->ulSharedDataLen;
	r.base = k;
	rv = p11_secret_template(s, tok, pTemplate, ulAttributeCount, o, &r);
	if (rv == CKR_OK)
		rv = key_len(&r, hash, st->n, &st->len);
	p11_object_hold(k); /* the new key's attributes are read from it after the step */
	if (rv == CKR_OK) {
		memcpy(st->secret, tok->secret, sizeof(st->secret));
		rv = p11_unlocked(k, zgen_step, st);
		explicit_bzero(st->secret, sizeof(st->secret));
	}
	if (rv == CKR_OK)
		rv = p11_secret_finish(hSession, o, &r, st->value, st->len, phKey);
	else
		p11_object_free(o);
	p11_object_release(k);
	explicit_bzero(st, sizeof(*st));
	free(st);
	return p11_done(rv);
}
