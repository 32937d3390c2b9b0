/* SelfTest, IncrementalSelfTest, GetTestResult (Part 3 §10). Known-answer tests of the crypto
 * the engine uses; they are quick, so every request runs the whole set (RSA signs with a fixed
 * key generated once per process from a constant seed). A failure puts the TPM in failure
 * mode (e->self_test_failed). */
#include <pthread.h>
#include <string.h>

#include "engine_int.h"

#define MAX_ALG_LIST 64 /* TPML_ALG */
#define RSA_TEST_BITS 2048

/* Decode a hex string of at most max bytes; returns its length (0 on bad input). */
static size_t unhex(const char *hex, uint8_t *out, size_t max)
{
	size_t n = strlen(hex) / 2;

	if (n > max || strlen(hex) % 2)
		return 0;
	for (size_t i = 0; i < n; i++) {
		unsigned v = 0;

		for (int j = 0; j < 2; j++) {
			char ch = hex[2 * i + j];

			v <<= 4;
			if (ch >= '0' && ch <= '9')
				v |= (unsigned)(ch - '0');
			else if (ch >= 'a' && ch <= 'f')
				v |= (unsigned)(ch - 'a' + 10);
			else if (ch >= 'A' && ch <= 'F')
				v |= (unsigned)(ch - 'A' + 10);
			else
				return 0;
		}
		out[i] = (uint8_t)v;
	}
	return n;
}

/* Equal to the expected hex? */
static bool matches(const uint8_t *got, size_t len, const char *hex)
{
	uint8_t want[CRYPTO_MAX_DIGEST + CRYPTO_MAX_ECC_BYTES];

	return unhex(hex, want, sizeof(want)) == len && memcmp(got, want, len) == 0;
}

static TPM_RC check(bool ok)
{
	return ok ? TPM_RC_SUCCESS : TPM_RC_FAILURE;
}

/* ---- hashes and HMAC: FIPS 180-4 "abc", RFC 4231 case 2 ---- */
static TPM_RC test_hashes(void)
{
	static const struct {
		TPM_ALG_ID alg;
		const char *abc;
	} kat[] = {
		{ TPM_ALG_SHA1, "a9993e364706816aba3e25717850c26c9cd0d89d" },
		{ TPM_ALG_SHA256, "ba7816bf8f01cfea414140de5dae2223"
				  "b00361a396177a9cb410ff61f20015ad" },
		{ TPM_ALG_SHA384, "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded163"
				  "1a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7" },
		{ TPM_ALG_SHA512, "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea2"
				  "0a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd"
				  "454d4423643ce80e2a9ac94fa54ca49f" },
	};
	uint8_t out[CRYPTO_MAX_DIGEST];

	for (size_t i = 0; i < sizeof(kat) / sizeof(kat[0]); i++) {
		TRY(crypto_hash(kat[i].alg, "abc", 3, out));
		TRY(check(matches(out, crypto_hash_size(kat[i].alg), kat[i].abc)));
	}
	return TPM_RC_SUCCESS;
}

static TPM_RC test_hmac(void)
{
	static const char data[] = "what do ya want for nothing?";
	uint8_t out[CRYPTO_MAX_DIGEST];

	TRY(crypto_hmac(TPM_ALG_SHA256, (const uint8_t *)"Jefe", 4, data, sizeof(data) - 1, out));
	return check(matches(out, 32,
			     "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"));
}

