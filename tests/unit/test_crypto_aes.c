/* AES modes: SP 800-38A known answers, the iv carried between calls, odd lengths, in place. */
#include <CUnit/Basic.h>
#include <string.h>

#include "crypto/crypto.h"
#include "unit_main.h"
#include "vectors.h"

/* SP 800-38A, appendix F: the same four plaintext blocks under each key and mode. */
#define PLAIN                                                                              \
	"6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"                 \
	"30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710"
#define IV "000102030405060708090a0b0c0d0e0f"
#define COUNTER "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"
#define KEY128 "2b7e151628aed2a6abf7158809cf4f3c"
#define KEY192 "8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b"
#define KEY256 "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4"

struct aes_case {
	TPM_ALG_ID mode;
	const char *key, *iv, *cipher;
};

static const struct aes_case cases[] = {
	{ TPM_ALG_ECB, KEY128, NULL,
	  "3ad77bb40d7a3660a89ecaf32466ef97f5d3d58503b9699de785895a96fdbaaf"
	  "43b1cd7f598ece23881b00e3ed0306887b0c785e27e8ad3f8223207104725dd4" },
	{ TPM_ALG_CBC, KEY128, IV,
	  "7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2"
	  "73bed6b8e3c1743b7116e69e222295163ff1caa1681fac09120eca307586e1a7" },
	{ TPM_ALG_CFB, KEY128, IV,
	  "3b3fd92eb72dad20333449f8e83cfb4ac8a64537a0b3a93fcde3cdad9f1ce58b"
	  "26751f67a3cbb140b1808cf187a4f4dfc04b05357c5d1c0eeac4c66f9ff7f2e6" },
	{ TPM_ALG_OFB, KEY128, IV,
	  "3b3fd92eb72dad20333449f8e83cfb4a7789508d16918f03f53c52dac54ed825"
	  "9740051e9c5fecf64344f7a82260edcc304c6528f659c77866a510d9c1d6ae5e" },
	{ TPM_ALG_CTR, KEY128, COUNTER,
	  "874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff"
	  "5ae4df3edbd5d35e5b4f09020db03eab1e031dda2fbe03d1792170a0f3009cee" },
	{ TPM_ALG_ECB, KEY192, NULL,
	  "bd334f1d6e45f25ff712a214571fa5cc974104846d0ad3ad7734ecb3ecee4eef"
	  "ef7afd2270e2e60adce0ba2face6444e9a4b41ba738d6c72fb16691603c18e0e" },
	{ TPM_ALG_CBC, KEY192, IV,
	  "4f021db243bc633d7178183a9fa071e8b4d9ada9ad7dedf4e5e738763f69145a"
	  "571b242012fb7ae07fa9baac3df102e008b0e27988598881d920a9e64f5615cd" },
	{ TPM_ALG_CFB, KEY192, IV,
	  "cdc80d6fddf18cab34c25909c99a417467ce7f7f81173621961a2b70171d3d7a"
	  "2e1e8a1dd59b88b1c8e60fed1efac4c9c05f9f9ca9834fa042ae8fba584b09ff" },
	{ TPM_ALG_OFB, KEY192, IV,
	  "cdc80d6fddf18cab34c25909c99a4174fcc28b8d4c63837c09e81700c1100401"
	  "8d9a9aeac0f6596f559c6d4daf59a5f26d9f200857ca6c3e9cac524bd9acc92a" },
	{ TPM_ALG_CTR, KEY192, COUNTER,
	  "1abc932417521ca24f2b0459fe7e6e0b090339ec0aa6faefd5ccc2c6f4ce8e94"
	  "1e36b26bd1ebc670d1bd1d665620abf74f78a7f6d29809585a97daec58c6b050" },
	{ TPM_ALG_ECB, KEY256, NULL,
	  "f3eed1bdb5d2a03c064b5a7e3db181f8591ccb10d410ed26dc5ba74a31362870"
	  "b6ed21b99ca6f4f9f153e7b1beafed1d23304b7a39f9f3ff067d8d8f9e24ecc7" },
	{ TPM_ALG_CBC, KEY256, IV,
	  "f58c4c04d6e5f1ba779eabfb5f7bfbd69cfc4e967edb808d679f777bc6702c7d"
	  "39f23369a9d9bacfa530e26304231461b2eb05e2c39be9fcda6c19078c6a9d1b" },
	{ TPM_ALG_CFB, KEY256, IV,
	  "dc7e84bfda79164b7ecd8486985d386039ffed143b28b1c832113c6331e5407b"
	  "df10132415e54b92a13ed0a8267ae2f975a385741ab9cef82031623d55b1e471" },
	{ TPM_ALG_OFB, KEY256, IV,
	  "dc7e84bfda79164b7ecd8486985d38604febdc6740d20b3ac88f6ad82a4fb08d"
	  "71ab47a086e86eedf39d1c5bba97c4080126141d67f37be8538f5a8be740e484" },
	{ TPM_ALG_CTR, KEY256, COUNTER,
	  "601ec313775789a5b7a7f504bbf3d228f443e3ca4d62b59aca84e990cacaf5c5"
	  "2b0930daa23de94ce87017ba2d84988ddfc9c58db67aada613c2dd08457941a6" },
};

