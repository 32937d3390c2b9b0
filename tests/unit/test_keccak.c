/*
 * FIPS 202 known answers for core/crypto/keccak.c, plus a cross-check against wolfSSL's SHA3/SHAKE256,
 * and on a CPU with AVX2 the permutations built for it (one state with BMI, four states at once)
 * against the portable one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>
#include <wolfssl/options.h>
#include <wolfssl/wolfcrypt/hash.h>

#include "crypto/cpu.h"
#include "crypto/keccak.h"
#include "unit_main.h"

static void hex_to_bytes(uint8_t *out, const char *hex)
{
	size_t i, n = strlen(hex) / 2;

	for (i = 0; i < n; i++) {
		unsigned v;

		sscanf(hex + 2 * i, "%2x", &v);
		out[i] = (uint8_t)v;
	}
}

static void check_hex(const uint8_t *got, const char *hex)
{
	uint8_t want[128];

	hex_to_bytes(want, hex);
	CU_ASSERT_EQUAL(memcmp(got, want, strlen(hex) / 2), 0);
}

static void test_sha3_256(void)
{
	uint8_t out[32], msg[200];

	sha3_256(out, NULL, 0);
	check_hex(out, "a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a");
	sha3_256(out, (const uint8_t *)"abc", 3);
	check_hex(out, "3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532");
	/* 1600-bit message of 0xa3 from the NIST examples: more than one block */
	memset(msg, 0xa3, sizeof(msg));
	sha3_256(out, msg, sizeof(msg));
	check_hex(out, "79f38adec5c20307a98ef76e8324afbfd46cfd81b22e3973c65fa1bd9de31787");
}

static void test_sha3_384(void)
{
	uint8_t out[48];

	sha3_384(out, NULL, 0);
	check_hex(out, "0c63a75b845e4f7d01107d852e4c2485c51a50aaaa94fc61995e71bbee983a2a"
		"c3713831264adb47fb6bd1e058d5f004");
	sha3_384(out, (const uint8_t *)"abc", 3);
	check_hex(out, "ec01498288516fc926459f58e2c6ad8df9b473cb0fc08c2596da7cf0e49be4b2"
		"98d88cea927ac7f539f1edf228376d25");
}

static void test_sha3_512(void)
{
	uint8_t out[64];

	sha3_512(out, NULL, 0);
	check_hex(out, "a69f73cca23a9ac5c8b567dc185a756e97c982164fe25859e0d1dcc1475c80a6"
		"15b2123af1f5f94c11e3e9402c3ac558f500199d95b6d3e301758586281dcd26");
	sha3_512(out, (const uint8_t *)"abc", 3);
	check_hex(out, "b751850b1a57168a5693cd924b6b096e08f621827444f70d884f5d0240d2712e"
		"10e116e9192af3c91a7ec57647e3934057340b4cf408d5a56592f8274eec53f0");
}

static void test_shake_empty(void)
{
	uint8_t out[64];

	shake128(out, 32, NULL, 0);
	check_hex(out, "7f9c2ba4e88f827d616045507605853ed73b8093f6efbc88eb1a6eacfa66ef26");
	shake256(out, 64, NULL, 0);
	check_hex(out, "46b9dd2b0ba88d13233b3feb743eeb243fcd52ea62b81b82b50c27646ed5762f"
		"d75dc4ddd8c0f200cb05019d67b592f6fc821c49479ab48640292eacb3b7c4be");
}

/* absorbing in odd pieces and squeezing in odd pieces gives the one-shot output */
static void incremental(void (*init)(struct keccak_ctx *),
	void (*oneshot)(uint8_t *, size_t, const uint8_t *, size_t))
{
	static const size_t pieces[] = { 1, 7, 168, 200, 0, 3, 136, 500, 2 };
	uint8_t in[1017], want[1017], got[1017];
	struct keccak_ctx ctx;
	size_t i, off;

	for (i = 0; i < sizeof(in); i++)
		in[i] = (uint8_t)(i * 7 + 3);
	oneshot(want, sizeof(want), in, sizeof(in));

	init(&ctx);
	for (i = 0, off = 0; off < sizeof(in); i++) {
		size_t n = pieces[i % 9];

		if (n > sizeof(in) - off)
			n = sizeof(in) - off;
		keccak_absorb(&ctx, in + off, n);
		off += n;
	}
	keccak_finalize(&ctx);
	for (i = 0, off = 0; off < sizeof(got); i++) {
		size_t n = pieces[(i + 4) % 9];

		if (n > sizeof(got) - off)
			n = sizeof(got) - off;
		keccak_squeeze(&ctx, got + off, n);
		off += n;
	}
	CU_ASSERT_EQUAL(memcmp(got, want, sizeof(want)), 0);
}

static void test_incremental(void)
{
	incremental(shake128_init, shake128);
	incremental(shake256_init, shake256);
}

/* the SHA3 functions through the context API give the one-shot digest */
static void test_sha3_ctx(void)
{
	uint8_t in[300], want[64], got[64];
	struct keccak_ctx ctx;

	memset(in, 0x5c, sizeof(in));
	sha3_512(want, in, sizeof(in));
	sha3_512_init(&ctx);
	keccak_absorb(&ctx, in, 100);
	keccak_absorb(&ctx, in + 100, 200);
	keccak_finalize(&ctx);
	keccak_squeeze(&ctx, got, 64);
	CU_ASSERT_EQUAL(memcmp(got, want, 64), 0);
}

