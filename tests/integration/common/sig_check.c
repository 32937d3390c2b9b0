/* Signature checks with a public area alone (sig_check.h). */
#include "sig_check.h"

#include "crypto/crypto.h"
#include "crypto/mldsa.h"

bool sig_check_digest(const struct pqtpm_tss_public *pub, const uint8_t *digest, size_t dlen,
		      const struct pqtpm_tss_signature *sig)
{
	const uint8_t *r, *s, *n;
	size_t rlen, slen, nlen;
	TPM_ALG_ID alg, hash;
	struct pqtpm_tss_ecc_point q;
	uint16_t curve;

	if (pqtpm_tss_public_type(pub) == TPM_ALG_ECC) {
		return pqtpm_tss_public_ecc(pub, &curve, &q) == TPM_RC_SUCCESS &&
		       pqtpm_tss_signature_ecdsa(sig, &hash, &r, &rlen, &s, &slen) ==
			       TPM_RC_SUCCESS &&
		       crypto_ecdsa_verify(curve, q.x, q.y, digest, dlen, r, rlen, s, slen) ==
			       TPM_RC_SUCCESS;
	}
	if (pqtpm_tss_public_type(pub) != TPM_ALG_RSA ||
	    pqtpm_tss_signature_parse(sig, &alg, &hash, &s, &slen) != TPM_RC_SUCCESS ||
	    (alg != TPM_ALG_RSASSA && alg != TPM_ALG_RSAPSS) ||
	    pqtpm_tss_public_key(pub, &n, &nlen) != TPM_RC_SUCCESS)
		return false;
	struct crypto_rsa key = { .n = n, .nlen = nlen };

	return crypto_rsa_verify(&key, alg, hash, digest, dlen, s, slen) == TPM_RC_SUCCESS;
}

/* The ML-DSA parameter set of a public key of len bytes; 0 if none has that size. */
static int mldsa_set_of(size_t len)
{
	for (int set = TPM_MLDSA_44; set <= TPM_MLDSA_87; set++)
		if (mldsa_pk_bytes(set) == len)
			return set;
	return 0;
}

bool sig_check_message(const struct pqtpm_tss_public *pub, const uint8_t *msg, size_t len,
		       const uint8_t *ctx, size_t ctx_len, const struct pqtpm_tss_signature *sig)
{
	const uint8_t *pk, *s, *r;
	size_t pklen, slen, rlen;
	TPM_ALG_ID alg, hash;
	uint8_t digest[64];

	if (pqtpm_tss_public_type(pub) == TPM_ALG_MLDSA)
		return pqtpm_tss_public_key(pub, &pk, &pklen) == TPM_RC_SUCCESS &&
		       pqtpm_tss_signature_parse(sig, &alg, &hash, &s, &slen) ==
			       TPM_RC_SUCCESS &&
		       alg == TPM_ALG_MLDSA && mldsa_set_of(pklen) != 0 &&
		       mldsa_verify(mldsa_set_of(pklen), pk, msg, len, ctx, ctx_len, s, slen) == 0;
	if (pqtpm_tss_signature_parse(sig, &alg, &hash, &s, &slen) != TPM_RC_SUCCESS &&
	    pqtpm_tss_signature_ecdsa(sig, &hash, &r, &rlen, &s, &slen) != TPM_RC_SUCCESS)
		return false;
	return crypto_hash(hash, msg, len, digest) == TPM_RC_SUCCESS &&
	       sig_check_digest(pub, digest, crypto_hash_size(hash), sig);
}
