/* Hashes and HMAC: known answers, incremental use, contexts copied as plain bytes. */
#include <CUnit/Basic.h>
#include <string.h>

#include "crypto/crypto.h"
#include "unit_main.h"
#include "vectors.h"

static void check_digest(TPM_ALG_ID alg, const void *msg, size_t len, const char *hex)
{
	uint8_t want[CRYPTO_MAX_DIGEST], got[CRYPTO_MAX_DIGEST];
	size_t n = vec_unhex(hex, want);

	CU_ASSERT_EQUAL(crypto_hash_size(alg), n);
	CU_ASSERT_EQUAL(crypto_hash(alg, msg, len, got), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(memcmp(got, want, n), 0);
}

static void test_hash_known_answers(void)
{
	check_digest(TPM_ALG_SHA1, "abc", 3, "a9993e364706816aba3e25717850c26c9cd0d89d");
	check_digest(TPM_ALG_SHA1, "", 0, "da39a3ee5e6b4b0d3255bfef95601890afd80709");
	check_digest(TPM_ALG_SHA256, "abc", 3,
		     "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	check_digest(TPM_ALG_SHA256, "", 0,
		     "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	check_digest(TPM_ALG_SHA384, "abc", 3,
		     "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded163"
		     "1a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7");
	check_digest(TPM_ALG_SHA384, "", 0,
		     "38b060a751ac96384cd9327eb1b1e36a21fdb71114be0743"
		     "4c0cc7bf63f6e1da274edebfe76f65fbd51ad2f14898b95b");
	check_digest(TPM_ALG_SHA512, "abc", 3,
		     "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
		     "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f");
	check_digest(TPM_ALG_SHA512, "", 0,
		     "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce"
		     "47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e");
}

static void test_hash_sizes(void)
{
	uint8_t out[CRYPTO_MAX_DIGEST];
	struct crypto_hash_ctx ctx;

	CU_ASSERT_EQUAL(crypto_hash_block(TPM_ALG_SHA1), 64);
	CU_ASSERT_EQUAL(crypto_hash_block(TPM_ALG_SHA256), 64);
	CU_ASSERT_EQUAL(crypto_hash_block(TPM_ALG_SHA384), 128);
	CU_ASSERT_EQUAL(crypto_hash_block(TPM_ALG_SHA512), 128);
	CU_ASSERT_EQUAL(crypto_hash_size(TPM_ALG_NULL), 0);
	CU_ASSERT_EQUAL(crypto_hash_block(TPM_ALG_SM3_256), 0);
	CU_ASSERT_EQUAL(crypto_hash_start(&ctx, TPM_ALG_SM3_256), TPM_RC_HASH);
	CU_ASSERT_EQUAL(crypto_hash(TPM_ALG_NULL, "x", 1, out), TPM_RC_HASH);
	CU_ASSERT_EQUAL(crypto_hmac(TPM_ALG_NULL, NULL, 0, "x", 1, out), TPM_RC_HASH);
}

static const TPM_ALG_ID all_hashes[] = { TPM_ALG_SHA1, TPM_ALG_SHA256, TPM_ALG_SHA384,
					 TPM_ALG_SHA512 };

static void test_hash_incremental(void)
{
	uint8_t msg[1000], one[CRYPTO_MAX_DIGEST], inc[CRYPTO_MAX_DIGEST];

	for (size_t i = 0; i < sizeof(msg); i++)
		msg[i] = (uint8_t)(i * 7 + 3);
	for (size_t a = 0; a < sizeof(all_hashes) / sizeof(all_hashes[0]); a++) {
		struct crypto_hash_ctx ctx;
		size_t off = 0, step = 1;

		CU_ASSERT_EQUAL(crypto_hash(all_hashes[a], msg, sizeof(msg), one), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(crypto_hash_start(&ctx, all_hashes[a]), TPM_RC_SUCCESS);
		while (off < sizeof(msg)) {
			size_t n = sizeof(msg) - off < step ? sizeof(msg) - off : step;

			CU_ASSERT_EQUAL(crypto_hash_update(&ctx, msg + off, n), TPM_RC_SUCCESS);
			off += n;
			step = step * 3 + 1;
		}
		CU_ASSERT_EQUAL(crypto_hash_update(&ctx, NULL, 0), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(crypto_hash_finish(&ctx, inc), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(memcmp(one, inc, crypto_hash_size(all_hashes[a])), 0);
	}
}

/* A sequence object is context-saved as bytes and restored elsewhere: the copy must finish
 * to the same digest as the original. */
static void test_hash_context_copy(void)
{
	uint8_t msg[300], one[CRYPTO_MAX_DIGEST], orig[CRYPTO_MAX_DIGEST], copy[CRYPTO_MAX_DIGEST];
	uint8_t saved[sizeof(struct crypto_hash_ctx)];

	memset(msg, 0x5a, sizeof(msg));
	for (size_t a = 0; a < sizeof(all_hashes) / sizeof(all_hashes[0]); a++) {
		struct crypto_hash_ctx ctx, restored;
		size_t dsize = crypto_hash_size(all_hashes[a]);

		CU_ASSERT_EQUAL(crypto_hash(all_hashes[a], msg, sizeof(msg), one), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(crypto_hash_start(&ctx, all_hashes[a]), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(crypto_hash_update(&ctx, msg, 77), TPM_RC_SUCCESS);
		memcpy(saved, &ctx, sizeof(saved));
		memset(&restored, 0xee, sizeof(restored));
		memcpy(&restored, saved, sizeof(saved));
		CU_ASSERT_EQUAL(crypto_hash_update(&ctx, msg + 77, sizeof(msg) - 77),
				TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(crypto_hash_update(&restored, msg + 77, sizeof(msg) - 77),
				TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(crypto_hash_finish(&ctx, orig), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(crypto_hash_finish(&restored, copy), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(memcmp(orig, one, dsize), 0);
		CU_ASSERT_EQUAL(memcmp(copy, one, dsize), 0);
	}
}

struct hmac_case {
	TPM_ALG_ID alg;
	const char *key, *data, *mac; /* hex */
};

/* RFC 4231 test cases 1, 2, 3, 6, 7 and RFC 2202 test cases 1, 6 (SHA-1). */
#define K20_0B "0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b"
#define K20_AA "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define K131_AA                                                                            \
	K20_AA K20_AA K20_AA K20_AA K20_AA K20_AA "aaaaaaaaaaaaaaaaaaaaaa"
#define D50_DD                                                                             \
	"dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd"     \
	"dddddddddddddddddddddddd"
#define HI_THERE "4869205468657265"
#define JEFE "4a656665"
#define WANT_NOTHING "7768617420646f2079612077616e7420666f72206e6f7468696e673f"
#define LARGER_KEY                                                                         \
	"54657374205573696e67204c6172676572205468616e20426c6f636b2d53697a65204b6579202d20" \
	"48617368204b6579204669727374"
#define LARGER_BOTH                                                                        \
	"5468697320697320612074657374207573696e672061206c6172676572207468616e20626c6f636b" \
	"2d73697a65206b657920616e642061206c6172676572207468616e20626c6f636b2d73697a652064" \
	"6174612e20546865206b6579206e6565647320746f20626520686173686564206265666f72652062" \
	"65696e6720757365642062792074686520484d414320616c676f726974686d2e"

static const struct hmac_case hmac_cases[] = {
	{ TPM_ALG_SHA1, K20_0B, HI_THERE, "b617318655057264e28bc0b6fb378c8ef146be00" },
	{ TPM_ALG_SHA1, K131_AA, LARGER_KEY, "90d0dace1c1bdc957339307803160335bde6df2b" },
	{ TPM_ALG_SHA256, K20_0B, HI_THERE,
	  "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7" },
	{ TPM_ALG_SHA256, JEFE, WANT_NOTHING,
	  "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843" },
	{ TPM_ALG_SHA256, K20_AA, D50_DD,
	  "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe" },
	{ TPM_ALG_SHA256, K131_AA, LARGER_KEY,
	  "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54" },
	{ TPM_ALG_SHA256, K131_AA, LARGER_BOTH,
	  "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2" },
	{ TPM_ALG_SHA384, K20_0B, HI_THERE,
	  "afd03944d84895626b0825f4ab46907f15f9dadbe4101ec682aa034c7cebc59c"
	  "faea9ea9076ede7f4af152e8b2fa9cb6" },
	{ TPM_ALG_SHA384, JEFE, WANT_NOTHING,
	  "af45d2e376484031617f78d2b58a6b1b9c7ef464f5a01b47e42ec3736322445e"
	  "8e2240ca5e69e2c78b3239ecfab21649" },
	{ TPM_ALG_SHA384, K131_AA, LARGER_KEY,
	  "4ece084485813e9088d2c63a041bc5b44f9ef1012a2b588f3cd11f05033ac4c6"
	  "0c2ef6ab4030fe8296248df163f44952" },
	{ TPM_ALG_SHA384, K131_AA, LARGER_BOTH,
	  "6617178e941f020d351e2f254e8fd32c602420feb0b8fb9adccebb82461e99c5"
	  "a678cc31e799176d3860e6110c46523e" },
	{ TPM_ALG_SHA512, K20_0B, HI_THERE,
	  "87aa7cdea5ef619d4ff0b4241a1d6cb02379f4e2ce4ec2787ad0b30545e17cde"
	  "daa833b7d6b8a702038b274eaea3f4e4be9d914eeb61f1702e696c203a126854" },
	{ TPM_ALG_SHA512, K20_AA, D50_DD,
	  "fa73b0089d56a284efb0f0756c890be9b1b5dbdd8ee81a3655f83e33b2279d39"
	  "bf3e848279a722c806b485a47e67c807b946a337bee8942674278859e13292fb" },
	{ TPM_ALG_SHA512, K131_AA, LARGER_KEY,
	  "80b24263c7c1a3ebb71493c1dd7be8b49b46d1f41b4aeec1121b013783f8f352"
	  "6b56d037e05f2598bd0fd2215d6a1e5295e64f73f63f0aec8b915a985d786598" },
	{ TPM_ALG_SHA512, K131_AA, LARGER_BOTH,
	  "e37b6a775dc87dbaa4dfa9f96e5e3ffddebd71f8867289865df5a32d20cdc944"
	  "b6022cac3c4982b10d5eeb55c3e4de15134676fb6de0446065c97440fa8c6a58" },
};

static void test_hmac_known_answers(void)
{
	for (size_t i = 0; i < sizeof(hmac_cases) / sizeof(hmac_cases[0]); i++) {
		const struct hmac_case *c = &hmac_cases[i];
		uint8_t key[200], data[200], want[CRYPTO_MAX_DIGEST], got[CRYPTO_MAX_DIGEST];
		size_t klen = vec_unhex(c->key, key), dlen = vec_unhex(c->data, data);
		size_t mlen = vec_unhex(c->mac, want);

		CU_ASSERT_EQUAL(crypto_hmac(c->alg, key, klen, data, dlen, got), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(memcmp(got, want, mlen), 0);
	}
}

static void test_hmac_incremental_and_copy(void)
{
	const struct hmac_case *c = &hmac_cases[6]; /* SHA-256, long key, long data */
	uint8_t key[200], data[200], want[CRYPTO_MAX_DIGEST], a[CRYPTO_MAX_DIGEST];
	uint8_t b[CRYPTO_MAX_DIGEST];
	size_t klen = vec_unhex(c->key, key), dlen = vec_unhex(c->data, data);
	struct crypto_hmac_ctx ctx, copy;

	vec_unhex(c->mac, want);
	CU_ASSERT_EQUAL(crypto_hmac_start(&ctx, c->alg, key, klen), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(crypto_hmac_update(&ctx, data, 10), TPM_RC_SUCCESS);
	memcpy(&copy, &ctx, sizeof(ctx));
	CU_ASSERT_EQUAL(crypto_hmac_update(&ctx, data + 10, dlen - 10), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(crypto_hmac_update(&copy, data + 10, dlen - 10), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(crypto_hmac_finish(&ctx, a), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(crypto_hmac_finish(&copy, b), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(memcmp(a, want, 32), 0);
	CU_ASSERT_EQUAL(memcmp(b, want, 32), 0);
}

static void test_util(void)
{
	uint8_t x[16], y[16];

	memset(x, 7, sizeof(x));
	memcpy(y, x, sizeof(y));
	CU_ASSERT_TRUE(crypto_ct_equal(x, y, sizeof(x)));
	y[15] ^= 1;
	CU_ASSERT_FALSE(crypto_ct_equal(x, y, sizeof(x)));
	CU_ASSERT_TRUE(crypto_ct_equal(x, y, 0));
	crypto_wipe(x, sizeof(x));
	for (size_t i = 0; i < sizeof(x); i++)
		CU_ASSERT_EQUAL(x[i], 0);
	crypto_wipe(NULL, 0);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "hash known answers", test_hash_known_answers },
		{ "hash sizes and unsupported algorithms", test_hash_sizes },
		{ "hash incremental equals one-shot", test_hash_incremental },
		{ "hash context survives memcpy", test_hash_context_copy },
		{ "hmac RFC 4231 / RFC 2202", test_hmac_known_answers },
		{ "hmac incremental and copied", test_hmac_incremental_and_copy },
		{ "wipe and constant-time compare", test_util },
	};

	return UNIT_RUN("crypto_hash", tests, NULL, NULL);
}
