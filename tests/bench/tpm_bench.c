/* TPM round-trip benchmark against a running TPM simulator.
 *
 *   tpm_bench TCTI mssim|raw HOST PORT
 *
 * TCTI is a tpm2-tss TCTI string (mssim:host=...,port=... or swtpm:host=...,port=...), used for
 * the ESAPI measurements. "mssim HOST PORT" is an MSSIM command port (our raw client frames each
 * command as TPM_SEND_COMMAND, locality, size, command); "raw HOST PORT" is a port that takes
 * bare TPM commands (swtpm's). The raw client keeps one TCP connection, sets TCP_NODELAY and
 * sends each command with one write.
 *
 * Measures (median and p99 in microseconds, or ops/s):
 *   GetRandom(32) over the raw client and through the stock TCTI, PCR_Extend, Sign with ECDSA
 *   P-256 and RSASSA-2048 (keys from one CreatePrimary each), CreatePrimary ECC P-256 and
 *   RSA-2048 (flushed each time), and GetRandom ops/s with 1, 2 and 4 concurrent raw clients.
 *   The Sign and CreatePrimary figures twice: through ESAPI, which spends tens to hundreds of
 *   microseconds of client CPU per command (fresh crypto contexts, names, session HMACs), and
 *   over the raw client (common/raw_cmd.c: same templates, password session, no client
 *   crypto), which measures the TPM.
 * Environment: BENCH_QUICK=1 for fewer iterations and shorter runs; BENCH_MAX_CLIENTS=N to
 * skip the concurrent runs above N clients (reported as n/a), for a server that serves one
 * connection at a time; BENCH_PHASES=latency or throughput for only the round-trip figures or
 * only the ops/s figures (the latter belong to an unpinned server: pinned to one CPU it cannot
 * scale).
 *
 * Output: human-readable lines, plus one machine-readable line per figure:
 *   RESULT<TAB>key<TAB>label<TAB>unit<TAB>median-or-rate<TAB>p99-or-"-"<TAB>samples
 * Exits non-zero if any measurement failed.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <tss2/tss2_esys.h>
#include <tss2/tss2_rc.h>
#include <tss2/tss2_tctildr.h>

#include "common/bench.h"
#include "common/raw_cmd.h"

#define TPM_RC_INITIALIZE 0x100u

#define LABEL_WIDTH 46

static int quick;

/* Iterations and a time budget for one latency measurement. */
struct budget {
	int iters;
	double max_s;
};

static struct budget budget(int full_iters, int quick_iters, double full_s)
{
	struct budget b = { full_iters, full_s };

	if (quick) {
		b.iters = quick_iters;
		b.max_s = full_s / 4;
	}
	return b;
}

/* ---- raw client commands ---- */

static const uint8_t cmd_get_random32[12] = {
	0x80, 0x01, 0x00, 0x00, 0x00, 0x0c, 0x00, 0x00, 0x01, 0x7b, 0x00, 0x20,
};
static const uint8_t cmd_startup_clear[12] = {
	0x80, 0x01, 0x00, 0x00, 0x00, 0x0c, 0x00, 0x00, 0x01, 0x44, 0x00, 0x00,
};

static int raw_get_random(struct bench_conn *c)
{
	uint8_t rsp[BENCH_RSP_CAP];
	size_t n;

	return bench_cmd(c, cmd_get_random32, sizeof(cmd_get_random32), rsp, sizeof(rsp), &n) ==
			       0 && n == 10 + 2 + 32 ? 0 : -1;
}

struct target {
	const char *tcti;
	const char *host;
	unsigned port;
	int mssim;
};

static void bench_raw_latency(const struct target *tg)
{
	struct budget b = budget(5000, 500, 10);
	struct bench_conn c;
	uint8_t rsp[BENCH_RSP_CAP];
	size_t n;
	double *t = calloc((size_t)b.iters, sizeof(double)), start;
	int i, done = 0;
	long rc;

	if (!t || bench_connect(&c, tg->host, tg->port, tg->mssim) < 0) {
		bench_report("getrandom_raw", "GetRandom(32), raw socket", LABEL_WIDTH, t, 0);
		free(t);
		return;
	}
	rc = bench_cmd(&c, cmd_startup_clear, sizeof(cmd_startup_clear), rsp, sizeof(rsp), &n);
	if (rc != 0 && rc != TPM_RC_INITIALIZE)
		fprintf(stderr, "raw Startup: rc %ld\n", rc);
	for (i = 0; i < 20; i++)
		raw_get_random(&c);
	start = bench_now_us();
	for (i = 0; i < b.iters && bench_now_us() - start < b.max_s * 1e6; i++) {
		double t0 = bench_now_us();

		if (raw_get_random(&c) < 0) {
			fprintf(stderr, "raw GetRandom failed at %d\n", i);
			break;
		}
		t[done++] = bench_now_us() - t0;
	}
	bench_close(&c);
	bench_report("getrandom_raw", "GetRandom(32), raw socket", LABEL_WIDTH, t, done);
	free(t);
}

