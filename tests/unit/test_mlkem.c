/*
 * ML-KEM (core/crypto/mlkem) against every record of the NIST ACVP subset in tests/vectors
 * (keyGen, encapsulation, decapsulation with implicit rejection, key checks), plus malformed
 * inputs and round trips.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "crypto/keccak.h"
#include "crypto/mlkem.h"

#include "unit_main.h"
#include "vectors.h"

/* ---- helpers ---- */

static int set_of(const struct vec_record *r)
{
	const char *s = vec_field(r, "parameterSet");

	if (s && strcmp(s, "ML-KEM-512") == 0)
		return MLKEM_512;
	if (s && strcmp(s, "ML-KEM-768") == 0)
		return MLKEM_768;
	if (s && strcmp(s, "ML-KEM-1024") == 0)
		return MLKEM_1024;
	return 0;
}

static int passed(const struct vec_record *r)
{
	CU_ASSERT(vec_is(r, "testPassed", "true") || vec_is(r, "testPassed", "false"));
	return vec_is(r, "testPassed", "true");
}

/* the implicit-rejection key J(z || c), z being the last 32 bytes of dk */
static void rejection_key(uint8_t k[32], int set, const uint8_t *dk, const uint8_t *ct)
{
	struct keccak_ctx j;

	shake256_init(&j);
	keccak_absorb(&j, dk + mlkem_dk_bytes(set) - 32, 32);
	keccak_absorb(&j, ct, mlkem_ct_bytes(set));
	keccak_finalize(&j);
	keccak_squeeze(&j, k, 32);
}

/* ---- ACVP records ---- */

static void test_keygen_vectors(void)
{
	FILE *f = vec_open("mlkem_keygen.txt");
	static uint8_t ek[MLKEM_MAX_EK_BYTES], dk[MLKEM_MAX_DK_BYTES];
	struct vec_record r;
	unsigned count = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	while (vec_read(f, &r)) {
		int set = set_of(&r);
		size_t eklen, dklen;
		uint8_t *d = vec_bytes(&r, "d", NULL), *z = vec_bytes(&r, "z", NULL), *want_ek = vec_bytes(&r, "ek", &eklen),
			*want_dk = vec_bytes(&r, "dk", &dklen);

		CU_ASSERT_NOT_EQUAL(set, 0);
		CU_ASSERT_EQUAL(eklen, mlkem_ek_bytes(set));
		CU_ASSERT_EQUAL(dklen, mlkem_dk_bytes(set));
		CU_ASSERT_EQUAL(mlkem_keygen(set, d, z, ek, dk), 0);
		CU_ASSERT_EQUAL(memcmp(ek, want_ek, eklen), 0);
		CU_ASSERT_EQUAL(memcmp(dk, want_dk, dklen), 0);
		CU_ASSERT_EQUAL(mlkem_check_ek(set, ek, eklen), 0);
		CU_ASSERT_EQUAL(mlkem_check_dk(set, dk, dklen), 0);
		free(d);
		free(z);
		free(want_ek);
		free(want_dk);
		vec_free(&r);
		count++;
	}
	fclose(f);
	printf("\n    %u keyGen records ", count);
	CU_ASSERT(count > 0);
}

static void test_encap_vectors(void)
{
	FILE *f = vec_open("mlkem_encap.txt");
	static uint8_t ct[MLKEM_MAX_CT_BYTES];
	uint8_t ss[32];
	struct vec_record r;
	unsigned count = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	while (vec_read(f, &r)) {
		int set = set_of(&r);
		size_t ctlen, klen;
		uint8_t *ek = vec_bytes(&r, "ek", NULL), *dk = vec_bytes(&r, "dk", NULL), *m = vec_bytes(&r, "m", NULL),
			*want_ct = vec_bytes(&r, "c", &ctlen), *want_k = vec_bytes(&r, "k", &klen);

		CU_ASSERT_NOT_EQUAL(set, 0);
		CU_ASSERT_EQUAL(ctlen, mlkem_ct_bytes(set));
		CU_ASSERT_EQUAL(klen, 32);
		CU_ASSERT_EQUAL(mlkem_encaps(set, ek, m, ct, ss), 0);
		CU_ASSERT_EQUAL(memcmp(ct, want_ct, ctlen), 0);
		CU_ASSERT_EQUAL(memcmp(ss, want_k, 32), 0);
		/* and back through decapsulation */
		memset(ss, 0, sizeof(ss));
		CU_ASSERT_EQUAL(mlkem_decaps(set, dk, want_ct, ss), 0);
		CU_ASSERT_EQUAL(memcmp(ss, want_k, 32), 0);
		free(ek);
		free(dk);
		free(m);
		free(want_ct);
		free(want_k);
		vec_free(&r);
		count++;
	}
	fclose(f);
	printf("\n    %u encapsulation records ", count);
	CU_ASSERT(count > 0);
}

