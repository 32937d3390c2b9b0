/* RSA: deterministic generation (a known answer cross-computed in Python), signatures and
 * ciphertexts made by Python's cryptography package, round trips, tampering, bad inputs. */
#include <CUnit/Basic.h>
#include <string.h>

#include "crypto/crypto.h"
#include "vectors.h"

/* The 2048-bit key crypto_rsa_generate must derive from the kdf_rng stream below (seed
 * 11 22 33 00.., "Primary Object Creation", ctx_u 09 00..; e = 65537), computed by an
 * independent Python model of the documented prime search; then, under that key, Python's
 * cryptography package made: RSASSA-SHA256 and PSS-SHA256 (salt 0 and maximal salt) signatures
 * of "abc", an OAEP-SHA256 ciphertext with label "DUPLICATE\0" and an RSAES ciphertext, both of
 * "secret message". */
#define KAT_N \
	"a1ee1afff1bf159c0aeb02ed1597417040897342c70966186999e63def489d8f" \
	"3ea250341b4e918b07976b70bee60ea799a3fb47651c4093999b21ab12ac5287" \
	"ca4251af0f3d5d5291002c3b2708f7519024062abcc4e73686c1c5a5b7870272" \
	"90fa150abaea8aa24b9a43f3d23893478c296c5f6e4792e0d34f6ae616cb5077" \
	"a9bc85627814a249334fdc4baba054160a95af23506070d389402d3fe3ab6b9d" \
	"dbd22d7f0c90a8f951267a9bbfb4367e3f55a4ec1ee9035309c7fb9d0c00b0a6" \
	"fec220d078e2b6beed035830fbee950716df6cb96f9ef86c1d91c529d8736263" \
	"be30a2036f44041036dd382262f4307ec2f7b6eaac417db5c296ad28f41edbcb"
#define KAT_P \
	"d41def1b744a2f31a47962a22ae8f821063144f393905e01c7ef0d6be5d4e027" \
	"164995e3268749f63f4dc69e66716c4b00fa1bc6ba3d5424238349c1d0f8d474" \
	"fa6e78121a4b02df190f74ba7c89ce81003d7253badce430ff514a9b5b6277ba" \
	"3b51af7277ab8aad378cbd0193c2e5efcdbd1d3e66c1439a9cc6230daf3f2323"
#define KAT_SIG_RSASSA \
	"69f878550394114102732dccdea7fe145c541244fe7e9b8b137ccbac7eed8876" \
	"a4a993d660ac978ade0aa3fe5364dec4e70d9e632b326608c38743ca5bd6f3ba" \
	"55d2d585d0f24aab988812078082c4c7cfdd627b061b65b48428b63dc4d7317b" \
	"5437b7cf7295394a54e00d2ccd9cb8598b58a995dd2f212371e981d4f60050e4" \
	"5ca3ed18e5d438510bfe157fdf851a681468037e56f2338694ad450c58d15c3f" \
	"222b77d7d8ea4407719da208c9a301f2a631adf8f18b122c1cff283e11fdb2d6" \
	"3bce0425243c535424263227f8d28c7a22e42f00a5ca35b6cde1ec2ce343ad79" \
	"3624f33104a8b3daf99bceb3a7fbbad971b5ec2338f13fd92b8e2bc2ee8560bc"
#define KAT_SIG_PSS_SALT0 \
	"29ee365f8583bf3cfcd1c3963697c9cfdf32d538a432a97262acd3d423b2a287" \
	"c990a7ef504540e557623c5bf920d41fa69b57c6cc0beb796d3d4e15cadf8318" \
	"9ac32ca4df0294944dac675e756342c5b66d5e906d6fe3ba56d703da8427d6bd" \
	"3934a9584d462468a019bcec3ce42e7fa18b767e60f2b4e25dc350659e07ed58" \
	"f172d2d983b5cee25b17277ece3e91cc461fecaff75efdcf7d213e229e03055d" \
	"88af897e9bfd7cec26dfda8b5ac90b89a38c782491c0368f8970ef0f537b8d71" \
	"2b65dd38aceb92dc51f2efdb2319acb6994176107c27d2e8169b77cf20c281e8" \
	"a691e9e77b5a9f30fde52ed43b6aaaacdb135681085bb6ff910aec5ffbfee238"
