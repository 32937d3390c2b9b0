/*
 * Constant-time check (the ctgrind technique): run only under valgrind's memcheck, from
 * tests/run-valgrind.sh. Secret inputs are marked undefined with VALGRIND_MAKE_MEM_UNDEFINED;
 * memcheck then reports every conditional branch and every memory address that depends on them
 * ("Conditional jump or move depends on uninitialised value", "Use of uninitialised value"),
 * and the runner fails on any report. Public outputs are marked defined again before the test
 * looks at them; declassifications inside the algorithms are CT_DECLASSIFY (core/crypto/ct.h),
 * compiled in only for this program (-DPQTPM_CT_CHECK).
 *
 * Covered: crypto_ct_equal (MACs, HMACs, tickets), crypto_ct_trim and crypto_ct_equal_trimmed
 * (authValues, core/auth.c), ML-KEM KeyGen/Encaps/Decaps (both the accepting and the implicit
 * rejection path), ML-DSA KeyGen/Sign, for every parameter set; the post-quantum ones twice on a
 * CPU with AVX2, with the AVX2 code (NTT, Keccak) and with the portable code.
 *
 * `ct_check self-test` branches on a secret on purpose: the runner expects memcheck to report
 * it, which shows that the marking works.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <valgrind/memcheck.h>

#include "crypto/cpu.h"
#include "crypto/crypto.h"
#include "crypto/mldsa.h"
#include "crypto/mlkem.h"

#define SECRET(p, n) ((void)VALGRIND_MAKE_MEM_UNDEFINED((p), (n)))
#define PUBLIC(p, n) ((void)VALGRIND_MAKE_MEM_DEFINED((p), (n)))

static int failures;

static void expect(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "ct_check: %s: wrong result\n", what);
		failures++;
	}
}

/* Test data: not random, just varied. */
static void fill(uint8_t *p, size_t n, uint32_t seed)
{
	uint32_t x = seed * 2654435761u + 1;

	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[i] = (uint8_t)x;
	}
}

/* A result computed from secrets, made public to be checked (the caller would branch on it). */
static bool reveal_bool(bool v)
{
	PUBLIC(&v, sizeof(v));
	return v;
}

static size_t reveal_size(size_t v)
{
	PUBLIC(&v, sizeof(v));
	return v;
}

static void check_compare(void)
{
	uint8_t a[64], b[64];

	fill(a, sizeof(a), 1);
	memcpy(b, a, sizeof(b));
	SECRET(a, sizeof(a));
	SECRET(b, sizeof(b));
	expect(reveal_bool(crypto_ct_equal(a, b, sizeof(a))), "ct_equal, same");
	b[63] ^= 1;
	SECRET(b, sizeof(b));
	expect(!reveal_bool(crypto_ct_equal(a, b, sizeof(a))), "ct_equal, last octet differs");

	/* authValues: "ab" equals "ab\0\0", not "ab\0c" */
	memset(a, 0, sizeof(a));
	memset(b, 0, sizeof(b));
	memcpy(a, "ab", 2);
	memcpy(b, "ab\0\0", 4);
	SECRET(a, sizeof(a));
	SECRET(b, sizeof(b));
	expect(reveal_size(crypto_ct_trim(b, 4)) == 2, "ct_trim");
	expect(reveal_size(crypto_ct_trim(b, 64)) == 2, "ct_trim over the buffer");
	expect(reveal_bool(crypto_ct_equal_trimmed(a, 2, b, 4, sizeof(a))), "trimmed, equal");
	b[3] = 'c';
	SECRET(b, sizeof(b));
	expect(!reveal_bool(crypto_ct_equal_trimmed(a, 2, b, 4, sizeof(a))), "trimmed, differs");
	/* a secret length as well (a trimmed authValue's length is secret) */
	{
		size_t alen = 2, blen = 2;

		SECRET(&alen, sizeof(alen));
		SECRET(&blen, sizeof(blen));
		expect(reveal_bool(crypto_ct_equal_trimmed(a, alen, b, blen, sizeof(a))),
		       "trimmed, secret lengths");
	}
}

