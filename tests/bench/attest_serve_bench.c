/* pqtpm-attest serve under load: a serve process of this build (BUILD/bin/pqtpm-attest beside
 * BUILD/bench/) on a free loopback port, evidence quoted here (an engine in this process) with
 * the nonce of its GET /v1/challenge, then POST /v1/verify over keep-alive connections: the
 * latency of one request (one client) and evidence per second with 1, 2 and 4 concurrent
 * clients, per AK algorithm. Every answer must be 200 and valid. Figures only.
 *
 * Environment: BENCH_QUICK=1 for fewer requests. Output: a table, and RESULT lines as
 * common/bench.h prints them. Exits non-zero if a measurement failed.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pqtpm/attest.h>
#include <pqtpm/engine.h>

#include "common/bench.h"
#include "common/bench_server.h"

#define MAX_SAMPLES 2000
#define MAX_CLIENTS 4
#define RESPONSE_CAP 65536

static unsigned port;
static int requests;

static int connect_serve(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;

	if (fd < 0)
		return -1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static int send_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t k = send(fd, p, n, MSG_NOSIGNAL);

		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* One request on a keep-alive connection; the body of the answer in resp (NUL-terminated).
 * Returns the HTTP status, or -1. */
static int http(int fd, const char *method, const char *path, const char *body, char *resp)
{
	char head[256], *end = NULL, *cl;
	size_t have = 0, need, blen = body ? strlen(body) : 0;
	int status;

	snprintf(head, sizeof(head),
		 "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
		 "Content-Length: %zu\r\n\r\n", method, path, blen);
	if (send_all(fd, head, strlen(head)) || (blen && send_all(fd, body, blen)))
		return -1;
	while (!end) {
		ssize_t k = recv(fd, resp + have, RESPONSE_CAP - 1 - have, 0);

		if (k <= 0)
			return -1;
		have += (size_t)k;
		resp[have] = 0;
		end = strstr(resp, "\r\n\r\n");
	}
	cl = strcasestr(resp, "\r\nContent-Length:");
	if (sscanf(resp, "HTTP/1.1 %d", &status) != 1 || !cl || cl > end)
		return -1;
	need = (size_t)(end + 4 - resp) + strtoul(cl + 17, NULL, 10);
	if (need >= RESPONSE_CAP)
		return -1;
	while (have < need) {
		ssize_t k = recv(fd, resp + have, need - have, 0);

		if (k <= 0)
			return -1;
		have += (size_t)k;
	}
	resp[have] = 0;
	memmove(resp, end + 4, have - (size_t)(end + 4 - resp) + 1);
	return status;
}

struct client {
	const char *body;
	double *samples; /* NULL: not kept */
	int n, good;
};

static void *client_loop(void *arg)
{
	struct client *c = arg;
	char *resp = malloc(RESPONSE_CAP);
	int fd = connect_serve();

	for (int i = 0; resp && fd >= 0 && i < c->n; i++) {
		double t0 = bench_now_us();
		int st = http(fd, "POST", "/v1/verify", c->body, resp);

		if (c->samples)
			c->samples[i] = bench_now_us() - t0;
		if (st != 200 || !strstr(resp, "\"valid\":true"))
			break;
		c->good++;
	}
	if (fd >= 0)
		close(fd);
	free(resp);
	return NULL;
}

/* evidence per second of clients concurrent clients, requests each */
static double throughput(const char *body, int clients)
{
	pthread_t tid[MAX_CLIENTS];
	struct client c[MAX_CLIENTS];
	double t0 = bench_now_us(), dt;
	int good = 0;

	for (int i = 0; i < clients; i++) {
		c[i] = (struct client){ .body = body, .n = requests };
		if (pthread_create(&tid[i], NULL, client_loop, &c[i]) != 0)
			return 0;
	}
	for (int i = 0; i < clients; i++) {
		pthread_join(tid[i], NULL);
		good += c[i].good;
	}
	dt = bench_now_us() - t0;
	if (good != clients * requests) {
		fprintf(stderr, "attest_serve_bench: %d of %d requests failed\n",
			clients * requests - good, clients * requests);
		bench_errors++;
		return 0;
	}
	return dt > 0 ? good * 1e6 / dt : 0;
}