/* Sign and CreatePrimary (+FlushContext) over the raw client, on one connection. */
struct raw_key_bench {
	const char *key, *label;
	enum bench_key type;
	int create;	/* CreatePrimary + FlushContext; else Sign with one key */
	struct budget b;
};

static long raw_key_once(struct bench_conn *c, const struct raw_key_bench *kb, uint32_t key)
{
	uint32_t h;
	long rc;

	if (!kb->create)
		return bench_sign(c, key, kb->type);
	rc = bench_create_primary(c, kb->type, &h);
	return rc != 0 ? rc : bench_flush(c, h);
}

static void bench_raw_key_one(struct bench_conn *c, const struct raw_key_bench *kb)
{
	double *t = calloc((size_t)kb->b.iters, sizeof(double)), start;
	uint32_t key = 0;
	int i, done = 0, have_key = 0, warm = kb->create ? 1 : 5;
	long rc = 0;

	if (!t)
		goto out;
	if (!kb->create) {
		rc = bench_create_primary(c, kb->type, &key);
		if (rc != 0)
			goto out;
		have_key = 1;
	}
	for (i = 0; i < warm && rc == 0; i++)
		rc = raw_key_once(c, kb, key);
	start = bench_now_us();
	for (i = 0; rc == 0 && i < kb->b.iters &&
		    (i < 3 || bench_now_us() - start < kb->b.max_s * 1e6);
	     i++) {
		double t0 = bench_now_us();

		rc = raw_key_once(c, kb, key);
		if (rc == 0)
			t[done++] = bench_now_us() - t0;
	}
out:
	/* Any failed command fails the whole measurement, not only the samples after it. */
	if (rc != 0) {
		if (rc < 0)
			fprintf(stderr, "%s: transport error or bad response\n", kb->label);
		else
			fprintf(stderr, "%s: TPM rc 0x%lx\n", kb->label, (unsigned long)rc);
		done = 0;
	}
	if (have_key && bench_flush(c, key) != 0) {
		fprintf(stderr, "%s: FlushContext of the key failed\n", kb->label);
		done = 0;
	}
	bench_report(kb->key, kb->label, LABEL_WIDTH, t, done);
	free(t);
}

static void bench_raw_keys(const struct target *tg)
{
	const struct raw_key_bench list[] = {
		{ "sign_ecdsa_raw", "Sign ECDSA P-256, raw client", BENCH_KEY_ECC_P256, 0,
		  budget(500, 50, 10) },
		{ "sign_rsa_raw", "Sign RSASSA RSA-2048, raw client", BENCH_KEY_RSA_2048, 0,
		  budget(200, 20, 10) },
		{ "cp_ecc_raw", "CreatePrimary ECC P-256 (+Flush), raw client", BENCH_KEY_ECC_P256, 1,
		  budget(100, 10, 10) },
		{ "cp_rsa_raw", "CreatePrimary RSA-2048 (+Flush), raw client", BENCH_KEY_RSA_2048, 1,
		  budget(20, 3, 40) },
	};
	struct bench_conn c;
	size_t i;

	if (bench_connect(&c, tg->host, tg->port, tg->mssim) < 0) {
		for (i = 0; i < sizeof(list) / sizeof(list[0]); i++)
			bench_report(list[i].key, list[i].label, LABEL_WIDTH, NULL, 0);
		return;
	}
	for (i = 0; i < sizeof(list) / sizeof(list[0]); i++)
		bench_raw_key_one(&c, &list[i]);
	bench_close(&c);
}

/* Startup(CLEAR) on a connection of its own, for a run without the latency phases (which
 * send it). Returns 0 if the TPM is started. */
static int raw_startup(const struct target *tg)
{
	uint8_t rsp[BENCH_RSP_CAP];
	struct bench_conn c;
	size_t n;
	long rc;

	if (bench_connect(&c, tg->host, tg->port, tg->mssim) < 0)
		return -1;
	rc = bench_cmd(&c, cmd_startup_clear, sizeof(cmd_startup_clear), rsp, sizeof(rsp), &n);
	bench_close(&c);
	if (rc != 0 && rc != TPM_RC_INITIALIZE) {
		fprintf(stderr, "raw Startup: rc %ld\n", rc);
		return -1;
	}
	return 0;
}

