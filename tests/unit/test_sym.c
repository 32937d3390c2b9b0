/* EncryptDecrypt, EncryptDecrypt2 and HMAC (core/cmd/sym.c): SP 800-38A known answers in every
 * mode, chaining through ivOut, the mode and attribute rules, the size rules with the
 * parameter numbers of both commands, and RFC 4231 / RFC 2202 HMAC known answers. */
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

/* ---- SP 800-38A, F.1-F.5, AES-128 ---- */

static const uint8_t aes_key[16] = {
	0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae, 0xd2, 0xa6, 0xab, 0xf7, 0x15, 0x88, 0x09, 0xcf, 0x4f, 0x3c,
};
static const uint8_t iv_seq[16] = {
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
};
static const uint8_t iv_ctr[16] = {
	0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa, 0xfb, 0xfc, 0xfd, 0xfe, 0xff,
};
static const uint8_t plain[64] = {
	0x6b, 0xc1, 0xbe, 0xe2, 0x2e, 0x40, 0x9f, 0x96, 0xe9, 0x3d, 0x7e, 0x11, 0x73, 0x93, 0x17, 0x2a,
	0xae, 0x2d, 0x8a, 0x57, 0x1e, 0x03, 0xac, 0x9c, 0x9e, 0xb7, 0x6f, 0xac, 0x45, 0xaf, 0x8e, 0x51,
	0x30, 0xc8, 0x1c, 0x46, 0xa3, 0x5c, 0xe4, 0x11, 0xe5, 0xfb, 0xc1, 0x19, 0x1a, 0x0a, 0x52, 0xef,
	0xf6, 0x9f, 0x24, 0x45, 0xdf, 0x4f, 0x9b, 0x17, 0xad, 0x2b, 0x41, 0x7b, 0xe6, 0x6c, 0x37, 0x10,
};
static const uint8_t ecb[64] = {
	0x3a, 0xd7, 0x7b, 0xb4, 0x0d, 0x7a, 0x36, 0x60, 0xa8, 0x9e, 0xca, 0xf3, 0x24, 0x66, 0xef, 0x97,
	0xf5, 0xd3, 0xd5, 0x85, 0x03, 0xb9, 0x69, 0x9d, 0xe7, 0x85, 0x89, 0x5a, 0x96, 0xfd, 0xba, 0xaf,
	0x43, 0xb1, 0xcd, 0x7f, 0x59, 0x8e, 0xce, 0x23, 0x88, 0x1b, 0x00, 0xe3, 0xed, 0x03, 0x06, 0x88,
	0x7b, 0x0c, 0x78, 0x5e, 0x27, 0xe8, 0xad, 0x3f, 0x82, 0x23, 0x20, 0x71, 0x04, 0x72, 0x5d, 0xd4,
};
static const uint8_t cbc[64] = {
	0x76, 0x49, 0xab, 0xac, 0x81, 0x19, 0xb2, 0x46, 0xce, 0xe9, 0x8e, 0x9b, 0x12, 0xe9, 0x19, 0x7d,
	0x50, 0x86, 0xcb, 0x9b, 0x50, 0x72, 0x19, 0xee, 0x95, 0xdb, 0x11, 0x3a, 0x91, 0x76, 0x78, 0xb2,
	0x73, 0xbe, 0xd6, 0xb8, 0xe3, 0xc1, 0x74, 0x3b, 0x71, 0x16, 0xe6, 0x9e, 0x22, 0x22, 0x95, 0x16,
	0x3f, 0xf1, 0xca, 0xa1, 0x68, 0x1f, 0xac, 0x09, 0x12, 0x0e, 0xca, 0x30, 0x75, 0x86, 0xe1, 0xa7,
};
static const uint8_t cfb[64] = {
	0x3b, 0x3f, 0xd9, 0x2e, 0xb7, 0x2d, 0xad, 0x20, 0x33, 0x34, 0x49, 0xf8, 0xe8, 0x3c, 0xfb, 0x4a,
	0xc8, 0xa6, 0x45, 0x37, 0xa0, 0xb3, 0xa9, 0x3f, 0xcd, 0xe3, 0xcd, 0xad, 0x9f, 0x1c, 0xe5, 0x8b,
	0x26, 0x75, 0x1f, 0x67, 0xa3, 0xcb, 0xb1, 0x40, 0xb1, 0x80, 0x8c, 0xf1, 0x87, 0xa4, 0xf4, 0xdf,
	0xc0, 0x4b, 0x05, 0x35, 0x7c, 0x5d, 0x1c, 0x0e, 0xea, 0xc4, 0xc6, 0x6f, 0x9f, 0xf7, 0xf2, 0xe6,
};
static const uint8_t ofb[64] = {
	0x3b, 0x3f, 0xd9, 0x2e, 0xb7, 0x2d, 0xad, 0x20, 0x33, 0x34, 0x49, 0xf8, 0xe8, 0x3c, 0xfb, 0x4a,
	0x77, 0x89, 0x50, 0x8d, 0x16, 0x91, 0x8f, 0x03, 0xf5, 0x3c, 0x52, 0xda, 0xc5, 0x4e, 0xd8, 0x25,
	0x97, 0x40, 0x05, 0x1e, 0x9c, 0x5f, 0xec, 0xf6, 0x43, 0x44, 0xf7, 0xa8, 0x22, 0x60, 0xed, 0xcc,
	0x30, 0x4c, 0x65, 0x28, 0xf6, 0x59, 0xc7, 0x78, 0x66, 0xa5, 0x10, 0xd9, 0xc1, 0xd6, 0xae, 0x5e,
};
static const uint8_t ctr[64] = {
	0x87, 0x4d, 0x61, 0x91, 0xb6, 0x20, 0xe3, 0x26, 0x1b, 0xef, 0x68, 0x64, 0x99, 0x0d, 0xb6, 0xce,
	0x98, 0x06, 0xf6, 0x6b, 0x79, 0x70, 0xfd, 0xff, 0x86, 0x17, 0x18, 0x7b, 0xb9, 0xff, 0xfd, 0xff,
	0x5a, 0xe4, 0xdf, 0x3e, 0xdb, 0xd5, 0xd3, 0x5e, 0x5b, 0x4f, 0x09, 0x02, 0x0d, 0xb0, 0x3e, 0xab,
	0x1e, 0x03, 0x1d, 0xda, 0x2f, 0xbe, 0x03, 0xd1, 0x79, 0x21, 0x70, 0xa0, 0xf3, 0x00, 0x9c, 0xee,
};

