/* Keys made outside the TPM and imported through the client library (tss/dup_make.c): ECC,
 * RSA and ML-DSA private keys wrapped for ECC and RSA storage parents, imported, loaded and
 * used, their signatures checked by the crypto layer; wrappers for another parent and private
 * parts of another key refused by the TPM. HashML-DSA's external mu (tss/mldsa_mu.c): a
 * pure ML-DSA key's signature of it verifies as HashML-DSA with the crypto layer and with a
 * TPM HashML-DSA key of the same public key. StirRandom's bounds. */
#include <string.h>

#include <CUnit/Basic.h>

#include "crypto/crypto.h"
#include "crypto/mldsa.h"
#include "tss_util.h"
#include "unit_main.h"

static struct pqtpm_engine *e;
static struct pqtpm_tss *t;
static struct pqtpm_tss_key ecc_parent, rsa_parent;

#define KEY_AUTH "imported"
#define SIGNER (TPMA_OBJECT_USERWITHAUTH | TPMA_OBJECT_NODA | TPMA_OBJECT_SIGN_ENCRYPT)

static void setup(void)
{
	tss_util_open(&e, &t);
	CU_ASSERT_EQUAL_FATAL(tss_util_storage(t, 0, &ecc_parent), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(tss_util_storage(t, 1, &rsa_parent), TPM_RC_SUCCESS);
}

static void teardown(void)
{
	tss_util_close(e, t);
}

/* The format-one code without its parameter or handle number. */
static TPM_RC base(TPM_RC rc)
{
	return (rc & TPM_RC_FMT1) ? (rc & 0xBFu) : rc;
}

/* Import priv (of public area pub) under parent and load it: key->handle. */
static TPM_RC import_load(const struct pqtpm_tss_key *parent, const struct pqtpm_tss_public *pub,
			  const uint8_t *priv, size_t len, struct pqtpm_tss_key *key)
{
	struct pqtpm_tss_duplicate dup;
	TPM_RC rc;

	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_duplicate_make(&parent->pub, pub, KEY_AUTH, priv, len,
						       &dup),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(dup.key.size, 0);  /* no inner wrapper */
	CU_ASSERT(dup.seed.size > 0);	   /* an outer one */
	memset(key, 0, sizeof(*key));
	key->pub = *pub;
	rc = pqtpm_tss_import(t, parent->handle, "", pub, &dup, TPM_ALG_NULL, 0, &key->priv);
	return rc == TPM_RC_SUCCESS ? pqtpm_tss_load(t, parent->handle, "", key) : rc;
}

static void ecc_public(const uint8_t *x, const uint8_t *y, struct pqtpm_tss_public *pub)
{
	struct pqtpm_tss_template tm = { .type = TPM_ALG_ECC, .attributes = SIGNER,
					 .curve = TPM_ECC_NIST_P256, .unique = x, .unique_len = 32,
					 .unique_y = y, .unique_y_len = 32 };

	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_template_public(&tm, pub), TPM_RC_SUCCESS);
}

