/* RSA encryption and signatures over wolfSSL, with the TPM's schemes and return codes
 * (TPM 2.0 reference CryptRsa.c): OAEP, RSAES (PKCS#1 v1.5) and raw RSA; RSASSA and RSA-PSS
 * with the salt as long as the digest. Signatures are checked by encoding the expected block
 * (RSASSA) or by our own salt-discovering PSS decoding (rsa_pss.c). */
#include <string.h>

#include "wolf.h"

static enum wc_HashType wolf_hash(TPM_ALG_ID hash)
{
	switch (hash) {
	case TPM_ALG_SHA1:
		return WC_HASH_TYPE_SHA;
	case TPM_ALG_SHA256:
		return WC_HASH_TYPE_SHA256;
	case TPM_ALG_SHA384:
		return WC_HASH_TYPE_SHA384;
	case TPM_ALG_SHA512:
		return WC_HASH_TYPE_SHA512;
	default:
		return WC_HASH_TYPE_NONE;
	}
}

static int wolf_mgf(TPM_ALG_ID hash)
{
	switch (hash) {
	case TPM_ALG_SHA1:
		return WC_MGF1SHA1;
	case TPM_ALG_SHA256:
		return WC_MGF1SHA256;
	case TPM_ALG_SHA384:
		return WC_MGF1SHA384;
	default:
		return WC_MGF1SHA512;
	}
}

/* DER DigestInfo: SEQUENCE { SEQUENCE { OID, NULL }, OCTET STRING }, 83 bytes for SHA-512 */
#define DIGEST_INFO_MAX 96

/* wolfSSL's complaints about the data (too long, bad padding, out of range) are the caller's
 * problem; anything else is ours. */
static TPM_RC from_wolf(int rc)
{
	switch (rc) {
	case RSA_BUFFER_E:
	case BUFFER_E:
	case BAD_PADDING_E:
	case RSA_PAD_E:
	case RSA_OUT_OF_RANGE_E:
	case BAD_FUNC_ARG:
		return TPM_RC_VALUE;
	default:
		return TPM_RC_FAILURE;
	}
}

static bool is_decrypt_scheme(TPM_ALG_ID scheme)
{
	return scheme == TPM_ALG_OAEP || scheme == TPM_ALG_RSAES || scheme == TPM_ALG_NULL;
}

static bool is_sign_scheme(TPM_ALG_ID scheme)
{
	return scheme == TPM_ALG_RSASSA || scheme == TPM_ALG_RSAPSS;
}

/* x^e mod n on an nlen-byte block below n; out gets nlen bytes. */
static TPM_RC public_op(RsaKey *key, const uint8_t *in, size_t nlen, uint8_t *out)
{
	word32 outlen = (word32)nlen;
	int rc = wc_RsaFunction(in, (word32)nlen, out, &outlen, RSA_PUBLIC_ENCRYPT, key, NULL);

	if (rc != 0)
		return from_wolf(rc);
	return outlen == nlen ? TPM_RC_SUCCESS : TPM_RC_FAILURE;
}

/* Raw RSA input: leading zero octets beyond nlen are allowed, the value must be below n. */
static TPM_RC raw_input(const struct crypto_rsa *key, const uint8_t *in, size_t inlen,
			uint8_t *block)
{
	for (; inlen > key->nlen; in++, inlen--)
		if (*in)
			return TPM_RC_VALUE;
	memset(block, 0, key->nlen - inlen);
	if (inlen)
		memcpy(block + key->nlen - inlen, in, inlen);
	return memcmp(block, key->n, key->nlen) < 0 ? TPM_RC_SUCCESS : TPM_RC_VALUE;
}

/* OAEP or PKCS#1 v1.5 padding and the public operation; wolfSSL takes the label as non-const
 * but only hashes it. */
