/* EMSA-PSS verification (RFC 8017, 9.1.2) that finds the salt length from the encoding, as the
 * TPM does: Debian's wolfSSL is built without WOLFSSL_PSS_SALT_LEN_DISCOVER. */
#include <string.h>

#include "wolf.h"

/* db ^= MGF1(seed) */
static TPM_RC mgf1_xor(TPM_ALG_ID hash, const uint8_t *seed, size_t seedlen, uint8_t *db,
		       size_t dblen)
{
	uint8_t block[CRYPTO_MAX_DIGEST], counter[4];
	size_t hlen = crypto_hash_size(hash);
	struct crypto_hash_ctx h;
	TPM_RC rc = TPM_RC_SUCCESS;

	for (uint32_t i = 0; rc == TPM_RC_SUCCESS && (size_t)i * hlen < dblen; i++) {
		size_t off = (size_t)i * hlen, n = dblen - off < hlen ? dblen - off : hlen;

		crypto_put_be32(counter, i);
		rc = crypto_hash_start(&h, hash);
		if (rc == TPM_RC_SUCCESS)
			rc = crypto_hash_update(&h, seed, seedlen);
		if (rc == TPM_RC_SUCCESS)
			rc = crypto_hash_update(&h, counter, sizeof(counter));
		if (rc == TPM_RC_SUCCESS)
			rc = crypto_hash_finish(&h, block);
		for (size_t j = 0; rc == TPM_RC_SUCCESS && j < n; j++)
			db[off + j] ^= block[j];
	}
	return rc;
}

TPM_RC crypto_rsa_pss_check(TPM_ALG_ID hash, const uint8_t *digest, size_t dlen,
			    const uint8_t *em, size_t nlen, size_t modbits)
{
	static const uint8_t zeros[8];
	size_t hlen = crypto_hash_size(hash), embits = modbits - 1, emlen = (embits + 7) / 8;
	uint8_t top = (uint8_t)(0xff >> (8 * emlen - embits));
	uint8_t db[CRYPTO_MAX_RSA_BYTES], expect[CRYPTO_MAX_DIGEST];
	struct crypto_hash_ctx h;
	const uint8_t *mhash;
	size_t dblen, i;
	TPM_RC rc;

	if (emlen < nlen && *em++ != 0) /* modbits = 8k + 1: a leading zero octet */
		return TPM_RC_SIGNATURE;
	if (dlen != hlen || emlen < hlen + 2 || em[emlen - 1] != 0xbc || (em[0] & ~top))
		return TPM_RC_SIGNATURE;
	dblen = emlen - hlen - 1;
	mhash = em + dblen;
	memcpy(db, em, dblen);
	rc = mgf1_xor(hash, mhash, hlen, db, dblen);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	db[0] &= top;
	for (i = 0; i < dblen && db[i] == 0; i++)
		;
	if (i == dblen || db[i] != 0x01)
		return TPM_RC_SIGNATURE;
	i++;
	/* H' = Hash(0x00 * 8 || mHash || salt) */
	rc = crypto_hash_start(&h, hash);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hash_update(&h, zeros, sizeof(zeros));
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hash_update(&h, digest, dlen);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hash_update(&h, db + i, dblen - i);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hash_finish(&h, expect);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	return memcmp(expect, mhash, hlen) == 0 ? TPM_RC_SUCCESS : TPM_RC_SIGNATURE;
}
