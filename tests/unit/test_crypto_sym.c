/* Camellia and TDES under the TPM's modes (core/crypto/sym.c): single-block known answers from
 * RFC 3713 (Camellia), SP 800-67 and SP 800-20 (TDES, DES), then every mode on the SP 800-38A
 * plaintext with answers computed by OpenSSL (`openssl enc -camellia-128-cbc ...`, and for TDES
 * CTR, which its command line lacks, ECB of the counter blocks XORed in), with the iv each
 * leaves behind; chaining, odd lengths, and the error codes. AES has test_crypto_aes. */
#include <CUnit/Basic.h>
#include <string.h>

#include "crypto/crypto.h"
#include "unit_main.h"
#include "vectors.h"

#define PLAIN                                                                              \
	"6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"                 \
	"30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710"
#define IV16 "000102030405060708090a0b0c0d0e0f"
#define CTR16 "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"
#define CAM128 "2b7e151628aed2a6abf7158809cf4f3c"
#define CAM192 "8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b"
#define CAM256 "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4"
/* SP 800-67 Rev. 2, appendix B: three distinct keys */
#define TDES3 "0123456789abcdef23456789abcdef01456789abcdef0123"
#define TDES2 "0123456789abcdef23456789abcdef01"
#define IV8 "f69f2445df4f9b17"
#define CTR8 "fffffffffffffffe" /* wraps after two blocks */

/* ---- single blocks ---- */

struct block_case {
	TPM_ALG_ID alg;
	const char *key, *plain, *cipher;
};

static const struct block_case blocks[] = {
	/* RFC 3713, appendix A */
	{ TPM_ALG_CAMELLIA, "0123456789abcdeffedcba9876543210", "0123456789abcdeffedcba9876543210",
	  "67673138549669730857065648eabe43" },
	{ TPM_ALG_CAMELLIA, "0123456789abcdeffedcba98765432100011223344556677",
	  "0123456789abcdeffedcba9876543210", "b4993401b3e996f84ee5cee7d79b09b9" },
	{ TPM_ALG_CAMELLIA, "0123456789abcdeffedcba987654321000112233445566778899aabbccddeeff",
	  "0123456789abcdeffedcba9876543210", "9acc237dff16d76c20ef7c919e3a7509" },
	/* SP 800-67 Rev. 2, appendix B: "The qufck brown fox jump" */
	{ TPM_ALG_TDES, TDES3, "54686520717566636b2062726f776e20666f78206a756d70",
	  "a826fd8ce53b855fcce21c8112256fe668d5c05dd9b6b900" },
	/* SP 800-20, table A.1 (variable plaintext): K1 = K2 = K3 is single DES */
	{ TPM_ALG_TDES, "010101010101010101010101010101010101010101010101", "8000000000000000",
	  "95f8a5e5dd31d900" },
	{ TPM_ALG_TDES, "01010101010101010101010101010101", "0000000000000001",
	  "166b40b44aba4bd6" },
};