/* ---- concurrent raw clients ---- */

struct worker {
	const struct target *tg;
	pthread_barrier_t *barrier;
	double deadline;
	long ops;
	int failed;
};

static void *worker_run(void *arg)
{
	struct worker *w = arg;
	struct bench_conn c;
	int ok = bench_connect(&c, w->tg->host, w->tg->port, w->tg->mssim) == 0;

	pthread_barrier_wait(w->barrier);
	if (!ok) {
		w->failed = 1;
		return NULL;
	}
	while (bench_now_us() < w->deadline) {
		if (raw_get_random(&c) < 0) {
			w->failed = 1;
			break;
		}
		if (bench_now_us() <= w->deadline)
			w->ops++;
	}
	bench_close(&c);
	return NULL;
}

static void bench_throughput(const struct target *tg, int nclients)
{
	double secs = quick ? 0.5 : 2.0;
	struct worker w[4];
	pthread_t th[4];
	pthread_barrier_t barrier;
	char key[32], label[64];
	long total = 0;
	int i, failed = 0;

	snprintf(key, sizeof(key), "getrandom_ops_%d", nclients);
	snprintf(label, sizeof(label), "GetRandom(32) ops/s, %d client%s", nclients,
		 nclients > 1 ? "s" : "");
	pthread_barrier_init(&barrier, NULL, (unsigned)nclients + 1);
	for (i = 0; i < nclients; i++) {
		w[i] = (struct worker){ .tg = tg, .barrier = &barrier };
		if (pthread_create(&th[i], NULL, worker_run, &w[i]) != 0) {
			fprintf(stderr, "pthread_create failed\n");
			exit(1);
		}
	}
	/* Everyone connected: start the clock for all at once. */
	double deadline = bench_now_us() + 50e3 + secs * 1e6;
	for (i = 0; i < nclients; i++)
		w[i].deadline = deadline;
	pthread_barrier_wait(&barrier);
	for (i = 0; i < nclients; i++) {
		pthread_join(th[i], NULL);
		total += w[i].ops;
		failed |= w[i].failed;
	}
	pthread_barrier_destroy(&barrier);
	if (failed) {
		printf("%-*s failed (a client lost its connection)\n", LABEL_WIDTH, label);
		printf("RESULT\t%s\t%s\tops/s\t-\t-\t0\n", key, label);
		bench_errors++;
		return;
	}
	printf("%-*s %10.0f ops/s   (%ld in %.1f s)\n", LABEL_WIDTH, label, total / secs, total, secs);
	printf("RESULT\t%s\t%s\tops/s\t%.0f\t-\t%ld\n", key, label, total / secs, total);
}

/* ---- ESAPI through the stock TCTI ---- */

static const TPM2B_PUBLIC ecc_template = {
	.publicArea = {
		.type = TPM2_ALG_ECC,
		.nameAlg = TPM2_ALG_SHA256,
		.objectAttributes = TPMA_OBJECT_SIGN_ENCRYPT | TPMA_OBJECT_FIXEDTPM |
				    TPMA_OBJECT_FIXEDPARENT | TPMA_OBJECT_SENSITIVEDATAORIGIN |
				    TPMA_OBJECT_USERWITHAUTH,
		.parameters.eccDetail = {
			.symmetric = { .algorithm = TPM2_ALG_NULL },
			.scheme = { .scheme = TPM2_ALG_ECDSA,
				    .details.ecdsa.hashAlg = TPM2_ALG_SHA256 },
			.curveID = TPM2_ECC_NIST_P256,
			.kdf = { .scheme = TPM2_ALG_NULL },
		},
	},
};

static const TPM2B_PUBLIC rsa_template = {
	.publicArea = {
		.type = TPM2_ALG_RSA,
		.nameAlg = TPM2_ALG_SHA256,
		.objectAttributes = TPMA_OBJECT_SIGN_ENCRYPT | TPMA_OBJECT_FIXEDTPM |
				    TPMA_OBJECT_FIXEDPARENT | TPMA_OBJECT_SENSITIVEDATAORIGIN |
				    TPMA_OBJECT_USERWITHAUTH,
		.parameters.rsaDetail = {
			.symmetric = { .algorithm = TPM2_ALG_NULL },
			.scheme = { .scheme = TPM2_ALG_RSASSA,
				    .details.rsassa.hashAlg = TPM2_ALG_SHA256 },
			.keyBits = 2048,
			.exponent = 0,
		},
	},
};

