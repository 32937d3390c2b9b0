/* NV latency benchmark against a running TPM simulator, raw client (one TCP connection,
 * TCP_NODELAY, one write per command), ownerAuth with an empty password.
 *
 *   nv_bench mssim|raw HOST PORT
 *
 * "mssim" frames each command as MSSIM TPM_SEND_COMMAND; "raw" sends bare TPM commands
 * (swtpm's command port). Defines three indices (an ordinary 64-byte one, a counter, an orderly
 * counter), measures, and deletes them:
 *   NV_Write 32 bytes (durable: the server has the state on disk before it answers),
 *   NV_Read 32 bytes, NV_Increment, NV_Increment of an orderly counter (RAM until rollover).
 * Output like tpm_bench: human-readable lines and
 *   RESULT<TAB>key<TAB>label<TAB>unit<TAB>median<TAB>p99<TAB>samples
 * BENCH_QUICK=1: fewer iterations. Without arguments it says how to run it and exits 0 (run.sh
 * runs unknown bench programs without arguments). Exits non-zero if a measurement failed. */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define MSSIM_SEND_COMMAND 8u
#define RSP_CAP 4096u
#define IDX_DATA 0x01500500u
#define IDX_COUNTER 0x01500501u
#define IDX_ORDERLY 0x01500502u
#define TPM_RC_INITIALIZE 0x100u
#define TPM_RC_NV_DEFINED 0x14Cu

static int fd = -1;
static int mssim;
static int errors;

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

static void report(const char *key, const char *label, double *t, int n)
{
	double med, p99;

	if (n == 0) {
		printf("%-44s failed\n", label);
		printf("RESULT\t%s\t%s\tus\t-\t-\t0\n", key, label);
		errors++;
		return;
	}
	qsort(t, (size_t)n, sizeof(t[0]), cmp_double);
	med = n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
	p99 = t[(int)ceil(0.99 * n) - 1];
	printf("%-44s median %10.1f us   p99 %10.1f us   (n=%d)\n", label, med, p99, n);
	printf("RESULT\t%s\t%s\tus\t%.1f\t%.1f\t%d\n", key, label, med, p99, n);
}