static TPM_RC padded_encrypt(RsaKey *rsa, size_t nlen, TPM_ALG_ID scheme, TPM_ALG_ID hash,
			     const uint8_t *label, size_t labellen, const uint8_t *in,
			     size_t inlen, uint8_t *out)
{
	WC_RNG *rng = crypto_wolf_rng();
	int rc;

	if (!rng)
		return TPM_RC_FAILURE;
	if (scheme == TPM_ALG_OAEP)
		rc = wc_RsaPublicEncrypt_ex(in, (word32)inlen, out, (word32)nlen, rsa, rng,
					    WC_RSA_OAEP_PAD, wolf_hash(hash), wolf_mgf(hash),
					    (byte *)label, (word32)labellen);
	else
		rc = wc_RsaPublicEncrypt_ex(in, (word32)inlen, out, (word32)nlen, rsa, rng,
					    WC_RSA_PKCSV15_PAD, WC_HASH_TYPE_NONE, WC_MGF1NONE,
					    NULL, 0);
	if (rc < 0)
		return from_wolf(rc);
	return (size_t)rc == nlen ? TPM_RC_SUCCESS : TPM_RC_FAILURE;
}

TPM_RC crypto_rsa_encrypt(const struct crypto_rsa *key, TPM_ALG_ID scheme, TPM_ALG_ID hash,
			  const uint8_t *label, size_t labellen, const uint8_t *in, size_t inlen,
			  uint8_t *out, size_t *outlen)
{
	uint8_t block[CRYPTO_MAX_RSA_BYTES];
	RsaKey rsa;
	TPM_RC rc;

	*outlen = 0;
	if (!is_decrypt_scheme(scheme))
		return TPM_RC_SCHEME;
	if (scheme == TPM_ALG_OAEP && wolf_hash(hash) == WC_HASH_TYPE_NONE)
		return TPM_RC_HASH;
	rc = crypto_rsa_load(&rsa, &(struct crypto_rsa){ key->n, key->nlen, key->e, NULL, 0 });
	if (rc == TPM_RC_SUCCESS && scheme == TPM_ALG_NULL) {
		rc = raw_input(key, in, inlen, block);
		if (rc == TPM_RC_SUCCESS)
			rc = public_op(&rsa, block, key->nlen, out);
	} else if (rc == TPM_RC_SUCCESS) {
		rc = padded_encrypt(&rsa, key->nlen, scheme, hash, label, labellen, in, inlen,
				    out);
	}
	crypto_rsa_unload(&rsa);
	if (rc == TPM_RC_SUCCESS)
		*outlen = key->nlen;
	return rc;
}

/* The private operation and the removal of the padding; the DRBG is for blinding. */
static int private_decrypt(RsaKey *rsa, TPM_ALG_ID scheme, TPM_ALG_ID hash,
			   const uint8_t *label, size_t labellen, const uint8_t *in,
			   size_t nlen, uint8_t *out)
{
	WC_RNG *rng = crypto_wolf_rng();
	word32 len = (word32)nlen;
	int rc;

	if (!rng)
		return MISSING_RNG_E;
	rc = wc_RsaSetRNG(rsa, rng);
	if (rc == 0 && scheme == TPM_ALG_NULL) {
		rc = wc_RsaFunction(in, (word32)nlen, out, &len, RSA_PRIVATE_DECRYPT, rsa, rng);
		if (rc == 0)
			rc = (int)len;
	} else if (rc == 0 && scheme == TPM_ALG_OAEP) {
		rc = wc_RsaPrivateDecrypt_ex(in, (word32)nlen, out, (word32)nlen, rsa,
					     WC_RSA_OAEP_PAD, wolf_hash(hash), wolf_mgf(hash),
					     (byte *)label, (word32)labellen);
	} else if (rc == 0) {
		rc = wc_RsaPrivateDecrypt_ex(in, (word32)nlen, out, (word32)nlen, rsa,
					     WC_RSA_PKCSV15_PAD, WC_HASH_TYPE_NONE, WC_MGF1NONE,
					     NULL, 0);
	}
	return rc;
}

