/* Secret sharing (see pq_secret.h). */
#include <string.h>

#include "cmd/pq_secret.h"
#include "crypto/mlkem.h"
#include "scheme.h"

/* ---- RSA ---- */

static TPM_RC rsa_encrypt(const struct key_material *key, const char *label, const uint8_t *seed,
			  size_t dlen, uint8_t *out, size_t cap, size_t *outlen)
{
	struct crypto_rsa k;

	if (cap < key->pub.unique.size)
		return TPM_RC_SIZE;
	scheme_rsa_key(key, &k);
	k.p = NULL;
	k.plen = 0;
	return crypto_rsa_encrypt(&k, TPM_ALG_OAEP, key->pub.name_alg, (const uint8_t *)label,
				  strlen(label) + 1, seed, dlen, out, outlen);
}

static TPM_RC rsa_decrypt(const struct key_material *key, const char *label, const uint8_t *in,
			  size_t inlen, uint8_t *seed, size_t dlen, size_t *seed_len)
{
	uint8_t out[CRYPTO_MAX_RSA_BYTES];
	struct crypto_rsa k;
	size_t n = 0;
	TPM_RC rc;

	scheme_rsa_key(key, &k);
	rc = crypto_rsa_decrypt_cached(&k, key_material_rsa(key), TPM_ALG_OAEP, key->pub.name_alg,
				       (const uint8_t *)label, strlen(label) + 1, in, inlen, out, &n);
	if (rc == TPM_RC_SUCCESS && n > dlen)
		rc = TPM_RC_VALUE;
	if (rc == TPM_RC_SUCCESS) {
		memcpy(seed, out, n);
		*seed_len = n;
	}
	crypto_wipe(out, sizeof(out));
	return rc == TPM_RC_SUCCESS ? rc : TPM_RC_VALUE;
}

/* ---- ECC ---- */

static TPM_RC ecc_encrypt(const struct key_material *key, const char *label, uint8_t *seed,
			  size_t dlen, uint8_t *out, size_t cap, size_t *outlen)
{
	size_t n = crypto_ecc_bytes(key->pub.curve_id);
	uint8_t d[CRYPTO_MAX_ECC_BYTES], ex[CRYPTO_MAX_ECC_BYTES], ey[CRYPTO_MAX_ECC_BYTES];
	uint8_t qx[CRYPTO_MAX_ECC_BYTES], qy[CRYPTO_MAX_ECC_BYTES];
	uint8_t zx[CRYPTO_MAX_ECC_BYTES], zy[CRYPTO_MAX_ECC_BYTES];
	struct wr w;
	TPM_RC rc;

	if (n == 0)
		return TPM_RC_CURVE;
	TRY(scheme_ecc_fixed(key->pub.x.b, key->pub.x.size, n, qx));
	TRY(scheme_ecc_fixed(key->pub.y.b, key->pub.y.size, n, qy));
	rc = crypto_ecc_generate(crypto_system_rng(), key->pub.curve_id, d, ex, ey);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_ecdh(key->pub.curve_id, d, qx, n, qy, n, zx, zy);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_kdfe(key->pub.name_alg, zx, n, label, ex, n, qx, n,
				 (uint32_t)dlen * 8, seed);
	crypto_wipe(d, sizeof(d));
	crypto_wipe(zx, sizeof(zx));
	crypto_wipe(zy, sizeof(zy));
	TRY(rc);
	wr_init(&w, out, cap);
	TRY(wr_tpm2b(&w, ex, (uint16_t)n));
	TRY(wr_tpm2b(&w, ey, (uint16_t)n));
	*outlen = w.off;
	return TPM_RC_SUCCESS;
}

static TPM_RC ecc_decrypt(const struct key_material *key, const char *label, const uint8_t *in,
			  size_t inlen, uint8_t *seed, size_t dlen)
{
	size_t n = crypto_ecc_bytes(key->pub.curve_id);
	struct tpm2b_ecc_parameter ex, ey;
	uint8_t d[CRYPTO_MAX_ECC_BYTES], qx[CRYPTO_MAX_ECC_BYTES];
	uint8_t zx[CRYPTO_MAX_ECC_BYTES], zy[CRYPTO_MAX_ECC_BYTES];
	struct rd r;
	TPM_RC rc;

	if (n == 0)
		return TPM_RC_CURVE;
	rd_init(&r, in, inlen);
	if (rd_tpm2b(&r, ex.b, sizeof(ex.b), &ex.size) != TPM_RC_SUCCESS ||
	    rd_tpm2b(&r, ey.b, sizeof(ey.b), &ey.size) != TPM_RC_SUCCESS || rd_left(&r) != 0)
		return TPM_RC_SIZE;
	TRY(scheme_ecc_fixed(key->pub.x.b, key->pub.x.size, n, qx));
	rc = scheme_ecc_fixed(key->sens.sensitive.b, key->sens.sensitive.size, n, d);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_ecdh(key->pub.curve_id, d, ex.b, ex.size, ey.b, ey.size, zx, zy);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_kdfe(key->pub.name_alg, zx, n, label, ex.b, ex.size, qx, n,
				 (uint32_t)dlen * 8, seed);
	crypto_wipe(d, sizeof(d));
	crypto_wipe(zx, sizeof(zx));
	crypto_wipe(zy, sizeof(zy));
	return rc;
}

