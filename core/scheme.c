/* Key schemes: choosing them and running them (see scheme.h). */
#include <string.h>

#include "scheme.h"
#include "ticket.h"

/* Does a signing scheme fit the key type, with a hash we have? */
static bool sign_scheme_fits(TPM_ALG_ID type, const struct tpmt_scheme *s)
{
	switch (s->scheme) {
	case TPM_ALG_RSASSA:
	case TPM_ALG_RSAPSS:
		return type == TPM_ALG_RSA && crypto_hash_size(s->hash_alg) != 0;
	case TPM_ALG_ECDSA:
		return type == TPM_ALG_ECC && crypto_hash_size(s->hash_alg) != 0;
	case TPM_ALG_HMAC:
		return type == TPM_ALG_KEYEDHASH && crypto_hash_size(s->hash_alg) != 0;
	default:
		return false;
	}
}

/* The rule Sign and RSA_Decrypt share: the key's scheme wins, the caller may only repeat it. */
static TPM_RC pick(const struct tpmt_scheme *key, const struct tpmt_scheme *in,
		   struct tpmt_scheme *out)
{
	if (key->scheme == TPM_ALG_NULL)
		*out = *in;
	else if (in->scheme == TPM_ALG_NULL)
		*out = *key;
	else if (key->scheme != in->scheme || key->hash_alg != in->hash_alg)
		return TPM_RC_SCHEME;
	else
		*out = *in;
	return TPM_RC_SUCCESS;
}

TPM_RC scheme_sign(const struct tpmt_public *pub, const struct tpmt_scheme *in,
		   struct tpmt_scheme *out)
{
	TRY(pick(&pub->scheme, in, out));
	return sign_scheme_fits(pub->type, out) ? TPM_RC_SUCCESS : TPM_RC_SCHEME;
}

TPM_RC scheme_sign_allowed(struct pqtpm_engine *e, const struct object *key,
			   const struct tpm2b_digest *digest, const struct tpmt_ticket *validation)
{
	struct tpmt_ticket expected;

	if (!(key->pub.attributes & TPMA_OBJECT_RESTRICTED) && validation->digest.size == 0)
		return TPM_RC_SUCCESS;
	TRY(ticket_hashcheck(e, validation->hierarchy, digest, &expected));
	return ticket_matches(validation, &expected) ? TPM_RC_SUCCESS : TPM_RC_TICKET;
}

static TPM_RC sign_rsa(const struct object *key, const struct tpmt_scheme *scheme,
		       const struct tpm2b_digest *digest, struct tpmt_signature *sig)
{
	struct crypto_rsa k;
	size_t n = 0;

	if (key->pub.unique.size > MAX_RSA_KEY_BYTES)
		return TPM_RC_KEY;
	scheme_rsa_key(key, &k);
	TRY(crypto_rsa_sign(&k, scheme->scheme, scheme->hash_alg, digest->b, digest->size,
			    sig->sig, &n));
	sig->size = (uint16_t)n;
	return TPM_RC_SUCCESS;
}

static TPM_RC sign_ecdsa(const struct object *key, const struct tpm2b_digest *digest,
			 struct tpmt_signature *sig)
{
	size_t len = crypto_ecc_bytes(key->pub.curve_id);
	uint8_t d[CRYPTO_MAX_ECC_BYTES];
	TPM_RC rc;

	if (len == 0)
		return TPM_RC_CURVE;
	TRY(scheme_ecc_fixed(key->sens.sensitive.b, key->sens.sensitive.size, len, d));
	rc = crypto_ecdsa_sign(key->pub.curve_id, d, digest->b, digest->size, sig->r.b, sig->s.b);
	crypto_wipe(d, sizeof(d));
	sig->r.size = sig->s.size = (uint16_t)len;
	return rc;
}

static TPM_RC sign_hmac(const struct object *key, TPM_ALG_ID hash,
			const struct tpm2b_digest *digest, struct tpmt_signature *sig)
{
	sig->size = (uint16_t)crypto_hash_size(hash);
	return crypto_hmac(hash, key->sens.sensitive.b, key->sens.sensitive.size, digest->b,
			   digest->size, sig->sig);
}

TPM_RC scheme_sign_digest(const struct object *key, const struct tpmt_scheme *scheme,
			  const struct tpm2b_digest *digest, struct tpmt_signature *sig)
{
	/* a public-only key (LoadExternal) has nothing to sign with */
	if (!key->has_sensitive)
		return TPM_RC_AUTH_UNAVAILABLE;
	memset(sig, 0, sizeof(*sig));
	sig->sig_alg = scheme->scheme;
	sig->hash = scheme->hash_alg;
	switch (key->pub.type) {
	case TPM_ALG_RSA:
		return sign_rsa(key, scheme, digest, sig);
	case TPM_ALG_ECC:
		return sign_ecdsa(key, digest, sig);
	case TPM_ALG_KEYEDHASH:
		return sign_hmac(key, scheme->hash_alg, digest, sig);
	default:
		return TPM_RC_SCHEME;
	}
}

static TPM_RC verify_rsa(const struct object *key, const struct tpm2b_digest *digest,
			 const struct tpmt_signature *sig)
{
	struct crypto_rsa k;

	if (sig->sig_alg != TPM_ALG_RSASSA && sig->sig_alg != TPM_ALG_RSAPSS)
		return TPM_RC_SCHEME;
	if (sig->size != key->pub.unique.size)
		return TPM_RC_SIGNATURE;
	scheme_rsa_key(key, &k);
	return crypto_rsa_verify(&k, sig->sig_alg, sig->hash, digest->b, digest->size, sig->sig,
				 sig->size);
}

