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
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bench.h"

#define IDX_DATA 0x01500500u
#define IDX_COUNTER 0x01500501u
#define IDX_ORDERLY 0x01500502u
#define TPM_RC_INITIALIZE 0x100u
#define TPM_RC_NV_DEFINED 0x14Cu

static struct bench_conn conn = { .fd = -1 };

/* One command; the response code, or -1 on a transport error. */
static long command(const uint8_t *cmd, size_t len, uint8_t *rsp)
{
	size_t n;

	return bench_cmd(&conn, cmd, len, rsp, BENCH_RSP_CAP, &n);
}

/* ---- command builders: header, handles, a password session for the first handle ---- */

struct cmd {
	uint8_t b[512];
	size_t n;
};

static void begin(struct cmd *c, uint32_t cc, const uint32_t *handles, int nh, int auth)
{
	c->n = 0;
	bench_put16(c->b, auth ? 0x8002 : 0x8001);
	bench_put32(c->b + 6, cc);
	c->n = 10;
	for (int i = 0; i < nh; i++, c->n += 4)
		bench_put32(c->b + c->n, handles[i]);
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
	bench_put16(c->b + c->n, v);
	c->n += 2;
}

static void add32(struct cmd *c, uint32_t v)
{
	bench_put32(c->b + c->n, v);
	c->n += 4;
}

static long run(struct cmd *c)
{
	uint8_t rsp[BENCH_RSP_CAP];

	bench_put32(c->b + 2, (uint32_t)c->n);
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
	double *t = calloc((size_t)iters, sizeof(double)), start = bench_now_us();
	int n = 0;

	if (!t)
		return;
	for (int i = 0; i < 5; i++) /* warm up */
		if (once(op) != 0)
			break;
	while (n < iters && bench_now_us() - start < max_s * 1e6) {
		double t0 = bench_now_us();
		long rc = once(op);

		if (rc != 0) {
			fprintf(stderr, "%s: TPM rc 0x%lx\n", label, rc);
			n = 0;
			break;
		}
		t[n++] = bench_now_us() - t0;
	}
	bench_report(key, label, 44, t, n);
	free(t);
}

#define ATTR_OWNER_RW 0x00020002u /* OWNERREAD | OWNERWRITE */
#define ATTR_COUNTER 0x00000010u  /* TPM_NT_COUNTER */
#define ATTR_ORDERLY 0x04000000u

int main(int argc, char **argv)
{
	uint8_t c[12] = { 0x80, 0x01, 0, 0, 0, 12, 0, 0, 0x01, 0x44, 0, 0 }, rsp[BENCH_RSP_CAP];
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
	if (bench_connect(&conn, argv[2], (unsigned)atoi(argv[3]), !strcmp(argv[1], "mssim")) < 0)
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
			bench_errors++;
	bench_close(&conn);
	return bench_errors ? 1 : 0;
}