static TSS2_RC create_primary(ESYS_CONTEXT *ctx, const TPM2B_PUBLIC *tmpl, ESYS_TR *key)
{
	TPM2B_SENSITIVE_CREATE sens = { 0 };
	TPM2B_DATA outside = { 0 };
	TPML_PCR_SELECTION pcrs = { 0 };

	return Esys_CreatePrimary(ctx, ESYS_TR_RH_OWNER, ESYS_TR_PASSWORD, ESYS_TR_NONE,
				  ESYS_TR_NONE, &sens, tmpl, &outside, &pcrs, key, NULL, NULL,
				  NULL, NULL);
}

enum esys_op { OP_GETRANDOM, OP_PCR_EXTEND, OP_SIGN, OP_CREATE_PRIMARY };

struct esys_bench {
	const char *key, *label;
	enum esys_op op;
	const TPM2B_PUBLIC *tmpl;	/* Sign: key type; CreatePrimary: what to create */
	struct budget b;
};

static TSS2_RC esys_once(ESYS_CONTEXT *ctx, const struct esys_bench *eb, ESYS_TR key)
{
	TSS2_RC rc;

	switch (eb->op) {
	case OP_GETRANDOM: {
		TPM2B_DIGEST *r = NULL;

		rc = Esys_GetRandom(ctx, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, 32, &r);
		Esys_Free(r);
		return rc;
	}
	case OP_PCR_EXTEND: {
		TPML_DIGEST_VALUES d = { .count = 1 };

		d.digests[0].hashAlg = TPM2_ALG_SHA256;
		memset(d.digests[0].digest.sha256, 0x5a, 32);
		return Esys_PCR_Extend(ctx, ESYS_TR_PCR16, ESYS_TR_PASSWORD, ESYS_TR_NONE,
				       ESYS_TR_NONE, &d);
	}
	case OP_SIGN: {
		TPM2B_DIGEST digest = { .size = 32 };
		TPMT_SIG_SCHEME scheme = { .scheme = TPM2_ALG_NULL };	/* the key's */
		TPMT_TK_HASHCHECK ticket = { .tag = TPM2_ST_HASHCHECK, .hierarchy = TPM2_RH_NULL };
		TPMT_SIGNATURE *sig = NULL;

		memset(digest.buffer, 0xa5, 32);
		rc = Esys_Sign(ctx, key, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, &digest,
			       &scheme, &ticket, &sig);
		Esys_Free(sig);
		return rc;
	}
	case OP_CREATE_PRIMARY: {
		ESYS_TR k = ESYS_TR_NONE;

		rc = create_primary(ctx, eb->tmpl, &k);
		if (rc == TSS2_RC_SUCCESS)
			rc = Esys_FlushContext(ctx, k);
		return rc;
	}
	}
	return TSS2_BASE_RC_GENERAL_FAILURE;
}

static void bench_esys_one(ESYS_CONTEXT *ctx, const struct esys_bench *eb)
{
	double *t = calloc((size_t)eb->b.iters, sizeof(double)), start;
	ESYS_TR key = ESYS_TR_NONE;
	int i, done = 0, warm = eb->op == OP_CREATE_PRIMARY ? 1 : 5;
	TSS2_RC rc;

	if (!t)
		goto out;
	if (eb->op == OP_SIGN) {
		rc = create_primary(ctx, eb->tmpl, &key);
		if (rc != TSS2_RC_SUCCESS) {
			fprintf(stderr, "%s: CreatePrimary: 0x%x %s\n", eb->label, rc, Tss2_RC_Decode(rc));
			goto out;
		}
	}
	for (i = 0; i < warm; i++) {
		rc = esys_once(ctx, eb, key);
		if (rc != TSS2_RC_SUCCESS) {
			fprintf(stderr, "%s: 0x%x %s\n", eb->label, rc, Tss2_RC_Decode(rc));
			goto out;
		}
	}
	start = bench_now_us();
	for (i = 0; i < eb->b.iters && (i < 3 || bench_now_us() - start < eb->b.max_s * 1e6); i++) {
		double t0 = bench_now_us();

		rc = esys_once(ctx, eb, key);
		if (rc != TSS2_RC_SUCCESS) {
			fprintf(stderr, "%s: 0x%x %s\n", eb->label, rc, Tss2_RC_Decode(rc));
			break;
		}
		t[done++] = bench_now_us() - t0;
	}
out:
	if (key != ESYS_TR_NONE)
		Esys_FlushContext(ctx, key);
	bench_report(eb->key, eb->label, LABEL_WIDTH, t, done);
	free(t);
}