static void test_decap_vectors(void)
{
	FILE *f = vec_open("mlkem_decap.txt");
	static uint8_t ek[MLKEM_MAX_EK_BYTES], dk_seed[MLKEM_MAX_DK_BYTES];
	uint8_t ss[32], j[32];
	struct vec_record r;
	unsigned count = 0, rejected = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	while (vec_read(f, &r)) {
		int set = set_of(&r);
		size_t dklen, ctlen;
		uint8_t *dk = vec_bytes(&r, "dk", &dklen), *ct = vec_bytes(&r, "c", &ctlen), *want_k = vec_bytes(&r, "k", NULL);

		CU_ASSERT_NOT_EQUAL(set, 0);
		CU_ASSERT_EQUAL(dklen, mlkem_dk_bytes(set));
		CU_ASSERT_EQUAL(ctlen, mlkem_ct_bytes(set));
		if (vec_is(&r, "keyFormat", "seed")) {
			uint8_t *d = vec_bytes(&r, "d", NULL), *z = vec_bytes(&r, "z", NULL);

			CU_ASSERT_EQUAL(mlkem_keygen(set, d, z, ek, dk_seed), 0);
			CU_ASSERT_EQUAL(memcmp(dk_seed, dk, dklen), 0);
			free(d);
			free(z);
		} else {
			CU_ASSERT(vec_is(&r, "keyFormat", "expanded"));
		}
		memset(ss, 0, sizeof(ss));
		CU_ASSERT_EQUAL(mlkem_decaps(set, dk, ct, ss), 0);
		CU_ASSERT_EQUAL(memcmp(ss, want_k, 32), 0);
		/* a modified ciphertext gets exactly J(z || c) */
		rejection_key(j, set, dk, ct);
		if (vec_is(&r, "reason", "modified ciphertext")) {
			CU_ASSERT_EQUAL(memcmp(want_k, j, 32), 0);
			rejected++;
		} else {
			CU_ASSERT(vec_is(&r, "reason", "valid decapsulation"));
			CU_ASSERT_NOT_EQUAL(memcmp(want_k, j, 32), 0);
		}
		free(dk);
		free(ct);
		free(want_k);
		vec_free(&r);
		count++;
	}
	fclose(f);
	printf("\n    %u decapsulation records (%u implicit rejections) ", count, rejected);
	CU_ASSERT(count > 0);
	CU_ASSERT(rejected > 0);
}

static void test_keycheck_vectors(void)
{
	FILE *f = vec_open("mlkem_keycheck.txt");
	static uint8_t ct[MLKEM_MAX_CT_BYTES];
	uint8_t ss[32], m[32] = { 1 };
	struct vec_record r;
	unsigned count = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	while (vec_read(f, &r)) {
		int set = set_of(&r), want = passed(&r) ? 0 : -1;
		size_t len;

		CU_ASSERT_NOT_EQUAL(set, 0);
		if (vec_is(&r, "function", "encapsulationKeyCheck")) {
			uint8_t *ek = vec_bytes(&r, "ek", &len);

			CU_ASSERT_EQUAL(mlkem_check_ek(set, ek, len), want);
			CU_ASSERT_EQUAL(mlkem_encaps(set, ek, m, ct, ss), want);
			free(ek);
		} else {
			uint8_t *dk = vec_bytes(&r, "dk", &len);

			CU_ASSERT(vec_is(&r, "function", "decapsulationKeyCheck"));
			CU_ASSERT_EQUAL(mlkem_check_dk(set, dk, len), want);
			memset(ct, 0x5a, sizeof(ct));
			CU_ASSERT_EQUAL(mlkem_decaps(set, dk, ct, ss), want);
			free(dk);
		}
		vec_free(&r);
		count++;
	}
	fclose(f);
	printf("\n    %u key check records ", count);
	CU_ASSERT(count > 0);
}

/* ---- API behaviour ---- */

static void seed_for(uint8_t seed[32], unsigned i)
{
	unsigned j;

	for (j = 0; j < 32; j++)
		seed[j] = (uint8_t)(i * 29 + j * 11 + 3);
}