/* out must hold nlen bytes (raw RSA fills them all; OAEP and RSAES write only the message, and
 * nothing when decoding fails); *outlen gets the message length. */
TPM_RC crypto_rsa_decrypt(const struct crypto_rsa *key, TPM_ALG_ID scheme, TPM_ALG_ID hash,
			  const uint8_t *label, size_t labellen, const uint8_t *in, size_t inlen,
			  uint8_t *out, size_t *outlen)
{
	return crypto_rsa_decrypt_cached(key, NULL, scheme, hash, label, labellen, in, inlen, out,
					 outlen);
}

TPM_RC crypto_rsa_decrypt_cached(const struct crypto_rsa *key, struct crypto_rsa_cache *cache,
				 TPM_ALG_ID scheme, TPM_ALG_ID hash, const uint8_t *label,
				 size_t labellen, const uint8_t *in, size_t inlen, uint8_t *out,
				 size_t *outlen)
{
	RsaKey tmp, *rsa;
	TPM_RC rc;
	int len = 0;

	*outlen = 0;
	if (!is_decrypt_scheme(scheme))
		return TPM_RC_SCHEME;
	if (scheme == TPM_ALG_OAEP && wolf_hash(hash) == WC_HASH_TYPE_NONE)
		return TPM_RC_HASH;
	if (!key->p)
		return TPM_RC_KEY;
	/* the reference's CryptRsaDecrypt: a ciphertext of the wrong size or not below n */
	if (inlen != key->nlen || memcmp(in, key->n, inlen) >= 0)
		return TPM_RC_SIZE;
	rc = crypto_rsa_private(key, cache, &tmp, &rsa);
	if (rc == TPM_RC_SUCCESS) {
		len = private_decrypt(rsa, scheme, hash, label, labellen, in, key->nlen, out);
		if (len < 0)
			rc = from_wolf(len);
	}
	crypto_rsa_private_done(cache, &tmp, rsa);
	if (rc == TPM_RC_SUCCESS)
		*outlen = (size_t)len;
	return rc;
}

/* The largest salt up to the digest size that fits (TPM reference CryptRsaPssSaltSize). */
static int pss_salt(size_t hlen, size_t modbits)
{
	size_t emlen = (modbits - 1 + 7) / 8;

	if (emlen < hlen + 2)
		return 0;
	return (int)(emlen - hlen - 2 < hlen ? emlen - hlen - 2 : hlen);
}

/* DER DigestInfo for RSASSA; returns its length, 0 on failure. */
static word32 digest_info(TPM_ALG_ID hash, const uint8_t *digest, size_t dlen,
			  uint8_t info[DIGEST_INFO_MAX])
{
	return wc_EncodeSignature(info, digest, (word32)dlen, wc_HashGetOID(wolf_hash(hash)));
}

static int private_sign(RsaKey *rsa, size_t nlen, size_t modbits, TPM_ALG_ID scheme,
			TPM_ALG_ID hash, const uint8_t *digest, size_t dlen, uint8_t *sig)
{
	uint8_t info[DIGEST_INFO_MAX];
	word32 ilen = 0;
	WC_RNG *rng;
	int rc;

	if (scheme == TPM_ALG_RSASSA) {
		ilen = digest_info(hash, digest, dlen, info);
		if (ilen == 0)
			return BAD_FUNC_ARG;
	}
	rng = crypto_wolf_rng();
	if (!rng)
		return MISSING_RNG_E;
	rc = wc_RsaSetRNG(rsa, rng);
	if (rc == 0 && scheme == TPM_ALG_RSAPSS)
		rc = wc_RsaPSS_Sign_ex(digest, (word32)dlen, sig, (word32)nlen, wolf_hash(hash),
				       wolf_mgf(hash), pss_salt(dlen, modbits), rsa, rng);
	else if (rc == 0)
		rc = wc_RsaSSL_Sign(info, ilen, sig, (word32)nlen, rsa, rng);
	return rc;
}

