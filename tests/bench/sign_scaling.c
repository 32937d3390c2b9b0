/* Aggregate signing throughput (issue 14): ECDSA P-256 and ML-DSA-65 signatures per second
 * with 1, 2 and 4 clients at once, each on a connection (or a thread) and a key of its own,
 * made as any TPM client makes them, through the client library (include/pqtpm/tss.h): ECDSA
 * a Sign of a SHA-256 digest, ML-DSA-65 a 100-byte message through SignSequenceStart and
 * SignSequenceComplete.
 *
 *   sign_scaling   in process: one engine, 1, 2 and 4 threads each its own client; then over
 *                  MSSIM: 1, 2 and 4 clients of one pqtpm-server of this build, and 2 clients
 *                  spread over two servers (two processes on two state directories: no engine
 *                  shared, what a perfectly concurrent engine gives on this machine)
 * The configurations of a group run in turns, five runs of 0.8 s each (BENCH_QUICK=1: three of
 * 0.2 s), so that the machine's changing load falls on them alike. Prints each one's ops/s
 * (the median of its runs) with the signatures' median (and p99 for one client), then the
 * ratios: 2 clients on one server against the same 2 on two servers (issue 14's target: 0.85
 * or more) and 2 clients against 1 (1.8x or more). Not pinned: scaling needs every CPU. */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pqtpm/tss.h>

#include "common/bench.h"
#include "common/bench_server.h"

#define MAX_THREADS 4
#define MAX_SAMPLES 100000 /* per client and run: ~20k ECDSA signatures/s in process */
#define MAX_REPS 9
#define MAX_LAT 400000	   /* signatures' times kept per configuration */
#define WIDTH 52
#define DIGEST 32

enum alg { ECDSA, MLDSA, ALGS };
static const char *const alg_key[ALGS] = { "ecdsa", "mldsa" };
static const char *const alg_label[ALGS] = { "ECDSA P-256", "ML-DSA-65" };

/* Where a client connects: the engine, or a server's command port. */
struct target {
	struct pqtpm_engine *engine;
	unsigned port;
};

struct worker {
	const struct target *tg;
	enum alg alg;
	unsigned n; /* its number: a key of its own */
	pthread_barrier_t *ready;
	double deadline, *lat;
	int ops;
	bool failed;
};

static double seconds = 0.8; /* one run */
static int reps = 5;	     /* runs of each configuration */

static TPM_RC make_key(struct pqtpm_tss *t, enum alg alg, unsigned n, struct pqtpm_tss_key *key)
{
	static _Thread_local struct pqtpm_tss_public pub;
	uint8_t policy[DIGEST] = { (uint8_t)n, (uint8_t)alg };
	struct pqtpm_tss_template tm = {
		.type = alg == ECDSA ? TPM_ALG_ECC : TPM_ALG_MLDSA,
		.attributes = TPMA_OBJECT_SIGN_ENCRYPT | TPMA_OBJECT_FIXEDTPM |
			      TPMA_OBJECT_FIXEDPARENT | TPMA_OBJECT_SENSITIVEDATAORIGIN |
			      TPMA_OBJECT_USERWITHAUTH | TPMA_OBJECT_NODA,
		.scheme = alg == ECDSA ? TPM_ALG_ECDSA : 0,
		.scheme_hash = alg == ECDSA ? TPM_ALG_SHA256 : 0,
		.parameter_set = alg == MLDSA ? TPM_MLDSA_65 : 0,
		.policy = policy,
		.policy_len = sizeof(policy),
	};

	if (pqtpm_tss_template_public(&tm, &pub) != TPM_RC_SUCCESS)
		return PQTPM_TSS_RC_BAD_VALUE;
	return pqtpm_tss_create_primary(t, TPM_RH_OWNER, "", &pub, "", key);
}

static TPM_RC sign(struct pqtpm_tss *t, enum alg alg, TPM_HANDLE key)
{
	static _Thread_local struct pqtpm_tss_signature sig;
	static const uint8_t msg[100] = { 1 };

	if (alg == MLDSA)
		return pqtpm_tss_sign_message(t, key, "", NULL, 0, msg, sizeof(msg), &sig);
	return pqtpm_tss_sign(t, key, "", msg, DIGEST, TPM_ALG_NULL, TPM_ALG_NULL, NULL, &sig);
}

static int open_target(const struct target *tg, struct pqtpm_tss **t)
{
	return tg->engine ? pqtpm_tss_open_engine(t, tg->engine)
			  : pqtpm_tss_open_mssim(t, "127.0.0.1", tg->port);
}

