/* Key schemes: choosing them and running them (see scheme.h). */
#include <string.h>

#include "crypto/mldsa.h"
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
	case TPM_ALG_ECDAA:
	case TPM_ALG_ECSCHNORR:
		return type == TPM_ALG_ECC && crypto_hash_size(s->hash_alg) != 0;
	case TPM_ALG_HMAC:
		return type == TPM_ALG_KEYEDHASH && crypto_hash_size(s->hash_alg) != 0;
	case TPM_ALG_MLDSA:
		return type == TPM_ALG_MLDSA;
	case TPM_ALG_HASH_MLDSA:
		return type == TPM_ALG_HASH_MLDSA && crypto_hash_size(s->hash_alg) != 0;
	default:
		return false;
	}
}

void scheme_of_key(const struct tpmt_public *pub, struct tpmt_scheme *out)
{
	memset(out, 0, sizeof(*out));
	out->kdf = TPM_ALG_NULL;
	switch (pub->type) {
	case TPM_ALG_MLDSA:
		out->scheme = TPM_ALG_MLDSA;
		out->hash_alg = TPM_ALG_NULL;
		break;
	case TPM_ALG_HASH_MLDSA:
		out->scheme = TPM_ALG_HASH_MLDSA;
		out->hash_alg = pub->pre_hash;
		break;
	default:
		*out = pub->scheme;
		break;
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
	struct tpmt_scheme key;

	scheme_of_key(pub, &key);
	TRY(pick(&key, in, out));
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

static TPM_RC sign_rsa(const struct key_material *key, const struct tpmt_scheme *scheme,
		       const struct tpm2b_digest *digest, struct tpmt_signature *sig)
{
	struct crypto_rsa k;
	size_t n = 0;

	if (key->pub.unique.size > MAX_RSA_KEY_BYTES)
		return TPM_RC_KEY;
	scheme_rsa_key(key, &k);
	TRY(crypto_rsa_sign_cached(&k, key_material_rsa(key), scheme->scheme, scheme->hash_alg,
				   digest->b, digest->size, sig->sig, &n));
	sig->size = (uint16_t)n;
	return TPM_RC_SUCCESS;
}

/* ECDSA or EC Schnorr (ECDAA needs a commit: commit.h) */
static TPM_RC sign_ecc(const struct key_material *key, const struct tpmt_scheme *scheme,
		       const struct tpm2b_digest *digest, struct tpmt_signature *sig)
{
	size_t len = crypto_ecc_bytes(key->pub.curve_id);
	uint8_t d[CRYPTO_MAX_ECC_BYTES];
	TPM_RC rc;

	if (len == 0)
		return TPM_RC_CURVE;
	if (scheme->scheme != TPM_ALG_ECDSA && scheme->scheme != TPM_ALG_ECSCHNORR)
		return TPM_RC_SCHEME;
	TRY(scheme_ecc_fixed(key->sens.sensitive.b, key->sens.sensitive.size, len, d));
	if (scheme->scheme == TPM_ALG_ECSCHNORR)
		rc = crypto_ecschnorr_sign(key->pub.curve_id, scheme->hash_alg, d, digest->b,
					   digest->size, sig->r.b, sig->s.b);
	else
		rc = crypto_ecdsa_sign(key->pub.curve_id, d, digest->b, digest->size, sig->r.b,
				       sig->s.b);
	crypto_wipe(d, sizeof(d));
	sig->r.size = sig->s.size = (uint16_t)len;
	return rc;
}

static TPM_RC sign_hmac(const struct key_material *key, TPM_ALG_ID hash,
			const struct tpm2b_digest *digest, struct tpmt_signature *sig)
{
	sig->size = (uint16_t)crypto_hash_size(hash);
	return crypto_hmac(hash, key->sens.sensitive.b, key->sens.sensitive.size, digest->b,
			   digest->size, sig->sig);
}

/* ---- ML-DSA ---- */

/* PH for HashML-DSA: the DER of the NIST OID 2.16.840.1.101.3.4.2.x of the hashes the TPM has
 * (FIPS 204 §5.4.1). core/crypto keeps its own table private, so this repeats its three rows. */
static bool hash_oid(TPM_ALG_ID alg, uint8_t oid[11])
{
	static const uint8_t prefix[10] = { 0x06, 0x09, 0x60, 0x86, 0x48,
					    0x01, 0x65, 0x03, 0x04, 0x02 };

	memcpy(oid, prefix, sizeof(prefix));
	switch (alg) {
	case TPM_ALG_SHA256:
		oid[10] = 0x01;
		return true;
	case TPM_ALG_SHA384:
		oid[10] = 0x02;
		return true;
	case TPM_ALG_SHA512:
		oid[10] = 0x03;
		return true;
	default:
		return false;
	}
}

void scheme_mldsa_tr(const struct tpmt_public *pub, uint8_t tr[MLDSA_TR_BYTES])
{
	shake256(tr, MLDSA_TR_BYTES, pub->unique.b, pub->unique.size);
}

/* mu over tr || mode || |ctx| || ctx, the message to follow */
static void mu_head(const uint8_t tr[MLDSA_TR_BYTES], uint8_t mode, const uint8_t *ctx,
		    size_t ctxlen, struct keccak_ctx *h)
{
	uint8_t head[2] = { mode, (uint8_t)ctxlen };

	shake256_init(h);
	keccak_absorb(h, tr, MLDSA_TR_BYTES);
	keccak_absorb(h, head, sizeof(head));
	keccak_absorb(h, ctx, ctxlen);
}

void scheme_mldsa_mu_begin(const uint8_t tr[MLDSA_TR_BYTES], const uint8_t *ctx, size_t ctxlen,
			   struct keccak_ctx *h)
{
	mu_head(tr, 0, ctx, ctxlen, h);
}

void scheme_mldsa_mu_end(struct keccak_ctx *h, uint8_t mu[SCHEME_MU_BYTES])
{
	keccak_finalize(h);
	keccak_squeeze(h, mu, SCHEME_MU_BYTES);
	keccak_wipe(h, sizeof(*h));
}

TPM_RC scheme_mldsa_mu_hash(const uint8_t tr[MLDSA_TR_BYTES], TPM_ALG_ID hash,
			    const uint8_t *digest, size_t dlen, const uint8_t *ctx, size_t ctxlen,
			    uint8_t mu[SCHEME_MU_BYTES])
{
	struct keccak_ctx h;
	uint8_t oid[11];

	if (!hash_oid(hash, oid))
		return TPM_RC_HASH;
	if (dlen != crypto_hash_size(hash))
		return TPM_RC_SIZE;
	if (ctxlen > MAX_SIGNATURE_CTX)
		return TPM_RC_SIZE;
	mu_head(tr, 1, ctx, ctxlen, &h);
	keccak_absorb(&h, oid, sizeof(oid));
	keccak_absorb(&h, digest, dlen);
	scheme_mldsa_mu_end(&h, mu);
	return TPM_RC_SUCCESS;
}

TPM_RC scheme_mldsa_sign_mu(const struct key_material *key, const uint8_t mu[SCHEME_MU_BYTES],
			    struct tpmt_signature *sig)
{
	const struct mldsa_expanded *k;
	uint8_t rnd[MLDSA_RND_BYTES];
	int err;
	TPM_RC rc;

	if (key->pub.type != TPM_ALG_MLDSA && key->pub.type != TPM_ALG_HASH_MLDSA)
		return TPM_RC_KEY;
	TRY(key_material_mldsa(key, &k));
	rc = crypto_random(rnd, sizeof(rnd));
	if (rc != TPM_RC_SUCCESS)
		return rc;
	memset(sig, 0, sizeof(*sig));
	err = mldsa_sign_mu_expanded(k, mu, rnd, sig->sig);
	crypto_wipe(rnd, sizeof(rnd));
	if (err)
		return TPM_RC_FAILURE;
	sig->size = (uint16_t)mldsa_sig_bytes(key->pub.parameter_set);
	sig->sig_alg = key->pub.type;
	sig->hash = key->pub.type == TPM_ALG_HASH_MLDSA ? key->pub.pre_hash : TPM_ALG_NULL;
	return TPM_RC_SUCCESS;
}

TPM_RC scheme_mldsa_verify_mu(const struct key_material *key, const uint8_t mu[SCHEME_MU_BYTES],
			      const struct tpmt_signature *sig)
{
	const struct tpmt_public *pub = &key->pub;

	if (sig->sig_alg != pub->type)
		return TPM_RC_SCHEME;
	if (pub->type == TPM_ALG_HASH_MLDSA && sig->hash != pub->pre_hash)
		return TPM_RC_SCHEME;
	if (pub->type != TPM_ALG_MLDSA && pub->type != TPM_ALG_HASH_MLDSA)
		return TPM_RC_SCHEME;
	if (sig->size != mldsa_sig_bytes(pub->parameter_set))
		return TPM_RC_SIGNATURE;
	if (mldsa_verify_mu(pub->parameter_set, pub->unique.b, mu, sig->sig, sig->size) != 0)
		return TPM_RC_SIGNATURE;
	return TPM_RC_SUCCESS;
}

/* HashML-DSA over a digest with an empty context (TPM2_Sign, attestation) */
static TPM_RC sign_hash_mldsa(const struct key_material *key, const struct tpm2b_digest *digest,
			      struct tpmt_signature *sig)
{
	uint8_t mu[SCHEME_MU_BYTES];
	TPM_RC rc;

	rc = scheme_mldsa_mu_hash(key->mldsa_tr, key->pub.pre_hash, digest->b, digest->size,
				  NULL, 0, mu);
	if (rc == TPM_RC_SUCCESS)
		rc = scheme_mldsa_sign_mu(key, mu, sig);
	crypto_wipe(mu, sizeof(mu));
	return rc;
}

static TPM_RC verify_hash_mldsa(const struct key_material *key, const struct tpm2b_digest *digest,
				const struct tpmt_signature *sig)
{
	uint8_t mu[SCHEME_MU_BYTES];

	if (sig->sig_alg != TPM_ALG_HASH_MLDSA || sig->hash != key->pub.pre_hash)
		return TPM_RC_SCHEME;
	if (scheme_mldsa_mu_hash(key->mldsa_tr, key->pub.pre_hash, digest->b, digest->size, NULL,
				 0, mu) != TPM_RC_SUCCESS)
		return TPM_RC_SIGNATURE;
	return scheme_mldsa_verify_mu(key, mu, sig);
}

TPM_RC scheme_sign_message(const struct key_material *key, const struct tpmt_scheme *scheme,
			   const uint8_t *data, size_t len, struct tpmt_signature *sig)
{
	struct tpm2b_digest digest;
	struct keccak_ctx h;
	uint8_t mu[SCHEME_MU_BYTES];
	TPM_RC rc;

	if (!key->has_sensitive)
		return TPM_RC_AUTH_UNAVAILABLE;
	if (scheme->scheme == TPM_ALG_MLDSA) {
		if (key->pub.type != TPM_ALG_MLDSA)
			return TPM_RC_SCHEME;
		scheme_mldsa_mu_begin(key->mldsa_tr, NULL, 0, &h);
		keccak_absorb(&h, data, len);
		scheme_mldsa_mu_end(&h, mu);
		rc = scheme_mldsa_sign_mu(key, mu, sig);
		crypto_wipe(mu, sizeof(mu));
		return rc;
	}
	digest.size = (uint16_t)crypto_hash_size(scheme->hash_alg);
	if (digest.size == 0)
		return TPM_RC_SCHEME;
	TRY(crypto_hash(scheme->hash_alg, data, len, digest.b));
	return scheme_sign_digest(key, scheme, &digest, sig);
}

TPM_RC scheme_verify_message(const struct key_material *key, const uint8_t *data, size_t len,
			     const struct tpmt_signature *sig)
{
	struct tpm2b_digest digest;
	struct keccak_ctx h;
	uint8_t mu[SCHEME_MU_BYTES];

	if (key->pub.type == TPM_ALG_MLDSA) {
		scheme_mldsa_mu_begin(key->mldsa_tr, NULL, 0, &h);
		keccak_absorb(&h, data, len);
		scheme_mldsa_mu_end(&h, mu);
		return scheme_mldsa_verify_mu(key, mu, sig);
	}
	digest.size = (uint16_t)crypto_hash_size(sig->hash);
	if (digest.size == 0)
		return TPM_RC_SCHEME;
	TRY(crypto_hash(sig->hash, data, len, digest.b));
	return scheme_verify(key, &digest, sig);
}

/* ---- signing a digest ---- */

TPM_RC scheme_sign_digest(const struct key_material *key, const struct tpmt_scheme *scheme,
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
		return sign_ecc(key, scheme, digest, sig);
	case TPM_ALG_KEYEDHASH:
		return sign_hmac(key, scheme->hash_alg, digest, sig);
	case TPM_ALG_HASH_MLDSA:
		return sign_hash_mldsa(key, digest, sig);
	default: /* pure ML-DSA signs messages, not digests */
		return TPM_RC_SCHEME;
	}
}

static TPM_RC verify_rsa(const struct key_material *key, const struct tpm2b_digest *digest,
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

static TPM_RC verify_ecdsa(const struct key_material *key, const struct tpm2b_digest *digest,
			   const struct tpmt_signature *sig)
{
	size_t len = crypto_ecc_bytes(key->pub.curve_id);
	uint8_t x[CRYPTO_MAX_ECC_BYTES], y[CRYPTO_MAX_ECC_BYTES];

	if (sig->sig_alg != TPM_ALG_ECDSA && sig->sig_alg != TPM_ALG_ECSCHNORR)
		return TPM_RC_SCHEME;
	if (len == 0)
		return TPM_RC_CURVE;
	TRY(scheme_ecc_fixed(key->pub.x.b, key->pub.x.size, len, x));
	TRY(scheme_ecc_fixed(key->pub.y.b, key->pub.y.size, len, y));
	if (sig->sig_alg == TPM_ALG_ECSCHNORR)
		return crypto_ecschnorr_verify(key->pub.curve_id, sig->hash, x, y, digest->b,
					       digest->size, sig->r.b, sig->r.size, sig->s.b,
					       sig->s.size);
	return crypto_ecdsa_verify(key->pub.curve_id, x, y, digest->b, digest->size, sig->r.b,
				   sig->r.size, sig->s.b, sig->s.size);
}

/* An HMAC "signature" verifies by computing it again. A key with a scheme only accepts
 * signatures made with that scheme, so a weaker hash cannot be slipped in. */
static TPM_RC verify_hmac(const struct key_material *key, const struct tpm2b_digest *digest,
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

TPM_RC scheme_verify(const struct key_material *key, const struct tpm2b_digest *digest,
		     const struct tpmt_signature *sig)
{
	switch (key->pub.type) {
	case TPM_ALG_RSA:
		return verify_rsa(key, digest, sig);
	case TPM_ALG_ECC:
		return verify_ecdsa(key, digest, sig);
	case TPM_ALG_KEYEDHASH:
		return verify_hmac(key, digest, sig);
	case TPM_ALG_HASH_MLDSA:
		return verify_hash_mldsa(key, digest, sig);
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
	if (key->pub.type != TPM_ALG_KEYEDHASH && key->pub.type != TPM_ALG_SYMCIPHER)
		return rc_handle(TPM_RC_TYPE, 1);
	if (key->pub.attributes & TPMA_OBJECT_RESTRICTED)
		return rc_handle(TPM_RC_ATTRIBUTES, 1);
	if (!(key->pub.attributes & TPMA_OBJECT_SIGN_ENCRYPT))
		return rc_handle(TPM_RC_KEY, 1);
	/* an AES key MACs with CMAC, a keyedHash key with HMAC */
	if (key->pub.type == TPM_ALG_SYMCIPHER) {
		if (key->pub.symmetric.alg != TPM_ALG_AES)
			return rc_handle(TPM_RC_KEY, 1);
		if (in != TPM_ALG_NULL && in != TPM_ALG_CMAC)
			return rc_param(TPM_RC_VALUE, 2);
		*hash = TPM_ALG_CMAC;
		return key->has_sensitive ? TPM_RC_SUCCESS : TPM_RC_AUTH_UNAVAILABLE;
	}
	if (in == TPM_ALG_CMAC)
		return rc_param(TPM_RC_VALUE, 2);
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

void scheme_rsa_key(const struct key_material *key, struct crypto_rsa *k)
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