#define KAT_SIG_PSS_SALTMAX \
	"a0b6843af02adbde293759e85bb043e0635f563e6bc016505c68ea67b89437dd" \
	"22ed1cb33955ed570bd0efdc1bd0cb2ac281ba8e426a9800ff3abc658ea8e338" \
	"4772e56544d4f29e63c53c1bac284b734cd1f25bfdff45dcfc1ec320c3fb9e91" \
	"e82a7cc290274c48d61b201b0da7df94d2c65e86ee83cc65a62adb274a661b2a" \
	"5059b16e98caea332b739df93d39d226566b675f164a49f2635a2d29b4dffa87" \
	"49606aea81afa02ff9b060b46019fcebd2306c6882f41a76c971b5ced5ff3088" \
	"81e894c83454fa4c7d8d403f99bb960819c1b0e3b1f0f8a189e0b8d3bd4fc0a2" \
	"2404a4d3958e0c31154b0a21f3961eb8aa8cb9b226bf428810f666a74d99ac87"
#define KAT_OAEP_CT \
	"32d9e33839ac0175c0c6f718dc07321001ead0d733821a35175fbb603299892c" \
	"b5c703c23b73581ec556b38d69fb39cadd26dc254652e8a507ae5c00f0f08f49" \
	"957894447912f13d51a667e50a9bb5ff0e0dd7010b6e61fc7a3f4ac1d7466372" \
	"430dc7d22f11c1855ec858474ebc8f5a23678aef353fdd9b7f4ef91a196631a9" \
	"11442138f12e2cbb85b289f31a6a1bd2f7618f39a7d700f73a86a159f8540aeb" \
	"651378368e3a96f3e00e40b9d6583fbb87a01203cfecb5b448a4e3d150f6d248" \
	"81dcdac6667df8e53d28700a5a28edcae8455c770a0934e1c41c3f0754cd2ad7" \
	"2e411f09f38e0c3e65c03c3d36b251c8478ad975c2928e125a77d454fde82124"
#define KAT_RSAES_CT \
	"71b2fe8f15488cfb3a045c2ac535ebdb58c464581fc6d7720acd4a44e167c98c" \
	"d15ba573c8684514b417720d6387e50661df2a1a84a70701a201be6f28466d51" \
	"6d987a4e5645f374df40d63ce861c16302dcbffb95ebc172d474999de616c6ba" \
	"db6f6e6239360cf10a859798b93dc678d4e7caffb3518be4becdc3bb19aabe27" \
	"4488d3e964cc386507dbe2129ce8210c79617043e7e0257a8f8adfea42d413b0" \
	"4a6cda68e24ad4e208ce3d7169da53ac785fb57f40f1abf9764d39834bccb6ff" \
	"87518c2fac80cd7621a17008591538232c2a41b93ea460bdb35331eff1778358" \
	"c35dc1dbc1b4c5fcb1779411fd6a9d4506b4083a6d68056e68f9eb87b567e2b4"

static uint8_t kat_n[256], kat_p[128];
static const struct crypto_rsa kat = { kat_n, sizeof(kat_n), 0, kat_p, sizeof(kat_p) };
static const struct crypto_rsa kat_pub = { kat_n, sizeof(kat_n), 0, NULL, 0 };
static const uint8_t label[] = "DUPLICATE"; /* with its zero octet, as the TPM passes it */

static void kdf_stream(struct crypto_kdf_rng *k, uint8_t ctx_u0)
{
	static const uint8_t seed[32] = { 0x11, 0x22, 0x33 };
	uint8_t u[32] = { ctx_u0 };

	CU_ASSERT_EQUAL(crypto_kdf_rng_init(k, TPM_ALG_SHA256, seed, sizeof(seed),
					    "Primary Object Creation", u, sizeof(u), NULL, 0),
			TPM_RC_SUCCESS);
}

static int setup(void)
{
	vec_unhex(KAT_N, kat_n);
	vec_unhex(KAT_P, kat_p);
	return 0;
}