static TPM_RC verify_ecdsa(const struct object *key, const struct tpm2b_digest *digest,
			   const struct tpmt_signature *sig)
{
	size_t len = crypto_ecc_bytes(key->pub.curve_id);
	uint8_t x[CRYPTO_MAX_ECC_BYTES], y[CRYPTO_MAX_ECC_BYTES];

	if (sig->sig_alg != TPM_ALG_ECDSA)
		return TPM_RC_SCHEME;
	if (len == 0)
		return TPM_RC_CURVE;
	TRY(scheme_ecc_fixed(key->pub.x.b, key->pub.x.size, len, x));
	TRY(scheme_ecc_fixed(key->pub.y.b, key->pub.y.size, len, y));
	return crypto_ecdsa_verify(key->pub.curve_id, x, y, digest->b, digest->size, sig->r.b,
				   sig->r.size, sig->s.b, sig->s.size);
}

/* An HMAC "signature" verifies by computing it again. A key with a scheme only accepts
 * signatures made with that scheme, so a weaker hash cannot be slipped in. */
static TPM_RC verify_hmac(const struct object *key, const struct tpm2b_digest *digest,
			  const struct tpmt_signature *sig)
{
	const struct tpmt_scheme *ks = &key->pub.scheme;
	uint8_t mac[CRYPTO_MAX_DIGEST];
	size_t n = crypto_hash_size(sig->hash);
	bool same;

	if (!key->has_sensitive)
		return rc_handle(TPM_RC_HANDLE, 1);
	if (sig->sig_alg != TPM_ALG_HMAC)
		return TPM_RC_SCHEME;
	if (ks->scheme != TPM_ALG_NULL && (ks->scheme != TPM_ALG_HMAC || ks->hash_alg != sig->hash))
		return TPM_RC_SIGNATURE;
	if (n == 0 || sig->size != n)
		return TPM_RC_SIGNATURE;
	TRY(crypto_hmac(sig->hash, key->sens.sensitive.b, key->sens.sensitive.size, digest->b,
			digest->size, mac));
	same = crypto_ct_equal(mac, sig->sig, n);
	crypto_wipe(mac, sizeof(mac));
	return same ? TPM_RC_SUCCESS : TPM_RC_SIGNATURE;
}

TPM_RC scheme_verify(const struct object *key, const struct tpm2b_digest *digest,
		     const struct tpmt_signature *sig)
{
	switch (key->pub.type) {
	case TPM_ALG_RSA:
		return verify_rsa(key, digest, sig);
	case TPM_ALG_ECC:
		return verify_ecdsa(key, digest, sig);
	case TPM_ALG_KEYEDHASH:
		return verify_hmac(key, digest, sig);
	default:
		return TPM_RC_SCHEME;
	}
}

TPM_RC scheme_rsa_decrypt(const struct tpmt_public *pub, const struct tpmt_scheme *in,
			  struct tpmt_scheme *out)
{
	TRY(pick(&pub->scheme, in, out));
	switch (out->scheme) {
	case TPM_ALG_NULL:
	case TPM_ALG_RSAES:
		return TPM_RC_SUCCESS;
	case TPM_ALG_OAEP:
		return crypto_hash_size(out->hash_alg) ? TPM_RC_SUCCESS : TPM_RC_SCHEME;
	default:
		return TPM_RC_SCHEME;
	}
}

TPM_RC scheme_hmac(const struct object *key, TPM_ALG_ID in, TPM_ALG_ID *hash)
{
	if (key->pub.type != TPM_ALG_KEYEDHASH)
		return rc_handle(TPM_RC_TYPE, 1);
	if (key->pub.attributes & TPMA_OBJECT_RESTRICTED)
		return rc_handle(TPM_RC_ATTRIBUTES, 1);
	if (!(key->pub.attributes & TPMA_OBJECT_SIGN_ENCRYPT))
		return rc_handle(TPM_RC_KEY, 1);
	*hash = in;
	if (key->pub.scheme.scheme != TPM_ALG_NULL) {
		*hash = key->pub.scheme.hash_alg;
		if (in != TPM_ALG_NULL && in != *hash)
			return rc_param(TPM_RC_VALUE, 2);
	}
	if (*hash == TPM_ALG_NULL)
		return rc_param(TPM_RC_VALUE, 2);
	/* a public-only key (LoadExternal) has no secret to HMAC with */
	if (!key->has_sensitive)
		return TPM_RC_AUTH_UNAVAILABLE;
	return TPM_RC_SUCCESS;
}

void scheme_rsa_key(const struct object *key, struct crypto_rsa *k)
{
	k->n = key->pub.unique.b;
	k->nlen = key->pub.unique.size;
	k->e = key->pub.exponent;
	k->p = key->has_sensitive ? key->sens.sensitive.b : NULL;
	k->plen = key->has_sensitive ? key->sens.sensitive.size : 0;
}

TPM_RC scheme_ecc_fixed(const uint8_t *b, size_t n, size_t len, uint8_t *out)
{
	if (n > len)
		return TPM_RC_KEY;
	memset(out, 0, len - n);
	memcpy(out + (len - n), b, n);
	return TPM_RC_SUCCESS;
}