/* What ivOut must be after the 64-byte known answer. */
static void expected_iv_out(const struct aes_case *c, const uint8_t *plain, const uint8_t *ct,
			    const uint8_t *iv_in, uint8_t *iv_out)
{
	switch (c->mode) {
	case TPM_ALG_CBC:
	case TPM_ALG_CFB:
		memcpy(iv_out, ct + 48, 16);
		break;
	case TPM_ALG_OFB: /* the last keystream block */
		for (int i = 0; i < 16; i++)
			iv_out[i] = ct[48 + i] ^ plain[48 + i];
		break;
	case TPM_ALG_CTR: /* four blocks later */
		memcpy(iv_out, iv_in, 16);
		for (int n = 0; n < 4; n++)
			for (int i = 15; i >= 0 && ++iv_out[i] == 0; i--)
				;
		break;
	default:
		memcpy(iv_out, iv_in, 16);
		break;
	}
}

static void test_known_answers(void)
{
	uint8_t plain[64], key[32], want[64], got[64], iv_in[16] = { 0 }, iv[16], iv_want[16];

	vec_unhex(PLAIN, plain);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct aes_case *c = &cases[i];
		size_t klen = vec_unhex(c->key, key);

		vec_unhex(c->cipher, want);
		if (c->iv)
			vec_unhex(c->iv, iv_in);
		expected_iv_out(c, plain, want, iv_in, iv_want);

		memcpy(iv, iv_in, 16);
		CU_ASSERT_EQUAL(crypto_aes(c->mode, true, key, klen, iv, plain, got, 64),
				TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(memcmp(got, want, 64), 0);
		CU_ASSERT_EQUAL(memcmp(iv, iv_want, 16), 0);

		memcpy(iv, iv_in, 16);
		CU_ASSERT_EQUAL(crypto_aes(c->mode, false, key, klen, iv, want, got, 64),
				TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(memcmp(got, plain, 64), 0);
		CU_ASSERT_EQUAL(memcmp(iv, iv_want, 16), 0);

		/* in place */
		memcpy(iv, iv_in, 16);
		memcpy(got, plain, 64);
		CU_ASSERT_EQUAL(crypto_aes(c->mode, true, key, klen, iv, got, got, 64),
				TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(memcmp(got, want, 64), 0);
		memcpy(iv, iv_in, 16);
		CU_ASSERT_EQUAL(crypto_aes(c->mode, false, key, klen, iv, got, got, 64),
				TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(memcmp(got, plain, 64), 0);
	}
}

/* Two calls with the iv carried over give what one call gives. */
static void test_chaining(void)
{
	static const TPM_ALG_ID modes[] = { TPM_ALG_CFB, TPM_ALG_OFB, TPM_ALG_CTR, TPM_ALG_CBC,
					    TPM_ALG_ECB };
	uint8_t key[16], msg[80], one[80], two[80], iv1[16], iv2[16];

	vec_unhex(KEY128, key);
	for (size_t i = 0; i < sizeof(msg); i++)
		msg[i] = (uint8_t)(i * 13);
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		for (int enc = 0; enc <= 1; enc++) {
			memset(iv1, 0x42, 16);
			memset(iv2, 0x42, 16);
			CU_ASSERT_EQUAL(crypto_aes(modes[m], enc, key, 16, iv1, msg, one, 80),
					TPM_RC_SUCCESS);
			CU_ASSERT_EQUAL(crypto_aes(modes[m], enc, key, 16, iv2, msg, two, 32),
					TPM_RC_SUCCESS);
			CU_ASSERT_EQUAL(crypto_aes(modes[m], enc, key, 16, iv2, msg + 32, two + 32,
						   48),
					TPM_RC_SUCCESS);
			CU_ASSERT_EQUAL(memcmp(one, two, 80), 0);
			CU_ASSERT_EQUAL(memcmp(iv1, iv2, 16), 0);
		}
	}
}

/* CFB, OFB and CTR take any length; CFB leaves the partial ciphertext block padded with zeros
 * in the iv, as the TPM reference does. */
static void test_odd_lengths(void)
{
	static const TPM_ALG_ID modes[] = { TPM_ALG_CFB, TPM_ALG_OFB, TPM_ALG_CTR };
	uint8_t key[32], msg[100], ct[100], back[100], iv[16], iv_enc[16];

	vec_unhex(KEY256, key);
	for (size_t i = 0; i < sizeof(msg); i++)
		msg[i] = (uint8_t)(i ^ 0x5c);
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		for (size_t len = 1; len <= sizeof(msg); len++) {
			memset(iv, 0, 16);
			CU_ASSERT_EQUAL(crypto_aes(modes[m], true, key, 32, iv, msg, ct, len),
					TPM_RC_SUCCESS);
			memcpy(iv_enc, iv, 16);
			memset(iv, 0, 16);
			memcpy(back, ct, len);
			CU_ASSERT_EQUAL(crypto_aes(modes[m], false, key, 32, iv, back, back, len),
					TPM_RC_SUCCESS);
			CU_ASSERT_EQUAL(memcmp(back, msg, len), 0);
			CU_ASSERT_EQUAL(memcmp(iv, iv_enc, 16), 0);
			if (modes[m] == TPM_ALG_CFB) {
				size_t last = (len - 1) / 16 * 16, used = len - last;
				uint8_t want[16] = { 0 };

				memcpy(want, ct + last, used);
				CU_ASSERT_EQUAL(memcmp(iv, want, 16), 0);
			}
		}
	}
}

static void test_counter_wraps(void)
{
	uint8_t key[16] = { 0 }, iv[16], zero[16] = { 0 }, in[17] = { 0 }, out[17];

	memset(iv, 0xff, 16);
	CU_ASSERT_EQUAL(crypto_aes(TPM_ALG_CTR, true, key, 16, iv, in, out, 16), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(memcmp(iv, zero, 16), 0);
	CU_ASSERT_EQUAL(crypto_aes(TPM_ALG_CTR, true, key, 16, iv, in, out, 17), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(iv[15], 2); /* a partial block uses up a counter value too */
}

static void test_errors(void)
{
	uint8_t key[32] = { 0 }, iv[16] = { 0 }, buf[32] = { 0 };

	CU_ASSERT_EQUAL(crypto_aes(TPM_ALG_CFB, true, key, 20, iv, buf, buf, 16), TPM_RC_KEY_SIZE);
	CU_ASSERT_EQUAL(crypto_aes(TPM_ALG_NULL, true, key, 16, iv, buf, buf, 16), TPM_RC_MODE);
	CU_ASSERT_EQUAL(crypto_aes(TPM_ALG_CBC, true, key, 16, iv, buf, buf, 15), TPM_RC_SIZE);
	CU_ASSERT_EQUAL(crypto_aes(TPM_ALG_ECB, false, key, 16, NULL, buf, buf, 17), TPM_RC_SIZE);
	CU_ASSERT_EQUAL(crypto_aes(TPM_ALG_ECB, true, key, 16, NULL, buf, buf, 32), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(crypto_aes(TPM_ALG_CFB, true, key, 16, iv, buf, buf, 0), TPM_RC_SUCCESS);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "SP 800-38A known answers, iv out, in place", test_known_answers },
		{ "two chained calls equal one", test_chaining },
		{ "odd lengths round trip", test_odd_lengths },
		{ "counter wraps and counts partial blocks", test_counter_wraps },
		{ "errors", test_errors },
	};

	return UNIT_RUN("crypto_aes", tests, NULL, NULL);
}