struct vector {
	TPM_ALG_ID mode;
	const uint8_t *iv, *cipher;
};

static const struct vector vectors[] = {
	{ TPM_ALG_ECB, iv_seq, ecb }, { TPM_ALG_CBC, iv_seq, cbc }, { TPM_ALG_CFB, iv_seq, cfb },
	{ TPM_ALG_OFB, iv_seq, ofb }, { TPM_ALG_CTR, iv_ctr, ctr },
};

/* ---- commands ---- */

struct buf {
	uint16_t size;
	uint8_t b[MAX_BUFFER];
};

struct iv {
	uint16_t size;
	uint8_t b[16];
};

/* EncryptDecrypt2 when two is set, else EncryptDecrypt; raw decrypt byte for the YES_NO test */
static TPM_RC crypt(bool two, const struct key *k, uint8_t decrypt, TPM_ALG_ID mode,
		    const struct iv *iv, const void *in, uint16_t len, struct buf *out,
		    struct iv *iv_out)
{
	struct cmdbuf b;
	struct rd rsp;
	TPM_RC rc;

	cmd_begin(&b, two ? TPM_CC_EncryptDecrypt2 : TPM_CC_EncryptDecrypt);
	cmd_handle(&b, k->handle);
	cmd_auth_pw(&b, "");
	if (two)
		wr_tpm2b(&b.params, in, len);
	wr_u8(&b.params, decrypt);
	wr_u16(&b.params, mode);
	wr_tpm2b(&b.params, iv->b, iv->size);
	if (!two)
		wr_tpm2b(&b.params, in, len);
	rc = harness_run(&h, &b, &rsp, NULL);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	CU_ASSERT_EQUAL(rd_tpm2b(&rsp, out->b, sizeof(out->b), &out->size), 0);
	CU_ASSERT_EQUAL(rd_tpm2b(&rsp, iv_out->b, sizeof(iv_out->b), &iv_out->size), 0);
	CU_ASSERT_EQUAL(rd_left(&rsp), 0);
	return rc;
}

static void iv_of(struct iv *iv, const uint8_t *b)
{
	iv->size = 16;
	memcpy(iv->b, b, 16);
}

