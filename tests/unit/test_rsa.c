/* RSA_Encrypt and RSA_Decrypt (core/cmd/rsa.c, core/scheme.c): OAEP, RSAES and raw round
 * trips, ciphertexts made outside the TPM, the label rule, the scheme rules, and the key
 * checks with their exact codes. */
#include <string.h>

#include <CUnit/Basic.h>

#include "engine_int.h"
#include "harness.h"
#include "keys.h"
#include "unit_main.h"

#define SIGN TPMA_OBJECT_SIGN_ENCRYPT
#define DECRYPT TPMA_OBJECT_DECRYPT
#define RESTRICTED TPMA_OBJECT_RESTRICTED

static struct harness h;

static void setup(void)
{
	harness_open(&h);
}

static void teardown(void)
{
	harness_close(&h);
}

/* ---- commands ---- */

struct blob {
	uint16_t size;
	uint8_t b[MAX_RSA_KEY_BYTES];
};

struct label {
	const void *b;
	uint16_t size;
};

static const struct label no_label = { "", 0 };
static const struct label a_label = { "label", 6 }; /* with its terminating zero */

static void wr_scheme_of(struct wr *w, TPM_ALG_ID scheme, TPM_ALG_ID hash)
{
	wr_u16(w, scheme);
	if (scheme == TPM_ALG_OAEP)
		wr_u16(w, hash);
}

static TPM_RC encrypt(const struct key *k, const void *msg, uint16_t len, TPM_ALG_ID scheme,
		      TPM_ALG_ID hash, const struct label *label, struct blob *out)
{
	struct cmdbuf b;
	struct rd rsp;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_RSA_Encrypt);
	cmd_handle(&b, k->handle);
	wr_tpm2b(&b.params, msg, len);
	wr_scheme_of(&b.params, scheme, hash);
	wr_tpm2b(&b.params, label->b, label->size);
	rc = harness_run(&h, &b, &rsp, NULL);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	CU_ASSERT_EQUAL(rd_tpm2b(&rsp, out->b, sizeof(out->b), &out->size), 0);
	CU_ASSERT_EQUAL(rd_left(&rsp), 0);
	return rc;
}

static TPM_RC decrypt_auth(const struct key *k, const char *auth, const struct blob *in,
			   TPM_ALG_ID scheme, TPM_ALG_ID hash, const struct label *label,
			   struct blob *out)
{
	struct cmdbuf b;
	struct rd rsp;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_RSA_Decrypt);
	cmd_handle(&b, k->handle);
	cmd_auth_pw(&b, auth);
	wr_tpm2b(&b.params, in->b, in->size);
	wr_scheme_of(&b.params, scheme, hash);
	wr_tpm2b(&b.params, label->b, label->size);
	rc = harness_run(&h, &b, &rsp, NULL);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	CU_ASSERT_EQUAL(rd_tpm2b(&rsp, out->b, sizeof(out->b), &out->size), 0);
	CU_ASSERT_EQUAL(rd_left(&rsp), 0);
	return rc;
}

static TPM_RC decrypt(const struct key *k, const struct blob *in, TPM_ALG_ID scheme,
		      TPM_ALG_ID hash, const struct label *label, struct blob *out)
{
	return decrypt_auth(k, "", in, scheme, hash, label, out);
}

static void rsa_key(struct key *k, TPM_ALG_ID scheme, TPM_ALG_ID hash, uint32_t attrs)
{
	struct tpmt_public t;

	key_template(&t, TPM_ALG_RSA, attrs);
	t.scheme.scheme = scheme;
	t.scheme.hash_alg = hash;
	if (attrs & RESTRICTED) {
		t.symmetric.alg = TPM_ALG_AES;
		t.symmetric.key_bits = 128;
		t.symmetric.mode = TPM_ALG_CFB;
	}
	key_primary(&h, &t, NULL, 0, k);
}

/* A ciphertext made outside the TPM with the key's public part. */
static void outside_encrypt(const struct key *k, TPM_ALG_ID scheme, TPM_ALG_ID hash,
			    const struct label *label, const void *msg, size_t len,
			    struct blob *out)
{
	struct crypto_rsa pub = { k->pub.unique.b, k->pub.unique.size, k->pub.exponent, NULL, 0 };
	size_t n = 0;

	CU_ASSERT_EQUAL_FATAL(crypto_rsa_encrypt(&pub, scheme, hash, label->b, label->size, msg,
						 len, out->b, &n),
			      0);
	out->size = (uint16_t)n;
}

