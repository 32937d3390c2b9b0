/* KDFa, KDFe, the deterministic kdf_rng stream and the system DRBG. */
#include <CUnit/Basic.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "crypto/crypto.h"
#include "unit_main.h"
#include "vectors.h"

struct kdf_case {
	TPM_ALG_ID hash;
	const char *key, *label, *u, *v; /* key, u, v in hex */
	uint32_t bits;
	const char *out;
};

/* The TPM reference's KDFa self-test vectors (libtpms KdfTestData.h), then two cross-computed
 * with Python's hmac module: an odd bit count and a multi-block output with empty inputs. */
#define SELFTEST_KEY "271fa08bbdc5060ec3dfa928ff9b73123a12da0c"
#define SELFTEST_U "ce244f395dca7391"
#define SELFTEST_V "da504031ddf12e83"
static const struct kdf_case kdfa_cases[] = {
	{ TPM_ALG_SHA1, SELFTEST_KEY, "KDFSELFTESTLABEL", SELFTEST_U, SELFTEST_V, 160,
	  "55b5a7184aa07423c47dae766c26a2377d7cf851" },
	{ TPM_ALG_SHA256, SELFTEST_KEY, "KDFSELFTESTLABEL", SELFTEST_U, SELFTEST_V, 160,
	  "bb0259e1c8ba607e6a2cd704b69a902e9ade84c4" },
	{ TPM_ALG_SHA384, SELFTEST_KEY, "KDFSELFTESTLABEL", SELFTEST_U, SELFTEST_V, 160,
	  "1dce70c9113eb2dba47bd9cfc72bf46f45b09312" },
	{ TPM_ALG_SHA512, SELFTEST_KEY, "KDFSELFTESTLABEL", SELFTEST_U, SELFTEST_V, 160,
	  "8be2c1b85b78569b9fa759f5857c56d684810fd3" },
	{ TPM_ALG_SHA256, SELFTEST_KEY, "KDFSELFTESTLABEL", SELFTEST_U, SELFTEST_V, 131,
	  "0123de2032a90c8152aa85edb763783a85" },
	{ TPM_ALG_SHA256, SELFTEST_KEY, "", "", "", 1000,
	  "afae427b51b66ab707a9c30a57769cda3373dca33895beb0d4fcea438fb6771046225091fc23e855"
	  "315cc62b37eba701f37c34f786a59a8c2349872bb603d74cedefa44f54e18427ac7c11ec3d5e0980"
	  "dd80f0ea0e8e074cb80d07f399907e68812a7abb7000e5b5f5810cf9b765070b57991e300f61cb28"
	  "5f93da33c7" },
};

/* From github.com/chrisfenner/tpm-test-vectors vectors/kdfe.json (generated with go-tpm). */
static const struct kdf_case kdfe_cases[] = {
	{ TPM_ALG_SHA1, "", "STORAGE", "", "c0227aff", 253,
	  "0f10d821af67e1ec776b390f3b4572bb433efd2b94fa7842d879d24d825ed2f9" },
	{ TPM_ALG_SHA1, "356f9d00d61b54cf010580b1755d1975905c00", "CFB",
	  "006c5c2bcdd650f6c836dba98c4734", "8849bd3d05d69f", 7, "58" },
	{ TPM_ALG_SHA256, "c3e3c34e82ccfa82d8999bf2635bb7cd01f3d65f03ff", "CFB",
	  "55576a51c0e45b86557535e9ea50d5e7f4a80bb426e7ff", "dffdece923181dc335c1e936ff", 109,
	  "1106264c89948737c140d2f5b40e" },
	{ TPM_ALG_SHA256, "e89fc5304cf46c1cf7d1f5de5d3d1ec7eddc80b0386700", "SECRET",
	  "e602bc959fd97af0405649e0c80e02e9dd64e9d79e698292b043c79dfa9f9261", "", 431,
	  "3a8e893b8b76cdddbf87845b2567fa7152577829f6a55b73cb82d4a1f0342a051d6e50e20ec2f96b"
	  "c4de38d7d0d79a9caf99e1d574b9" },
	{ TPM_ALG_SHA384,
	  "d3752788fb54bf2c0c91e2698117157b3e4507c64c337746177cb3dded582edd62c2151ff91a5ade"
	  "73f877cb315fff",
	  "DUPLICATE",
	  "0062b7bc996f0ac1c9836ba8bd31d1d5a5608cea46f9080a179f309b4adf94a8ebef4fecf67f",
	  "ffc03109c3f0d4c78b82d2562442071d3d90bb", 12, "0d2c" },
	{ TPM_ALG_SHA384, "f35c5045fa68f7a0bbe2445109a7a8737f63d7b918e586a50d583b666452d22dff",
	  "XOR", "a795344cff", "", 675,
	  "033580e2217398267903d18be2e79d513dc50c461124aa310ea4483e4edef6f6e3de4706d4ea48e8"
	  "1a6f72efc1cc1c17a47daa990a39fb7f1b198c2f4ed9140b5ce7a6cc88a075af2a6656caa4c32ba4"
	  "886dde5a45" },
	{ TPM_ALG_SHA512, "002024653ef084", "ATH", "25e4ff",
	  "ff1c8addecb73b1fce8b03e6ffb0b149455a", 255,
	  "408051eb79531af1d85d5bc85953cf05a6b5e9a695afdca513c4275fb8e4b35f" },
	{ TPM_ALG_SHA512, "e1d2e700", "SECRET", "",
	  "fffcf34e848b9cfe54a0be31766d7044b467cab4829e49bcfe38", 590,
	  "2c0d227eb22e8b002dbe8f27a8eea0d71bde6c87d6749ec0441324b3a0eb11aba611d6b4e8e0ea56"
	  "9512031df5d806be60f77295d13790c6fa647477be047d72cc84e697c29b5f235251" },
};