static void check_mlkem(int set)
{
	static uint8_t ek[MLKEM_MAX_EK_BYTES], dk[MLKEM_MAX_DK_BYTES], ct[MLKEM_MAX_CT_BYTES];
	uint8_t d[32], z[32], m[32], ss_enc[32], ss_dec[32], ss_rej[32];
	size_t ekb = mlkem_ek_bytes(set), dkb = mlkem_dk_bytes(set), ctb = mlkem_ct_bytes(set);
	size_t dk_pke = dkb - ekb - 64; /* dk = dk_pke || ek || H(ek) || z */
	char what[64];

	fill(d, sizeof(d), 10 + (uint32_t)set);
	fill(z, sizeof(z), 20 + (uint32_t)set);
	fill(m, sizeof(m), 30 + (uint32_t)set);
	SECRET(d, sizeof(d));
	SECRET(z, sizeof(z));
	expect(mlkem_keygen(set, d, z, ek, dk) == 0, "mlkem_keygen");
	/* ek and the copy of it and its hash inside dk are public; s and z stay secret */
	PUBLIC(ek, ekb);
	PUBLIC(dk + dk_pke, ekb + 32);

	SECRET(m, sizeof(m));
	expect(mlkem_encaps(set, ek, m, ct, ss_enc) == 0, "mlkem_encaps");
	PUBLIC(ct, ctb); /* the ciphertext is sent */

	expect(mlkem_decaps(set, dk, ct, ss_dec) == 0, "mlkem_decaps");
	PUBLIC(ss_enc, sizeof(ss_enc));
	PUBLIC(ss_dec, sizeof(ss_dec));
	snprintf(what, sizeof(what), "ML-KEM set %d: shared secrets agree", set);
	expect(memcmp(ss_enc, ss_dec, 32) == 0, what);

	/* implicit rejection: a changed ciphertext gives J(z || c), along the same code path */
	ct[0] ^= 1;
	expect(mlkem_decaps(set, dk, ct, ss_rej) == 0, "mlkem_decaps, rejected");
	PUBLIC(ss_rej, sizeof(ss_rej));
	snprintf(what, sizeof(what), "ML-KEM set %d: rejection gives another key", set);
	expect(memcmp(ss_rej, ss_dec, 32) != 0, what);
}

static void check_mldsa(int set)
{
	static uint8_t pk[MLDSA_MAX_PK_BYTES], sk[MLDSA_MAX_SK_BYTES], sig[MLDSA_MAX_SIG_BYTES];
	uint8_t xi[32], rnd[32], msg[100];
	size_t pkb = mldsa_pk_bytes(set), skb = mldsa_sk_bytes(set), sigb = mldsa_sig_bytes(set);
	char what[64];

	fill(xi, sizeof(xi), 40 + (uint32_t)set);
	fill(rnd, sizeof(rnd), 50 + (uint32_t)set);
	fill(msg, sizeof(msg), 60 + (uint32_t)set);
	SECRET(xi, sizeof(xi));
	expect(mldsa_keygen(set, xi, pk, sk) == 0, "mldsa_keygen");
	PUBLIC(pk, pkb);
	/* sk = rho || K || tr || s1 || s2 || t0: rho and tr are public */
	PUBLIC(sk, skb);
	SECRET(sk + 32, 32);
	SECRET(sk + 128, skb - 128);

	SECRET(rnd, sizeof(rnd));
	expect(mldsa_sign(set, sk, msg, sizeof(msg), NULL, 0, rnd, sig) == 0, "mldsa_sign");
	PUBLIC(sig, sigb);
	snprintf(what, sizeof(what), "ML-DSA set %d: signature verifies", set);
	expect(mldsa_verify(set, pk, msg, sizeof(msg), NULL, 0, sig, sigb) == 0, what);
}

/* A branch on a secret, which memcheck must report. */
static int self_test(void)
{
	uint8_t s[1] = { 1 };
	volatile int taken = 0;

	SECRET(s, sizeof(s));
	if (s[0] == 1)
		taken = 1;
	return taken ? 0 : 1;
}

int main(int argc, char **argv)
{
	bool avx2;

	if (argc > 1 && strcmp(argv[1], "self-test") == 0)
		return self_test();
	if (!RUNNING_ON_VALGRIND)
		fprintf(stderr, "ct_check: not under valgrind, so only the results are checked\n");
	check_compare();
	avx2 = crypto_cpu_avx2();
	for (int pass = avx2 ? 0 : 1; pass < 2; pass++) {
		/* pass 0: the AVX2 code; pass 1: the portable code */
		crypto_cpu_allow_avx2(pass == 0);
		for (int set = MLKEM_512; set <= MLKEM_1024; set++)
			check_mlkem(set);
		for (int set = MLDSA_44; set <= MLDSA_87; set++)
			check_mldsa(set);
	}
	if (failures)
		return 1;
	printf("ct_check: ct_equal, authValue comparison, ML-KEM 512/768/1024, ML-DSA 44/65/87 (%s)\n",
	       avx2 ? "AVX2 and portable code" : "portable code; no AVX2 here");
	return 0;
}