static const char secret[] = "a secret of some length";

/* ---- round trips ---- */

static void round_trip(TPM_ALG_ID scheme, TPM_ALG_ID hash, const struct label *label)
{
	struct blob c1, c2, m;
	struct key k;

	rsa_key(&k, TPM_ALG_NULL, TPM_ALG_NULL, DECRYPT);
	CU_ASSERT_EQUAL_FATAL(encrypt(&k, secret, sizeof(secret), scheme, hash, label, &c1), 0);
	CU_ASSERT_EQUAL(c1.size, 256);
	CU_ASSERT_EQUAL_FATAL(decrypt(&k, &c1, scheme, hash, label, &m), 0);
	CU_ASSERT_EQUAL_FATAL(m.size, sizeof(secret));
	CU_ASSERT_EQUAL(memcmp(m.b, secret, sizeof(secret)), 0);
	/* padding is random: the same message encrypts differently */
	CU_ASSERT_EQUAL_FATAL(encrypt(&k, secret, sizeof(secret), scheme, hash, label, &c2), 0);
	CU_ASSERT_NOT_EQUAL(memcmp(c1.b, c2.b, 256), 0);

	/* a ciphertext from outside decrypts in the TPM */
	outside_encrypt(&k, scheme, hash, label, secret, sizeof(secret), &c2);
	CU_ASSERT_EQUAL_FATAL(decrypt(&k, &c2, scheme, hash, label, &m), 0);
	CU_ASSERT_EQUAL_FATAL(m.size, sizeof(secret));
	CU_ASSERT_EQUAL(memcmp(m.b, secret, sizeof(secret)), 0);

	/* a changed ciphertext does not */
	c1.b[200] ^= 4;
	CU_ASSERT_EQUAL(decrypt(&k, &c1, scheme, hash, label, &m), RC_P(TPM_RC_VALUE, 1));
}

static void test_oaep(void)
{
	round_trip(TPM_ALG_OAEP, TPM_ALG_SHA256, &a_label);
	round_trip(TPM_ALG_OAEP, TPM_ALG_SHA1, &no_label);
}

static void test_rsaes(void)
{
	round_trip(TPM_ALG_RSAES, TPM_ALG_NULL, &no_label);
}

static void test_oaep_label_binds(void)
{
	static const struct label other = { "other", 6 };
	struct blob c, m;
	struct key k;

	rsa_key(&k, TPM_ALG_NULL, TPM_ALG_NULL, DECRYPT);
	CU_ASSERT_EQUAL_FATAL(encrypt(&k, secret, 8, TPM_ALG_OAEP, TPM_ALG_SHA256, &a_label, &c), 0);
	CU_ASSERT_EQUAL(decrypt(&k, &c, TPM_ALG_OAEP, TPM_ALG_SHA256, &other, &m),
			RC_P(TPM_RC_VALUE, 1));
	CU_ASSERT_EQUAL(decrypt(&k, &c, TPM_ALG_OAEP, TPM_ALG_SHA256, &no_label, &m),
			RC_P(TPM_RC_VALUE, 1));
	/* the terminating zero is part of the label: "label" without it is another label */
	outside_encrypt(&k, TPM_ALG_OAEP, TPM_ALG_SHA256, &(struct label){ "label", 5 }, secret, 8,
			&c);
	CU_ASSERT_EQUAL(decrypt(&k, &c, TPM_ALG_OAEP, TPM_ALG_SHA256, &a_label, &m),
			RC_P(TPM_RC_VALUE, 1));
}

static void test_raw(void)
{
	uint8_t msg[256];
	struct blob c, m;
	struct key k;

	rsa_key(&k, TPM_ALG_NULL, TPM_ALG_NULL, DECRYPT);
	for (size_t i = 0; i < sizeof(msg); i++)
		msg[i] = (uint8_t)(i * 13 + 1);
	msg[0] = 0; /* below the modulus */
	CU_ASSERT_EQUAL_FATAL(encrypt(&k, msg, sizeof(msg), TPM_ALG_NULL, 0, &no_label, &c), 0);
	CU_ASSERT_EQUAL(c.size, 256);
	CU_ASSERT_EQUAL_FATAL(decrypt(&k, &c, TPM_ALG_NULL, 0, &no_label, &m), 0);
	CU_ASSERT_EQUAL_FATAL(m.size, 256);
	CU_ASSERT_EQUAL(memcmp(m.b, msg, 256), 0);
	/* raw RSA is deterministic */
	CU_ASSERT_EQUAL_FATAL(encrypt(&k, msg, sizeof(msg), TPM_ALG_NULL, 0, &no_label, &m), 0);
	CU_ASSERT_EQUAL(memcmp(m.b, c.b, 256), 0);
	/* a message not below the modulus */
	memset(msg, 0xFF, sizeof(msg));
	CU_ASSERT_EQUAL(encrypt(&k, msg, sizeof(msg), TPM_ALG_NULL, 0, &no_label, &c),
			RC_P(TPM_RC_VALUE, 1));
}

