/* ECC: domain parameters, deterministic generation, public keys, point checks, ECDSA (RFC 6979
 * known answers, round trips, tampering) and ECDH, on P-256, P-384 and P-521 (which both
 * wolfSSL flavours have). */
#include <CUnit/Basic.h>
#include <pthread.h>
#include <string.h>

#include "crypto/crypto.h"
#include "unit_main.h"
#include "vectors.h"

/* RFC 6979 A.2.5 (P-256, SHA-256), A.2.6 (P-384, SHA-384) and A.2.7 (P-521, SHA-512), message
 * "sample". */
struct curve_case {
	uint16_t curve;
	TPM_ALG_ID hash;
	const char *d, *ux, *uy, *r, *s;
	/* d, x, y generated from the kdf_rng stream used in test_generate_deterministic,
	 * cross-computed with Python (FIPS 186-4 B.4.1 and the cryptography package) */
	const char *gen_d, *gen_x, *gen_y;
};

static const struct curve_case curves[] = {
	{ TPM_ECC_NIST_P256, TPM_ALG_SHA256,
	  "c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721",
	  "60fed4ba255a9d31c961eb74c6356d68c049b8923b61fa6ce669622e60f29fb6",
	  "7903fe1008b8bc99a41ae9e95628bc64f2f1b20c2d7e9f5177a3c294d4462299",
	  "efd48b2aacb6a8fd1140dd9cd45e81d69d2c877b56aaf991c34d0ea84eaf3716",
	  "f7cb1c942d657c41d436c7a1b6e29f65f3e900dbb9aff4064dc4ab2f843acda8",
	  "18c391d36280d9d41c3d5333d732f745227a8e077eeee80ca4e622cbf5d5b0e7",
	  "9781ba48ef51c926f43d53f475c369faeda08a75fd879fb0e337d4b4c19d09f5",
	  "819ad4c0ee90293de4d756465e5b2c95e1cc5898ff1ea786d9061bc293ce927a" },
	{ TPM_ECC_NIST_P384, TPM_ALG_SHA384,
	  "6b9d3dad2e1b8c1c05b19875b6659f4de23c3b667bf297ba9aa47740787137d8"
	  "96d5724e4c70a825f872c9ea60d2edf5",
	  "ec3a4e415b4e19a4568618029f427fa5da9a8bc4ae92e02e06aae5286b300c64"
	  "def8f0ea9055866064a254515480bc13",
	  "8015d9b72d7d57244ea8ef9ac0c621896708a59367f9dfb9f54ca84b3f1c9db1"
	  "288b231c3ae0d4fe7344fd2533264720",
	  "94edbb92a5ecb8aad4736e56c691916b3f88140666ce9fa73d64c4ea95ad133c"
	  "81a648152e44acf96e36dd1e80fabe46",
	  "99ef4aeb15f178cea1fe40db2603138f130e740a19624526203b6351d0a3a94f"
	  "a329c145786e679e7b82c71a38628ac8",
	  "a47962a22ae8f821063144f393905e01da89169dd6dc03c1a5f86a30257b24aa"
	  "f5aca0f49c130d21cd0f4df1b2f07753",
	  "cc5fe26648a6c088b49d23824772439dd4a7a90cce5f8ab5757bf37e811d1177"
	  "40c8c5b71f8567ae962b38a823f456fa",
	  "ef6ddf13919833c8506da48f204d602d18286a179d8523a247e9d3d7498c70b1"
	  "11af9424400849ddaa91862487ef16f5" },
	{ TPM_ECC_NIST_P521, TPM_ALG_SHA512,
	  "00fad06daa62ba3b25d2fb40133da757205de67f5bb0018fee8c86e1b68c7e75"
	  "caa896eb32f1f47c70855836a6d16fcc1466f6d8fbec67db89ec0c08b0e996b83538",
	  "01894550d0785932e00eaa23b694f213f8c3121f86dc97a04e5a7167db4e5bcd"
	  "371123d46e45db6b5d5370a7f20fb633155d38ffa16d2bd761dcac474b9a2f5023a4",
	  "00493101c962cd4d2fddf782285e64584139c2f91b47f87ff82354d6630f746a"
	  "28a0db25741b5b34a828008b22acc23f924faafbd4d33f81ea66956dfeaa2bfdfcf5",
	  "00c328fafcbd79dd77850370c46325d987cb525569fb63c5d3bc53950e6d4c5f"
	  "174e25a1ee9017b5d450606add152b534931d7d4e8455cc91f9b15bf05ec36e377fa",
	  "00617cce7cf5064806c467f678d3b4080d6f1cc50af26ca209417308281b68af"
	  "282623eaa63e5b5c0723d8b8c37ff0777b1a20f8ccb1dccc43997f1ee0e44da4a67a",
	  "007962a22ae8f821063144f393905e01c7ef0d6be5d4e02717388ada0bee75f1"
	  "1a15b5bac9784f649cc88410f2fd27098f830c32807a9131f2eafd2e74a842804a80",
	  "00eee02ba82caf3d357dd5fd16ef2b37c26401dcc3ffb44e1ee23abd1a02639d"
	  "c185f323f55227e4d845785c3416fa1ca9391fe5c10cda3750ab1018b0131a685595",
	  "01d5a673d3dc7ec1f4ed03c6a77e263bbb1b4d627a21a75874763858825320e9"
	  "8e4fea20ce62efd801f65ef6c609f7ccb7ce7807769c249098b894aca1413ec64921" },
};
#define NCURVES (sizeof(curves) / sizeof(curves[0]))
#define MAX CRYPTO_MAX_ECC_BYTES

