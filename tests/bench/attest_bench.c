/* Attestation benchmark (attest/): per AK algorithm (RSA-2048, ECC P-256, ML-DSA-44/65/87), the
 * latency of a quote through the library (PCRs read, quoted, compared: pqtpm_attest_quote)
 * against an engine in this process and over MSSIM against a pqtpm-server of this build
 * (started here, bench_server.h), and the verifier in a library loop: the time of one
 * pqtpm_attest_verify (median, one core), and evidence per second on one core and on every CPU
 * (one thread per CPU, each its own copy of the evidence). Targets (issue 12): ECC P-256 at
 * least 8,000/s and ML-DSA-65 at least 4,000/s per core. Figures only: nothing here is an
 * assertion.
 *
 * Environment: BENCH_QUICK=1 for fewer iterations. Output: a table, and per figure
 *   RESULT<TAB>key<TAB>label<TAB>us<TAB>median<TAB>p99<TAB>samples
 * Exits non-zero if a measurement failed.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pqtpm/attest.h>
#include <pqtpm/engine.h>

#include "common/bench.h"
#include "common/bench_server.h"

#define MAX_SAMPLES 2000
#define MAX_THREADS 64

static const uint8_t nonce[16] = { 0xBE, 0x7C };
static int iterations, loop;

struct job {
	const json_t *ev;
	struct pqtpm_attest_verify_opts o;
	int n, valid;
};

static void *verify_loop(void *arg)
{
	struct job *j = arg;
	json_t *ev = json_deep_copy(j->ev), *r;

	for (int i = 0; ev && i < j->n; i++) {
		if (pqtpm_attest_verify(ev, &j->o, &r) == 1)
			j->valid++;
		json_decref(r);
	}
	json_decref(ev);
	return NULL;
}

/* evidence per second of threads threads, each verifying n times */
static double throughput(const json_t *ev, const struct pqtpm_attest_verify_opts *o, int threads,
			 int n)
{
	pthread_t tid[MAX_THREADS];
	struct job jobs[MAX_THREADS];
	double t0 = bench_now_us(), dt;
	int valid = 0;

	for (int i = 0; i < threads; i++) {
		jobs[i] = (struct job){ .ev = ev, .o = *o, .n = n };
		if (pthread_create(&tid[i], NULL, verify_loop, &jobs[i]) != 0)
			return 0;
	}
	for (int i = 0; i < threads; i++) {
		pthread_join(tid[i], NULL);
		valid += jobs[i].valid;
	}
	dt = bench_now_us() - t0;
	if (valid != threads * n) {
		fprintf(stderr, "attest_bench: %d of %d verifications failed\n", threads * n - valid,
			threads * n);
		bench_errors++;
		return 0;
	}
	return dt > 0 ? threads * n * 1e6 / dt : 0;
}

static double samples[MAX_SAMPLES];

/* quotes of eight SHA-256 PCRs by a new AK of alg on t (where: "embedded" or "mssim"); the last
 * evidence, NULL when one failed */
static json_t *quote_latency(struct pqtpm_tss *t, const char *alg, const char *where,
			     struct pqtpm_attest_ak *ak)
{
	struct pqtpm_tss_pcr_select sel[1];
	TPM_HANDLE ek, akh;
	json_t *ev = NULL;
	char label[64], key[64];
	size_t nsel;
	int n = 0;

	if (pqtpm_attest_pcrs_parse("sha256:0,1,2,3,4,5,6,7", sel, 1, &nsel) ||
	    pqtpm_attest_ak_create(t, alg, "ecc-p256", ak) ||
	    pqtpm_attest_ak_load(t, ak, &ek, &akh)) {
		fprintf(stderr, "attest_bench: no %s AK (%s)\n", alg, where);
		bench_errors++;
		return NULL;
	}
	for (int i = 0; i < iterations; i++) {
		double t0 = bench_now_us();

		json_decref(ev);
		ev = NULL;
		if (pqtpm_attest_quote(t, ak, akh, nonce, sizeof(nonce), sel, nsel, NULL, NULL, 0,
				       &ev))
			break;
		samples[n++] = bench_now_us() - t0;
	}
	pqtpm_tss_flush(t, akh);
	pqtpm_tss_flush(t, ek);
	/* the embedded figures keep their key of before */
	if (strcmp(where, "embedded") == 0)
		snprintf(key, sizeof(key), "attest_quote_%s", alg);
	else
		snprintf(key, sizeof(key), "attest_quote_%s_%s", alg, where);
	snprintf(label, sizeof(label), "quote %s (%s)", alg, where);
	bench_report(key, label, 36, samples, n == iterations ? n : 0);
	if (n != iterations) {
		json_decref(ev);
		return NULL;
	}
	return ev;
}