/* ---- rules ---- */

static void test_key_scheme(void)
{
	struct blob c, m;
	struct key k;

	rsa_key(&k, TPM_ALG_OAEP, TPM_ALG_SHA256, DECRYPT);
	/* NULL takes the key's scheme */
	CU_ASSERT_EQUAL_FATAL(encrypt(&k, secret, 8, TPM_ALG_NULL, 0, &a_label, &c), 0);
	CU_ASSERT_EQUAL_FATAL(decrypt(&k, &c, TPM_ALG_OAEP, TPM_ALG_SHA256, &a_label, &m), 0);
	CU_ASSERT_EQUAL(memcmp(m.b, secret, 8), 0);
	CU_ASSERT_EQUAL_FATAL(decrypt(&k, &c, TPM_ALG_NULL, 0, &a_label, &m), 0);
	CU_ASSERT_EQUAL(m.size, 8);
	/* another scheme, or another hash, is refused */
	CU_ASSERT_EQUAL(encrypt(&k, secret, 8, TPM_ALG_RSAES, 0, &a_label, &c),
			RC_P(TPM_RC_SCHEME, 2));
	CU_ASSERT_EQUAL(encrypt(&k, secret, 8, TPM_ALG_OAEP, TPM_ALG_SHA1, &a_label, &c),
			RC_P(TPM_RC_SCHEME, 2));
	CU_ASSERT_EQUAL(decrypt(&k, &c, TPM_ALG_RSAES, 0, &a_label, &m), RC_P(TPM_RC_SCHEME, 2));
	/* a signing scheme is no decryption scheme (unmarshalling) */
	CU_ASSERT_EQUAL(encrypt(&k, secret, 8, TPM_ALG_RSASSA, TPM_ALG_SHA256, &a_label, &c),
			RC_P(TPM_RC_VALUE, 2));
}

static void test_label_rules(void)
{
	static const struct label unterminated = { "label", 5 };
	static const uint8_t long_label[MAX_DIGEST_SIZE + 1];
	struct blob c, m;
	struct key k;

	rsa_key(&k, TPM_ALG_NULL, TPM_ALG_NULL, DECRYPT);
	CU_ASSERT_EQUAL(encrypt(&k, secret, 8, TPM_ALG_OAEP, TPM_ALG_SHA256, &unterminated, &c),
			RC_P(TPM_RC_VALUE, 3));
	CU_ASSERT_EQUAL_FATAL(encrypt(&k, secret, 8, TPM_ALG_OAEP, TPM_ALG_SHA256, &a_label, &c),
			      0);
	CU_ASSERT_EQUAL(decrypt(&k, &c, TPM_ALG_OAEP, TPM_ALG_SHA256, &unterminated, &m),
			RC_P(TPM_RC_VALUE, 3));
	CU_ASSERT_EQUAL(encrypt(&k, secret, 8, TPM_ALG_OAEP, TPM_ALG_SHA256,
				&(struct label){ long_label, sizeof(long_label) }, &c),
			RC_P(TPM_RC_SIZE, 3));
}