static void bench_esys(const struct target *tg)
{
	const struct esys_bench list[] = {
		{ "getrandom_esys", "GetRandom(32), tss2 TCTI (ESAPI)", OP_GETRANDOM, NULL,
		  budget(2000, 200, 10) },
		{ "pcr_extend", "PCR_Extend(16, SHA-256)", OP_PCR_EXTEND, NULL, budget(1000, 100, 10) },
		{ "sign_ecdsa", "Sign ECDSA P-256", OP_SIGN, &ecc_template, budget(500, 50, 10) },
		{ "sign_rsa", "Sign RSASSA RSA-2048", OP_SIGN, &rsa_template, budget(200, 20, 10) },
		{ "cp_ecc", "CreatePrimary ECC P-256 (+Flush)", OP_CREATE_PRIMARY, &ecc_template,
		  budget(100, 10, 10) },
		{ "cp_rsa", "CreatePrimary RSA-2048 (+Flush)", OP_CREATE_PRIMARY, &rsa_template,
		  budget(20, 3, 40) },
	};
	TSS2_TCTI_CONTEXT *tcti = NULL;
	ESYS_CONTEXT *ctx = NULL;
	TSS2_RC rc;
	size_t i;

	rc = Tss2_TctiLdr_Initialize(tg->tcti, &tcti);
	if (rc == TSS2_RC_SUCCESS)
		rc = Esys_Initialize(&ctx, tcti, NULL);
	if (rc == TSS2_RC_SUCCESS) {
		rc = Esys_Startup(ctx, TPM2_SU_CLEAR);
		if (rc == TPM2_RC_INITIALIZE)
			rc = TSS2_RC_SUCCESS;
	}
	if (rc != TSS2_RC_SUCCESS) {
		fprintf(stderr, "ESAPI setup with %s: 0x%x %s\n", tg->tcti, rc, Tss2_RC_Decode(rc));
		for (i = 0; i < sizeof(list) / sizeof(list[0]); i++)
			bench_report(list[i].key, list[i].label, LABEL_WIDTH, NULL, 0);
	} else {
		for (i = 0; i < sizeof(list) / sizeof(list[0]); i++)
			bench_esys_one(ctx, &list[i]);
	}
	if (ctx)
		Esys_Finalize(&ctx);
	if (tcti)
		Tss2_TctiLdr_Finalize(&tcti);
}

int main(int argc, char **argv)
{
	struct target tg;
	const char *q = getenv("BENCH_QUICK");

	if (argc != 5 || (strcmp(argv[2], "mssim") && strcmp(argv[2], "raw")) ||
	    atoi(argv[4]) <= 0 || atoi(argv[4]) > 65535) {
		fprintf(stderr, "usage: %s TCTI mssim|raw HOST PORT\n", argv[0]);
		return 2;
	}
	const char *mc = getenv("BENCH_MAX_CLIENTS");
	int max_clients = mc && atoi(mc) > 0 ? atoi(mc) : 4;

	quick = q && *q && strcmp(q, "0") != 0;
	tg = (struct target){ .tcti = argv[1], .host = argv[3], .port = (unsigned)atoi(argv[4]),
			      .mssim = !strcmp(argv[2], "mssim") };
	printf("tpm_bench: %s (raw %s %s:%u)%s\n", tg.tcti, argv[2], tg.host, tg.port,
	       quick ? ", quick" : "");
	/* One connection at a time where the server allows only one (swtpm): each phase closes
	 * its connection before the next opens. */
	const char *phases = getenv("BENCH_PHASES");
	int latency = !phases || !*phases || !strcmp(phases, "latency");
	int throughput = !phases || !*phases || !strcmp(phases, "throughput");

	if (!latency && !throughput) {
		fprintf(stderr, "BENCH_PHASES must be latency or throughput\n");
		return 2;
	}
	if (latency) {
		bench_esys(&tg);
		bench_raw_latency(&tg);
		bench_raw_keys(&tg);
	} else if (raw_startup(&tg) < 0) {
		bench_errors++;
	}
	for (int n = 1; throughput && n <= 4; n *= 2) {
		if (n <= max_clients)
			bench_throughput(&tg, n);
		else	/* e.g. swtpm: one connection at a time, the rest wait in the backlog */
			printf("RESULT\tgetrandom_ops_%d\tGetRandom(32) ops/s, %d clients\tops/s\tn/a\t-\t0\n",
			       n, n);
	}
	return bench_errors ? 1 : 0;
}