/* ---- AES: FIPS 197 C.1 (ECB), SP 800-38A F.3.13 (CFB128, parameter encryption's mode) ---- */
static TPM_RC test_aes(void)
{
	uint8_t key[16], iv[16] = { 0 }, in[16], out[16];

	unhex("000102030405060708090a0b0c0d0e0f", key, sizeof(key));
	unhex("00112233445566778899aabbccddeeff", in, sizeof(in));
	TRY(crypto_aes(TPM_ALG_ECB, true, key, sizeof(key), iv, in, out, sizeof(out)));
	TRY(check(matches(out, sizeof(out), "69c4e0d86a7b0430d8cdb78070b4c55a")));

	unhex("2b7e151628aed2a6abf7158809cf4f3c", key, sizeof(key));
	unhex("000102030405060708090a0b0c0d0e0f", iv, sizeof(iv));
	unhex("6bc1bee22e409f96e93d7e117393172a", in, sizeof(in));
	TRY(crypto_aes(TPM_ALG_CFB, true, key, sizeof(key), iv, in, out, sizeof(out)));
	TRY(check(matches(out, sizeof(out), "3b3fd92eb72dad20333449f8e83cfb4a")));
	unhex("000102030405060708090a0b0c0d0e0f", iv, sizeof(iv));
	TRY(crypto_aes(TPM_ALG_CFB, false, key, sizeof(key), iv, out, out, sizeof(out)));
	return check(memcmp(out, in, sizeof(in)) == 0);
}

/* ---- Camellia: RFC 3713 A (128-bit key); TDES: SP 800-67 Rev. 2 B, where built ---- */
static TPM_RC test_block(TPM_ALG_ID alg, const char *key_hex, const char *in_hex,
			 const char *out_hex)
{
	uint8_t key[24], in[24], out[24];
	size_t klen = unhex(key_hex, key, sizeof(key)), n = unhex(in_hex, in, sizeof(in));

	if (crypto_sym_block(alg) == 0)
		return TPM_RC_SUCCESS;
	TRY(crypto_sym(alg, TPM_ALG_ECB, true, key, klen, NULL, in, out, n));
	TRY(check(matches(out, n, out_hex)));
	TRY(crypto_sym(alg, TPM_ALG_ECB, false, key, klen, NULL, out, out, n));
	return check(memcmp(out, in, n) == 0);
}

static TPM_RC test_camellia_tdes(void)
{
	TRY(test_block(TPM_ALG_CAMELLIA, "0123456789abcdeffedcba9876543210",
		       "0123456789abcdeffedcba9876543210", "67673138549669730857065648eabe43"));
	return test_block(TPM_ALG_TDES, "0123456789abcdef23456789abcdef01456789abcdef0123",
			  "54686520717566636b2062726f776e20666f78206a756d70",
			  "a826fd8ce53b855fcce21c8112256fe668d5c05dd9b6b900");
}

/* ---- ECC: the RFC 6979 A.2.5/A.2.6/A.2.7 keys; public point known, ECDSA round trip ---- */
static TPM_RC test_ecdsa_curve(uint16_t curve, const char *d_hex, const char *x_hex,
			       const char *y_hex)
{
	uint8_t d[CRYPTO_MAX_ECC_BYTES], x[CRYPTO_MAX_ECC_BYTES], y[CRYPTO_MAX_ECC_BYTES];
	uint8_t r[CRYPTO_MAX_ECC_BYTES], s[CRYPTO_MAX_ECC_BYTES], digest[CRYPTO_MAX_DIGEST];
	size_t n = crypto_ecc_bytes(curve);
	TPM_RC rc;

	TRY(check(n != 0 && unhex(d_hex, d, sizeof(d)) == n));
	TRY(crypto_ecc_public(curve, d, x, y));
	TRY(check(matches(x, n, x_hex) && matches(y, n, y_hex)));
	TRY(crypto_hash(TPM_ALG_SHA256, "sample", 6, digest));
	rc = crypto_ecdsa_sign(curve, d, digest, 32, r, s);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_ecdsa_verify(curve, x, y, digest, 32, r, n, s, n);
	digest[0] ^= 1;
	if (rc == TPM_RC_SUCCESS)
		rc = check(crypto_ecdsa_verify(curve, x, y, digest, 32, r, n, s, n) ==
			   TPM_RC_SIGNATURE);
	crypto_wipe(d, sizeof(d));
	return rc;
}