static void *worker_run(void *arg)
{
	static _Thread_local struct pqtpm_tss_key key;
	struct worker *w = arg;
	struct pqtpm_tss *t = NULL;

	/* connected, its key made and used once before the clock starts */
	w->failed = open_target(w->tg, &t) != 0 || make_key(t, w->alg, w->n, &key) != 0 ||
		    sign(t, w->alg, key.handle) != 0;
	pthread_barrier_wait(w->ready);
	pthread_barrier_wait(w->ready); /* the deadline is set */
	while (!w->failed && w->ops < MAX_SAMPLES) {
		double t0 = bench_now_us();

		if (t0 >= w->deadline)
			break;
		w->failed = sign(t, w->alg, key.handle) != TPM_RC_SUCCESS;
		w->lat[w->ops++] = bench_now_us() - t0;
	}
	if (t && !w->failed)
		w->failed = pqtpm_tss_flush(t, key.handle) != TPM_RC_SUCCESS;
	pqtpm_tss_close(t);
	return NULL;
}

/* One run of a configuration: n clients, client i on tg[i], signing for `seconds`. */
struct config {
	const char *key, *label, *lat_key; /* lat_key: the signatures' figures as a RESULT too */
	const struct target *const *tg;
	int n;
	double rate[MAX_REPS]; /* ops/s of each repetition */
	int reps, total;
	bool failed;
	double *lat; /* every signature's time, up to MAX_LAT */
	int nlat;
};

static void run(struct config *cf, enum alg alg)
{
	static double lat[MAX_THREADS * MAX_SAMPLES];
	struct worker w[MAX_THREADS];
	pthread_t th[MAX_THREADS];
	pthread_barrier_t ready;
	double start;
	int total = 0;

	pthread_barrier_init(&ready, NULL, (unsigned)cf->n + 1);
	for (int i = 0; i < cf->n; i++) {
		w[i] = (struct worker){ .tg = cf->tg[i], .alg = alg, .n = (unsigned)i,
					.ready = &ready, .lat = lat + (size_t)i * MAX_SAMPLES };
		if (pthread_create(&th[i], NULL, worker_run, &w[i]) != 0) {
			fprintf(stderr, "sign_scaling: pthread_create\n");
			exit(1);
		}
	}
	pthread_barrier_wait(&ready);
	start = bench_now_us();
	for (int i = 0; i < cf->n; i++)
		w[i].deadline = start + seconds * 1e6;
	pthread_barrier_wait(&ready);
	for (int i = 0; i < cf->n; i++) {
		pthread_join(th[i], NULL);
		cf->failed |= w[i].failed;
		total += w[i].ops;
		for (int j = 0; j < w[i].ops && cf->nlat < MAX_LAT; j++)
			cf->lat[cf->nlat++] = w[i].lat[j];
	}
	pthread_barrier_destroy(&ready);
	cf->total += total;
	cf->rate[cf->reps++] = total / seconds;
}

/* The configurations' runs in turns (A B C A B C ...), so that a change in the machine's load
 * falls on all of them alike; each one's figure is the median of its runs. Returns the
 * medians in rate[] (0 for a configuration whose client failed). */
static void measure(struct config *cf, int ncf, enum alg alg, double *rate)
{
	for (int r = 0; r < reps; r++)
		for (int i = 0; i < ncf; i++)
			run(&cf[i], alg);
	for (int i = 0; i < ncf; i++) {
		rate[i] = cf[i].failed ? 0 : bench_median(cf[i].rate, cf[i].reps);
		bench_value(cf[i].key, cf[i].label, WIDTH, "ops/s", rate[i],
			    cf[i].failed ? 0 : cf[i].total);
		if (cf[i].failed || cf[i].nlat == 0)
			continue;
		if (cf[i].lat_key) {
			char label[112];

			snprintf(label, sizeof(label), "%s, one signature", cf[i].label);
			bench_report(cf[i].lat_key, label, WIDTH, cf[i].lat, cf[i].nlat);
		} else {
			printf("%-*s median %10.1f us\n", WIDTH, "  one signature",
			       bench_median(cf[i].lat, cf[i].nlat));
		}
	}
}

static void ratio(const char *key, const char *label, double a, double b)
{
	bench_value(key, label, WIDTH, "x", b > 0 ? a / b : 0, a > 0 && b > 0 ? 1 : 0);
}

/* Sets up configuration i of alg: its keys and labels (printf-style from the alg's names). */
static void config(struct config *cf, const char *key, const char *label, const char *lat_key,
		   const struct target *const *tg, int n, int alg)
{
	static char text[16][3][112];
	static int used;
	char(*t)[112] = text[used++ % 16];

	snprintf(t[0], sizeof(t[0]), key, alg_key[alg]);
	snprintf(t[1], sizeof(t[1]), label, alg_label[alg]);
	if (lat_key)
		snprintf(t[2], sizeof(t[2]), lat_key, alg_key[alg]);
	*cf = (struct config){ .key = t[0], .label = t[1], .lat_key = lat_key ? t[2] : NULL,
			       .tg = tg, .n = n, .lat = cf->lat };
}