/* ---- the raw client ---- */

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int xfer(int out, uint8_t *p, size_t n)
{
	while (n > 0) {
		ssize_t r = out ? write(fd, p, n) : read(fd, p, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

static int connect_to(const char *host, unsigned port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	struct timeval tv = { .tv_sec = 10 };
	int one = 1;

	if (inet_pton(AF_INET, host, &sa.sin_addr) != 1)
		return -1;
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0 ||
	    connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		fprintf(stderr, "connect %s:%u: %s\n", host, port, strerror(errno));
		return -1;
	}
	return 0;
}

/* One command (one write); the response code, or -1 on a transport error. */
static long command(uint8_t *cmd, size_t len, uint8_t *rsp)
{
	uint8_t frame[9 + RSP_CAP], hdr[4];
	uint32_t size;

	if (mssim) {
		put32(frame, MSSIM_SEND_COMMAND);
		frame[4] = 0;
		put32(frame + 5, (uint32_t)len);
		memcpy(frame + 9, cmd, len);
		if (xfer(1, frame, 9 + len) || xfer(0, hdr, 4))
			return -1;
		size = be32(hdr);
		if (size < 10 || size > RSP_CAP || xfer(0, rsp, size) || xfer(0, hdr, 4))
			return -1;
	} else {
		if (xfer(1, cmd, len) || xfer(0, rsp, 10))
			return -1;
		size = be32(rsp + 2);
		if (size < 10 || size > RSP_CAP || xfer(0, rsp + 10, size - 10))
			return -1;
	}
	return (long)be32(rsp + 6);
}

/* ---- command builders: header, handles, a password session for the first handle ---- */

struct cmd {
	uint8_t b[512];
	size_t n;
};

static void begin(struct cmd *c, uint32_t cc, const uint32_t *handles, int nh, int auth)
{
	c->n = 0;
	put16(c->b, auth ? 0x8002 : 0x8001);
	put32(c->b + 6, cc);
	c->n = 10;
	for (int i = 0; i < nh; i++, c->n += 4)
		put32(c->b + c->n, handles[i]);
	if (auth) { /* size 9: TPM_RS_PW, empty nonce, continueSession, empty password */
		static const uint8_t pw[13] = { 0, 0, 0, 9, 0x40, 0, 0, 9, 0, 0, 1, 0, 0 };

		memcpy(c->b + c->n, pw, sizeof(pw));
		c->n += sizeof(pw);
	}
}

static void add(struct cmd *c, const void *p, size_t n)
{
	memcpy(c->b + c->n, p, n);
	c->n += n;
}

static void add16(struct cmd *c, uint16_t v)
{
	put16(c->b + c->n, v);
	c->n += 2;
}

static void add32(struct cmd *c, uint32_t v)
{
	put32(c->b + c->n, v);
	c->n += 4;
}

static long run(struct cmd *c)
{
	uint8_t rsp[RSP_CAP];

	put32(c->b + 2, (uint32_t)c->n);
	return command(c->b, c->n, rsp);
}

static long define(uint32_t idx, uint32_t attrs, uint16_t size)
{
	uint32_t h = 0x40000001; /* TPM_RH_OWNER */
	struct cmd c;

	begin(&c, 0x12A, &h, 1, 1);
	add16(&c, 0);		/* auth */
	add16(&c, 4 + 2 + 4 + 2 + 2);
	add32(&c, idx);
	add16(&c, 0x000B);	/* SHA-256 */
	add32(&c, attrs);
	add16(&c, 0);		/* no policy */
	add16(&c, size);
	return run(&c);
}

static long undefine(uint32_t idx)
{
	uint32_t h[2] = { 0x40000001, idx };
	struct cmd c;

	begin(&c, 0x122, h, 2, 1);
	return run(&c);
}

static long nv_write(uint32_t idx, const uint8_t *d, uint16_t n)
{
	uint32_t h[2] = { 0x40000001, idx };
	struct cmd c;

	begin(&c, 0x137, h, 2, 1);
	add16(&c, n);
	add(&c, d, n);
	add16(&c, 0);
	return run(&c);
}

static long nv_read(uint32_t idx, uint16_t n)
{
	uint32_t h[2] = { 0x40000001, idx };
	struct cmd c;

	begin(&c, 0x14E, h, 2, 1);
	add16(&c, n);
	add16(&c, 0);
	return run(&c);
}

static long nv_increment(uint32_t idx)
{
	uint32_t h[2] = { 0x40000001, idx };
	struct cmd c;

	begin(&c, 0x134, h, 2, 1);
	return run(&c);
}

/* ---- measurements ---- */

enum op { WRITE, READ, INCREMENT, INCREMENT_ORDERLY };

static long once(enum op op)
{
	static uint8_t data[32];

	data[0]++;
	switch (op) {
	case WRITE:
		return nv_write(IDX_DATA, data, sizeof(data));
	case READ:
		return nv_read(IDX_DATA, sizeof(data));
	case INCREMENT:
		return nv_increment(IDX_COUNTER);
	default:
		return nv_increment(IDX_ORDERLY);
	}
}

static void measure(enum op op, const char *key, const char *label, int iters, double max_s)
{
	double *t = calloc((size_t)iters, sizeof(double)), start = now_us();
	int n = 0;

	if (!t)
		return;
	for (int i = 0; i < 5; i++) /* warm up */
		if (once(op) != 0)
			break;
	while (n < iters && now_us() - start < max_s * 1e6) {
		double t0 = now_us();
		long rc = once(op);

		if (rc != 0) {
			fprintf(stderr, "%s: TPM rc 0x%lx\n", label, rc);
			n = 0;
			break;
		}
		t[n++] = now_us() - t0;
	}
	report(key, label, t, n);
	free(t);
}

#define ATTR_OWNER_RW 0x00020002u /* OWNERREAD | OWNERWRITE */
#define ATTR_COUNTER 0x00000010u  /* TPM_NT_COUNTER */
#define ATTR_ORDERLY 0x04000000u

int main(int argc, char **argv)
{
	uint8_t c[12] = { 0x80, 0x01, 0, 0, 0, 12, 0, 0, 0x01, 0x44, 0, 0 }, rsp[RSP_CAP];
	int quick = getenv("BENCH_QUICK") && atoi(getenv("BENCH_QUICK"));
	int iters = quick ? 100 : 1000;
	double max_s = quick ? 5 : 20;
	const uint32_t idx[3] = { IDX_DATA, IDX_COUNTER, IDX_ORDERLY };
	long rc;

	if (argc == 1) {
		printf("nv_bench: run by tests/bench/run.sh against each server "
		       "(nv_bench mssim|raw HOST PORT)\n");
		return 0;
	}
	if (argc != 4 || (strcmp(argv[1], "mssim") && strcmp(argv[1], "raw"))) {
		fprintf(stderr, "usage: nv_bench mssim|raw HOST PORT\n");
		return 2;
	}
	mssim = !strcmp(argv[1], "mssim");
	if (connect_to(argv[2], (unsigned)atoi(argv[3])) < 0)
		return 1;
	rc = command(c, sizeof(c), rsp); /* Startup(CLEAR), unless done */
	if (rc != 0 && rc != TPM_RC_INITIALIZE) {
		fprintf(stderr, "Startup: TPM rc 0x%lx\n", rc);
		return 1;
	}
	for (int i = 0; i < 3; i++)
		undefine(idx[i]); /* left over from an interrupted run */
	if (define(IDX_DATA, ATTR_OWNER_RW, 64) || define(IDX_COUNTER, ATTR_OWNER_RW | ATTR_COUNTER, 8) ||
	    define(IDX_ORDERLY, ATTR_OWNER_RW | ATTR_COUNTER | ATTR_ORDERLY, 8)) {
		fprintf(stderr, "NV_DefineSpace failed\n");
		return 1;
	}
	measure(WRITE, "nv_write", "NV_Write 32 B (durable)", iters, max_s);
	measure(READ, "nv_read", "NV_Read 32 B", iters, max_s);
	measure(INCREMENT, "nv_increment", "NV_Increment", iters, max_s);
	measure(INCREMENT_ORDERLY, "nv_increment_orderly", "NV_Increment, orderly counter", iters,
		max_s);
	for (int i = 0; i < 3; i++)
		if (undefine(idx[i]) != 0)
			errors++;
	close(fd);
	return errors ? 1 : 0;
}