static void test_malformed(void)
{
	static uint8_t ek[MLKEM_MAX_EK_BYTES], dk[MLKEM_MAX_DK_BYTES], ct[MLKEM_MAX_CT_BYTES];
	static const int bad_sets[] = { 0, 4, -1 };
	uint8_t d[32], z[32], m[32], ss[32];
	size_t i;

	seed_for(d, 1);
	seed_for(z, 2);
	seed_for(m, 3);
	for (i = 0; i < 3; i++) {
		int set = bad_sets[i];

		CU_ASSERT_EQUAL(mlkem_ek_bytes(set), 0);
		CU_ASSERT_EQUAL(mlkem_dk_bytes(set), 0);
		CU_ASSERT_EQUAL(mlkem_ct_bytes(set), 0);
		CU_ASSERT_EQUAL(mlkem_keygen(set, d, z, ek, dk), -1);
		CU_ASSERT_EQUAL(mlkem_encaps(set, ek, m, ct, ss), -1);
		CU_ASSERT_EQUAL(mlkem_decaps(set, dk, ct, ss), -1);
		CU_ASSERT_EQUAL(mlkem_check_ek(set, ek, 800), -1);
		CU_ASSERT_EQUAL(mlkem_check_dk(set, dk, 1632), -1);
	}
	CU_ASSERT_EQUAL_FATAL(mlkem_keygen(MLKEM_768, d, z, ek, dk), 0);
	CU_ASSERT_EQUAL(mlkem_check_ek(MLKEM_768, ek, 1184), 0);
	CU_ASSERT_EQUAL(mlkem_check_ek(MLKEM_768, ek, 1183), -1);
	CU_ASSERT_EQUAL(mlkem_check_ek(MLKEM_768, ek, 1185), -1);
	CU_ASSERT_EQUAL(mlkem_check_ek(MLKEM_512, ek, 1184), -1);
	CU_ASSERT_EQUAL(mlkem_check_dk(MLKEM_768, dk, 2400), 0);
	CU_ASSERT_EQUAL(mlkem_check_dk(MLKEM_768, dk, 2399), -1);
	CU_ASSERT_EQUAL(mlkem_check_dk(MLKEM_1024, dk, 2400), -1);
	CU_ASSERT_EQUAL(mlkem_check_ek(MLKEM_768, NULL, 1184), -1);
	CU_ASSERT_EQUAL(mlkem_check_dk(MLKEM_768, NULL, 2400), -1);
	CU_ASSERT_EQUAL(mlkem_keygen(MLKEM_768, NULL, z, ek, dk), -1);
	CU_ASSERT_EQUAL(mlkem_encaps(MLKEM_768, NULL, m, ct, ss), -1);
	CU_ASSERT_EQUAL(mlkem_encaps(MLKEM_768, ek, NULL, ct, ss), -1);
	CU_ASSERT_EQUAL(mlkem_decaps(MLKEM_768, dk, NULL, ss), -1);
	CU_ASSERT_EQUAL(mlkem_decaps(MLKEM_768, NULL, ct, ss), -1);
	/* the last coefficient set to q = 3329 = 0xd01 fails the modulus check */
	ek[1151] = 0xd0;
	ek[1150] = (uint8_t)((ek[1150] & 0x0f) | 0x10);
	CU_ASSERT_EQUAL(mlkem_check_ek(MLKEM_768, ek, 1184), -1);
	CU_ASSERT_EQUAL(mlkem_encaps(MLKEM_768, ek, m, ct, ss), -1);
	/* a dk whose stored ek no longer matches its hash */
	dk[2400 - 64] ^= 1;
	CU_ASSERT_EQUAL(mlkem_check_dk(MLKEM_768, dk, 2400), -1);
	CU_ASSERT_EQUAL(mlkem_decaps(MLKEM_768, dk, ct, ss), -1);
}

static void test_round_trips(void)
{
	static uint8_t ek[MLKEM_MAX_EK_BYTES], dk[MLKEM_MAX_DK_BYTES], ct[MLKEM_MAX_CT_BYTES];
	uint8_t d[32], z[32], m[32], ss[32], ss2[32], j[32];
	int set;
	unsigned i;

	for (set = MLKEM_512; set <= MLKEM_1024; set++) {
		size_t ctlen = mlkem_ct_bytes(set);

		for (i = 0; i < 16; i++) {
			seed_for(d, 10 * (unsigned)set + i);
			seed_for(z, 100 + i);
			seed_for(m, 200 + i);
			CU_ASSERT_EQUAL_FATAL(mlkem_keygen(set, d, z, ek, dk), 0);
			CU_ASSERT_EQUAL(mlkem_encaps(set, ek, m, ct, ss), 0);
			CU_ASSERT_EQUAL(mlkem_decaps(set, dk, ct, ss2), 0);
			CU_ASSERT_EQUAL(memcmp(ss, ss2, 32), 0);
			/* one flipped bit anywhere in c gives J(z || c) */
			ct[(i * 389) % ctlen] ^= (uint8_t)(1 << (i % 8));
			CU_ASSERT_EQUAL(mlkem_decaps(set, dk, ct, ss2), 0);
			rejection_key(j, set, dk, ct);
			CU_ASSERT_EQUAL(memcmp(ss2, j, 32), 0);
			CU_ASSERT_NOT_EQUAL(memcmp(ss2, ss, 32), 0);
		}
	}
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "ACVP keyGen records", test_keygen_vectors },
		{ "ACVP encapsulation records", test_encap_vectors },
		{ "ACVP decapsulation records", test_decap_vectors },
		{ "ACVP key check records", test_keycheck_vectors },
		{ "malformed inputs", test_malformed },
		{ "encaps/decaps round trips", test_round_trips },
	};

	return UNIT_RUN("mlkem", tests, NULL, NULL);
}