static void aes_key_with(struct key *k, TPM_ALG_ID mode, uint32_t attrs)
{
	struct tpmt_public t;

	key_template(&t, TPM_ALG_SYMCIPHER, attrs);
	t.symmetric.alg = TPM_ALG_AES;
	t.symmetric.key_bits = 128;
	t.symmetric.mode = mode;
	key_primary(&h, &t, aes_key, sizeof(aes_key), k);
}

/* ---- EncryptDecrypt ---- */

static void test_known_answers(void)
{
	struct buf out;
	struct iv iv, iv_out;
	struct key k;

	aes_key_with(&k, TPM_ALG_NULL, SIGN | DECRYPT);
	for (size_t i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++) {
		const struct vector *v = &vectors[i];

		for (int two = 0; two < 2; two++) {
			iv_of(&iv, v->iv);
			CU_ASSERT_EQUAL_FATAL(crypt(two, &k, 0, v->mode, &iv, plain, 64, &out, &iv_out),
					      0);
			CU_ASSERT_EQUAL_FATAL(out.size, 64);
			CU_ASSERT_EQUAL(memcmp(out.b, v->cipher, 64), 0);
			CU_ASSERT_EQUAL(iv_out.size, 16);
			CU_ASSERT_EQUAL_FATAL(crypt(two, &k, 1, v->mode, &iv, v->cipher, 64, &out,
						    &iv_out),
					      0);
			CU_ASSERT_EQUAL(memcmp(out.b, plain, 64), 0);
		}
	}
	/* CBC and CFB chain on the last ciphertext block */
	iv_of(&iv, iv_seq);
	CU_ASSERT_EQUAL(crypt(true, &k, 0, TPM_ALG_CBC, &iv, plain, 64, &out, &iv_out), 0);
	CU_ASSERT_EQUAL(memcmp(iv_out.b, cbc + 48, 16), 0);
	CU_ASSERT_EQUAL(crypt(true, &k, 0, TPM_ALG_CFB, &iv, plain, 64, &out, &iv_out), 0);
	CU_ASSERT_EQUAL(memcmp(iv_out.b, cfb + 48, 16), 0);
	/* ECB has no IV: ivOut is ivIn, whatever its size */
	iv.size = 0;
	CU_ASSERT_EQUAL(crypt(true, &k, 0, TPM_ALG_ECB, &iv, plain, 16, &out, &iv_out), 0);
	CU_ASSERT_EQUAL(memcmp(out.b, ecb, 16), 0);
	CU_ASSERT_EQUAL(iv_out.size, 0);
}

/* Two calls chained through ivOut are one call over all the data. */
static void test_chaining(void)
{
	struct buf out1, out2;
	struct iv iv, iv_mid, iv_out;
	struct key k;

	aes_key_with(&k, TPM_ALG_NULL, SIGN | DECRYPT);
	for (size_t i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++) {
		const struct vector *v = &vectors[i];

		iv_of(&iv, v->iv);
		CU_ASSERT_EQUAL_FATAL(crypt(true, &k, 0, v->mode, &iv, plain, 32, &out1, &iv_mid),
				      0);
		CU_ASSERT_EQUAL_FATAL(crypt(true, &k, 0, v->mode, &iv_mid, plain + 32, 32, &out2,
					    &iv_out),
				      0);
		CU_ASSERT_EQUAL(memcmp(out1.b, v->cipher, 32), 0);
		CU_ASSERT_EQUAL(memcmp(out2.b, v->cipher + 32, 32), 0);
	}
}