static void in_process(struct config *cf)
{
	struct pqtpm_engine_config cfg = { .log_level = PQTPM_LOG_ERROR, .auto_startup = 1 };
	struct pqtpm_engine *e;
	struct target tg;
	const struct target *all[MAX_THREADS] = { &tg, &tg, &tg, &tg };
	char err[256], key[64], label[96];
	double rate[3];

	if (pqtpm_engine_open(&e, &cfg, err, sizeof(err)) != 0) {
		fprintf(stderr, "sign_scaling: %s\n", err);
		bench_errors++;
		return;
	}
	tg = (struct target){ .engine = e };
	printf("signing in process: one engine, each thread its own client and key; %d runs of "
	       "%.1f s each in turns, their median\n", reps, seconds);
	for (int alg = 0; alg < ALGS; alg++) {
		config(&cf[0], "sign_ops_%s_inproc_1", "in process: %s, 1 thread",
		       "sign_lat_%s_inproc", all, 1, alg);
		config(&cf[1], "sign_ops_%s_inproc_2", "in process: %s, 2 threads", NULL, all, 2,
		       alg);
		config(&cf[2], "sign_ops_%s_inproc_4", "in process: %s, 4 threads", NULL, all, 4,
		       alg);
		measure(cf, 3, (enum alg)alg, rate);
		snprintf(key, sizeof(key), "sign_ratio_%s_inproc_2_1", alg_key[alg]);
		snprintf(label, sizeof(label), "in process: %s, 2 threads / 1", alg_label[alg]);
		ratio(key, label, rate[1], rate[0]);
	}
	pqtpm_engine_close(e);
}

/* Startup(CLEAR) of a fresh server */
static int start_tpm(unsigned port)
{
	struct pqtpm_tss *t;
	int ok = pqtpm_tss_open_mssim(&t, "127.0.0.1", port) == 0 && pqtpm_tss_power_on(t) == 0 &&
		 pqtpm_tss_startup(t, TPM_SU_CLEAR) == TPM_RC_SUCCESS;

	if (t)
		pqtpm_tss_close(t);
	return ok ? 0 : -1;
}

static void over_mssim(const char *argv0, struct config *cf)
{
	struct bench_server s1, s2;
	struct target t1, t2;
	const struct target *one_server[MAX_THREADS] = { &t1, &t1, &t1, &t1 };
	const struct target *two_servers[2] = { &t1, &t2 };
	char key[64], label[96];
	double rate[4];

	if (bench_server_start(&s1, argv0) != 0 || bench_server_start(&s2, argv0) != 0 ||
	    start_tpm(s1.port) != 0 || start_tpm(s2.port) != 0) {
		fprintf(stderr, "sign_scaling: cannot start two pqtpm-servers\n");
		bench_errors++;
		bench_server_stop(&s1);
		return;
	}
	t1 = (struct target){ .port = s1.port };
	t2 = (struct target){ .port = s2.port };
	printf("signing over MSSIM: each client its own connection and key; %d runs of %.1f s "
	       "each in turns, their median\n", reps, seconds);
	for (int alg = 0; alg < ALGS; alg++) {
		config(&cf[0], "sign_ops_%s_mssim_1", "MSSIM: %s, 1 client", "sign_lat_%s_mssim",
		       one_server, 1, alg);
		config(&cf[1], "sign_ops_%s_mssim_2", "MSSIM: %s, 2 clients, one server", NULL,
		       one_server, 2, alg);
		config(&cf[2], "sign_ops_%s_mssim_2_split", "MSSIM: %s, 2 clients, two servers",
		       NULL, two_servers, 2, alg);
		config(&cf[3], "sign_ops_%s_mssim_4", "MSSIM: %s, 4 clients, one server", NULL,
		       one_server, 4, alg);
		measure(cf, 4, (enum alg)alg, rate);
		snprintf(key, sizeof(key), "sign_ratio_%s_split", alg_key[alg]);
		snprintf(label, sizeof(label), "MSSIM: %s, 2 on one server / 2 on two (>= 0.85)",
			 alg_label[alg]);
		ratio(key, label, rate[1], rate[2]);
		snprintf(key, sizeof(key), "sign_ratio_%s_mssim_2_1", alg_key[alg]);
		snprintf(label, sizeof(label), "MSSIM: %s, 2 clients / 1 (>= 1.8)", alg_label[alg]);
		ratio(key, label, rate[1], rate[0]);
	}
	bench_server_stop(&s2);
	bench_server_stop(&s1);
}

int main(int argc, char **argv)
{
	static struct config cf[4];
	const char *q = getenv("BENCH_QUICK");

	(void)argc;
	if (q && *q && strcmp(q, "0") != 0) {
		seconds = 0.2;
		reps = 3;
	}
	for (int i = 0; i < 4; i++) {
		cf[i].lat = malloc(MAX_LAT * sizeof(double));
		if (!cf[i].lat)
			return 1;
	}
	in_process(cf);
	over_mssim(argv[0], cf);
	for (int i = 0; i < 4; i++)
		free(cf[i].lat);
	return bench_errors ? 1 : 0;
}
