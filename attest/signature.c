/* A quote's signature checked with the AK alone, no TPM: the AK's own scheme and hash (a
 * signature of another scheme or hash is refused, whatever it would verify as). */
#include <string.h>

#include "attest_int.h"
#include "crypto/crypto.h"
#include "crypto/mldsa.h"

static TPM_RC view2b(struct rd *r, const uint8_t **p, size_t *len)
{
	uint16_t n;

	TRY(rd_u16(r, &n));
	*len = n;
	return rd_view(r, n, p);
}

static bool fail(const char **why, const char *text)
{
	*why = text;
	return false;
}

bool ak_signature_ok(const struct ak_public *p, const uint8_t *msg, size_t len,
		     const uint8_t *sig, size_t sig_len, const char **why)
{
	const uint8_t *a, *b = NULL;
	size_t alen, blen = 0;
	uint8_t digest[64];
	uint16_t alg, hash = TPM_ALG_NULL;
	struct rd r;

	rd_init(&r, sig, sig_len);
	if (rd_u16(&r, &alg))
		return fail(why, "TPMT_SIGNATURE truncated");
	if (alg != p->scheme)
		return fail(why, "signed with another scheme than the AK's");
	if (alg != TPM_ALG_MLDSA && rd_u16(&r, &hash))
		return fail(why, "TPMT_SIGNATURE truncated");
	if (alg != TPM_ALG_MLDSA && hash != p->scheme_hash)
		return fail(why, "signed with another hash than the AK's scheme");
	if (view2b(&r, &a, &alen) || (alg == TPM_ALG_ECDSA && view2b(&r, &b, &blen)))
		return fail(why, "TPMT_SIGNATURE truncated");
	if (rd_left(&r))
		return fail(why, "bytes after the TPMT_SIGNATURE");
	if (alg == TPM_ALG_MLDSA && (mldsa_pk_bytes(p->parameter_set) == 0 ||
				     p->key_len != mldsa_pk_bytes(p->parameter_set)))
		return fail(why, "the AK's ML-DSA key has the wrong size");
	if (alg == TPM_ALG_ECDSA && (crypto_ecc_bytes(p->curve) == 0 ||
				     p->key_len != crypto_ecc_bytes(p->curve) ||
				     p->y_len != crypto_ecc_bytes(p->curve)))
		return fail(why, "the AK's ECC point has the wrong size");
	if (alg == TPM_ALG_MLDSA) /* FIPS 204 pure ML-DSA over the TPMS_ATTEST, empty context */
		return mldsa_verify(p->parameter_set, p->key, msg, len, NULL, 0, a, alen) == 0
			       ? true
			       : fail(why, "the ML-DSA signature does not verify");
	if (crypto_hash(hash, msg, len, digest) != TPM_RC_SUCCESS)
		return fail(why, "unsupported hash");
	if (alg == TPM_ALG_RSASSA || alg == TPM_ALG_RSAPSS) {
		struct crypto_rsa key = { .n = p->key, .nlen = p->key_len, .e = p->exponent };

		return crypto_rsa_verify(&key, alg, hash, digest, crypto_hash_size(hash), a,
					 alen) == TPM_RC_SUCCESS
			       ? true
			       : fail(why, "the RSA signature does not verify");
	}
	if (alg == TPM_ALG_ECDSA)
		return crypto_ecdsa_verify(p->curve, p->key, p->y, digest, crypto_hash_size(hash),
					   a, alen, b, blen) == TPM_RC_SUCCESS
			       ? true
			       : fail(why, "the ECDSA signature does not verify");
	return fail(why, "unsupported signature scheme");
}