TPM_RC crypto_rsa_sign(const struct crypto_rsa *key, TPM_ALG_ID scheme, TPM_ALG_ID hash,
		       const uint8_t *digest, size_t dlen, uint8_t *sig, size_t *siglen)
{
	return crypto_rsa_sign_cached(key, NULL, scheme, hash, digest, dlen, sig, siglen);
}

TPM_RC crypto_rsa_sign_cached(const struct crypto_rsa *key, struct crypto_rsa_cache *cache,
			      TPM_ALG_ID scheme, TPM_ALG_ID hash, const uint8_t *digest,
			      size_t dlen, uint8_t *sig, size_t *siglen)
{
	RsaKey tmp, *rsa;
	TPM_RC rc;
	int len;

	*siglen = 0;
	if (!is_sign_scheme(scheme))
		return TPM_RC_SCHEME;
	if (wolf_hash(hash) == WC_HASH_TYPE_NONE)
		return TPM_RC_HASH;
	if (dlen != crypto_hash_size(hash))
		return TPM_RC_VALUE;
	if (!key->p)
		return TPM_RC_KEY;
	rc = crypto_rsa_private(key, cache, &tmp, &rsa);
	if (rc == TPM_RC_SUCCESS) {
		len = private_sign(rsa, key->nlen, crypto_rsa_modulus_bits(key), scheme, hash,
				   digest, dlen, sig);
		if (len < 0)
			rc = from_wolf(len);
		else if ((size_t)len != key->nlen)
			rc = TPM_RC_FAILURE;
	}
	crypto_rsa_private_done(cache, &tmp, rsa);
	if (rc == TPM_RC_SUCCESS)
		*siglen = key->nlen;
	return rc;
}

/* EMSA-PKCS1-v1_5 (RFC 8017, 9.2): the block the signature must open to. */
static TPM_RC rsassa_check(TPM_ALG_ID hash, const uint8_t *digest, size_t dlen,
			   const uint8_t *em, size_t nlen)
{
	uint8_t info[DIGEST_INFO_MAX], want[CRYPTO_MAX_RSA_BYTES];
	word32 ilen = digest_info(hash, digest, dlen, info);

	if (ilen == 0 || ilen + 11 > nlen)
		return TPM_RC_SIGNATURE;
	want[0] = 0x00;
	want[1] = 0x01;
	memset(want + 2, 0xff, nlen - ilen - 3);
	want[nlen - ilen - 1] = 0x00;
	memcpy(want + nlen - ilen, info, ilen);
	return memcmp(em, want, nlen) == 0 ? TPM_RC_SUCCESS : TPM_RC_SIGNATURE;
}

TPM_RC crypto_rsa_verify(const struct crypto_rsa *key, TPM_ALG_ID scheme, TPM_ALG_ID hash,
			 const uint8_t *digest, size_t dlen, const uint8_t *sig, size_t siglen)
{
	uint8_t em[CRYPTO_MAX_RSA_BYTES];
	RsaKey rsa;
	TPM_RC rc;

	if (!is_sign_scheme(scheme))
		return TPM_RC_SCHEME;
	if (wolf_hash(hash) == WC_HASH_TYPE_NONE)
		return TPM_RC_HASH;
	rc = crypto_rsa_load(&rsa, &(struct crypto_rsa){ key->n, key->nlen, key->e, NULL, 0 });
	if (rc == TPM_RC_SUCCESS &&
	    (siglen != key->nlen || dlen != crypto_hash_size(hash) ||
	     memcmp(sig, key->n, siglen) >= 0))
		rc = TPM_RC_SIGNATURE;
	if (rc == TPM_RC_SUCCESS)
		rc = public_op(&rsa, sig, key->nlen, em);
	crypto_rsa_unload(&rsa);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	if (scheme == TPM_ALG_RSAPSS)
		return crypto_rsa_pss_check(hash, digest, dlen, em, key->nlen,
					    crypto_rsa_modulus_bits(key));
	return rsassa_check(hash, digest, dlen, em, key->nlen);
}