static void one_alg(struct pqtpm_tss *t, const char *alg, int cpus)
{
	struct pqtpm_attest_ak ak;
	struct pqtpm_attest_verify_opts o = { .nonce = nonce, .nonce_len = sizeof(nonce) };
	json_t *ev = quote_latency(t, alg, "embedded", &ak), *r;
	char label[64], key[64];
	int n = 0;

	if (!ev)
		return;
	o.trusted_ak = ak.pub.b;
	o.trusted_ak_len = ak.pub.size;
	for (int i = 0; i < iterations; i++) {
		double t0 = bench_now_us();
		int v = pqtpm_attest_verify(ev, &o, &r);

		samples[n] = bench_now_us() - t0;
		json_decref(r);
		if (v != 1)
			break;
		n++;
	}
	snprintf(key, sizeof(key), "attest_verify_%s", alg);
	snprintf(label, sizeof(label), "verify %s (library, 1 core)", alg);
	bench_report(key, label, 36, samples, n == iterations ? n : 0);
	printf("  %-34s %9.0f evidence/s on 1 core, %9.0f on %d\n", alg,
	       throughput(ev, &o, 1, loop), throughput(ev, &o, cpus, loop), cpus);
	json_decref(ev);
}

/* the quotes again over MSSIM, against a server of this build */
static void over_mssim(const char *argv0, const char *const *algs, size_t nalgs)
{
	struct pqtpm_attest_ak ak;
	struct pqtpm_tss *t = NULL;
	struct bench_server server;

	if (bench_server_start(&server, argv0) != 0) {
		fprintf(stderr, "attest_bench: cannot start pqtpm-server\n");
		bench_errors++;
		return;
	}
	if (pqtpm_tss_open_mssim(&t, "127.0.0.1", server.port) != 0 ||
	    pqtpm_tss_power_on(t) != 0 || pqtpm_tss_startup(t, TPM_SU_CLEAR) != 0) {
		fprintf(stderr, "attest_bench: no TPM over MSSIM on port %u\n", server.port);
		bench_errors++;
	} else {
		printf("attestation: quote latency over MSSIM (pqtpm-server), median / p99 us\n");
		for (size_t i = 0; i < nalgs; i++)
			json_decref(quote_latency(t, algs[i], "mssim", &ak));
	}
	pqtpm_tss_close(t);
	bench_server_stop(&server);
}

int main(int argc, char **argv)
{
	static const char *const algs[] = { "rsa2048", "ecc-p256", "mldsa44", "mldsa65", "mldsa87" };
	struct pqtpm_engine_config cfg = { .log_level = PQTPM_LOG_ERROR, .auto_startup = 1 };
	const char *quick = getenv("BENCH_QUICK");
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct pqtpm_engine *e;
	struct pqtpm_tss *t;

	iterations = quick && *quick == '1' ? 50 : 500;
	loop = quick && *quick == '1' ? 500 : 5000;
	cpus = cpus < 1 ? 1 : cpus > MAX_THREADS ? MAX_THREADS : cpus;
	if (pqtpm_engine_open(&e, &cfg, NULL, 0) || pqtpm_tss_open_engine(&t, e)) {
		fprintf(stderr, "attest_bench: cannot open an engine\n");
		return 1;
	}
	printf("attestation: quote latency (embedded) and verify (library loop), median / p99 us\n");
	for (size_t i = 0; i < sizeof(algs) / sizeof(algs[0]); i++)
		one_alg(t, algs[i], (int)cpus);
	pqtpm_tss_close(t);
	pqtpm_engine_close(e);
	over_mssim(argv[0], algs, sizeof(algs) / sizeof(algs[0]));
	return bench_errors ? 1 : 0;
}