/* ---- ML-KEM ---- */

static TPM_RC kem_seed(const struct key_material *key, const char *label, const uint8_t *k,
		       const uint8_t *ct, size_t ctlen, uint8_t *seed, size_t dlen)
{
	return crypto_kdfa(key->pub.name_alg, k, MLKEM_SS_BYTES, label, ct, ctlen,
			   key->pub.unique.b, key->pub.unique.size, (uint32_t)dlen * 8, seed);
}

static TPM_RC mlkem_encrypt(const struct key_material *key, const char *label, uint8_t *seed,
			    size_t dlen, uint8_t *out, size_t cap, size_t *outlen)
{
	int set = key->pub.parameter_set;
	size_t ctlen = mlkem_ct_bytes(set);
	uint8_t m[32], k[MLKEM_SS_BYTES];
	TPM_RC rc;

	if (ctlen == 0 || key->pub.unique.size != mlkem_ek_bytes(set))
		return TPM_RC_KEY;
	if (cap < ctlen)
		return TPM_RC_SIZE;
	rc = crypto_random(m, sizeof(m));
	if (rc == TPM_RC_SUCCESS && mlkem_encaps(set, key->pub.unique.b, m, out, k) != 0)
		rc = TPM_RC_KEY;
	if (rc == TPM_RC_SUCCESS)
		rc = kem_seed(key, label, k, out, ctlen, seed, dlen);
	crypto_wipe(m, sizeof(m));
	crypto_wipe(k, sizeof(k));
	*outlen = ctlen;
	return rc;
}

/* The decapsulation key again from the seed d || z the object keeps. */
static TPM_RC mlkem_decrypt(const struct key_material *key, const char *label, const uint8_t *in,
			    size_t inlen, uint8_t *seed, size_t dlen)
{
	int set = key->pub.parameter_set;
	uint8_t ek[MLKEM_MAX_EK_BYTES], dk[MLKEM_MAX_DK_BYTES], k[MLKEM_SS_BYTES];
	TPM_RC rc = TPM_RC_SUCCESS;

	if (inlen != mlkem_ct_bytes(set))
		return TPM_RC_SIZE;
	if (key->sens.sensitive.size != 64)
		return TPM_RC_KEY;
	if (mlkem_keygen(set, key->sens.sensitive.b, key->sens.sensitive.b + 32, ek, dk) != 0 ||
	    mlkem_decaps(set, dk, in, k) != 0)
		rc = TPM_RC_FAILURE;
	if (rc == TPM_RC_SUCCESS)
		rc = kem_seed(key, label, k, in, inlen, seed, dlen);
	crypto_wipe(dk, sizeof(dk));
	crypto_wipe(k, sizeof(k));
	return rc;
}

TPM_RC secret_encrypt(const struct key_material *key, const char *label, uint8_t *seed,
		      size_t *seed_len, uint8_t *secret, size_t cap, size_t *secret_len)
{
	size_t dlen = crypto_hash_size(key->pub.name_alg);
	TPM_RC rc;

	if (dlen == 0)
		return TPM_RC_KEY;
	switch (key->pub.type) {
	case TPM_ALG_RSA:
		rc = crypto_random(seed, dlen);
		if (rc == TPM_RC_SUCCESS)
			rc = rsa_encrypt(key, label, seed, dlen, secret, cap, secret_len);
		break;
	case TPM_ALG_ECC:
		rc = ecc_encrypt(key, label, seed, dlen, secret, cap, secret_len);
		break;
	case TPM_ALG_MLKEM:
		rc = mlkem_encrypt(key, label, seed, dlen, secret, cap, secret_len);
		break;
	default:
		return TPM_RC_KEY;
	}
	if (rc != TPM_RC_SUCCESS)
		crypto_wipe(seed, dlen);
	*seed_len = dlen;
	return rc;
}

TPM_RC secret_decrypt(const struct key_material *key, const char *label, const uint8_t *secret,
		      size_t len, uint8_t *seed, size_t *seed_len)
{
	size_t dlen = crypto_hash_size(key->pub.name_alg);
	TPM_RC rc;

	if (dlen == 0 || !key->has_sensitive)
		return TPM_RC_KEY;
	*seed_len = dlen;
	switch (key->pub.type) {
	case TPM_ALG_RSA:
		rc = rsa_decrypt(key, label, secret, len, seed, dlen, seed_len);
		break;
	case TPM_ALG_ECC:
		rc = ecc_decrypt(key, label, secret, len, seed, dlen);
		break;
	case TPM_ALG_MLKEM:
		rc = mlkem_decrypt(key, label, secret, len, seed, dlen);
		break;
	default:
		return TPM_RC_KEY;
	}
	if (rc != TPM_RC_SUCCESS)
		crypto_wipe(seed, dlen);
	return rc;
}
