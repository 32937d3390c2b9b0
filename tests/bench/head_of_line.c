/* Head-of-line blocking (issue 14, docs/engine-concurrency.md): client B's GetRandom round trip
 * alone, then while client A, in another thread, makes RSA-3072 primaries with unique templates
 * (a primary-cache miss each time) and flushes them. B's commands are paced 200 us apart.
 * Prints median, p99 and max of each, and how many keys A made.
 *
 *   head_of_line              an in-process engine (A and B its clients, pqtpm_engine_execute),
 *                             then a pqtpm-server of this build (A and B on two connections)
 *   head_of_line HOST PORT    a running pqtpm-server (MSSIM command port) only
 * Not pinned: A's key generation takes a CPU, B and the server need another.
 * BENCH_QUICK=1: fewer samples and keys. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pqtpm/engine.h>
#include <pqtpm/tpm2.h>

#include "common/bench.h"
#include "common/bench_server.h"
#include "marshal.h"

#define MAX_SAMPLES 20000
#define PACE_NS 200000L

/* A client of the TPM: of the in-process engine, or a connection to the server. */
struct peer {
	struct pqtpm_client *cl;
	struct bench_conn conn;
};

static struct pqtpm_engine *engine;
static const char *host;
static unsigned port;
static atomic_int stop;
static atomic_uint keys_made;
static atomic_int a_errors; /* A's thread: added to bench_errors after the join */

static size_t get_random_cmd(uint8_t *buf, size_t cap)
{
	struct wr w;

	wr_init(&w, buf, cap);
	wr_u16(&w, TPM_ST_NO_SESSIONS);
	wr_u32(&w, 12);
	wr_u32(&w, TPM_CC_GetRandom);
	wr_u16(&w, 16);
	return w.off;
}

static size_t startup_cmd(uint8_t *buf, size_t cap)
{
	struct wr w;

	wr_init(&w, buf, cap);
	wr_u16(&w, TPM_ST_NO_SESSIONS);
	wr_u32(&w, 12);
	wr_u32(&w, TPM_CC_Startup);
	wr_u16(&w, TPM_SU_CLEAR);
	return w.off;
}

/* CreatePrimary(owner) of an RSA-3072 signing key whose unique field holds n. */
static size_t create_primary_cmd(uint8_t *buf, size_t cap, uint32_t n)
{
	struct wr w;
	size_t mark;

	wr_init(&w, buf, cap);
	wr_u16(&w, TPM_ST_SESSIONS);
	wr_u32(&w, 0);
	wr_u32(&w, TPM_CC_CreatePrimary);
	wr_u32(&w, TPM_RH_OWNER);
	wr_u32(&w, 4 + 2 + 1 + 2); /* one empty password session */
	wr_u32(&w, TPM_RS_PW);
	wr_u16(&w, 0);
	wr_u8(&w, 0);
	wr_u16(&w, 0);
	wr_u16(&w, 4);	/* inSensitive: empty userAuth and data */
	wr_u16(&w, 0);
	wr_u16(&w, 0);
	wr_size_begin(&w, &mark);
	wr_u16(&w, TPM_ALG_RSA);
	wr_u16(&w, TPM_ALG_SHA256);
	wr_u32(&w, TPMA_OBJECT_SIGN_ENCRYPT | TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT |
			   TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_USERWITHAUTH);
	wr_u16(&w, 0);			/* authPolicy */
	wr_u16(&w, TPM_ALG_NULL);	/* symmetric */
	wr_u16(&w, TPM_ALG_NULL);	/* scheme */
	wr_u16(&w, 3072);
	wr_u32(&w, 0);			/* exponent */
	wr_u16(&w, sizeof(n));		/* unique */
	wr_u32(&w, n);
	wr_size_end(&w, mark);
	wr_u16(&w, 0);	/* outsideInfo */
	wr_u32(&w, 0);	/* creationPCR */
	wr_patch_u32(&w, 2, (uint32_t)w.off);
	return w.off;
}

static size_t flush_cmd(uint8_t *buf, size_t cap, uint32_t handle)
{
	struct wr w;

	wr_init(&w, buf, cap);
	wr_u16(&w, TPM_ST_NO_SESSIONS);
	wr_u32(&w, 14);
	wr_u32(&w, TPM_CC_FlushContext);
	wr_u32(&w, handle);
	return w.off;
}

static int peer_open(struct peer *p)
{
	memset(p, 0, sizeof(*p));
	if (host)
		return bench_connect(&p->conn, host, port, 1);
	p->cl = pqtpm_client_new(engine);
	return p->cl ? 0 : -1;
}

static void peer_close(struct peer *p)
{
	if (host)
		bench_close(&p->conn);
	else
		pqtpm_client_free(p->cl);
}

/* One command: its response code, or -1 */
static long peer_cmd(struct peer *p, const uint8_t *cmd, size_t len, uint8_t *rsp, size_t cap)
{
	size_t rlen = 0;

	if (host)
		return bench_cmd(&p->conn, cmd, len, rsp, cap, &rlen);
	if (pqtpm_engine_execute(p->cl, 0, cmd, len, rsp, cap, &rlen) != 0 || rlen < 10)
		return -1;
	return (long)bench_get32(rsp + 6);
}