static void test_generate_known_answer(void)
{
	uint8_t n[256], p[128], n2[256], p2[128];
	struct crypto_kdf_rng k;

	kdf_stream(&k, 9);
	CU_ASSERT_EQUAL(crypto_rsa_generate(&k.rng, 2048, 0, n, p), TPM_RC_SUCCESS);
	crypto_kdf_rng_wipe(&k);
	CU_ASSERT_EQUAL(memcmp(n, kat_n, sizeof(n)), 0);
	CU_ASSERT_EQUAL(memcmp(p, kat_p, sizeof(p)), 0);

	kdf_stream(&k, 9);
	CU_ASSERT_EQUAL(crypto_rsa_generate(&k.rng, 2048, 65537, n2, p2), TPM_RC_SUCCESS);
	crypto_kdf_rng_wipe(&k);
	CU_ASSERT_EQUAL(memcmp(n, n2, sizeof(n)), 0);
	CU_ASSERT_EQUAL(memcmp(p, p2, sizeof(p)), 0);

	kdf_stream(&k, 10);
	CU_ASSERT_EQUAL(crypto_rsa_generate(&k.rng, 2048, 0, n2, p2), TPM_RC_SUCCESS);
	crypto_kdf_rng_wipe(&k);
	CU_ASSERT_NOT_EQUAL(memcmp(n, n2, sizeof(n)), 0);
}