static void test_modes(void)
{
	struct buf out;
	struct iv iv, iv_out;
	struct key open, cfb_key;

	aes_key_with(&open, TPM_ALG_NULL, SIGN | DECRYPT);
	aes_key_with(&cfb_key, TPM_ALG_CFB, SIGN | DECRYPT);
	iv_of(&iv, iv_seq);
	/* the key's mode is used when the command names none */
	CU_ASSERT_EQUAL_FATAL(crypt(true, &cfb_key, 0, TPM_ALG_NULL, &iv, plain, 64, &out, &iv_out),
			      0);
	CU_ASSERT_EQUAL(memcmp(out.b, cfb, 64), 0);
	CU_ASSERT_EQUAL(crypt(true, &cfb_key, 0, TPM_ALG_CFB, &iv, plain, 64, &out, &iv_out), 0);
	/* and may not be overridden */
	CU_ASSERT_EQUAL(crypt(true, &cfb_key, 0, TPM_ALG_CBC, &iv, plain, 64, &out, &iv_out),
			RC_P(TPM_RC_MODE, 3));
	CU_ASSERT_EQUAL(crypt(false, &cfb_key, 0, TPM_ALG_CBC, &iv, plain, 64, &out, &iv_out),
			RC_P(TPM_RC_MODE, 2));
	/* neither names a mode */
	CU_ASSERT_EQUAL(crypt(true, &open, 0, TPM_ALG_NULL, &iv, plain, 64, &out, &iv_out),
			RC_P(TPM_RC_MODE, 3));
	CU_ASSERT_EQUAL(crypt(false, &open, 0, TPM_ALG_NULL, &iv, plain, 64, &out, &iv_out),
			RC_P(TPM_RC_MODE, 2));
	/* not a cipher mode (unmarshalling) */
	CU_ASSERT_EQUAL(crypt(true, &open, 0, TPM_ALG_CMAC, &iv, plain, 64, &out, &iv_out),
			RC_P(TPM_RC_MODE, 3));
	CU_ASSERT_EQUAL(crypt(false, &open, 0, TPM_ALG_SHA256, &iv, plain, 64, &out, &iv_out),
			RC_P(TPM_RC_MODE, 2));
	/* decrypt is a TPMI_YES_NO */
	CU_ASSERT_EQUAL(crypt(true, &open, 2, TPM_ALG_CFB, &iv, plain, 64, &out, &iv_out),
			RC_P(TPM_RC_VALUE, 2));
	CU_ASSERT_EQUAL(crypt(false, &open, 2, TPM_ALG_CFB, &iv, plain, 64, &out, &iv_out),
			RC_P(TPM_RC_VALUE, 1));
}

static void test_sizes(void)
{
	static uint8_t big[MAX_BUFFER + 1];
	struct buf out;
	struct iv iv, iv_out;
	struct key k;

	aes_key_with(&k, TPM_ALG_NULL, SIGN | DECRYPT);
	iv_of(&iv, iv_seq);
	/* an IV must be one block, except for ECB */
	iv.size = 15;
	CU_ASSERT_EQUAL(crypt(true, &k, 0, TPM_ALG_CFB, &iv, plain, 16, &out, &iv_out),
			RC_P(TPM_RC_SIZE, 4));
	CU_ASSERT_EQUAL(crypt(false, &k, 0, TPM_ALG_CFB, &iv, plain, 16, &out, &iv_out),
			RC_P(TPM_RC_SIZE, 3));
	iv.size = 0;
	CU_ASSERT_EQUAL(crypt(true, &k, 0, TPM_ALG_CTR, &iv, plain, 16, &out, &iv_out),
			RC_P(TPM_RC_SIZE, 4));
	/* CBC and ECB work on whole blocks; the stream modes on any length */
	iv_of(&iv, iv_seq);
	CU_ASSERT_EQUAL(crypt(true, &k, 0, TPM_ALG_CBC, &iv, plain, 17, &out, &iv_out),
			RC_P(TPM_RC_SIZE, 1));
	CU_ASSERT_EQUAL(crypt(false, &k, 0, TPM_ALG_ECB, &iv, plain, 17, &out, &iv_out),
			RC_P(TPM_RC_SIZE, 4));
	CU_ASSERT_EQUAL_FATAL(crypt(true, &k, 0, TPM_ALG_CFB, &iv, plain, 17, &out, &iv_out), 0);
	CU_ASSERT_EQUAL(out.size, 17);
	CU_ASSERT_EQUAL(memcmp(out.b, cfb, 17), 0);
	CU_ASSERT_EQUAL_FATAL(crypt(true, &k, 0, TPM_ALG_CTR, &iv, plain, 0, &out, &iv_out), 0);
	CU_ASSERT_EQUAL(out.size, 0);
	/* a buffer past TPM2B_MAX_BUFFER, an IV past a block */
	CU_ASSERT_EQUAL(crypt(true, &k, 0, TPM_ALG_CFB, &iv, big, sizeof(big), &out, &iv_out),
			RC_P(TPM_RC_SIZE, 1));
	{
		struct cmdbuf b;

		cmd_begin(&b, TPM_CC_EncryptDecrypt2);
		cmd_handle(&b, k.handle);
		cmd_auth_pw(&b, "");
		wr_tpm2b(&b.params, plain, 16);
		wr_u8(&b.params, 0);
		wr_u16(&b.params, TPM_ALG_CFB);
		wr_tpm2b(&b.params, big, 17);
		CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_P(TPM_RC_SIZE, 4));
	}
}