static void *a_keygens(void *arg)
{
	static uint8_t cmd[1024], rsp[BENCH_RSP_CAP];
	struct peer a;
	uint32_t n = 0;

	(void)arg;
	if (peer_open(&a) != 0) {
		atomic_fetch_add(&a_errors, 1);
		return NULL;
	}
	while (!atomic_load(&stop)) {
		size_t len = create_primary_cmd(cmd, sizeof(cmd), ++n);

		if (peer_cmd(&a, cmd, len, rsp, sizeof(rsp)) != TPM_RC_SUCCESS) {
			atomic_fetch_add(&a_errors, 1);
			break;
		}
		atomic_fetch_add(&keys_made, 1);
		len = flush_cmd(cmd, sizeof(cmd), bench_get32(rsp + 10));
		if (peer_cmd(&a, cmd, len, rsp, sizeof(rsp)) != TPM_RC_SUCCESS) {
			atomic_fetch_add(&a_errors, 1);
			break;
		}
	}
	peer_close(&a);
	return NULL;
}

/* B's GetRandom round trips: n of them, or until A made `keys` keys when keys > 0. */
static int measure(struct peer *b, double *t, int n, unsigned keys)
{
	static uint8_t cmd[64], rsp[BENCH_RSP_CAP];
	size_t len = get_random_cmd(cmd, sizeof(cmd));
	struct timespec pace = { 0, PACE_NS };
	int i;

	for (i = 0; i < n && (!keys || atomic_load(&keys_made) < keys); i++) {
		double t0 = bench_now_us();

		if (peer_cmd(b, cmd, len, rsp, sizeof(rsp)) != TPM_RC_SUCCESS) {
			bench_errors++;
			return 0;
		}
		t[i] = bench_now_us() - t0;
		nanosleep(&pace, NULL);
	}
	return i;
}

static double max_of(const double *t, int n)
{
	double m = 0;

	for (int i = 0; i < n; i++)
		m = t[i] > m ? t[i] : m;
	return m;
}

/* B alone, then B while A makes keys, against the engine or the server set in host/port. */
static void head_of_line(bool quick)
{
	static double alone[MAX_SAMPLES], during[MAX_SAMPLES];
	static uint8_t cmd[64], rsp[BENCH_RSP_CAP];
	const char *mode = host ? "mssim" : "inproc";
	unsigned keys = quick ? 3 : 10;
	int n_alone, n_during;
	double max_alone, max_during;
	char key[64];
	struct peer b;
	pthread_t a;
	long rc;

	atomic_store(&stop, 0);
	atomic_store(&keys_made, 0);
	if (peer_open(&b) != 0) {
		bench_errors++;
		return;
	}
	rc = peer_cmd(&b, cmd, startup_cmd(cmd, sizeof(cmd)), rsp, sizeof(rsp));
	if (rc != TPM_RC_SUCCESS && rc != TPM_RC_INITIALIZE) {
		fprintf(stderr, "head_of_line: Startup: rc %ld\n", rc);
		bench_errors++;
		peer_close(&b);
		return;
	}
	n_alone = measure(&b, alone, quick ? 500 : 2000, 0);
	max_alone = max_of(alone, n_alone);
	if (pthread_create(&a, NULL, a_keygens, NULL) != 0) {
		bench_errors++;
		peer_close(&b);
		return;
	}
	n_during = measure(&b, during, MAX_SAMPLES, keys);
	max_during = max_of(during, n_during);
	atomic_store(&stop, 1);
	pthread_join(a, NULL);
	bench_errors += atomic_load(&a_errors);
	atomic_store(&a_errors, 0);
	peer_close(&b);
	printf("head of line, %s: B's GetRandom round trip (us)\n",
	       host ? "over MSSIM" : "in process");
	snprintf(key, sizeof(key), "hol_%s_alone", mode);
	bench_report(key, host ? "MSSIM: GetRandom alone" : "in process: GetRandom alone", 56,
		     alone, n_alone);
	snprintf(key, sizeof(key), "hol_%s_alone_max", mode);
	bench_value(key, host ? "MSSIM: GetRandom alone, max" : "in process: GetRandom alone, max",
		    56, "us", max_alone, n_alone);
	snprintf(key, sizeof(key), "hol_%s_keygen", mode);
	bench_report(key,
		     host ? "MSSIM: GetRandom while A makes RSA-3072 keys"
			  : "in process: GetRandom while A makes RSA-3072 keys",
		     56, during, n_during);
	snprintf(key, sizeof(key), "hol_%s_keygen_max", mode);
	bench_value(key,
		    host ? "MSSIM: GetRandom while A makes RSA-3072 keys, max"
			 : "in process: GetRandom while A makes RSA-3072 keys, max",
		    56, "us", max_during, n_during);
	printf("  A made %u keys meanwhile\n", atomic_load(&keys_made));
}

int main(int argc, char **argv)
{
	struct pqtpm_engine_config cfg = { .log_level = PQTPM_LOG_ERROR, .auto_startup = 1 };
	const char *q = getenv("BENCH_QUICK");
	bool quick = q && *q && strcmp(q, "0") != 0;
	struct bench_server server;
	char err[256];

	if (argc == 3) {
		host = argv[1];
		port = (unsigned)strtoul(argv[2], NULL, 10);
		head_of_line(quick);
		return bench_errors ? 1 : 0;
	}
	if (argc != 1) {
		fprintf(stderr, "usage: head_of_line [HOST PORT]\n");
		return 2;
	}
	if (pqtpm_engine_open(&engine, &cfg, err, sizeof(err)) != 0) {
		fprintf(stderr, "head_of_line: %s\n", err);
		return 1;
	}
	head_of_line(quick);
	pqtpm_engine_close(engine);
	engine = NULL;
	if (bench_server_start(&server, argv[0]) != 0) {
		fprintf(stderr, "head_of_line: cannot start pqtpm-server\n");
		return 1;
	}
	host = "127.0.0.1";
	port = server.port;
	head_of_line(quick);
	bench_server_stop(&server);
	return bench_errors ? 1 : 0;
}