static TPM_RC test_ecc(void)
{
	TRY(test_ecdsa_curve(TPM_ECC_NIST_P256,
			     "c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721",
			     "60fed4ba255a9d31c961eb74c6356d68c049b8923b61fa6ce669622e60f29fb6",
			     "7903fe1008b8bc99a41ae9e95628bc64f2f1b20c2d7e9f5177a3c294d4462299"));
	TRY(test_ecdsa_curve(TPM_ECC_NIST_P384,
			     "6b9d3dad2e1b8c1c05b19875b6659f4de23c3b667bf297ba"
			     "9aa47740787137d896d5724e4c70a825f872c9ea60d2edf5",
			     "ec3a4e415b4e19a4568618029f427fa5da9a8bc4ae92e02e"
			     "06aae5286b300c64def8f0ea9055866064a254515480bc13",
			     "8015d9b72d7d57244ea8ef9ac0c621896708a59367f9dfb9"
			     "f54ca84b3f1c9db1288b231c3ae0d4fe7344fd2533264720"));
	if (crypto_ecc_bytes(TPM_ECC_NIST_P521) == 0)
		return TPM_RC_SUCCESS;
	return test_ecdsa_curve(TPM_ECC_NIST_P521,
				"00fad06daa62ba3b25d2fb40133da757205de67f5bb0018fee8c86e1b68c"
				"7e75caa896eb32f1f47c70855836a6d16fcc1466f6d8fbec67db89ec0c08"
				"b0e996b83538",
				"01894550d0785932e00eaa23b694f213f8c3121f86dc97a04e5a7167db4e"
				"5bcd371123d46e45db6b5d5370a7f20fb633155d38ffa16d2bd761dcac47"
				"4b9a2f5023a4",
				"00493101c962cd4d2fddf782285e64584139c2f91b47f87ff82354d6630f"
				"746a28a0db25741b5b34a828008b22acc23f924faafbd4d33f81ea66956d"
				"feaa2bfdfcf5");
}

/* ---- RSA: a 2048-bit key from a constant seed, made once; sign/verify and OAEP ---- */
static struct {
	TPM_RC rc;
	uint8_t n[RSA_TEST_BITS / 8];
	uint8_t p[RSA_TEST_BITS / 16];
} rsa_key;
static pthread_once_t rsa_key_once = PTHREAD_ONCE_INIT;

static void rsa_key_make(void)
{
	static const char seed[] = "pqtpm self-test RSA key";
	struct crypto_kdf_rng k;

	rsa_key.rc = crypto_kdf_rng_init(&k, TPM_ALG_SHA256, (const uint8_t *)seed,
					 sizeof(seed) - 1, "pqtpm self test", NULL, 0, NULL, 0);
	if (rsa_key.rc == TPM_RC_SUCCESS)
		rsa_key.rc = crypto_rsa_generate(&k.rng, RSA_TEST_BITS, 0, rsa_key.n, rsa_key.p);
	crypto_kdf_rng_wipe(&k);
}

static TPM_RC test_rsa(void)
{
	struct crypto_rsa key = { rsa_key.n, sizeof(rsa_key.n), 0, rsa_key.p, sizeof(rsa_key.p) };
	uint8_t digest[32], sig[RSA_TEST_BITS / 8], ct[RSA_TEST_BITS / 8], pt[RSA_TEST_BITS / 8];
	size_t siglen, ctlen, ptlen;

	if (pthread_once(&rsa_key_once, rsa_key_make) != 0)
		return TPM_RC_FAILURE;
	TRY(rsa_key.rc);
	TRY(crypto_hash(TPM_ALG_SHA256, "abc", 3, digest));
	TRY(crypto_rsa_sign(&key, TPM_ALG_RSASSA, TPM_ALG_SHA256, digest, sizeof(digest), sig,
			    &siglen));
	TRY(crypto_rsa_verify(&key, TPM_ALG_RSASSA, TPM_ALG_SHA256, digest, sizeof(digest), sig,
			      siglen));
	digest[0] ^= 1;
	TRY(check(crypto_rsa_verify(&key, TPM_ALG_RSASSA, TPM_ALG_SHA256, digest, sizeof(digest),
				    sig, siglen) == TPM_RC_SIGNATURE));
	TRY(crypto_rsa_encrypt(&key, TPM_ALG_OAEP, TPM_ALG_SHA256, NULL, 0, digest,
			       sizeof(digest), ct, &ctlen));
	TRY(crypto_rsa_decrypt(&key, TPM_ALG_OAEP, TPM_ALG_SHA256, NULL, 0, ct, ctlen, pt,
			       &ptlen));
	return check(ptlen == sizeof(digest) && memcmp(pt, digest, ptlen) == 0);
}