/* the POST /v1/verify body of a quote by a new AK of alg, with a challenge of the server */
static char *request_body(struct pqtpm_tss *t, const char *alg)
{
	struct pqtpm_tss_pcr_select sel[1];
	uint8_t nonce[PQTPM_ATTEST_MAX_NONCE];
	struct pqtpm_attest_ak ak;
	char *resp = malloc(RESPONSE_CAP), *body = NULL, *b64;
	json_t *ch = NULL, *ev = NULL, *req;
	TPM_HANDLE ek, akh;
	size_t nsel, nlen;
	int fd = connect_serve();

	if (resp && fd >= 0 && http(fd, "GET", "/v1/challenge", NULL, resp) == 200)
		ch = json_loads(resp, 0, NULL);
	if (ch && !pqtpm_attest_unhex(json_string_value(json_object_get(ch, "nonce")), nonce,
				      sizeof(nonce), &nlen) &&
	    !pqtpm_attest_pcrs_parse("sha256:0,1,2,3,4,5,6,7", sel, 1, &nsel) &&
	    !pqtpm_attest_ak_create(t, alg, "ecc-p256", &ak) &&
	    !pqtpm_attest_ak_load(t, &ak, &ek, &akh)) {
		if (pqtpm_attest_quote(t, &ak, akh, nonce, nlen, sel, nsel, NULL, NULL, 0, &ev))
			ev = NULL;
		pqtpm_tss_flush(t, akh);
		pqtpm_tss_flush(t, ek);
	}
	b64 = ev ? pqtpm_attest_b64url(ak.pub.b, ak.pub.size) : NULL;
	req = b64 ? json_pack("{s:O, s:s}", "evidence", ev, "ak_public", b64) : NULL;
	if (req)
		body = json_dumps(req, JSON_COMPACT);
	json_decref(req);
	json_decref(ev);
	json_decref(ch);
	free(b64);
	free(resp);
	if (fd >= 0)
		close(fd);
	return body;
}

static void one_alg(struct pqtpm_tss *t, const char *alg)
{
	static double samples[MAX_SAMPLES];
	struct client one;
	char key[64], label[64], *body = request_body(t, alg);

	if (!body) {
		fprintf(stderr, "attest_serve_bench: no evidence of %s for serve\n", alg);
		bench_errors++;
		return;
	}
	one = (struct client){ .body = body, .samples = samples, .n = requests };
	client_loop(&one);
	snprintf(key, sizeof(key), "attest_serve_verify_%s", alg);
	snprintf(label, sizeof(label), "serve verify %s (1 client)", alg);
	bench_report(key, label, 36, samples, one.good == requests ? requests : 0);
	printf("  %-34s %7.0f evidence/s, 1 client; %7.0f, 2; %7.0f, 4\n", alg,
	       throughput(body, 1), throughput(body, 2), throughput(body, 4));
	free(body);
}

int main(int argc, char **argv)
{
	static const char *const algs[] = { "rsa2048", "ecc-p256", "mldsa44", "mldsa65", "mldsa87" };
	struct pqtpm_engine_config cfg = { .log_level = PQTPM_LOG_ERROR, .auto_startup = 1 };
	const char *quick = getenv("BENCH_QUICK"), *slash = strrchr(argv[0], '/');
	char bin[4096], dir[] = "/tmp/pqtpm-serve-bench.XXXXXX", keyfile[64], portarg[16];
	struct pqtpm_engine *e;
	struct pqtpm_tss *t;
	pid_t pid;
	int fd = -1;

	requests = quick && *quick == '1' ? 200 : MAX_SAMPLES;
	snprintf(bin, sizeof(bin), "%.*s/../bin/pqtpm-attest", slash ? (int)(slash - argv[0]) : 1,
		 slash ? argv[0] : ".");
	if (access(bin, X_OK) || !mkdtemp(dir) || bench_free_port(&port)) {
		fprintf(stderr, "attest_serve_bench: no %s, temporary directory or port\n", bin);
		return 1;
	}
	snprintf(keyfile, sizeof(keyfile), "%s/key", dir);
	snprintf(portarg, sizeof(portarg), "%u", port);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		execl(bin, bin, "serve", "--port", portarg, "--key", keyfile, (char *)NULL);
		_exit(127);
	}
	/* it may need a moment to listen */
	for (int i = 0; pid > 0 && i < 100 && (fd = connect_serve()) < 0; i++)
		usleep(50000);
	if (fd >= 0)
		close(fd);
	if (fd < 0 || pqtpm_engine_open(&e, &cfg, NULL, 0) || pqtpm_tss_open_engine(&t, e)) {
		fprintf(stderr, "attest_serve_bench: no serve process or engine\n");
		bench_errors++;
	} else {
		printf("attestation: POST /v1/verify to pqtpm-attest serve, median / p99 us\n");
		for (size_t i = 0; i < sizeof(algs) / sizeof(algs[0]); i++)
			one_alg(t, algs[i]);
		pqtpm_tss_close(t);
		pqtpm_engine_close(e);
	}
	if (pid > 0) {
		kill(pid, SIGTERM);
		waitpid(pid, NULL, 0);
	}
	unlink(keyfile);
	rmdir(dir);
	return bench_errors ? 1 : 0;
}