static void test_ecc(void)
{
	uint8_t d[32], x[32], y[32], other[32], ox[32], oy[32], digest[32], r[32], s[32];
	struct pqtpm_tss_ecc_point pt;
	struct pqtpm_tss_signature sig;
	struct pqtpm_tss_public pub;
	struct pqtpm_tss_key key;
	const uint8_t *rp, *sp;
	size_t rlen, slen;
	TPM_ALG_ID hash;

	CU_ASSERT_EQUAL_FATAL(crypto_ecc_generate(crypto_system_rng(), TPM_ECC_NIST_P256, d, x, y),
			      TPM_RC_SUCCESS);
	/* the point of the scalar, as the crypto layer has it */
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_ecc_point_of(TPM_ECC_NIST_P256, d, 32, &pt),
			      TPM_RC_SUCCESS);
	CU_ASSERT(pt.x_size == 32 && !memcmp(pt.x, x, 32) && pt.y_size == 32 &&
		  !memcmp(pt.y, y, 32));
	ecc_public(x, y, &pub);
	/* under both kinds of parent, then signing and the crypto layer's verification */
	CU_ASSERT_EQUAL_FATAL(import_load(&rsa_parent, &pub, d, 32, &key), TPM_RC_SUCCESS);
	pqtpm_tss_flush(t, key.handle);
	CU_ASSERT_EQUAL_FATAL(import_load(&ecc_parent, &pub, d, 32, &key), TPM_RC_SUCCESS);
	crypto_hash(TPM_ALG_SHA256, "message", 7, digest);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_sign(t, key.handle, KEY_AUTH, digest, 32, TPM_ALG_ECDSA,
					     TPM_ALG_SHA256, NULL, &sig),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_signature_ecdsa(&sig, &hash, &rp, &rlen, &sp, &slen),
			      TPM_RC_SUCCESS);
	memset(r, 0, sizeof(r));
	memset(s, 0, sizeof(s));
	memcpy(r + 32 - rlen, rp, rlen);
	memcpy(s + 32 - slen, sp, slen);
	CU_ASSERT_EQUAL(crypto_ecdsa_verify(TPM_ECC_NIST_P256, x, y, digest, 32, r, 32, s, 32),
			TPM_RC_SUCCESS);
	/* the authValue the duplicate carries is the key's */
	CU_ASSERT_NOT_EQUAL(pqtpm_tss_sign(t, key.handle, "other", digest, 32, TPM_ALG_ECDSA,
					   TPM_ALG_SHA256, NULL, &sig),
			    TPM_RC_SUCCESS);
	pqtpm_tss_flush(t, key.handle);
	/* another key's scalar under this public key: the TPM refuses the pair */
	CU_ASSERT_EQUAL_FATAL(
		crypto_ecc_generate(crypto_system_rng(), TPM_ECC_NIST_P256, other, ox, oy),
		TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(base(import_load(&ecc_parent, &pub, other, 32, &key)), TPM_RC_BINDING);
	/* scalars outside [1, n - 1] and lengths that do not fit */
	memset(other, 0, sizeof(other));
	CU_ASSERT_EQUAL(pqtpm_tss_ecc_point_of(TPM_ECC_NIST_P256, other, 32, &pt),
			PQTPM_TSS_RC_BAD_VALUE);
	memset(other, 0xFF, sizeof(other));
	CU_ASSERT_EQUAL(pqtpm_tss_ecc_point_of(TPM_ECC_NIST_P256, other, 32, &pt),
			PQTPM_TSS_RC_BAD_VALUE);
	CU_ASSERT_EQUAL(pqtpm_tss_ecc_point_of(TPM_ECC_NIST_P384, d, 32, &pt),
			PQTPM_TSS_RC_BAD_VALUE);
}

static void test_wrong_parent(void)
{
	struct pqtpm_tss_duplicate dup;
	struct pqtpm_tss_private priv;
	struct pqtpm_tss_public pub;
	uint8_t d[32], x[32], y[32];
	TPM_RC rc;

	CU_ASSERT_EQUAL_FATAL(crypto_ecc_generate(crypto_system_rng(), TPM_ECC_NIST_P256, d, x, y),
			      TPM_RC_SUCCESS);
	ecc_public(x, y, &pub);
	/* wrapped for the RSA parent, imported under the ECC one */
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_duplicate_make(&rsa_parent.pub, &pub, "", d, 32, &dup),
			      TPM_RC_SUCCESS);
	rc = pqtpm_tss_import(t, ecc_parent.handle, "", &pub, &dup, TPM_ALG_NULL, 0, &priv);
	CU_ASSERT_NOT_EQUAL(rc, TPM_RC_SUCCESS);
	/* a changed byte of the wrapped sensitive area: the integrity check fails */
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_duplicate_make(&ecc_parent.pub, &pub, "", d, 32, &dup),
			      TPM_RC_SUCCESS);
	dup.dup.b[dup.dup.size - 1] ^= 1;
	rc = pqtpm_tss_import(t, ecc_parent.handle, "", &pub, &dup, TPM_ALG_NULL, 0, &priv);
	CU_ASSERT_EQUAL(base(rc), TPM_RC_INTEGRITY);
	/* a parent that is no storage key (no AES-CFB) cannot be wrapped for */
	CU_ASSERT_EQUAL(pqtpm_tss_duplicate_make(&pub, &pub, "", d, 32, &dup),
			PQTPM_TSS_RC_BAD_VALUE);
}