static void test_key_checks(void)
{
	struct tpmt_public t;
	struct buf out;
	struct iv iv, iv_out;
	struct key enc_only, dec_only, storage, hmac_key;

	aes_key_with(&enc_only, TPM_ALG_NULL, SIGN);
	aes_key_with(&dec_only, TPM_ALG_NULL, DECRYPT);
	/* a restricted key's secret is the TPM's own */
	key_template(&t, TPM_ALG_SYMCIPHER, DECRYPT | RESTRICTED);
	t.symmetric.alg = TPM_ALG_AES;
	t.symmetric.key_bits = 128;
	t.symmetric.mode = TPM_ALG_CFB;
	key_primary(&h, &t, NULL, 0, &storage);
	key_template(&t, TPM_ALG_KEYEDHASH, SIGN);
	t.scheme.scheme = TPM_ALG_HMAC;
	t.scheme.hash_alg = TPM_ALG_SHA256;
	key_primary(&h, &t, NULL, 0, &hmac_key);
	iv_of(&iv, iv_seq);

	/* sign stands for encrypt on a symmetric key */
	CU_ASSERT_EQUAL(crypt(true, &enc_only, 0, TPM_ALG_CFB, &iv, plain, 16, &out, &iv_out), 0);
	CU_ASSERT_EQUAL(crypt(true, &enc_only, 1, TPM_ALG_CFB, &iv, cfb, 16, &out, &iv_out),
			RC_H(TPM_RC_ATTRIBUTES, 1));
	CU_ASSERT_EQUAL(crypt(true, &dec_only, 1, TPM_ALG_CFB, &iv, cfb, 16, &out, &iv_out), 0);
	CU_ASSERT_EQUAL(memcmp(out.b, plain, 16), 0);
	CU_ASSERT_EQUAL(crypt(true, &dec_only, 0, TPM_ALG_CFB, &iv, plain, 16, &out, &iv_out),
			RC_H(TPM_RC_ATTRIBUTES, 1));
	CU_ASSERT_EQUAL(crypt(true, &storage, 1, TPM_ALG_CFB, &iv, cfb, 16, &out, &iv_out),
			RC_H(TPM_RC_ATTRIBUTES, 1));
	CU_ASSERT_EQUAL(crypt(true, &hmac_key, 0, TPM_ALG_CFB, &iv, plain, 16, &out, &iv_out),
			RC_H(TPM_RC_KEY, 1));
}

/* ---- HMAC ---- */

static const char jefe[] = "Jefe";
static const char jefe_data[] = "what do ya want for nothing?";
static const uint8_t jefe_sha256[32] = {
	0x5b, 0xdc, 0xc1, 0x46, 0xbf, 0x60, 0x75, 0x4e, 0x6a, 0x04, 0x24, 0x26, 0x08, 0x95, 0x75, 0xc7,
	0x5a, 0x00, 0x3f, 0x08, 0x9d, 0x27, 0x39, 0x83, 0x9d, 0xec, 0x58, 0xb9, 0x64, 0xec, 0x38, 0x43,
};
static const uint8_t jefe_sha1[20] = {
	0xef, 0xfc, 0xdf, 0x6a, 0xe5, 0xeb, 0x2f, 0xa2, 0xd2, 0x74,
	0x16, 0xd5, 0xf1, 0x84, 0xdf, 0x9c, 0x25, 0x9a, 0x7c, 0x79,
};

static TPM_RC hmac(const struct key *k, const char *auth, const void *data, uint16_t len,
		   TPM_ALG_ID alg, struct tpm2b_digest *out)
{
	struct cmdbuf b;
	struct rd rsp;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_HMAC);
	cmd_handle(&b, k->handle);
	cmd_auth_pw(&b, auth);
	wr_tpm2b(&b.params, data, len);
	wr_u16(&b.params, alg);
	rc = harness_run(&h, &b, &rsp, NULL);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	CU_ASSERT_EQUAL(rd_tpm2b_digest(&rsp, out), 0);
	CU_ASSERT_EQUAL(rd_left(&rsp), 0);
	return rc;
}

