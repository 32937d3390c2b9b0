/* KDFa and KDFe (TPM 2.0 Part 1, 11.4.10). Both fill the output block by block and mask the
 * excess high bits of the first byte when bits is not a multiple of 8. KDF2 (IEEE 1363a) as
 * the TPM's ECC_Encrypt uses it: whole bytes, no other input. */
#include <string.h>

#include "wolf.h"

struct kdf_input {
	const char *label; /* hashed with its terminating zero; NULL hashes the zero alone */
	const uint8_t *u, *v;
	size_t ulen, vlen;
};

/* K(i) = HMAC(key, [i]32 || Label || 0x00 || ContextU || ContextV || [bits]32); keyed is the
 * HMAC state after the key, copied so that the key is processed once. */
static TPM_RC kdfa_block(const struct crypto_hmac_ctx *keyed, uint32_t i,
			 const struct kdf_input *in, uint32_t bits, uint8_t *block)
{
	struct crypto_hmac_ctx h = *keyed;
	uint8_t counter[4], length[4];
	TPM_RC rc;

	crypto_put_be32(counter, i);
	crypto_put_be32(length, bits);
	rc = crypto_hmac_update(&h, counter, sizeof(counter));
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hmac_update(&h, in->label, strlen(in->label) + 1);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hmac_update(&h, in->u, in->ulen);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hmac_update(&h, in->v, in->vlen);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hmac_update(&h, length, sizeof(length));
	if (rc == TPM_RC_SUCCESS)
		return crypto_hmac_finish(&h, block);
	crypto_wipe(&h, sizeof(h));
	return rc;
}

/* K(i) = H([i]32 || Z || Label || 0x00 || PartyUInfo || PartyVInfo) */
static TPM_RC kdfe_block(TPM_ALG_ID hash, const uint8_t *z, size_t zlen, uint32_t i,
			 const struct kdf_input *in, uint8_t *block)
{
	struct crypto_hash_ctx h;
	uint8_t counter[4];
	TPM_RC rc;

	crypto_put_be32(counter, i);
	rc = crypto_hash_start(&h, hash);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hash_update(&h, counter, sizeof(counter));
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hash_update(&h, z, zlen);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hash_update(&h, in->label, strlen(in->label) + 1);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hash_update(&h, in->u, in->ulen);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hash_update(&h, in->v, in->vlen);
	if (rc == TPM_RC_SUCCESS)
		return crypto_hash_finish(&h, block);
	crypto_wipe(&h, sizeof(h));
	return rc;
}

static void mask_first_byte(uint8_t *out, uint32_t bits)
{
	if (bits % 8)
		out[0] &= (uint8_t)((1u << (bits % 8)) - 1);
}

TPM_RC crypto_kdfa(TPM_ALG_ID hash, const uint8_t *key, size_t keylen, const char *label,
		   const uint8_t *ctx_u, size_t ulen, const uint8_t *ctx_v, size_t vlen,
		   uint32_t bits, uint8_t *out)
{
	const struct kdf_input in = { label ? label : "", ctx_u, ctx_v, ulen, vlen };
	struct crypto_hmac_ctx keyed;
	uint8_t block[CRYPTO_MAX_DIGEST];
	size_t dsize = crypto_hash_size(hash), outlen = ((size_t)bits + 7) / 8, done = 0;
	TPM_RC rc;

	if (dsize == 0)
		return TPM_RC_HASH;
	rc = crypto_hmac_start(&keyed, hash, key, keylen);
	for (uint32_t i = 1; rc == TPM_RC_SUCCESS && done < outlen; i++) {
		size_t n = outlen - done < dsize ? outlen - done : dsize;

		rc = kdfa_block(&keyed, i, &in, bits, block);
		if (rc == TPM_RC_SUCCESS)
			memcpy(out + done, block, n);
		done += n;
	}
	crypto_wipe(&keyed, sizeof(keyed));
	crypto_wipe(block, sizeof(block));
	if (rc != TPM_RC_SUCCESS) {
		crypto_wipe(out, outlen);
		return rc;
	}
	if (outlen)
		mask_first_byte(out, bits);
	return TPM_RC_SUCCESS;
}

TPM_RC crypto_kdfe(TPM_ALG_ID hash, const uint8_t *z, size_t zlen, const char *label,
		   const uint8_t *party_u, size_t ulen, const uint8_t *party_v, size_t vlen,
		   uint32_t bits, uint8_t *out)
{
	const struct kdf_input in = { label ? label : "", party_u, party_v, ulen, vlen };
	uint8_t block[CRYPTO_MAX_DIGEST];
	size_t dsize = crypto_hash_size(hash), outlen = ((size_t)bits + 7) / 8, done = 0;
	TPM_RC rc = TPM_RC_SUCCESS;

	if (dsize == 0)
		return TPM_RC_HASH;
	for (uint32_t i = 1; rc == TPM_RC_SUCCESS && done < outlen; i++) {
		size_t n = outlen - done < dsize ? outlen - done : dsize;

		rc = kdfe_block(hash, z, zlen, i, &in, block);
		if (rc == TPM_RC_SUCCESS)
			memcpy(out + done, block, n);
		done += n;
	}
	crypto_wipe(block, sizeof(block));
	if (rc != TPM_RC_SUCCESS) {
		crypto_wipe(out, outlen);
		return rc;
	}
	if (outlen)
		mask_first_byte(out, bits);
	return TPM_RC_SUCCESS;
}

/* T(i) = H(Z || [i]32), i = 1, 2 ... (the reference implementation's CryptMGF_KDF with its
 * counter starting at 1) */
TPM_RC crypto_kdf2(TPM_ALG_ID hash, const uint8_t *z, size_t zlen, uint8_t *out, size_t len)
{
	uint8_t block[CRYPTO_MAX_DIGEST], counter[4];
	size_t dsize = crypto_hash_size(hash), done = 0;
	struct crypto_hash_ctx h;
	TPM_RC rc = TPM_RC_SUCCESS;

	if (dsize == 0)
		return TPM_RC_HASH;
	for (uint32_t i = 1; rc == TPM_RC_SUCCESS && done < len; i++) {
		size_t n = len - done < dsize ? len - done : dsize;

		crypto_put_be32(counter, i);
		rc = crypto_hash_start(&h, hash);
		if (rc == TPM_RC_SUCCESS)
			rc = crypto_hash_update(&h, z, zlen);
		if (rc == TPM_RC_SUCCESS)
			rc = crypto_hash_update(&h, counter, sizeof(counter));
		if (rc == TPM_RC_SUCCESS)
			rc = crypto_hash_finish(&h, block);
		if (rc == TPM_RC_SUCCESS)
			memcpy(out + done, block, n);
		done += n;
	}
	crypto_wipe(&h, sizeof(h));
	crypto_wipe(block, sizeof(block));
	if (rc != TPM_RC_SUCCESS)
		crypto_wipe(out, len);
	return rc;
}