static void test_rsa(void)
{
	uint8_t n[256], p[128], digest[32];
	struct pqtpm_tss_template tm = { .type = TPM_ALG_RSA, .attributes = SIGNER,
					 .rsa_bits = 2048, .unique = n, .unique_len = 256 };
	struct crypto_rsa key = { .n = n, .nlen = 256 };
	struct pqtpm_tss_signature sig;
	struct pqtpm_tss_public pub;
	struct pqtpm_tss_key k;
	const uint8_t *b;
	size_t len;
	TPM_ALG_ID alg, hash;

	CU_ASSERT_EQUAL_FATAL(crypto_rsa_generate(crypto_system_rng(), 2048, 0, n, p),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_template_public(&tm, &pub), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(import_load(&ecc_parent, &pub, p, sizeof(p), &k), TPM_RC_SUCCESS);
	crypto_hash(TPM_ALG_SHA256, "message", 7, digest);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_sign(t, k.handle, KEY_AUTH, digest, 32, TPM_ALG_RSASSA,
					     TPM_ALG_SHA256, NULL, &sig),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_signature_parse(&sig, &alg, &hash, &b, &len),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(crypto_rsa_verify(&key, TPM_ALG_RSASSA, TPM_ALG_SHA256, digest, 32, b, len),
			TPM_RC_SUCCESS);
	pqtpm_tss_flush(t, k.handle);
	/* a prime that does not divide n */
	p[127] ^= 2;
	CU_ASSERT_EQUAL(base(import_load(&ecc_parent, &pub, p, sizeof(p), &k)), TPM_RC_BINDING);
}

/* An ML-DSA-44 public area of pk: pure with allowExternalMu, or HashML-DSA with SHA-256. */
static void mldsa_public(TPM_ALG_ID type, const uint8_t *pk, uint32_t attrs,
			 struct pqtpm_tss_public *pub)
{
	struct pqtpm_tss_template tm = { .type = type, .attributes = attrs,
					 .parameter_set = TPM_MLDSA_44, .allow_external_mu = 1,
					 .pre_hash = TPM_ALG_SHA256, .unique = pk,
					 .unique_len = (uint16_t)mldsa_pk_bytes(MLDSA_44) };

	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_template_public(&tm, pub), TPM_RC_SUCCESS);
}