static void test_params(void)
{
	struct crypto_ecc_params p;

	CU_ASSERT_EQUAL(crypto_ecc_bytes(TPM_ECC_NIST_P256), 32);
	CU_ASSERT_EQUAL(crypto_ecc_bytes(TPM_ECC_NIST_P384), 48);
	CU_ASSERT_EQUAL(crypto_ecc_bytes(TPM_ECC_NIST_P521), 66);
	/* wolfSSL 5.5.4 has no BN or SM2 curve */
	CU_ASSERT_EQUAL(crypto_ecc_bytes(TPM_ECC_BN_P256), 0);
	CU_ASSERT_EQUAL(crypto_ecc_bytes(TPM_ECC_SM2_P256), 0);
	CU_ASSERT_EQUAL(crypto_ecc_params(TPM_ECC_BN_P256, &p), TPM_RC_CURVE);
	CU_ASSERT_EQUAL(crypto_ecc_params(TPM_ECC_NIST_P256, &p), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(p.key_bits, 256);
	CU_ASSERT_EQUAL(p.len, 32);
	CU_ASSERT_EQUAL(p.gx[0], 0x6b);
	CU_ASSERT_EQUAL(p.n[31], 0x51);
	CU_ASSERT_EQUAL(crypto_ecc_params(TPM_ECC_NIST_P384, &p), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(p.key_bits, 384);
	CU_ASSERT_EQUAL(p.len, 48);
	CU_ASSERT_EQUAL(p.b[0], 0xb3);
	CU_ASSERT_EQUAL(p.gy[47], 0x5f);
	/* a = p - 3 */
	CU_ASSERT_EQUAL(memcmp(p.a, p.p, 47), 0);
	CU_ASSERT_EQUAL(p.a[47] + 3, p.p[47]);
	/* P-521: p = 2^521 - 1, a = p - 3, in 66 bytes */
	CU_ASSERT_EQUAL(crypto_ecc_params(TPM_ECC_NIST_P521, &p), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(p.key_bits, 521);
	CU_ASSERT_EQUAL(p.len, 66);
	CU_ASSERT_EQUAL(p.p[0], 0x01);
	for (size_t i = 1; i < 66; i++)
		CU_ASSERT_EQUAL(p.p[i], 0xff);
	CU_ASSERT_EQUAL(memcmp(p.a, p.p, 65), 0);
	CU_ASSERT_EQUAL(p.a[65] + 3, p.p[65]);
	CU_ASSERT_EQUAL(p.n[65], 0x09);
	CU_ASSERT_EQUAL(p.gy[65], 0x50);
}

/* G is on the curve and d * G, through the ECDH multiplication, is the public key. */
static void test_public_known_answers(void)
{
	for (size_t i = 0; i < NCURVES; i++) {
		const struct curve_case *c = &curves[i];
		struct crypto_ecc_params p;
		uint8_t d[MAX], ux[MAX], uy[MAX], x[MAX], y[MAX];
		size_t n = vec_unhex(c->d, d);

		vec_unhex(c->ux, ux);
		vec_unhex(c->uy, uy);
		CU_ASSERT_EQUAL(crypto_ecc_public(c->curve, d, x, y), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(memcmp(x, ux, n), 0);
		CU_ASSERT_EQUAL(memcmp(y, uy, n), 0);

		CU_ASSERT_EQUAL(crypto_ecc_params(c->curve, &p), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(crypto_ecc_check_point(c->curve, p.gx, n, p.gy, n), TPM_RC_SUCCESS);
		memset(x, 0, sizeof(x));
		CU_ASSERT_EQUAL(crypto_ecdh(c->curve, d, p.gx, n, p.gy, n, x, y), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(memcmp(x, ux, n), 0);
		CU_ASSERT_EQUAL(memcmp(y, uy, n), 0);
	}
}

static void kdf_stream(struct crypto_kdf_rng *k)
{
	static const uint8_t seed[32] = { 0x11, 0x22, 0x33 }, u[32] = { 9 };

	CU_ASSERT_EQUAL(crypto_kdf_rng_init(k, TPM_ALG_SHA256, seed, sizeof(seed),
					    "Primary Object Creation", u, sizeof(u), NULL, 0),
			TPM_RC_SUCCESS);
}

static void test_generate_deterministic(void)
{
	for (size_t i = 0; i < NCURVES; i++) {
		const struct curve_case *c = &curves[i];
		uint8_t want_d[MAX], want_x[MAX], want_y[MAX], d[MAX], x[MAX], y[MAX];
		size_t n = vec_unhex(c->gen_d, want_d);
		struct crypto_kdf_rng k;

		vec_unhex(c->gen_x, want_x);
		vec_unhex(c->gen_y, want_y);
		kdf_stream(&k);
		CU_ASSERT_EQUAL(crypto_ecc_generate(&k.rng, c->curve, d, x, y), TPM_RC_SUCCESS);
		crypto_kdf_rng_wipe(&k);
		CU_ASSERT_EQUAL(memcmp(d, want_d, n), 0);
		CU_ASSERT_EQUAL(memcmp(x, want_x, n), 0);
		CU_ASSERT_EQUAL(memcmp(y, want_y, n), 0);
	}
}

static void test_ecdsa_known_answers(void)
{
	for (size_t i = 0; i < NCURVES; i++) {
		const struct curve_case *c = &curves[i];
		uint8_t ux[MAX], uy[MAX], r[MAX], s[MAX], digest[64];
		size_t n = vec_unhex(c->ux, ux), dlen = crypto_hash_size(c->hash);

		vec_unhex(c->uy, uy);
		vec_unhex(c->r, r);
		vec_unhex(c->s, s);
		CU_ASSERT_EQUAL(crypto_hash(c->hash, "sample", 6, digest), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(crypto_ecdsa_verify(c->curve, ux, uy, digest, dlen, r, n, s, n),
				TPM_RC_SUCCESS);
		digest[0] ^= 1;
		CU_ASSERT_EQUAL(crypto_ecdsa_verify(c->curve, ux, uy, digest, dlen, r, n, s, n),
				TPM_RC_SIGNATURE);
	}
}

static void test_ecdsa_round_trip(void)
{
	static const TPM_ALG_ID hashes[] = { TPM_ALG_SHA1, TPM_ALG_SHA256, TPM_ALG_SHA384,
					     TPM_ALG_SHA512 };
	static const uint16_t ids[] = { TPM_ECC_NIST_P256, TPM_ECC_NIST_P384, TPM_ECC_NIST_P521 };

	for (size_t i = 0; i < 3; i++) {
		size_t n = crypto_ecc_bytes(ids[i]);
		uint8_t d[MAX], x[MAX], y[MAX], r[MAX], s[MAX], r2[MAX], s2[MAX], digest[64];
		uint8_t zero[MAX] = { 0 };

		CU_ASSERT_EQUAL(crypto_ecc_generate(crypto_system_rng(), ids[i], d, x, y),
				TPM_RC_SUCCESS);
		for (size_t h = 0; h < 4; h++) {
			size_t dlen = crypto_hash_size(hashes[h]);

			CU_ASSERT_EQUAL(crypto_hash(hashes[h], "message", 7, digest),
					TPM_RC_SUCCESS);
			CU_ASSERT_EQUAL(crypto_ecdsa_sign(ids[i], d, digest, dlen, r, s),
					TPM_RC_SUCCESS);
			CU_ASSERT_EQUAL(crypto_ecdsa_verify(ids[i], x, y, digest, dlen, r, n, s, n),
					TPM_RC_SUCCESS);
			/* k is random: signing again gives another signature */
			CU_ASSERT_EQUAL(crypto_ecdsa_sign(ids[i], d, digest, dlen, r2, s2),
					TPM_RC_SUCCESS);
			CU_ASSERT_NOT_EQUAL(memcmp(r, r2, n), 0);
			CU_ASSERT_EQUAL(crypto_ecdsa_verify(ids[i], x, y, digest, dlen, r2, n, s2,
							    n),
					TPM_RC_SUCCESS);
			s[n - 1] ^= 0x80;
			CU_ASSERT_EQUAL(crypto_ecdsa_verify(ids[i], x, y, digest, dlen, r, n, s, n),
					TPM_RC_SIGNATURE);
			CU_ASSERT_EQUAL(crypto_ecdsa_verify(ids[i], x, y, digest, dlen, zero, n, s2,
							    n),
					TPM_RC_SIGNATURE);
			CU_ASSERT_EQUAL(crypto_ecdsa_verify(ids[i], x, y, digest, dlen, r2, n + 1,
							    s2, n),
					TPM_RC_SIGNATURE);
		}
	}
}

static void test_bad_points_and_keys(void)
{
	const struct curve_case *c = &curves[0];
	struct crypto_ecc_params p;
	uint8_t d[32], ux[32], uy[32], x[33], y[32], digest[32] = { 1 }, r[32], s[32];
	uint8_t zero[32] = { 0 };

	vec_unhex(c->d, d);
	vec_unhex(c->ux, ux);
	vec_unhex(c->uy, uy);
	CU_ASSERT_EQUAL(crypto_ecc_params(c->curve, &p), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(crypto_ecdsa_sign(c->curve, d, digest, 32, r, s), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(crypto_ecdsa_verify(c->curve, ux, uy, digest, 32, r, 32, s, 32),
			TPM_RC_SUCCESS);
	/* r and s must be in [1, n - 1] */
	CU_ASSERT_EQUAL(crypto_ecdsa_verify(c->curve, ux, uy, digest, 32, p.n, 32, s, 32),
			TPM_RC_SIGNATURE);
	CU_ASSERT_EQUAL(crypto_ecdsa_verify(c->curve, ux, uy, digest, 32, r, 32, p.n, 32),
			TPM_RC_SIGNATURE);

	memcpy(y, uy, 32);
	y[31] ^= 1;
	CU_ASSERT_EQUAL(crypto_ecc_check_point(c->curve, ux, 32, y, 32), TPM_RC_ECC_POINT);
	CU_ASSERT_EQUAL(crypto_ecdsa_verify(c->curve, ux, y, digest, 32, r, 32, s, 32),
			TPM_RC_ECC_POINT);
	CU_ASSERT_EQUAL(crypto_ecdh(c->curve, d, ux, 32, y, 32, x, y), TPM_RC_ECC_POINT);
	CU_ASSERT_EQUAL(crypto_ecc_check_point(c->curve, zero, 32, zero, 32), TPM_RC_ECC_POINT);
	/* x >= p */
	CU_ASSERT_EQUAL(crypto_ecc_check_point(c->curve, p.p, 32, uy, 32), TPM_RC_ECC_POINT);
	/* shorter coordinates are left-padded, longer ones only with leading zeros */
	x[0] = 0;
	memcpy(x + 1, ux, 32);
	CU_ASSERT_EQUAL(crypto_ecc_check_point(c->curve, x, 33, uy, 32), TPM_RC_SUCCESS);
	x[0] = 1;
	CU_ASSERT_EQUAL(crypto_ecc_check_point(c->curve, x, 33, uy, 32), TPM_RC_ECC_POINT);
	CU_ASSERT_EQUAL(crypto_ecc_check_point(c->curve, ux, 31, uy, 32), TPM_RC_ECC_POINT);
	CU_ASSERT_EQUAL(crypto_ecc_check_point(TPM_ECC_NIST_P521, ux, 32, uy, 32),
			TPM_RC_ECC_POINT);
	CU_ASSERT_EQUAL(crypto_ecc_check_point(TPM_ECC_BN_P256, ux, 32, uy, 32), TPM_RC_CURVE);

	/* private keys outside [1, n - 1] */
	CU_ASSERT_EQUAL(crypto_ecc_public(c->curve, zero, x, y), TPM_RC_VALUE);
	CU_ASSERT_EQUAL(crypto_ecc_public(c->curve, p.n, x, y), TPM_RC_VALUE);
	CU_ASSERT_EQUAL(crypto_ecdsa_sign(c->curve, p.n, digest, 32, r, s), TPM_RC_VALUE);
	CU_ASSERT_EQUAL(crypto_ecdh(c->curve, zero, ux, 32, uy, 32, x, y), TPM_RC_VALUE);
	CU_ASSERT_EQUAL(crypto_ecc_generate(crypto_system_rng(), TPM_ECC_BN_P256, d, x, y),
			TPM_RC_CURVE);
}

static void test_ecdh_both_ways(void)
{
	static const uint16_t ids[] = { TPM_ECC_NIST_P256, TPM_ECC_NIST_P384, TPM_ECC_NIST_P521 };

	for (size_t i = 0; i < 3; i++) {
		size_t n = crypto_ecc_bytes(ids[i]);
		uint8_t da[MAX], xa[MAX], ya[MAX], db[MAX], xb[MAX], yb[MAX];
		uint8_t z1x[MAX], z1y[MAX], z2x[MAX], z2y[MAX];

		CU_ASSERT_EQUAL(crypto_ecc_generate(crypto_system_rng(), ids[i], da, xa, ya),
				TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(crypto_ecc_generate(crypto_system_rng(), ids[i], db, xb, yb),
				TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(crypto_ecdh(ids[i], da, xb, n, yb, n, z1x, z1y), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(crypto_ecdh(ids[i], db, xa, n, ya, n, z2x, z2y), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(memcmp(z1x, z2x, n), 0);
		CU_ASSERT_EQUAL(memcmp(z1y, z2y, n), 0);
		CU_ASSERT_EQUAL(crypto_ecc_check_point(ids[i], z1x, n, z1y, n), TPM_RC_SUCCESS);
	}
}

/* P-521 ECDH known answer: d = 0x0023...23 times the RFC 6979 A.2.7 public key; Z.x as
 * Python's cryptography package (OpenSSL) computes it. */
static void test_ecdh_p521_known_answer(void)
{
	const struct curve_case *c = &curves[2];
	uint8_t d[66], ux[66], uy[66], want[66], zx[66], zy[66];

	memset(d, 0x23, sizeof(d));
	d[0] = 0;
	vec_unhex(c->ux, ux);
	vec_unhex(c->uy, uy);
	vec_unhex("00aec989f445c54d647eb6ff005265839d81e4a72c28714fff666bb28f3cf588"
		  "2ee6720ac69a9ca6df6fd150df3ca610121e3ba795c6aada41f32cdfa1cdb7b16633",
		  want);
	CU_ASSERT_EQUAL_FATAL(c->curve, TPM_ECC_NIST_P521);
	CU_ASSERT_EQUAL(crypto_ecdh(c->curve, d, ux, 66, uy, 66, zx, zy), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(memcmp(zx, want, 66), 0);
	CU_ASSERT_EQUAL(crypto_ecc_check_point(c->curve, zx, 66, zy, 66), TPM_RC_SUCCESS);
	/* a P-521 scalar may not have bits above the order's 521 */
	d[0] = 0x02;
	CU_ASSERT_EQUAL(crypto_ecdh(c->curve, d, ux, 66, uy, 66, zx, zy), TPM_RC_VALUE);
}

static void *sign_in_thread(void *arg)
{
	uint8_t d[32], x[32], y[32], r[32], s[32], digest[32] = { 7 };
	bool *ok = arg;

	*ok = crypto_ecc_generate(crypto_system_rng(), TPM_ECC_NIST_P256, d, x, y) ==
		      TPM_RC_SUCCESS &&
	      crypto_ecdsa_sign(TPM_ECC_NIST_P256, d, digest, 32, r, s) == TPM_RC_SUCCESS &&
	      crypto_ecdsa_sign(TPM_ECC_NIST_P256, d, digest, 32, r, s) == TPM_RC_SUCCESS &&
	      crypto_ecdsa_verify(TPM_ECC_NIST_P256, x, y, digest, 32, r, 32, s, 32) ==
		      TPM_RC_SUCCESS;
	crypto_thread_cleanup(); /* else the thread's ECC tables leak (valgrind sees it) */
	return NULL;
}

static void test_thread_cleanup(void)
{
	pthread_t t;
	bool ok = false;

	CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, sign_in_thread, &ok), 0);
	CU_ASSERT_EQUAL(pthread_join(t, NULL), 0);
	CU_ASSERT_TRUE(ok);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "domain parameters", test_params },
		{ "public keys from known private keys", test_public_known_answers },
		{ "generation from a kdf_rng stream", test_generate_deterministic },
		{ "ECDSA RFC 6979 known answers verify", test_ecdsa_known_answers },
		{ "ECDSA sign/verify round trips", test_ecdsa_round_trip },
		{ "points off the curve, keys out of range", test_bad_points_and_keys },
		{ "ECDH both ways", test_ecdh_both_ways },
		{ "ECDH P-521 known answer", test_ecdh_p521_known_answer },
		{ "ECC in a thread that cleans up", test_thread_cleanup },
	};
	int failed;

	failed = UNIT_RUN("crypto_ecc", tests, NULL, NULL);
	crypto_cleanup();
	return failed;
}