static void test_generate_sizes(void)
{
	uint8_t n[384], p[192], digest[32] = { 1 }, sig[384];
	struct crypto_rsa key = { n, 0, 3, p, 0 };
	size_t siglen;

	CU_ASSERT_EQUAL(crypto_rsa_generate(crypto_system_rng(), 1000, 0, n, p), TPM_RC_KEY_SIZE);
	CU_ASSERT_EQUAL(crypto_rsa_generate(crypto_system_rng(), 8192, 0, n, p), TPM_RC_KEY_SIZE);
	CU_ASSERT_EQUAL(crypto_rsa_generate(crypto_system_rng(), 2048, 4, n, p), TPM_RC_VALUE);
	static const uint16_t sizes[] = { 1024, 3072 };
	for (size_t i = 0; i < 2; i++) {
		key.nlen = sizes[i] / 8;
		key.plen = sizes[i] / 16;
		CU_ASSERT_EQUAL(crypto_rsa_generate(crypto_system_rng(), sizes[i], 3, n, p),
				TPM_RC_SUCCESS);
		CU_ASSERT_TRUE(n[0] & 0x80);
		CU_ASSERT_EQUAL(p[0] & 0xc0, 0xc0);
		CU_ASSERT_EQUAL(crypto_rsa_sign(&key, TPM_ALG_RSASSA, TPM_ALG_SHA256, digest, 32,
						sig, &siglen),
				TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(crypto_rsa_verify(&key, TPM_ALG_RSASSA, TPM_ALG_SHA256, digest, 32,
						  sig, siglen),
				TPM_RC_SUCCESS);
	}
}

static void test_verify_known_answers(void)
{
	static const char *const sigs[] = { KAT_SIG_RSASSA, KAT_SIG_PSS_SALT0,
					    KAT_SIG_PSS_SALTMAX };
	uint8_t digest[32], sig[256];

	CU_ASSERT_EQUAL(crypto_hash(TPM_ALG_SHA256, "abc", 3, digest), TPM_RC_SUCCESS);
	for (size_t i = 0; i < 3; i++) {
		TPM_ALG_ID scheme = i == 0 ? TPM_ALG_RSASSA : TPM_ALG_RSAPSS;

		vec_unhex(sigs[i], sig);
		CU_ASSERT_EQUAL(crypto_rsa_verify(&kat_pub, scheme, TPM_ALG_SHA256, digest, 32, sig,
						  256),
				TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(crypto_rsa_verify(&kat, scheme, TPM_ALG_SHA256, digest, 32, sig,
						  256),
				TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(crypto_rsa_verify(&kat_pub,
						  i == 0 ? TPM_ALG_RSAPSS : TPM_ALG_RSASSA,
						  TPM_ALG_SHA256, digest, 32, sig, 256),
				TPM_RC_SIGNATURE);
		sig[100] ^= 4;
		CU_ASSERT_EQUAL(crypto_rsa_verify(&kat_pub, scheme, TPM_ALG_SHA256, digest, 32, sig,
						  256),
				TPM_RC_SIGNATURE);
	}
}

static void test_decrypt_known_answers(void)
{
	uint8_t ct[256], out[256];
	size_t outlen;

	vec_unhex(KAT_OAEP_CT, ct);
	CU_ASSERT_EQUAL(crypto_rsa_decrypt(&kat, TPM_ALG_OAEP, TPM_ALG_SHA256, label,
					   sizeof(label), ct, 256, out, &outlen),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(outlen, 14);
	CU_ASSERT_EQUAL(memcmp(out, "secret message", 14), 0);
	/* the label without its zero octet is another label */
	CU_ASSERT_EQUAL(crypto_rsa_decrypt(&kat, TPM_ALG_OAEP, TPM_ALG_SHA256, label,
					   sizeof(label) - 1, ct, 256, out, &outlen),
			TPM_RC_VALUE);

	vec_unhex(KAT_RSAES_CT, ct);
	CU_ASSERT_EQUAL(crypto_rsa_decrypt(&kat, TPM_ALG_RSAES, TPM_ALG_NULL, NULL, 0, ct, 256,
					   out, &outlen),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(outlen, 14);
	CU_ASSERT_EQUAL(memcmp(out, "secret message", 14), 0);
}

static void test_sign_verify(void)
{
	static const TPM_ALG_ID hashes[] = { TPM_ALG_SHA1, TPM_ALG_SHA256, TPM_ALG_SHA384,
					     TPM_ALG_SHA512 };
	static const TPM_ALG_ID schemes[] = { TPM_ALG_RSASSA, TPM_ALG_RSAPSS };
	uint8_t digest[64], sig[256], sig2[256];
	size_t siglen;

	for (size_t h = 0; h < 4; h++) {
		size_t dlen = crypto_hash_size(hashes[h]);

		CU_ASSERT_EQUAL(crypto_hash(hashes[h], "message", 7, digest), TPM_RC_SUCCESS);
		for (size_t s = 0; s < 2; s++) {
			CU_ASSERT_EQUAL(crypto_rsa_sign(&kat, schemes[s], hashes[h], digest, dlen,
							sig, &siglen),
					TPM_RC_SUCCESS);
			CU_ASSERT_EQUAL(siglen, 256);
			CU_ASSERT_EQUAL(crypto_rsa_verify(&kat_pub, schemes[s], hashes[h], digest,
							  dlen, sig, siglen),
					TPM_RC_SUCCESS);
			/* wrong digest, short signature, wrong hash, wrong digest length */
			digest[0] ^= 1;
			CU_ASSERT_EQUAL(crypto_rsa_verify(&kat_pub, schemes[s], hashes[h], digest,
							  dlen, sig, siglen),
					TPM_RC_SIGNATURE);
			digest[0] ^= 1;
			CU_ASSERT_EQUAL(crypto_rsa_verify(&kat_pub, schemes[s], hashes[h], digest,
							  dlen, sig, siglen - 1),
					TPM_RC_SIGNATURE);
			CU_ASSERT_EQUAL(crypto_rsa_verify(&kat_pub, schemes[s],
							  hashes[(h + 1) % 4], digest,
							  crypto_hash_size(hashes[(h + 1) % 4]),
							  sig, siglen),
					TPM_RC_SIGNATURE);
			CU_ASSERT_EQUAL(crypto_rsa_verify(&kat_pub, schemes[s], hashes[h], digest,
							  dlen - 1, sig, siglen),
					TPM_RC_SIGNATURE);
		}
		/* PKCS#1 v1.5 is deterministic, PSS is salted */
		CU_ASSERT_EQUAL(crypto_rsa_sign(&kat, TPM_ALG_RSASSA, hashes[h], digest, dlen, sig,
						&siglen),
				TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(crypto_rsa_sign(&kat, TPM_ALG_RSASSA, hashes[h], digest, dlen, sig2,
						&siglen),
				TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(memcmp(sig, sig2, 256), 0);
		CU_ASSERT_EQUAL(crypto_rsa_sign(&kat, TPM_ALG_RSAPSS, hashes[h], digest, dlen, sig,
						&siglen),
				TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(crypto_rsa_sign(&kat, TPM_ALG_RSAPSS, hashes[h], digest, dlen, sig2,
						&siglen),
				TPM_RC_SUCCESS);
		CU_ASSERT_NOT_EQUAL(memcmp(sig, sig2, 256), 0);
	}
}

static void test_sign_errors(void)
{
	uint8_t digest[32] = { 0 }, sig[256], wrong_p[128];
	struct crypto_rsa bad = kat;
	size_t siglen;

	CU_ASSERT_EQUAL(crypto_rsa_sign(&kat, TPM_ALG_RSASSA, TPM_ALG_SHA256, digest, 31, sig,
					&siglen),
			TPM_RC_VALUE);
	CU_ASSERT_EQUAL(crypto_rsa_sign(&kat, TPM_ALG_OAEP, TPM_ALG_SHA256, digest, 32, sig,
					&siglen),
			TPM_RC_SCHEME);
	CU_ASSERT_EQUAL(crypto_rsa_sign(&kat, TPM_ALG_RSAPSS, TPM_ALG_SM3_256, digest, 32, sig,
					&siglen),
			TPM_RC_HASH);
	CU_ASSERT_EQUAL(crypto_rsa_sign(&kat_pub, TPM_ALG_RSASSA, TPM_ALG_SHA256, digest, 32, sig,
					&siglen),
			TPM_RC_KEY);
	memcpy(wrong_p, kat_p, sizeof(wrong_p));
	wrong_p[127] ^= 2;
	bad.p = wrong_p;
	CU_ASSERT_EQUAL(crypto_rsa_sign(&bad, TPM_ALG_RSASSA, TPM_ALG_SHA256, digest, 32, sig,
					&siglen),
			TPM_RC_BINDING);
	bad = kat_pub;
	bad.nlen = 64;
	CU_ASSERT_EQUAL(crypto_rsa_verify(&bad, TPM_ALG_RSASSA, TPM_ALG_SHA256, digest, 32, sig,
					  64),
			TPM_RC_KEY_SIZE);
	bad = kat_pub;
	bad.e = 4;
	CU_ASSERT_EQUAL(crypto_rsa_verify(&bad, TPM_ALG_RSASSA, TPM_ALG_SHA256, digest, 32, sig,
					  256),
			TPM_RC_VALUE);
}

static void test_encrypt_decrypt(void)
{
	static const uint8_t msg[] = "a secret of some length";
	uint8_t ct[256], out[256], raw[256], big[300] = { 0 };
	size_t ctlen, outlen;

	/* OAEP with a label, and the wrong label */
	CU_ASSERT_EQUAL(crypto_rsa_encrypt(&kat_pub, TPM_ALG_OAEP, TPM_ALG_SHA1, label,
					   sizeof(label), msg, sizeof(msg), ct, &ctlen),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(ctlen, 256);
	CU_ASSERT_EQUAL(crypto_rsa_decrypt(&kat, TPM_ALG_OAEP, TPM_ALG_SHA1, label, sizeof(label),
					   ct, ctlen, out, &outlen),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(outlen, sizeof(msg));
	CU_ASSERT_EQUAL(memcmp(out, msg, sizeof(msg)), 0);
	CU_ASSERT_EQUAL(crypto_rsa_decrypt(&kat, TPM_ALG_OAEP, TPM_ALG_SHA1,
					   (const uint8_t *)"OTHER", 6, ct, ctlen, out, &outlen),
			TPM_RC_VALUE);
	CU_ASSERT_EQUAL(crypto_rsa_decrypt(&kat, TPM_ALG_OAEP, TPM_ALG_SHA256, label,
					   sizeof(label), ct, ctlen, out, &outlen),
			TPM_RC_VALUE);
	/* OAEP without a label */
	CU_ASSERT_EQUAL(crypto_rsa_encrypt(&kat_pub, TPM_ALG_OAEP, TPM_ALG_SHA256, NULL, 0, msg,
					   sizeof(msg), ct, &ctlen),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(crypto_rsa_decrypt(&kat, TPM_ALG_OAEP, TPM_ALG_SHA256, NULL, 0, ct, ctlen,
					   out, &outlen),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(memcmp(out, msg, sizeof(msg)), 0);
	/* too long for OAEP-SHA512 in 2048 bits (at most 256 - 2 * 64 - 2 = 126 bytes) */
	CU_ASSERT_EQUAL(crypto_rsa_encrypt(&kat_pub, TPM_ALG_OAEP, TPM_ALG_SHA512, NULL, 0, big,
					   127, ct, &ctlen),
			TPM_RC_VALUE);
	CU_ASSERT_EQUAL(crypto_rsa_encrypt(&kat_pub, TPM_ALG_OAEP, TPM_ALG_SHA512, NULL, 0, big,
					   126, ct, &ctlen),
			TPM_RC_SUCCESS);

	/* RSAES */
	CU_ASSERT_EQUAL(crypto_rsa_encrypt(&kat_pub, TPM_ALG_RSAES, TPM_ALG_NULL, NULL, 0, msg,
					   sizeof(msg), ct, &ctlen),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(crypto_rsa_decrypt(&kat, TPM_ALG_RSAES, TPM_ALG_NULL, NULL, 0, ct, ctlen,
					   out, &outlen),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(outlen, sizeof(msg));
	CU_ASSERT_EQUAL(memcmp(out, msg, sizeof(msg)), 0);

	/* raw: a short input comes back left-padded to the modulus size */
	CU_ASSERT_EQUAL(crypto_rsa_encrypt(&kat_pub, TPM_ALG_NULL, TPM_ALG_NULL, NULL, 0, msg,
					   sizeof(msg), ct, &ctlen),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(crypto_rsa_decrypt(&kat, TPM_ALG_NULL, TPM_ALG_NULL, NULL, 0, ct, ctlen,
					   out, &outlen),
			TPM_RC_SUCCESS);
	memset(raw, 0, sizeof(raw));
	memcpy(raw + 256 - sizeof(msg), msg, sizeof(msg));
	CU_ASSERT_EQUAL(outlen, 256);
	CU_ASSERT_EQUAL(memcmp(out, raw, 256), 0);
	/* raw input must be below n; extra leading zeros are fine */
	CU_ASSERT_EQUAL(crypto_rsa_encrypt(&kat_pub, TPM_ALG_NULL, TPM_ALG_NULL, NULL, 0, kat_n,
					   256, ct, &ctlen),
			TPM_RC_VALUE);
	memcpy(big + 44, raw, 256);
	CU_ASSERT_EQUAL(crypto_rsa_encrypt(&kat_pub, TPM_ALG_NULL, TPM_ALG_NULL, NULL, 0, big,
					   300, out, &outlen),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(memcmp(out, ct, 256), 0);
	big[0] = 1;
	CU_ASSERT_EQUAL(crypto_rsa_encrypt(&kat_pub, TPM_ALG_NULL, TPM_ALG_NULL, NULL, 0, big,
					   300, out, &outlen),
			TPM_RC_VALUE);

	/* decryption input of the wrong size or not below n; unknown schemes */
	CU_ASSERT_EQUAL(crypto_rsa_decrypt(&kat, TPM_ALG_RSAES, TPM_ALG_NULL, NULL, 0, ct, 255,
					   out, &outlen),
			TPM_RC_SIZE);
	CU_ASSERT_EQUAL(crypto_rsa_decrypt(&kat, TPM_ALG_NULL, TPM_ALG_NULL, NULL, 0, kat_n, 256,
					   out, &outlen),
			TPM_RC_SIZE);
	CU_ASSERT_EQUAL(crypto_rsa_decrypt(&kat_pub, TPM_ALG_NULL, TPM_ALG_NULL, NULL, 0, ct, 256,
					   out, &outlen),
			TPM_RC_KEY);
	CU_ASSERT_EQUAL(crypto_rsa_encrypt(&kat_pub, TPM_ALG_RSAPSS, TPM_ALG_SHA256, NULL, 0, msg,
					   4, ct, &ctlen),
			TPM_RC_SCHEME);
	CU_ASSERT_EQUAL(crypto_rsa_encrypt(&kat_pub, TPM_ALG_OAEP, TPM_ALG_NULL, NULL, 0, msg, 4,
					   ct, &ctlen),
			TPM_RC_HASH);
}

int main(void)
{
	CU_pSuite s;
	unsigned failures;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("crypto_rsa", setup, NULL);
	CU_add_test(s, "deterministic 2048-bit generation (known answer)",
		    test_generate_known_answer);
	CU_add_test(s, "generation of other sizes and bad parameters", test_generate_sizes);
	CU_add_test(s, "verify signatures made elsewhere (any PSS salt)",
		    test_verify_known_answers);
	CU_add_test(s, "decrypt ciphertexts made elsewhere", test_decrypt_known_answers);
	CU_add_test(s, "RSASSA and PSS round trips, tampering", test_sign_verify);
	CU_add_test(s, "signing errors", test_sign_errors);
	CU_add_test(s, "OAEP, RSAES and raw round trips and errors", test_encrypt_decrypt);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	failures = CU_get_number_of_failures();
	CU_cleanup_registry();
	crypto_cleanup();
	return failures ? 1 : 0;
}
