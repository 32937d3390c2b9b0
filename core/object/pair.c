/* Does a sensitive area belong to a public area? For keys loaded from outside (LoadExternal)
 * the TPM proves it by recomputing the public key from the private one; RSA by a raw
 * encrypt/decrypt round trip, since only p is kept. */
#include <string.h>

#include "crypto/mldsa.h"
#include "crypto/mlkem.h"
#include "object.h"

static TPM_RC pair_rsa(const struct tpmt_public *pub, const struct tpmt_sensitive *s)
{
	uint8_t m[MAX_RSA_KEY_BYTES] = { 0 }, c[MAX_RSA_KEY_BYTES], back[MAX_RSA_KEY_BYTES];
	struct crypto_rsa key = { .n = pub->unique.b, .nlen = pub->unique.size,
				  .e = pub->exponent };
	size_t nlen = pub->unique.size, clen = 0, blen = 0;
	TPM_RC rc;

	if (nlen == 0 || nlen != pub->key_bits / 8u)
		return TPM_RC_KEY;
	if (s->sensitive.size != pub->key_bits / 16u)
		return TPM_RC_KEY_SIZE;
	m[nlen - 1] = 2;
	TRY(crypto_rsa_encrypt(&key, TPM_ALG_NULL, TPM_ALG_NULL, NULL, 0, m, nlen, c, &clen));
	key.p = s->sensitive.b;
	key.plen = s->sensitive.size;
	rc = crypto_rsa_decrypt(&key, TPM_ALG_NULL, TPM_ALG_NULL, NULL, 0, c, clen, back, &blen);
	if (rc != TPM_RC_SUCCESS || blen != nlen || memcmp(back, m, nlen) != 0)
		return TPM_RC_BINDING;
	return TPM_RC_SUCCESS;
}

static TPM_RC pair_ecc(const struct tpmt_public *pub, const struct tpmt_sensitive *s)
{
	uint8_t x[MAX_ECC_KEY_BYTES], y[MAX_ECC_KEY_BYTES];
	size_t len = crypto_ecc_bytes(pub->curve_id);

	if (s->sensitive.size != len)
		return TPM_RC_KEY_SIZE;
	if (crypto_ecc_public(pub->curve_id, s->sensitive.b, x, y) != TPM_RC_SUCCESS ||
	    memcmp(x, pub->x.b, len) != 0 || memcmp(y, pub->y.b, len) != 0)
		return TPM_RC_BINDING;
	return TPM_RC_SUCCESS;
}

static TPM_RC pair_mldsa(const struct tpmt_public *pub, const struct tpmt_sensitive *s)
{
	uint8_t pk[MLDSA_MAX_PK_BYTES], sk[MLDSA_MAX_SK_BYTES];
	int err;

	if (s->sensitive.size != MLDSA_SEED_BYTES)
		return TPM_RC_KEY_SIZE;
	if (pub->unique.size != mldsa_pk_bytes(pub->parameter_set))
		return TPM_RC_KEY;
	err = mldsa_keygen(pub->parameter_set, s->sensitive.b, pk, sk);
	crypto_wipe(sk, sizeof(sk));
	if (err || memcmp(pk, pub->unique.b, pub->unique.size) != 0)
		return TPM_RC_BINDING;
	return TPM_RC_SUCCESS;
}

static TPM_RC pair_mlkem(const struct tpmt_public *pub, const struct tpmt_sensitive *s)
{
	uint8_t ek[MLKEM_MAX_EK_BYTES], dk[MLKEM_MAX_DK_BYTES];
	int err;

	if (s->sensitive.size != MLKEM_SEED_BYTES)
		return TPM_RC_KEY_SIZE;
	if (pub->unique.size != mlkem_ek_bytes(pub->parameter_set))
		return TPM_RC_KEY;
	err = mlkem_keygen(pub->parameter_set, s->sensitive.b, s->sensitive.b + 32, ek, dk);
	crypto_wipe(dk, sizeof(dk));
	if (err || memcmp(ek, pub->unique.b, pub->unique.size) != 0)
		return TPM_RC_BINDING;
	return TPM_RC_SUCCESS;
}

/* unique = H_nameAlg(seedValue || key) */
static TPM_RC pair_symmetric(const struct tpmt_public *pub, const struct tpmt_sensitive *s)
{
	uint8_t d[MAX_DIGEST_SIZE];
	struct crypto_hash_ctx h;
	TPM_RC rc;

	if (pub->type == TPM_ALG_SYMCIPHER && s->sensitive.size != pub->symmetric.key_bits / 8u)
		return TPM_RC_KEY_SIZE;
	if (pub->type == TPM_ALG_SYMCIPHER && pub->symmetric.alg == TPM_ALG_TDES &&
	    !crypto_tdes_key_ok(s->sensitive.b, s->sensitive.size))
		return TPM_RC_KEY;
	rc = crypto_hash_start(&h, pub->name_alg);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hash_update(&h, s->seed_value.b, s->seed_value.size);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hash_update(&h, s->sensitive.b, s->sensitive.size);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hash_finish(&h, d);
	crypto_wipe(&h, sizeof(h));
	if (rc != TPM_RC_SUCCESS)
		return rc;
	if (pub->unique.size != crypto_hash_size(pub->name_alg) ||
	    memcmp(d, pub->unique.b, pub->unique.size) != 0)
		return TPM_RC_BINDING;
	return TPM_RC_SUCCESS;
}

TPM_RC object_check_pair(const struct tpmt_public *pub, const struct tpmt_sensitive *sens)
{
	if (sens->type != pub->type)
		return TPM_RC_TYPE;
	if (sens->auth_value.size > crypto_hash_size(pub->name_alg))
		return TPM_RC_SIZE;
	switch (pub->type) {
	case TPM_ALG_RSA:
		return pair_rsa(pub, sens);
	case TPM_ALG_ECC:
		return pair_ecc(pub, sens);
	case TPM_ALG_MLDSA:
	case TPM_ALG_HASH_MLDSA:
		return pair_mldsa(pub, sens);
	case TPM_ALG_MLKEM:
		return pair_mlkem(pub, sens);
	case TPM_ALG_KEYEDHASH:
	case TPM_ALG_SYMCIPHER:
		return pair_symmetric(pub, sens);
	default:
		return TPM_RC_TYPE;
	}
}