static void test_sizes(void)
{
	uint8_t msg[256] = { 0 };
	struct blob c, m;
	struct key k;

	rsa_key(&k, TPM_ALG_NULL, TPM_ALG_NULL, DECRYPT);
	/* OAEP with SHA-256 carries at most 256 - 2 * 32 - 2 = 190 bytes */
	CU_ASSERT_EQUAL(encrypt(&k, msg, 190, TPM_ALG_OAEP, TPM_ALG_SHA256, &no_label, &c), 0);
	CU_ASSERT_EQUAL(encrypt(&k, msg, 191, TPM_ALG_OAEP, TPM_ALG_SHA256, &no_label, &c),
			RC_P(TPM_RC_VALUE, 1));
	/* PKCS#1 v1.5 at most 256 - 11 */
	CU_ASSERT_EQUAL(encrypt(&k, msg, 245, TPM_ALG_RSAES, 0, &no_label, &c), 0);
	CU_ASSERT_EQUAL(encrypt(&k, msg, 246, TPM_ALG_RSAES, 0, &no_label, &c),
			RC_P(TPM_RC_VALUE, 1));
	/* a ciphertext must be exactly the modulus long */
	CU_ASSERT_EQUAL_FATAL(encrypt(&k, msg, 16, TPM_ALG_RSAES, 0, &no_label, &c), 0);
	c.size = 255;
	CU_ASSERT_EQUAL(decrypt(&k, &c, TPM_ALG_RSAES, 0, &no_label, &m), RC_P(TPM_RC_SIZE, 1));
	c.size = 0;
	CU_ASSERT_EQUAL(decrypt(&k, &c, TPM_ALG_RSAES, 0, &no_label, &m), RC_P(TPM_RC_SIZE, 1));
	/* a message larger than any modulus */
	{
		struct cmdbuf b;

		cmd_begin(&b, TPM_CC_RSA_Encrypt);
		cmd_handle(&b, k.handle);
		wr_u16(&b.params, MAX_RSA_KEY_BYTES + 1);
		CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_P(TPM_RC_SIZE, 1));
	}
}

static void test_keys(void)
{
	struct tpmt_public t;
	struct key signer, storage, ecc, k;
	struct blob c, m;

	rsa_key(&signer, TPM_ALG_NULL, TPM_ALG_NULL, SIGN);
	rsa_key(&storage, TPM_ALG_NULL, TPM_ALG_NULL, DECRYPT | RESTRICTED);
	key_template(&t, TPM_ALG_ECC, DECRYPT);
	key_primary(&h, &t, NULL, 0, &ecc);

	CU_ASSERT_EQUAL(encrypt(&signer, secret, 8, TPM_ALG_RSAES, 0, &no_label, &c),
			RC_H(TPM_RC_ATTRIBUTES, 1));
	CU_ASSERT_EQUAL(encrypt(&ecc, secret, 8, TPM_ALG_RSAES, 0, &no_label, &c),
			RC_H(TPM_RC_KEY, 1));
	/* anyone may encrypt to a storage key; only the TPM decrypts with it */
	CU_ASSERT_EQUAL_FATAL(encrypt(&storage, secret, 8, TPM_ALG_RSAES, 0, &no_label, &c), 0);
	CU_ASSERT_EQUAL(decrypt(&storage, &c, TPM_ALG_RSAES, 0, &no_label, &m),
			RC_H(TPM_RC_ATTRIBUTES, 1));
	CU_ASSERT_EQUAL(decrypt(&signer, &c, TPM_ALG_RSAES, 0, &no_label, &m),
			RC_H(TPM_RC_ATTRIBUTES, 1));
	CU_ASSERT_EQUAL(decrypt(&ecc, &c, TPM_ALG_RSAES, 0, &no_label, &m), RC_H(TPM_RC_KEY, 1));

	/* RSA_Decrypt needs the key's authorization, RSA_Encrypt none */
	key_template(&t, TPM_ALG_RSA, DECRYPT | TPMA_OBJECT_SENSITIVEDATAORIGIN);
	CU_ASSERT_EQUAL_FATAL(key_primary_in(&h, TPM_RH_OWNER, &t, "pw", NULL, 0, &k), 0);
	CU_ASSERT_EQUAL_FATAL(encrypt(&k, secret, 8, TPM_ALG_RSAES, 0, &no_label, &c), 0);
	CU_ASSERT_EQUAL(decrypt_auth(&k, "", &c, TPM_ALG_RSAES, 0, &no_label, &m),
			RC_S(TPM_RC_AUTH_FAIL, 1));
	CU_ASSERT_EQUAL_FATAL(decrypt_auth(&k, "pw", &c, TPM_ALG_RSAES, 0, &no_label, &m), 0);
	CU_ASSERT_EQUAL(memcmp(m.b, secret, 8), 0);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "OAEP round trips", test_oaep },
		{ "RSAES round trips", test_rsaes },
		{ "OAEP label binds", test_oaep_label_binds },
		{ "raw RSA", test_raw },
		{ "key scheme rules", test_key_scheme },
		{ "label rules", test_label_rules },
		{ "sizes", test_sizes },
		{ "key checks", test_keys },
	};

	return UNIT_RUN("rsa", tests, setup, teardown);
}