static void test_hash_mldsa_mu(void)
{
	static const uint8_t ctx[] = "context";
	uint8_t xi[32], pk[MLDSA_MAX_PK_BYTES], sk[MLDSA_MAX_SK_BYTES], ph[32], mu[64];
	struct pqtpm_tss_public pure, hashed;
	struct pqtpm_tss_signature sig, hsig;
	struct pqtpm_tss_key key, hkey;
	struct pqtpm_tss_ticket tk;
	const uint8_t *b;
	size_t len;
	TPM_ALG_ID alg, hash;

	CU_ASSERT_EQUAL_FATAL(crypto_random(xi, sizeof(xi)), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(mldsa_keygen(MLDSA_44, xi, pk, sk), 0);
	mldsa_public(TPM_ALG_MLDSA, pk, SIGNER, &pure);
	/* an ML-DSA key comes in by its seed */
	CU_ASSERT_EQUAL_FATAL(import_load(&ecc_parent, &pure, xi, sizeof(xi), &key),
			      TPM_RC_SUCCESS);
	crypto_hash(TPM_ALG_SHA256, "message", 7, ph);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_hash_mldsa_mu(&pure, TPM_ALG_SHA256, ctx, sizeof(ctx) - 1,
						      ph, 32, mu, sizeof(mu)),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_sign_digest(t, key.handle, KEY_AUTH, NULL, 0, mu, 64, &sig),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_signature_parse(&sig, &alg, &hash, &b, &len),
			      TPM_RC_SUCCESS);
	/* HashML-DSA.Verify of the crypto layer: with this context only */
	CU_ASSERT_EQUAL(mldsa_verify_hash(MLDSA_44, pk, TPM_ALG_SHA256, ph, 32, ctx,
					  sizeof(ctx) - 1, b, len),
			0);
	CU_ASSERT_NOT_EQUAL(mldsa_verify_hash(MLDSA_44, pk, TPM_ALG_SHA256, ph, 32, ctx, 3, b, len),
			    0);
	CU_ASSERT_NOT_EQUAL(mldsa_verify(MLDSA_44, pk, ph, 32, ctx, sizeof(ctx) - 1, b, len), 0);
	/* and the TPM's own HashML-DSA key of the same public key */
	mldsa_public(TPM_ALG_HASH_MLDSA, pk, TPMA_OBJECT_USERWITHAUTH | TPMA_OBJECT_SIGN_ENCRYPT,
		     &hashed);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_load_public(t, TPM_RH_NULL, &hashed, &hkey),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_signature_make(TPM_ALG_HASH_MLDSA, TPM_ALG_SHA256, b, len,
						       &hsig),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(pqtpm_tss_verify_digest_signature(t, hkey.handle, ctx, sizeof(ctx) - 1, ph,
							  32, &hsig, &tk),
			TPM_RC_SUCCESS);
	ph[0] ^= 1;
	CU_ASSERT_EQUAL(base(pqtpm_tss_verify_digest_signature(t, hkey.handle, ctx,
							       sizeof(ctx) - 1, ph, 32, &hsig,
							       &tk)),
			TPM_RC_SIGNATURE);
	/* what mu cannot be made of */
	CU_ASSERT_EQUAL(pqtpm_tss_hash_mldsa_mu(&pure, TPM_ALG_SHA1, NULL, 0, ph, 20, mu, 64),
			PQTPM_TSS_RC_BAD_VALUE);
	CU_ASSERT_EQUAL(pqtpm_tss_hash_mldsa_mu(&pure, TPM_ALG_SHA256, NULL, 0, ph, 31, mu, 64),
			PQTPM_TSS_RC_BAD_VALUE);
	CU_ASSERT_EQUAL(pqtpm_tss_hash_mldsa_mu(&hashed, TPM_ALG_SHA256, NULL, 0, ph, 32, mu, 64),
			PQTPM_TSS_RC_BAD_VALUE);
	crypto_wipe(sk, sizeof(sk));
}

static void test_stir_random(void)
{
	uint8_t seed[PQTPM_TSS_MAX_STIR + 1] = { 1, 2, 3 };

	CU_ASSERT_EQUAL(pqtpm_tss_stir_random(t, seed, PQTPM_TSS_MAX_STIR), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(pqtpm_tss_stir_random(t, NULL, 0), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(pqtpm_tss_stir_random(t, seed, sizeof(seed)), PQTPM_TSS_RC_BAD_VALUE);
	CU_ASSERT_EQUAL(pqtpm_tss_stir_random(t, NULL, 1), PQTPM_TSS_RC_BAD_VALUE);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "an ECC key imported under ECC and RSA parents", test_ecc },
		{ "duplicates for another parent or damaged", test_wrong_parent },
		{ "an RSA key imported", test_rsa },
		{ "HashML-DSA external mu", test_hash_mldsa_mu },
		{ "StirRandom", test_stir_random },
	};

	return UNIT_RUN("tss_import", tests, setup, teardown);
}
