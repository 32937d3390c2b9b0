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
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <tss2/tss2_esys.h>
#include <tss2/tss2_rc.h>
#include <tss2/tss2_tctildr.h>

#define MSSIM_SEND_COMMAND 8u
#define RSP_CAP 8192u
#define TPM_RC_INITIALIZE 0x100u

static int quick;
static int errors;

/* ---- timing and statistics ---- */

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

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

static void report_latency(const char *key, const char *label, double *t, int n)
{
	double med, p99;

	if (n == 0) {
		printf("%-42s failed\n", label);
		printf("RESULT\t%s\t%s\tus\t-\t-\t0\n", key, label);
		errors++;
		return;
	}
	qsort(t, (size_t)n, sizeof(t[0]), cmp_double);
	med = n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
	p99 = t[(int)ceil(0.99 * n) - 1];
	printf("%-42s median %10.1f us   p99 %10.1f us   (n=%d)\n", label, med, p99, n);
	printf("RESULT\t%s\t%s\tus\t%.1f\t%.1f\t%d\n", key, label, med, p99, n);
}

/* ---- raw client ---- */

struct raw {
	int fd;
	int mssim;
};

static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static int raw_open(struct raw *c, const char *host, unsigned port, int mssim)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	struct timeval tv = { .tv_sec = 10 };
	int one = 1;

	c->mssim = mssim;
	if (inet_pton(AF_INET, host, &sa.sin_addr) != 1) {
		fprintf(stderr, "bad IPv4 address %s\n", host);
		return -1;
	}
	c->fd = socket(AF_INET, SOCK_STREAM, 0);
	if (c->fd < 0)
		return -1;
	if (setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0 ||
	    setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0 ||
	    setsockopt(c->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0 ||
	    connect(c->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		fprintf(stderr, "connect %s:%u: %s\n", host, port, strerror(errno));
		close(c->fd);
		c->fd = -1;
		return -1;
	}
	return 0;
}

static void raw_close(struct raw *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

/* Reads one reply whole into buf, with as few reads as the kernel allows (a reply that
 * arrived in one piece takes one read, for either kind of server): `at` is where the reply's
 * u32 size field sits, `extra` what follows the size it gives (MSSIM: the size field and the
 * trailing u32 acknowledgement; bare TPM: nothing, the size covers the header). Returns the
 * reply's length or -1. */
static long read_reply(int fd, uint8_t *buf, size_t cap, size_t at, size_t extra)
{
	size_t have = 0, need = at + 4;
	int sized = 0;

	while (have < need) {
		ssize_t r = read(fd, buf + have, cap - have);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		have += (size_t)r;
		if (!sized && have >= at + 4) {
			sized = 1;
			need = (size_t)be32(buf + at) + extra;
			if (need < at + 4 || need > cap)
				return -1;
		}
	}
	/* One command at a time: nothing may follow the reply. */
	return have == need ? (long)need : -1;
}

/* One command, one write, a reply read whole; returns the TPM response code, or -1 on a
 * transport error. */
static long raw_cmd(struct raw *c, const uint8_t *cmd, size_t len, uint8_t *rsp, size_t *rlen)
{
	uint8_t frame[9 + RSP_CAP], in[4 + RSP_CAP + 4];
	uint32_t size;
	long n;

	if (len > RSP_CAP)
		return -1;
	if (c->mssim) {
		put32(frame, MSSIM_SEND_COMMAND);
		frame[4] = 0;	/* locality */
		put32(frame + 5, (uint32_t)len);
		memcpy(frame + 9, cmd, len);
		if (write_all(c->fd, frame, 9 + len) < 0)
			return -1;
		n = read_reply(c->fd, in, sizeof(in), 0, 8);
		if (n < 0)
			return -1;
		size = be32(in);
		if (size < 10 || size > RSP_CAP || be32(in + 4 + size) != 0)
			return -1;
		memcpy(rsp, in + 4, size);
	} else {
		if (write_all(c->fd, cmd, len) < 0)
			return -1;
		n = read_reply(c->fd, rsp, RSP_CAP, 2, 0);
		if (n < 10)
			return -1;
		size = (uint32_t)n;
	}
	*rlen = size;
	return (long)be32(rsp + 6);
}

static const uint8_t cmd_get_random32[12] = {
	0x80, 0x01, 0x00, 0x00, 0x00, 0x0c, 0x00, 0x00, 0x01, 0x7b, 0x00, 0x20,
};
static const uint8_t cmd_startup_clear[12] = {
	0x80, 0x01, 0x00, 0x00, 0x00, 0x0c, 0x00, 0x00, 0x01, 0x44, 0x00, 0x00,
};

static int raw_get_random(struct raw *c)
{
	uint8_t rsp[RSP_CAP];
	size_t n;

	return raw_cmd(c, cmd_get_random32, sizeof(cmd_get_random32), rsp, &n) == 0 &&
	       n == 10 + 2 + 32 ? 0 : -1;
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
	struct raw c;
	uint8_t rsp[RSP_CAP];
	size_t n;
	double *t = calloc((size_t)b.iters, sizeof(double)), start;
	int i, done = 0;
	long rc;

	if (!t || raw_open(&c, tg->host, tg->port, tg->mssim) < 0) {
		report_latency("getrandom_raw", "GetRandom(32), raw socket", t, 0);
		free(t);
		return;
	}
	rc = raw_cmd(&c, cmd_startup_clear, sizeof(cmd_startup_clear), rsp, &n);
	if (rc != 0 && rc != TPM_RC_INITIALIZE)
		fprintf(stderr, "raw Startup: rc %ld\n", rc);
	for (i = 0; i < 20; i++)
		raw_get_random(&c);
	start = now_us();
	for (i = 0; i < b.iters && now_us() - start < b.max_s * 1e6; i++) {
		double t0 = now_us();

		if (raw_get_random(&c) < 0) {
			fprintf(stderr, "raw GetRandom failed at %d\n", i);
			break;
		}
		t[done++] = now_us() - t0;
	}
	raw_close(&c);
	report_latency("getrandom_raw", "GetRandom(32), raw socket", t, done);
	free(t);
}

/* Startup(CLEAR) on a connection of its own, for a run without the latency phases (which
 * send it). Returns 0 if the TPM is started. */
static int raw_startup(const struct target *tg)
{
	uint8_t rsp[RSP_CAP];
	struct raw c;
	size_t n;
	long rc;

	if (raw_open(&c, tg->host, tg->port, tg->mssim) < 0)
		return -1;
	rc = raw_cmd(&c, cmd_startup_clear, sizeof(cmd_startup_clear), rsp, &n);
	raw_close(&c);
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
	struct raw c;
	int ok = raw_open(&c, w->tg->host, w->tg->port, w->tg->mssim) == 0;

	pthread_barrier_wait(w->barrier);
	if (!ok) {
		w->failed = 1;
		return NULL;
	}
	while (now_us() < w->deadline) {
		if (raw_get_random(&c) < 0) {
			w->failed = 1;
			break;
		}
		if (now_us() <= w->deadline)
			w->ops++;
	}
	raw_close(&c);
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
	double deadline = now_us() + 50e3 + secs * 1e6;
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
		printf("%-42s failed (a client lost its connection)\n", label);
		printf("RESULT\t%s\t%s\tops/s\t-\t-\t0\n", key, label);
		errors++;
		return;
	}
	printf("%-42s %10.0f ops/s   (%ld in %.1f s)\n", label, total / secs, total, secs);
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
	start = now_us();
	for (i = 0; i < eb->b.iters && (i < 3 || now_us() - start < eb->b.max_s * 1e6); i++) {
		double t0 = now_us();

		rc = esys_once(ctx, eb, key);
		if (rc != TSS2_RC_SUCCESS) {
			fprintf(stderr, "%s: 0x%x %s\n", eb->label, rc, Tss2_RC_Decode(rc));
			break;
		}
		t[done++] = now_us() - t0;
	}
out:
	if (key != ESYS_TR_NONE)
		Esys_FlushContext(ctx, key);
	report_latency(eb->key, eb->label, t, done);
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
			report_latency(list[i].key, list[i].label, NULL, 0);
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
	} else if (raw_startup(&tg) < 0) {
		errors++;
	}
	for (int n = 1; throughput && n <= 4; n *= 2) {
		if (n <= max_clients)
			bench_throughput(&tg, n);
		else	/* e.g. swtpm: one connection at a time, the rest wait in the backlog */
			printf("RESULT\tgetrandom_ops_%d\tGetRandom(32) ops/s, %d clients\tops/s\tn/a\t-\t0\n",
			       n, n);
	}
	return errors ? 1 : 0;
}