static void hmac_key(struct key *k, TPM_ALG_ID hash, uint32_t attrs)
{
	struct tpmt_public t;

	key_template(&t, TPM_ALG_KEYEDHASH, attrs);
	t.scheme.scheme = hash == TPM_ALG_NULL ? TPM_ALG_NULL : TPM_ALG_HMAC;
	t.scheme.hash_alg = hash;
	key_primary(&h, &t, jefe, sizeof(jefe) - 1, k);
}

static void test_hmac_known_answers(void)
{
	struct tpm2b_digest d;
	struct key sha256, open;

	hmac_key(&sha256, TPM_ALG_SHA256, SIGN);
	hmac_key(&open, TPM_ALG_NULL, SIGN);
	CU_ASSERT_EQUAL_FATAL(hmac(&sha256, "", jefe_data, sizeof(jefe_data) - 1, TPM_ALG_NULL, &d),
			      0);
	CU_ASSERT_EQUAL_FATAL(d.size, 32);
	CU_ASSERT_EQUAL(memcmp(d.b, jefe_sha256, 32), 0);
	CU_ASSERT_EQUAL_FATAL(hmac(&sha256, "", jefe_data, sizeof(jefe_data) - 1, TPM_ALG_SHA256,
				   &d),
			      0);
	CU_ASSERT_EQUAL(memcmp(d.b, jefe_sha256, 32), 0);
	/* a key without a scheme takes the command's hash */
	CU_ASSERT_EQUAL_FATAL(hmac(&open, "", jefe_data, sizeof(jefe_data) - 1, TPM_ALG_SHA1, &d),
			      0);
	CU_ASSERT_EQUAL_FATAL(d.size, 20);
	CU_ASSERT_EQUAL(memcmp(d.b, jefe_sha1, 20), 0);
}

static void test_hmac_errors(void)
{
	static uint8_t big[MAX_BUFFER + 1];
	struct tpm2b_digest d;
	struct key sha256, open, sealed, aes;
	struct tpmt_public t;

	hmac_key(&sha256, TPM_ALG_SHA256, SIGN);
	hmac_key(&open, TPM_ALG_NULL, SIGN);
	/* a sealed data object: keyedHash without sign */
	key_template(&t, TPM_ALG_KEYEDHASH, 0);
	key_primary(&h, &t, jefe, sizeof(jefe) - 1, &sealed);
	aes_key_with(&aes, TPM_ALG_CFB, SIGN | DECRYPT);

	CU_ASSERT_EQUAL(hmac(&sha256, "", "x", 1, TPM_ALG_SHA1, &d), RC_P(TPM_RC_VALUE, 2));
	CU_ASSERT_EQUAL(hmac(&open, "", "x", 1, TPM_ALG_NULL, &d), RC_P(TPM_RC_VALUE, 2));
	CU_ASSERT_EQUAL(hmac(&open, "", "x", 1, TPM_ALG_AES, &d), RC_P(TPM_RC_HASH, 2));
	CU_ASSERT_EQUAL(hmac(&sealed, "", "x", 1, TPM_ALG_SHA256, &d), RC_H(TPM_RC_KEY, 1));
	/* an AES key MACs with CMAC only (test_cmac.c) */
	CU_ASSERT_EQUAL(hmac(&aes, "", "x", 1, TPM_ALG_SHA256, &d), RC_P(TPM_RC_VALUE, 2));
	CU_ASSERT_EQUAL(hmac(&sha256, "", big, sizeof(big), TPM_ALG_NULL, &d),
			RC_P(TPM_RC_SIZE, 1));
	CU_ASSERT_EQUAL(hmac(&sha256, "x", "x", 1, TPM_ALG_NULL, &d), RC_S(TPM_RC_AUTH_FAIL, 1));
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "SP 800-38A known answers", test_known_answers },
		{ "chaining through ivOut", test_chaining },
		{ "mode rules", test_modes },
		{ "size rules", test_sizes },
		{ "key checks", test_key_checks },
		{ "HMAC known answers", test_hmac_known_answers },
		{ "HMAC errors", test_hmac_errors },
	};

	return UNIT_RUN("sym", tests, setup, teardown);
}