static void test_blocks(void)
{
	for (size_t i = 0; i < sizeof(blocks) / sizeof(blocks[0]); i++) {
		const struct block_case *c = &blocks[i];
		uint8_t key[32], plain[32], want[32], got[32];
		size_t klen = vec_unhex(c->key, key), len = vec_unhex(c->plain, plain);

		CU_ASSERT_EQUAL_FATAL(vec_unhex(c->cipher, want), len);
		CU_ASSERT_EQUAL(crypto_sym(c->alg, TPM_ALG_ECB, true, key, klen, NULL, plain, got,
					   len),
				TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(memcmp(got, want, len), 0);
		CU_ASSERT_EQUAL(crypto_sym(c->alg, TPM_ALG_ECB, false, key, klen, NULL, want, got,
					   len),
				TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(memcmp(got, plain, len), 0);
	}
}

/* ---- modes ---- */

struct mode_case {
	TPM_ALG_ID alg, mode;
	const char *key, *iv, *cipher;
};

static const struct mode_case modes[] = {
	{ TPM_ALG_CAMELLIA, TPM_ALG_ECB, CAM128, NULL,
	  "432fc5dcd628115b7c388d770b270c960be1f14023782a22e8384c5abb7fab2b"
	  "a0a1abcd1893ab6fe0fe5b65df5f8636e61925e0d5dfaa9bb29f815b3076e51a" },
	{ TPM_ALG_CAMELLIA, TPM_ALG_CBC, CAM128, IV16,
	  "1607cf494b36bbf00daeb0b503c831aba2f2cf671629ef7840c5a5dfb5074887"
	  "0f06165008cf8b8b5a63586362543e54e7208a2ca89cc21aacd56aaa6fb98259" },
	{ TPM_ALG_CAMELLIA, TPM_ALG_CFB, CAM128, IV16,
	  "14f7646187817eb586599146b82bd719a53d28bb82df741103ea4f921a44880b"
	  "9c2157a664626d1def9ea420fde69b96742a25f0542340c7baef24ca8482bb09" },
	{ TPM_ALG_CAMELLIA, TPM_ALG_OFB, CAM128, IV16,
	  "14f7646187817eb586599146b82bd719973291716c4d82d01a079e6df700e6eb"
	  "0ef0603e2ee534c174f44a8678a01f5ba9978a354c35c7a052c38218183cbe71" },
	{ TPM_ALG_CAMELLIA, TPM_ALG_CTR, CAM128, CTR16,
	  "b809140877dd16c076780904f83ded11bb41e64e9bf176ce05d4186b2586d4c9"
	  "49e82fdc5d6e78ab781363e51781fc9b731a3c0583979a926e7fe0b8a205ac29" },
	{ TPM_ALG_CAMELLIA, TPM_ALG_CFB, CAM192, IV16,
	  "c832bb9780677daa82d9b6860dcd565e86f8491627906d780c7a6d46ea331f98"
	  "69511cce594cf710cb98bb63d7221f01d5b5378a3abed55803f25565d8907b84" },
	{ TPM_ALG_CAMELLIA, TPM_ALG_CBC, CAM256, IV16,
	  "e6cfa35fc02b134a4d2c0b6737ac3eda36cbeb73bd504b4070b1b7de2b21eb50"
	  "e31a6055297d96ca3330cdf1b1860a835d563f6d1cccf236051c0c5c1c58f28f" },
	{ TPM_ALG_TDES, TPM_ALG_ECB, TDES3, NULL,
	  "714772f339841d34267fcc4bd2949cc3ee11c22a576a303876183f99c0b6de87"
	  "3583992d38124eb5c6fcd81a0054e2df6c4a09ac778ee1400533463c6f961f25" },
	{ TPM_ALG_TDES, TPM_ALG_CBC, TDES3, IV8,
	  "2079c3d53aa763e193b79e2569ab5262516570481f25b50f73c0bda85c8e0da7"
	  "9bd86425fae429fdbd65a7a21b6e5d20925d8b0ef919a428154b96ed90f2bc1e" },
	{ TPM_ALG_TDES, TPM_ALG_CFB, TDES3, IV8,
	  "078bb74e59ce7ed67666de9cf95eaf3fe9ed6bb460f451528a5f9fe4ed710918"
	  "822a8b431a0b7047cfc9fcfd074c50ce5959af0d4c0319471121967a17e06b8f" },
	{ TPM_ALG_TDES, TPM_ALG_OFB, TDES3, IV8,
	  "078bb74e59ce7ed6267e120692667da1a58662d7e04cbc642144d55c03db5aee"
	  "4168c711ef2b75278c484b0e3bc55259afc293230dbbaf1da7e87616d5864932" },
	{ TPM_ALG_TDES, TPM_ALG_CTR, TDES3, CTR8,
	  "7a871d1f3b59712e14989fba53b7a503e097f9cb878867fcc0099620a702b71d"
	  "bf04b770cda9e8df5efb926afab37c0fe8f52127c3a240e060d97ff32cf00121" },
	{ TPM_ALG_TDES, TPM_ALG_CBC, TDES2, IV8,
	  "7401ce1eab6d003caff84bf47b36cc2154f0238f9ffecd8f6acf118392b45581"
	  "ada61acb9d107f1f212754d3028a1c3170004e292e9fb969a44eaf1e20c0e9eb" },
};

/* What the TPM leaves in ivOut after 64 bytes (whole blocks): CBC and CFB the last ciphertext
 * block, OFB the last keystream block, CTR the counter advanced by the block count. */
static void iv_after(const struct mode_case *c, size_t bs, const uint8_t *plain,
		     const uint8_t *cipher, const uint8_t *iv_in, uint8_t *out)
{
	size_t last = 64 - bs;

	memcpy(out, iv_in, bs);
	switch (c->mode) {
	case TPM_ALG_CBC:
	case TPM_ALG_CFB:
		memcpy(out, cipher + last, bs);
		break;
	case TPM_ALG_OFB:
		for (size_t i = 0; i < bs; i++)
			out[i] = cipher[last + i] ^ plain[last + i];
		break;
	case TPM_ALG_CTR:
		for (size_t n = 0; n < 64 / bs; n++)
			for (size_t i = bs; i-- > 0 && ++out[i] == 0;)
				;
		break;
	default:
		break;
	}
}

static void test_modes(void)
{
	uint8_t plain[64];

	vec_unhex(PLAIN, plain);
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		const struct mode_case *c = &modes[i];
		size_t bs = crypto_sym_block(c->alg);
		uint8_t key[32], want[64], got[64], iv_in[16] = { 0 }, iv[16], iv_want[16];
		size_t klen = vec_unhex(c->key, key);

		CU_ASSERT_FATAL(bs == 8 || bs == 16);
		vec_unhex(c->cipher, want);
		if (c->iv)
			CU_ASSERT_EQUAL(vec_unhex(c->iv, iv_in), bs);
		iv_after(c, bs, plain, want, iv_in, iv_want);

		memcpy(iv, iv_in, bs);
		CU_ASSERT_EQUAL(crypto_sym(c->alg, c->mode, true, key, klen, iv, plain, got, 64),
				TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(memcmp(got, want, 64), 0);
		CU_ASSERT_EQUAL(memcmp(iv, iv_want, bs), 0);

		/* decryption, in place */
		memcpy(iv, iv_in, bs);
		memcpy(got, want, 64);
		CU_ASSERT_EQUAL(crypto_sym(c->alg, c->mode, false, key, klen, iv, got, got, 64),
				TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(memcmp(got, plain, 64), 0);
		CU_ASSERT_EQUAL(memcmp(iv, iv_want, bs), 0);
	}
}

/* Two calls with the iv carried over give what one call gives; CFB, OFB and CTR take any
 * length and CFB leaves a partial last block's ciphertext, zero padded, in the iv. */
static void test_chaining_and_lengths(void)
{
	static const TPM_ALG_ID algs[] = { TPM_ALG_CAMELLIA, TPM_ALG_TDES };
	static const TPM_ALG_ID all[] = { TPM_ALG_CFB, TPM_ALG_OFB, TPM_ALG_CTR, TPM_ALG_CBC,
					  TPM_ALG_ECB };
	uint8_t key[24], msg[80], one[80], two[80], back[80], iv1[16], iv2[16], iv3[16];

	vec_unhex(TDES3, key);
	for (size_t i = 0; i < sizeof(msg); i++)
		msg[i] = (uint8_t)(i * 13);
	for (size_t a = 0; a < 2; a++) {
		size_t bs = crypto_sym_block(algs[a]);

		for (size_t m = 0; m < sizeof(all) / sizeof(all[0]); m++) {
			TPM_ALG_ID mode = all[m];

			memset(iv1, 0x42, 16);
			memset(iv2, 0x42, 16);
			CU_ASSERT_EQUAL(crypto_sym(algs[a], mode, true, key, 16, iv1, msg, one, 80),
					TPM_RC_SUCCESS);
			CU_ASSERT_EQUAL(crypto_sym(algs[a], mode, true, key, 16, iv2, msg, two, 32),
					TPM_RC_SUCCESS);
			CU_ASSERT_EQUAL(crypto_sym(algs[a], mode, true, key, 16, iv2, msg + 32,
						   two + 32, 48),
					TPM_RC_SUCCESS);
			CU_ASSERT_EQUAL(memcmp(one, two, 80), 0);
			CU_ASSERT_EQUAL(memcmp(iv1, iv2, bs), 0);
		}
		for (size_t m = 0; m < 3; m++) {
			for (size_t len = 1; len <= sizeof(msg); len += 3) {
				memset(iv1, 0, 16);
				memset(iv3, 0, 16);
				CU_ASSERT_EQUAL(crypto_sym(algs[a], all[m], true, key, 24, iv1, msg,
							   one, len),
						TPM_RC_SUCCESS);
				memcpy(back, one, len);
				CU_ASSERT_EQUAL(crypto_sym(algs[a], all[m], false, key, 24, iv3,
							   back, back, len),
						TPM_RC_SUCCESS);
				CU_ASSERT_EQUAL(memcmp(back, msg, len), 0);
				CU_ASSERT_EQUAL(memcmp(iv1, iv3, bs), 0);
				if (all[m] == TPM_ALG_CFB) {
					size_t last = (len - 1) / bs * bs;
					uint8_t want[16] = { 0 };

					memcpy(want, one + last, len - last);
					CU_ASSERT_EQUAL(memcmp(iv1, want, bs), 0);
				}
			}
		}
	}
}

static void test_sizes_and_errors(void)
{
	uint8_t key[32] = { 0 }, iv[16] = { 0 }, buf[32] = { 0 };

	CU_ASSERT_EQUAL(crypto_sym_block(TPM_ALG_AES), 16);
	CU_ASSERT_EQUAL(crypto_sym_block(TPM_ALG_CAMELLIA), 16);
	CU_ASSERT_EQUAL(crypto_sym_block(TPM_ALG_TDES), 8);
	CU_ASSERT_EQUAL(crypto_sym_block(TPM_ALG_SM4), 0);
	CU_ASSERT_EQUAL(crypto_sym_block(TPM_ALG_XOR), 0);
	CU_ASSERT(crypto_sym_supported(TPM_ALG_CAMELLIA, 128));
	CU_ASSERT(crypto_sym_supported(TPM_ALG_CAMELLIA, 192));
	CU_ASSERT(crypto_sym_supported(TPM_ALG_CAMELLIA, 256));
	CU_ASSERT(!crypto_sym_supported(TPM_ALG_CAMELLIA, 64));
	CU_ASSERT(crypto_sym_supported(TPM_ALG_TDES, 128));
	CU_ASSERT(crypto_sym_supported(TPM_ALG_TDES, 192));
	CU_ASSERT(!crypto_sym_supported(TPM_ALG_TDES, 256));
	CU_ASSERT(!crypto_sym_supported(TPM_ALG_SM4, 128));

	CU_ASSERT_EQUAL(crypto_sym(TPM_ALG_SM4, TPM_ALG_CFB, true, key, 16, iv, buf, buf, 16),
			TPM_RC_SYMMETRIC);
	CU_ASSERT_EQUAL(crypto_sym(TPM_ALG_CAMELLIA, TPM_ALG_CFB, true, key, 20, iv, buf, buf, 16),
			TPM_RC_KEY_SIZE);
	CU_ASSERT_EQUAL(crypto_sym(TPM_ALG_TDES, TPM_ALG_CFB, true, key, 32, iv, buf, buf, 16),
			TPM_RC_KEY_SIZE);
	CU_ASSERT_EQUAL(crypto_sym(TPM_ALG_TDES, TPM_ALG_CFB, true, key, 8, iv, buf, buf, 16),
			TPM_RC_KEY_SIZE);
	CU_ASSERT_EQUAL(crypto_sym(TPM_ALG_CAMELLIA, TPM_ALG_NULL, true, key, 16, iv, buf, buf, 16),
			TPM_RC_MODE);
	/* TDES blocks are 8 bytes: 24 is whole, 12 is not */
	CU_ASSERT_EQUAL(crypto_sym(TPM_ALG_TDES, TPM_ALG_CBC, true, key, 24, iv, buf, buf, 24),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(crypto_sym(TPM_ALG_TDES, TPM_ALG_ECB, false, key, 24, NULL, buf, buf, 12),
			TPM_RC_SIZE);
	CU_ASSERT_EQUAL(crypto_sym(TPM_ALG_CAMELLIA, TPM_ALG_CBC, true, key, 32, iv, buf, buf, 24),
			TPM_RC_SIZE);
	CU_ASSERT_EQUAL(crypto_sym(TPM_ALG_CAMELLIA, TPM_ALG_OFB, true, key, 32, NULL, buf, buf, 5),
			TPM_RC_VALUE);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "RFC 3713, SP 800-67, SP 800-20 single blocks", test_blocks },
		{ "every mode against OpenSSL, with ivOut", test_modes },
		{ "chaining and odd lengths", test_chaining_and_lengths },
		{ "block sizes, key sizes, errors", test_sizes_and_errors },
	};

	return UNIT_RUN("crypto_sym", tests, NULL, NULL);
}