/* every message length from 0 to 600 bytes against wolfSSL, crossing all block boundaries */
static void test_against_wolfssl(void)
{
	uint8_t in[600], a[300], b[300];
	unsigned len;

	for (len = 0; len < sizeof(in); len++)
		in[len] = (uint8_t)(len * 131 + 17);
	for (len = 0; len <= sizeof(in); len++) {
		sha3_256(a, in, len);
		CU_ASSERT_EQUAL_FATAL(wc_Sha3_256Hash(in, len, b), 0);
		CU_ASSERT_EQUAL(memcmp(a, b, 32), 0);
		sha3_384(a, in, len);
		CU_ASSERT_EQUAL_FATAL(wc_Sha3_384Hash(in, len, b), 0);
		CU_ASSERT_EQUAL(memcmp(a, b, 48), 0);
		sha3_512(a, in, len);
		CU_ASSERT_EQUAL_FATAL(wc_Sha3_512Hash(in, len, b), 0);
		CU_ASSERT_EQUAL(memcmp(a, b, 64), 0);
		shake256(a, sizeof(a), in, len);
		CU_ASSERT_EQUAL_FATAL(wc_Shake256Hash(in, len, b, sizeof(b)), 0);
		CU_ASSERT_EQUAL(memcmp(a, b, sizeof(a)), 0);
	}
}

static void test_wipe(void)
{
	uint8_t buf[33];
	size_t i;

	memset(buf, 0xaa, sizeof(buf));
	keccak_wipe(buf, sizeof(buf));
	for (i = 0; i < sizeof(buf); i++)
		CU_ASSERT_EQUAL(buf[i], 0);
}

/* keccak_f1600 as the CPU allows against the portable code, on states that chain */
static void test_permutation_paths(void)
{
	uint64_t plain[25], fast[25];
	unsigned i, round;

	if (!crypto_cpu_avx2())
		printf("\n    no AVX2 on this CPU: the portable code against itself ");
	for (i = 0; i < 25; i++)
		plain[i] = fast[i] = 0x0123456789abcdefULL * (i + 1);
	for (round = 0; round < 100; round++) {
		crypto_cpu_allow_avx2(false);
		keccak_f1600(plain);
		crypto_cpu_allow_avx2(true);
		keccak_f1600(fast);
		CU_ASSERT_EQUAL(memcmp(plain, fast, sizeof(plain)), 0);
	}
}

/* four SHAKE instances side by side give what each gives alone: inputs of every length up to
 * three blocks, several blocks squeezed */
static void test_x4(void)
{
#ifdef KECCAK_AVX2
	uint8_t in[4][3 * SHAKE128_RATE + 1], out[4][3 * SHAKE128_RATE], want[3 * SHAKE128_RATE];
	const uint8_t *const inp[4] = { in[0], in[1], in[2], in[3] };
	uint8_t *const outp[4] = { out[0], out[1], out[2], out[3] };
	struct keccak_x4 ctx;
	size_t len, i;
	unsigned j, bad = 0;

	if (!crypto_cpu_avx2()) {
		printf("\n    no AVX2 on this CPU: the four-way code is never called ");
		return;
	}
	for (j = 0; j < 4; j++)
		for (i = 0; i < sizeof(in[j]); i++)
			in[j][i] = (uint8_t)(i * 13 + j * 101 + 7);
	for (len = 0; len <= 3 * SHAKE128_RATE; len++) {
		shake128_x4_absorb(&ctx, inp, len);
		keccak_x4_squeeze_blocks(&ctx, outp, 1);
		for (j = 0; j < 4; j++) {
			shake128(want, SHAKE128_RATE, in[j], len);
			bad += memcmp(out[j], want, SHAKE128_RATE) != 0;
		}
		shake256_x4_absorb(&ctx, inp, len);
		keccak_x4_squeeze_blocks(&ctx, outp, 3);
		for (j = 0; j < 4; j++) {
			shake256(want, 3 * SHAKE256_RATE, in[j], len);
			bad += memcmp(out[j], want, 3 * SHAKE256_RATE) != 0;
		}
	}
	CU_ASSERT_EQUAL(bad, 0);
#else
	printf("\n    not an x86-64 build: there is no four-way code ");
#endif
}

static void portable_against_wolfssl(void)
{
	crypto_cpu_allow_avx2(false);
	test_against_wolfssl();
}

static void allow_avx2(void)
{
	crypto_cpu_allow_avx2(true);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "SHA3-256 known answers", test_sha3_256 },
		{ "SHA3-384 known answers", test_sha3_384 },
		{ "SHA3-512 known answers", test_sha3_512 },
		{ "SHAKE128/256 of the empty string", test_shake_empty },
		{ "incremental absorb and squeeze equal one-shot", test_incremental },
		{ "SHA3 context API equals one-shot", test_sha3_ctx },
		{ "lengths 0..600 against wolfSSL", test_against_wolfssl },
		{ "wipe zeroes", test_wipe },
		{ "permutation with BMI against the portable one", test_permutation_paths },
		{ "four instances side by side against one at a time", test_x4 },
		{ "lengths 0..600 against wolfSSL, portable code", portable_against_wolfssl },
	};

	return UNIT_RUN("keccak", tests, allow_avx2, NULL);
}
