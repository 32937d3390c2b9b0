/* The cost of one ML-DSA / ML-KEM operation in C (core/crypto), without a TPM around it:
 * ML-DSA-44/65/87 keygen, expand (sk parsed and A generated, once per loaded key), sign from the
 * encoded sk (the figure reference implementations quote), sign with an expanded key (what the
 * TPM does for each signature) and verify; ML-KEM-512/768/1024 keygen, encaps, decaps.
 *
 *   pq_ops [N]          N operations of each kind (default 200; BENCH_QUICK=1: 20)
 *
 * It prints the median and p99 in microseconds per operation (indicative on a loaded machine)
 * with a RESULT line each, as the other benchmarks do. Under callgrind (tests/bench/pq_instr.sh)
 * each operation's loop is a dump of its own, so that the instructions per operation, exact and
 * repeatable, can be read off: the figure of record. Inputs are fixed (seeds and hedging
 * randomness counted from 1), so two builds sign with the same number of rejected attempts.
 * PQTPM_NO_AVX2=1 measures the portable C path on a CPU with AVX2.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <valgrind/callgrind.h>

#include "crypto/mldsa.h"
#include "crypto/mlkem.h"

#include "common/bench.h"

#define MAX_N 5000

static double samples[MAX_N];
static int failed;

static void input(uint8_t *p, size_t len, unsigned i, unsigned tag)
{
	for (size_t j = 0; j < len; j++)
		p[j] = (uint8_t)(i * 131 + j * 7 + tag);
}

/* Runs op(i) for i = 0..n-1 timing each, reports it, and under callgrind dumps the loop's count. */
#define MEASURE(key, label, n, op)                                        \
	do {                                                              \
		CALLGRIND_ZERO_STATS;                                     \
		for (unsigned i = 0; i < (n); i++) {                      \
			double t0 = bench_now_us();                       \
			if (op)                                           \
				failed = 1;                               \
			samples[i] = bench_now_us() - t0;                 \
		}                                                         \
		CALLGRIND_DUMP_STATS_AT(key);                             \
		bench_report(key, label, 28, samples, (int)(n));          \
	} while (0)

static void mldsa(int set, unsigned n)
{
	static uint8_t pk[MLDSA_MAX_PK_BYTES], sk[MLDSA_MAX_SK_BYTES], sig[MLDSA_MAX_SIG_BYTES];
	size_t siglen = mldsa_sig_bytes(set);
	struct mldsa_expanded *x = malloc(mldsa_expanded_size());
	uint8_t seed[32], rnd[32], msg[64], mprime[2 + 64] = { 0 }, mu[64];
	const char *name = set == MLDSA_44 ? "44" : set == MLDSA_65 ? "65" : "87";
	char key[32], label[40];

	if (!x) {
		failed = 1;
		return;
	}
	input(msg, sizeof(msg), 0, 1);
	memcpy(mprime + 2, msg, sizeof(msg)); /* M' of the pure signature: 0 || |ctx| = 0 || msg */
#define KEY(op) (snprintf(key, sizeof(key), "mldsa%s_%s", name, op), \
		 snprintf(label, sizeof(label), "ML-DSA-%s %s", name, op), key)
	MEASURE(KEY("keygen"), label, n, (input(seed, 32, i, 2), mldsa_keygen(set, seed, pk, sk)));
	MEASURE(KEY("expand"), label, n, mldsa_expand(set, sk, x));
	MEASURE(KEY("sign"), label, n,
		(input(rnd, 32, i, 3), mldsa_sign(set, sk, msg, sizeof(msg), NULL, 0, rnd, sig)));
	if (mldsa_compute_mu(set, pk, mprime, sizeof(mprime), mu))
		failed = 1;
	MEASURE(KEY("sign_expanded"), label, n,
		(input(rnd, 32, i, 4), mldsa_sign_mu_expanded(x, mu, rnd, sig)));
	MEASURE(KEY("verify"), label, n, mldsa_verify(set, pk, msg, sizeof(msg), NULL, 0, sig, siglen));
#undef KEY
	mldsa_expanded_wipe(x);
	free(x);
}

static void mlkem(int set, unsigned n)
{
	static uint8_t ek[MLKEM_MAX_EK_BYTES], dk[MLKEM_MAX_DK_BYTES], ct[MLKEM_MAX_CT_BYTES];
	uint8_t d[32], z[32], m[32], ss[32];
	const char *name = set == MLKEM_512 ? "512" : set == MLKEM_768 ? "768" : "1024";
	char key[32], label[40];

#define KEY(op) (snprintf(key, sizeof(key), "mlkem%s_%s", name, op), \
		 snprintf(label, sizeof(label), "ML-KEM-%s %s", name, op), key)
	MEASURE(KEY("keygen"), label, n,
		(input(d, 32, i, 5), input(z, 32, i, 6), mlkem_keygen(set, d, z, ek, dk)));
	MEASURE(KEY("encaps"), label, n, (input(m, 32, i, 7), mlkem_encaps(set, ek, m, ct, ss)));
	MEASURE(KEY("decaps"), label, n, mlkem_decaps(set, dk, ct, ss));
#undef KEY
}

int main(int argc, char **argv)
{
	const char *quick = getenv("BENCH_QUICK");
	unsigned n = quick && strcmp(quick, "0") ? 20 : 200;

	if (argc > 1) {
		n = (unsigned)strtoul(argv[1], NULL, 10);
		if (n == 0 || n > MAX_N) {
			fprintf(stderr, "usage: pq_ops [N], 1 <= N <= %d\n", MAX_N);
			return 2;
		}
	}
	printf("ML-DSA and ML-KEM in C, %u operations each%s\n", n,
	       getenv("PQTPM_NO_AVX2") ? " (PQTPM_NO_AVX2 set)" : "");
	for (int set = MLDSA_44; set <= MLDSA_87; set++)
		mldsa(set, n);
	for (int set = MLKEM_512; set <= MLKEM_1024; set++)
		mlkem(set, n);
	if (failed || bench_errors) {
		fprintf(stderr, "pq_ops: an operation failed\n");
		return 1;
	}
	return 0;
}