static const struct {
	const char *name;
	TPM_RC (*run)(void);
} tests[] = {
	{ "hash", test_hashes }, { "hmac", test_hmac },	 { "aes", test_aes },
	{ "camellia, tdes", test_camellia_tdes },	 { "ecc", test_ecc },
	{ "rsa", test_rsa },
};

static TPM_RC run_all(struct pqtpm_engine *e)
{
	volatile_dirty(e);
	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		if (tests[i].run() != TPM_RC_SUCCESS) {
			engine_log(e, PQTPM_LOG_ERROR, "self test %s failed", tests[i].name);
			e->self_test_failed = true;
			e->self_tested = false;
			return TPM_RC_FAILURE;
		}
	}
	e->self_tested = true;
	return TPM_RC_SUCCESS;
}

/* fullTest NO tests only what is untested: everything or nothing here. */
static TPM_RC self_test(struct cmd *c)
{
	uint8_t full;

	TRYP(1, rd_u8(&c->in, &full));
	TRY(cmd_params_done(c));
	if (full > 1)
		return rc_param(TPM_RC_VALUE, 1);
	if (!full && c->e->self_tested)
		return TPM_RC_SUCCESS;
	return run_all(c->e);
}

static TPM_RC incremental_self_test(struct cmd *c)
{
	uint32_t count;

	TRYP(1, rd_u32(&c->in, &count));
	if (count > MAX_ALG_LIST)
		return rc_param(TPM_RC_SIZE, 1);
	for (uint32_t i = 0; i < count; i++) {
		TPM_ALG_ID alg;

		TRYP(1, rd_u16(&c->in, &alg));
		if (!alg_implemented(alg) && alg != TPM_ALG_ERROR)
			return rc_param(TPM_RC_VALUE, 1);
	}
	TRY(cmd_params_done(c));
	if (count > 0 && !c->e->self_tested)
		TRY(run_all(c->e));
	/* toDoList: nothing is left untested */
	return wr_u32(&c->out, 0);
}

/* The result of the tests; if none ran since power on they run now (they are quick), so the
 * answer is what they find, never TPM_RC_NEEDS_TEST: the reference implementation and its
 * descendants answer success here right after Startup. */
static TPM_RC get_test_result(struct cmd *c)
{
	TPM_RC result = TPM_RC_SUCCESS;

	TRY(cmd_params_done(c));
	if (c->e->self_test_failed)
		result = TPM_RC_FAILURE;
	else if (!c->e->self_tested)
		result = run_all(c->e);
	TRY(wr_u16(&c->out, 0)); /* outData: no vendor information */
	return wr_u32(&c->out, result);
}

const struct cmd_def cmds_testing[] = {
	{ .code = TPM_CC_IncrementalSelfTest, .name = "IncrementalSelfTest",
	  .run = incremental_self_test },
	{ .code = TPM_CC_SelfTest, .name = "SelfTest", .run = self_test },
	{ .code = TPM_CC_GetTestResult, .name = "GetTestResult",
	  .flags = CMD_PARAM_OUT | CMD_READS_STATE, .run = get_test_result },
	{ 0 },
};