static void run_cases(const struct kdf_case *cases, size_t count, bool kdfa)
{
	for (size_t i = 0; i < count; i++) {
		const struct kdf_case *c = &cases[i];
		uint8_t key[128], u[128], v[128], want[256], got[256];
		size_t klen = vec_unhex(c->key, key), ulen = vec_unhex(c->u, u), vlen = vec_unhex(c->v, v);
		size_t olen = vec_unhex(c->out, want);
		TPM_RC rc;

		CU_ASSERT_EQUAL(olen, (c->bits + 7) / 8);
		memset(got, 0xa5, sizeof(got));
		if (kdfa)
			rc = crypto_kdfa(c->hash, key, klen, c->label, ulen ? u : NULL, ulen,
					 vlen ? v : NULL, vlen, c->bits, got);
		else
			rc = crypto_kdfe(c->hash, key, klen, c->label, ulen ? u : NULL, ulen,
					 vlen ? v : NULL, vlen, c->bits, got);
		CU_ASSERT_EQUAL(rc, TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(memcmp(got, want, olen), 0);
		CU_ASSERT_EQUAL(got[olen], 0xa5); /* nothing written past the output */
	}
}

static void test_kdfa(void)
{
	uint8_t out[32];

	run_cases(kdfa_cases, sizeof(kdfa_cases) / sizeof(kdfa_cases[0]), true);
	CU_ASSERT_EQUAL(crypto_kdfa(TPM_ALG_NULL, out, 1, "x", NULL, 0, NULL, 0, 8, out),
			TPM_RC_HASH);
}

static void test_kdfe(void)
{
	uint8_t out[32];

	run_cases(kdfe_cases, sizeof(kdfe_cases) / sizeof(kdfe_cases[0]), false);
	CU_ASSERT_EQUAL(crypto_kdfe(TPM_ALG_SM3_256, out, 1, "x", NULL, 0, NULL, 0, 8, out),
			TPM_RC_HASH);
}

/* An empty label is the terminating zero alone, the same as "". */
static void test_kdfa_null_label(void)
{
	uint8_t key[20] = { 1 }, a[32], b[32];

	CU_ASSERT_EQUAL(crypto_kdfa(TPM_ALG_SHA256, key, sizeof(key), NULL, NULL, 0, NULL, 0, 256,
				    a),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(crypto_kdfa(TPM_ALG_SHA256, key, sizeof(key), "", NULL, 0, NULL, 0, 256, b),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(memcmp(a, b, sizeof(a)), 0);
}

static const char PRIMARY[] = "Primary Object Creation";

static void stream(TPM_ALG_ID hash, const uint8_t *u, size_t ulen, const uint8_t *v,
		   size_t vlen, const size_t *pieces, size_t npieces, uint8_t *out)
{
	static const uint8_t seed[32] = { 0x11, 0x22, 0x33 };
	struct crypto_kdf_rng k;

	CU_ASSERT_EQUAL(crypto_kdf_rng_init(&k, hash, seed, sizeof(seed), PRIMARY, u, ulen, v,
					    vlen),
			TPM_RC_SUCCESS);
	for (size_t i = 0; i < npieces; i++) {
		CU_ASSERT_EQUAL(k.rng.read(&k.rng, out, pieces[i]), TPM_RC_SUCCESS);
		out += pieces[i];
	}
	crypto_kdf_rng_wipe(&k);
}

/* KDF2 = ANSI X9.63's KDF with empty SharedInfo: the SP 800-135 CAVS X9.63 case (SHA-256,
 * Z of 24 bytes, 128 bits), and two longer ones computed by Python's cryptography
 * (X963KDF, sharedinfo None): several blocks, a partial last block. */
static void test_kdf2(void)
{
	static const struct {
		TPM_ALG_ID hash;
		const char *z, *out;
	} cases[] = {
		{ TPM_ALG_SHA256, "96c05619d56c328ab95fe84b18264b08725b85e33fd34f08",
		  "443024c3dae66b95e6f5670601558f71" },
		{ TPM_ALG_SHA1, "616263",
		  "9595e19565aec43db343f6e8c11e1224a7617f6f8d54d36ca26d2a23f0224a86"
		  "d02eccd714a4cff5e64c0a21d7" },
		{ TPM_ALG_SHA512,
		  "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
		  "202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
		  "4041000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d"
		  "1e1f202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d"
		  "3e3f4041",
		  "d5c0954fd8d0238784bf8b2611bd72c2d66c6d5e1318cda91bf04d9e638c8f47"
		  "ebdff7176acd006e9b109f81ccb8c9db761e044609e6390a45c944322dc4c333"
		  "f58906be15ef7e8d6221867c0bdb8b69dc2ea005f04c03b2636f50f804c3ab95"
		  "c0c36514f5b6f94c7b59d68e8e3a0e7f35f2aec7b8d5a7e06743226320c4bfb0"
		  "fc6f40f8275d2da9750091918deffeb9c11ed979cd4810138fe8b97e7ab073c4"
		  "8b21cfa9e26ee8d2a07663e287d5c8e1ad69b900d29f3915bd7eac8e2fbeaf3b"
		  "38566731acb3c300" },
	};
	uint8_t z[200], want[256], got[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t zlen = vec_unhex(cases[i].z, z), n = vec_unhex(cases[i].out, want);

		memset(got, 0xee, sizeof(got));
		CU_ASSERT_EQUAL(crypto_kdf2(cases[i].hash, z, zlen, got, n), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(memcmp(got, want, n), 0);
		CU_ASSERT_EQUAL(got[n], 0xee); /* not a byte more */
	}
	CU_ASSERT_EQUAL(crypto_kdf2(TPM_ALG_NULL, z, 3, got, 16), TPM_RC_HASH);
	CU_ASSERT_EQUAL(crypto_kdf2(TPM_ALG_SHA256, z, 3, got, 0), TPM_RC_SUCCESS);
}

static void test_kdf_rng_deterministic(void)
{
	static const uint8_t u[32] = { 9 }, v[5] = { 1, 2, 3, 4, 5 };
	const size_t whole[] = { 300 }, split[] = { 1, 31, 32, 33, 64, 0, 139 };
	uint8_t a[300], b[300], c[300];

	stream(TPM_ALG_SHA256, u, sizeof(u), v, sizeof(v), whole, 1, a);
	stream(TPM_ALG_SHA256, u, sizeof(u), v, sizeof(v), split, 7, b);
	CU_ASSERT_EQUAL(memcmp(a, b, sizeof(a)), 0);

	stream(TPM_ALG_SHA256, u, sizeof(u), v, sizeof(v) - 1, whole, 1, c);
	CU_ASSERT_NOT_EQUAL(memcmp(a, c, sizeof(a)), 0);
	stream(TPM_ALG_SHA384, u, sizeof(u), v, sizeof(v), whole, 1, c);
	CU_ASSERT_NOT_EQUAL(memcmp(a, c, sizeof(a)), 0);
}

/* Block i is HMAC(seed, [i]32 || label || 0 || ctx_u || ctx_v), as the header says. */
static void test_kdf_rng_definition(void)
{
	static const uint8_t seed[32] = { 0x11, 0x22, 0x33 }, u[3] = { 0xaa, 0xbb, 0xcc };
	uint8_t msg[64], want[64], got[64];
	size_t len = 0, pieces[] = { 64 };

	for (uint32_t i = 1; i <= 2; i++) {
		len = 0;
		msg[len++] = 0;
		msg[len++] = 0;
		msg[len++] = 0;
		msg[len++] = (uint8_t)i;
		memcpy(msg + len, PRIMARY, sizeof(PRIMARY)); /* with the zero octet */
		len += sizeof(PRIMARY);
		memcpy(msg + len, u, sizeof(u));
		len += sizeof(u);
		CU_ASSERT_EQUAL(crypto_hmac(TPM_ALG_SHA256, seed, sizeof(seed), msg, len,
					    want + 32 * (i - 1)),
				TPM_RC_SUCCESS);
	}
	stream(TPM_ALG_SHA256, u, sizeof(u), NULL, 0, pieces, 1, got);
	CU_ASSERT_EQUAL(memcmp(got, want, sizeof(want)), 0);
}

static void test_kdf_rng_limits(void)
{
	static uint8_t big[800];
	uint8_t seed[65] = { 0 };
	struct crypto_kdf_rng k;

	CU_ASSERT_EQUAL(crypto_kdf_rng_init(&k, TPM_ALG_SHA256, seed, 64, PRIMARY, big, 256, big,
					    256),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(crypto_kdf_rng_init(&k, TPM_ALG_SHA256, seed, 65, PRIMARY, NULL, 0, NULL,
					    0),
			TPM_RC_SIZE);
	CU_ASSERT_EQUAL(crypto_kdf_rng_init(&k, TPM_ALG_SHA256, seed, 32, PRIMARY, big, 800, big,
					    100),
			TPM_RC_SIZE);
	CU_ASSERT_EQUAL(crypto_kdf_rng_init(&k, TPM_ALG_NULL, seed, 32, PRIMARY, NULL, 0, NULL, 0),
			TPM_RC_HASH);
	crypto_kdf_rng_wipe(&k);
}

static bool all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

static void test_system_rng(void)
{
	static uint8_t big[200000];
	uint8_t a[64], b[64];
	struct crypto_rng *rng = crypto_system_rng();

	CU_ASSERT_EQUAL(crypto_random(a, sizeof(a)), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rng->read(rng, b, sizeof(b)), TPM_RC_SUCCESS);
	CU_ASSERT_NOT_EQUAL(memcmp(a, b, sizeof(a)), 0);
	CU_ASSERT_EQUAL(crypto_random(big, sizeof(big)), TPM_RC_SUCCESS);
	CU_ASSERT_FALSE(all_zero(big + sizeof(big) - 64, 64));
	CU_ASSERT_EQUAL(crypto_random(a, 0), TPM_RC_SUCCESS);

	CU_ASSERT_EQUAL(crypto_stir_random((const uint8_t *)"stir", 4), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(crypto_stir_random(NULL, 0), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(crypto_random(a, sizeof(a)), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(crypto_random(b, sizeof(b)), TPM_RC_SUCCESS);
	CU_ASSERT_NOT_EQUAL(memcmp(a, b, sizeof(a)), 0);
	CU_ASSERT_FALSE(all_zero(a, sizeof(a)));
}

/* A forked child must not replay its parent's stream (ECDSA nonces would repeat). The child
 * is forked in main before CUnit allocates anything, so that it exits with nothing allocated
 * (valgrind follows fork). */
static int child_pipe = -1;
static pid_t child_pid = -1;
static uint8_t parent_after_fork[32];

static void fork_random_child(void)
{
	uint8_t seeded[1], out[32];
	int fds[2];

	if (crypto_random(seeded, sizeof(seeded)) != TPM_RC_SUCCESS || pipe(fds) != 0)
		return;
	child_pid = fork();
	if (child_pid == 0) {
		bool ok = crypto_random(out, sizeof(out)) == TPM_RC_SUCCESS &&
			  write(fds[1], out, sizeof(out)) == (ssize_t)sizeof(out);

		crypto_cleanup();
		_exit(ok ? 0 : 1);
	}
	close(fds[1]);
	child_pipe = fds[0];
	if (crypto_random(parent_after_fork, sizeof(parent_after_fork)) != TPM_RC_SUCCESS)
		memset(parent_after_fork, 0, sizeof(parent_after_fork));
}

static void test_system_rng_after_fork(void)
{
	uint8_t child[32] = { 0 };
	int status;

	CU_ASSERT_FATAL(child_pid > 0 && child_pipe >= 0);
	CU_ASSERT_EQUAL(read(child_pipe, child, sizeof(child)), (ssize_t)sizeof(child));
	close(child_pipe);
	CU_ASSERT_EQUAL(waitpid(child_pid, &status, 0), child_pid);
	CU_ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CU_ASSERT_NOT_EQUAL(memcmp(parent_after_fork, child, sizeof(child)), 0);
}

/* After crypto_cleanup the DRBG seeds itself again on next use. */
static void test_system_rng_cleanup(void)
{
	uint8_t a[16];

	crypto_cleanup();
	CU_ASSERT_EQUAL(crypto_random(a, sizeof(a)), TPM_RC_SUCCESS);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "KDFa known answers", test_kdfa },
		{ "KDFe known answers", test_kdfe },
		{ "KDFa with no label", test_kdfa_null_label },
		{ "KDF2 known answers", test_kdf2 },
		{ "kdf_rng is deterministic", test_kdf_rng_deterministic },
		{ "kdf_rng blocks as defined", test_kdf_rng_definition },
		{ "kdf_rng input limits", test_kdf_rng_limits },
		{ "system rng and stir", test_system_rng },
		{ "system rng differs after fork", test_system_rng_after_fork },
		{ "system rng after cleanup", test_system_rng_cleanup },
	};
	int failed;

	fork_random_child();
	failed = UNIT_RUN("crypto_kdf", tests, NULL, NULL);
	crypto_cleanup();
	return failed;
}
